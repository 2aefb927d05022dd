#!/usr/bin/python3
"""The misère quotients of the octal games of at most DIGITS code digits
after the point (d0.d1d2d3, d0 = 0 or 4): the order of Q_N at N = 20, 40 and
60, or of the largest quotient nimtb computed where it stopped (at most
SECONDS a code, `--time-limit`: the JSON says why it stopped), with the CPU
time; what the largest is made of (`--analyze`: tame or not, its maximal
subgroups) and the code's standard form; and whether the quotient is proven
for every heap size (`--until-proven --limit PROVE`, at most PROVE_SECONDS a
code). Codes that are the same game heap for heap (one standard form, one
shift) are computed once. Writes docs/quotient_catalogue.csv and
docs/QUOTIENT_CATALOGUE.md.

    tools/quotient_catalogue.py [--digits 3] [--max-heap 60] [--prove 300]
                                [--seconds 120] [--prove-seconds 60]
                                [--max-order 8192] [--jobs N] [--cache DIR]
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import octal_codes  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--digits", type=int, default=3)
    ap.add_argument("--max-heap", type=int, default=60)
    ap.add_argument("--prove", type=int, default=300)
    ap.add_argument("--seconds", type=int, default=120)
    ap.add_argument("--prove-seconds", type=int, default=60)
    ap.add_argument("--max-order", type=int, default=8192)
    ap.add_argument("--jobs", type=int, default=os.cpu_count())
    ap.add_argument("--cache", help="a folder keeping each game's JSON, so that a run stopped "
                                    "or run again computes only what it lacks")
    ap.add_argument("--out", default=os.path.join(octal_codes.ROOT, "docs"))
    a = ap.parse_args()
    top = a.max_heap
    marks = [n for n in (20, 40, 60) if n <= top]

    codes = octal_codes.codes(a.digits)
    same = octal_codes.same_game_classes(codes, a.jobs)
    firsts = sorted(set(same.values()), key=codes.index)
    print(f"quotient catalogue: {len(codes)} codes, {len(firsts)} games", file=sys.stderr)

    def compute(code: str) -> tuple[dict, str, float, dict]:
        name = f"{code}-{top}-{a.seconds}-{a.prove}-{a.prove_seconds}-{a.max_order}"
        return octal_codes.kept(a.cache, name, lambda: slim(*computed(code)))

    def computed(code: str) -> tuple[dict, str, float, dict]:
        """The furthest quotient computed (a proven one stops early: it is the
        quotient at every larger bound), then for a code that reached heap
        `top` unproven, the proof search."""
        j, why, cpu = octal_codes.run(["quotient", "--rules", f"octal:{code}", "--until-proven",
                                       "--limit", str(top), "--time-limit", str(a.seconds),
                                       "--max-order", str(a.max_order), "--analyze"])
        proof = None
        if j and j.get("proof"):
            proof = j
        elif j and j.get("max_heap") == top:
            proof, _, _ = octal_codes.run(["quotient", "--rules", f"octal:{code}",
                                           "--until-proven", "--limit", str(a.prove),
                                           "--time-limit", str(a.prove_seconds),
                                           "--max-order", str(a.max_order)])
        return j or {}, why, cpu, proof

    results = octal_codes.each(firsts, compute, a.jobs)
    rows = []
    for code in codes:
        j, err, cpu, proof = results[same[code]]
        orders = j.get("orders", [1])
        if j.get("proof"):  # the quotient at every larger bound
            orders = orders + [j["order"]] * (top + 1 - len(orders))
        reached = len(orders) - 1
        why = j.get("stopped") or err.removeprefix("nimtb: error: ") or "?"
        row = {"code": code, "reached": reached,
               "stopped": "" if reached >= top else why.removeprefix("quotient: "),
               "cpu_seconds": round(cpu, 2) if same[code] == code else "",
               "same_game_as": "" if same[code] == code else same[code]}
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
        if proof and proof.get("proof"):
            row["proven"] = (f"heap {proof['max_heap']}: order {proof['order']}, phi period "
                             f"{proof['proof']['period']} from heap {proof['proof']['preperiod']}")
        elif proof and proof.get("stopped"):
            row["proven"] = (f"no (not proven up to heap {proof['max_heap']}, then stopped: " +
                             (f"{a.prove_seconds} s passed" if "time ran out" in proof["stopped"]
                              else proof["stopped"].removeprefix("quotient: ")) + ")")
        elif proof:
            row["proven"] = f"no (not proven up to heap {a.prove})"
        else:
            row["proven"] = "no"
        rows.append(row)
    write(a, marks, rows)


def slim(j: dict, why: str, cpu: float, proof: dict) -> tuple[dict, str, float, dict]:
    """What the catalogue reads of a code's quotients: without their tables
    (a quotient of order 2048 is 4 M entries), a thousand games fit in memory."""
    def fields(q: dict) -> dict:
        out = {k: q[k] for k in ("orders", "order", "max_heap", "stopped", "proof",
                                 "standard_form") if k in q}
        if q.get("frontier"):
            out["frontier"] = {"at_least": q["frontier"]["at_least"]}
        if q.get("structure"):
            out["structure"] = {"tame": q["structure"]["tame"],
                                "idempotents": q["structure"]["idempotents"]}
        return out
    return fields(j or {}), why, cpu, fields(proof) if proof else proof


def write(a: argparse.Namespace, marks: list[int], rows: list[dict]) -> None:
    top = a.max_heap
    octal_codes.write_csv(os.path.join(a.out, "quotient_catalogue.csv"), rows)
    done = sum(r["reached"] >= top for r in rows)
    proven = sum(r["proven"].startswith("heap") for r in rows)
    cpu = sum(r["cpu_seconds"] or 0 for r in rows)
    digits = "d0.d1" + "".join(f"d{i}" for i in range(2, a.digits + 1))
    lines = [
        f"# Misère quotients of the octal games of up to {a.digits} code digits",
        "",
        f"`tools/quotient_catalogue.py --digits {a.digits} --max-heap {top} --prove {a.prove} "
        f"--seconds {a.seconds} --prove-seconds {a.prove_seconds} --max-order {a.max_order}`",
        f"computed, for each octal code {digits} (d0 = 0 or 4), the misère quotient Q_N for",
        f"N up to {top} (`nimtb quotient --rules octal:CODE --until-proven --limit {top}",
        f"--time-limit {a.seconds} --max-order {a.max_order} --analyze`: at most {a.seconds} s of",
        f"wall time a code, {a.jobs} codes at once, and candidates of at most {a.max_order}",
        "elements), every one accepted by the exact check of docs/QUOTIENTS.md; codes that are",
        "the same game heap for heap (one standard form, one shift) once. The table gives the",
        f"order of Q_N at N = {', '.join(map(str, marks))}; where nimtb stopped before heap {top},",
        "the largest quotient it computed, why it stopped and, where a candidate for the next",
        "heap was refuted, a lower bound on that heap's quotient, proven from the positions the",
        "last candidate predicts right (the frontier of docs/QUOTIENTS.md). \"Proven\" is",
        f"`nimtb quotient --until-proven --limit {a.prove} --time-limit {a.prove_seconds}",
        f"--max-order {a.max_order}`: the heap where phi's period proves the quotient for every",
        "heap size (docs/QUOTIENTS.md), its order and the period. \"Tame\" and \"subgroups\"",
        "describe the largest quotient computed (`--analyze`: T_n when it is misère Nim's",
        "quotient T_n, and its number of maximal subgroups, one per idempotent); \"standard",
        "form\" is the shortest code that is the same game, with the heaps it is shifted by",
        f"(docs/QUOTIENTS.md). The time is the CPU's of the quotient up to heap {top}, once for",
        "each game (the proof search's is not counted).",
        "",
        f"{done} of {len(rows)} codes reached heap {top}; {proven} are proven for every heap "
        f"size; {cpu:.0f} s of CPU up to heap {top} in all. The same figures:",
        "docs/quotient_catalogue.csv.",
        "",
        "| code | " + " | ".join(f"|Q_{n}|" for n in marks) +
        " | reached | stopped because | next heap at least | CPU (s) | tame | subgroups |"
        " standard form | proven |",
        "|---|" + "---|" * len(marks) + "---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        cpu = r["cpu_seconds"] if r["cpu_seconds"] != "" else f"as {r['same_game_as']}"
        lines.append(f"| {r['code']} | " + " | ".join(str(r[f'order_{n}']) for n in marks) +
                     f" | heap {r['reached']} (order {r['order_reached']}) | {r['stopped']} |"
                     f" {r['next_at_least']} | {cpu} | {r['tame']} | {r['subgroups']} |"
                     f" {r['standard_form']} | {r['proven']} |")
    with open(os.path.join(a.out, "QUOTIENT_CATALOGUE.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"{done} of {len(rows)} codes reached heap {top}", file=sys.stderr)


if __name__ == "__main__":
    main()
