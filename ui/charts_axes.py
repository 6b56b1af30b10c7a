"""Figures for the "Which axis?" and "Training vs inference" pages: arrays in, ``go.Figure`` out.

No Streamlit calls and no statistics: block means, percentiles, spreads and counts all
come from :mod:`layernorm.labs.lenses` / :mod:`layernorm.labs.running`. One message per chart.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go

from layernorm.labs.blocks import DisplayGrid
from layernorm.labs.lenses import LensGroup
from ui.text import fmt
from ui.theme import BACKGROUND, COLORS, FONT_SIZE, HALO, INK, base_layout, finish, hline

# One colour per lens, taken from the app palette (LayerNorm = normalized green,
# BatchNorm = the palette's BatchNorm brown).
LENS_COLORS: dict[str, str] = {
    "LayerNorm": COLORS["x_hat"],
    "BatchNorm": COLORS["batch"],
    "InstanceNorm": COLORS["x"],
    "GroupNorm": COLORS["gamma"],
    "RMSNorm": COLORS["mu"],
}


def axes_heatmap(
    grid: DisplayGrid,
    group: LensGroup | None,
    cell_row: int,
    cell_col: int,
    *,
    n_seq: int,
    seq_len: int,
    title: str,
    pad_rows: Sequence[int] = (),
) -> go.Figure:
    """Tokens as rows, features as columns; the lens's group outlined, the chosen cell marked.

    ``grid`` is already reduced to screen size; coordinates stay those of the full tensor
    (row ``b * T + t``, feature ``i``), so ``group`` and the cell are drawn exactly.
    ``pad_rows`` (original row numbers) get a grey tick mark on the left edge.
    """
    if grid.row_step == grid.col_step == 1:
        hover, scale_title = "feature %{x:.0f}<br>row %{y:.0f}<br>x = %{z:.3g}", "x"
    else:  # a reduced grid's cell is the mean of a block (smaller at the far edges), not one value of x
        hover = (
            "features around %{x:.0f}<br>rows around %{y:.0f}<br>"
            f"mean x over up to {grid.row_step} rows × {grid.col_step} features = %{{z:.3g}}"
        )
        scale_title = "mean x"
    traces: list[go.BaseTraceType] = [
        go.Heatmap(
            z=grid.z,
            x=grid.col_centers,
            y=grid.row_centers,
            colorscale="RdBu_r",
            zmid=0.0,
            zmin=-grid.zmax,
            zmax=grid.zmax,
            colorbar={"title": {"text": scale_title}, "thickness": 14},
            hovertemplate=hover + "<extra></extra>",
        )
    ]
    # Shapes as plain dicts, given to the figure at once (add_shape/add_hline cost ~10 ms each, and
    # a batch of 32 sequences draws 62 separator lines).
    shapes: list[dict[str, Any]] = []
    if group is not None:  # spotlight: fade every cell outside the group, outline the group
        x_lo, x_hi = -0.5, _far_edge(grid.col_centers)
        y_lo, y_hi = -0.5, _far_edge(grid.row_centers)
        gx0, gx1 = group.cols[0] - 0.5, group.cols[1] - 0.5
        gy0, gy1 = group.rows[0] - 0.5, group.rows[1] - 0.5
        for x0, x1, y0, y1 in (
            (x_lo, x_hi, y_lo, gy0),
            (x_lo, x_hi, gy1, y_hi),
            (x_lo, gx0, gy0, gy1),
            (gx1, x_hi, gy0, gy1),
        ):
            if x1 > x0 and y1 > y0:
                shapes.append(
                    {"type": "rect", "x0": x0, "x1": x1, "y0": y0, "y1": y1}
                    # fades towards the page: white in light, dark in dark theme
                    | {"fillcolor": BACKGROUND, "opacity": 0.72, "line": {"width": 0}, "layer": "above"}
                )
        shapes.append(
            {"type": "rect", "x0": gx0, "x1": gx1, "y0": gy0, "y1": gy1}
            | {"line": {"color": LENS_COLORS.get(group.lens, INK), "width": 5}}
        )
    # Marks on the cells are drawn twice, ink over a wider halo of background: one of the two stands
    # out on any cell colour, in either theme.
    for color, width in ((BACKGROUND, 8), (INK, 4)):
        traces.append(
            go.Scatter(
                x=[cell_col],
                y=[cell_row],
                mode="markers",
                name="your cell",
                showlegend=False,
                marker={"symbol": "circle-open", "size": 22, "color": color, "line": {"width": width}},
                hoverinfo="skip",
            )
        )
    if 1 < n_seq <= 32:
        for b in range(1, n_seq):
            for color, width in ((BACKGROUND, 5), (INK, 2)):
                shapes.append(hline(b * seq_len - 0.5, {"color": color, "width": width})[0])
    for r in pad_rows:  # a grey tab left of the plot marks each padding token's row
        shapes.append(
            {"type": "rect", "xref": "paper", "x0": -0.012, "x1": -0.002, "y0": r - 0.5, "y1": r + 0.5}
            | {"fillcolor": COLORS["centered"], "line": {"width": 0}}
        )
    step = max(1, int(np.ceil(n_seq / 16)))
    ticks = [b * seq_len + (seq_len - 1) / 2 for b in range(0, n_seq, step)]
    extra = {
        "shapes": shapes,
        "yaxis": {
            "autorange": "reversed",
            "tickvals": ticks,
            "ticktext": [f"seq {b}" for b in range(0, n_seq, step)],
            "showgrid": False,
            "zeroline": False,
            "ticklabelstandoff": 16,  # room for the padding tabs
        },
        "xaxis": {"showgrid": False, "zeroline": False},
        "showlegend": False,
        "margin": {"l": 110, "r": 20, "t": 80, "b": 60},
    }
    fig = base_layout(
        go.Figure(traces),
        title,
        x_title="feature i  (columns)",
        y_title="tokens (rows), grouped by sequence",
        height=560,
        extra=extra,
    )
    return finish(fig)


def _far_edge(centers: np.ndarray) -> float:
    """Where Plotly ends a heatmap whose cells are centred at ``centers``: half a spacing past the last."""
    spacing = float(centers[-1] - centers[-2]) if centers.size > 1 else 1.0
    return float(centers[-1]) + spacing / 2


def lens_value_bars(
    lenses: Sequence[str],
    x_hat: Sequence[float | None],
    value: float,
    *,
    digits: int = 3,
    value_digits: int = 4,
) -> go.Figure:
    """The chosen cell's normalized value under each lens (missing bars: lens undefined here).

    Bar labels get ``digits`` significant digits, the cell's value in the title ``value_digits``.
    """
    ys = [np.nan if v is None else float(v) for v in x_hat]
    fig = go.Figure(
        go.Bar(
            x=list(lenses),
            y=ys,
            marker_color=[LENS_COLORS.get(k, COLORS["warn"]) for k in lenses],
            text=["undefined" if v is None else fmt(v, digits) for v in x_hat],
            textposition="outside",
            textfont={"size": FONT_SIZE + 2},
            cliponaxis=False,
        )
    )
    fig.add_hline(y=0.0, line={"color": INK, "width": 1})
    return finish(
        base_layout(
            fig,
            f"One cell (x = {fmt(value, value_digits)}), normalized by each lens",  # some may be undefined
            y_title="normalized value x̂",
            height=400,
        )
    )


def stat_count_bars(lenses: Sequence[str], totals: Sequence[int], captions: Sequence[str]) -> go.Figure:
    """How many statistics each lens computes for this batch shape (log axis)."""
    fig = go.Figure(
        go.Bar(
            y=list(lenses),
            x=list(totals),
            orientation="h",
            text=list(captions),
            textposition="outside",
            marker_color=[LENS_COLORS.get(k, COLORS["warn"]) for k in lenses],
            cliponaxis=False,
            textfont={"size": FONT_SIZE},
        )
    )
    fig.update_xaxes(type="log")
    fig.update_yaxes(autorange="reversed")
    fig = base_layout(
        fig, "Statistics computed per forward pass", x_title="number of statistics (log scale)", height=380
    )
    fig.update_layout(margin={"l": 130, "r": 260, "t": 70, "b": 60})
    return finish(fig)


def padding_bars(labels: Sequence[str], bn_change: np.ndarray, ln_change: np.ndarray) -> go.Figure:
    """Per real token: how much its output moves when padding tokens join the batch."""
    fig = go.Figure()
    fig.add_trace(
        go.Bar(x=list(labels), y=bn_change, name="BatchNorm", marker_color=LENS_COLORS["BatchNorm"])
    )
    fig.add_trace(
        go.Bar(
            x=list(labels), y=ln_change, name="LayerNorm (exactly 0)", marker_color=LENS_COLORS["LayerNorm"]
        )
    )
    fig.update_xaxes(showticklabels=len(labels) <= 40, tickangle=-60)
    return finish(
        base_layout(
            fig,
            "Padding moves BatchNorm's output for every real token; LayerNorm's not at all",
            x_title="real token",
            y_title="largest change of its output",
            height=440,
        )
    )


def _whole_dtick(last: float, most: int = 8) -> int:
    """A tick step for an axis of whole numbers 0 … ``last``: 1, 2, 5, 10, 20, 50, … with ≤ ``most`` ticks."""
    steps = (m * 10**k for k in itertools.count() for m in (1, 2, 5))
    return next(step for step in steps if last / step <= most)


def running_chart(
    steps: np.ndarray,
    running: np.ndarray,
    batch_values: np.ndarray,
    true_value: float,
    *,
    what: str,
    feature: int,
    digits: int = 3,
) -> go.Figure:
    """One feature's running statistic per training step, its batch values, and the population value.

    The true value's label has ``digits`` significant digits (the page's, so it matches its metrics).
    Drawn at half width: a short title and no legend (the page explains the dots, line and dashes).
    """
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(
            x=steps,
            y=batch_values,
            mode="markers",
            name="this batch",
            marker={"color": COLORS["batch"], "size": 7},  # opaque: 3:1 on either background
        )
    )
    fig.add_trace(
        go.Scatter(
            x=steps,
            y=running,
            mode="lines" if len(steps) > 1 else "lines+markers",  # one point: no line to draw yet
            name="running",
            line={"color": COLORS["mu"], "width": 4},
            marker={"color": COLORS["mu"], "size": 9},
        )
    )
    fig.add_hline(
        y=true_value,
        line={"color": INK, "width": 2, "dash": "dash"},
        annotation_text=f"true {what} = {fmt(true_value, digits)}",
        annotation_position="bottom right",
        annotation_font={"size": FONT_SIZE, "shadow": HALO},  # the theme's ink, haloed over markers
    )
    return finish(
        base_layout(
            fig,
            f"Running {what}, feature {feature}",
            x_title="training step",
            y_title=what,
            height=380,
            extra={
                # Whole steps only (Plotly's own ticks put 1.5 between batches 1 and 2).
                "xaxis": {"tick0": 0, "dtick": _whole_dtick(float(np.max(steps, initial=1)))},
                # No legend: at half width it wrapped into the title, in one chart and not its
                # neighbour (their y labels differ in width). The page says under both what the
                # dots, the line and the dashes are; the traces keep their names for hovering.
                "showlegend": False,
            },
        )
    )


def redraw_chart(bn_values: np.ndarray, ln_value: float, batch_size: int) -> go.Figure:
    """Histogram of one example's BatchNorm output across redrawn batch-mates; LayerNorm's as a line."""
    fig = go.Figure(
        go.Histogram(
            x=bn_values,
            nbinsx=30,
            name="BatchNorm (training)",
            marker={"color": LENS_COLORS["BatchNorm"], "line": {"color": BACKGROUND, "width": 1}},
        )
    )
    fig.add_vline(
        x=ln_value,
        line={"color": LENS_COLORS["LayerNorm"], "width": 5},
        annotation_text=f"LayerNorm: {fmt(ln_value)} every time",  # as the page's LayerNorm metric
        annotation_position="top",
        annotation_font={"size": FONT_SIZE, "shadow": HALO},  # the theme's ink, haloed over the bars
    )
    return finish(
        base_layout(
            fig,
            f"Same example, {bn_values.size} different batches of {batch_size}",
            x_title="output of the feature you follow",
            y_title="how many batches",
            height=380,
        )
    )


def shift_chart(
    bn_mean: float, bn_std: float, ln_mean: float, ln_std: float, *, labels: Sequence[str] | None = None
) -> go.Figure:
    """Mean and std of the test outputs: a well normalized output sits on 0 and 1.

    ``labels`` are the bar texts in the order of the arguments (the page passes its metric texts,
    so a mean that is 0 to rounding says so); default: each value with 3 significant digits.
    """
    texts = list(labels) if labels is not None else [fmt(v, 3) for v in (bn_mean, bn_std, ln_mean, ln_std)]
    fig = go.Figure()
    for j, (name, vals) in enumerate(
        (("BatchNorm (running stats)", (bn_mean, bn_std)), ("LayerNorm", (ln_mean, ln_std)))
    ):
        color = LENS_COLORS["BatchNorm" if name.startswith("Batch") else "LayerNorm"]
        fig.add_trace(
            go.Bar(
                x=["mean of outputs", "std of outputs"],
                y=list(vals),
                name=name,
                marker_color=color,
                text=texts[2 * j : 2 * j + 2],
                textposition="outside",
                textfont={"size": FONT_SIZE + 2},
                cliponaxis=False,
            )
        )
    fig.add_shape(type="line", x0=-0.45, x1=0.45, y0=0, y1=0, line={"color": INK, "dash": "dash", "width": 3})
    fig.add_shape(type="line", x0=0.55, x1=1.45, y0=1, y1=1, line={"color": INK, "dash": "dash", "width": 3})
    fig.update_layout(barmode="group")
    return finish(
        base_layout(fig, "Test outputs: target mean 0 and std 1 (dashed)", y_title="value", height=400)
    )
