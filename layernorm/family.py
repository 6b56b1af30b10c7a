"""Relatives of LayerNorm that differ only in *which* values share a statistic.

For ``x`` of shape ``(N, C, ...)``:

- :func:`group_norm` splits the ``C`` channels into groups and normalizes each
  sample's group (one group = LayerNorm over ``(C, ...)``; one channel per
  group = InstanceNorm);
- :func:`instance_norm` normalizes each sample's channel over its positions;
- :func:`rms_norm` divides by the root mean square and does not centre.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from layernorm._checks import CHANNEL_AXIS, F64, check_affine, check_eps, check_param, finite_results
from layernorm.core import DEFAULT_EPS, layer_norm
from layernorm.exact import Axis, as_exact, check_divisor, feature_rows, spread_rows


def _check_nc(x64: NDArray[Any], what: str) -> None:
    if x64.ndim < 2:
        raise ValueError(f"{what} expects x of shape (N, C, ...), got shape {x64.shape}")


@finite_results()
def group_norm(
    x: ArrayLike,
    num_groups: int,
    gamma: ArrayLike | None = None,
    beta: ArrayLike | None = None,
    *,
    eps: float = DEFAULT_EPS,
) -> F64:
    """Group Normalization: LayerNorm over each sample's group of channels.

    Parameters
    ----------
    x : (N, C, ...) array_like
    num_groups : int
        Must divide ``C``.
    gamma, beta : (C,) array_like, optional
        Per-channel scale and shift (ones and zeros by default).
    eps : float, default 1e-5

    Returns
    -------
    y : ndarray of float64, same shape as ``x``

    Raises
    ------
    ValueError
        ``num_groups`` < 1 or not dividing ``C``; shapes; NaN/inf; ``eps`` < 0.
    ZeroVarianceError
        A constant group with ``eps == 0``.

    Notes
    -----
    Source: Wu & He (2018); PyTorch ``torch.nn.functional.group_norm``.
    """
    x64 = as_exact(x)  # 64-bit integers stay integers: layer_norm averages them exactly
    _check_nc(x64, "GroupNorm")
    n, c = x64.shape[:2]
    g_count = int(num_groups)
    if g_count < 1 or c % g_count:
        raise ValueError(
            f"num_groups={num_groups} must be a whole divisor of the {c} channels "
            f"(divisors: {[k for k in range(1, c + 1) if c % k == 0]})"
        )
    per_group = c // g_count * math.prod(x64.shape[2:])  # C/G * L values (also when N = 0)
    grouped = x64.reshape(n, g_count, per_group)
    x_hat = layer_norm(grouped, eps=eps).reshape(x64.shape)
    bshape = (1, c) + (1,) * (x64.ndim - 2)
    g, b = check_affine(gamma, beta, (c,), CHANNEL_AXIS)
    return g.reshape(bshape) * x_hat + b.reshape(bshape)


@finite_results()
def instance_norm(x: ArrayLike, *, eps: float = DEFAULT_EPS) -> F64:
    """Instance Normalization: each sample's channel over its own positions, no affine.

    Parameters
    ----------
    x : (N, C, L, ...) array_like
        At least one position axis after the channels.
    eps : float, default 1e-5

    Returns
    -------
    y : ndarray of float64, same shape as ``x``

    Raises
    ------
    ValueError
        ``x`` with fewer than 3 axes; NaN/inf; ``eps`` < 0.
    ZeroVarianceError
        A constant channel with ``eps == 0``.

    Notes
    -----
    Source: Ulyanov, Vedaldi & Lempitsky (2016); PyTorch
    ``torch.nn.functional.instance_norm`` without running statistics.
    """
    x64 = as_exact(x)
    if x64.ndim < 3:
        raise ValueError(f"InstanceNorm expects x of shape (N, C, L, ...), got shape {x64.shape}")
    return layer_norm(x64, eps=eps, axis=tuple(range(2, x64.ndim)))


@finite_results()
def rms_norm(
    x: ArrayLike,
    gamma: ArrayLike | None = None,
    *,
    eps: float | None = None,
    axis: Axis = -1,
) -> F64:
    """RMSNorm: ``gamma * x / sqrt(mean(x**2) + eps)``, no centring and no shift.

    Parameters
    ----------
    x : (..., d) array_like
    gamma : array_like shaped like the normalized axes, optional (ones)
    eps : float, optional
        Inside the square root. ``None`` uses the machine epsilon of the type PyTorch
        2.13's ``nn.RMSNorm`` computes in: float64's (2.2e-16) for float64 input,
        float32's (1.19e-7) for any other (float16, bfloat16, float32, integers), not the
        input dtype's own (bfloat16's 2**-7 would halve small outputs; see
        :func:`layernorm.default_rms_eps`). Hugging Face LLaMA/T5 use 1e-6.
    axis : int or tuple of int, default -1
        Trailing axes to normalize over.

    Returns
    -------
    y : ndarray of float64, same shape as ``x``

    Raises
    ------
    ValueError
        Bad ``x``/``axis``/``gamma``, ``eps`` < 0.
    ZeroVarianceError
        An all-zero row with ``eps == 0``.

    Notes
    -----
    Equals LayerNorm (without beta) on rows whose mean is already 0.
    Source: Zhang & Sennrich (2019); PyTorch ``torch.nn.functional.rms_norm``.
    """
    arr = np.asarray(x)
    if eps is None:
        eps = float(np.finfo(np.float64 if arr.dtype == np.float64 else np.float32).eps)
    eps = check_eps(eps)
    x2, _batch_shape, axes = feature_rows(arr, axis, trailing=True)
    shape = arr.shape
    norm_shape = shape[axes[0] :]
    g = check_param(gamma, "gamma", norm_shape, f"x.shape[{axes[0] - arr.ndim}:]", 1.0)
    if not np.all(np.isfinite(x2)):
        raise ValueError("x contains NaN or infinity; normalization needs finite numbers")
    _, rms = spread_rows(x2, eps)  # mean of squares, not of squared deviations
    check_divisor(rms)
    return g * (x2 / rms).reshape(shape)
