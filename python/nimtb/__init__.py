"""nimtb: endgame tables of impartial heap games (Nim and its relatives).

Open a table that ``nimtb solve`` wrote (or solve one), and ask it anything::

    import nimtb
    with nimtb.Table("tables/nim-normal-k3-h15.h5") as t:
        a = t.query("3 4 5")          # an Answer: outcome, value, remoteness, moves
        a.moves[0].touches            # what the best move does, heap by heap
        values, remoteness = t.arrays()   # numpy arrays indexed by rank
        rows = t.positions()          # every position, one row per rank

Single-heap sequences (``sequence``), answers for heaps of any size from a
proven period (``ProvenGame``), ``verify``, and pictures (``nimtb.plot``,
with matplotlib). docs/PYTHON.md is a tour.
"""

from __future__ import annotations

import dataclasses
import json
import operator
import os
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Optional, Sequence as Seq, TypeVar, Union, overload

import numpy as np
import numpy.typing as npt

from . import _core
from ._errors import InputError, NotInTableError, TableError

__version__: str = _core.__version__

__all__ = [
    "Answer", "Check", "InputError", "Move", "NotInTableError", "Period", "PositionLike",
    "ProvenAnswer", "ProvenGame", "Quotient", "QuotientFrontier", "Sequence", "Table",
    "TableError", "Touch", "Verification", "__version__", "quotient", "read_sequence", "sequence",
    "solve",
]

#: A position: text ("3 4 5" or "3,4,5"), or a sequence of heap sizes (a list,
#: a tuple, a one-dimensional numpy array of integers).
PositionLike = Union[str, Seq[int], "npt.NDArray[np.integer[Any]]"]
#: A position as nimtb returns it: heap sizes.
Position = tuple[int, ...]
#: A file's path: text or any path-like object.
PathLike = Union[str, "os.PathLike[str]"]
#: Called as progress(done, total) while long work goes on.
Progress = Callable[[int, int], object]

_T = TypeVar("_T")


def _outcome(to_move_wins: bool) -> str:
    return "N" if to_move_wins else "P"


@dataclass(frozen=True)
class Touch:
    """One heap a move changes: its place in the position (0-based), its size,
    and the non-empty heaps it leaves in its place (() when emptied, two for a
    split)."""

    heap: int
    size: int
    leaves: tuple[int, ...]


@dataclass(frozen=True)
class Move:
    """One move from a position.

    ``heap`` (0-based) and ``take`` are those of a move that takes from one
    heap and leaves at most one; ``None`` for splits and moves on several
    heaps, whose structure ``touches`` gives (as it does for every move).
    ``result`` is the position after the move, in the order of the position
    given (a split's second part appended). ``wins`` is true when the move
    leaves the opponent a P-position; ``value`` and ``remoteness`` are those
    of the position it leaves (``remoteness`` ``None`` when the table stores
    none)."""

    text: str
    heap: Optional[int]
    take: Optional[int]
    touches: tuple[Touch, ...]
    result: Position
    wins: bool
    value: int
    remoteness: Optional[int]

    @classmethod
    def _of(cls, j: dict[str, Any]) -> Move:
        touches = tuple(Touch(t["heap"] - 1, t["size"], tuple(t["leaves"])) for t in j["touches"])
        one_heap = j["heap"] > 0
        return cls(text=j["move"], heap=j["heap"] - 1 if one_heap else None,
                   take=j["take"] if one_heap else None, touches=touches,
                   result=tuple(j["result"]), wins=j["wins"], value=j["value"],
                   remoteness=j["remoteness"])


