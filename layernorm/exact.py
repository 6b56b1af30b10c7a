"""The exactness machinery under :mod:`layernorm.core`: rows of features, exactly rounded means, and
two-pass variances that stay right under cancellation, huge or tiny magnitudes and 64-bit integers.

The core's readable functions (``mean``, ``variance``, ``layer_norm_steps``…) and the other
normalizations (:mod:`layernorm.batch`, :mod:`layernorm.family`) share these; the formula itself, one
step per line, is :mod:`layernorm.formula`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from layernorm._accurate import _HUGE, _SPLIT, _U, _exact_row_sums, _ms, row_means
from layernorm._checks import F64, ResultRangeError, as_float64, check_affine, normalize_axes

Axis = int | Sequence[int]

VAR_TINY = 2.0**-960  # below this, squares of x - mu may have lost bits to underflow


class ZeroVarianceError(ValueError):
    """A row has variance 0 and ``eps`` is 0, so ``(x - mu) / sqrt(var + eps)`` is 0/0.

    PyTorch returns NaN in this case; this package refuses instead of handing back
    a NaN nobody asked for. Any ``eps > 0`` makes the row well defined (its
    normalized values are all 0, so its output is exactly ``beta``).

    Source: this project (teaching simulation); PyTorch ``torch.nn.functional.layer_norm``
    returns NaN for the same input.
    """


def as_exact(x: ArrayLike) -> NDArray[Any]:
    """``x`` as float64, except 64-bit integers: kept, so their mean is exact for the integers.

    (float64 holds integers exactly only up to 2**53: ``[2**62 + 1, -2**62, 0]`` as float64
    is ``[2**62, -2**62, 0]``, whose mean is 0, not 1/3.)
    """
    arr = np.asarray(x)
    if arr.dtype.kind in "iu" and arr.dtype.itemsize == 8:
        return arr
    return as_float64(arr)


def feature_rows(
    x: ArrayLike, axis: Axis, *, trailing: bool, keep_int64: bool = False
) -> tuple[NDArray[Any], tuple[int, ...], tuple[int, ...]]:
    """Move the reduced axes last and flatten: returns ``(x2 (n, d), batch_shape, axes)``.

    ``x2`` is float64, or with ``keep_int64`` the 64-bit integers themselves (for
    :func:`center_rows`, which averages them exactly).
    """
    x64 = as_exact(x) if keep_int64 else as_float64(x)
    if x64.ndim == 0:
        raise ValueError("x is a single number; LayerNorm needs at least one axis of features")
    axes = normalize_axes(axis, x64.ndim, trailing=trailing)
    kept = tuple(a for a in range(x64.ndim) if a not in axes)
    moved = np.transpose(x64, kept + axes)
    batch_shape = tuple(x64.shape[a] for a in kept)
    d = int(np.prod([x64.shape[a] for a in axes]))
    if d == 0:
        raise ValueError("the normalized axes are empty (d = 0): there is nothing to average")
    return moved.reshape(-1, d), batch_shape, axes


def center_rows(x2: NDArray[Any], out: F64 | None = None, scratch: F64 | None = None) -> tuple[F64, F64]:
    """Return ``(mu (n, 1), x - mu (n, d))`` for rows of ``x2``, in float64.

    ``mu`` is the exact mean of the row to within 3 ulp: the sum is faithfully rounded
    (AccSum, see :mod:`layernorm._accurate`), not ``np.add.reduce``, whose rounding error
    can swamp a mean under cancellation (``[1e16, -1e16, 1]`` gives 1/3, not 0.5556).
    ``mu`` is clamped into ``[min, max]`` of the row, so a constant row centres to exactly 0.
    The part of the exact mean that ``mu`` cannot hold, ``r = mean - mu``, is subtracted
    from the centred values of rows where it may exceed ``4 u sigma`` (clustered rows such
    as ``[1e8, 1e8 + ulp]``, whose mean falls between two floats; offsets like 1e4 + noise):
    ``x - mu`` is then right to ``4 u sigma`` and the variance has no ``r**2`` bias.
    64-bit integers are averaged as the integers, not as their float64 roundings.

    ``out`` (n, d) receives ``x - mu`` (and serves as work space before); ``scratch``
    (n, d) holds the float64 copy of a non-float64 ``x2``. Both are optional.
    """
    if x2.shape[0] == 0:  # an empty batch (no rows): nothing to centre, as PyTorch returns it
        return np.empty((0, 1)), np.empty(x2.shape)
    if x2.dtype.kind in "iu" and x2.dtype.itemsize == 8:
        return _center_int_rows(x2)
    if x2.dtype != np.float32:  # float32 rows: min/max on the narrow type (exact), then widen
        x2 = x2.astype(np.float64, copy=False)
    if x2.shape[0] == 1:
        one = _center_one_row(x2, out, scratch)
        if one is not None:
            return one
    xmax = np.maximum.reduce(x2, axis=1).astype(np.float64, copy=False)
    xmin = np.minimum.reduce(x2, axis=1).astype(np.float64, copy=False)
    amax = np.maximum(xmax, -xmin)
    top = float(np.maximum.reduce(amax))
    if not math.isfinite(top):
        raise ValueError("x contains NaN or infinity; normalization needs finite numbers")
    x64 = _float64_rows(x2, scratch)
    centered = np.empty(x64.shape) if out is None else out
    bound = _correction_bound(xmin, xmax, x64.shape[1], top)
    mu, r = row_means(x64, x64.shape[1], xmin, xmax, amax, work=centered, bound=bound, top=top)
    if top >= 2.0**1022:  # only then can x - mu overflow
        with np.errstate(over="ignore"):
            if not (np.isfinite(xmax - mu).all() and np.isfinite(mu - xmin).all()):
                raise ResultRangeError(
                    "x - mean(x) does not fit in a float64 (the largest is 1.798e+308) for this x "
                    f"(largest |x| = {top:.4g}); scale x down"
                )
    np.subtract(x64, mu[:, None], out=centered)
    if r is not None:
        _correct(centered, r, bound)
    return mu[:, None], centered


def _float64_rows(x2: NDArray[Any], scratch: F64 | None) -> F64:
    """``x2`` itself when it is C-contiguous float64, else its values copied into ``scratch`` (or a
    new array): the rows the centring reads, without a copy where none is needed."""
    if x2.dtype == np.float64 and x2.flags.c_contiguous:
        return x2
    x64 = np.empty(x2.shape) if scratch is None else scratch
    np.copyto(x64, x2)
    return x64


def _center_one_row(x2: NDArray[Any], out: F64 | None, scratch: F64 | None) -> tuple[F64, F64] | None:
    """:func:`center_rows` for a single row, its per-row arithmetic in Python floats.

    The same IEEE operations in the same order as the vectorised path (so the same bits),
    without NumPy's per-call overhead on length-1 arrays. Returns None for the rare rows
    that need more (huge values, cancellation beyond one extraction): the general path.
    """
    xmax = float(np.maximum.reduce(x2, axis=None))
    xmin = float(np.minimum.reduce(x2, axis=None))
    if not (math.isfinite(xmax) and math.isfinite(xmin)):
        raise ValueError("x contains NaN or infinity; normalization needs finite numbers")
    amax = max(xmax, -xmin)
    if not 0 < amax < _HUGE:
        return None
    x64 = _float64_rows(x2, scratch)
    d = x64.shape[1]
    ms = _ms(d)
    e = math.frexp(amax)[1]
    sigma = math.ldexp(ms, e + (8 - e) % 16)  # as _accurate._first_sigma
    centered = np.empty(x64.shape) if out is None else out
    np.add(x64, sigma, out=centered)  # as _accurate._sums
    centered -= sigma
    tau = float(_exact_row_sums(centered, sigma)[0])
    np.subtract(x64, centered, out=centered)
    alpha = float(np.add.reduce(centered, axis=1)[0])
    if not (abs(tau) >= ms * ms * _U * sigma or sigma <= 2.0**-1022):
        return None
    hi = tau + alpha
    lo = tau - hi
    lo += alpha
    mu = min(max(hi / d, xmin), xmax)  # as np.minimum(np.maximum(...)): ties keep hi / d
    bound = (xmax - xmin) * (2 * _U / math.sqrt(d))  # as _correction_bound
    np.subtract(x64, mu, out=centered)
    if not abs(hi) * (3 * _U / d) + 2.0**-1000 <= bound:  # as row_means: r may matter
        c = mu * _SPLIT  # as _accurate._remainder
        mh = c - (c - mu)
        ml = mu - mh
        r = ((hi - d * mh) - d * ml + lo) / d if d < 2**26 else None
        if r is None:
            return None
        if abs(r) > bound:  # as _correct
            centered -= r
    return np.array([[mu]]), centered


def _int_parts(xi: NDArray[Any]) -> tuple[F64, F64]:
    """64-bit integers as ``f + lo`` exactly: ``f`` their float64 rounding, ``lo`` the rest.

    ``|lo| <= ulp(f) / 2 <= 1024``. With ``x = H + L`` (upper 32 bits times 2**32, lower 32
    bits, both exact in float64), ``lo = (H - f) + L``: ``H - f`` is exact (Sterbenz, or
    small integers) and so is the sum (integers below 2**53).
    """
    f = xi.astype(np.float64)
    lo = (xi >> 32).astype(np.float64) * 2.0**32
    lo -= f
    lo += (xi & 0xFFFFFFFF).astype(np.float64)
    return f, lo


def subtract(x: NDArray[Any], m: F64) -> F64:
    """``x - m`` in float64, rounded once for float input and at most twice for 64-bit integers.

    (``(f - m) + lo`` with ``x = f + lo``: the integer itself, not its float64 rounding.)
    """
    if x.dtype.kind in "iu" and x.dtype.itemsize == 8:
        f, lo = _int_parts(x)
        f -= m
        f += lo
        return f
    diff: F64 = x - m
    return diff


def _center_int_rows(xi: NDArray[Any]) -> tuple[F64, F64]:
    """:func:`center_rows` for 64-bit integers: exact for the integers, beyond 2**53 too.

    Each integer is split exactly as ``f + lo`` (:func:`_int_parts`); the mean sums all 2d
    parts, and ``x - mu`` is ``(f - mu) + lo`` (``f - mu`` exact where x is near mu).
    """
    xi = np.ascontiguousarray(xi)
    imax = np.maximum.reduce(xi, axis=1)
    imin = np.minimum.reduce(xi, axis=1)
    f, lo = _int_parts(xi)
    xmax, xmin = imax.astype(np.float64), imin.astype(np.float64)
    amax = np.maximum(np.abs(xmax), np.abs(xmin)) + 2.0**11  # bounds |f| and |lo|
    mu, r = row_means(np.concatenate((f, lo), axis=1), xi.shape[1], xmin, xmax, amax)
    assert r is not None
    centered = f - mu[:, None]
    centered += lo
    const = imin == imax  # (their float64 min and max may agree for other rows)
    centered[const] = 0.0
    r[const] = 0.0
    _correct(centered, r, _correction_bound(xmin, xmax, xi.shape[1]))
    return mu[:, None], centered


def _correction_bound(xmin: F64, xmax: F64, d: int, top: float = math.inf) -> F64:
    """``4 u (max - min) / (2 sqrt(d))``: at most ``4 u sigma`` (sigma >= (max - min) / (2 sqrt d)).

    A row whose ``|r| = |mean - mu|`` is within this bound keeps ``x - mu`` as it is: its
    centred values are then off by at most ``4 u sigma`` and its variance by ``r**2``.
    ``top`` bounds ``max|x|`` (max - min may overflow only if it is at least 2**1023).
    """
    if top < 2.0**1022:
        return (xmax - xmin) * (2 * _U / math.sqrt(d))
    with np.errstate(over="ignore"):
        bound: F64 = (xmax - xmin) * (2 * _U / math.sqrt(d))
    return bound


def _correct(centered: F64, r: F64, bound: F64) -> None:
    """Subtract ``r`` (the exact mean minus mu) from the centred rows where ``|r| > bound``."""
    need = np.abs(r) > bound
    if need.any():
        if 4 * np.count_nonzero(need) >= need.size:
            centered -= np.where(need, r, 0.0)[:, None]  # subtracting 0 changes no bit
        else:
            rows = np.flatnonzero(need)
            centered[rows] -= r[rows, None]


def spread_rows(centered: F64, eps: float, *, ddof: int = 0, scratch: F64 | None = None) -> tuple[F64, F64]:
    """Return ``(var (n, 1), std (n, 1))`` where ``std = sqrt(var + eps)``.

    ``var = sum((x - mu)**2) / (d - ddof)`` with the squares summed pairwise
    (``np.add.reduce``: a relative error of at most ``h * u``, ``h`` the depth of its
    summation tree, 17 at d = 768, and about 1 ulp in practice, where ``einsum``'s
    running sums reach ~10 ulp at d = 768). Squares
    overflow past |x - mu| of about 1e154 and lose bits below 1e-154; those rows
    (``var`` infinite or below 2**-960) are rescaled by the power of two at or below their
    largest |x - mu| first (exact) and ``std`` is formed with ``hypot``, so it stays exact
    (``var`` itself may then be ``inf`` or a subnormal, as the float64 range forces).
    ``scratch`` (n, d), optional, receives the squares.
    """
    d = centered.shape[1]
    if centered.shape[0] == 0:  # an empty batch: no rows, no spreads
        return np.empty((0, 1)), np.empty((0, 1))
    sq = np.empty(centered.shape) if scratch is None else scratch  # C order: pairwise along rows
    with np.errstate(over="ignore"):
        var = np.add.reduce(np.multiply(centered, centered, out=sq), axis=1, keepdims=True)
    var /= d - ddof
    std = np.sqrt(var + eps)
    if not (np.minimum.reduce(var, axis=None) >= VAR_TINY and np.maximum.reduce(var, axis=None) < np.inf):
        rows = np.flatnonzero(~(var[:, 0] >= VAR_TINY) | (var[:, 0] == np.inf))
        c = centered[rows]
        scale = np.ldexp(1.0, np.frexp(np.max(np.abs(c), axis=1, keepdims=True))[1] - 1)  # 2**k <= max|c|
        c /= scale
        m = np.add.reduce(c * c, axis=1, keepdims=True) / (d - ddof)
        with np.errstate(over="ignore", under="ignore"):
            std[rows] = np.hypot(scale * np.sqrt(m), math.sqrt(eps))
            var[rows] = (scale * m) * scale
    return var, std


def check_divisor(std: F64, first_row: int = 0) -> None:
    """Raise :class:`ZeroVarianceError` if any divisor ``sqrt(var + eps)`` is 0.

    ``first_row`` is the index of ``std[0]`` among the caller's rows (for the message).
    """
    if not std.all():
        bad = first_row + np.flatnonzero(std.ravel() == 0)
        raise ZeroVarianceError(
            f"row(s) {bad[:5].tolist()} have variance 0 and eps is 0, so x_hat = 0/0; "
            "use eps > 0 (PyTorch would return NaN here)"
        )



BLOCK_VALUES = 131072  # 1 MiB of float64 per temporary: a block's working set stays in L2/L3


def by_rows(op: np.ufunc, out: F64, v: F64, v8: F64) -> None:
    """``out = op(out, v)`` for a row ``v`` (d,), eight rows per inner loop where possible.

    ``out`` (m, d) is C-contiguous; ``v8`` is ``v`` repeated 8 times. The same products as
    broadcasting ``v``, with an eighth of NumPy's per-row loop overhead.
    """
    k = out.shape[0] - out.shape[0] % 8 if v8.size > v.size else 0
    if k:
        head = out[:k].reshape(-1, v8.size)
        op(head, v8, out=head)
    if k < out.shape[0]:
        op(out[k:], v, out=out[k:])


def prepare_layer_norm(
    x: ArrayLike, gamma: ArrayLike | None, beta: ArrayLike | None, axis: Axis
) -> tuple[NDArray[Any], tuple[int, ...], F64, F64]:
    """Validate LayerNorm's arguments: ``(x2 (n, d), x's shape, gamma, beta)``.

    ``x2`` is float64, or 64-bit integers as given (averaged as integers by :func:`center_rows`).
    """
    x2, batch_shape, axes = feature_rows(x, axis, trailing=True, keep_int64=True)
    full_shape = batch_shape + tuple(np.shape(x)[a] for a in axes)
    norm_shape = full_shape[len(batch_shape) :]
    what = f"x.shape[{-len(norm_shape)}:]"
    g, b = check_affine(gamma, beta, norm_shape, what)
    return x2, full_shape, g, b


