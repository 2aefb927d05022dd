#!/usr/bin/env bash
# The distributed solve against one process, on this machine:
#   - peak resident memory of each process at -np 4 (from --stats) against
#     one process's peak (/usr/bin/time): their sum (docs/CLUSTER.md's bound
#     1.5x) and the largest (a third);
#   - the time at -np 2 with one thread each against one process's with two
#     threads, in all (the bound 1.3x: the command's wall clock) and the
#     solve's alone;
# and that the tables are byte-identical (tools/table_digest.sh --file).
#
#   tools/bench_mpi.sh                  # nim misere K=6 H=63, then octal:0.77 misere N <= 70
#   tools/bench_mpi.sh --rules ... ...  # one universe of your own
set -euo pipefail
cd "$(dirname "$0")/.."
NIMTB=${NIMTB:-build/apps/nimtb}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

solve_time() { sed -n 's/^solve time *\([0-9.]*\) s.*/\1/p'; }
ratio() { /usr/bin/python3 -c "print('%.2fx' % ($1 / $2))"; }
same() {  # byte-identical tables, or the script stops
    [[ "$(tools/table_digest.sh --file "$1")" == "$(tools/table_digest.sh --file "$2")" ]] ||
        { echo "$2 differs from $1" >&2; exit 1; }
}

bench() {
    echo "== $*"
    /usr/bin/time -f "%M %e" -o "$out/rss" "$NIMTB" solve "$@" -o "$out/one.h5" --force >"$out/one.txt"
    local one_s one_mb one_all
    one_s=$(solve_time <"$out/one.txt")
    read -r one_mb one_all <"$out/rss"
    one_mb=$((one_mb / 1024))
    echo "one process, 2 threads:   ${one_all} s in all (solve ${one_s} s), peak ${one_mb} MB"
    mpirun --oversubscribe -np 4 "$NIMTB" solve "$@" -o "$out/np4.h5" --force --threads 1 \
        --stats "$out/np4.json" >"$out/np4.txt"
    same "$out/one.h5" "$out/np4.h5"
    /usr/bin/python3 -c "
import json, sys
peaks = [b / 2**20 for b in json.load(open(sys.argv[1]))['peak_bytes']]
one = float(sys.argv[2])
print('-np 4, 1 thread each:     peak per process', ', '.join('%.0f MB' % b for b in peaks))
print('  sum / one process:      %.2fx (bound 1.5x)' % (sum(peaks) / one))
print('  largest / one process:  %.1f %% (bound 33 %%)' % (100 * max(peaks) / one))" "$out/np4.json" "$one_mb"
    /usr/bin/time -f "%e" -o "$out/np2.time" mpirun --oversubscribe -np 2 "$NIMTB" solve "$@" \
        -o "$out/np2.h5" --force --threads 1 >"$out/np2.txt"
    same "$out/one.h5" "$out/np2.h5"
    local np2_s np2_all
    np2_s=$(solve_time <"$out/np2.txt")
    np2_all=$(cat "$out/np2.time")
    echo "-np 2, 1 thread each:     ${np2_all} s in all, $(ratio "$np2_all" "$one_all") one process's (bound 1.3x);" \
        "solve ${np2_s} s, $(ratio "$np2_s" "$one_s")"
    echo "tables byte-identical (tools/table_digest.sh --file)"
}

if (($#)); then
    bench "$@"
else
    bench --rules nim --misere --heaps 6 --max-heap 63
    bench --rules octal:0.77 --misere --max-total 70
fi
