"""Training vs inference's section 1 in words, formulas and metrics, made from the core's numbers.

The running statistics after the batches trained so far, the variance detail of the last batch and
the page's notes. Every number comes from :mod:`layernorm.labs.running`; this module only picks and
formats them (the page draws them, with its controls and charts).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from layernorm.labs import running as R
from ui.text import digits_to_separate, fmt, rounding_noise, tex_num

BATCH_OF_ONE = (
    "**A batch of one is undefined for BatchNorm in training.** Each feature's batch then holds a single "
    "number, so the batch mean *is* that number: x − μ_B = 0 for every feature and the output is β "
    "whatever the input. The spread is 0, and the ÷(n−1) variance used for the running update is 0/0. "
    "PyTorch refuses with *“Expected more than 1 value per channel when training”*. LayerNorm has no such "
    "problem: it averages over the token's d features, and one token has d of them."
)
CHART_NOTE = (
    "Small dots: each batch's own value. Orange line: the running estimate, stored for inference "
    "(a single orange dot after the first batch). Dashes: the true value of the whole population."
)
NOT_TRAINED = (
    "No training yet: the running mean starts at 0 and the running variance at 1 (PyTorch's "
    "initial values). Press **Next batch** or **Auto-run**."
)


@dataclass(frozen=True)
class Settings:
    """The settings at the top of the page that the other sections read (momentum only trains)."""

    n: int
    d: int
    k: int
    seed: int

    @property
    def pop(self) -> R.Population:
        return R.make_population(self.d, seed=self.seed)

    @classmethod
    def read(cls, get: Callable[[str, int], Any]) -> Settings:
        """The settings from the controls' values (``get``: Session State's), at their starting values."""
        return cls(
            int(get("tvi_n", 16)), int(get("tvi_d", 8)), int(get("tvi_feature", 0)), int(get("tvi_seed", 0))
        )


def running_digits(state: R.RunningState, pop: R.Population, k: int) -> tuple[int, int]:
    """The running statistics next to the true ones: enough digits that different values never look equal."""
    pairs = ((state.running_mean[k], pop.mean[k]), (state.running_var[k], pop.var[k]))
    mean_digits, var_digits = (digits_to_separate(p, same_within=rounding_noise(p)) for p in pairs)
    return mean_digits, var_digits


def charted(
    history: list[R.TrainStep], pop: R.Population, k: int
) -> list[tuple[str, np.ndarray, np.ndarray, float]]:
    """Per statistic: its running value and each batch's own after every step, and the true value."""
    mean = [(h.after.running_mean[k], h.batch_mean[k]) for h in history]
    var = [(h.after.running_var[k], h.batch_var_unbiased[k]) for h in history]
    out = []
    for what, values, true in (("mean", mean, pop.mean[k]), ("variance", var, pop.var[k])):
        running, batch = np.array(values).T
        out.append((what, running, batch, float(true)))
    return out


def variance_detail(last: R.TrainStep, k: int) -> tuple[str, str, str]:
    """The last batch's variance of feature ``k``: a heading, then ÷n vs ÷(n−1), then the update."""
    heading = f"**The variance detail, feature {k}, batch {last.after.step}** (n = {last.batch.shape[0]}):"
    shown = [
        last.batch_var[k],
        last.batch_var_unbiased[k],
        last.before.running_var[k],
        last.after.running_var[k],
    ]
    dd = digits_to_separate(shown, same_within=rounding_noise(shown))  # ÷n vs ÷(n−1), old vs new
    var, unbiased = tex_num(last.batch_var[k], dd), tex_num(last.batch_var_unbiased[k], dd)
    m, old, new = (
        tex_num(last.momentum),
        tex_num(last.before.running_var[k], dd),
        tex_num(last.after.running_var[k], dd),
    )
    return (
        heading,
        rf"\sigma_B^2 = \tfrac{{1}}{{n}}\textstyle\sum = {var}\ \text{{(normalizes)}}"
        rf"\qquad \tfrac{{n}}{{n-1}}\sigma_B^2 = {unbiased}\ \text{{(is stored)}}",
        rf"\hat\sigma^2 \leftarrow (1-{m})\cdot {old} + {m}\cdot {unbiased} = {new}",
    )


def running_metrics(state: R.RunningState, pop: R.Population, k: int) -> tuple[list[tuple[str, str]], str]:
    """(label, value) of the three metrics under the charts, and the caption with the true values."""
    mean_digits, var_digits = running_digits(state, pop, k)
    metrics = [
        ("batches seen", str(state.step)),
        (f"running mean, feature {k}", fmt(state.running_mean[k], mean_digits)),
        (f"running variance, feature {k}", fmt(state.running_var[k], var_digits)),
    ]
    caption = (
        f"The true values for feature {k}: mean {fmt(pop.mean[k], mean_digits)}, "
        f"variance {fmt(pop.var[k], var_digits)}."
    )
    return metrics, caption


# The page's notes: they do not change with its controls (drawn outside the fragments)
NOTICES = [
    "Small momentum: the running mean moves slowly and smoothly; momentum 1 copies the last batch's "
    "statistics, noise and all.",
    "The running variance is stored with ÷(n−1) but each batch is normalized with ÷n — visible at small n.",
    "Batch size 2: BatchNorm's training output is about ±1, unless the two values nearly coincide "
    "(then ε pulls it toward 0).",
    "Shift the test data: BatchNorm's outputs drift off mean 0 / std 1; LayerNorm's stay put.",
    "PyTorch and TensorFlow's fused kernel store the ÷(n−1) batch variance, Keras 3 and Flax the ÷n one; "
    "PyTorch's momentum weights the batch, theirs the old value.",
    "F.batch_norm(x, rm, rv) without training=True uses the running statistics and never updates them.",
]
