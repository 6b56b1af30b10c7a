"""Charts of real MiniLM tokens: the size of the residual stream at each LayerNorm site, the
features a site scales most, the learned gamma and beta as a heatmap (Inside a transformer), and
each token's mean and spread before and after one shared gamma, beta (Scale & shift). Arrays in,
figure out.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ui.text import fmt
from ui.theme import (
    BACKGROUND,
    COLORS,
    FONT_SIZE,
    HALO,
    INK,
    base_layout,
    finish,
)


def site_scale_figure(
    labels: Sequence[str], series: Sequence[tuple[str, np.ndarray, str, str]], title: str
) -> go.Figure:
    """Per-site values (log y), one line per ``(name, values, colour, dash)``; sites along x."""
    fig = go.Figure()
    for name, values, color, dash in series:
        fig.add_trace(
            go.Scatter(
                x=list(labels),
                y=values,
                name=name,
                mode="lines+markers",
                line={"color": color, "dash": dash, "width": 3},
                marker={"size": 8},
            )
        )
    fig = base_layout(fig, title, y_title="size (log scale)", height=560)
    fig.update_yaxes(type="log", exponentformat="power")
    fig.update_xaxes(tickangle=-35)
    fig.update_layout(
        legend={"orientation": "h", "y": -0.45, "x": 0.0, "xanchor": "left", "yanchor": "top"},
        margin={"b": 120},
    )
    return finish(fig)


def dimension_figure(
    in_absmax: np.ndarray, out_absmax: np.ndarray, site_label: str, mark: Sequence[int]
) -> go.Figure:
    """Largest |value| of each of the d features before and after one LayerNorm, outliers labelled."""
    idx = np.arange(in_absmax.size)
    fig = go.Figure()
    fig.add_trace(go.Bar(x=idx, y=in_absmax, name="input x: max |x| over tokens", marker_color=COLORS["x"]))
    fig.add_trace(
        go.Bar(
            x=idx, y=out_absmax, name="output y: max |y| over tokens", marker_color=COLORS["y"], opacity=0.8
        )
    )
    for dim in mark:
        fig.add_annotation(
            x=int(dim),
            y=float(in_absmax[dim]),
            text=f"dim {dim}: {fmt(in_absmax[dim])}",  # 222.5, not a whole-looking "223"
            showarrow=True,
            arrowhead=2,
            ay=-30,
            font={"size": FONT_SIZE - 2, "shadow": HALO},  # the theme's ink
            arrowcolor=INK,
        )
    fig = base_layout(
        fig,
        f"Every feature at {site_label}",
        x_title="feature index (0 … d−1)",
        y_title="max |value| over tokens",
        height=420,
    )
    fig.update_layout(barmode="overlay", bargap=0.0)
    return finish(fig)


def parameter_heatmap(
    counts: np.ndarray, edges: np.ndarray, labels: Sequence[str], name: str, marker: float
) -> go.Figure:
    """Distribution of a learned parameter per site: rows sites, columns bins, colour = feature count.

    A dashed line marks ``marker`` (the initial value: 1 for γ, 0 for β).
    """
    centres = (edges[:-1] + edges[1:]) / 2
    fig = go.Figure(
        go.Heatmap(
            z=np.where(counts > 0, counts, np.nan),  # empty bins show the background, in either theme
            x=centres,
            y=list(labels),
            colorscale="Purples",
            hoverongaps=False,
            colorbar={"title": {"text": "features"}},
            hovertemplate="%{y}<br>" + name + " ≈ %{x:.3g}: %{z} features<extra></extra>",
        )
    )
    # On the cells: ink over a wider halo of background, one of which stands out on any purple.
    fig.add_vline(x=marker, line={"color": BACKGROUND, "width": 5})
    fig.add_vline(
        x=marker,
        line={"color": INK, "dash": "dash", "width": 2},
        annotation_text=f"initial {name} = {marker:g}",
    )
    fig = base_layout(
        fig, f"Learned {name} of each LayerNorm (384 features per row)", x_title=name, height=500
    )
    fig.update_yaxes(autorange="reversed")
    return finish(fig)


def token_statistics_figure(
    labels: Sequence[str],
    before: tuple[np.ndarray, np.ndarray],
    after: tuple[np.ndarray, np.ndarray],
    k: int,
) -> go.Figure:
    """Each token's mean (top) and standard deviation (bottom) before and after LayerNorm.

    ``before`` and ``after`` are ``(mu, sigma)`` per token; token ``k``, whose statistics are the
    shared gamma and beta, is marked on both panels.
    """
    fig = make_subplots(
        rows=2,
        cols=1,
        shared_xaxes=True,
        vertical_spacing=0.12,
        subplot_titles=("mean μ of each token", "standard deviation σ of each token"),
    )
    x = list(labels)
    for row in (1, 2):
        for values, name, color, symbol in (
            (before[row - 1], "before: the token x", COLORS["x"], "circle"),
            (after[row - 1], "after: LayerNorm's y", COLORS["y"], "diamond"),
        ):
            fig.add_trace(
                go.Scatter(
                    x=x,
                    y=values,
                    name=name,
                    mode="lines+markers",
                    line={"color": color, "width": 2, "dash": "solid" if symbol == "circle" else "dot"},
                    marker={"size": 10, "symbol": symbol, "color": color},
                    showlegend=row == 1,
                    legendgroup=name,
                ),
                row=row,
                col=1,
            )
        fig.add_vline(x=k, line={"color": INK, "dash": "dash", "width": 1}, row=row, col=1)
    titles = [a.to_plotly_json() | {"font": {"size": FONT_SIZE + 1}} for a in fig.layout.annotations]
    extra = {
        "annotations": titles,
        "xaxis2": {
            "title": {"text": "token (the dashed line: the token γ, β were taken from)"},
            "tickangle": -35,
        },
        "legend": {"y": 1.13},
        "margin": {"t": 110, "b": 110},
    }
    fig = base_layout(
        fig, f"One γ, β for every token: token {x[k]}'s statistics for all", height=560, extra=extra
    )
    return finish(fig)
