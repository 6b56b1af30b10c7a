"""A BERT encoder forward pass in NumPy, with every LayerNorm computed by the lab's own core.

The model is all-MiniLM-L6-v2 (a 6-layer BERT, d = 384, 12 heads, post-LN), the sentence
transformer whose activations ``assets/`` records. This module runs it live, so a student's own
sentence goes through the same 13 LayerNorms, and each LayerNorm can be swapped for something else
(:class:`Intervention`) to see what the model needs it for.

Shapes: ``B`` sentences, ``T`` word-pieces per sentence (padded), ``d`` = 384 features,
``H`` = 12 heads of ``d_h`` = 32, ``F`` = 1536 feed-forward units, ``S`` = 13 LayerNorm sites
(``embeddings.LayerNorm``, then for each layer the one after attention and the one after the
feed-forward block: the order of ``assets/``). Activations are dimensionless model units.

Numerics: the matrix products run in float32, as in the PyTorch model the recording came from;
every LayerNorm runs in the core (float64 statistics, exact) and its output is rounded back to
float32, like PyTorch's float32 LayerNorm output. GELU is BERT's exact erf form.

Source: Devlin et al. (2019), BERT; Vaswani et al. (2017) for attention; Reimers & Gurevych
(2019), Sentence-BERT (mean pooling); Hugging Face ``transformers.BertModel`` (post-LN layout,
additive attention mask of float32's lowest value).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import numpy.typing as npt
from scipy.special import erf

from layernorm._checks import finite_results
from layernorm.batch import batch_norm_eval
from layernorm.core import layer_norm, mean, variance
from layernorm.data.weights import BertWeights
from layernorm.family import rms_norm
from layernorm.labs.recent_norms import SiteDyT, dyt, fold_site

F32 = npt.NDArray[np.float32]
NormKind = Literal["layer", "none", "rms", "batch", "dyt"]
NORM_KINDS: tuple[NormKind, ...] = ("layer", "none", "rms", "batch", "dyt")
"""What stands at a LayerNorm site: the model's LayerNorm, nothing, RMSNorm, BatchNorm, or DyT."""


@dataclass(frozen=True)
class Intervention:
    """What to do at the model's LayerNorm sites instead of its own LayerNorm.

    Attributes
    ----------
    kind : {"layer", "none", "rms", "batch"}
        ``"layer"`` the model's LayerNorm (with ``eps`` below); ``"none"`` remove it (the
        residual sum passes through unchanged); ``"rms"`` RMSNorm with the same γ (no β, no
        centring; Zhang & Sennrich 2019); ``"batch"`` normalize each feature with the mean and
        biased variance pooled over every real token of the batch (BatchNorm's training-mode
        statistics, padding excluded), then the learned γ, β; ``"dyt"`` the site's entry of ``dyt``
        (``γ ⊙ tanh(α·x) + β``, no statistics; ``eps`` and ``unit_affine`` do not apply).
    sites : tuple of int, optional
        Which of the 13 sites the change applies to; empty means every site.
    eps : float or None
        ε for every LayerNorm/RMSNorm/BatchNorm site that is changed (units of activations
        squared); None keeps the model's 1e-12.
    unit_affine : bool
        Use γ = 1, β = 0 at the changed sites instead of the learned ones.
    dyt : tuple of SiteDyT
        DyT's parameters for every site (``recent_norms.fit_sites``), for ``kind="dyt"``.

    Notes
    -----
    Source: this project (teaching experiments on a real model).
    """

    kind: NormKind = "layer"
    sites: tuple[int, ...] = field(default_factory=tuple)
    eps: float | None = None
    unit_affine: bool = False
    dyt: tuple[SiteDyT, ...] = ()

    def applies_to(self, site: int) -> bool:
        """Does this intervention change ``site`` (0-based, forward order)?"""
        return not self.sites or site in self.sites

    @property
    def is_identity(self) -> bool:
        """True when nothing about the model changes."""
        return self.kind == "layer" and self.eps is None and not self.unit_affine


@dataclass(frozen=True)
class ForwardResult:
    """What one forward pass computed.

    Attributes
    ----------
    site_inputs, site_outputs : (S, B, T, d) ndarray of float32
        What each normalization site received (the residual sum) and returned.
    last_hidden : (B, T, d) ndarray of float32
        The encoder's output (the last site's output).
    embedding : (B, d) ndarray of float64
        Mean of ``last_hidden`` over each sentence's real tokens, scaled to unit length: the
        sentence embedding of all-MiniLM-L6-v2.
    attention_mask : (B, T) ndarray of int8
        1 for real word-pieces, 0 for padding.

    Notes
    -----
    Source: Reimers & Gurevych (2019) for the mean pooling and normalization.
    """

    site_inputs: F32
    site_outputs: F32
    last_hidden: F32
    embedding: npt.NDArray[np.float64]
    attention_mask: npt.NDArray[np.int8]


