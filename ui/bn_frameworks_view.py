"""Training vs inference's sections 6 and 7 in words, formulas and tables, made from the core's numbers.

Section 6 compares what four frameworks store as the running variance after one batch
(:func:`layernorm.labs.bn_frameworks.running_updates`); section 7 shows ``F.batch_norm``'s
``training`` default (:func:`layernorm.labs.bn_frameworks.functional_batch_norm`). Every number comes
from :mod:`layernorm.labs.bn_frameworks`; this module only picks and formats them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import layernorm as ln
from layernorm.labs import bn_frameworks as BF
from ui.text import digits_to_separate, fmt, rounding_noise, tex_num

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

EPS = ln.DEFAULT_EPS
# Section 6's batches of one feature (a row per example): the worked example x = 1, 2, 3, 4 first
FW_BATCHES = {
    "1, 2, 3, 4": [[1.0], [2.0], [3.0], [4.0]],
    "2, 6": [[2.0], [6.0]],
    "1, 2, …, 8": [[float(v)] for v in range(1, 9)],
    "0, 0, 0, 8": [[0.0], [0.0], [0.0], [8.0]],
}
FN_CALLS = {
    False: "F.batch_norm(x, rm, rv): training defaults to False",
    True: "F.batch_norm(x, rm, rv, training=True)",
}
FW_START = (0.0, 1.0)  # section 6's running mean and variance before the batch (every framework's start)
FN_X, FN_RM, FN_RV = [[2.0], [6.0]], [0.0], [1.0]  # section 7: two examples, one feature
FRAMEWORKS_NOTE = (
    "TensorFlow's non-fused path (tf.keras with fused=False) stores ÷n as Keras 3 does. Measured in "
    "PyTorch 2.13: BatchNorm1d(1, momentum=1.0) on x = 1, 2, 3, 4 stores running_var 1.6666666 (float32); "
    "the lab computes in float64."
)


def names(framework_names: list[str]) -> str:
    """The names as a list in words: "A", "A and B", "A, B and C"."""
    if len(framework_names) == 1:
        return framework_names[0]
    return f"{', '.join(framework_names[:-1])} and {framework_names[-1]}"


def spelling(rows: dict[str, BF.RunningUpdate], weights_batch: bool) -> str:
    """The frameworks that spell momentum one way, and the momentum they need here."""
    spelled = [f for f, r in rows.items() if r.framework.momentum_weights_batch == weights_batch]
    return f"momentum = {fmt(rows[spelled[0]].momentum)} in {names(spelled)}"  # one value per spelling


def frameworks_intro() -> str:
    return (
        "Every framework normalizes a training batch with its ÷n variance, but they disagree on what "
        f"they store for inference, and on what *momentum* means. Start from running mean {fmt(FW_START[0])} "
        f"and variance {fmt(FW_START[1])}, train on one batch of one feature, and compare."
    )


def momentum_caption(u: BF.RunningUpdate) -> str:
    """What the chosen framework's momentum weights, and its default."""
    weights_what = "the batch" if u.framework.momentum_weights_batch else "the old value"
    default = fmt(u.framework.default_momentum)
    return f"{u.framework.name}'s momentum weights {weights_what}; its default is {default}."


def frameworks_digits(u: BF.RunningUpdate, rows: dict[str, BF.RunningUpdate]) -> int:
    """Enough digits that the section's different variances never look equal."""
    stored = [r.new_running_var[0] for r in rows.values()]
    shown = [u.batch_var[0], u.batch_var_unbiased[0], FW_START[1], *stored]
    return digits_to_separate(shown, 5, same_within=rounding_noise(shown))  # 5: 1.6667 as PyTorch prints it


def frameworks_latex(u: BF.RunningUpdate, dd: int) -> tuple[str, str]:
    """The chosen framework's update, in symbols and then with its numbers."""
    old_w, new_w = ("(1-m)", "m") if u.framework.momentum_weights_batch else ("m", "(1-m)")
    div = "n-1" if u.framework.unbiased else "n"
    return (
        rf"\hat\sigma^2 \leftarrow {old_w}\,\hat\sigma^2 + {new_w}\,s^2,\qquad "
        rf"s^2 = \tfrac{{1}}{{{div}}}\textstyle\sum (x-\mu_B)^2 = {tex_num(u.blended_var[0], dd)}",
        rf"\hat\sigma^2 = {tex_num(u.old_weight)}\cdot {tex_num(FW_START[1], dd)} + {tex_num(u.batch_weight)}"
        rf"\cdot {tex_num(u.blended_var[0], dd)} = {tex_num(u.new_running_var[0], dd)}",
    )


def frameworks_metrics(u: BF.RunningUpdate, dd: int) -> list[tuple[str, str]]:
    """(label, value) of the section's three metrics."""
    return [
        ("batch variance ÷n (normalizes)", fmt(u.batch_var[0], dd)),
        ("batch variance ÷(n−1)", fmt(u.batch_var_unbiased[0], dd)),
        (f"running variance {u.framework.name} stores", fmt(u.new_running_var[0], dd)),
    ]


