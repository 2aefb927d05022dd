"""`import nimtb` against the command: the same answers, the same errors.

Run by ctest with Debian's /usr/bin/python3 and its pytest: against the
package laid out in the build (PYTHONPATH=build/python, python.module) and
against the package pip installed in a new venv (python.package). NIMTB
names the binary.
"""
import dataclasses
import json
import os
import pathlib
import re
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import nimtb

NIMTB = os.environ.get("NIMTB", "build/apps/nimtb")


def cli(*args):
    p = subprocess.run([NIMTB, *args], capture_output=True, text=True, timeout=300)
    return p.returncode, p.stdout, p.stderr


TABLES = [
    ("nim", ["--heaps", "3", "--max-heap", "7"], {"heaps": 3, "max_heap": 7}, ["3 4 5", "1 1 1", "0", "7 7"]),
    ("nim", ["--misere", "--heaps", "4", "--max-heap", "9"], {"heaps": 4, "max_heap": 9, "misere": True},
     ["3 4 5", "1 1 1", "9 8 1 1"]),
    ("subtract:1,3,4", ["--misere", "--heaps", "3", "--max-heap", "10"],
     {"heaps": 3, "max_heap": 10, "misere": True}, ["2 2 7", "10 9"]),
    ("octal:0.77", ["--max-total", "16"], {"max_total": 16}, ["7 6 3", "16", "1 1 2"]),
    ("wythoff", ["--heaps", "2", "--max-heap", "20"], {"heaps": 2, "max_heap": 20}, ["6 9", "3 5"]),
]


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tables")
    made = []
    for n, (rule, args, kwargs, positions) in enumerate(TABLES):
        cli_path, py_path = str(folder / f"cli{n}.h5"), str(folder / f"py{n}.h5")
        code, out, err = cli("solve", "--rules", rule, *args, "-o", cli_path, "--quiet")
        assert code == 0, err
        made.append((rule, cli_path, nimtb.solve(rule, py_path, **kwargs), positions))
    return made


def test_queries_answer_as_the_command(tables):
    for rule, path, solved, positions in tables:
        opened = nimtb.Table(path)
        for position in positions:
            code, out, err = cli("query", path, position, "--json", "--line")
            want = json.loads(out)
            assert opened.query_json(position, line=True) == want, (rule, position)
            assert solved.query_json(position, line=True) == want, (rule, position)  # solved by the module
            heaps = [int(h) for h in position.split()]
            assert opened.query_json(heaps) == {k: v for k, v in want.items() if k != "line"}
            assert opened.rank(heaps) == want["rank"]
            # The typed answer says the same.
            a = opened.query(heaps, line=True)
            assert (a.rank, a.value, a.remoteness, a.to_move_wins) == (
                want["rank"], want["value"], want["remoteness"], want["to_move_wins"])
            assert a.outcome == ("N" if want["to_move_wins"] else "P")
            assert a.position == tuple(want["position"])
            assert [m.move for m in a.moves] == [m["move"] for m in want["moves"]]
            assert [m.move for m in opened.line(heaps)] == [m["move"] for m in want["line"]]
            for m, j in zip(a.moves, want["moves"]):
                assert m.result == tuple(j["result"]) and m.wins == j["wins"]
                # The command's names and numbering, field by field.
                assert (m.heap, m.heap_size, m.take) == (j["heap"], j["heap_size"], j["take"])
                assert m.leaves == (None if j["leaves"] is None else tuple(j["leaves"]))
                assert [(t.heap, t.size, list(t.leaves)) for t in m.touches] == [
                    (t["heap"], t["size"], t["leaves"]) for t in j["touches"]]


def test_info_is_the_commands(tables):
    for rule, path, solved, positions in tables:
        code, out, err = cli("info", path, "--json")
        assert nimtb.Table(path).info == json.loads(out)
        assert solved.info["rules"] == rule and solved.rules == rule
        kwargs = next(k for r, a, k, p in TABLES if r == rule)
        assert solved.info["max_total"] == kwargs.get("max_total")  # None for a box


def test_whole_arrays(tables):
    for rule, path, solved, positions in tables:
        values, remoteness = nimtb.Table(path).arrays()
        v2, r2 = solved.arrays()
        assert values.dtype in (np.uint8, np.uint16)
        assert np.array_equal(values, v2) and np.array_equal(remoteness, r2)
        t = nimtb.Table(path)
        for position in positions:
            q = t.query(position)
            assert (int(values[q.rank]), int(remoteness[q.rank])) == (q.value, q.remoteness)


def test_sequences_are_the_commands():
    for rule, args, kwargs in [("grundy", ["--max-heap", "3000"], {"max_heap": 3000}),
                               ("octal:0.156", ["--until-proven"], {"until_proven": True}),
                               ("subtract:1,3,4", ["--max-heap", "100"], {"max_heap": 100})]:
        code, out, err = cli("sequence", "--rules", rule, *args, "--json")
        want = json.loads(out)
        got = nimtb.sequence(rule, **kwargs)
        assert got.values.dtype == np.uint16
        assert got.values.tolist() == want["values"], rule
        assert got.algorithm == want["algorithm"] and got.rules == want["rules"]
        p = want["period"]
        assert (got.period.basis, got.period.explanation) == (p["basis"], p["explanation"]), rule
        assert (got.period.period, got.period.preperiod) == (p.get("period"), p.get("preperiod"))
        assert got.period.proven == (p["basis"] == "proof")


def test_counts_are_whole_numbers_as_range_takes_them(tmp_path):
    """A heap bound, a limit or a number of threads is an int or a numpy integer: a numpy
    array of floats was truncated by the conversion (nimtb.quotient("nim", np.array(196.0))
    ran for minutes; found by tests/fuzz/fuzz_python)."""
    assert nimtb.sequence("octal:0.77", np.int64(20)).max_heap == 20
    for bad in (20.0, np.array(20.0), np.float32(20), "20"):
        with pytest.raises(TypeError, match="max_heap is a whole number"):
            nimtb.sequence("octal:0.77", bad)
        with pytest.raises(TypeError, match="max_heap is a whole number"):
            nimtb.quotient("nim", bad)
    with pytest.raises(TypeError, match="limit is a whole number"):
        nimtb.ProvenGame("octal:0.77", limit=np.array(100.0))
    with pytest.raises(TypeError, match="heaps is a whole number"):
        nimtb.solve("nim", str(tmp_path / "t.h5"), heaps=np.array(2.0), max_heap=3)


