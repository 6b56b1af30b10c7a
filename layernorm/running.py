"""BatchNorm's training and inference modes next to LayerNorm's single mode, as pure functions.

Letters: ``N`` examples in a batch (each a row of ``d`` features), ``d`` features,
``R`` redraws. A :class:`Population` is the training distribution: feature ``i`` is
``N(mean_i, std_i²)``. Batches are drawn from it with explicit seeds; the running
statistics live in a :class:`RunningState` that goes in and comes out (no hidden state).

- Training: :func:`train_step` normalizes a batch with *its own* statistics
  (``batch_norm_train``) and returns the updated running ones.
- Inference: :func:`shift_test` normalizes test examples with the stored running
  statistics (``batch_norm_eval``), which may not fit a shifted test distribution.
- LayerNorm has no modes: a token is normalized by its own features, in any batch.

References: Ioffe & Szegedy (2015), Algorithms 1 and 2; Ba, Kiros & Hinton (2016);
PyTorch ``torch.nn.BatchNorm1d`` (momentum convention, unbiased running variance).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from layernorm._checks import F64
from layernorm.batch import DEFAULT_MOMENTUM, batch_norm_eval, batch_norm_train
from layernorm.core import DEFAULT_EPS, layer_norm, mean, variance

MAX_BATCH = 256
MAX_FEATURES = 256


@dataclass(frozen=True)
class Population:
    """Feature ``i`` of an example is drawn from ``N(mean[i], std[i]²)``; both ``(d,)``."""

    mean: F64
    std: F64

    @property
    def d(self) -> int:
        return int(self.mean.size)

    @property
    def var(self) -> F64:
        """The true per-feature variance ``std**2``, shape ``(d,)``: what running_var should approach."""
        return np.square(self.std)


def make_population(d: int, *, seed: int = 0) -> Population:
    """A seeded training distribution: per-feature means ``~N(0, 2²)``, stds ``~U(0.5, 3)``.

    Raises
    ------
    ValueError
        ``d`` outside ``1 .. MAX_FEATURES``.
    """
    if not 1 <= int(d) <= MAX_FEATURES:
        raise ValueError(f"d must be between 1 and {MAX_FEATURES}, got {d}")
    rng = np.random.default_rng([seed, 7])
    return Population(rng.normal(0.0, 2.0, size=int(d)), rng.uniform(0.5, 3.0, size=int(d)))


def shifted(pop: Population, *, shift: float, scale: float) -> Population:
    """The test distribution: every feature's mean moved by ``shift``, its std times ``scale`` (> 0)."""
    if not scale > 0:
        raise ValueError(f"scale must be > 0, got {scale}")
    return Population(pop.mean + float(shift), pop.std * float(scale))


def draw_batch(pop: Population, n: int, *, seed: int | tuple[int, ...]) -> F64:
    """``n`` examples from ``pop``, reproducible from ``seed``: an ``(n, d)`` float64 array.

    Raises
    ------
    ValueError
        ``n`` < 1.
    """
    if int(n) < 1:
        raise ValueError(f"a batch needs at least 1 example, got n = {n}")
    rng = np.random.default_rng(list(seed) if isinstance(seed, tuple) else seed)
    return pop.mean + pop.std * rng.standard_normal((int(n), pop.d))


@dataclass(frozen=True)
class RunningState:
    """BatchNorm's running statistics after ``step`` training batches; arrays ``(d,)``."""

    step: int
    running_mean: F64
    running_var: F64


def initial_state(d: int) -> RunningState:
    """PyTorch's initial running statistics: mean 0, variance 1, step 0."""
    return RunningState(0, np.zeros(int(d)), np.ones(int(d)))


@dataclass(frozen=True)
class TrainStep:
    """One training batch: what BatchNorm used and what it stored.

    ``batch_var`` divides by ``n`` (used to normalize ``y``); ``batch_var_unbiased``
    divides by ``n - 1`` (used to update the running variance). All ``(d,)`` except
    ``batch`` and ``y``, ``(N, d)``.
    """

    before: RunningState
    after: RunningState
    batch: F64
    y: F64
    batch_mean: F64
    batch_var: F64
    batch_var_unbiased: F64
    momentum: float


def train_step(
    state: RunningState,
    pop: Population,
    batch_size: int,
    *,
    momentum: float = DEFAULT_MOMENTUM,
    seed: int = 0,
    eps: float = DEFAULT_EPS,
) -> TrainStep:
    """Draw training batch number ``state.step`` and run BatchNorm in training mode on it.

    Parameters
    ----------
    state : RunningState
    pop : Population
    batch_size : int, 1 .. MAX_BATCH
    momentum : float, default 0.1
        PyTorch convention: ``new = (1 - momentum) * old + momentum * batch``
        (Keras' momentum is ``1 - momentum``).
    seed : int
        With ``state.step`` it fixes the batch, so replays give the same numbers.
    eps : float, default 1e-5

    Returns
    -------
    TrainStep
        ``after.step == before.step + 1``.

    Raises
    ------
    ValueError
        ``batch_size`` outside ``1 .. MAX_BATCH``, or ``batch_size == 1``: one value per
        feature has no spread to normalize by, and its unbiased variance is 0/0
        (the core's "Expected more than 1 value per channel when training").
    """
    if not 1 <= int(batch_size) <= MAX_BATCH:
        raise ValueError(f"batch size must be between 1 and {MAX_BATCH}, got {batch_size}")
    batch = draw_batch(pop, batch_size, seed=(seed, state.step))  # (N, d)
    y, new_mean, new_var = batch_norm_train(
        batch, None, None, state.running_mean, state.running_var, momentum=momentum, eps=eps
    )
    after = replace(state, step=state.step + 1, running_mean=new_mean, running_var=new_var)
    return TrainStep(
        state,
        after,
        batch,
        y,
        mean(batch, axis=0),
        variance(batch, axis=0),
        variance(batch, axis=0, ddof=1),
        float(momentum),
    )


