"""Checking LayerNorm's backward pass the way a student would: nudge one entry both ways.

:func:`finite_difference_check` sets :func:`layernorm.layer_norm_backward`'s ``∂L/∂θᵢ`` beside
central finite differences of ``L = Σ dy ⊙ y`` for the step sizes ``h`` of :data:`CHECK_STEPS`
(the Gradients page's choices), every ``L`` a float64 forward pass.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from layernorm._checks import F64, as_float64, check_param, finite_results
from layernorm.backward import layer_norm_backward, upstream
from layernorm.core import DEFAULT_EPS, layer_norm

CHECKED = ("x", "gamma", "beta")  # what finite_difference_check can nudge


@dataclass(frozen=True)
class FiniteDifferenceCheck:
    """The backward pass's ``∂L/∂θᵢ`` beside central finite differences of ``L = Σ dy ⊙ y``.

    Attributes
    ----------
    parameter : {"x", "gamma", "beta"}
        What was nudged.
    index : int
        Which entry of it (0-based).
    steps : (k,) ndarray of float64
        The step sizes ``h``, in units of the nudged entry.
    numeric : (k,) ndarray of float64
        ``(L(θᵢ + h) − L(θᵢ − h)) / (2h)`` for each ``h``, every ``L`` a float64 forward pass; units
        of L per unit of θ.
    analytic : float
        :func:`layer_norm_backward`'s ``∂L/∂θᵢ``, in the same units.
    """

    parameter: str
    index: int
    steps: F64
    numeric: F64
    analytic: float

    @property
    def errors(self) -> F64:
        """``|numeric − analytic|`` for each step."""
        return np.abs(self.numeric - self.analytic)

    @property
    def best(self) -> int:
        """The position in ``steps`` of the smallest error (the first, when several tie)."""
        return int(np.argmin(self.errors))


# The steps h a gradient check offers: 1e-13 … 0.1, exact decimal steps, smallest first.
CHECK_STEPS: tuple[float, ...] = tuple(float(f"1e-{k}") for k in range(13, 0, -1))


@finite_results()
def finite_difference_check(
    x: ArrayLike,
    gamma: ArrayLike | None,
    beta: ArrayLike | None,
    dy: ArrayLike,
    *,
    eps: float = DEFAULT_EPS,
    parameter: str,
    index: int,
    steps: ArrayLike,
) -> FiniteDifferenceCheck:
    """Check one entry of LayerNorm's backward pass the way a student would: nudge it both ways.

    Parameters
    ----------
    x : (d,) array_like
        One vector.
    gamma, beta : (d,) array_like or scalar or None
        Scale and shift (None: ones and zeros).
    dy : (d,) array_like
        The upstream gradient; the loss is ``L = Σⱼ dyⱼ yⱼ``, so ``∂L/∂y = dy``.
    eps : float, default 1e-5
    parameter : {"x", "gamma", "beta"}
        The input or parameter whose entry is nudged.
    index : int
        The entry, ``0 <= index < d``.
    steps : (k,) array_like
        Step sizes ``h``, each positive and finite, in units of the nudged entry (x's for ``x``;
        the output's for ``gamma`` and ``beta``, since ``x_hat`` has none).

    Returns
    -------
    FiniteDifferenceCheck

    Raises
    ------
    ValueError
        ``x`` not one finite vector, shapes that do not match, ``parameter`` or ``index`` out of
        range, a step not positive and finite, ``eps`` negative.
    ZeroVarianceError
        ``x`` constant and ``eps == 0``.

    Notes
    -----
    The central difference's error has two parts: the curvature of ``L`` (about ``h²``; none when
    ``L`` is a straight line in the entry, as it is in ``γᵢ`` and ``βᵢ``) and rounding (about the
    float64 rounding of ``L`` divided by ``h``, which grows as ``h`` shrinks).
    Source: the central difference of any numerical analysis text; its use as a gradient check,
    e.g. CS231n's "Gradient checks".
    """
    x64 = as_float64(x)
    if x64.ndim != 1 or x64.size == 0:
        raise ValueError(f"finite_difference_check needs one vector x of shape (d,), got {x64.shape}")
    d = x64.size
    if parameter not in CHECKED:
        raise ValueError(f"parameter must be one of {CHECKED}, got {parameter!r}")
    if not 0 <= index < d:
        raise ValueError(f"index must be 0 … {d - 1}, got {index}")
    hs = as_float64(steps, "steps").reshape(-1)
    if hs.size == 0 or not np.all(np.isfinite(hs) & (hs > 0)):
        raise ValueError("steps must be positive finite numbers")
    values = {
        "x": x64,
        "gamma": check_param(gamma, "gamma", (d,), "d", 1.0),
        "beta": check_param(beta, "beta", (d,), "d", 0.0),
    }
    g = upstream(dy, (d,))
    dx, dgamma, dbeta = layer_norm_backward(x64, values["gamma"], g, eps=eps)
    analytic = {"x": dx, "gamma": dgamma, "beta": dbeta}[parameter][index]

    def loss(h: float) -> float:
        nudged = dict(values)
        nudged[parameter] = values[parameter].copy()
        nudged[parameter][index] += h
        return float(np.dot(g, layer_norm(nudged["x"], nudged["gamma"], nudged["beta"], eps=eps)))

    numeric = np.array([(loss(h) - loss(-h)) / (2 * h) for h in hs])
    return FiniteDifferenceCheck(parameter, index, hs, numeric, float(analytic))
