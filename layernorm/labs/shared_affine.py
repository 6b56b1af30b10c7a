"""One γ and one β for many tokens: what "undo the normalization" can and cannot give back.

For one vector, γ = σ and β = μ (its own spread and mean) turn LayerNorm's output back into
the vector. A LayerNorm layer has one γ and one β for every token, while each token has its own
μ and σ. Choosing the pair that undoes token ``k`` therefore gives every token token ``k``'s
mean and spread: token ``k`` comes back and the others do not. What survives for every token is
the *direction* of its centred vector ``x - μ``; what is lost is its own ``μ`` and ``σ``.

Letters: ``n`` tokens, ``d`` features per token.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from layernorm._checks import F64, as_float64, check_eps, finite_results
from layernorm.core import DEFAULT_EPS, layer_norm, mean, std


@dataclass(frozen=True)
class SharedUndo:
    """Every token of a batch through one LayerNorm whose γ, β undo token ``k``.

    Attributes
    ----------
    x : (n, d) ndarray
        The tokens, one per row.
    k : int
        The token whose statistics were chosen: ``gamma = sigma[k]``, ``beta = mu[k]``.
    gamma, beta : float
        The shared scale and shift, the same for every feature and every token.
    y : (n, d) ndarray
        ``gamma * x_hat + beta`` for each token.
    mu, sigma : (n,) ndarray
        Each token's mean and standard deviation over its features, before LayerNorm.
    mu_after, sigma_after : (n,) ndarray
        The same statistics of ``y``: ``beta`` and about ``gamma`` for every token
        (exactly ``gamma * sigma / sqrt(sigma**2 + eps)``).
    miss : (n,) ndarray
        ``max_i |y_i - x_i|`` per token: how far the output is from giving the token back.
    factor : (n,) ndarray
        ``gamma / sqrt(sigma**2 + eps)`` per token: ``y - beta`` is exactly ``factor * (x - mu)``,
        so each token keeps the direction of its centred vector and loses its own length and mean.

    Notes
    -----
    Source: this project; the formula is :func:`layernorm.layer_norm` with scalar γ, β.
    """

    x: F64
    k: int
    gamma: float
    beta: float
    y: F64
    mu: F64
    sigma: F64
    mu_after: F64
    sigma_after: F64
    miss: F64
    factor: F64


@finite_results()
def undo_for_token(tokens: ArrayLike, k: int, *, eps: float = DEFAULT_EPS) -> SharedUndo:
    """Normalize every token with the shared ``gamma = sigma_k``, ``beta = mu_k`` of token ``k``.

    Parameters
    ----------
    tokens : (n, d) array_like
        ``n >= 1`` tokens of ``d >= 1`` finite features each.
    k : int
        Which token to undo, ``0 <= k < n``.
    eps : float, default 1e-5
        LayerNorm's ε (``>= 0``).

    Returns
    -------
    SharedUndo

    Raises
    ------
    ValueError
        ``tokens`` not 2-D, empty or not finite; ``k`` out of range; bad ``eps``.
    layernorm.ResultRangeError
        A result beyond float64 (spreads near 1e308).
    layernorm.ZeroVarianceError
        ``eps = 0`` and a constant token (0/0).

    Notes
    -----
    Token ``k`` comes back to within rounding and ε (``y_k = x_k * sigma_k / sqrt(sigma_k**2 + eps)``
    around its mean); another token ``t`` gets mean ``mu_k`` and spread about ``sigma_k``
    whatever its own ``mu_t`` and ``sigma_t`` were.
    Source: this project.
    """
    x = as_float64(tokens)
    if x.ndim != 2 or x.size == 0:
        raise ValueError(f"tokens must be rows (n, d) with n, d >= 1, got shape {x.shape}")
    if not np.all(np.isfinite(x)):
        raise ValueError("tokens contain NaN or infinity; normalization needs finite numbers")
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 0 <= int(k) < x.shape[0]:
        raise ValueError(f"k must be a token number 0 <= k < {x.shape[0]}, got {k!r}")
    eps = check_eps(eps)
    k = int(k)
    mu, sigma = mean(x), std(x)
    gamma, beta = float(sigma[k]), float(mu[k])
    d = x.shape[1]
    y = layer_norm(x, np.full(d, gamma), np.full(d, beta), eps=eps)
    return SharedUndo(
        x=x,
        k=k,
        gamma=gamma,
        beta=beta,
        y=y,
        mu=mu,
        sigma=sigma,
        mu_after=mean(y),
        sigma_after=std(y),
        miss=np.max(np.abs(y - x), axis=-1),
        factor=gamma / np.hypot(sigma, np.sqrt(eps)),  # hypot: sigma**2 would overflow past 1e154
    )
