#!/usr/bin/env python3
"""The server's answers to a fixed corpus of requests, for comparing two builds.

    tools/serve_corpus.py NIMTB > answers.txt

starts `nimtb serve` (read-only) on loopback over a fresh folder holding the
tables of tests/data, sends every request of CORPUS in order, and prints one
line per request: the method and target, the status, the content type and
the SHA-256 of the body (the body itself when it is short, so that a
difference can be read). Two builds whose outputs are equal answer the corpus
byte for byte alike. The requests cover every endpoint that runs a child
(count, dump, sequence, quotient, solving on the spot) and their errors, and
the plain reads beside them; answers that are random by design (the
computer's move at a random level, a job's number) are left out.
"""
import hashlib
import http.client
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "tests", "data")

NIM3 = "nimtb-0.1-nim-normal-k3-h127.h5"
NIM2M = "nimtb-0.1-nim-misere-k2-h200.h5"
KAYLES = "nimtb-0.1-octal-0.77-misere-n20-zstd.h5"
SUB = "nimtb-0.1-subtract-1_3_4-misere-k3-h10.h5"


def get(path, **params):
    return ("GET", path + ("?" + urllib.parse.urlencode(params) if params else ""), None)


def post(path, body):
    return ("POST", path, json.dumps(body))


CORPUS = [
    get("/api/tables"),
    get("/api/rules"),
    *[get("/api/info", table=t) for t in (NIM3, NIM2M, KAYLES, SUB)],
    get("/api/info", table="missing.h5"),
    get("/api/info", table="v1-crashes-hdf5.h5"),
    get("/api/info", table="notes.h5"),
    get("/api/query", table="notes.h5", position="1"),
    get("/api/query", table=NIM3, position="3,4,5"),
    get("/api/query", table=SUB, position="2,2,7"),
    get("/api/query", table=KAYLES, position="3,4,5"),
    get("/api/query", table=NIM3, position="3,x"),
    get("/api/query", table=NIM3, position="300"),
    get("/api/hint", table=NIM3, position="3,4,5"),
    get("/api/move", table=NIM3, position="3,4,5", level="perfect"),
    # Work in children: counts, dumps, sequences, quotients.
    *[get("/api/count", table=t) for t in (NIM3, NIM2M, KAYLES, SUB)],
    get("/api/dump", table=SUB),
    get("/api/dump", table=KAYLES),
    get("/api/dump", table=NIM3),
    get("/api/sequence", rules="octal:0.77", max_heap="200"),
    get("/api/sequence", rules="grundy", max_heap="1000"),
    get("/api/sequence", rules="subtract:1,3,4", max_heap="50"),
    get("/api/sequence", rules="octal:0.16", until_proven="1"),
    get("/api/sequence", rules="octal:0.16", until_proven="1", limit="100"),
    get("/api/sequence", rules="nim", max_heap="20"),
    get("/api/sequence", rules="wythoff", max_heap="20"),
    get("/api/sequence", rules="kaylez", max_heap="20"),
    get("/api/sequence", rules="octal:0.77", max_heap="0"),
    get("/api/sequence", rules="octal:0.77", max_heap="-5"),
    get("/api/sequence", rules="octal:0.77", max_heap="99999999"),
    get("/api/quotient", rules="octal:0.77", max_heap="20"),
    get("/api/quotient", rules="octal:0.07", max_heap="12"),
    get("/api/quotient", rules="subtract:1,3,4", max_heap="30"),
    get("/api/quotient", rules="nim", max_heap="10"),
    get("/api/quotient", rules="wythoff", max_heap="10"),
    get("/api/quotient", rules="octal:0.77", max_heap="0"),
    get("/api/quotient", rules="octal:0.77", max_heap="101"),
    get("/api/quotient", rules="kaylez", max_heap="10"),
    get("/api/quotient", rules="octal:0.54", max_heap="100"),
    get("/api/quotient", rules="hex:0.F", max_heap="40"),
    get("/api/sequence", rules="hex:0.F", until_proven="1", limit="65536"),
    # Games: found in the folder, or solved on the spot (a child's solve).
    get("/api/find", rules="nim", convention="normal", position="3,4,5"),
    get("/api/find", rules="octal:0.77", convention="normal", position="3,4"),
    post("/api/find", {"rules": "octal:0.77", "convention": "normal", "position": "3 4"}),
    post("/api/find", {"rules": "subtract:1,2", "convention": "misere", "position": "5 6 7"}),
    post("/api/find", {"rules": "lasker", "convention": "normal", "layout": "3 4 5"}),
    post("/api/find", {"rules": "nim", "convention": "normal", "position": "3000 4000 5000 6000"}),
    post("/api/find", {"rules": "nope", "convention": "normal", "position": "3 4"}),
    get("/api/companion", table=SUB),
    get("/api/tables"),
]


def answers(nimtb, corpus=CORPUS, options=()):
    """(status, content type, body) of each request of `corpus`, from a fresh
    server started as `nimtb serve --port 0 ...options` over a fresh folder."""
    work = tempfile.mkdtemp(prefix="nimtb-corpus-")
    tables = os.path.join(work, "tables")
    os.mkdir(tables)
    for name in (NIM3, NIM2M, KAYLES, SUB):
        shutil.copy(os.path.join(DATA, name), tables)
    # Files the listing leaves out, each read first in a child: damaged, and not a table.
    shutil.copy(os.path.join(DATA, "damaged", "v1-crashes-hdf5.h5"), tables)
    with open(os.path.join(tables, "notes.h5"), "w") as f:
        f.write("not a table\n")
    # Dated a minute back: files that have been in the folder a while (one written in the
    # last seconds that cannot be read is answered "ask again", not as damaged).
    for name in os.listdir(tables):
        past = os.path.getmtime(os.path.join(tables, name)) - 60
        os.utime(os.path.join(tables, name), (past, past))
    server = subprocess.Popen([nimtb, "serve", "--tables", tables, "--port", "0", *options],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    out = []
    try:
        line = server.stdout.readline()
        port = int(line.split(" at ")[1].split()[0].rstrip("/").rsplit(":", 1)[1])
        for method, target, body in corpus:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
            headers = {"Content-Type": "application/json"} if body is not None else {}
            conn.request(method, target, body=body, headers=headers)
            r = conn.getresponse()
            out.append((r.status, r.getheader("Content-Type", ""), r.read()))
            conn.close()
    finally:
        server.send_signal(signal.SIGINT)
        server.wait(timeout=30)
        shutil.rmtree(work, ignore_errors=True)
    return out


def main():
    for (method, target, body), (status, ctype, data) in zip(CORPUS, answers(sys.argv[1])):
        shown = data.decode(errors="replace") if len(data) <= 300 else ""
        print(f"{method} {target} {body or ''}\n  {status} {ctype} "
              f"{hashlib.sha256(data).hexdigest()[:16]} {shown}")


if __name__ == "__main__":
    main()
