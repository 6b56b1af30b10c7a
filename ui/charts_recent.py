"""Figures for the Normalization now page: arrays in, ``go.Figure`` out (every number from the core)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import plotly.graph_objects as go

from layernorm.labs.recent_norms import AttentionLogits
from ui.theme import COLORS, base_layout, finish, hline

PLACEMENT_COLORS = {
    "none": COLORS["centered"],
    "post": COLORS["x_hat"],
    "pre": COLORS["x"],
    "peri": COLORS["y"],
    "output": COLORS["gamma"],
}


def qk_figure(
    scales: Sequence[float], plain: Sequence[AttentionLogits], normed: Sequence[AttentionLogits], at: float
) -> go.Figure:
    """The largest |logit| against the projections' factor s, without and with QK-norm (log-log), the
    bound √d_h as a line and the chosen s marked."""
    traces = [
        go.Scatter(
            x=list(scales),
            y=[r.max_abs for r in plain],
            name="without QK-norm",
            mode="lines+markers",
            line={"color": COLORS["warn"], "width": 3},
        ),
        go.Scatter(
            x=list(scales),
            y=[r.max_abs for r in normed],
            name="with QK-norm (LayerNorm on q and k)",
            mode="lines+markers",
            line={"color": COLORS["x_hat"], "width": 3, "dash": "dash"},
        ),
        go.Scatter(
            x=[at],
            y=[plain[list(scales).index(at)].max_abs],
            name=f"s = {at:g}",
            mode="markers",
            marker={"color": COLORS["mu"], "size": 14, "symbol": "circle-open", "line": {"width": 3}},
        ),
    ]
    bound = normed[0].bound or 0.0
    shape, note = hline(bound, {"color": COLORS["x_hat"], "dash": "dot", "width": 1}, f"√d_h = {bound:.4g}")
    note = note | {"y": math.log10(bound)}  # an annotation on a log axis takes log10 of the value
    fig = base_layout(
        go.Figure(traces),
        "The largest attention logit as the projections grow",
        x_title="s: query and key projections times s",
        y_title="largest |q·k| / √d_h",
        height=400,
        extra={
            "xaxis": {"type": "log"},
            "yaxis": {"type": "log", "exponentformat": "power"},
            "shapes": [shape],
            "annotations": [note],
        },
    )
    return finish(fig)
