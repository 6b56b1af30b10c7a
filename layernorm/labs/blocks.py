"""A (B, T, d) tensor made small enough to draw: blocks of rows and columns averaged into a heatmap
grid, with the block sizes the page states.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from layernorm._checks import F64, as_float64, finite_results


@dataclass(frozen=True)
class DisplayGrid:
    """A (B·T) × d grid reduced by block means to what a screen can show.

    Attributes
    ----------
    z : (R, C) ndarray
        Mean of each block of ``row_step × col_step`` cells (the last blocks may be smaller).
    row_centers : (R,) ndarray
        Centre of each block in original row coordinates (``b * T + t``).
    col_centers : (C,) ndarray
        Centre of each block in original feature coordinates.
    row_step, col_step : int
        Block size; 1 and 1 mean every cell is shown.
    zmax : float
        99th percentile of ``|z|``: a colour range that one outlier feature cannot flatten
        (1.0 if that percentile is 0).

    Notes
    -----
    Source: this project (teaching simulation).
    """

    z: F64
    row_centers: F64
    col_centers: F64
    row_step: int
    col_step: int
    zmax: float

    @property
    def aggregated(self) -> bool:
        return self.row_step > 1 or self.col_step > 1


def _blocks(n: int, limit: int) -> tuple[int, NDArray[np.intp], F64]:
    step = -(-n // limit)  # ceil
    starts = np.arange(0, n, step, dtype=np.intp)
    sizes = np.minimum(starts + step, n) - starts
    return step, starts, starts + (sizes - 1) / 2.0


@finite_results()
def display_grid(x: ArrayLike, *, max_rows: int = 256, max_cols: int = 512) -> DisplayGrid:
    """Block-average a (B, T, d) tensor to at most ``max_rows × max_cols`` cells for a heatmap.

    Parameters
    ----------
    x : (B, T, d) array_like
        Values to show, in any units (``z`` keeps them).
    max_rows, max_cols : int, default 256 and 512
        Display budget; the defaults give at most 131,072 cells.

    Returns
    -------
    DisplayGrid
        ``z`` of shape ``(R, C)`` with ``R <= max_rows`` and ``C <= max_cols``.

    Raises
    ------
    ValueError
        ``x`` not 3-D, not numeric (text, complex), or a budget below 1.

    Notes
    -----
    Source: this project (teaching simulation).
    """
    x64 = as_float64(x)
    if x64.ndim != 3 or min(max_rows, max_cols) < 1:
        raise ValueError(f"x must have shape (B, T, d) and the budget be >= 1, got {x64.shape}")
    tokens = x64.reshape(-1, x64.shape[2])
    rs, r0, rc = _blocks(tokens.shape[0], max_rows)
    cs, c0, cc = _blocks(tokens.shape[1], max_cols)
    z = tokens
    if rs > 1:
        z = np.add.reduceat(z, r0, axis=0) / np.diff(np.append(r0, tokens.shape[0]))[:, None]
    if cs > 1:
        z = np.add.reduceat(z, c0, axis=1) / np.diff(np.append(c0, tokens.shape[1]))[None, :]
    zmax = float(np.percentile(np.abs(z), 99)) or 1.0
    return DisplayGrid(z, rc, cc, rs, cs, zmax)
