#!/usr/bin/env bash
# Misère quotients: whole `nimtb quotient` processes, the median of RUNS runs
# (default 3) for each job below, with the order each run reached. The jobs
# are the yardsticks: Kayles (octal:0.77) to heap 80, Dawson's Kayles
# (octal:0.07) to heaps of 30 (Siegel's 360 elements) and 33 (the largest
# bound published), misère Nim to 127, Grundy's game to 20 and 0.71 to 40.
#
#   tools/bench_quotient.sh [RUNS]
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
