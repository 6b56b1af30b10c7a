"""Layer Normalization, one formula step at a time.

Letters used in shapes throughout the package:

- ``N`` batch (sequences or samples), ``T`` tokens, ``d`` features of one token,
  ``C`` channels (BatchNorm, GroupNorm, InstanceNorm);
- ``...`` any number of leading (batch) axes.

LayerNorm (Ba, Kiros & Hinton 2016, PyTorch ``torch.nn.functional.layer_norm``)::

    mu    = mean(x)                        over the normalized axes
    var   = mean((x - mu)**2)              population variance, divide by d
    x_hat = (x - mu) / sqrt(var + eps)     eps inside the square root
    y     = gamma * x_hat + beta           gamma = 1, beta = 0 at initialisation

Numerics: every statistic is computed in float64 whatever the input dtype. The mean
comes from a faithfully rounded sum (AccSum, :mod:`layernorm._accurate`), so it is
within 3 ulp of the exact mean even under cancellation (``[1e16, -1e16, 1]`` gives
1/3); 64-bit integers are averaged as the integers, beyond 2**53 too. The variance is
two-pass (the mean is subtracted before anything is squared; the part of the exact
mean a float64 cannot hold is carried into ``x - mu`` where it matters) with the
squares summed pairwise: within ``(4 + h) ulp``, ``h`` the depth of NumPy's pairwise
sum (17 at d = 768), about 1 ulp in practice. So offsets such as 1e8 + noise, float16
input and constant rows (centred to exactly 0) give the right answer to float64 rounding.
Functions that deliberately show a *wrong* recipe live in :mod:`layernorm.variants`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from layernorm._accurate import _HUGE, _SPLIT, _U, _exact_row_sums, _ms, row_means
from layernorm._checks import (
    F64,
    ResultRangeError,
    as_float64,
    check_eps,
    check_param,
    finite_results,
    normalize_axes,
)

Axis = int | Sequence[int]
DEFAULT_EPS = 1e-5
_VAR_TINY = 2.0**-960  # below this, squares of x - mu may have lost bits to underflow


class ZeroVarianceError(ValueError):
    """A row has variance 0 and ``eps`` is 0, so ``(x - mu) / sqrt(var + eps)`` is 0/0.

    PyTorch returns NaN in this case; this package refuses instead of handing back
    a NaN nobody asked for. Any ``eps > 0`` makes the row well defined (its
    normalized values are all 0, so its output is exactly ``beta``).

    Source: this project (teaching simulation); PyTorch ``torch.nn.functional.layer_norm``
    returns NaN for the same input.
    """


def _as_exact(x: ArrayLike) -> NDArray[Any]:
    """``x`` as float64, except 64-bit integers: kept, so their mean is exact for the integers.

    (float64 holds integers exactly only up to 2**53: ``[2**62 + 1, -2**62, 0]`` as float64
    is ``[2**62, -2**62, 0]``, whose mean is 0, not 1/3.)
    """
    arr = np.asarray(x)
    if arr.dtype.kind in "iu" and arr.dtype.itemsize == 8:
        return arr
    return as_float64(arr)


def _rows(
    x: ArrayLike, axis: Axis, *, trailing: bool, keep_int64: bool = False
) -> tuple[NDArray[Any], tuple[int, ...], tuple[int, ...]]:
    """Move the reduced axes last and flatten: returns ``(x2 (n, d), batch_shape, axes)``.

    ``x2`` is float64, or with ``keep_int64`` the 64-bit integers themselves (for
    :func:`_center_rows`, which averages them exactly).
    """
    x64 = _as_exact(x) if keep_int64 else as_float64(x)
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


def _center_rows(x2: NDArray[Any], out: F64 | None = None, scratch: F64 | None = None) -> tuple[F64, F64]:
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
    if x2.dtype == np.float64 and x2.flags.c_contiguous:
        x64: F64 = x2
    else:
        x64 = np.empty(x2.shape) if scratch is None else scratch
        np.copyto(x64, x2)
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


def _center_one_row(x2: NDArray[Any], out: F64 | None, scratch: F64 | None) -> tuple[F64, F64] | None:
    """:func:`_center_rows` for a single row, its per-row arithmetic in Python floats.

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
    if x2.dtype == np.float64 and x2.flags.c_contiguous:
        x64: F64 = x2
    else:
        x64 = np.empty(x2.shape) if scratch is None else scratch
        np.copyto(x64, x2)
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


