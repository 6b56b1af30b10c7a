"""Two BatchNorm conventions that differ between frameworks, as pure functions.

- What the running variance stores (:func:`running_update`): PyTorch and TensorFlow's fused
  kernel blend in the *unbiased* batch variance (÷(n−1)); Keras 3, TensorFlow's non-fused path and
  Flax blend in the *biased* one (÷n), the same one that normalizes the batch. The two momentum
  spellings are opposite: PyTorch's ``momentum`` weights the batch, Keras' and Flax's weight the
  old value.
- What a call of PyTorch's functional BatchNorm does (:func:`functional_batch_norm`):
  ``torch.nn.functional.batch_norm`` defaults to ``training=False`` (normalize with the running
  statistics and leave them alone), while a ``torch.nn.BatchNorm1d`` module starts in training mode.

Batches are ``(N, C)``: ``N`` examples, ``C`` channels (features). References:
``torch.nn.BatchNorm1d`` and ``torch.nn.functional.batch_norm`` (PyTorch 2.13);
``keras.layers.BatchNormalization`` (Keras 3); ``tf.compat.v1.nn.fused_batch_norm`` (TensorFlow);
``flax.linen.BatchNorm``; tests/data/FRAMEWORKS.md.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from layernorm._checks import CHANNEL_AXIS, F64, as_float64, check_param, finite_results
from layernorm.batch import (
    DEFAULT_MOMENTUM,
    batch_norm_eval,
    batch_norm_train,
    channel_shape,
    values_per_channel,
)
from layernorm.core import DEFAULT_EPS, mean, variance
from layernorm.exact import as_exact


@dataclass(frozen=True)
class Framework:
    """One framework's BatchNorm convention for the running statistics.

    Attributes
    ----------
    name : str
        How the lab names it ("PyTorch", "TensorFlow fused", "Keras 3", "Flax").
    unbiased : bool
        True: the running variance blends in the batch variance ÷(n−1); False: ÷n.
    momentum_weights_batch : bool
        True (PyTorch): ``new = (1 − m)·old + m·batch``; False (Keras, Flax, TensorFlow):
        ``new = m·old + (1 − m)·batch``.
    default_momentum : float
        The framework's default ``momentum`` in its own spelling (0.1 or 0.99).
    spelled : str
        How the framework's code spells the layer or kernel.

    Notes
    -----
    Source: ``torch.nn.BatchNorm1d``; ``tf.compat.v1.nn.fused_batch_norm`` (Bessel's correction on
    the running variance, ``exponential_avg_factor = 1 − momentum`` from Keras);
    ``keras.layers.BatchNormalization`` (``ops.moments``, biased); ``flax.linen.BatchNorm``
    (biased, ``ra = m·ra + (1 − m)·batch``); tests/data/FRAMEWORKS.md.
    """

    name: str
    unbiased: bool
    momentum_weights_batch: bool
    default_momentum: float
    spelled: str


FRAMEWORKS: dict[str, Framework] = {
    f.name: f
    for f in (
        Framework("PyTorch", True, True, DEFAULT_MOMENTUM, "torch.nn.BatchNorm1d"),
        Framework("TensorFlow fused", True, False, 0.99, "tf.keras BatchNormalization(fused=True)"),
        Framework("Keras 3", False, False, 0.99, "keras.layers.BatchNormalization"),
        Framework("Flax", False, False, 0.99, "flax.linen.BatchNorm"),
    )
}


def framework(name: str) -> Framework:
    """The convention of the framework called ``name`` (a key of :data:`FRAMEWORKS`).

    Parameters
    ----------
    name : str
        "PyTorch", "TensorFlow fused", "Keras 3" or "Flax".

    Returns
    -------
    Framework

    Raises
    ------
    ValueError
        ``name`` is not one of :data:`FRAMEWORKS`.

    Notes
    -----
    Source: this project (see :class:`Framework`).
    """
    if name not in FRAMEWORKS:
        raise ValueError(f"framework must be one of {', '.join(FRAMEWORKS)}, got {name!r}")
    return FRAMEWORKS[name]


@dataclass(frozen=True)
class RunningUpdate:
    """One training batch's update of the running statistics, in one framework's convention.

    Attributes
    ----------
    framework : Framework
        The convention used.
    momentum : float
        The momentum in that framework's spelling.
    batch_weight : float
        The weight on the batch: ``momentum`` (PyTorch) or ``1 − momentum`` (the others).
    old_weight : float
        The weight on the old value: ``1 − momentum`` (PyTorch) or ``momentum`` (the others).
    n : int
        Values per channel in the batch.
    batch_mean : (C,) ndarray of float64
        Per-channel batch mean (units of ``x``).
    batch_var : (C,) ndarray of float64
        Per-channel variance ÷n, the one that normalizes the batch (units of ``x`` squared).
    batch_var_unbiased : (C,) ndarray of float64
        Per-channel variance ÷(n−1).
    blended_var : (C,) ndarray of float64
        The one of the two this framework blends into the running variance.
    new_running_mean, new_running_var : (C,) ndarray of float64
        The running statistics stored after the batch.

    Notes
    -----
    Source: as :class:`Framework`.
    """

    framework: Framework
    momentum: float
    batch_weight: float
    old_weight: float
    n: int
    batch_mean: F64
    batch_var: F64
    batch_var_unbiased: F64
    blended_var: F64
    new_running_mean: F64
    new_running_var: F64


def _blend(fw: Framework, m: float, old: F64, batch: F64) -> F64:
    """The framework's own formula, written as it writes it (so 0.99 is not rounded to 1 − 0.01)."""
    if fw.momentum_weights_batch:
        return (1 - m) * old + m * batch
    return m * old + (1 - m) * batch


