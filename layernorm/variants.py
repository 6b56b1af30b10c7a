"""Deliberately *different* recipes, kept apart so the lesson can show what they get wrong.

None of these is LayerNorm as PyTorch defines it; each one reproduces a mistake
or a convention seen in real code, so a page can put it beside
:func:`layernorm.layer_norm` and let the student see the difference.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, DTypeLike

from layernorm._checks import F64, as_float64, check_eps
from layernorm.core import DEFAULT_EPS, mean, variance


def variance_one_pass(x: ArrayLike, *, dtype: DTypeLike = np.float32) -> F64:
    """The fast one-pass variance ``E[x^2] - E[x]^2`` computed in ``dtype`` (last axis).

    Parameters
    ----------
    x : (..., d) array_like
    dtype : numpy dtype, default float32
        Precision of every operation, as in a float32 GPU/CPU kernel.

    Returns
    -------
    var : (...) ndarray of float64
        Often wrong: with ``|mean|`` much larger than the spread the two terms
        cancel and the result can be 0 or *negative* (``[40000, 40001, 40002,
        40003]`` in float32 gives -128 instead of 1.25); past |x| of about 1.8e19
        the squares overflow and the result is NaN (no warning: showing it is the point).

    Raises
    ------
    ValueError
        ``x`` not numeric.

    Notes
    -----
    Source: the textbook formula; used (with a clamp at 0) by Keras 3 and Flax.
    """
    x64 = as_float64(x)
    with np.errstate(over="ignore", invalid="ignore"):  # the failure is the point: inf/NaN pass through
        xd = x64.astype(dtype)
        d = xd.shape[-1]
        ex2 = np.sum(xd * xd, axis=-1, dtype=dtype) / np.asarray(d, dtype=dtype)
        ex = np.sum(xd, axis=-1, dtype=dtype) / np.asarray(d, dtype=dtype)
        return np.asarray(ex2 - ex * ex, dtype=np.float64)


def layer_norm_unbiased(x: ArrayLike, *, eps: float = DEFAULT_EPS) -> F64:
    """LayerNorm with the *sample* variance (divide by ``d - 1``), last axis, no affine.

    Parameters
    ----------
    x : (..., d) array_like, d >= 2
    eps : float, default 1e-5

    Returns
    -------
    ndarray of float64, same shape as ``x``
        Its variance is ``(d - 1) / d`` instead of about 1.

    Raises
    ------
    ValueError
        ``d < 2``, bad ``eps``, non-numeric ``x``.

    Notes
    -----
    Source: a common mistake (``torch.std`` defaults to ``correction=1``).
    """
    eps = check_eps(eps)
    x64 = as_float64(x)
    mu = mean(x64)[..., None]
    var = variance(x64, ddof=1)[..., None]
    return (x64 - mu) / np.sqrt(var + eps)


def layer_norm_std_plus_eps(x: ArrayLike, *, eps: float = DEFAULT_EPS) -> F64:
    """The "Annotated Transformer" form ``(x - mu) / (std_unbiased + eps)``, last axis.

    Parameters
    ----------
    x : (..., d) array_like, d >= 2
    eps : float, default 1e-5
        Added *outside* the square root, to the unbiased standard deviation.

    Returns
    -------
    ndarray of float64, same shape as ``x``
        ``[1, 0, 0, 0]`` gives ``[1.5, -0.5, -0.5, -0.5]`` instead of
        ``[1.732, -0.577, -0.577, -0.577]``.

    Raises
    ------
    ValueError
        ``d < 2``, bad ``eps``, non-numeric ``x``.

    Notes
    -----
    Source: Rush et al., "The Annotated Transformer" (2018), ``LayerNorm`` class.
    """
    eps = check_eps(eps)
    x64 = as_float64(x)
    mu = mean(x64)[..., None]
    std = np.sqrt(variance(x64, ddof=1))[..., None]
    return (x64 - mu) / (std + eps)
