#!/usr/bin/python3
"""The catalogue of octal games of at most DIGITS code digits after the point
(d0.d1d2d3, d0 = 0 or 4): each code's normal-play sequence computed until a
period is proven (the octal periodicity theorem of Guy and Smith) or up to
LIMIT heaps (2^17: as far as the plain method goes in seconds, where values
are not sparse); those still unproven whose values are sparse (under 1 rare
heap in 32, so the sparse-space method is fast) again up to LONG heaps. Codes that
are the same game heap for heap (one standard form, one shift) are computed
once, each of the others checked against it on its first CHECK heaps. With
--published DIR (a checkout of tczajka/octal-games: its TrivialGames.md,
SolvedGames.md, UnsolvedGames.md and GameLookup.md), every code is set beside
the published result for its game. Writes docs/catalogue.csv and
docs/CATALOGUE.md; codes with the same sequence are grouped.

    tools/catalogue.py [--digits 3] [--limit 131072] [--long 1048576] [--jobs N]
                       [--published DIR] [--cache DIR] [--out DIR]
"""

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import octal_codes  # noqa: E402
import published  # noqa: E402

CHECK = 4096


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--digits", type=int, default=3)
    ap.add_argument("--limit", type=int, default=131072)
    ap.add_argument("--long", type=int, default=1048576)
    ap.add_argument("--jobs", type=int, default=os.cpu_count())
    ap.add_argument("--published", help="a checkout of tczajka/octal-games")
    ap.add_argument("--out", default=os.path.join(octal_codes.ROOT, "docs"))
    ap.add_argument("--cache", help="a folder keeping each game's JSON, so that a run again "
                                    "(another report) computes only what it lacks")
    a = ap.parse_args()

    codes = octal_codes.codes(a.digits)
    same = octal_codes.same_game_classes(codes, a.jobs)
    firsts = sorted(set(same.values()), key=codes.index)
    print(f"catalogue: {len(codes)} codes, {len(firsts)} games", file=sys.stderr)

    def compute(code: str) -> tuple[dict, float, str]:
        return octal_codes.kept(a.cache, f"{code}-{a.limit}-{a.long}", lambda: computed(code))

    def computed(code: str) -> tuple[dict, float, str]:
        args = ["sequence", "--rules", f"octal:{code}", "--until-proven", "--threads", "1"]
        j, why, cpu = octal_codes.run(args + ["--limit", str(a.limit)])
        if j is None:
            raise SystemExit(f"octal:{code}: {why}")
        stop = f"not proven up to heap {a.limit}; its values are not sparse"
        if j["period"]["basis"] != "proof" and j.get("rare_heaps", 1 << 62) * 32 < j["max_heap"]:
            j, why, more = octal_codes.run(args + ["--limit", str(a.long)])
            if j is None:
                raise SystemExit(f"octal:{code}: {why}")
            cpu += more
            stop = f"not proven up to heap {a.long}"
        return j, cpu, stop

    results = octal_codes.each(firsts, compute, a.jobs)

    def check(code: str) -> str:
        """'' when the code's first CHECK values are its class's."""
        first = same[code]
        if first == code:
            return ""
        j, why, _ = octal_codes.run(["sequence", "--rules", f"octal:{code}", "--max-heap",
                                     str(CHECK), "--threads", "1"])
        want = extended(results[first][0])[:CHECK + 1]
        got = j["values"][:len(want)] if j else why
        return "" if got == want else f"octal:{code} is not octal:{first}"
    bad = [e for e in octal_codes.each(codes, check, a.jobs).values() if e]
    if bad:
        raise SystemExit("; ".join(bad))

    book = published.Book(a.published) if a.published else None
    if book:
        book.values = {c: extended(results[same[c]][0]) for c in codes}
    rows, groups = [], {}
    for code in codes:
        first = same[code]
        j, cpu, stop = results[first]
        p, g = j["period"], j["values"]
        if p["basis"] == "proof":
            n0, per = p["preperiod"], p["period"]
            status = "trivial" if per == 1 and g[n0] == 0 else "proven"
            group = ("proof", n0, per, tuple(g[:n0 + per]))
            stop = ""
        else:
            n0 = per = ""
            status = "not proven"
            group = ("none", tuple(g))
        seq_first = groups.setdefault(group, code)
        row = {"code": code, "rules": j["rules"], "status": status, "preperiod": n0,
               "period": per, "computed_up_to": j["max_heap"], "stopped": stop,
               "largest_value": max(g), "algorithm": j["algorithm"],
               "rare_heaps": j.get("rare_heaps", ""),
               "same_game_as": "" if first == code else first,
               "same_sequence_as": "" if seq_first == code else seq_first,
               "cpu_seconds": "" if first != code else round(cpu, 3),
               "basis": p["explanation"]}
        if book:
            row.update(book.compare(code, status, n0, per, g))
        rows.append(row)
    write(a, rows, groups, book)


