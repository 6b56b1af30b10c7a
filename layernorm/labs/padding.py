"""Two checks the Which axis? page runs on a batch: what padding tokens do to each normalization
(BatchNorm mixes them into the real tokens statistics; LayerNorm does not), and how far each
normalization is from the identities it promises.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from layernorm._checks import F64, as_float64, finite_results
from layernorm.batch import batch_norm_train
from layernorm.core import DEFAULT_EPS, layer_norm, mean
from layernorm.family import group_norm, instance_norm, rms_norm


@dataclass(frozen=True)
class PaddingEffect:
    """What padding tokens do to each lens's output for the *real* tokens.

    Attributes
    ----------
    bn_change : (n_real,) ndarray
        Per real token, ``max |BN(with padding) - BN(real tokens only)|`` over its features.
    ln_change : (n_real,) ndarray
        The same for LayerNorm: exactly 0, a token's statistics are its own.
    bn_mean_with, bn_mean_without : (d,) ndarray
        BatchNorm's per-feature means with and without the padding tokens (units of ``x``).
    n_real, n_pad : int
        Number of real and of padding tokens in the batch.

    Notes
    -----
    Source: Ioffe & Szegedy (2015); Ba, Kiros & Hinton (2016).
    """

    bn_change: F64
    ln_change: F64
    bn_mean_with: F64
    bn_mean_without: F64
    n_real: int
    n_pad: int

    @property
    def largest_bn_change(self) -> float:
        """The largest change padding causes in any real token's BatchNorm output."""
        return float(np.max(self.bn_change))

    @property
    def largest_ln_change(self) -> float:
        """The same for LayerNorm (exactly 0)."""
        return float(np.max(self.ln_change))


@finite_results()
def padding_effect(x: ArrayLike, attention_mask: ArrayLike, *, eps: float = DEFAULT_EPS) -> PaddingEffect:
    """Normalize a padded batch twice, with and without its padding tokens.

    Parameters
    ----------
    x : (B, T, d) array_like
    attention_mask : (B, T) array_like of 0/1
        1 for a real token, 0 for padding.
    eps : float, default 1e-5

    Returns
    -------
    PaddingEffect

    Raises
    ------
    ValueError
        Shapes that do not match, or fewer than 2 real tokens (BatchNorm training
        needs more than one value per feature).

    Notes
    -----
    BatchNorm runs on the ``(tokens, d)`` matrix in training mode, so its statistics
    are the batch's; LayerNorm runs per token. Source: Ioffe & Szegedy (2015); Ba,
    Kiros & Hinton (2016).
    """
    x64 = as_float64(x)
    m = np.asarray(attention_mask)
    if x64.ndim != 3 or m.shape != x64.shape[:2]:
        raise ValueError(f"x must be (B, T, d) and the mask (B, T); got {x64.shape} and {m.shape}")
    d = x64.shape[2]
    tokens = x64.reshape(-1, d)  # (B·T, d)
    real = m.reshape(-1) != 0
    n_real = int(real.sum())
    if n_real < 2:
        raise ValueError(f"need at least 2 real tokens to compare BatchNorm statistics, got {n_real}")
    zeros, ones = np.zeros(d), np.ones(d)
    bn_with = batch_norm_train(tokens, None, None, zeros, ones, eps=eps)[0][real]
    bn_without = batch_norm_train(tokens[real], None, None, zeros, ones, eps=eps)[0]
    ln_with = layer_norm(tokens, eps=eps)[real]
    ln_without = layer_norm(tokens[real], eps=eps)
    return PaddingEffect(
        bn_change=np.max(np.abs(bn_with - bn_without), axis=1),
        ln_change=np.max(np.abs(ln_with - ln_without), axis=1),
        bn_mean_with=mean(tokens, axis=0),
        bn_mean_without=mean(tokens[real], axis=0),
        n_real=n_real,
        n_pad=int(real.size - n_real),
    )


IDENTITIES: tuple[str, ...] = (
    "LayerNorm(x) = BatchNorm(xᵀ)ᵀ",
    "GroupNorm(G = 1) = LayerNorm over (C, L)",
    "GroupNorm(G = d) = InstanceNorm",
    "RMSNorm = LayerNorm on zero-mean rows",
)


@finite_results()
def identity_gaps(x: ArrayLike, *, eps: float = DEFAULT_EPS) -> dict[str, float]:
    """Check the four identities that tie the lenses together; return each ``max |lhs - rhs|``.

    Parameters
    ----------
    x : (B, T, d) array_like, with ``d >= 2``
        Any finite real numbers.
    eps : float, default 1e-5
        Inside every square root (units of ``x`` squared).

    Returns
    -------
    dict
        :data:`IDENTITIES` name -> largest absolute difference (float64 rounding, ~1e-15).

    Raises
    ------
    ValueError
        ``x`` not 3-D or ``d < 2`` (BatchNorm over the transposed axis would see one
        value per channel); ``x`` not numeric or containing NaN/inf; ``eps`` negative
        or not finite (from the core functions).
    ZeroVarianceError
        ``eps == 0`` and a row or group is constant (from the core functions).

    Notes
    -----
    1. Tokens as the batch axis, transposed: BatchNorm's channels become the tokens, so
       each token is normalized over its own features (no affine).
    2. With ``(N, C, L) = (B, d, T)``, one group holds a sequence's whole ``C × L`` block.
    3. ``G = d`` puts one channel in each group: a channel over its positions.
    4. If a row's mean is 0, centring does nothing and the variance is the mean square.

    References: Ba, Kiros & Hinton (2016); Ioffe & Szegedy (2015); Ulyanov et al. (2016);
    Wu & He (2018); Zhang & Sennrich (2019).
    """
    x64 = as_float64(x)
    if x64.ndim != 3 or x64.shape[2] < 2:
        raise ValueError(f"x must have shape (B, T, d) with d >= 2, got shape {x64.shape}")
    d = x64.shape[2]
    tokens = x64.reshape(-1, d)  # (B·T, d)
    n = tokens.shape[0]
    ncl = x64.transpose(0, 2, 1)  # (N=B, C=d, L=T)
    bn_t = batch_norm_train(tokens.T, None, None, np.zeros(n), np.ones(n), eps=eps)[0].T
    centred = tokens - mean(tokens)[:, None]
    pairs = [
        (layer_norm(tokens, eps=eps), bn_t),
        (group_norm(ncl, 1, eps=eps), layer_norm(ncl, eps=eps, axis=(-2, -1))),
        (group_norm(ncl, d, eps=eps), instance_norm(ncl, eps=eps)),
        (rms_norm(centred, eps=eps), layer_norm(centred, eps=eps)),
    ]
    return {name: float(np.max(np.abs(a - b))) for name, (a, b) in zip(IDENTITIES, pairs, strict=True)}
