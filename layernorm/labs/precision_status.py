"""Why a row of :func:`layernorm.labs.precision.layer_norm_in_dtype` has no usable output.

Each variance method meets the failures of a naive low-precision kernel (an input that overflows
the dtype, a sum or a square that does, a negative variance, 0/0) in the order it computes its
steps; a row's status is the first one it meets, or "ok". :data:`STATUS_WORDS` says each in words.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

# Why a row has no usable output. Each method checks them in the order it computes (_CHECK_ORDER).
STATUS_WORDS: dict[str, str] = {
    "ok": "fine",
    "input_overflow": "the input itself overflows the dtype (it becomes ∞)",
    "sum_overflow": "the sum of the features overflows (μ becomes ∞)",
    "step_overflow": "a step x − μ of the running mean overflows (μ becomes ∞)",
    "deviation_overflow": "a deviation x − μ overflows the dtype (it becomes ∞)",
    "square_overflow": "a sum of squares overflows (σ² becomes ∞ or undefined)",
    "negative_variance": "the variance comes out negative, so √(σ² + ε) is undefined",
    "zero_divisor": "σ² + ε rounds to 0, so x̂ = 0/0",
    "not_finite": "the output is not a finite number",
}

# The order in which each method meets the failures: the first one a row meets is its status.
_CHECK_ORDER: dict[str, tuple[str, ...]] = {
    # E[x²] and μ² first; x − μ only in x̂
    "one_pass": ("input_overflow", "sum_overflow", "square_overflow", "negative_variance",
                 "zero_divisor", "deviation_overflow", "not_finite"),
    # μ, then every x − μ, then their squares
    "two_pass": ("input_overflow", "sum_overflow", "deviation_overflow", "square_overflow",
                 "negative_variance", "zero_divisor", "not_finite"),
    # μ moves by steps x_k − μ (no sum to overflow); M2 adds products of deviations; x − μ again in x̂
    "welford": ("input_overflow", "step_overflow", "square_overflow", "negative_variance",
                "zero_divisor", "deviation_overflow", "not_finite"),
}  # fmt: skip


def row_status(
    method: str,
    x_d: NDArray[np.generic],
    mu_d: NDArray[np.generic],
    var_d: NDArray[np.generic],
    denom: NDArray[np.generic],
    x_hat: NDArray[np.generic],
) -> NDArray[np.str_]:
    """The first reason (in ``_CHECK_ORDER[method]``) each row failed, or "ok".

    Call it inside ``np.errstate(all="ignore")``: ``x - mu`` is taken again in the dtype.
    For Welford a non-finite μ can only come from a step ``x_k - mu`` that overflowed: each update
    moves μ part of the way towards ``x_k``, so it stays between finite numbers otherwise.

    Parameters
    ----------
    method : {"one_pass", "two_pass", "welford"}
    x_d : (m, d) ndarray
        The input as the dtype stores it.
    mu_d, var_d, denom : (m,) ndarray
        The mean, the variance and ``var + eps`` as computed in the dtype.
    x_hat : (m, d) ndarray
        The normalized rows as computed in the dtype.

    Returns
    -------
    status : (m,) ndarray of str
        A key of :data:`STATUS_WORDS` per row.

    Raises
    ------
    KeyError
        ``method`` is not one of the three methods.

    Notes
    -----
    Source: this project.
    """
    mu, var, den = (a.astype(np.float64) for a in (mu_d, var_d, denom))
    deviation = np.subtract(x_d, mu_d[:, None]).astype(np.float64)
    bad = {
        "input_overflow": ~np.all(np.isfinite(x_d.astype(np.float64)), axis=-1),
        "sum_overflow": ~np.isfinite(mu),
        "step_overflow": ~np.isfinite(mu),
        "deviation_overflow": ~np.all(np.isfinite(deviation), axis=-1),
        "square_overflow": ~np.isfinite(var),
        "negative_variance": den < 0,
        "zero_divisor": den == 0,
        "not_finite": ~np.all(np.isfinite(x_hat.astype(np.float64)), axis=-1),
    }
    status = np.full(mu.shape, "ok", dtype="<U18")
    for name in reversed(_CHECK_ORDER[method]):  # the earliest reason wins
        status[bad[name]] = name
    return status
