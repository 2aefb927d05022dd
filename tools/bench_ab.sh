#!/usr/bin/env bash
# Two nimtb binaries side by side on one solve: each run alternates them.
# Prints, for each binary, the medians of the summary's "solve time" (the
# solve alone), of the whole command's wall time (solve and write) and of
# its peak resident memory, then whether the two tables are the same (the
# SHA-256 of their stored chunks and attributes, tools/table_digest.sh's).
# For a change that must leave the solver no slower:
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
        /usr/bin/time -f "time %e %M" -o "$work/time" "$bin" solve "$@" -o "$work/$which.h5" --force >"$work/out"
        solve=$(awk '/^solve time/ {print $3}' "$work/out")
        read -r _ wall kb <"$work/time"
        echo "$which $solve $wall $kb"
    done
done | awk '
    function median(w, col,   m, i, j, a, x) {
        m = n[w]; for (i = 1; i <= m; i++) a[i] = v[w, col, i]
        for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] < a[i]) {x = a[i]; a[i] = a[j]; a[j] = x}
        return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
    }
    {n[$1]++; for (c = 2; c <= 4; c++) v[$1, c, n[$1]] = $c; t[$1] = t[$1] " " $2}
    END {
        for (w in n)
            printf "%-6s solve median %.2f s (%s ), end to end %.2f s, peak %.2f GB\n", w,
                median(w, 2), t[w], median(w, 3), median(w, 4) / 1e6
    }'
digest="$(dirname "$0")/table_digest.sh"
if [[ "$("$digest" --file "$work/before.h5")" == "$("$digest" --file "$work/after.h5")" ]]; then
    echo "tables identical"
else
    echo "tables DIFFER"
    exit 1
fi
