"""Input validation shared by the core modules (private).

Every public function converts its array arguments through :func:`as_float64`
and its ``eps`` through :func:`check_eps`, so all of them reject the same bad
inputs with the same messages.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray

F64 = NDArray[np.float64]


def as_float64(x: ArrayLike, name: str = "x") -> F64:
    """Return ``x`` as a float64 array (a copy only when a conversion is needed).

    Raises ``ValueError`` for strings, objects and complex numbers.
    """
    arr = np.asarray(x)
    if arr.dtype.kind in "cUS":
        kind = "complex numbers" if arr.dtype.kind == "c" else "text"
        raise ValueError(f"{name} must hold real numbers, got {kind} (dtype {arr.dtype})")
    if arr.dtype.kind not in "biuf":
        # ml_dtypes' bfloat16/float8 report kind 'V'; accept anything float() can read.
        try:
            return arr.astype(np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"{name} must hold real numbers, got an array of dtype {arr.dtype}") from None
    return arr.astype(np.float64, copy=False)


def check_eps(eps: float) -> float:
    """Return ``eps`` as a float after checking it is finite and not negative."""
    value = float(eps)
    if not np.isfinite(value) or value < 0:
        raise ValueError(f"eps must be a finite number >= 0, got {eps!r}")
    return value


def normalize_axes(axis: int | Sequence[int], ndim: int, *, trailing: bool) -> tuple[int, ...]:
    """Turn ``axis`` into a sorted tuple of non-negative axes of an ``ndim`` array.

    With ``trailing=True`` the axes must be the last ones (PyTorch's
    ``normalized_shape`` rule): ``-1``, ``(-2, -1)``, ... .
    """
    raw = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    if not raw:
        raise ValueError("axis must name at least one axis")
    axes: list[int] = []
    for a in raw:
        a = int(a)
        if not -ndim <= a < ndim:
            raise ValueError(f"axis {a} is out of range for an array with {ndim} dimension(s)")
        axes.append(a % ndim)
    if len(set(axes)) != len(axes):
        raise ValueError(f"axis {raw} names the same axis twice")
    result = tuple(sorted(axes))
    if trailing and result != tuple(range(ndim - len(result), ndim)):
        raise ValueError(
            f"axis {raw} must be the trailing axes (like PyTorch's normalized_shape), e.g. -1 or (-2, -1)"
        )
    return result


def check_param(p: ArrayLike | None, name: str, shape: tuple[int, ...], what: str, fill: float) -> F64:
    """Return a parameter (gamma, beta, running stats) as float64 of exactly ``shape``.

    ``None`` gives an array filled with ``fill`` (1 for gamma, 0 for beta).
    A scalar is broadcast. Any other shape raises ``ValueError`` naming both shapes.
    """
    if p is None:
        return np.full(shape, fill, dtype=np.float64)
    arr = as_float64(p, name)
    if arr.ndim == 0:
        return np.full(shape, float(arr), dtype=np.float64)
    if arr.shape != shape:
        raise ValueError(f"{name} has shape {arr.shape}, expected {shape} to match {what}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinity")
    return arr
