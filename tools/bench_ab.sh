#!/usr/bin/env bash
# Two nimtb binaries side by side on one solve: each run alternates them, and
# each solve's time is the summary's "solve time" (the solve alone, not the
# write); prints each binary's times and median, then whether their tables'
# values are identical. For a change that must leave the solver no slower:
#
#   cp build/apps/nimtb /tmp/nimtb-before; (change, build)
#   tools/bench_ab.sh /tmp/nimtb-before build/apps/nimtb 5 --rules nim --misere --heaps 6 --max-heap 63
set -euo pipefail
if [[ $# -lt 4 ]]; then
    echo "usage: tools/bench_ab.sh BEFORE AFTER RUNS SOLVE-OPTIONS..." >&2
    exit 2
fi
before=$1 after=$2 runs=$3
shift 3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for _ in $(seq "$runs"); do
    for which in before after; do
        bin=${!which}
        "$bin" solve "$@" -o "$work/$which.h5" --force | awk -v w="$which" '/^solve time/ {print w, $3}'
    done
done | awk '{t[$1] = t[$1] " " $2; n[$1]++; v[$1, n[$1]] = $2}
    END {
        for (w in t) {
            m = n[w]; for (i = 1; i <= m; i++) a[i] = v[w, i]
            for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] < a[i]) {x = a[i]; a[i] = a[j]; a[j] = x}
            med = m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
            printf "%-6s median %.2f s  (%s )\n", w, med, t[w]
        }
    }'
if cmp -s <(h5dump -d /value "$work/before.h5" | tail -n +3) <(h5dump -d /value "$work/after.h5" | tail -n +3); then
    echo "values identical"
else
    echo "values DIFFER"
    exit 1
fi
