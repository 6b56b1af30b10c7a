"""Deliberately *different* recipes, kept apart so the lesson can show what they get wrong.

None of these is LayerNorm as PyTorch defines it; each one reproduces a mistake
or a convention seen in real code, so a page can put it beside
:func:`layernorm.layer_norm` and let the student see the difference.

The four LayerNorm recipes of the "Estimators and ε" lesson (divide by ``d`` or ``d - 1``,
eps inside or outside the square root) are :func:`layernorm.standardize` (the standard one),
:func:`layer_norm_unbiased`, :func:`layer_norm_eps_outside` and :func:`layer_norm_std_plus_eps`;
:func:`layer_norm_recipe` picks one, :func:`compare_recipe` runs it beside the standard one.
:data:`EPS_PRESETS` lists the ε of frameworks and released models, with sources.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, DTypeLike

from layernorm._checks import F64, ResultRangeError, as_float64, check_eps, finite_results
from layernorm.core import DEFAULT_EPS, max_abs_diff, mean, standardize, std, variance
from layernorm.exact import ZeroVarianceError, feature_rows, spread_rows
from layernorm.family import rms_norm


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


def _unbiased_root(x64: F64, eps: float) -> F64:
    """``sqrt(var_unbiased + eps)`` per row, (..., 1); finite where the variance itself is not."""
    try:
        root: F64 = np.sqrt(variance(x64, ddof=1) + eps)[..., None]
    except ResultRangeError:  # var * d / (d - 1) passes float64; its root, from std, does not
        d = x64.shape[-1]
        root = np.hypot(std(x64) * math.sqrt(d / (d - 1)), math.sqrt(eps))[..., None]
    return root


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
    return (x64 - mu) / _unbiased_root(x64, eps)


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
        As :func:`layer_norm_unbiased` (the unbiased variance needs ``d >= 2``).

    Notes
    -----
    Source: Rush et al., "The Annotated Transformer" (2018), ``LayerNorm`` class.
    """
    eps = check_eps(eps)
    x64 = as_float64(x)
    mu = mean(x64)[..., None]
    y: F64 = (x64 - mu) / (_unbiased_root(x64, 0.0) + eps)
    return y


# --- the four recipes of the "Estimators and ε" lesson, and RMSNorm's two -----------------------


@finite_results()
def layer_norm_eps_outside(x: ArrayLike, *, eps: float = DEFAULT_EPS) -> F64:
    """LayerNorm with ``eps`` added to the population standard deviation: ``(x - mu) / (sigma + eps)``.

    Parameters
    ----------
    x : (..., d) array_like
        Normalized over the last axis; no affine (gamma = 1, beta = 0).
    eps : float, default 1e-5
        Added *outside* the square root, so it is in the units of ``x`` (not ``x`` squared).

    Returns
    -------
    x_hat : ndarray of float64, same shape as ``x``
        Close to :func:`layernorm.layer_norm` when ``sigma`` is much larger than
        ``sqrt(eps)`` and ``eps``; for a tiny spread it shrinks far less than the standard
        recipe (``sigma / (sigma + eps)`` instead of ``sigma / sqrt(sigma**2 + eps)``).

    Raises
    ------
    ValueError
        Bad ``eps`` or ``x`` (see :func:`layernorm.mean`).
    ZeroVarianceError
        A constant row with ``eps == 0`` (0/0).

    Notes
    -----
    ``x_hat = (x - mu) / (sqrt(mean((x - mu)**2)) + eps)``. Source: a variant seen in
    hand-written LayerNorm code; contrast PyTorch ``torch.nn.functional.layer_norm``
    (eps inside the root).
    """
    eps = check_eps(eps)
    x64 = as_float64(x)
    mu = mean(x64)[..., None]
    divisor = std(x64)[..., None] + eps
    _check_zero(divisor)
    return (x64 - mu) / divisor


@finite_results()
def rms_norm_eps_outside(x: ArrayLike, *, eps: float = 1e-8) -> F64:
    """RMSNorm with ``eps`` added to the root mean square: ``x / (rms + eps)``, last axis, no gamma.

    Parameters
    ----------
    x : (..., d) array_like
    eps : float, default 1e-8
        Added *outside* the square root (units of ``x``), the RMSNorm authors' default.

    Returns
    -------
    ndarray of float64, same shape as ``x``
        No centring: the mean of ``x`` is kept, only the scale changes.

    Raises
    ------
    ValueError
        Bad ``eps`` or ``x``.
    ZeroVarianceError
        An all-zero row with ``eps == 0`` (0/0).

    Notes
    -----
    ``rms = sqrt(mean(x**2))`` is computed like the core's ``sqrt(var)`` (rescaled when the
    squares would leave float64's range). Source: Zhang & Sennrich (2019), reference code
    (``x / (rms + eps)``, eps 1e-8); contrast PyTorch ``torch.nn.functional.rms_norm``
    and :func:`layernorm.rms_norm` (eps inside the root).
    """
    eps = check_eps(eps)
    x64 = as_float64(x)
    x2, _, _ = feature_rows(x64, -1, trailing=True)
    if not np.all(np.isfinite(x2)):
        raise ValueError("x contains NaN or infinity; normalization needs finite numbers")
    _, rms = spread_rows(x2, 0.0)  # (n, 1): sqrt of the mean of squares, no centring
    divisor = rms + eps
    _check_zero(divisor)
    result: F64 = (x2 / divisor).reshape(x64.shape)
    return result


