#!/usr/bin/env bash
# Cold `nimtb query` with all moves: a new process per query, so nothing is
# cached but the operating system's page cache. Median of RUNS runs, beside
# the process's floor (`nimtb --version`: loading its libraries) on this
# machine.
#   tools/bench_query.sh TABLE "POSITION" [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
table="$1"
position="$2"
RUNS="${3:-10}"
median() { sort -n | sed -n "$(((RUNS + 1) / 2))p"; }
elapsed_ms() {  # runs "$@" RUNS times, prints each wall time in ms (bash's clock: no process of its own)
    for ((i = 0; i < RUNS; i++)); do
        local start end
        start=${EPOCHREALTIME/[.,]/}
        "$@" >/dev/null
        end=${EPOCHREALTIME/[.,]/}
        awk -v us=$((end - start)) 'BEGIN { printf "%.1f\n", us / 1000 }'
    done
}
build/apps/nimtb query "$table" "$position" >/dev/null  # the page cache warm, as for any reader
query=$(elapsed_ms build/apps/nimtb query "$table" "$position" | median)
floor=$(elapsed_ms build/apps/nimtb --version | median)
moves=$(build/apps/nimtb query "$table" "$position" --json | /usr/bin/python3 -c 'import json,sys; print(len(json.load(sys.stdin)["moves"]))')
echo "query \"$position\" ($moves moves), median of $RUNS: ${query} ms; process floor (nimtb --version): ${floor} ms"
