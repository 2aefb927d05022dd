#!/usr/bin/env bash
# Misère quotients side by side with MisereSolver (Aaron Siegel's, in
# CGSuite's source: lib/core/.../core/misere/solver), built here with javac
# 17 from a CGSuite checkout and the small shim in tools/misere_peer/ for the
# few CGSuite and Scala classes it imports (an octal game's options, written
# from the codes' definition, and a driver that prints each heap's order).
# Whole processes, one run each unless told:
#
# 1. octal:0.54 to heap 100: the wall and CPU seconds of each, the ratio
#    (MisereSolver's / nimtb's: above 1, nimtb is faster) and both orders.
# 2. The first CODES codes of up to two digits of docs/quotient_catalogue.csv
#    (default 40), each
#    given SECONDS (default 60): how far each gets. nimtb runs
#    `quotient --until-proven --limit 1000 --time-limit SECONDS --max-order
#    32768` (candidates up to a 4 GiB table; a proven
#    quotient reaches every heap); MisereSolver to heap 1000 in that time
#    (it has no proof of its own in this driver). Orders both reached are
#    compared heap by heap.
#
#   tools/bench_misere.sh --peer-source DIR [--codes N] [--seconds S] [--runs R] [--only-054]
#
#   --peer-source DIR  a checkout of aaron-siegel/cgsuite (or its git folder)
#   --only-054         job 1 only
# Needs javac (Debian's openjdk-17-jdk-headless).
set -euo pipefail
cd "$(dirname "$0")/.."
NIMTB=${NIMTB:-build/apps/nimtb}
PEER_SOURCE="" CODES=40 SECONDS_EACH=60 RUNS=1 ONLY_054=0
while (($#)); do
    case "$1" in
        --peer-source) PEER_SOURCE="$2"; shift 2 ;;
        --codes) CODES="$2"; shift 2 ;;
        --seconds) SECONDS_EACH="$2"; shift 2 ;;
        --runs) RUNS="$2"; shift 2 ;;
        --only-054) ONLY_054=1; shift ;;
        *) echo "usage: tools/bench_misere.sh --peer-source DIR [--codes N] [--seconds S] [--runs R] [--only-054]" >&2
           exit 2 ;;
    esac
done
if [[ -z "$PEER_SOURCE" ]]; then
    echo "tools/bench_misere.sh: --peer-source DIR (a checkout of aaron-siegel/cgsuite) is needed" >&2
    exit 2
fi
command -v javac >/dev/null || { echo "tools/bench_misere.sh: javac missing (apt-get install openjdk-17-jdk-headless)" >&2; exit 2; }
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

solver=lib/core/src/main/scala/org/cgsuite/core/misere/solver
mkdir -p "$out/src" "$out/classes"
if [[ -d "$PEER_SOURCE/$solver" ]]; then
    cp "$PEER_SOURCE/$solver"/*.java "$out/src/"
else  # a git folder without a work tree
    mkdir -p "$out/tree"
    git -C "$PEER_SOURCE" archive HEAD "$solver" | tar -x -C "$out/tree"
    cp "$out/tree/$solver"/*.java "$out/src/"
fi
# Its command line needs CGSuite's interpreter; the driver in the shim replaces it.
rm "$out/src/CommandLineInterface.java"
javac -nowarn -d "$out/classes" tools/misere_peer/*.java "$out"/src/*.java 2>&1 | grep -v '^Note:' || true

/usr/bin/python3 - "$NIMTB" "$out/classes" "$CODES" "$SECONDS_EACH" "$RUNS" "$ONLY_054" <<'EOF'
import csv, json, os, resource, statistics, subprocess, sys, time

nimtb, classes, codes, seconds, runs, only_054 = sys.argv[1], sys.argv[2], int(sys.argv[3]), \
    int(sys.argv[4]), int(sys.argv[5]), sys.argv[6] == "1"
peer = ["java", "-cp", classes, "org.cgsuite.core.misere.solver.PeerMain"]


def timed(command):
    """Wall and CPU seconds (the children's user + system) of a whole process, and its stdout."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    p = subprocess.run(command, capture_output=True, text=True, check=True)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return wall, cpu, p.stdout


def peer_orders(text):
    """{heap: order} from the driver's lines "heap H order N"."""
    orders = {}
    for line in text.splitlines():
        words = line.split()
        if len(words) == 4 and words[0] == "heap":
            orders[int(words[1])] = int(words[3])
    return orders


# 1. octal:0.54 to heap 100.
n_runs, p_runs = [], []
for _ in range(runs):
    wall, cpu, text = timed([nimtb, "quotient", "--rules", "octal:0.54", "--max-heap", "100", "--json"])
    n_runs.append((wall, cpu, json.loads(text)["order"]))
    wall, cpu, text = timed(peer + ["0.54", "100"])
    p_runs.append((wall, cpu, peer_orders(text)[100]))
n = statistics.median(r[0] for r in n_runs), statistics.median(r[1] for r in n_runs)
p = statistics.median(r[0] for r in p_runs), statistics.median(r[1] for r in p_runs)
print(f"octal:0.54 to heap 100 (median of {runs}): nimtb {n[0]:.2f} s wall, {n[1]:.2f} s CPU, "
      f"Q_100 = {n_runs[0][2]}; MisereSolver {p[0]:.2f} s wall, {p[1]:.2f} s CPU, Q_100 = {p_runs[0][2]}; "
      f"ratio {p[0] / n[0]:.2f} wall, {p[1] / n[1]:.2f} CPU")
if only_054:
    sys.exit(0)

# 2. How far each gets in `seconds` on the catalogue's first codes.
with open("docs/quotient_catalogue.csv") as f:
    catalogue = [row["code"] for row in csv.DictReader(f) if len(row["code"].split(".")[1]) <= 2][:codes]
print(f"\n{'code':<6} {'nimtb':>22} {'MisereSolver':>14}  verdict")
behind = []
for code in catalogue:
    _, _, text = timed([nimtb, "quotient", "--rules", f"octal:{code}", "--until-proven", "--limit", "1000",
                        "--time-limit", str(seconds), "--max-order", "32768", "--json"])
    q = json.loads(text)
    _, _, text = timed(peer + [code, "1000", str(seconds)])
    orders = peer_orders(text)
    peer_reached = max(orders) if orders else 0
    for h, order in orders.items():
        if h <= q["max_heap"] and q["orders"][h] != order:
            sys.exit(f"{code}: heap {h} has order {q['orders'][h]} by nimtb, {order} by MisereSolver")
    if q["proof"]:
        ours, ahead = f"every heap (Q_{q['max_heap']})", True
    else:
        ours, ahead = f"heap {q['max_heap']}", q["max_heap"] >= peer_reached
    if not ahead:
        behind.append(code)
    print(f"{code:<6} {ours:>22} {'heap ' + str(peer_reached):>14}  {'ok' if ahead else 'BEHIND'}")
print(f"\nnimtb as far as MisereSolver on {len(catalogue) - len(behind)} of {len(catalogue)} codes"
      + (f"; behind on {', '.join(behind)}" if behind else ""))
EOF
