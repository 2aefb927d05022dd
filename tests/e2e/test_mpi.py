"""End-to-end tests of the distributed solve: `mpirun -np R nimtb solve ...` on loopback.

Run by ctest where Open MPI is installed (NIMTB names the
binary, MPIRUN mpirun). Open MPI refuses root without OMPI_ALLOW_RUN_AS_ROOT and
this 2-core box needs --oversubscribe beyond 2 processes; both are set here.
"""
import json
import math
import os
import re
import shutil
import signal
import subprocess
import time
import unittest

from test_cli import NIMTB, SmallDisk, Workdir, run

MPIRUN = os.environ.get("MPIRUN", "mpirun")
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_rmaps_base_oversubscribe="1")
# Under tools/sanitize.sh address: Open MPI leaves what its components
# allocated past MPI_Finalize, in modules it has unloaded by then, which
# LeakSanitizer can neither name nor suppress. The processes still run under
# AddressSanitizer; nimtb's own leaks are checked by every other test.
ENV["ASAN_OPTIONS"] = ENV.get("ASAN_OPTIONS", "") + ":detect_leaks=0"
# The numbers of processes Tables solves every case on. A sanitizer build
# (tests/CMakeLists.txt) gives 1 and 3, the one process and the uneven split;
# 2 and 4 processes meet it in Tables' other tests.
PROCESSES = [int(p) for p in os.environ.get("NIMTB_MPI_PROCESSES", "1 2 3 4").split()]


def mpi_command(processes, *args):
    return [MPIRUN, "--oversubscribe", "-np", str(processes), NIMTB, "solve", *args]


