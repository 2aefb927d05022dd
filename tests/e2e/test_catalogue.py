"""tools/catalogue.py and tools/quotient_catalogue.py as a researcher runs them,
on the one-digit codes (fifteen games, a few seconds): every code listed with
how far it went, Winning Ways' period of 0.4, codes that are one game computed
once, and the published tables read and set beside ours, a wrong entry found."""
import csv
import os
import subprocess
import sys
import tempfile
import unittest

from test_cli import NIMTB

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
TOOLS = os.path.join(ROOT, "tools")

# Tables in the published format (tczajka/octal-games' *.md), written here
# from the games' definitions: 0.4's period is Winning Ways' (preperiod 54,
# period 34); 0.1 is right; 4.0's period is given wrong on purpose (3, where
# it is 2), and 0.2 is looked up as 4.0; 0.6 is unsolved, and so, wrongly, is
# 4.3 (a row of one cell, as the published list has them); 4.1 is looked up
# as 0.1 (it is not: a row to catch).
PUBLISHED = {
    "GameLookup.md": "game | 1 | 2 | 3 | 4 | 5 | 6 | 7\n:--- | :- | :- | :- | :- | :- | :- | :-\n"
                     " .x  | -  | 4  | 4  | -  | 4  | -  | 4\n"
                     "4.x  | .1 | 4  | -  | .77 | .51 | .77 | .75\n",
    "TrivialGames.md": "game | prefix | period | nimbers\n:--- | -: | -: | :---\n"
                       ".1 | 2 | 1 | 01(0)\n4 | 1 | 3 | 0(01)\n",
    "SolvedGames.md": "game | prefix | period | largest idx\n:--- | -: | -: | -:\n.4 | 54 | 34 | 9\n",
    "UnsolvedGames.md": "game | n\n:--- | ---\n.6 | 2^21\n4.3 |\n",
}


def tool(*args):
    p = subprocess.run([sys.executable, *args], capture_output=True, text=True,
                       env={**os.environ, "NIMTB": NIMTB}, timeout=600)
    if p.returncode != 0:
        raise AssertionError(p.stderr)
    return p


class Catalogues(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="nimtb-catalogue-")
        self.published = os.path.join(self.dir, "published")
        os.makedirs(self.published)
        for name, text in PUBLISHED.items():
            with open(os.path.join(self.published, name), "w") as f:
                f.write(text)

    def rows(self, name):
        with open(os.path.join(self.dir, name), newline="") as f:
            return {r["code"]: r for r in csv.DictReader(f)}

    def test_sequences_beside_the_published_tables(self):
        tool(os.path.join(TOOLS, "catalogue.py"), "--digits", "1", "--limit", "65536", "--long", "131072",
             "--published", self.published, "--out", self.dir)
        rows = self.rows("catalogue.csv")
        self.assertEqual(sorted(rows), sorted(f"{d0}.{d}" for d0 in (0, 4) for d in range(8) if (d0, d) != (0, 0)))
        self.assertEqual((rows["0.4"]["status"], rows["0.4"]["preperiod"], rows["0.4"]["period"]),
                         ("proven", "54", "34"))
        self.assertEqual(rows["0.6"]["status"], "not proven")
        self.assertEqual(rows["0.6"]["computed_up_to"], "131072")  # sparse: again to --long
        self.assertEqual(rows["0.6"]["stopped"], "not proven up to heap 131072")
        self.assertEqual(rows["0.5"]["same_sequence_as"], "0.3")  # both take one token
        self.assertEqual(rows["0.1"]["published_agrees"], "yes")
        self.assertEqual(rows["0.4"]["published_agrees"], "yes")
        self.assertEqual(rows["0.6"]["published_agrees"], "yes")  # unsolved, and not proven here
        self.assertEqual(rows["4.0"]["published_agrees"], "no: period 2 here")
        self.assertEqual((rows["0.2"]["published_game"], rows["0.2"]["published_agrees"]), ("4.0", "no: period 2 here"))
        self.assertTrue(rows["4.1"]["published_agrees"].startswith("no: the lookup"), rows["4.1"])
        self.assertEqual(rows["4.3"]["published_agrees"], "no: published unsolved, proven here")
        md = open(os.path.join(self.dir, "CATALOGUE.md")).read()
        self.assertIn("- 4.0 (4.0, trivial: preperiod 1, period 3): period 2 here", md)

    def test_quotients_every_code_once_a_game(self):
        cache = os.path.join(self.dir, "cache")
        args = [os.path.join(TOOLS, "quotient_catalogue.py"), "--digits", "1", "--max-heap", "20",
                "--prove", "40", "--seconds", "60", "--prove-seconds", "60", "--max-order", "1024",
                "--cache", cache, "--out", self.dir]
        tool(*args)
        rows = self.rows("quotient_catalogue.csv")
        # A game's result is kept as it comes: a run again reads them, the same catalogue.
        kept = sorted(os.listdir(cache))
        self.assertEqual(len(kept), len({r["same_game_as"] or r["code"] for r in rows.values()}))
        first = open(os.path.join(self.dir, "quotient_catalogue.csv")).read()
        tool(*args)
        self.assertEqual(open(os.path.join(self.dir, "quotient_catalogue.csv")).read(), first)
        self.assertEqual(sorted(os.listdir(cache)), kept)
        self.assertEqual(len(rows), 15)
        # Misère Kayles-like 0.7 takes one token: misère Nim's T_1, proven.
        self.assertEqual((rows["0.7"]["order_20"], rows["0.7"]["tame"]), ("2", "T_1"))
        self.assertTrue(rows["0.7"]["proven"].startswith("heap "), rows["0.7"])
        # 0.4 to heap 20: the order the command gives.
        out = subprocess.run([NIMTB, "quotient", "--rules", "octal:0.4", "--max-heap", "20", "--json"],
                             capture_output=True, text=True, check=True).stdout
        import json
        self.assertEqual(rows["0.4"]["order_20"], str(json.loads(out)["order"]))


if __name__ == "__main__":
    unittest.main()
