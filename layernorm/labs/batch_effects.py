"""Three experiments on Training vs inference: a token normalized with different batch-mates, how
far its BatchNorm output spreads over redraws of the batch, and a shift of the population after
training (BatchNorm remembers the old statistics; LayerNorm does not).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from layernorm._checks import F64
from layernorm.batch import batch_norm_eval, batch_norm_train
from layernorm.core import DEFAULT_EPS, layer_norm, mean, variance
from layernorm.labs.running import MAX_BATCH, Population, RunningState, draw_batch, shifted


def batch_mates(
    pop: Population, batch_size: int, *, fixed_seed: int, mates_seed: int, eps: float = DEFAULT_EPS
) -> tuple[F64, F64, F64]:
    """One fixed example normalized inside a batch of ``batch_size - 1`` freshly drawn others.

    Parameters
    ----------
    pop : Population
        Distribution of the examples, arrays of shape ``(d,)``.
    batch_size : int, 2 .. MAX_BATCH
        Examples ``N`` in the batch, the fixed one included.
    fixed_seed : int
        Fixes the example that stays (row 0 of the batch).
    mates_seed : int
        Fixes its batch-mates; change it to redraw them.
    eps : float, default 1e-5
        Inside the square root (units of ``x`` squared).

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
        ``batch_size`` outside ``2 .. MAX_BATCH`` (a batch of 1 is undefined in training:
        the core's "Expected more than 1 value per channel when training"); ``eps``
        negative.

    Notes
    -----
    Source: Ioffe & Szegedy (2015), Algorithm 1 (training-mode statistics depend on the
    batch); Ba, Kiros & Hinton (2016) (LayerNorm's do not).
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
    """The fixed example's outputs across ``R`` redraws of its batch-mates; ``(R, d)`` arrays.

    Attributes
    ----------
    bn_y : (R, d) ndarray of float64
        BatchNorm (training mode) output of the fixed example, one row per redraw.
    ln_y : (R, d) ndarray of float64
        LayerNorm output of the fixed example, one row per redraw (all rows equal).

    Notes
    -----
    Source: Ioffe & Szegedy (2015); Ba, Kiros & Hinton (2016).
    """

    bn_y: F64
    ln_y: F64

    @property
    def bn_std(self) -> F64:
        """``(d,)`` standard deviation of the BatchNorm output across redraws (population)."""
        sd: F64 = np.sqrt(variance(self.bn_y, axis=0))
        return sd

    @property
    def ln_std(self) -> F64:
        """``(d,)`` the same for LayerNorm: exactly 0."""
        sd: F64 = np.sqrt(variance(self.ln_y, axis=0))
        return sd


def redraw_spread(
    pop: Population, batch_size: int, *, n_redraws: int, fixed_seed: int, eps: float = DEFAULT_EPS
) -> RedrawSpread:
    """Run :func:`batch_mates` with ``mates_seed = 0 .. n_redraws - 1`` and stack the outputs.

    Parameters
    ----------
    pop, batch_size, fixed_seed, eps
        As :func:`batch_mates` (``batch_size`` examples in each batch).
    n_redraws : int
        Number ``R`` of batch-mate redraws, at least 2.

    Returns
    -------
    RedrawSpread
        ``bn_y`` and ``ln_y`` of shape ``(R, d)``.

    Raises
    ------
    ValueError
        As :func:`batch_mates`, or ``n_redraws`` < 2.

    Notes
    -----
    Source: Ioffe & Szegedy (2015); Ba, Kiros & Hinton (2016).
    """
    if int(n_redraws) < 2:
        raise ValueError(f"need at least 2 redraws to see a spread, got {n_redraws}")
    if not 2 <= int(batch_size) <= MAX_BATCH:  # as batch_mates; a batch of 1 has no mates to redraw
        batch_mates(pop, batch_size, fixed_seed=fixed_seed, mates_seed=0, eps=eps)  # raises its error
    n, r_count = int(batch_size), int(n_redraws)
    x = draw_batch(pop, 1, seed=(fixed_seed, 0))  # (1, d): the example that stays
    # Every redraw's batch at once: (N, R, d) -> channels (R·d) of one BatchNorm, each pooled over
    # its own batch's N examples -- the same numbers as R separate calls of batch_mates.
    batches = np.empty((n, r_count, pop.d))
    batches[0] = x
    for r in range(r_count):
        batches[1:, r] = draw_batch(pop, n - 1, seed=(fixed_seed, 1, r))
    channels = r_count * pop.d
    zeros, ones = np.zeros(channels), np.ones(channels)
    y = batch_norm_train(batches.reshape(n, channels), None, None, zeros, ones, eps=eps)[0]
    bn_y = y[0].reshape(r_count, pop.d)
    ln_y = np.tile(layer_norm(x, eps=eps)[0], (r_count, 1))  # LayerNorm sees only the example itself
    return RedrawSpread(bn_y, ln_y)


@dataclass(frozen=True)
class ShiftResult:
    """Inference on test data drawn from a shifted distribution.

    ``bn_mean``/``bn_std``: mean and standard deviation of all BatchNorm (running
    statistics) outputs; ``ln_*`` the same for LayerNorm. A well normalized output has
    mean 0 and std 1. ``bn_y`` and ``ln_y`` are ``(N, d)``.

    Attributes
    ----------
    bn_y : (N, d) ndarray of float64
        BatchNorm inference-mode output (running statistics).
    ln_y : (N, d) ndarray of float64
        LayerNorm output of the same test examples.
    bn_mean, bn_std : float
        Mean and population std of all of ``bn_y`` (dimensionless).
    ln_mean, ln_std : float
        The same for ``ln_y``.

    Notes
    -----
    Source: Ioffe & Szegedy (2015), Algorithm 2; Ba, Kiros & Hinton (2016).
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
        Number of test examples ``N``.
    seed : int, default 0
        Fixes the test examples (non-negative).
    eps : float, default 1e-5
        Inside the square root (units of ``x`` squared).

    Returns
    -------
    ShiftResult
        ``bn_y`` and ``ln_y`` of shape ``(N, d)`` and their summary statistics.

    Raises
    ------
    ValueError
        ``scale`` <= 0, ``n`` < 1, mismatched ``d`` between ``state`` and ``pop``,
        a non-finite ``shift``, a negative ``seed`` or ``eps``.

    Notes
    -----
    Source: Ioffe & Szegedy (2015), Algorithm 2; PyTorch ``BatchNorm1d`` in ``eval()``
    mode; Ba, Kiros & Hinton (2016).
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