def gelu(x: F32) -> F32:
    """BERT's GELU in its exact form ``x * (1 + erf(x / sqrt(2))) / 2``.

    Parameters
    ----------
    x : ndarray of float32, any shape

    Returns
    -------
    ndarray of float32, same shape

    Notes
    -----
    Source: Hendrycks & Gimpel (2016); ``transformers.activations.GELUActivation``.
    """
    out: F32 = (0.5 * x * (1.0 + erf(x / np.float32(np.sqrt(2.0))))).astype(np.float32)
    return out


def _normalize_site(
    h: F32, site: int, weights: BertWeights, mask: npt.NDArray[np.int8], change: Intervention
) -> F32:
    """The normalization at ``site`` (the model's LayerNorm unless ``change`` says otherwise)."""
    gamma, beta = weights.norm_gamma[site], weights.norm_beta[site]
    eps = weights.config.eps
    kind: NormKind = "layer"
    if change.applies_to(site):
        kind = change.kind
        if change.eps is not None:
            eps = change.eps
        if change.unit_affine:
            gamma, beta = np.ones_like(gamma), np.zeros_like(beta)
    if kind == "none":
        return h
    if kind == "dyt":
        p = change.dyt[site]
        return dyt(h, p.alpha, np.array(p.gamma), np.array(p.beta)).astype(np.float32)
    if kind == "rms":
        y = rms_norm(h, gamma, eps=eps)
    elif kind == "batch":  # per-feature statistics pooled over the batch's real tokens (not padding)
        real = h[mask.astype(bool)]  # (n_real, d)
        flat = h.reshape(-1, h.shape[-1])  # (B*T, d): padding normalized with the same statistics
        y = batch_norm_eval(flat, gamma, beta, mean(real, axis=0), variance(real, axis=0), eps=eps)
        y = y.reshape(h.shape)
    else:
        y = layer_norm(h, gamma, beta, eps=eps)
    return y.astype(np.float32)


def _attention(x: F32, layer: int, weights: BertWeights, add_mask: F32) -> F32:
    """Multi-head self-attention and its output projection: (B, T, d) -> (B, T, d)."""
    cfg = weights.config
    b, t, d = x.shape
    h, dh = cfg.n_heads, d // cfg.n_heads
    q = weights.linear(f"encoder.layer.{layer}.attention.self.query", x).reshape(b, t, h, dh)
    k = weights.linear(f"encoder.layer.{layer}.attention.self.key", x).reshape(b, t, h, dh)
    v = weights.linear(f"encoder.layer.{layer}.attention.self.value", x).reshape(b, t, h, dh)
    scores = np.einsum("bqhe,bkhe->bhqk", q, k) / np.float32(np.sqrt(dh))  # (B, H, T, T)
    scores = scores + add_mask[:, None, None, :]  # padded keys get float32's lowest value
    scores -= scores.max(axis=-1, keepdims=True)
    probs = np.exp(scores)
    probs /= probs.sum(axis=-1, keepdims=True)
    context = np.einsum("bhqk,bkhe->bqhe", probs, v).reshape(b, t, d)
    return weights.linear(f"encoder.layer.{layer}.attention.output.dense", context)


