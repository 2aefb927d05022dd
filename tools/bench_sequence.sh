#!/usr/bin/env bash
# Single-heap sequences at length, with the real binary: Grundy's game to
# 2^20 by the sparse-space method, the plain method beside it to 2^16 (the
# values compared), and the published periods proven.
#   tools/bench_sequence.sh
set -euo pipefail
cd "$(dirname "$0")/.."
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
seconds() {  # runs "$@" > $out/last, prints its wall time in seconds
    local start end
    start=$(date +%s%N)
    "$@" >"$out/last"
    end=$(date +%s%N)
    awk -v ns=$((end - start)) 'BEGIN { printf "%.2f", ns / 1e9 }'
}
t=$(seconds build/apps/nimtb sequence --rules grundy --max-heap 1048576 --json)
echo "grundy to 2^20, sparse-space: ${t} s"
t_plain=$(seconds build/apps/nimtb sequence --rules grundy --max-heap 65536 --method plain --json)
cp "$out/last" "$out/plain.json"
t_sparse=$(seconds build/apps/nimtb sequence --rules grundy --max-heap 65536 --method sparse --json)
same=$(/usr/bin/python3 -c "import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2])); print('identical' if a['values'] == b['values'] else 'DIFFERENT')" "$out/plain.json" "$out/last")
echo "grundy to 2^16: plain ${t_plain} s, sparse ${t_sparse} s, values ${same}"
for code in 0.45 0.156 0.16; do
    t=$(seconds build/apps/nimtb sequence --rules "octal:$code" --until-proven)
    echo "octal:$code: $(grep '^period' "$out/last" | cut -c14-60)... in ${t} s"
done
