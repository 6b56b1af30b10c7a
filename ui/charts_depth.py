"""Figures for the "Why normalize" pages: arrays in, ``go.Figure`` out.

No Streamlit calls and no statistics: every number drawn was computed by
``layernorm.labs.depth``, ``layernorm.labs.training`` or ``layernorm.labs.transformer_stats``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import plotly.colors as pc
import plotly.graph_objects as go

from ui.text import digits_to_separate
from ui.theme import (
    COLORS,
    FONT_SIZE,
    INK,
    PANEL,
    base_layout,
    finish,
    hline,
    hrect,
    ink_on,
)

NORM_COLORS = {
    "none": COLORS["centered"],
    "layernorm": COLORS["x_hat"],
    "batchnorm": COLORS["batch"],
    "rmsnorm": COLORS["sigma_band"],
}
NORM_NAMES = {
    "none": "no normalization",
    "layernorm": "LayerNorm",
    "batchnorm": "BatchNorm",
    "rmsnorm": "RMSNorm",
}
DASHES = ("solid", "dash", "dot", "dashdot")


def _threshold_bands(hi: float, lo: float) -> dict[str, list[dict[str, Any]]]:
    """Layout items shading the exploded (above ``hi``) and vanished (below ``lo``) zones of a log axis."""
    shapes: list[dict[str, Any]] = []
    notes: list[dict[str, Any]] = []
    for y0, y1, text, edge in ((hi, 1e300, "exploded zone", hi), (1e-300, lo, "vanished zone", lo)):
        shapes.append(hrect(y0, y1, fillcolor=COLORS["warn"], opacity=0.07, line={"width": 0}, layer="below"))
        shapes.append(hline(edge, {"color": COLORS["warn"], "dash": "dot", "width": 1})[0])
        # annotations on a log axis take log10 of the value (a Plotly convention)
        notes.append(
            {
                "x": 0,
                "xref": "paper",
                "y": float(np.log10(edge)),
                "yref": "y",
                "text": text,
                "showarrow": False,
            }
            | {"xanchor": "left", "yanchor": "bottom" if edge == hi else "top"}
            | {"font": {"size": FONT_SIZE - 2}}  # the theme's ink; the red line and band say which zone
        )
    return {"shapes": shapes, "annotations": notes}


def _log_range(values: Sequence[np.ndarray], hi: float, lo: float) -> list[float]:
    finite = np.concatenate([v[np.isfinite(v) & (v > 0)] for v in values] + [np.array([hi, lo])])
    return [float(np.log10(finite.min())) - 0.5, float(np.log10(finite.max())) + 0.5]


def per_layer_figure(
    series: Sequence[tuple[str, np.ndarray, np.ndarray, str, str]],
    title: str,
    y_title: str,
    *,
    hi: float,
    lo: float,
    x_title: str = "layer (0 = input)",
    height: int = 400,
) -> go.Figure:
    """One line per ``(name, layers, values, colour, dash)`` on a log y axis, with the danger zones.

    ``hi`` / ``lo`` are the thresholds above / below which values count as exploded / vanished.
    Zeros cannot be drawn on a log axis and are left out.
    """
    traces = []
    for name, layers, values, color, dash in series:
        keep = values > 0
        traces.append(
            go.Scatter(
                x=layers[keep],
                y=values[keep],
                name=name,
                mode="lines+markers",
                line={"color": color, "dash": dash, "width": 3},
                marker={"size": 5},
            )
        )
    extra = _threshold_bands(hi, lo) | {
        "yaxis": {
            "type": "log",
            "range": _log_range([s[2] for s in series], hi, lo),
            "exponentformat": "power",
        }
    }
    fig = base_layout(go.Figure(traces), title, x_title=x_title, y_title=y_title, height=height, extra=extra)
    return finish(fig)


def histogram_figure(counts: np.ndarray, edges: np.ndarray, title: str, color: str) -> go.Figure:
    """Bars of one precomputed histogram (fractions) between ``edges``."""
    centres = (edges[:-1] + edges[1:]) / 2
    fig = go.Figure(go.Bar(x=centres, y=counts, width=np.diff(edges), marker_color=color, name="activations"))
    fig = base_layout(fig, title, x_title="activation value", y_title="fraction of values", height=360)
    fig.update_layout(showlegend=False, bargap=0.02)
    return finish(fig)


def ridgeline_figure(counts: np.ndarray, edges: np.ndarray, layers: Sequence[int], title: str) -> go.Figure:
    """Stacked histograms, one ridge per layer (bottom = earliest), each scaled to its own peak."""
    centres = (edges[:-1] + edges[1:]) / 2
    fig = go.Figure()
    for i, (layer, row) in enumerate(zip(layers, counts, strict=True)):
        peak = float(row.max()) or 1.0
        y = i + 0.9 * row / peak
        fig.add_trace(
            go.Scatter(
                x=centres,
                y=np.full_like(centres, float(i)),
                mode="lines",
                line={"width": 0},
                showlegend=False,
                hoverinfo="skip",
            )
        )
        fig.add_trace(
            go.Scatter(
                x=centres,
                y=y,
                mode="lines",
                fill="tonexty",
                name=f"layer {layer}",
                line={"color": COLORS["x"], "width": 2},
                fillcolor="rgba(0,114,178,0.25)",  # COLORS["x"], translucent: an area, not a line
                showlegend=False,
            )
        )
    fig = base_layout(fig, title, x_title="activation value (shared axis)", y_title="layer", height=420)
    fig.update_yaxes(tickvals=list(range(len(layers))), ticktext=[str(v) for v in layers])
    return finish(fig)


def _box(fig: go.Figure, x: float, y: float, text: str, color: str, *, strong: bool) -> None:
    """A block: solid with black or white text when ``strong``, else a faint tint with the theme's ink."""
    fig.add_shape(
        type="rect",
        x0=x - 0.8,
        x1=x + 0.8,
        y0=y - 0.32,
        y1=y + 0.32,
        line={"color": color, "width": 3 if strong else 1.5},
        fillcolor=color,
        opacity=1.0 if strong else 0.25,
    )
    fig.add_annotation(
        x=x,
        y=y,
        text=f"<b>{text}</b>" if strong else text,
        showarrow=False,
        font={"size": FONT_SIZE - 1, "color": ink_on(color)} if strong else {"size": FONT_SIZE - 1},
        bgcolor=color if strong else None,  # the text's own background: the box's colour
    )


