"""Figures for the "Under the hood" numerics pages: arrays in, ``go.Figure`` out.

No Streamlit calls and no statistics: every value drawn was computed by
``layernorm.variants`` or ``layernorm.labs.precision`` and is passed in.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ui.text import fmt
from ui.theme import (
    COLORS,
    FONT_SIZE,
    INK,
    PRESENT_LINE,
    base_layout,
    feature_ticks,
    finish,
    presenting,
    relayout,
)

BAR_LIMIT = 128  # above this many features, bars become lines
METHOD_STYLE: dict[str, tuple[str, str, str]] = {  # method -> (colour, dash, legend name)
    "one_pass": (COLORS["y"], "solid", "one-pass E[x²] − μ²"),
    "two_pass": (COLORS["x"], "dash", "two-pass mean((x − μ)²)"),
    "welford": (COLORS["x_hat"], "dot", "Welford (running)"),
}
INPUT_STYLE = (COLORS["centered"], "longdash", "input rounding alone (exact core on the rounded input)")
ERROR_FLOOR = 1e-17  # an error of exactly 0 is drawn here (below float64's 1e-16)
FAIL_Y = 1e3  # failed runs are drawn as ✕ in a strip at this height
PANEL_ORDER = ("float16", "bfloat16", "float32", "float64")


def _trace(
    values: np.ndarray, name: str, color: str, *, dash: str = "solid", group: str = ""
) -> go.BaseTraceType:
    idx = np.arange(1, values.size + 1)
    if values.size <= BAR_LIMIT:
        return go.Bar(x=idx, y=values, name=name, marker_color=color, legendgroup=group or name)
    return go.Scatter(
        x=idx, y=values, name=name, mode="lines", line={"color": color, "width": 1.5, "dash": dash}
    )


def recipe_figure(
    standard: np.ndarray, variant: np.ndarray, difference: np.ndarray, *, variant_name: str, title: str
) -> go.Figure:
    """Standard x̂ and another recipe's x̂ per feature (top), and their difference (bottom, red).

    All three arrays are ``(d,)`` outputs of :func:`layernorm.compare_recipe`.
    """
    fig = make_subplots(
        rows=2,
        cols=1,
        shared_xaxes=True,
        row_heights=[0.65, 0.35],
        vertical_spacing=0.08,
        subplot_titles=("output x̂ per feature", f"difference: {variant_name} − standard"),
    )
    fig.add_trace(_trace(np.asarray(standard), "standard: ÷d, ε inside √", COLORS["x_hat"]), row=1, col=1)
    fig.add_trace(_trace(np.asarray(variant), variant_name, COLORS["y"], dash="dash"), row=1, col=1)
    diff = _trace(np.asarray(difference), "difference", COLORS["warn"])
    diff.showlegend = False
    fig.add_trace(diff, row=2, col=1)
    fig = base_layout(fig, title, height=560, extra=feature_ticks(np.size(standard), "xaxis", "xaxis2"))
    # the legend above the subplot titles (at the same height it covered "output x̂ per feature")
    fig.update_layout(barmode="group", margin={"t": 120}, legend={"y": 1.08})
    fig.update_xaxes(title_text="feature i", row=2, col=1)
    fig.update_yaxes(title_text="x̂ᵢ", row=1, col=1)
    fig.update_yaxes(title_text="Δ", row=2, col=1)
    fig.update_annotations(font_size=FONT_SIZE)
    return finish(fig)


def rms_figure(series: Sequence[tuple[str, np.ndarray, str]], title: str) -> go.Figure:
    """Outputs per feature, one trace per ``(name, values, colour)``: LayerNorm beside RMSNorm's two."""
    fig = go.Figure()
    for name, values, color in series:
        fig.add_trace(_trace(np.asarray(values), name, color))
    d = max(np.size(values) for _, values, _ in series)
    fig = base_layout(fig, title, x_title="feature i", y_title="output", height=420, extra=feature_ticks(d))
    fig.update_layout(barmode="group", margin={"t": 110})
    return finish(fig)


def _log10(v: float) -> float:
    return float(np.log10(v))