@dataclass(frozen=True)
class Answer:
    """A position's answer from a table.

    ``outcome`` is "N" when the player to move wins, "P" when they lose (under
    the table's convention); ``value`` is the Grundy value (normal play) or
    the misère Grundy value; ``remoteness`` the number of moves the game lasts
    under perfect play (``None`` when the table stores none). ``moves`` are
    every move, best first: winning moves by fastest win, then losing moves by
    slowest loss. ``line`` (when asked for) is the game under perfect play to
    its end."""

    position: Position
    rank: int
    outcome: str
    to_move_wins: bool
    value: int
    remoteness: Optional[int]
    moves: tuple[Move, ...]
    line: Optional[tuple[Move, ...]] = None

    @property
    def best_move(self) -> Optional[Move]:
        """The first of ``moves``; ``None`` at the end of the game."""
        return self.moves[0] if self.moves else None

    @property
    def winning_moves(self) -> tuple[Move, ...]:
        """The moves that leave the opponent a P-position."""
        return tuple(m for m in self.moves if m.wins)

    @classmethod
    def _of(cls, j: dict[str, Any]) -> Answer:
        line = tuple(Move._of(m) for m in j["line"]) if "line" in j else None
        return cls(position=tuple(j["position"]), rank=j["rank"],
                   outcome=_outcome(j["to_move_wins"]), to_move_wins=j["to_move_wins"],
                   value=j["value"], remoteness=j["remoteness"],
                   moves=tuple(Move._of(m) for m in j["moves"]), line=line)


@dataclass(frozen=True)
class Period:
    """What is known of a single-heap sequence's period.

    ``period`` and ``preperiod`` (g(n + period) = g(n) + saltus for every
    n >= preperiod) are ``None`` when no period is claimed. ``basis`` says
    what a claim rests on: "proof" or "theorem" (it holds for every heap),
    "observation" (seen within the values only), "none"; ``explanation`` says
    it in words."""

    basis: str
    explanation: str
    period: Optional[int] = None
    preperiod: Optional[int] = None
    saltus: Optional[int] = None

    @property
    def proven(self) -> bool:
        """True when the period holds for every heap, not only those computed."""
        return self.period is not None and self.basis in ("proof", "theorem")

    @classmethod
    def _of(cls, j: dict[str, Any]) -> Period:
        return cls(basis=j["basis"], explanation=j["explanation"], period=j.get("period"),
                   preperiod=j.get("preperiod"), saltus=j.get("saltus"))


@dataclass(frozen=True)
class Sequence:
    """A one-heap rule's values g(0), g(1), ... in normal play (numpy uint16,
    indexed by heap size), how they were computed ("plain" or "sparse"), and
    their period."""

    rules: str
    algorithm: str
    values: npt.NDArray[np.uint16] = dataclasses.field(repr=False)
    period: Period

    @property
    def max_heap(self) -> int:
        """The largest heap computed."""
        return len(self.values) - 1

    @classmethod
    def _of(cls, d: dict[str, Any]) -> Sequence:
        return cls(rules=d["rules"], algorithm=d["algorithm"], values=d["values"],
                   period=Period._of(d["period"]))


@dataclass(frozen=True)
class Check:
    """One check of ``Table.verify``: whether it applies, what it rests on
    ("definition", "theorem", "observation"), on how many positions it was
    tested and held, and the smallest counterexamples as (position, stored,
    expected)."""

    name: str
    description: str
    applies: bool
    basis: str
    tested: int
    held: int
    passed: bool
    counterexamples: tuple[tuple[Position, int, int], ...]


@dataclass(frozen=True)
class Verification:
    """``Table.verify``'s report: ``ok`` when the definitions and every
    theorem that applies hold at every position; each check; the single-heap
    values and their period; the histograms of values and remoteness."""

    ok: bool
    positions: int
    p_positions: int
    checks: tuple[Check, ...]
    single_heaps: tuple[int, ...]
    period: Period
    value_histogram: dict[int, int]
    remoteness_histogram: dict[int, int]

    def check(self, name: str) -> Check:
        """The check called ``name`` ("consistency", "sprague-grundy", "bouton",
        "misere-nim", ...); KeyError when there is none."""
        for c in self.checks:
            if c.name == name:
                return c
        raise KeyError(name)

    @classmethod
    def _of(cls, j: dict[str, Any]) -> Verification:
        checks = tuple(
            Check(name=c["name"], description=c["description"], applies=c["applies"],
                  basis=c["basis"], tested=c["tested"], held=c["held"], passed=c["passed"],
                  counterexamples=tuple((tuple(e["position"]), e["stored"], e["expected"])
                                        for e in c["counterexamples"]))
            for c in j["checks"])
        return cls(ok=j["ok"], positions=j["positions"], p_positions=j["p_positions"],
                   checks=checks, single_heaps=tuple(j["single_heaps"]["values"]),
                   period=Period._of(j["single_heaps"]["period"]),
                   value_histogram=_histogram(j["value_histogram"]),
                   remoteness_histogram=_histogram(j["remoteness_histogram"]))


