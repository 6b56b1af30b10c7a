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

import concurrent.futures
import itertools
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from layernorm._checks import F64
from layernorm.backward import layer_norm_input_grad
from layernorm.steps import layer_norm_x_hat

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


def check_settings(*settings: tuple[str, float, float, float]) -> None:
    """Refuse a training setting out of its range: each of ``settings`` is ``(name, value, lo, hi)``.

    Raises
    ------
    ValueError
        "``name`` must be between ``lo`` and ``hi``" for the first ``value`` not in ``[lo, hi]``
        (NaN never is).
    """
    for name, value, lo, hi in settings:
        if not lo <= value <= hi:
            raise ValueError(f"{name} must be between {lo} and {hi}, got {value}")


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
    """Runs (leading axis) holding a non-finite or astronomically large value.

    ``max |value| < _HUGE`` per run: a NaN makes the maximum NaN and the comparison false.
    The whole array's maximum and minimum are looked at first (no temporary, the common case).
    """
    with np.errstate(invalid="ignore"):
        if np.maximum.reduce(arr, axis=None) < _HUGE and np.minimum.reduce(arr, axis=None) > -_HUGE:
            return np.zeros(arr.shape[0], dtype=bool)
        return np.asarray(~(np.max(np.abs(arr), axis=tuple(range(1, arr.ndim))) < _HUGE))


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
    """Train every (seed, lr) run of one norm setting at once; returns (loss (R, T+1), diverged_at (R,)).

    A run that diverges is dropped from the batch (its parameters with it), so the others
    train on without it; each run's arithmetic does not depend on which others share the batch.
    """
    n_runs = len(seeds) * len(lrs)
    params = _init(seeds, len(lrs), depth, width, gain)
    lr = np.tile(lrs, len(seeds))[:, None, None]  # (R, 1, 1), run r = seed * M + lr index
    loss = np.full((n_runs, steps + 1), np.nan)
    diverged_at = np.full(n_runs, -1)
    runs = np.arange(n_runs)  # the original index of every run still in the batch
    limit = np.full(n_runs, DIVERGE_FACTOR * 0.5 * float(np.mean(y**2)))  # raised to 1e3 x own start

    def drop(bad: np.ndarray, step: int) -> None:
        """Record where the runs flagged in ``bad`` diverged and remove them from the batch."""
        nonlocal runs, lr, limit, params
        diverged_at[runs[bad]] = step
        keep = ~bad
        runs, lr, limit = runs[keep], lr[keep], limit[keep]
        params = [p[keep] for p in params]

    def forward(step: int) -> tuple[F64, list[tuple[F64, F64 | None, F64]]]:
        """The forward pass of the runs in the batch; a run whose activations blow up is dropped."""
        while True:
            h, cache = np.broadcast_to(x, (runs.size, *x.shape)), []
            for layer in range(depth):
                a = h @ params[2 * layer] + params[2 * layer + 1]  # (R, N, width)
                bad = _bad_runs(a)
                if bad.any():
                    break
                n, std = layer_norm_x_hat(a, eps=EPS) if norm == "layernorm" else (a, None)
                cache.append((h, std, n))
                h = np.maximum(n, 0.0)
            else:
                return h, cache
            drop(bad, step)  # then the same step again without them (rare: once per divergence)

    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        step = 0
        while step <= steps and runs.size:
            h, cache = forward(step)
            if not runs.size:
                break
            err = h @ params[-2] + params[-1] - y  # (R, N, 1)
            run_loss = 0.5 * np.mean(err**2, axis=(1, 2))
            if step == 0:
                limit = np.maximum(limit, DIVERGE_FACTOR * np.nan_to_num(run_loss, nan=0.0, posinf=0.0))
            bad = ~(run_loss < limit)  # catches NaN too
            if bad.any():
                drop(bad, step)
                continue  # this step's forward again, without the dropped runs
            loss[runs, step] = run_loss
            if step == steps:
                break
            d_out = err / x.shape[0]
            grads = [np.swapaxes(h, 1, 2) @ d_out, d_out.sum(axis=1, keepdims=True)]
            dh = d_out @ np.swapaxes(params[-2], 1, 2)
            for layer in range(depth - 1, -1, -1):
                h_in, std, n = cache[layer]
                dn = dh * (n > 0)
                da = dn if std is None else layer_norm_input_grad(n, std, dn)
                grads[:0] = [np.swapaxes(h_in, 1, 2) @ da, da.sum(axis=1, keepdims=True)]
                if layer:
                    dh = da @ np.swapaxes(params[2 * layer], 1, 2)
            for p, g in zip(params, grads, strict=True):
                p -= lr * g
            if step % 10 == 0:
                report(step)
            step += 1
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
    workers: int = 1,
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
        Called as training goes, for a progress bar (always from the calling thread).
    workers : int, default 1
        Threads that train independent groups of runs at once; the results are the same bits
        for any number. One is the default: the arrays are small, so the interpreter holds the
        GIL between kernels and two threads measured slower (1.9 s against 1.6 s wall, 2 cores).

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
    sensitivity. LayerNorm forward and backward: :func:`layernorm.core.layer_norm_x_hat`,
    :func:`layernorm.backward.layer_norm_input_grad`.
    """
    check_settings(
        ("depth", depth, 1, 12),
        ("width", width, 4, 256),
        ("steps", steps, 1, 2000),
        ("init_gain", init_gain, 0.1, 10),
        ("n_seeds", n_seeds, 1, 10),
    )
    lr_arr = np.asarray(lrs, dtype=np.float64)
    if lr_arr.ndim != 1 or lr_arr.size == 0 or not np.all(np.isfinite(lr_arr) & (lr_arr > 0)):
        raise ValueError(f"lrs must be a non-empty list of finite numbers > 0, got {lrs}")
    if not norms or any(n not in NORMS for n in norms):
        raise ValueError(f"norms must be taken from {NORMS}, got {norms}")
    x, y = make_task()
    seeds = np.arange(n_seeds)
    # Independent pieces of work: each norm, LayerNorm's seeds in two halves (it costs ~5x more).
    # A run's numbers do not depend on which runs share its batch, so the split changes no bit.
    tasks = [
        (norm, chunk)
        for norm in norms
        for chunk in (np.array_split(seeds, 2) if norm == "layernorm" and n_seeds > 1 else [seeds])
    ]
    total = sum(chunk.size * lr_arr.size for _, chunk in tasks) * steps
    done = [0] * len(tasks)  # steps reached per task (written by the workers, read here)

    def work(i: int) -> tuple[F64, np.ndarray]:
        norm, chunk = tasks[i]

        def report(step: int) -> None:
            done[i] = step

        return _train_group(norm, x, y, lr_arr, chunk, depth, width, steps, init_gain, report)

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        futures = [pool.submit(work, i) for i in range(len(tasks))]
        pending = set(futures)
        while pending:  # progress is reported from this (the caller's) thread only
            _, pending = concurrent.futures.wait(pending, timeout=0.1)
            if progress is not None and pending:
                runs_done = sum(d * c.size * lr_arr.size for d, (_, c) in zip(done, tasks, strict=True))
                progress(
                    runs_done / total,
                    f"training {len(norms) * n_seeds * lr_arr.size} runs, with and without LayerNorm",
                )
        results = [f.result() for f in futures]
    losses, divs = [], []
    for norm in norms:
        parts = [(r, chunk) for r, (n, chunk) in zip(results, tasks, strict=True) if n == norm]
        loss = np.concatenate([r[0] for r, _ in parts])
        div = np.concatenate([r[1] for r, _ in parts])
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
