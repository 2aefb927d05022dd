"""The octal codes the catalogues run, which of them are one game, and how
a catalogue runs nimtb on them.

For tools/catalogue.py (and the quotient catalogue): every code d0.d1...dD
(d0 = 0 or 4, D = DIGITS) but 0.0...0 (no move at all), named with its
trailing zeros dropped (0.770 is 0.77, 4.000 is 4.0); the classes of codes
that are the same game heap for heap (one standard form and one shift, as
`nimtb quotient --analyze` names them), so that each class is computed
once; and `nimtb ... --json` run with the CPU seconds it took.
"""

import csv
import itertools
import json
import os
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Iterable, Optional, TypeVar

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NIMTB = os.environ.get("NIMTB", os.path.join(ROOT, "build", "apps", "nimtb"))
T = TypeVar("T")


def code_name(d0: int, digits: Iterable[int]) -> str:
    tail = "".join(map(str, digits)).rstrip("0")
    return f"{d0}.{tail or '0'}"


def codes(digits: int) -> list[str]:
    """Every code of at most `digits` code digits after the point, in order
    (0.1 < 0.11 < 0.12 < 0.2: by the digits as written)."""
    out = []
    for d0 in (0, 4):
        for tail in itertools.product(range(8), repeat=digits):
            if d0 == 0 and not any(tail):
                continue  # 0.0: no move at all
            out.append(code_name(d0, tail))
    return out


def write_csv(path: str, rows: list[dict]) -> None:
    """Rows of like dicts as a CSV file, their keys the header."""
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def run(args: list[str]) -> tuple[Optional[dict], str, float]:
    """`nimtb ARGS --json`: its JSON (None if it printed none), the last
    line of its stderr, and the CPU seconds it used (user and system: its
    own, so that other work on the machine does not inflate the figure)."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen([NIMTB, *args, "--json"], stdout=out, stderr=err)
        _, _, usage = os.wait4(proc.pid, 0)
        proc.returncode = 0  # reaped by wait4
        out.seek(0)
        err.seek(0)
        text, why = out.read(), err.read().strip()
    try:
        j = json.loads(text) if text.strip() else None
    except ValueError:
        j = None
    return j, (why.splitlines()[-1] if why else ""), usage.ru_utime + usage.ru_stime


def kept(cache: Optional[str], name: str, compute: Callable[[], T]) -> T:
    """compute(), or, with a `cache` folder, what it returned when last run
    under `name` there: each result kept as JSON, written whole as it comes,
    so that a run stopped or run again computes only what it lacks."""
    path = os.path.join(cache, name + ".json") if cache else None
    if path and os.path.exists(path):
        with open(path) as f:
            return tuple(json.load(f))  # type: ignore[return-value]
    result = compute()
    if path:
        os.makedirs(cache, exist_ok=True)
        with open(path + ".tmp", "w") as f:
            json.dump(result, f)
        os.replace(path + ".tmp", path)
    return result


def each(items: list[str], work: Callable[[str], T], jobs: int) -> dict[str, T]:
    """work(item) for every item, `jobs` at a time (each nimtb on one thread)."""
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        return dict(zip(items, pool.map(work, items)))


def same_game_classes(all_codes: list[str], jobs: int) -> dict[str, str]:
    """code -> the first code (in the list's order) that is the same game
    heap for heap: the same standard form with the same shift."""
    def form(code: str) -> str:
        j, why, _ = run(["quotient", "--rules", f"octal:{code}", "--max-heap", "1", "--analyze"])
        if j is None:
            raise SystemExit(f"octal:{code}: {why}")
        f = j["standard_form"]
        return f"{f['rules']} +{f['shift']}"
    forms = each(all_codes, form, jobs)
    first: dict[str, str] = {}
    return {c: first.setdefault(forms[c], c) for c in all_codes}