def _histogram(h: dict[str, int]) -> dict[int, int]:
    return {int(k): v for k, v in h.items()}


def _whole(value: Any, name: str) -> Any:
    """A count (a heap bound, a limit, threads) as a whole number, strictly as Python's own
    ``range`` takes one (``operator.index``): an int or a numpy integer, never 8.0 or a
    numpy array of floats, which pybind11 would otherwise truncate; None stays None."""
    if value is None:
        return None
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{name} is a whole number, not {type(value).__name__}") from None


def _path(path: PathLike, name: str = "path") -> str:
    if isinstance(path, (str, os.PathLike)):
        return os.fspath(path)
    raise TypeError(f"{name} is a path (str or os.PathLike), not {type(path).__name__}")


def _heaps(position: PositionLike) -> list[int]:
    """Heap sizes of a position given as text ("3 4 5", "3,4,5") or integers."""
    if isinstance(position, str):
        parts = position.replace(",", " ").split()
        if not all(part.isdigit() for part in parts):
            raise InputError(f"a position is heap sizes like \"3 4 5\", not \"{position}\"")
        return [int(part) for part in parts]
    heaps = [int(h) for h in position]
    if any(h < 0 for h in heaps):
        raise InputError("heap sizes are 0 or more")
    return heaps


def _rows(positions: Any) -> Optional[npt.NDArray[np.int64]]:
    """Positions given as rows (an (M, K) array, or a list of sequences) as an
    int64 array; None for a single position."""
    if isinstance(positions, (str, bytes)):
        return None
    if isinstance(positions, np.ndarray):
        if positions.ndim != 2:
            return None
        a = positions
    elif isinstance(positions, (list, tuple)) and positions and all(
            isinstance(p, (list, tuple, np.ndarray)) for p in positions):
        lengths = {len(p) for p in positions}
        if len(lengths) != 1:
            raise InputError("positions as rows all have the same number of heaps "
                             "(pad with 0 for empty heaps)")
        a = np.asarray(positions)
    else:
        return None
    if a.dtype.kind not in "iu":
        raise InputError(f"positions are whole numbers, not {a.dtype}")
    if a.dtype == np.uint64 and a.size and int(a.max()) > np.iinfo(np.int64).max:
        raise InputError("a heap holds more tokens than any table")
    return np.ascontiguousarray(a, dtype=np.int64)


