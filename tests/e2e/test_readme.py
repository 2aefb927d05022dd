"""The README's tour, run as a new user runs it: every command of its blocks
(```sh: the command line, ```python: the module), in order, in an empty
folder, each of them succeeding."""
import os
import re
import shlex
import subprocess
import tempfile
import unittest

from test_cli import NIMTB

README = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "README.md")
# The module beside the binary under test: build/apps/nimtb -> build/python.
BUILD_PYTHON = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(NIMTB))), "python")


def blocks(kind):
    with open(README) as f:
        return re.findall(r"^```" + kind + r"\n(.*?)^```", f.read(), re.M | re.S)


class Tour(unittest.TestCase):
    def test_readme_is_a_first_page(self):
        with open(README) as f:
            lines = f.read().splitlines()
        self.assertLessEqual(len(lines), 250)
        self.assertEqual(lines[0], "# nimtb")
        setup = [line.split("#")[0].split() for line in lines[1:5] if line.startswith("    ")]
        self.assertEqual(setup, [["tools/setup.sh", "run"], ["tools/setup.sh", "test"]])

    def test_the_tour_runs_in_order(self):
        commands = [line for block in blocks("sh") for line in block.splitlines() if line.strip()]
        self.assertGreaterEqual(len(commands), 10)
        with tempfile.TemporaryDirectory(prefix="nimtb-readme-") as folder:
            for line in commands:
                words = shlex.split(line, comments=True)
                self.assertEqual(words[0], "nimtb", line)
                p = subprocess.run([NIMTB, *words[1:]], cwd=folder, capture_output=True, text=True,
                                   timeout=300)
                self.assertEqual(p.returncode, 0, f"{line}\n{p.stderr}")
                self.assertTrue(p.stdout.strip(), f"{line} printed nothing")
            # The module beside the binary, where this build has one (the
            # sanitizers' builds have none: their Python is the release build's).
            if not os.path.isdir(os.path.join(BUILD_PYTHON, "nimtb")):
                self.assertIn("-asan", NIMTB + os.getcwd() + BUILD_PYTHON, "no module beside " + NIMTB)
                return
            (script,) = blocks("python")
            env = dict(os.environ, PYTHONPATH=BUILD_PYTHON)
            p = subprocess.run(["/usr/bin/python3", "-c", script], cwd=folder, capture_output=True, text=True,
                               env=env, timeout=300)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual(len(p.stdout.splitlines()), script.count("print("), p.stdout)


if __name__ == "__main__":
    unittest.main()
