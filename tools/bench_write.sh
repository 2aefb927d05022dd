#!/usr/bin/env bash
# Write time and size of a table in format v2 (zstd, the default) beside
# format v1 with deflate (what nimtb 0.1 wrote), from the real binary's
# summary in the same run. Median write time of RUNS solves each.
#   tools/bench_write.sh [RUNS] [SOLVE ARGUMENTS...]
#   tools/bench_write.sh 3                                    # nim misere K=6 H=63
#   tools/bench_write.sh 1 --rules nim --misere --heaps 7 --max-heap 63
source "$(dirname "$0")/bench_common.sh" "$@"
echo "table: ${SOLVE_ARGS[*]}"
printf '%-22s %10s %10s %14s %10s\n' format "solve s" "write s" "stored" ratio
for format in "2 zstd" "2 deflate" "1 deflate" "1 zstd"; do
    read -r version compression <<<"$format"
    writes=()
    for ((i = 0; i < RUNS; i++)); do
        summary="$(build/apps/nimtb solve "${SOLVE_ARGS[@]}" --format-version "$version" -c "$compression" \
            -o "$out/t.h5" --force)"
        writes+=("$(awk '/^write time/ {print $3}' <<<"$summary")")
        solve="$(awk '/^solve time/ {print $3}' <<<"$summary")"
        stored="$(sed -n 's/^data .* as arrays, \(.*\) stored .*/\1/p' <<<"$summary")"
        ratio="$(sed -n 's/.*compression ratio \([0-9.]*x\).*/\1/p' <<<"$summary")"
    done
    median="$(printf '%s\n' "${writes[@]}" | median)"
    printf '%-22s %10s %10s %14s %10s\n' "v$version $compression" "$solve" "$median" "$stored" "$ratio"
done
