# Shared by the solve benchmarks, sourced with their arguments: RUNS from
# the first (default 3), the solve's arguments after it in SOLVE_ARGS
# (default: nim misere K=6 H=63), a scratch folder $out removed on exit, and
# `median`, the middle of RUNS numbers on stdin.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
RUNS="${1:-3}"
shift || true
SOLVE_ARGS=("$@")
if ((${#SOLVE_ARGS[@]} == 0)); then SOLVE_ARGS=(--rules nim --misere --heaps 6 --max-heap 63); fi
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
median() { sort -n | sed -n "$(((RUNS + 1) / 2))p"; }