def _arrow(fig: go.Figure, x0: float, y0: float, x1: float, y1: float) -> None:
    fig.add_annotation(
        x=x1,
        y=y1,
        ax=x0,
        ay=y0,
        xref="x",
        yref="y",
        axref="x",
        ayref="y",
        text="",
        showarrow=True,
        arrowhead=2,
        arrowwidth=1.5,
        arrowcolor=INK,
    )


def block_diagram(selected: str) -> go.Figure:
    """One transformer block drawn twice: post-LN (BERT, MiniLM) and pre-LN (GPT-2).

    ``selected`` ("post" or "pre") is drawn in full colour, the other faded.
    LayerNorm boxes are green, sublayers grey, residual additions orange.
    """
    fig = go.Figure()
    ln_c, sub_c, add_c = COLORS["x_hat"], COLORS["centered"], COLORS["mu"]
    layouts = {
        "post": (
            1.5,
            ["Attention", "Add", "LayerNorm", "Feed-forward", "Add", "LayerNorm"],
            "post-LN: normalize after the add<br>(BERT, MiniLM: this page's model)",
        ),
        "pre": (
            6.0,
            ["LayerNorm", "Attention", "Add", "LayerNorm", "Feed-forward", "Add"],
            "pre-LN: normalize before each sublayer<br>(GPT-2 + a final LayerNorm; LLaMA: RMSNorm)",
        ),
    }
    for key, (x, boxes, caption) in layouts.items():
        strong = key == selected
        ys = [6 - i for i in range(len(boxes))]
        _arrow(fig, x, 7.2, x, ys[0] + 0.34)
        fig.add_annotation(
            x=x, y=7.45, text="x (residual stream in)", showarrow=False, font={"size": FONT_SIZE - 2}
        )
        for i, (name, y) in enumerate(zip(boxes, ys, strict=True)):
            color = ln_c if name == "LayerNorm" else add_c if name == "Add" else sub_c
            _box(fig, x, y, "+ (add)" if name == "Add" else name, color, strong=strong)
            if i + 1 < len(boxes):
                _arrow(fig, x, y - 0.33, x, ys[i + 1] + 0.34)
        _arrow(fig, x, ys[-1] - 0.33, x, ys[-1] - 0.9)
        adds = [y for name, y in zip(boxes, ys, strict=True) if name == "Add"]
        # post-LN: the second skip leaves after the first LayerNorm; pre-LN: right after the first add
        starts = [7.0, ys[2] - 0.45] if key == "post" else [7.0, adds[0] - 0.45]
        for y_from, y_to in zip(starts, adds, strict=True):  # residual skip paths around each sublayer
            fig.add_shape(
                type="path",
                path=f"M {x} {y_from} L {x + 1.3} {y_from} L {x + 1.3} {y_to} L {x + 0.8} {y_to}",
                line={"color": add_c, "width": 3 if strong else 1.5, "dash": "solid" if strong else "dot"},
            )
        fig.add_annotation(
            x=x + 1.45,
            y=(starts[0] + adds[0]) / 2,
            text="skip",
            showarrow=False,
            textangle=-90,
            font={"size": FONT_SIZE - 3},
        )
        fig.add_annotation(
            x=x,
            y=-0.35,
            text=f"<b>{caption}</b>" if strong else caption,  # the theme's ink; the chosen one bold
            showarrow=False,
            font={"size": FONT_SIZE - 2},
        )
    fig.update_xaxes(visible=False, range=[-0.2, 8.3])
    fig.update_yaxes(visible=False, range=[-1.0, 7.8])
    fig = base_layout(fig, "Where the LayerNorms sit in one transformer block", height=560)
    fig.update_layout(showlegend=False, margin={"l": 10, "r": 10, "t": 60, "b": 10})
    return finish(fig)


