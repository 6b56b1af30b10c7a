"""Every intermediate of LayerNorm, as the pages show them: :func:`layer_norm_steps` returns one frozen
:class:`LayerNormSteps` holding x, μ, x − μ, σ², √(σ² + ε), x̂, γ, β and y, computed as
:func:`layernorm.core.layer_norm` computes them (the same operations, so the same bits).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from layernorm._checks import F64, as_float64, check_eps, finite_results
from layernorm.core import DEFAULT_EPS
from layernorm.exact import VAR_TINY, Axis, center_rows, check_divisor, prepare_layer_norm, spread_rows


@dataclass(frozen=True)
class LayerNormSteps:
    """Every intermediate of one LayerNorm call (arrays are read-only).

    Attributes
    ----------
    x : (..., d) ndarray of float64
        The input as float64.
    mu : (...) ndarray
        Mean of each row.
    centered : (..., d) ndarray
        ``x - mu``.
    var : (...) ndarray
        Population variance (divide by d), units of ``x`` squared.
    sigma : (...) ndarray
        Population standard deviation ``sqrt(var)``, without eps.
    std : (...) ndarray
        ``sqrt(var + eps)``, the divisor.
    x_hat : (..., d) ndarray
        ``centered / std``.
    gamma, beta : ndarray shaped like the normalized axes
    y : (..., d) ndarray
        ``gamma * x_hat + beta``.
    eps : float
        The eps used, units of ``x`` squared.
    d : int
        Number of values each statistic averages over.

    Notes
    -----
    Source: Ba, Kiros & Hinton (2016), eqs. 4-5; PyTorch ``torch.nn.functional.layer_norm``.
    """

    x: F64
    mu: F64
    centered: F64
    var: F64
    sigma: F64
    std: F64
    x_hat: F64
    gamma: F64
    beta: F64
    y: F64
    eps: float
    d: int

    @property
    def squared_deviations(self) -> F64:
        """``(x - mu)**2`` per feature; their mean over the row is ``var``."""
        return np.square(self.centered)

    def x_hat_var_at(self, eps: ArrayLike) -> F64:
        """``var / (var + eps)`` for other values of eps (any shape), this row's variance kept.

        Used to draw how x_hat's variance falls as eps grows; equals
        ``layer_norm_steps(x, eps=e).x_hat_var_expected`` for each ``e``.
        """
        e = as_float64(eps, "eps")
        if np.any(e < 0):
            raise ValueError("eps must be >= 0")
        with np.errstate(invalid="ignore"):
            ratio = np.square(self.sigma) / (np.square(self.sigma) + e)
        return np.where(self.sigma == 0, 0.0, ratio)

    @property
    def x_hat_var_expected(self) -> F64:
        """``var / (var + eps)``: the variance x_hat has in exact arithmetic (< 1 when eps > 0).

        Computed as ``(sigma / std)**2``, which stays right when ``var`` itself underflows.
        """
        return np.square(self.sigma / self.std)


@finite_results()
def layer_norm_steps(
    x: ArrayLike,
    gamma: ArrayLike | None = None,
    beta: ArrayLike | None = None,
    *,
    eps: float = DEFAULT_EPS,
    axis: Axis = -1,
) -> LayerNormSteps:
    """Run :func:`layer_norm` and keep every intermediate for display.

    Parameters
    ----------
    x : (..., d) array_like
        One token's features along the trailing axis (or axes); any dtype. An empty batch
        (a leading axis of length 0) gives empty results, as PyTorch does.
    gamma : array_like shaped like the normalized axes, optional
        Learned scale (PyTorch ``weight``), default ones.
    beta : array_like shaped like the normalized axes, optional
        Learned shift (PyTorch ``bias``), default zeros.
    eps : float, default 1e-5
        Added to the variance inside the square root (units of ``x`` squared).
    axis : int or tuple of int, default -1
        Trailing axes to normalize over, like PyTorch's ``normalized_shape``.

    Returns
    -------
    LayerNormSteps
        Frozen; ``mu``, ``var``, ``std`` have the batch shape ``x.shape[:-k]``
        (0-d for a single vector), the rest have ``x``'s shape.

    Raises
    ------
    ValueError
        As :func:`layer_norm`: ``x`` not numeric (text, complex), containing
        NaN/inf, a scalar, or with empty normalized axes; ``axis`` out of range,
        repeated or not trailing; ``gamma``/``beta`` of the wrong shape or not
        finite; ``eps`` negative or not finite.
    ZeroVarianceError
        A row is constant and ``eps == 0`` (0/0).

    Notes
    -----
    Source: Ba, Kiros & Hinton (2016); PyTorch ``torch.nn.functional.layer_norm``.
    """
    eps = check_eps(eps)
    x2, full_shape, g, b = prepare_layer_norm(x, gamma, beta, axis)
    batch_shape = full_shape[: len(full_shape) - g.ndim]
    mu, centered = center_rows(x2)  # (n, 1), (n, d)
    var, std = spread_rows(centered, eps)  # (n, 1), (n, 1)
    check_divisor(std)
    sigma = np.sqrt(var)  # without eps; rows whose var left float64's range are redone exactly
    odd = np.flatnonzero(~(var[:, 0] < np.inf) | (var[:, 0] < VAR_TINY))
    if odd.size:
        sigma[odd] = spread_rows(centered[odd], 0.0)[1]
    x_hat = (centered / std).reshape(full_shape)
    fields = {
        "x": x2.astype(np.float64, copy=False).reshape(full_shape),
        "mu": mu.reshape(batch_shape),
        "centered": centered.reshape(full_shape),
        "var": var.reshape(batch_shape),
        "sigma": sigma.reshape(batch_shape),
        "std": std.reshape(batch_shape),
        "x_hat": x_hat,
        "gamma": g,
        "beta": b,
        "y": g * x_hat + b,
    }
    # Copy what may still alias the caller's arrays (the rest is new), then lock: a snapshot, not a view.
    frozen = {k: np.array(v, copy=True) if k in ("x", "gamma", "beta") else v for k, v in fields.items()}
    for arr in frozen.values():
        arr.flags.writeable = False
    return LayerNormSteps(**frozen, eps=eps, d=x2.shape[1])


# The steps without the range check on their own fields, for callers that check their own
# results (a backward pass needs sigma and x_hat, which fit, where var may not).
layer_norm_steps_unchecked: Callable[..., LayerNormSteps] = layer_norm_steps.__wrapped__  # type: ignore[attr-defined]


@finite_results("x_hat", "std")
def layer_norm_x_hat(x: F64, *, eps: float = DEFAULT_EPS) -> tuple[F64, F64]:
    """LayerNorm's forward for a training loop: ``x_hat`` and the divisor of each row.

    Parameters
    ----------
    x : (..., d) ndarray of float64
        Rows of ``d`` features in any one unit, normalized over the last axis (no learned
        ``gamma``/``beta``). No rows (an empty batch) gives empty results.
    eps : float, default 1e-5
        Added to the variance inside the square root (units of ``x`` squared).

    Returns
    -------
    x_hat : (..., d) ndarray of float64
        ``(x - mu) / sqrt(var + eps)``, dimensionless: bit for bit
        ``layer_norm_steps(x, eps=eps).x_hat``.
    std : (..., 1) ndarray of float64
        ``sqrt(var + eps)`` per row, in the units of ``x``, with a trailing axis of 1 so that it
        broadcasts against ``x_hat`` (what :func:`layernorm.backward.layer_norm_input_grad` needs).

    Raises
    ------
    ValueError
        ``x`` not a float64 array of at least one axis, ``d = 0``, NaN or infinity in ``x``,
        ``eps`` negative or not finite.
    ZeroVarianceError
        A row is constant and ``eps == 0`` (0/0).

    Notes
    -----
    The operations of :func:`layer_norm_steps` (faithfully rounded mean, two-pass variance),
    without what only a display needs: no copy of ``x``, no ``sigma``, no ``gamma * x_hat + beta``,
    no read-only snapshot. A training step calls it once per layer, where those cost as much as
    the statistics. PyTorch's ``torch.native_layer_norm`` likewise returns the output with the row
    statistics its backward reuses. Source: Ba, Kiros & Hinton (2016), eqs. 4-5.
    """
    eps = check_eps(eps)
    if not isinstance(x, np.ndarray) or x.dtype != np.float64 or x.ndim == 0:
        raise ValueError("layer_norm_x_hat needs a float64 array of shape (..., d)")
    d = x.shape[-1]
    if d == 0:
        raise ValueError("the normalized axes are empty (d = 0): there is nothing to average")
    _, centered = center_rows(x.reshape(-1, d))  # (n, d), a new array
    _, std = spread_rows(centered, eps)
    check_divisor(std)
    x_hat = np.divide(centered, std, out=centered)  # the same bits as centered / std
    return x_hat.reshape(x.shape), std.reshape(*x.shape[:-1], 1)