def mpi(processes, *args, timeout=300, env=None):
    p = subprocess.run(mpi_command(processes, *args), capture_output=True, text=True,
                       env=dict(ENV, **(env or {})), timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def children(pid):
    """The job's processes: nimtb-mpi, started by mpirun `pid` (only this test's, never
    another job's on the same machine)."""
    out = subprocess.run(["pgrep", "-P", str(pid), "-f", "nimtb-mpi"], capture_output=True, text=True).stdout
    return [int(x) for x in out.split()]


def running(pid):
    """Whether process `pid` is alive (not ended, not a zombie)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


def wait_gone(pids, seconds=30):
    """Whether every process of `pids` has ended within `seconds`."""
    end = time.time() + seconds
    while time.time() < end:
        if not any(running(pid) for pid in pids):
            return True
        time.sleep(0.05)
    return False


def datasets(path):
    """Every dataset of a table: its chunks as stored (compressed, checksummed: the bytes
    tools/table_digest.sh hashes), its transform and its type. Equal datasets are
    bit-identical tables."""
    import h5py
    with h5py.File(path, "r") as f:
        out = {}
        for k in f:
            d = f[k]
            chunks = [d.id.read_direct_chunk((first,)) for first in range(0, d.shape[0], d.chunks[0])]
            out[k] = (chunks, d.attrs.get("transform", b"").decode(), d.dtype.str, d.chunks)
        return out


class MpiCase(Workdir):
    def assert_same_table(self, a, b, stored=True):
        """The same attributes and datasets; `stored`: chunk by chunk as stored, else the
        same entries."""
        import h5py
        import numpy as np

        def attributes(path):  # the root's, but for the generator (nimtb's version)
            with h5py.File(path, "r") as f:
                return {k: str(v) for k, v in f.attrs.items() if k != "generator"}

        self.assertEqual(attributes(a), attributes(b))
        if not stored:
            with h5py.File(a, "r") as fa, h5py.File(b, "r") as fb:
                self.assertEqual(sorted(fa), sorted(fb))
                for k in fa:
                    self.assertTrue(np.array_equal(fa[k][()], fb[k][()]), k)
            return
        da, db = datasets(a), datasets(b)
        self.assertEqual(sorted(da), sorted(db))
        for k in da:
            self.assertEqual(da[k][1:], db[k][1:], k)
            self.assertEqual(len(da[k][0]), len(db[k][0]), k)
            for i, (x, y) in enumerate(zip(da[k][0], db[k][0])):
                self.assertEqual(x, y, f"{k}: chunk {i} differs")

    def solve_single(self, args, name):
        """One process's table (plain nimtb)."""
        single = self.path(name + "-1.h5")
        code, _, err = run("solve", *args, "-o", single, "--quiet", "--force")
        self.assertEqual(code, 0, err)
        return single

    def solve_distributed(self, args, processes, name):
        """The table of `processes` processes under mpirun."""
        out = self.path(f"{name}-np{processes}.h5")
        code, text, err = mpi(processes, *args, "-o", out, "--threads", "1", "--force")
        self.assertEqual(code, 0, err)
        self.assertIn(f"on {processes} processes", text)
        return out

    def solve_both(self, args, processes, name):
        """One process's table, then the distributed one."""
        return self.solve_single(args, name), self.solve_distributed(args, processes, name)


class Tables(MpiCase):
    """-np 1 to 4 (PROCESSES) write tables identical to one process's, for every family and both universes."""

    CASES = {
        "nim-misere": ["--rules", "nim", "--misere", "--heaps", "4", "--max-heap", "20"],
        # The line chain with 4-word bitsets, and with 16 words and values past 8 bits;
        # with near amounts and a lag (its children fetched in pages).
        "nim-wide-lines": ["--rules", "nim", "--heaps", "3", "--max-heap", "70"],
        "nim-16-bit-values": ["--rules", "nim", "--misere", "--heaps", "2", "--max-heap", "300"],
        "allbut-near-lines": ["--rules", "allbut:2,5", "--misere", "--heaps", "3", "--max-heap", "40"],
        # Rows of one largest heap cut into pieces from 3 processes on (mpi/deal.h), so
        # that lines travel by the SECOND chain: 2 heaps, and 3 with near amounts.
        "nim-pieces": ["--rules", "nim", "--misere", "--heaps", "2", "--max-heap", "6"],
        "allbut-pieces": ["--rules", "allbut:2,5", "--heaps", "3", "--max-heap", "12"],
        "subtract-lines": ["--rules", "subtract:1,3,4", "--heaps", "4", "--max-heap", "14", "--kernel", "lines"],
        "allbut": ["--rules", "allbut:1,2", "--heaps", "4", "--max-heap", "20"],
        "subtract": ["--rules", "subtract:1,3,4", "--misere", "--heaps", "5", "--max-heap", "14"],
        "kayles-misere": ["--rules", "octal:0.77", "--misere", "--max-total", "32"],
        "grundy": ["--rules", "grundy", "--max-total", "30"],
        "wythoff": ["--rules", "wythoff", "--heaps", "3", "--max-heap", "20"],
        "moore": ["--rules", "moore:2", "--heaps", "4", "--max-heap", "12"],
    }

    def test_every_case_on_each_number_of_processes(self):
        for name, args in self.CASES.items():
            single = self.solve_single(args, name)
            for processes in PROCESSES:
                with self.subTest(case=name, processes=processes):
                    out = self.solve_distributed(args, processes, name)
                    self.assert_same_table(single, out)
            # The table answers like any other.
            code, text, err = run("verify", out)
            self.assertEqual(code, 0, err)

    def test_tables_of_several_chunks_and_both_formats(self):
        # 82,251 positions: two chunks of 65,536, the second one partial, so that one of
        # three processes writes none; then 19 chunks on the line chain, streamed.
        for args in (["--rules", "nim", "--misere", "--heaps", "4", "--max-heap", "35", "--kernel", "brute"],
                     ["--rules", "nim", "--misere", "--heaps", "5", "--max-heap", "40"]):
            with self.subTest(args=args):
                single, out = self.solve_both(args, 3, "big")
                self.assert_same_table(single, out)
        for extra in (["--format-version", "1", "--compression", "deflate"], ["--no-remoteness"],
                      ["--compression", "none"], ["--compression", "lz4"]):
            with self.subTest(extra=extra):
                single, out = self.solve_both(["--rules", "subtract:1-3", "--heaps", "4", "--max-heap", "25",
                                               *extra], 2, "x")
                # Deflate's chunks are HDF5's zlib under MPI, libdeflate's in one process:
                # the same entries in other bytes. nimtb makes every other chunk itself.
                self.assert_same_table(single, out, stored="deflate" not in extra)

    def test_an_uneven_line_chain_is_said(self):
        # Three groups of two largest heaps (0 0, 0 1, 1 1) on four processes: the process
        # of 1 1 holds half the positions.
        args = ["--rules", "nim", "--heaps", "3", "--max-heap", "1"]
        single, out = self.path("c-1.h5"), self.path("c-np4.h5")
        run("solve", *args, "-o", single, "--quiet")
        code, _, err = mpi(4, *args, "-o", out, "--threads", "1")
        self.assertEqual(code, 0, err)
        self.assertIn("one of the 4 processes holds 50 % of the positions", err)
        self.assert_same_table(single, out)
        code, _, err = mpi(2, "--rules", "nim", "--heaps", "4", "--max-heap", "20", "-o", self.path("even.h5"),
                           "--threads", "1")
        self.assertEqual(code, 0, err)
        self.assertNotIn("note:", err)

    def test_finer_levels_and_rounds_write_the_same_table(self):
        # The line chain's levels are one sum of its blocks' top heaps: 4 or 5 of them make
        # them finer (mpi/deal.h: chain_block_heaps takes 4 at K=8 H=63, 5 from K=9), and
        # Nim's aggregates go round by round within a level (an eighth of a level's). The
        # developers' knobs NIMTB_BLOCK_HEAPS and NIMTB_CHAIN_ROUND_WORDS make both happen in
        # universes small enough for a test: streamed (nim), and reading near children
        # (allbut:1,2, whose rounds fetch pages), on an even and an uneven split.
        for args in (["--rules", "nim", "--misere", "--heaps", "6", "--max-heap", "20"],
                     ["--rules", "allbut:1,2", "--heaps", "5", "--max-heap", "14"]):
            single = self.solve_single(args, "fine")
            for heaps, words in (("4", "64"), ("5", None), (None, "200")):
                for processes in (2, 3):
                    with self.subTest(args=args, heaps=heaps, words=words, processes=processes):
                        out = self.path(f"fine-np{processes}.h5")
                        stats = self.path("fine.json")
                        env = {"NIMTB_BLOCK_HEAPS": heaps} if heaps else {}
                        if words:
                            env["NIMTB_CHAIN_ROUND_WORDS"] = words
                        code, _, err = mpi(processes, *args, "-o", out, "--threads", "1",
                                           "--force", "--stats", stats, env=env)
                        self.assertEqual(code, 0, err)
                        self.assert_same_table(single, out)
                        with open(stats) as f:
                            levels = json.load(f)["levels"]
                        if heaps:  # levels keyed by the sum of j top heaps and how many are empty
                            j, h = int(heaps), int(args[-1])
                            self.assertEqual(len(levels), (j * h + 1) * (j + 1))
                        if words and args[1] == "nim":  # a level's rounds, every process in each
                            self.assertGreater(max(x["rounds"][0] for x in levels), 2)
                            for x in levels:
                                self.assertEqual(len(set(x["rounds"])), 1)
        code, _, err = mpi(2, "--rules", "nim", "--heaps", "3", "--max-heap", "5", "-o",
                           self.path("k.h5"), env={"NIMTB_BLOCK_HEAPS": "one"})
        self.assertNotEqual(code, 0)
        self.assertIn("nimtb: error: NIMTB_BLOCK_HEAPS=one is not a whole number from 2 to", err)
        self.assertEqual(err.count("nimtb: error:"), 1, err)
        self.assertFalse(os.path.exists(self.path("k.h5")))

    def test_the_chain_sweeps_every_shape_and_gives_its_lines_back(self):
        # Nim's chain sweeps run by run in one process's line kernel from 4 heaps on (a run
        # that ends at a0 = a1 hands on the line of heap 0 when a1 is m or m2), position by
        # position with 3; with or without remoteness (the aggregates' pairs). Where blocks
        # share 3 top heaps or more the home lines are given back after their last level, so
        # a process holds fewer at once than it keeps in all; with 2 it holds them all.
        for args, heaps in ((["--rules", "nim", "--misere", "--heaps", "3", "--max-heap", "12"], None),
                            (["--rules", "nim", "--heaps", "4", "--max-heap", "12"], "3"),
                            (["--rules", "nim", "--misere", "--heaps", "5", "--max-heap", "9",
                              "--no-remoteness"], "3"),
                            (["--rules", "nim", "--misere", "--heaps", "5", "--max-heap", "9"], "2")):
            single = self.solve_single(args, "shape")
            for processes in (2, 3):
                with self.subTest(args=args, heaps=heaps, processes=processes):
                    out, stats = self.path("shape-np.h5"), self.path("shape.json")
                    env = {"NIMTB_BLOCK_HEAPS": heaps} if heaps else {}
                    code, _, err = mpi(processes, *args, "-o", out, "--threads", "1", "--force",
                                       "--stats", stats, env=env)
                    self.assertEqual(code, 0, err)
                    self.assert_same_table(single, out)
                    with open(stats) as f:
                        j = json.load(f)
                    held, lines = j["process_home_lines_held"], j["process_home_lines"]
                    if heaps == "3":
                        self.assertLess(sum(held), sum(lines))
                        self.assertTrue(all(0 < h <= n for h, n in zip(held, lines)), (held, lines))
                    else:
                        self.assertEqual(held, lines)

    def test_more_processes_than_blocks(self):
        single, out = self.solve_both(["--rules", "nim", "--heaps", "2", "--max-heap", "3"], 4, "tiny")
        self.assert_same_table(single, out)

    def test_stats_count_what_crossed_between_processes(self):
        stats = self.path("stats.json")
        code, _, err = mpi(2, "--rules", "nim", "--misere", "--heaps", "4", "--max-heap", "20",
                           "-o", self.path("t.h5"), "--quiet", "--stats", stats)
        self.assertEqual(code, 0, err)
        with open(stats) as f:
            j = json.load(f)
        self.assertEqual(j["processes"], 2)
        self.assertEqual(len(j["peak_bytes"]), 2)
        self.assertEqual(sum(x["positions"] for x in j["levels"]), j["positions"])
        # What one process sends in a level, the other receives.
        for x in j["levels"]:
            self.assertEqual(x["sent"][0], x["received"][1])
            self.assertEqual(x["sent"][1], x["received"][0])
        self.assertGreater(sum(x["sent"][0] for x in j["levels"]), 0)
        # What each process held: its positions, and the line chain's home lines, one per
        # point of K-1 heaps of at most H (the universe's lines, docs/CLUSTER.md).
        self.assertEqual(sum(j["process_positions"]), j["positions"])
        self.assertEqual(sum(j["process_home_lines"]), math.comb(20 + 3, 3))
        self.assertTrue(all(j["process_positions"]) and all(j["process_home_lines"]))
        # Each process streamed its positions to disk (docs/CLUSTER.md), with a checkpoint
        # too (its spills in the checkpoint's folder); the brute-force kernel holds them in
        # memory, as one process does.
        self.assertTrue(j["streamed"])
        for extra, streamed in ((["--checkpoint", self.path("ck")], True), (["--kernel", "brute"], False)):
            with self.subTest(extra=extra):
                code, _, err = mpi(2, "--rules", "nim", "--misere", "--heaps", "4", "--max-heap", "20",
                                   "-o", self.path(f"c-{streamed}.h5"), "--quiet", "--stats", stats, *extra)
                self.assertEqual(code, 0, err)
                with open(stats) as f:
                    self.assertEqual(json.load(f)["streamed"], streamed)

    def test_what_only_one_process_does_is_refused(self):
        for rules, extra, words in (("nim", ["--method", "sprague-grundy"], "one process"),
                                    ("wythoff", ["--kernel", "lines"], "has no lines")):
            with self.subTest(extra=extra):
                out = self.path("r.h5")
                code, _, err = mpi(2, "--rules", rules, "--heaps", "3", "--max-heap", "5", *extra, "-o", out)
                self.assertNotEqual(code, 0)
                self.assertIn(words, err)
                self.assertEqual(err.count("nimtb: error:"), 1, err)
                self.assertFalse(os.path.exists(out))


class Checkpoints(MpiCase):
    """--checkpoint under mpirun: killed, then resumed, the table is the same; a checkpoint of
    another number of processes, of one process, or a damaged one is refused. Nim's line chain
    streams, and saves its spills and the chain's state (chain-LLLLLL.state); the brute-force
    kernel holds its positions in memory and saves its levels (levels-F-L.zst)."""

    UNIVERSE = ["--rules", "nim", "--misere", "--heaps", "6"]
    ARGS = ["--threads", "1", "--checkpoint-every", "0"]
    # Each path's arguments (the brute-force kernel's universe smaller: it is ten times
    # slower) and saved progress: a process's files, and the levels they reach.
    PATHS = {"streamed": (UNIVERSE + ["--max-heap", "44"] + ARGS, r"chain-(\d+)\.state"),
             "in memory": (UNIVERSE + ["--max-heap", "30"] + ARGS + ["--kernel", "brute"],
                           r"levels-\d+-(\d+)\.zst")}

    def saved(self, ck, pattern):
        """The least number of levels that both processes' files reach."""
        reached = []
        for process in ("process-0", "process-1"):
            folder = os.path.join(ck, process)
            names = os.listdir(folder) if os.path.isdir(folder) else []
            levels = [int(m.group(1)) for m in map(lambda n: re.fullmatch(pattern, n), names) if m]
            reached.append(max(levels, default=0))
        return min(reached)

    def killed(self, ck, out, path="streamed", levels=10, one_rank=False):
        args, pattern = self.PATHS[path]
        p = subprocess.Popen(mpi_command(2, *args, "--checkpoint", ck, "-o", out, "--quiet"),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV)
        while self.saved(ck, pattern) < levels:
            if p.poll() is not None:
                self.fail("the solve ended before it was killed: " + p.communicate()[1])
            time.sleep(0.01)
        processes = children(p.pid)
        if one_rank:
            # One process of the job, as a node's failure would stop it; mpirun ends the rest.
            os.kill(processes[1], signal.SIGKILL)
        else:
            # mpirun and its processes at once, as a power loss would stop them.
            p.send_signal(signal.SIGKILL)
            for pid in processes:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        p.communicate(timeout=60)
        self.assertNotEqual(p.returncode, 0)
        wait_gone(processes)

    def test_killed_then_resumed_writes_the_same_table(self):
        for path, (args, _) in self.PATHS.items():
            single = self.path(f"single-{path}.h5")
            self.assertEqual(run("solve", *args[:9], "-o", single, "--quiet")[0], 0)
            for one_rank in (False, True):
                with self.subTest(path=path, one_rank=one_rank):
                    name = f"{path.replace(' ', '-')}-{one_rank}"
                    ck, out = self.path(f"ck-{name}"), self.path(f"t-{name}.h5")
                    self.killed(ck, out, path, one_rank=one_rank)
                    self.assertFalse(os.path.exists(out))
                    code, _, err = mpi(2, *args, "--checkpoint", ck, "-o", out, "--quiet")
                    self.assertEqual(code, 0, err)
                    self.assertRegex(err, r"resuming from the checkpoint in .*ck-[\w-]+ \(\d+ levels saved by "
                                          r"all 2 processes\)")
                    self.assert_same_table(single, out)
                    self.assertFalse(os.path.exists(ck), "the checkpoint is removed once the table is written")

    def test_a_streamed_checkpoint_keeps_its_spills_and_the_chain(self):
        args = self.PATHS["streamed"][0]
        single = self.path("single.h5")
        self.assertEqual(run("solve", *args[:9], "-o", single, "--quiet")[0], 0)
        ck, out = self.path("ck"), self.path("t.h5")
        self.killed(ck, out, levels=20)
        names = sorted(os.listdir(os.path.join(ck, "process-0")))
        self.assertIn("value.spill", names)
        self.assertIn("remoteness.spill", names)
        self.assertFalse([n for n in names if n.startswith("levels-")], "no level is saved as in memory")
        states = [n for n in names if n.startswith("chain-")]
        self.assertTrue(1 <= len(states) <= 2, names)
        # Processes whose states do not meet (process 1's only at level 3): refused by the
        # process that lacks it, the checkpoint left alone.
        folder = os.path.join(ck, "process-1")
        for n in os.listdir(folder):
            if n.startswith("chain-"):
                shutil.move(os.path.join(folder, n), self.path(n))
        shutil.copy(os.path.join(ck, "process-0", states[-1]), os.path.join(folder, "chain-000003.state"))
        code, _, err = mpi(2, *args, "--checkpoint", ck, "-o", out)
        self.assertNotEqual(code, 0)
        self.assertRegex(err, r"process-0 holds no state of the line chain at level 3")
        self.assertEqual(err.count("nimtb: error:"), 1, err)
        self.assertFalse(os.path.exists(out))
        # A process with no state at all: the job starts again, and writes the same table.
        os.remove(os.path.join(folder, "chain-000003.state"))
        code, _, err = mpi(2, *args, "--checkpoint", ck, "-o", out)
        self.assertEqual(code, 0, err)
        self.assertNotIn("resuming", err)
        self.assert_same_table(single, out)
        self.assertFalse(os.path.exists(ck))

    def test_ctrl_c_keeps_what_is_solved(self):
        # Interrupted mid-solve, a streamed job saves the chain's state where it stopped, its
        # interval notwithstanding, and the same command goes on from there.
        args = self.UNIVERSE[:-1] + ["7", "--max-heap", "40", "--threads", "1", "--checkpoint-every", "1000"]
        ck, out = self.path("ck"), self.path("t.h5")
        p = subprocess.Popen(mpi_command(2, *args, "--checkpoint", ck, "-o", out), stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env=ENV)
        said = p.stderr.readline()  # the plan, said as the solve begins
        self.assertIn("by the line chain on 2 processes", said)
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=120)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("nimtb: error: interrupted", err)
        self.assertFalse(os.path.exists(out))
        for process in ("process-0", "process-1"):
            states = [n for n in os.listdir(os.path.join(ck, process)) if n.startswith("chain-")]
            self.assertEqual(len(states), 1, states)
        code, _, err = mpi(2, *args, "--checkpoint", ck, "-o", out, "--quiet")
        self.assertEqual(code, 0, err)
        self.assertRegex(err, r"resuming from the checkpoint in .* \([1-9]\d* levels saved by all 2 processes\)")
        single = self.path("single.h5")
        self.assertEqual(run("solve", *args[:9], "-o", single, "--quiet")[0], 0)
        self.assert_same_table(single, out)

    def test_foreign_and_damaged_checkpoints_are_refused(self):
        for path, (args, pattern) in self.PATHS.items():
            with self.subTest(path=path):
                self.refused(path, args, pattern)

    def refused(self, path, args, pattern):
        ck, out = self.path(f"ck-{path}"), self.path(f"t-{path}.h5")
        self.killed(ck, out, path)
        # Another number of processes, or one process, or the other path: refused, the checkpoint left alone.
        code, _, err = mpi(3, *args, "--checkpoint", ck, "-o", out)
        self.assertNotEqual(code, 0)
        self.assertIn("another solve", err)
        self.assertEqual(err.count("nimtb: error:"), 1, err)
        self.assertEqual(sorted(os.listdir(ck)), ["process-0", "process-1"], "the refused run left nothing")
        code, _, err = run("solve", *args, "--checkpoint", ck, "-o", out)
        self.assertNotEqual(code, 0)
        self.assertIn("several processes", err)
        # The same universe on the other path.
        other = args[:-2] + ["--kernel", "lines"] if path == "in memory" else args + ["--kernel", "brute"]
        code, _, err = mpi(2, *other, "--checkpoint", ck, "-o", out)
        self.assertNotEqual(code, 0)
        self.assertIn("another plan", err)
        ck4 = self.path(f"ck4-{path}")
        os.makedirs(os.path.join(ck4, "process-3"))
        code, _, err = mpi(2, *args, "--checkpoint", ck4, "-o", out)
        self.assertNotEqual(code, 0)
        self.assertIn("more processes", err)
        # A damaged file of process 1: that process says so, and all stop.
        folder = os.path.join(ck, "process-1")
        name = sorted(f for f in os.listdir(folder) if re.fullmatch(pattern, f))[-1]
        with open(os.path.join(folder, name), "r+b") as f:
            f.seek(20)
            f.write(b"\x00\x01\x02\x03")
        code, _, err = mpi(2, *args, "--checkpoint", ck, "-o", out)
        self.assertNotEqual(code, 0)
        self.assertIn("is damaged", err)
        self.assertIn("process-1", err)
        self.assertEqual(err.count("nimtb: error:"), 1, err)
        self.assertFalse(os.path.exists(out))


