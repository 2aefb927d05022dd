"""Pictures of tables and sequences with matplotlib, for a notebook: the
pictures ``nimtb serve`` draws. matplotlib is needed only here (Debian:
python3-matplotlib); ``import nimtb`` works without it.

Each function draws on ``ax`` (a new figure's axes when None) and returns
what it drew, whose data are the table's: ``plane`` and
``misere_difference`` an AxesImage of one cell per position, ``sequence``
and ``p_counts`` the Axes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional, Sequence as Seq

import numpy as np
import numpy.typing as npt

from . import InputError, Sequence, Table

if TYPE_CHECKING:  # matplotlib 3.6 (Debian 12) has no type information
    from matplotlib.axes import Axes  # type: ignore[import]
    from matplotlib.image import AxesImage  # type: ignore[import]

__all__ = ["misere_difference", "p_counts", "plane", "plane_data", "sequence"]

# The page's colours (web/plane.js): P-positions dark, N-positions light,
# positions whose outcome changes between conventions red.
P_COLOUR = "#263238"
N_COLOUR = "#cfd8dc"
DIFFERS_COLOUR = "#d32f2f"
SAME_COLOUR = "#eceff1"


def _axes(ax: Optional[Axes]) -> Axes:
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt  # type: ignore[import]

    _, new = plt.subplots()
    return new


def _two_colours(zero: str, one: str) -> Any:
    """A colour map of 0 and 1 (NaN, outside the table, stays blank)."""
    from matplotlib.colors import ListedColormap  # type: ignore[import]

    return ListedColormap([zero, one])


# A cell outside the table in the plane the core gives (service/plane.h).
NO_VALUE = 2**32 - 1


def plane_data(table: Table, others: Seq[int] = (), what: str = "outcome") -> npt.NDArray[np.float64]:
    """The plane of positions (a, b, *others) as an array: row a, column b,
    for every a and b up to the table's largest heap; each cell the
    position's outcome (1 for N, 0 for P), value or remoteness (``what``),
    NaN where (a, b, *others) is not a position of the table."""
    if what not in ("outcome", "value", "remoteness"):
        raise InputError(f"what is 'outcome', 'value' or 'remoteness', not {what!r}")
    if what == "remoteness" and "remoteness" not in table.info["quantities"]:
        raise InputError("the table stores no remoteness")
    h = table.info["max_heap_size"]
    # The page's plane (service/plane.h), padded to every heap size 0 .. H.
    values, remoteness = table._t.plane([int(x) for x in others], h + 1)
    outside = values == NO_VALUE
    cells = np.full((h + 1, h + 1), np.nan)
    side = values.shape[0]
    got = remoteness.astype(np.float64) if what == "remoteness" else values.astype(np.float64)
    got = (got != 0).astype(np.float64) if what == "outcome" else got
    cells[:side, :side] = np.where(outside, np.nan, got)
    return cells


def plane(table: Table, others: Seq[int] = (), what: str = "outcome",
          ax: Optional[Axes] = None) -> AxesImage:
    """The plane of positions (a, b, *others): heap a down, heap b across,
    one cell per position, coloured by outcome (P dark), value or
    remoteness; cells outside the table left blank."""
    ax = _axes(ax)
    data = plane_data(table, others, what)
    cmap: Any = _two_colours(P_COLOUR, N_COLOUR) if what == "outcome" else "viridis"
    image = ax.imshow(data, cmap=cmap, interpolation="nearest",
                      origin="upper", vmin=0 if what == "outcome" else None,
                      vmax=1 if what == "outcome" else None)
    rest = " ".join(str(x) for x in others)
    ax.set_title(f"{table.rules} {table.convention}: a b {rest} by {what}".replace("  ", " "))
    ax.set_xlabel("heap b")
    ax.set_ylabel("heap a")
    if what != "outcome":
        ax.figure.colorbar(image, ax=ax, label=what)
    return image


def misere_difference(normal: Table, misere: Table, others: Seq[int] = (),
                      ax: Optional[Axes] = None) -> AxesImage:
    """Where the outcome of (a, b, *others) differs between normal and
    misère play of one rule: 1 (red) where it differs, 0 where it is the
    same, blank outside either table."""
    if normal.rules != misere.rules or (normal.convention, misere.convention) != ("normal", "misere"):
        raise InputError("give a normal-play table and a misère table of the same rule, "
                         f"not {normal.rules} {normal.convention} and {misere.rules} "
                         f"{misere.convention}")
    a, b = plane_data(normal, others), plane_data(misere, others)
    size = min(a.shape[0], b.shape[0])
    a, b = a[:size, :size], b[:size, :size]
    data = np.where(np.isnan(a) | np.isnan(b), np.nan, (a != b).astype(np.float64))
    ax = _axes(ax)
    image = ax.imshow(data, cmap=_two_colours(SAME_COLOUR, DIFFERS_COLOUR),
                      vmin=0, vmax=1, interpolation="nearest", origin="upper")
    ax.set_title(f"{normal.rules}: outcome differs in misère play (red)")
    ax.set_xlabel("heap b")
    ax.set_ylabel("heap a")
    return image


def sequence(seq: Sequence, heaps: Optional[int] = None, ax: Optional[Axes] = None) -> Axes:
    """The values g(0..heaps) of a sequence (all when None) as points, the
    preperiod shaded grey and, when a period is claimed, its first period
    after the preperiod shaded blue."""
    ax = _axes(ax)
    last = seq.max_heap if heaps is None else min(int(heaps), seq.max_heap)
    x = np.arange(last + 1)
    ax.plot(x, seq.values[: last + 1], ".", markersize=3 if last > 200 else 6, label="g(n)")
    p = seq.period
    if p.period is not None and p.preperiod is not None:
        if p.preperiod > 0:
            ax.axvspan(0, min(p.preperiod, last), color="0.85", zorder=0, label="preperiod")
        if p.preperiod <= last:
            word = "period (proven)" if p.proven else "period (observed)"
            ax.axvspan(p.preperiod, min(p.preperiod + p.period, last), color="#bbdefb", zorder=0,
                       label=f"{word} {p.period}")
    ax.set_title(f"{seq.rules}: g(n), n = 0..{last}")
    ax.set_xlabel("heap n")
    ax.set_ylabel("g(n)")
    ax.legend(loc="upper left")
    return ax


def p_counts(table: Table, by: str = "total", ax: Optional[Axes] = None) -> Axes:
    """The positions and P-positions of the table by total tokens (or by
    largest heap, ``by="largest"``), as bars: the census of ``nimtb dump
    --count``."""
    if by not in ("total", "largest"):
        raise InputError(f"by is 'total' or 'largest', not {by!r}")
    rows = table.census()["by_" + by]
    x = np.array([r[by] for r in rows])
    ax = _axes(ax)
    ax.bar(x, [r["positions"] for r in rows], color=N_COLOUR, label="positions")
    ax.bar(x, [r["p_positions"] for r in rows], color=P_COLOUR, label="P-positions")
    ax.set_title(f"{table.rules} {table.convention}: P-positions by {by}")
    ax.set_xlabel("tokens in all" if by == "total" else "largest heap")
    ax.set_ylabel("positions")
    ax.legend(loc="upper left")
    return ax
