"""Figures for the "Under the hood" pages on invariances, geometry and gradients.

Arrays in, ``go.Figure`` out: no Streamlit calls and no statistics (every value drawn was computed
by ``layernorm``). Colours keep their app-wide meaning (:data:`ui.theme.COLORS`): input blue,
normalized x̂ green, output y vermillion, mean orange; RMSNorm, compared with LayerNorm, is brown.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ui.text import fmt
from ui.theme import (
    BACKGROUND,
    COLORS,
    FONT_SIZE,
    GUIDE,
    INK,
    base_layout,
    feature_ticks,
    finish,
)

RMS_COLOR = COLORS["batch"]  # "the other normalization" when compared with LayerNorm
GUIDE_COLOR = GUIDE  # sphere, plane, circle: drawing aids, not data
# blue - the page's background - vermillion: a zero entry looks empty, in the light and the dark theme
DIVERGING = [[0.0, COLORS["x"]], [0.5, BACKGROUND], [1.0, COLORS["y"]]]
CAMERAS: dict[str, dict[str, float]] = {  # where the eye sits for the 3-D views (unit: half the box)
    "At an angle": {"x": 1.55, "y": -1.25, "z": 0.85},
    "Along (1, 1, 1)": {"x": 1.3, "y": 1.3, "z": 1.3},
    "Edge-on to the plane": {"x": 1.6, "y": -1.6, "z": 0.0},
}
MANY_FEATURES = 64  # above this, per-feature bars become markers


def _feature_traces(values: np.ndarray, name: str, color: str, *, dash: bool = False) -> go.BaseTraceType:
    idx = np.arange(1, values.size + 1)
    if values.size <= MANY_FEATURES:
        # hatched: stripes of the page's colour cut across the bar (overlay: the bar keeps its colour)
        pattern = (
            {"shape": "/", "fgcolor": BACKGROUND, "fillmode": "overlay", "solidity": 0.3} if dash else None
        )
        return go.Bar(x=idx, y=values, name=name, marker={"color": color, "pattern": pattern})
    return go.Scatter(
        x=idx, y=values, name=name, mode="markers", marker={"color": color, "size": 6 if not dash else 4}
    )


def outputs_before_after(
    ln_x: np.ndarray, ln_moved: np.ndarray, rms_x: np.ndarray, rms_moved: np.ndarray, *, moved_label: str
) -> go.Figure:
    """LayerNorm (left) and RMSNorm (right) of x and of c·x + b, feature by feature."""
    fig = make_subplots(
        rows=1,
        cols=2,
        subplot_titles=("LayerNorm (γ = 1, β = 0)", "RMSNorm (γ = 1)"),
        horizontal_spacing=0.08,
        shared_yaxes=True,
    )
    for col, (before, after, color) in enumerate(  # blue: of x; hatched: of c·x + b
        [(ln_x, ln_moved, COLORS["x_hat"]), (rms_x, rms_moved, RMS_COLOR)], start=1
    ):
        first = _feature_traces(before, "of x", COLORS["x"])
        first.update(showlegend=col == 1, legendgroup="x")
        fig.add_trace(first, row=1, col=col)
        name = ("LayerNorm" if col == 1 else "RMSNorm") + f" of {moved_label}"
        fig.add_trace(_feature_traces(after, name, color, dash=True), row=1, col=col)
    titles = [a.to_plotly_json() | {"font": {"size": FONT_SIZE + 1}} for a in fig.layout.annotations]
    extra = {
        "annotations": titles,
        "barmode": "group",
        "xaxis": {"title": {"text": "feature i"}},  # both axes (base_layout titles only the first)
        "xaxis2": {"title": {"text": "feature i"}},
        "legend": {"y": 1.12},  # the legend between the title and the subplot titles
        "margin": {"t": 110},
    }
    for axis, ticks in feature_ticks(np.size(ln_x), "xaxis", "xaxis2").items():
        extra[axis] = extra[axis] | ticks
    fig = base_layout(fig, f"Outputs for x and for {moved_label}", y_title="output", height=420, extra=extra)
    return finish(fig)


def invariance_curve_chart(
    c: np.ndarray,
    ln_gap: np.ndarray,
    rms_gap: np.ndarray,
    *,
    eps: float,
    shift: float,
    ln_gap_eps0: np.ndarray | None = None,
    c_now: float | None = None,
    gap_now: float | None = None,
    rounding: np.ndarray | None = None,
) -> go.Figure:
    """max |N(c·x + b) − N(x)| against c > 0 on log–log axes, for LayerNorm and RMSNorm.

    Zero gaps have no place on a log axis and are left out (the caption says so).
    """

    def gap_line(gap: np.ndarray, name: str, color: str) -> go.Scatter:
        return go.Scatter(
            x=c, y=np.where(gap > 0, gap, np.nan), mode="lines", name=name, line={"color": color, "width": 4}
        )

    fig = go.Figure()
    if rounding is not None:
        fig.add_trace(
            go.Scatter(
                x=c,
                y=rounding,
                mode="lines",
                name="float64 rounding",
                line={"color": GUIDE_COLOR, "dash": "dot", "width": 2},
            )
        )
    fig.add_trace(gap_line(rms_gap, f"RMSNorm, b = {fmt(shift, 3)}", RMS_COLOR))
    if ln_gap_eps0 is not None:
        fig.add_trace(
            go.Scatter(
                x=c,
                y=np.where(ln_gap_eps0 > 0, ln_gap_eps0, np.nan),
                mode="markers",
                name="LayerNorm, ε = 0",
                marker={"color": COLORS["x_hat"], "size": 6, "symbol": "circle-open"},
            )
        )
    fig.add_trace(gap_line(ln_gap, f"LayerNorm, ε = {eps:.0e}", COLORS["x_hat"]))
    if c_now is not None and gap_now is not None and c_now > 0 and gap_now > 0:
        fig.add_trace(
            go.Scatter(
                x=[c_now],
                y=[gap_now],
                mode="markers",
                name="your c (LayerNorm)",
                marker={"color": COLORS["y"], "size": 16, "line": {"color": BACKGROUND, "width": 2}},
            )
        )
    log = {"type": "log", "exponentformat": "power"}
    extra = {
        "xaxis": log,
        "yaxis": log,
        # a legend of two rows under the title: room for both in the top margin
        "legend": {"y": 1.02, "font": {"size": FONT_SIZE - 2}},
        "margin": {"t": 100},
    }
    fig = base_layout(
        fig,
        "How far the output moves when x becomes c·x + b",
        x_title="scale c (log)",
        y_title="max |N(c·x + b) − N(x)|",
        height=440,
        extra=extra,
    )
    return finish(fig)


def equal_range(*arrays: np.ndarray, pad: float = 1.12) -> list[float]:
    """One axis range for every axis, so a circle looks like a circle."""
    finite = [np.abs(a[np.isfinite(a)]) for a in arrays if np.size(a)]
    lim = max([float(np.max(a)) for a in finite if a.size] + [1.0]) * pad
    return [-lim, lim]


def _user_point(
    point: np.ndarray | None, name: str, color: str, *, three_d: bool, symbol: str = "diamond"
) -> list[go.BaseTraceType]:
    if point is None:
        return []
    marker = {
        "color": color,
        "size": 12 if three_d else 20,
        "symbol": symbol,
        "line": {"color": INK, "width": 2},
    }
    if three_d:
        return [
            go.Scatter3d(x=[point[0]], y=[point[1]], z=[point[2]], mode="markers", name=name, marker=marker)
        ]
    return [go.Scatter(x=[point[0]], y=[point[1]], mode="markers", name=name, marker=marker)]


def cloud_2d(
    inputs: np.ndarray,
    x_hat: np.ndarray,
    y: np.ndarray,
    *,
    circle: np.ndarray,
    line: np.ndarray,
    ellipse_points: np.ndarray,
    beta: np.ndarray,
    user: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
) -> go.Figure:
    """d = 2: inputs (left) and where they land (right): x̂ on ±(1, −1), y = γ⊙x̂ + β.

    The dashed diagonal (1, 1) on the left spans the axis range: the direction LayerNorm forgets.
    """
    left = equal_range(inputs, *(user[:1] if user else ()))
    right = equal_range(circle, y, ellipse_points, *(user[1:] if user else ()))
    fig = make_subplots(
        rows=1,
        cols=2,
        subplot_titles=("Before: random inputs x", "After: x̂ and y = γ⊙x̂ + β"),
        horizontal_spacing=0.1,
    )
    dashed = {"color": GUIDE_COLOR, "dash": "dash", "width": 2}
    # (panel, trace) in drawing order: 1 the inputs, 2 where they land
    placed: list[tuple[int, go.BaseTraceType]] = [
        (1, go.Scatter(x=left, y=left, mode="lines", name="direction (1, 1)", line=dashed)),
        (1, go.Scatter(x=inputs[:, 0], y=inputs[:, 1], mode="markers", name="inputs x",
                       marker={"color": COLORS["x"], "size": 6, "opacity": 0.55})),
        (2, go.Scatter(x=circle[:, 0], y=circle[:, 1], mode="lines", name="circle of radius √2",
                       line={"color": GUIDE_COLOR, "width": 2})),
        (2, go.Scatter(x=line[:, 0], y=line[:, 1], mode="lines", name="line x₁ + x₂ = 0", line=dashed)),
        (2, go.Scatter(x=x_hat[:, 0], y=x_hat[:, 1], mode="markers", name="x̂ (all inputs)",
                       marker={"color": COLORS["x_hat"], "size": 26, "opacity": 0.45})),
        (2, go.Scatter(x=ellipse_points[:, 0], y=ellipse_points[:, 1], mode="lines", name="γ⊙(segment) + β",
                       line={"color": COLORS["y"], "dash": "dot", "width": 2})),
        (2, go.Scatter(x=y[:, 0], y=y[:, 1], mode="markers", name="y (all inputs)",
                       marker={"color": COLORS["y"], "size": 11, "opacity": 0.6, "symbol": "square"})),
        (2, go.Scatter(x=[beta[0]], y=[beta[1]], mode="markers", name="β (centre of y)",
                       marker={"color": COLORS["mu"], "size": 14, "symbol": "x"})),
    ]  # fmt: skip
    if user is not None:
        yours = ((1, "your x", "x", "diamond"), (2, "your x̂", "x_hat", "diamond"), (2, "your y", "y", "star"))
        for point, (col, name, kind, symbol) in zip(user, yours, strict=True):
            mark = _user_point(point, name, COLORS[kind], three_d=False, symbol=symbol)
            placed += [(col, tr) for tr in mark]
    for col, trace in placed:
        fig.add_trace(trace, row=1, col=col)
    fig = base_layout(fig, "", height=620)  # first: it titles only the first axes, which the loop sets
    for col, rng in ((1, left), (2, right)):
        fig.update_xaxes(range=rng, title_text="feature 1", row=1, col=col, zeroline=True)
        fig.update_yaxes(range=rng, title_text="feature 2", row=1, col=col, zeroline=True)
    fig.update_yaxes(scaleanchor="x", scaleratio=1, row=1, col=1)
    fig.update_yaxes(scaleanchor="x2", scaleratio=1, row=1, col=2)
    fig.update_annotations(font_size=FONT_SIZE + 1)
    fig.update_layout(
        margin={"t": 60, "b": 140},
        legend={"orientation": "h", "y": -0.14, "yanchor": "top", "x": 0.0, "xanchor": "left"},
    )
    return finish(fig)


def _scene(rng: list[float], camera: dict[str, float]) -> dict[str, object]:
    axis = {"range": rng, "autorange": False, "nticks": 5, "tickfont": {"size": 13}}  # few ticks: no overlap
    font = {"size": FONT_SIZE}
    return {
        "xaxis": {**axis, "title": {"text": "x₁", "font": font}},
        "yaxis": {**axis, "title": {"text": "x₂", "font": font}},
        "zaxis": {**axis, "title": {"text": "x₃", "font": font}},
        "aspectmode": "cube",  # equal ranges and a cube: a sphere looks round
        "domain": {"x": [0.06, 1.0], "y": [0.0, 1.0]},  # room for the x₃ title on the left
        "camera": {"eye": camera, "up": {"x": 0, "y": 0, "z": 1}},
        "annotations": [],
    }


def cloud_3d(
    points: np.ndarray,
    *,
    kind: str,
    title: str,
    camera: dict[str, float],
    sphere: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
    plane: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
    circle: np.ndarray | None = None,
    diagonal: bool = False,
    centre: np.ndarray | None = None,
    user: np.ndarray | None = None,
    height: int = 520,
) -> go.Figure:
    """One 3-D scene: a cloud of points (``kind`` "x", "x_hat" or "y") with its guides.

    ``sphere`` and ``plane`` are surface meshes, ``circle`` an (m, 3) closed curve, ``diagonal``
    draws the direction (1, 1, 1) across the box, ``centre`` β, ``user`` the student's own point.
    """
    names = {"x": "inputs x", "x_hat": "x̂ of each input", "y": "y = γ⊙x̂ + β"}
    traces: list[go.BaseTraceType] = []
    if sphere is not None:
        traces.append(
            go.Surface(x=sphere[0], y=sphere[1], z=sphere[2], opacity=0.12, showscale=False,
                       colorscale=[[0, GUIDE_COLOR], [1, GUIDE_COLOR]], name="sphere of radius √3",
                       showlegend=True, hoverinfo="skip")
        )  # fmt: skip
    if plane is not None:
        traces.append(
            go.Surface(x=plane[0], y=plane[1], z=plane[2], opacity=0.25, showscale=False,
                       colorscale=[[0, COLORS["sigma_band"]], [1, COLORS["sigma_band"]]],
                       name="plane x₁ + x₂ + x₃ = 0", showlegend=True, hoverinfo="skip")
        )  # fmt: skip
    guides = [a for a in (circle, user, centre) if a is not None]
    for mesh in (sphere, plane):
        if mesh is not None:
            guides.append(np.stack([m.ravel() for m in mesh], axis=1))
    rng = equal_range(points, *guides)
    if diagonal:
        traces.append(
            go.Scatter3d(x=rng, y=rng, z=rng, mode="lines",
                         name="direction (1, 1, 1)", line={"color": GUIDE_COLOR, "width": 6, "dash": "dash"})
        )  # fmt: skip
    if circle is not None:
        color = COLORS["y"] if kind == "y" else INK
        label = "γ⊙(circle) + β" if kind == "y" else "circle: plane ∩ sphere"
        traces.append(
            go.Scatter3d(x=circle[:, 0], y=circle[:, 1], z=circle[:, 2], mode="lines", name=label,
                         line={"color": color, "width": 4})
        )  # fmt: skip
    traces.append(
        go.Scatter3d(x=points[:, 0], y=points[:, 1], z=points[:, 2], mode="markers", name=names[kind],
                     marker={"color": COLORS[kind], "size": 3.5, "opacity": 0.8})
    )  # fmt: skip
    if centre is not None:
        traces.append(
            go.Scatter3d(x=[centre[0]], y=[centre[1]], z=[centre[2]], mode="markers", name="β (centre of y)",
                         marker={"color": COLORS["mu"], "size": 7, "symbol": "cross"})
        )  # fmt: skip
    yours = {"x": "your x", "x_hat": "your x̂", "y": "your y"}
    for tr in _user_point(user, yours[kind], COLORS[kind], three_d=True):
        traces.append(tr)
    layout = dict(  # one figure from a dict: Plotly's update_layout costs ~30 ms here
        scene=_scene(rng, camera),
        title={"text": title, "x": 0.0, "xanchor": "left", "font": {"size": FONT_SIZE + 2}},
        font={"size": FONT_SIZE, "color": INK},
        height=height,
        margin={"l": 40, "r": 10, "t": 50, "b": 0},
        legend={
            "orientation": "h",
            "y": -0.02,
            "x": 0.0,
            "xanchor": "left",
            "yanchor": "top",
            "font": {"size": FONT_SIZE - 2, "color": INK},
        },
        uirevision=title,  # keep a student's own rotation across reruns of the same view
    )
    return finish(go.Figure(traces, layout=layout))