def _check_zero(divisor: F64) -> None:
    if np.any(divisor == 0):
        raise ZeroVarianceError("a row is constant (all zero for RMSNorm) and eps is 0, so x_hat = 0/0")


def layer_norm_recipe(ddof: int, eps_inside: bool) -> Callable[..., F64]:
    """The named function for one of the four LayerNorm recipes (divisor x ε placement).

    Parameters
    ----------
    ddof : {0, 1}
        0: population variance (divide by d); 1: sample variance (divide by d - 1).
    eps_inside : bool
        True: ``sqrt(var + eps)``; False: ``sqrt(var) + eps``.

    Returns
    -------
    callable ``f(x, *, eps) -> x_hat``
        :func:`layernorm.standardize` (the standard recipe), :func:`layer_norm_unbiased`,
        :func:`layer_norm_eps_outside` or :func:`layer_norm_std_plus_eps` (the tutorial form).

    Raises
    ------
    ValueError
        ``ddof`` not 0 or 1.

    Notes
    -----
    Source: this project; the recipes' own docstrings name theirs.
    """
    if ddof not in (0, 1):
        raise ValueError(f"ddof must be 0 (divide by d) or 1 (divide by d - 1), got {ddof!r}")
    table: dict[tuple[int, bool], Callable[..., F64]] = {
        (0, True): standardize,
        (1, True): layer_norm_unbiased,
        (0, False): layer_norm_eps_outside,
        (1, False): layer_norm_std_plus_eps,
    }
    return table[(ddof, bool(eps_inside))]


@dataclass(frozen=True)
class RecipeComparison:
    """A recipe's output beside the standard one, for one vector.

    Attributes
    ----------
    x : (d,) ndarray of float64
        The input.
    standard : (d,) ndarray
        The reference output (:func:`layernorm.standardize`, or :func:`layernorm.rms_norm`).
    variant : (d,) ndarray
        The other recipe's output.
    difference : (d,) ndarray
        ``variant - standard``.
    max_abs_difference : float
        ``max |variant - standard|``.
    standard_std, variant_std : float
        Population standard deviation of each output (1 for a perfect normalization).

    Notes
    -----
    Source: this project.
    """

    x: F64
    standard: F64
    variant: F64
    difference: F64
    max_abs_difference: float
    standard_std: float
    variant_std: float


def _comparison(x64: F64, standard: F64, variant: F64) -> RecipeComparison:
    return RecipeComparison(
        x=x64,
        standard=standard,
        variant=variant,
        difference=variant - standard,
        max_abs_difference=max_abs_diff(variant, standard),
        standard_std=float(std(standard)),
        variant_std=float(std(variant)),
    )


@finite_results()
def compare_recipe(
    x: ArrayLike,
    *,
    ddof: int,
    eps_inside: bool,
    eps: float = DEFAULT_EPS,
    standard_eps: float | None = None,
) -> RecipeComparison:
    """Run one of the four LayerNorm recipes (see :func:`layer_norm_recipe`) beside the standard one.

    Parameters
    ----------
    x : (d,) array_like
        One vector.
    ddof : {0, 1}
    eps_inside : bool
    eps : float, default 1e-5
        The recipe's eps.
    standard_eps : float, optional
        The standard recipe's eps; default ``eps`` (same eps, so only the recipe differs).
        Pass PyTorch's 1e-5 to compare another framework's eps with PyTorch.

    Returns
    -------
    RecipeComparison
        ``standard`` is :func:`layernorm.standardize` (÷d, eps inside the root).

    Raises
    ------
    ValueError
        ``x`` not a non-empty 1-D vector of finite numbers; ``ddof = 1`` with ``d = 1``
        (the sample variance of one number is 0/0); bad ``eps`` or ``ddof``.
    ZeroVarianceError
        A constant vector with ``eps == 0``.

    Notes
    -----
    Source: this project; see the recipes' docstrings for where each one is used.
    """
    x64 = _vector(x)
    if ddof == 1 and x64.size < 2:
        raise ValueError("dividing by d - 1 needs at least 2 values: with d = 1 it is 0/0")
    standard = standardize(x64, eps=eps if standard_eps is None else standard_eps)
    return _comparison(x64, standard, layer_norm_recipe(ddof, eps_inside)(x64, eps=eps))


@finite_results()
def compare_rms_placement(x: ArrayLike, *, eps: float = DEFAULT_EPS) -> RecipeComparison:
    """RMSNorm with eps outside the root (authors' code) beside eps inside (PyTorch, Hugging Face).

    Parameters
    ----------
    x : (d,) array_like
    eps : float, default 1e-5

    Returns
    -------
    RecipeComparison
        ``standard`` is :func:`layernorm.rms_norm` (``x / sqrt(mean(x**2) + eps)``),
        ``variant`` is :func:`rms_norm_eps_outside`.

    Raises
    ------
    ValueError
        As :func:`compare_recipe`.
    ZeroVarianceError
        An all-zero vector with ``eps == 0``.

    Notes
    -----
    Source: Zhang & Sennrich (2019); PyTorch ``torch.nn.functional.rms_norm``.
    """
    x64 = _vector(x)
    return _comparison(x64, rms_norm(x64, eps=eps), rms_norm_eps_outside(x64, eps=eps))


def _vector(x: ArrayLike) -> F64:
    x64 = as_float64(x)
    if x64.ndim != 1 or x64.size == 0:
        raise ValueError(f"expected one non-empty vector (d,), got shape {x64.shape}")
    if not np.all(np.isfinite(x64)):
        raise ValueError("x contains NaN or infinity; normalization needs finite numbers")
    return x64
