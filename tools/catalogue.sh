#!/usr/bin/env bash
# The catalogue of octal games of at most two code digits after the point
# (d0.d1d2 with d0 = 0 or 4): each computed until a period is proven (the
# octal periodicity theorem), or up to LIMIT heaps; those still unproven whose
# values are sparse (under 1 rare heap in 32, so the sparse-space method is
# fast) again up to LONG heaps, two codes at a time on one thread each.
# Writes docs/catalogue.csv and
# docs/CATALOGUE.md; codes with the same sequence are grouped.
#   tools/catalogue.sh [LIMIT [LONG]]        (default 65536 and 1048576)
set -euo pipefail
cd "$(dirname "$0")/.."
LIMIT="${1:-65536}"
LONG="${2:-1048576}"
NIMTB="${NIMTB:-build/apps/nimtb}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# One code: its JSON in $work, its time in $work/<code>.ms.
one() {
    local code="$1" start
    start=$(date +%s%N)
    "$NIMTB" sequence --rules "octal:$code" --until-proven --limit "$LIMIT" --threads 1 --json >"$work/$code.json"
    if /usr/bin/python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))
sys.exit(0 if j["period"]["basis"] != "proof" and j.get("rare_heaps", 1 << 62) * 32 < j["max_heap"] else 1)' \
        "$work/$code.json"; then
        "$NIMTB" sequence --rules "octal:$code" --until-proven --limit "$LONG" --threads 1 --json >"$work/$code.json"
    fi
    echo "$(( ($(date +%s%N) - start) / 1000000 ))" >"$work/$code.ms"
}
export -f one
export NIMTB LIMIT LONG work
# A sequence is computed on one core: the codes run side by side, one per core.
for d0 in 0 4; do
    for d1 in 0 1 2 3 4 5 6 7; do
        for d2 in 0 1 2 3 4 5 6 7; do
            [[ $d0.$d1$d2 == 0.00 ]] || echo "$d0.$d1$d2"  # 0.00 has no move at all
        done
    done
done | xargs -P "$(nproc)" -I{} bash -c 'one {}'
for f in "$work"/*.ms; do echo "$(basename "$f" .ms) $(cat "$f")"; done >"$work/times"
/usr/bin/python3 - "$work" "$LIMIT" "$LONG" <<'PY'
import csv, json, os, sys
work, limit, long_limit = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
times = dict(line.split() for line in open(os.path.join(work, "times")))
rows, groups = [], {}
for code in sorted(times):
    j = json.load(open(os.path.join(work, code + ".json")))
    p, g = j["period"], j["values"]
    if p["basis"] == "proof":
        n0, per = p["preperiod"], p["period"]
        status = "trivial" if per == 1 and g[n0] == 0 else "proven"
        key = ("proof", n0, per, tuple(g[:n0 + per]))
    else:
        n0 = per = ""
        status = "not proven"
        key = ("none", tuple(g))
    first = groups.setdefault(key, code)
    rows.append({"code": code, "rules": j["rules"], "status": status, "preperiod": n0, "period": per,
                 "computed_up_to": j["max_heap"], "largest_value": max(g), "algorithm": j["algorithm"],
                 "rare_heaps": j.get("rare_heaps", ""),
                 "same_sequence_as": "" if first == code else first, "seconds": int(times[code]) / 1000,
                 "basis": p["explanation"]})
with open("docs/catalogue.csv", "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0]))
    w.writeheader()
    w.writerows(rows)
counts = {s: sum(r["status"] == s for r in rows) for s in ("proven", "trivial", "not proven")}
with open("docs/CATALOGUE.md", "w") as f:
    f.write("# Octal games of up to two code digits\n\n")
    f.write("Every code d0.d1d2 (d0 = 0 or 4), its single-heap sequence computed by\n"
            "`nimtb sequence --until-proven --limit %d` (`tools/catalogue.sh`; codes still\n"
            "unproven whose values are sparse, again up to %d heaps): the period\n"
            "proven by the octal periodicity theorem of Guy and Smith, *trivial* (proven, and\n"
            "every heap from the preperiod on is worth 0), or not proven up to the heap\n"
            "computed.\n"
            "Codes whose sequences are the same (proven: the same period and the same values\n"
            "up to the preperiod plus the period; not proven: the same values as far as\n"
            "computed) are listed together; the full list with each proof's sentence is\n"
            "`docs/catalogue.csv`.\n\n" % (limit, long_limit))
    f.write("%d codes: %d proven, %d trivial, %d not proven.\n\n"
            % (len(rows), counts["proven"], counts["trivial"], counts["not proven"]))
    f.write("| codes | rule | status | preperiod | period | largest value | computed up to |\n")
    f.write("|---|---|---|---|---|---|---|\n")
    for key, first in groups.items():
        members = [r for r in rows if r["code"] == first or r["same_sequence_as"] == first]
        r = members[0]
        f.write("| %s | `%s` | %s | %s | %s | %s | %s |\n" % (
            ", ".join(m["code"] for m in members), r["rules"], r["status"], r["preperiod"],
            r["period"], r["largest_value"], r["computed_up_to"]))
print("catalogue: %d codes, %d groups; %s" % (len(rows), len(groups), counts))
PY
