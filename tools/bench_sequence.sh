#!/usr/bin/env bash
# Single-heap sequences side by side with the fastest public code: nimtb
# against the C++ analyser of tczajka/octal-games (old/src/analyze_exec.cc,
# built here with g++ -O2 as its Makefile does), whole processes, the median
# of RUNS runs each, and the ratio (the peer's time / nimtb's: above 1, nimtb
# is faster).
#
#   tools/bench_sequence.sh [--peer-source DIR | --peer BINARY] [--runs N] [--long]
#
#   --peer-source DIR  a checkout of tczajka/octal-games (or its git folder):
#                      the peer is built from old/src into a scratch folder
#   --peer BINARY      the peer's `analyze` binary, already built
#   --long             also Grundy's game to 2^24 (about a minute each)
#
# Without a peer, nimtb's figures alone. The peer has no --max-heap: it runs
# until a period is found (checked at powers of two) and prints a line at
# every power of two, so "to 2^k" is the time until it prints n=2^k, and
# "until proven" the time until it exits with its period. Also: nimtb's
# sparse-space values compared with the plain method's to 2^16.
set -euo pipefail
cd "$(dirname "$0")/.."
NIMTB=${NIMTB:-build/apps/nimtb}
RUNS=3 PEER="" PEER_SOURCE="" LONG=0
while (($#)); do
    case "$1" in
        --peer) PEER="$2"; shift 2 ;;
        --peer-source) PEER_SOURCE="$2"; shift 2 ;;
        --runs) RUNS="$2"; shift 2 ;;
        --long) LONG=1; shift ;;
        *) echo "usage: tools/bench_sequence.sh [--peer-source DIR | --peer BINARY] [--runs N] [--long]" >&2; exit 2 ;;
    esac
done
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

if [[ -n "$PEER_SOURCE" ]]; then
    mkdir -p "$out/peer"
    if [[ -d "$PEER_SOURCE/old/src" ]]; then
        cp -r "$PEER_SOURCE/old/src" "$out/peer/src"
    else  # a git folder without a work tree
        git -C "$PEER_SOURCE" archive HEAD old/src | tar -x -C "$out/peer" --strip-components=1
    fi
    srcs=()
    for f in "$out"/peer/src/*.cc; do
        [[ $f == *_test.cc || $f == *_exec.cc ]] || srcs+=("$f")
    done
    g++ -O2 -std=c++11 -pthread -I"$out/peer/src" "$out/peer/src/analyze_exec.cc" "${srcs[@]}" \
        -o "$out/analyze"
    PEER="$out/analyze"
fi

# One line per job: the median seconds of nimtb, of the peer, and the ratio.
/usr/bin/python3 - "$NIMTB" "$PEER" "$RUNS" "$LONG" <<'EOF'
import json, statistics, subprocess, sys, time

nimtb, peer, runs, long_run = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4] == "1"


def nimtb_seconds(*args):
    """Seconds of a run as a user starts it (its text: the first values and the period, as the
    peer prints lines), then what it found, from a run with --json (not timed: the JSON holds
    every value, hundreds of thousands of numbers to print)."""
    start = time.monotonic()
    subprocess.run([nimtb, "sequence", *args], capture_output=True, text=True, check=True)
    seconds = time.monotonic() - start
    return seconds, args


def nimtb_found(args):
    p = subprocess.run([nimtb, "sequence", *args, "--json"], capture_output=True, text=True, check=True)
    return json.loads(p.stdout)


def peer_seconds(game, until):
    """Seconds until the peer prints a line starting with `until` (then it is stopped)."""
    start = time.monotonic()
    p = subprocess.Popen([peer, game], stdout=subprocess.PIPE, text=True)
    try:
        for line in p.stdout:
            if line.startswith(until):
                return time.monotonic() - start, line.strip()
        raise SystemExit(f"the peer ended without printing {until!r} for {game}")
    finally:
        p.kill()
        p.wait()


def median(f):
    results = [f() for _ in range(runs)]
    return statistics.median(r[0] for r in results), results[0][1]


jobs = [("grundy to 2^20", ["--rules", "grundy", "--max-heap", str(2**20)], "grundy", "n=2^20 ")]
if long_run:
    jobs.append(("grundy to 2^24", ["--rules", "grundy", "--max-heap", str(2**24)], "grundy", "n=2^24 "))
for code in ["0.16", "0.156", "0.45"]:
    jobs.append((f"octal:{code} until proven", ["--rules", f"octal:{code}", "--until-proven"], code,
                 "Found period"))

print(f"{'job':<28} {'nimtb s':>9} {'peer s':>9} {'peer/nimtb':>11}   what nimtb found")
for name, args, game, until in jobs:
    t, _ = median(lambda: nimtb_seconds(*args))
    j = nimtb_found(args)
    p = j["period"]
    found = (f"period {p['period']} from heap {p['preperiod']}" if "period" in p
             else f"{len(j['values'])} values, {j['algorithm']}")
    if peer:
        tp, line = median(lambda: peer_seconds(game, until))
        print(f"{name:<28} {t:>9.3f} {tp:>9.3f} {tp / t:>10.2f}x   {found}; peer: {line}")
    else:
        print(f"{name:<28} {t:>9.3f} {'-':>9} {'-':>11}   {found}")

# The sparse-space method's values are the plain method's.
plain = nimtb_found(["--rules", "grundy", "--max-heap", str(2**16), "--method", "plain"])
sparse = nimtb_found(["--rules", "grundy", "--max-heap", str(2**16), "--method", "sparse"])
print("grundy to 2^16: sparse-space values", "identical to" if plain["values"] == sparse["values"]
      else "DIFFERENT FROM", "the plain method's")
EOF
