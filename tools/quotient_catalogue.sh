#!/usr/bin/env bash
# The misère quotients of the octal games of at most two code digits after
# the point (d0.d1d2, d0 = 0 or 4): the order of Q_N at N = 20, 40 and 60,
# or of the largest quotient nimtb computed where it stopped (at most
# SECONDS a code, `--time-limit`: the JSON says why it stopped), with the
# time; what the largest is made of (`--analyze`: tame or not, its maximal
# subgroups) and the code's standard form; and whether the quotient is
# proven for every heap size
# (`--until-proven --limit PROVE_LIMIT`, at most a minute a code). Two codes
# at a time, one per core. Writes docs/quotient_catalogue.csv and
# docs/QUOTIENT_CATALOGUE.md.
#   tools/quotient_catalogue.sh [MAX_HEAP [PROVE_LIMIT [SECONDS]]]    (default 60 300 120)
set -euo pipefail
cd "$(dirname "$0")/.."
MAX="${1:-60}"
PROVE="${2:-300}"
SECONDS_A_CODE="${3:-120}"
NIMTB="${NIMTB:-build/apps/nimtb}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# One code: the JSON of the furthest quotient computed (a proven one stops
# early: it is the quotient at every larger bound), the time; then, for a
# code that reached MAX_HEAP unproven, the proof search.
one() {
    local code="$1" start
    start=$(date +%s%N)
    "$NIMTB" quotient --rules "octal:$code" --until-proven --limit "$MAX" \
        --time-limit "$SECONDS_A_CODE" --analyze --json >"$work/$code.json" 2>"$work/$code.err" || true
    echo "$(( ($(date +%s%N) - start) / 1000000 ))" >"$work/$code.ms"
    if grep -q '"proof":{' "$work/$code.json"; then
        cp "$work/$code.json" "$work/$code.proof"
    elif grep -q "\"max_heap\":$MAX," "$work/$code.json"; then
        "$NIMTB" quotient --rules "octal:$code" --until-proven --limit "$PROVE" --time-limit 60 \
            --json >"$work/$code.proof" 2>/dev/null || true
    fi
}
export -f one
export NIMTB MAX PROVE SECONDS_A_CODE work
for d0 in 0 4; do
    for d1 in 0 1 2 3 4 5 6 7; do
        for d2 in 0 1 2 3 4 5 6 7; do
            [[ $d0.$d1$d2 == 0.00 ]] || echo "$d0.$d1$d2"
        done
    done
done | xargs -P "$(nproc)" -I{} bash -c 'one {}'
/usr/bin/python3 - "$work" "$MAX" "$PROVE" "$SECONDS_A_CODE" <<'PY'
import csv, json, os, sys
work, top, prove, seconds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
marks = [n for n in (20, 40, 60) if n <= top]
rows = []
for name in sorted(f[:-3] for f in os.listdir(work) if f.endswith(".ms")):
    ms = int(open(os.path.join(work, name + ".ms")).read())
    err = open(os.path.join(work, name + ".err")).read().strip()
    try:
        j = json.load(open(os.path.join(work, name + ".json")))
        orders = j["orders"]
    except (OSError, ValueError):
        j, orders = {}, [1]
    if j.get("proof"):  # the quotient at every larger bound
        orders = orders + [j["order"]] * (top + 1 - len(orders))
    reached = len(orders) - 1
    why = j.get("stopped") or err.removeprefix("nimtb: error: ") or "?"
    row = {"code": name, "reached": reached,
           "stopped": "" if reached >= top else why.removeprefix("quotient: "),
           "ms": ms}
    for n in marks:
        row[f"order_{n}"] = orders[n] if n <= reached else ""
    row["order_reached"] = orders[reached]
    structure = j.get("structure")
    row["tame"] = "" if not structure else (
        "no" if structure["tame"] is None else f"T_{structure['tame']}")
    row["subgroups"] = len(structure["idempotents"]) if structure else ""
    form = j.get("standard_form")
    row["standard_form"] = (f"{form['rules'].removeprefix('octal:')} +{form['shift']}"
                            if form and form["steps"] else "")
    # How far the next heap got: a proven lower bound on its quotient.
    f = j.get("frontier") if reached < top else None
    row["next_at_least"] = f["at_least"] if f else ""
    try:
        proof = json.load(open(os.path.join(work, name + ".proof")))
    except (OSError, ValueError):
        proof = None
    if proof and proof["proof"]:
        row["proven"] = (f"heap {proof['max_heap']}: order {proof['order']}, phi period "
                         f"{proof['proof']['period']} from heap {proof['proof']['preperiod']}")
    elif proof and proof.get("stopped"):
        row["proven"] = f"no (not proven up to heap {proof['max_heap']}, then stopped: " + \
            ("a minute passed" if "time ran out" in proof["stopped"] else
             proof["stopped"].removeprefix("quotient: ")) + ")"
    elif proof:
        row["proven"] = f"no (not proven up to heap {prove})"
    else:
        row["proven"] = "no"
    rows.append(row)
with open("docs/quotient_catalogue.csv", "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0]))
    w.writeheader()
    w.writerows(rows)
done = sum(r["reached"] >= top for r in rows)
lines = [
    "# Misère quotients of the two-digit octal games",
    "",
    f"`tools/quotient_catalogue.sh` computed, for each octal code d0.d1d2 (d0 = 0 or 4), the",
    f"misère quotient Q_N for N up to {top} (`nimtb quotient --rules octal:CODE --until-proven --limit {top}",
    f"--time-limit {seconds}`: at most {seconds} s a code),",
    "every one accepted by the exact check of docs/QUOTIENTS.md. The table gives the order of",
    f"Q_N at N = {', '.join(map(str, marks))}; where nimtb stopped before heap {top}, the largest",
    "quotient it computed, why it stopped and, where a candidate for the next heap was refuted,",
    "a lower bound on that heap's quotient, proven from the positions the last candidate",
    "predicts right (the frontier of docs/QUOTIENTS.md). \"Proven\" is `nimtb quotient --until-proven",
    f"--limit {prove}` (at most a minute a code): the heap where phi's period proves the quotient",
    "for every heap size (docs/QUOTIENTS.md), its order and the period. \"Tame\" and \"subgroups\"",
    "describe the largest quotient computed (`--analyze`: T_n when it is misère Nim's quotient",
    "T_n, and its number of maximal subgroups, one per idempotent); \"standard form\" is the",
    "shortest code that is the same game, with the heaps it is shifted by (docs/QUOTIENTS.md).",
    "",
    f"{done} of {len(rows)} codes reached heap {top}; "
    f"{sum(r['proven'].startswith('heap') for r in rows)} are proven for every heap size. "
    "The same figures: docs/quotient_catalogue.csv.",
    "",
    "| code | " + " | ".join(f"|Q_{n}|" for n in marks) +
    " | reached | stopped because | next heap at least | time (s) | tame | subgroups |"
    " standard form | proven |",
    "|---|" + "---|" * len(marks) + "---|---|---|---|---|---|---|---|",
]
for r in rows:
    lines.append(f"| {r['code']} | " + " | ".join(str(r[f'order_{n}']) for n in marks) +
                 f" | heap {r['reached']} (order {r['order_reached']}) | {r['stopped']} |"
                 f" {r['next_at_least']} | {r['ms'] / 1000:.2f} | {r['tame']} | {r['subgroups']} |"
                 f" {r['standard_form']} | {r['proven']} |")
open("docs/QUOTIENT_CATALOGUE.md", "w").write("\n".join(lines) + "\n")
print(f"{done} of {len(rows)} codes reached heap {top}")
PY