@finite_results()
def running_update(
    x: ArrayLike,
    running_mean: ArrayLike,
    running_var: ArrayLike,
    *,
    framework_name: str,
    momentum: float,
) -> RunningUpdate:
    """What ``framework_name``'s BatchNorm stores as running statistics after training on ``x``.

    Parameters
    ----------
    x : (N, C) array_like
        One training batch; channels on axis 1.
    running_mean, running_var : (C,) array_like
        The running statistics before the batch (``running_var`` ≥ 0).
    framework_name : str
        A key of :data:`FRAMEWORKS`.
    momentum : float in [0, 1]
        In that framework's own spelling: PyTorch's weights the batch, the others' the old value.

    Returns
    -------
    RunningUpdate
        ``new_running_var = (1 − w)·running_var + w·blended_var`` with ``w = batch_weight``;
        ``blended_var`` is ÷(n−1) for PyTorch and TensorFlow fused, ÷n for Keras 3 and Flax.

    Raises
    ------
    ValueError
        An unknown framework; ``momentum`` outside [0, 1] (NaN included); ``x`` not 2-D, not
        finite, or with fewer than 2 rows (every convention is asked for n ≥ 2 so the four can be
        compared; ÷(n−1) is 0/0 at n = 1); running statistics of the wrong shape or not finite;
        a negative ``running_var``.

    Notes
    -----
    Source: ``torch.nn.BatchNorm1d``; ``keras.layers.BatchNormalization``; ``flax.linen.BatchNorm``;
    TensorFlow's fused batch norm kernel (see :class:`Framework`).
    """
    fw = framework(framework_name)
    m = float(momentum)
    if not 0.0 <= m <= 1.0:
        raise ValueError(f"momentum must be between 0 and 1, got {momentum!r}")
    x64 = as_exact(x)
    c, _ = channel_shape(x64)
    if x64.ndim != 2:
        raise ValueError(f"running_update takes x of shape (N, C), got shape {x64.shape}")
    n = values_per_channel(x64, c)
    rm = check_param(running_mean, "running_mean", (c,), CHANNEL_AXIS, 0.0)
    rv = check_param(running_var, "running_var", (c,), CHANNEL_AXIS, 1.0)
    if np.any(rv < 0):
        raise ValueError("running_var must be >= 0")
    mu = mean(x64, axis=0)
    var, var_unbiased = variance(x64, axis=0), variance(x64, axis=0, ddof=1)
    blended = var_unbiased if fw.unbiased else var
    return RunningUpdate(
        fw,
        m,
        m if fw.momentum_weights_batch else 1 - m,
        1 - m if fw.momentum_weights_batch else m,
        n,
        mu,
        var,
        var_unbiased,
        blended,
        _blend(fw, m, rm, mu),
        _blend(fw, m, rv, blended),
    )


