"""The command line as a person new to nimtb meets it: what they type, what they read.

Each test is a defect someone found by using nimtb from a terminal, run the way they ran
it; the real binary (NIMTB) on real files.
"""
import csv
import io
import json
import os
import re
import signal
import unittest

from test_cli import Workdir, run

SUBCOMMANDS = ["solve", "info", "query", "dump", "verify", "sequence", "quotient", "play", "serve"]


def help_options(command):
    """{long name: (short letter or None, (min, max) or None)} from `nimtb COMMAND --help`."""
    code, out, err = run(command, "--help")
    assert code == 0, err
    block = out.split("options:\n", 1)[1].split("\n\n", 1)[0]
    options, name = {}, None
    descriptions = {}
    for line in block.splitlines():
        m = re.match(r"  (?:-(\w) \[ )?--([\w-]+)(?: \])?(?: arg(?: \(=[^)]*\))?)?\s*(.*)", line)
        if m:
            name = m.group(2)
            options[name] = m.group(1)
            descriptions[name] = m.group(3)
        elif name:
            descriptions[name] += " " + line.strip()
    found = {}
    for name, short in options.items():
        ranges = re.findall(r"\((-?\d+)\s+to\s+(-?\d+)\)", descriptions[name])
        assert len(ranges) <= 1, f"{command} --{name} states {len(ranges)} ranges"
        found[name] = (short, tuple(map(int, ranges[0])) if ranges else None)
    return found


class Usage(Workdir):
    def test_one_name_and_one_range_per_option(self):
        """Every subcommand's --help: a long name has one short letter and one range wherever it
        appears, a letter names one option, and each range stated is the one enforced."""
        t = self.solve("--rules", "nim", "--heaps", "2", "--max-heap", "3")
        # What each ranged option needs beside it to reach its own check.
        contexts = {
            ("solve", "heaps"): ["--rules", "nim", "--max-heap", "3"],
            ("solve", "max-heap"): ["--rules", "nim", "--heaps", "2"],
            ("solve", "max-total"): ["--rules", "nim"],
            ("solve", "threads"): ["--rules", "nim", "--heaps", "2", "--max-heap", "3"],
            ("solve", "compression-level"): ["--rules", "nim", "--heaps", "2", "--max-heap", "3"],
            ("solve", "format-version"): ["--rules", "nim", "--heaps", "2", "--max-heap", "3"],
            ("dump", "max-total"): [t],
            ("query", "limit"): ["--rules", "octal:0.77", "3"],
            ("sequence", "max-heap"): ["--rules", "nim"],
            ("sequence", "limit"): ["--rules", "nim", "--until-proven"],
            ("sequence", "threads"): ["--rules", "nim", "--max-heap", "5"],
            ("quotient", "max-heap"): ["--rules", "nim"],
            ("quotient", "limit"): ["--rules", "nim", "--until-proven"],
            ("quotient", "time-limit"): ["--rules", "nim", "--max-heap", "3"],
            ("quotient", "max-order"): ["--rules", "nim", "--max-heap", "3"],
            ("quotient", "max-copies"): ["--rules", "nim", "--max-heap", "3"],
            ("play", "seed"): [],
            ("play", "games"): [],
            ("play", "rows"): ["--game", "northcott"],
            ("serve", "port"): [],
            ("serve", "job-time"): [],
            ("serve", "job-memory"): [],
            ("serve", "jobs"): [],
            ("serve", "request-time"): [],
            ("serve", "per-address"): [],
        }
        # The one option with a range of its own: a sequence runs to heap 2^32 (its 2^32 + 1
        # values fit in memory), where a table's heaps hold at most 2^32 - 1 tokens.
        own_range = {("sequence", "max-heap")}
        seen = {}
        letters = {}
        for command in SUBCOMMANDS:
            for name, (short, bounds) in help_options(command).items():
                key = f"{command} {name}" if (command, name) in own_range else name
                if key in seen:
                    self.assertEqual(seen[key], (short, bounds), f"{command} --{name}")
                seen[key] = (short, bounds)
                if short:
                    self.assertEqual(letters.setdefault(short, name), name, f"-{short} in {command}")
                if bounds is None:
                    continue
                self.assertIn((command, name), contexts, f"{command} --{name} has a range no test tries")
                low, high = bounds
                for value in (low - 1, high + 1, 10**20):  # and past what 64 bits hold
                    code, out, err = run(command, *contexts[(command, name)], f"--{name}", str(value),
                                         cwd=self.dir, stdin="")
                    self.assert_error(code, err, 2, f"--{name} must be a whole number from {low} to {high}")
        for name in ("output", "force", "threads", "max-heap", "limit", "json", "progress"):
            self.assertIn(name, seen)
        self.assertEqual(seen["output"][0], "o")
        self.assertEqual(seen["force"][0], "f")
        self.assertNotIn("out", seen)
        self.assertNotIn("level", help_options("solve"))  # --compression-level; play's --level is a strength

    def test_an_option_that_does_nothing_is_refused(self):
        box = ["--rules", "nim", "--heaps", "2", "--max-heap", "3", "-o", self.path("x.h5")]
        for args, fragment in [
            (["play", "--level", "easy,perfect"], "--level L1,L2 sets the two computers of --watch"),
            (["play", "--watch", "--opponent", "human"], "--opponent does not go with it"),
            (["play", "--watch", "--first", "computer"], "--first does not go with --watch"),
            (["play", "--opponent", "human", "--level", "easy"], "a game between two people has none"),
            (["play", "--learning-file", self.path("bags.json")], "--learning-file goes with the learning level"),
            (["solve", *box, "--checkpoint-every", "5"], "--checkpoint-every goes with --checkpoint"),
            (["solve", *box, "--method", "sprague-grundy", "--kernel", "lines"], "--kernel is the brute method's"),
            (["solve", *box, "-c", "none", "--compression-level", "5"], "none has no levels"),
        ]:
            code, out, err = run(*args, cwd=self.dir, stdin="")
            self.assert_error(code, err, 2, fragment)
        self.assertFalse(os.path.exists(self.path("x.h5")))

    def test_too_large_exits_1_however_large(self):
        for args in (["--heaps", "6", "--max-heap", "1000"], ["--heaps", "64", "--max-heap", "1000000"],
                     ["--max-total", "129"], ["--heaps", "65", "--max-heap", "1"]):
            code, out, err = run("solve", "--rules", "nim", *args, "-o", self.path("x.h5"))
            self.assertEqual(code, 1, err)
        code, out, err = run("quotient", "--rules", "octal:0.77", "--max-heap", "100001")
        self.assert_error(code, err, 1, "misère quotients are computed up to heap 100000")


