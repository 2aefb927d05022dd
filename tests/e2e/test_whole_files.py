"""Every file nimtb writes appears whole or not at all (io/codec/publish.h):
each writer — a table, a sequence file, a quotient file, a checkpoint, the
learner's bags, a solve's --stats — is killed with SIGKILL at moments spread
over its run, over an older file of the same name, and what is left under the
name is always the old file or a whole new one, never part of one.
"""
import json
import os
import shutil
import signal
import subprocess
import time
import unittest

from test_cli import NIMTB, run, Workdir

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data")
NIM3 = os.path.join(DATA, "nimtb-0.1-nim-normal-k3-h127.h5")

KILLS = 6  # moments a writer is killed at, spread over one whole run


def read_file(path):
    with open(path, "rb") as f:
        return f.read()


def json_of(path):
    """The JSON object a file holds, or {} when it is not whole."""
    try:
        with open(path) as f:
            return json.load(f)
    except ValueError:
        return {}


class WholeFiles(Workdir):
    def killed_at_moments(self, args, check, old=None, target=None):
        """Runs `nimtb args...` once whole (timing it), then KILLS times
        killed with SIGKILL at moments spread over that time, each over the
        old file when one is given (its bytes); `check(bytes)` says whether
        the bytes under the name (`target`, or -o's) are a whole new file.
        Returns how many runs were killed before they ended."""
        target = target or args[args.index("-o") + 1]
        t0 = time.monotonic()
        code, out, err = run(*args)
        self.assertEqual(code, 0, err)
        whole = time.monotonic() - t0
        killed = 0
        for i in range(KILLS):
            if old is not None:
                with open(target, "wb") as f:
                    f.write(old)
            p = subprocess.Popen([NIMTB, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(whole * (i + 0.5) / KILLS)
            if p.poll() is None:
                p.send_signal(signal.SIGKILL)
                killed += 1
            p.wait()
            if not os.path.exists(target):
                self.assertIsNone(old, "the old file is gone")
                continue
            now = read_file(target)
            if old is not None and now == old:
                continue
            self.assertTrue(check(target), f"{target} is neither the old file nor a whole one")
        return killed

    def readable(self, path):
        code, out, err = run("info", path, "--events", "json")
        return code == 0 and json.loads(out.splitlines()[-1])["event"] == "result"

    def test_table_sequence_and_quotient_files(self):
        t = self.path("t.h5")
        run("solve", "--rules", "nim", "--heaps", "2", "--max-heap", "10", "-o", t, "--quiet")
        self.killed_at_moments(["solve", "--rules", "nim", "--misere", "--heaps", "4", "--max-heap", "90",
                                "-o", t, "--force", "--quiet", "--threads", "1"],
                               self.readable, old=read_file(t))
        s = self.path("s.h5")
        run("sequence", "--rules", "kayles", "--max-heap", "10", "-o", s)
        self.killed_at_moments(["sequence", "--rules", "grundy", "--max-heap", "100000", "-o", s, "--force"],
                               self.readable, old=read_file(s))
        q = self.path("q.json")
        run("quotient", "--rules", "nim", "--max-heap", "3", "-o", q)
        self.killed_at_moments(["quotient", "--rules", "octal:0.07", "--max-heap", "26", "-o", q, "--force"],
                               self.readable, old=read_file(q))

    def test_stats_and_learner(self):
        stats = self.path("stats.json")
        with open(stats, "w") as f:
            f.write('{"old": true}\n')

        def stats_whole(path):
            return "levels" in json_of(path)
        self.killed_at_moments(["solve", "--rules", "octal:0.07", "--max-total", "40", "-o", self.path("k.h5"),
                                "--force", "--quiet", "--stats", stats, "--threads", "1"],
                               stats_whole, old=read_file(stats), target=stats)
        bags = self.path("bags.json")

        def bags_whole(path):
            return json_of(path).get("format") == "nimtb-matchboxes"
        args = ["play", "--table", NIM3, "--watch", "--level", "perfect,learning", "--games", "300",
                "--seed", "7", "--learning-file", bags]
        code, out, err = run(*args)
        self.assertEqual(code, 0, err)
        # Killed while its games save the bags, game after game.
        self.killed_at_moments(args, bags_whole, old=read_file(bags), target=bags)

    def test_checkpoint(self):
        folder = self.path("cp")
        args = ["solve", "--rules", "octal:0.07", "--misere", "--max-total", "44", "-o", self.path("c.h5"),
                "--quiet", "--threads", "1", "--checkpoint", folder, "--checkpoint-every", "0"]
        code, out, err = run(*args, "--stats", self.path("ref.json"))
        self.assertEqual(code, 0, err)
        os.rename(self.path("c.h5"), self.path("ref.h5"))
        t0 = time.monotonic()
        run(*args)
        whole = time.monotonic() - t0
        os.remove(self.path("c.h5"))
        for i in range(KILLS):
            p = subprocess.Popen([NIMTB, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(whole * (i + 0.5) / KILLS)
            if p.poll() is None:
                p.send_signal(signal.SIGKILL)
            p.wait()
            # Every file of the checkpoint is whole: the same command resumes from it
            # (a damaged file would be refused) and writes the table of a whole run
            # (unless the run killed had written it already).
            if os.path.exists(self.path("c.h5")):
                # Killed after its table was in place, perhaps before it removed
                # its checkpoint: the table is whole; what is left of the
                # checkpoint goes with it here.
                shutil.rmtree(folder, ignore_errors=True)
            else:
                code, out, err = run(*args)
                self.assertEqual(code, 0, err)
            code, a, _ = run("dump", self.path("c.h5"), "--csv")
            code, b, _ = run("dump", self.path("ref.h5"), "--csv")
            self.assertEqual(a, b)
            os.remove(self.path("c.h5"))
            self.assertFalse(os.path.exists(folder), "the checkpoint is removed once the table is written")


if __name__ == "__main__":
    unittest.main()