def test_attribute_text_that_is_not_utf8_is_a_table_error(tmp_path):
    """Such a table raised RuntimeError (the JSON of its info) or a TableError whose message
    Python could not decode, so it had none (found by the damage campaign)."""
    import h5py
    path = str(tmp_path / "t.h5")
    nimtb.solve("nim", path, heaps=2, max_heap=3).close()
    with h5py.File(path, "r+") as f:
        del f.attrs["method"]
        f.attrs["method"] = np.bytes_(b"nim\xb9\xff")
    with pytest.raises(nimtb.TableError, match="attribute 'method' is not UTF-8 text"):
        nimtb.Table(path)


def test_a_refusal_after_a_solve_prints_nothing_of_hdf5s(tmp_path):
    """HDF5 (thread-safe in Debian) keeps its printing of errors per thread: a file refused
    after a solve, which runs on a thread of its own, printed HDF5's whole error stack
    (found by tests/fuzz/fuzz_python)."""
    script = ("import sys, nimtb\n"
              "t = nimtb.solve('nim', sys.argv[1], heaps=3, max_heap=40)\n"
              "t.close()\n"
              "data = open(sys.argv[1], 'rb').read()\n"
              "open(sys.argv[1], 'wb').write(data[:len(data) // 2])\n"
              "for read, path in ((nimtb.read_sequence, sys.argv[2]), (nimtb.Table, sys.argv[1])):\n"
              "    try:\n"
              "        read(path)\n"
              "    except nimtb.TableError as e:\n"
              "        print(e)\n")
    p = subprocess.run([sys.executable, "-c", script, str(tmp_path / "t.h5"), str(tmp_path)],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert "not an HDF5 file" in p.stdout and "cut short" in p.stdout, p.stdout
    assert p.stderr == ""


def test_errors_carry_the_commands_messages(tables, tmp_path):
    rule, path, solved, positions = tables[0]
    code, out, err = cli("query", path, "3 9")
    with pytest.raises(nimtb.InputError) as e:
        nimtb.Table(path).query("3 9")
    assert err.strip() == "nimtb: error: " + str(e.value)
    assert isinstance(e.value, ValueError)
    with pytest.raises(nimtb.TableError) as e:
        nimtb.Table(str(tmp_path / "none.h5"))
    assert "no such file" in str(e.value) and isinstance(e.value, OSError)
    # A file that is not there is the FileNotFoundError Python raises for one.
    for missing in (lambda: nimtb.Table(tmp_path / "none.h5"),
                    lambda: nimtb.read_sequence(tmp_path / "none.h5"),
                    lambda: nimtb.open_tablebase(tmp_path / "nothing"),
                    lambda: nimtb.ProvenGame(sequence=tmp_path / "none.h5")):
        with pytest.raises(FileNotFoundError) as e:
            missing()
        assert isinstance(e.value, nimtb.TableNotFoundError) and isinstance(e.value, nimtb.TableError)
    (tmp_path / "junk.h5").write_text("junk")
    with pytest.raises(nimtb.TableError) as e:
        nimtb.Table(tmp_path / "junk.h5")
    assert not isinstance(e.value, FileNotFoundError)
    with pytest.raises(nimtb.InputError, match="unknown rule"):
        nimtb.solve("chess", str(tmp_path / "c.h5"), heaps=2, max_heap=3)
    with pytest.raises(nimtb.InputError, match="splits heaps"):
        nimtb.solve("grundy", str(tmp_path / "g.h5"), heaps=2, max_heap=3)
    with pytest.raises(nimtb.TableError, match="already exists"):
        nimtb.solve("nim", path, heaps=3, max_heap=7)
    with pytest.raises(nimtb.InputError, match="no theorem proves a period of grundy"):
        nimtb.sequence("grundy", until_proven=True)
    with pytest.raises(nimtb.InputError, match="not both or neither"):
        nimtb.sequence("grundy")


def test_solve_keywords_are_the_requests_options(tmp_path):
    """solve's keywords reach the one definition of a request (service/request/solve_request.h):
    memory, added once there, is a keyword here with no other change; the universe's checks
    are the command's."""
    with pytest.raises(MemoryError, match="of memory, but only 64.0 KiB"):
        nimtb.solve("nim", tmp_path / "m.h5", heaps=4, max_heap=40, memory=64 << 10)
    assert not (tmp_path / "m.h5").exists()
    nimtb.solve("nim", tmp_path / "m.h5", heaps=4, max_heap=40, memory=1 << 30).close()
    with pytest.raises(nimtb.InputError, match="solve option memory: expected a whole number"):
        nimtb.solve("nim", tmp_path / "n.h5", heaps=3, max_heap=4, memory=-1)
    with pytest.raises(nimtb.InputError, match="give max_heap .a box. or max_total, not both"):
        nimtb.solve("nim", tmp_path / "n.h5", heaps=3, max_heap=4, max_total=5)
    with pytest.raises(nimtb.InputError, match="no universe to solve"):
        nimtb.solve("nim", tmp_path / "n.h5")
    # stream=True: the positions go to disk as solved, the table is the same.
    with nimtb.solve("nim", tmp_path / "s.h5", heaps=4, max_heap=12, misere=True, stream=True) as s, \
            nimtb.solve("nim", tmp_path / "i.h5", heaps=4, max_heap=12, misere=True) as i:
        for position in ([], [1], [2, 3], [5, 7, 12], [1, 1, 12, 12]):
            assert s.query_json(position) == i.query_json(position)
    with pytest.raises(nimtb.InputError, match="stream=True needs"):
        nimtb.solve("allbut:1,2", tmp_path / "a.h5", heaps=4, max_heap=12, stream=True)
    # nimtb's limits are a ValueError (TooLargeError), never a MemoryError; this machine's
    # memory (above) is a MemoryError.
    with pytest.raises(nimtb.TooLargeError, match="a box holds at most 64 heaps") as e:
        nimtb.solve("nim", tmp_path / "n.h5", heaps=65, max_heap=2)
    assert isinstance(e.value, ValueError) and not isinstance(e.value, MemoryError)


def test_messages_speak_python(tables, tmp_path):
    """Errors name keyword arguments, never the command's flags."""
    rule, path, solved, positions = tables[0]
    with pytest.raises(nimtb.TableError) as e:
        nimtb.solve("nim", path, heaps=3, max_heap=7)
    assert "pass overwrite=True" in str(e.value) and "--" not in str(e.value)
    with pytest.raises(nimtb.InputError) as e:
        nimtb.solve("grundy", str(tmp_path / "g.h5"), heaps=2, max_heap=3)
    assert "max_total=N" in str(e.value) and "--" not in str(e.value)
    with pytest.raises(nimtb.InputError) as e:
        nimtb.solve("wythoff", str(tmp_path / "w.h5"), heaps=2, max_heap=3, kernel="lines")
    assert "kernel='brute'" in str(e.value) and "--" not in str(e.value)
    # The command says the same in its own words.
    code, out, err = cli("solve", "--rules", "nim", "--heaps", "3", "--max-heap", "7", "-o", path)
    assert code == 1 and "overwrite it with --force" in err


def test_a_sequence_goes_on_from_its_checkpoint(tmp_path):
    """The values of a run stopped (a checkpoint the command left) are taken up, and the
    checkpoint is removed once the sequence is done."""
    ck = tmp_path / "g.ck"
    whole = nimtb.sequence("grundy", 2**21).values
    p = subprocess.Popen([NIMTB, "sequence", "--rules", "grundy", "--max-heap", str(2**21),
                          "--checkpoint", str(ck), "--progress"], stderr=subprocess.PIPE)
    seen = b""
    while b"[#" not in seen:
        byte = p.stderr.read(1)
        assert byte, seen
        seen += byte
    p.send_signal(signal.SIGINT)
    assert p.wait(timeout=300) == 1 and ck.exists()
    resumed = nimtb.sequence("grundy", 2**21, checkpoint=ck)
    assert (resumed.values == whole).all()
    assert not ck.exists()
    # Its record: where the values stand at 2^20, and the heaps rare under its mask.
    r = resumed.record
    assert r is not None and r.mask == 254
    m = next(m for m in r.milestones if m.heaps == 2**20)
    assert (m.heaps, m.largest_value, m.largest_value_heap) == (2**20, int(whole[: 2**20].max()),
                                                                int(whole[: 2**20].argmax()))
    parity = np.array([bin(int(v) & r.mask).count("1") % 2 for v in whole[1:]])
    assert r.rare[:, 0].tolist() == (np.flatnonzero(parity == 0) + 1).tolist()
    assert m.rare_heaps == int((r.rare[:, 0] < 2**20).sum())


def test_a_sequence_beyond_its_bound_is_refused_before_any_work():
    with pytest.raises(nimtb.InputError, match="from 1 to 4294967296"):
        nimtb.sequence("grundy", max_heap=10**11)


def interrupt_after(seconds):
    """Sends this process SIGINT in `seconds`; returns when it was sent (a list, filled then)."""
    sent = []

    def fire():
        sent.append(time.monotonic())
        os.kill(os.getpid(), signal.SIGINT)

    threading.Timer(seconds, fire).start()
    return sent


@pytest.mark.parametrize("work", ["solve", "sequence"])
def test_ctrl_c_raises_keyboard_interrupt_at_once_and_leaves_no_file(tmp_path, work):
    path = tmp_path / "big.h5"
    ticks = []
    stop = threading.Event()

    def tick():  # another Python thread, running while the work does
        while not stop.is_set():
            ticks.append(1)
            time.sleep(0.01)

    ticker = threading.Thread(target=tick)
    ticker.start()
    sent = interrupt_after(1.0)
    try:
        with pytest.raises(KeyboardInterrupt):
            if work == "solve":
                nimtb.solve("nim", path, heaps=6, max_heap=63, misere=True, kernel="brute")
            else:
                nimtb.sequence("grundy", max_heap=2**27, path=str(path))
        raised = time.monotonic()
    finally:
        stop.set()
        ticker.join()
    assert sent, "the work ended before the interrupt: make it longer"
    # The work runs for minutes; honoured within seconds it was interrupted, not finished.
    # The bound is generous: a loaded machine took 0.8 s where an idle one takes 0.1 s.
    assert raised - sent[0] < 10
    assert len(ticks) > 50  # the other thread ran for the second before the interrupt
    assert not path.exists() and os.listdir(tmp_path) == []


def test_a_table_as_python_expects_it(tables, tmp_path):
    rule, path, solved, positions = tables[0]  # nim, 3 heaps of at most 7
    code, out, err = cli("--version")
    assert nimtb.__version__ == out.split()[1]
    with nimtb.Table(pathlib.Path(path)) as t:
        assert len(t) == 120 and not t.closed
        assert "nim normal" in repr(t) and "120 positions" in repr(t)
        # rank and unrank go both ways, over the whole table
        for r in range(len(t)):
            assert t.rank(t.unrank(r)) == r
        assert t.unrank(t.rank("3 4 5")) == (5, 4, 3)
        assert t.unrank(0) == ()
        with pytest.raises(nimtb.InputError, match="ranks go from 0 to 119"):
            t.unrank(120)
    assert t.closed and "(closed)" in repr(t)
    with pytest.raises(nimtb.TableError, match="closed"):
        t.query("3 4 5")


@pytest.mark.parametrize("bad, words", [
    ([3.0, 4, 5], "3.0, not a whole number"),
    (np.array([3.0, 4.0]), "not a whole number"),
    (np.array([[3, 4], [5, 6]]), "one-dimensional"),
    ([2**63], "more than"),
    ([-1, 2], "negative"),
    (b"3 4 5", "not bytes"),
    (7, "not int"),
])
def test_bad_positions_are_input_errors(tables, bad, words):
    rule, path, solved, positions = tables[0]
    with pytest.raises(nimtb.InputError, match=words):
        nimtb.Table(path).query(bad)


def test_numpy_integers_are_heaps(tables):
    rule, path, solved, positions = tables[0]
    t = nimtb.Table(path)
    assert t.query(np.array([3, 4, 5], dtype=np.uint8)) == t.query("3 4 5")
    assert t.rank((np.int64(3), 4, 5)) == 48


@pytest.mark.skipif("NIMTB_INSTALLED" not in os.environ, reason="run by install_and_test.sh")
def test_the_module_is_the_installed_package():
    assert nimtb.__file__.startswith(os.environ["NIMTB_INSTALLED"])


def test_a_tablebase_folder_answers_as_query_tables_does(tmp_path):
    """open_tablebase(DIR): each position from the smallest table of its game that holds it,
    the answer of that Table; a position no table holds is a NotInTableError saying so."""
    nimtb.solve("kayles", tmp_path / "k12.h5", max_total=12)
    nimtb.solve("octal:0.77", tmp_path / "k20.h5", max_total=20)
    nimtb.solve("kayles", tmp_path / "km.h5", max_total=16, misere=True)
    (tmp_path / "junk.h5").write_text("no table")
    with nimtb.open_tablebase(tmp_path) as tb:
        assert [(t.path, t.rules, t.convention) for t in tb.tables] == [
            (str(tmp_path / "k12.h5"), "octal:0.77", "normal"),
            (str(tmp_path / "k20.h5"), "octal:0.77", "normal"),
            (str(tmp_path / "km.h5"), "octal:0.77", "misere")]
        assert len(tb.skipped) == 1 and "junk.h5" in tb.skipped[0]
        assert tb.table_for([5, 6], "kayles").path == str(tmp_path / "k12.h5")
        assert tb.table_for("12 3", "Kayles").path == str(tmp_path / "k20.h5")
        assert tb.query([5, 6], "kayles", misere=True) == nimtb.Table(tmp_path / "km.h5").query([5, 6])
        code, out, err = cli("query", "--tables", str(tmp_path), "--rules", "kayles", "12 3", "--json")
        want = json.loads(out)
        assert want.pop("table") == str(tmp_path / "k20.h5")
        assert tb.table_for("12 3", "kayles").query_json("12 3") == want
        with pytest.raises(nimtb.NotInTableError, match="no table of octal:0.77 normal in .* holds 15 6"):
            tb.query([15, 6], "kayles")
        with pytest.raises(nimtb.NotInTableError, match="is of octal:0.07 normal"):
            tb.query([5, 6], "dawsons-kayles")
    with pytest.raises(nimtb.TableError, match="no such folder"):
        nimtb.open_tablebase(tmp_path / "none")


def test_moves_say_their_structure(tmp_path):
    """Every move says which heaps it touched and what it left: splits and
    moves on several heaps included, not only in the English phrase."""
    kayles = nimtb.solve("octal:0.77", tmp_path / "k.h5", max_total=12)
    moves = {m["move"]: m for m in kayles.query_json([3, 5])["moves"]}
    assert moves["take 1 from the 3, leaving 1 and 1"]["touches"] == [{"heap": 1, "size": 3, "leaves": [1, 1]}]
    assert moves["take 2 from the 5"]["touches"] == [{"heap": 2, "size": 5, "leaves": [3]}]
    assert (moves["take 1 from the 3, leaving 1 and 1"]["heap"],
            moves["take 1 from the 3, leaving 1 and 1"]["leaves"]) == (1, [1, 1])
    # As typed objects: the same names, heaps counted from 1, None where a
    # field does not apply (a move of several heaps).
    moves = {m.move: m for m in kayles.query([3, 5]).moves}
    split = moves["take 1 from the 3, leaving 1 and 1"]
    assert (split.heap, split.heap_size, split.take, split.leaves, split.touches) == (
        1, 3, 1, (1, 1), (nimtb.Touch(1, 3, (1, 1)),))
    plain = moves["take 2 from the 5"]
    assert (plain.heap, plain.take, plain.leaves, plain.touches) == (2, 2, (3,), (nimtb.Touch(2, 5, (3,)),))
    moore = nimtb.solve("moore:2", tmp_path / "m.h5", heaps=3, max_heap=7)
    moves = {m["move"]: m for m in moore.query_json([5, 6])["moves"]}
    assert moves["take 5 from the 5 and 6 from the 6"]["touches"] == [
        {"heap": 1, "size": 5, "leaves": []}, {"heap": 2, "size": 6, "leaves": []}]
    both = {m.move: m for m in moore.query([5, 6]).moves}["take 5 from the 5 and 6 from the 6"]
    assert (both.heap, both.heap_size, both.take, both.leaves) == (None, None, None, None)
    assert both.touches == (nimtb.Touch(1, 5, ()), nimtb.Touch(2, 6, ()))
    # Along the perfect line, each move's heaps are those of the position before it.
    for m in kayles.line([3, 5]):
        assert all(t.size > sum(t.leaves) for t in m.touches)


def test_heaps_of_any_size_from_a_proven_period(tmp_path):
    """ProvenGame answers as `nimtb query --rules` and `--sequence` do."""
    code, out, err = cli("query", "--rules", "octal:0.16", "1000000000000 7 13", "--json")
    want = json.loads(out)
    game = nimtb.ProvenGame("octal:0.16")
    assert game.query_json("1000000000000 7 13") == want
    assert game.query_json([10**12, 7, 13]) == want
    a = game.query([10**12, 7, 13])
    assert (a.value, a.to_move_wins, a.outcome) == (want["value"], want["to_move_wins"], "N")
    m = want["winning_move"]
    assert a.winning_move == nimtb.HeapMove(m["move"], m["heap"], m["heap_size"], m["take"],
                                            tuple(m["leaves"]))
    assert a.winning_move.heap == 1 and a.winning_move.leaves == (5, 999999999993)
    assert game.period.period == 149459 and game.period.proven and "149459" in repr(game)
    s = tmp_path / "s.h5"
    nimtb.sequence("octal:0.16", until_proven=True, path=s)
    assert nimtb.ProvenGame(sequence=s).query_json([10**12, 7, 13]) == want
    read = nimtb.read_sequence(s)
    assert read.rules == "octal:0.16" and read.period == game.period
    # Its record too, as computed.
    computed = nimtb.sequence("octal:0.16", until_proven=True).record
    assert read.record is not None and computed is not None
    assert (read.record.mask, read.record.milestones) == (computed.mask, computed.milestones)
    assert read.record.rare.tolist() == computed.rare.tolist()
    assert read.values.tolist() == nimtb.sequence("octal:0.16", read.max_heap).values.tolist()
    # A formula answers any heap; values without a period, heaps within them.
    nim = nimtb.ProvenGame("nim")
    assert nim.query([10**12, 7]).value == 10**12 ^ 7 and nim.known_up_to is None
    assert nim.query([10**12, 7]).basis == "formula" and "Bouton" in repr(nim)
    grundy = nimtb.ProvenGame("grundy", limit=1000)
    assert grundy.known_up_to == 1000 and grundy.query([500, 7]).basis == "values"
    g = nimtb.sequence("grundy", 500).values
    assert grundy.query([500, 7]).value == int(g[500]) ^ int(g[7])
    with pytest.raises(nimtb.InputError, match="heap 1001 is beyond the values known of grundy"):
        grundy.query([1001])
    # Without a theorem, values are computed as queries need them (at first
    # 1024 heaps, then at least twice as many), up to the limit.
    lazy = nimtb.ProvenGame("grundy", limit=10000)
    assert lazy.known_up_to == 1024
    assert lazy.query([3000, 7]).value == nimtb.ProvenGame("grundy", limit=3000).query([3000, 7]).value
    assert lazy.known_up_to == 3000
    g = nimtb.sequence("grundy", 6000).values
    assert lazy.query([3500]).value == int(g[3500]) and lazy.known_up_to == 6000
    assert lazy.query([10000]).value == nimtb.sequence("grundy", 10000).values[10000]
    assert lazy.known_up_to == 10000
    with pytest.raises(nimtb.InputError, match="heap 10001 is beyond the values known of grundy"):
        lazy.query([10001])
    with pytest.raises(nimtb.InputError, match="not the sequence file's"):
        nimtb.ProvenGame("octal:0.77", sequence=s)
    with pytest.raises(nimtb.InputError, match="more than"):
        game.query([2**64])


def test_positions_both_ways_for_every_table(tables):
    """positions(), unrank and rank round-trip for every rank of every table,
    and arrays() indexed by rank(positions) agrees with query."""
    for rule, path, solved, positions in tables:
        with nimtb.Table(path) as t:
            rows = t.positions()
            assert rows.shape == (len(t), t.info["max_heaps"]) and rows.dtype == np.uint32
            assert np.array_equal(t.rank(rows), np.arange(len(t)))
            assert np.array_equal(t.positions(5, 9), rows[5:9])
            assert t.positions(len(t), len(t) + 3).shape == (0, rows.shape[1])
            for r in range(len(t)):
                heaps = t.unrank(r)
                assert t.rank(heaps) == r
                assert heaps == tuple(int(h) for h in rows[r] if h)
            assert list(t) == [t.unrank(r) for r in range(len(t))]
            values, remoteness = t.arrays()
            ranks = t.rank(rows)
            for r in range(0, len(t), max(1, len(t) // 40)):
                a = t.query(rows[r])
                assert (a.value, a.remoteness) == (int(values[ranks[r]]), int(remoteness[ranks[r]]))
            # Rows in any order of heaps, as a list of lists too.
            shuffled = rows[:, ::-1].tolist()
            assert t.rank(shuffled).tolist() == list(range(len(t)))


def test_a_missing_position_is_a_key_error(tables):
    rule, path, solved, positions = tables[0]  # nim, 3 heaps of at most 7
    t = nimtb.Table(path)
    with pytest.raises(KeyError):
        t["3 9"]
    with pytest.raises(nimtb.NotInTableError, match="heap 2 has 9 tokens"):
        t.query([3, 9])
    with pytest.raises(nimtb.NotInTableError, match="the position has 4 non-empty heaps"):
        t.query("1 1 1 1")
    assert t.get("3 9") is None and t.get("3 9", default=-1) == -1
    assert t.get("3 4 5") == t.query("3 4 5") == t["3 4 5"]
    assert "3 4 5" in t and [3, 9] not in t and "x" not in t
    with pytest.raises(nimtb.InputError, match="not a whole number"):
        t.get([3.5])  # malformed is not missing
    with pytest.raises(nimtb.NotInTableError, match="row 1: heap 2 has 8 tokens"):
        t.rank(np.array([[1, 2, 3], [1, 8, 0]]))


@pytest.mark.parametrize("bad, error, words", [
    (np.array([[1.0, 2.0, 3.0]]), nimtb.InputError, "whole numbers, not float64"),
    ([[1, 2, 3], [1, 2]], nimtb.InputError, "same number of heaps"),
    (np.array([[1, -2, 3]]), nimtb.InputError, "row 0: heap 2 is -2, negative"),
    ("3 x 5", nimtb.InputError, "x"),
])
def test_bad_rows_and_texts_are_input_errors(tables, bad, error, words):
    rule, path, solved, positions = tables[0]
    with pytest.raises(error, match=words):
        nimtb.Table(path).rank(bad)


def test_wrong_types_are_type_errors(tables, tmp_path):
    rule, path, solved, positions = tables[0]
    with pytest.raises(TypeError, match="path is a path"):
        nimtb.Table(3)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="a rank is a whole number"):
        nimtb.Table(path).unrank("3")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="checkpoint is a path"):
        nimtb.solve("nim", tmp_path / "x.h5", heaps=2, max_heap=3, checkpoint=5)  # type: ignore[arg-type]


def test_with_closes_the_file_for_h5py(tables, tmp_path):
    h5py = pytest.importorskip("h5py")
    rule, path, solved, positions = tables[0]
    copy = tmp_path / "copy.h5"
    copy.write_bytes(pathlib.Path(path).read_bytes())
    with nimtb.Table(copy) as t:
        t.query("3 4 5")
    with h5py.File(copy, "r+") as f:  # would fail while nimtb held the file open
        f.attrs["note"] = "written after nimtb closed it"


def _answer_in_another_process(table):
    return table.query("3 4 5").value


def test_a_table_pickles_by_path_even_to_a_spawned_process(tables):
    import multiprocessing
    import pickle

    rule, path, solved, positions = tables[0]
    t = nimtb.Table(path)
    back = pickle.loads(pickle.dumps(t))
    assert back.path == t.path and back.query("3 4 5") == t.query("3 4 5")
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        assert pool.map(_answer_in_another_process, [t]) == [t.query("3 4 5").value]


def test_verify_is_the_commands(tables):
    for rule, path, solved, positions in tables:
        code, out, err = cli("verify", path, "--json")
        want = json.loads(out)
        calls = []
        got = nimtb.Table(path).verify(progress=lambda done, total: calls.append((done, total)))
        assert got.ok == want["ok"] and (got.positions, got.p_positions) == (
            want["positions"], want["p_positions"])
        assert [(c.name, c.applies, c.tested, c.held) for c in got.checks] == [
            (c["name"], c["applies"], c["tested"], c["held"]) for c in want["checks"]]
        assert list(got.single_heaps) == want["single_heaps"]["values"]
        assert got.check("consistency").passed
        # A check that does not apply passed nothing: None, not True.
        assert all((c.passed is None) == (not c.applies) for c in got.checks)
        assert calls and calls[-1][0] == calls[-1][1] == got.positions


def test_progress_is_reported_and_an_exception_in_it_stops_the_work(tmp_path):
    calls = []
    t = nimtb.solve("nim", tmp_path / "a.h5", heaps=3, max_heap=20,
                    progress=lambda done, total: calls.append((done, total)))
    assert calls and all(d <= total for d, total in calls)
    assert [d for d, _ in calls] == sorted(d for d, _ in calls) and calls[-1][0] == calls[-1][1]
    assert len(t) == 1771

    class Enough(Exception):
        pass

    def stop(done, total):
        raise Enough

    with pytest.raises(Enough):
        nimtb.solve("nim", tmp_path / "b.h5", heaps=6, max_heap=63, misere=True, kernel="brute",
                    progress=stop)
    with pytest.raises(Enough):
        nimtb.sequence("grundy", 2**24, path=tmp_path / "s.h5", progress=stop)
    assert sorted(os.listdir(tmp_path)) == ["a.h5"]


def test_signatures_and_docstrings():
    import inspect

    for f in [nimtb.solve, nimtb.sequence, nimtb.read_sequence, nimtb.Table.query,
              nimtb.Table.rank, nimtb.Table.positions, nimtb.Table.verify, nimtb.ProvenGame,
              nimtb.Table.get, nimtb.Table.unrank]:
        signature = inspect.signature(f)
        assert all(p.annotation is not inspect.Parameter.empty
                   for p in signature.parameters.values() if p.name != "self"), f
        assert f.__doc__ and len(f.__doc__) > 40, f
    assert "heaps" in inspect.signature(nimtb.solve).parameters


def test_mypy_strict_accepts_a_script_that_uses_the_types(tmp_path):
    pytest.importorskip("mypy")
    import sys

    script = tmp_path / "use.py"
    script.write_text(
        "from typing import Optional\n"
        "import numpy as np\n"
        "import nimtb\n\n"
        "def best(path: str) -> Optional[int]:\n"
        "    with nimtb.Table(path) as t:\n"
        "        a: nimtb.Answer = t.query('3 4 5')\n"
        "        m: Optional[nimtb.Move] = a.best_move\n"
        "        ranks = t.rank(t.positions())\n"
        "        g: Optional[nimtb.Answer] = t.get([1, 2])\n"
        "        s: nimtb.Sequence = nimtb.sequence('octal:0.77', 100)\n"
        "        n: Optional[int] = s.period.period\n"
        "        return None if m is None else m.heap\n")
    env = dict(os.environ)
    if "NIMTB_INSTALLED" not in env:  # the package laid out in the build
        env["MYPYPATH"] = str(pathlib.Path(nimtb.__file__).parent.parent)
    p = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental",
                        "--cache-dir", str(tmp_path / "cache"), str(script)],
                       capture_output=True, text=True, env=env, cwd=tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    # And it refuses a script that misuses them.
    script.write_text("import nimtb\nx: str = nimtb.Table('t.h5').query('1').value\n")
    p = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental",
                        "--cache-dir", str(tmp_path / "cache"), str(script)],
                       capture_output=True, text=True, env=env, cwd=tmp_path)
    assert p.returncode == 1 and "Incompatible types" in p.stdout, p.stdout
    # The package's own code is strict-clean too (checked from the build
    # tree: mypy refuses site-packages as a search path).
    if "NIMTB_INSTALLED" in os.environ:
        return
    package = pathlib.Path(nimtb.__file__).parent
    p = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental",
                        "--cache-dir", str(tmp_path / "cache"), "-p", "nimtb"],
                       capture_output=True, text=True, cwd=tmp_path,
                       env={**os.environ, "MYPYPATH": str(package.parent)})
    assert p.returncode == 0, p.stdout + p.stderr


