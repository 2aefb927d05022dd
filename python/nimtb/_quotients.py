"""Misère quotients: computed, read, asked."""

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
class IdempotentPart:
    """One idempotent e of a quotient (e * e = e) and what belongs to it:
    ``subgroup``, the largest group inside the quotient with identity e;
    ``component``, its Archimedean component (the elements some power of
    which is e); ``lower_covers``, the idempotents just below e (f < e when
    f * e = f); ``p_in_subgroup``, the subgroup's elements in the P-portion.
    Elements are written as words in the generators (``Quotient.words``)."""

    idempotent: str
    subgroup: tuple[str, ...]
    component: tuple[str, ...]
    lower_covers: tuple[str, ...]
    p_in_subgroup: tuple[str, ...]


@dataclass(frozen=True)
class QuotientStructure:
    """What a misère quotient is made of (``nimtb quotient --analyze``;
    docs/QUOTIENTS.md gives each definition): its idempotents, each with its
    part; the ``kernel`` (the smallest ideal, a group) and its identity;
    ``divisibility_classes``, the number of classes of elements that divide
    each other; ``tame``, n when the quotient is T_n (misère Nim's quotient
    with heaps below 2^n, P onto P), else None."""

    idempotents: tuple[IdempotentPart, ...]
    kernel_identity: str
    kernel: tuple[str, ...]
    divisibility_classes: int
    tame: Optional[int]


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
    positions, not a quotient. ``text`` is the presentation as ``nimtb
    quotient`` prints it (generators, relations, P-portion, phi), ``latex``
    the same as ``nimtb quotient --latex`` writes it, ready for a paper."""

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
    text: str = dataclasses.field(repr=False, default="")
    latex: str = dataclasses.field(repr=False, default="")
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

    def structure(self) -> QuotientStructure:
        """What the quotient is made of, computed from ``table`` and ``p``."""
        j = _core.quotient_structure(np.ascontiguousarray(self.table, dtype=np.uint32),
                                     np.ascontiguousarray(self.p, dtype=np.bool_))

        def words(elements: list[int]) -> tuple[str, ...]:
            return tuple(self.words[x] for x in elements)

        return QuotientStructure(
            idempotents=tuple(IdempotentPart(
                idempotent=self.words[part["element"]], subgroup=words(part["subgroup"]),
                component=words(part["component"]), lower_covers=words(part["lower_covers"]),
                p_in_subgroup=words(part["p_in_subgroup"])) for part in j["idempotents"]),
            kernel_identity=self.words[j["kernel_identity"]], kernel=words(j["kernel"]),
            divisibility_classes=j["divisibility_classes"], tame=j["tame"])

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
            text=j["presentation"]["text"], latex=j["presentation"]["latex"],
            proof=None if j["proof"] is None else (j["proof"]["preperiod"], j["proof"]["period"]),
            stopped=j["stopped"], max_copies=j["max_copies"],
            frontier=None if j["frontier"] is None else QuotientFrontier(
                heap=j["frontier"]["heap"], candidates_refuted=j["frontier"]["candidates_refuted"],
                order=j["frontier"]["order"], least_failure=tuple(j["frontier"]["least_failure"]),
                predicted=j["frontier"]["predicted"], tokens=j["frontier"]["tokens"],
                at_least=j["frontier"]["at_least"]))

def quotient(rules: str, max_heap: int, *, until_proven: bool = False,
             time_limit: Optional[int] = None, max_order: int = 8192,
             max_copies: Optional[int] = None, resume: Optional[PathLike] = None,
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
    refuses others) and is no quotient. ``resume`` goes on from a quotient
    file of the same rule (``nimtb quotient --output``, checked as it is
    read; TableError if it is damaged): the result is the one a run from
    heap 1 gives. Ctrl-C (or an exception
    raised by ``progress``) stops it. Raises InputError (a rule whose moves
    touch several heaps, a bound below 1, ``until_proven`` for a rule no
    theorem applies to) and TooLargeError (a ValueError) past heap 100000, and, without
    ``time_limit``, where nimtb cannot compute it (the message names the
    largest quotient it reached), as for every bound too large."""
    bound = _whole(max_heap, "max_heap")
    request = _request(rules=_text(rules, "rules"), max_heap=None if until_proven else bound,
                       until_proven=until_proven or None, limit=bound if until_proven else None,
                       time_limit=_whole(time_limit, "time_limit"),
                       max_order=_whole(max_order, "max_order"),
                       max_copies=_whole(max_copies, "max_copies"),
                       resume=None if resume is None else _path(resume, "resume"))
    return Quotient._of(_core.quotient(request, progress))


@dataclass(frozen=True)
class Genus:
    """Conway's genus of one heap, g^{γ0γ1...} (``nimtb genus``;
    docs/QUOTIENTS.md): ``normal`` is g, ``superscript`` γ0, γ1, ... up to
    the first two values of its alternating tail, ``text`` the symbol
    ("4^{146}"), ``tame`` whether it is the genus of a nim position."""

    heap: int
    normal: int
    superscript: tuple[int, ...]
    text: str
    tame: bool

    def gamma(self, n: int) -> int:
        """γn: the misère Grundy value of the heap plus n nim-heaps of size 2."""
        s = self.superscript
        if n < len(s):
            return s[n]
        return s[len(s) - 2 + (n - len(s)) % 2]


@dataclass(frozen=True)
class GenusTable:
    """The genus of every heap 0 .. ``max_heap`` of a rule: ``heaps[h]``;
    ``first_wild`` the first heap whose genus is no nim position's (None:
    every one is); ``positions`` the positions computed (single heaps, or
    for a rule that splits heaps their sums, less the heaps that are *0, *1
    or *2); the superscripts alternate from ``alternates_from`` on at every
    one of them, proven."""

    rules: str
    max_heap: int
    heaps: tuple[Genus, ...]
    first_wild: Optional[int]
    positions: int
    alternates_from: int


def genus(rules: str, max_heap: int, *, progress: Optional[Progress] = None) -> GenusTable:
    """Conway's genus of every heap up to ``max_heap`` (0 .. 1000000), as
    ``nimtb genus`` computes it: from the definition over every position the
    heaps reach. Raises InputError for a rule whose moves touch several
    heaps, TooLargeError (a ValueError) past 100 million positions or 400 million moves (for a
    rule that splits heaps the positions are the sums of at most
    ``max_heap`` tokens of its heaps that are no *0, *1 or *2: Kayles
    reaches heap 108; the message names the largest heap that fits).
    Ctrl-C stops it."""
    j = _core.genus(_request(rules=_text(rules, "rules"), max_heap=_whole(max_heap, "max_heap")),
                    progress)
    return GenusTable(
        rules=j["rules"], max_heap=j["max_heap"],
        heaps=tuple(Genus(heap=h["heap"], normal=h["normal"], superscript=tuple(h["superscript"]),
                          text=h["genus"], tame=h["tame"]) for h in j["heaps"]),
        first_wild=j["first_wild"], positions=j["positions"], alternates_from=j["alternates_from"])
