#!/usr/bin/env bash
# The table corpus and its digest: solves a fixed set of tables (every family,
# both conventions, boxes and totals, both kernels, every compression, format
# versions 1 and 2, in memory and streamed to disk, one process and, where
# nimtb-mpi is built, mpirun -np 2)
# with the nimtb given (default build/apps/nimtb) and prints one line per
# table: the SHA-256 of its datasets' stored chunks and of its attributes.
# Two builds made the same tables when their digests are equal:
#
#   tools/table_digest.sh > before.txt; (change, build); tools/table_digest.sh > after.txt
#   diff before.txt after.txt
#
# The generator attribute (nimtb's version) is left out of the digest, and
# string attributes count by their text, however HDF5 stores them.
#
#   tools/table_digest.sh NIMTB EXPECTED   compares each table's digest with the
#                                          line of EXPECTED (tests/data/table_digests.txt,
#                                          recorded by nimtb 0.1 before the service
#                                          floor) and exits 1 on a difference (ctest)
#   tools/table_digest.sh --file TABLE       prints the digest of one table
set -euo pipefail
FILE=""
if [[ "${1:-}" == "--file" ]]; then
    FILE="$(realpath "$2")"
    set --
fi
cd "$(dirname "$0")/.."
NIMTB="$(realpath "${1:-build/apps/nimtb}")"
EXPECTED="${2:-}"
if [[ -n "$EXPECTED" ]]; then
    got="$("$0" "$NIMTB")"
    status=0
    while read -r name digest; do
        want="$(awk -v n="$name" '$1 == n {print $2}' "$EXPECTED")"
        if [[ "$want" != "$digest" ]]; then
            echo "table $name differs from $EXPECTED: $digest, recorded ${want:-nothing}"
            status=1
        fi
    done <<<"$got"
    echo "$(wc -l <<<"$got") tables compared with $EXPECTED"
    exit $status
fi
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

CORPUS=(
    "nim-n --rules nim --heaps 3 --max-heap 15"
    "nim-m --rules nim --misere --heaps 4 --max-heap 20"
    "nim-m-brute --rules nim --misere --heaps 4 --max-heap 20 --kernel brute"
    "nim-m-nolines-v1 --rules nim --misere --heaps 3 --max-heap 40 --format-version 1 -c deflate"
    "nim-lz4 --rules nim --heaps 3 --max-heap 30 -c lz4"
    "nim-none --rules nim --misere --heaps 3 --max-heap 30 -c none"
    "nim-deflate --rules nim --heaps 3 --max-heap 30 -c deflate --compression-level 9"
    "nim-sg --rules nim --heaps 4 --max-heap 15 --method sprague-grundy"
    "nim-norem --rules nim --misere --heaps 3 --max-heap 30 --no-remoteness"
    "sub134-m --rules subtract:1,3,4 --misere --heaps 4 --max-heap 30"
    "sub13-n --rules subtract:1-3 --heaps 3 --max-heap 40"
    "allbut12-m --rules allbut:1,2 --misere --heaps 4 --max-heap 25"
    "allbut12-m-brute --rules allbut:1,2 --misere --heaps 4 --max-heap 25 --kernel brute"
    "kayles-m --rules octal:0.77 --misere --max-total 30"
    "kayles-n --rules octal:0.77 --max-total 30"
    "sub134-n-k3 --rules subtract:1,3,4 --max-total 30 --heaps 3"
    "dawson-m --rules octal:0.07 --misere --max-total 25"
    "grundy-n --rules grundy --max-total 24"
    "lasker-m --rules lasker --misere --max-total 20"
    "wythoff-n --rules wythoff --heaps 2 --max-heap 60"
    "wythoff-m --rules wythoff --misere --heaps 3 --max-heap 12"
    "moore2-n --rules moore:2 --heaps 3 --max-heap 12"
    "nim-wide --rules nim --heaps 2 --max-heap 300"
    "sub-wide-m --rules subtract:1-300 --misere --heaps 2 --max-heap 300"
    # Streamed to disk as solved: the same tables as in memory.
    "nim-n-stream --rules nim --heaps 3 --max-heap 15 --stream"
    "nim-m-stream --rules nim --misere --heaps 4 --max-heap 20 --stream"
    "nim-m-v1-stream --rules nim --misere --heaps 3 --max-heap 40 --format-version 1 -c deflate --stream"
    "nim-lz4-stream --rules nim --heaps 3 --max-heap 30 -c lz4 --stream"
    "nim-none-stream --rules nim --misere --heaps 3 --max-heap 30 -c none --stream"
    "nim-norem-stream --rules nim --misere --heaps 3 --max-heap 30 --no-remoteness --stream"
)
MPI_CORPUS=(
    "mpi-nim-m --rules nim --misere --heaps 4 --max-heap 20"
    "mpi-nim-m-brute --rules nim --misere --heaps 4 --max-heap 20 --kernel brute"
    "mpi-allbut12-m --rules allbut:1,2 --misere --heaps 4 --max-heap 25"
    "mpi-kayles-m --rules octal:0.77 --misere --max-total 30"
    "mpi-wythoff-n --rules wythoff --heaps 2 --max-heap 60"
    "mpi-sub134-lz4 --rules subtract:1,3,4 --misere --heaps 4 --max-heap 30 -c lz4"
)

digest() {
    /usr/bin/python3 - "$1" <<'PY'
import hashlib, sys
import h5py


def value(v):
    """A string attribute by its text, stored fixed- (bytes) or variable-length (str)."""
    return v.decode() if isinstance(v, bytes) else v


with h5py.File(sys.argv[1], "r") as f:
    h = hashlib.sha256()
    for k, v in sorted(f.attrs.items()):
        if k != "generator":
            h.update(f"{k}={value(v)!r};".encode())
    for name in sorted(f):
        d = f[name]
        h.update(f"{name}:{d.dtype.str}:{d.shape}:{d.chunks}:{sorted((k, repr(value(v))) for k, v in d.attrs.items())}".encode())
        # Every chunk in order of its offset (get_chunk_info(i) walks the index
        # from its start each time: quadratic in the chunks of a large table).
        for first in range(0, d.shape[0], d.chunks[0]):
            mask, data = d.id.read_direct_chunk((first,))
            h.update(repr(((first,), mask)).encode())
            h.update(data)
    print(h.hexdigest())
PY
}

if [[ -n "$FILE" ]]; then
    digest "$FILE"
    exit 0
fi
for entry in "${CORPUS[@]}"; do
    read -r name args <<<"$entry"
    # shellcheck disable=SC2086
    "$NIMTB" solve $args -o "$out/$name.h5" -q
    echo "$name $(digest "$out/$name.h5")"
done
MPIRUN="$(command -v mpirun || true)"
if [[ -n "$MPIRUN" && -x "$(dirname "$NIMTB")/nimtb-mpi" ]]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    # Under AddressSanitizer: Open MPI's components leave what they allocated
    # past MPI_Finalize (tests/e2e/test_mpi.py says more).
    export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"
    for entry in "${MPI_CORPUS[@]}"; do
        read -r name args <<<"$entry"
        # shellcheck disable=SC2086
        "$MPIRUN" --oversubscribe -np 2 "$NIMTB" solve $args -o "$out/$name.h5" -q --threads 1
        echo "$name $(digest "$out/$name.h5")"
    done
fi