class Table:
    """A table file that ``nimtb solve`` (or ``solve``) wrote, opened and
    checked: the answers to every position of its universe.

    Use it in a ``with`` block, or ``close()`` it, to release the file at
    once. A table pickles by its path (a process that receives it opens the
    file again). Not safe to share between threads; open one per thread.

    Raises TableError when the file is missing, damaged or not a table.
    """

    def __init__(self, path: PathLike) -> None:
        self._attach(_core.Table(_path(path)))

    @classmethod
    def _around(cls, core: _core.Table) -> Table:
        """A Table around a table already open (the one a solve returns)."""
        t = cls.__new__(cls)
        t._attach(core)
        return t

    def _attach(self, core: _core.Table) -> None:
        self._t = core
        self._path: str = core.path
        info = core.info()
        self._rules: str = info["rules"]
        self._convention: str = info["convention"]
        self._universe: str = core.universe()
        self._size: int = core.size()

    # -- what the table is --------------------------------------------------

    @property
    def path(self) -> str:
        """The file's path, as given."""
        return self._path

    @property
    def rules(self) -> str:
        """The rule, in its canonical text ("nim", "octal:0.77", "subtract:1,3,4", ...)."""
        return self._rules

    @property
    def convention(self) -> str:
        """"normal" or "misere"."""
        return self._convention

    @property
    def universe(self) -> str:
        """The positions the table holds, in words ("at most 3 heaps of at most 15 tokens")."""
        return self._universe

    @property
    def info(self) -> dict[str, Any]:
        """What ``nimtb info --json`` prints: the rule, the universe
        (``max_heaps``, ``max_heap_size``, ``max_total``: None for a box), the
        storage and its compression."""
        info: dict[str, Any] = self._t.info()
        return info

    @property
    def closed(self) -> bool:
        """True after ``close()``."""
        return bool(self._t.closed)

    def close(self) -> None:
        """Closes the file now; the table then answers nothing (TableError)."""
        self._t.close()

    def __enter__(self) -> Table:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = " (closed)" if self.closed else f", {self._size} positions"
        return (f"<nimtb.Table {self._path!r}: {self._rules} {self._convention}, "
                f"{self._universe}{state}>")

    def __reduce__(self) -> tuple[type[Table], tuple[str]]:
        return (Table, (self._path,))

    # -- answers -------------------------------------------------------------

    def query(self, position: PositionLike, line: bool = False) -> Answer:
        """The answer at ``position``: outcome, value, remoteness and every
        move, best first (and with ``line=True`` the perfect game to the end).

        Raises NotInTableError (an InputError and a KeyError) for a position
        outside the table's universe, InputError for a malformed one.
        """
        return Answer._of(self._t.query(position, line))

    def get(self, position: PositionLike, default: _T = None) -> Union[Answer, _T]:  # type: ignore[assignment]
        """``query(position)``, or ``default`` when the position lies outside
        the table's universe (a malformed position still raises InputError)."""
        try:
            return self.query(position)
        except NotInTableError:
            return default

    def __getitem__(self, position: PositionLike) -> Answer:
        return self.query(position)

    def __contains__(self, position: object) -> bool:
        """True when ``position`` is a position of the table's universe."""
        try:
            return bool(self._t.contains(position))
        except InputError:
            return False

    def query_json(self, position: PositionLike, line: bool = False) -> dict[str, Any]:
        """What ``nimtb query TABLE POSITION --json`` prints, as a dict (heaps 1-based)."""
        answer: dict[str, Any] = self._t.query(position, line)
        return answer

    def line(self, position: PositionLike) -> tuple[Move, ...]:
        """The moves of perfect play from ``position`` to the end of the game."""
        line = self.query(position, line=True).line
        assert line is not None
        return line

    # -- the whole table -------------------------------------------------------

    def arrays(self) -> tuple[npt.NDArray[np.unsignedinteger[Any]],
                              Optional[npt.NDArray[np.unsignedinteger[Any]]]]:
        """(values, remoteness) as numpy arrays indexed by rank (uint8 or
        uint16, as stored); remoteness is None when the table stores none.
        ``positions()`` gives the position of each rank."""
        values, remoteness = self._t.arrays()
        return values, remoteness

    def __len__(self) -> int:
        return self._size

    @overload
    def rank(self, position: str) -> int: ...
    @overload
    def rank(self, position: Seq[int]) -> int: ...
    @overload
    def rank(self, position: npt.NDArray[np.integer[Any]]) -> Union[int, npt.NDArray[np.uint64]]: ...
    @overload
    def rank(self, position: Seq[Seq[int]]) -> npt.NDArray[np.uint64]: ...

    def rank(self, position: Any) -> Union[int, npt.NDArray[np.uint64]]:
        """The rank of a position (its index in ``arrays()``; docs/FORMAT.md),
        in any order of its heaps, empty heaps allowed. Given rows (an (M, K)
        array or a list of positions of equal length), the rank of each, as
        an array.

        Raises NotInTableError for a position outside the table, naming its
        row; InputError for one that is malformed.
        """
        rows = _rows(position)
        if rows is not None:
            ranks: npt.NDArray[np.uint64] = self._t.rank_rows(rows)
            return ranks
        return int(self._t.rank(position))

    def unrank(self, rank: int) -> Position:
        """The position of a rank: its non-empty heaps, largest first."""
        if isinstance(rank, bool) or not isinstance(rank, (int, np.integer)):
            raise TypeError(f"a rank is a whole number, not {type(rank).__name__}")
        position: Position = self._t.unrank(int(rank))
        return position

    def positions(self, start: int = 0, stop: Optional[int] = None) -> npt.NDArray[np.uint32]:
        """The positions of ranks ``start`` to ``stop - 1`` (all by default)
        as an (N, K) array: one row per rank, heaps largest first, padded
        with 0 to the universe's K heaps. ``positions()[r]`` is the position
        whose values are ``arrays()[0][r]``."""
        stop = self._size if stop is None else stop
        s, e, _ = slice(start, stop).indices(self._size)
        rows: npt.NDArray[np.uint32] = self._t.positions(s, max(s, e))
        return rows

    def __iter__(self) -> Iterator[Position]:
        """Every position in rank order, as ``unrank`` gives it."""
        step = 1 << 16
        for first in range(0, self._size, step):
            for row in self.positions(first, first + step):
                yield tuple(int(h) for h in row if h)

    def census(self) -> dict[str, Any]:
        """The P-position counts (``nimtb dump --count --json``): in all, by
        total, by largest heap, by remoteness; as multisets and, where they
        fit, as ordered tuples."""
        census: dict[str, Any] = self._t.census()
        return census

    def verify(self, progress: Optional[Progress] = None) -> Verification:
        """Checks every position as ``nimtb verify`` does: the definitions,
        and the theorems that apply (Sprague-Grundy, Bouton, Bouton's misère
        rule, Wythoff, Moore). Interruptible with Ctrl-C; ``progress(done,
        total)`` is called now and then."""
        return Verification._of(self._t.verify(progress))