@pytest.fixture()
def agg():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    yield plt
    plt.close("all")


def test_plot_plane_is_the_tables(tables, agg, tmp_path):
    import nimtb.plot

    for rule, path, solved, positions in [tables[0], tables[3]]:  # a box, and a total
        t = nimtb.Table(path)
        image = nimtb.plot.plane(t)
        data = np.ma.filled(image.get_array().astype(float), np.nan)  # NaN: outside
        h = t.info["max_heap_size"]
        assert data.shape == (h + 1, h + 1)
        for a in range(h + 1):
            for b in range(h + 1):
                answer = t.get([a, b])
                if answer is None:
                    assert np.isnan(data[a, b]), (rule, a, b)
                else:
                    assert data[a, b] == (answer.outcome == "N"), (rule, a, b)
        values = nimtb.plot.plane_data(t, others=[1], what="value")
        assert values[2, 3] == t.query([2, 3, 1]).value
        image.figure.savefig(tmp_path / "plane.png")
        assert (tmp_path / "plane.png").stat().st_size > 1000
    with pytest.raises(nimtb.InputError, match="more than this table's limit"):
        nimtb.plot.plane(nimtb.Table(tables[0][1]), others=[9])  # a heap above the 7 of the table


def test_plot_misere_difference_is_the_tables(tables, agg):
    import nimtb.plot

    normal, misere = nimtb.Table(tables[0][1]), nimtb.Table(tables[1][1])  # nim, both conventions
    data = np.ma.filled(nimtb.plot.misere_difference(normal, misere, others=[1]).get_array(), np.nan)
    assert data.shape == (8, 8)  # the smaller of the two planes
    for a in range(8):
        for b in range(8):
            differs = normal.query([a, b, 1]).outcome != misere.query([a, b, 1]).outcome
            assert data[a, b] == differs, (a, b)
    assert data[1, 0] == 1 and data[2, 3] == 0  # 1 1: P in normal play, N in misère
    with pytest.raises(nimtb.InputError, match="same rule"):
        nimtb.plot.misere_difference(misere, normal)


