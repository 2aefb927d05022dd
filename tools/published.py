"""The published results tools/catalogue.py sets its codes beside: Tomek
Czajka's tables (github.com/tczajka/octal-games: TrivialGames.md,
SolvedGames.md, UnsolvedGames.md, GameLookup.md), which gather Winning
Ways', Flammenkamp's and their own results for every octal game of up to
three code digits. Read from a checkout given on the command line; nothing
of them is kept in this repository.

A code is set beside its game (GameLookup.md names, for each code, the
smallest code with the same sequence, perhaps shifted by a heap or more when
a heap of one token has no move; a code not named is its own): the lookup
agrees when our two sequences are the same shifted by at most 3 heaps; the
result agrees when the published period (and for a trivial game its values,
and the preperiod) is ours, and an unsolved game is one we did not prove.
"""

import os
import re
from typing import Optional

# The mistakes the tables' author reports in others' tables (README.md of
# tczajka/octal-games), checked against our sequences: (code, code, claim).
CLAIMS = [
    ("0.27", "0.26", "Winning Ways' locator maps .27 to .06; it is .26"),
    ("0.314", "0.31", "Winning Ways' locator maps .314 to .31; they differ"),
    ("0.161", "0.36", "Flammenkamp's tables map .161 to .36; they first differ at heap 519"),
]
MAX_SHIFT = 3


def norm(code: str) -> str:
    """'.26' -> '0.26', '4' -> '4.0', '4.12' -> '4.12': the catalogue's names."""
    whole, _, tail = code.strip().partition(".")
    tail = tail.rstrip("0")
    return f"{whole or '0'}.{tail or '0'}"


def nimbers(text: str, count: int) -> list[int]:
    """'01(20)' -> the first `count` values: a preperiod, a period in brackets;
    digits 0-9 then A-Z for 10 and up."""
    m = re.fullmatch(r"([0-9A-Z]*)\(([0-9A-Z]+)\)", text.strip())
    if not m:
        raise ValueError(f"nimbers '{text}'")
    head, period = ([int(ch, 36) for ch in part] for part in m.groups())
    out = head[:count]
    while len(out) < count:
        out.extend(period[:count - len(out)])
    return out


def table_rows(path: str) -> list[list[str]]:
    """The rows of the Markdown tables in `path` (a row may be one cell: a
    game listed with nothing beside it), header and rule lines left out."""
    rows = []
    for line in open(path, encoding="utf-8"):
        if "|" not in line:
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells[0] and not cells[0].startswith(":") and cells[0] != "game":
            rows.append(cells)
    return rows


def shift_between(a: list[int], b: list[int]) -> Optional[int]:
    """The s, |s| <= MAX_SHIFT, with a[n + s] == b[n] for every n >= 1 where
    both are computed (heap 0 is worth 0 in every game): the heaps one
    sequence is the other's shifted by, either way."""
    for s in range(-MAX_SHIFT, MAX_SHIFT + 1):
        x, y = (a[s:], b) if s >= 0 else (a, b[-s:])
        n = min(len(x), len(y))
        if n > 64 and x[1:n] == y[1:n]:
            return s
    return None


def first_difference(a: list[int], b: list[int]) -> Optional[int]:
    """How far the two agree at best: the largest n, over the shifts s of
    shift_between(), with a[k + s] == b[k] for 1 <= k < n (None: they agree
    as far as both are computed)."""
    best = 0
    for s in range(-MAX_SHIFT, MAX_SHIFT + 1):
        x, y = (a[s:], b) if s >= 0 else (a, b[-s:])
        n = 1
        while n < len(x) and n < len(y) and x[n] == y[n]:
            n += 1
        if n >= len(x) or n >= len(y):
            return None
        best = max(best, n)
    return best


