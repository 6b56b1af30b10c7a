"""What models since 2024 do instead of, and around, LayerNorm: played with the lab's own arithmetic.

- **Dynamic Tanh** (DyT, Zhu et al. 2025): ``DyT(x) = γ ⊙ tanh(α·x) + β``, one learned scalar α and no
  statistics at all. :func:`dyt` computes it; :func:`fit_dyt` fits α, γ and β by least squares to the
  inputs and outputs of a real LayerNorm (which tokens and features a point-wise function cannot
  follow is in the fit's residuals).
- **QK-norm** (Henry et al. 2020; Dehghani et al. 2023): queries and keys normalized before their dot
  product, so an attention logit stays within ``±√d_h`` however large the weights grow
  (:func:`attention_logits`).
- **Folding γ** into the next linear layer (:func:`fold_gamma`): in a pre-norm block the norm's output
  only feeds a linear layer, so ``W (γ ⊙ x̂ + β) + b = (W diag γ) x̂ + (W β + b)`` exactly in
  arithmetic, and γ = 1, β = 0 with the folded weights give the same block.
- Peri-LN (normalizing each sublayer's input and output) is a placement of the depth simulator
  (:mod:`layernorm.labs.depth`).

Letters: ``n`` tokens (rows), ``d`` features, ``d_h`` features per attention head, ``m`` outputs of a
linear layer.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import ArrayLike

from layernorm._checks import (
    F64,
    FLOAT64_MAX,
    ResultRangeError,
    as_float64,
    check_affine,
    check_eps,
    check_param,
    finite_results,
)
from layernorm.core import DEFAULT_EPS, layer_norm
from layernorm.data.weights import BertWeights
from layernorm.labs.depth import DepthConfig

DYT_ALPHA_INIT = 0.5
"""α's starting value in the DyT paper's code (``alpha_init_value=0.5``)."""

FIT_ALPHA_RANGE = (1e-4, 1e2)
"""The α :func:`fit_dyt` searches, log-spaced (a LayerNorm input of 1e-4 to 1e2 model units bends tanh)."""

_GRID = 121  # points of the first log-spaced search of α (20 per decade over six decades)


def _alpha(alpha: float) -> float:
    value = float(alpha)
    if not np.isfinite(value):
        raise ValueError(f"alpha must be a finite number, got {alpha!r}")
    return value


@finite_results()
def dyt(x: ArrayLike, alpha: float, gamma: ArrayLike | None = None, beta: ArrayLike | None = None) -> F64:
    """Dynamic Tanh: ``gamma * tanh(alpha * x) + beta`` over the last axis, no statistics.

    Parameters
    ----------
    x : array_like, shape (..., d)
        The values a LayerNorm would receive.
    alpha : float
        The one learned scalar that sets how soon tanh bends (any finite number).
    gamma, beta : array_like of shape (d,) or scalar, optional
        Per-feature scale and shift (default 1 and 0).

    Returns
    -------
    ndarray of float64, the shape of ``x``
        Every value lies within ``beta ± |gamma|``.

    Raises
    ------
    ValueError
        ``x`` is not numeric or not finite, ``alpha`` is not finite, or ``gamma``/``beta`` do not
        match the last axis.

    Notes
    -----
    Source: Zhu, Chen, He, LeCun & Liu (2025), "Transformers without Normalization", CVPR 2025,
    arXiv:2503.10622 (their ``DynamicTanh`` module).
    """
    arr = as_float64(x)
    if arr.ndim == 0:
        raise ValueError("x must have at least one axis (the features)")
    if not np.all(np.isfinite(arr)):
        raise ValueError("x contains NaN or infinity")
    g, b = check_affine(gamma, beta, arr.shape[-1:], "the last axis of x")
    with np.errstate(over="ignore"):  # α·x past float64's range is ±inf, and tanh(±inf) = ±1 exactly
        t = np.tanh(_alpha(alpha) * arr)
    out: F64 = g * t + b
    return out


@dataclass(frozen=True)
class DyTFit:
    """DyT fitted to a LayerNorm's inputs and outputs by least squares.

    Attributes
    ----------
    alpha : float
        The fitted scalar α.
    gamma, beta : (d,) ndarray
        Per-feature scale and shift, least squares for that α.
    fitted : (n, d) ndarray
        ``gamma * tanh(alpha * x) + beta``.
    residual : (n, d) ndarray
        ``y - fitted``.
    rms : float
        Root mean square of ``residual`` over every value.
    r_squared : float
        ``1 - SSE / SST``, SST about each feature's own mean (about the mean of every value for a pooled
        fit): 1 when the fit is exact, 0 when it explains no more than that mean.
    token_rms, feature_rms : (n,) and (d,) ndarray
        The residual's root mean square per token (row) and per feature (column).
    at_edge : bool
        The search's best α is an end of :data:`FIT_ALPHA_RANGE`: at the small end tanh never bends over
        these inputs (the best DyT is a straight line), at the large end it is a step.

    Notes
    -----
    Source: this project; the model is Zhu et al. (2025).
    """

    alpha: float
    gamma: F64
    beta: F64
    fitted: F64
    residual: F64
    rms: float
    r_squared: float
    token_rms: F64
    feature_rms: F64
    at_edge: bool


def _checked_pair(x_in: ArrayLike, y_out: ArrayLike) -> tuple[F64, F64]:
    x, y = as_float64(x_in, "x_in"), as_float64(y_out, "y_out")
    if x.ndim != 2 or x.shape != y.shape:
        raise ValueError(f"x_in {x.shape} and y_out {y.shape} must be the same (n, d) shape")
    if x.shape[0] < 2:
        raise ValueError(f"a fit needs at least 2 tokens (rows), got {x.shape[0]}")
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
        raise ValueError("x_in and y_out must be finite")
    return x, y


def _lstsq(t: F64, y: F64, per_feature: bool) -> tuple[F64, F64, F64]:
    """gamma, beta minimising ``sum((y - gamma t - beta)^2)`` for each column (or one pair for every
    value, broadcast to the columns), and the residual."""
    if not per_feature:
        g, b, _ = _lstsq(t.reshape(-1, 1), y.reshape(-1, 1), True)
        gamma, beta = np.full(t.shape[1], g[0]), np.full(t.shape[1], b[0])
        return gamma, beta, y - (gamma * t + beta)
    t_mean, y_mean = t.mean(axis=0), y.mean(axis=0)
    tc, yc = t - t_mean, y - y_mean
    var = np.einsum("ij,ij->j", tc, tc)
    cov = np.einsum("ij,ij->j", tc, yc)
    gamma = np.divide(cov, var, out=np.zeros_like(cov), where=var > 0)  # a constant column: its mean
    beta = y_mean - gamma * t_mean
    return gamma, beta, y - (gamma * t + beta)


@finite_results()
def dyt_sse(x_in: ArrayLike, y_out: ArrayLike, alpha: float) -> float:
    """The least-squares error of DyT with this ``alpha`` (γ and β fitted per feature).

    Parameters
    ----------
    x_in, y_out : array_like, shape (n, d)
        A LayerNorm's inputs and outputs, one token per row.
    alpha : float

    Returns
    -------
    float
        ``sum((y_out - gamma * tanh(alpha * x_in) - beta)^2)`` at the best ``gamma``, ``beta``.

    Raises
    ------
    ValueError
        Shapes differ or are not 2-D, fewer than 2 rows, a value is not finite.

    Notes
    -----
    Source: this project.
    """
    x, y = _checked_pair(x_in, y_out)
    return _sse(x, y, _alpha(alpha), True)


def _sse(x: F64, y: F64, alpha: float, per_feature: bool) -> float:
    with np.errstate(over="ignore"):  # α·x past float64's range is ±inf, and tanh(±inf) = ±1 exactly
        t = np.tanh(alpha * x)
    return float(np.sum(_lstsq(t, y, per_feature)[2] ** 2))


@finite_results()
def fit_dyt(
    x_in: ArrayLike, y_out: ArrayLike, alpha: float | None = None, *, per_feature: bool = True
) -> DyTFit:
    """Fit ``y ≈ gamma * tanh(alpha * x) + beta`` to a LayerNorm's inputs and outputs.

    For a given α the best γ and β of each feature are a straight-line least-squares fit of the
    feature's outputs on ``tanh(α·x)``; α itself is searched on a log grid over
    :data:`FIT_ALPHA_RANGE` and refined by golden-section search on log α around the grid's best.

    Parameters
    ----------
    x_in, y_out : array_like, shape (n, d)
        A LayerNorm's inputs and outputs, one token per row.
    alpha : float, optional
        Fit γ and β only, for this α (a student's own α).
    per_feature : bool, default True
        One γ and β per feature, as DyT has; False: one γ and one β for every value (the shape of the
        cloud of all features, as LayerNorm's own output before its γ and β).

    Returns
    -------
    DyTFit

    Raises
    ------
    ValueError
        Shapes differ or are not 2-D, fewer than 2 rows, a value is not finite.

    Notes
    -----
    The search finds the best α on the grid's bracket; a fit with two separate dips in its error
    could have its best in another. Source: this project; DyT is Zhu et al. (2025).
    """
    x, y = _checked_pair(x_in, y_out)

    def sse(log_a: float) -> float:
        return _sse(x, y, float(np.exp(log_a)), per_feature)

    if alpha is None:
        logs = np.linspace(np.log(FIT_ALPHA_RANGE[0]), np.log(FIT_ALPHA_RANGE[1]), _GRID)
        errors = [sse(v) for v in logs]
        best = int(np.argmin(errors))
        lo, hi = logs[max(best - 1, 0)], logs[min(best + 1, _GRID - 1)]
        ratio = (np.sqrt(5.0) - 1.0) / 2.0
        a, b = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
        fa, fb = sse(a), sse(b)
        for _ in range(80):  # the bracket shrinks by 0.618 each step: far below float64's steps of log α
            if fa <= fb:
                hi, b, fb = b, a, fa
                a = hi - ratio * (hi - lo)
                fa = sse(a)
            else:
                lo, a, fa = a, b, fb
                b = lo + ratio * (hi - lo)
                fb = sse(b)
        candidates = [(errors[best], float(logs[best])), (fa, float(a)), (fb, float(b))]
        found, log_alpha = min(candidates)
        # an end of the search as good as the refined point, to rounding, is the answer: the error falls
        # toward that end (a tanh that never bends, or a step), and the refinement stopped just inside it
        for end in (0, _GRID - 1):
            if abs(best - end) <= 1 and errors[end] <= found + 1e-9 * max(found, 1e-300):
                log_alpha = float(logs[end])
        # at the grid's end the search's own end, exactly: the fit says the best α lies beyond it
        edge = {float(logs[0]): FIT_ALPHA_RANGE[0], float(logs[-1]): FIT_ALPHA_RANGE[1]}
        alpha_value = edge.get(log_alpha, float(np.exp(log_alpha)))
        at_edge = log_alpha in edge
    else:
        alpha_value = _alpha(alpha)
        at_edge = False
    with np.errstate(over="ignore"):
        t = np.tanh(alpha_value * x)
    gamma, beta, residual = _lstsq(t, y, per_feature)
    sst = float(np.sum((y - (y.mean(axis=0) if per_feature else y.mean())) ** 2))
    sse_value = float(np.sum(residual**2))
    return DyTFit(
        alpha=alpha_value,
        gamma=gamma,
        beta=beta,
        fitted=y - residual,
        residual=residual,
        rms=float(np.sqrt(np.mean(residual**2))),
        r_squared=1.0 - sse_value / sst if sst > 0 else (1.0 if sse_value == 0 else 0.0),
        token_rms=np.sqrt(np.mean(residual**2, axis=1)),
        feature_rms=np.sqrt(np.mean(residual**2, axis=0)),
        at_edge=at_edge,
    )


LINE_ALPHA = 1e-6
"""The α at which DyT is a straight line for model-sized inputs (tanh(αx) = αx to 1 part in 10⁸ for
|x| < 200)."""


@dataclass(frozen=True)
class TanhAndLine:
    """A LayerNorm's output before γ and β, and the best tanh and straight line through it.

    Attributes
    ----------
    x_hat : (n, d) ndarray
        LayerNorm of the tokens (γ = 1, β = 0).
    tanh : DyTFit
        :func:`fit_dyt` of x̂ on x with one g and b for every value (α searched).
    line : DyTFit
        The same at α = :data:`LINE_ALPHA`: the best straight line.

    Notes
    -----
    Source: this project; the plot is Zhu et al. (2025)'s Figure 2 (outputs before the affine map).
    """

    x_hat: F64
    tanh: DyTFit
    line: DyTFit


def fit_tanh_and_line(x: ArrayLike, *, eps: float = DEFAULT_EPS) -> TanhAndLine:
    """Normalize the tokens ``x`` and fit, over every feature of every token at once, the best
    ``g·tanh(α·x) + b`` and the best straight line to x̂ against x.

    Parameters
    ----------
    x : array_like, shape (n, d)
        A LayerNorm's input, one token per row (model units).
    eps : float
        The LayerNorm's ε (units of x squared).

    Returns
    -------
    TanhAndLine

    Raises
    ------
    ValueError
        ``x`` is not (n, d) with n ≥ 2, a value is not finite, or ``eps`` is negative.

    Notes
    -----
    Source: this project.
    """
    x_hat = layer_norm(x, eps=eps)
    return TanhAndLine(
        x_hat=x_hat,
        tanh=fit_dyt(x, x_hat, per_feature=False),
        line=fit_dyt(x, x_hat, LINE_ALPHA, per_feature=False),
    )


STACK_PLACEMENTS = ("none", "post", "pre", "peri", "output")
"""Where the norm sits in :func:`placement_stack`: nowhere, then :data:`layernorm.labs.depth.PLACEMENTS`."""


def placement_stack(placement: str, n_layers: int, gain: float) -> DepthConfig:
    """The residual stack on which placements of LayerNorm are compared: width 64, GELU, batch 32,
    seed 0 (:mod:`layernorm.labs.depth`), with the norm at ``placement``.

    Parameters
    ----------
    placement : {"none", "post", "pre", "peri", "output"}
        "none" is the stack without a norm.
    n_layers : int
        1 to 1000.
    gain : float
        The weights' gain (finite, > 0).

    Returns
    -------
    DepthConfig
        Validated.

    Raises
    ------
    ValueError
        An unknown placement, or a depth or gain :meth:`DepthConfig.validated` refuses.

    Notes
    -----
    Source: this project; Peri-LN is Kim et al. (2025), the output norm Team OLMo (2025).
    """
    if placement not in STACK_PLACEMENTS:
        raise ValueError(f"placement must be one of {STACK_PLACEMENTS}, got {placement!r}")
    none = placement == "none"
    return DepthConfig(
        n_layers=n_layers,
        width=64,
        gain=gain,
        activation="gelu",
        residual=True,
        norm="none" if none else "layernorm",
        placement="post" if none else placement,
    ).validated()


@dataclass(frozen=True)
class AttentionLogits:
    """One head's attention logits, with or without QK-norm.

    Attributes
    ----------
    logits : (n, n) ndarray
        ``q_i · k_j / √d_h`` for query ``i`` and key ``j``.
    weights : (n, n) ndarray
        Softmax of each row.
    max_abs : float
        The largest ``|logit|``.
    bound : float or None
        With QK-norm, ``√d_h``: no logit can pass it (Cauchy–Schwarz, since each normalized query and
        key has length at most ``√d_h``); None without.
    entropy : (n,) ndarray
        Each query's attention entropy in nats (``log n`` for even attention, 0 for all of it on one key).
    mean_entropy : float
        Their mean.
    top_weight : float
        The mean over queries of the largest attention weight (1: every query looks at one key only).

    Notes
    -----
    Source: this project.
    """

    logits: F64
    weights: F64
    max_abs: float
    bound: float | None
    entropy: F64
    mean_entropy: float
    top_weight: float


@finite_results()
def attention_logits(
    x: ArrayLike,
    w_q: ArrayLike,
    w_k: ArrayLike,
    b_q: ArrayLike | None = None,
    b_k: ArrayLike | None = None,
    *,
    scale: float = 1.0,
    qk_norm: bool = False,
    eps: float = DEFAULT_EPS,
) -> AttentionLogits:
    """One attention head's logits for tokens ``x`` when its query and key projections are ``scale`` times
    ``x @ w_q + b_q`` and ``x @ w_k + b_k`` (weights that grew during training), with or without QK-norm.

    Parameters
    ----------
    x : array_like, shape (n, d)
        The tokens entering attention.
    w_q, w_k : array_like, shape (d, d_h)
        Query and key weights.
    b_q, b_k : array_like, shape (d_h,), optional
        Their biases (zero when absent).
    scale : float, default 1
        Factor on both projections (finite, > 0). Without QK-norm every logit grows as ``scale**2``.
    qk_norm : bool
        Apply LayerNorm (γ = 1, β = 0, ``eps``) to each query and key over its ``d_h`` features.
    eps : float

    Returns
    -------
    AttentionLogits

    Raises
    ------
    ValueError
        Shapes do not match, a value is not finite, ``scale`` is not a finite positive number, or
        ``eps`` is negative.

    Notes
    -----
    Source: Henry et al. (2020), "Query-Key Normalization for Transformers" (arXiv:2010.04245);
    Dehghani et al. (2023), "Scaling Vision Transformers to 22 Billion Parameters" (arXiv:2302.05442),
    LayerNorm on queries and keys.
    """
    xs = as_float64(x)
    if xs.ndim != 2:
        raise ValueError(f"x must be (n, d), got shape {xs.shape}")
    d = xs.shape[1]
    wq, wk = as_float64(w_q, "w_q"), as_float64(w_k, "w_k")
    if wq.ndim != 2 or wq.shape[0] != d or wk.shape != wq.shape:
        raise ValueError(f"w_q {wq.shape} and w_k {wk.shape} must both be (d, d_h) with d = {d}")
    for name, arr in (("x", xs), ("w_q", wq), ("w_k", wk)):
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"{name} contains NaN or infinity")
    s = float(scale)
    if not (np.isfinite(s) and s > 0):
        raise ValueError(f"scale must be a finite number > 0, got {scale!r}")
    eps = check_eps(eps)
    d_h = wq.shape[1]
    bq = check_param(b_q, "b_q", (d_h,), "the head's size d_h", 0.0)
    bk = check_param(b_k, "b_k", (d_h,), "the head's size d_h", 0.0)
    q, k = s * (xs @ wq + bq), s * (xs @ wk + bk)
    if not (np.all(np.isfinite(q)) and np.all(np.isfinite(k))):
        raise ResultRangeError(
            "attention_logits: the queries or keys do not fit in a float64 (the largest is "
            f"{FLOAT64_MAX:.4g}); scale the tokens, the weights or s down"
        )
    if qk_norm:
        q, k = layer_norm(q, eps=eps), layer_norm(k, eps=eps)
    logits = (q @ k.T) / np.sqrt(d_h)
    shifted = logits - logits.max(axis=1, keepdims=True)
    e = np.exp(shifted)
    weights = e / e.sum(axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        plogp = np.where(weights > 0, weights * np.log(weights), 0.0)
    return AttentionLogits(
        logits=logits,
        weights=weights,
        max_abs=float(np.max(np.abs(logits))),
        bound=float(np.sqrt(d_h)) if qk_norm else None,
        entropy=-plogp.sum(axis=1),
        mean_entropy=float(np.mean(-plogp.sum(axis=1))),
        top_weight=float(np.mean(weights.max(axis=1))),
    )


def head_projections(weights: BertWeights, layer: int, head: int) -> tuple[F64, F64, F64, F64]:
    """One attention head's query and key projections in a BERT encoder, for :func:`attention_logits`.

    Parameters
    ----------
    weights : BertWeights
    layer : int
        0-based encoder layer.
    head : int
        0-based head of that layer's self-attention.

    Returns
    -------
    (w_q, w_k, b_q, b_k) : float64 arrays, shapes (d, d_h), (d, d_h), (d_h,), (d_h,)
        The head's columns of ``x @ W.T + b`` (PyTorch stores ``W`` as (out, in)); the heads' columns
        side by side are the layer's whole projection.

    Raises
    ------
    ValueError
        ``layer`` or ``head`` is not one of the model's.

    Notes
    -----
    Source: Hugging Face ``transformers.models.bert.modeling_bert`` (heads as consecutive blocks of
    ``d_h = d / n_heads`` output features).
    """
    cfg = weights.config
    if not 0 <= layer < cfg.n_layers:
        raise ValueError(f"layer must be between 0 and {cfg.n_layers - 1}, got {layer}")
    if not 0 <= head < cfg.n_heads:
        raise ValueError(f"head must be between 0 and {cfg.n_heads - 1}, got {head}")
    d_h = cfg.d // cfg.n_heads
    rows = slice(head * d_h, (head + 1) * d_h)
    t = weights.tensors
    name = f"encoder.layer.{layer}.attention.self"
    return (
        np.asarray(t[f"{name}.query.weight"][rows].T, dtype=np.float64),
        np.asarray(t[f"{name}.key.weight"][rows].T, dtype=np.float64),
        np.asarray(t[f"{name}.query.bias"][rows], dtype=np.float64),
        np.asarray(t[f"{name}.key.bias"][rows], dtype=np.float64),
    )


@dataclass(frozen=True)
class GammaFold:
    """A linear layer with a norm's γ and β folded in.

    Attributes
    ----------
    weight : (m, d) ndarray
        ``W * gamma`` (each input column ``j`` times ``gamma_j``).
    bias : (m,) ndarray
        ``b + W @ beta``.

    Notes
    -----
    Source: this project.
    """

    weight: F64
    bias: F64


@finite_results()
def fold_gamma(
    gamma: ArrayLike, beta: ArrayLike, weight: ArrayLike, bias: ArrayLike | None = None
) -> GammaFold:
    """Fold a norm's ``gamma`` and ``beta`` into the linear layer that reads its output.

    ``W (gamma ⊙ x̂ + beta) + b = (W diag gamma) x̂ + (W beta + b)`` for every ``x̂``: the layer with
    the returned weight and bias, fed the norm's output with γ = 1 and β = 0, computes the same
    numbers in exact arithmetic (in float64, to rounding).

    Parameters
    ----------
    gamma, beta : array_like, shape (d,)
        The norm's learned scale and shift.
    weight : array_like, shape (m, d)
        The linear layer's weight, PyTorch's ``(out, in)`` layout: ``y = x @ weight.T + bias``.
    bias : array_like, shape (m,), optional
        Zero when absent.

    Returns
    -------
    GammaFold

    Raises
    ------
    ValueError
        Shapes do not match or a value is not finite.

    Notes
    -----
    It holds only where the norm's output feeds nothing but linear layers (a pre-norm block's
    sublayer input). In a post-LN model such as BERT the norm's output is also the residual stream
    that the next block adds to, so γ and β cannot leave it. Source: this project.
    """
    w = as_float64(weight, "weight")
    if w.ndim != 2:
        raise ValueError(f"weight must be (m, d), got shape {w.shape}")
    m, d = w.shape
    if not np.all(np.isfinite(w)):
        raise ValueError("weight contains NaN or infinity")
    g = check_param(gamma, "gamma", (d,), "the weight's input size", 1.0)
    b_in = check_param(beta, "beta", (d,), "the weight's input size", 0.0)
    b = check_param(bias, "bias", (m,), "the weight's output size", 0.0)
    return GammaFold(weight=w * g, bias=b + w @ b_in)


def site_readers(weights: BertWeights, site: int) -> tuple[str, ...]:
    """The linear layers of a BERT encoder that read normalization site ``site``'s output directly.

    Parameters
    ----------
    weights : BertWeights
    site : int
        0-based, forward order (``embeddings.LayerNorm``, then each layer's attention and output norms).

    Returns
    -------
    tuple of str
        The layers' PyTorch names: the next attention's query, key and value after the embeddings'
        norm or a layer's output norm, the feed-forward block's first layer after an attention norm;
        none after the last site (its output is the encoder's).

    Raises
    ------
    ValueError
        ``site`` is not one of the model's sites.

    Notes
    -----
    Source: Hugging Face ``transformers.models.bert.modeling_bert`` (post-LN layout).
    """
    cfg = weights.config
    if not 0 <= site < cfg.n_sites:
        raise ValueError(f"site must be between 0 and {cfg.n_sites - 1}, got {site}")
    if site % 2 == 1:  # after layer l's attention: its feed-forward block reads it
        return (f"encoder.layer.{(site - 1) // 2}.intermediate.dense",)
    layer = site // 2  # after the embeddings or the layer before's feed-forward block: this attention
    if layer >= cfg.n_layers:
        return ()
    return tuple(f"encoder.layer.{layer}.attention.self.{p}" for p in ("query", "key", "value"))


def fold_site(weights: BertWeights, site: int) -> BertWeights:
    """The encoder with site ``site``'s γ and β folded into the layers that read it (:func:`site_readers`,
    by :func:`fold_gamma`, rounded to float32 as the model's weights are). Run it with
    ``Intervention(unit_affine=True, sites=(site,))``: the readers compute what they did, while the
    residual add that also takes the site's output now gets x̂ instead of γ ⊙ x̂ + β.

    Parameters
    ----------
    weights : BertWeights
    site : int

    Returns
    -------
    BertWeights
        A copy; ``weights`` is unchanged.

    Raises
    ------
    ValueError
        ``site`` is not one of the model's sites.

    Notes
    -----
    Source: this project; the folding is the one QuaRot's code does for pre-norm models (Ashkboos et
    al. 2024, arXiv:2404.00456, ``fuse_ln_linear``).
    """
    tensors = dict(weights.tensors)
    gamma, beta = weights.norm_gamma[site], weights.norm_beta[site]
    for name in site_readers(weights, site):
        folded = fold_gamma(gamma, beta, tensors[f"{name}.weight"], tensors[f"{name}.bias"])
        tensors[f"{name}.weight"] = folded.weight.astype(np.float32)
        tensors[f"{name}.bias"] = folded.bias.astype(np.float32)
    return replace(weights, tensors=tensors)


@dataclass(frozen=True)
class FoldCheck:
    """A norm's output through the next linear layer, with γ and β as they are and folded in.

    Attributes
    ----------
    max_difference : float
        The largest ``|W (γ ⊙ x̂ + β) + b − (W' x̂ + b')|`` over every token and output.
    max_output : float
        The largest ``|W (γ ⊙ x̂ + β) + b|``, for scale.

    Notes
    -----
    Source: this project.
    """

    max_difference: float
    max_output: float


@finite_results()
def fold_check(
    x: ArrayLike,
    gamma: ArrayLike,
    beta: ArrayLike,
    weight: ArrayLike,
    bias: ArrayLike | None = None,
    *,
    eps: float = DEFAULT_EPS,
) -> FoldCheck:
    """Normalize ``x`` (LayerNorm over the last axis) and compare the linear layer on ``γ ⊙ x̂ + β`` with
    the layer of :func:`fold_gamma` on ``x̂`` alone, in float64.

    Parameters
    ----------
    x : array_like, shape (n, d)
        Tokens entering the norm.
    gamma, beta : array_like, shape (d,)
    weight : array_like, shape (m, d)
    bias : array_like, shape (m,), optional
    eps : float

    Returns
    -------
    FoldCheck

    Raises
    ------
    ValueError
        Shapes do not match, a value is not finite, or ``eps`` is negative.

    Notes
    -----
    Source: this project.
    """
    x_hat = layer_norm(x, eps=eps)
    folded = fold_gamma(gamma, beta, weight, bias)
    w = as_float64(weight, "weight")
    g = check_param(gamma, "gamma", (w.shape[1],), "the weight's input size", 1.0)
    b_in = check_param(beta, "beta", (w.shape[1],), "the weight's input size", 0.0)
    b = check_param(bias, "bias", (w.shape[0],), "the weight's output size", 0.0)
    plain = (g * x_hat + b_in) @ w.T + b
    return FoldCheck(
        max_difference=float(np.max(np.abs(plain - (x_hat @ folded.weight.T + folded.bias)))),
        max_output=float(np.max(np.abs(plain))),
    )


@dataclass(frozen=True)
class SiteDyT:
    """DyT's parameters for one normalization site, as plain tuples (hashable, for a cache key).

    Attributes
    ----------
    alpha : float
    gamma, beta : tuple of float, length d

    Notes
    -----
    Source: this project.
    """

    alpha: float
    gamma: tuple[float, ...]
    beta: tuple[float, ...]


def fit_sites(inputs: ArrayLike, outputs: ArrayLike, attention_mask: ArrayLike) -> tuple[SiteDyT, ...]:
    """DyT fitted (:func:`fit_dyt`, one γ and β per feature) to each site's recorded LayerNorm, over the
    real tokens of every sentence: what replaces each LayerNorm, γ and β included.

    Parameters
    ----------
    inputs, outputs : array_like, shape (S, B, T, d)
        Each site's LayerNorm inputs and outputs.
    attention_mask : array_like, shape (B, T)
        1 for real tokens (the fit uses only those).

    Returns
    -------
    tuple of SiteDyT, one per site

    Raises
    ------
    ValueError
        Shapes do not match, a value is not finite, or fewer than 2 real tokens.

    Notes
    -----
    Source: this project; DyT is Zhu et al. (2025).
    """
    x_all, y_all = as_float64(inputs, "inputs"), as_float64(outputs, "outputs")
    real = np.asarray(attention_mask).astype(bool)
    if x_all.ndim != 4 or x_all.shape != y_all.shape or x_all.shape[1:3] != real.shape:
        raise ValueError(
            f"inputs {x_all.shape} and outputs {y_all.shape} must be (S, B, T, d), with attention_mask "
            f"{real.shape} as (B, T)"
        )
    fits = []
    for site in range(x_all.shape[0]):
        f = fit_dyt(x_all[site][real], y_all[site][real])
        fits.append(SiteDyT(f.alpha, tuple(f.gamma.tolist()), tuple(f.beta.tolist())))
    return tuple(fits)