def test_plot_sequence_and_p_counts_are_the_data(tables, agg):
    import nimtb.plot

    s = nimtb.sequence("octal:0.77", until_proven=True)
    ax = nimtb.plot.sequence(s)
    (points,) = ax.lines
    assert points.get_ydata().tolist() == s.values.tolist()
    spans = sorted(tuple(p.get_xy()[:, 0].min() for _ in [0]) + (p.get_xy()[:, 0].max(),)
                   for p in ax.patches)
    assert spans == [(0, 71), (71, 83)]  # the preperiod, then one period of 12, proven
    t = nimtb.Table(tables[3][1])  # Kayles, at most 16 tokens
    ax = nimtb.plot.p_counts(t)
    rows = t.positions()
    values, _ = t.arrays()
    totals = rows.sum(axis=1).astype(np.int64)
    bars = ax.patches
    n = len(bars) // 2
    assert [b.get_height() for b in bars[:n]] == np.bincount(totals).tolist()
    assert [b.get_height() for b in bars[n:]] == np.bincount(totals[values == 0], minlength=n).tolist()


def test_the_tour_in_docs_runs_as_written(tmp_path, agg, monkeypatch):
    """docs/PYTHON.md's examples, outputs included, in an empty folder."""
    import doctest

    monkeypatch.chdir(tmp_path)
    tour = pathlib.Path(__file__).resolve().parent.parent.parent / "docs" / "PYTHON.md"
    failures, tried = doctest.testfile(str(tour), module_relative=False, verbose=False,
                                       optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert tried > 30 and failures == 0
    assert (tmp_path / "p-counts.png").exists()


def test_quotient_as_python_expects_it(tmp_path):
    q = nimtb.quotient("nim", 7)
    assert (q.order, q.orders) == (10, (1, 2, 6, 6, 10, 10, 10, 10))
    assert q.generators == (("a", 1), ("b", 2), ("c", 4))
    assert ("a^2", "1") in q.relations
    assert q.table.shape == (10, 10) and q.phi.shape == (8,)
    # Bouton's misère rule, position by position.
    for position in [(1,), (1, 1), (1, 1, 1), (2, 2), (3, 2, 1), (5, 4, 1), (7, 7), (6, 5, 3)]:
        x = 0
        for h in position:
            x ^= h
        p = x == 1 if max(position) <= 1 else x == 0
        assert q.outcome(position) == ("P" if p else "N"), position
    assert q.outcome("3 2 1") == "P" and q.element([]) == 0
    # The presentation, as the command prints it and writes it as LaTeX.
    assert q.latex == cli("quotient", "--rules", "nim", "--max-heap", "7", "--latex")[1]
    assert q.text in cli("quotient", "--rules", "nim", "--max-heap", "7")[1] and "generators" in q.text
    # Against a solved misère table of Kayles.
    k = nimtb.quotient("octal:0.77", 12)
    table = nimtb.solve("octal:0.77", tmp_path / "k.h5", max_total=12, misere=True)
    for position in table:
        assert k.outcome(position) == table[position].outcome, position
    with pytest.raises(nimtb.InputError, match="above"):
        k.element([13])
    with pytest.raises(nimtb.InputError, match="several heaps"):
        nimtb.quotient("wythoff", 5)
    # Proven for every heap size: heaps beyond max_heap answered by the period.
    w = nimtb.quotient("octal:0.75", 500, until_proven=True)
    assert (w.max_heap, w.proof) == (21, (8, 2)) and k.proof is None
    small = nimtb.quotient("octal:0.75", 40)
    for position in [(40,), (39, 7), (33, 22, 1), (25, 24)]:
        assert w.outcome(position) == small.outcome(position), position
    assert w.element([10**12]) == w.element([22])
    with pytest.raises(nimtb.InputError, match="no periodicity theorem"):
        nimtb.quotient("grundy", 50, until_proven=True)
    # Resumed from a file the command wrote: the run from heap 1's quotient.
    path = tmp_path / "q20.json"
    subprocess.run([NIMTB, "quotient", "--rules", "octal:0.07", "--max-heap", "20", "-o", str(path)],
                   check=True, capture_output=True)
    resumed, whole = nimtb.quotient("octal:0.07", 26, resume=path), nimtb.quotient("octal:0.07", 26)
    assert resumed.orders == whole.orders and (resumed.table == whole.table).all()
    with pytest.raises(nimtb.InputError, match="is a quotient of octal:0.07"):
        nimtb.quotient("octal:0.77", 26, resume=path)
    # What it is made of: Kayles is tame to heap 4 (T_2), then wild; the
    # proven quotient's kernel is what every principal ideal holds.
    assert nimtb.quotient("octal:0.77", 4).structure().tame == 2
    assert nimtb.quotient("nim", 7).structure().tame == 3
    kayles = nimtb.quotient("octal:0.77", 300, until_proven=True)
    s = kayles.structure()
    assert s.tame is None and kayles.order == 40
    common = set.intersection(*(set(row) for row in kayles.table.tolist()))
    assert set(s.kernel) == {kayles.words[x] for x in common}
    assert s.kernel_identity in s.kernel
    assert [part.idempotent for part in s.idempotents] == [
        kayles.words[x] for x in range(40) if kayles.table[x, x] == x]
    assert all(part.idempotent in part.subgroup and set(part.subgroup) <= set(part.component)
               for part in s.idempotents)
    # A quotient made by hand whose table is no monoid: an error, not a crash.
    bogus = dataclasses.replace(nimtb.quotient("nim", 1), table=np.array([[1, 0], [0, 0]], dtype=np.uint32))
    with pytest.raises(nimtb.InputError, match="no commutative monoid|is not one"):
        bogus.structure()

    # As far as a time and a bound on candidates allow: 0.35's heap 6 needs a
    # candidate past 32 elements; the frontier says how far it got.
    s = nimtb.quotient("octal:0.35", 25, time_limit=3600, max_order=32)
    assert (s.max_heap, s.stopped) == (5, "quotient: a candidate for heap 6 has more than 32 elements")
    f = s.frontier
    assert (f.heap, f.least_failure, f.tokens, f.predicted) == (6, (6, 4, 3, 2, 1), 16, "P")
    whole = nimtb.quotient("octal:0.35", 6)
    assert whole.stopped is None and whole.frontier is None
    assert whole.orders[5] <= f.at_least <= whole.order
    assert whole.outcome(f.least_failure) == "N"  # the candidate's "P" was wrong
    for bad in (0, 10_000_001):
        with pytest.raises(nimtb.InputError, match="time_limit"):
            nimtb.quotient("nim", 5, time_limit=bad)
    with pytest.raises(nimtb.InputError, match="max_order"):
        nimtb.quotient("nim", 5, max_order=1)
    with pytest.raises(TypeError, match="time_limit is a whole number"):
        nimtb.quotient("nim", 5, time_limit=1.5)

def test_genus_is_the_commands():
    t = nimtb.genus("kayles", 20)
    code, out, err = cli("genus", "--rules", "kayles", "--max-heap", "20", "--json")
    assert code == 0, err
    j = json.loads(out)
    assert [h.text for h in t.heaps] == [h["genus"] for h in j["heaps"]]
    assert t.first_wild == 5 and not t.heaps[5].tame and t.heaps[4].tame
    g = t.heaps[5]  # 4^{146}: 1, 4, 6, 4, 6, ...
    assert (g.normal, [g.gamma(n) for n in range(6)]) == (4, [1, 4, 6, 4, 6, 4])
    with pytest.raises(nimtb.InputError, match="several heaps"):
        nimtb.genus("wythoff", 5)
    with pytest.raises(nimtb.TooLargeError, match="heap 108"):
        nimtb.genus("kayles", 200)


def test_quotient_with_a_cap_on_the_largest_heap(tmp_path):
    # 0.6 to heap 16, checked only against positions with at most one heap
    # of 16: a predictor, smaller than Q_16, right on every such position of
    # a solved table, and refusing to answer past its cap.
    whole = nimtb.quotient("octal:0.6", 16)
    capped = nimtb.quotient("octal:0.6", 16, max_copies=1)
    assert (capped.max_copies, whole.max_copies, capped.proof) == (1, None, None)
    assert capped.order < whole.order and capped.orders[:16] == whole.orders[:16]
    table = nimtb.solve("octal:0.6", tmp_path / "t.h5", max_total=24, misere=True)
    checked = 0
    for position in table:
        if max(position, default=0) <= 16:
            assert capped.outcome(position) == table[position].outcome, position
            checked += 16 in position
    assert checked > 10
    with pytest.raises(nimtb.InputError, match="at most 1 heap of 16"):
        capped.outcome((16, 16, 3))
    for bad in (0, 1001):
        with pytest.raises(nimtb.InputError, match="max_copies: must be a whole number from 1 to 1000"):
            nimtb.quotient("octal:0.6", 16, max_copies=bad)
    with pytest.raises(nimtb.InputError, match="goes without"):
        nimtb.quotient("octal:0.6", 16, max_copies=1, time_limit=5)


def test_bad_keywords_are_refused_in_pythons_words(tmp_path):
    """Each long function hands the core one request (docs/EVENTS.md), read by
    the command's definition: a bad keyword is a ValueError naming the keyword
    and the command's range, or a TypeError, never pybind11's signature."""
    cases = [
        (lambda: nimtb.sequence("kayles", -5), nimtb.InputError, "max_heap: must be a whole number from 1 to"),
        (lambda: nimtb.quotient("kayles", -1), nimtb.InputError, "max_heap: must be a whole number from 1 to"),
        (lambda: nimtb.quotient("kayles", 10**30), nimtb.InputError, "max_heap: must be a whole number"),
        (lambda: nimtb.genus("kayles", 2_000_000), nimtb.InputError, "max_heap: must be a whole number from 0 to 1000000"),
        (lambda: nimtb.sequence(5, 10), TypeError, "rules is text"),
        (lambda: nimtb.solve("nim", tmp_path / "a.h5", heaps=-1, max_heap=3), nimtb.InputError,
         "heaps: must be a whole number from 1 to 128"),
        (lambda: nimtb.solve("nim", tmp_path / "b.h5", heaps=2, max_heap=2**40), nimtb.InputError,
         "max_heap: must be a whole number from 1 to 4294967295"),
        (lambda: nimtb.quotient("hex:0.F", 100, until_proven=True), nimtb.InputError,
         "until_proven=True needs an octal code or a subtraction game; give max_heap instead"),
    ]
    cases += [
        (lambda: nimtb.quotient("kayles", 200_000), nimtb.TooLargeError, "misère quotients are computed up to heap 100000"),
        (lambda: nimtb.solve("nim", tmp_path / "c.h5", heaps=64, max_heap=1_000_000), nimtb.TooLargeError,
         "more than 2^64 positions"),
    ]
    for call, kind, words in cases:
        with pytest.raises(kind, match=re.escape(words)) as e:
            call()
        assert "incompatible function arguments" not in str(e.value)
    assert issubclass(nimtb.InputError, ValueError)


def test_a_blank_position_is_refused_as_the_command_refuses_it(tmp_path):
    """Blank text is more often a slip than the empty board: the command refuses it,
    and so does Python, in the same words; the empty board is "0" or ()."""
    table = nimtb.solve("nim", tmp_path / "t.h5", heaps=2, max_heap=3)
    code = subprocess.run([NIMTB, "query", str(tmp_path / "t.h5"), " "], capture_output=True, text=True)
    assert code.returncode == 2
    for call in (lambda: table.query(""), lambda: table.query(" , "), lambda: nimtb.ProvenGame("octal:0.16").query("")):
        with pytest.raises(nimtb.InputError, match="the position is blank") as e:
            call()
        assert str(e.value).split("blank")[1] in code.stderr
    assert table.query(()).rank == table.query("0").rank == 0
