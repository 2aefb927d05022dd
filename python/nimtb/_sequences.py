"""Single-heap games: sequences and their periods, and answers for heaps of any
size from a proven period."""

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
from ._common import Position, PositionLike, PathLike, Progress, _T, _heaps, _histogram, _outcome, _path, _request, _rows, _text, _whole


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
class Milestone:
    """Where a sequence stands after its first ``heaps`` values: the largest
    of them, the first heap of it, and the heaps 1.. among them whose value is
    rare under the record's mask."""

    heaps: int
    largest_value: int
    largest_value_heap: int
    rare_heaps: int


@dataclass(frozen=True)
class SequenceRecord:
    """A computed sequence's record, to cite: the sparse-space method's
    ``mask`` (0 for the plain method; a value v is rare when v & mask has an
    even number of bits), a ``Milestone`` at each power of two from 2^10 and
    at the end, and the ``rare`` heaps with their values (rows (heap, value))."""

    mask: int
    milestones: tuple[Milestone, ...]
    rare: npt.NDArray[np.uint64] = dataclasses.field(repr=False)

    @classmethod
    def _of(cls, j: dict[str, Any]) -> SequenceRecord:
        return cls(mask=j["mask"], milestones=tuple(Milestone(**m) for m in j["milestones"]),
                   rare=np.array(j["rare"], dtype=np.uint64).reshape(-1, 2))


@dataclass(frozen=True)
class Sequence:
    """A one-heap rule's values g(0), g(1), ... in normal play (numpy uint16,
    indexed by heap size), how they were computed ("plain" or "sparse"), their
    period, and its record (None for a file written before nimtb kept one)."""

    rules: str
    algorithm: str
    values: npt.NDArray[np.uint16] = dataclasses.field(repr=False)
    period: Period
    record: Optional[SequenceRecord] = dataclasses.field(default=None, repr=False)

    @property
    def max_heap(self) -> int:
        """The largest heap computed."""
        return len(self.values) - 1

    @classmethod
    def _of(cls, d: dict[str, Any]) -> Sequence:
        record = SequenceRecord._of(d["record"]) if "record" in d else None
        return cls(rules=d["rules"], algorithm=d["algorithm"], values=d["values"],
                   period=Period._of(d["period"]), record=record)

def sequence(rules: str, max_heap: Optional[int] = None, *, until_proven: bool = False,
             limit: int = 1 << 22, method: str = "auto", threads: int = 0,
             path: Optional[PathLike] = None, overwrite: bool = False,
             checkpoint: Optional[PathLike] = None,
             progress: Optional[Progress] = None) -> Sequence:
    """A one-heap rule's values g(0..max_heap) in normal play and their
    period, as ``nimtb sequence`` computes them; or, with
    ``until_proven=True``, as far as a period is proven (up to ``limit``
    heaps). With ``path``, also written as a sequence file (``read_sequence``
    and ``ProvenGame(sequence=...)`` read it). ``method`` is "auto", "plain"
    or "sparse"; ``threads`` 1 or 2 for the sparse-space method (0: both
    cores once a heap costs more than handing it over; the values are the
    same). With ``checkpoint`` (a folder), the values are saved there as they
    go (every 2^24 heaps, and when stopped), the same call made again goes on
    from them, and the folder is removed once the sequence is done.

    The memory is checked before any work; Ctrl-C (or an exception raised by
    ``progress``) stops it and leaves no file but the checkpoint. Raises InputError (a rule whose
    moves touch several heaps, no theorem for ``until_proven``, no period
    proven within ``limit``), TableError, MemoryError (more memory than this machine has).
    """
    request = _request(rules=_text(rules, "rules"), max_heap=_whole(max_heap, "max_heap"),
                       until_proven=until_proven or None,
                       limit=_whole(limit, "limit") if until_proven else None,
                       method=_text(method, "method"), threads=_whole(threads, "threads"),
                       output=None if path is None else _path(path), overwrite=overwrite,
                       checkpoint=None if checkpoint is None else _path(checkpoint))
    return Sequence._of(_core.sequence(request, progress))

def read_sequence(path: PathLike) -> Sequence:
    """The sequence a sequence file holds (``sequence(path=...)``, ``nimtb
    sequence --output``). Raises TableError when it is missing or damaged."""
    return Sequence._of(_core.read_sequence(_path(path)))

@dataclass(frozen=True)
class HeapMove:
    """A move of one heap, with the names every answer of nimtb gives a move
    (a table's ``Move``, the command's and the server's JSON): ``move`` in
    words, ``heap`` counted from 1 (``position[heap - 1]`` is its size),
    ``heap_size``, ``take`` (the tokens taken) and ``leaves`` (what is left
    of that heap, ascending)."""

    move: str
    heap: int
    heap_size: int
    take: int
    leaves: tuple[int, ...]

    @classmethod
    def _of(cls, j: dict[str, Any]) -> HeapMove:
        return cls(move=j["move"], heap=j["heap"], heap_size=j["heap_size"], take=j["take"],
                   leaves=tuple(j["leaves"]))

@dataclass(frozen=True)
class ProvenAnswer:
    """A position's answer from a one-heap rule's values: its value (the XOR
    of its heaps' values), its outcome, and a winning move when there is one
    (None for a P-position). ``basis`` says what it rests on: "formula"
    (nim, lasker), "period" (a proven period) or "values" (the values
    computed)."""

    basis: str
    position: Position
    outcome: str
    to_move_wins: bool
    value: int
    winning_move: Optional[HeapMove]

class ProvenGame:
    """A game whose moves touch one heap, answered from its single-heap
    values as ``nimtb query --rules R`` and ``--sequence FILE`` do: heaps of
    any size (up to 2**63 tokens) where the values are a formula (nim,
    lasker) or have a proven period (subtraction games and octal codes,
    computed here until one is proven, up to ``limit`` heaps); otherwise
    heaps up to ``known_up_to``: the values stored in the sequence file, or,
    for a rule no theorem gives a period for (grundy, for one),
    the values computed so far. Those are computed as queries need them, up
    to ``limit`` heaps: a query past them computes at least twice as many.

    Raises InputError for a rule whose moves touch several heaps, TableError
    for a sequence file that cannot be read; ``query`` raises InputError for
    a heap beyond what is known (beyond ``limit`` heaps, or the file's).
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
            winning_move=HeapMove._of(m) if m else None)

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
