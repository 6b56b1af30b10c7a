"""LayerNorm computed *in* a low-precision dtype, the way a naive kernel would, against the exact core.

Every arithmetic step of :func:`layer_norm_in_dtype` is rounded to the chosen dtype
(float16, bfloat16 from ``ml_dtypes``, float32 or float64): the input, each partial sum
(added one feature at a time, ``np.add.accumulate``), each square, the division by ``d``
(``d`` and Welford's counts are rounded to the dtype too), ``var + eps``, the square root
and the division. Three variance methods:

- ``one_pass``: ``E[x^2] - E[x]^2`` (cancels catastrophically when ``|mu|`` dwarfs the spread);
- ``two_pass``: ``mean((x - mu)**2)`` after a first pass for ``mu`` (the core's method);
- ``welford``: Welford's running mean and sum of squared deviations (one pass, stable).

:func:`precision_sweep` runs every dtype and method on ``x + offset`` for many offsets at once
(rows are offsets, the loops run over the ``d`` features) and measures each output's error
against the exact result, :func:`layernorm.layer_norm` in float64.

Shapes: ``m`` offsets (rows), ``d`` features.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from layernorm._checks import F64, as_float64, check_eps
from layernorm.core import DEFAULT_EPS, layer_norm
from layernorm.labs.precision_status import STATUS_WORDS as STATUS_WORDS
from layernorm.labs.precision_status import row_status

DTYPES = ("float16", "bfloat16", "float32", "float64")  # narrowest significand first


def numpy_dtype(dtype: str) -> np.dtype[Any]:
    """The NumPy dtype named ``dtype``; bfloat16 is ``ml_dtypes.bfloat16``.

    Parameters
    ----------
    dtype : {"float16", "bfloat16", "float32", "float64"}

    Returns
    -------
    numpy.dtype

    Raises
    ------
    ValueError
        ``dtype`` is not one of :data:`DTYPES`.

    Notes
    -----
    ``ml_dtypes`` is imported on the first bfloat16 request, not with the package: its import
    registers NumPy dtypes and takes about half a second, which every fresh server's first page
    (and every page but Precision) would otherwise wait for.
    Source: ``ml_dtypes`` (bfloat16, as in JAX and TensorFlow); NumPy for the others.
    """
    if dtype not in DTYPES:
        raise ValueError(f"dtype must be one of {list(DTYPES)}, got {dtype!r}")
    if dtype == "bfloat16":
        import ml_dtypes

        bfloat16: np.dtype[Any] = np.dtype(ml_dtypes.bfloat16)
        return bfloat16
    return np.dtype(dtype)


METHODS = ("one_pass", "two_pass", "welford")


def offset_grid(lo: float = 1.0, hi: float = 1e8, per_decade: int = 8) -> F64:
    """Log-spaced offsets from ``lo`` to ``hi``, ``per_decade`` points per factor of 10.

    Parameters
    ----------
    lo, hi : float
        Positive; ``hi > lo``.
    per_decade : int, default 8

    Returns
    -------
    offsets : (m,) ndarray of float64

    Raises
    ------
    ValueError
        ``lo`` not positive or ``hi <= lo`` or ``per_decade < 1``.

    Notes
    -----
    Source: this project.
    """
    if not 0 < lo < hi or per_decade < 1:
        raise ValueError(f"need 0 < lo < hi and per_decade >= 1, got {lo}, {hi}, {per_decade}")
    decades = float(np.log10(hi / lo))
    return np.asarray(np.logspace(np.log10(lo), np.log10(hi), round(decades * per_decade) + 1))


@dataclass(frozen=True)
class DtypeRun:
    """One method in one dtype, for ``m`` rows of ``d`` features (every value as float64).

    Attributes
    ----------
    dtype, method : str
    x : (m, d) ndarray
        The input after rounding to ``dtype`` (``inf`` where it overflowed).
    mu : (m,) ndarray
        The mean as computed in ``dtype``.
    mean_sq : (m,) ndarray
        ``E[x^2]`` as computed in ``dtype`` (one-pass only; NaN for the others).
    mu_sq : (m,) ndarray
        ``mu * mu`` as computed in ``dtype`` (one-pass only; NaN for the others):
        ``var = mean_sq - mu_sq``.
    var : (m,) ndarray
        The variance as computed in ``dtype`` (may be negative, ∞ or NaN: that is the lesson).
    x_hat : (m, d) ndarray
        ``(x - mu) / sqrt(var + eps)`` in ``dtype``; NaN/∞ where the recipe failed.
    status : (m,) ndarray of str
        A key of :data:`STATUS_WORDS` per row.

    Notes
    -----
    Source: this project.
    """

    dtype: str
    method: str
    x: F64
    mu: F64
    mean_sq: F64
    mu_sq: F64
    var: F64
    x_hat: F64
    status: NDArray[np.str_]


def _last_partial_sum(a: NDArray[np.generic]) -> NDArray[np.generic]:
    """Sum over the last axis one element at a time, every partial sum stored in ``a``'s dtype."""
    return np.add.accumulate(a, axis=-1)[..., -1]


