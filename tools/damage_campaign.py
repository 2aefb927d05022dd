#!/usr/bin/env python3
"""Damaged tables, many times over: each base file (fresh tables of a box and
a total universe, a sequence file, the version 1 tables kept in tests/data)
is mutated by a seeded generator (bits flipped, truncated, a range zeroed, two
blocks swapped; in files of the current format also an attribute or a dataset
rewritten with h5py to lie about sizes, types, byte order and transforms)
and given to nimtb's readers (info, query, dump --count,
verify; query --sequence for the sequence file; `import nimtb`'s Table in a
Python process; GET /api/info and /api/query of one `nimtb serve` that
serves every damaged table in turn), each run with a time limit.

Every run must either answer exactly as the undamaged file does, or exit 1
with one line on stderr (the server: a 4xx or 5xx with {"error": ...}, and it
goes on serving). A signal, a sanitizer report, another exit code, a
run over the time limit, an answer that differs or an error of several lines
is a finding; the script prints each and exits 1 when there is any in a file
of the current format. Findings in the version 1 files are listed apart:
those files are in HDF5's 1.8 format, whose metadata has no checksums and
whose string attributes live in the global heap, where HDF5 itself follows
damage into crashes and hangs (docs/FORMAT.md, "Damaged files").

    tools/damage_campaign.py [--nimtb build/apps/nimtb] [--python build/python]
                             [--mutations 10000] [--seed 1]
"""
import argparse
import http.client
import json
import shutil
import os
import random
import re
import select
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# How a table is stored, as info says it: a dataset rewritten whole with the same numbers
# (in the other byte order, or without compression) is stored otherwise, and says so.
STORAGE_LINES = ("stored ", "compression ", "transforms ", "data ")
STORAGE_KEYS = ("chunk_elements", "compression", "data_bytes", "stored_bytes", "quantities",
                "transforms")


def normalized(out, path, restored=False):
    """Output with the file's name replaced and its size left out: the same answer for the
    undamaged file and a damaged copy (a truncated file is smaller). With `restored`, what
    says how the datasets are stored is left out too."""
    lines = [line.replace(path, "FILE") for line in out.splitlines()
             if not line.startswith("file size")]
    if restored:
        lines = [re.sub('"(' + "|".join(STORAGE_KEYS) + ')": ("[^"]*"|[0-9.]+|{[^}]*})(, )?', "", line)
                 for line in lines if not line.startswith(STORAGE_LINES)]
    return "\n".join(lines)


# Under ASan, HDF5's own leak on refusing a damaged file is not nimtb's finding.
ENV = dict(os.environ)
ENV.setdefault("LSAN_OPTIONS", "suppressions=" + os.path.join(ROOT, "tools", "sanitizers",
                                                             "lsan.supp") + ":print_suppressions=0")


def run(args, timeout):
    start = time.monotonic()
    try:
        p = subprocess.run(args, capture_output=True, text=True, timeout=timeout, errors="replace",
                           env=ENV)
    except subprocess.TimeoutExpired:
        return None, "", "", time.monotonic() - start
    return p.returncode, p.stdout, p.stderr, time.monotonic() - start


# Tables read through `import nimtb` by one Python process that stays (importing numpy
# for every file would cost more than the reading): a line "PATH\tPOSITION" in, a line of
# JSON out: the table's info (without what depends on the file's size) and one answer, or
# nimtb's own error. Anything else (another exception, a crash) ends the process.
PYTHON_READER = """
import json, sys, nimtb
for line in sys.stdin:
    path, position = line.rstrip("\\n").split("\\t")
    try:
        with nimtb.Table(path) as t:
            info = {k: v for k, v in t.info.items()
                    if k not in ("path", "file_bytes", "compression_ratio")}
            out = json.dumps(info, sort_keys=True) + "\\n" + repr(t.query(position)) + "\\n"
        print(json.dumps({"code": 0, "out": out}), flush=True)
    except (nimtb.TableError, nimtb.InputError) as e:
        print(json.dumps({"code": 1, "err": "nimtb: error: " + " / ".join(str(e).splitlines()) + "\\n"}),
              flush=True)
"""


class PythonReader:
    """The Python process above, started again whenever it stops or hangs."""

    def __init__(self, env):
        self.env, self.proc = env, None

    def start(self):
        self.proc = subprocess.Popen(["/usr/bin/python3", "-c", PYTHON_READER], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     env=self.env)

    def stop(self):
        if self.proc:
            self.proc.kill()
            self.proc.wait()
            self.proc = None

    def read(self, path, position, timeout):
        if self.proc is None:
            self.start()
        start = time.monotonic()
        self.proc.stdin.write(f"{path}\t{position}\n")
        self.proc.stdin.flush()
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        line = self.proc.stdout.readline() if ready else ""
        seconds = time.monotonic() - start
        if not ready:
            self.stop()
            return None, "", "", seconds
        if not line:  # the process ended: a crash, or an exception nimtb does not document
            self.proc.wait()
            code, err = self.proc.returncode, self.proc.stderr.read()
            self.proc = None
            return code if code != 0 else -1000, "", err, seconds
        j = json.loads(line)
        return j["code"], j.get("out", ""), j.get("err", ""), seconds


