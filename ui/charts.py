"""Figures for the step-by-step pages: arrays in, ``go.Figure`` out.

No Streamlit calls and no statistics here: every value drawn was computed by
``layernorm`` and is passed in. Colours come from :data:`ui.theme.COLORS`, so a
quantity looks the same on every page; text takes the theme's ink (a label next to a line says
which line by its place, not by its colour). Every builder ends with :func:`ui.theme.finish`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from ui.text import fmt
from ui.theme import (
    BACKGROUND,
    COLORS,
    FONT_SIZE,
    HALO,
    LABELS,
    base_layout,
    feature_ticks,
    finish,
    hline,
)

BAR_LIMIT = 128  # above this many features, bars become a line with markers
# The ±1 band beside x̂: its spread is √(σ²/(σ² + ε)), 1 only while ε ≪ σ² (0 for a constant vector)
XHAT_BAND_LABEL = "±1: x̂'s spread while ε ≪ σ²"


def _feature_trace(
    key: str, values: np.ndarray, *, name: str | None = None, opacity: float = 1.0
) -> go.BaseTraceType:
    """Bars for short vectors, a line with markers for long ones (thousands of bars are unreadable).

    SVG, not WebGL (``Scattergl``): a new WebGL context costs far more than drawing 4096 SVG points,
    more still without a GPU (measured when every chart was remounted on a rerun: Your sentence's site
    picker 4.5× → 2.5× a trivial page; a page or a fallback chart still mounts one per plot), and
    browsers cap the number of contexts.
    """
    idx = np.arange(1, values.size + 1)  # features are numbered from 1, as in the formula
    label = name or LABELS.get(key, key)
    if values.size <= BAR_LIMIT:
        return go.Bar(x=idx, y=values, name=label, marker_color=COLORS[key], opacity=opacity)
    return go.Scatter(
        x=idx,
        y=values,
        name=label,
        mode="lines+markers",
        line={"color": COLORS[key], "width": 1},
        marker={"color": COLORS[key], "size": 3},
        opacity=opacity,
    )


def feature_chart(
    series: Sequence[tuple[str, np.ndarray]],
    title: str,
    *,
    hlines: Sequence[tuple[str, float, str]] = (),
    label_positions: Sequence[str] = (),
    band: tuple[float, float] | None = None,
    y_title: str = "value",
    band_label: str = LABELS["sigma_band"],
    height: int = 380,
) -> go.Figure:
    """Features along x, one trace per quantity, with optional horizontal lines and a ±σ band.

    ``series`` is ``[(colour key, values), ...]``; ``hlines`` is
    ``[(colour key, y, label), ...]``; ``band`` is ``(low, high)`` for μ ± σ.
    """
    fig = go.Figure([_feature_trace(key, np.asarray(values, dtype=float)) for key, values in series])
    shapes: list[dict[str, object]] = []
    notes: list[dict[str, object]] = []
    if band is not None:
        shapes.append(
            {"type": "rect", "xref": "x domain", "x0": 0, "x1": 1, "yref": "y", "y0": band[0], "y1": band[1]}
            | {"fillcolor": COLORS["sigma_band"], "opacity": 0.18, "line": {"width": 0}}
        )
        notes.append(
            {"showarrow": False, "text": band_label, "xref": "x domain", "x": 0, "xanchor": "left"}
            | {"yref": "y", "y": band[1], "yanchor": "top"}
        )
    for n, (key, y, label) in enumerate(hlines):
        where = label_positions[n] if n < len(label_positions) else "top right"
        # the label in the theme's ink (4.5:1 on either background), with a halo where it crosses a bar
        shape, note = hline(y, {"color": COLORS[key], "dash": "dash", "width": 3}, label, where, shadow=HALO)
        note["font"]["size"] = FONT_SIZE - 1
        shapes.append(shape)
        notes.append(note)
    d = max(np.size(values) for _, values in series)
    extra = {"barmode": "group", "shapes": shapes, "annotations": notes} | feature_ticks(d)
    return finish(base_layout(fig, title, x_title="feature i", y_title=y_title, height=height, extra=extra))


def variance_chart(squared: np.ndarray, var_pop: float, var_sample: float, *, digits: int = 4) -> go.Figure:
    """Squared deviations per feature with σ² (÷d) and the ÷(d−1) value as lines (labels at ``digits``)."""
    fig = feature_chart(
        [("centered", squared)],
        "Squared deviations (xᵢ − μ)²: their average is σ²",
        hlines=[
            ("mu", var_pop, f"σ² (÷d) = {fmt(var_pop, digits)}"),
            ("warn", var_sample, f"÷(d−1) = {fmt(var_sample, digits)}"),
        ],
        # σ² ≤ the ÷(d−1) value, and the two lines are close for any d beyond a few: σ²'s label hangs
        # below its line, away from the dashed line above it (it sat on it), unless σ² = 0 (the axis)
        label_positions=("bottom left" if var_pop > 0 else "top left", "top right"),
        y_title="(xᵢ − μ)²",
    )
    fig.data[0].name = "(xᵢ − μ)²"
    return finish(fig)


def eps_curve(
    eps_grid: np.ndarray, xhat_var: np.ndarray, eps: float, eps_xhat_var: float, current_var: float
) -> go.Figure:
    """Variance of x̂ as ε sweeps (log axis), with the current ε and σ² marked."""
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(
            x=eps_grid,
            y=xhat_var,
            mode="lines",
            name="variance of x̂",
            line={"color": COLORS["x_hat"], "width": 4},
        )
    )
    fig.add_trace(
        go.Scatter(
            x=[eps],
            y=[eps_xhat_var],
            mode="markers",
            name="your ε",
            marker={"color": COLORS["y"], "size": 16},
        )
    )
    if current_var > 0:  # a trace, not add_vline: annotations on log axes take log10 coordinates
        fig.add_trace(
            go.Scatter(
                x=[current_var, current_var],
                y=[0.0, 1.05],
                mode="lines+text",
                name="ε = σ²",
                text=["", "ε = σ²"],
                textposition="top center",
                textfont={"size": FONT_SIZE},  # the theme's ink
                line={"color": COLORS["mu"], "dash": "dot", "width": 3},
            )
        )
    fig.update_xaxes(type="log", exponentformat="power")
    fig.update_yaxes(range=[-0.05, 1.1])
    return finish(
        base_layout(
            fig,
            # x̂'s variance is σ²/(σ² + ε) < 1 for every ε > 0: it never "has" unit variance, and a
            # constant vector (σ² = 0) has none at any ε; this holds for every σ² and ε
            "Variance of x̂ = σ²/(σ² + ε): near 1 while ε ≪ σ², under ½ once ε > σ²",
            x_title="ε (log scale)",
            y_title="variance of x̂",
        )
    )


def before_after(x: np.ndarray, y: np.ndarray, mu: float, mu_y: float) -> go.Figure:
    """Where the values sit before and after LayerNorm: dots on two number lines (histograms when long)."""
    fig = go.Figure()
    if x.size <= 64:
        for row, (key, vals, m) in enumerate([("x", x, mu), ("y", y, mu_y)]):
            fig.add_trace(
                go.Scatter(
                    x=vals,
                    y=np.full(vals.size, row),
                    mode="markers",
                    name=LABELS[key],
                    marker={
                        "color": COLORS[key],
                        "size": 14,
                        "opacity": 0.9,
                        "line": {"width": 1, "color": BACKGROUND},  # a gap between dots that touch
                    },
                )
            )
            fig.add_trace(
                go.Scatter(
                    x=[m],
                    y=[row],
                    mode="markers",
                    name="mean" if row == 0 else None,
                    showlegend=row == 0,
                    marker={"symbol": "line-ns", "size": 34, "line": {"width": 4, "color": COLORS["mu"]}},
                )
            )
        fig.update_yaxes(tickvals=[0, 1], ticktext=["before: x", "after: y"], range=[-0.6, 1.6])
        return finish(
            base_layout(fig, "Before and after: every feature as a dot", x_title="value", height=300)
        )
    for key, vals in [("x", x), ("y", y)]:
        fig.add_trace(
            go.Histogram(  # hatched, not translucent: the overlap shows, every edge keeps its 3:1
                x=vals,
                name=LABELS[key],
                marker={
                    "color": COLORS[key],
                    "line": {"color": COLORS[key], "width": 2},
                    "pattern": {
                        "shape": "/" if key == "x" else "\\",
                        "fillmode": "replace",
                        "solidity": 0.45,
                    },
                },
                nbinsx=60,
            )
        )
    fig.update_layout(barmode="overlay")
    return finish(
        base_layout(fig, "Before and after: distribution of the d features", x_title="value", y_title="count")
    )


def affine_map(x_hat: np.ndarray, y: np.ndarray) -> go.Figure:
    """Each feature as a point (x̂ᵢ, yᵢ): a line of slope γ and intercept β when γ, β are shared."""
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(
            x=x_hat,
            y=y,
            mode="markers",
            name="feature i",
            marker={"color": COLORS["y"], "size": 10 if x_hat.size <= 128 else 5},
        )
    )
    lim = float(max(np.max(np.abs(x_hat)), 1.0))
    fig.add_trace(
        go.Scatter(
            x=[-lim, lim],
            y=[-lim, lim],
            mode="lines",
            name="y = x̂ (γ = 1, β = 0)",
            line={"color": COLORS["x_hat"], "dash": "dot", "width": 2},
        )
    )
    return finish(base_layout(fig, "The learned map x̂ → y, feature by feature", x_title="x̂ᵢ", y_title="yᵢ"))


def standardized_chart(x_hat: np.ndarray) -> go.Figure:
    """The Standardize page's x̂ bars with the ±1 band and the mean-0 line (also on its worksheet)."""
    return feature_chart(
        [("x_hat", x_hat)],
        "The standardized vector x̂",
        band=(-1.0, 1.0),
        band_label=XHAT_BAND_LABEL,
        hlines=[("mu", 0.0, "mean 0")],
        y_title="x̂",
    )