def _subtract(x: NDArray[Any], m: F64) -> F64:
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
    """:func:`_center_rows` for 64-bit integers: exact for the integers, beyond 2**53 too.

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


def _spread_rows(centered: F64, eps: float, *, ddof: int = 0, scratch: F64 | None = None) -> tuple[F64, F64]:
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
    if not (np.minimum.reduce(var, axis=None) >= _VAR_TINY and np.maximum.reduce(var, axis=None) < np.inf):
        rows = np.flatnonzero(~(var[:, 0] >= _VAR_TINY) | (var[:, 0] == np.inf))
        c = centered[rows]
        scale = np.ldexp(1.0, np.frexp(np.max(np.abs(c), axis=1, keepdims=True))[1] - 1)  # 2**k <= max|c|
        c /= scale
        m = np.add.reduce(c * c, axis=1, keepdims=True) / (d - ddof)
        with np.errstate(over="ignore", under="ignore"):
            std[rows] = np.hypot(scale * np.sqrt(m), math.sqrt(eps))
            var[rows] = (scale * m) * scale
    return var, std


def _check_divisor(std: F64, first_row: int = 0) -> None:
    """Raise :class:`ZeroVarianceError` if any divisor ``sqrt(var + eps)`` is 0.

    ``first_row`` is the index of ``std[0]`` among the caller's rows (for the message).
    """
    if not std.all():
        bad = first_row + np.flatnonzero(std.ravel() == 0)
        raise ZeroVarianceError(
            f"row(s) {bad[:5].tolist()} have variance 0 and eps is 0, so x_hat = 0/0; "
            "use eps > 0 (PyTorch would return NaN here)"
        )


@finite_results()
def mean(x: ArrayLike, axis: Axis = -1) -> F64:
    """Arithmetic mean ``mu = (1/d) * sum_i x_i`` over ``axis``, in float64.

    Parameters
    ----------
    x : (..., d) array_like
        Any real numbers; any dtype (float16, bfloat16, int ...) is read as float64.
    axis : int or tuple of int, default -1
        Axis or axes to average over (``d`` is the product of their lengths).

    Returns
    -------
    mu : (...) ndarray of float64
        ``x`` with the reduced axes removed; same units as ``x``.

    Raises
    ------
    ValueError
        ``x`` is a scalar, not numeric, contains NaN/inf, ``axis`` is out of range,
        or the reduced axes are empty.
    ResultRangeError
        A result does not fit in a float64 (above 1.8e308) for this finite input; the
        message names the result and the input's largest values.

    Notes
    -----
    The sum is faithfully rounded (error below 1 ulp of the sum, whatever the
    cancellation), so ``mu`` is within 3 ulp of the exact mean and always between the
    row's minimum and maximum; 64-bit integer arrays are averaged as the integers
    themselves (float64 would round them beyond 2**53).
    Source: Ba, Kiros & Hinton (2016), eq. 4; Rump, Ogita & Oishi (2008), AccSum.
    """
    x2, batch_shape, _ = _rows(x, axis, trailing=False, keep_int64=True)
    mu, _ = _center_rows(x2)
    return mu.reshape(batch_shape)


@finite_results()
def variance(x: ArrayLike, axis: Axis = -1, *, ddof: int = 0) -> F64:
    """Variance ``sum_i (x_i - mu)**2 / (d - ddof)`` over ``axis``, two-pass, in float64.

    Parameters
    ----------
    x : (..., d) array_like
        Any real numbers.
    axis : int or tuple of int, default -1
        Axis or axes to reduce.
    ddof : {0, 1}, default 0
        0 gives the population variance (divide by ``d``), used by LayerNorm and
        BatchNorm to normalize; 1 gives the unbiased sample variance (divide by
        ``d - 1``), used only by BatchNorm's running-variance update.

    Returns
    -------
    var : (...) ndarray of float64
        In the units of ``x`` squared.

    Raises
    ------
    ValueError
        As :func:`mean`; also ``ddof`` not 0 or 1, or ``ddof=1`` with ``d = 1``
        (the sample variance of one number is 0/0).
    ResultRangeError
        A result does not fit in a float64 (above 1.8e308) for this finite input; the
        message names the result and the input's largest values.

    Notes
    -----
    The mean is subtracted *before* squaring (two-pass), so large offsets do not
    cancel catastrophically as the one-pass ``E[x^2] - E[x]^2`` does
    (:func:`layernorm.variants.variance_one_pass`). Source: Ba, Kiros & Hinton
    (2016), eq. 4; PyTorch ``torch.var(correction=...)``.
    """
    if ddof not in (0, 1):
        raise ValueError(f"ddof must be 0 (population) or 1 (sample), got {ddof!r}")
    x2, batch_shape, _ = _rows(x, axis, trailing=False, keep_int64=True)
    d = x2.shape[1]
    if d - ddof <= 0:
        raise ValueError(f"the sample variance (ddof=1) needs at least 2 values, got d = {d}")
    _, centered = _center_rows(x2)
    var, _ = _spread_rows(centered, 0.0, ddof=ddof)
    result: F64 = var.reshape(batch_shape)
    return result


@finite_results()
def std(x: ArrayLike, axis: Axis = -1) -> F64:
    """Population standard deviation ``sqrt(sum_i (x_i - mu)**2 / d)`` over ``axis``, in float64.

    Parameters
    ----------
    x : (..., d) array_like
        Any real numbers.
    axis : int or tuple of int, default -1
        Axis or axes to reduce.

    Returns
    -------
    sigma : (...) ndarray of float64
        In the units of ``x``; exact even where ``var`` itself under- or overflows.

    Raises
    ------
    ValueError
        As :func:`mean`.
    ResultRangeError
        A result does not fit in a float64 (above 1.8e308) for this finite input; the
        message names the result and the input's largest values.

    Notes
    -----
    The sigma of LayerNorm without its eps. Source: Ba, Kiros & Hinton (2016), eq. 4.
    """
    x2, batch_shape, _ = _rows(x, axis, trailing=False, keep_int64=True)
    _, centered = _center_rows(x2)
    _, sigma = _spread_rows(centered, 0.0)
    result: F64 = sigma.reshape(batch_shape)
    return result


@finite_results()
def standardize(x: ArrayLike, *, eps: float = DEFAULT_EPS, axis: Axis = -1) -> F64:
    """``x_hat = (x - mu) / sqrt(var + eps)`` over the trailing ``axis``.

    Parameters
    ----------
    x : (..., d) array_like
    eps : float, default 1e-5
        Added to the variance inside the square root (units of ``x`` squared).
    axis : int or tuple of int, default -1
        Trailing axes to normalize over (PyTorch's ``normalized_shape``).

    Returns
    -------
    x_hat : ndarray of float64, same shape as ``x``
        Dimensionless; mean 0 and variance ``var / (var + eps)`` over ``axis``.

    Raises
    ------
    ValueError
        Bad ``x``/``axis`` (see :func:`mean`), ``eps`` negative or not finite.
    ZeroVarianceError
        A row is constant and ``eps == 0``.
    ResultRangeError
        A result does not fit in a float64 (above 1.8e308) for this finite input; the
        message names the result and the input's largest values.

    Notes
    -----
    Source: Ba, Kiros & Hinton (2016), eq. 4 with PyTorch's ``eps``.
    """
    return layer_norm(x, eps=eps, axis=axis)  # gamma = 1, beta = 0 are skipped: the bits of x_hat


@finite_results()
def scale_shift(
    x_hat: ArrayLike, gamma: ArrayLike | None = None, beta: ArrayLike | None = None, *, axis: Axis = -1
) -> F64:
    """The learned affine step ``y = gamma * x_hat + beta``, element-wise.

    Parameters
    ----------
    x_hat : (..., d) array_like
        Normalized values.
    gamma : (d,) array_like or scalar, optional
        Scale, shaped like the normalized axes; default ones (PyTorch ``weight``).
    beta : (d,) array_like or scalar, optional
        Shift, shaped like the normalized axes; default zeros (PyTorch ``bias``).
    axis : int or tuple of int, default -1
        The trailing axes ``gamma`` and ``beta`` are shaped like.

    Returns
    -------
    y : ndarray of float64, same shape as ``x_hat``

    Raises
    ------
    ValueError
        ``gamma``/``beta`` of the wrong shape or not finite.
    ResultRangeError
        A result does not fit in a float64 (above 1.8e308) for this finite input; the
        message names the result and the input's largest values.

    Notes
    -----
    Source: Ba, Kiros & Hinton (2016), eq. 5 (gain and bias).
    """
    xh = as_float64(x_hat, "x_hat")
    axes = normalize_axes(axis, xh.ndim, trailing=True)
    shape = xh.shape[axes[0] :]
    what = f"x.shape[{axes[0] - xh.ndim}:]"
    g = check_param(gamma, "gamma", shape, what, 1.0)
    b = check_param(beta, "beta", shape, what, 0.0)
    return g * xh + b


@finite_results()
def layer_norm(
    x: ArrayLike,
    gamma: ArrayLike | None = None,
    beta: ArrayLike | None = None,
    *,
    eps: float = DEFAULT_EPS,
    axis: Axis = -1,
) -> F64:
    """Layer Normalization: ``gamma * (x - mu) / sqrt(var + eps) + beta``.

    Parameters
    ----------
    x : (..., d) array_like
        One token's features along the trailing axis (or axes); any dtype.
    gamma : array_like shaped like the normalized axes, optional
        Learned scale (PyTorch ``weight``), default ones.
    beta : array_like shaped like the normalized axes, optional
        Learned shift (PyTorch ``bias``), default zeros.
    eps : float, default 1e-5
        Inside the square root, PyTorch's default; BERT uses 1e-12, Keras 1e-3.
    axis : int or tuple of int, default -1
        Trailing axes to normalize over, like PyTorch's ``normalized_shape``.

    Returns
    -------
    y : ndarray of float64, same shape as ``x``

    Raises
    ------
    ValueError
        ``x`` not numeric, NaN/inf, scalar or empty; ``axis`` not trailing;
        ``gamma``/``beta`` of the wrong shape; ``eps`` negative.
    ZeroVarianceError
        A row is constant and ``eps == 0`` (0/0).
    ResultRangeError
        A result does not fit in a float64 (above 1.8e308) for this finite input; the
        message names the result and the input's largest values.

    Notes
    -----
    Statistics in float64 (a faithfully rounded mean, a two-pass variance): right to
    a few ulp for any input dtype, cancellation included. Source: Ba, Kiros & Hinton (2016); PyTorch
    ``torch.nn.functional.layer_norm``.
    """
    eps = check_eps(eps)
    arr = np.asarray(x)
    if arr.dtype.kind not in "biuf":
        arr = as_float64(arr)  # rejects text/complex; bfloat16 & co are converted once, here
    if arr.ndim == 0:
        raise ValueError("x is a single number; LayerNorm needs at least one axis of features")
    axes = normalize_axes(axis, arr.ndim, trailing=True)
    norm_shape = arr.shape[axes[0] :]
    d = math.prod(norm_shape)
    if d == 0:
        raise ValueError("the normalized axes are empty (d = 0): there is nothing to average")
    what = f"x.shape[{-len(norm_shape)}:]"
    g = check_param(gamma, "gamma", norm_shape, what, 1.0).reshape(d)
    b = check_param(beta, "beta", norm_shape, what, 0.0).reshape(d)
    rows = arr.reshape(-1, d)  # (n, d); a view, since the normalized axes are trailing
    y = np.empty(rows.shape, dtype=np.float64)
    # Rows go in blocks of about _BLOCK_VALUES numbers: a block's float64 temporaries stay in
    # cache and malloc recycles them, where full-size temporaries cost a page fault per 4 KiB
    # (more time than the arithmetic). Every row sees exactly the operations of
    # layer_norm_steps, and no row's result depends on the others, so y is bit-for-bit the same.
    step = max(1, _BLOCK_VALUES // d)
    native = arr.dtype == np.float64 or (arr.dtype.kind in "iu" and arr.dtype.itemsize == 8)
    scratch = np.empty((min(step, rows.shape[0]), d))  # one work block, reused: no malloc per block
    g8, b8 = g, b
    if rows.shape[0] >= 128:  # 8 rows at a time: fewer, longer inner loops
        g8, b8 = np.concatenate((g,) * 8), np.concatenate((b,) * 8)
    for start in range(0, rows.shape[0], step):
        block = rows[start : start + step]  # (m, d), never written
        out = y[start : start + step]
        work = scratch[: out.shape[0]]
        if not native and block.dtype != np.float32:
            np.copyto(work, block)
            block = work
        _, centered = _center_rows(block, out=out, scratch=work)  # x - mu, written into y
        _, std = _spread_rows(centered, eps, scratch=work)
        _check_divisor(std, first_row=start)
        np.divide(centered, std, out=out)  # x_hat (centered is out itself, but for integers)
        if gamma is not None:  # the default gamma = 1 would change no bit
            _by_rows(np.multiply, out, g, g8)
        if beta is not None:  # nor would beta = 0 (but for the sign of an exact zero)
            _by_rows(np.add, out, b, b8)
    return y.reshape(arr.shape)


_BLOCK_VALUES = 131072  # 1 MiB of float64 per temporary: a block's working set stays in L2/L3


def _by_rows(op: np.ufunc, out: F64, v: F64, v8: F64) -> None:
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


def _prepare(
    x: ArrayLike, gamma: ArrayLike | None, beta: ArrayLike | None, axis: Axis
) -> tuple[NDArray[Any], tuple[int, ...], F64, F64]:
    """Validate LayerNorm's arguments: ``(x2 (n, d), x's shape, gamma, beta)``.

    ``x2`` is float64, or 64-bit integers as given (averaged as integers by :func:`_center_rows`).
    """
    x2, batch_shape, axes = _rows(x, axis, trailing=True, keep_int64=True)
    full_shape = batch_shape + tuple(np.shape(x)[a] for a in axes)
    norm_shape = full_shape[len(batch_shape) :]
    what = f"x.shape[{-len(norm_shape)}:]"
    g = check_param(gamma, "gamma", norm_shape, what, 1.0)
    b = check_param(beta, "beta", norm_shape, what, 0.0)
    return x2, full_shape, g, b


@dataclass(frozen=True)
class LayerNormSteps:
    """Every intermediate of one LayerNorm call (arrays are read-only).

    Attributes
    ----------
    x : (..., d) ndarray of float64
        The input as float64.
    mu : (...) ndarray
        Mean of each row.
    centered : (..., d) ndarray
        ``x - mu``.
    var : (...) ndarray
        Population variance (divide by d), units of ``x`` squared.
    sigma : (...) ndarray
        Population standard deviation ``sqrt(var)``, without eps.
    std : (...) ndarray
        ``sqrt(var + eps)``, the divisor.
    x_hat : (..., d) ndarray
        ``centered / std``.
    gamma, beta : ndarray shaped like the normalized axes
    y : (..., d) ndarray
        ``gamma * x_hat + beta``.
    eps : float
        The eps used, units of ``x`` squared.
    d : int
        Number of values each statistic averages over.

    Notes
    -----
    Source: Ba, Kiros & Hinton (2016), eqs. 4-5; PyTorch ``torch.nn.functional.layer_norm``.
    """

    x: F64
    mu: F64
    centered: F64
    var: F64
    sigma: F64
    std: F64
    x_hat: F64
    gamma: F64
    beta: F64
    y: F64
    eps: float
    d: int

    @property
    def squared_deviations(self) -> F64:
        """``(x - mu)**2`` per feature; their mean over the row is ``var``."""
        return np.square(self.centered)

    def x_hat_var_at(self, eps: ArrayLike) -> F64:
        """``var / (var + eps)`` for other values of eps (any shape), this row's variance kept.

        Used to draw how x_hat's variance falls as eps grows; equals
        ``layer_norm_steps(x, eps=e).x_hat_var_expected`` for each ``e``.
        """
        e = as_float64(eps, "eps")
        if np.any(e < 0):
            raise ValueError("eps must be >= 0")
        with np.errstate(invalid="ignore"):
            ratio = np.square(self.sigma) / (np.square(self.sigma) + e)
        return np.where(self.sigma == 0, 0.0, ratio)

    @property
    def x_hat_var_expected(self) -> F64:
        """``var / (var + eps)``: the variance x_hat has in exact arithmetic (< 1 when eps > 0).

        Computed as ``(sigma / std)**2``, which stays right when ``var`` itself underflows.
        """
        return np.square(self.sigma / self.std)


@finite_results()
def layer_norm_steps(
    x: ArrayLike,
    gamma: ArrayLike | None = None,
    beta: ArrayLike | None = None,
    *,
    eps: float = DEFAULT_EPS,
    axis: Axis = -1,
) -> LayerNormSteps:
    """Run :func:`layer_norm` and keep every intermediate for display.

    Parameters
    ----------
    x : (..., d) array_like
        One token's features along the trailing axis (or axes); any dtype. An empty batch
        (a leading axis of length 0) gives empty results, as PyTorch does.
    gamma : array_like shaped like the normalized axes, optional
        Learned scale (PyTorch ``weight``), default ones.
    beta : array_like shaped like the normalized axes, optional
        Learned shift (PyTorch ``bias``), default zeros.
    eps : float, default 1e-5
        Added to the variance inside the square root (units of ``x`` squared).
    axis : int or tuple of int, default -1
        Trailing axes to normalize over, like PyTorch's ``normalized_shape``.

    Returns
    -------
    LayerNormSteps
        Frozen; ``mu``, ``var``, ``std`` have the batch shape ``x.shape[:-k]``
        (0-d for a single vector), the rest have ``x``'s shape.

    Raises
    ------
    ValueError
        As :func:`layer_norm`: ``x`` not numeric (text, complex), containing
        NaN/inf, a scalar, or with empty normalized axes; ``axis`` out of range,
        repeated or not trailing; ``gamma``/``beta`` of the wrong shape or not
        finite; ``eps`` negative or not finite.
    ZeroVarianceError
        A row is constant and ``eps == 0`` (0/0).
    ResultRangeError
        A result does not fit in a float64 (above 1.8e308) for this finite input; the
        message names the result and the input's largest values.

    Notes
    -----
    Source: Ba, Kiros & Hinton (2016); PyTorch ``torch.nn.functional.layer_norm``.
    """
    eps = check_eps(eps)
    x2, full_shape, g, b = _prepare(x, gamma, beta, axis)
    batch_shape = full_shape[: len(full_shape) - g.ndim]
    mu, centered = _center_rows(x2)  # (n, 1), (n, d)
    var, std = _spread_rows(centered, eps)  # (n, 1), (n, 1)
    _check_divisor(std)
    sigma = np.sqrt(var)  # without eps; rows whose var left float64's range are redone exactly
    odd = np.flatnonzero(~(var[:, 0] < np.inf) | (var[:, 0] < _VAR_TINY))
    if odd.size:
        sigma[odd] = _spread_rows(centered[odd], 0.0)[1]
    x_hat = (centered / std).reshape(full_shape)
    fields = {
        "x": x2.astype(np.float64, copy=False).reshape(full_shape),
        "mu": mu.reshape(batch_shape),
        "centered": centered.reshape(full_shape),
        "var": var.reshape(batch_shape),
        "sigma": sigma.reshape(batch_shape),
        "std": std.reshape(batch_shape),
        "x_hat": x_hat,
        "gamma": g,
        "beta": b,
        "y": g * x_hat + b,
    }
    # Copy what may still alias the caller's arrays (the rest is new), then lock: a snapshot, not a view.
    frozen = {k: np.array(v, copy=True) if k in ("x", "gamma", "beta") else v for k, v in fields.items()}
    for arr in frozen.values():
        arr.flags.writeable = False
    return LayerNormSteps(**frozen, eps=eps, d=x2.shape[1])


# The steps without the range check on their own fields, for callers that check their own
# results (a backward pass needs sigma and x_hat, which fit, where var may not).
_layer_norm_steps_unchecked: Callable[..., LayerNormSteps] = layer_norm_steps.__wrapped__  # type: ignore[attr-defined]


@finite_results("x_hat", "std")
def layer_norm_x_hat(x: F64, *, eps: float = DEFAULT_EPS) -> tuple[F64, F64]:
    """LayerNorm's forward for a training loop: ``x_hat`` and the divisor of each row.

    Parameters
    ----------
    x : (..., d) ndarray of float64
        Rows of ``d`` features in any one unit, normalized over the last axis (no learned
        ``gamma``/``beta``). No rows (an empty batch) gives empty results.
    eps : float, default 1e-5
        Added to the variance inside the square root (units of ``x`` squared).

    Returns
    -------
    x_hat : (..., d) ndarray of float64
        ``(x - mu) / sqrt(var + eps)``, dimensionless: bit for bit
        ``layer_norm_steps(x, eps=eps).x_hat``.
    std : (..., 1) ndarray of float64
        ``sqrt(var + eps)`` per row, in the units of ``x``, with a trailing axis of 1 so that it
        broadcasts against ``x_hat`` (what :func:`layernorm.backward.layer_norm_input_grad` needs).

    Raises
    ------
    ValueError
        ``x`` not a float64 array of at least one axis, ``d = 0``, NaN or infinity in ``x``,
        ``eps`` negative or not finite.
    ZeroVarianceError
        A row is constant and ``eps == 0`` (0/0).
    ResultRangeError
        A result does not fit in a float64 (above 1.8e308) for this finite input; the
        message names the result and the input's largest values.

    Notes
    -----
    The operations of :func:`layer_norm_steps` (faithfully rounded mean, two-pass variance),
    without what only a display needs: no copy of ``x``, no ``sigma``, no ``gamma * x_hat + beta``,
    no read-only snapshot. A training step calls it once per layer, where those cost as much as
    the statistics. PyTorch's ``torch.native_layer_norm`` likewise returns the output with the row
    statistics its backward reuses. Source: Ba, Kiros & Hinton (2016), eqs. 4-5.
    """
    eps = check_eps(eps)
    if not isinstance(x, np.ndarray) or x.dtype != np.float64 or x.ndim == 0:
        raise ValueError("layer_norm_x_hat needs a float64 array of shape (..., d)")
    d = x.shape[-1]
    if d == 0:
        raise ValueError("the normalized axes are empty (d = 0): there is nothing to average")
    _, centered = _center_rows(x.reshape(-1, d))  # (n, d), a new array
    _, std = _spread_rows(centered, eps)
    _check_divisor(std)
    x_hat = np.divide(centered, std, out=centered)  # the same bits as centered / std
    return x_hat.reshape(x.shape), std.reshape(*x.shape[:-1], 1)


@finite_results()
def max_abs_diff(a: ArrayLike, b: ArrayLike) -> float:
    """Largest ``|a - b|`` over all elements, in float64 (how far two results disagree).

    Parameters
    ----------
    a, b : array_like of the same shape

    Returns
    -------
    float
        In the units of ``a``.

    Raises
    ------
    ValueError
        Shapes differ.
    ResultRangeError
        A result does not fit in a float64 (above 1.8e308) for this finite input; the
        message names the result and the input's largest values.

    Notes
    -----
    Source: this project (used to compare with PyTorch or recorded outputs).
    """
    a64, b64 = as_float64(a, "a"), as_float64(b, "b")
    if a64.shape != b64.shape:
        raise ValueError(f"cannot compare shapes {a64.shape} and {b64.shape}")
    return float(np.max(np.abs(a64 - b64))) if a64.size else 0.0