class Answers(Workdir):
    def test_dump_csv_quotes_the_moves_that_hold_commas(self):
        t = self.solve("--rules", "octal:0.77", "--max-total", "9")
        code, out, err = run("dump", t, "--csv")
        self.assertEqual(code, 0, err)
        rows = list(csv.reader(io.StringIO(out)))
        self.assertEqual(rows[0], ["position", "value", "remoteness", "winning_move"])
        self.assertTrue(all(len(r) == 4 for r in rows), [r for r in rows if len(r) != 4][:3])
        moves = {r[0]: r[3] for r in rows[1:]}
        self.assertIn(",", moves["3"])  # "take 1 from the 3, leaving 1 and 1 -> 1 1"
        q = json.loads(run("query", t, "3", "--json")[1])
        best = q["moves"][0]
        self.assertEqual(moves["3"], f"{best['move']} -> 1 1")

    def test_a_position_typed_as_words_blank_or_in_a_batch(self):
        t = self.solve("--rules", "nim", "--heaps", "3", "--max-heap", "7")
        self.assertEqual(run("query", t, "3", "4", "5")[1], run("query", t, "3 4 5")[1])
        self.assertEqual(run("query", "--rules", "nim", "3", "4", "5")[1], run("query", "--rules", "nim", "3 4 5")[1])
        for blank in ("", " ", ","):
            code, out, err = run("query", t, blank)
            self.assert_error(code, err, 2, "the position is blank")
        code, out, err = run("query", t, "3", "-")
        self.assert_error(code, err, 2, "give it alone")
        # With --json the answers line up with the lines read, a bad line's place an error object.
        lines = ["1 2 3", "x", "", "9 9", "3 4 5", "0"]
        code, out, err = run("query", t, "-", "--json", stdin="\n".join(lines) + "\n")
        self.assertEqual(code, 2)
        answers = [json.loads(l) for l in out.splitlines()]
        self.assertEqual(len(answers), len(lines))
        self.assertEqual([a.get("line") for a in answers], [None, 2, 3, 4, None, None])
        self.assertEqual([a.get("value") for a in answers], [0, None, None, None, 2, 0])
        self.assertIn("blank", answers[2]["error"])
        self.assertEqual(err.count("nimtb: error: line "), 3)

    def test_verify_prints_lines_a_terminal_holds(self):
        for args in (["--heaps", "1", "--max-heap", "65535"], ["--heaps", "4", "--max-heap", "40"]):
            t = self.solve("--rules", "nim", *args, name="v.h5")
            code, out, err = run("verify", t)
            self.assertEqual(code, 0, err)
            self.assertLessEqual(max(len(l) for l in out.splitlines()), 78, out)
            self.assertLess(len(out), 10000)
            full = json.loads(run("verify", t, "--json")[1])
            if len(full["single_heaps"]["values"]) > 100:
                self.assertIn(f"({len(full['single_heaps']['values'])} in all; --json lists every one)", out)
            os.remove(t)

    def test_a_counterexample_says_what_it_compares(self):
        import h5py
        t = self.solve("--rules", "nim", "--heaps", "3", "--max-heap", "7", "-c", "none", "--format-version", "1")
        with h5py.File(t, "r+") as f:
            v = f["value"][:]
            v[48] = 3  # 3 4 5
            f["value"][:] = v
        code, out, err = run("verify", t)
        self.assertEqual(code, 1)
        self.assertRegex(out, r"3 4 5\s+stored value 3, expected 2")
        self.assertNotRegex(out, r"stored \d+ expected")
        report = json.loads(run("verify", t, "--json")[1])
        bouton = [c for c in report["checks"] if c["name"] == "bouton"][0]
        self.assertEqual(bouton["counterexamples"][0], {"position": [3, 4, 5], "of": "value", "stored": 3,
                                                       "expected": 2})

    def test_play_help_shows_a_move_of_the_rule_being_played(self):
        for rules, start in [("octal:0.77", "7 4"), ("octal:0.07", "9"), ("grundy", "7"), ("subtract:1,3,4", "5 6")]:
            t = self.solve("--rules", rules, "--max-total", "12", name="p.h5")
            code, out, err = run("play", t, "--start", start, "--opponent", "human", stdin="help\nquit\n",
                                 cwd=self.dir)
            self.assertEqual(code, 0, err)
            example = re.search(r"'([\d ]+)' (?:would|takes)", out) or re.search(r"'(\d+ \d+)' takes", out)
            self.assertIsNotNone(example, out)
            self.assertNotIn("from 3 5", out)
            code, out, err = run("play", t, "--start", start, "--opponent", "human",
                                 stdin=f"help\n{example.group(1)}\nquit\n", cwd=self.dir)
            self.assertEqual(code, 0, err)
            self.assertNotIn("not a move", out, (rules, example.group(1)))
            os.remove(t)


