#!/usr/bin/env bash
# Single-heap sequences side by side with the fastest public programs, built
# from their source by tools/build_peers.sh: tczajka/octal-games' C++
# analyser (`analyze`) and beling/impartial-games' `ogsolve -m rc`. Whole
# processes, the median of RUNS runs each, alternating, and the ratio (the
# peer's time / nimtb's: above 1, nimtb is faster); nimtb with its threads
# (every core) and with --threads 1. Every row checks that the values agree:
# ogsolve's checksum (Fletcher-16 pairs over every value) against the same
# sum of nimtb's values, the analyser's largest value and its heap, and its
# count of rare values, against nimtb's values; a difference stops the run.
#
#   tools/bench_sequence.sh [--peers DIR] [--runs N] [--long]
#
#   --peers DIR  the folder tools/build_peers.sh built (default build/peers);
#                without it, nimtb's figures alone
#   --long       also Grundy's game to 2^24 (about a minute each)
#
# The analyser has no --max-heap: it runs until a period is found (checked
# at powers of two) and prints a line at every power of two, so "to 2^k" is
# the time until it prints n=2^k (values 0 .. 2^k - 1), and "until proven"
# the time until it prints its period. ogsolve computes to -n: "until
# proven" gives it the heaps nimtb needed. Also: nimtb's sparse-space
# values compared with its plain method's to 2^16.
set -euo pipefail
cd "$(dirname "$0")/.."
NIMTB=${NIMTB:-build/apps/nimtb}
RUNS=3 PEERS=build/peers LONG=0
while (($#)); do
    case "$1" in
        --peers) PEERS="$2"; shift 2 ;;
        --runs) RUNS="$2"; shift 2 ;;
        --long) LONG=1; shift ;;
        *) echo "usage: tools/bench_sequence.sh [--peers DIR] [--runs N] [--long]" >&2; exit 2 ;;
    esac
done

/usr/bin/python3 - "$NIMTB" "$PEERS" "$RUNS" "$LONG" <<'EOF'
import json, os, re, statistics, subprocess, sys, time

nimtb, peers, runs, long_run = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4] == "1"
analyze = os.path.join(peers, "analyze")
ogsolve = os.path.join(peers, "ogsolve")
analyze = analyze if os.access(analyze, os.X_OK) else None
ogsolve = ogsolve if os.access(ogsolve, os.X_OK) else None


def timed(argv, until=None):
    """Seconds of a whole process, and its output; with `until`, up to the line starting with it
    (then the process is stopped)."""
    start = time.monotonic()
    if until is None:
        p = subprocess.run(argv, capture_output=True, text=True, check=True)
        return time.monotonic() - start, p.stdout
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True)
    try:
        for line in p.stdout:
            if line.startswith(until):
                return time.monotonic() - start, line.strip()
        raise SystemExit(f"{argv[0]} ended without printing {until!r}")
    finally:
        p.kill()
        p.wait()


def nimtb_values(args):
    """nimtb's values and period, from a run with --json (not timed: the timed runs print text,
    as the peers do)."""
    p = subprocess.run([nimtb, "sequence", *args, "--json"], capture_output=True, text=True, check=True)
    return json.loads(p.stdout)


def fletcher(values):
    """ogsolve's checksum: Fletcher over 16-bit values."""
    a = b = 0
    for v in values:
        a = (a + v) & 0xFFFF
        b = (b + a) & 0xFFFF
    return f"{b << 16 | a:X}"


def check_analyser(line, values):
    """The analyser's line at n=2^k against nimtb's first 2^k values."""
    m = re.match(r"n=2\^(\d+) largest G\[(\d+)\]=(\d+) rare_mask=([0-9a-f]+)(pos)? num_rare=(\d+)", line)
    if not m:
        return "found period" if "eriod" in line else "?"
    n = 1 << int(m[1])
    v = values[:n]
    top = max(v)
    if (v.index(top), top) != (int(m[2]), int(m[3])):
        raise SystemExit(f"DIFFERENT: the analyser's {line!r}; nimtb's largest G[{v.index(top)}]={top}")
    if m[5] is None:  # rare: an even number of the mask's bits set
        mask = int(m[4], 16)
        rare = sum(1 for x in v if bin(x & mask).count("1") % 2 == 0)
        if rare != int(m[6]):
            raise SystemExit(f"DIFFERENT: the analyser counts {m[6]} rare values to 2^{m[1]}, nimtb {rare}")
    return f"largest G[{m[2]}]={m[3]}, {m[6]} rare: agree"


