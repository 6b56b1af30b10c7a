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

Numerics: every statistic is computed in float64 whatever the input dtype, the
variance is two-pass (the mean is subtracted before anything is squared) and the
mean gets one refinement pass, so offsets such as 1e8 + noise, float16 input and
constant rows give the mathematically right answer to float64 rounding.
Functions that deliberately show a *wrong* recipe live in :mod:`layernorm.variants`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from layernorm._checks import F64, as_float64, check_eps, check_param, normalize_axes

Axis = int | Sequence[int]
DEFAULT_EPS = 1e-5


class ZeroVarianceError(ValueError):
    """A row has variance 0 and ``eps`` is 0, so ``(x - mu) / sqrt(var + eps)`` is 0/0.

    PyTorch returns NaN in this case; this package refuses instead of handing back
    a NaN nobody asked for. Any ``eps > 0`` makes the row well defined (its
    normalized values are all 0, so its output is exactly ``beta``).

    Source: this project (teaching simulation); PyTorch ``torch.nn.functional.layer_norm``
    returns NaN for the same input.
    """


def _rows(x: ArrayLike, axis: Axis, *, trailing: bool) -> tuple[F64, tuple[int, ...], tuple[int, ...]]:
    """Move the reduced axes last and flatten: returns ``(x2 (n, d), batch_shape, axes)``."""
    x64 = as_float64(x)
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


def _center_rows(x2: F64) -> tuple[F64, F64]:
    """Return ``(mu (n, 1), x - mu (n, d))`` for rows of ``x2`` in float64.

    The mean is refined once (``mu += mean(x - mu)``) so the centred rows sum to
    zero to rounding, which makes constant rows centre to exactly 0.
    """
    d = x2.shape[1]
    with np.errstate(over="ignore", invalid="ignore"):
        mu = np.add.reduce(x2, axis=1, keepdims=True) / d  # what np.mean does, minus its overhead
    if not np.all(np.isfinite(mu)):
        if not np.all(np.isfinite(x2)):
            raise ValueError("x contains NaN or infinity; normalization needs finite numbers")
        scale = np.max(np.abs(x2), axis=1, keepdims=True)  # the sum overflowed near 1e308
        mu = np.mean(x2 / scale, axis=1, keepdims=True) * scale
    with np.errstate(over="ignore", invalid="ignore"):
        centered = x2 - mu
        residual = np.add.reduce(centered, axis=1, keepdims=True) / d
    if not np.all(np.isfinite(residual)):
        raise ValueError("x has values too large to subtract in float64 (|x| above about 1e307)")
    centered -= residual
    mu += residual
    return mu, centered


def _spread_rows(centered: F64, eps: float) -> tuple[F64, F64]:
    """Return ``(var (n, 1), std (n, 1))`` where ``std = sqrt(var + eps)``.

    Squares overflow past |x - mu| of about 1e154 and underflow below 1e-154;
    those rows are rescaled by their largest |x - mu| first and ``std`` is
    formed with ``hypot``, so it stays exact (``var`` itself may then be
    ``inf`` or a subnormal, as the float64 range forces).
    """
    d = centered.shape[1]
    with np.errstate(over="ignore", under="ignore"):
        var = np.einsum("ij,ij->i", centered, centered)[:, None] / d
    odd = ~np.isfinite(var) | (var + eps < 1e-290)
    std = np.sqrt(var + eps)
    if np.any(odd):
        rows = np.flatnonzero(odd[:, 0])
        c = centered[rows]
        scale = np.max(np.abs(c), axis=1, keepdims=True)
        scale[scale == 0] = 1.0
        m = np.mean((c / scale) ** 2, axis=1, keepdims=True)
        with np.errstate(over="ignore", under="ignore"):
            std[rows] = np.hypot(scale * np.sqrt(m), np.sqrt(eps))
            var[rows] = scale**2 * m
    return var, std