def precision_base(
    offsets: np.ndarray,
    error: Mapping[str, Mapping[str, np.ndarray]],
    status_words: Mapping[str, Mapping[str, Sequence[str]]],
    input_error: Mapping[str, np.ndarray],
    *,
    title: str = "Error of x̂ against the exact core, as the offset grows",
) -> go.Figure:
    """:func:`precision_figure` without the current offset's line (the part worth caching).

    ``error[dtype][method]`` is ``(m,)`` with NaN where the method failed; ``status_words`` the
    reason per offset (shown on hover for the ✕ marks); ``input_error[dtype]`` the exact core's
    error on the rounded input. Errors of exactly 0 are drawn at :data:`ERROR_FLOOR`.
    """
    fig = make_subplots(
        rows=2,
        cols=2,
        shared_xaxes=True,
        shared_yaxes=True,
        horizontal_spacing=0.05,
        vertical_spacing=0.12,
        subplot_titles=PANEL_ORDER,
    )
    off = np.asarray(offsets, dtype=float)
    for n, dtype in enumerate(PANEL_ORDER):
        row, col = n // 2 + 1, n % 2 + 1
        first = n == 0
        floor = np.maximum(np.asarray(input_error[dtype], dtype=float), ERROR_FLOOR)
        color, dash, name = INPUT_STYLE
        fig.add_trace(
            go.Scatter(
                x=off, y=floor, name=name, mode="lines", legendgroup="input", showlegend=first,
                line={"color": color, "dash": dash, "width": 3},
            ),
            row=row, col=col,
        )  # fmt: skip
        for m, (color, dash, name) in METHOD_STYLE.items():
            err = np.asarray(error[dtype][m], dtype=float)
            fig.add_trace(
                go.Scatter(
                    x=off, y=np.maximum(err, ERROR_FLOOR), name=name, mode="lines", legendgroup=m,
                    showlegend=first, line={"color": color, "dash": dash, "width": 3}, connectgaps=False,
                ),
                row=row, col=col,
            )  # fmt: skip
            failed = np.isnan(err)
            if np.any(failed):
                words = [status_words[dtype][m][i] for i in np.flatnonzero(failed)]
                fig.add_trace(
                    go.Scatter(
                        x=off[failed], y=np.full(int(failed.sum()), FAIL_Y), mode="markers",
                        name=f"{name}: failed", legendgroup=m, showlegend=False,
                        marker={"color": color, "symbol": "x-thin", "size": 11,
                                "line": {"width": 2.5, "color": color}},
                        hovertext=words, hoverinfo="text+x",
                    ),
                    row=row, col=col,
                )  # fmt: skip
    fig = base_layout(fig, title, height=820)
    fig.update_xaxes(type="log", dtick=1, exponentformat="power")
    fig.update_yaxes(type="log", range=[-17.5, 3.6], dtick=4, exponentformat="power")
    fig.update_xaxes(title_text="offset added to every feature", row=2)
    fig.update_yaxes(title_text="max |x̂ − exact|", col=1)
    fig.update_layout(margin={"t": 150, "l": 80}, legend={"y": 1.06})
    fig.update_annotations(font_size=FONT_SIZE)
    for n in range(len(PANEL_ORDER)):
        ref = "" if n == 0 else str(n + 1)
        fig.add_annotation(
            x=0.01, y=_log10(FAIL_Y), xref=f"x{ref} domain", yref=f"y{ref}", text="✕ failed", showarrow=False,
            xanchor="left", yanchor="bottom", font={"size": FONT_SIZE - 3},  # the theme's ink
        )  # fmt: skip
    return finish(fig)


def mark_offset(fig: go.Figure, current_offset: float | None) -> go.Figure:
    """:func:`precision_base`'s figure with a dotted line at ``current_offset`` in each panel (new figure)."""
    if current_offset is None or not current_offset > 0:
        return fig
    # the base figure is scaled for presentation mode already (finish); this line is scaled here
    line = {"color": INK, "width": 1.5 * (PRESENT_LINE if presenting() else 1.0), "dash": "dot"}
    shapes = [  # shapes take data values on a log axis (annotations take log10)
        {"type": "line", "xref": f"x{ref}", "x0": current_offset, "x1": current_offset}
        | {"yref": f"y{ref} domain", "y0": 0, "y1": 1, "line": line}
        for ref in ["", *(str(n + 1) for n in range(1, len(PANEL_ORDER)))]
    ]
    return relayout(fig, {"shapes": shapes})


def precision_figure(
    offsets: np.ndarray,
    error: Mapping[str, Mapping[str, np.ndarray]],
    status_words: Mapping[str, Mapping[str, Sequence[str]]],
    input_error: Mapping[str, np.ndarray],
    *,
    current_offset: float | None = None,
    title: str = "Error of x̂ against the exact core, as the offset grows",
) -> go.Figure:
    """One log–log panel per dtype: each method's error against the offset; failures as ✕ on top.

    ``error[dtype][method]`` is ``(m,)`` with NaN where the method failed; ``status_words`` the
    reason per offset (shown on hover for the ✕ marks); ``input_error[dtype]`` the exact core's
    error on the rounded input. Errors of exactly 0 are drawn at :data:`ERROR_FLOOR`; a dotted
    line marks ``current_offset``.
    """
    base = precision_base(offsets, error, status_words, input_error, title=title)
    return mark_offset(base, current_offset)


def fmt_error(value: float) -> str:
    """An error for a table cell: "0 (exact)" or two significant digits."""
    return "0 (exact)" if value == 0 else fmt(value, 2)