def solve(rules: str, path: PathLike, *, heaps: Optional[int] = None,
          max_heap: Optional[int] = None, max_total: Optional[int] = None,
          misere: bool = False, overwrite: bool = False, method: str = "brute",
          kernel: str = "auto", remoteness: bool = True, threads: int = 0,
          memory: int = 0, compression: str = "zstd", level: Optional[int] = None,
          checkpoint: Optional[PathLike] = None,
          progress: Optional[Progress] = None) -> Table:
    """Solves every position of a universe and writes its table to ``path``,
    as ``nimtb solve`` does; returns the table, opened.

    The universe is a box (``heaps`` and ``max_heap``: at most K heaps of at
    most H tokens) or a total (``max_total``, and optionally ``heaps``). The
    options are the command's: ``method`` ("brute" or "sprague-grundy"),
    ``kernel`` ("auto", "brute", "lines"), ``remoteness``, ``threads`` (0: all
    cores), ``memory`` (bytes the solve may hold, 0: what the machine has
    available), ``compression`` and ``level``, and ``checkpoint``, a folder to
    save progress in and resume from. Other Python threads run meanwhile;
    Ctrl-C (or an exception raised by ``progress``) stops the solve and
    leaves no file.

    Raises InputError (a request no solve can run), TableError (``path``
    taken without ``overwrite``, its folder missing), MemoryError (beyond
    ``memory`` or the machine's).
    """
    # Every keyword but these is the request's option of the same name
    # (service/request/solve_request.h reads and checks them all).
    request = {name: value for name, value in locals().items()
               if name not in ("path", "misere", "checkpoint", "progress")}
    for name in ("heaps", "max_heap", "max_total", "threads", "memory", "level"):
        request[name] = _whole(request[name], name)
    request["output"] = _path(path)
    request["convention"] = "misere" if misere else "normal"
    if checkpoint is not None:
        request["checkpoint"] = _path(checkpoint, "checkpoint")
    return Table._around(_core.solve(json.dumps(request), progress))


