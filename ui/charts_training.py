"""Charts of Training, step by step: each layer's statistics over the steps reached, one panel per
normalization. Arrays in, figure out.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ui.theme import COLORS, FONT_SIZE, GUIDE, base_layout, finish

# Eight hues that read on both themes' backgrounds (≥ 3:1) and stay apart for colour-blind eyes,
# one per layer: the legend and the hover name each layer.
LAYER_COLORS = (
    COLORS["x"],
    COLORS["x_hat"],
    COLORS["y"],
    COLORS["mu"],
    COLORS["batch"],
    COLORS["gamma"],
    GUIDE,
    "#3F5FBF",
)


def layer_statistics_figure(
    panels: Sequence[tuple[str, np.ndarray]], statistic: str, *, last_step: int, max_step: int
) -> go.Figure:
    """``statistic`` of every layer against the step, steps ``0 … last_step``, one panel per
    ``(title, values (T + 1, L))``; the x axes span ``0 … max_step`` so a run grows across them."""
    fig = make_subplots(
        rows=1,
        cols=len(panels),
        shared_yaxes=True,
        horizontal_spacing=0.04,
        subplot_titles=[t for t, _ in panels],
    )
    depth = panels[0][1].shape[1]
    steps = np.arange(last_step + 1)
    for col, (_, values) in enumerate(panels, start=1):
        for layer in range(depth):
            fig.add_trace(
                go.Scatter(
                    x=steps,
                    y=values[: last_step + 1, layer],
                    name=f"layer {layer + 1}",
                    mode="lines",
                    line={"color": LAYER_COLORS[layer % len(LAYER_COLORS)], "width": 2.5},
                    legendgroup=f"layer {layer + 1}",
                    showlegend=col == 1,
                ),
                row=1,
                col=col,
            )
    titles = [a.to_plotly_json() | {"font": {"size": FONT_SIZE + 1}} for a in fig.layout.annotations]
    extra: dict[str, object] = {"annotations": titles, "margin": {"t": 100}, "legend": {"y": 1.16}}
    for col in range(1, len(panels) + 1):
        axis = "xaxis" if col == 1 else f"xaxis{col}"
        extra[axis] = {"range": [0, max_step], "title": {"text": "step"}}
    fig = base_layout(fig, statistic, y_title=statistic, height=430, extra=extra)
    return finish(fig)