def loss_curves_figure(
    curves: Sequence[tuple[str, np.ndarray, str, str]],
    title: str,
    *,
    diverged: Sequence[tuple[str, int, float, str]] = (),
) -> go.Figure:
    """Loss per step, log y. ``curves``: ``(name, loss, colour, dash)``, NaN after divergence.

    ``diverged``: ``(name, step, last finite loss, colour)`` marked with a red cross.
    """
    fig = go.Figure()
    for name, loss, color, dash in curves:
        fig.add_trace(
            go.Scatter(
                x=np.arange(loss.size),
                y=loss,
                name=name,
                mode="lines",
                line={"color": color, "dash": dash, "width": 2.5},
            )
        )
    if diverged:
        fig.add_trace(
            go.Scatter(
                x=[d[1] for d in diverged],
                y=[d[2] for d in diverged],
                mode="markers",
                marker={"symbol": "x", "size": 14, "color": COLORS["warn"]},
                name="✗ diverged",
                text=[d[0] for d in diverged],
                hovertemplate="%{text}: diverged at step %{x}",
            )
        )
    fig = base_layout(fig, title, x_title="gradient-descent step", y_title="training loss (log)", height=420)
    fig.update_yaxes(type="log", exponentformat="power")
    fig.update_layout(
        legend={"orientation": "v", "y": 1.0, "x": 1.02, "xanchor": "left", "yanchor": "top"},
        margin={"r": 190},
    )
    return finish(fig)


def _g(value: float, digits: int) -> str:
    """``%.<digits>g``: the compact style of the heatmap's cells."""
    return f"{float(value):.{digits}g}"


