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

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import numpy.typing as npt
from scipy.special import erf

from layernorm._checks import finite_results
from layernorm.batch import batch_norm_eval
from layernorm.core import layer_norm, mean, std, variance
from layernorm.data.activations import MiniLMRecording
from layernorm.data.weights import BertWeights
from layernorm.family import rms_norm

F32 = npt.NDArray[np.float32]
NormKind = Literal["layer", "none", "rms", "batch"]
NORM_KINDS: tuple[NormKind, ...] = ("layer", "none", "rms", "batch")
"""What stands at a LayerNorm site: the model's LayerNorm, nothing, RMSNorm, or BatchNorm."""


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
        statistics, padding excluded), then the learned γ, β.
    sites : tuple of int, optional
        Which of the 13 sites the change applies to; empty means every site.
    eps : float or None
        ε for every LayerNorm/RMSNorm/BatchNorm site that is changed (units of activations
        squared); None keeps the model's 1e-12.
    unit_affine : bool
        Use γ = 1, β = 0 at the changed sites instead of the learned ones.

    Notes
    -----
    Source: this project (teaching experiments on a real model).
    """

    kind: NormKind = "layer"
    sites: tuple[int, ...] = field(default_factory=tuple)
    eps: float | None = None
    unit_affine: bool = False

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
    ResultRangeError
        A result does not fit in a float64 (above 1.8e308) for this finite input; the
        message names the result and the input's largest values.

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


@finite_results()
def cosine(a: npt.ArrayLike, b: npt.ArrayLike) -> float:
    """Cosine similarity of two vectors, ``a·b / (|a| |b|)`` (dimensionless, in [−1, 1]).

    Parameters
    ----------
    a, b : (d,) array_like

    Returns
    -------
    float

    Raises
    ------
    ValueError
        Shapes differ, or a vector is zero.
    ResultRangeError
        A result does not fit in a float64 (above 1.8e308) for this finite input; the
        message names the result and the input's largest values.

    Notes
    -----
    Source: the standard definition; Sentence-BERT compares embeddings this way.
    """
    u, v = np.asarray(a, dtype=np.float64).ravel(), np.asarray(b, dtype=np.float64).ravel()
    if u.shape != v.shape:
        raise ValueError(f"cannot compare vectors of shapes {u.shape} and {v.shape}")
    nu, nv = np.linalg.norm(u), np.linalg.norm(v)
    if nu == 0 or nv == 0:
        raise ValueError("the cosine of a zero vector is undefined")
    return float(np.clip(u @ v / (nu * nv), -1.0, 1.0))


def site_label(site: int, n_layers: int = 6) -> str:
    """Short label of normalization site ``site``, as on the recorded page.

    Parameters
    ----------
    site : int
        0-based, forward order; ``0 <= site <= 2 * n_layers``.
    n_layers : int, default 6

    Returns
    -------
    str
        ``"Embeddings LN"``, ``"Layer i · after attention"`` or ``"Layer i · after FFN"``.

    Raises
    ------
    IndexError
        ``site`` out of range.

    Notes
    -----
    Source: this project (the labels of :meth:`layernorm.MiniLMRecording.site_label`).
    """
    if not 0 <= site <= 2 * n_layers:
        raise IndexError(f"site {site} is out of range 0…{2 * n_layers}")
    if site == 0:
        return "Embeddings LN"
    layer, which = divmod(site - 1, 2)
    return f"Layer {layer} · after {'attention' if which == 0 else 'FFN'}"


def residual_size(result: ForwardResult, sentences: Sequence[int] | None = None) -> npt.NDArray[np.float64]:
    """How big the residual stream is when it reaches each site: mean over real tokens of RMS(x).

    Parameters
    ----------
    result : ForwardResult
        With recorded sites.
    sentences : sequence of int, optional
        Which sentences of the batch to average over (default all).

    Returns
    -------
    (S,) ndarray of float64
        ``mean_tokens sqrt(mean_features x**2)`` of each site's input, in activation units.

    Raises
    ------
    ValueError
        The result has no recorded sites, or the chosen sentences have no real token.

    Notes
    -----
    Source: this project; RMS as in Zhang & Sennrich (2019).
    """
    if result.site_inputs.shape[0] == 0:
        raise ValueError("this forward pass did not record its sites (record=False)")
    rows = list(range(result.attention_mask.shape[0])) if sentences is None else list(sentences)
    real = result.attention_mask[rows].astype(bool)  # (b, T)
    if not real.any():
        raise ValueError("the chosen sentences have no real token")
    x = result.site_inputs[:, rows][:, real].astype(np.float64)  # (S, n_real, d)
    rms = np.sqrt(np.mean(np.square(x), axis=-1))  # (S, n_real)
    out: npt.NDArray[np.float64] = rms.mean(axis=1)
    return out


def token_statistics(
    result: ForwardResult, sentence: int, token: int
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """μ and σ (population, without ε) of one token's vector as it enters each site.

    Parameters
    ----------
    result : ForwardResult
    sentence, token : int
        Position in the batch.

    Returns
    -------
    mu, sigma : (S,) ndarray of float64
        In activation units.

    Raises
    ------
    IndexError
        ``sentence`` or ``token`` out of range.
    ValueError
        The result has no recorded sites.

    Notes
    -----
    Computed by the core's :func:`layernorm.mean` and :func:`layernorm.std`. Source: Ba, Kiros &
    Hinton (2016), eq. 4.
    """
    if result.site_inputs.shape[0] == 0:
        raise ValueError("this forward pass did not record its sites (record=False)")
    b, t = result.attention_mask.shape
    if not (0 <= sentence < b and 0 <= token < t):
        raise IndexError(f"token ({sentence}, {token}) is outside the batch of shape ({b}, {t})")
    x = result.site_inputs[:, sentence, token]  # (S, d)
    return mean(x), std(x)


@dataclass(frozen=True)
class Comparison:
    """An intervention's effect, measured against the unmodified model on the same sentences.

    Attributes
    ----------
    size_base, size_changed : (S,) ndarray of float64
        :func:`residual_size` of the user's sentences, without and with the change.
    cosine_to_base : (k,) ndarray of float64
        Cosine between each sentence's embedding with and without the change (1 = unchanged).
    pair_base, pair_changed : float or None
        Cosine between the first two sentences' embeddings, without and with the change (None
        with a single sentence).

    Notes
    -----
    Source: this project.
    """

    size_base: npt.NDArray[np.float64]
    size_changed: npt.NDArray[np.float64]
    cosine_to_base: npt.NDArray[np.float64]
    pair_base: float | None
    pair_changed: float | None


def compare(base: ForwardResult, changed: ForwardResult, n_sentences: int) -> Comparison:
    """Compare a changed model's forward pass with the unmodified one on the first ``n_sentences``.

    Parameters
    ----------
    base : ForwardResult
        The unmodified model on (at least) the user's sentences.
    changed : ForwardResult
        The changed model; its batch starts with the same sentences (it may hold more, e.g. the
        batch-mates that "BatchNorm instead" pools over), padded to any length.
    n_sentences : int
        How many leading sentences are the user's (1 or 2).

    Returns
    -------
    Comparison

    Raises
    ------
    ValueError
        ``n_sentences`` is not between 1 and the size of both batches, or the sentences' real
        tokens differ between the two passes.

    Notes
    -----
    Source: this project.
    """
    if not 1 <= n_sentences <= min(base.attention_mask.shape[0], changed.attention_mask.shape[0]):
        raise ValueError(f"n_sentences must be between 1 and both batch sizes, got {n_sentences}")
    rows = list(range(n_sentences))
    for r in rows:
        if base.attention_mask[r].sum() != changed.attention_mask[r].sum():
            raise ValueError(f"sentence {r} has different word-pieces in the two passes")
    cos = np.array([cosine(base.embedding[r], changed.embedding[r]) for r in rows])
    pair = n_sentences >= 2
    return Comparison(
        size_base=residual_size(base, rows),
        size_changed=residual_size(changed, rows),
        cosine_to_base=cos,
        pair_base=cosine(base.embedding[0], base.embedding[1]) if pair else None,
        pair_changed=cosine(changed.embedding[0], changed.embedding[1]) if pair else None,
    )


@finite_results("index", "value")
def top_features(vector: npt.ArrayLike, k: int = 3) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.float64]]:
    """The ``k`` features of largest magnitude in one token's vector: its outlier dimensions.

    Parameters
    ----------
    vector : (d,) array_like
    k : int, default 3
        At most ``d``.

    Returns
    -------
    index : (k,) ndarray of int
        0-based feature indices, largest |value| first.
    value : (k,) ndarray of float64
        The values there (with their sign).

    Raises
    ------
    ValueError
        ``vector`` is not 1-D or ``k`` is not in 1…d.
    ResultRangeError
        A result does not fit in a float64 (above 1.8e308) for this finite input; the
        message names the result and the input's largest values.

    Notes
    -----
    Source: this project; outlier dimensions in BERT-family models: Kovaleva et al. (2021).
    """
    v = np.asarray(vector, dtype=np.float64)
    if v.ndim != 1 or not 1 <= k <= v.size:
        raise ValueError(f"need a 1-D vector and 1 <= k <= d, got shape {v.shape} and k = {k}")
    index = np.argsort(-np.abs(v), kind="stable")[:k]
    return index, v[index]


def recorded_result(rec: MiniLMRecording) -> ForwardResult:
    """The shipped recording as a :class:`ForwardResult`, for when the live model is not installed.

    Parameters
    ----------
    rec : MiniLMRecording
        From :func:`layernorm.load_minilm_recording`.

    Returns
    -------
    ForwardResult
        The recorded PyTorch activations of the 7 fixed sentences (read-only views).

    Raises
    ------
    ValueError
        As :func:`sentence_embedding`.

    Notes
    -----
    Source: ``assets/minilm_layernorm_activations.npz`` (see ``assets/README.md``).
    """
    return ForwardResult(
        site_inputs=rec.inputs,
        site_outputs=rec.outputs,
        last_hidden=rec.outputs[-1],
        embedding=sentence_embedding(rec.outputs[-1], rec.attention_mask),
        attention_mask=rec.attention_mask,
    )
