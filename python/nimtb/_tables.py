"""Tables: answers, moves, verification, the table itself, and solve."""

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
from ._common import Position, PositionLike, PathLike, Progress, _T, _heaps, _histogram, _outcome, _path, _rows, _whole
from ._sequences import Period, Sequence


@dataclass(frozen=True)
class Touch:
    """One heap a move changes: its number in the position (counted from 1,
    as every answer of nimtb counts heaps: ``position[heap - 1]``), its size,
    and the non-empty heaps it leaves in its place, ascending (() when
    emptied, two or three for a split)."""

    heap: int
    size: int
    leaves: tuple[int, ...]

@dataclass(frozen=True)
class Move:
    """One move from a position, with the fields and names of the command's
    and the server's JSON (docs/MOVES.md).

    ``move`` is the move in words. A move of one heap (a take or a split)
    has ``heap`` (counted from 1: ``position[heap - 1]`` is its size),
    ``heap_size``, ``take`` (tokens taken; 0 for a split that takes none)
    and ``leaves`` (what is left of that heap, ascending); all four are
    ``None`` for a move of several heaps, whose structure ``touches`` gives
    (as it does for every move). ``result`` is the position after the move,
    in the order of the position given (a split's parts appended). ``wins``
    is true when the move leaves the opponent a P-position; ``value`` and
    ``remoteness`` are those of the position it leaves (``remoteness``
    ``None`` when the table stores none)."""

    move: str
    heap: Optional[int]
    heap_size: Optional[int]
    take: Optional[int]
    leaves: Optional[tuple[int, ...]]
    touches: tuple[Touch, ...]
    result: Position
    wins: bool
    value: int
    remoteness: Optional[int]

    @classmethod
    def _of(cls, j: dict[str, Any]) -> Move:
        touches = tuple(Touch(t["heap"], t["size"], tuple(t["leaves"])) for t in j["touches"])
        return cls(move=j["move"], heap=j["heap"], heap_size=j["heap_size"], take=j["take"],
                   leaves=None if j["leaves"] is None else tuple(j["leaves"]), touches=touches,
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
class Check:
    """One check of ``Table.verify``: whether it applies, what it rests on
    ("definition", "theorem", "observation"), on how many positions it was
    tested and held, whether it passed (``None`` when it does not apply to
    the table's game), and the smallest counterexamples as (position,
    stored, expected)."""

    name: str
    description: str
    applies: bool
    basis: str
    tested: int
    held: int
    passed: Optional[bool]
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

@dataclass(frozen=True)
class FolderTable:
    """A table of a tablebase folder: its path, game and universe."""

    path: str
    rules: str
    convention: str
    universe: str
    positions: int

class Tablebase:
    """A folder of tables (``open_tablebase``), as ``chess.syzygy`` opens
    one: each position is answered from the smallest table of its game (the
    rule and the convention asked for) that holds it, as ``nimtb query
    --tables DIR --rules R`` answers. Files that are not tables are skipped
    (``skipped`` says why). Tables are opened as they are needed and kept
    open until ``close()`` (or the end of a ``with`` block).

    ``query`` and ``table_for`` raise NotInTableError naming what the folder
    holds of the game (or that it holds none) and the solve that would hold
    the position; the constructor raises TableError for a folder that is not
    there.
    """

    def __init__(self, directory: PathLike) -> None:
        self._core = _core.Tablebase(_path(directory))
        self._open: dict[str, Table] = {}

    @property
    def tables(self) -> tuple[FolderTable, ...]:
        """Every table of the folder, in name order."""
        return tuple(FolderTable(**t) for t in self._core.tables())

    @property
    def skipped(self) -> tuple[str, ...]:
        """Why each file ending .h5 that is not a usable table was skipped."""
        return tuple(self._core.skipped())

    def table_for(self, position: PositionLike, rules: str, *, misere: bool = False) -> Table:
        """The smallest table of the game that holds ``position``, opened."""
        path = self._core.table_for(rules, misere, _heaps(position))
        if path not in self._open:
            self._open[path] = Table(path)
        return self._open[path]

    def query(self, position: PositionLike, rules: str, *, misere: bool = False,
              line: bool = False) -> Answer:
        """The answer at ``position`` of the game (``rules``, normal play
        unless ``misere``), from the smallest table that holds it."""
        return self.table_for(position, rules, misere=misere).query(position, line=line)

    def close(self) -> None:
        for t in self._open.values():
            t.close()
        self._open.clear()

    def __enter__(self) -> Tablebase:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<nimtb.Tablebase of {len(self.tables)} tables>"

def open_tablebase(directory: PathLike) -> Tablebase:
    """The tables of a folder, answering each position from the smallest
    table of its game that holds it (see ``Tablebase``)."""
    return Tablebase(directory)

def solve(rules: str, path: PathLike, *, heaps: Optional[int] = None,
          max_heap: Optional[int] = None, max_total: Optional[int] = None,
          misere: bool = False, overwrite: bool = False, method: str = "brute",
          kernel: str = "auto", remoteness: bool = True, threads: int = 0,
          memory: int = 0, stream: bool = False, compression: str = "zstd", level: Optional[int] = None,
          checkpoint: Optional[PathLike] = None,
          progress: Optional[Progress] = None) -> Table:
    """Solves every position of a universe and writes its table to ``path``,
    as ``nimtb solve`` does; returns the table, opened.

    The universe is a box (``heaps`` and ``max_heap``: at most K heaps of at
    most H tokens) or a total (``max_total``, and optionally ``heaps``). The
    options are the command's: ``method`` ("brute" or "sprague-grundy"),
    ``kernel`` ("auto", "brute", "lines"), ``remoteness``, ``threads`` (0: all
    cores), ``memory`` (bytes the solve may hold, 0: what the machine has
    available), ``stream`` (write positions to disk as they are solved,
    holding only the line kernel's aggregates in memory: Nim in a box of 3
    heaps or more; automatic from 16 M positions or where the arrays would
    not fit), ``compression`` and ``level``, and ``checkpoint``, a folder to
    save progress in and resume from. Other Python threads run meanwhile;
    Ctrl-C (or an exception raised by ``progress``) stops the solve and
    leaves no file.

    Raises InputError (a request no solve can run), TableError (``path``
    taken without ``overwrite``, its folder missing), TooLargeError (a
    universe beyond nimtb's limits, a ValueError), MemoryError (beyond
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