def _check_divisor(std: F64, first_row: int = 0) -> None:
    """Raise :class:`ZeroVarianceError` if any divisor ``sqrt(var + eps)`` is 0.

    ``first_row`` is the index of ``std[0]`` among the caller's rows (for the message).
    """
    if np.any(std == 0):
        bad = first_row + np.flatnonzero(std.ravel() == 0)
        raise ZeroVarianceError(
            f"row(s) {bad[:5].tolist()} have variance 0 and eps is 0, so x_hat = 0/0; "
            "use eps > 0 (PyTorch would return NaN here)"
        )


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

    Notes
    -----
    One refinement pass, ``mu += mean(x - mu)``, removes the rounding error of the
    first sum. Source: Ba, Kiros & Hinton (2016), eq. 4.
    """
    x2, batch_shape, _ = _rows(x, axis, trailing=False)
    mu, _ = _center_rows(x2)
    return mu.reshape(batch_shape)


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

    Notes
    -----
    The mean is subtracted *before* squaring (two-pass), so large offsets do not
    cancel catastrophically as the one-pass ``E[x^2] - E[x]^2`` does
    (:func:`layernorm.variants.variance_one_pass`). Source: Ba, Kiros & Hinton
    (2016), eq. 4; PyTorch ``torch.var(correction=...)``.
    """
    if ddof not in (0, 1):
        raise ValueError(f"ddof must be 0 (population) or 1 (sample), got {ddof!r}")
    x2, batch_shape, _ = _rows(x, axis, trailing=False)
    d = x2.shape[1]
    if d - ddof <= 0:
        raise ValueError(f"the sample variance (ddof=1) needs at least 2 values, got d = {d}")
    _, centered = _center_rows(x2)
    var, _ = _spread_rows(centered, 0.0)
    result: F64 = (var * (d / (d - ddof))).reshape(batch_shape)
    return result


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

    Notes
    -----
    The sigma of LayerNorm without its eps. Source: Ba, Kiros & Hinton (2016), eq. 4.
    """
    x2, batch_shape, _ = _rows(x, axis, trailing=False)
    _, centered = _center_rows(x2)
    _, sigma = _spread_rows(centered, 0.0)
    result: F64 = sigma.reshape(batch_shape)
    return result


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

    Notes
    -----
    Source: Ba, Kiros & Hinton (2016), eq. 4 with PyTorch's ``eps``.
    """
    return layer_norm_steps(x, eps=eps, axis=axis).x_hat


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

    Notes
    -----
    Statistics in float64 with a two-pass variance: exact to float64 rounding
    for any input dtype. Source: Ba, Kiros & Hinton (2016); PyTorch
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
    # layer_norm_steps, so y is bit-for-bit the same.
    step = max(1, _BLOCK_VALUES // d)
    for start in range(0, rows.shape[0], step):
        block = rows[start : start + step].astype(np.float64, copy=False)  # (m, d), never written
        _, centered = _center_rows(block)
        _, std = _spread_rows(centered, eps)
        _check_divisor(std, first_row=start)
        out = y[start : start + step]
        np.divide(centered, std, out=out)  # x_hat
        if gamma is not None:  # the default gamma = 1 would change no bit
            np.multiply(out, g, out=out)
        if beta is not None:  # nor would beta = 0 (but for the sign of an exact zero)
            np.add(out, b, out=out)
    return y.reshape(arr.shape)


_BLOCK_VALUES = 131072  # 1 MiB of float64 per temporary: a block's working set stays in L2/L3


def _prepare(
    x: ArrayLike, gamma: ArrayLike | None, beta: ArrayLike | None, axis: Axis
) -> tuple[F64, tuple[int, ...], F64, F64]:
    """Validate LayerNorm's arguments: ``(x2 (n, d), x's shape, gamma, beta)``."""
    x2, batch_shape, axes = _rows(x, axis, trailing=True)
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
        One token's features along the trailing axis (or axes); any dtype.
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
    odd = np.flatnonzero(~np.isfinite(var[:, 0]) | (var[:, 0] < 1e-290))
    if odd.size:
        sigma[odd] = _spread_rows(centered[odd], 0.0)[1]
    x_hat = (centered / std).reshape(full_shape)
    fields = {
        "x": x2.reshape(full_shape),
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

    Notes
    -----
    Source: this project (used to compare with PyTorch or recorded outputs).
    """
    a64, b64 = as_float64(a, "a"), as_float64(b, "b")
    if a64.shape != b64.shape:
        raise ValueError(f"cannot compare shapes {a64.shape} and {b64.shape}")
    return float(np.max(np.abs(a64 - b64))) if a64.size else 0.0
