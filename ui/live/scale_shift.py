"""What Scale & shift shows for one input: its metrics and its two charts (one function).

The page draws :func:`frame` of the sidebar's input; the sidebar's live γ, β and ε hold
:func:`frame` at each of their values (``ui.live.sidebar.view``).
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

import layernorm as ln
from ui import charts
from ui.live import Chart, Frame, Metric, Readout, metric
from ui.text import digits_to_separate, fmt, rounding_noise, zero_metric

READOUT = "ss"
CHART_BARS, CHART_MAP = "ss_chart_bars", "ss_chart_map"
BARS_TITLE = "x̂ in, y out (and the original x for comparison)"
UNDO_HELP = (
    "With γ = σ and β = μ (Undo) this is |xᵢ − μ|·(1 − σ/√(σ² + ε)) at its largest: close "
    "to 0 while ε ≪ σ², for this vector only."
)


def frame(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, eps: float) -> Frame:
    """Scale & shift for the input ``x`` with ``gamma``, ``beta`` and ``eps`` (every number from the core)."""
    steps = ln.layer_norm_steps(x, gamma, beta, eps=eps)
    mean_y = float(ln.mean(steps.y))  # after Undo it is μ: 40001.5 must not read as the y (≈ x) 40002
    mean_digits = digits_to_separate([mean_y], against=steps.y, same_within=rounding_noise(steps.y))
    metrics = (
        metric("mean of y", zero_metric(mean_y, steps.y, mean_digits)),
        Metric("standard deviation of y", fmt(float(ln.std(steps.y)))),
        metric(
            "largest |y − x|",
            zero_metric(ln.max_abs_diff(steps.y, steps.x), [steps.x, steps.y], help=UNDO_HELP),
        ),
    )
    lim = float(max(np.max(np.abs(steps.x_hat)), 1.0))  # the map's y = x̂ line spans the points
    diagonal = np.array([-lim, lim])
    return Frame(
        (Readout(READOUT, None, metrics),),
        (
            Chart(CHART_BARS, (steps.x_hat, steps.y, steps.x)),
            Chart(CHART_MAP, (steps.y, diagonal), xs=(steps.x_hat, diagonal)),
        ),
    )


def figures(f: Frame) -> list[go.Figure]:
    """The page's two charts for frame ``f``."""
    x_hat, y, x = f.chart(CHART_BARS).traces
    return [
        charts.feature_chart([("x_hat", x_hat), ("y", y), ("x", x)], BARS_TITLE),
        charts.affine_map(x_hat, y),
    ]