def frameworks_table(rows: dict[str, BF.RunningUpdate], dd: int) -> pd.DataFrame:
    """Every framework's momentum for the same weight, what it blends in and what it stores."""
    import pandas as pd  # here, not at the top: only a page that shows this table imports pandas

    table = {
        "framework": [f"{f} ({r.framework.spelled})" for f, r in rows.items()],
        "momentum for the same weight": [fmt(r.momentum) for r in rows.values()],
        "blends in": ["÷(n−1)" if r.framework.unbiased else "÷n" for r in rows.values()],
        "stored running variance": [fmt(r.new_running_var[0], dd) for r in rows.values()],
    }
    return pd.DataFrame(table).set_index("framework")


def frameworks_sentence(u: BF.RunningUpdate, rows: dict[str, BF.RunningUpdate], dd: int) -> str:
    """What the chosen framework stored and why, from the core's numbers."""
    name = u.framework.name
    same = f"This weight on the batch is {spelling(rows, True)} and {spelling(rows, False)}."
    if u.batch_weight == 0:
        return (
            f"{name}'s momentum = {fmt(u.momentum)} puts no weight on the batch: every framework keeps the "
            f"running variance it had, {fmt(u.new_running_var[0], dd)}. {same} The same number in the other "
            "spelling means the opposite."
        )
    other = next(r for r in rows.values() if r.framework.unbiased != u.framework.unbiased)
    others = names([f for f, r in rows.items() if r.framework.unbiased == other.framework.unbiased])
    return (
        f"{name}'s momentum = {fmt(u.momentum)} puts weight {fmt(u.batch_weight)} on this batch and blends "
        f"in its variance {'÷(n−1)' if u.framework.unbiased else '÷n'} = {fmt(u.blended_var[0], dd)}, so it "
        f"stores {fmt(u.new_running_var[0], dd)}. At the same weight {others} store "
        f"{fmt(other.new_running_var[0], dd)}: the ÷(n−1) variance ({fmt(u.batch_var_unbiased[0], dd)}) is "
        f"larger than the ÷n one ({fmt(u.batch_var[0], dd)}) for every batch with a spread. {same}"
    )


def functional_intro() -> str:
    return (
        "A `torch.nn.BatchNorm1d` module starts in training mode. The functional form "
        "`torch.nn.functional.batch_norm` does not: its `training` argument defaults to `False`, so a call "
        "that leaves it out normalizes with the running statistics and never updates them. Here "
        f"x = [[{fmt(FN_X[0][0])}], [{fmt(FN_X[1][0])}]] (two examples, one feature), "
        f"rm = [{fmt(FN_RM[0])}], rv = [{fmt(FN_RV[0])}], momentum {fmt(ln.DEFAULT_MOMENTUM)}, "
        f"ε = {fmt(EPS, 1)}."
    )


def functional_metrics(call: BF.FunctionalCall) -> list[tuple[str, str, float | None]]:
    """(label, value, change or None) of section 7's metrics: both outputs, then the running statistics."""
    x = [row[0] for row in FN_X]
    y = call.y[:, 0]
    yd = output_digits(y)
    outputs: list[tuple[str, str, float | None]] = [
        (f"output for x = {fmt(xi)}", fmt(yi, yd), None) for xi, yi in zip(x, y, strict=True)
    ]
    return outputs + [
        (f"running {what} after", fmt(after), after - before)
        for what, before, after in (
            ("mean", FN_RM[0], call.running_mean[0]),
            ("variance", FN_RV[0], call.running_var[0]),
        )
    ]


def output_digits(y: np.ndarray) -> int:
    # ε shows in the 6th digit: 1.99999 and −0.99999875, not 2 and −1
    return digits_to_separate(y, 8, against=[row[0] for row in FN_X])


def functional_sentence(call: BF.FunctionalCall) -> str:
    """What the call did with the running statistics, from its numbers."""
    x = [row[0] for row in FN_X]
    y = call.y[:, 0]
    yd = output_digits(y)
    if call.moved:
        return (
            f"With `training=True` the call normalizes with the batch's own mean {fmt(ln.mean(x))} and ÷n "
            f"variance {fmt(ln.variance(x))}, giving {fmt(y[0], yd)} and {fmt(y[1], yd)}, and **updates the "
            f"running statistics in place**: mean {fmt(FN_RM[0])} → {fmt(call.running_mean[0])}, "
            f"variance {fmt(FN_RV[0])} → {fmt(call.running_var[0])} "
            f"(blending in the ÷(n−1) variance {fmt(ln.variance(x, ddof=1))}). "
            "This is what the module does while it is in training mode."
        )
    return (
        f"Left out, `training` is `False`: the call normalizes with the running statistics {fmt(FN_RM[0])} "
        f"and {fmt(FN_RV[0])}, "
        f"so the output is x/√(1 + ε) = {fmt(y[0], yd)} and {fmt(y[1], yd)}, and "
        f"**the running statistics did not move**: still {fmt(call.running_mean[0])} and "
        f"{fmt(call.running_var[0])}. A training loop written with `F.batch_norm` must pass "
        "`training=True` itself, or the statistics stay at their initial values."
    )
