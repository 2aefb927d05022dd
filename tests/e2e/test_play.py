"""End-to-end tests of `nimtb play`, driven through a pipe the way a script would."""
import json
import os
import re
import shutil
import tempfile
import unittest

from test_cli import NIMTB, run, Workdir

GAME = re.compile(r"^game (\d+): start (.*) \(([NP])\), winner (\d) ", re.M)


class Play(Workdir):
    def play(self, *args, stdin=""):
        return run("play", *args, stdin=stdin, cwd=self.dir)

    def test_perfect_never_loses_a_won_position(self):
        for conv in [[], ["--misere"]]:
            for seed in ["1", "2"]:
                # Perfect first: it must win every game that starts from an N-position.
                code, out, err = self.play(*conv, "--layout", "random", "--watch", "--level", "perfect,random",
                                           "--games", "150", "--seed", seed)
                self.assertEqual(code, 0, err)
                games = GAME.findall(out)
                self.assertEqual(len(games), 150)
                for n, start, kind, winner in games:
                    if kind == "N":
                        self.assertEqual(winner, "1", f"game {n} from {start} {conv}")
                # Perfect second: it must win every game that starts from a P-position.
                for opponent in ["random", "easy", "medium"]:
                    code, out, err = self.play(*conv, "--layout", "random", "--watch", "--level",
                                               opponent + ",perfect", "--games", "60", "--seed", seed)
                    for n, start, kind, winner in GAME.findall(out):
                        if kind == "P":
                            self.assertEqual(winner, "2", f"game {n} from {start} {conv}")

    def test_refusals_keep_the_question(self):
        code, out, err = self.play("--rules", "subtract:1,3,4", "--start", "1 4", "--opponent", "human",
                                   stdin="0 1\n1 9\n2 2\nfoo\n1 2 3\n1 0\n1 1\n1 1\n2 1\nquit\n")
        self.assertEqual(code, 0, err)
        self.assertIn("there is no heap 0", out)
        self.assertIn("heap 1 has only 1 token; you may take 1\n", out)
        self.assertIn("does not allow taking 2; from heap 2 you may take 1, 3 or 4", out)
        self.assertIn("type a move as HEAP AMOUNT", out)
        self.assertIn("take at least one token", out)
        self.assertIn("heap 1 is empty", out)
        self.assertIn("player 2 to move", out)

    def test_hint_and_undo(self):
        code, out, err = self.play("--start", "3 4 5", "--seed", "1", stdin="hint\n1 1\nundo\nquit\n")
        self.assertEqual(code, 0, err)
        self.assertIn("hint: take 2 from heap 1 (the 3), leaving 1 4 5: a P-position", out)
        self.assertIn("3 ^ 4 ^ 5 = 2", out)
        self.assertIn("computer (perfect) takes", out)
        after_undo = out.split("undone")[1]
        self.assertIn("(3)\n", after_undo.split("to move")[0])
        code, out, err = self.play("--start", "1 2 3", stdin="hint\nquit\n")
        self.assertIn("P-position (value 0): every move loses", out)

    def test_one_heap_takes_an_amount_alone(self):
        code, out, err = self.play("--rules", "subtract:1-3", "--layout", "matches", "--opponent", "human",
                                   stdin="1\n99\n4\n0\n3\nquit\n")
        self.assertEqual(code, 0, err)
        self.assertIn("player 1 to move (an amount, or hint", out)
        self.assertIn("(20)\nplayer 2 to move", out)  # '1' took one match
        self.assertIn("not a move: the heap has only 20 tokens; you may take 1, 2 or 3\n", out)
        self.assertIn("not a move: the rule subtract:1-3 does not allow taking 4; from the heap you may "
                      "take 1, 2 or 3\n", out)
        self.assertIn("not a move: take at least one token; you may take 1, 2 or 3\n", out)
        self.assertIn("(17)\nplayer 1 to move", out)  # '3' took three
        self.assertNotIn("HEAP AMOUNT", out)
        # Near the end the reasons follow the heap: 2 left, so 1 or 2.
        code, out, err = self.play("--rules", "subtract:1-3", "--start", "2", "--opponent", "human",
                                   stdin="3\nquit\n")
        self.assertIn("the heap has only 2 tokens; you may take 1 or 2", out)

    def test_heaps_named_as_shown_with_an_empty_heap(self):
        # The computer's moves and the hint name the heap by its number on the board and its size.
        code, out, err = self.play("--start", "0 3 4", "--seed", "1", stdin="hint\n3 1\nquit\n")
        self.assertEqual(code, 0, err)
        self.assertIn("heap  1 |", out)
        self.assertIn("hint: take 1 from heap 3 (the 4), leaving 3 3", out)
        moves = re.findall(r"computer \(perfect\) takes (\d+) from heap (\d) \(the (\d+)\)", out)
        self.assertEqual(len(moves), 1)
        amount, heap, size = map(int, moves[0])
        self.assertEqual([0, 3, 3][heap - 1], size)  # the board after '3 1' is 0 3 3

    def test_a_whole_game_between_people(self):
        code, out, err = self.play("--start", "2 1", "--opponent", "human", "--trace", stdin="1 2\n2 1\nn\n")
        self.assertEqual(code, 0, err)
        self.assertIn("game over: player 2 wins after 2 moves", out)
        self.assertIn("play again?", out)
        for t in ["setup -> human-turn", "human-turn -> human-turn", "human-turn -> game-over",
                  "game-over -> finished"]:
            self.assertIn("[trace] " + t, out)

    def test_computer_first_and_misere(self):
        code, out, err = self.play("--misere", "--start", "1 1 1", "--first", "computer", "--trace",
                                   stdin="2 1\nn\n")
        self.assertEqual(code, 0, err)
        self.assertIn("setup -> computer-turn", out)
        # 1 1 1 is a P-position in misere Nim: the computer loses whatever it does.
        self.assertIn("game over: you win after 3 moves", out)

    def test_learning_improves_and_persists(self):
        bags = os.path.join(self.dir, "bags.json")
        code, out, err = self.play("--rules", "subtract:1-3", "--layout", "matches", "--watch", "--level",
                                   "learning,random", "--games", "400", "--seed", "11", "--learning-file", bags)
        self.assertEqual(code, 0, err)
        rates = [int(r) for r in re.findall(r"(\d+)%", out.splitlines()[-1])]
        self.assertEqual(len(rates), 4)
        self.assertGreater(rates[-1], rates[0] + 15, out.splitlines()[-1])
        with open(bags) as f:
            saved = json.load(f)
        self.assertEqual(saved["format"], "nimtb-matchboxes")
        self.assertIn("21", saved["bags"])
        # A second run starts from the saved bags: already better than a fresh learner.
        code, out2, err = self.play("--rules", "subtract:1-3", "--layout", "matches", "--watch", "--level",
                                    "learning,random", "--games", "100", "--seed", "12", "--learning-file", bags)
        again = int(re.findall(r"(\d+)%", out2.splitlines()[-1])[0])
        self.assertGreater(again, rates[0] + 15)

    def test_table_found_solved_or_named(self):
        code, out, err = self.play("--start", "3 4", stdin="quit\n")
        self.assertIn("solving one now", err)
        code, out, err = self.play("--start", "2 3", stdin="quit\n")
        self.assertIn("playing from tables/nim-normal-k2-h4.h5", err)
        code, out, err = self.play("--start", "100 100 100 100 100", stdin="quit\n")
        self.assert_error(code, err, 1, "make one with: nimtb solve --rules nim --heaps 5 --max-heap 100")
        # Never a command that would then refuse: 21.5 TiB of Nim, 117 GiB of Kayles.
        code, out, err = self.play("--start", "900 900 900 900 900", stdin="quit\n")
        self.assert_error(code, err, 1, "no table of it can be made on this machine: solving its 5003280395806 "
                                        "positions needs 21.5 TiB of memory")
        code, out, err = self.play("--rules", "kayles", "--start", "64 64", stdin="quit\n")
        self.assert_error(code, err, 1, "no table of it can be made on this machine: solving its 41959382090 "
                                        "positions needs 117.2 GiB of memory")
        self.assertNotIn("nimtb solve", err)
        t = self.solve("--rules", "nim", "--misere", "--heaps", "4", "--max-heap", "7")
        code, out, err = self.play(t, "--layout", "marienbad", stdin="quit\n")
        self.assertIn("misere play: whoever makes the last move loses", out)
        code, out, err = self.play(t, "--start", "9 1", stdin="quit\n")
        self.assert_error(code, err, 2, "at most 4 heaps of at most 7 tokens")
        code, out, err = self.play(t, "--rules", "nim", stdin="quit\n")
        self.assert_error(code, err, 2, "come from the table")
        code, out, err = self.play("--level", "genius", stdin="quit\n")
        self.assert_error(code, err, 2, "unknown level 'genius'")

    def test_northcott(self):
        # Gaps 3 and 5: X moves first and wins by closing row 2 to a gap of 3,
        # then answers every move of O in the other row.
        code, out, err = self.play("--game", "northcott", "--start", "1-5 12-6", "--seed", "4",
                                   stdin="hint\n2 10\nquit\n")
        self.assertEqual(code, 0, err)
        self.assertIn("nim-normal-k2-h10.h5", err)  # solved on the spot, a Nim table of the gaps
        self.assertIn("gaps 3 ^ 5 = 6", out)
        self.assertIn("hint: move X in row 2 from column 12 to 10; the gaps' XOR becomes 0", out)
        self.assertIn("gaps 3 ^ 3 = 0", out)
        self.assertIn("the computer moves O in row", out)
        # A whole game between two people through the pipe, ending when X is stuck.
        code, out, err = self.play("--game", "northcott", "--start", "2-3", "--opponent", "human",
                                   stdin="1 1\n1 1\n1 2\n")
        self.assertEqual(code, 0, err)
        self.assertIn("player 1 moves X, player 2 moves O", out)
        self.assertIn("O to move", out)
        self.assertIn("not a move: O cannot jump over or land on", out)
        self.assertIn("X cannot move: player 2 (O) wins after 2 moves", out)
        for bad, why in [(["--rows", "9"], "--rows"), (["--start", "1-1"], "X and O on one square"),
                         (["--layout", "classic"], "random or aligned"), (["--misere"], "does not go"),
                         (["--rules", "nim"], "its own rules"), (["--rows", "2"], None),
                         (["--game", "chess"], "heaps or northcott")]:
            args = bad if bad[0] == "--game" else ["--game", "northcott", *bad]
            code, out, err = self.play(*args, stdin="quit\n")
            if why is None:
                self.assertEqual(code, 0, err)
            else:
                self.assertEqual(code, 2, (bad, err))
                self.assertIn(why, err)
        code, out, err = self.play("--rows", "2", stdin="quit\n")
        self.assert_error(code, err, 2, "--rows goes with --game northcott")


if __name__ == "__main__":
    unittest.main()
