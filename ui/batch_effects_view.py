"""Training vs inference's sections 2 to 5 in words and metrics, made from the core's numbers.

One example's output in BatchNorm's two modes, the spread of small batches, a redraw of the
batch-mates and a shifted test set, each against LayerNorm. Every number comes from
:mod:`layernorm.labs.batch_effects`; this module only picks and formats them (the page draws them,
with its controls and charts).
"""

from __future__ import annotations

import numpy as np

from layernorm.labs import batch_effects
from ui.text import change_metric, digits_to_separate, fmt, fmt_zero, rounding_noise, zero_metric

NO_SPREAD = (
    "No spread to show at n = 1: BatchNorm in training has no output for a batch of one (section 1). "
    "Raise the batch size n to 2 or more."
)
SPREAD_NOTE = (
    "Raise n: the histogram narrows roughly like 1/√n. At n = 2 two values a, b standardize to "
    "±(a − b)/√((a − b)² + 4ε): about ±1, unless a and b are within a few hundredths of each other, "
    "where ε pulls the output toward 0."
)
NO_MATES = "With n = 1 there are no batch-mates, and training BatchNorm is undefined."
MATES_NOTE = "Your example stays the same; only the other rows of the batch are redrawn."
NOT_TRAINED = (
    "BatchNorm has not been trained yet, so its running statistics are still 0 and 1: "
    "train a few batches in section 1 first."
)
SHIFT_NOTE = (
    "128 test examples from the shifted distribution. BatchNorm normalizes them with the running "
    "statistics of the *training* data; LayerNorm with each example's own features."
)


def alone_warning(first: np.ndarray) -> str:
    """Training mode with n = 1: LayerNorm's first outputs of the example instead."""
    first_digits = digits_to_separate(first, 3)
    return (
        "Training mode needs a batch of at least 2 (see above). LayerNorm of the example: "
        + ", ".join(fmt(v, first_digits) for v in first)
        + " …"
    )


def switch_metrics(
    mode: str, k: int, x0: np.ndarray, bn_train: np.ndarray, bn_eval: np.ndarray, ln_y: np.ndarray
) -> tuple[list[dict[str, object]], int]:
    """The keyword arguments of section 2's three metrics, and the digits BatchNorm's outputs get."""
    # the two modes' outputs never look alike (LayerNorm keeps its own 4 digits: it must not seem to move)
    bn_pair = (bn_train[k], bn_eval[k])
    bn_digits = digits_to_separate(bn_pair, same_within=rounding_noise(bn_pair))
    bn_y = bn_train if mode == "Training" else bn_eval
    metrics: list[dict[str, object]] = [
        {"label": f"input x, feature {k}", "value": fmt(x0[k])},
        {
            "label": f"BatchNorm ({mode.lower()})",
            "value": fmt(bn_y[k], bn_digits),
            "help": f"Uses {mode_uses(mode)}.",
        },
        {"label": "LayerNorm (both modes)", "value": fmt(ln_y[k])},
    ]
    return metrics, bn_digits


def mode_uses(mode: str) -> str:
    """What BatchNorm normalizes with in ``mode``."""
    return "this batch's μ_B and σ²_B" if mode == "Training" else "the running μ̂ and σ̂² stored in training"


def switch_sentence(mode: str, n: int, bn_train: float, bn_eval: float, ln_y: float, bn_digits: int) -> str:
    """BatchNorm's two modes against LayerNorm's one, for the example's feature."""
    uses = mode_uses(mode)
    if n == 1:  # inference on a single example: fine; its training value does not exist
        return (
            f"In **inference** mode BatchNorm uses {uses}, so a single example works: "
            f"{fmt(bn_eval, bn_digits)}. In training mode the same example alone has no BatchNorm output "
            f"(n = 1). LayerNorm gives {fmt(ln_y)} either way, because it has no mode."
        )
    return (
        f"In **{mode.lower()}** mode BatchNorm uses {uses}. Switching modes changes its output for this "
        f"example from {fmt(bn_train, bn_digits)} (training) to {fmt(bn_eval, bn_digits)} (inference); "
        f"LayerNorm gives {fmt(ln_y)} in both, because it has no mode."
    )


def mates_caption(draw: int) -> str:
    return (
        f"Draw {draw} of the batch-mates. A link does not carry "
        "redraws: opened elsewhere, the page starts at draw 0."
    )


def mates_metrics(
    k: int, draw: int, norms: dict[str, tuple[np.ndarray, np.ndarray]]
) -> list[dict[str, object]]:
    """The keyword arguments of each norm's metric after a redraw of the batch-mates: its output now and,
    after the first redraw, its change from the draw before (``norms``: name → (now, before))."""
    return [
        {
            "label": f"{name}, feature {k} (draw {draw})",
            "value": fmt(now[k]),
            **(change_metric(now[k] - before[k]) if draw else {}),
        }
        for name, (now, before) in norms.items()
    ]


def shift_texts(res: batch_effects.ShiftResult) -> list[str]:
    """The shift test's four numbers as the chart labels them."""
    # LayerNorm's output mean is 0 in exact arithmetic: what is left is rounding, and it says so
    return [fmt(res.bn_mean), fmt(res.bn_std), fmt_zero(res.ln_mean, res.ln_y), fmt(res.ln_std)]


def shift_metrics(res: batch_effects.ShiftResult) -> list[dict[str, object]]:
    """The keyword arguments of the shift test's four metrics."""
    texts = shift_texts(res)
    return [
        {"label": "BatchNorm output mean", "value": texts[0]},
        {"label": "BatchNorm output std", "value": texts[1]},
        {"label": "LayerNorm output mean", **zero_metric(res.ln_mean, res.ln_y)},  # "0", grey "to rounding"
        {"label": "LayerNorm output std", "value": texts[3]},
    ]