class Book:
    def __init__(self, root: str):
        def path(name: str) -> str:
            p = os.path.join(root, name)
            if not os.path.exists(p):
                raise SystemExit(f"{root}: no {name} (give a checkout of tczajka/octal-games)")
            return p
        self.lookup: dict[str, str] = {}
        for cells in table_rows(path("GameLookup.md")):
            prefix = cells[0].rstrip("x")
            for d, target in enumerate(cells[1:8], start=1):
                if target != "-":
                    self.lookup[norm(f"{prefix}{d}")] = norm(target)
        self.trivial: dict[str, tuple[int, int, str]] = {}
        for cells in table_rows(path("TrivialGames.md")):
            self.trivial[norm(cells[0])] = (int(cells[1]), int(cells[2]), cells[3])
        self.solved: dict[str, tuple[int, int]] = {}
        for cells in table_rows(path("SolvedGames.md")):
            self.solved[norm(cells[0])] = (int(cells[1]), int(cells[2]))
        self.unsolved = {norm(c[0]) for c in table_rows(path("UnsolvedGames.md"))
                         if re.fullmatch(r"4?\.[0-7]+", c[0])}
        self.values: dict[str, list[int]] = {}  # every code's: set before compare()

    def game(self, code: str) -> str:
        seen = [code]
        while seen[-1] in self.lookup and self.lookup[seen[-1]] not in seen:
            seen.append(self.lookup[seen[-1]])
        return seen[-1]

    def compare(self, code: str, status: str, n0, period, values: list[int]) -> dict:
        game = self.game(code)
        row = {"published_game": game, "published": "", "published_agrees": ""}
        if game in self.trivial:
            p0, pp, text = self.trivial[game]
            row["published"] = f"trivial: preperiod {p0}, period {pp}"
        elif game in self.solved:
            p0, pp = self.solved[game]
            row["published"] = f"solved: preperiod {p0}, period {pp}"
        elif game in self.unsolved:
            row["published"] = "unsolved"
        else:
            row["published"] = "not listed"
            return row
        why = []
        if game != code:
            other = self.values.get(game)
            if other is None:
                why.append(f"its game {game} is not in this catalogue")
            elif shift_between(self.values[code], other) is None:
                why.append(f"the lookup: its values are not {game}'s shifted by up to "
                           f"{MAX_SHIFT} heaps")
        if row["published"] == "unsolved":
            if status != "not proven":
                why.append("published unsolved, proven here")
        else:
            if status == "not proven":
                # The octal periodicity theorem proves a period p from n0 with the
                # values up to 2 n0 + 2 p + t (t: the code's digits).
                needed = 2 * p0 + 2 * pp + len(code.split(".")[1])
                if needed < len(values):
                    why.append(f"the published period would be proven by heap {needed}, "
                               f"within the {len(values) - 1} heaps computed, and is not")
                else:
                    row["published_agrees"] = (f"not reached: the published period needs the "
                                               f"values to about heap {needed}")
                    return row
            elif period != pp:
                why.append(f"period {period} here")
            elif game == code and n0 != p0:
                why.append(f"preperiod {n0} here")
            if game == code and game in self.trivial:
                want = nimbers(self.trivial[game][2], min(len(values), p0 + 2 * pp + 1000))
                if values[:len(want)] != want:
                    k = next(i for i, (x, y) in enumerate(zip(values, want)) if x != y)
                    why.append(f"values: g({k}) = {values[k]} here, {want[k]} published")
        row["published_agrees"] = "no: " + "; ".join(why) if why else "yes"
        return row

    def summary(self, rows: list[dict]) -> list[str]:
        """The comparison, for docs/CATALOGUE.md."""
        verdicts: dict[str, int] = {}
        for r in rows:
            v = r["published_agrees"].split(":")[0] if r["published_agrees"] else r["published"]
            verdicts[v] = verdicts.get(v, 0) + 1
        out = ["## Beside the published tables", "",
               "Tomek Czajka's tables (github.com/tczajka/octal-games) gather Winning Ways',",
               "Flammenkamp's and their author's results for every octal game of up to three",
               "digits; `tools/catalogue.py --published DIR` reads them from a checkout and sets",
               "every code beside its game there (the columns `published_*` of",
               "`docs/catalogue.csv`). A lookup agrees when our sequences of the code and of the",
               "game it is mapped to are one sequence shifted by at most 3 heaps; a result agrees",
               "when the period, the preperiod (for the game itself) and for a trivial game its",
               "listed values are ours; an unsolved game agrees when we do not prove it either.",
               "", "| verdict | codes |", "|---|---|"]
        out += [f"| {v} | {n} |" for v, n in sorted(verdicts.items())]
        out.append("")
        for verdict, title in (("no: ", "Where they differ (\"published unsolved, proven here\": the "
                                       "tables give no period, and nimtb proves one; its proof's "
                                       "sentence is in docs/catalogue.csv):"),
                               ("not reached: ", "Not reached here:")):
            listed = [r for r in rows if r["published_agrees"].startswith(verdict)]
            if listed:
                out += [title, ""]
                out += [f"- {r['code']} ({r['published_game']}, {r['published']}): "
                        f"{r['published_agrees'][len(verdict):]}" for r in listed]
                out.append("")
        out += ["The mistakes the tables' author found in others' tables, checked here:", ""]
        for a, b, claim in CLAIMS:
            if a not in self.values or b not in self.values:
                continue
            d = first_difference(self.values[a], self.values[b])
            s = shift_between(self.values[a], self.values[b])
            seen = (f"one sequence (shifted by {s})" if s is not None else
                    f"they first differ at heap {d}" if d else "they differ")
            out.append(f"- {claim}. Here {a} and {b}: {seen}.")
        out.append("")
        return out
