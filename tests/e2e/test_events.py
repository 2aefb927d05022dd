"""End-to-end tests of the one currency of long operations: every long command
takes its request as JSON (`--request`, the keys of Python's keywords) and
reports as JSON events (`--events json`, docs/EVENTS.md); and the server's
children are read through those events only, never through a person's text.
"""
import json
import os
import signal
import subprocess
import sys
import unittest

from test_cli import NIMTB, run, Workdir

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
import serve_corpus  # noqa: E402

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data")
SUB = os.path.join(DATA, "nimtb-0.1-subtract-1_3_4-misere-k3-h10.h5")


def events(*args):
    """(exit code, the events, each parsed) of `nimtb args... --events json`."""
    code, out, err = run(*args, "--events", "json")
    lines = out.splitlines()
    return code, [json.loads(line) for line in lines]


def request(command, req, *args):
    return events(command, "--request", json.dumps(req), *args)


class Events(Workdir):
    def assert_result(self, code, evs):
        self.assertEqual(code, 0, evs)
        self.assertTrue(evs, "no event")
        self.assertEqual(evs[-1]["event"], "result", evs[-1])
        self.assertEqual([e for e in evs if e["event"] in ("result", "error")], [evs[-1]])
        result = dict(evs[-1])
        del result["event"]
        return result

    def assert_failure(self, code, evs, kind, fragment, exit_code):
        self.assertEqual(code, exit_code, evs)
        self.assertEqual(evs[-1]["event"], "error", evs)
        self.assertEqual(evs[-1]["kind"], kind, evs[-1])
        self.assertIn(fragment, evs[-1]["message"])
        self.assertEqual([e for e in evs if e["event"] in ("result", "error")], [evs[-1]])

    def test_sequence(self):
        result = self.assert_result(*request("sequence", {"rules": "kayles", "max_heap": 200}))
        code, out, err = run("sequence", "--rules", "kayles", "--max-heap", "200", "--json")
        self.assertEqual(result, json.loads(out))
        self.assert_failure(*request("sequence", {"rules": "kayles", "max_heap": -5}), "usage",
                            "max_heap: must be a whole number from 1 to 4294967296, not -5", 2)
        self.assert_failure(*request("sequence", {"rules": "kayles", "max_heap": 5, "colour": 1}),
                            "usage", "unknown sequence option 'colour'", 2)
        self.assert_failure(*request("sequence", {"rules": "kayles"}), "usage",
                            "max_heap or until_proven", 2)
        until = self.assert_result(*request("sequence", {"rules": "octal:0.16", "until_proven": True}))
        self.assertEqual(until["period"]["basis"], "proof")
        # A long one reports its progress, in order, to the end.
        code, evs = request("sequence", {"rules": "kayles", "max_heap": 300000})
        self.assert_result(code, evs)
        fractions = [e["fraction"] for e in evs if e["event"] == "progress"]
        self.assertEqual(fractions, sorted(fractions))
        self.assertEqual(fractions[-1], 1.0)

    def test_a_failure_before_the_request_is_read_is_an_event(self):
        self.assert_failure(*events("sequence", "--bogus"), "usage", "bogus", 2)
        self.assert_failure(*events("sequence", "--rules", "kayles", "--max-heap", "5",
                                    "--request", "{}"), "usage", "--request takes the place", 2)
        self.assert_failure(*events("sequence", "--request", "[1"), "usage", "JSON object", 2)

    def test_quotient_and_genus(self):
        result = self.assert_result(*request("quotient", {"rules": "kayles", "max_heap": 10,
                                                          "analyze": True}))
        code, out, err = run("quotient", "--rules", "kayles", "--max-heap", "10", "--analyze", "--json")
        self.assertEqual(result, json.loads(out))
        self.assert_failure(*request("quotient", {"rules": "kayles", "max_heap": 10 ** 6}),
                            "too-large", "up to heap 100000", 1)
        self.assert_failure(*request("quotient", {"rules": "kayles", "max_heap": 10 ** 30}),
                            "usage", "max_heap: must be a whole number", 2)
        genus = self.assert_result(*request("genus", {"rules": "kayles", "max_heap": 20}))
        code, out, err = run("genus", "--rules", "kayles", "--max-heap", "20", "--json")
        self.assertEqual(genus, json.loads(out))
        self.assert_failure(*request("genus", {"rules": "kayles"}), "usage", "max_heap", 2)

    def test_solve(self):
        req = {"rules": "subtract:1,3,4", "convention": "misere", "heaps": 3, "max_heap": 10,
               "output": self.path("t.h5")}
        result = self.assert_result(*request("solve", req))
        self.assertEqual(result["positions"], 286)
        self.assertEqual(result["request"]["output"], self.path("t.h5"))
        self.assertTrue(os.path.exists(self.path("t.h5")))
        self.assert_failure(*request("solve", req), "file", "already exists", 1)
        self.assert_failure(*request("solve", dict(req, heaps=0, output=self.path("u.h5"))),
                            "usage", "heaps: must be a whole number from 1 to 128", 2)
        self.assertFalse(os.path.exists(self.path("u.h5")))
        # What the plan refuses is refused by the request's one check, before any
        # work: no default folder made.
        for bad, fragment in ((["--method", "sprague-grundy", "--misere"], "normal play only"),
                              (["--method", "sprague-grundy", "--no-remoteness"], "goes with the brute")):
            code, out, err = run("solve", "--rules", "nim", "--heaps", "2", "--max-heap", "5", *bad,
                                 cwd=self.dir)
            self.assertEqual(code, 2, err)
            self.assertIn(fragment, err)
            self.assertFalse(os.path.exists(self.path("tables")), bad)
        # The table is the one the options make.
        self.solve("--rules", "subtract:1,3,4", "--misere", "--heaps", "3", "--max-heap", "10",
                   name="o.h5")
        code, a, _ = run("dump", self.path("t.h5"), "--csv")
        code, b, _ = run("dump", self.path("o.h5"), "--csv")
        self.assertEqual(a, b)

    def test_dump_verify_info(self):
        code, evs = request("dump", {"table": SUB, "csv": True})
        self.assert_result(code, evs)
        code, csv, err = run("dump", SUB, "--csv")
        self.assertEqual("".join(e["text"] for e in evs if e["event"] == "data"), csv)
        census = self.assert_result(*request("dump", {"table": SUB, "count": True}))
        code, out, err = run("dump", SUB, "--count", "--json")
        self.assertEqual(census, json.loads(out))
        self.assert_failure(*request("dump", {"table": SUB, "count": True, "csv": True}),
                            "usage", "count takes no", 2)
        self.assert_failure(*request("dump", {"table": self.path("none.h5")}), "not-found", "none.h5", 1)
        verdict = self.assert_result(*request("verify", {"table": SUB}))
        self.assertTrue(verdict["ok"])
        info = self.assert_result(*events("info", SUB))
        self.assertEqual(info["rules"], "subtract:1,3,4")
        with open(self.path("notes.h5"), "w") as f:
            f.write("not a table\n")
        self.assert_failure(*events("info", self.path("notes.h5")), "file", "not an HDF5 file", 1)

    def test_interrupted(self):
        p = subprocess.Popen([NIMTB, "sequence", "--request",
                              json.dumps({"rules": "grundy", "max_heap": 1 << 24}), "--events", "json"],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        while json.loads(p.stdout.readline())["event"] != "progress":
            pass
        p.send_signal(signal.SIGINT)
        out, _ = p.communicate(timeout=60)
        last = json.loads(out.splitlines()[-1])
        self.assertEqual(p.returncode, 1)
        self.assertEqual((last["event"], last["kind"]), ("error", "interrupted"))


# The requests of the corpus whose answers come from children, and their errors.
# (The CSV of the largest table, 10 MB, is left to tools/serve_corpus.py.)
CHILD_REQUESTS = [r for r in serve_corpus.CORPUS
                  if any(e in r[1] for e in ("/api/count", "/api/dump", "/api/sequence", "/api/quotient",
                                             "/api/find", "notes.h5", "crashes"))
                  and not r[1].startswith("/api/dump?table=" + serve_corpus.NIM3)]

# A worker that speaks as nimtb does, with every person's text reworded: its
# progress bar and error lines on stderr, and each error event's message.
WORKER = """#!/bin/bash
"{nimtb}" "$@" 2> >(sed -u -e 's/nimtb: error:/something went wrong:/' -e 's/%/ percent/g' >&2) \\
    | sed -u -e 's/"message":"/"message":"(reworded) /'
exit ${{PIPESTATUS[0]}}
"""


class Worker(Workdir):
    def test_rewording_the_children_changes_no_answer(self):
        worker = self.path("worker")
        with open(worker, "w") as f:
            f.write(WORKER.format(nimtb=os.path.abspath(NIMTB)))
        os.chmod(worker, 0o755)
        plain = serve_corpus.answers(NIMTB, CHILD_REQUESTS)
        reworded = serve_corpus.answers(NIMTB, CHILD_REQUESTS, ("--worker", worker))
        self.assertGreaterEqual(len(CHILD_REQUESTS), 30)
        errors = 0
        for req, a, b in zip(CHILD_REQUESTS, plain, reworded):
            self.assertEqual(a[:2], b[:2], req)  # status and type
            if b[2] != a[2]:
                # Only an error's message, passed on to the client as the child worded it.
                self.assertEqual(b[2].replace(b"(reworded) ", b""), a[2], req)
                errors += 1
        self.assertGreater(errors, 0)


if __name__ == "__main__":
    unittest.main()