def sequence(rules: str, max_heap: Optional[int] = None, *, until_proven: bool = False,
             limit: int = 1 << 22, method: str = "auto", threads: int = 0,
             path: Optional[PathLike] = None, overwrite: bool = False,
             progress: Optional[Progress] = None) -> Sequence:
    """A one-heap rule's values g(0..max_heap) in normal play and their
    period, as ``nimtb sequence`` computes them; or, with
    ``until_proven=True``, as far as a period is proven (up to ``limit``
    heaps). With ``path``, also written as a sequence file (``read_sequence``
    and ``ProvenGame(sequence=...)`` read it). ``method`` is "auto", "plain"
    or "sparse"; ``threads`` 1 or 2 for the sparse-space method (0: both
    cores once a heap costs more than handing it over; the values are the
    same).

    The memory is checked before any work; Ctrl-C (or an exception raised by
    ``progress``) stops it and leaves no file. Raises InputError (a rule whose
    moves touch several heaps, no theorem for ``until_proven``, no period
    proven within ``limit``), TableError, MemoryError.
    """
    return Sequence._of(_core.sequence(
        rules, _whole(max_heap, "max_heap"), until_proven, _whole(limit, "limit"), method,
        _whole(threads, "threads"),
        None if path is None else _path(path), overwrite, progress))


def read_sequence(path: PathLike) -> Sequence:
    """The sequence a sequence file holds (``sequence(path=...)``, ``nimtb
    sequence --output``). Raises TableError when it is missing or damaged."""
    return Sequence._of(_core.read_sequence(_path(path)))


@dataclass(frozen=True)
class QuotientFrontier:
    """How far the heap a time-limited quotient stopped in got: the
    candidates refuted for ``heap``, the last one's ``order`` and its least
    failure (a position it predicted ``predicted`` wrongly, of ``tokens``
    tokens; it predicts every position of fewer tokens right), and
    ``at_least``, a proven lower bound on the order of that heap's quotient
    (docs/QUOTIENTS.md)."""

    heap: int
    candidates_refuted: int
    order: int
    least_failure: Position
    predicted: str
    tokens: int
    at_least: int


