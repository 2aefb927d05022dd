#!/usr/bin/env bash
# The catalogue of octal games of at most two code digits after the point
# (d0.d1d2 with d0 = 0 or 4): each computed until a period is proven (the
# octal periodicity theorem), or up to LIMIT heaps. Writes docs/catalogue.csv
# and docs/CATALOGUE.md; codes with the same sequence are grouped.
#   tools/catalogue.sh [LIMIT]        (default 65536)
set -euo pipefail
cd "$(dirname "$0")/.."
LIMIT="${1:-65536}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
for d0 in 0 4; do
    for d1 in 0 1 2 3 4 5 6 7; do
        for d2 in 0 1 2 3 4 5 6 7; do
            code="$d0.$d1$d2"
            [[ $code == 0.00 ]] && continue  # no move at all
            start=$(date +%s%N)
            build/apps/nimtb sequence --rules "octal:$code" --until-proven --limit "$LIMIT" --json \
                >"$work/$code.json"
            echo "$code $(( ($(date +%s%N) - start) / 1000000 ))" >>"$work/times"
        done
    done
done
/usr/bin/python3 - "$work" "$LIMIT" <<'PY'
import csv, json, os, sys
work, limit = sys.argv[1], int(sys.argv[2])
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
            "`nimtb sequence --until-proven --limit %d` (`tools/catalogue.sh`): the period\n"
            "proven by the octal periodicity theorem of Guy and Smith, *trivial* (proven, and\n"
            "every heap from the preperiod on is worth 0), or not proven up to the limit.\n"
            "Codes whose sequences are the same (the same values up to the preperiod plus\n"
            "the period, and the same period) are listed together; the full list with each\n"
            "proof's sentence is `docs/catalogue.csv`.\n\n" % limit)
    f.write("%d codes: %d proven, %d trivial, %d not proven up to %d heaps.\n\n"
            % (len(rows), counts["proven"], counts["trivial"], counts["not proven"], limit))
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
