"""The fused affine form of a normalization kernel, in float32, beside the step-by-step form.

A kernel need not compute ``gamma * (x - mu) / sqrt(var + eps) + beta`` in that order. Many fold
it into one multiply-add per entry::

    s = gamma / sqrt(var + eps)        # stored in float32
    b = beta - mu * s                  # stored in float32
    y = x * s + b                      # stored in float32

which is the same function in exact arithmetic. In float32 it is not: when ``|mu * s|`` is large,
``b`` is rounded to float32's spacing at that size, and in ``y = x * s + b``, computed as one fused
multiply-add (``x * s`` exact before ``b`` is added), ``x * s`` cancels against ``-mu * s`` while
``b``'s rounding error stays. For a constant row the exact answer is ``beta``; the fused form
returns ``beta`` plus whatever ``b`` lost. (Without fused multiply-adds ``x * s`` is rounded too, and
for a constant row it cancels ``b``'s rounding exactly when ``beta = 0``.)

:func:`fused_affine` is that form, :func:`stepwise_affine` the step-by-step one, both from given
statistics (mean and variance or ``1/sqrt(var + eps)``), in PyTorch 2.13's CPU kernels' order and
precision: with ``mu`` and ``var`` as those kernels hold them, :func:`fused_affine` is its BatchNorm
(``rstd_in="float64"`` in training mode, ``"float32"`` in eval mode) and :func:`stepwise_affine`
with ``rstd_in="float32"`` its LayerNorm (:func:`layernorm.labs.torch_kernels.layer_norm_kernel`).
:func:`compare_affine_forms` runs both with two sets of statistics (exact, and float32 Welford as
PyTorch's LayerNorm computes them), so a page can say which part of a float32 kernel goes wrong:
its statistics or its folded affine.

Shapes: one row of ``d`` entries (a LayerNorm row, or the ``n`` values of one BatchNorm channel).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from layernorm._checks import F64, check_eps
from layernorm.core import DEFAULT_EPS, layer_norm
from layernorm.labs.float32_affine import FLOAT32_MAX as FLOAT32_MAX
from layernorm.labs.float32_affine import RSTD_IN as RSTD_IN
from layernorm.labs.float32_affine import STATUS_WORDS as STATUS_WORDS
from layernorm.labs.float32_affine import AffineRun as AffineRun
from layernorm.labs.float32_affine import (
    checked_inputs,
    first_status,
    mul_add32,
    round_to_float32,
    shift32,
    to_float32,
    two_sum,
)
from layernorm.labs.torch_kernels import rowwise_moments

FORMS = ("step", "fused")
STATS = ("exact", "kernel")  # float64 two-pass statistics; PyTorch LayerNorm's float32 Welford ones
# Units in the last place (float32) of the row's largest term |γ·x̂| or |β| that a run may be off by
# and still count as rounding: the step form's roundings (with 1/√(σ² + ε) in float32, eight) stay
# within that many such units.
ROUNDING_ULPS = 8

# The Precision page's examples; PyTorch 2.13 CPU's outputs for each are in
# tests/data/fused_torch_2_13.json (BatchNorm on a channel of equal values, in training and in eval
# mode; LayerNorm on one feature; the row near 2e8).
CHANNEL_VALUES = (1.0, 10.0, 100.0, 1e3, 1e4, 1e5, 1e6, 1e7, 5e7, 1e8, 1e9)
D1_GAMMAS = (1.0, 1e2, 1e4, 1e6, 1e8, 1e10, 1e12)
ROW_NEAR_2E8 = (200000016.0, 200000000.0, 200000032.0, 200000048.0)  # float32 numbers, 16 apart


def fused_affine(
    x: ArrayLike,
    mu: float,
    *,
    var: float | None = None,
    rstd: float | None = None,
    gamma: ArrayLike = 1.0,
    beta: ArrayLike = 0.0,
    eps: float = DEFAULT_EPS,
    rstd_in: str = "float64",
    fma: bool = True,
) -> AffineRun:
    """The fused form ``y = x * s + b`` in float32, with ``s`` and ``b`` each stored in float32.

    Parameters
    ----------
    x : (d,) array_like
    mu : float
        The mean used: a kernel's float32 one, or any float64 number (an exact mean).
    var, rstd : float, optional
        Exactly one: the variance (``rstd = 1/sqrt(var + eps)`` is then computed as ``rstd_in`` says
        and stored in float32) or ``rstd``.
    gamma, beta, eps : float or (d,) array_like, float
        Default 1, 0 and 1e-5. :func:`layernorm.labs.float32_affine.checked_inputs` checks and rounds
        every input.
    rstd_in : {"float64", "float32"}, default "float64"
        :data:`RSTD_IN`: PyTorch's BatchNorm computes it in float64 in training mode, in float32 in
        eval mode.
    fma : bool, default True
        ``b = beta - mu * s`` and ``y = x * s + b`` each rounded once (fused multiply-adds, as PyTorch's
        AVX2 build computes them), or, False, with the product rounded first (its default build).

    Returns
    -------
    AffineRun
        ``form = "fused"``. ``y`` may hold ∞ or NaN where float32 overflows (``status`` says which
        step): that is a float32 kernel's failure, shown, not refused.

    Raises
    ------
    ValueError, ZeroVarianceError
        As :func:`~layernorm.labs.float32_affine.checked_inputs`.

    Notes
    -----
    ``s = gamma * rstd`` is rounded to float32; ``b = beta - mu * s`` and ``y = x * s + b`` are each
    rounded once from their exact values (:func:`~layernorm.labs.float32_affine.shift32`,
    :func:`~layernorm.labs.float32_affine.fma32`), as PyTorch 2.13's CPU BatchNorm computes them
    (``batch_norm_cpu_collect_linear_and_constant_terms``, then ``x * alpha + beta``, both contracted
    to fused multiply-adds in its AVX2 build). With ``mu`` and ``var`` as that kernel holds them, this
    is its output bit for bit: on constant channels (5 copies of 5e7 give 242.27734375 in training
    mode and -279.84375 in eval mode with running variance 0; the exact answer is ``beta``), as
    recorded in ``tests/data/fused_torch_2_13.json``. Source: this project; PyTorch 2.13
    ``aten/src/ATen/native/cpu/batch_norm_kernel.cpp``.
    """
    x32, g32, b32, mu, r = checked_inputs(
        x, mu, var=var, rstd=rstd, gamma=gamma, beta=beta, eps=eps, rstd_in=rstd_in
    )
    nan = np.full(x32.shape, np.nan)
    with np.errstate(over="ignore", invalid="ignore"):
        s = to_float32(g32 * r)
        b_exact = b32 - mu * s
        b = shift32(b32, mu, s, fma=fma)
        y = mul_add32(x32, s, b, fma=fma)
    status = first_status(
        [
            ("rstd_overflow", not np.isfinite(r)),
            ("scale_overflow", not np.all(np.isfinite(s))),
            ("shift_overflow", not np.all(np.isfinite(b))),
            ("output_overflow", not np.all(np.isfinite(y))),
        ]
    )
    return AffineRun("fused", x32, g32, b32, mu, r, s, b, b_exact, nan, y, status)


def stepwise_affine(
    x: ArrayLike,
    mu: float,
    *,
    var: float | None = None,
    rstd: float | None = None,
    gamma: ArrayLike = 1.0,
    beta: ArrayLike = 0.0,
    eps: float = DEFAULT_EPS,
    rstd_in: str = "float64",
    fma: bool = True,
) -> AffineRun:
    """The step-by-step form in float32: ``x - mu``, ``x_hat = (x - mu) * rstd``, ``gamma * x_hat + beta``.

    Parameters
    ----------
    x, mu, var, rstd, gamma, beta, eps
        As in :func:`fused_affine`.
    rstd_in : {"float64", "float32"}, default "float64"
        :data:`RSTD_IN` (PyTorch's LayerNorm computes it in float32).
    fma : bool, default True
        ``gamma * x_hat + beta`` rounded once (a fused multiply-add, as PyTorch's AVX2 build computes
        it) or, False, twice.

    Returns
    -------
    AffineRun
        ``form = "step"``. ``y`` may hold ∞ or NaN where float32 overflows (``status`` says which step).

    Raises
    ------
    ValueError, ZeroVarianceError
        As :func:`fused_affine`.

    Notes
    -----
    ``x - mu`` (rounded once from its exact value, whatever ``mu``) and ``x_hat`` are stored in
    float32, and ``gamma * x_hat + beta`` is one fused multiply-add. With PyTorch 2.13's float32 ``mu``
    and ``var`` and ``rstd_in="float32"``, this is its CPU LayerNorm's second pass
    (``LayerNormSecondPass``), which does not fold ``gamma`` and ``beta``:
    :func:`layernorm.labs.torch_kernels.layer_norm_kernel`. Source: this project.
    """
    x32, g32, b32, mu, r = checked_inputs(
        x, mu, var=var, rstd=rstd, gamma=gamma, beta=beta, eps=eps, rstd_in=rstd_in
    )
    nan = np.full(x32.shape, np.nan)
    with np.errstate(over="ignore", invalid="ignore"):
        deviation = round_to_float32(*two_sum(x32, np.full(x32.shape, -mu)))
        x_hat = to_float32(deviation * r)
        y = mul_add32(x_hat, g32, b32, fma=fma)
    status = first_status(
        [
            ("rstd_overflow", not np.isfinite(r)),
            ("deviation_overflow", not np.all(np.isfinite(deviation))),
            ("x_hat_overflow", not np.all(np.isfinite(x_hat))),
            ("output_overflow", not np.all(np.isfinite(y))),
        ]
    )
    return AffineRun("step", x32, g32, b32, mu, r, nan, nan, nan, x_hat, y, status)


@dataclass(frozen=True)
class FusedComparison:
    """Both forms with both sets of statistics, against the exact answer, for one float32 row.

    Attributes
    ----------
    x, gamma, beta : (d,) ndarray
        The inputs as float32 stores them.
    eps : float
    exact : (d,) ndarray
        :func:`layernorm.layer_norm` of those inputs in float64: the answer to compare with.
    mu, var : dict of {"exact", "kernel"} -> float
        The core's float64 two-pass statistics, and PyTorch 2.13 CPU LayerNorm's float32 Welford
        ones (:func:`layernorm.labs.torch_kernels.rowwise_moments`), NaN when those are unusable.
    kernel_status : str
        ``"ok"``, or why float32 Welford gave no usable statistics (a key of
        :data:`layernorm.labs.precision.STATUS_WORDS`).
    runs : dict of (stats, form) -> AffineRun
        ``stats`` in :data:`STATS`, ``form`` in :data:`FORMS`; no ``"kernel"`` runs when
        ``kernel_status`` is not ``"ok"``. The ``"exact"`` runs compute ``1/sqrt(var + eps)`` as
        ``rstd_in`` says, the ``"kernel"`` runs in float32 (as PyTorch's LayerNorm does).
    rstd_in : str
        A key of :data:`RSTD_IN`: how the ``"exact"`` runs computed ``1/sqrt(var + eps)``.
    fma : bool
        Whether every run rounded ``a*b + c`` once (PyTorch's AVX2 build) or twice (its default build).
    error : dict of (stats, form) -> float
        ``max |y - exact|`` of each run; NaN for a missing run or one whose status is not ``"ok"``.
    tolerance : float
        What an entry may be off by as float32 rounding: :data:`ROUNDING_ULPS` units in the last
        place (float32) of the row's largest term, ``|gamma * x_hat|`` or ``|beta|`` (exact values).

    Notes
    -----
    Source: this project.
    """

    x: F64
    gamma: F64
    beta: F64
    eps: float
    exact: F64
    mu: dict[str, float]
    var: dict[str, float]
    kernel_status: str
    runs: dict[tuple[str, str], AffineRun]
    error: dict[tuple[str, str], float]
    tolerance: float
    rstd_in: str
    fma: bool

    def within(self, stats: str, form: str) -> bool:
        """Whether that run exists, did not overflow, and is off by no more than rounding at every entry."""
        run = self.runs.get((stats, form))
        if run is None or run.status != "ok":
            return False
        return bool(np.all(np.abs(run.y - self.exact) <= self.tolerance))

    @property
    def verdict(self) -> str:
        """Which part goes wrong beyond rounding.

        ``"float32"``: even the step form with exact statistics is off (float32 cannot hold the
        answer); else ``"both"``, ``"statistics"`` (the step form with float32 Welford statistics is
        off), ``"affine"`` (the fused form with exact statistics is off) or ``"none"``.
        """
        if not self.within("exact", "step"):
            return "float32"
        affine = not self.within("exact", "fused")
        stats = self.kernel_status == "ok" and not self.within("kernel", "step")
        return "both" if affine and stats else "affine" if affine else "statistics" if stats else "none"


def compare_affine_forms(
    x: ArrayLike,
    *,
    gamma: ArrayLike = 1.0,
    beta: ArrayLike = 0.0,
    eps: float = DEFAULT_EPS,
    rstd_in: str = "float64",
    fma: bool = True,
) -> FusedComparison:
    """Step-by-step and fused forms, each with exact and with float32 Welford statistics.

    Parameters
    ----------
    x : (d,) array_like
        One row (or one BatchNorm channel's values), rounded to float32 first.
    gamma, beta : float or (d,) array_like, default 1 and 0
    eps : float, default 1e-5
    rstd_in : {"float64", "float32"}, default "float64"
        How the runs with exact statistics compute ``1/sqrt(var + eps)`` (:data:`RSTD_IN`): as
        PyTorch's BatchNorm in training mode (float64) or in eval mode (float32).
    fma : bool, default True
        Fused multiply-adds (PyTorch's AVX2 build) or not (its default build), in every run and in
        the float32 Welford statistics.

    Returns
    -------
    FusedComparison
        Its runs may hold ∞ or NaN where float32 overflows (each run's ``status`` says so).

    Raises
    ------
    ValueError
        As :func:`fused_affine`.
    ZeroVarianceError
        A constant row with ``eps = 0``.

    Notes
    -----
    "Kernel statistics" are PyTorch 2.13 CPU LayerNorm's float32 Welford ones
    (:func:`layernorm.labs.torch_kernels.rowwise_moments`); with them the ``("kernel", "step")`` run
    is its output, :func:`layernorm.labs.torch_kernels.layer_norm_kernel`. On
    ``[200000016, 200000000, 200000032, 200000048]`` they are ``mu = 200000032``, ``var = 256``.
    Source: this project.
    """
    x32, g32, b32, _, _ = checked_inputs(x, 0.0, var=1.0, gamma=gamma, beta=beta, eps=eps, rstd_in=rstd_in)
    eps = check_eps(eps)
    x_hat = layer_norm(x32, eps=eps)  # ZeroVarianceError for a constant row at eps = 0
    exact = layer_norm(x32, g32, b32, eps=eps)
    mu = {"exact": float(np.mean(x32)), "kernel": np.nan}
    var = {"exact": float(np.mean((x32 - mu["exact"]) ** 2)), "kernel": np.nan}
    k_mu, k_var = rowwise_moments(x32, fma=fma)
    kernel_status = (
        "step_overflow"
        if not np.isfinite(k_mu)
        else "square_overflow"
        if not np.isfinite(k_var)
        else "zero_divisor"
        if np.float32(k_var) + np.float32(eps) == 0
        else "ok"
    )
    usable = kernel_status == "ok"
    if usable:
        mu["kernel"], var["kernel"] = k_mu, k_var
    runs: dict[tuple[str, str], AffineRun] = {}
    for stats in STATS if usable else STATS[:1]:
        how = rstd_in if stats == "exact" else "float32"
        for form, f in (("step", stepwise_affine), ("fused", fused_affine)):
            runs[stats, form] = f(
                x32, mu[stats], var=var[stats], gamma=g32, beta=b32, eps=eps, rstd_in=how, fma=fma
            )
    error = {
        (stats, form): float(np.max(np.abs(run.y - exact))) if run.status == "ok" else np.nan
        for (stats, form), run in runs.items()
    }
    for key in ((s, f) for s in STATS for f in FORMS):
        error.setdefault(key, np.nan)
    with np.errstate(over="ignore", invalid="ignore"):
        largest = np.float32(max(float(np.max(np.abs(g32 * x_hat))), float(np.max(np.abs(b32)))))
        tolerance = ROUNDING_ULPS * float(np.spacing(largest))
    return FusedComparison(
        x32, g32, b32, eps, exact, mu, var, kernel_status, runs, error, tolerance, rstd_in, fma
    )