@dataclass(frozen=True)
class Quotient:
    """The misère quotient Q_N of a one-heap rule (``nimtb quotient``): a
    finite commutative monoid whose elements are the classes of positions
    with heaps of at most ``max_heap`` tokens. ``phi[h]`` is the element of a
    heap of h tokens, ``table[x, y]`` the product, ``p[x]`` whether x is in
    the P-portion; element 0 is the identity. Element x is written
    ``words[x]`` in the generators and represented by its smallest position
    ``positions[x]``. ``orders[h]`` is the order of Q_h for h = 0 ..
    max_heap. Every quotient returned has passed the exact check that it
    predicts every position's misère outcome (docs/QUOTIENTS.md). ``proof``,
    when not None, is (preperiod, period): phi repeats with the period from
    the preperiod for heaps of every size, proven, so the quotient is the
    whole game's and ``element`` takes heaps of any size. ``max_copies``,
    when not None, says the last heap was checked only against positions
    with at most that many heaps of ``max_heap``: a predictor for those
    positions, not a quotient."""

    rules: str
    max_heap: int
    order: int
    orders: tuple[int, ...]
    generators: tuple[tuple[str, int], ...]
    relations: tuple[tuple[str, str], ...]
    words: tuple[str, ...] = dataclasses.field(repr=False)
    positions: tuple[Position, ...] = dataclasses.field(repr=False)
    p: npt.NDArray[np.bool_] = dataclasses.field(repr=False)
    phi: npt.NDArray[np.uint32] = dataclasses.field(repr=False)
    table: npt.NDArray[np.uint32] = dataclasses.field(repr=False)
    proof: Optional[tuple[int, int]] = None
    stopped: Optional[str] = None
    frontier: Optional[QuotientFrontier] = None
    max_copies: Optional[int] = None

    def element(self, position: PositionLike) -> int:
        """The element of a position: the product of its heaps' phi. Raises
        InputError for a heap above ``max_heap`` unless the quotient is proven."""
        x = 0
        for h in _heaps(position):
            if h > self.max_heap:
                if self.proof is None:
                    raise InputError(
                        f"heap {h} is above the quotient's largest heap {self.max_heap}")
                start, period = self.proof
                h = start + (h - start) % period
            x = int(self.table[x, self.phi[h]])
        return x

    def outcome(self, position: PositionLike) -> str:
        """"P" when the player to move loses in misère play, else "N". With
        ``max_copies``, raises InputError for a position past the cap."""
        heaps = _heaps(position)
        if self.max_copies is not None and heaps.count(self.max_heap) > self.max_copies:
            raise InputError(f"the predictor answers positions with at most {self.max_copies} "
                             f"heap{'' if self.max_copies == 1 else 's'} of {self.max_heap}, "
                             "and this one has more")
        return "P" if self.p[self.element(heaps)] else "N"

    @classmethod
    def _of(cls, j: dict[str, Any]) -> Quotient:
        return cls(
            rules=j["rules"], max_heap=j["max_heap"], order=j["order"], orders=tuple(j["orders"]),
            generators=tuple((g["name"], g["heap"]) for g in j["generators"]),
            relations=tuple((r["left"], r["right"]) for r in j["relations"]),
            words=tuple(e["word"] for e in j["elements"]),
            positions=tuple(tuple(e["position"]) for e in j["elements"]),
            p=np.array([e["p"] for e in j["elements"]], dtype=np.bool_),
            phi=np.array(j["phi"], dtype=np.uint32),
            table=np.array(j["table"], dtype=np.uint32).reshape(j["order"], j["order"]),
            proof=None if j["proof"] is None else (j["proof"]["preperiod"], j["proof"]["period"]),
            stopped=j["stopped"], max_copies=j["max_copies"],
            frontier=None if j["frontier"] is None else QuotientFrontier(
                heap=j["frontier"]["heap"], candidates_refuted=j["frontier"]["candidates_refuted"],
                order=j["frontier"]["order"], least_failure=tuple(j["frontier"]["least_failure"]),
                predicted=j["frontier"]["predicted"], tokens=j["frontier"]["tokens"],
                at_least=j["frontier"]["at_least"]))


def quotient(rules: str, max_heap: int, *, until_proven: bool = False,
             time_limit: Optional[int] = None, max_order: int = 8192,
             max_copies: Optional[int] = None,
             progress: Optional[Progress] = None) -> Quotient:
    """The misère quotient of the positions whose heaps have at most
    ``max_heap`` tokens, as ``nimtb quotient`` computes it; with
    ``until_proven`` (octal codes, subtraction games) ``max_heap`` is the
    limit, and the quotient stops at the first heap that proves it for every
    heap size (``proof``). Candidates may have up to ``max_order`` elements
    (2 .. 32768; a table of 4 max_order^2 bytes). With ``time_limit``
    (seconds) it returns the largest quotient computed in that time, or
    before a candidate grows past the limits, with ``stopped`` saying why
    and ``frontier`` how far the next heap got. With ``max_copies`` (1 ..
    1000; without ``until_proven`` and ``time_limit``) the last heap is
    checked only against positions with at most that many heaps of
    ``max_heap``: the monoid returned predicts exactly those (``outcome``
    refuses others) and is no quotient. Ctrl-C (or an exception
    raised by ``progress``) stops it. Raises InputError (a rule whose moves
    touch several heaps, a bound outside 1 .. 100000, ``until_proven`` for
    a rule no theorem applies to) and, without ``time_limit``, MemoryError
    where nimtb cannot compute it (the message names the largest quotient
    it reached)."""
    seconds = _whole(time_limit, "time_limit")
    if seconds is not None and not 1 <= seconds <= 10_000_000:
        raise InputError(f"time_limit must be 1 to 10000000 seconds, not {seconds}")
    order = _whole(max_order, "max_order")
    if not 2 <= order <= 32768:
        raise InputError(f"max_order must be 2 to 32768, not {order}")
    copies = _whole(max_copies, "max_copies")
    if copies is not None and not 1 <= copies <= 1000:
        raise InputError(f"max_copies must be 1 to 1000, not {copies}")
    if copies is not None and (until_proven or seconds is not None):
        raise InputError("max_copies goes without until_proven and time_limit")
    return Quotient._of(_core.quotient(rules, _whole(max_heap, "max_heap"), until_proven,
                                       seconds or 0, order, copies, progress))


