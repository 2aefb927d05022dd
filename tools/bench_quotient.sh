#!/usr/bin/env bash
# Misère quotients: whole `nimtb quotient` processes, the median of RUNS runs
# (default 3) for each job below, with the order each run reached. The jobs
# are the yardsticks: Kayles (octal:0.77) to heap 80, Dawson's Kayles
# (octal:0.07) to heaps of 30 (Siegel's 360 elements) and 33 (the largest
# bound published), misère Nim to 127, Grundy's game to 20 and 0.71 to 40.
#
# With --push, Dawson's Kayles pushed as far as SECONDS (default 1800) allow
# with candidates of up to 32768 elements: the orders heap by heap, why it
# stopped, how far the next heap got (the frontier and its proven lower
# bound), the wall time and the peak memory of the one run.
#
#   tools/bench_quotient.sh [RUNS]
#   tools/bench_quotient.sh --push [SECONDS]
if [[ "${1:-}" == --push ]]; then
    set -euo pipefail
    cd "$(dirname "$0")/.."
    NIMTB=${NIMTB:-build/apps/nimtb}
    seconds=${2:-1800}
    out="$(mktemp -d)"
    trap 'rm -rf "$out"' EXIT
    /usr/bin/time -f "%e %M" -o "$out/time" "$NIMTB" quotient --rules octal:0.07 --max-heap 100 \
        --time-limit "$seconds" --max-order 32768 --json >"$out/q.json"
    read -r wall kib <"$out/time"
    /usr/bin/python3 - "$out/q.json" "$wall" "$kib" <<'PY'
import json, sys
q = json.load(open(sys.argv[1]))
print(f"octal:0.07 for {sys.argv[2]} s, peak {int(sys.argv[3]) / 2**20:.2f} GiB resident")
print("orders h = 1..%d:" % q["max_heap"], " ".join(map(str, q["orders"][1:])))
print("stopped:", q["stopped"])
f = q["frontier"]
if f:
    print(f"heap {f['heap']}: {f['candidates_refuted']} candidates refuted; the last, of "
          f"{f['order']} elements, right on every position of fewer than {f['tokens']} tokens "
          f"(least failure {' '.join(map(str, f['least_failure']))}); Q_{f['heap']} has at least "
          f"{f['at_least']} elements")
PY
    exit 0
fi
source "$(dirname "$0")/bench_common.sh"
NIMTB=${NIMTB:-build/apps/nimtb}
printf "%-34s %10s %8s\n" "job" "median s" "order"
for job in "octal:0.77 80" "octal:0.07 30" "octal:0.07 33" "nim 127" "grundy 20" "octal:0.71 40"; do
    read -r rules heap <<<"$job"
    times=() order=""
    for ((r = 0; r < RUNS; r++)); do
        start=$(date +%s.%N)
        order=$("$NIMTB" quotient --rules "$rules" --max-heap "$heap" --json |
            /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["order"])')
        end=$(date +%s.%N)
        times+=("$(echo "$end - $start" | bc)")
    done
    printf "%-34s %10.3f %8s\n" "$rules to heap $heap" "$(printf "%s\n" "${times[@]}" | median)" "$order"
done