class Server:
    """One `nimtb serve` over a folder into which each damaged table is copied under a
    name of its own; restarted when it stops (which is a finding)."""

    def __init__(self, nimtb, folder):
        self.nimtb, self.folder, self.count = nimtb, folder, 0
        os.makedirs(folder, exist_ok=True)
        self.start()

    def start(self):
        self.proc = subprocess.Popen([self.nimtb, "serve", "--tables", self.folder, "--port", "0"],
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                                     env=ENV)
        line = self.proc.stdout.readline()
        self.port = int(line.split(" at ")[1].split()[0].rstrip("/").rsplit(":", 1)[1])

    def stop(self):
        self.proc.kill()
        self.proc.wait()

    def ask(self, path, position, timeout):
        """(status, the JSON answered, its text with the table's name as FILE), or None when
        the server does not answer in time or at all."""
        self.count += 1
        name = f"t{self.count}.h5"
        shutil.copyfile(path, os.path.join(self.folder, name))
        answers = []
        try:
            for what in (f"/api/info?table={name}", f"/api/query?table={name}&position={position}"):
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
                conn.request("GET", what)
                r = conn.getresponse()
                body = r.read().decode(errors="replace")
                conn.close()
                j = json.loads(body) if r.getheader("Content-Type") == "application/json" else None
                if isinstance(j, dict):
                    for k in ("file_bytes", "compression_ratio"):
                        j.pop(k, None)
                answers.append((r.status, j, json.dumps(j, sort_keys=True).replace(name, "FILE")))
        except (OSError, http.client.HTTPException):
            return None
        finally:
            os.remove(os.path.join(self.folder, name))
        return answers


def bases(nimtb, work):
    """(name, path, commands): each command a list of arguments with FILE for the file."""
    table_commands = [["info", "FILE"], ["query", "FILE", "3 4 5"], ["dump", "FILE", "--count"],
                      ["verify", "FILE"]]
    out = []
    box = os.path.join(work, "box.h5")
    subprocess.run([nimtb, "solve", "--rules", "nim", "--misere", "--heaps", "3", "--max-heap", "40",
                    "-o", box, "--quiet"], check=True)
    out.append(("box", box, table_commands + [["python", "FILE", "3 4 5"], ["api", "FILE", "3,4,5"]]))
    total = os.path.join(work, "total.h5")
    subprocess.run([nimtb, "solve", "--rules", "octal:0.77", "--misere", "--max-total", "16",
                    "-o", total, "--quiet"], check=True)
    out.append(("total", total, table_commands + [["python", "FILE", "3 4 5"], ["api", "FILE", "3,4,5"]]))
    seq = os.path.join(work, "seq.h5")
    subprocess.run([nimtb, "sequence", "--rules", "octal:0.77", "--max-heap", "3000", "--output", seq],
                   check=True, capture_output=True)
    out.append(("sequence", seq, [["query", "--sequence", "FILE", "1000000000000 7 13"],
                                  ["query", "--sequence", "FILE", "2999 7 13"]]))
    data = os.path.join(ROOT, "tests", "data")
    for name in sorted(os.listdir(data)):
        if name.startswith("nimtb-0.1") and name.endswith(".h5"):
            out.append(("v1:" + name, os.path.join(data, name),
                        [["info", "FILE"], ["query", "FILE", "1 2"], ["dump", "FILE", "--count"],
                         ["python", "FILE", "1 2"], ["api", "FILE", "1,2"]]))
    return out


def mutate(data, rng):
    b = bytearray(data)
    kind = rng.choice(["bits", "bits", "bits", "truncate", "zero", "swap"])
    if kind == "bits":
        for _ in range(rng.randint(1, 8)):
            b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
    elif kind == "truncate":
        del b[rng.randrange(len(b)):]
    elif kind == "zero":
        at = rng.randrange(len(b))
        n = rng.randint(1, 64)
        b[at:at + n] = bytes(len(b[at:at + n]))
    else:
        n = rng.randint(1, 64)
        i, j = sorted(rng.sample(range(max(1, len(b) - n)), 2)) if len(b) > n + 1 else (0, 0)
        if j - i >= n:
            b[i:i + n], b[j:j + n] = b[j:j + n], b[i:i + n]
    return kind, bytes(b)