@dataclass(frozen=True)
class ProvenAnswer:
    """A position's answer from a one-heap rule's values: its value (the XOR
    of its heaps' values), its outcome, and a winning move when there is one
    (as (heap, take, leaves): the 0-based heap, the tokens taken, the heaps
    left in its place). ``basis`` says what it rests on: "formula" (nim,
    lasker), "period" (a proven period) or "values" (the values computed)."""

    basis: str
    position: Position
    outcome: str
    to_move_wins: bool
    value: int
    winning_move: Optional[str]
    heap: Optional[int]
    take: Optional[int]
    leaves: Optional[tuple[int, ...]]


class ProvenGame:
    """A game whose moves touch one heap, answered from its single-heap
    values as ``nimtb query --rules R`` and ``--sequence FILE`` do: heaps of
    any size (up to 2**63 tokens) where the values are a formula (nim,
    lasker) or have a proven period (subtraction games and octal codes,
    computed here until one is proven, up to ``limit`` heaps); otherwise
    heaps up to ``known_up_to``: the values computed (``limit`` heaps of a
    rule no theorem gives a period for) or stored in the sequence file.

    Raises InputError for a rule whose moves touch several heaps, TableError
    for a sequence file that cannot be read; ``query`` raises InputError for
    a heap beyond what is known.
    """

    def __init__(self, rules: Optional[str] = None, *, sequence: Optional[PathLike] = None,
                 limit: int = 1 << 22, progress: Optional[Progress] = None) -> None:
        self._g = _core.ProvenGame(rules, None if sequence is None else _path(sequence, "sequence"),
                                   _whole(limit, "limit"), progress)
        self._rules: str = self._g.rules()
        self._period = Period._of(self._g.period())

    @property
    def rules(self) -> str:
        """The rule, in its canonical text."""
        return self._rules

    @property
    def period(self) -> Period:
        """What is known of the period (``period.proven`` when heaps of any
        size are answered)."""
        return self._period

    @property
    def known_up_to(self) -> Optional[int]:
        """The largest heap answered; None when every heap is."""
        n: int = self._g.known_up_to()
        return None if n == 2**64 - 1 else n

    def query(self, position: PositionLike) -> ProvenAnswer:
        """The answer at ``position``, whose heaps may hold up to 2**63 tokens."""
        j = self._g.query(position)
        m = j.get("winning_move")
        return ProvenAnswer(
            basis=j["basis"], position=tuple(j["heaps"]), outcome=_outcome(j["to_move_wins"]),
            to_move_wins=j["to_move_wins"], value=j["value"],
            winning_move=m["phrase"] if m else None, heap=m["heap"] - 1 if m else None,
            take=m["amount"] if m else None, leaves=tuple(m["leaves"]) if m else None)

    def query_json(self, position: PositionLike) -> dict[str, Any]:
        """What ``nimtb query --rules R POSITION --json`` prints, as a dict."""
        answer: dict[str, Any] = self._g.query(position)
        return answer

    def __repr__(self) -> str:
        p = self._period
        if p.basis == "theorem":
            return f"<nimtb.ProvenGame {self._rules}: {p.explanation}>"
        if p.proven:
            return f"<nimtb.ProvenGame {self._rules}: period {p.period} from heap {p.preperiod}, proven>"
        return f"<nimtb.ProvenGame {self._rules}: the values of heaps up to {self.known_up_to}>"


def __getattr__(name: str) -> Any:
    # nimtb.plot imports matplotlib, so only when first used.
    if name == "plot":
        import importlib

        return importlib.import_module(".plot", __name__)
    raise AttributeError(f"module 'nimtb' has no attribute {name!r}")
