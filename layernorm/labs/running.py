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

from layernorm._checks import F64, finite_results
from layernorm.batch import DEFAULT_MOMENTUM, batch_norm_train
from layernorm.core import DEFAULT_EPS, mean, variance

MAX_BATCH = 256
MAX_FEATURES = 256


@dataclass(frozen=True)
class Population:
    """Feature ``i`` of an example is drawn from ``N(mean[i], std[i]²)``; both ``(d,)``.

    Attributes
    ----------
    mean : (d,) ndarray of float64
        Per-feature mean (units of ``x``).
    std : (d,) ndarray of float64
        Per-feature standard deviation (units of ``x``), > 0.

    Notes
    -----
    Source: this project (teaching simulation).
    """

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

    Parameters
    ----------
    d : int
        Number of features, ``1 .. MAX_FEATURES``.
    seed : int, default 0
        Non-negative seed; the same seed gives the same population.

    Returns
    -------
    Population
        ``mean`` and ``std`` of shape ``(d,)``.

    Raises
    ------
    ValueError
        ``d`` outside ``1 .. MAX_FEATURES``; a negative ``seed`` (from
        ``numpy.random.default_rng``).

    Notes
    -----
    Source: this project (teaching simulation).
    """
    if not 1 <= int(d) <= MAX_FEATURES:
        raise ValueError(f"d must be between 1 and {MAX_FEATURES}, got {d}")
    rng = np.random.default_rng([seed, 7])
    return Population(rng.normal(0.0, 2.0, size=int(d)), rng.uniform(0.5, 3.0, size=int(d)))


@finite_results()
def shifted(pop: Population, *, shift: float, scale: float) -> Population:
    """The test distribution: every feature's mean moved by ``shift``, its std times ``scale`` (> 0).

    Parameters
    ----------
    pop : Population
        The training distribution, ``mean`` and ``std`` of shape ``(d,)``.
    shift : float
        Added to every feature's mean (units of ``x``).
    scale : float, > 0
        Multiplies every feature's std (dimensionless).

    Returns
    -------
    Population
        A new population with arrays of shape ``(d,)``; ``pop`` is unchanged.

    Raises
    ------
    ValueError
        ``scale`` not > 0 (NaN included).

    Notes
    -----
    Source: this project (teaching simulation of covariate shift at test time).
    """
    if not scale > 0:
        raise ValueError(f"scale must be > 0, got {scale}")
    return Population(pop.mean + float(shift), pop.std * float(scale))


def draw_batch(pop: Population, n: int, *, seed: int | tuple[int, ...]) -> F64:
    """``n`` examples from ``pop``, reproducible from ``seed``: an ``(n, d)`` float64 array.

    Parameters
    ----------
    pop : Population
        Distribution to draw from (``mean``, ``std`` of shape ``(d,)``).
    n : int
        Number of examples, at least 1.
    seed : int or tuple of int
        Non-negative seed (or seed sequence) of ``numpy.random.default_rng``.

    Returns
    -------
    x : (n, d) ndarray of float64
        One example per row, in the units of ``pop.mean``.

    Raises
    ------
    ValueError
        ``n`` < 1; a negative seed (from ``numpy.random.default_rng``).

    Notes
    -----
    Source: this project (teaching simulation).
    """
    if int(n) < 1:
        raise ValueError(f"a batch needs at least 1 example, got n = {n}")
    rng = np.random.default_rng(list(seed) if isinstance(seed, tuple) else seed)
    return pop.mean + pop.std * rng.standard_normal((int(n), pop.d))


@dataclass(frozen=True)
class RunningState:
    """BatchNorm's running statistics after ``step`` training batches; arrays ``(d,)``.

    Attributes
    ----------
    step : int
        Number of training batches seen so far.
    running_mean : (d,) ndarray of float64
        Running estimate of each feature's mean (units of ``x``).
    running_var : (d,) ndarray of float64
        Running estimate of each feature's unbiased variance (units of ``x`` squared).

    Notes
    -----
    Source: Ioffe & Szegedy (2015), Algorithm 2; PyTorch ``torch.nn.BatchNorm1d``
    (``running_mean``, ``running_var``, ``num_batches_tracked``).
    """

    step: int
    running_mean: F64
    running_var: F64


def initial_state(d: int) -> RunningState:
    """PyTorch's initial running statistics: mean 0, variance 1, step 0.

    Parameters
    ----------
    d : int
        Number of features (BatchNorm's channels).

    Returns
    -------
    RunningState
        ``step = 0``, ``running_mean`` zeros ``(d,)``, ``running_var`` ones ``(d,)``.

    Raises
    ------
    ValueError
        ``d`` negative or not convertible to int (from ``int`` / ``numpy.zeros``);
        ``d = 0`` is accepted and gives empty arrays.

    Notes
    -----
    Source: PyTorch ``torch.nn.BatchNorm1d`` (``reset_running_stats``).
    """
    return RunningState(0, np.zeros(int(d)), np.ones(int(d)))


@dataclass(frozen=True)
class TrainStep:
    """One training batch: what BatchNorm used and what it stored.

    ``batch_var`` divides by ``n`` (used to normalize ``y``); ``batch_var_unbiased``
    divides by ``n - 1`` (used to update the running variance). All ``(d,)`` except
    ``batch`` and ``y``, ``(N, d)``.

    Attributes
    ----------
    before, after : RunningState
        Running statistics before and after this batch (``after.step == before.step + 1``).
    batch : (N, d) ndarray of float64
        The training batch drawn.
    y : (N, d) ndarray of float64
        BatchNorm's training-mode output (dimensionless).
    batch_mean : (d,) ndarray of float64
        Per-feature batch mean (units of ``x``).
    batch_var : (d,) ndarray of float64
        Per-feature population variance, divide by ``N`` (units of ``x`` squared).
    batch_var_unbiased : (d,) ndarray of float64
        Per-feature sample variance, divide by ``N - 1``.
    momentum : float
        The momentum used (PyTorch convention).

    Notes
    -----
    Source: Ioffe & Szegedy (2015), Algorithm 1; PyTorch ``torch.nn.BatchNorm1d``.
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
        Running statistics so far, arrays of shape ``(d,)``.
    pop : Population
        Training distribution, arrays of shape ``(d,)``.
    batch_size : int, 2 .. MAX_BATCH
        Examples ``N`` in the batch (1 is rejected, see Raises).
    momentum : float, default 0.1
        PyTorch convention: ``new = (1 - momentum) * old + momentum * batch``
        (Keras' momentum is ``1 - momentum``).
    seed : int, default 0
        With ``state.step`` it fixes the batch, so replays give the same numbers.
    eps : float, default 1e-5
        Inside the square root (units of ``x`` squared).

    Returns
    -------
    TrainStep
        ``after.step == before.step + 1``; ``batch`` and ``y`` are ``(N, d)``.

    Raises
    ------
    ValueError
        ``batch_size`` outside ``1 .. MAX_BATCH``, or ``batch_size == 1``: one value per
        feature has no spread to normalize by, and its unbiased variance is 0/0
        (the core's "Expected more than 1 value per channel when training");
        ``momentum`` outside ``[0, 1]``, ``eps`` negative, ``state`` and ``pop`` of
        different ``d`` (from :func:`layernorm.batch_norm_train`).

    Notes
    -----
    Source: Ioffe & Szegedy (2015), Algorithm 1; PyTorch ``torch.nn.BatchNorm1d``
    (``training=True``, momentum convention, unbiased running variance).
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
