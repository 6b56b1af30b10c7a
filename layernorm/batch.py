"""Batch Normalization, functional: statistics per channel across the batch.

``x`` is ``(N, C)`` or ``(N, C, L)`` (any trailing spatial axes work): channels
on axis 1, as in PyTorch's ``BatchNorm1d/2d/3d``. Each channel gets one mean and
one variance over every other axis (``n = N * L`` values).

Training (:func:`batch_norm_train`) normalizes with the batch's own *biased*
variance and returns updated running statistics; inference
(:func:`batch_norm_eval`) normalizes with the running statistics. There is no
hidden mode flag: the two are separate functions.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from layernorm._checks import CHANNEL_AXIS, F64, check_affine, check_eps, check_param, finite_results
from layernorm.core import DEFAULT_EPS
from layernorm.exact import as_exact, center_rows, check_divisor, spread_rows, subtract

DEFAULT_MOMENTUM = 0.1


def channel_shape(x64: NDArray[Any]) -> tuple[int, tuple[int, ...]]:
    """Return ``(C, broadcast shape (1, C, 1, ...))`` of ``x64`` (N, C, ...); shared with
    ``backward.batch_norm_backward``, which checks its input the same way (this project).

    Raises ValueError when ``x64`` has fewer than 2 dimensions (PyTorch's BatchNorm input is (N, C, ...)).
    """
    if x64.ndim < 2:
        raise ValueError(f"BatchNorm expects x of shape (N, C) or (N, C, L), got shape {x64.shape}")
    c = x64.shape[1]
    return c, (1, c) + (1,) * (x64.ndim - 2)


def values_per_channel(x64: NDArray[Any], c: int) -> int:
    """``n = N * L``, how many values of ``x64`` (N, C, L...) each of the ``c`` channels' batch
    statistics are taken over (a count, no unit; this project, PyTorch's rule).

    ValueError, with PyTorch's message, unless ``n > 1``: training needs a spread, and the unbiased
    variance divides by ``n - 1``.
    """
    n = x64.size // c if c else 0
    if n <= 1:
        raise ValueError(
            f"Expected more than 1 value per channel when training, got input of shape {x64.shape}"
        )
    return n


def channel_rows(a: NDArray[Any]) -> NDArray[Any]:
    """``a`` of shape (N, C, ...) as rows (C, n): each channel's values from every sample and position."""
    return np.moveaxis(a, 1, 0).reshape(a.shape[1], -1)


def from_channel_rows(rows: F64, shape: tuple[int, ...]) -> F64:
    """Rows (C, n) back to ``shape`` (N, C, ...): the inverse of :func:`channel_rows`."""
    return np.moveaxis(rows.reshape((shape[1], shape[0], *shape[2:])), 0, 1)


def _channel_params(
    c: int, gamma: ArrayLike | None, beta: ArrayLike | None, running_mean: ArrayLike, running_var: ArrayLike
) -> tuple[F64, F64, F64, F64]:
    """``gamma``, ``beta`` and the running mean and variance as float64 of shape ``(C,)``.

    ``None`` gives PyTorch's starting values: ones, zeros, zeros and ones.
    """
    g, b = check_affine(gamma, beta, (c,), CHANNEL_AXIS)
    rm = check_param(running_mean, "running_mean", (c,), CHANNEL_AXIS, 0.0)
    rv = check_param(running_var, "running_var", (c,), CHANNEL_AXIS, 1.0)
    return g, b, rm, rv


@finite_results("y", "new_running_mean", "new_running_var")
def batch_norm_train(
    x: ArrayLike,
    gamma: ArrayLike | None,
    beta: ArrayLike | None,
    running_mean: ArrayLike,
    running_var: ArrayLike,
    *,
    momentum: float = DEFAULT_MOMENTUM,
    eps: float = DEFAULT_EPS,
) -> tuple[F64, F64, F64]:
    """BatchNorm in training mode: normalize with the batch's statistics.

    Parameters
    ----------
    x : (N, C) or (N, C, L) array_like
        A batch; channels on axis 1.
    gamma, beta : (C,) array_like or None
        Per-channel scale and shift (None: ones and zeros).
    running_mean, running_var : (C,) array_like
        The running statistics before this batch.
    momentum : float in [0, 1], default 0.1
        PyTorch convention: ``new = (1 - momentum) * old + momentum * batch``.
        (Keras' momentum is ``1 - momentum``: PyTorch 0.1 = Keras 0.9.)
    eps : float, default 1e-5
        Inside the square root.

    Returns
    -------
    y : ndarray of float64, same shape as ``x``
    new_running_mean : (C,) ndarray of float64
    new_running_var : (C,) ndarray of float64
        Updated with the *unbiased* batch variance (divide by ``n - 1``), while
        ``y`` uses the *biased* one (divide by ``n``), as PyTorch does.

    Raises
    ------
    ValueError
        Shape mismatches, bad ``momentum``/``eps``, NaN/inf, or only one value
        per channel (``n = 1``: the unbiased variance is 0/0), with PyTorch's
        message "Expected more than 1 value per channel when training".

    Notes
    -----
    Source: Ioffe & Szegedy (2015), Algorithm 1; PyTorch ``torch.nn.BatchNorm1d``
    (``training=True``).
    """
    eps = check_eps(eps)
    m = float(momentum)
    if not 0.0 <= m <= 1.0:
        raise ValueError(f"momentum must be between 0 and 1 (PyTorch convention), got {momentum!r}")
    x64 = as_exact(x)  # float64, or 64-bit integers kept as such: their batch mean is exact
    c, bshape = channel_shape(x64)
    n = values_per_channel(x64, c)
    g, b, rm, rv = _channel_params(c, gamma, beta, running_mean, running_var)
    mu, centered = center_rows(channel_rows(x64))  # (C, 1), (C, n)
    var, std = spread_rows(centered, eps)  # biased, (C, 1)
    check_divisor(std)
    x_hat = from_channel_rows(centered / std, x64.shape)
    y = g.reshape(bshape) * x_hat + b.reshape(bshape)
    var_unbiased = var[:, 0] * (n / (n - 1))
    new_running_mean = (1 - m) * rm + m * mu[:, 0]
    new_running_var = (1 - m) * rv + m * var_unbiased
    return y, new_running_mean, new_running_var


@finite_results()
def batch_norm_eval(
    x: ArrayLike,
    gamma: ArrayLike | None,
    beta: ArrayLike | None,
    running_mean: ArrayLike,
    running_var: ArrayLike,
    *,
    eps: float = DEFAULT_EPS,
) -> F64:
    """BatchNorm in inference mode: ``gamma * (x - running_mean) / sqrt(running_var + eps) + beta``.

    Parameters
    ----------
    x : (N, C) or (N, C, L) array_like
        Any batch size, including 1; channels on axis 1.
    gamma, beta : (C,) array_like or None
    running_mean : (C,) array_like
    running_var : (C,) array_like, >= 0
    eps : float, default 1e-5

    Returns
    -------
    y : ndarray of float64, same shape as ``x``
        Each sample is normalized on its own: the batch does not matter.

    Raises
    ------
    ValueError
        Shape mismatches, a negative running variance, NaN/inf, bad ``eps``.
    ZeroVarianceError
        ``running_var + eps`` is 0 for some channel.

    Notes
    -----
    Source: Ioffe & Szegedy (2015), Algorithm 2; PyTorch ``BatchNorm1d`` in
    ``eval()`` mode.
    """
    eps = check_eps(eps)
    x64 = as_exact(x)
    c, bshape = channel_shape(x64)
    if not np.all(np.isfinite(x64)):
        raise ValueError("x contains NaN or infinity; normalization needs finite numbers")
    g, b, rm, rv = _channel_params(c, gamma, beta, running_mean, running_var)
    if np.any(rv < 0):
        raise ValueError("running_var must be >= 0")
    std = np.sqrt(rv + eps)
    check_divisor(std)
    x_hat = subtract(x64, rm.reshape(bshape)) / std.reshape(bshape)
    return g.reshape(bshape) * x_hat + b.reshape(bshape)