# What a lie may say in place of an attribute: another number (near, zero, huge),
# another type (a string, a float, an array, a variable-length string, which
# HDF5 keeps in its global heap), or nothing at all.
def lie(rng, old):
    import numpy as np
    kinds = ["missing", "float", "array", "vlen", "long", "int"]
    if isinstance(old, (int, np.integer)):
        kinds += ["near", "near", "zero", "huge"]
    else:
        kinds += ["foreign", "foreign", "empty"]
    kind = rng.choice(kinds)
    value = {
        "missing": None,
        "float": np.float64(rng.choice([0.5, 1e300, float("nan")])),
        "array": np.array([3, 4], dtype=np.uint64),
        "vlen": str(old.decode() if isinstance(old, bytes) else old),
        "long": np.bytes_(b"x" * rng.choice([300, 100000])),
        "int": np.int64(rng.choice([-1, 7])),
        "near": None if not isinstance(old, (int, np.integer)) else
                np.uint64(max(0, int(old) + rng.choice([-1, 1]))),
        "zero": np.uint64(0),
        "huge": np.uint64(rng.choice([2**63 - 1, 2**64 - 1, 2**32])),
        "foreign": np.bytes_(rng.choice([b"nimtb-tablex", b"octal:0.7x", b"?", b"misere\x00x",
                                         b"colex-multiset-v9", b"xor-previousx",
                                         b"nim\xb9\xff"])),  # not UTF-8
        "empty": np.bytes_(b""),
    }[kind]
    return kind, value


def rewrite(path, out, rng):
    """A copy of an HDF5 file of the current format with one attribute or dataset
    rewritten to lie, with h5py; the kind of lie."""
    import h5py
    import numpy as np
    import shutil
    shutil.copyfile(path, out)
    with h5py.File(out, "r+") as f:
        datasets = [k for k in f]
        # Not the words `info` only repeats (generator, method): any text there is the file's.
        places = [("/", k) for k in f.attrs if k not in ("generator", "method")] + \
                 [(d, k) for d in datasets for k in f[d].attrs]
        if rng.random() < 0.3:
            d = rng.choice(datasets)
            data, attributes = f[d][()], dict(f[d].attrs)
            # (Not /remoteness missing: a table without it is a table solved without it.)
            kind = rng.choice(["big-endian", "float", "short", "two-d", "signed", "plain"] +
                              (["missing"] if d != "remoteness" else []))
            del f[d]
            if kind == "big-endian":  # the same numbers in the other byte order: the same answers
                f.create_dataset(d, data=data.astype(">u2"), chunks=True, fletcher32=True)
            elif kind == "float":
                f.create_dataset(d, data=data.astype(np.float32) + 0.5)
            elif kind == "short":
                f.create_dataset(d, data=data[:-1])
            elif kind == "two-d":
                f.create_dataset(d, data=np.stack([data, data]))
            elif kind == "signed":
                f.create_dataset(d, data=data.astype(np.int16) - 1)
            elif kind == "plain":  # stored whole, no filter: the same answers
                f.create_dataset(d, data=data)
            if d in f:
                f[d].attrs.update(attributes)
            return f"dataset {d} {kind}"
        where, name = rng.choice(places)
        obj = f[where]
        kind, value = lie(rng, obj.attrs[name])
        del obj.attrs[name]
        if value is not None:
            obj.attrs[name] = value
        return f"attribute {where}{name} {kind}"


