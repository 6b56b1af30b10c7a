"""Precision's fused-kernel section in words and tables, made from a :class:`FusedComparison`.

Every number comes from :mod:`layernorm.labs.fused`; this module only picks and formats them, and
says which part of a float32 kernel goes wrong from the comparison's own verdict.
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING

import numpy as np

from layernorm.labs import fused as F
from layernorm.labs import torch_kernels as K
from layernorm.labs.float32_affine import rstd_of
from layernorm.labs.precision import STATUS_WORDS as WELFORD_WORDS
from ui.text import fmt

if TYPE_CHECKING:
    import pandas as pd

STATS_NAMES = {"exact": "exact μ, σ² (float64)", "kernel": "float32 Welford μ, σ²"}
RSTD_WORDS = {"float64": "in float64, rounded once", "float32": "in float32, step by step"}
# Where the page's columns were measured to be PyTorch's output (tests/data/fused_torch_2_13.json).
CPU = "PyTorch 2.13's CPU kernels on an x86-64 CPU with AVX2 or AVX-512"
RECORDED = "recorded in tests/data/fused_torch_2_13.json"
DEFAULT_BUILD = (
    "Its default build (ATEN_CPU_CAPABILITY=default, which CPUs without AVX2 run) rounds x·s before adding "
    "b, so x·s and μ·s round alike and cancel: it returns exactly 0 for every value here."
)
FORM_NAMES = {"step": "step by step", "fused": "fused"}
SHOWN = 8  # entries in the output table; the largest error is over all of them
Y_DIGITS = 9  # enough to tell any two float32 values apart


def num(value: float, digits: int = Y_DIGITS) -> str:
    """``value`` with no e-notation between 1e-4 and 1e16, where a student compares b's digits with x·s's.

    An integer is written in full (float32's b = −15811387392); so is a value whose exact decimal has at
    most 12 significant digits (242.27734375); others get ``digits`` significant digits, and at least
    one decimal, so that a rounded value never reads as an integer.
    """
    v = float(value)
    if not np.isfinite(v) or v == 0:
        return fmt(v, digits)
    exact = Decimal(v)
    if not 1e-4 <= abs(v) < 1e16:  # e-notation, with no more digits than the value has
        return fmt(v, min(digits, len(exact.normalize().as_tuple().digits)))
    if v != int(v) and len(exact.normalize().as_tuple().digits) > 12:
        whole = len(str(int(abs(v)))) if abs(v) >= 1 else 0
        exact = Decimal(f"{v:.{max(digits, whole + 1)}g}")
    text = format(exact, "f")
    text = text.rstrip("0").rstrip(".") if "." in text else text
    return text.replace("-", "−")


def column(stats: str, form: str) -> str:
    return f"{FORM_NAMES[form]} · {STATS_NAMES[stats]}"


def worst_entry(c: F.FusedComparison) -> int:
    """The entry where the fused form with exact statistics is furthest from the exact answer."""
    run = c.runs["exact", "fused"]
    gap = np.abs(run.y - c.exact)
    return int(np.nanargmax(gap)) if np.any(np.isfinite(gap)) else 0


def _error(c: F.FusedComparison, stats: str, form: str) -> str:
    run = c.runs.get((stats, form))
    if run is None:
        return "—"
    if run.status != "ok":
        return "✕ overflows"
    return fmt(c.error[stats, form], 4) + ("" if c.within(stats, form) else " ✗")


def output_table(c: F.FusedComparison) -> pd.DataFrame:
    """The exact y and the four float32 outputs, entry by entry, and each one's largest error."""
    import pandas as pd  # here, not at the top: only a page that shows this table imports pandas
    keys = [(s, f) for s in F.STATS for f in F.FORMS]
    rows: list[dict[str, str]] = []
    for i in range(min(c.x.size, SHOWN)):
        row = {"entry": f"{i + 1}", "x (float32)": num(c.x[i]), "exact y": num(c.exact[i])}
        for s, f in keys:
            run = c.runs.get((s, f))
            row[column(s, f)] = "—" if run is None else num(run.y[i])
        rows.append(row)
    last = {"entry": "largest |error|", "x (float32)": "", "exact y": ""}
    last |= {column(s, f): _error(c, s, f) for s, f in keys}
    rows.append(last)
    return pd.DataFrame(rows).set_index("entry")


def folding_table(c: F.FusedComparison, i: int) -> pd.DataFrame:
    """What the fused form stores for entry ``i``, with each set of statistics: s, b and b's rounding."""
    import pandas as pd  # as in output_table
    rows = []
    for stats in F.STATS:
        run = c.runs.get((stats, "fused"))
        if run is None:
            continue
        b, b_exact = float(run.shift[i]), float(run.shift_exact[i])
        rows.append(
            {
                "statistics": STATS_NAMES[stats],
                "μ": num(c.mu[stats], 12),
                "σ²": num(c.var[stats]),
                "1/√(σ² + ε) computed": RSTD_WORDS[c.rstd_in if stats == "exact" else "float32"],
                "1/√(σ² + ε) in float32": num(run.rstd),
                "s = γ·rstd in float32": num(run.scale[i]),
                "β − μ·s before rounding": num(b_exact, 15),
                "b in float32": num(b),
                "float32 spacing at b": num(_spacing(b)),
                "b's rounding error": num(b - b_exact, 6),
            }
        )
    return pd.DataFrame(rows).set_index("statistics").T


def _spacing(value: float) -> float:
    """The distance from |value| to the next larger float32 number (∞ past float32's range)."""
    with np.errstate(over="ignore"):
        v = np.float32(abs(value))
    return float(np.spacing(v)) if np.isfinite(v) else float("inf")


def _stats(c: F.FusedComparison, stats: str) -> str:
    return f"μ = {num(c.mu[stats], 12)}, σ² = {num(c.var[stats])}"


def verdict(c: F.FusedComparison) -> str:
    """Which part goes wrong, with the numbers that show it (the comparison's own verdict)."""
    i = worst_entry(c)
    fused = c.runs["exact", "fused"]
    b, b_exact = float(fused.shift[i]), float(fused.shift_exact[i])
    xs = float(fused.x[i] * fused.scale[i])
    one_rounding = " (one fused multiply-add: x·s is not rounded before b is added)" if c.fma else ""
    folding = (
        f"the fused form with exact statistics is off by {fmt(c.error['exact', 'fused'], 4)}. At entry "
        f"{i + 1}, b = β − μ·s = {num(b_exact, 15)} must be stored in float32, whose numbers near it are "
        f"{num(_spacing(b))} apart: it becomes {num(b)}, off by {num(b - b_exact, 6)}. In y = x·s + b"
        f"{one_rounding}, x·s = {num(xs, 15)} and b cancel to a small number, and what b lost stays in y"
        if fused.status == "ok"
        else f"the fused form with exact statistics fails: {F.STATUS_WORDS[fused.status]}"
    )
    kernel_stats = (
        f"float32 Welford gives {_stats(c, 'kernel')} (exact: {_stats(c, 'exact')})"
        if c.kernel_status == "ok"
        else f"float32 Welford gives no usable statistics here: {WELFORD_WORDS[c.kernel_status]}"
    )
    kernel_cap = kernel_stats[0].upper() + kernel_stats[1:]
    off = {key: fmt(e, 4) for key, e in c.error.items()}
    match c.verdict:
        case "float32":
            run = c.runs["exact", "step"]
            why = F.STATUS_WORDS[run.status] if run.status != "ok" else f"off by {off['exact', 'step']}"
            return (
                "float32 cannot hold this answer: even step by step with exact statistics it goes wrong "
                f"({why}), so neither form nor the statistics can be singled out."
            )
        case "affine":
            stats_part = (
                f"The statistics are not: {kernel_stats}, and with them the step-by-step form is within "
                "rounding too."
                if c.kernel_status == "ok"
                else f"({kernel_cap}, so only the exact statistics are compared.)"
            )
            return (
                "**The folded affine is to blame.** The step-by-step form is within float32 rounding; "
                f"{folding}. {stats_part}"
            )
        case "statistics":
            return (
                f"**The statistics are to blame.** {kernel_cap}; with them even the step-by-step form is off "
                f"by {off['kernel', 'step']}, while the fused form with exact statistics is within float32 "
                "rounding."
            )
        case "both":
            return (
                f"**Both go wrong.** The statistics alone: {kernel_stats}, and with them the step-by-step "
                f"form is off by {off['kernel', 'step']}. The folding alone: {folding}. A fused float32 "
                f"kernel has both at once: off by {off['kernel', 'fused']}."
            )
    worst = max((e for e in c.error.values() if np.isfinite(e)), default=0.0)
    if c.kernel_status != "ok":
        return (
            "**Neither form goes wrong with exact statistics:** both are within float32 rounding of the "
            f"exact answer (largest error {fmt(worst, 4)}). {kernel_cap}, so its two columns are empty."
        )
    return (
        "**Neither goes wrong here:** every output is within float32 rounding of the exact answer "
        f"(largest error {fmt(worst, 4)}). Move the values far from 0 compared with their spread to make b "
        "large."
    )


def _vec(values: np.ndarray, shown: int = 4) -> str:
    text = ", ".join(num(v) for v in values[:shown])
    return f"[{text}{', …' if values.size > shown else ''}]"


def torch_note(case: str, c: F.FusedComparison) -> str:
    """What PyTorch 2.13's CPU kernels return for the Precision page's example ``case``, and where.

    ``case`` is a key of the page's examples: ``"channel"`` (a BatchNorm channel of equal values, in
    training mode when ``c.rstd_in`` is float64 and eval mode when float32), ``"d1"``, ``"row"`` or
    ``"sidebar"``. Each claim is one the recordings pin (``tests/labs/test_fused_kernels.py``); for
    the sidebar's input, which no recording can cover, the note says the column is a model.
    """
    step = "*step by step · float32 Welford*"
    if case == "channel":
        run = c.runs["exact", "fused"]
        if c.rstd_in == "float32":
            return (
                f"{CPU}: BatchNorm in eval mode computes 1/√(0 + ε) in float32, {num(run.rstd)} "
                f"(training mode computes it in float64: {num(rstd_of(0.0, c.eps, 'float64'))}), and "
                f"returns the *fused · exact* column for every value offered here ({RECORDED}); the right "
                f"answer is β = 0. {DEFAULT_BUILD}"
            )
        return (
            f"{CPU}: BatchNorm in training mode computes 1/√(0 + ε) in float64 and stores "
            f"{num(run.rstd)}, and returns the *fused · exact* column for every value offered here "
            f"({RECORDED}); the right answer is β = 0. {DEFAULT_BUILD}"
        )
    if case == "d1":
        return (
            f"{CPU}: F.layer_norm does not fold, and returns exactly −1 for every x and γ offered here "
            f"(the {step} column). BatchNorm folds: on a channel of two such values it returns the "
            "*fused · exact* column in training mode; in eval mode (running variance 0) it computes "
            f"1/√(σ² + ε) in float32 instead ({RECORDED})."
        )
    if case == "row":
        run = c.runs["kernel", "step"]
        return (
            f"{CPU}: F.layer_norm returns the {step} column, {_vec(run.y)}, with "
            f"μ = {num(c.mu['kernel'], 12)} and 1/√(σ² + ε) = {num(run.rstd)} ({RECORDED}); its "
            "LayerNorm does not fold."
        )
    model = (
        f"The {step} column is a model of PyTorch 2.13's CPU F.layer_norm on this input: its statistics "
        "(Welford's update in 8 lanes, the lanes merged), 1/√(σ² + ε) in float32 and ((x − μ)·r)·γ + β, "
        f"each step rounded as {CPU} round it. It gave PyTorch's output bit for bit on every row "
        f"{RECORDED} (rows near 1e8, and rows of 2 to 4096 values). The *fused* columns are BatchNorm's "
        "folding applied to this row with these statistics: a model, not a recorded output."
    )
    if c.kernel_status == "ok":
        return model
    kernel = K.layer_norm_kernel(c.x, c.gamma, c.beta, eps=c.eps)
    return (
        f"{model} Here float32 Welford gives no usable statistics, so its columns are empty; the same model "
        f"returns y = {_vec(kernel.y)}."
    )
