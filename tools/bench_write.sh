#!/usr/bin/env bash
# Write time and compression ratio of the nim misere K=5 H=63 table for each
# compression choice, from the real binary's summary. Median of RUNS runs.
#   tools/bench_write.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS="${1:-3}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
printf '%-8s %12s %12s %12s %8s\n' compression "solve s" "write s" "file" ratio
for c in deflate zstd lz4 none; do
    writes=()
    for ((i = 0; i < RUNS; i++)); do
        summary="$(build/apps/nimtb solve --preset nim-5x63-misere -c "$c" -o "$out/t.h5" --force)"
        writes+=("$(awk '/^write time/ {print $3}' <<<"$summary")")
        solve="$(awk '/^solve time/ {print $3}' <<<"$summary")"
        size="$(awk '/^file size/ {print $3 " " $4}' <<<"$summary")"
        ratio="$(sed -n 's/.*compression ratio \([0-9.]*x\).*/\1/p' <<<"$summary")"
    done
    median="$(printf '%s\n' "${writes[@]}" | sort -n | sed -n "$(((RUNS + 1) / 2))p")"
    printf '%-8s %12s %12s %12s %8s\n' "$c" "$solve" "$median" "$size" "$ratio"
done
