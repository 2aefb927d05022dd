#!/usr/bin/env bash
# The distributed solve against one process, on this machine:
#   - peak resident memory of each process at -np 4 (from --stats) against
#     one process's peak (/usr/bin/time), the issue's bound being 35 %;
#   - the solve time at -np 2 with one thread each against one process's
#     two-thread solve (the bound being 1.5x);
# and that the tables are identical (h5diff).
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
peak_mb() { /usr/bin/python3 -c "import json,sys; print(max(json.load(open(sys.argv[1]))['peak_bytes']) / 2**20)" "$1"; }

bench() {
    echo "== $*"
    /usr/bin/time -f "%M" -o "$out/rss" "$NIMTB" solve "$@" -o "$out/one.h5" --force >"$out/one.txt"
    local one_s one_mb
    one_s=$(solve_time <"$out/one.txt")
    one_mb=$(($(cat "$out/rss") / 1024))
    echo "one process, 2 threads:   solve ${one_s} s, peak ${one_mb} MB"
    mpirun --oversubscribe -np 4 "$NIMTB" solve "$@" -o "$out/np4.h5" --force --threads 1 \
        --stats "$out/np4.json" >"$out/np4.txt"
    h5diff -q "$out/one.h5" "$out/np4.h5"
    local np4_mb
    np4_mb=$(peak_mb "$out/np4.json")
    /usr/bin/python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print('-np 4, 1 thread each:     peak per process', ', '.join('%.0f MB' % (b / 2**20) for b in j['peak_bytes']))" "$out/np4.json"
    echo "  largest / one process:  $(/usr/bin/python3 -c "print('%.1f %%' % (100 * $np4_mb / $one_mb))") (bound 35 %)"
    mpirun --oversubscribe -np 2 "$NIMTB" solve "$@" -o "$out/np2.h5" --force --threads 1 >"$out/np2.txt"
    h5diff -q "$out/one.h5" "$out/np2.h5"
    local np2_s
    np2_s=$(solve_time <"$out/np2.txt")
    echo "-np 2, 1 thread each:     solve ${np2_s} s, $(/usr/bin/python3 -c "print('%.2fx' % ($np2_s / $one_s))") one process's (bound 1.5x)"
    echo "tables identical (h5diff)"
}

if (($#)); then
    bench "$@"
else
    bench --rules nim --misere --heaps 6 --max-heap 63
    bench --rules octal:0.77 --misere --max-total 70
fi