def check_ogsolve(out, values):
    m = re.search(r"checksum: ([0-9A-F]+)", out)
    if not m or m[1] != fletcher(values):
        raise SystemExit(f"DIFFERENT: ogsolve's checksum {m and m[1]}, nimtb's values {fletcher(values)}")
    return f"checksum {m[1]}: agrees"


def median_of(jobs):
    """Runs each job RUNS times, alternating; the median seconds of each."""
    times = [[] for _ in jobs]
    outs = [None] * len(jobs)
    for _ in range(runs):
        for i, job in enumerate(jobs):
            t, outs[i] = job()
            times[i].append(t)
    return [statistics.median(t) for t in times], outs


def row(name, args, peer_jobs):
    """nimtb (every core, then one thread) and each peer: (label, job, check of its output)."""
    j = nimtb_values(args)
    values = j["values"]
    jobs = [lambda: timed([nimtb, "sequence", *args]),
            lambda: timed([nimtb, "sequence", *args, "--threads", "1"])]
    for _, job, _ in peer_jobs(j):
        jobs.append(job)
    seconds, outs = median_of(jobs)
    p = j["period"]
    found = (f"period {p['period']} from heap {p['preperiod']}" if "period" in p
             else f"{len(values)} values")
    print(f"{name:<30} nimtb {seconds[0]:7.3f} s, --threads 1 {seconds[1]:7.3f} s   ({found})")
    for k, (label, _, check) in enumerate(peer_jobs(j)):
        t = seconds[2 + k]
        print(f"{'':<30} {label:<16} {t:7.3f} s: {t / seconds[0]:5.2f}x nimtb's time, "
              f"{t / seconds[1]:5.2f}x a thread's; {check(outs[2 + k], values)}")


def grundy(k):
    n = 2 ** k
    jobs = lambda j: ([("analyser", lambda: timed([analyze, "grundy"], f"n=2^{k} "), check_analyser)]
                      if analyze else [])
    row(f"grundy to 2^{k}", ["--rules", "grundy", "--max-heap", str(n)], jobs)


grundy(20)
if long_run:
    grundy(24)

n = 2 ** 20
def octal_06(j):
    jobs = []
    if ogsolve:
        jobs.append(("ogsolve -m rc", lambda: timed([ogsolve, "0.6", "-m", "rc", "-n", str(n)]), check_ogsolve))
    if analyze:
        jobs.append(("analyser", lambda: timed([analyze, "0.6"], "n=2^20 "), check_analyser))
    return jobs
row("octal 0.6 to 2^20", ["--rules", "octal:0.6", "--max-heap", str(n)], octal_06)

for code in ["0.16", "0.156", "0.45"]:
    def until_proven(j, code=code):
        jobs = []
        if ogsolve:
            heaps = str(len(j["values"]) - 1)
            jobs.append((f"ogsolve to {heaps}",
                         lambda: timed([ogsolve, code, "-m", "rc", "-n", heaps]), check_ogsolve))
        if analyze:
            jobs.append(("analyser", lambda: timed([analyze, code], "Found period"),
                         lambda line, values: line))
        return jobs
    row(f"octal:{code} until proven", ["--rules", f"octal:{code}", "--until-proven"], until_proven)

# The sparse-space method's values are the plain method's.
plain = nimtb_values(["--rules", "grundy", "--max-heap", str(2**16), "--method", "plain"])
sparse = nimtb_values(["--rules", "grundy", "--max-heap", str(2**16), "--method", "sparse"])
if plain["values"] != sparse["values"]:
    raise SystemExit("grundy to 2^16: sparse-space values DIFFERENT FROM the plain method's")
print("grundy to 2^16: sparse-space values identical to the plain method's")
EOF
