#!/usr/bin/env python3
"""Damaged tables, many times over: each base file (fresh tables of a box and
a total universe, a sequence file, the version 1 tables kept in tests/data)
is mutated by a seeded generator (bits flipped, truncated, a range zeroed, two
blocks swapped) and given to nimtb's readers (info, query, dump --count,
verify; query --sequence for the sequence file), each run with a time limit.

Every run must either answer exactly as the undamaged file does, or exit 1
with one line on stderr. A signal, a sanitizer report, another exit code, a
run over the time limit, an answer that differs or an error of several lines
is a finding; the script prints each and exits 1 when there is any in a file
of the current format. Findings in the version 1 files are listed apart:
those files are in HDF5's 1.8 format, whose metadata has no checksums and
whose string attributes live in the global heap, where HDF5 itself follows
damage into crashes and hangs (docs/FORMAT.md, "Damaged files").

    tools/damage_campaign.py [--nimtb build/apps/nimtb] [--mutations 10000] [--seed 1]
"""
import argparse
import os
import random
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def normalized(out, path):
    """Output with the file's name replaced and its size left out: the same answer for the
    undamaged file and a damaged copy (a truncated file is smaller)."""
    return "\n".join(line.replace(path, "FILE") for line in out.splitlines()
                     if not line.startswith("file size"))


# Under ASan, HDF5's own leak on refusing a damaged file is not nimtb's finding.
ENV = dict(os.environ)
ENV.setdefault("LSAN_OPTIONS", "suppressions=" + os.path.join(ROOT, "tools", "sanitizers",
                                                             "lsan.supp") + ":print_suppressions=0")


def run(args, timeout):
    start = time.monotonic()
    try:
        p = subprocess.run(args, capture_output=True, text=True, timeout=timeout, errors="replace",
                           env=ENV)
    except subprocess.TimeoutExpired:
        return None, "", "", time.monotonic() - start
    return p.returncode, p.stdout, p.stderr, time.monotonic() - start


def bases(nimtb, work):
    """(name, path, commands): each command a list of arguments with FILE for the file."""
    table_commands = [["info", "FILE"], ["query", "FILE", "3 4 5"], ["dump", "FILE", "--count"],
                      ["verify", "FILE"]]
    out = []
    box = os.path.join(work, "box.h5")
    subprocess.run([nimtb, "solve", "--rules", "nim", "--misere", "--heaps", "3", "--max-heap", "40",
                    "-o", box, "--quiet"], check=True)
    out.append(("box", box, table_commands))
    total = os.path.join(work, "total.h5")
    subprocess.run([nimtb, "solve", "--rules", "octal:0.77", "--misere", "--max-total", "16",
                    "-o", total, "--quiet"], check=True)
    out.append(("total", total, [["info", "FILE"], ["query", "FILE", "3 4 5"],
                                 ["dump", "FILE", "--count"], ["verify", "FILE"]]))
    seq = os.path.join(work, "seq.h5")
    subprocess.run([nimtb, "sequence", "--rules", "octal:0.77", "--max-heap", "3000", "--output", seq],
                   check=True, capture_output=True)
    out.append(("sequence", seq, [["query", "--sequence", "FILE", "1000000000000 7 13"],
                                  ["query", "--sequence", "FILE", "2999 7 13"]]))
    data = os.path.join(ROOT, "tests", "data")
    for name in sorted(os.listdir(data)):
        if name.startswith("nimtb-0.1") and name.endswith(".h5"):
            out.append(("v1:" + name, os.path.join(data, name),
                        [["info", "FILE"], ["query", "FILE", "1 2"], ["dump", "FILE", "--count"]]))
    return out


def mutate(data, rng):
    b = bytearray(data)
    kind = rng.choice(["bits", "bits", "bits", "truncate", "zero", "swap"])
    if kind == "bits":
        for _ in range(rng.randint(1, 8)):
            b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
    elif kind == "truncate":
        del b[rng.randrange(len(b)):]
    elif kind == "zero":
        at = rng.randrange(len(b))
        n = rng.randint(1, 64)
        b[at:at + n] = bytes(len(b[at:at + n]))
    else:
        n = rng.randint(1, 64)
        i, j = sorted(rng.sample(range(max(1, len(b) - n)), 2)) if len(b) > n + 1 else (0, 0)
        if j - i >= n:
            b[i:i + n], b[j:j + n] = b[j:j + n], b[i:i + n]
    return kind, bytes(b)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--nimtb", default=os.path.join(ROOT, "build", "apps", "nimtb"))
    ap.add_argument("--mutations", type=int, default=10000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=10.0)
    ap.add_argument("--save", help="a folder to keep each damaged file that gave a finding in")
    a = ap.parse_args()
    nimtb = os.path.abspath(a.nimtb)
    rng = random.Random(a.seed)
    findings, counts = [], {"runs": 0, "answered": 0, "refused": 0}
    slowest, slowest_run = 0.0, ""
    with tempfile.TemporaryDirectory() as work:
        files = bases(nimtb, work)
        expected = {}
        for name, path, commands in files:
            for c in commands:
                code, out, err, _ = run([nimtb] + [path if x == "FILE" else x for x in c], a.timeout)
                expected[(name, tuple(c))] = (code, normalized(out, path))
        damaged = os.path.join(work, "damaged.h5")
        for m in range(a.mutations):
            name, path, commands = files[m % len(files)]
            kind, data = mutate(open(path, "rb").read(), rng)
            with open(damaged, "wb") as f:
                f.write(data)
            for c in commands:
                args = [nimtb] + [damaged if x == "FILE" else x for x in c]
                code, out, err, seconds = run(args, a.timeout)
                if seconds > slowest:
                    slowest, slowest_run = seconds, f"mutation {m} ({kind}) of {name}: nimtb {' '.join(c)}"
                counts["runs"] += 1
                what = f"mutation {m} ({kind}) of {name}: nimtb {' '.join(c)}"
                before = len(findings)
                if code is None:
                    findings.append(f"{what}: over {a.timeout} s")
                elif code < 0 or "Sanitizer" in err or "runtime error" in err:
                    findings.append(f"{what}: crashed ({code}): {err.strip()[-300:]}")
                elif code == 0:
                    counts["answered"] += 1
                    if (0, normalized(out, damaged)) != expected[(name, tuple(c))]:
                        findings.append(f"{what}: answered differently:\n{out}")
                elif code == 1 and err.count("\n") == 1 and err.startswith("nimtb: error: "):
                    counts["refused"] += 1
                else:
                    findings.append(f"{what}: exit {code}, stderr {err!r}")
                if a.save and len(findings) > before:
                    os.makedirs(a.save, exist_ok=True)
                    with open(os.path.join(a.save, f"mutation-{m}.h5"), "wb") as f:
                        f.write(data)
    old = [f for f in findings if " of v1:" in f]
    new = [f for f in findings if " of v1:" not in f]
    for f in old:
        print("known HDF5 1.8 limit:", f)
    for f in new:
        print(f)
    print(f"{a.mutations} mutations of {len(files)} files, {counts['runs']} runs: "
          f"{counts['answered']} answered as the undamaged file, {counts['refused']} refused with "
          f"one line; {len(new)} findings in files of the current format, {len(old)} in version 1 "
          f"files; slowest run {slowest:.2f} s ({slowest_run})")
    return 1 if new else 0


if __name__ == "__main__":
    sys.exit(main())