def forward(
    weights: BertWeights,
    input_ids: npt.ArrayLike,
    attention_mask: npt.ArrayLike,
    *,
    change: Intervention | None = None,
    record: bool = True,
) -> ForwardResult:
    """Run the encoder on a padded batch, recording every normalization site.

    Parameters
    ----------
    weights : BertWeights
        From :func:`layernorm.data.weights.load_minilm_weights`.
    input_ids : (B, T) array_like of int
        Word-piece ids (``[CLS] ... [SEP]`` then padding), from :func:`layernorm.data.weights.tokenize`.
    attention_mask : (B, T) array_like of {0, 1}
        1 for real word-pieces, 0 for padding.
    change : Intervention, optional
        What to put at the LayerNorm sites instead of the model's LayerNorm (default: nothing changes).
    record : bool, default True
        Keep every site's input and output; False leaves ``site_inputs``/``site_outputs`` empty
        (shape ``(0, B, T, d)``), to time the forward pass alone.

    Returns
    -------
    ForwardResult

    Raises
    ------
    ValueError
        ``input_ids`` and ``attention_mask`` differ in shape or are not 2-D, an id is outside the
        vocabulary, ``T`` exceeds the model's 512 positions, a sentence has no real token, or an
        intervention's ``eps`` is negative.

    Notes
    -----
    Post-LN BERT layer: ``h = LN(x + Attn(x)); out = LN(h + FFN(h))``, with
    ``FFN(h) = W2 gelu(W1 h + b1) + b2``. Source: Devlin et al. (2019); Hugging Face
    ``transformers.models.bert.modeling_bert``.
    """
    change = change or Intervention()
    cfg = weights.config
    ids = np.asarray(input_ids)
    mask = np.asarray(attention_mask).astype(np.int8)
    if ids.ndim != 2 or ids.shape != mask.shape:
        raise ValueError(
            f"input_ids {ids.shape} and attention_mask {mask.shape} must be the same (B, T) shape"
        )
    if ids.size and (ids.min() < 0 or ids.max() >= cfg.vocab_size):
        raise ValueError(f"word-piece ids must lie in [0, {cfg.vocab_size}), got {ids.min()}…{ids.max()}")
    b, t = ids.shape
    if t > cfg.max_positions:
        raise ValueError(f"the model has {cfg.max_positions} positions; got T = {t}")
    if not np.all(mask.sum(axis=1) > 0):
        raise ValueError("every sentence needs at least one real word-piece ([CLS])")
    if change.kind == "dyt" and len(change.dyt) != cfg.n_sites:
        raise ValueError(
            f"a DyT change needs DyT's parameters for all {cfg.n_sites} sites, got {len(change.dyt)}"
        )
    if change.eps is not None and not change.eps >= 0:
        raise ValueError(f"eps must be >= 0, got {change.eps}")

    sites_in = np.empty((cfg.n_sites if record else 0, b, t, cfg.d), dtype=np.float32)
    sites_out = np.empty_like(sites_in)

    def norm(site: int, h: F32) -> F32:
        y = _normalize_site(h, site, weights, mask, change)
        if record:
            sites_in[site], sites_out[site] = h, y
        return y

    emb = weights.embeddings(ids)  # word + position + token-type (all type 0), (B, T, d)
    x = norm(0, emb)
    add_mask = ((1 - mask) * np.finfo(np.float32).min).astype(np.float32)  # (B, T)
    for layer in range(cfg.n_layers):
        x = norm(1 + 2 * layer, x + _attention(x, layer, weights, add_mask))
        inner = gelu(weights.linear(f"encoder.layer.{layer}.intermediate.dense", x))  # (B, T, F)
        x = norm(2 + 2 * layer, x + weights.linear(f"encoder.layer.{layer}.output.dense", inner))
    return ForwardResult(
        site_inputs=sites_in,
        site_outputs=sites_out,
        last_hidden=x,
        embedding=sentence_embedding(x, mask),
        attention_mask=mask,
    )


@finite_results()
def sentence_embedding(last_hidden: npt.ArrayLike, attention_mask: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """all-MiniLM-L6-v2's sentence embedding: mean over real tokens, then unit length.

    Parameters
    ----------
    last_hidden : (B, T, d) array_like
    attention_mask : (B, T) array_like of {0, 1}

    Returns
    -------
    (B, d) ndarray of float64
        Each row has Euclidean norm 1.

    Raises
    ------
    ValueError
        A sentence has no real token, or its mean vector is exactly zero.

    Notes
    -----
    Source: Reimers & Gurevych (2019); ``sentence_transformers.models.Pooling`` (mean) and
    ``Normalize``.
    """
    h = np.asarray(last_hidden, dtype=np.float64)
    m = np.asarray(attention_mask, dtype=np.float64)[..., None]  # (B, T, 1)
    counts = m.sum(axis=1)  # (B, 1)
    if np.any(counts == 0):
        raise ValueError("a sentence has no real token to average")
    pooled = (h * m).sum(axis=1) / counts
    norms = np.linalg.norm(pooled, axis=1, keepdims=True)
    if np.any(norms == 0):
        raise ValueError("a pooled sentence vector is exactly zero; it has no direction")
    out: npt.NDArray[np.float64] = pooled / norms
    return out


def folded_cosines(
    weights: BertWeights, input_ids: npt.ArrayLike, attention_mask: npt.ArrayLike, site: int
) -> npt.NDArray[np.float64]:
    """Each sentence's embedding with ``recent_norms.fold_site`` (γ = 1, β = 0 at ``site``, folded into
    its readers) against the model's own: their cosine similarity (1: the same direction).

    Parameters
    ----------
    weights : BertWeights
    input_ids, attention_mask : array_like, shape (B, T)
        As :func:`forward` takes them.
    site : int

    Returns
    -------
    (B,) ndarray of float64

    Raises
    ------
    ValueError
        ``site`` is not one of the model's sites, or the batch is not one ``forward`` takes.

    Notes
    -----
    The embeddings are unit vectors, so the cosine is their dot product. Source: this project.
    """
    base = forward(weights, input_ids, attention_mask, record=False)
    change = Intervention(unit_affine=True, sites=(site,))
    folded = forward(fold_site(weights, site), input_ids, attention_mask, change=change, record=False)
    cos: npt.NDArray[np.float64] = np.einsum("bd,bd->b", base.embedding, folded.embedding)
    return cos
