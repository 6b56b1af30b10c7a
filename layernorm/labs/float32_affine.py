"""Float32 inputs for the fused and step-by-step affine forms (:mod:`layernorm.labs.fused`), and their result.

A float32 kernel stores its input, ``gamma``, ``beta`` and ``1/sqrt(var + eps)`` in float32 before
any arithmetic: :func:`checked_inputs` checks them once for both forms and rounds them the same way,
and :class:`AffineRun` holds one form's every stored value. Values are held as float64 throughout.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from layernorm._checks import F64, as_float64, check_eps
from layernorm.core import DEFAULT_EPS
from layernorm.exact import ZeroVarianceError

FLOAT32_MAX = float(np.finfo(np.float32).max)  # 3.4028235e38

STATUS_WORDS: dict[str, str] = {
    "ok": "fine",
    "rstd_overflow": "1/√(σ² + ε) is larger than float32's largest number (it becomes ∞)",
    "scale_overflow": "s = γ/√(σ² + ε) is larger than float32's largest number (it becomes ∞)",
    "shift_overflow": "b = β − μ·s is larger than float32's largest number (it becomes ∞)",
    "deviation_overflow": "x − μ is larger than float32's largest number (it becomes ∞)",
    "x_hat_overflow": "x̂ = (x − μ)/√(σ² + ε) is larger than float32's largest number (it becomes ∞)",
    "output_overflow": "y is larger than float32's largest number (it becomes ∞ or undefined)",
}


def to_float32(a: ArrayLike) -> F64:
    """``a`` rounded to float32, held as float64 (overflow gives ∞, silently: the caller checks)."""
    with np.errstate(over="ignore"):
        return np.asarray(np.asarray(a, dtype=np.float64).astype(np.float32), dtype=np.float64)


def _fits_float32(a: F64, name: str) -> F64:
    """``a`` as float32 stores it; a ValueError if any entry is not finite or beyond float32's range."""
    if not np.all(np.isfinite(a)):
        raise ValueError(f"{name} must be finite numbers")
    stored = to_float32(a)
    if not np.all(np.isfinite(stored)):
        raise ValueError(
            f"{name} must fit in float32 (|{name}| ≤ {FLOAT32_MAX:.8g}), got {np.max(np.abs(a)):.4g}"
        )
    return stored


@dataclass(frozen=True)
class AffineRun:
    """One form of ``y = gamma * (x - mu) / sqrt(var + eps) + beta`` in float32 (values as float64).

    Attributes
    ----------
    form : {"step", "fused"}
    x, gamma, beta : (d,) ndarray
        The inputs as float32 stores them (``gamma`` and ``beta`` broadcast to ``d``).
    mu : float
        The mean used (as given: the exact one in float64, or a kernel's float32 one).
    rstd : float
        ``1/sqrt(var + eps)`` as float32 stores it.
    scale : (d,) ndarray
        Fused: ``s = gamma * rstd`` in float32. Step: NaN (the step form has no ``s``).
    shift : (d,) ndarray
        Fused: ``b = beta - mu * s`` as float32 stores it. Step: NaN.
    shift_exact : (d,) ndarray
        Fused: ``beta - mu * s`` in float64, before ``b`` is rounded to float32. Step: NaN.
    x_hat : (d,) ndarray
        Step: ``(x - mu) * rstd``, each of ``x - mu`` and the product stored in float32. Fused: NaN.
    y : (d,) ndarray
        The output, stored in float32 (∞ or NaN where ``status`` names an overflow).
    status : str
        A key of :data:`STATUS_WORDS`.

    Notes
    -----
    Source: this project.
    """

    form: str
    x: F64
    gamma: F64
    beta: F64
    mu: float
    rstd: float
    scale: F64
    shift: F64
    shift_exact: F64
    x_hat: F64
    y: F64
    status: str


def checked_inputs(
    x: ArrayLike,
    mu: float,
    *,
    var: float | None = None,
    rstd: float | None = None,
    gamma: ArrayLike = 1.0,
    beta: ArrayLike = 0.0,
    eps: float = DEFAULT_EPS,
) -> tuple[F64, F64, F64, float, float]:
    """The checked inputs in float32 and ``rstd`` (an ∞ ``rstd`` is the caller's status to report).

    Parameters
    ----------
    x : (d,) array_like
        One row, rounded to float32 first.
    mu : float
        The mean the kernel uses (kept in float64: give a float32 one to model a float32 kernel).
    var, rstd : float, optional
        Exactly one: the variance (then ``rstd = 1/sqrt(var + eps)`` is computed in float64 and
        stored in float32), or ``rstd`` itself (stored in float32; ``eps`` is then not used).
    gamma, beta : float or (d,) array_like, default 1 and 0
        Rounded to float32.
    eps : float, default 1e-5

    Returns
    -------
    tuple
        ``(x, gamma, beta, mu, rstd)``: ``x``, ``gamma`` and ``beta`` as float32 stores them
        (``gamma`` and ``beta`` broadcast to ``d``), ``mu`` as a float, ``rstd`` in float32.

    Raises
    ------
    ValueError
        ``x`` not a finite non-empty row; ``x``, ``gamma`` or ``beta`` beyond float32's range or of
        the wrong shape; ``mu`` not finite; not exactly one of ``var`` (finite, >= 0) and ``rstd``
        (positive, within float32); bad ``eps``.
    ZeroVarianceError
        ``var = 0`` and ``eps = 0``.
    """
    x64 = as_float64(x)
    if x64.ndim != 1 or x64.size == 0:
        raise ValueError(f"x must be one non-empty row (d,), got shape {x64.shape}")
    x32 = _fits_float32(x64, "x")
    g32, b32 = (_row_param(p, name, x64.size) for p, name in ((gamma, "gamma"), (beta, "beta")))
    mu = float(mu)
    if not np.isfinite(mu):
        raise ValueError(f"mu must be a finite number, got {mu!r}")
    eps = check_eps(eps)
    if (var is None) == (rstd is None):
        raise ValueError("give exactly one of var and rstd")
    if rstd is not None:
        r = float(to_float32(float(rstd)))
        if not (np.isfinite(r) and r > 0):
            raise ValueError(f"rstd must be a positive number that fits in float32, got {rstd!r}")
        return x32, g32, b32, mu, r
    var = float(var)  # type: ignore[arg-type]  # not None: checked above
    if not (np.isfinite(var) and var >= 0):
        raise ValueError(f"var must be a finite number >= 0, got {var!r}")
    if var + eps == 0:
        raise ZeroVarianceError("var = 0 and eps = 0: 1/sqrt(var + eps) is 1/0")
    with np.errstate(over="ignore"):
        return x32, g32, b32, mu, float(to_float32(1.0 / np.sqrt(var + eps)))


def _row_param(p: ArrayLike, name: str, d: int) -> F64:
    """``gamma`` or ``beta``: one number or ``d``, broadcast to ``d`` and stored in float32."""
    p64 = as_float64(p, name)
    if p64.ndim > 1 or p64.size not in (1, d):
        raise ValueError(
            f"{name} must be one number or {d} numbers (one per entry of x), got shape {p64.shape}"
        )
    return _fits_float32(np.broadcast_to(p64.ravel(), (d,)).copy(), name)


def first_status(checks: list[tuple[str, bool]]) -> str:
    """The name of the first check that failed, in the order given (``"ok"`` when none did)."""
    return next((name for name, bad in checks if bad), "ok")