def layer_norm_in_dtype(x: ArrayLike, *, dtype: str, method: str, eps: float = DEFAULT_EPS) -> DtypeRun:
    """LayerNorm (no affine) with every step rounded to ``dtype``, variance by ``method``.

    Parameters
    ----------
    x : (d,) or (m, d) array_like
        Rows to normalize over the last axis; read as float64, then rounded to ``dtype``.
    dtype : {"float16", "bfloat16", "float32", "float64"}
    method : {"one_pass", "two_pass", "welford"}
    eps : float, default 1e-5
        Rounded to ``dtype`` too (1e-12 is 0 in float16).

    Returns
    -------
    DtypeRun
        Arrays with a leading row axis (``m = 1`` for a vector).

    Raises
    ------
    ValueError
        Unknown ``dtype``/``method``; ``x`` not 1-D/2-D, empty, or not finite; bad ``eps``.

    Notes
    -----
    A teaching model of a naive kernel: partial sums are sequential, one feature at a time,
    and nothing is kept in a wider type (real kernels often accumulate in float32). Overflow,
    negative variances and 0/0 are not errors here but the ``status`` of the row. It is not
    PyTorch's kernel: in float32 that one is :func:`layernorm.labs.torch_kernels.layer_norm_kernel`
    (Welford in 8 lanes, then ``(x - mu) * (1/sqrt(var + eps))``), whose ``mu`` and ``var`` equal
    this function's ``"welford"`` ones only for rows of fewer than 8 entries.
    Source: the one-pass formula as in Keras 3 / Flax (tests/data/FRAMEWORKS.md); Welford (1962).
    """
    dt = numpy_dtype(dtype)
    if method not in METHODS:
        raise ValueError(f"method must be one of {list(METHODS)}, got {method!r}")
    eps = check_eps(eps)
    x64 = np.atleast_2d(as_float64(x))
    if x64.ndim != 2 or x64.shape[-1] == 0:
        raise ValueError(f"x must be a vector (d,) or rows (m, d) with d >= 1, got shape {x64.shape}")
    if not np.all(np.isfinite(x64)):
        raise ValueError("x contains NaN or infinity; normalization needs finite numbers")
    d = x64.shape[-1]
    with np.errstate(all="ignore"):  # overflow, 0/0 and √(negative) are what this lab shows
        x_d = x64.astype(dt)  # (m, d): the input as the dtype stores it
        d_d = np.asarray(d, dtype=dt)
        mean_sq = np.full(x64.shape[0], np.nan)
        mu_sq = np.full(x64.shape[0], np.nan)
        if method == "welford":
            mu_d = np.zeros(x64.shape[0], dtype=dt)
            m2 = np.zeros(x64.shape[0], dtype=dt)
            for k in range(d):
                x_k = x_d[:, k]
                delta = x_k - mu_d
                mu_d = mu_d + delta / np.asarray(k + 1, dtype=dt)
                m2 = m2 + delta * (x_k - mu_d)
            var_d = m2 / d_d
        else:
            mu_d = _last_partial_sum(x_d) / d_d
            if method == "one_pass":
                ex2 = _last_partial_sum(x_d * x_d) / d_d
                mu2 = mu_d * mu_d
                var_d = ex2 - mu2
                mean_sq, mu_sq = ex2.astype(np.float64), mu2.astype(np.float64)
            else:
                c = x_d - mu_d[:, None]
                var_d = _last_partial_sum(c * c) / d_d
        denom = var_d + np.asarray(eps, dtype=dt)
        x_hat = (x_d - mu_d[:, None]) / np.sqrt(denom)[:, None]
        status = row_status(method, x_d, mu_d, var_d, denom, x_hat)
    return DtypeRun(
        dtype=dtype,
        method=method,
        x=x_d.astype(np.float64),
        mu=mu_d.astype(np.float64),
        mean_sq=mean_sq,
        mu_sq=mu_sq,
        var=var_d.astype(np.float64),
        x_hat=x_hat.astype(np.float64),
        status=status,
    )


