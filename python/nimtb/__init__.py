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

from typing import Any

from . import _core
from ._common import PathLike as PathLike, Position as Position, PositionLike as PositionLike
from ._common import Progress as Progress
from ._errors import InputError, NotInTableError, TableError, TableNotFoundError, TooLargeError
from ._quotients import (Genus, GenusTable, IdempotentPart, Quotient, QuotientFrontier, QuotientStructure, genus,
                         quotient)
from ._sequences import (HeapMove, Milestone, Period, ProvenAnswer, ProvenGame, Sequence, SequenceRecord,
                         read_sequence, sequence)
from ._tables import (Answer, Check, FolderTable, Move, Table, Tablebase, Touch, Verification,
                      open_tablebase, solve)

__version__: str = _core.__version__

__all__ = [
    "Answer", "Check", "FolderTable", "Genus", "GenusTable", "HeapMove", "IdempotentPart", "InputError", "Milestone", "Move", "NotInTableError", "Period",
    "PositionLike", "ProvenAnswer", "ProvenGame", "Quotient", "QuotientFrontier",
    "QuotientStructure", "Sequence", "SequenceRecord", "Table", "Tablebase",
    "TableError", "TableNotFoundError", "TooLargeError", "Touch", "Verification", "__version__", "genus", "open_tablebase", "quotient", "read_sequence", "sequence",
    "solve",
]


def __getattr__(name: str) -> Any:
    # nimtb.plot imports matplotlib, so only when first used.
    if name == "plot":
        import importlib

        return importlib.import_module(".plot", __name__)
    raise AttributeError(f"module 'nimtb' has no attribute {name!r}")
