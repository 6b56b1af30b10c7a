"""What the Your sentence page reads off a forward pass of the live MiniLM (layernorm.labs.bert): the
sentence embedding, cosine similarity, the residual stream size, per-token statistics, and how
an intervention changed them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from layernorm._checks import finite_results
from layernorm.core import mean, std
from layernorm.data.activations import MiniLMRecording
from layernorm.labs.bert import ForwardResult, sentence_embedding


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
