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

import numpy as np
from numpy.typing import ArrayLike

from layernorm._checks import (
    F64,
    as_float64,
    check_affine,
    check_eps,
    finite_results,
    normalize_axes,
)
from layernorm.exact import (  # the exactness machinery: shared with batch.py, family.py, variants.py
    BLOCK_VALUES,
    Axis,
    by_rows,
    center_rows,
    check_divisor,
    feature_rows,
    spread_rows,
)

DEFAULT_EPS = 1e-5
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

    Notes
    -----
    The sum is faithfully rounded (error below 1 ulp of the sum, whatever the
    cancellation), so ``mu`` is within 3 ulp of the exact mean and always between the
    row's minimum and maximum; 64-bit integer arrays are averaged as the integers
    themselves (float64 would round them beyond 2**53).
    Source: Ba, Kiros & Hinton (2016), eq. 4; Rump, Ogita & Oishi (2008), AccSum.
    """
    x2, batch_shape, _ = feature_rows(x, axis, trailing=False, keep_int64=True)
    mu, _ = center_rows(x2)
    return mu.reshape(batch_shape)


@finite_results()
def variance(x: ArrayLike, axis: Axis = -1, *, ddof: int = 0) -> F64:
    """Variance ``sum_i (x_i - mu)**2 / (d - ddof)`` over ``axis``, two-pass, in float64.

    Parameters
    ----------
    x, axis
        As :func:`mean`.
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
    x2, batch_shape, _ = feature_rows(x, axis, trailing=False, keep_int64=True)
    d = x2.shape[1]
    if d - ddof <= 0:
        raise ValueError(f"the sample variance (ddof=1) needs at least 2 values, got d = {d}")
    _, centered = center_rows(x2)
    var, _ = spread_rows(centered, 0.0, ddof=ddof)
    result: F64 = var.reshape(batch_shape)
    return result


@finite_results()
def std(x: ArrayLike, axis: Axis = -1) -> F64:
    """Population standard deviation ``sqrt(sum_i (x_i - mu)**2 / d)`` over ``axis``, in float64.

    Parameters
    ----------
    x, axis
        As :func:`mean`.

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
    x2, batch_shape, _ = feature_rows(x, axis, trailing=False, keep_int64=True)
    _, centered = center_rows(x2)
    _, sigma = spread_rows(centered, 0.0)
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

    Notes
    -----
    Source: Ba, Kiros & Hinton (2016), eq. 5 (gain and bias).
    """
    xh = as_float64(x_hat, "x_hat")
    axes = normalize_axes(axis, xh.ndim, trailing=True)
    shape = xh.shape[axes[0] :]
    what = f"x.shape[{axes[0] - xh.ndim}:]"
    g, b = check_affine(gamma, beta, shape, what)
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
    g, b = check_affine(gamma, beta, norm_shape, what)
    g, b = g.reshape(d), b.reshape(d)
    rows = arr.reshape(-1, d)  # (n, d); a view, since the normalized axes are trailing
    y = np.empty(rows.shape, dtype=np.float64)
    # Rows go in blocks of about BLOCK_VALUES numbers: a block's float64 temporaries stay in
    # cache and malloc recycles them, where full-size temporaries cost a page fault per 4 KiB
    # (more time than the arithmetic). Every row sees exactly the operations of
    # layer_norm_steps, and no row's result depends on the others, so y is bit-for-bit the same.
    step = max(1, BLOCK_VALUES // d)
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
        _, centered = center_rows(block, out=out, scratch=work)  # x - mu, written into y
        _, std = spread_rows(centered, eps, scratch=work)
        check_divisor(std, first_row=start)
        np.divide(centered, std, out=out)  # x_hat (centered is out itself, but for integers)
        if gamma is not None:  # the default gamma = 1 would change no bit
            by_rows(np.multiply, out, g, g8)
        if beta is not None:  # nor would beta = 0 (but for the sign of an exact zero)
            by_rows(np.add, out, b, b8)
    return y.reshape(arr.shape)


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

    Notes
    -----
    Source: this project (used to compare with PyTorch or recorded outputs).
    """
    a64, b64 = as_float64(a, "a"), as_float64(b, "b")
    if a64.shape != b64.shape:
        raise ValueError(f"cannot compare shapes {a64.shape} and {b64.shape}")
    return float(np.max(np.abs(a64 - b64))) if a64.size else 0.0