def extended(j: dict) -> list[int]:
    """The values computed, a proven period carried on to heap CHECK: what a
    code of the same game and the published lookup are checked on (a short
    proven sequence would check too little)."""
    g = list(j["values"])
    p = j["period"]
    if p["basis"] == "proof":
        while len(g) <= CHECK:
            g.append(g[len(g) - p["period"]])
    return g


def write(a: argparse.Namespace, rows: list[dict], groups: dict, book) -> None:
    octal_codes.write_csv(os.path.join(a.out, "catalogue.csv"), rows)
    counts = {s: sum(r["status"] == s for r in rows) for s in ("proven", "trivial", "not proven")}
    games = sum(not r["same_game_as"] for r in rows)
    cpu = sum(r["cpu_seconds"] or 0 for r in rows)
    digits = ".".join(["d0", "d1" + "".join(f"d{i}" for i in range(2, a.digits + 1))])
    md = [f"# Octal games of up to {a.digits} code digits", "",
          f"Every code {digits} (d0 = 0 or 4), its single-heap sequence computed by",
          f"`nimtb sequence --until-proven --limit {a.limit} --threads 1` (`tools/catalogue.py`;",
          f"codes still unproven whose values are sparse, again up to {a.long} heaps): the period",
          "proven by the octal periodicity theorem of Guy and Smith, *trivial* (proven, and",
          "every heap from the preperiod on is worth 0), or not proven up to the heap computed,",
          "and why it stopped there. Codes that are the same game heap for heap (one standard",
          "form, one shift: docs/QUOTIENTS.md) were computed once, each of the others checked",
          f"against it on its first {CHECK} heaps. Codes whose sequences are the same (proven:",
          "the same period and the same values up to the preperiod plus the period; not proven:",
          "the same values as far as computed) are listed together; every code with its proof's",
          "sentence is in `docs/catalogue.csv`.", "",
          f"{len(rows)} codes, {games} games: {counts['proven']} proven, {counts['trivial']} "
          f"trivial, {counts['not proven']} not proven; {cpu:.0f} s of CPU in all "
          f"(`tools/catalogue.py --digits {a.digits}`).", ""]
    if book:
        md += book.summary(rows)
    md += ["| codes | rule | status | preperiod | period | largest value | computed up to |",
           "|---|---|---|---|---|---|---|"]
    for first in groups.values():
        members = [r for r in rows if r["code"] == first or r["same_sequence_as"] == first]
        r = members[0]
        md.append(f"| {', '.join(m['code'] for m in members)} | `{r['rules']}` | {r['status']} |"
                  f" {r['preperiod']} | {r['period']} | {r['largest_value']} |"
                  f" {r['computed_up_to']} |")
    with open(os.path.join(a.out, "CATALOGUE.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    print(f"catalogue: {len(rows)} codes, {len(groups)} sequences; {counts}", file=sys.stderr)


if __name__ == "__main__":
    main()
