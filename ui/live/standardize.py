"""What the Standardize page shows for one feature i, and for one spread of the nearly constant vector.

The page draws the released values' frames; each live slider holds the frames of every value it
offers (:func:`feature_frames`, :func:`spread_frames`), made by the same functions: the numbers during
a drag and after release are the same by construction.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import plotly.graph_objects as go

import layernorm as ln
from ui import charts
from ui.live import Chart, Frame, Line, Metric, Readout, frames_cache, metric, payload, select_slider
from ui.text import digits_to_separate, fmt, rounding_noise, tex_minus, tex_num, zero_metric
from ui.widgets import SPREADS

FEATURE, NEAR, XHAT = "std_feature", "std_near", "std_xhat"  # the readouts
CHART_NEAR, CHART_XHAT = "std_chart_near", "std_chart_xhat"
SPREAD_DEFAULT = 1e-3
NEAR_D, NEAR_MEAN, NEAR_SEED = 8, 3.0, 1  # "eight values around 3"


def feature_text(i: float) -> str:
    """A feature number as the slider shows it (whole numbers, as the number box showed them)."""
    return str(round(i))


def spread_text(v: float) -> str:
    """A spread as its slider shows it, and as links carry it (:func:`spread_slider`)."""
    return f"{v:.0e}"


def spread_slider(
    key: str, start: float, frames: Callable[[], dict[str, object]], **kw: Any
) -> tuple[float, dict[str, object]]:
    """The live "Spread of the nearly constant vector" slider over ``SPREADS``: Standardize's, and
    Gradients' (each page with its own key, starting spread and frames; ``kw``: ``on_change``, ``args``)."""
    return select_slider(
        "Spread of the nearly constant vector",
        SPREADS,
        start,
        key=key,
        name="spread",
        format_func=spread_text,
        frames=frames,
        **kw,
    )


@dataclass(frozen=True)
class Worked:
    """What every feature's worked formula shares: the steps, and μ's digits (computed once for d)."""

    steps: ln.LayerNormSteps
    eps: float
    mu_digits: int


def worked(x: np.ndarray, eps: float) -> Worked:
    steps = ln.layer_norm_steps(x, eps=eps)
    # xᵢ and μ with the digits that tell μ apart from every x (so xᵢ − μ never reads as 0 − 0)
    mu_digits = digits_to_separate([float(steps.mu)], against=steps.x, same_within=rounding_noise(steps.x))
    return Worked(steps, eps, mu_digits)


def feature_frame(w: Worked, i: int) -> Frame:
    """The worked formula of feature ``i`` (1 … d) of x̂."""
    s, k = w.steps, i - 1
    tex = (
        rf"\hat{{x}}_{{{i}}} = \frac{{x_{{{i}}} - \mu}}{{\sqrt{{\sigma^2 + \epsilon}}}}"
        rf" = \frac{{{tex_num(s.x[k], w.mu_digits)} {tex_minus(float(s.mu), w.mu_digits)}}}"
        rf"{{\sqrt{{{tex_num(float(s.var))} + {tex_num(w.eps)}}}}} = {tex_num(s.x_hat[k])}"
    )
    return Frame((Readout(FEATURE, tex),))


@frames_cache(max_entries=16)
def feature_frames(x: np.ndarray, eps: float) -> dict[str, object]:
    """Every feature's frame for this input (cached: a release reruns the page with the same input)."""
    w = worked(x, eps)
    values = [float(i) for i in range(1, x.size + 1)]
    return payload(values, lambda i: feature_frame(w, round(i)), [feature_text(i) for i in values])


def near_vector(spread: float) -> np.ndarray:
    """The nearly constant vector of that spread (``ln.make_near_constant``)."""
    return ln.make_near_constant(NEAR_D, NEAR_MEAN, spread, seed=NEAR_SEED)


def spread_frame(eps: float, spread: float) -> Frame:
    """The nearly constant vector of ``spread``: its σ², ε, the variance of its x̂, and x̂ itself."""
    near = ln.layer_norm_steps(near_vector(spread), eps=eps)
    var_digits = digits_to_separate([float(near.var)], against=[eps])  # σ² never reads as ε
    near_var = float(ln.variance(near.x_hat))
    metrics = (
        Metric("σ² of this vector", fmt(float(near.var), var_digits)),
        Metric("ε", f"{eps:.0e}"),
        Metric(
            "variance of x̂",
            fmt(near_var, digits_to_separate([near_var], against=[1.0], same_within=rounding_noise(1.0))),
        ),
    )
    return Frame((Readout(NEAR, None, metrics),), (Chart(CHART_NEAR, (near.x_hat,)),))


def near_figure(f: Frame) -> go.Figure:
    """The chart of the nearly constant vector's x̂ for frame ``f``."""
    return charts.feature_chart(
        [("x_hat", f.chart(CHART_NEAR).traces[0])],
        "x̂ of the nearly constant vector",
        band=(-1.0, 1.0),
        band_label=charts.XHAT_BAND_LABEL,
        y_title="x̂",
    )


@frames_cache(max_entries=16)
def spread_frames(eps: float) -> dict[str, object]:
    """Every spread's frame for this ε."""
    return payload(SPREADS, lambda v: spread_frame(eps, v), [spread_text(v) for v in SPREADS])


def xhat_frame(x: np.ndarray, eps: float) -> Frame:
    """x̂ of the input at ``eps``: ε, the mean and variance of x̂, σ²/(σ² + ε), and x̂'s bars."""
    steps = ln.layer_norm_steps(x, eps=eps)
    xhat_var, xhat_var_expected = float(ln.variance(steps.x_hat)), float(steps.x_hat_var_expected)
    # equal in exact arithmetic; enough digits to show how far below 1 they are (ε's effect)
    var_digits = digits_to_separate(
        [xhat_var, xhat_var_expected], 6, against=[1.0], same_within=rounding_noise(1.0)
    )
    metrics = (
        Metric("ε", f"{eps:.0e}"),
        metric("mean of x̂", zero_metric(float(ln.mean(steps.x_hat)), steps.x_hat)),
        Metric("variance of x̂", fmt(xhat_var, var_digits)),
        Metric(
            "σ² / (σ² + ε)",
            fmt(xhat_var_expected, var_digits),
            help="What the variance of x̂ is in exact arithmetic.",
        ),
    )
    return Frame(
        (Readout(XHAT, None, metrics),), (Chart(CHART_XHAT, (steps.x_hat,), (Line(0.0, "mean 0"),)),)
    )


def page_frame(x: np.ndarray, eps: float, i: int, spread: float) -> Frame:
    """Everything the page shows that ε changes: feature ``i``'s formula, x̂'s numbers and bars, and the
    nearly constant vector of ``spread`` (the sidebar's ε frames)."""
    parts = [feature_frame(worked(x, eps), i), xhat_frame(x, eps), spread_frame(eps, spread)]
    return Frame(tuple(r for f in parts for r in f.readouts), tuple(c for f in parts for c in f.charts))