class Messages(Workdir):
    def test_numbers_too_large_name_the_limit_and_are_not_echoed_whole(self):
        t = self.solve("--rules", "nim", "--heaps", "2", "--max-heap", "3")
        code, out, err = run("query", t, "4294967296")
        self.assert_error(code, err, 2, "heap 1 ('4294967296') is too large: a heap holds at most 4294967295")
        for words in (["7 " + "9" * 100000], ["7", "9" * 100000]):
            code, out, err = run("query", "--rules", "nim", *words)
            self.assertLess(len(err), 300, err[:300])
            self.assert_error(code, err, 2, "(100000 characters)) is too large: a heap holds at most 2^63 - 1")

    def test_long_rule_texts_are_not_echoed_whole(self):
        """A rule of 100,000 characters, typed or in a table's attribute, makes one short line."""
        import h5py
        import numpy as np
        for rule, words in [("x" * 100000, "unknown rule 'xxxxxxxxxxxxxxxxxxxx...' (100000 characters)"),
                            ("octal:0." + "7" * 100000, "bad octal code '0.777777777777777777...' (100002 characters)"),
                            ("subtract:" + "9" * 100000, "bad amount '99999999999999999999...' (100000 characters)"),
                            ("nim:" + "1" * 100000, "but got 'nim:1111111111111111...' (100004 characters)")]:
            code, out, err = run("sequence", "--rules", rule, "--max-heap", "10")
            self.assert_error(code, err, 2, words)
            self.assertLess(len(err), 500, err[:500])
        t = self.solve("--rules", "nim", "--heaps", "2", "--max-heap", "3")
        with h5py.File(t, "r+") as f:
            del f.attrs["rules"]
            f.attrs["rules"] = np.bytes_(b"x" * 100000)
        code, out, err = run("info", t)
        self.assert_error(code, err, 1, "bad attribute: unknown rule 'xxxxxxxxxxxxxxxxxxxx...' (100000 characters)")
        self.assertLess(len(err), 500, err[:500])

    def test_attribute_text_that_is_not_utf8_is_refused_in_plain_words(self):
        """A damaged attribute text that is not UTF-8 once reached JSON, which cannot hold it
        ('info --json' printed nlohmann's type_error; Python raised RuntimeError or a
        TableError without a message; found by the damage campaign)."""
        import h5py
        import numpy as np
        t = self.solve("--rules", "nim", "--heaps", "2", "--max-heap", "3")
        for name in ("method", "format", "rules"):
            with h5py.File(t, "r+") as f:
                keep = f.attrs[name]
                del f.attrs[name]
                f.attrs[name] = np.bytes_(b"nim\xb9\xff")
            for args in (["info", t], ["info", t, "--json"], ["query", t, "1 2"]):
                code, out, err = run(*args)
                self.assert_error(code, err, 1, f"attribute '{name}' is not UTF-8 text: the file is damaged")
                self.assertEqual(out, "")
            with h5py.File(t, "r+") as f:
                del f.attrs[name]
                f.attrs[name] = keep

    def test_damaged_and_foreign_files_in_plain_words(self):
        import h5py
        t = self.solve("--rules", "nim", "--heaps", "3", "--max-heap", "30", "-c", "none")
        with open(t, "rb") as f:
            data = f.read()
        cut = self.path("cut.h5")
        with open(cut, "wb") as f:
            f.write(data[:3000])
        code, out, err = run("query", cut, "1 2")
        self.assert_error(code, err, 1, f"the file is cut short: it has 3000 bytes of the {len(data)}")
        self.assertNotIn("=", err)
        self.assertNotIn("->", err)
        # A table whose data a filter nimtb lacks compresses (h5py's LZF).
        with h5py.File(t, "r+") as f:
            for name in ("value", "remoteness"):
                d = f[name]
                data, attrs, chunks = d[:], dict(d.attrs), d.chunks
                del f[name]
                d = f.create_dataset(name, data=data, chunks=chunks, compression="lzf")
                for k, v in attrs.items():
                    d.attrs[k] = v
        code, out, err = run("query", t, "1 2")
        self.assert_error(code, err, 1, "compressed with HDF5 filter 32000")
        self.assertIn("which nimtb cannot decode", err)
        self.assertNotIn("not registered", err)

    def test_sequence_says_its_period_once(self):
        code, out, err = run("sequence", "--rules", "octal:0.77", "--until-proven")
        self.assertEqual(code, 0, err)
        self.assertNotIn("period       period", out)
        self.assertRegex(out, r"\nPeriod 12 from heap \d+")

    def test_a_closed_terminal_leaves_no_table(self):
        """SIGHUP (the terminal closed) cleans up as Ctrl-C does: no draft (.NAME.h5.tmp-PID-N) left."""
        self.interrupt_once(["solve", "--rules", "nim", "--heaps", "6", "--max-heap", "40", "--progress",
                             "-o", self.path("t.h5")], b"solving", sig=signal.SIGHUP)

if __name__ == "__main__":
    unittest.main()