LOSS_SCALE = pc.sequential.Viridis_r  # log10 of the final loss: yellow 0.001 … purple 1
LOSS_RANGE = (-3.0, 0.0)


def _cell_labels(
    xs: Sequence[str], ys: Sequence[str], text: Sequence[Sequence[str]], z: np.ndarray
) -> go.Scatter:
    """The cells' texts, each in black or white, whichever reads on its cell (Plotly's own automatic
    choice falls to 2.9:1 on Viridis' greens); on an empty cell, the theme's ink on the panel.

    ``customdata`` holds each label's background, for the tests.
    """
    behind, ink, where, words = [], [], [], []
    for k, y in enumerate(ys):
        for m, x in enumerate(xs):
            if np.isfinite(z[k, m]):
                t = float(np.clip((z[k, m] - LOSS_RANGE[0]) / (LOSS_RANGE[1] - LOSS_RANGE[0]), 0.0, 1.0))
                r, g, b = pc.unlabel_rgb(pc.sample_colorscale(LOSS_SCALE, [t], colortype="rgb")[0])
                cell = f"#{round(r):02X}{round(g):02X}{round(b):02X}"
                behind.append(cell)
                ink.append(ink_on(cell))
            else:
                behind.append(PANEL)
                ink.append(INK)
            where.append((x, y))
            words.append(text[k][m])
    return go.Scatter(
        x=[w[0] for w in where],
        y=[w[1] for w in where],
        text=words,
        mode="text",
        textfont={"size": FONT_SIZE - 1, "color": ink},
        customdata=behind,
        hoverinfo="skip",
        showlegend=False,
        name="cell labels",
    )


def divergence_map(
    lrs: np.ndarray, norm_names: Sequence[str], median_loss: np.ndarray, n_diverged: np.ndarray, n_seeds: int
) -> go.Figure:
    """Heatmap learning rate x normalization coloured by log10 of the median final loss.

    Cells where every seed diverged are left empty (the theme's panel) with "✗"; partly diverged cells
    add "k/n✗" under the loss.
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(np.isfinite(median_loss), np.log10(median_loss), np.nan)
    # One learning rate's cells are compared: enough digits that different losses never look alike.
    shown = np.where(n_diverged < n_seeds, median_loss, np.nan)
    col_digits = [digits_to_separate(shown[:, m], 3, style=_g) for m in range(median_loss.shape[1])]
    text = []
    for k in range(median_loss.shape[0]):
        row = []
        for m in range(median_loss.shape[1]):
            nd = int(n_diverged[k, m])
            if nd == n_seeds:
                row.append("✗")
            elif nd:
                row.append(f"{_g(median_loss[k, m], col_digits[m])}<br>{nd}/{n_seeds}✗")
            else:
                row.append(_g(median_loss[k, m], col_digits[m]))
        text.append(row)
    x_labels = [f"{v:.3g}" for v in lrs]
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=x_labels,
            y=list(norm_names),
            text=text,  # shown on hover; drawn on the cells by the labels below
            colorscale=LOSS_SCALE,
            zmin=LOSS_RANGE[0],
            zmax=LOSS_RANGE[1],
            colorbar={
                "title": {"text": "final loss"},
                "tickvals": [-3, -2, -1, 0],
                "ticktext": ["0.001", "0.01", "0.1", "1"],
            },
            hoverongaps=False,
            xgap=3,
            ygap=3,
        )
    )
    fig.add_trace(_cell_labels(x_labels, list(norm_names), text, z))
    fig = base_layout(
        fig,
        "Final loss by learning rate: median over the seeds that did not diverge (✗: all did)",
        x_title="learning rate",
        height=330,
    )
    fig.update_xaxes(type="category")  # "0.01", "0.1": labels of columns, not positions on a number line
    fig.update_layout(plot_bgcolor=PANEL)  # cells where every seed diverged: the theme's raised panel
    return finish(fig)
