"""Three things that are called RMSNorm and are not quite it, each beside RMSNorm itself.

RMSNorm divides a vector by ``sqrt(mean(x**2) + eps)``. Each variant here divides the whole
vector by one other number, so its output is RMSNorm's output times one factor (the ``ratio`` of
:class:`RmsVariantRow`):

- ``"keras_rms_scaling"``: Keras 3 ``LayerNormalization(rms_scaling=True)`` divides by
  ``sqrt(var(x) + eps)``, the variance about the mean, not the mean square (its source;
  keras-team/keras issue 21234). It is RMSNorm only for a vector whose mean is 0.
- ``"dtype_eps"``: RMSNorm with the input dtype's own machine epsilon. PyTorch 2.13's
  ``nn.RMSNorm(eps=None)`` uses the epsilon of the type it computes in (float32 for float16,
  bfloat16 and float32 inputs, float64 for float64), see :func:`default_rms_eps`; bfloat16's
  own epsilon, 2**-7, is far from negligible beside a small mean square.
- ``"sqrt_of_rms"``: ``x / sqrt(RMS(x) + eps)``, a formula with one square root too many.

Every statistic is taken in float64 on the values given (nothing is rounded to bfloat16 or
float16: only eps follows the dtype).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from layernorm._checks import F64, as_float64, check_eps, finite_results
from layernorm.exact import ZeroVarianceError, center_rows, feature_rows, spread_rows

VARIANTS: tuple[str, ...] = ("rmsnorm", "keras_rms_scaling", "dtype_eps", "sqrt_of_rms")
FORMULAS: tuple[str, ...] = ("rmsnorm", "keras_rms_scaling", "sqrt_of_rms")  # dtype_eps is rmsnorm's
# Machine epsilon (the gap from 1 to the next number) of each dtype the lesson offers.
MACHINE_EPS: dict[str, float] = {
    "float64": 2.0**-52,
    "float32": 2.0**-23,
    "bfloat16": 2.0**-7,
    "float16": 2.0**-10,
}
KERAS_EPS = 1e-3  # Keras 3 LayerNormalization's default epsilon


def default_rms_eps(dtype: str, *, rule: str = "opmath") -> float:
    """The eps an RMSNorm given no eps uses for input of ``dtype``.

    Parameters
    ----------
    dtype : {"float64", "float32", "bfloat16", "float16"}
    rule : {"opmath", "input"}, default "opmath"
        ``"opmath"``: PyTorch 2.13's ``nn.RMSNorm(eps=None)``, the machine epsilon of the
        type it computes in (float32's, 2**-23, for float16, bfloat16 and float32 input;
        float64's, 2**-52, for float64). ``"input"``: the input dtype's own machine epsilon
        (bfloat16 2**-7, float16 2**-10), as code that reads ``finfo(x.dtype).eps`` gets it.

    Returns
    -------
    float
        A machine epsilon of :data:`MACHINE_EPS`: 2**-52, 2**-23, 2**-10 or 2**-7.

    Raises
    ------
    ValueError
        An unknown ``dtype`` or ``rule``.

    Notes
    -----
    Source: PyTorch 2.13 ``torch.nn.RMSNorm`` docstring, and its output measured on bfloat16
    input (``[0.05, -0.05, 0.05, -0.05]`` gives ``[1, -1, 1, -1]``, not about 0.49).
    """
    if dtype not in MACHINE_EPS:
        raise ValueError(f"dtype must be one of {list(MACHINE_EPS)}, got {dtype!r}")
    if rule == "input":
        return MACHINE_EPS[dtype]
    if rule != "opmath":
        raise ValueError(f"rule must be 'opmath' or 'input', got {rule!r}")
    return MACHINE_EPS["float64" if dtype == "float64" else "float32"]


def _under_root_and_divisor(x2: F64, formula: str, eps: float) -> tuple[F64, F64]:
    """Per row (n, 1): what is under the root beside eps, and the divisor ``sqrt(that + eps)``."""
    if formula == "keras_rms_scaling":
        _, centred = center_rows(x2)
        return spread_rows(centred, eps)  # (var, sqrt(var + eps)), rescaled where squares overflow
    if formula == "rmsnorm":
        return spread_rows(x2, eps)  # the mean of the squares, not of squared deviations
    _, rms = spread_rows(x2, 0.0)
    return rms, np.sqrt(rms + eps)


@finite_results()
def rms_norm_variant(x: ArrayLike, variant: str = "rmsnorm", *, eps: float) -> F64:
    """One of the RMSNorm formulas over the last axis, no gamma: ``x / divisor``.

    Parameters
    ----------
    x : (..., d) array_like
    variant : {"rmsnorm", "keras_rms_scaling", "sqrt_of_rms"}, default "rmsnorm"
        The divisor: ``sqrt(mean(x**2) + eps)`` (RMSNorm), ``sqrt(var(x) + eps)`` (Keras 3
        ``LayerNormalization(rms_scaling=True)``, population variance) or
        ``sqrt(sqrt(mean(x**2)) + eps)`` (a square root too many). ``"dtype_eps"`` is
        ``"rmsnorm"`` with ``eps=default_rms_eps(dtype, rule="input")``.
    eps : float
        Added under the outer square root. No default: each variant's source has its own.

    Returns
    -------
    ndarray of float64, same shape as ``x``
        ``x = 0, 1, ..., 9`` with ``"keras_rms_scaling"``, eps = 1e-3, is ``x * 0.3481342``
        (1/sqrt(8.25 + 0.001)); RMSNorm's is ``x * 0.1873172`` (1/sqrt(28.5 + eps), eps <= 1e-6).
        ``[3, 4]`` with ``"sqrt_of_rms"`` gives ``[1.59549, 2.12732]``; RMSNorm gives
        ``[0.84852814, 1.13137085]``.

    Raises
    ------
    ValueError
        An unknown ``variant``; bad ``eps``; ``x`` not numeric, empty, NaN or infinite.
    ZeroVarianceError
        A divisor of 0: eps = 0 with an all-zero row (a constant row for Keras' variance).

    Notes
    -----
    Source: Zhang & Sennrich (2019) for RMSNorm; Keras 3 ``layer_normalization.py``
    (``inputs * rsqrt(variance + epsilon)`` when ``rms_scaling``).
    """
    if variant not in FORMULAS:
        raise ValueError(f"variant must be one of {list(FORMULAS)}, got {variant!r}")
    eps = check_eps(eps)
    x64 = as_float64(x)
    x2, _, _ = feature_rows(x64, -1, trailing=True)
    if not np.all(np.isfinite(x2)):
        raise ValueError("x contains NaN or infinity; normalization needs finite numbers")
    _, divisor = _under_root_and_divisor(x2, variant, eps)
    if np.any(divisor == 0):
        raise ZeroVarianceError("a divisor is 0 (an all-zero or constant row with eps = 0), so x / 0")
    result: F64 = (x2 / divisor).reshape(x64.shape)
    return result


@dataclass(frozen=True)
class RmsVariantRow:
    """One variant on one vector, beside RMSNorm.

    Attributes
    ----------
    variant : str
        One of :data:`VARIANTS`.
    eps : float
        The eps this row used.
    under_root : float
        What is added to eps under the outer root: ``mean(x**2)``, ``var(x)`` or ``RMS(x)``.
    divisor : float
        ``sqrt(under_root + eps)``: the whole vector is divided by it.
    scale : float
        ``1 / divisor``.
    output : (d,) ndarray of float64
        ``x / divisor``.
    ratio : float
        ``scale`` over RMSNorm's scale: ``output`` is RMSNorm's output times ``ratio``.
    max_abs_difference : float
        ``max |output - RMSNorm's output|``.

    Notes
    -----
    Source: this project.
    """

    variant: str
    eps: float
    under_root: float
    divisor: float
    scale: float
    output: F64
    ratio: float
    max_abs_difference: float


@finite_results()
def rms_variants(
    x: ArrayLike, *, dtype: str = "bfloat16", keras_eps: float = KERAS_EPS
) -> tuple[RmsVariantRow, ...]:
    """Every variant of :data:`VARIANTS` on one vector, in that order; the first is RMSNorm.

    Parameters
    ----------
    x : (d,) array_like
    dtype : {"float64", "float32", "bfloat16", "float16"}, default "bfloat16"
        The input dtype the eps follow: RMSNorm and the square-root-too-many row use PyTorch's
        ``default_rms_eps(dtype)``, the ``"dtype_eps"`` row the dtype's own machine epsilon.
        The values of ``x`` are not rounded to ``dtype``.
    keras_eps : float, default 1e-3
        The Keras row's eps (Keras' default).

    Returns
    -------
    tuple of RmsVariantRow
        For ``[0.05, -0.05, 0.05, -0.05]`` and bfloat16: RMSNorm ``0.99997616`` (eps 2**-23),
        the dtype's own eps ``0.49236596`` (eps 2**-7).

    Raises
    ------
    ValueError
        ``x`` not one non-empty vector of finite numbers; unknown ``dtype``; bad ``keras_eps``.
    ZeroVarianceError
        A constant vector with ``keras_eps = 0``.

    Notes
    -----
    Source: this project; see :func:`rms_norm_variant` and :func:`default_rms_eps`.
    """
    x64 = as_float64(x)
    if x64.ndim != 1 or x64.size == 0:
        raise ValueError(f"expected one non-empty vector (d,), got shape {x64.shape}")
    if not np.all(np.isfinite(x64)):
        raise ValueError("x contains NaN or infinity; normalization needs finite numbers")
    keras_eps = check_eps(keras_eps)
    torch_eps = default_rms_eps(dtype)
    plan = (
        ("rmsnorm", "rmsnorm", torch_eps),
        ("keras_rms_scaling", "keras_rms_scaling", keras_eps),
        ("dtype_eps", "rmsnorm", default_rms_eps(dtype, rule="input")),
        ("sqrt_of_rms", "sqrt_of_rms", torch_eps),
    )
    parts = []
    for name, formula, eps in plan:
        under, divisor = (float(v[0, 0]) for v in _under_root_and_divisor(x64[None, :], formula, eps))
        if divisor == 0:
            raise ZeroVarianceError(f"{name}: the divisor is 0 (a constant vector with eps = 0)")
        parts.append((name, eps, under, divisor, x64 / divisor))
    reference_divisor, reference = parts[0][3], parts[0][4]
    return tuple(
        RmsVariantRow(
            variant=name,
            eps=eps,
            under_root=under,
            divisor=divisor,
            scale=1.0 / divisor,
            output=out,
            ratio=reference_divisor / divisor,
            max_abs_difference=float(np.max(np.abs(out - reference))),
        )
        for name, eps, under, divisor, out in parts
    )
