"""Charts of the Gradients page: the Jacobian of LayerNorm as a heatmap, the three terms of the
backward pass, and the Jacobian size against eps. Arrays in, figure out.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from ui.charts_geometry import DIVERGING, GUIDE_COLOR, _feature_traces
from ui.text import fmt
from ui.theme import (
    COLORS,
    FONT_SIZE,
    HALO,
    INK,
    PRESENT_FONT,
    base_layout,
    feature_ticks,
    finish,
    presenting,
)

# --- gradients --------------------------------------------------------------------------------------


def jacobian_heatmap(jac: np.ndarray, *, annotate: bool, digits: int = 2) -> go.Figure:
    """J[i, j] = ∂yᵢ/∂xⱼ as a heatmap, the page's background at 0, symmetric colour range."""
    d = jac.shape[0]
    lim = float(np.max(np.abs(jac))) or 1.0
    idx = np.arange(1, d + 1)
    text = [[fmt(v, digits) for v in row] for row in jac] if annotate else None
    fig = go.Figure(
        go.Heatmap(
            z=jac,
            x=idx,
            y=idx,
            zmin=-lim,
            zmax=lim,
            colorscale=DIVERGING,
            text=text,
            texttemplate="%{text}" if annotate else None,
            # the theme's ink with a halo: the cells' colours follow the theme (0 is the page's background)
            textfont={"size": 15 if d <= 6 else 12, "color": INK, "shadow": HALO},
            hovertemplate="∂y_%{y}/∂x_%{x} = %{z:.6g}<extra></extra>",
            colorbar={"title": {"text": "∂yᵢ/∂xⱼ"}},
        )
    )
    fig.update_yaxes(
        autorange="reversed", tickmode="array", tickvals=idx, scaleanchor="x", constrain="domain"
    )
    fig.update_xaxes(tickmode="array", tickvals=idx, side="top", constrain="domain")
    fig = base_layout(
        fig,
        "Jacobian ∂yᵢ/∂xⱼ: row i = output feature, column j = input feature",
        x_title="input feature j",
        y_title="output feature i",
        # on a projector the cell numbers grow with every font; the cells must grow with them
        height=round(520 * PRESENT_FONT) if presenting() else 520,
    )
    fig.update_layout(margin={"t": 130})  # room for the title above the top axis and its title
    return finish(fig)


def backward_terms_chart(
    term_g: np.ndarray, term_mean: np.ndarray, term_proj: np.ndarray, dx: np.ndarray
) -> go.Figure:
    """The three terms of dx per feature, and their sum dx."""
    fig = go.Figure()
    series: Sequence[tuple[np.ndarray, str, str]] = (
        (term_g, "g/σ̂  (upstream)", COLORS["x"]),
        (term_mean, "−mean(g)/σ̂  (shift part)", COLORS["mu"]),
        (term_proj, "−x̂·mean(g·x̂)/σ̂  (scale part)", COLORS["x_hat"]),
        (dx, "dx = ∂L/∂x  (their sum)", COLORS["y"]),
    )
    for values, name, color in series:
        fig.add_trace(_feature_traces(values, name, color))
    fig.update_layout(barmode="group")
    fig = base_layout(
        fig,
        "The backward pass, term by term",
        x_title="feature i",
        y_title="value",
        height=440,
        extra=feature_ticks(np.size(dx)),
    )
    # a legend of two rows under the title: room for both in the top margin
    fig.update_layout(legend={"y": 1.02, "font": {"size": FONT_SIZE - 2}}, margin={"t": 100})
    return finish(fig)


def jacobian_norm_curve(
    eps: np.ndarray,
    curves: Sequence[tuple[str, np.ndarray, str]],
    *,
    eps_now: float,
    ceiling: np.ndarray,
    now: Sequence[float] = (),
) -> go.Figure:
    """‖J‖ (largest stretch of a small change) against ε, log–log, with the 1/√ε ceiling.

    ``curves`` is ``[(name, norms, colour key), ...]``; ``now`` the norms at ``eps_now``, in order.
    """
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(x=eps, y=ceiling, mode="lines", name="ceiling 1/√ε",
                   line={"color": GUIDE_COLOR, "dash": "dot", "width": 3})
    )  # fmt: skip
    for (name, norms, key), value in zip(curves, list(now) + [None] * len(curves), strict=False):
        fig.add_trace(
            go.Scatter(x=eps, y=np.where(norms > 0, norms, np.nan), mode="lines", name=name,
                       line={"color": COLORS[key], "width": 4})
        )  # fmt: skip
        if value is not None and value > 0:
            fig.add_trace(
                go.Scatter(x=[eps_now], y=[value], mode="markers", showlegend=False, name=f"{name} at your ε",
                           marker={"color": COLORS[key], "size": 15, "line": {"color": INK, "width": 2}})
            )  # fmt: skip
    fig.update_xaxes(type="log", exponentformat="power")
    fig.update_yaxes(type="log", exponentformat="power")
    fig = base_layout(
        fig,
        "How much LayerNorm can amplify a small change, against ε (γ = 1)",
        x_title="ε (log)",
        y_title="‖J‖ (largest stretch)",
        height=440,
    )
    # a legend of two rows under the title: room for both in the top margin
    fig.update_layout(legend={"y": 1.02, "font": {"size": FONT_SIZE - 2}}, margin={"t": 100})
    return finish(fig)


def finite_difference_chart(steps: np.ndarray, errors: np.ndarray, *, chosen: int, what: str) -> go.Figure:
    """|finite difference − backward pass| against the step h, log–log, the chosen h marked.

    An error of exactly 0 has no place on a log axis: it is left out of the line (the page says so).
    """
    shown = np.where(errors > 0, errors, np.nan)
    fig = go.Figure(
        go.Scatter(x=steps, y=shown, mode="lines+markers", name="|difference|",
                   line={"color": COLORS["x"], "width": 4}, marker={"size": 9})
    )  # fmt: skip
    if errors[chosen] > 0:
        fig.add_trace(
            go.Scatter(x=[steps[chosen]], y=[errors[chosen]], mode="markers", name="your h",
                       marker={"color": COLORS["x"], "size": 17, "line": {"color": INK, "width": 2}})
        )  # fmt: skip
    fig.update_xaxes(type="log", exponentformat="power", autorange="reversed")
    fig.update_yaxes(type="log", exponentformat="power")
    fig = base_layout(
        fig,
        f"Finite difference against the backward pass, for {what}",
        x_title="step h (log; smaller to the right)",
        y_title="|difference| (log)",
        height=400,
    )
    fig.update_layout(showlegend=False)
    return finish(fig)
