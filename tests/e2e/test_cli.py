"""End-to-end tests: the real nimtb binary on real files, the way a user runs it.

Run by ctest (one entry per TestCase class) with Debian's /usr/bin/python3, which
has h5py. NIMTB names the binary.
"""
import json
import os
import re
import shutil
import signal
import stat
import subprocess
import tempfile
import time
import unittest

NIMTB = os.environ.get("NIMTB", "build/apps/nimtb")


def run(*args, stdin=None, cwd=None):
    p = subprocess.run([NIMTB, *args], input=stdin, capture_output=True, text=True, cwd=cwd, timeout=300)
    return p.returncode, p.stdout, p.stderr


def run_measured(*args):
    """run(), and the peak resident memory of the process in MiB."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        p = subprocess.Popen([NIMTB, *args], stdout=out, stderr=err, text=True)
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return p.returncode, out.read(), err.read(), usage.ru_maxrss / 1024


def stored(path):
    """A table as stored: its attributes but the generator, and each dataset's attributes and
    chunks as written (tools/table_digest.sh's digest, unhashed)."""
    import h5py
    with h5py.File(path, "r") as f:
        out = [sorted((k, text(v)) for k, v in f.attrs.items() if k != "generator")]
        for name in sorted(f):
            d = f[name]
            out.append((name, d.dtype.str, d.chunks, sorted((k, text(v)) for k, v in d.attrs.items())))
            for i in range(d.id.get_num_chunks()):
                info = d.id.get_chunk_info(i)
                out.append((info.chunk_offset, d.id.read_direct_chunk(info.chunk_offset)))
    return out


def text(value):
    """A string attribute as h5py reads it: bytes (fixed-length, this version) or str (older)."""
    return value.decode() if isinstance(value, bytes) else value


def entry(dataset, r):
    """Entry r of a table's dataset read with h5py, its chunk's transform undone (docs/FORMAT.md)."""
    import numpy as np
    first = r - r % dataset.chunks[0]
    t = dataset[first:r + 1]
    transform = text(dataset.attrs.get("transform", "none"))
    if transform == "xor-previous":
        t = np.bitwise_xor.accumulate(t)
    elif transform == "delta-zigzag":
        t = np.cumsum((t >> 1) ^ np.negative(t & 1), dtype=t.dtype)
    else:
        assert transform == "none", transform
    return int(t[-1])


def dumped_outcomes(csv):
    """(heaps, is a P-position) for each row of `nimtb dump --csv`."""
    for line in csv.splitlines()[1:]:
        position, value = line.split(",")[:2]
        yield [] if position == "(empty)" else list(map(int, position.split())), value == "0"


def quotient_says_p(q, heaps):
    """Whether the quotient JSON `q` puts the position `heaps` in its P-portion."""
    x = 0
    for h in heaps:
        x = q["table"][x][q["phi"][h]]
    return q["elements"][x]["p"]


class Workdir(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="nimtb-e2e-")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def path(self, name):
        return os.path.join(self.dir, name)

    def solve(self, *args, name="t.h5"):
        code, out, err = run("solve", *args, "-o", self.path(name), "--quiet")
        self.assertEqual(code, 0, err)
        return self.path(name)

    def interrupt_once(self, args, marker, sig=signal.SIGINT):
        """Runs nimtb with `args`, sends Ctrl-C (or `sig`) once stderr shows `marker` (its
        progress bar is drawn), and expects exit 1, "interrupted" and nothing left in the
        work folder."""
        p = subprocess.Popen([NIMTB, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        seen = b""
        while marker not in seen:
            byte = p.stderr.read(1)
            self.assertTrue(byte, "nimtb ended before it began")
            seen += byte
        p.send_signal(sig)
        out, err = p.communicate(timeout=120)
        self.assertEqual(p.returncode, 1, err)
        self.assertIn(b"interrupted", err)
        self.assertEqual(os.listdir(self.dir), [])

    def assert_error(self, code, err, expected_code, fragment):
        self.assertEqual(code, expected_code, err)
        self.assertIn(fragment, err)
        self.assertTrue(err.startswith("nimtb: error: "), err)
        self.assertNotIn("Traceback", err)


class Solve(Workdir):
    def test_default_output_name_and_summary(self):
        code, out, err = run("solve", "--rules", "subtract:3,1,4", "--heaps", "3", "--max-heap", "10", cwd=self.dir)
        self.assertEqual(code, 0, err)
        self.assertTrue(os.path.exists(self.path("tables/subtract-1_3_4-normal-k3-h10.h5")))
        for word in ["positions    286", "P-positions", "largest value", "largest remoteness", "solve time",
                     "file size"]:
            self.assertIn(word, out)

    def test_storage_figures_small_and_large(self):
        """solve and info report the data's compression ratio and the file size separately,
        each as h5py measures them."""
        import h5py
        for name, args in [("small.h5", ["--rules", "nim", "--heaps", "2", "--max-heap", "5"]),
                           ("large.h5", ["--rules", "nim", "--misere", "--heaps", "4", "--max-heap", "60",
                                         "--kernel", "brute"])]:
            code, out, err = run("solve", *args, "-o", self.path(name))
            self.assertEqual(code, 0, err)
            code, info_text, err = run("info", self.path(name))
            code, j, err = run("info", self.path(name), "--json")
            j = json.loads(j)
            with h5py.File(self.path(name), "r") as f:
                raw = sum(f[d].size * f[d].dtype.itemsize for d in ("value", "remoteness"))
                stored = sum(f[d].id.get_storage_size() for d in ("value", "remoteness"))
            self.assertEqual(j["data_bytes"], raw)
            self.assertEqual(j["stored_bytes"], stored)
            self.assertEqual(j["file_bytes"], os.path.getsize(self.path(name)))
            self.assertAlmostEqual(j["compression_ratio"], raw / stored, places=6)
            ratio = "compression ratio {:.1f}x".format(raw / stored)
            for text in (out, info_text):
                data_line = next(l for l in text.splitlines() if l.startswith("data "))
                self.assertIn(ratio, data_line)
                self.assertIn("file size", text)
            if name == "large.h5":
                self.assertGreater(raw / stored, 4)  # Nim values compress well
                self.assertIn("positions/s", out)

    def test_refuses_to_overwrite_without_force(self):
        t = self.solve("--rules", "nim", "--heaps", "2", "--max-heap", "5")
        code, out, err = run("solve", "--rules", "nim", "--heaps", "2", "--max-heap", "5", "-o", t)
        self.assert_error(code, err, 1, "already exists")
        code, out, err = run("solve", "--rules", "nim", "--heaps", "2", "--max-heap", "5", "-o", t, "--force", "-q")
        self.assertEqual(code, 0, err)

    def test_presets(self):
        code, out, err = run("solve", "--list-presets")
        self.assertEqual(code, 0)
        for name in ["bouton-3x15", "nim-4x20", "nim-4x20-misere", "matches-40", "nim-5x63-misere"]:
            self.assertIn(name, out)
        code, out, err = run("solve", "--preset", "matches-40", "-o", self.path("m.h5"), "-q")
        self.assertEqual(code, 0, err)
        code, out, err = run("info", self.path("m.h5"), "--json")
        info = json.loads(out)
        self.assertEqual((info["rules"], info["max_heaps"], info["max_heap_size"]), ("subtract:1-3", 1, 40))
        code, out, err = run("solve", "--preset", "nosuch")
        self.assert_error(code, err, 2, "unknown preset 'nosuch'")

    def test_bad_usage_exits_2(self):
        for args, fragment in [
            (["--rules", "chess", "--heaps", "2", "--max-heap", "5"], "unknown rule 'chess'"),
            (["--rules", "octal:0.77", "--heaps", "3", "--max-heap", "5"], "--max-total N"),
            (["--rules", "grundy", "--heaps", "3", "--max-total", "10"], "without --heaps"),
            (["--rules", "octal:0.9", "--max-total", "10"], "not an octal digit"),
            (["--rules", "nim", "--max-total", "10", "--max-heap", "4"], "not both"),
            (["--rules", "nim", "--max-total", "0"], "--max-total must be a whole number from 1 to 4294967295"),
            (["--rules", "nim", "--heaps", "0", "--max-heap", "3"], "--heaps must be a whole number from 1 to 128"),
            (["--rules", "subtract:", "--heaps", "2", "--max-heap", "5"], "empty subtract list"),
            (["--rules", "subtract:5-2", "--heaps", "2", "--max-heap", "5"], "reversed range"),
            (["--rules", "nim", "--max-heap", "5"], "missing --heaps"),
            (["--rules", "nim", "--heaps", "2", "--max-heap", "5", "--compression", "rar"], "unknown compression"),
            (["--rules", "nim", "--heaps", "two", "--max-heap", "5"],
             "--heaps must be a whole number from 1 to 128, not two"),
            # Past what a 64-bit number holds: its range too, whichever way it is spelled.
            (["--rules", "nim", "--heaps", "2", "--max-heap", "99999999999999999999"],
             "--max-heap must be a whole number from 1 to 4294967295, not 99999999999999999999"),
            (["--rules", "nim", "--heaps", "2", "-H99999999999999999999"],
             "--max-heap must be a whole number from 1 to 4294967295, not 99999999999999999999"),
            (["--bogus"], "unrecognised option"),
            (["--rules", "nim", "--heaps", "3", "--max-heap", "-1"], "--max-heap must be a whole number from 1"),
            (["--rules", "nim", "--misere", "--heaps", "2", "--max-heap", "5", "--method", "sprague-grundy"],
             "normal play only"),
        ]:
            code, out, err = run("solve", *args, "-o", self.path("x.h5"))
            self.assert_error(code, err, 2, fragment)
            self.assertFalse(os.path.exists(self.path("x.h5")))

    def test_summary_storage_is_what_info_reads(self):
        """The solve's storage lines come from what the writer wrote, not from reading the file
        again; they are the lines `info` prints from the file, for every codec and version."""
        for extra in (["-c", "zstd"], ["-c", "deflate"], ["-c", "lz4"], ["-c", "none"],
                      ["--format-version", "1"]):
            path = self.path("s.h5")
            code, out, err = run("solve", "--rules", "nim", "--misere", "--heaps", "4", "--max-heap", "30",
                                 *extra, "-o", path, "-f")
            self.assertEqual(code, 0, err)
            code, info, err = run("info", path)
            storage = [line for line in out.splitlines() if line.startswith(("data ", "file size"))]
            self.assertEqual(len(storage), 2, out)
            for line in storage:
                self.assertIn(line, info.splitlines(), extra)

    def test_memory_bounds_the_solve(self):
        """--memory SIZE refuses, before any work, a solve that needs more; the same solve runs
        within a larger bound, and a size that is no size is a usage error."""
        code, out, err = run("solve", "--rules", "nim", "--heaps", "4", "--max-heap", "40",
                             "--memory", "64K", "-o", self.path("m.h5"))
        self.assert_error(code, err, 1, "of memory, but only 64.0 KiB")
        self.assertFalse(os.path.exists(self.path("m.h5")))
        code, out, err = run("solve", "--rules", "nim", "--heaps", "4", "--max-heap", "40",
                             "--memory", "1G", "-o", self.path("m.h5"), "-q")
        self.assertEqual(code, 0, err)
        code, out, err = run("solve", "--rules", "nim", "--heaps", "4", "--max-heap", "40",
                             "--memory", "lots", "-o", self.path("n.h5"))
        self.assert_error(code, err, 2, "--memory is a size such as 64K")

    def test_streamed_solve_says_its_plan_and_writes_the_same_table(self):
        """A universe of 16 M positions or more (or --stream) streams to disk as it is solved,
        says so before it starts and in its summary and figures, and writes the table a solve in
        memory writes (a checkpoint keeps the arrays in memory); --stream where the kernel
        cannot stream is refused before any work."""
        args = ["--rules", "nim", "--misere", "--heaps", "6", "--max-heap", "50"]
        code, out, err, peak_mib = run_measured("solve", *args, "-o", self.path("s.h5"),
                                                "--stats", self.path("s.json"))
        self.assertEqual(code, 0, err)
        self.assertIn("solve: 32468436 positions by the line kernel, streamed to disk as solved: ", err)
        # The memory said is the most the solve holds, beside the program's own (its code and
        # libraries: about 20 MiB); not under a sanitizer, whose shadow memory and quarantine
        # it does not count.
        said = float(re.search(r"solved: ([0-9.]+) MiB of memory", err).group(1))
        if not any(v in os.environ for v in ("ASAN_OPTIONS", "TSAN_OPTIONS")):
            self.assertLess(peak_mib, said + 24, (peak_mib, said))
        self.assertIn("children summarised along lines, streamed to disk as solved", out)
        with open(self.path("s.json")) as f:
            self.assertTrue(json.load(f)["streamed"])
        code, out, err = run("solve", *args, "-o", self.path("m.h5"), "--checkpoint", self.path("ck"))
        self.assertEqual(code, 0, err)
        self.assertIn("solve: 32468436 positions by the line kernel, held in memory: ", err)
        self.assertEqual(stored(self.path("s.h5")), stored(self.path("m.h5")))
        self.assertEqual(sorted(os.listdir(self.dir)), ["m.h5", "s.h5", "s.json"])  # no run file left
        for extra, fragment in [(["--rules", "allbut:1,2"], "allbut:1,2 in at most 4 heaps"),
                                (["--rules", "nim", "--checkpoint", self.path("ck2")], "without --checkpoint"),
                                (["--rules", "nim", "--kernel", "brute"], "--stream needs")]:
            code, out, err = run("solve", *extra, "--heaps", "4", "--max-heap", "20", "--stream",
                                 "-o", self.path("x.h5"))
            self.assert_error(code, err, 2, fragment)
            self.assertFalse(os.path.exists(self.path("x.h5")))

    def test_too_big_for_memory_exits_1(self):
        """A universe too large exits 1 however large: for this machine's memory, or for any's.
        The memory is checked before the solve's order of blocks is built: 5 heaps of 10000 have
        167 billion blocks, which would never be built."""
        for args, fragment in [(["--heaps", "6", "--max-heap", "1000"], "of memory, but only"),
                               (["--heaps", "5", "--max-heap", "10000"], "of memory, but only"),
                               (["--heaps", "40", "--max-heap", "1000"], "more than 2^64 positions"),
                               (["--heaps", "64", "--max-heap", "1000000"], "more than 2^64 positions"),
                               (["--max-total", "500"], "they hold at most 128 tokens in all"),
                               (["--heaps", "65", "--max-heap", "2"], "a box holds at most 64 heaps"),
                               (["--heaps", "2", "--max-heap", "1000001"], "heaps of at most 1000000")]:
            code, out, err = run("solve", "--rules", "nim", *args, "-o", self.path("x.h5"))
            self.assert_error(code, err, 1, fragment)

    def test_ctrl_c_leaves_no_table(self):
        self.interrupt_once(["solve", "--rules", "nim", "--heaps", "6", "--max-heap", "60", "--progress",
                             "-o", self.path("big.h5")], b"solving")

    def test_sprague_grundy_method_and_no_remoteness(self):
        t = self.solve("--rules", "nim", "--heaps", "3", "--max-heap", "7", "--method", "sprague-grundy")
        code, out, err = run("info", t, "--json")
        info = json.loads(out)
        self.assertEqual(info["method"], "sprague-grundy")
        self.assertNotIn("remoteness", info["quantities"])
        code, out, err = run("query", t, "3 4 5", "--json")
        self.assertEqual(json.loads(out)["remoteness"], None)


class Outputs(Workdir):
    """An output that is not a regular file (a device, a pipe, a folder) is refused before any
    work, even with --force, and left as it was; so is --stats naming the table itself."""

    def test_outputs_that_are_not_files_are_refused(self):
        fifo = self.path("pipe")
        os.mkfifo(fifo)
        targets = [(fifo, "is a pipe"), (self.dir, "is a folder")]
        if os.geteuid() == 0:  # a device node of our own, never /dev/null itself
            device = self.path("null")
            os.mknod(device, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
            targets.append((device, "is a device"))
        for target, message in targets:
            for args in (["solve", "--rules", "nim", "--heaps", "2", "--max-heap", "5", "-o", target],
                         ["sequence", "--rules", "nim", "--max-heap", "5", "--output", target],
                         ["quotient", "--rules", "nim", "--max-heap", "3", "--output", target]):
                mode = os.stat(target).st_mode
                code, out, err = run(*args, "--force")
                self.assert_error(code, err, 1, message)
                self.assertEqual(os.stat(target).st_mode, mode, args)
        code, out, err = run("solve", "--rules", "nim", "--heaps", "2", "--max-heap", "5",
                             "-o", self.path("same.h5"), "--stats", os.path.join(self.dir, ".", "same.h5"))
        self.assert_error(code, err, 1, "--stats and -o name the same file")
        self.assertFalse(os.path.exists(self.path("same.h5")))


class SmallDisk(Workdir):
    """A tmpfs of DISK_SIZE at self.disk for each test: a disk that fills (root only, else skipped)."""

    DISK_SIZE = "64k"

    def setUp(self):
        super().setUp()
        self.disk = self.path("disk")
        os.mkdir(self.disk)
        if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={self.DISK_SIZE}", "tmpfs",
                                                self.disk], capture_output=True).returncode != 0:
            self.skipTest("needs root to mount a small tmpfs")

    def tearDown(self):
        subprocess.run(["umount", self.disk], capture_output=True)
        super().tearDown()


class FullDisk(SmallDisk):
    """A write that meets a full disk fails cleanly and leaves nothing behind."""

    def test_full_disk(self):
        for c in ["none", "deflate", "zstd"]:  # each table far larger than the disk
            code, out, err = run("solve", "--rules", "nim", "--heaps", "4", "--max-heap", "90", "-c", c, "-o",
                                 os.path.join(self.disk, "t.h5"))
            self.assert_error(code, err, 1, "No space left on device")
            self.assertEqual(err.count("\n"), 1, err)
            self.assertEqual(os.listdir(self.disk), [])
        # A streamed solve's run files fill the disk: the same clear error, nothing left.
        code, out, err = run("solve", "--rules", "nim", "--heaps", "4", "--max-heap", "90", "--stream", "-o",
                             os.path.join(self.disk, "t.h5"))
        self.assert_error(code, err, 1, "No space left on device")
        self.assertEqual(err.count("\n"), 1, err)
        self.assertEqual(os.listdir(self.disk), [])
        # A checkpoint on a full disk: the same clear error, and no table.
        code, out, err = run("solve", "--rules", "nim", "--heaps", "4", "--max-heap", "60", "--checkpoint",
                             os.path.join(self.disk, "ck"), "--checkpoint-every", "0", "-o", self.path("t.h5"))
        self.assert_error(code, err, 1, "No space left on device")
        self.assertEqual(err.count("\n"), 1, err)
        self.assertFalse(os.path.exists(self.path("t.h5")))


class Checkpoints(Workdir):
    """`solve --checkpoint DIR`: killed, interrupted or resumed, the table is the same as a
    solve never stopped; another solve's checkpoint, or a damaged one, is refused."""

    # Brute force on one thread, every level written as it finishes: a few seconds.
    ARGS = ["--rules", "nim", "--misere", "--heaps", "6", "--max-heap", "40", "--kernel", "brute",
            "--threads", "1", "--checkpoint-every", "0"]

    def datasets(self, path):
        import h5py
        import numpy as np
        with h5py.File(path, "r") as f:
            return {k: np.array(f[k]) for k in ("value", "remoteness")}

    def assert_same_table(self, a, b):
        import numpy as np
        da, db = self.datasets(a), self.datasets(b)
        for k in da:
            self.assertTrue(np.array_equal(da[k], db[k]), k)

    def levels_files(self, ck):
        return [f for f in os.listdir(ck) if f.startswith("levels-") and f.endswith(".zst")] \
            if os.path.isdir(ck) else []

    def start_and_stop(self, ck, out, sig, files=20):
        """Starts the solve and sends `sig` once `files` files of levels are written."""
        p = subprocess.Popen([NIMTB, "solve", *self.ARGS, "--checkpoint", ck, "-o", out, "--quiet"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        while len(self.levels_files(ck)) < files:
            if p.poll() is not None:
                self.fail("the solve ended before it was stopped: " + p.communicate()[1])
            time.sleep(0.01)
        p.send_signal(sig)
        out_text, err = p.communicate(timeout=120)
        return p.returncode, err

    def test_killed_then_resumed_writes_the_same_table(self):
        plain = self.solve(*self.ARGS[:7], name="plain.h5")  # the default kernel: lines
        ck, out = self.path("ck"), self.path("t.h5")
        code, err = self.start_and_stop(ck, out, signal.SIGKILL)
        self.assertEqual(code, -signal.SIGKILL)
        self.assertFalse(os.path.exists(out))
        saved = len(self.levels_files(ck))
        stats = self.path("stats.json")
        code, text, err = run("solve", *self.ARGS, "--checkpoint", ck, "-o", out, "--quiet", "--stats", stats)
        self.assertEqual(code, 0, err)
        self.assertRegex(err, r"resuming from the checkpoint in .*ck \((\d+) levels saved\)")
        restored = int(re.search(r"\((\d+) levels", err).group(1))
        self.assertGreaterEqual(restored, saved)
        self.assert_same_table(plain, out)
        # --stats: every level, those restored marked, the positions adding up to the table's.
        with open(stats) as f:
            levels = json.load(f)["levels"]
        self.assertEqual([x["level"] for x in levels], list(range(len(levels))))
        self.assertEqual([x["restored"] for x in levels], [True] * restored + [False] * (len(levels) - restored))
        info = json.loads(run("info", out, "--json")[1])
        self.assertEqual(sum(x["positions"] for x in levels), info["positions"])
        self.assertTrue(all(x["kernel"] == "brute" and x["lookups"] > 0 for x in levels[restored:] if x["positions"] > 1))
        self.assertFalse(os.path.exists(ck), "the checkpoint is removed once the table is written")

    def test_interrupted_keeps_its_levels_and_resumes(self):
        ck, out = self.path("ck"), self.path("t.h5")
        code, err = self.start_and_stop(ck, out, signal.SIGINT, files=5)
        self.assertEqual(code, 1, err)
        self.assertIn("interrupted", err)
        self.assertFalse(os.path.exists(out))
        self.assertTrue(self.levels_files(ck))
        code, text, err = run("solve", *self.ARGS, "--checkpoint", ck, "-o", out, "--quiet")
        self.assertEqual(code, 0, err)
        self.assertIn("resuming", err)
        self.assert_same_table(self.solve(*self.ARGS[:7], name="plain.h5"), out)

    def test_another_solves_or_a_damaged_checkpoint_is_refused(self):
        ck, out = self.path("ck"), self.path("t.h5")
        code, err = self.start_and_stop(ck, out, signal.SIGKILL, files=3)
        for args, fragment in [
            (["--rules", "nim", "--heaps", "6", "--max-heap", "40", "--kernel", "brute"],
             "holds the checkpoint of another solve (nim misere, at most 6 heaps of at most 40 tokens"),
            (["--rules", "nim", "--misere", "--heaps", "6", "--max-heap", "41", "--kernel", "brute"],
             "holds the checkpoint of another solve"),
            (["--rules", "nim", "--misere", "--heaps", "6", "--max-heap", "40", "--no-remoteness",
              "--kernel", "brute"], "no remoteness"),
            (["--rules", "nim", "--misere", "--heaps", "6", "--max-heap", "40", "--kernel", "lines"],
             "saved under another plan of the solver (kernel brute"),
        ]:
            code, text, err = run("solve", *args, "--checkpoint", ck, "-o", out, "--quiet")
            self.assert_error(code, err, 1, fragment)
            self.assertEqual(err.count("\n"), 1, err)
            self.assertFalse(os.path.exists(out))
        code, text, err = run("solve", "--rules", "nim", "--heaps", "2", "--max-heap", "5", "--method",
                              "sprague-grundy", "--checkpoint", ck, "-o", out)
        self.assert_error(code, err, 2, "--checkpoint goes with the brute method")
        code, text, err = run("solve", "--rules", "nim", "--heaps", "2", "--max-heap", "5", "--method",
                              "sprague-grundy", "--stats", self.path("s.json"), "-o", out)
        self.assert_error(code, err, 2, "--stats goes with the brute method")
        # One byte changed in a file of levels: its checksum fails, nothing is used.
        first = sorted(self.levels_files(ck))[0]
        with open(os.path.join(ck, first), "r+b") as f:
            data = bytearray(f.read())
            data[len(data) // 2] ^= 0x10
            f.seek(0)
            f.write(data)
        code, text, err = run("solve", *self.ARGS, "--checkpoint", ck, "-o", out, "--quiet")
        self.assert_error(code, err, 1, f"{first} is damaged")
        self.assertFalse(os.path.exists(out))
        # Levels without their manifest; a manifest of something else.
        os.remove(os.path.join(ck, "manifest.json"))
        code, text, err = run("solve", *self.ARGS, "--checkpoint", ck, "-o", out, "--quiet")
        self.assert_error(code, err, 1, "no manifest.json: it is damaged")
        with open(os.path.join(ck, "manifest.json"), "w") as f:
            f.write('{"format": "something else"}')
        code, text, err = run("solve", *self.ARGS, "--checkpoint", ck, "-o", out, "--quiet")
        self.assert_error(code, err, 1, "is not a nimtb checkpoint")
        # A manifest whose fields have other types (found by tests/fuzz/fuzz_checkpoint):
        # the message shows them as they are, cut when long.
        with open(os.path.join(ck, "manifest.json"), "w") as f:
            json.dump({"format": "nimtb-checkpoint", "version": 1, "rules": 5, "processes": "x" * 1000,
                       "remoteness": [1]}, f)
        code, text, err = run("solve", *self.ARGS, "--checkpoint", ck, "-o", out, "--quiet")
        self.assert_error(code, err, 1, 'holds the checkpoint of another solve (5 ?, ?, ?, xxxxxxxxxx')
        self.assertEqual(err.count("\n"), 1, err)
        self.assertLess(len(err), 400)
        with open(self.path("file"), "w") as f:
            f.write("x")
        code, text, err = run("solve", *self.ARGS, "--checkpoint", self.path("file"), "-o", out, "--quiet")
        self.assert_error(code, err, 1, "it is not a folder")


class Query(Workdir):
    def setUp(self):
        super().setUp()
        self.t = self.solve("--rules", "nim", "--heaps", "3", "--max-heap", "7")

    def test_answer_with_every_move_best_first(self):
        code, out, err = run("query", self.t, "3 4 5", "--json")
        self.assertEqual(code, 0, err)
        q = json.loads(out)
        self.assertEqual((q["rank"], q["value"], q["remoteness"], q["to_move_wins"]), (48, 2, 11, True))
        self.assertEqual(len(q["moves"]), 12)
        best = q["moves"][0]
        self.assertEqual((best["heap"], best["take"], best["result"], best["wins"]), (1, 2, [1, 4, 5], True))
        code, out, err = run("query", self.t, "5,3,4")
        self.assertIn("wins (N-position)", out)
        self.assertIn("remoteness  11", out)

    def test_line(self):
        code, out, err = run("query", self.t, "3 4 5", "--line", "--json")
        line = json.loads(out)["line"]
        self.assertEqual(len(line), 11)
        self.assertEqual(line[-1]["result"], [0, 0, 0])

    def test_line_names_heaps_as_shown(self):
        # An empty heap in the position: the text names heaps by size, never by a hidden slot.
        code, out, err = run("query", self.t, "0 3 4", "--line")
        self.assertEqual(code, 0, err)
        self.assertIn("position    3 4\n", out)
        self.assertIn("take 1 from the 4 ", out)
        self.assertIn("1. first   take 1 from the 4 -> 3 3", out)
        self.assertNotIn("heap 3", out)
        code, out, err = run("query", self.t, "0 3 4", "--line", "--json")
        q = json.loads(out)
        self.assertEqual(q["position"], [0, 3, 4])
        best = q["moves"][0]
        self.assertEqual((best["move"], best["heap"], best["heap_size"], best["result"]),
                         ("take 1 from the 4", 3, 4, [0, 3, 3]))
        for m in q["moves"]:
            self.assertEqual(q["position"][m["heap"] - 1], m["heap_size"])  # "heap" indexes "position"
        self.assertEqual(q["line"][0]["move"], "take 1 from the 4")

    def test_batch_from_stdin(self):
        code, out, err = run("query", self.t, "-", "--json", stdin="1 1 1\n3 4 5\n0\n1 2 3\n")
        self.assertEqual(code, 0, err)
        answers = [json.loads(l) for l in out.splitlines()]
        self.assertEqual([a["value"] for a in answers], [1, 2, 0, 0])
        code, out, err = run("query", self.t, "-", stdin="1 1 1\n9 9\n1 2 3\n")
        self.assertEqual(code, 2)
        self.assertIn("line 2", err)
        self.assertEqual(out.count("position    "), 2)

    def test_refusals(self):
        for pos, fragment in [("3 8", "heap 2 has 8 tokens"), ("1 2 3 4", "at most 3 heaps of at most 7 tokens"),
                              ("3 -4", "heap 2 ('-4') is negative"), ("3 x", "heap 2 ('x') is not a number")]:
            code, out, err = run("query", self.t, pos)
            self.assert_error(code, err, 2, fragment)
            self.assertEqual(out, "")

    def test_a_folder_of_tables_answers_each_position_from_the_smallest_that_holds_it(self):
        """query --tables DIR --rules R [--misere]: of a folder of mixed tables (and a file that
        is no table), each position is answered by the smallest table of its game that holds it,
        as `query TABLE` answers; a position none holds is refused, naming the tables of the game
        and the solve that would hold it."""
        tb = self.path("tb")
        os.makedirs(tb)
        for name, args in [("k12.h5", ["--rules", "kayles", "--max-total", "12"]),
                           ("k20.h5", ["--rules", "octal:0.77", "--max-total", "20"]),
                           ("km16.h5", ["--rules", "kayles", "--misere", "--max-total", "16"]),
                           ("nim.h5", ["--rules", "nim", "--heaps", "3", "--max-heap", "7"])]:
            self.solve(*args, name=os.path.join("tb", name))
        with open(os.path.join(tb, "junk.h5"), "w") as f:
            f.write("not a table")
        for words, table in [(["--rules", "kayles", "5 6"], "k12.h5"),
                             (["--rules", "kayles", "12 3"], "k20.h5"),
                             (["--rules", "kayles", "--misere", "5 6"], "km16.h5"),
                             (["--rules", "nim", "7 7 7"], "nim.h5")]:
            code, out, err = run("query", "--tables", tb, *words, "--json")
            self.assertEqual(code, 0, err)
            got = json.loads(out)
            self.assertEqual(got.pop("table"), os.path.join(tb, table))
            code, want, err = run("query", os.path.join(tb, table), words[-1], "--json")
            self.assertEqual(got, json.loads(want), words)
        code, out, err = run("query", "--tables", tb, "--rules", "kayles", "-",
                             stdin="3 4\n12 12\n1 1\n")
        self.assertEqual(code, 2)
        self.assertEqual([l for l in out.splitlines() if l.startswith("from")],
                         [f"from        {tb}/k12.h5"] * 2)
        self.assertIn(f"line 2: no table of octal:0.77 normal in {tb} holds 12 12: k12.h5 holds at "
                      "most 12 tokens in all; k20.h5 holds at most 20 tokens in all (1 file passed over "
                      f"as no table nimtb can read: {tb}/junk.h5: ", err)
        self.assertIn("make one with: nimtb solve --rules octal:0.77 --max-total 24", err)
        code, out, err = run("query", "--tables", tb, "--rules", "dawsons-kayles", "5 6")
        self.assert_error(code, err, 2, f"no table in {tb} is of octal:0.07 normal (4 tables of "
                                        "other games) (1 file passed over")
        code, out, err = run("query", "--tables", self.path("none"), "--rules", "kayles", "5 6")
        self.assert_error(code, err, 1, "no such folder")
        code, out, err = run("query", "--tables", tb, "5 6")
        self.assert_error(code, err, 2, "--tables needs --rules")

    def test_messages_say_what_was_meant(self):
        """A negative heap, a forgotten table, a doubled comma, a sequence or quotient file given as
        a table: each refused with what is wrong and what to write instead."""
        for words, code_, fragment in [
                ([self.t, "-1 2"], 2, "heap 1 ('-1') is negative"),
                ([self.t, "-1", "2"], 2, "heap 1 ('-1') is negative"),
                (["3 4 5"], 2, "missing TABLE: '3 4 5' is a position; give a table first"),
                (["3", "4", "5"], 2, "missing TABLE: '3 4 5' is a position"),
                ([self.t, "3,,4"], 2, "heap 2 is empty between commas"),
                ([self.t, "1 2 3 4"], 2, "the position has 4 non-empty heaps")]:
            code, out, err = run("query", *words, cwd=self.dir)
            self.assert_error(code, err, code_, fragment)
        code, out, err = run("quotient", "--rules", "octal:0.77", "--max-heap", "8", "-o", self.path("q.json"))
        self.assertEqual(code, 0, err)
        code, out, err = run("sequence", "--rules", "grundy", "--max-heap", "50", "-o", self.path("g.h5"))
        self.assertEqual(code, 0, err)
        code, out, err = run("query", self.path("q.json"), "3 4")
        self.assert_error(code, err, 1, f"it is a misère quotient file: nimtb query --misere --quotient "
                                        f"{self.path('q.json')} POSITION")
        code, out, err = run("query", self.path("g.h5"), "3 4")
        self.assert_error(code, err, 1, f"it is a sequence file: nimtb query --sequence {self.path('g.h5')}")

    def test_missing_foreign_and_damaged_files(self):
        code, out, err = run("query", self.path("none.h5"), "1")
        self.assert_error(code, err, 1, "no such file")
        with open(self.path("foreign.h5"), "w") as f:
            f.write("hello")
        code, out, err = run("info", self.path("foreign.h5"))
        self.assert_error(code, err, 1, "not an HDF5 file")
        import h5py
        with h5py.File(self.path("other.h5"), "w") as f:
            f["x"] = [1, 2, 3]
        code, out, err = run("verify", self.path("other.h5"))
        self.assert_error(code, err, 1, "not a nimtb table")
        with open(self.t, "r+b") as f:
            f.truncate(os.path.getsize(self.t) // 2)
        code, out, err = run("query", self.t, "3 4 5")
        self.assert_error(code, err, 1, self.t)


    def test_wythoffs_take_from_both_is_shown_beside_the_take_that_leaves_the_same(self):
        """At 12 20, taking 8 from both leaves 4 12, as taking 16 from the 20 does: a teacher of
        Wythoff's game wants both moves shown, and they are (docs/MOVES.md)."""
        t = self.solve("--rules", "wythoff", "--heaps", "2", "--max-heap", "25", name="w.h5")
        code, out, err = run("query", t, "12 20", "--json")
        self.assertEqual(code, 0, err)
        moves = {m["move"]: m for m in json.loads(out)["moves"]}
        self.assertEqual(moves["take 8 from the 12 and from the 20"]["result"], [4, 12])
        self.assertEqual(moves["take 16 from the 20"]["result"], [12, 4])
        code, out, err = run("query", t, "3 3", "--json")
        self.assertEqual([m["move"] for m in json.loads(out)["moves"]].count("take 1 from the 3"), 1)

    def test_a_long_query_shows_its_progress_on_a_terminal(self):
        """query --rules of a big heap of a rule with no period proven computes the values up to
        it: on a terminal a progress bar shows them come, as sequence's does; piped, nothing."""
        import pty
        leader, follower = pty.openpty()
        p = subprocess.Popen([NIMTB, "query", "--rules", "grundy", "300000 1", "--json"],
                             stdout=subprocess.PIPE, stderr=follower)
        os.close(follower)
        seen = b""
        while True:
            try:
                piece = os.read(leader, 4096)
            except OSError:  # the terminal's other end closed
                break
            if not piece:
                break
            seen += piece
        out, _ = p.communicate(timeout=120)
        os.close(leader)
        self.assertEqual(p.returncode, 0)
        self.assertIn(b"values of one heap [", seen)
        self.assertEqual(json.loads(out)["heaps"], [300000, 1])
        code, out, err = run("query", "--rules", "grundy", "300000 1", "--json")
        self.assertEqual((code, err), (0, ""))


class Formats(Workdir):
    def test_h5py_reads_the_worked_examples(self):
        cases = [("nim", [], 7, 48, 2, 11), ("nim", [], 7, 3, 1, 3), ("nim", ["--misere"], 7, 48, 2, 10),
                 ("nim", ["--misere"], 7, 3, 0, 3), ("nim", ["--misere"], 7, 0, 1, 0),
                 ("subtract:1,3,4", [], 10, 89, 0, 8), ("subtract:1,3,4", ["--misere"], 10, 89, 1, 8)]
        import h5py
        for i, (rule, extra, h, rank, value, remoteness) in enumerate(cases):
            t = self.solve("--rules", rule, *extra, "--heaps", "3", "--max-heap", str(h), name=f"w{i}.h5")
            with h5py.File(t, "r") as f:
                self.assertEqual(text(f.attrs["format"]), "nimtb-table")
                self.assertEqual(f.attrs["format_version"], 2)
                self.assertEqual(text(f.attrs["index"]), "colex-multiset-v1")
                self.assertEqual(f.attrs["positions"], len(f["value"]))
                self.assertTrue(f["value"].fletcher32)
                self.assertEqual((entry(f["value"], rank), entry(f["remoteness"], rank)), (value, remoteness), rule)
                # Checksummed metadata (HDF5 1.10's format) and no string in the global heap.
                self.assertEqual(f.id.get_create_plist().get_version()[0], 3)
                for attrs in (f.attrs, f["value"].attrs, f["remoteness"].attrs):
                    for name in attrs:
                        dtype = attrs.get_id(name).dtype
                        self.assertNotEqual(dtype.kind, "O", f"{name} is a variable-length string")

    def test_the_format_specs_python_example(self):
        """docs/FORMAT.md is enough to read a table: its script answers as nimtb query does."""
        docs = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "FORMAT.md")
        with open(docs) as f:
            text = f.read()
        script = text.split("```python\n", 1)[1].split("```", 1)[0]
        with open(self.path("read_table.py"), "w") as f:
            f.write(script)
        cases = [(["--rules", "nim", "--heaps", "3", "--max-heap", "7"], ["3 4 5", "5,3,4", "0 1 1 1", "0"]),
                 (["--rules", "subtract:1,3,4", "--misere", "--heaps", "3", "--max-heap", "10"], ["2 2 7", "10 9"]),
                 (["--rules", "allbut:2", "--heaps", "4", "--max-heap", "12", "--no-remoteness"], ["12 3 3 1"]),
                 (["--rules", "nim", "--max-total", "10"], ["2 5", "10", "1 1 1 1 1 1 1 1 1 1", "0"]),
                 (["--rules", "octal:0.77", "--misere", "--max-total", "20"], ["7 6 3", "20", "1 1 2"]),
                 (["--rules", "subtract:1-3", "--max-total", "20", "--heaps", "4"], ["7 6 3", "20 0 0"])]
        for n, (args, positions) in enumerate(cases):
            t = self.solve(*args, name=f"f{n}.h5")
            for position in positions:
                p = subprocess.run(["/usr/bin/python3", self.path("read_table.py"), t, position],
                                   capture_output=True, text=True)
                self.assertEqual(p.returncode, 0, p.stderr)
                code, out, err = run("query", t, position, "--json")
                q = json.loads(out)
                self.assertIn(f"rank {q['rank']}, value {q['value']}, remoteness {q['remoteness']}:", p.stdout)

    def test_h5dump_reads_a_table(self):
        """h5dump reads both versions; version 1 stores the entries as they are, version 2 names its transform."""
        t = self.solve("--rules", "nim", "--heaps", "3", "--max-heap", "7", "--format-version", "1", name="v1.h5")
        p = subprocess.run(["h5dump", "-d", "/value", "-s", "48", "-c", "1", t], capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("(48): 2", p.stdout)
        t = self.solve("--rules", "nim", "--heaps", "3", "--max-heap", "7", name="v2.h5")
        p = subprocess.run(["h5dump", "-d", "/value", t], capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn('"xor-previous"', p.stdout)

    def test_every_compression(self):
        import h5py
        for h in ["7", "30"]:
            stored = {}
            for c in ["deflate", "zstd", "lz4", "none"]:
                t = self.solve("--rules", "nim", "--misere", "--heaps", "3", "--max-heap", h, "-c", c,
                               name=c + h + ".h5")
                code, out, err = run("info", t, "--json")
                self.assertEqual(json.loads(out)["compression"], c)
                code, out, err = run("query", t, "1 1 1", "--json")
                self.assertEqual(json.loads(out)["value"], 0)
                with h5py.File(t, "r") as f:  # through Debian's plug-ins
                    self.assertEqual(entry(f["value"], 3), 0)
                    stored[c] = [f[d][:].tolist() for d in ("value", "remoteness")]
            # Every chunk, as HDF5's own plug-ins decode what nimtb compressed.
            for c in stored:
                self.assertEqual(stored[c], stored["none"], c)


class Dump(Workdir):
    def test_p_positions_of_small_nim(self):
        t = self.solve("--rules", "nim", "--heaps", "3", "--max-heap", "7")
        code, out, err = run("dump", t, "--p-only", "--max-total", "6", "--csv")
        self.assertEqual(code, 0, err)
        rows = out.splitlines()
        self.assertEqual(rows[0], "position,value,remoteness,winning_move")
        self.assertEqual([r.split(",")[0] for r in rows[1:]], ["(empty)", "1 1", "2 2", "1 2 3", "3 3"])
        code, out, err = run("dump", t, "--max-total", "2")
        self.assertIn("take 1 from the 1 -> (empty)", out)


    def test_count_agrees_with_an_independent_count(self):
        """dump --count against P-positions found here by plain recursion over every ordered
        tuple, in a box and under a total (Kayles splits heaps)."""
        import functools

        def take_moves(amounts):
            def moves(pos):
                for i, h in enumerate(pos):
                    for s in amounts:
                        if s <= h:
                            yield pos[:i] + (h - s,) + pos[i + 1:]
            return moves

        def kayles_moves(pos):
            for i, h in enumerate(pos):
                rest = pos[:i] + pos[i + 1:]
                for s in (1, 2):
                    for x in range(0, h - s + 1):
                        yield rest + (x, h - s - x)

        def tuples(k, top, budget):  # ordered k-tuples of sizes <= top with sum <= budget
            if k == 0:
                yield ()
                return
            for x in range(min(top, budget) + 1):
                for rest in tuples(k - 1, top, budget - x):
                    yield (x,) + rest

        cases = [
            (["--rules", "subtract:1,3,4", "--misere", "--heaps", "3", "--max-heap", "9"], take_moves((1, 3, 4)),
             True, 3, 9, 27),
            (["--rules", "nim", "--heaps", "4", "--max-heap", "5"], take_moves(range(1, 6)), False, 4, 5, 20),
            # Splits raise the number of heaps: at most 9 tokens, so at most 9 heaps (rows).
            (["--rules", "octal:0.77", "--misere", "--max-total", "9"], kayles_moves, True, 9, 9, 9),
        ]
        for args, moves, misere, k, top, budget in cases:
            @functools.lru_cache(maxsize=None)
            def lost(pos):  # pos: sorted tuple without empty heaps
                children = [tuple(sorted(x for x in c if x)) for c in moves(pos)]
                if not children:
                    return not misere  # no move: normal play loses, misere wins
                return not any(lost(c) for c in children)

            @functools.lru_cache(maxsize=None)
            def remoteness(pos):  # Steinhaus: the winner hurries, the loser holds out
                children = [tuple(sorted(x for x in c if x)) for c in moves(pos)]
                if not children:
                    return 0
                if lost(pos):
                    return 1 + max(remoteness(c) for c in children)
                return 1 + min(remoteness(c) for c in children if lost(c))

            by_total, by_largest, by_remoteness = {}, {}, {}
            for t in tuples(k, top, budget):
                pos = tuple(sorted(x for x in t if x))
                p = lost(pos)
                for table, key in ((by_total, sum(t)), (by_largest, max(t)), (by_remoteness, remoteness(pos))):
                    row = table.setdefault(key, [0, 0])
                    row[0] += 1
                    row[1] += p
            t = self.solve(*args, name="count.h5")
            code, out, err = run("dump", t, "--count", "--json")
            self.assertEqual(code, 0, err)
            census = json.loads(out)
            self.assertEqual(census["tuple_length"], k)
            for name, key, expected in (("by_total", "total", by_total), ("by_largest", "largest", by_largest),
                                        ("by_remoteness", "remoteness", by_remoteness)):
                got = {r[key]: [r["tuples"], r["p_tuples"]] for r in census[name] if r["positions"]}
                self.assertEqual(got, expected, args)
            self.assertEqual(census["all"]["tuples"], sum(r[0] for r in by_total.values()))
            # Multisets: the table's own positions.
            self.assertEqual(census["all"]["positions"], json.loads(run("info", t, "--json")[1])["positions"])
            code, text, err = run("dump", t, "--count")
            self.assertEqual(code, 0, err)
            self.assertIn("by largest heap", text)
            self.assertIn("by remoteness", text)
            self.assertRegex(text, r"\nall\s+{}\s+{}\s+{}\s+{}\n".format(
                census["all"]["positions"], census["all"]["p_positions"], census["all"]["tuples"],
                census["all"]["p_tuples"]))
            os.remove(t)
        code, out, err = run("dump", t.replace("count.h5", "missing.h5"), "--count")
        self.assert_error(code, err, 1, "missing.h5")
        t = self.solve("--rules", "nim", "--heaps", "2", "--max-heap", "3")
        code, out, err = run("dump", t, "--count", "--csv")
        self.assert_error(code, err, 2, "--count does not take --csv")


class Verify(Workdir):
    def test_theorems_hold(self):
        for rule, extra in [("nim", []), ("nim", ["--misere"]), ("subtract:1,3,4", []), ("allbut:2", [])]:
            t = self.solve("--rules", rule, *extra, "--heaps", "3", "--max-heap", "12", name="v.h5")
            code, out, err = run("verify", t, "--json")
            self.assertEqual(code, 0, out + err)
            report = json.loads(out)
            self.assertTrue(report["ok"])
            os.remove(t)

    def test_the_misere_quotient_is_checked_or_its_skip_explained(self):
        """verify checks a misère take-and-break table against the game's misère quotient when
        the quotient stays small (Kayles), and otherwise says it skipped the check and why
        (Dawson's Kayles past heap 32: candidates of over 1024 elements), in the text and in
        the JSON, rather than spending seconds to report nothing."""
        kayles = self.solve("--rules", "kayles", "--misere", "--max-total", "30", name="k.h5")
        check = lambda report: [c for c in report["checks"] if c["name"] == "misere-quotient"][0]
        code, out, err = run("verify", kayles, "--json")
        self.assertEqual(code, 0, err)
        self.assertEqual((check(json.loads(out))["passed"], check(json.loads(out))["skipped"]), (True, None))
        dawson = self.solve("--rules", "dawsons-kayles", "--misere", "--max-total", "40", name="d.h5")
        code, out, err = run("verify", dawson, "--json")
        self.assertEqual(code, 0, err)
        q = check(json.loads(out))
        self.assertIsNone(q["passed"])
        self.assertIn("a candidate for heap 33 has more than 1024 elements", q["skipped"])
        code, out, err = run("verify", dawson)
        self.assertIn("misere-quotient        skipped", out)
        self.assertIn("verify computes (1024 elements at most)", " ".join(out.split()))

    def test_misere_finding_and_periods(self):
        t = self.solve("--rules", "subtract:1,3,4", "--misere", "--heaps", "3", "--max-heap", "20")
        code, out, err = run("verify", t, "--json")
        self.assertEqual(code, 0, err)
        report = json.loads(out)
        finding = [c for c in report["checks"] if c["name"] == "misere-rule-on-values"][0]
        self.assertTrue(finding["applies"])
        self.assertEqual(finding["basis"], "observation")
        code, out, err = run("verify", self.solve("--rules", "subtract:1,3,4", "--heaps", "1", "--max-heap", "30",
                                                  name="s.h5"), "--json")
        single = json.loads(out)["single_heaps"]
        self.assertEqual(single["values"][:8], [0, 1, 0, 1, 2, 3, 2, 0])
        period = single["period"]
        self.assertEqual((period["basis"], period["period"], period["preperiod"]), ("proof", 7, 0))
        # Too short a table to prove subtract:2,5,7's period 22: nothing claimed, and the text says why.
        t = self.solve("--rules", "subtract:2,5,7", "--heaps", "1", "--max-heap", "20", name="s257.h5")
        code, out, err = run("verify", t, "--json")
        period = json.loads(out)["single_heaps"]["period"]
        self.assertEqual(period["basis"], "none")
        self.assertNotIn("period", period)
        code, out, err = run("verify", t)
        self.assertIn("no period proven for H <= 20", out)

    def test_a_wrong_table_is_a_mismatch(self):
        import h5py
        # Version 1 stores entries as they are, so one entry can be changed alone.
        t = self.solve("--rules", "nim", "--heaps", "3", "--max-heap", "7", "-c", "none", "--format-version", "1")
        with h5py.File(t, "r+") as f:
            v = f["value"][:]
            v[48] = 3
            f["value"][:] = v
        code, out, err = run("verify", t)
        self.assertEqual(code, 1)
        self.assertIn("FAILS", out)
        self.assertIn("3 4 5", out)


class Families(Workdir):
    """Every rule family from the command line: solve, info, query, dump, verify, play."""
    CASES = [
        # rule, universe options, a position, a phrase its moves use, checks that must apply (normal)
        ("octal:0.77", ["--max-total", "14"], "5 4", "leaving", ["sprague-grundy"]),
        ("octal:0.07", ["--max-total", "14"], "9", "leaving", ["sprague-grundy"]),
        ("octal:0.137", ["--max-total", "14"], "9", "leaving", ["sprague-grundy"]),
        ("octal:4.7", ["--max-total", "12"], "6 3", "split", ["sprague-grundy"]),
        ("grundy", ["--max-total", "15"], "7 5", "split 7 into", ["sprague-grundy"]),
        ("lasker", ["--max-total", "12"], "6 4", "split", ["sprague-grundy"]),
        ("wythoff", ["--heaps", "2", "--max-heap", "20"], "6 9", "and from the", ["wythoff"]),
        ("moore:2", ["--heaps", "3", "--max-heap", "6"], "3 5 6", "take", ["moore"]),
        ("octal:0.12", ["--heaps", "3", "--max-heap", "8"], "3 4", "take", ["sprague-grundy"]),
    ]

    def test_move_shape_says_what_a_move_can_do(self):
        """info's move_shape (which the page reads to draw pins or tokens) agrees with the
        moves the table lists: none of several heaps where one_heap, no more parts than
        max_parts (and that many somewhere), no take of nothing where removes_tokens."""
        for rule, universe, shape in [
                ("kayles", ["--max-total", "10"], (True, 2, True)),
                ("octal:0.07", ["--max-total", "10"], (True, 2, True)),
                ("grundy", ["--max-total", "10"], (True, 2, False)),
                ("hex:0.F", ["--max-total", "10"], (True, 3, True)),
                ("subtract:1,3,4", ["--heaps", "3", "--max-heap", "9"], (True, 1, True)),
                ("wythoff", ["--heaps", "2", "--max-heap", "9"], (False, 1, True))]:
            with self.subTest(rule=rule):
                t = self.solve("--rules", rule, *universe, name=rule.replace(":", "-") + ".h5")
                code, out, err = run("info", t, "--json")
                j = json.loads(out)["move_shape"]
                self.assertEqual((j["one_heap"], j["max_parts"], j["removes_tokens"]), shape)
                moves = []
                for n in range(1, 9):
                    code, out, err = run("query", t, f"{n} 1", "--json")
                    self.assertEqual(code, 0, err)
                    moves += json.loads(out)["moves"]
                one = [m for m in moves if m["heap"] is not None]
                self.assertEqual(len(one) == len(moves), shape[0])
                self.assertEqual(max(len(m["leaves"]) for m in one), shape[1])
                self.assertEqual(all(m["take"] > 0 for m in one), shape[2])

    def test_every_family_in_both_conventions(self):
        for rule, universe, position, phrase, theorems in self.CASES:
            for conv in ([], ["--misere"]):
                with self.subTest(rule=rule, conv=conv):
                    t = self.solve("--rules", rule, *conv, *universe, name="f.h5")
                    code, out, err = run("info", t, "--json")
                    info = json.loads(out)
                    self.assertEqual(info["rules"], rule)
                    self.assertEqual(info["index"], "colex-total-v1" if "--max-total" in universe
                                     else "colex-multiset-v1")
                    code, out, err = run("query", t, position, "--json", "--line")
                    self.assertEqual(code, 0, err)
                    q = json.loads(out)
                    self.assertTrue(q["moves"])
                    self.assertTrue(any(phrase in m["move"] for m in q["moves"]), q["moves"])
                    # Best first: a winning move first exactly when the mover wins.
                    self.assertEqual(q["moves"][0]["wins"], q["to_move_wins"])
                    self.assertEqual(len(q["line"]), q["remoteness"])
                    code, out, err = run("dump", t, "--p-only", "--max-total", "6", "--csv")
                    self.assertEqual(code, 0, err)
                    code, out, err = run("verify", t, "--json")
                    self.assertEqual(code, 0, out + err)
                    report = json.loads(out)
                    self.assertTrue(report["ok"])
                    applied = {c["name"] for c in report["checks"] if c["applies"]}
                    if not conv:
                        for name in theorems:
                            self.assertIn(name, applied)
                    if rule in ("wythoff", "moore:2"):
                        self.assertNotIn("sprague-grundy", applied)  # moves touch several heaps
                    # The perfect computer wins every game it can: 20 games from the position.
                    code, out, err = run("play", t, "--start", position, "--watch", "--level",
                                         "perfect,random", "--games", "20", "--seed", "3", cwd=self.dir)
                    self.assertEqual(code, 0, err)
                    winners = re.findall(r"winner (\d)", out)
                    self.assertEqual(len(winners), 20)
                    if q["to_move_wins"]:
                        self.assertEqual(set(winners), {"1"}, out)
                    os.remove(t)

    def test_a_person_types_the_heaps_they_leave(self):
        t = self.solve("--rules", "grundy", "--max-total", "12", name="g.h5")
        code, out, err = run("play", t, "--start", "7", "--opponent", "human",
                             stdin="3 4\n9\n2 1 4\nquit\n", cwd=self.dir)
        self.assertEqual(code, 0, err)
        self.assertIn("(the heaps you leave", out)
        self.assertIn("player 2 to move", out)  # '3 4' split the 7
        self.assertIn("not a move: no move leads from 3 4 to 9", out)
        self.assertIn("player 1 to move", out.split("not a move")[1])  # '2 1 4' split the 3

    def test_sequence(self):
        code, out, err = run("sequence", "--rules", "octal:0.77", "--max-heap", "200", "--json")
        self.assertEqual(code, 0, err)
        s = json.loads(out)
        self.assertEqual(s["values"][:8], [0, 1, 2, 3, 1, 4, 3, 2])
        self.assertEqual((s["period"]["basis"], s["period"]["period"], s["period"]["preperiod"]),
                         ("proof", 12, 71))
        code, out, err = run("sequence", "--rules", "grundy", "--max-heap", "30")
        self.assertEqual(code, 0, err)
        self.assertIn("sprague-grundy", out)
        code, out, err = run("sequence", "--rules", "wythoff", "--max-heap", "30")
        self.assert_error(code, err, 2, "touch several heaps")

    def test_a_table_of_the_first_release_reads_as_before(self):
        """A table written by nimtb 0.1 (committed under tests/data) answers exactly as a fresh one."""
        old = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data",
                           "nimtb-0.1-subtract-1_3_4-misere-k3-h10.h5")
        code, out, err = run("info", old, "--json")
        self.assertEqual(code, 0, err)
        self.assertEqual(json.loads(out)["index"], "colex-multiset-v1")
        code, out, err = run("query", old, "2 2 7", "--json")
        q = json.loads(out)
        self.assertEqual((q["rank"], q["value"], q["remoteness"]), (89, 1, 8))
        code, out, err = run("verify", old)
        self.assertEqual(code, 0, out)
        fresh = self.solve("--rules", "subtract:1,3,4", "--misere", "--heaps", "3", "--max-heap", "10")
        code, a, err = run("dump", old, "--csv")
        code, b, err = run("dump", fresh, "--csv")
        self.assertEqual(a, b)

    def test_every_stored_version_1_table_answers_as_version_2(self):
        """Format v1 files (16-bit remoteness, several chunks, zstd through Blosc, a total) read as fresh v2 tables."""
        data = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data")
        cases = [("nimtb-0.1-nim-misere-k2-h200.h5", ["--rules", "nim", "--misere", "--heaps", "2", "--max-heap", "200"],
                  ["200 199", "7 3"]),
                 ("nimtb-0.1-nim-normal-k3-h127.h5", ["--rules", "nim", "--heaps", "3", "--max-heap", "127"],
                  ["127 126 1", "100 64 36"]),
                 ("nimtb-0.1-octal-0.77-misere-n20-zstd.h5", ["--rules", "octal:0.77", "--misere", "--max-total", "20"],
                  ["7 6 3", "20"])]
        for name, args, positions in cases:
            with self.subTest(table=name):
                old = os.path.join(data, name)
                code, out, err = run("info", old, "--json")
                self.assertEqual(code, 0, err)
                self.assertEqual(json.loads(out)["format_version"], 1)
                fresh = self.solve(*args, name="fresh-" + name)
                code, out, err = run("info", fresh, "--json")
                self.assertEqual(json.loads(out)["format_version"], 2)
                for position in positions:
                    self.assertEqual(run("query", old, position, "--json")[1], run("query", fresh, position, "--json")[1])
                # Every position up to 40 tokens (dump probes each N-position's moves:
                # the whole 357,760 positions would take minutes under the sanitizers).
                code, a, err = run("dump", old, "--csv", "--max-total", "40")
                self.assertEqual(code, 0, err)
                self.assertEqual(a, run("dump", fresh, "--csv", "--max-total", "40")[1])

    def test_a_table_stored_big_endian_answers_as_stored_little_endian(self):
        """Datasets rewritten as big-endian 16-bit numbers (h5py, with their checksums) hold
        the same numbers: nimtb once decoded their bytes as its own and answered 512 for 2."""
        import h5py
        t = self.solve("--rules", "nim", "--heaps", "3", "--max-heap", "15", "-c", "none")
        expected = [run(*args)[:2] for args in (["query", t, "3 4 5"], ["dump", t, "--csv"])]
        with h5py.File(t, "r+") as f:
            for name in ("value", "remoteness"):
                data, attrs = f[name][()], dict(f[name].attrs)
                del f[name]
                f.create_dataset(name, data=data.astype(">u2"), chunks=True, fletcher32=True)
                f[name].attrs.update(attrs)
        self.assertEqual([run(*args)[:2] for args in (["query", t, "3 4 5"], ["dump", t, "--csv"])], expected)
        self.assertIn("value       2\n", expected[0][1])

    def test_a_later_table_labelled_version_1_is_refused(self):
        """Read as version 1, a version 2 table's transformed chunks would answer wrongly."""
        import h5py
        import numpy as np
        t = self.solve("--rules", "nim", "--misere", "--heaps", "3", "--max-heap", "20")
        with h5py.File(t, "r+") as f:
            f.attrs.modify("format_version", np.uint64(1))
        for args in (["info", t], ["query", t, "3 4 5"], ["verify", t]):
            code, out, err = run(*args)
            self.assert_error(code, err, 1, "names a transform, which a table of format version 1 "
                                            "cannot have")
            self.assertEqual(out, "")


class Quotients(Workdir):
    """Misère quotients from the command line: computed, resumed, analysed, compared, written
    as LaTeX, capped, and answering past the tables (apart from Families, so that ctest runs
    the two side by side)."""

    def test_quotient(self):
        """The misère quotient as a user asks for it, and every position of a solved misère table
        predicted by it (the product of its heaps' phi lies in the P-portion exactly for P-positions)."""
        code, out, err = run("quotient", "--rules", "nim", "--max-heap", "7", "--json")
        self.assertEqual(code, 0, err)
        q = json.loads(out)
        self.assertEqual((q["order"], q["orders"]), (10, [1, 2, 6, 6, 10, 10, 10, 10]))
        self.assertEqual([e["word"] for e in q["elements"] if e["p"]], ["a", "b^2"])
        code, out, err = run("quotient", "--rules", "octal:0.07", "--max-heap", "9")
        self.assertEqual(code, 0, err)
        self.assertIn("order        6\n", out)
        for rules, universe, bound in (("octal:0.77", ("-N", "16"), "16"),
                                       ("octal:0.07", ("-N", "18"), "18"),
                                       ("subtract:1,3,4", ("-k", "3", "-H", "9"), "9")):
            with tempfile.TemporaryDirectory() as d:
                table = os.path.join(d, "t.h5")
                out_file = os.path.join(d, "q.json")
                code, _, err = run("solve", "--rules", rules, "--misere", *universe, "-o", table,
                                   "--quiet")
                self.assertEqual(code, 0, err)
                code, _, err = run("quotient", "--rules", rules, "--max-heap", bound, "--output", out_file)
                self.assertEqual(code, 0, err)
                with open(out_file) as f:
                    q = json.load(f)
                code, _, err = run("quotient", "--rules", rules, "--max-heap", bound, "--output", out_file)
                self.assert_error(code, err, 1, "already exists")
                code, out, err = run("dump", table, "--csv")
                self.assertEqual(code, 0, err)
                checked = 0
                for heaps, p in dumped_outcomes(out):
                    self.assertEqual(quotient_says_p(q, heaps), p, f"{rules} {heaps}")
                    checked += 1
                self.assertGreater(checked, 100)
        code, out, err = run("quotient", "--rules", "wythoff", "--max-heap", "5")
        self.assert_error(code, err, 2, "several heaps")
        # As far as a time allows: the largest quotient computed, and why it stopped.
        code, out, err = run("quotient", "--rules", "octal:0.07", "--max-heap", "200",
                             "--time-limit", "1", "--json")
        self.assertEqual(code, 0, err)
        q = json.loads(out)
        self.assertLess(q["max_heap"], 200)
        self.assertEqual(len(q["orders"]), q["max_heap"] + 1)
        self.assertIn(f"computing Q_{q['max_heap'] + 1}", q["stopped"])
        self.assertEqual(q["orders"][:10], [1, 1, 2, 2, 6, 6, 6, 6, 6, 6])
        f = q["frontier"]  # how far the heap it stopped in got, once a candidate was refuted
        if f is not None:
            self.assertEqual(f["heap"], q["max_heap"] + 1)
            self.assertGreaterEqual(f["candidates_refuted"], 1)
            self.assertEqual(f["tokens"], sum(f["least_failure"]))
            self.assertLessEqual(max(f["least_failure"]), f["heap"])
            self.assertIn(f["predicted"], ("P", "N"))
            self.assertGreaterEqual(f["at_least"], q["orders"][-1])  # Q_n maps onto Q_{n-1}
        code, out, err = run("quotient", "--rules", "octal:0.07", "--max-heap", "9",
                             "--time-limit", "60", "--json")
        self.assertEqual(code, 0, err)
        self.assertIsNone(json.loads(out)["stopped"])
        code, out, err = run("quotient", "--rules", "octal:0.07", "--max-heap", "200",
                             "--time-limit", "1")
        self.assertEqual(code, 0, err)
        self.assertRegex(out, r"stopped      before heap [0-9]+: the time ran out")
        code, out, err = run("quotient", "--rules", "nim")
        self.assert_error(code, err, 2, "give --max-heap N or --until-proven")

    def test_quotient_resume(self):
        """--resume FILE goes on from a file --output wrote: the file written is byte for byte the
        one a single run writes, for three games (one until proven) and after a --time-limit run;
        a damaged record of orders, another rule, a smaller bound are refused."""
        with tempfile.TemporaryDirectory() as d:
            def path(name):
                return os.path.join(d, name)

            for rules, first, then, bound in (("octal:0.07", ["--max-heap", "16"], ["--max-heap", "26"], None),
                                              ("octal:0.54", ["--max-heap", "30"], ["--max-heap", "52"], None),
                                              ("octal:0.77", ["--max-heap", "100"], ["--until-proven"], "300")):
                name = rules.replace(":", "_")
                limit = ["--limit", bound] if bound else []
                code, _, err = run("quotient", "--rules", rules, *first, "-o", path(name + "-first.json"))
                self.assertEqual(code, 0, err)
                code, _, err = run("quotient", "--resume", path(name + "-first.json"), *then, *limit,
                                   "-o", path(name + "-resumed.json"))
                self.assertEqual(code, 0, err)
                code, _, err = run("quotient", "--rules", rules, *then, *limit, "-o", path(name + "-whole.json"))
                self.assertEqual(code, 0, err)
                with open(path(name + "-resumed.json"), "rb") as a, open(path(name + "-whole.json"), "rb") as b:
                    self.assertEqual(a.read(), b.read(), rules)
            # A run stopped by its time limit, resumed for the next heaps.
            code, out, err = run("quotient", "--rules", "octal:0.54", "--max-heap", "300", "--time-limit", "1",
                                 "-o", path("stopped.json"), "--json")
            self.assertEqual(code, 0, err)
            reached = json.loads(out)["max_heap"]
            self.assertLess(reached, 300)
            code, out, err = run("quotient", "--resume", path("stopped.json"), "--max-heap", str(reached + 1),
                                 "--json")
            self.assertEqual(code, 0, err)
            code, whole, err = run("quotient", "--rules", "octal:0.54", "--max-heap", str(reached + 1), "--json")
            self.assertEqual(json.loads(out), json.loads(whole))
            # Refusals.
            code, _, err = run("quotient", "--resume", path("stopped.json"), "--rules", "octal:0.77",
                               "--max-heap", "50")
            self.assert_error(code, err, 2, "is a quotient of octal:0.54, not octal:0.77")
            code, _, err = run("quotient", "--resume", path("octal_0.54-whole.json"), "--max-heap", "40")
            self.assert_error(code, err, 2, "holds Q_52 already")
            with open(path("octal_0.54-first.json")) as f:
                q = json.load(f)
            q["orders"][10] += 2
            with open(path("damaged.json"), "w") as f:
                json.dump(q, f)
            code, _, err = run("quotient", "--resume", path("damaged.json"), "--max-heap", "40")
            self.assert_error(code, err, 1, "its orders are not those of its quotients")

    def test_quotient_analyze(self):
        """--analyze: the idempotents, maximal subgroups, Archimedean components, lower covers, the
        kernel and tameness, each found again here from the printed multiplication table."""
        code, out, err = run("quotient", "--rules", "octal:0.77", "--max-heap", "4", "--analyze")
        self.assertEqual(code, 0, err)
        self.assertIn("tame         yes: T_2, the quotient of misère Nim with heaps below 4\n", out)
        self.assertRegex(out, r"structure    2 idempotents, 2 classes of mutual divisibility; the "
                              r"kernel, 4 elements, is the subgroup of b\^2")
        code, out, err = run("quotient", "--rules", "octal:0.77", "--max-heap", "5", "--analyze")
        self.assertIn("tame         no", out)
        code, out, err = run("quotient", "--rules", "octal:0.07", "--max-heap", "30", "--analyze",
                             "--json")
        self.assertEqual(code, 0, err)
        q = json.loads(out)
        s, table, n = q["structure"], q["table"], q["order"]
        ideal = [frozenset(table[x]) for x in range(n)]  # x Q, a row of the table

        def power(x, k):
            y = 0
            for _ in range(k):
                y = table[y][x]
            return y

        idempotents = [x for x in range(n) if table[x][x] == x]
        self.assertEqual([part["element"] for part in s["idempotents"]], idempotents)
        for part in s["idempotents"]:
            e = part["element"]
            # Some power of x is e (the powers of x reach their cycle within n steps).
            self.assertEqual(part["component"], [x for x in range(n)
                                                 if any(power(x, k) == e for k in range(1, n + 1))])
            self.assertEqual(part["subgroup"], [x for x in range(n) if ideal[x] == ideal[e]])
            self.assertEqual(part["p_in_subgroup"],
                             [x for x in part["subgroup"] if q["elements"][x]["p"]])
            below = [f for f in idempotents if f != e and table[f][e] == f]
            self.assertEqual(part["lower_covers"], [f for f in below if not any(
                g in below and g != f and table[f][g] == f for g in below)])
        self.assertEqual(s["kernel"], sorted(frozenset.intersection(*ideal)))
        self.assertEqual(s["divisibility_classes"], len(set(ideal)))
        self.assertEqual((n, len(idempotents), s["tame"]), (360, 9, None))
        self.assertEqual(q["standard_form"], {"rules": "octal:0.4", "shift": 1, "steps": ["octal:0.4"]})

    def test_quotient_latex_is_the_presentation(self):
        """--latex writes the presentation --json gives: read back from the LaTeX, the
        generators with their heaps, every relation, the P-portion and phi of every heap are
        the JSON's, words rewritten as LaTeX writes them (a b^3 is ab^{3}, g27 is g_{27})."""
        def tex(word):
            out = ""
            for token in word.split():
                name, _, power = token.partition("^")
                out += (name[0] + "_{" + name[1:] + "}" if len(name) > 1 else name) + (f"^{{{power}}}" if power else "")
            return out
        for rules, heap in (("octal:0.07", "20"), ("kayles", "30"), ("nim", "7")):
            with self.subTest(rules=rules):
                code, out, err = run("quotient", "--rules", rules, "--max-heap", heap, "--json")
                self.assertEqual(code, 0, err)
                q = json.loads(out)
                code, latex, err = run("quotient", "--rules", rules, "--max-heap", heap, "--latex")
                self.assertEqual(code, 0, err)
                self.assertEqual(latex, q["presentation"]["latex"])
                self.assertEqual(latex.count("{"), latex.count("}"))
                self.assertEqual(latex.count("\\["), latex.count("\\]"))
                gens = re.search(r"\\left\\langle\\, (.*) \\;\\middle\|\\; (.*) \\,\\right\\rangle", latex)
                self.assertEqual(gens.group(1).split(", "), [tex(g["name"]) for g in q["generators"]])
                relations = [r for r in gens.group(2).split(",\\; ") if r]
                self.assertEqual(relations, [f"{tex(r['left'])} = {tex(r['right'])}" for r in q["relations"]])
                for g in q["generators"]:
                    self.assertIn(f"{tex(g['name'])} = \\Phi({g['heap']})", latex)
                p = re.search(r"\\mathcal\{P\} = \\\{\\, (.*) \\,\\\}", latex).group(1).split(",\\; ")
                self.assertEqual(p, [tex(e["word"]) for e in q["elements"] if e["p"]])
                rows = re.findall(r"^    (\d+) & (.*) \\\\$", latex, re.M)
                phi = [w.strip() for _, row in rows for w in row.split("&")]
                self.assertEqual(phi[:len(q["phi"])], [tex(q["elements"][x]["word"]) for x in q["phi"]])
                self.assertEqual(phi[len(q["phi"]):], [""] * (len(phi) - len(q["phi"])))
        code, out, err = run("quotient", "--rules", "kayles", "--max-heap", "9", "--latex", "--json")
        self.assert_error(code, err, 2, "--latex goes without --json")

    def test_quotient_compare(self):
        """--compare: Dawson's Chess and Dawson's Kayles are one game a heap apart, and their
        quotients agree (compared with the shift); Kayles and Dawson's Kayles are two."""
        code, out, err = run("quotient", "--rules", "octal:0.137", "--compare", "octal:0.07",
                             "--max-heap", "24", "--json")
        self.assertEqual(code, 0, err)
        c = json.loads(out)
        self.assertEqual((c["same_game"], c["shift"], c["agree"]), (True, 1, True))
        self.assertEqual(c["orders"][0][1:], c["orders"][1][2:])  # Q_h of one is Q_{h+1} of the other
        code, out, err = run("quotient", "--rules", "octal:0.07", "--compare", "octal:0.137",
                             "--max-heap", "24")
        self.assertEqual(code, 0, err)
        self.assertIn("heap n of octal:0.137 is heap n + 1 of octal:0.07", out)
        self.assertIn("are one quotient", out)
        code, out, err = run("quotient", "--rules", "octal:0.77", "--compare", "octal:0.07",
                             "--max-heap", "12", "--json")
        c = json.loads(out)
        self.assertEqual((c["same_game"], c["shift"], c["agree"]), (False, 0, False))
        code, out, err = run("quotient", "--rules", "octal:0.137", "--max-heap", "12", "--analyze")
        self.assertIn("standard form octal:0.4: heap n of octal:0.137 is heap n + 2 of octal:0.4 "
                      "(through octal:0.07)", out)
        code, _, err = run("quotient", "--rules", "octal:0.77", "--compare", "octal:0.07", "--until-proven")
        self.assert_error(code, err, 2, "goes with a heap bound alone")

    def test_quotient_with_a_cap_on_the_largest_heap(self):
        """--max-copies J: for heap N, a predictor of the positions with at most J heaps of N, said
        to be no quotient, and right on every such position of a solved misère table."""
        code, out, err = run("quotient", "--rules", "octal:0.6", "--max-heap", "16", "--json")
        self.assertEqual(code, 0, err)
        whole = json.loads(out)
        self.assertIsNone(whole["max_copies"])
        code, out, err = run("quotient", "--rules", "octal:0.6", "--max-heap", "16", "--max-copies", "1")
        self.assertEqual(code, 0, err)
        self.assertIn("heaps        at most 16 tokens, at most 1 heap of 16\n", out)
        self.assertRegex(out, r"elements     [0-9]+ \(a predictor for these positions, not the quotient Q_16\)")
        self.assertIn("of at most 16 and at most 1 copy of heap 16\n", out)
        code, out, err = run("quotient", "--rules", "octal:0.6", "--max-heap", "16", "--max-copies", "1",
                             "--json")
        self.assertEqual(code, 0, err)
        q = json.loads(out)
        self.assertEqual((q["max_copies"], q["proof"]), (1, None))
        self.assertLess(q["order"], whole["order"])
        self.assertEqual(q["orders"][:16], whole["orders"][:16])
        with tempfile.TemporaryDirectory() as d:
            table = os.path.join(d, "t.h5")
            code, _, err = run("solve", "--rules", "octal:0.6", "--misere", "-N", "26", "-o", table, "--quiet")
            self.assertEqual(code, 0, err)
            code, out, err = run("dump", table, "--csv")
            self.assertEqual(code, 0, err)
        checked = 0
        for heaps, p in dumped_outcomes(out):
            if any(h > 16 for h in heaps):
                continue
            self.assertEqual(quotient_says_p(q, heaps), p, heaps)
            checked += 1 if 16 in heaps else 0
        self.assertGreater(checked, 20)
        for other in (["--until-proven"], ["--time-limit", "9"], ["-o", self.path("capped.json")]):
            bound = [] if other == ["--until-proven"] else ["--max-heap", "16"]
            code, out, err = run("quotient", "--rules", "octal:0.6", *bound, "--max-copies", "1", *other)
            self.assert_error(code, err, 2, "--max-copies goes without --until-proven, --time-limit and -o")
        self.assertFalse(os.path.exists(self.path("capped.json")))

    def test_misere_query_past_the_quotient_answers_from_a_table(self):
        """Where the misère quotient does not answer a position (0.07's candidates for heap 34
        outgrow the default order), `query --misere --rules` answers it from a table solved on the
        spot into tables/, the answer of `solve` and `query TABLE`; a position no table can hold is
        refused with what stopped the quotient, and one too large to solve now names the solve."""
        code, out, err = run("query", "--misere", "--rules", "octal:0.07", "40 3", "--json",
                             cwd=self.dir)
        self.assertEqual(code, 0, err)
        self.assertIn("answering from tables/octal-0.07-misere-n43.h5", err)
        self.assertIn("did not reach heap 40", err)
        table = self.solve("--rules", "octal:0.07", "--misere", "--max-total", "43")
        code, want, err2 = run("query", table, "40 3", "--json")
        self.assertEqual(code, 0, err2)
        self.assertEqual(json.loads(out), json.loads(want))
        self.assertTrue(json.loads(out)["to_move_wins"])
        code, out, err = run("query", "--misere", "--rules", "octal:0.07", "--limit", "20", "200 3",
                             cwd=self.dir)
        self.assert_error(code, err, 2, "a heap of 200 is beyond what the misère quotient of "
                                        "octal:0.07 answers")
        code, out, err = run("query", "--misere", "--rules", "octal:0.07", "--limit", "20", "100 3",
                             cwd=self.dir)
        self.assert_error(code, err, 2, "make one with: nimtb solve --rules octal:0.07 --misere "
                                        "--max-total 103")

    def test_quotient_until_proven_answers_heaps_of_any_size(self):
        """A quotient proven for every heap size answers `query --misere` for a heap of 10^9; its
        answers match a misère table beyond the heaps the proof needed, and each winning move leads
        to a P-position."""
        code, out, err = run("quotient", "--rules", "octal:0.75", "--until-proven", "--json")
        self.assertEqual(code, 0, err)
        q = json.loads(out)
        self.assertEqual((q["max_heap"], q["order"]), (21, 8))
        self.assertEqual((q["proof"]["period"], q["proof"]["preperiod"]), (2, 8))
        code, out, err = run("quotient", "--rules", "octal:0.75", "--until-proven")
        self.assertIn("proven       every heap size: phi has period 2 from heap 8", out)
        code, out, err = run("quotient", "--rules", "grundy", "--until-proven")
        self.assert_error(code, err, 2, "no periodicity theorem")
        code, out, err = run("quotient", "--rules", "octal:0.75", "--max-heap", "5", "--limit", "9")
        self.assert_error(code, err, 2, "--limit goes with --until-proven")

        table = self.solve("--rules", "octal:0.75", "--misere", "--max-total", "30")
        code, out, err = run("dump", table, "--csv")
        self.assertEqual(code, 0, err)
        value = {}
        for line in out.splitlines()[1:]:
            position, v = line.split(",")[:2]
            value[tuple(sorted(map(int, position.split()), reverse=True)) if position != "(empty)"
                  else ()] = int(v)
        asked = [p for p in value if p]
        code, out, err = run("query", "--misere", "--rules", "octal:0.75", "-", "--json",
                             stdin="\n".join(" ".join(map(str, p)) for p in asked) + "\n")
        self.assertEqual(code, 0, err)
        answers = [json.loads(line) for line in out.splitlines()]
        self.assertEqual(len(answers), len(asked))
        for p, a in zip(asked, answers):
            self.assertEqual(a["to_move_wins"], value[p] != 0, p)
            self.assertTrue(a["proven"])
            if a["to_move_wins"]:
                move = a["winning_move"]
                rest = list(p)
                rest.remove(move["heap_size"])
                after = tuple(sorted(rest + move["leaves"], reverse=True))
                self.assertEqual(value[after], 0, f"{p}: {move['move']}")
        self.assertGreater(len(asked), 4000)

        code, out, err = run("query", "--misere", "--rules", "octal:0.75", "1000000000 7 13")
        self.assertEqual(code, 0, err)
        self.assertIn("to move     wins (N-position, misère play)", out)
        self.assertIn("proven for every heap size", out)
        code, out, err = run("query", "--misere", "--rules", "octal:0.75", "1000000000 7 13",
                             "--json")
        move = json.loads(out)["winning_move"]
        heaps = [1000000000, 7, 13]
        heaps.remove(move["heap_size"])
        heaps += move["leaves"]
        code, out, err = run("query", "--misere", "--rules", "octal:0.75",
                             " ".join(map(str, heaps)), "--json")
        self.assertEqual(code, 0, err)
        self.assertFalse(json.loads(out)["to_move_wins"], move["move"])
        code, out, err = run("query", "--misere", "--rules", "grundy", "5000")
        self.assert_error(code, err, 2, "never proven for every heap size")

        # A stored quotient answers as the computed one, and is believed only when it checks.
        stored = self.path("q.json")
        code, _, err = run("quotient", "--rules", "octal:0.75", "--until-proven", "--output", stored)
        self.assertEqual(code, 0, err)
        code, out, err = run("query", "--misere", "--quotient", stored, "1000000000 7 13", "--json")
        self.assertEqual(code, 0, err)
        self.assertEqual(json.loads(out)["winning_move"], move)
        with open(stored) as f:
            good = json.load(f)
        damage = {
            "p": (lambda q: q["elements"][3].update(p=not q["elements"][3]["p"]),
                  "is damaged: it says the position"),
            "phi": (lambda q: q["phi"].__setitem__(15, (q["phi"][15] + 1) % q["order"]),
                    "is damaged: it says the position"),
            "table": (lambda q: q["table"][2].__setitem__(3, (q["table"][2][3] + 1) % q["order"]),
                      "its table is not the monoid"),
            "proof": (lambda q: q.update(max_heap=19, phi=q["phi"][:20], orders=q["orders"][:20]),
                      "claims a proof for every heap size"),
            "orders": (lambda q: q["orders"].__setitem__(10, q["orders"][10] + 2),
                       "its orders are not those of its quotients"),
            "order": (lambda q: q.update(order=7), "is not a quotient file"),
            "rules": (lambda q: q.update(rules="wythoff"), "is not a quotient file"),
            "convention": (lambda q: q.update(convention=["misere"]), "is not a quotient file"),
            "position": (lambda q: q["elements"][1].update(position=[2]), "position is not that element"),
        }
        for name, (spoil, message) in damage.items():
            q = json.loads(json.dumps(good))
            spoil(q)
            bad = self.path(f"bad-{name}.json")
            with open(bad, "w") as f:
                json.dump(q, f)
            code, out, err = run("query", "--misere", "--quotient", bad, "1000000000 7 13")
            self.assert_error(code, err, 1, message)
        with open(self.path("cut.json"), "w") as f:
            f.write(json.dumps(good)[:300])
        code, out, err = run("query", "--misere", "--quotient", self.path("cut.json"), "7")
        self.assert_error(code, err, 1, "is not JSON")
        code, out, err = run("query", "--misere", "--quotient", stored, "--rules", "octal:0.77", "7")
        self.assert_error(code, err, 2, "the quotient file is of octal:0.75")
        code, out, err = run("query", "--misere", table, "3 4 5")
        self.assert_error(code, err, 2, "--misere goes with --rules")


class Sequences(Workdir):
    """Single-heap sequences at length: proven periods, files, positions of any size."""

    def test_a_refusal_comes_before_the_plan_is_told(self):
        """--until-proven of a rule no theorem covers is refused at once, in one line, before
        the memory the sequence would take is said."""
        code, out, err = run("sequence", "--rules", "hex:0.F", "--until-proven")
        self.assert_error(code, err, 2, "no theorem proves a period of hex:0.F")
        self.assertEqual(err.count("\n"), 1, err)

    def stop_sequence(self, args):
        """Runs `nimtb sequence ARGS --progress`, Ctrl-C once its bar has moved; its stderr."""
        p = subprocess.Popen([NIMTB, "sequence", *args, "--progress"], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
        seen = b""
        while b"[#" not in seen:
            byte = p.stderr.read(1)
            self.assertTrue(byte, b"nimtb ended before it was stopped: " + seen)
            seen += byte
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=300)
        err = (seen + err).decode()
        self.assertEqual(p.returncode, 1, err)
        self.assertIn("nimtb: error: interrupted", err)
        return err

    def test_a_long_sequence_goes_on_from_its_checkpoint(self):
        """Ctrl-C saves the values computed in the folder --checkpoint; the same command goes
        on from them, and its values are those of a run never stopped; a save cut short (a
        draft left by a crash) is not read; the folder is removed once the sequence is done,
        and nothing else in it. A folder of something else, the checkpoint of another rule or
        a damaged file is refused in one line and left as it was."""
        n = str(2 ** 21)
        code, out, err = run("sequence", "--rules", "grundy", "--max-heap", n, "--json")
        self.assertEqual(code, 0, err)
        whole = json.loads(out)["values"]
        ck = self.path("grundy.ck")
        args = ["--rules", "grundy", "--max-heap", n, "--checkpoint", ck]
        held = []
        for stop in range(2):
            err = self.stop_sequence(args)
            if stop:
                self.assertIn(f"resuming from the checkpoint {ck} ({held[-1]} heaps computed)", err)
            m = re.search(r"the checkpoint .* holds (\d+) heaps; the same command goes on", err)
            self.assertTrue(m, err)
            held.append(int(m[1]))
        self.assertLess(held[0], held[1])
        # A save cut short, as by a crash while it was written: its draft is never read.
        with open(os.path.join(ck, f".values-{held[1]:012}.zst.tmp-1-0"), "wb") as f:
            f.write(b"(the first bytes of a save)")
        with open(os.path.join(ck, "notes.txt"), "w") as f:
            f.write("the user's own file\n")
        code, out, err = run("sequence", *args, "--json")
        self.assertEqual(code, 0, err)
        self.assertIn(f"({held[1]} heaps computed)", err)
        self.assertEqual(json.loads(out)["values"], whole)
        self.assertEqual(os.listdir(ck), ["notes.txt"], "the checkpoint's own files are removed")
        # A damaged save is refused, and the folder left as it was.
        os.remove(os.path.join(ck, "notes.txt"))
        self.stop_sequence(args)
        saves = sorted(f for f in os.listdir(ck) if f.startswith("values-"))
        with open(os.path.join(ck, saves[-1]), "r+b") as f:
            f.seek(20)
            byte = f.read(1)
            f.seek(20)
            f.write(bytes([byte[0] ^ 0xFF]))
        before = sorted(os.listdir(ck))
        code, out, err = run("sequence", *args)
        self.assert_error(code, err, 1, f"{saves[-1]} is damaged (its checksum fails); remove it")
        self.assertEqual(sorted(os.listdir(ck)), before)
        shutil.rmtree(ck)
        # Not a checkpoint: a file, or a folder whose manifest is something else's.
        with open(ck, "wb") as f:
            f.write(b"a note, not a checkpoint\n")
        code, out, err = run("sequence", *args)
        self.assert_error(code, err, 1, f"cannot use {ck} as the checkpoint folder: it is not a folder")
        os.remove(ck)
        os.mkdir(ck)
        with open(os.path.join(ck, "manifest.json"), "w") as f:
            f.write('{"format": "nimtb-checkpoint", "version": 1}\n')
        code, out, err = run("sequence", *args)
        self.assert_error(code, err, 1, f"{ck} is not a nimtb sequence checkpoint")
        shutil.rmtree(ck)
        self.stop_sequence(args)
        code, out, err = run("sequence", "--rules", "octal:0.6", "--max-heap", "1000", "--checkpoint", ck)
        self.assert_error(code, err, 1, "is of the rule grundy, not octal:0.6")
        self.assertEqual(err.count("\n"), 1, err)

    def test_a_long_sequence_has_its_record(self):
        """The record of a sparse-space run, recomputed from its values: at each power of
        two the largest value and its first heap, and the heaps rare under the mask; the same
        in the sequence file; and said in the text at research length."""
        code, out, err = run("sequence", "--rules", "grundy", "--max-heap", str(2 ** 17), "--json",
                             "-o", self.path("g.h5"))
        self.assertEqual(code, 0, err)
        j = json.loads(out)
        values, record = j["values"], j["record"]
        mask = record["mask"]
        self.assertEqual(mask, j["mask"])
        rare = [[n, v] for n, v in enumerate(values) if n and bin(v & mask).count("1") % 2 == 0]
        self.assertEqual(record["rare"], rare)
        self.assertEqual(len(rare), j["rare_heaps"])
        expected = []
        for heaps in [2 ** k for k in range(10, 18)] + [len(values)]:
            top = max(values[:heaps])
            expected.append({"heaps": heaps, "largest_value": top,
                             "largest_value_heap": values.index(top),
                             "rare_heaps": sum(1 for n, _ in rare if n < heaps)})
        self.assertEqual(record["milestones"], expected)
        import h5py
        with h5py.File(self.path("g.h5"), "r") as f:
            self.assertEqual(f.attrs["mask"], mask)
            self.assertEqual(f["rare"][:].tolist(), rare)
            self.assertEqual(f["milestones"][:].tolist(), [list(m.values()) for m in expected])
        # Read back with the values: info tells it, and a record that is not its values' is
        # refused; a file without one (an older nimtb's) is read as it always was.
        code, out, err = run("info", self.path("g.h5"), "--json")
        self.assertEqual(json.loads(out)["record"], record)
        code, out, err = run("info", self.path("g.h5"))
        self.assertIn(f"record       {len(rare)} heaps rare under mask {mask}, the last at heap "
                      f"{rare[-1][0]}", out)
        import numpy as np
        for edit, words in [
                (lambda f: f.attrs.modify("mask", np.uint64(mask ^ 2)), "/milestones does not match"),
                (lambda f: f["rare"].write_direct(np.array([[1, 1]], dtype=np.uint64),
                                                  np.s_[0:1], np.s_[0:1]), "/rare does not match"),
                (lambda f: f.attrs.modify("mask", np.uint64(1 << 20)), "'mask' is out of range")]:
            shutil.copy(self.path("g.h5"), self.path("x.h5"))
            with h5py.File(self.path("x.h5"), "r+") as f:
                edit(f)
            code, out, err = run("query", "--sequence", self.path("x.h5"), "5 7")
            self.assert_error(code, err, 1, words)
        shutil.copy(self.path("g.h5"), self.path("x.h5"))
        with h5py.File(self.path("x.h5"), "r+") as f:
            del f.attrs["mask"], f["rare"], f["milestones"]
        code, out, err = run("info", self.path("x.h5"), "--json")
        self.assertNotIn("record", json.loads(out))
        self.assertEqual(run("query", "--sequence", self.path("x.h5"), "5 7")[0], 0)
        code, out, err = run("sequence", "--rules", "grundy", "--max-heap", str(2 ** 17))
        self.assertIn(f"where the values stand (rare: under mask {mask}):", out)
        self.assertIn("2^17 heaps: largest value 230, first at heap 45668; 1273 rare heaps", out)

    def test_gangolli_and_plambecks_period_of_0_16(self):
        code, out, err = run("sequence", "--rules", "octal:0.16", "--until-proven", "--json",
                             "-o", self.path("s.h5"))
        self.assertEqual(code, 0, err)
        j = json.loads(out)
        self.assertEqual((j["period"]["basis"], j["period"]["preperiod"], j["period"]["period"]),
                         ("proof", 105351, 149459))
        # It stopped at the proof's window: g(n) = g(n + p) for n0 <= n < 2 n0 + p + 2.
        self.assertEqual(j["max_heap"], 2 * 105351 + 2 * 149459 + 2 - 1)
        self.assertEqual(j["algorithm"], "sparse")
        import h5py
        with h5py.File(self.path("s.h5"), "r") as f:
            self.assertEqual(text(f.attrs["format"]), "nimtb-sequence")
            self.assertEqual((f.attrs["preperiod"], f.attrs["period"]), (105351, 149459))
            self.assertEqual(list(f["value"][:]), j["values"])

    def test_a_heap_of_a_trillion(self):
        code, out, err = run("sequence", "--rules", "octal:0.45", "--until-proven", "-o", self.path("s.h5"))
        self.assertEqual(code, 0, err)
        for source in (["--sequence", self.path("s.h5")], ["--rules", "octal:0.45"]):
            code, out, err = run("query", *source, "1000000000000 7 13", "--json")
            self.assertEqual(code, 0, err)
            q = json.loads(out)
            self.assertTrue(q["to_move_wins"])
            m = q["winning_move"]
            heaps = [1000000000000, 7, 13]
            self.assertEqual(heaps[m["heap"] - 1], m["heap_size"])
            after = heaps[:m["heap"] - 1] + m["leaves"] + heaps[m["heap"]:]
            self.assertEqual(sum(after), sum(heaps) - m["take"])
            code, out, err = run("query", *source, " ".join(map(str, after)), "--json")
            self.assertFalse(json.loads(out)["to_move_wins"], after)  # the move wins: a P-position

    def test_the_same_answers_as_a_table(self):
        """From a period (octal, subtraction), a formula (nim, lasker) or the
        values computed (grundy, allbut): the value and a winning move of a
        table."""
        for rule, basis in [("octal:0.45", "period"), ("subtract:1,3,4", "period"), ("nim", "formula"),
                            ("lasker", "formula"), ("grundy", "values"), ("allbut:2,3", "values")]:
            t = self.solve("--rules", rule, "--max-total", "30", name=rule.replace(":", "-") + ".h5")
            for position in ["30", "7 6 3", "10 9 8", "12 12", "1 2 3 4 5 6", "15 14 1"]:
                code, out, err = run("query", t, position, "--json")
                table = json.loads(out)
                code, out, err = run("query", "--rules", rule, position, "--json")
                self.assertEqual(code, 0, err)
                answer = json.loads(out)
                self.assertEqual((answer["value"], answer["basis"]), (table["value"], basis), (rule, position))
                if table["value"]:
                    winning = {tuple(sorted(x for x in m["result"] if x)) for m in table["moves"] if m["value"] == 0}
                    m = answer["winning_move"]
                    left = [h for i, h in enumerate(answer["heaps"]) if i != m["heap"] - 1]
                    self.assertIn(tuple(sorted(x for x in left + m["leaves"] if x)), winning, (rule, position))

    def test_formulas_answer_heaps_of_any_size_at_once(self):
        for rule, position, value in [("nim", "3", 3), ("nim", "1000000000000 7 13", 10**12 ^ 7 ^ 13),
                                      ("lasker", "1000000000003 7", (10**12 + 4) ^ 8)]:
            code, out, err = run("query", "--rules", rule, position, "--json")
            self.assertEqual(code, 0, err)
            q = json.loads(out)
            self.assertEqual((q["value"], q["basis"], q["period"]["basis"]), (value, "formula", "theorem"))
            m = q["winning_move"]
            heaps = [int(h) for h in position.split()]
            after = heaps[:m["heap"] - 1] + m["leaves"] + heaps[m["heap"]:]
            code, out, err = run("query", "--rules", rule, " ".join(map(str, after)) or "0", "--json")
            self.assertEqual(json.loads(out)["value"], 0, (rule, after))  # the move wins

    def test_a_sequence_file_s_period_is_proven_again_when_read(self):
        """An edited or damaged period is refused, never answered as proven."""
        import h5py
        import numpy as np
        code, out, err = run("sequence", "--rules", "octal:0.45", "--until-proven", "-o", self.path("s.h5"))
        self.assertEqual(code, 0, err)
        for attr, value, words in [("period", 5, "does not hold in its values"),
                                   ("preperiod", 3, "does not hold in its values"),
                                   ("period", 40, "needs values up to heap")]:
            shutil.copy(self.path("s.h5"), self.path("x.h5"))
            with h5py.File(self.path("x.h5"), "r+") as f:
                f.attrs.modify(attr, np.uint64(value))
            code, out, err = run("query", "--sequence", self.path("x.h5"), "1000000000000 7 13")
            self.assert_error(code, err, 1, words)
            self.assertEqual(out, "")
        code, out, err = run("query", "--sequence", self.path("s.h5"), "1000000000000 7 13")
        self.assertEqual(code, 0, err)

    def test_info_describes_the_files_sequence_and_quotient_write(self):
        """info reads every kind of file nimtb writes (it once said a sequence file was not a
        table), believing each only as far as query does: a damaged one is refused in one line."""
        code, out, err = run("sequence", "--rules", "octal:0.45", "--until-proven", "--json",
                             "-o", self.path("s.h5"))
        self.assertEqual(code, 0, err)
        seq = json.loads(out)
        code, out, err = run("info", self.path("s.h5"), "--json")
        self.assertEqual(code, 0, err)
        j = json.loads(out)
        self.assertEqual((j["format"], j["rules"], j["convention"], j["max_heap"], j["algorithm"], j["period"]),
                         ("nimtb-sequence", "octal:0.45", "normal", seq["max_heap"], seq["algorithm"],
                          seq["period"]))
        largest = max(seq["values"])
        self.assertEqual((j["largest_value"], j["largest_value_heap"]), (largest, seq["values"].index(largest)))
        code, out, err = run("info", self.path("s.h5"))
        self.assertEqual(code, 0, err)
        self.assertIn(f"heaps        0 to {seq['max_heap']}\n", out)
        self.assertIn(f"period       {seq['period']['explanation']}\n", out)

        code, out, err = run("quotient", "--rules", "octal:0.77", "--until-proven", "--json",
                             "-o", self.path("q.json"))
        self.assertEqual(code, 0, err)
        q = json.loads(out)
        code, out, err = run("info", self.path("q.json"), "--json")
        self.assertEqual(code, 0, err)
        j = json.loads(out)
        self.assertEqual((j["format"], j["rules"], j["max_heap"], j["order"], j["generators"], j["proof"]),
                         ("nimtb-quotient", "octal:0.77", q["max_heap"], q["order"], q["generators"], q["proof"]))
        self.assertEqual(j["p_portion_size"], len(q["p_portion"]))
        code, out, err = run("info", self.path("q.json"))
        self.assertEqual(code, 0, err)
        self.assertIn(f"order        {q['order']}, {len(q['p_portion'])} in the P-portion\n", out)
        self.assertIn("proven       every heap size: " + q["proof"]["explanation"], out)

        x = q["p_portion"][-1]  # one P-portion bit flipped
        q["elements"][x]["p"] = False
        with open(self.path("d.json"), "w") as f:
            json.dump(q, f)
        code, out, err = run("info", self.path("d.json"))
        self.assert_error(code, err, 1, "d.json is damaged: it says the position")
        self.assertEqual(out, "")
        import h5py
        import numpy as np
        with h5py.File(self.path("s.h5"), "r+") as f:
            f.attrs.modify("period", np.uint64(5))
        code, out, err = run("info", self.path("s.h5"), "--json")
        self.assert_error(code, err, 1, "does not hold in its values")
        self.assertEqual(out, "")

    def test_a_sequence_file_nimtb_did_not_write_is_refused(self):
        """A basis nimtb does not write, and values that are signed or carry no checksum,
        are refused (an unknown basis was read as no proof; signed values were converted)."""
        import h5py
        import numpy as np
        code, out, err = run("sequence", "--rules", "octal:0.45", "--until-proven", "-o", self.path("s.h5"))
        self.assertEqual(code, 0, err)
        for edit, words in [
                (lambda f: f.attrs.create("period_basis", np.bytes_(b"proofx")),
                 "bad attribute 'period_basis': unknown basis 'proofx'"),
                (lambda f: f.attrs.create("period_basis", np.bytes_(b"")),
                 "bad attribute 'period_basis'"),
                (lambda f: f.create_dataset("v2", data=f["value"][()].astype(np.int16) - 1),
                 "has the wrong element type"),
                (lambda f: f.create_dataset("v2", data=f["value"][()]),
                 "has no Fletcher-32 checksum"),
                (lambda f: f.create_dataset("v2", data=f["value"][()].astype(">u2"), chunks=True,
                                            fletcher32=True), None)]:
            shutil.copy(self.path("s.h5"), self.path("x.h5"))
            with h5py.File(self.path("x.h5"), "r+") as f:
                edit(f)
                if "v2" in f:  # the dataset replaced
                    del f["value"]
                    f.move("v2", "value")
            for position in ["1000000000000 7 13", "5 7 13"]:
                code, out, err = run("query", "--sequence", self.path("x.h5"), position)
                if words is None:  # the same numbers in the other byte order: the same answers
                    self.assertEqual((code, out), run("query", "--sequence", self.path("s.h5"), position)[:2])
                else:
                    self.assert_error(code, err, 1, words)
                    self.assertEqual(out, "")

    def test_a_subtraction_game_of_large_amounts_at_once(self):
        """subtract:1000000000 changes value every 10^9 heaps: known as runs."""
        code, out, err = run("query", "--rules", "subtract:1000000000", "5")
        self.assertEqual(code, 0, err)
        self.assertIn("loses (P-position)", out)
        code, out, err = run("query", "--rules", "subtract:1000000000", "1500000000 7", "--json")
        q = json.loads(out)
        self.assertEqual((q["value"], q["period"]["period"], q["period"]["preperiod"]), (1, 2000000000, 0))
        m = q["winning_move"]
        self.assertEqual((m["heap"], m["take"], m["leaves"]), (1, 1000000000, [500000000]))
        code, out, err = run("query", "--rules", "subtract:1000000000", "500000000 7", "--json")
        self.assertEqual(json.loads(out)["value"], 0)  # where the move leads: a P-position

    def test_refusals_and_ctrl_c(self):
        code, out, err = run("query", "--rules", "grundy", "5000000000 6")
        self.assert_error(code, err, 2, "no theorem gives the values of grundy")
        code, out, err = run("query", "--rules", "octal:0.6", "--limit", "3000", "5000 6")
        self.assert_error(code, err, 2, "heap 5000 is beyond the values known of octal:0.6 (heaps up to 3000)")
        code, out, err = run("query", "--rules", "wythoff", "5 6")
        self.assert_error(code, err, 2, "moves that touch several heaps")
        code, out, err = run("query", "--rules", "octal:0.45", "5 x")
        self.assert_error(code, err, 2, "heap 2 ('x') is not a number")
        code, out, err = run("query", "--rules", "octal:0.45", "99999999999999999999")
        self.assert_error(code, err, 2, "too large")
        code, out, err = run("sequence", "--rules", "grundy", "--max-heap", "100", "--until-proven")
        self.assert_error(code, err, 2, "not both")
        code, out, err = run("sequence", "--rules", "grundy", "--max-heap", "0")
        self.assert_error(code, err, 2, "--max-heap must be a whole number from 1")
        code, out, err = run("sequence", "--rules", "subtract:1,3,4", "--max-heap", "100", "--method", "sparse")
        self.assert_error(code, err, 2, "sparse-space method is for rules that split heaps")
        self.interrupt_once(["sequence", "--rules", "grundy", "--max-heap", "100000000", "--progress",
                             "-o", self.path("g.h5")], b"sequence (")


def octal_options(code, heap):
    """The positions (tuples of non-empty heaps) one move of an octal code leaves of a heap:
    digit k of the code says whether taking k tokens may leave no heap (1), one (2) or two
    non-empty heaps (4). Written from the definition, apart from nimtb's move generator."""
    digits = [int(d) for d in code.split(".")[1]]
    out = set()
    for k, d in enumerate(digits, 1):
        if k > heap:
            break
        rest = heap - k
        if d & 1 and rest == 0:
            out.add(())
        if d & 2 and rest > 0:
            out.add((rest,))
        if d & 4:
            out.update((a, rest - a) for a in range(1, rest // 2 + 1) if rest - a > 0)
    return out


def subtraction_options(amounts, heap):
    return {(heap - s,) if heap > s else () for s in amounts if s <= heap}


def brute_genus(options, heap, copies):
    """g and γ0..γ(copies) of a heap by the definition: Grundy values of the sums heap + n
    nim-heaps of size 2, every move of every component tried (a *2 goes to *1 or 0, a *1 to
    0); nothing assumed about sums."""
    import functools

    @functools.lru_cache(maxsize=None)
    def value(heaps, twos, ones, misere):
        seen = set()
        for i, h in enumerate(heaps):
            if i and heaps[i - 1] == h:
                continue
            for left in options(h):
                rest = heaps[:i] + heaps[i + 1:] + tuple(x for x in left if x)
                seen.add(value(tuple(sorted(rest)), twos, ones, misere))
        if twos:
            seen.add(value(heaps, twos - 1, ones + 1, misere))
            seen.add(value(heaps, twos - 1, ones, misere))
        if ones:
            seen.add(value(heaps, twos, ones - 1, misere))
        if not seen:
            return 1 if misere else 0
        m = 0
        while m in seen:
            m += 1
        return m

    start = (heap,) if heap else ()
    return value(start, 0, 0, False), [value(start, n, 0, True) for n in range(copies + 1)]


class Genus(unittest.TestCase):
    """nimtb genus against the definition, a published table and the solver."""

    def genus(self, rules, heap):
        code, out, err = run("genus", "--rules", rules, "--max-heap", str(heap), "--json")
        self.assertEqual(code, 0, err)
        return json.loads(out)

    @staticmethod
    def expand(superscript, length):
        """The γ sequence a written superscript stands for: its last two values alternate."""
        g = list(superscript)
        while len(g) < length:
            g.append(g[-2])
        return g[:length]

    def test_equal_to_a_brute_force_over_sums(self):
        """Kayles, Dawson's Kayles, 0.312 and two subtraction games: each heap's g and γ0..γ6
        are the Grundy values of the real sums with n nim-heaps of size 2, and each superscript
        is the shortest whose tail alternates."""
        games = [("octal:0.77", lambda h: octal_options("0.77", h), 14),
                 ("octal:0.07", lambda h: octal_options("0.07", h), 16),
                 ("octal:0.312", lambda h: octal_options("0.312", h), 16),
                 ("subtract:1,3,4", lambda h: subtraction_options([1, 3, 4], h), 30),
                 ("subtract:2,5,7", lambda h: subtraction_options([2, 5, 7], h), 30)]
        for rules, options, top in games:
            j = self.genus(rules, top)
            for row in j["heaps"]:
                with self.subTest(rules=rules, heap=row["heap"]):
                    g, gammas = brute_genus(options, row["heap"], 6)
                    self.assertEqual(row["normal"], g)
                    self.assertEqual(self.expand(row["superscript"], 7), gammas)
                    sup = row["superscript"]
                    if len(sup) > 2:  # the shortest: its tail alternates from the last pair, not before
                        self.assertNotEqual(sup[-1], sup[-3])
                    self.assertEqual(row["genus"], f"{g}^{{{''.join(map(str, sup))}}}")

    def test_plambecks_table_of_0_312(self):
        """The single-heap genera Plambeck published for .312 (heaps 1 to 6), his 1^{03131}
        written as the shortest superscript."""
        j = self.genus("octal:0.312", 6)
        self.assertEqual([r["genus"] for r in j["heaps"][1:]],
                         ["1^{031}", "2^{20}", "0^{02}", "2^{1420}", "0^{02}", "1^{13}"])
        self.assertEqual(j["first_wild"], 4)

    def test_kayles_by_its_misere_table(self):
        """In Kayles a heap of 2 is the game *2, so γn of heap h is the misère value the solver
        stores for h 2 2 ... 2 (n twos)."""
        d = tempfile.mkdtemp(prefix="nimtb-genus-")
        try:
            t = os.path.join(d, "k.h5")
            code, out, err = run("solve", "--rules", "kayles", "--misere", "--max-total", "22", "-o", t, "--quiet")
            self.assertEqual(code, 0, err)
            j = self.genus("kayles", 16)
            for row in j["heaps"]:
                gammas = self.expand(row["superscript"], 4)
                for n in range(4):
                    position = " ".join([str(row["heap"])] + ["2"] * n)
                    code, out, err = run("query", t, position, "--json")
                    self.assertEqual(code, 0, err)
                    self.assertEqual(json.loads(out)["value"], gammas[n], (row["heap"], n))
        finally:
            shutil.rmtree(d, ignore_errors=True)

    def test_tame_where_the_quotient_is(self):
        """Kayles and Dawson's Kayles: the first heap whose genus is no nim position's is the
        first whose quotient is no T_n (quotient --analyze): 5 and 10."""
        for rules, wild in (("kayles", 5), ("dawsons-kayles", 10)):
            self.assertEqual(self.genus(rules, 20)["first_wild"], wild)
            for heap, tame in ((wild - 1, True), (wild, False)):
                code, out, err = run("quotient", "--rules", rules, "--max-heap", str(heap), "--analyze", "--json")
                self.assertEqual(code, 0, err)
                self.assertEqual(json.loads(out)["structure"]["tame"] is not None, tame, (rules, heap))

    def test_refusals(self):
        code, out, err = run("genus", "--rules", "wythoff", "--max-heap", "5")
        self.assertEqual(code, 2, err)
        self.assertIn("touch several heaps", err)
        code, out, err = run("genus", "--rules", "kayles", "--max-heap", "200")
        self.assertEqual(code, 1, err)
        self.assertIn("which reach heap 108", err)
        code, out, err = run("genus", "--rules", "nim", "--max-heap", "100000")  # refused at once
        self.assertEqual(code, 1, err)
        self.assertIn("which reach heap 28283", err)
        code, out, err = run("genus", "--rules", "kayles")
        self.assertEqual(code, 2, err)
        self.assertIn("missing --max-heap", err)
        code, out, err = run("genus", "--rules", "kayles", "--max-heap", "-1")
        self.assertEqual(code, 2, err)


class Help(unittest.TestCase):
    def test_help_and_exit_codes(self):
        code, out, err = run("--help")
        self.assertEqual(code, 0)
        self.assertIn("exit codes", out)
        for cmd in ["solve", "info", "query", "dump", "verify", "play"]:
            code, out, err = run(cmd, "--help")
            self.assertEqual(code, 0)
            self.assertIn("examples:", out)
        code, out, err = run("query")
        self.assertEqual(code, 2)
        self.assertIn("missing TABLE", err)
        code, out, err = run("frobnicate")
        self.assertEqual(code, 2)
        self.assertIn("unknown command", err)
        code, out, err = run()
        self.assertEqual(code, 2)


if __name__ == "__main__":
    unittest.main()