class Readers:
    """Runs one reader on a file: a command of nimtb, the Python module or the server.
    Each gives (exit code or None past the time limit, stdout, stderr, seconds); the
    server's answers are worded as a command's (200: exit 0 with the JSON; an error
    with {"error": ...}: exit 1 with that line)."""

    def __init__(self, nimtb, python, work, timeout):
        self.nimtb, self.timeout = nimtb, timeout
        self.python_env = dict(ENV, PYTHONPATH=python) if python else None
        self.python = PythonReader(self.python_env)
        self.server = Server(nimtb, os.path.join(work, "served"))

    def wanted(self, c):
        return c[0] != "python" or self.python_env is not None

    def run(self, c, path):
        args = [path if x == "FILE" else x for x in c]
        if c[0] == "python":
            return self.python.read(args[1], args[2], self.timeout)
        if c[0] != "api":
            return run([self.nimtb] + args, self.timeout)
        start = time.monotonic()
        answers = self.server.ask(path, c[2], self.timeout)
        seconds = time.monotonic() - start
        if self.server.proc.poll() is not None:
            code = self.server.proc.returncode
            self.server.start()
            return code if code < 0 else -1000, "", "the server stopped", seconds
        if answers is None:
            self.server.stop()
            self.server.start()
            return None, "", "", seconds
        errors = [j["error"] for status, j, _ in answers
                  if status >= 400 and isinstance(j, dict) and isinstance(j.get("error"), str)]
        if all(status == 200 for status, _, _ in answers):
            return 0, "\n".join(text for _, _, text in answers), "", seconds
        if errors and "\n" not in errors[0]:
            return 1, "", "nimtb: error: " + errors[0] + "\n", seconds
        return 3, "", f"the server answered {[(s, t[:200]) for s, _, t in answers]}", seconds


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--nimtb", default=os.path.join(ROOT, "build", "apps", "nimtb"))
    ap.add_argument("--python", default=os.path.join(ROOT, "build", "python"),
                    help="the folder holding the built package nimtb/ (none: no Python reader)")
    ap.add_argument("--mutations", type=int, default=10000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=10.0)
    ap.add_argument("--save", help="a folder to keep each damaged file that gave a finding in")
    a = ap.parse_args()
    nimtb = os.path.abspath(a.nimtb)
    python = os.path.abspath(a.python) if a.python != "none" else None
    if python and not any(f.startswith("_core") for f in os.listdir(os.path.join(python, "nimtb"))):
        ap.error(f"{python}/nimtb holds no built module: build it, or give --python none")
    rng = random.Random(a.seed)
    findings, counts = [], {"runs": 0, "answered": 0, "refused": 0}
    slowest, slowest_run = 0.0, ""
    with tempfile.TemporaryDirectory() as work:
        readers = Readers(nimtb, python, work, a.timeout)
        files = [(name, path, [c for c in commands if readers.wanted(c)])
                 for name, path, commands in bases(nimtb, work)]
        expected = {}
        for name, path, commands in files:
            for c in commands:
                code, out, err, _ = readers.run(c, path)
                if code != 0:
                    sys.exit(f"the undamaged {name} fails: {' '.join(c)}: {err.strip()}")
                expected[(name, tuple(c))] = (code, normalized(out, path))
                expected[(name, tuple(c), "restored")] = (code, normalized(out, path, True))
        damaged = os.path.join(work, "damaged.h5")
        for m in range(a.mutations):
            name, path, commands = files[m % len(files)]
            if not name.startswith("v1:") and m % 5 == 4:
                kind = rewrite(path, damaged, rng)
                data = open(damaged, "rb").read()
            else:
                kind, data = mutate(open(path, "rb").read(), rng)
                with open(damaged, "wb") as f:
                    f.write(data)
            for c in commands:
                code, out, err, seconds = readers.run(c, damaged)
                if seconds > slowest:
                    slowest, slowest_run = seconds, f"mutation {m} ({kind}) of {name}: nimtb {' '.join(c)}"
                counts["runs"] += 1
                what = f"mutation {m} ({kind}) of {name}: nimtb {' '.join(c)}"
                before = len(findings)
                if code is None:
                    findings.append(f"{what}: over {a.timeout} s")
                elif code < 0 or "Sanitizer" in err or "runtime error" in err:
                    findings.append(f"{what}: crashed ({code}): {err.strip()[-300:]}")
                elif code == 0:
                    counts["answered"] += 1
                    restored = kind.endswith((" big-endian", " plain"))
                    key = (name, tuple(c)) + (("restored",) if restored else ())
                    if (0, normalized(out, damaged, restored)) != expected[key]:
                        findings.append(f"{what}: answered differently:\n{out}")
                elif (code == 1 and err.count("\n") == 1 and err.startswith("nimtb: error: ")
                      and err.strip() != "nimtb: error:"):
                    counts["refused"] += 1
                else:
                    findings.append(f"{what}: exit {code}, stderr {err!r}")
                if a.save and len(findings) > before:
                    os.makedirs(a.save, exist_ok=True)
                    with open(os.path.join(a.save, f"mutation-{m}.h5"), "wb") as f:
                        f.write(data)
        readers.server.stop()
        readers.python.stop()
    old = [f for f in findings if " of v1:" in f]
    new = [f for f in findings if " of v1:" not in f]
    for f in old:
        print("known HDF5 1.8 limit:", f)
    for f in new:
        print(f)
    print(f"{a.mutations} mutations of {len(files)} files, {counts['runs']} runs: "
          f"{counts['answered']} answered as the undamaged file, {counts['refused']} refused with "
          f"one line; {len(new)} findings in files of the current format, {len(old)} in version 1 "
          f"files; slowest run {slowest:.2f} s ({slowest_run})")
    return 1 if new else 0


if __name__ == "__main__":
    sys.exit(main())
