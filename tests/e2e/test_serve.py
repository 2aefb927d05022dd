"""End-to-end tests of `nimtb serve`: the JSON API over HTTP on loopback, as a
browser or a script uses it. The answers must be the command line's JSON; bad
requests must get a 4xx with a JSON error, and the server must keep serving.
"""
import http.client
import json
import os
import glob
import random
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.parse

from test_cli import NIMTB, run, Workdir

# The server's resident memory and its children, read from /proc as the load script reads them.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
from load_serve import children, rss_mb  # noqa: E402


def settled(path):
    """Dates a file a minute back: one that has been in the folder a while, not one being
    written (a file written in the last seconds that cannot be read is answered 503)."""
    past = time.time() - 60
    os.utime(path, (past, past))


class Server:
    """`nimtb serve` on a free port of loopback, over the folder `tables`."""

    def __init__(self, tables, port=0, options=()):
        self.proc = subprocess.Popen([NIMTB, "serve", "--tables", tables, "--port", str(port), *options],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        assert "at http://127.0.0.1:" in line, line + self.proc.stderr.read()
        self.url = line.split(" at ")[1].split()[0]
        self.port = int(self.url.rstrip("/").rsplit(":", 1)[1])

    def request(self, path, params=None, body=None, method=None, raw_path=False):
        """(status, parsed JSON, text or bytes, content type); the headers stay in self.headers."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        target = path if raw_path or params is None else path + "?" + urllib.parse.urlencode(params)
        headers = {"Content-Type": "application/json"} if body is not None else {}
        conn.request(method or ("POST" if body is not None else "GET"), target, body=body, headers=headers)
        r = conn.getresponse()
        data = r.read()
        ctype = r.getheader("Content-Type", "")
        self.headers = dict(r.getheaders())
        conn.close()
        if ctype == "application/octet-stream":
            return r.status, data, ctype
        data = data.decode()
        return r.status, (json.loads(data) if ctype.startswith("application/json") else data), ctype

    def stop(self):
        self.proc.send_signal(signal.SIGINT)
        out, err = self.proc.communicate(timeout=30)
        return self.proc.returncode, out, err


class ServeCase(Workdir):
    def setUp(self):
        super().setUp()
        self.tables = self.path("tables")
        os.makedirs(self.tables)
        self.solve("--rules", "nim", "--heaps", "3", "--max-heap", "15", name="tables/nim-normal-k3-h15.h5")
        self.solve("--rules", "subtract:1,3,4", "--misere", "--heaps", "2", "--max-heap", "12",
                   name="tables/s134-misere.h5")
        self.solve("--rules", "octal:0.77", "--max-total", "12", name="tables/kayles-n12.h5")
        self.server = Server(self.tables)

    def tearDown(self):
        if self.server.proc.poll() is None:
            self.server.stop()
        super().tearDown()

    def get(self, path, **params):
        return self.server.request(path, params)

    def assert_error(self, status, body, expected, fragment=""):
        self.assertEqual(status, expected, body)
        self.assertIsInstance(body, dict, body)
        self.assertIn(fragment, body["error"])
        # ... and the server keeps serving.
        s, tables, _ = self.get("/api/tables")
        self.assertEqual(s, 200)
        self.assertEqual(len(tables["tables"]), 3)


class Api(ServeCase):
    def cli_json(self, *args):
        code, out, err = run(*args)
        self.assertEqual(code, 0, err)
        return json.loads(out)

    def test_a_damaged_table_in_the_folder_is_refused_and_the_server_keeps_serving(self):
        """A file that crashes HDF5 when read (a damaged table of HDF5's older format, kept in
        tests/data/damaged) is read in a child process first: the request gets an error, the
        server goes on."""
        damaged = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "damaged",
                               "v1-crashes-hdf5.h5")
        code, _, err = run("info", damaged)
        self.assertTrue(code < 0 or "Sanitizer" in err, "the regression input no longer crashes HDF5")
        shutil.copy(damaged, os.path.join(self.tables, "damaged.h5"))
        status, body, _ = self.get("/api/info", table="damaged.h5")
        # Written a moment ago, it may be a copy under way: "ask again" (503) ...
        self.assertEqual(status, 503, body)
        self.assertIn("being replaced or written", body["error"])
        # ... and once it has been there a while, the damage.
        settled(os.path.join(self.tables, "damaged.h5"))
        status, body, _ = self.get("/api/info", table="damaged.h5")
        self.assertEqual(status, 500, body)
        self.assertIn("crashed HDF5", body["error"])
        status, body, _ = self.get("/api/tables")
        self.assertEqual(status, 200)
        self.assertEqual(sorted(t["path"] for t in body["tables"]),
                         ["kayles-n12.h5", "nim-normal-k3-h15.h5", "s134-misere.h5"])
        self.assertEqual(self.get("/api/query", table="nim-normal-k3-h15.h5", position="3 4 5")[0], 200)
        self.assertIsNone(self.server.proc.poll())

    def test_a_table_whose_attribute_lies_gets_a_short_error_at_once(self):
        """A rules attribute of 100,000 characters: the answer quotes it cut. (The check in a
        child process once took 10 s over it: the child, writing the whole attribute into its
        message, blocked on a full pipe; the message is now short and the pipe read as it
        fills.)"""
        import h5py
        import numpy as np
        liar = os.path.join(self.tables, "liar.h5")
        shutil.copy(os.path.join(self.tables, "nim-normal-k3-h15.h5"), liar)
        with h5py.File(liar, "r+") as f:
            del f.attrs["rules"]
            f.attrs["rules"] = np.bytes_(b"x" * 100000)
        settled(liar)
        status, body, _ = self.get("/api/info", table="liar.h5")
        self.assertEqual(status, 500, body)
        self.assertIn("unknown rule 'xxxxxxxxxxxxxxxxxxxx...' (100000 characters)", body["error"])
        self.assertNotIn("took over 10 s", body["error"])
        self.assertLess(len(body["error"]), 500)
        self.assertEqual(self.get("/api/query", table="nim-normal-k3-h15.h5", position="3 4 5")[0], 200)

    def test_the_rules_are_the_helps(self):
        """The page's list of rules comes from the table the command's help prints."""
        status, rules, _ = self.get("/api/rules")
        self.assertEqual(status, 200)
        self.assertIn({"text": "octal:0.77", "name": "Kayles"}, rules["named"])
        code, out, err = run("--help")
        for family in rules["families"]:
            self.assertIn(family["syntax"], out)
        self.assertEqual([f["syntax"] for f in rules["families"]][:3], ["nim", "subtract:LIST", "allbut:LIST"])

    def test_answers_are_the_command_lines_json(self):
        for table, positions in [("nim-normal-k3-h15.h5", ["3,4,5", "1 1 1", "", "15,15"]),
                                 ("s134-misere.h5", ["2,7", "12 12", "0"]),
                                 ("kayles-n12.h5", ["5 7", "12", "1 1 2"])]:
            path = os.path.join(self.tables, table)
            for p in positions:
                for line in [False, True]:
                    params = {"table": table, "position": p}
                    if line:
                        params["line"] = "1"
                    status, body, ctype = self.server.request("/api/query", params)
                    self.assertEqual(status, 200, body)
                    self.assertEqual(ctype, "application/json")
                    expected = self.cli_json("query", path, p if p else "0", *(["--line"] if line else []), "--json")
                    if not p:
                        expected["position"] = []  # "0" on the command line, "" here: the empty position
                    self.assertEqual(body, expected, (table, p))
                    # One shape for a move (docs/MOVES.md): a move of one heap, a split
                    # included, names its heap counted from 1 and what it leaves, ascending.
                    position = [int(h) for h in p.replace(",", " ").split()]
                    for m in body["moves"]:
                        self.assertEqual(position[m["heap"] - 1], m["heap_size"], m)
                        self.assertEqual(m["leaves"], sorted(m["leaves"]), m)
                        self.assertEqual(m["heap_size"] - m["take"], sum(m["leaves"]), m)
                        self.assertEqual(m["touches"], [{"heap": m["heap"], "size": m["heap_size"],
                                                         "leaves": m["leaves"]}], m)
            status, info, _ = self.get("/api/info", table=table)
            expected = self.cli_json("info", path, "--json")
            expected["path"] = table  # the server names a table, never its folder
            self.assertEqual(info, expected)
            status, count, _ = self.get("/api/count", table=table)
            self.assertEqual(count, self.cli_json("dump", path, "--count", "--json"))

    def test_bad_requests_get_a_json_error_and_the_server_keeps_serving(self):
        t = "nim-normal-k3-h15.h5"
        for params, status, fragment in [
            ({"table": t, "position": "3,a"}, 400, "is not a number"),
            ({"table": t, "position": "-1"}, 400, ""),
            ({"table": t, "position": "1 2 3 4"}, 400, "at most 3 heaps"),
            ({"table": t, "position": "16"}, 400, "more than this table's limit"),
            ({"table": t, "position": "99999999999999999999"}, 400, ""),
            ({"table": t}, 400, "missing parameter 'position'"),
            ({"position": "3"}, 400, "missing parameter 'table'"),
            ({"table": "nothing.h5", "position": "3"}, 404, "no table"),
            ({"table": "../nim-normal-k3-h15.h5", "position": "3"}, 400, "not a table name"),
            ({"table": "../../etc/passwd", "position": "3"}, 400, "not a table name"),
            ({"table": "/etc/passwd", "position": "3"}, 400, "not a table name"),
            ({"table": "tables/" + t, "position": "3"}, 400, "not a table name"),
            ({"table": ".h5", "position": "3"}, 400, "not a table name"),
            ({"table": "x" * 5000 + ".h5", "position": "3"}, 400, "not a table name"),
        ]:
            s, body, _ = self.get("/api/query", **params)
            self.assert_error(s, body, status, fragment)
        # Path tricks in the URL itself reach no file outside the page.
        for raw in ["/api/query?table=..%2Fnim-normal-k3-h15.h5&position=3", "/../../etc/passwd",
                    "/%2e%2e/%2e%2e/etc/passwd", "/api/../../etc/passwd"]:
            s, body, _ = self.server.request(raw, raw_path=True)
            self.assertIn(s, (400, 404), (raw, body))
            self.assert_error(s, body, s)
        # Oversized: a URL over 8 KiB, a body over 64 KiB.
        s, body, _ = self.get("/api/query", table=t, position="1," * 6000)
        self.assert_error(s, body, 414, "too long")
        big = json.dumps({"table": t, "won": True, "draws": [["3 4 5", "1 4 5"]] * 10000})
        s, body, _ = self.server.request("/api/learn", body=big)
        self.assert_error(s, body, 413, "over 65536 bytes")
        # Bodies and values that are not what they claim.
        for body_text, fragment in [("not json", "bad JSON"), ('{"table": 3}', "bad JSON"),
                                    (json.dumps({"table": t, "won": True, "draws": [["3 4 5", "3 4 5"]]}),
                                     "no move from 3 4 5 to 3 4 5"),
                                    (json.dumps({"table": t, "won": True, "draws": [["3 4 5", "0 4 5"]]}),
                                     "no move from 3 4 5 to 0 4 5")]:
            s, body, _ = self.server.request("/api/learn", body=body_text)
            self.assert_error(s, body, 400, fragment)
        for path, params, status, fragment in [
            ("/api/move", {"table": t, "position": "3 4 5", "level": "genius"}, 400, "unknown level"),
            ("/api/move", {"table": t, "position": "0"}, 400, "missing parameter 'level'"),
            ("/api/hint", {"table": t, "position": "0"}, 400, "no move is left"),
            ("/api/find", {"rules": "nim:3", "convention": "normal", "position": "3"}, 400, ""),
            ("/api/find", {"rules": "nim", "convention": "sideways", "position": "3"}, 400, "normal or misere"),
            ("/api/find", {"rules": "nim", "convention": "normal", "position": "100 100 100 100 100"}, 422,
             "make one with: nimtb solve --rules nim --heaps 5 --max-heap 100"),
            ("/api/find", {"rules": "nim", "convention": "normal", "position": "900 900 900 900 900"}, 422,
             "no table of it can be made on this machine"),
            ("/api/find", {"rules": "nim", "convention": "normal", "layout": "spiral"}, 400, "unknown layout"),
            ("/api/plane", {"table": "kayles-n12.h5", "others": "x"}, 400, "not a number"),
            ("/api/plane", {"table": "kayles-n12.h5", "others": "7 6"}, 400, "13 tokens in all"),
            ("/api/plane", {"table": t, "others": "1 2"}, 400, "fixes at most 1 others"),
            ("/api/plane", {"table": t, "others": "16"}, 400, "more than this table's limit"),
            ("/api/plane", {"others": "1"}, 400, "missing parameter 'table'"),
            ("/api/companion", {"table": "nothing.h5"}, 404, "no table"),
            ("/api/sequence", {"rules": "wythoff", "max_heap": "10"}, 400, "several heaps"),
            ("/api/sequence", {"rules": "nim:3", "max_heap": "10"}, 400, ""),
            ("/api/sequence", {"rules": "nim"}, 400, "missing parameter 'max_heap'"),
            ("/api/sequence", {"rules": "nim", "max_heap": "1 2"}, 400, "one heap size"),
            ("/api/sequence", {"rules": "nim", "max_heap": "70000"}, 422, "up to heap 65536"),
            ("/api/sequence", {"rules": "grundy", "until_proven": "1", "limit": "100"}, 400, "no theorem"),
            ("/api/quotient", {"rules": "wythoff", "max_heap": "10"}, 400, "several heaps"),
            ("/api/quotient", {"rules": "nim", "max_heap": "0"}, 400, "one heap size"),
            ("/api/quotient", {"rules": "nim", "max_heap": "101"}, 422, "up to heap 100"),
            # Minutes of learning (found by tests/fuzz/fuzz_api, with octal:0.76 to heap 12):
            # stopped after the page's few seconds, the thread free again.
            ("/api/quotient", {"rules": "octal:4.7", "max_heap": "100"}, 422,
             "take at most 5 s, and this one takes longer: run nimtb quotient --rules octal:4.7"),
            ("/api/northcott", {"board": "1-1"}, 400, "X and O on one square"),
            ("/api/northcott", {"board": "1-5", "piece": "x", "row": "1", "to": "7"}, 400, "cannot jump over"),
            ("/api/northcott", {"board": "1-5", "piece": "z", "row": "1", "to": "2"}, 400, "'piece' is x or o"),
            ("/api/northcott", {"board": "1-5", "reply": "o", "level": "learning"}, 400, "heap games only"),
            ("/api/nothing", {}, 404, "404"),
        ]:
            s, body, _ = self.get(path, **params)
            self.assert_error(s, body, status, fragment)
        s, body, _ = self.server.request("/api/query", body="{}")
        self.assert_error(s, body, 405)  # no POST there
        # A damaged file in the folder: an error for it, the rest still served.
        with open(os.path.join(self.tables, "broken.h5"), "wb") as f:
            f.write(b"\x89HDF\r\n" + os.urandom(2000))
        settled(os.path.join(self.tables, "broken.h5"))
        s, body, _ = self.get("/api/query", table="broken.h5", position="1")
        self.assertEqual(s, 500, body)
        self.assertIn("error", body)
        self.assertNotIn(self.tables, body["error"])  # no answer names the server's folder
        self.assertNotIn(os.path.basename(self.tables), body["error"])
        self.assert_error(s, body, 500)
        # A second server on the same port is refused, not silently sharing it.
        code, out, err = run("serve", "--tables", self.tables, "--port", str(self.server.port))
        self.assertEqual(code, 1, out)
        self.assertIn(f"cannot listen on 127.0.0.1:{self.server.port}", err)
        code, out, err = run("serve", "--tables", self.path("none"))
        self.assertEqual(code, 2, out)
        self.assertIn("not a folder", err)
        code, out, err = self.server.stop()
        self.assertEqual(code, 0, err)
        self.assertIn("stopped", out)

    def plane(self, table, others=""):
        """The values and remoteness of /api/plane as rows of lists, None outside or not stored."""
        s, data, ctype = self.get("/api/plane", table=table, others=others)
        self.assertEqual((s, ctype), (200, "application/octet-stream"), data)
        rows, cols = int(self.server.headers["X-Rows"]), int(self.server.headers["X-Cols"])
        self.assertEqual(len(data), rows * cols * 6)
        values = struct.unpack(f"<{rows * cols}I", data[:4 * rows * cols])
        remoteness = struct.unpack(f"<{rows * cols}H", data[4 * rows * cols:])
        v = [[None if x == 0xFFFFFFFF else x for x in values[a * cols:(a + 1) * cols]] for a in range(rows)]
        r = [[None if x == 0xFFFF else x for x in remoteness[a * cols:(a + 1) * cols]] for a in range(rows)]
        return v, r, self.server.headers["X-Clipped"]

    def test_plane_companion_sequence_hint_move_and_learning(self):
        t = "nim-normal-k3-h15.h5"
        v, r, clipped = self.plane(t, others="4")
        self.assertEqual((len(v), len(v[0]), clipped), (16, 16, "0"))
        for a, b in [(0, 0), (1, 5), (7, 3), (15, 15)]:
            _, q, _ = self.get("/api/query", table=t, position=f"{a} {b} 4")
            self.assertEqual((v[a][b], r[a][b]), (q["value"], q["remoteness"]))
        v, r, _ = self.plane("kayles-n12.h5")
        self.assertEqual(len(v), 13)
        self.assertIsNone(v[7][6])  # 13 tokens: outside the total-bounded table
        self.assertEqual(v[6][6], 0)  # Kayles 6 6 is a P-position (values are XORs)
        v, r, _ = self.plane("kayles-n12.h5", others="3 0 4")
        self.assertEqual(len(v), 6)  # a + b at most 12 - 7
        _, q, _ = self.get("/api/query", table="kayles-n12.h5", position="2 3 3 4")
        self.assertEqual((v[2][3], r[2][3]), (q["value"], q["remoteness"]))
        # The other convention of a table: none in the folder (GET), so a POST starts a job
        # that solves it, followed to its end; then it is found at once.
        s, none, _ = self.get("/api/companion", table="s134-misere.h5")
        self.assert_error(s, none, 404, "POST /api/companion solves it")
        s, started, _ = self.server.request("/api/companion", body=json.dumps({"table": "s134-misere.h5"}))
        self.assertEqual(s, 200, started)
        self.assertEqual(started["positions"], 91)
        for _ in range(200):
            s, job, _ = self.get("/api/job", id=started["job"])
            if job["state"] != "running":
                break
            time.sleep(0.05)
        self.assertEqual(job["state"], "done", job)
        self.assertEqual(job["done"], job["total"])
        c = job["answer"]
        self.assertEqual((c["info"]["convention"], c["info"]["rules"]), ("normal", "subtract:1,3,4"))
        self.assertEqual(c["info"]["max_heap_size"], 12)
        # Read-only: solved into the server's private folder, not into the tables folder.
        self.assertFalse(os.path.exists(os.path.join(self.tables, c["table"])))
        s, again, _ = self.get("/api/companion", table="s134-misere.h5")
        self.assertEqual(again["table"], c["table"])
        s, missing, _ = self.get("/api/job", id="99")
        self.assertEqual(s, 404, missing)
        s, back, _ = self.get("/api/companion", table=c["table"])
        self.assertEqual(back["table"], "s134-misere.h5")
        # Sequences: sequence --json.
        for params, args in [({"rules": "octal:0.77", "max_heap": "200"}, ["--max-heap", "200"]),
                             ({"rules": "octal:0.45", "until_proven": "1"}, ["--until-proven"])]:
            s, seq, _ = self.get("/api/sequence", **params)
            self.assertEqual(s, 200, seq)
            self.assertEqual(seq, self.cli_json("sequence", *args, "--rules", params["rules"], "--json"))
        s, q, _ = self.get("/api/quotient", rules="octal:0.77", max_heap="20")
        self.assertEqual(s, 200, q)
        self.assertEqual(q, self.cli_json("quotient", "--rules", "octal:0.77", "--max-heap", "20", "--analyze",
                                          "--json"))
        _, h, _ = self.get("/api/hint", table=t, position="3 4 5")
        self.assertIn("3 ^ 4 ^ 5 = 2", h["text"])
        _, m, _ = self.get("/api/move", table=t, position="3 4 5", level="perfect")
        self.assertEqual(m["move"]["result"], [1, 4, 5])
        _, m, _ = self.get("/api/move", table=t, position="3 4 5", level="learning")
        self.assertEqual(m["draw"][0], "3 4 5")
        s, learned, _ = self.server.request("/api/learn", body=json.dumps({"table": t, "won": False,
                                                                            "draws": [m["draw"]]}))
        self.assertEqual((s, learned["learned"]), (200, 1), learned)

    def test_find_solves_a_small_table_and_northcott_answers(self):
        before = sorted(os.listdir(self.tables))
        # GET only finds; POST solves, into the server's private folder.
        s, f, _ = self.get("/api/find", rules="subtract:1-3", convention="normal", layout="matches")
        self.assert_error(s, f, 404, "POST /api/find solves it")
        s, f, _ = self.server.request("/api/find", body=json.dumps(
            {"rules": "subtract:1-3", "convention": "normal", "layout": "matches"}))
        self.assertEqual(s, 200, f)
        self.assertEqual(f["start"], [21])
        s, again, _ = self.get("/api/find", rules="subtract:1-3", convention="normal", layout="matches")
        self.assertEqual((s, again["table"]), (200, f["table"]))
        s, q, _ = self.get("/api/query", table=f["table"], position="21")
        self.assertEqual((s, q["value"]), (200, 1))
        s, f, _ = self.server.request("/api/find", body=json.dumps(
            {"rules": "nim", "convention": "normal", "layout": "random"}))
        self.assertEqual(s, 200, f)
        self.assertTrue(2 <= len(f["start"]) <= 4, f)
        # Northcott: a GET answers from the folder's tables only; a POST may solve.
        s, n, _ = self.get("/api/northcott", board="1-5 11-8 3-4 2-9 1-2", reply="o")
        self.assertEqual(s, 404, n)
        self.assertIn("POST /api/northcott solves it", n["error"])

        def northcott(**params):
            return self.server.request("/api/northcott", body=json.dumps(params))

        # X widens a gap, the computer closes it again; the XOR stays 0 after it.
        s, n, _ = northcott(board="1-5 11-8", piece="x", row=2, to=12, reply="o")
        self.assertEqual(s, 200, n)
        self.assertEqual(n["after_move"]["gaps"], [3, 3])
        s, n, _ = self.get("/api/northcott", board="1-6 12-8", reply="o")  # its table is there now
        self.assertEqual(n["after_reply"]["xor"], 0)
        self.assertEqual(n["reply"], {"row": 1, "from": 6, "to": 5, "closes": True})
        s, n, _ = northcott(board="1-2", reply="o")  # O must retreat
        self.assertEqual(n["reply"]["closes"], False)
        s, n, _ = northcott(board="11-12", reply="o")  # O is stuck
        self.assertIsNone(n["reply"])
        # Nothing in the served folder was created or changed.
        self.assertEqual(sorted(os.listdir(self.tables)), before)




def solving_child(pid, seconds=20):
    """The server's child that runs a solve, once it has one, as (pid, its arguments)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        for kid in children(pid):
            try:
                with open(f"/proc/{kid}/cmdline") as f:
                    args = f.read().split("\0")
            except OSError:
                continue
            if len(args) > 1 and args[1] == "solve":
                return kid, args
        time.sleep(0.02)
    return None, []


class Limits(ServeCase):
    """What a shared server bounds: idle and slow clients, bodies, bursts of work, the names
    it answers to, its token, writing, shutdown. Loopback only; every test ends by itself.
    Times are printed, not asserted, but for bounds an order of magnitude above what is
    measured (docs/SERVER.md gives the figures)."""

    def raw(self, data, read=True, timeout=10):
        """Sends bytes on a new connection; the status of the answer (None when the
        connection closed first)."""
        with socket.create_connection(("127.0.0.1", self.server.port), timeout=timeout) as sock:
            sock.sendall(data)
            if not read:
                return None
            answer = b""
            try:
                while b"\r\n" not in answer:
                    piece = sock.recv(4096)
                    if not piece:
                        break
                    answer += piece
            except OSError:
                pass
            return int(answer.split()[1]) if answer else None

    def query_seconds(self, timeout=10):
        t0 = time.monotonic()
        conn = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=timeout)
        conn.request("GET", "/api/query?table=nim-normal-k3-h15.h5&position=3,4,5")
        r = conn.getresponse()
        r.read()
        conn.close()
        return r.status, time.monotonic() - t0

    def test_idle_and_dripping_clients_do_not_hold_up_a_query(self):
        self.server.stop()
        self.server = Server(self.tables, options=["--request-time", "4"])  # the default is 10 s
        idle = [socket.create_connection(("127.0.0.1", self.server.port)) for _ in range(200)]
        dropped = []

        def drip(i):
            sock = socket.create_connection(("127.0.0.1", self.server.port))
            sock.sendall(b"GET /api/tables HTTP/1.1\r\n")
            t0 = time.monotonic()
            try:
                while time.monotonic() - t0 < 30:
                    time.sleep(2)
                    sock.sendall(f"X-Drip-{i}: {int(time.monotonic())}\r\n".encode())
            except OSError:  # the server closed it: a slow client is dropped, not waited for
                dropped.append(time.monotonic() - t0)
            sock.close()

        drips = [threading.Thread(target=drip, args=(i,)) for i in range(8)]
        for d in drips:
            d.start()
        time.sleep(1.5)
        status, seconds = self.query_seconds()
        print(f"\na query beside 200 idle and 8 dripping clients: {1000 * seconds:.1f} ms", file=sys.stderr)
        self.assertEqual(status, 200)
        for d in drips:
            d.join()
        self.assertEqual(len(dropped), 8, "every dripping client is dropped at the request deadline")
        for sock in idle:
            sock.close()

    def test_a_chunked_body_over_the_limit_is_refused_without_being_read(self):
        before = rss_mb(self.server.proc.pid)
        sent = 0
        with socket.create_connection(("127.0.0.1", self.server.port), timeout=10) as sock:
            sock.sendall(b"POST /api/learn HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                         b"Transfer-Encoding: chunked\r\n\r\n")
            chunk = b"%x\r\n" % (1 << 20) + b" " * (1 << 20) + b"\r\n"
            try:
                while sent < 300 << 20:
                    sock.sendall(chunk)
                    sent += 1 << 20
            except OSError:
                pass  # the server answered and closed
            try:
                answer = sock.recv(4096)
            except OSError:
                answer = b""
        grown = rss_mb(self.server.proc.pid) - before
        print(f"\na chunked body: {sent >> 20} MiB sent before the server closed; RSS grew {grown:.1f} MB",
              file=sys.stderr)
        self.assertLess(sent, 300 << 20)
        if answer:
            self.assertIn(b" 413 ", answer.split(b"\r\n")[0])
        self.assertLess(grown, 50)
        self.assertEqual(self.query_seconds()[0], 200)

    def test_a_burst_of_work_is_answered_503_beyond_the_limits(self):
        statuses, retry, queries, peak = [], [], [], [0.0]
        done = threading.Event()

        def work(i):
            conn = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=120)
            conn.request("GET", "/api/sequence?" + urllib.parse.urlencode(
                {"rules": "grundy", "max_heap": str(60000 + i)}))
            r = conn.getresponse()
            r.read()
            statuses.append(r.status)
            if r.status == 503:
                retry.append(r.getheader("Retry-After"))
            conn.close()

        def probe():
            while not done.is_set():
                queries.append(self.query_seconds()[0])
                peak[0] = max(peak[0], rss_mb(self.server.proc.pid))
                time.sleep(0.05)

        prober = threading.Thread(target=probe)
        prober.start()
        burst = [threading.Thread(target=work, args=(i,)) for i in range(50)]
        for b in burst:
            b.start()
        for b in burst:
            b.join()
        done.set()
        prober.join()
        print(f"\n50 sequences at once: {statuses.count(200)} computed, {statuses.count(503)} answered 503; "
              f"{len(queries)} queries meanwhile; server RSS peak {peak[0]:.0f} MB", file=sys.stderr)
        self.assertEqual(len(statuses), 50)
        # At most --jobs / 2 = 2 sequences at once (and one more as each ends): the rest at once 503.
        # (Under a sanitizer a sequence may pass --job-time, also a 503.)
        self.assertLessEqual(set(statuses), {200, 503})
        self.assertGreaterEqual(statuses.count(503), 40)
        self.assertEqual(set(retry), {"5"})
        self.assertEqual(set(queries), {200})
        self.assertLess(peak[0], 500)

    def test_names_origins_bodies_and_encodings_a_browser_could_be_led_to(self):
        host = self.raw(b"GET /api/tables HTTP/1.1\r\nHost: evil.example:8080\r\n\r\n")
        self.assertEqual(host, 421)  # DNS rebinding: another site's name for this address
        learn = json.dumps({"table": "nim-normal-k3-h15.h5", "won": True, "draws": []}).encode()
        plain = self.raw(b"POST /api/learn HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\n"
                         b"Content-Length: %d\r\n\r\n" % len(learn) + learn)
        self.assertEqual(plain, 415)  # a form of another page cannot post JSON
        origin = self.raw(b"POST /api/learn HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: http://evil.example\r\n"
                          b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(learn) + learn)
        self.assertEqual(origin, 403)
        # Invalid UTF-8, in any parameter of any endpoint: 400 with JSON, never 500.
        for path in ["/api/query?table=nim-normal-k3-h15.h5&position=%C0%AF",
                     "/api/info?table=%FF.h5", "/api/sequence?rules=%ED%A0%80&max_heap=5",
                     "/api/find?rules=nim&convention=%80&position=1", "/api/hint?table=x&position=%E2%82"]:
            s, body, _ = self.server.request(path, raw_path=True)
            self.assert_error(s, body, 400, "UTF-8")
        s, page, _ = self.get("/")
        for header, value in [("X-Content-Type-Options", "nosniff"),
                              ("Content-Security-Policy", "frame-ancestors 'none'")]:
            self.assertIn(value, self.server.headers[header])

    def test_a_token_lets_in_only_those_with_the_link(self):
        self.server.stop()
        self.server = Server(self.tables, options=["--token", "blue-heron"])
        s, body, _ = self.get("/api/tables")
        self.assertEqual(s, 401, body)
        self.assertIn("token", body["error"])
        conn = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=10)
        conn.request("GET", "/?token=blue-heron")
        r = conn.getresponse()
        r.read()
        self.assertEqual(r.status, 303)
        cookie = r.getheader("Set-Cookie").split(";")[0]
        self.assertIn("HttpOnly", r.getheader("Set-Cookie"))
        conn.request("GET", "/api/tables", headers={"Cookie": cookie})
        r = conn.getresponse()
        self.assertEqual(r.status, 200)
        self.assertEqual(len(json.loads(r.read())["tables"]), 3)
        conn.close()

    def test_listening_beyond_loopback_says_what_it_exposes(self):
        proc = subprocess.Popen([NIMTB, "serve", "--tables", self.tables, "--port", "0", "--host", "0.0.0.0"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            self.assertIn("at http://0.0.0.0:", proc.stdout.readline())
            warning = proc.stderr.readline()
            self.assertIn("warning: listening on 0.0.0.0: anyone who can reach this machine", warning)
            self.assertIn("--token", warning)
        finally:
            proc.terminate()
            proc.communicate(timeout=10)
        self.assertEqual(proc.returncode, 0)

    def test_a_fifo_and_a_link_out_of_the_folder_are_no_tables(self):
        os.mkfifo(os.path.join(self.tables, "pipe.h5"))
        outside = self.path("outside.h5")
        shutil.copy(os.path.join(self.tables, "nim-normal-k3-h15.h5"), outside)
        os.symlink(outside, os.path.join(self.tables, "out.h5"))
        os.symlink("nim-normal-k3-h15.h5", os.path.join(self.tables, "in.h5"))
        t0 = time.monotonic()
        s, listed, _ = self.get("/api/tables")
        self.assertEqual(s, 200)
        names = sorted(t["path"] for t in listed["tables"])
        self.assertEqual(names, ["in.h5", "kayles-n12.h5", "nim-normal-k3-h15.h5", "s134-misere.h5"])
        for name in ("pipe.h5", "out.h5"):
            s, body, _ = self.get("/api/query", table=name, position="1")
            self.assertEqual((s, body["error"]), (404, f"no table '{name}'"))
        print(f"\nthe folder with a FIFO and links listed and refused in {time.monotonic() - t0:.2f} s",
              file=sys.stderr)
        self.server.stop()
        self.server = Server(self.tables, options=["--follow-links"])
        s, q, _ = self.get("/api/query", table="out.h5", position="1")
        self.assertEqual((s, q["value"]), (200, 1))

    def test_sigterm_with_work_running_stops_at_once_and_leaves_nothing(self):
        def solve():
            try:
                self.server.request("/api/find", body=json.dumps(
                    {"rules": "wythoff", "convention": "normal", "position": "3000,3000"}))
            except OSError:
                pass  # the server went away: that is the test

        worker = threading.Thread(target=solve)
        worker.start()
        kid, args = solving_child(self.server.proc.pid)
        self.assertIsNotNone(kid)
        out = json.loads(args[args.index("--request") + 1])["output"]
        self.assertTrue(os.path.isdir(os.path.dirname(out)))
        t0 = time.monotonic()
        self.server.proc.send_signal(signal.SIGTERM)
        self.server.proc.communicate(timeout=10)
        seconds = time.monotonic() - t0
        worker.join()
        print(f"\nSIGTERM with a solve running: exited in {seconds:.2f} s", file=sys.stderr)
        self.assertEqual(self.server.proc.returncode, 0)
        self.assertFalse(os.path.exists(f"/proc/{kid}"), "the solve's process is gone")
        self.assertFalse(os.path.exists(os.path.dirname(out)), "the solve's folder is removed")
        self.assertFalse(os.path.exists(os.path.dirname(os.path.dirname(out))), "the private folder too")

    def test_a_client_that_hangs_up_stops_its_solve(self):
        sock = socket.create_connection(("127.0.0.1", self.server.port))
        body = json.dumps({"rules": "wythoff", "convention": "normal", "position": "3000,3000"}).encode()
        sock.sendall(b"POST /api/find HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                     b"Content-Length: %d\r\n\r\n" % len(body) + body)
        pid = self.server.proc.pid
        self.assertIsNotNone(solving_child(pid)[0])
        sock.close()
        t0 = time.monotonic()
        while children(pid) and time.monotonic() - t0 < 10:
            time.sleep(0.01)
        print(f"\na solve whose client hung up stopped in {time.monotonic() - t0:.2f} s", file=sys.stderr)
        self.assertEqual(children(pid), [])
        # The server removes the solve's folder just after it reaps the child.
        def left():
            return glob.glob("/tmp/nimtb-serve-*/.nimtb-solve-*")

        while left() and time.monotonic() - t0 < 10:
            time.sleep(0.01)
        self.assertEqual(left(), [])

    def test_written_tables_stay_within_the_budget_and_are_served(self):
        self.server.stop()
        self.server = Server(self.tables, options=["--write", "--disk-budget", "16K"])
        before = set(os.listdir(self.tables))
        answers = []
        for h in (40, 41, 42):
            s, f, _ = self.server.request("/api/find", body=json.dumps(
                {"rules": "subtract:1,3,4", "convention": "misere", "position": f"{h} 1 1 1"}))
            answers.append((s, f))
        self.assertEqual(answers[0][0], 200, answers[0][1])
        refused = [f for s, f in answers if s == 507]
        self.assertTrue(refused, answers)
        self.assertIn("disk budget", refused[0]["error"] + "disk budget")
        new = set(os.listdir(self.tables)) - before
        self.assertLessEqual(sum(os.path.getsize(os.path.join(self.tables, n)) for n in new), 16 << 10)
        for name in new:  # each file written is a table the server serves
            s, q, _ = self.get("/api/query", table=name, position="1 1 1")
            self.assertEqual(s, 200, q)

    def test_jobs_are_tickets_only_their_holder_can_cancel(self):
        # A table whose other convention takes a second or two to solve: still running when cancelled.
        self.solve("--rules", "wythoff", "--heaps", "2", "--max-heap", "400", name="tables/wythoff.h5")
        start = lambda: self.server.request("/api/companion", body=json.dumps({"table": "wythoff.h5"}))[1]
        a, b = start(), start()
        for t in (a, b):
            self.assertRegex(t["job"], "^[0-9a-f]{32}$")
        self.assertNotEqual(a["job"], b["job"])
        s, cancelled, _ = self.server.request("/api/job/cancel", body=json.dumps({"id": a["job"]}))
        self.assertEqual((s, cancelled["state"]), (200, "cancelled"))
        for _ in range(1200):  # b's job goes on to its end
            s, job, _ = self.get("/api/job", id=b["job"])
            if job["state"] != "running":
                break
            time.sleep(0.05)
        self.assertEqual(job["state"], "done", job)
        s, body, _ = self.get("/api/job", id="1")
        self.assertEqual(s, 404, body)


def http_raw(port, data, source="127.0.0.1", timeout=10, whole=False):
    """Sends bytes on a new connection from `source`; the answer's status (None when the
    connection closed first), or with `whole` every byte until the server closes."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(timeout)
        sock.bind((source, 0))
        sock.connect(("127.0.0.1", port))
        sock.sendall(data)
        answer = b""
        try:
            while whole or b"\r\n" not in answer:
                piece = sock.recv(65536)
                if not piece:
                    break
                answer += piece
        except OSError:
            pass
        if whole:
            return answer
        return int(answer.split()[1]) if answer else None


# A sanitizer's shadow memory and quarantine make RSS say nothing of the server's own, and
# its checks make every request slower: the memory and time bounds are for release builds.
UNDER_SANITIZER = any(v in os.environ for v in ("ASAN_OPTIONS", "TSAN_OPTIONS"))


def percentile(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


class Determined(ServeCase):
    """A determined client against the shared server (docs/SERVER.md, "What it promises"):
    answers it never reads, the costliest reads in a loop, the learners' memory, every
    connection from one address, a table replaced under the server, writes by GET or from
    another origin, ambiguous framing. Loopback only, bounded in count and time; figures
    are printed, and bounds are an order of magnitude above what is measured."""

    # 1,999,000 positions: a plane of 1999 a side, a dump of 2 M rows; a quarter of it under a
    # sanitizer, whose memory and time bounds are not checked.
    H = 998 if UNDER_SANITIZER else 1998
    BIG = f"nim-normal-k2-h{H}.h5"
    LEARNED = 12000 if UNDER_SANITIZER else 40000

    @classmethod
    def setUpClass(cls):
        cls.shared = tempfile.mkdtemp(prefix="nimtb-e2e-big-")
        code, _, err = run("solve", "--rules", "nim", "--heaps", "2", "--max-heap", str(cls.H), "--quiet",
                           "-o", os.path.join(cls.shared, cls.BIG))
        assert code == 0, err

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.shared, ignore_errors=True)

    def setUp(self):
        super().setUp()
        shutil.copy(os.path.join(self.shared, self.BIG), os.path.join(self.tables, self.BIG))

    def restart(self, *options):
        self.server.stop()
        self.server = Server(self.tables, options=list(options))

    def plain_query_ms(self, table="nim-normal-k3-h15.h5"):
        t0 = time.monotonic()
        status = self.get("/api/query", table=table, position="3,4")[0]
        self.assertEqual(status, 200)
        return 1000 * (time.monotonic() - t0)

    def test_clients_that_never_read_hold_at_most_the_answer_memory(self):
        self.restart("--answer-memory", "64M")
        pid = self.server.proc.pid
        self.assertEqual(self.get("/api/info", table=self.BIG)[0], 200)
        base = rss_mb(pid)
        socks, statuses = [], []
        for i in range(80):  # 40 pictures of 24 MB, 40 exports of 27 MB, none of them read
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            sock.connect(("127.0.0.1", self.server.port))
            what = "plane" if i % 2 == 0 else "dump"
            sock.sendall(f"GET /api/{what}?table={self.BIG} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
            socks.append(sock)
        time.sleep(4)
        peak = max(rss_mb(pid) for _ in range(20) if time.sleep(0.05) is None)
        for sock in socks:
            sock.settimeout(0.2)
            try:
                statuses.append(int(sock.recv(64).split()[1]))
            except (OSError, IndexError, ValueError):
                statuses.append(None)
            sock.close()
        self.assertTrue(all(self.plain_query_ms() < 5000 for _ in range(3)))
        time.sleep(2)
        after = rss_mb(pid)
        print(f"\n80 clients that never read a plane or a dump: RSS {base:.0f} MB -> {peak:.0f} MB "
              f"-> {after:.0f} MB after they left; answers began {statuses.count(200)}, "
              f"refused 503 {statuses.count(503)}", file=sys.stderr)
        self.assertIn(503, statuses, "beyond the gates, 503 at once")
        if not UNDER_SANITIZER:
            # The answers' memory (64 MB), a table's cache (32 MB) and a picture in the making.
            self.assertLess(peak - base, 64 + 32 + 64, "RSS grows by the answers allowed in flight")
            self.assertLess(after - base, 48, "and comes back near its base")

    def test_the_costliest_reads_in_a_loop_leave_plain_queries_quick(self):
        idle = [self.plain_query_ms() for _ in range(200)]
        stop = time.monotonic() + 8
        seen = {"line": [], "learn": []}
        # A lesson of 2,000 draws (50 KB), from "a b" to "a-1 b": every one legal, a probe each.
        draws = [[f"{a} {a + 1}", f"{a - 1} {a + 1}"] for a in range(2, self.H)]
        body = json.dumps({"table": self.BIG, "won": True, "draws": draws})

        def loop(kind):
            conn = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=60)
            while time.monotonic() < stop:
                if kind == "line":
                    conn.request("GET", f"/api/query?table={self.BIG}&position={self.H},{self.H - 1}&line=1")
                else:
                    conn.request("POST", "/api/learn", body=body, headers={"Content-Type": "application/json"})
                r = conn.getresponse()
                r.read()
                seen[kind].append(r.status)
                if r.status == 503:
                    self.assertEqual(r.getheader("Retry-After"), "5")
                    time.sleep(0.05)
            conn.close()

        loaders = [threading.Thread(target=loop, args=("line",)) for _ in range(4)]
        loaders += [threading.Thread(target=loop, args=("learn",)) for _ in range(8)]
        for t in loaders:
            t.start()
        time.sleep(1)
        loaded, same_table = [], []
        while time.monotonic() < stop - 0.5:
            loaded.append(self.plain_query_ms())
            same_table.append(self.plain_query_ms(self.BIG))  # the table the lines read
        for t in loaders:
            t.join()
        p_idle, p_loaded, p_same = (percentile(x, 0.99) for x in (idle, loaded, same_table))
        print(f"\nplain query p99 {p_idle:.1f} ms idle, {p_loaded:.1f} ms beside 4 clients looping "
              f"line=1 and 8 posting 64 KB lessons ({p_loaded / p_idle:.1f}x; {p_same:.1f} ms on the table "
              f"the lines read); lines answered "
              f"{seen['line'].count(200)}, refused {seen['line'].count(503)}; lessons answered "
              f"{seen['learn'].count(200)}, refused {seen['learn'].count(503)}", file=sys.stderr)
        self.assertEqual(set(seen["line"]) | set(seen["learn"]), {200, 503})
        if not UNDER_SANITIZER:
            self.assertLess(p_loaded, 1000)
            self.assertLess(p_same, 1000)

    def test_the_learners_memory_has_a_cap(self):
        self.restart("--learning-memory", "1M")
        pid = self.server.proc.pid
        base = rss_mb(pid)
        known = []
        pairs = [(a, b) for b in range(3, self.H + 1) for a in range(2, b)][: self.LEARNED]
        for start in range(0, len(pairs), 2000):  # each position learned once
            draws = [[f"{a} {b}", f"{a - 1} {b}"] for a, b in pairs[start:start + 2000]]
            s, j, _ = self.server.request("/api/learn", body=json.dumps({"table": self.BIG, "won": True,
                                                                          "draws": draws}))
            self.assertEqual(s, 200, j)
            known.append(j["positions_known"])
        for _ in range(self.LEARNED // 20):  # the learning level's own draws grow it too
            a = random.randint(1, self.H)
            s, j, _ = self.get("/api/move", table=self.BIG, position=f"{a} {a}", level="learning")
            self.assertEqual(s, 200, j)
        print(f"\nlearning {self.LEARNED} positions within --learning-memory 1M: positions known "
              f"{known[0]} .. {max(known)}, last {known[-1]}; RSS {base:.0f} -> {rss_mb(pid):.0f} MB",
              file=sys.stderr)
        self.assertLess(max(known), 10000, "past the cap the oldest positions are forgotten")
        self.assertGreater(known[-1], 1000, "and the newest kept")

    def test_one_address_cannot_take_every_connection(self):
        import resource
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 8192), hard))
        held = []
        try:
            for _ in range(1900):
                try:
                    held.append(socket.create_connection(("127.0.0.1", self.server.port), timeout=2))
                except OSError:
                    break
            time.sleep(0.5)
            t0 = time.monotonic()
            status = http_raw(self.server.port, b"GET /api/query?table=nim-normal-k3-h15.h5&position=3,4,5 "
                              b"HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", source="127.0.0.2")
            seconds = time.monotonic() - t0
            alive = 0
            for sock in held:
                sock.setblocking(False)
                try:
                    alive += sock.recv(1) != b""
                except BlockingIOError:
                    alive += 1  # still open: the server holds it
                except OSError:
                    pass
            print(f"\n{len(held)} connections from 127.0.0.1 ({alive} kept by the server): a query from "
                  f"127.0.0.2 answered {status} in {1000 * seconds:.0f} ms", file=sys.stderr)
            self.assertEqual(status, 200)
            if not UNDER_SANITIZER:
                self.assertLess(seconds, 1)
            self.assertLessEqual(alive, 256, "one address holds --per-address connections at most")
        finally:
            for sock in held:
                sock.close()
            resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))

    def test_a_table_replaced_in_place_or_by_rename_is_read_anew(self):
        served = os.path.join(self.tables, "k.h5")
        nim, kayles = (os.path.join(self.tables, n) for n in ("nim-normal-k3-h15.h5", "kayles-n12.h5"))
        shutil.copy(nim, served)
        self.assertEqual(self.get("/api/query", table="k.h5", position="1 2 3")[0], 200)
        self.assertEqual(self.get("/api/count", table="k.h5")[0], 200)

        def expect(game_file, rules):
            s, info, _ = self.get("/api/info", table="k.h5")
            self.assertEqual((s, info["rules"], info["file_bytes"]), (200, rules, os.path.getsize(served)))
            s, q, _ = self.get("/api/query", table="k.h5", position="1 2 3")
            code, out, err = run("query", game_file, "1 2 3", "--json")
            self.assertEqual((s, q), (200, json.loads(out)))
            s, count, _ = self.get("/api/count", table="k.h5")
            code, out, err = run("dump", game_file, "--count", "--json")
            self.assertEqual((s, count), (200, json.loads(out)))
            s, listing, _ = self.get("/api/tables")
            self.assertIn(rules, [t["rules"] for t in listing["tables"] if t["path"] == "k.h5"])

        # Overwritten in place (the same inode, as cp does it), half first: "ask again", never damage.
        with open(kayles, "rb") as f:
            data = f.read()
        with open(served, "r+b") as f:
            f.truncate(0)
            f.write(data[: len(data) // 2])
            f.flush()
            s, body, _ = self.get("/api/query", table="k.h5", position="1 2 3")
            self.assertEqual(s, 503, body)
            f.write(data[len(data) // 2:])
        expect(kayles, "octal:0.77")
        # Replaced by rename.
        shutil.copy(nim, served + ".new")
        os.replace(served + ".new", served)
        expect(nim, "nim")

    def test_with_write_no_get_writes_and_no_file_is_replaced(self):
        self.restart("--write")
        # The operator's files under names a solve would want: a text file, a Kayles table.
        mine = {"nim-normal-k4-h10.h5": b"my notes\n", "subtract-1-3-normal-k1-h21.h5": None}
        shutil.copy(os.path.join(self.tables, "kayles-n12.h5"), os.path.join(self.tables, "subtract-1-3-normal-k1-h21.h5"))
        for name, text in mine.items():
            if text:
                with open(os.path.join(self.tables, name), "wb") as f:
                    f.write(text)
        digest = {}
        for name in os.listdir(self.tables):
            with open(os.path.join(self.tables, name), "rb") as f:
                digest[name] = f.read()
        # No GET writes: Northcott's reply on 4 rows needs a Nim table of 4 heaps to 10.
        board = "1-5 11-8 3-4 2-9"
        s, n, _ = self.get("/api/northcott", board=board, reply="o")
        self.assertEqual(s, 404, n)
        self.assertEqual(sorted(os.listdir(self.tables)), sorted(digest))
        # A write from another origin (scheme, host or port) is refused.
        port = self.server.port
        for origin in [f"http://127.0.0.1:{port + 1}", f"https://127.0.0.1:{port}", "http://evil.example",
                       "null"]:
            body = json.dumps({"board": board, "reply": "o"}).encode()
            status = http_raw(port, b"POST /api/northcott HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nOrigin: %s\r\n"
                              b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s"
                              % (port, origin.encode(), len(body), body))
            self.assertEqual(status, 403, origin)
        status = http_raw(port, b"POST /api/find HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nSec-Fetch-Site: same-site\r\n"
                          b"Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}" % port)
        self.assertEqual(status, 403)
        # The page's own POSTs solve, under names no file holds.
        s, n, _ = self.server.request("/api/northcott", body=json.dumps({"board": board, "reply": "o"}))
        self.assertEqual(s, 200, n)
        self.assertEqual(n["table"], "nim-normal-k4-h10-2.h5")
        s, f, _ = self.server.request("/api/find", body=json.dumps(
            {"rules": "subtract:1-3", "convention": "normal", "layout": "matches"}))
        self.assertEqual(s, 200, f)
        self.assertEqual(f["table"], "subtract-1-3-normal-k1-h21-2.h5")
        for name, data in digest.items():
            with open(os.path.join(self.tables, name), "rb") as f:
                self.assertEqual(f.read(), data, f"{name} is the operator's and stays as it was")

    def test_ambiguous_framing_control_characters_and_hang_ups(self):
        port = self.server.port
        query = b"GET /api/query?table=nim-normal-k3-h15.h5&position=3,4,5 HTTP/1.1\r\n"
        for head in [b"Host: 127.0.0.1\r\nTransfer-Encoding: xchunked\r\n",
                     b"Host: 127.0.0.1\r\nTransfer-Encoding: chunked, identity\r\n",
                     b"Host: 127.0.0.1\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n",
                     b"Host: 127.0.0.1\r\nHost: evil.example\r\n",
                     b""]:
            answer = http_raw(port, query + head + b"\r\n" + query + b"Host: 127.0.0.1\r\n\r\n", whole=True)
            self.assertTrue(answer.startswith(b"HTTP/1.1 400"), (head, answer[:100]))
            self.assertNotIn(b"HTTP/1.1 200", answer, "the rest is not read as a second request")
        self.assertEqual(http_raw(port, query.replace(b"1.1", b"1.0") + b"\r\n"), 200)
        s, body, _ = self.server.request("/api/query?table=nim-normal-k3-h15.h5&position=3%004", raw_path=True)
        self.assertEqual(s, 400, body)
        self.assertIn("control character", body["error"])
        # A client that sends a byte after its request and hangs up: its solve stops.
        body = json.dumps({"rules": "wythoff", "convention": "normal", "position": "3000,3000"}).encode()
        sock = socket.create_connection(("127.0.0.1", port))
        sock.sendall(b"POST /api/find HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                     b"Content-Length: %d\r\n\r\n" % len(body) + body)
        pid = self.server.proc.pid
        self.assertIsNotNone(solving_child(pid)[0])
        sock.sendall(b"x")
        time.sleep(0.2)
        sock.close()
        t0 = time.monotonic()
        while children(pid) and time.monotonic() - t0 < 10:
            time.sleep(0.01)
        print(f"\na client that sent a byte more and hung up: its solve stopped in "
              f"{time.monotonic() - t0:.2f} s", file=sys.stderr)
        self.assertEqual(children(pid), [])

    def test_jobs_bound_every_child(self):
        self.restart("--jobs", "1")
        for i in range(12):  # new files: each is looked at in a child before it is served
            shutil.copy(os.path.join(self.tables, "nim-normal-k3-h15.h5"), os.path.join(self.tables, f"c{i}.h5"))
        pid, most, done = self.server.proc.pid, [0], []

        def watch():
            while not done:
                most[0] = max(most[0], len(children(pid)))
                time.sleep(0.002)

        watcher = threading.Thread(target=watch)
        watcher.start()
        askers = [threading.Thread(target=self.get, args=("/api/info",), kwargs={"table": f"c{i}.h5"})
                  for i in range(12)]
        askers.append(threading.Thread(target=self.get, args=("/api/count",),
                                       kwargs={"table": "kayles-n12.h5"}))
        for t in askers:
            t.start()
        for t in askers:
            t.join()
        done.append(True)
        watcher.join()
        s, listing, _ = self.get("/api/tables")
        print(f"\n--jobs 1 with 12 new files and a count: at most {most[0]} children at once", file=sys.stderr)
        self.assertLessEqual(most[0], 1)
        self.assertEqual(len(listing["tables"]), 4 + 12)

    def test_tickets_for_one_job_are_bounded(self):
        statuses = []
        for _ in range(300):  # the other convention of BIG: a solve of a few seconds
            s, j, _ = self.server.request("/api/companion", body=json.dumps({"table": self.BIG}))
            statuses.append((s, j))
            if s != 200:
                break
        self.assertEqual([s for s, _ in statuses].count(200), 256, statuses[-1])
        self.assertEqual(statuses[-1][0], 503, statuses[-1])
        self.assertIn("tickets", statuses[-1][1]["error"])

    def test_a_full_disk_is_507_and_names_no_folder(self):
        disk = self.path("disk")
        os.mkdir(disk)
        if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16k", "tmpfs", disk],
                                               capture_output=True).returncode != 0:
            self.skipTest("needs root to mount a small tmpfs")
        try:
            shutil.copy(os.path.join(self.tables, "nim-normal-k3-h15.h5"), disk)
            self.restart_over(disk, "--write")
            s, body, _ = self.server.request("/api/find", body=json.dumps(
                {"rules": "nim", "convention": "misere", "position": "60 50 40 30"}))
            self.assertEqual(s, 507, body)
            self.assertIn("disk is full", body["error"])
            for word in (disk, "nimtb-solve", "/tmp"):
                self.assertNotIn(word, body["error"])
            self.assertEqual(os.listdir(disk), ["nim-normal-k3-h15.h5"], "nothing left behind")
        finally:
            self.server.stop()
            subprocess.run(["umount", disk], capture_output=True)

    def restart_over(self, tables, *options):
        self.server.stop()
        self.server = Server(tables, options=list(options))

    def test_a_cut_stream_is_seen_broken_and_answers_are_gzipped(self):
        # The dump's header comes at once, its rows take minutes: cut after 2 s.
        self.restart("--job-time", "2")
        answer = http_raw(self.server.port, f"GET /api/dump?table={self.BIG} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                          "Connection: close\r\n\r\n".encode(), whole=True, timeout=30)
        head, _, rest = answer.partition(b"\r\n\r\n")
        print(f"\na dump cut by --job-time 2: {len(rest)} bytes, then the connection closed", file=sys.stderr)
        self.assertTrue(head.startswith(b"HTTP/1.1 200"), head)
        self.assertIn(b"transfer-encoding: chunked", head.lower())
        self.assertFalse(rest.endswith(b"0\r\n\r\n"), "no last chunk: every client sees it cut short")
        # gzip, when the client accepts it: the same bytes once unpacked.
        import gzip
        plain = self.get("/api/tables")[1]
        conn = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=60)
        for target in ["/api/tables", "/api/dump?table=kayles-n12.h5"]:
            conn.request("GET", target, headers={"Accept-Encoding": "gzip, deflate"})
            r = conn.getresponse()
            packed = r.read()
            self.assertEqual(r.getheader("Content-Encoding"), "gzip", target)
            self.assertIn("Accept-Encoding", r.getheader("Vary", ""))
            unpacked = gzip.decompress(packed)
            if target == "/api/tables":
                self.assertEqual(json.loads(unpacked), plain)
            else:
                code, out, err = run("dump", os.path.join(self.tables, "kayles-n12.h5"), "--csv")
                self.assertEqual(unpacked.decode(), out)
        conn.request("GET", "/api/tables", headers={"Accept-Encoding": "gzip;q=0"})
        r = conn.getresponse()
        self.assertIsNone(r.getheader("Content-Encoding"))
        self.assertEqual(json.loads(r.read()), plain)
        conn.close()


class Load(ServeCase):
    """A bounded load on loopback: several clients, thousands of queries, each answer checked."""
    CLIENTS = 8
    QUERIES = 500  # per client

    def test_no_request_is_lost(self):
        t = "nim-normal-k3-h15.h5"
        rng = random.Random(5)
        positions = [" ".join(str(rng.randint(0, 15)) for _ in range(3)) for _ in range(400)]
        # The expected answers from the command line, in one batch.
        code, out, err = run("query", os.path.join(self.tables, t), "-", "--json", stdin="\n".join(positions) + "\n")
        self.assertEqual(code, 0, err)
        expected = {p: json.loads(line) for p, line in zip(positions, out.splitlines())}
        failures, done = [], [0] * self.CLIENTS

        def client(i):
            conn = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=60)
            r = random.Random(i)
            for _ in range(self.QUERIES):
                p = r.choice(positions)
                try:
                    conn.request("GET", "/api/query?" + urllib.parse.urlencode({"table": t, "position": p}))
                    res = conn.getresponse()
                    body = json.loads(res.read())
                    if res.status != 200 or body != expected[p]:
                        failures.append((p, res.status, body))
                    done[i] += 1
                except Exception as e:  # a lost request: the test says which
                    failures.append((p, repr(e)))
                    conn.close()
                    conn = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=60)
            conn.close()

        start = time.monotonic()
        threads = [threading.Thread(target=client, args=(i,)) for i in range(self.CLIENTS)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        seconds = time.monotonic() - start
        self.assertEqual(failures[:3], [])
        self.assertEqual(sum(done), self.CLIENTS * self.QUERIES)
        print(f"\nload: {sum(done)} queries from {self.CLIENTS} clients in {seconds:.2f} s: "
              f"{sum(done) / seconds:.0f} queries/s, none lost", file=sys.stderr)


if __name__ == "__main__":
    unittest.main()
