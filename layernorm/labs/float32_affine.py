"""Float32 inputs for the fused and step-by-step affine forms (:mod:`layernorm.labs.fused`), float32
arithmetic rounded as a CPU rounds it, and one form's result.

A float32 kernel stores its input, ``gamma``, ``beta`` and ``1/sqrt(var + eps)`` in float32 before
any arithmetic: :func:`checked_inputs` checks them once for both forms and rounds them the same way,
and :class:`AffineRun` holds one form's every stored value. Values are held as float64 throughout.

Each float32 operation of a kernel is one IEEE rounding of its exact result: :func:`round_to_float32`
rounds an exact sum ``hi + lo`` once, :func:`fma32` is a fused multiply-add ``a*b + c`` (one rounding,
where a compiler contracts ``a*b + c`` or a kernel calls ``fmadd``) and :func:`mul_add32` is either
that or two roundings. A float64 result rounded again to float32 can differ from one rounding in
float32 (double rounding); these functions never round twice.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from numpy.typing import ArrayLike, NDArray

from layernorm._checks import F64, as_float64, check_eps
from layernorm.core import DEFAULT_EPS
from layernorm.exact import ZeroVarianceError

FLOAT32_MAX = float(np.finfo(np.float32).max)  # 3.4028235e38
_BITS = 24  # float32's significand
_MIN_EXP = -125  # frexp's exponent of float32's smallest normal number, 2**-126 = 0.5 * 2**-125

# How 1/sqrt(var + eps) is computed before it is stored in float32.
RSTD_IN: dict[str, str] = {
    # PyTorch 2.13's CPU BatchNorm in training mode: InvStd<double> of its float32 variance
    "float64": "computed in float64 and rounded to float32 once",
    # PyTorch 2.13's CPU LayerNorm, and its BatchNorm in eval mode: 1 / std::sqrt(var + eps) in float
    "float32": "computed in float32: σ² and ε stored in float32, then σ² + ε, √ and 1/ each rounded",
}

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


def round_to_float32(hi: ArrayLike, lo: ArrayLike = 0.0) -> F64:
    """The float32 number nearest the exact sum ``hi + lo`` (ties to even), held as float64.

    Parameters
    ----------
    hi, lo : array_like
        ``hi`` is ``hi + lo`` rounded to float64 and ``lo`` what that rounding lost (as TwoSum gives
        them), so ``|lo|`` is at most half a float64 unit of ``hi``. ``lo = 0``: ``hi`` is exact.

    Returns
    -------
    ndarray
        ±∞ beyond float32's range (silently, as :func:`to_float32`); NaN where ``hi`` is NaN.

    Notes
    -----
    ``hi`` rounded to float32 is the answer unless ``hi`` lies exactly halfway between two float32
    numbers while ``lo`` is not 0: rounding ``hi`` then breaks the tie to even, where the exact sum is
    nearer the neighbour on ``lo``'s side. That is the double rounding this function avoids.
    Source: IEEE 754 round-to-nearest-even; Knuth's TwoSum (TAOCP vol. 2, 4.2.2).
    """
    h, low = np.broadcast_arrays(np.asarray(hi, dtype=np.float64), np.asarray(lo, dtype=np.float64))
    stored = to_float32(h)
    with np.errstate(over="ignore", invalid="ignore"):
        _, exp = np.frexp(h)  # h = m * 2**exp with 0.5 <= |m| < 1
        half_unit = np.ldexp(1.0, np.maximum(exp, _MIN_EXP) - _BITS - 1)  # half float32's spacing at h
        steps = h / half_unit  # exact: a power-of-2 scaling
        tie = np.isfinite(h) & (low != 0) & (steps == np.round(steps)) & (np.mod(steps, 2) == 1)
        toward = to_float32(h + np.sign(low) * half_unit)  # the neighbour on lo's side (or ±∞ past the range)
    return np.asarray(np.where(tie, toward, stored), dtype=np.float64)


def two_sum(a: ArrayLike, b: ArrayLike) -> tuple[F64, F64]:
    """``a + b`` rounded to float64, and exactly what that rounding lost.

    Parameters
    ----------
    a, b : array_like
        float64 numbers, broadcast.

    Returns
    -------
    tuple of ndarray
        ``(s, lost)`` with ``s + lost == a + b`` exactly; ``s`` is ±∞ (and ``lost`` 0) where the sum
        overflows float64, NaN where an input is NaN or ∞ − ∞ arises.

    Notes
    -----
    Source: Knuth's TwoSum (TAOCP vol. 2, 4.2.2), exact in round-to-nearest without overflow.
    """
    a, b = np.broadcast_arrays(np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64))
    with np.errstate(over="ignore", invalid="ignore"):
        s = a + b
        b_part = s - a
        lost = (a - (s - b_part)) + (b - b_part)
    return s, np.where(np.isfinite(s), lost, 0.0)


def fma32(a: ArrayLike, b: ArrayLike, c: ArrayLike) -> F64:
    """``a*b + c`` rounded to float32 once: a fused multiply-add of float32 numbers, held as float64.

    Parameters
    ----------
    a, b, c : array_like
        float32 numbers (held as float64; other values are rounded to float32 first), broadcast.

    Returns
    -------
    ndarray
        ±∞ where the result is beyond float32's range, NaN where an input is or ∞ − ∞ arises.

    Notes
    -----
    ``a*b`` of two float32 numbers is exact in float64 (24 + 24 bits), so ``a*b + c`` is exact as
    float64's sum plus TwoSum's remainder, and :func:`round_to_float32` rounds that once.
    Source: IEEE 754 ``fusedMultiplyAdd``, as x86-64's ``vfmadd`` computes it.
    """
    a32, b32, c32 = (to_float32(v) for v in (a, b, c))
    with np.errstate(over="ignore", invalid="ignore"):
        product = a32 * b32
    return round_to_float32(*two_sum(*np.broadcast_arrays(product, c32)))


def mul_add32(a: ArrayLike, b: ArrayLike, c: ArrayLike, *, fma: bool) -> F64:
    """``a*b + c`` in float32: one rounding (:func:`fma32`) or two (``a*b``, then ``+ c``) when not ``fma``.

    Parameters
    ----------
    a, b, c : array_like
        float32 numbers (held as float64), broadcast.
    fma : bool

    Returns
    -------
    ndarray
        As :func:`fma32` (±∞ or NaN where float32 overflows).
    """
    if fma:
        return fma32(a, b, c)
    with np.errstate(over="ignore", invalid="ignore"):
        return to_float32(to_float32(to_float32(a) * to_float32(b)) + to_float32(c))


def shift32(beta: ArrayLike, mu: float, scale: ArrayLike, *, fma: bool) -> F64:
    """``b = beta - mu * scale`` rounded to float32 once (``fma``) or with ``mu * scale`` rounded first.

    Parameters
    ----------
    beta, scale : array_like
        float32 numbers (held as float64), broadcast.
    mu : float
        Any float64 number: a kernel's float32 mean, or an exact one.
    fma : bool

    Returns
    -------
    ndarray
        ±∞ or NaN where float32 overflows, as :func:`fma32`.

    Notes
    -----
    With a float32 ``mu`` this is :func:`mul_add32` of ``-mu``. Otherwise ``mu`` is split into three
    float32 parts, whose products with ``scale`` are exact in float64, and their sum with ``beta`` is
    rounded once; an entry whose float64 sum lies too near a float32 tie to tell (or a ``mu`` out of
    float32's normal range) is computed in exact rational arithmetic instead. Source: this project.
    """
    b32, s32 = np.broadcast_arrays(to_float32(beta), to_float32(scale))
    if float(to_float32(mu)) == mu:
        return mul_add32(-mu, s32, b32, fma=fma)
    if not 2.0**-100 < abs(mu) <= FLOAT32_MAX:
        return _shift_exact(b32, mu, s32, np.ones(b32.shape, dtype=bool), np.empty(b32.shape), fma)
    parts, rest = [], mu
    for _ in range(3):  # 24 + 24 + 5 bits hold mu's 53
        parts.append(float(to_float32(rest)))
        rest -= parts[-1]  # exact
    with np.errstate(over="ignore", invalid="ignore"):
        products = [-part * s32 for part in parts]  # each exact: 24 bits times 24 bits
        if fma:
            value, lost, doubt = _sum_once([b32, *products])
            out = round_to_float32(value, lost)
        else:
            value, lost, doubt = _sum_once(products)
            out = to_float32(b32 + round_to_float32(value, lost))  # beta - (mu*s rounded): one rounding
    return _shift_exact(b32, mu, s32, doubt, out, fma)


def _sum_once(terms: list[F64]) -> tuple[F64, F64, NDArray[np.bool_]]:
    """``hi, lo`` with ``hi + lo`` the terms' sum (to a few float64 units), and where that may not do.

    The third array marks entries whose float64 sum ``hi`` lies within that uncertainty of a point
    halfway between two float32 numbers, or is not finite: those need exact arithmetic.
    """
    total, lost = terms[0], np.zeros(terms[0].shape)
    size = np.zeros(terms[0].shape)
    for term in terms[1:]:
        total, error = two_sum(total, term)
        lost, size = lost + error, size + np.abs(error)
    hi, lo = two_sum(total, lost)
    with np.errstate(over="ignore", invalid="ignore"):
        _, exp = np.frexp(hi)
        half_unit = np.ldexp(1.0, np.maximum(exp, _MIN_EXP) - _BITS - 1)
        steps = np.abs(hi) / half_unit
        below = np.floor(steps)
        tie = np.where(np.mod(below, 2) == 1, below, below + 1)  # the nearest odd multiple: a tie
        gap = np.abs(steps - tie) * half_unit
        doubt = ~np.isfinite(hi) | (gap <= np.abs(lo) + 8 * np.spacing(np.abs(hi)) + 2.0**-50 * size)
    return hi, lo, doubt


def _shift_exact(b32: F64, mu: float, s32: F64, doubt: NDArray[np.bool_], out: F64, fma: bool) -> F64:
    """``out`` with its ``doubt`` entries computed in exact rational arithmetic (each distinct pair once)."""
    flat = np.array(out, dtype=np.float64).ravel()
    b_flat, s_flat = b32.ravel(), s32.ravel()
    exact_mu = Fraction(mu)
    done: dict[tuple[float, float], float] = {}
    for i in np.flatnonzero(doubt):
        b_i, s_i = float(b_flat[i]), float(s_flat[i])
        if (b_i, s_i) not in done:
            if not (np.isfinite(b_i) and np.isfinite(s_i)):
                with np.errstate(over="ignore", invalid="ignore"):
                    done[b_i, s_i] = float(to_float32(b_i - mu * s_i))
            else:
                product = exact_mu * Fraction(s_i)
                if not fma:
                    product = Fraction(_fraction_to_float32(product)) if abs(product) < 2**128 else product
                done[b_i, s_i] = _fraction_to_float32(Fraction(b_i) - product)
        flat[i] = done[b_i, s_i]
    return flat.reshape(b32.shape)


def _fraction_to_float32(value: Fraction) -> float:
    """An exact rational number rounded to float32 once (±∞ beyond float32's range)."""
    if abs(value) >= 2**128:
        return float("inf") if value > 0 else float("-inf")
    hi = float(value)  # correctly rounded to float64
    return float(round_to_float32(hi, float(value - Fraction(hi))))


def rstd_of(var: float, eps: float, rstd_in: str) -> float:
    """``1/sqrt(var + eps)`` computed as :data:`RSTD_IN` says and stored in float32 (∞ past its range).

    Parameters
    ----------
    var : float
        Finite, >= 0.
    eps : float
        Finite, >= 0.
    rstd_in : {"float64", "float32"}

    Returns
    -------
    float
        ∞ where ``var + eps`` is 0 in that precision, or the result is beyond float32; 0 where ``var``
        itself is beyond float32 in ``"float32"`` (float32 stores it as ∞).

    Raises
    ------
    ValueError
        ``rstd_in`` is not a key of :data:`RSTD_IN`.

    Notes
    -----
    Source: PyTorch 2.13's CPU kernels: ``InvStd<double>`` in ``batch_norm_cpu_update_stats_template``
    (training), ``1 / std::sqrt(running_var + static_cast<float>(eps))`` in
    ``batch_norm_cpu_collect_linear_and_constant_terms`` (eval) and ``1 / std::sqrt(var + eps)`` in
    ``LayerNormKernelImplInternal``.
    """
    if rstd_in not in RSTD_IN:
        raise ValueError(f"rstd_in must be one of {list(RSTD_IN)}, got {rstd_in!r}")
    with np.errstate(over="ignore", divide="ignore"):
        if rstd_in == "float64":
            return float(to_float32(1.0 / np.sqrt(np.float64(var) + np.float64(eps))))
        v32, e32 = np.float32(var), np.float32(eps)
        return float(np.float32(1) / np.sqrt(v32 + e32))


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
    rstd_in: str = "float64",
) -> tuple[F64, F64, F64, float, float]:
    """The checked inputs in float32 and ``rstd`` (an ∞ ``rstd`` is the caller's status to report).

    Parameters
    ----------
    x : (d,) array_like
        One row, rounded to float32 first.
    mu : float
        The mean the kernel uses (kept in float64: give a float32 one to model a float32 kernel).
    var, rstd : float, optional
        Exactly one: the variance (then ``rstd = 1/sqrt(var + eps)`` is computed as ``rstd_in`` says
        and stored in float32), or ``rstd`` itself (stored in float32; ``eps`` is then not used).
    gamma, beta : float or (d,) array_like, default 1 and 0
        Rounded to float32.
    eps : float, default 1e-5
    rstd_in : {"float64", "float32"}, default "float64"
        How ``1/sqrt(var + eps)`` is computed (:data:`RSTD_IN`).

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
    if rstd_in not in RSTD_IN:
        raise ValueError(f"rstd_in must be one of {list(RSTD_IN)}, got {rstd_in!r}")
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
    return x32, g32, b32, mu, rstd_of(var, eps, rstd_in)


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
