"""`import nimtb` against the command: the same answers, the same errors.

Run by ctest with Debian's /usr/bin/python3 and its pytest: against the
package laid out in the build (PYTHONPATH=build/python, python.module) and
against the package pip installed in a new venv (python.package). NIMTB
names the binary.
"""
import json
import os
import pathlib
import signal
import subprocess
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
            assert [m.text for m in a.moves] == [m["move"] for m in want["moves"]]
            assert [m.text for m in opened.line(heaps)] == [m["move"] for m in want["line"]]
            for m, j in zip(a.moves, want["moves"]):
                assert m.result == tuple(j["result"]) and m.wins == j["wins"]
                assert [(t.heap + 1, t.size, list(t.leaves)) for t in m.touches] == [
                    (t["heap"], t["size"], t["leaves"]) for t in j["touches"]]


def test_info_is_the_commands(tables):
    for rule, path, solved, positions in tables:
        code, out, err = cli("info", path, "--json")
        assert nimtb.Table(path).info == json.loads(out)
        assert solved.info["rules"] == rule


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


def test_a_sequence_beyond_its_bound_is_refused_before_any_work():
    with pytest.raises(nimtb.InputError, match="from 1 to 2147483648"):
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
    assert raised - sent[0] < 0.5
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


def test_moves_say_their_structure(tmp_path):
    """Every move says which heaps it touched and what it left: splits and
    moves on several heaps included, not only in the English phrase."""
    kayles = nimtb.solve("octal:0.77", tmp_path / "k.h5", max_total=12)
    moves = {m["move"]: m for m in kayles.query_json([3, 5])["moves"]}
    assert moves["take 1 from the 3, leaving 1 and 1"]["touches"] == [{"heap": 1, "size": 3, "leaves": [1, 1]}]
    assert moves["take 2 from the 5"]["touches"] == [{"heap": 2, "size": 5, "leaves": [3]}]
    # As typed objects: 0-based heaps, None where a field does not apply.
    moves = {m.text: m for m in kayles.query([3, 5]).moves}
    split = moves["take 1 from the 3, leaving 1 and 1"]
    assert (split.heap, split.take, split.touches) == (None, None, (nimtb.Touch(0, 3, (1, 1)),))
    plain = moves["take 2 from the 5"]
    assert (plain.heap, plain.take, plain.touches) == (1, 2, (nimtb.Touch(1, 5, (3,)),))
    moore = nimtb.solve("moore:2", tmp_path / "m.h5", heaps=3, max_heap=7)
    moves = {m["move"]: m for m in moore.query_json([5, 6])["moves"]}
    assert moves["take 5 from the 5 and 6 from the 6"]["touches"] == [
        {"heap": 1, "size": 5, "leaves": []}, {"heap": 2, "size": 6, "leaves": []}]
    both = {m.text: m for m in moore.query([5, 6]).moves}["take 5 from the 5 and 6 from the 6"]
    assert (both.heap, both.take) == (None, None)
    assert both.touches == (nimtb.Touch(0, 5, ()), nimtb.Touch(1, 6, ()))
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
    assert (a.winning_move, a.heap, a.take, a.leaves) == (m["phrase"], m["heap"] - 1, m["amount"],
                                                          tuple(m["leaves"]))
    assert game.period.period == 149459 and game.period.proven and "149459" in repr(game)
    s = tmp_path / "s.h5"
    nimtb.sequence("octal:0.16", until_proven=True, path=s)
    assert nimtb.ProvenGame(sequence=s).query_json([10**12, 7, 13]) == want
    read = nimtb.read_sequence(s)
    assert read.rules == "octal:0.16" and read.period == game.period
    assert read.values.tolist() == nimtb.sequence("octal:0.16", read.max_heap).values.tolist()
    with pytest.raises(nimtb.InputError, match="no theorem proves a period of grundy"):
        nimtb.ProvenGame("grundy")
    with pytest.raises(nimtb.InputError, match="not the sequence file's"):
        nimtb.ProvenGame("octal:0.77", sequence=s)
    with pytest.raises(nimtb.InputError, match="more than"):
        game.query([2**64])