def running_updates(
    x: ArrayLike,
    running_mean: ArrayLike,
    running_var: ArrayLike,
    *,
    framework_name: str,
    momentum: float,
) -> dict[str, RunningUpdate]:
    """Every framework's update at the batch weight that ``framework_name``'s ``momentum`` gives.

    The frameworks that spell momentum as ``framework_name`` does get ``momentum``; the others get
    ``1 − momentum`` (PyTorch's 1.0 is Keras' 0.0), so every row weights the batch alike and only
    the variance blended in differs.

    Parameters
    ----------
    x, running_mean, running_var, framework_name, momentum
        As :func:`running_update`.

    Returns
    -------
    dict of str to RunningUpdate
        One entry per key of :data:`FRAMEWORKS`, in its order.

    Raises
    ------
    ValueError
        As :func:`running_update`.

    Notes
    -----
    Source: this project (see :class:`Framework`).
    """
    same = framework(framework_name).momentum_weights_batch
    m = float(momentum)
    if not 0.0 <= m <= 1.0:
        raise ValueError(f"momentum must be between 0 and 1, got {momentum!r}")
    return {
        name: running_update(
            x, running_mean, running_var, framework_name=name,
            momentum=m if fw.momentum_weights_batch == same else 1 - m,
        )
        for name, fw in FRAMEWORKS.items()
    }  # fmt: skip


@dataclass(frozen=True)
class FunctionalCall:
    """One call of ``torch.nn.functional.batch_norm(x, running_mean, running_var, training=…)``.

    Attributes
    ----------
    training : bool
        The call's ``training`` argument (PyTorch's default is False).
    y : (N, C) ndarray of float64
        The output (dimensionless): normalized with the batch's statistics when ``training``,
        with the running ones otherwise.
    running_mean, running_var : (C,) ndarray of float64
        The running statistics after the call (PyTorch updates its tensors in place).
    moved : bool
        Whether the call changed either running statistic.

    Notes
    -----
    Source: ``torch.nn.functional.batch_norm`` (PyTorch 2.13).
    """

    training: bool
    y: F64
    running_mean: F64
    running_var: F64
    moved: bool


@finite_results()
def functional_batch_norm(
    x: ArrayLike,
    running_mean: ArrayLike,
    running_var: ArrayLike,
    *,
    training: bool = False,
    momentum: float = DEFAULT_MOMENTUM,
    eps: float = DEFAULT_EPS,
) -> FunctionalCall:
    """``torch.nn.functional.batch_norm`` without weight and bias, ``training`` defaulting to False.

    Parameters
    ----------
    x : (N, C) or (N, C, L) array_like
        The batch; channels on axis 1.
    running_mean, running_var : (C,) array_like
        The running statistics before the call (``running_var`` ≥ 0).
    training : bool, default False
        PyTorch's default: False, so the call normalizes with the running statistics and
        never updates them, whatever the batch.
    momentum : float in [0, 1], default 0.1
        PyTorch's spelling (weights the batch); used only when ``training``.
    eps : float, default 1e-5
        Inside the square root.

    Returns
    -------
    FunctionalCall
        ``training=False``: ``y = (x − running_mean) / √(running_var + eps)`` and the running
        statistics as they came in; ``training=True``: :func:`layernorm.batch_norm_train`'s output
        and updated statistics (the unbiased variance blended in).

    Raises
    ------
    ValueError
        As :func:`layernorm.batch_norm_eval` (``training=False``) or
        :func:`layernorm.batch_norm_train` (``training=True``, which also needs more than one value
        per channel).
    ZeroVarianceError
        ``running_var + eps`` is 0 for some channel (``training=False``), or a constant channel
        with ``eps = 0`` (``training=True``).

    Notes
    -----
    Source: ``torch.nn.functional.batch_norm`` (PyTorch 2.13; its signature has
    ``training=False``), ``torch.nn.BatchNorm1d`` (a module starts with ``training=True``).
    """
    rm, rv = as_float64(running_mean, "running_mean"), as_float64(running_var, "running_var")
    if training:
        y, new_mean, new_var = batch_norm_train(x, None, None, rm, rv, momentum=momentum, eps=eps)
    else:
        y = batch_norm_eval(x, None, None, rm, rv, eps=eps)
        new_mean, new_var = rm.copy(), rv.copy()  # PyTorch leaves the tensors as they were
    moved = not (np.array_equal(new_mean, rm) and np.array_equal(new_var, rv))
    return FunctionalCall(bool(training), y, new_mean, new_var, moved)
