"""What the modules of nimtb share: the types of positions, paths and progress,
and the checks of arguments before they reach the C++ core."""

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

def _text(value: Any, name: str) -> str:
    """A rule's text (or another word of a request), never a number taken for one."""
    if isinstance(value, str):
        return value
    raise TypeError(f"{name} is text, such as \"kayles\", not {type(value).__name__}")

def _request(**keywords: Any) -> str:
    """A request as the core reads it (the JSON of every long operation,
    docs/EVENTS.md): the keywords given, None left out."""
    return json.dumps({key: value for key, value in keywords.items() if value is not None})

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
