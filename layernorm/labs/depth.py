"""A deep stack of random layers: watch activations and gradients drift, explode or vanish.

One seeded simulation: a batch of ``N`` random inputs of width ``d`` goes through
``L`` layers, each ``a = h @ W`` with ``W`` drawn from ``N(0, gain**2 / d)``,
an activation, optionally a residual connection, and optionally a normalization:

- no residual:            ``h' = act(Norm(h @ W))``  (normalize before the activation)
- residual, post-norm:    ``h' = Norm(h + act(h @ W))``  (after the add, as in BERT)
- residual, pre-norm:     ``h' = h + act(Norm(h) @ W)``  (before the sublayer, as in GPT-2; LLaMA places
  RMSNorm, not LayerNorm, there)
- residual, Peri-LN:      ``h' = h + Norm(act(Norm(h) @ W))``  (the sublayer's input and its output,
  Kim et al. 2025)
- residual, output norm:  ``h' = h + Norm(act(h @ W))``  (the sublayer's output only, OLMo 2's
  "reordered norm", Team OLMo 2025)

Then one backward pass of the loss ``sum(h_L * r) / N`` (``r`` a fixed random
direction) gives ``dL/dh_l`` and ``dL/dW_l`` for every layer, using
:mod:`layernorm.backward`. Everything is float64, seeded, and inside
``np.errstate``: an overflow stops the pass and is reported in words
(``"exploded: overflowed float64 at layer k"``), never handed on as inf or NaN.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from layernorm._checks import F64
from layernorm.backward import batch_norm_backward, layer_norm_backward, rms_norm_backward
from layernorm.batch import batch_norm_train
from layernorm.core import layer_norm
from layernorm.family import rms_norm

ACTIVATIONS = ("linear", "tanh", "relu", "gelu")
NORMS = ("none", "layernorm", "batchnorm", "rmsnorm")
PLACEMENTS = ("post", "pre", "peri", "output")
EPS = 1e-5
EXPLODE, VANISH = 1e4, 1e-4  # a change of scale by 10^4 either way is called exploded / vanished
_SQRT_2_PI = float(np.sqrt(2.0 / np.pi))


@dataclass(frozen=True)
class DepthConfig:
    """Settings of one simulation; ``validated()`` clamps nothing, it refuses.

    Attributes
    ----------
    n_layers : int, default 20
        Depth ``L``, 1 to 1000.
    width : int, default 128
        Features per sample ``d`` (each weight is ``(d, d)``), 2 to 4096.
    gain : float, default 1.0
        Weights are drawn from ``N(0, gain**2 / d)``; finite and > 0 (dimensionless).
    activation : {"linear", "tanh", "relu", "gelu"}, default "tanh"
    residual : bool, default False
        Add a residual connection around each layer.
    norm : {"none", "layernorm", "batchnorm", "rmsnorm"}, default "none"
        Normalization without learned scale (gamma = 1, beta = 0), eps = 1e-5.
    placement : {"post", "pre", "peri", "output"}, default "post"
        Where the norm sits in a residual layer (ignored without ``residual``); "peri" normalizes the
        sublayer's input and its output, "output" its output only.
    batch : int, default 32
        Samples ``N`` in the batch, 2 to 4096 (BatchNorm needs at least 2).
    seed : int, default 0
        Seed of ``numpy.random.default_rng`` for weights, inputs and loss direction.

    Notes
    -----
    Source: this project (teaching simulation), after Glorot & Bengio (2010),
    He et al. (2015) and Xiong et al. (2020) on post- vs pre-LN.
    """

    n_layers: int = 20
    width: int = 128
    gain: float = 1.0
    activation: str = "tanh"
    residual: bool = False
    norm: str = "none"
    placement: str = "post"
    batch: int = 32
    seed: int = 0

    def validated(self) -> DepthConfig:
        """Return ``self`` after checking every field; raise ``ValueError`` naming the bad one."""
        if not 1 <= self.n_layers <= 1000:
            raise ValueError(f"n_layers must be between 1 and 1000, got {self.n_layers}")
        if not 2 <= self.width <= 4096:
            raise ValueError(f"width must be between 2 and 4096, got {self.width}")
        if not 2 <= self.batch <= 4096:
            raise ValueError(f"batch must be between 2 and 4096 (BatchNorm needs 2), got {self.batch}")
        if not (np.isfinite(self.gain) and self.gain > 0):
            raise ValueError(f"gain must be a finite number > 0, got {self.gain}")
        for name, value, allowed in (
            ("activation", self.activation, ACTIVATIONS),
            ("norm", self.norm, NORMS),
            ("placement", self.placement, PLACEMENTS),
        ):
            if value not in allowed:
                raise ValueError(f"{name} must be one of {allowed}, got {value!r}")
        return self


@dataclass(frozen=True)
class DepthResult:
    """Per-layer statistics of one run. Index 0 is the input, index ``l`` the output of layer ``l``.

    Only finite numbers are stored: if the forward pass overflowed at layer ``k``
    the activation arrays stop at layer ``k - 1`` (``n_computed = k - 1``) and
    ``status`` says so; gradients are then not computed (``grad_layers`` empty).

    Attributes
    ----------
    config : DepthConfig
        The validated settings that produced this result.
    n_computed : int
        Number of layers whose output is finite (``L`` unless the pass overflowed).
    activations : (n_computed + 1, N, d) ndarray of float64
        Input (index 0) and the output of each computed layer.
    act_mean : (n_computed + 1,) ndarray of float64
        Mean over batch and features, per layer.
    act_std : (n_computed + 1,) ndarray of float64
        Standard deviation over batch and features, per layer.
    act_absmax : (n_computed + 1,) ndarray of float64
        Largest ``|h|`` per layer.
    grad_layers : (n_grad,) ndarray of float64
        Layer numbers ``l = 1..L`` whose gradients are finite, top layer first.
    grad_w_norm : (n_grad,) ndarray of float64
        Frobenius norm of ``dL/dW_l``.
    grad_h_norm : (n_grad,) ndarray of float64
        Norm of ``dL/dh_{l-1}``, the gradient arriving below layer ``l``.
    status : str
        Forward-pass verdict in words (stable, growing, exploded, ...).
    grad_status : str
        Backward-pass verdict in words.
    exploded, vanished : bool
        Whether activations (or gradients, for ``exploded``) changed scale by more
        than 10^4 either way, or overflowed.

    Notes
    -----
    Source: this project (teaching simulation).
    """

    config: DepthConfig
    n_computed: int
    activations: F64  # (n_computed + 1, N, d)
    act_mean: F64  # (n_computed + 1,) mean over batch and features
    act_std: F64  # (n_computed + 1,) std over batch and features
    act_absmax: F64  # (n_computed + 1,)
    grad_layers: F64  # (n_grad,) layer numbers l = 1..L whose gradients are finite, top layer first
    grad_w_norm: F64  # (n_grad,) Frobenius norm of dL/dW_l
    grad_h_norm: F64  # (n_grad,) norm of dL/dh_{l-1}, the gradient arriving below layer l
    status: str  # forward pass in words
    grad_status: str  # backward pass in words
    exploded: bool
    vanished: bool


def _act(name: str, a: F64) -> tuple[F64, F64]:
    """Activation and its derivative. GELU is the tanh form (Hendrycks & Gimpel 2016)."""
    if name == "linear":
        return a, np.ones_like(a)
    if name == "tanh":
        t = np.tanh(a)
        return t, 1.0 - t * t
    if name == "relu":
        return np.maximum(a, 0.0), (a > 0).astype(np.float64)
    c = np.clip(a, -10.0, 10.0)  # beyond |a| = 10 GELU equals ReLU to float64 precision
    inner = _SQRT_2_PI * (c + 0.044715 * c**3)
    t = np.tanh(inner)
    y = 0.5 * c * (1.0 + t)
    dy = 0.5 * (1.0 + t) + 0.5 * c * (1.0 - t * t) * _SQRT_2_PI * (1.0 + 3 * 0.044715 * c * c)
    big = np.abs(a) > 10.0
    return np.where(big, np.maximum(a, 0.0), y), np.where(big, (a > 0).astype(np.float64), dy)


def _norm(name: str) -> tuple[Callable[[F64], F64], Callable[[F64, F64], F64]]:
    """Forward and input-gradient of a normalization without learned scale (gamma = 1, beta = 0)."""
    if name == "layernorm":
        return (lambda x: layer_norm(x, eps=EPS)), (lambda x, g: layer_norm_backward(x, None, g, eps=EPS)[0])
    if name == "rmsnorm":
        return (lambda x: rms_norm(x, eps=EPS)), (lambda x, g: rms_norm_backward(x, None, g, eps=EPS)[0])
    if name == "batchnorm":
        d_zero: Callable[[F64], F64] = lambda x: np.zeros(x.shape[1])  # noqa: E731
        return (
            lambda x: batch_norm_train(x, None, None, d_zero(x), d_zero(x) + 1.0, eps=EPS)[0],
            lambda x, g: batch_norm_backward(x, None, g, eps=EPS)[0],
        )
    return (lambda x: x), (lambda x, g: g)


def _safe_norm(a: F64) -> float:
    """Frobenius norm without overflow: squaring 1e200 would give inf, so rescale by max |a| first."""
    m = float(np.max(np.abs(a)))
    return 0.0 if m == 0 else m * float(np.linalg.norm(a / m))


def sig(v: float, digits: int) -> str:
    """``v`` to ``digits`` significant digits, trailing zeros kept, so a rounded value never reads as an
    exact one (0.999995 is "1.00", not "1"); an exact whole number keeps no trailing point.

    Parameters
    ----------
    v : float
        Any float, in whatever units it has (``inf`` and ``nan`` are written as Python writes them).
    digits : int
        Significant digits, at least 1.

    Returns
    -------
    str
        As the simulation's verdicts write numbers ("2.50e+07", "0.0310").

    Notes
    -----
    Source: Python's ``#g`` format (the ``#`` keeps trailing zeros).
    """
    return f"{float(v):#.{digits}g}".replace(".e", "e").rstrip(".")


def _forward_status(std: F64, overflow_at: int | None) -> tuple[str, bool, bool]:
    if overflow_at is not None:
        return f"exploded: the values overflowed float64 (above 1.8e308) at layer {overflow_at}", True, False
    ratio = std / std[0]
    up = np.flatnonzero(ratio > EXPLODE)
    down = np.flatnonzero(ratio < VANISH)
    if up.size:
        return (
            f"exploded at layer {up[0]}: std grew from {sig(std[0], 3)} to {sig(std[-1], 3)}",
            True,
            False,
        )
    if down.size:
        return (
            f"vanished at layer {down[0]}: std shrank from {sig(std[0], 3)} to {sig(std[-1], 3)}",
            False,
            True,
        )
    if ratio[-1] > 4:
        return f"growing: std {sig(std[0], 3)} → {sig(std[-1], 3)}, not exploded yet", False, False
    if ratio[-1] < 0.25:
        return f"shrinking: std {sig(std[0], 3)} → {sig(std[-1], 3)}, not vanished yet", False, False
    return f"stable: std {sig(std[0], 3)} → {sig(std[-1], 3)}", False, False


def _grad_status(h_norm: F64, overflow_at: int | None) -> str:
    if overflow_at is not None:
        return f"gradients exploded: overflowed float64 below layer {overflow_at}"
    ratio = h_norm[-1] / h_norm[0]  # bottom (reaching the input) / top (leaving the output)
    if ratio > EXPLODE:
        return f"gradients exploded: {sig(ratio, 2)}× larger at the input than at the output"
    if ratio < VANISH:
        return f"gradients vanished: {sig(ratio, 2)}× the size at the output by the time they reach the input"
    if ratio > 4:  # the forward verdict's thresholds: a trend, not yet a failure
        return f"gradients growing: {sig(ratio, 3)}× larger at the input than at the output, not exploded yet"
    if ratio < 0.25:
        return f"gradients shrinking: {sig(ratio, 3)}× the size at the output at the input, not vanished yet"
    return f"gradients stable: {sig(ratio, 3)}× the size at the output when they reach the input"


def simulate_depth(config: DepthConfig) -> DepthResult:
    """Run the seeded forward and backward pass of a deep stack and summarise every layer.

    Parameters
    ----------
    config : DepthConfig
        Depth ``L``, width ``d``, weight gain, activation, residual on/off, norm
        and placement, batch size ``N``, seed.

    Returns
    -------
    DepthResult
        Activations ``(L + 1, N, d)`` and per-layer statistics, gradient norms per
        layer, and the verdicts ``status`` / ``grad_status`` in words.

    Raises
    ------
    ValueError
        A setting out of range (see :meth:`DepthConfig.validated`).

    Notes
    -----
    The same config always gives the same numbers (``numpy.random.default_rng(seed)``).
    Sources: Glorot & Bengio (2010) and He et al. (2015) on initialisation
    gain; Ba, Kiros & Hinton (2016); Xiong et al. (2020) on post- vs pre-LN; Kim et al. (2025),
    "Peri-LN" (arXiv:2502.02732); Team OLMo (2025), "2 OLMo 2 Furious" (arXiv:2501.00656), §2.1.
    """
    cfg = config.validated()
    rng = np.random.default_rng(cfg.seed)
    d, n_layers = cfg.width, cfg.n_layers
    weights = rng.normal(0.0, cfg.gain / np.sqrt(d), size=(n_layers, d, d))
    h = rng.normal(size=(cfg.batch, d))
    direction = rng.normal(size=(cfg.batch, d))
    norm_f, norm_b = _norm(cfg.norm)
    hs, cache = [h], []
    overflow_at: int | None = None
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        for layer, w in enumerate(weights, start=1):
            try:
                if not cfg.residual:
                    z = h @ w
                    n = norm_f(z)
                    out, dact = _act(cfg.activation, n)
                    cache.append((h, z, n, dact))
                elif cfg.placement == "post":
                    a = h @ w
                    f, dact = _act(cfg.activation, a)
                    u = h + f
                    out = norm_f(u)
                    cache.append((h, a, u, dact))
                elif cfg.placement == "pre":
                    n = norm_f(h)
                    a = n @ w
                    f, dact = _act(cfg.activation, a)
                    out = h + f
                    cache.append((h, a, n, dact))
                else:  # peri and output: the output norm takes the sublayer's output f, cached as "pre"
                    n = norm_f(h) if cfg.placement == "peri" else h
                    f, dact = _act(cfg.activation, n @ w)
                    out = h + norm_f(f)
                    cache.append((h, f, n, dact))
            except ValueError:  # the core refuses inf/NaN or values too large to subtract
                out = np.array([np.inf])
            if not np.all(np.isfinite(out)):
                overflow_at = layer
                cache = cache[: layer - 1]
                break
            h = out
            hs.append(h)
        acts = np.stack(hs)
        n_computed = len(hs) - 1
        flat = acts.reshape(n_computed + 1, -1)
        absmax = np.max(np.abs(flat), axis=1)
        scale = np.where(absmax > 0, absmax, 1.0)[:, None]  # rescale first: squares of 1e300 overflow
        std = (flat / scale).std(axis=1) * scale[:, 0]
        mean = (flat / scale).mean(axis=1) * scale[:, 0]
        status, exploded, vanished = _forward_status(std, overflow_at)
        g_layers: list[int] = []
        g_w: list[float] = []
        g_h: list[float] = []
        grad_overflow: int | None = None
        if overflow_at is None:
            dh = direction / cfg.batch
            g_h_top = _safe_norm(dh)
            for layer in range(n_layers, 0, -1):
                w = weights[layer - 1]
                h_in, pre, mid, dact = cache[layer - 1]
                try:
                    if not cfg.residual:
                        dz = norm_b(pre, dh * dact)
                        dw, dh = h_in.T @ dz, dz @ w.T
                    elif cfg.placement == "post":
                        du = norm_b(mid, dh)
                        da = du * dact
                        dw, dh = h_in.T @ da, du + da @ w.T
                    elif cfg.placement == "pre":
                        da = dh * dact
                        dw, dh = mid.T @ da, dh + norm_b(h_in, da @ w.T)
                    else:
                        da = norm_b(pre, dh) * dact
                        back = da @ w.T
                        dw, dh = mid.T @ da, dh + (norm_b(h_in, back) if cfg.placement == "peri" else back)
                except ValueError:
                    dh = np.array([np.inf])
                    dw = dh
                if not (np.all(np.isfinite(dh)) and np.all(np.isfinite(dw))):
                    grad_overflow = layer
                    break
                g_layers.append(layer)
                g_w.append(_safe_norm(dw))
                g_h.append(_safe_norm(dh))
            grad_status = _grad_status(np.array([g_h_top, *g_h]), grad_overflow)
        else:
            grad_status = "no gradients: the forward pass overflowed first"
        if grad_overflow is not None:
            exploded = True
    return DepthResult(
        config=cfg,
        n_computed=n_computed,
        activations=acts,
        act_mean=mean,
        act_std=std,
        act_absmax=absmax,
        grad_layers=np.array(g_layers, dtype=np.float64),
        grad_w_norm=np.array(g_w),
        grad_h_norm=np.array(g_h),
        status=status,
        grad_status=grad_status,
        exploded=exploded,
        vanished=vanished,
    )


def layer_histograms(result: DepthResult, layers: list[int], bins: int = 40) -> tuple[F64, F64]:
    """Histograms of the activations at ``layers`` on one shared set of bin edges.

    Parameters
    ----------
    result : DepthResult
        A finished simulation (its ``activations`` are ``(n_computed + 1, N, d)``).
    layers : list of int
        Layer numbers ``0 <= l <= result.n_computed`` (0 is the input); not empty.
    bins : int, default 40
        Number of equal-width bins spanning all selected values.

    Returns
    -------
    counts : (len(layers), bins) ndarray of float64
        Fraction of the ``N * d`` values in each bin (each row sums to 1).
    edges : (bins + 1,) ndarray of float64
        Shared bin edges, in the units of the activations.

    Raises
    ------
    ValueError
        A layer that was not computed, an empty ``layers``, or ``bins < 1``.

    Notes
    -----
    Source: this project (teaching simulation); binning by :func:`numpy.histogram`.
    """
    if bins < 1:
        raise ValueError(f"bins must be at least 1, got {bins}")
    bad = [layer for layer in layers if not 0 <= layer <= result.n_computed]
    if bad or not layers:
        raise ValueError(f"layers must be between 0 and {result.n_computed} (computed layers), got {layers}")
    values = result.activations[layers].reshape(len(layers), -1)
    lo, hi = float(values.min()), float(values.max())
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    edges = np.linspace(lo, hi, bins + 1)
    counts = np.stack([np.histogram(v, bins=edges)[0] for v in values]).astype(np.float64)
    return counts / values.shape[1], edges
