"""LayerNorm as the formula reads, one step per line: the code the pages show.

    y = γ ⊙ (x − μ) / √(σ² + ε) + β, over the last axis (the d features of one token)

Plain float64 NumPy, written to be read. The numbers on screen come from the tested core
(``layernorm.core``), which computes the same steps with exactly rounded sums, so that they stay right
where these lines lose digits: ``1e8 + [0.1, 0.2, 0.3]`` (a mean a billion times the spread) gives
x̂₁ = −1.22474496 here and −1.22474490 in the core; ``[1e200, −1e200, 0]`` gives 0 here (the squares
overflow) and ±1.22474487 in the core.
``tests/test_formula.py`` checks that both give the same numbers on the reference cases and on
generated vectors.

Shapes: ``x`` is ``(..., d)``, one token per row; ``gamma`` and ``beta`` are ``(d,)``. ``mean`` and
``variance`` keep the last axis (``(..., 1)``), the others return ``(..., d)``; the backward pass
returns ∂L/∂x ``(..., d)`` and ∂L/∂γ, ∂L/∂β ``(d,)`` summed over the tokens. Units: μ and x − μ in
x's units, σ² and ε in x's units squared, x̂ none, y in β's units (γ carries them). Errors: none
raised; a row whose variance and ε are both 0 gives NaN (0/0), which the core refuses instead.
Source: Ba, Kiros & Hinton (2016), eqs. 3-5; the layout follows llm.c's ``doc/layernorm``.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from layernorm._checks import F64


def mean(x: ArrayLike) -> F64:
    """μ = (1/d) Σᵢ xᵢ"""
    x = np.asarray(x, dtype=np.float64)
    d = x.shape[-1]
    mu: F64 = x.sum(axis=-1, keepdims=True) / d
    return mu


def variance(x: ArrayLike) -> F64:
    """σ² = (1/d) Σᵢ (xᵢ − μ)², the population variance (÷d, as LayerNorm uses it)"""
    x = np.asarray(x, dtype=np.float64)
    d = x.shape[-1]
    centered = x - mean(x)  # x − μ
    var: F64 = (centered**2).sum(axis=-1, keepdims=True) / d
    return var


def standardize(x: ArrayLike, eps: float = 1e-5) -> F64:
    """x̂ = (x − μ) / √(σ² + ε)"""
    x = np.asarray(x, dtype=np.float64)
    centered = x - mean(x)  # x − μ
    rstd = 1.0 / np.sqrt(variance(x) + eps)  # 1 / √(σ² + ε)
    x_hat: F64 = centered * rstd  # x̂
    return x_hat


def layer_norm(
    x: ArrayLike, gamma: ArrayLike, beta: ArrayLike, eps: float = 1e-5
) -> F64:
    """y = γ ⊙ (x − μ) / √(σ² + ε) + β"""
    x = np.asarray(x, dtype=np.float64)
    d = x.shape[-1]
    mu = x.sum(axis=-1, keepdims=True) / d  # μ = (1/d) Σ xᵢ
    centered = x - mu  # x − μ
    var = (centered**2).sum(axis=-1, keepdims=True) / d  # σ² = (1/d) Σ (xᵢ − μ)²
    rstd = 1.0 / np.sqrt(var + eps)  # 1 / √(σ² + ε)
    x_hat = centered * rstd  # x̂ = (x − μ) / √(σ² + ε)
    y: F64 = np.asarray(gamma) * x_hat + np.asarray(beta)  # y = γ ⊙ x̂ + β
    return y


def layer_norm_backward(
    dy: ArrayLike, x: ArrayLike, gamma: ArrayLike, eps: float = 1e-5
) -> tuple[F64, F64, F64]:
    """∂L/∂x, ∂L/∂γ, ∂L/∂β from ∂L/∂y (each row of x is a token)"""
    x = np.asarray(x, dtype=np.float64)
    dy = np.asarray(dy, dtype=np.float64)
    d = x.shape[-1]
    rstd = 1.0 / np.sqrt(variance(x) + eps)  # 1 / √(σ² + ε), as in the forward pass
    x_hat = (x - mean(x)) * rstd  # x̂, as in the forward pass
    dbeta: F64 = dy.reshape(-1, d).sum(axis=0)  # ∂L/∂β = Σₜ ∂L/∂y
    dgamma: F64 = (dy * x_hat).reshape(-1, d).sum(axis=0)  # ∂L/∂γ = Σₜ ∂L/∂y ⊙ x̂
    g = dy * np.asarray(gamma)  # ∂L/∂x̂ = ∂L/∂y ⊙ γ
    mean_g = g.mean(axis=-1, keepdims=True)  # mean(g)
    mean_gx = (g * x_hat).mean(axis=-1, keepdims=True)  # mean(g ⊙ x̂)
    # ∂L/∂x = (g − mean(g) − x̂ · mean(g ⊙ x̂)) / √(σ² + ε)
    dx: F64 = (g - mean_g - x_hat * mean_gx) * rstd
    return dx, dgamma, dbeta
