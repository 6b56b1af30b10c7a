"""Figures of the live transformer page: arrays in, ``go.Figure`` out (no statistics computed here)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from ui.theme import COLORS, FONT_SIZE, HALO, INK, base_layout, finish


def _per_site(
    labels: Sequence[str], values: np.ndarray, name: str, color: str, *, dash: str | None = None,
    symbol: str | None = None,
) -> go.Scatter:
    """One value per LayerNorm site, the sites joined by a line."""
    return go.Scatter(
        x=list(labels), y=values, name=name, mode="lines+markers",
        line={"color": color, "width": 3, "dash": dash}, marker={"size": 8, "symbol": symbol},
    )  # fmt: skip


def token_statistics_figure(
    labels: Sequence[str], mu: np.ndarray, sigma: np.ndarray, picked: int
) -> go.Figure:
    """μ and σ of one token's vector entering each of the 13 sites; the picked site marked."""
    fig = go.Figure()
    fig.add_trace(_per_site(labels, sigma, "σ (spread)", COLORS["sigma_band"]))
    fig.add_trace(_per_site(labels, mu, "μ (mean)", COLORS["mu"]))
    fig.add_vline(x=picked, line={"color": COLORS["warn"], "dash": "dot", "width": 2})
    fig = base_layout(
        fig, "This token's μ and σ entering each LayerNorm", y_title="activation units", height=420
    )
    fig.update_xaxes(tickangle=-35)
    return finish(fig)


def residual_figure(
    labels: Sequence[str], base: np.ndarray, changed: np.ndarray | None, name: str
) -> go.Figure:
    """Size of the residual stream at each site (log y): the unmodified model, and the changed one."""
    fig = go.Figure()
    fig.add_trace(_per_site(labels, base, "the model as trained", COLORS["x_hat"]))
    if changed is not None:
        fig.add_trace(_per_site(labels, changed, name, COLORS["warn"], dash="dash", symbol="square"))
    fig = base_layout(
        fig,
        "How big the residual stream is when it reaches each LayerNorm",
        y_title="RMS of x, mean over your tokens (log)",
        height=440,
    )
    fig.update_yaxes(type="log", exponentformat="power")
    fig.update_xaxes(tickangle=-35)
    return finish(fig)


def before_after_figure(x: np.ndarray, y: np.ndarray, marks: Sequence[int], title: str) -> go.Figure:
    """One token's 384 features before (x) and after (y) a LayerNorm; its outlier features labelled."""
    idx = np.arange(x.size)
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(
            x=idx, y=x, name="x entering the site", mode="lines", line={"color": COLORS["x"], "width": 1.5}
        )
    )
    fig.add_trace(
        go.Scatter(x=idx, y=y, name="y leaving it", mode="lines", line={"color": COLORS["y"], "width": 1.5})
    )
    for dim in marks:
        fig.add_annotation(
            x=int(dim), y=float(x[dim]), text=f"dim {int(dim)}", showarrow=True, arrowhead=2, ay=-30,
            font={"size": FONT_SIZE - 2, "shadow": HALO}, arrowcolor=INK,  # the theme's ink
        )  # fmt: skip
    fig = base_layout(fig, title, x_title="feature index (0 … 383)", y_title="value", height=420)
    return finish(fig)
