#!/usr/bin/env python3
"""nimtb genus against a solved misère table, at a size the tests cannot run.

γn of heap h is the misère value of h plus n nim-heaps of size 2; where a heap
of the rule is the game *2 (Kayles' 2, Dawson's Kayles' 4), that is the value
the solver stores for the position h, s, ..., s (n heaps s). This script
solves a misère table of every position of at most N tokens, computes the
genus of heaps 0..N, and compares every γn whose position the table holds
(each heap's superscript expanded by its alternating tail). The solver works
from the rule's moves over every position; the genus from sums with *0, *1
and *2 heaps left out: nothing is shared but the move generator.

    tools/genus_against_table.py build/apps/nimtb kayles 2 83   # 185 million positions, ~2 min
    tools/genus_against_table.py build/apps/nimtb dawsons-kayles 4 60
"""
import json
import os
import subprocess
import sys
import tempfile


def main() -> int:
    if len(sys.argv) != 5:
        print(__doc__, file=sys.stderr)
        return 2
    nimtb, rules, star2, total = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    with tempfile.TemporaryDirectory(prefix="nimtb-genus-") as d:
        table = os.path.join(d, "t.h5")
        subprocess.run([nimtb, "solve", "--rules", rules, "--misere", "--max-total", str(total),
                        "-o", table, "--quiet"], check=True)
        genus = json.loads(subprocess.run([nimtb, "genus", "--rules", rules, "--max-heap", str(total),
                                           "--json"], check=True, capture_output=True, text=True).stdout)
        asked = []
        for row in genus["heaps"]:
            gammas = list(row["superscript"])
            n = 1 if row["heap"] == 0 else 0  # the empty position is no line of a query
            while row["heap"] + n * star2 <= total:
                while len(gammas) <= n:
                    gammas.append(gammas[-2])
                asked.append((row["heap"], n, gammas[n]))
                n += 1
        lines = "".join(" ".join([str(h)] * (h > 0) + [str(star2)] * n) + "\n" for h, n, _ in asked)
        out = subprocess.run([nimtb, "query", table, "-", "--json"], input=lines, check=True,
                             capture_output=True, text=True).stdout.splitlines()
        wrong = [(h, n, g, json.loads(o)["value"]) for (h, n, g), o in zip(asked, out)
                 if json.loads(o)["value"] != g]
        if len(out) != len(asked) or wrong:
            for h, n, g, v in wrong[:20]:
                print(f"heap {h}, γ{n}: genus says {g}, the table {v}", file=sys.stderr)
            print(f"{len(wrong)} of {len(asked)} differ", file=sys.stderr)
            return 1
        print(f"{rules}: every γn of heaps 0..{total} whose position has at most {total} tokens "
              f"({len(asked)}) is the table's misère value")
    return 0


if __name__ == "__main__":
    sys.exit(main())
