#!/usr/bin/env python3
"""The figures of docs/PERFORMANCE.md, measured now on this machine.

    tools/performance.py [--runs N] [--before OTHER-NIMTB] > figures.md

runs the real binary (build/apps/nimtb) on one job per question — a solve,
a cold query, a verify, a sequence, a quotient — N times each (default 3)
and prints one Markdown table per question: the median wall time and peak
resident memory of each job, with the command that makes it. With
--before, each job also runs with the other binary, the two alternating,
and the table gives both and their ratio (a change that must leave nimtb
no slower is measured so). Work goes to a temporary folder, removed after.
"""
import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
NIMTB = os.path.join(HERE, "..", "build", "apps", "nimtb")

# (question, [(what, arguments after `nimtb`, runs this many times first to set it up)])
# {work} is the temporary folder; tables the jobs read are made by the setup commands.
SETUP = [
    ["solve", "--rules", "nim", "--misere", "--heaps", "6", "--max-heap", "63", "-o", "{work}/k6.h5", "--quiet"],
    ["solve", "--rules", "kayles", "--misere", "--max-total", "60", "-o", "{work}/kayles60.h5", "--quiet"],
    ["solve", "--rules", "kayles", "--misere", "--max-total", "50", "-o", "{work}/kayles50.h5", "--quiet"],
    ["solve", "--rules", "dawsons-kayles", "--misere", "--max-total", "50", "-o", "{work}/dawson50.h5", "--quiet"],
    ["solve", "--rules", "nim", "--heaps", "2", "--max-heap", "400", "-o", "{work}/k2.h5", "--quiet"],
]
QUESTIONS = [
    ("How long does a solve take, end to end?", [
        ("nim misère, at most 6 heaps of at most 63 (120 M positions, streamed)",
         ["solve", "--rules", "nim", "--misere", "--heaps", "6", "--max-heap", "63", "-o", "{work}/s.h5",
          "--force", "--quiet"]),
        ("misère Kayles, every position of at most 60 pins (6.6 M positions)",
         ["solve", "--rules", "kayles", "--misere", "--max-total", "60", "-o", "{work}/s.h5", "--force",
          "--quiet"]),
        ("subtract:1,3,4 normal, at most 5 heaps of at most 40 (1.2 M positions)",
         ["solve", "--rules", "subtract:1,3,4", "--heaps", "5", "--max-heap", "40", "-o", "{work}/s.h5",
          "--force", "--quiet"]),
    ]),
    ("How long does a cold query take (a new process, every move)?", [
        ("`3 17 25 40 51 60` in the nim misère K=6 table",
         ["query", "{work}/k6.h5", "3 17 25 40 51 60"]),
        ("the process alone (`--version`)", ["--version"]),
    ]),
    ("How long does verify take?", [
        ("the nim misère K=6 table (120 M positions)", ["verify", "{work}/k6.h5"]),
        ("the misère Kayles table of at most 60 pins", ["verify", "{work}/kayles60.h5"]),
        ("misère Kayles of at most 50 pins (its quotient checked)", ["verify", "{work}/kayles50.h5"]),
        ("misère Dawson's Kayles of at most 50 (its quotient skipped, and why)", ["verify", "{work}/dawson50.h5"]),
    ]),
    ("How long does a dump take (every position, with its fastest win)?", [
        ("nim normal, 2 heaps of at most 400 (80,601 positions of up to 800 moves)",
         ["dump", "{work}/k2.h5", "--csv"]),
        ("the misère Kayles table of at most 50 pins (1.3 M positions)", ["dump", "{work}/kayles50.h5", "--csv"]),
    ]),
    ("How long does a single-heap sequence take?", [
        ("Grundy's game to 2^20 heaps", ["sequence", "--rules", "grundy", "--max-heap", "1048576", "--json"]),
        ("Grundy's game to 2^20 heaps, one thread",
         ["sequence", "--rules", "grundy", "--max-heap", "1048576", "--json", "--threads", "1"]),
        ("octal 0.16 until its period is proven", ["sequence", "--rules", "octal:0.16", "--until-proven",
                                                   "--json"]),
    ]),
    ("How long does a misère quotient take?", [
        ("misère Kayles until proven", ["quotient", "--rules", "kayles", "--until-proven", "--json"]),
        ("Dawson's Kayles to heap 26", ["quotient", "--rules", "dawsons-kayles", "--max-heap", "26",
                                        "--json"]),
    ]),
]


def timed(binary, args):
    """(seconds, peak resident MB) of one run; exits naming the command when it fails."""
    start = time.perf_counter()
    p = subprocess.Popen([binary, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(p.pid, 0)
    seconds = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{binary} {' '.join(args)} failed")
    return seconds, usage.ru_maxrss / 1024


def shown(args, work):
    words = [a.replace(work + "/", "") for a in args]
    return "`nimtb " + " ".join(f'"{w}"' if " " in w else w for w in words) + "`"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--before", help="another nimtb binary, measured side by side")
    o = ap.parse_args()
    binaries = {"now": os.path.abspath(NIMTB)}
    if o.before:
        binaries = {"before": os.path.abspath(o.before), **binaries}
    work = tempfile.mkdtemp(prefix="nimtb-perf-")
    try:
        for args in SETUP:
            timed(binaries["now"], [a.format(work=work) for a in args])
        print(f"Measured by `tools/performance.py --runs {o.runs}` on {platform.node()} "
              f"({os.cpu_count()} cores), medians of {o.runs} runs"
              + (", the two binaries alternating." if o.before else "."))
        for question, jobs in QUESTIONS:
            print(f"\n### {question}\n")
            if o.before:
                print("| job | before | now | now / before | command |\n|---|---|---|---|---|")
            else:
                print("| job | wall time | peak memory | command |\n|---|---|---|---|")
            for what, args in jobs:
                args = [a.format(work=work) for a in args]
                runs = {name: [] for name in binaries}
                for _ in range(o.runs):
                    for name, binary in binaries.items():
                        runs[name].append(timed(binary, args))
                med = {name: (statistics.median(r[0] for r in rs), statistics.median(r[1] for r in rs))
                       for name, rs in runs.items()}
                cell = {name: (f"{m[0]:.2f} s, {m[1]:.0f} MB" if m[0] >= 0.1 else
                               f"{m[0] * 1000:.0f} ms, {m[1]:.0f} MB") for name, m in med.items()}
                if o.before:
                    ratio = med["now"][0] / med["before"][0] if med["before"][0] else float("nan")
                    print(f"| {what} | {cell['before']} | {cell['now']} | {ratio:.2f} | {shown(args, work)} |")
                else:
                    t, mb = cell["now"].split(", ")
                    print(f"| {what} | {t} | {mb} | {shown(args, work)} |")
                sys.stdout.flush()
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
