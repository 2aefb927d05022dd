#!/usr/bin/env bash
# What a checkpoint costs: the solve time (from the real binary's summary)
# and peak memory of a solve without --checkpoint and with it, at the default
# --checkpoint-every 1 and at 0 (every level written as it finishes). Median
# of RUNS solves each.
#   tools/bench_checkpoint.sh [RUNS] [SOLVE ARGUMENTS...]
#   tools/bench_checkpoint.sh 3                               # nim misere K=6 H=63
#   tools/bench_checkpoint.sh 3 --rules octal:0.77 --misere --max-total 60
source "$(dirname "$0")/bench_common.sh" "$@"
echo "table: ${SOLVE_ARGS[*]}"
printf '%-28s %10s %12s\n' "" "solve s" "peak MiB"
for mode in "none" "every 1" "every 0"; do
    solves=() peaks=()
    for ((i = 0; i < RUNS; i++)); do
        extra=()
        if [[ $mode != none ]]; then extra=(--checkpoint "$out/ck" --checkpoint-every "${mode#every }"); fi
        summary="$(/usr/bin/time -f 'peak %M' -o "$out/time" build/apps/nimtb solve "${SOLVE_ARGS[@]}" "${extra[@]}" \
            -o "$out/t.h5" --force)"
        solves+=("$(awk '/^solve time/ {print $3}' <<<"$summary")")
        peaks+=("$(awk '/^peak/ {printf "%.0f", $2 / 1024}' "$out/time")")
    done
    label="no checkpoint"
    [[ $mode != none ]] && label="--checkpoint-every ${mode#every }"
    printf '%-28s %10s %12s\n' "$label" "$(printf '%s\n' "${solves[@]}" | median)" \
        "$(printf '%s\n' "${peaks[@]}" | median)"
done