def batch_mates(
    pop: Population, batch_size: int, *, fixed_seed: int, mates_seed: int, eps: float = DEFAULT_EPS
) -> tuple[F64, F64, F64]:
    """One fixed example normalized inside a batch of ``batch_size - 1`` freshly drawn others.

    Parameters
    ----------
    pop : Population
    batch_size : int, 2 .. MAX_BATCH
    fixed_seed : int
        Fixes the example that stays (row 0 of the batch).
    mates_seed : int
        Fixes its batch-mates; change it to redraw them.
    eps : float, default 1e-5

    Returns
    -------
    x : (d,) ndarray
        The fixed example.
    bn_y : (d,) ndarray
        Its BatchNorm (training mode) output: depends on the batch-mates.
    ln_y : (d,) ndarray
        Its LayerNorm output, taken from the same batch: does not.

    Raises
    ------
    ValueError
        ``batch_size`` outside ``2 .. MAX_BATCH`` (a batch of 1 is undefined in training).
    """
    if not 1 <= int(batch_size) <= MAX_BATCH:
        raise ValueError(f"batch size must be between 1 and {MAX_BATCH}, got {batch_size}")
    x = draw_batch(pop, 1, seed=(fixed_seed, 0))  # (1, d)
    batch = x
    if batch_size > 1:
        batch = np.vstack([x, draw_batch(pop, batch_size - 1, seed=(fixed_seed, 1, mates_seed))])
    zeros, ones = np.zeros(pop.d), np.ones(pop.d)
    bn_y = batch_norm_train(batch, None, None, zeros, ones, eps=eps)[0][0]
    return x[0], bn_y, layer_norm(batch, eps=eps)[0]


@dataclass(frozen=True)
class RedrawSpread:
    """The fixed example's outputs across ``R`` redraws of its batch-mates; ``(R, d)`` arrays."""

    bn_y: F64
    ln_y: F64

    @property
    def bn_std(self) -> F64:
        """``(d,)`` standard deviation of the BatchNorm output across redraws (population)."""
        return np.sqrt(variance(self.bn_y, axis=0))

    @property
    def ln_std(self) -> F64:
        """``(d,)`` the same for LayerNorm: exactly 0."""
        return np.sqrt(variance(self.ln_y, axis=0))


def redraw_spread(
    pop: Population, batch_size: int, *, n_redraws: int, fixed_seed: int, eps: float = DEFAULT_EPS
) -> RedrawSpread:
    """Run :func:`batch_mates` with ``mates_seed = 0 .. n_redraws - 1`` and stack the outputs.

    Raises
    ------
    ValueError
        As :func:`batch_mates`, or ``n_redraws`` < 2.
    """
    if int(n_redraws) < 2:
        raise ValueError(f"need at least 2 redraws to see a spread, got {n_redraws}")
    runs = [
        batch_mates(pop, batch_size, fixed_seed=fixed_seed, mates_seed=r, eps=eps)[1:]
        for r in range(int(n_redraws))
    ]
    return RedrawSpread(np.array([r[0] for r in runs]), np.array([r[1] for r in runs]))


@dataclass(frozen=True)
class ShiftResult:
    """Inference on test data drawn from a shifted distribution.

    ``bn_mean``/``bn_std``: mean and standard deviation of all BatchNorm (running
    statistics) outputs; ``ln_*`` the same for LayerNorm. A well normalized output has
    mean 0 and std 1. ``bn_y`` and ``ln_y`` are ``(N, d)``.
    """

    bn_y: F64
    ln_y: F64
    bn_mean: float
    bn_std: float
    ln_mean: float
    ln_std: float


def shift_test(
    state: RunningState,
    pop: Population,
    *,
    shift: float,
    scale: float,
    n: int = 64,
    seed: int = 0,
    eps: float = DEFAULT_EPS,
) -> ShiftResult:
    """Normalize ``n`` test examples from ``shifted(pop, shift, scale)`` in inference mode.

    Parameters
    ----------
    state : RunningState
        Running statistics from training (what BatchNorm stored).
    pop : Population
        The training distribution.
    shift : float
        Added to every feature's mean at test time (units of ``x``).
    scale : float, > 0
        Multiplies every feature's std at test time.
    n : int, default 64
    seed : int, default 0
    eps : float, default 1e-5

    Returns
    -------
    ShiftResult

    Raises
    ------
    ValueError
        ``scale`` <= 0, ``n`` < 1, mismatched ``d``.
    """
    test = draw_batch(shifted(pop, shift=shift, scale=scale), n, seed=(seed, 99))  # (n, d)
    bn_y = batch_norm_eval(test, None, None, state.running_mean, state.running_var, eps=eps)
    ln_y = layer_norm(test, eps=eps)
    return ShiftResult(
        bn_y,
        ln_y,
        float(mean(bn_y.ravel())),
        float(np.sqrt(variance(bn_y.ravel()))),
        float(mean(ln_y.ravel())),
        float(np.sqrt(variance(ln_y.ravel()))),
    )
