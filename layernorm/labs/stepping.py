"""One small MLP trained step by step, with its per-layer statistics recorded at every step.

The task is the Learning rate lesson's (:func:`layernorm.labs.training.make_task`: 64 inputs of 8
numbers, a scalar target from a random teacher). The network has ``depth`` hidden layers of
``width`` ReLU units; layer ``l`` computes::

    a = h @ W + b                       the layer's pre-activation (what "drifts")
    z = a                               (none)
    z = gamma * LayerNorm_rows(a) + beta      (layernorm: each example over its units)
    z = gamma * BatchNorm_cols(a) + beta      (batchnorm: each unit over the batch's examples)
    h' = relu(z)                        the layer's output, the next layer's input

trained by full-batch gradient descent on ``loss = mean((y_hat - y)**2) / 2``; gamma starts at 1
and beta at 0, and both are learned. Before each step the run records, per layer, the mean and
standard deviation of ``a`` and of ``h'`` over every example and unit, and the mean of gamma and
beta: the statistics a student watches change as training goes on.

Runs with the same seed start from the same weights whatever the normalization. A run whose loss
leaves float64's comfortable range (not finite, or over ``DIVERGE_FACTOR`` times its start) stops
there: ``diverged_at`` says at which step, and the later entries of every curve are NaN.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from layernorm._checks import F64
from layernorm.backward import layer_norm_input_grad
from layernorm.labs.training import D_IN, EPS, check_settings, make_task
from layernorm.steps import layer_norm_x_hat

NORMALIZATIONS = ("none", "layernorm", "batchnorm")
MAX_STEPS = 300
DIVERGE_FACTOR = 1e6


@dataclass(frozen=True)
class SteppedRun:
    """Curves of one training run. Axes: ``T + 1`` steps (before each update, and after the last),
    ``L`` hidden layers.

    Attributes
    ----------
    norm : str
        One of :data:`NORMALIZATIONS`.
    lr, depth, width, seed, steps : the settings
    loss : (T + 1,) ndarray
        Training loss at each step (NaN from a divergence on).
    pre_mean, pre_std : (T + 1, L) ndarray
        Mean and standard deviation of each layer's ``a = h @ W + b`` over examples and units.
    out_mean, out_std : (T + 1, L) ndarray
        The same for each layer's output ``relu(z)``, what the next layer reads.
    gamma_mean, beta_mean : (T + 1, L) ndarray
        Mean of each layer's learned gamma and beta; 1 and 0 throughout for ``"none"``, which has
        no affine step.
    gamma_off, beta_off : (T + 1, L) ndarray
        The largest ``|gamma - 1|`` and ``|beta|`` over each layer's units: how far the learned
        affine step is from doing nothing (0 and 0 throughout for ``"none"``).
    diverged_at : int
        The step at which the loss stopped being usable, or -1.

    Notes
    -----
    Source: this project (a teaching simulation).
    """

    norm: str
    lr: float
    depth: int
    width: int
    seed: int
    steps: int
    loss: F64
    pre_mean: F64
    pre_std: F64
    out_mean: F64
    out_std: F64
    gamma_mean: F64
    beta_mean: F64
    gamma_off: F64
    beta_off: F64
    diverged_at: int


def _normalize(a: F64, norm: str) -> tuple[F64, F64]:
    """``x_hat`` and its divisor: over each example's units (LayerNorm) or each unit's examples."""
    if norm == "layernorm":
        return layer_norm_x_hat(a, eps=EPS)
    x_hat, std = layer_norm_x_hat(np.ascontiguousarray(a.T), eps=EPS)  # BatchNorm = LayerNorm of a.T
    return x_hat.T, std.T


def _normalize_grad(x_hat: F64, std: F64, d_x_hat: F64, norm: str) -> F64:
    if norm == "layernorm":
        return layer_norm_input_grad(x_hat, std, d_x_hat)
    return layer_norm_input_grad(x_hat.T, std.T, d_x_hat.T).T


def train_stepped(
    norm: str, *, lr: float = 0.1, depth: int = 4, width: int = 32, steps: int = 200, seed: int = 0
) -> SteppedRun:
    """Train the MLP for ``steps`` full-batch steps, recording every layer's statistics at each.

    Parameters
    ----------
    norm : {"none", "layernorm", "batchnorm"}
    lr : float, 1e-4 .. 10
        Learning rate (per unit of loss gradient).
    depth : int, 1 .. 8
        Hidden layers.
    width : int, 4 .. 128
        Units per hidden layer.
    steps : int, 1 .. MAX_STEPS
    seed : int, 0 .. 2**31 - 1
        Initial weights (He initialisation, ``numpy.random.default_rng(seed)``).

    Returns
    -------
    SteppedRun
        Deterministic: the same arguments give the same bits.

    Raises
    ------
    ValueError
        A setting out of range or an unknown ``norm``.

    Notes
    -----
    LayerNorm's forward and backward are :func:`layernorm.layer_norm_x_hat` and
    :func:`layernorm.backward.layer_norm_input_grad`; BatchNorm (training mode, full batch) is
    the same normalization over the other axis. Source: this project.
    """
    if norm not in NORMALIZATIONS:
        raise ValueError(f"norm must be one of {list(NORMALIZATIONS)}, got {norm!r}")
    check_settings(
        ("lr", lr, 1e-4, 10),
        ("depth", depth, 1, 8),
        ("width", width, 4, 128),
        ("steps", steps, 1, MAX_STEPS),
        ("seed", seed, 0, 2**31 - 1),
    )
    x, y = make_task()
    rng = np.random.default_rng(seed)
    sizes = [D_IN] + [width] * depth
    ws = [rng.normal(0, np.sqrt(2.0 / a), size=(a, b)) for a, b in itertools.pairwise(sizes)]
    bs = [np.zeros(width) for _ in range(depth)]
    w_out, b_out = rng.normal(0, 1.0 / np.sqrt(width), size=(width, 1)), np.zeros(1)
    gammas, betas = [np.ones(width) for _ in range(depth)], [np.zeros(width) for _ in range(depth)]
    curves = {
        k: np.full((steps + 1, depth), np.nan) for k in ("pm", "ps", "om", "os", "gm", "bm", "go", "bo")
    }
    loss = np.full(steps + 1, np.nan)
    diverged_at = -1
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        for step in range(steps + 1):
            h, cache = x, []
            for layer in range(depth):
                a = h @ ws[layer] + bs[layer]
                if not np.all(np.isfinite(a)):
                    break
                if norm == "none":
                    x_hat, std, z = a, None, a
                else:
                    x_hat, std = _normalize(a, norm)
                    z = gammas[layer] * x_hat + betas[layer]
                cache.append((h, x_hat, std, z))
                h = np.maximum(z, 0.0)
                for key, v in (("pm", a.mean()), ("ps", a.std()), ("om", h.mean()), ("os", h.std())):
                    curves[key][step, layer] = v
                curves["gm"][step, layer] = gammas[layer].mean()
                curves["bm"][step, layer] = betas[layer].mean()
                curves["go"][step, layer] = np.max(np.abs(gammas[layer] - 1.0))
                curves["bo"][step, layer] = np.max(np.abs(betas[layer]))
            else:
                err = h @ w_out + b_out - y
                loss[step] = 0.5 * float(np.mean(err**2))
            if not (np.isfinite(loss[step]) and loss[step] <= DIVERGE_FACTOR * loss[0]):
                diverged_at = step
                loss[step] = np.nan
                for c in curves.values():
                    c[step:] = np.nan
                break
            if step == steps:
                break
            d_out = err / x.shape[0]
            g_w_out, g_b_out = h.T @ d_out, d_out.sum(axis=0)
            dh = d_out @ w_out.T
            for layer in range(depth - 1, -1, -1):
                h_in, x_hat, std, z = cache[layer]
                dz = dh * (z > 0)
                if std is None:  # no normalization
                    da = dz
                else:
                    d_gamma, d_beta = np.sum(dz * x_hat, axis=0), np.sum(dz, axis=0)
                    da = _normalize_grad(x_hat, std, dz * gammas[layer], norm)
                    gammas[layer] = gammas[layer] - lr * d_gamma
                    betas[layer] = betas[layer] - lr * d_beta
                if layer:
                    dh = da @ ws[layer].T
                ws[layer] = ws[layer] - lr * (h_in.T @ da)
                bs[layer] = bs[layer] - lr * da.sum(axis=0)
            w_out, b_out = w_out - lr * g_w_out, b_out - lr * g_b_out
    return SteppedRun(
        norm=norm,
        lr=float(lr),
        depth=depth,
        width=width,
        seed=seed,
        steps=steps,
        loss=loss,
        pre_mean=curves["pm"],
        pre_std=curves["ps"],
        out_mean=curves["om"],
        out_std=curves["os"],
        gamma_mean=curves["gm"],
        beta_mean=curves["bm"],
        gamma_off=curves["go"],
        beta_off=curves["bo"],
        diverged_at=diverged_at,
    )


@dataclass(frozen=True)
class OutputDrift:
    """How the last layer's output spread moved between step 0 and step ``t`` of one run, beside
    how far the learned affine step moved meanwhile.

    Attributes
    ----------
    start, end : float
        Standard deviation of the last hidden layer's output ``relu(z)`` at step 0 and at step ``t``.
    change : float or None
        ``(end - start) / start``; None when ``start`` is 0 (a dead layer).
    gamma_off, beta_off : float
        The largest ``|gamma - 1|`` and ``|beta|`` over every unit of every layer and every step up
        to ``t``: 0 and 0 for ``"none"`` (no affine step) and at step 0.
    """

    start: float
    end: float
    change: float | None
    gamma_off: float
    beta_off: float


def output_drift(run: SteppedRun, t: int) -> OutputDrift | None:
    """The last layer's spread at steps 0 and ``t``, and the affine step's largest move up to ``t``.

    Returns None when the run diverged at or before step ``t`` (its curves are NaN from there).

    Raises
    ------
    ValueError
        ``t`` outside ``0 .. run.steps``.
    """
    if not 0 <= t <= run.steps:
        raise ValueError(f"t must be between 0 and {run.steps}, got {t}")
    if 0 <= run.diverged_at <= t:
        return None
    start, end = float(run.out_std[0, -1]), float(run.out_std[t, -1])
    return OutputDrift(
        start=start,
        end=end,
        change=(end - start) / start if start > 0 else None,
        gamma_off=float(np.max(run.gamma_off[: t + 1])),
        beta_off=float(np.max(run.beta_off[: t + 1])),
    )
