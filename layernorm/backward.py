"""Backward passes of LayerNorm, RMSNorm and BatchNorm (training mode), in float64.

Each function takes the forward input ``x``, the scale ``gamma``, ``eps`` and the
upstream gradient ``dy = dL/dy`` and returns the gradients of the loss with
respect to the input and the parameters. Forward statistics are recomputed with
the same float64, two-pass code as the forward functions in :mod:`layernorm.core`.

With ``x_hat`` the normalized input, ``g = dy * gamma`` and ``<.>`` the mean over
the normalized values (d features for LayerNorm/RMSNorm, the n samples of a
channel for BatchNorm)::

    LayerNorm   dx = (g - <g> - x_hat * <g * x_hat>) / sqrt(var + eps)
    RMSNorm     dx = (g        - x_hat * <g * x_hat>) / sqrt(<x^2> + eps)
    BatchNorm   dx = (g - <g> - x_hat * <g * x_hat>) / sqrt(var + eps)   (<.> over the batch)

The two subtracted terms are why LayerNorm's ``dx`` sums to 0 over the features
and is orthogonal to ``x_hat``: a normalized layer cannot be pushed to change its
own mean or scale. ``tests/test_backward.py`` checks all three against central
finite differences (relative error below 1e-6 in float64).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from layernorm._checks import CHANNEL_AXIS, F64, as_float64, check_eps, check_param, finite_results
from layernorm.batch import channel_rows, channel_shape, from_channel_rows, values_per_channel
from layernorm.core import DEFAULT_EPS
from layernorm.exact import as_exact, center_rows, check_divisor, spread_rows
from layernorm.steps import LayerNormSteps, layer_norm_steps_unchecked


def upstream(dy: ArrayLike, shape: tuple[int, ...]) -> F64:
    """The upstream gradient ``dy = ∂L/∂y`` as float64 of ``shape`` (the forward input's, units of L
    per unit of y); ValueError when its shape differs or it holds NaN or infinity."""
    g = as_float64(dy, "dy")
    if g.shape != shape:
        raise ValueError(f"dy has shape {g.shape}, expected {shape} to match x")
    if not np.all(np.isfinite(g)):
        raise ValueError("dy contains NaN or infinity; gradients need finite numbers")
    return g


def _feature_rows(x: ArrayLike, name: str) -> tuple[F64, tuple[int, ...]]:
    x64 = as_float64(x)
    if x64.ndim == 0 or x64.shape[-1] == 0:
        raise ValueError(f"{name} needs x of shape (..., d) with d >= 1, got shape {x64.shape}")
    if not np.all(np.isfinite(x64)):
        raise ValueError("x contains NaN or infinity; normalization needs finite numbers")
    return x64.reshape(-1, x64.shape[-1]), x64.shape


def _input_grad(g: F64, x_hat: F64, std: F64, *, centre: bool) -> F64:
    """``(g - <g> - x_hat <g x_hat>) / std`` with the means over axis 1 of (n, d) rows."""
    d = g.shape[1]
    proj = np.add.reduce(g * x_hat, axis=1, keepdims=True) / d  # np.mean's bits, without its wrapper
    inner = g - x_hat * proj
    if centre:
        inner -= np.add.reduce(g, axis=1, keepdims=True) / d
    with np.errstate(over="ignore"):  # a true gradient beyond float64's range is ±inf, as documented
        dx: F64 = np.divide(inner, std, out=inner)
    return dx


@finite_results("dx", "dgamma", "dbeta")
def layer_norm_backward(
    x: ArrayLike, gamma: ArrayLike | None, dy: ArrayLike, *, eps: float = DEFAULT_EPS
) -> tuple[F64, F64, F64]:
    """Gradients of LayerNorm over the last axis: ``(dx, dgamma, dbeta)``.

    Parameters
    ----------
    x : (..., d) array_like
        The forward input; each row of ``d`` features is normalized on its own.
    gamma : (d,) array_like or None
        The scale used in the forward pass (None: ones).
    dy : (..., d) array_like
        Upstream gradient ``dL/dy``, same shape as ``x``.
    eps : float, default 1e-5
        Inside the square root, as in the forward pass.

    Returns
    -------
    dx : (..., d) ndarray of float64
        ``dL/dx``; each row sums to 0 (to rounding).
    dgamma : (d,) ndarray of float64
        ``sum over rows of dy * x_hat``.
    dbeta : (d,) ndarray of float64
        ``sum over rows of dy``.

    Raises
    ------
    ValueError
        Shapes that do not match, NaN/inf, ``eps`` negative.
    ZeroVarianceError
        A constant row with ``eps == 0`` (the forward pass is 0/0 there).
    ResultRangeError
        An entry of ``dx`` beyond float64's range (about 1.8e308), where IEEE rounding and PyTorch
        give ±inf. With ``eps == 0`` that happens once a row's spread falls below about 1e-308,
        where its deviations from the mean are subnormal numbers with few digits left.

    Notes
    -----
    ``dx = (g - mean(g) - x_hat * mean(g * x_hat)) / sqrt(var + eps)`` with
    ``g = dy * gamma``. Source: Ba, Kiros & Hinton (2016), "Layer Normalization",
    arXiv:1607.06450; the same algebra as Ioffe & Szegedy (2015) with the mean
    taken over features instead of the batch.
    """
    x64 = as_exact(x)  # 64-bit integers stay integers: their mean is exact
    if x64.ndim == 0:
        raise ValueError(f"layer_norm_backward needs x of shape (..., d), got shape {x64.shape}")
    return layer_norm_backward_from_steps(layer_norm_steps_unchecked(x64, gamma, eps=eps), dy)


def layer_norm_backward_from_steps(steps: LayerNormSteps, dy: ArrayLike) -> tuple[F64, F64, F64]:
    """:func:`layer_norm_backward` reusing the forward pass's intermediates (no recomputation).

    Parameters
    ----------
    steps : LayerNormSteps
        The result of :func:`layernorm.layer_norm_steps` over the last axis
        (``steps.x`` of shape ``(..., d)``, ``steps.gamma`` of shape ``(d,)``).
    dy : (..., d) array_like, same shape as ``steps.x``
        Upstream gradient ``dL/dy``.

    Returns
    -------
    dx, dgamma, dbeta
        As :func:`layer_norm_backward`.

    Raises
    ------
    ValueError
        ``dy`` of the wrong shape, not numeric or not finite; ``steps`` normalized
        over more than one axis.

    Notes
    -----
    Same formula as :func:`layer_norm_backward`. Source: Ba, Kiros & Hinton (2016),
    "Layer Normalization", arXiv:1607.06450; the BatchNorm algebra of Ioffe & Szegedy
    (2015) with the mean taken over features.
    """
    shape = steps.x.shape
    d = shape[-1]
    if steps.gamma.shape != (d,):
        raise ValueError(
            f"steps must come from a LayerNorm over the last axis only, gamma has {steps.gamma.shape}"
        )
    dy2 = upstream(dy, shape).reshape(-1, d)
    x_hat = steps.x_hat.reshape(-1, d)
    dx = _input_grad(dy2 * steps.gamma, x_hat, steps.std.reshape(-1, 1), centre=True)
    return dx.reshape(shape), np.sum(dy2 * x_hat, axis=0), np.sum(dy2, axis=0)


@finite_results()
def layer_norm_input_grad(x_hat: F64, std: F64, dy: F64) -> F64:
    """``dL/dx`` of a LayerNorm without ``gamma``/``beta``, from its forward's ``x_hat`` and divisor.

    Parameters
    ----------
    x_hat : (..., d) ndarray of float64
        The normalized rows (dimensionless), as :func:`layernorm.layer_norm_x_hat` returns them.
    std : (..., 1) ndarray of float64
        ``sqrt(var + eps)`` per row, in the units of ``x``, as :func:`layernorm.layer_norm_x_hat`
        returns it.
    dy : (..., d) ndarray of float64
        Upstream gradient ``dL/dx_hat`` (units of the loss), shaped like ``x_hat``.

    Returns
    -------
    dx : (..., d) ndarray of float64
        ``(dy - mean(dy) - x_hat * mean(dy * x_hat)) / std`` (loss units per unit of ``x``), each
        row summing to 0 (to rounding): bit for bit ``layer_norm_backward_from_steps(steps, dy)[0]`` for
        ``steps = layer_norm_steps_unchecked(x, eps=eps)`` with the default ``gamma`` of ones.
        An entry beyond float64's range (about 1.8e308) is ±inf, as IEEE rounding and PyTorch give it;
        with eps = 0 that happens once a row's spread falls below about 1e-308.

    Raises
    ------
    ValueError
        Shapes that do not match. ``dy`` is not checked for NaN or infinity (a training
        loop checks its loss instead); a non-finite ``dy`` gives a non-finite ``dx``.

    Notes
    -----
    For a training loop: no ``dgamma``/``dbeta`` and no copy of ``dy``, where
    :func:`layer_norm_backward_from_steps` returns both. PyTorch's
    ``torch.native_layer_norm_backward`` likewise takes the forward's saved row statistics.
    Source: Ba, Kiros & Hinton (2016), "Layer Normalization", arXiv:1607.06450.
    """
    if x_hat.shape != dy.shape or std.shape != (*x_hat.shape[:-1], 1):
        raise ValueError(
            f"x_hat {x_hat.shape}, std {std.shape} and dy {dy.shape} do not match: "
            "expected (..., d), (..., 1) and (..., d)"
        )
    d = x_hat.shape[-1]
    dx = _input_grad(dy.reshape(-1, d), x_hat.reshape(-1, d), std.reshape(-1, 1), centre=True)
    return dx.reshape(x_hat.shape)


@finite_results("dx", "dgamma")
def rms_norm_backward(
    x: ArrayLike, gamma: ArrayLike | None, dy: ArrayLike, *, eps: float = DEFAULT_EPS
) -> tuple[F64, F64]:
    """Gradients of RMSNorm over the last axis: ``(dx, dgamma)`` (RMSNorm has no beta).

    Parameters
    ----------
    x : (..., d) array_like
    gamma : (d,) array_like or None
        Scale (None: ones).
    dy : (..., d) array_like
        Upstream gradient, same shape as ``x``.
    eps : float, default 1e-5
        Inside the square root: ``rms = sqrt(mean(x**2) + eps)``. (The forward
        :func:`layernorm.rms_norm` defaults to machine epsilon; pass the same
        value to both.)

    Returns
    -------
    dx : (..., d) ndarray of float64
        Orthogonal to ``x`` in each row when ``eps == 0``. An entry beyond float64's range (about
        1.8e308) is ±inf, as IEEE rounding and PyTorch give it; with eps = 0 that happens once a
        row's size falls below about 1e-308.
    dgamma : (d,) ndarray of float64

    Raises
    ------
    ValueError
        Shapes that do not match, NaN/inf, ``eps`` negative.
    ZeroVarianceError
        An all-zero row with ``eps == 0``.

    Notes
    -----
    ``dx = (g - x_hat * mean(g * x_hat)) / rms`` with ``x_hat = x / rms`` and
    ``g = dy * gamma``: LayerNorm's formula without the mean term. Source:
    Zhang & Sennrich (2019), "Root Mean Square Layer Normalization", NeurIPS.
    """
    eps = check_eps(eps)
    x2, shape = _feature_rows(x, "rms_norm_backward")
    d = shape[-1]
    gam = check_param(gamma, "gamma", (d,), "x.shape[-1]", 1.0)
    dy2 = upstream(dy, shape).reshape(-1, d)
    _, rms = spread_rows(x2, eps)  # root of the mean of squares, (n, 1)
    check_divisor(rms)
    x_hat = x2 / rms
    dx = _input_grad(dy2 * gam, x_hat, rms, centre=False)
    return dx.reshape(shape), np.sum(dy2 * x_hat, axis=0)


@finite_results("dx", "dgamma", "dbeta")
def batch_norm_backward(
    x: ArrayLike, gamma: ArrayLike | None, dy: ArrayLike, *, eps: float = DEFAULT_EPS
) -> tuple[F64, F64, F64]:
    """Gradients of BatchNorm in training mode: ``(dx, dgamma, dbeta)``.

    Parameters
    ----------
    x : (N, C) or (N, C, L, ...) array_like
        The forward batch; channels on axis 1, statistics over every other axis.
    gamma : (C,) array_like or None
        Per-channel scale (None: ones).
    dy : array_like, same shape as ``x``
        Upstream gradient.
    eps : float, default 1e-5

    Returns
    -------
    dx : ndarray of float64, same shape as ``x``
        Sums to 0 over the batch for every channel: the batch statistics couple
        every sample's gradient to every other sample's. An entry beyond float64's range (about
        1.8e308) is ±inf, as IEEE rounding and PyTorch give it; with eps = 0 that happens once a
        channel's spread falls below about 1e-308.
    dgamma, dbeta : (C,) ndarray of float64

    Raises
    ------
    ValueError
        ``x`` not (N, C, ...), one value per channel, shapes that do not match, NaN/inf.

    Notes
    -----
    The running statistics do not depend on ``x`` through the loss, so they have
    no gradient. Source: Ioffe & Szegedy (2015), "Batch Normalization", ICML,
    section 3 (the chain rule through the mini-batch mean and variance).
    """
    eps = check_eps(eps)
    x64 = as_exact(x)
    c, _ = channel_shape(x64)
    if not np.all(np.isfinite(x64)):
        raise ValueError("x contains NaN or infinity; normalization needs finite numbers")
    values_per_channel(x64, c)
    gam = check_param(gamma, "gamma", (c,), CHANNEL_AXIS, 1.0)
    dy_rows = channel_rows(upstream(dy, x64.shape))  # (C, n)
    _, centered = center_rows(channel_rows(x64))
    _, std = spread_rows(centered, eps)  # biased variance, (C, 1)
    check_divisor(std)
    x_hat = centered / std
    dx_rows = _input_grad(dy_rows * gam[:, None], x_hat, std, centre=True)
    dx = from_channel_rows(dx_rows, x64.shape)
    return dx, np.sum(dy_rows * x_hat, axis=1), np.sum(dy_rows, axis=1)