class ProcessDeath(MpiCase):
    """A process that dies stops the others: mpirun exits non-zero saying which, and no table
    appears under its name."""

    def test_a_killed_process_stops_the_job(self):
        out = self.path("t.h5")
        args = ["--rules", "nim", "--misere", "--heaps", "6", "--max-heap", "40", "--threads", "1",
                "--progress", "-o", out]
        p = subprocess.Popen(mpi_command(2, *args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, env=ENV)
        seen = ""
        while "solving nim misere [" not in seen:
            seen += p.stderr.read(1)
            self.assertIsNone(p.poll(), seen)
        processes = children(p.pid)
        self.assertEqual(len(processes), 2, processes)
        os.kill(processes[1], signal.SIGKILL)
        _, err = p.communicate(timeout=120)
        self.assertNotEqual(p.returncode, 0)
        self.assertRegex(seen + err, r"(?s)signal 9|Killed")
        self.assertFalse(os.path.exists(out))
        self.assertTrue(wait_gone(processes), "no process is left behind")


class FullDisk(MpiCase, SmallDisk):
    """A streamed process's spill that meets a full disk stops the job with one line of nimtb's and
    leaves nothing behind; with a checkpoint, it keeps what was solved."""

    DISK_SIZE = "1m"

    def test_a_full_disk_stops_the_job(self):
        # 1.2 million positions, 3 bytes each: 3.7 MB of spills on a 1 MB disk.
        code, _, err = mpi(2, "--rules", "nim", "--misere", "--heaps", "5", "--max-heap", "40", "--threads", "1",
                           "-o", os.path.join(self.disk, "t.h5"))
        self.assertNotEqual(code, 0)
        self.assertEqual(err.count("nimtb: error:"), 1, err)
        self.assertIn("cannot spill the solved positions to disk: No space left on device", err)
        self.assertEqual(os.listdir(self.disk), [])

    def test_a_full_disk_keeps_the_checkpoint(self):
        # The spills in the checkpoint's folder fill the disk: the job stops as above, and
        # the checkpoint keeps the levels saved before; moved where there is room, it resumes.
        args = ["--rules", "nim", "--misere", "--heaps", "5", "--max-heap", "40", "--threads", "1",
                "--checkpoint-every", "0"]
        ck = os.path.join(self.disk, "ck")
        code, _, err = mpi(2, *args, "--checkpoint", ck, "-o", self.path("t.h5"))
        self.assertNotEqual(code, 0)
        self.assertEqual(err.count("nimtb: error:"), 1, err)
        self.assertIn("No space left on device", err)
        self.assertFalse(os.path.exists(self.path("t.h5")))
        self.assertTrue([n for n in os.listdir(os.path.join(ck, "process-0")) if n.startswith("chain-")])
        moved = self.path("ck")
        shutil.copytree(ck, moved)
        code, _, err = mpi(2, *args, "--checkpoint", moved, "-o", self.path("t.h5"))
        self.assertEqual(code, 0, err)
        self.assertIn("resuming from the checkpoint", err)
        single = self.path("single.h5")
        self.assertEqual(run("solve", *args[:7], "-o", single, "--quiet")[0], 0)
        self.assert_same_table(single, self.path("t.h5"))

    def test_a_table_that_cannot_be_written_keeps_the_solve(self):
        # Solved, but the table meets the full disk: the checkpoint holds every level, and
        # the same solve written elsewhere solves nothing again.
        args = ["--rules", "nim", "--misere", "--heaps", "6", "--max-heap", "40", "-c", "none", "--threads", "1"]
        ck = self.path("ck")
        code, _, err = mpi(2, *args, "--checkpoint", ck, "-o", os.path.join(self.disk, "t.h5"))
        self.assertNotEqual(code, 0)
        self.assertIn("No space left on device", err)
        self.assertEqual(os.listdir(self.disk), [])
        out = self.path("t.h5")
        code, _, err = mpi(2, *args, "--checkpoint", ck, "-o", out, "--stats", self.path("s.json"))
        self.assertEqual(code, 0, err)
        with open(self.path("s.json")) as f:
            levels = json.load(f)["levels"]
        self.assertIn(f"resuming from the checkpoint in {ck} ({len(levels)} levels saved by all 2 processes)", err)
        single = self.path("single.h5")
        self.assertEqual(run("solve", *args[:9], "-o", single, "--quiet")[0], 0)
        self.assert_same_table(single, out)
        self.assertFalse(os.path.exists(ck))


if __name__ == "__main__":
    unittest.main()
