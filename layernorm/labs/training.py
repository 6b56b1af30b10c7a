"""Train a small MLP with and without LayerNorm over a grid of learning rates and seeds.

The task is made in code: ``N`` random inputs of size ``D_IN`` and a scalar target
from a fixed random "teacher" network (a tanh layer), scaled to variance 1. The
student is an MLP of ``depth`` hidden layers of ``width`` ReLU units::

    none:       h' = relu(h @ W + b)
    layernorm:  h' = relu(LayerNorm(h @ W + b))        (no learned gamma/beta)
    output:     y_hat = h @ w_out + b_out,  loss = mean((y_hat - y)**2) / 2

trained by full-batch gradient descent. All runs of one normalization setting
(every learning rate x every seed) are stacked along a leading ``R`` axis and
trained together, so a sweep is a few hundred batched matrix products. Runs with
the same seed start from the same weights, with or without LayerNorm.

A run *diverges* when its loss becomes non-finite or exceeds ``DIVERGE_FACTOR``
times the larger of its own starting loss and the zero predictor's, or a
value passes 1e150; from then on it is frozen
(its parameters are set to 0 so the other runs stay finite) and its loss curve
stops at the step before (later entries are NaN, ``diverged_at`` says where).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from layernorm._checks import F64
from layernorm.backward import layer_norm_backward_from_steps
from layernorm.core import layer_norm_steps

NORMS = ("none", "layernorm")
D_IN = 8
N_SAMPLES = 64
EPS = 1e-5
DIVERGE_FACTOR = 1e3
_HUGE = 1e150
DEFAULT_LRS = tuple(float(v) for v in np.logspace(-3, 1, 9))  # 0.001 ... 10

Progress = Callable[[float, str], None]


@dataclass(frozen=True)
class Sweep:
    """Results of a sweep. Axes: ``K`` norms, ``M`` learning rates, ``S`` seeds, ``T`` steps.

    Attributes
    ----------
    norms : tuple of str, length K
        Normalization settings, taken from ``("none", "layernorm")``.
    lrs : (M,) ndarray
        Learning rates (1 / loss units per step).
    seeds : (S,) ndarray of int
        Seeds of the initial weights, ``0 .. S - 1``.
    loss : (K, M, S, T + 1) ndarray
        Training loss before each step and after the last; NaN after divergence.
    diverged_at : (K, M, S) ndarray of int
        Step at which the run diverged, -1 if it never did.
    final_loss : (K, M, S) ndarray
        Loss after the last step; NaN for diverged runs.
    initial_loss : float
        Loss of the zero predictor (the target's variance / 2 = 0.5).
    depth, width, steps : int
        Hidden layers, units per hidden layer and gradient-descent steps ``T``.
    init_gain : float
        Multiplier on He initialisation.

    Notes
    -----
    Source: this project (teaching simulation) of the claim in Ba, Kiros & Hinton (2016),
    section 6.
    """

    norms: tuple[str, ...]
    lrs: F64
    seeds: np.ndarray
    loss: F64
    diverged_at: np.ndarray
    final_loss: F64
    initial_loss: float
    depth: int
    width: int
    steps: int
    init_gain: float

    @property
    def diverged(self) -> np.ndarray:
        """``(K, M, S)`` boolean: did the run diverge."""
        return np.asarray(self.diverged_at >= 0)

    def median_final_loss(self) -> F64:
        """``(K, M)`` median over seeds of the final loss; NaN where every seed diverged."""
        n_norms, n_lrs = int(self.final_loss.shape[0]), int(self.final_loss.shape[1])
        out = np.full((n_norms, n_lrs), np.nan)
        for k in range(n_norms):
            for m in range(n_lrs):
                ok = self.final_loss[k, m][~self.diverged[k, m]]
                if ok.size:
                    out[k, m] = float(np.median(ok))
        return out


def make_task(seed: int = 0) -> tuple[F64, F64]:
    """The regression task: ``x (N, D_IN)`` and ``y (N, 1)`` with ``y`` of mean 0, variance 1.

    Parameters
    ----------
    seed : int, default 0
        Task seed (``numpy.random.default_rng(1000 + seed)``); must make ``1000 + seed >= 0``.

    Returns
    -------
    x : (N_SAMPLES, D_IN) ndarray of float64
        Inputs drawn from ``N(0, 1)`` (dimensionless).
    y : (N_SAMPLES, 1) ndarray of float64
        Targets from a fixed random tanh teacher network, standardized to mean 0 and
        population variance 1.

    Raises
    ------
    ValueError
        ``seed < -1000`` (a negative seed for ``numpy.random.default_rng``).

    Notes
    -----
    Source: this project (teaching simulation; a random teacher network).
    """
    rng = np.random.default_rng(1000 + seed)
    x = rng.normal(size=(N_SAMPLES, D_IN))
    teacher = rng.normal(size=(D_IN, 16)) * 1.5 / np.sqrt(D_IN)
    y = np.tanh(x @ teacher) @ rng.normal(size=(16, 1))
    y = (y - y.mean()) / y.std()
    return x, y


def _init(seeds: np.ndarray, n_lr: int, depth: int, width: int, gain: float) -> list[F64]:
    """``gain`` x He-initialised weights, ``(R, fan_in, fan_out)`` per layer, R = seeds x lrs; biases 0."""
    params: list[F64] = []
    per_seed = []
    for seed in seeds:
        rng = np.random.default_rng(int(seed))
        sizes = [D_IN] + [width] * depth
        ws = [rng.normal(0, gain * np.sqrt(2.0 / a), size=(a, b)) for a, b in itertools.pairwise(sizes)]
        ws.append(rng.normal(0, 1.0 / np.sqrt(width), size=(width, 1)))
        per_seed.append(ws)
    for layer in range(depth + 1):
        stacked = np.stack([np.broadcast_to(ws[layer], (n_lr, *ws[layer].shape)) for ws in per_seed])
        params.append(stacked.reshape(-1, *stacked.shape[2:]).copy())  # (S*M, fan_in, fan_out)
        params.append(np.zeros((stacked.shape[0] * n_lr, 1, stacked.shape[-1])))
    return params  # [W1, b1, W2, b2, ..., W_out, b_out]


def _bad_runs(arr: F64) -> np.ndarray:
    """Runs (leading axis) holding a non-finite or astronomically large value."""
    with np.errstate(invalid="ignore"):
        return np.asarray(~np.all(np.abs(arr) < _HUGE, axis=tuple(range(1, arr.ndim))))


def _train_group(
    norm: str,
    x: F64,
    y: F64,
    lrs: F64,
    seeds: np.ndarray,
    depth: int,
    width: int,
    steps: int,
    gain: float,
    report: Callable[[int], None],
) -> tuple[F64, np.ndarray]:
    """Train every (seed, lr) run of one norm setting at once; returns (loss (R, T+1), diverged_at (R,))."""
    n_runs = len(seeds) * len(lrs)
    params = _init(seeds, len(lrs), depth, width, gain)
    lr = np.tile(lrs, len(seeds))[:, None, None]  # (R, 1, 1), run r = seed * M + lr index
    loss = np.full((n_runs, steps + 1), np.nan)
    diverged_at = np.full(n_runs, -1)
    alive = np.ones(n_runs, dtype=bool)
    limit = np.full(n_runs, DIVERGE_FACTOR * 0.5 * float(np.mean(y**2)))  # raised to 1e3 x own start
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        for step in range(steps + 1):
            h, cache = np.broadcast_to(x, (n_runs, *x.shape)), []
            for layer in range(depth):
                a = h @ params[2 * layer] + params[2 * layer + 1]  # (R, N, width)
                bad = _bad_runs(a) & alive
                alive &= ~bad
                diverged_at[bad] = step
                a = np.where(alive[:, None, None], a, 0.0)
                steps_ln = layer_norm_steps(a, eps=EPS) if norm == "layernorm" else None
                n = a if steps_ln is None else steps_ln.y
                cache.append((h, steps_ln, n))
                h = np.maximum(n, 0.0)
            err = h @ params[-2] + params[-1] - y  # (R, N, 1)
            run_loss = 0.5 * np.mean(err**2, axis=(1, 2))
            if step == 0:
                limit = np.maximum(limit, DIVERGE_FACTOR * np.nan_to_num(run_loss, nan=0.0, posinf=0.0))
            bad = alive & ~(run_loss < limit)  # catches NaN too
            diverged_at[bad] = step
            alive &= ~bad
            loss[alive, step] = run_loss[alive]
            if step == steps:
                break
            d_out = np.where(alive[:, None, None], err, 0.0) / x.shape[0]
            grads = [np.swapaxes(h, 1, 2) @ d_out, d_out.sum(axis=1, keepdims=True)]
            dh = d_out @ np.swapaxes(params[-2], 1, 2)
            for layer in range(depth - 1, -1, -1):
                h_in, steps_ln, n = cache[layer]
                dn = dh * (n > 0)
                da = dn if steps_ln is None else layer_norm_backward_from_steps(steps_ln, dn)[0]
                grads[:0] = [np.swapaxes(h_in, 1, 2) @ da, da.sum(axis=1, keepdims=True)]
                if layer:
                    dh = da @ np.swapaxes(params[2 * layer], 1, 2)
            for p, g in zip(params, grads, strict=True):
                p -= lr * g
                p[~alive] = 0.0
            if step % 10 == 0:
                report(step)
    return loss, diverged_at


def run_sweep(
    *,
    depth: int = 6,
    width: int = 32,
    steps: int = 100,
    init_gain: float = 1.0,
    lrs: tuple[float, ...] = DEFAULT_LRS,
    n_seeds: int = 3,
    norms: tuple[str, ...] = NORMS,
    progress: Progress | None = None,
) -> Sweep:
    """Train the MLP for every norm x learning rate x seed; seeded and deterministic.

    Parameters
    ----------
    depth : int, 1..12
        Hidden layers.
    width : int, 4..256
        Units per hidden layer.
    steps : int, 1..2000
        Full-batch gradient-descent steps.
    lrs : tuple of float
        Learning rates, each > 0 and finite.
    init_gain : float, 0.1..10
        Multiplier on He initialisation (1 = He et al. 2015, right for ReLU).
    n_seeds : int, 1..10
        Seeds 0 .. n_seeds-1 (initial weights; the task is fixed).
    norms : tuple of str
        Subset of ``("none", "layernorm")``.
    progress : callable(fraction, message), optional
        Called as training goes, for a progress bar.

    Returns
    -------
    Sweep

    Raises
    ------
    ValueError
        A setting out of range.

    Notes
    -----
    Source for the claim being tested: Ba, Kiros & Hinton (2016), section 6
    (faster, more stable training); Xiong et al. (2020) on learning-rate
    sensitivity. LayerNorm backward: :func:`layernorm.backward.layer_norm_backward`.
    """
    if not 1 <= depth <= 12:
        raise ValueError(f"depth must be between 1 and 12 hidden layers, got {depth}")
    if not 4 <= width <= 256:
        raise ValueError(f"width must be between 4 and 256, got {width}")
    if not 1 <= steps <= 2000:
        raise ValueError(f"steps must be between 1 and 2000, got {steps}")
    if not (np.isfinite(init_gain) and 0.1 <= init_gain <= 10):
        raise ValueError(f"init_gain must be between 0.1 and 10, got {init_gain}")
    if not 1 <= n_seeds <= 10:
        raise ValueError(f"n_seeds must be between 1 and 10, got {n_seeds}")
    lr_arr = np.asarray(lrs, dtype=np.float64)
    if lr_arr.ndim != 1 or lr_arr.size == 0 or not np.all(np.isfinite(lr_arr) & (lr_arr > 0)):
        raise ValueError(f"lrs must be a non-empty list of finite numbers > 0, got {lrs}")
    if not norms or any(n not in NORMS for n in norms):
        raise ValueError(f"norms must be taken from {NORMS}, got {norms}")
    x, y = make_task()
    seeds = np.arange(n_seeds)
    losses, divs = [], []
    for k, norm in enumerate(norms):

        def report(step: int, k: int = k, norm: str = norm) -> None:
            if progress is not None:
                done = (k + step / steps) / len(norms)
                progress(done, f"training {len(seeds) * lr_arr.size} runs with norm = {norm}: step {step}")

        loss, div = _train_group(norm, x, y, lr_arr, seeds, depth, width, steps, init_gain, report)
        losses.append(loss.reshape(n_seeds, lr_arr.size, steps + 1).transpose(1, 0, 2))
        divs.append(div.reshape(n_seeds, lr_arr.size).T)
    if progress is not None:
        progress(1.0, "done")
    loss_all = np.stack(losses)  # (K, M, S, T+1)
    div_all = np.stack(divs)
    final = np.where(div_all >= 0, np.nan, loss_all[..., -1])
    return Sweep(
        norms=tuple(norms),
        lrs=lr_arr,
        seeds=seeds,
        loss=loss_all,
        diverged_at=div_all,
        final_loss=final,
        initial_loss=0.5 * float(np.mean(y**2)),
        depth=depth,
        width=width,
        steps=steps,
        init_gain=init_gain,
    )
