#!/usr/bin/env bash
# Dawson's Kayles (octal:0.07), heap 34: the positions 34^j + 30^m + 25 + 4 + 2
# read from exact predictors, for every m. Conjecture (docs/QUOTIENTS.md): for
# j >= 1 such a position is a misère P-position exactly when j >= m + 2 (and
# for j = 0 exactly when m is even); if so, Q_34 is infinite.
#
# For each J given (default 1 2) the script runs
#   nimtb quotient --rules octal:0.07 --max-heap 34 --max-copies J --max-order 32768 --json
# whose monoid predicts every position with heaps of at most 34 and at most J
# heaps of 34. In it, for each j <= J, the element of 34^j + 30^m + 25 + 4 + 2
# is a function of the element for m - 1, so it repeats; reading m up to the
# repeat gives the outcome for every m. Prints, per J, the predictor's
# elements, the candidates refuted, the wall time and peak memory, and per j
# where the outcomes repeat, the first outcomes (m = 0, 1, ...) and whether
# every m agrees with the conjecture. Exits 1 if any does not.
#
#   tools/dawson_heap34.sh [J ...]     (J = 1 to 7: 4, 90, 181, 519, 783, 950, 1428 s)
set -euo pipefail
cd "$(dirname "$0")/.."
NIMTB=${NIMTB:-build/apps/nimtb}
caps=("$@")
[[ ${#caps[@]} -gt 0 ]] || caps=(1 2)
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
status=0
for J in "${caps[@]}"; do
    /usr/bin/time -f "%e %M" -o "$out/time" "$NIMTB" quotient --rules octal:0.07 --max-heap 34 \
        --max-copies "$J" --max-order 32768 --json >"$out/q.json"
    read -r wall kib <"$out/time"
    /usr/bin/python3 - "$out/q.json" "$J" "$wall" "$kib" <<'PY' || status=1
import json, sys
q = json.load(open(sys.argv[1]))
J = int(sys.argv[2])
assert q["max_copies"] == J and q["max_heap"] == 34
table, phi, in_p = q["table"], q["phi"], set(q["p_portion"])
print(f"J = {J}: {q['order']} elements, {q['candidates_refuted']} candidates refuted, "
      f"{sys.argv[3]} s, peak {int(sys.argv[4]) / 2**20:.1f} GiB")
base = 0
for h in (25, 4, 2):
    base = table[base][phi[h]]
agree = True
for j in range(J + 1):
    x = base
    for _ in range(j):
        x = table[x][phi[34]]
    seen, outcomes = {}, []
    while x not in seen:  # the element for m, until it repeats
        seen[x] = len(outcomes)
        outcomes.append(x in in_p)
        x = table[x][phi[30]]
    start, period = seen[x], len(outcomes) - seen[x]
    def outcome(m):
        return outcomes[m] if m < len(outcomes) else outcomes[start + (m - start) % period]
    def conjecture(m):
        return m % 2 == 0 if j == 0 else j >= m + 2
    # From max(start, j) on, the outcomes repeat with `period` and the
    # conjecture with 2 (j = 0) or 1 (always N): 2 periods from there cover every m.
    ok = all(outcome(m) == conjecture(m) for m in range(max(start, j) + 2 * period))
    agree &= ok
    print(f"  j = {j}: repeats from m = {start} with period {period}; m = 0, 1, ...: "
          f"{''.join('P' if outcome(m) else 'N' for m in range(max(start + period, 8)))}... "
          f"{'as conjectured for every m' if ok else 'NOT as conjectured'}")
sys.exit(0 if agree else 1)
PY
done
exit "$status"