@dataclass(frozen=True)
class PrecisionSweep:
    """Errors of every dtype and method on ``x + offset``, for each offset.

    Attributes
    ----------
    offsets : (m,) ndarray
        Added to every feature (in float64) before rounding to a dtype.
    exact : (m, d) ndarray
        :func:`layernorm.layer_norm` of ``x + offset`` in float64 (two-pass float64 statistics).
    error : dict of dtype -> dict of method -> (m,) ndarray
        ``max_i |x_hat_i - exact_i|``; NaN where the row's status is not "ok".
    status : dict of dtype -> dict of method -> (m,) ndarray of str
        Keys of :data:`STATUS_WORDS`.
    input_error : dict of dtype -> (m,) ndarray
        The error of the exact core fed the input *after rounding to the dtype*: what is
        lost before any arithmetic (0 for float64; NaN where the input overflows).
    input_changed : dict of dtype -> (m,) ndarray of bool
        Whether rounding to the dtype changed any feature of the input.

    Notes
    -----
    Source: this project.
    """

    offsets: F64
    exact: F64
    error: dict[str, dict[str, F64]]
    status: dict[str, dict[str, NDArray[np.str_]]]
    input_error: dict[str, F64]
    input_changed: dict[str, NDArray[np.bool_]]

    def first_failure(self, dtype: str, method: str) -> tuple[float, str] | None:
        """``(offset, status)`` of the smallest offset at which ``method`` in ``dtype`` fails, or None."""
        bad = np.flatnonzero(self.status[dtype][method] != "ok")
        if bad.size == 0:
            return None
        return float(self.offsets[bad[0]]), str(self.status[dtype][method][bad[0]])

    def first_input_loss(self, dtype: str) -> float | None:
        """The smallest offset at which rounding to ``dtype`` changes the exact ``x_hat``, or None.

        That is ``input_error > 0``: a rounded input can change yet keep ``x_hat`` exact (a uniform shift).
        """
        lost = np.flatnonzero(self.input_error[dtype] > 0)  # NaN (overflow) is not a measured loss
        return float(self.offsets[lost[0]]) if lost.size else None

    def first_input_change(self, dtype: str) -> float | None:
        """The smallest offset at which rounding to ``dtype`` changes the input, or None."""
        changed = np.flatnonzero(self.input_changed[dtype])
        return float(self.offsets[changed[0]]) if changed.size else None


def precision_sweep(x: ArrayLike, offsets: ArrayLike, *, eps: float = DEFAULT_EPS) -> PrecisionSweep:
    """Run :func:`layer_norm_in_dtype` for every dtype and method on ``x + offset``, all offsets at once.

    Parameters
    ----------
    x : (d,) array_like
        One vector.
    offsets : (m,) array_like
        Finite numbers added to every feature (e.g. :func:`offset_grid`).
    eps : float, default 1e-5

    Returns
    -------
    PrecisionSweep
        Its errors are NaN, and its runs may hold inf or NaN, where a recipe failed in a
        narrow dtype (overflow, a negative variance, 0/0): the failures the Precision page shows.

    Raises
    ------
    ValueError
        ``x`` not a finite non-empty vector, ``offsets`` not finite, ``eps`` not > 0.

    Notes
    -----
    The error is measured on x_hat (gamma = 1, beta = 0), which is dimensionless.
    Source: this project; exact reference :func:`layernorm.layer_norm`.
    """
    eps = check_eps(eps)
    if eps == 0:
        raise ValueError("the sweep needs eps > 0: rounding can make a row constant, and 0/0 has no error")
    x64 = as_float64(x)
    off = as_float64(offsets, "offsets").ravel()
    if x64.ndim != 1 or x64.size == 0:
        raise ValueError(f"x must be one non-empty vector (d,), got shape {x64.shape}")
    if not (np.all(np.isfinite(x64)) and np.all(np.isfinite(off))):
        raise ValueError("x and offsets must be finite numbers")
    rows = x64[None, :] + off[:, None]  # (m, d): the inputs, in float64
    exact = layer_norm(rows, eps=eps)
    error: dict[str, dict[str, F64]] = {}
    status: dict[str, dict[str, NDArray[np.str_]]] = {}
    input_error: dict[str, F64] = {}
    input_changed: dict[str, NDArray[np.bool_]] = {}
    for name in DTYPES:
        error[name], status[name] = {}, {}
        for method in METHODS:
            run = layer_norm_in_dtype(rows, dtype=name, method=method, eps=eps)
            err = np.max(np.abs(run.x_hat - exact), axis=-1)
            error[name][method] = np.where(run.status == "ok", err, np.nan)
            status[name][method] = run.status
        rounded = run.x  # the same rounded input for every method
        finite = np.all(np.isfinite(rounded), axis=-1)
        input_changed[name] = np.any(rounded != rows, axis=-1)
        core_err = np.full(off.shape, np.nan)
        if np.any(finite):
            core = layer_norm(rounded[finite], eps=eps)
            core_err[finite] = np.max(np.abs(core - exact[finite]), axis=-1)
        input_error[name] = core_err
    return PrecisionSweep(off, exact, error, status, input_error, input_changed)
