"""The figure builders in ``ui/charts.py``: assert on ``fig.data`` / ``fig.layout`` directly."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import pytest

from ui import charts, charts_axes
from ui.theme import COLORS, FONT_SIZE, LABELS


def _vec(d: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(d)


def _assert_base_layout(fig: go.Figure, title: str, x_title: str, y_title: str) -> None:
    assert fig.layout.title.text == title
    assert fig.layout.title.font.size == FONT_SIZE + 2
    assert fig.layout.font.size == FONT_SIZE
    assert fig.layout.xaxis.title.text == x_title
    assert fig.layout.yaxis.title.text == y_title


# ---------------------------------------------------------------------------- feature_chart


@pytest.mark.parametrize("d", [1, 2, 8, 128])
def test_feature_chart_short_vectors_are_bars(d: int) -> None:
    x = _vec(d)
    fig = charts.feature_chart([("x", x)], "The input")
    assert len(fig.data) == 1
    bar = fig.data[0]
    assert isinstance(bar, go.Bar)
    assert bar.name == LABELS["x"]
    assert bar.marker.color == COLORS["x"]
    assert list(bar.x) == list(range(1, d + 1))  # features numbered from 1, as in the formula
    np.testing.assert_array_equal(np.asarray(bar.y), x)
    _assert_base_layout(fig, "The input", "feature i", "value")
    assert fig.layout.barmode == "group"
    assert fig.layout.shapes == () and fig.layout.annotations == ()


@pytest.mark.parametrize("d", [129, 768, 4096])
def test_feature_chart_long_vectors_are_svg_lines(d: int) -> None:
    x = _vec(d, seed=3)
    fig = charts.feature_chart([("x_hat", x)], "Long", y_title="x̂")
    (trace,) = fig.data
    assert type(trace) is go.Scatter  # SVG: no WebGL context to create on every remount
    assert trace.mode == "lines+markers"
    assert trace.line.color == COLORS["x_hat"] and trace.marker.color == COLORS["x_hat"]
    assert trace.name == LABELS["x_hat"]
    assert len(trace.x) == d and trace.x[0] == 1 and trace.x[-1] == d
    np.testing.assert_array_equal(np.asarray(trace.y), x)
    assert fig.layout.yaxis.title.text == "x̂"


def test_feature_chart_one_trace_per_quantity_in_its_own_colour() -> None:
    x_hat, y, x = _vec(6, 1), _vec(6, 2), _vec(6, 3)
    fig = charts.feature_chart([("x_hat", x_hat), ("y", y), ("x", x)], "three")
    assert [t.type for t in fig.data] == ["bar", "bar", "bar"]
    assert [t.name for t in fig.data] == [LABELS["x_hat"], LABELS["y"], LABELS["x"]]
    assert [t.marker.color for t in fig.data] == [COLORS["x_hat"], COLORS["y"], COLORS["x"]]
    for trace, values in zip(fig.data, (x_hat, y, x), strict=True):
        np.testing.assert_array_equal(np.asarray(trace.y), values)


def test_feature_chart_accepts_lists_and_ints() -> None:
    fig = charts.feature_chart([("centered", [1, 2, 3])], "ints")
    assert fig.data[0].marker.color == COLORS["centered"]
    assert list(fig.data[0].y) == [1.0, 2.0, 3.0]


def test_feature_chart_hlines_and_their_labels() -> None:
    fig = charts.feature_chart(
        [("x", _vec(4))],
        "with lines",
        hlines=[("mu", 0.352, "μ = 0.352"), ("warn", -1.0, "low")],
        label_positions=("top left",),
    )
    assert len(fig.layout.shapes) == 2
    s0, s1 = fig.layout.shapes
    assert (s0.type, s0.y0, s0.y1, s0.xref) == ("line", 0.352, 0.352, "x domain")
    assert s0.line.color == COLORS["mu"] and s0.line.dash == "dash" and s0.line.width == 3
    assert s1.y0 == -1.0 and s1.line.color == COLORS["warn"]
    a0, a1 = fig.layout.annotations
    assert a0.text == "μ = 0.352" and a0.font.color is None and a0.y == 0.352  # text in the theme's ink
    assert (a0.x, a0.xanchor) == (0, "left")  # "top left", as asked
    assert a1.text == "low" and a1.font.color is None
    assert (a1.x, a1.xanchor) == (1, "right")  # default "top right" when no position is given


def test_feature_chart_band() -> None:
    fig = charts.feature_chart([("x_hat", _vec(5))], "band", band=(-1.0, 1.0), band_label="±1: unit spread")
    (rect,) = fig.layout.shapes
    assert (rect.type, rect.y0, rect.y1) == ("rect", -1.0, 1.0)
    assert rect.fillcolor == COLORS["sigma_band"] and rect.opacity == pytest.approx(0.18)
    (label,) = fig.layout.annotations
    assert label.text == "±1: unit spread"
    default = charts.feature_chart([("x", _vec(5))], "b", band=(0.0, 2.0))
    assert default.layout.annotations[0].text == LABELS["sigma_band"]


def test_feature_chart_unknown_colour_key_is_an_error() -> None:
    with pytest.raises(KeyError):
        charts.feature_chart([("not a quantity", _vec(3))], "bad")


# ---------------------------------------------------------------------------- variance_chart


def test_variance_chart() -> None:
    sq = np.array([0.25, 2.25, 0.25, 2.25])
    fig = charts.variance_chart(sq, 1.25, 1.6666667)
    (trace,) = fig.data
    assert isinstance(trace, go.Bar) and trace.name == "(xᵢ − μ)²"
    assert trace.marker.color == COLORS["centered"]
    assert list(trace.x) == [1, 2, 3, 4]
    np.testing.assert_array_equal(np.asarray(trace.y), sq)
    _assert_base_layout(fig, "Squared deviations (xᵢ − μ)²: their average is σ²", "feature i", "(xᵢ − μ)²")
    assert [s.y0 for s in fig.layout.shapes] == [1.25, 1.6666667]
    assert [s.line.color for s in fig.layout.shapes] == [COLORS["mu"], COLORS["warn"]]
    assert [a.text for a in fig.layout.annotations] == ["σ² (÷d) = 1.25", "÷(d−1) = 1.667"]
    assert [a.xanchor for a in fig.layout.annotations] == ["left", "right"]  # labels do not collide
    # σ²'s label under its line, the ÷(d−1) one over its own: the dashed line above σ² never crosses
    # σ²'s label (a newcomer saw it struck through on Variance's default vector, 0.3098 and 0.354)
    assert [a.yanchor for a in fig.layout.annotations] == ["top", "bottom"]
    zero = charts.variance_chart(np.zeros(4), 0.0, 0.0)  # a constant vector: not under the x axis
    assert [a.yanchor for a in zero.layout.annotations] == ["bottom", "bottom"]


# ---------------------------------------------------------------------------- eps_curve


def _eps_fig(current_var: float) -> tuple[go.Figure, np.ndarray, np.ndarray]:
    grid = np.logspace(-12, 0, 61)
    curve = current_var / (current_var + grid)
    return charts.eps_curve(grid, curve, 1e-5, current_var / (current_var + 1e-5), current_var), grid, curve


def test_eps_curve_traces_and_log_axis() -> None:
    fig, grid, curve = _eps_fig(0.31)
    assert len(fig.data) == 3
    line, marker, _ = fig.data
    assert isinstance(line, go.Scatter) and line.mode == "lines" and line.name == "variance of x̂"
    assert line.line.color == COLORS["x_hat"]
    np.testing.assert_array_equal(np.asarray(line.x), grid)
    np.testing.assert_array_equal(np.asarray(line.y), curve)
    assert marker.mode == "markers" and marker.name == "your ε" and marker.marker.color == COLORS["y"]
    assert tuple(marker.x) == (1e-5,) and tuple(marker.y) == (0.31 / (0.31 + 1e-5),)
    assert fig.layout.xaxis.type == "log"
    assert tuple(fig.layout.yaxis.range) == (-0.05, 1.1)
    _assert_base_layout(
        fig,
        "Variance of x̂ = σ²/(σ² + ε): near 1 while ε ≪ σ², under ½ once ε > σ²",
        "ε (log scale)",
        "variance of x̂",
    )


@pytest.mark.parametrize("current_var", [0.31, 1e-6, 1e-9])
def test_eps_curve_marks_sigma_squared_with_its_label_on_the_line(current_var: float) -> None:
    # Regression: the mark used to be add_vline(annotation_text=...). On a log axis Plotly places
    # annotations in log10 units but shapes in data units (plotly.js#1258, plotly.py#2580), so the
    # "ε = σ²" label was drawn at ε = 10**σ², far from its line. Now line and label are one trace,
    # both in data units, and no layout annotation is left to be misplaced.
    fig, _, _ = _eps_fig(current_var)
    mark = fig.data[2]
    assert mark.name == "ε = σ²" and mark.mode == "lines+text"
    assert tuple(mark.x) == (current_var, current_var)
    assert tuple(mark.y) == (0.0, 1.05)  # spans the curve, inside the fixed y range
    assert tuple(mark.text) == ("", "ε = σ²")  # label at the top end of the same line
    assert mark.line.color == COLORS["mu"] and mark.line.dash == "dot"
    assert mark.textfont.color is None  # the label in the theme's ink, the line in the colour
    assert fig.layout.annotations == () and fig.layout.shapes == ()


def test_eps_curve_no_mark_for_zero_variance() -> None:
    fig, _, _ = _eps_fig(0.0)  # log axis: σ² = 0 cannot be drawn
    assert [t.name for t in fig.data] == ["variance of x̂", "your ε"]
    assert fig.layout.shapes == () and fig.layout.annotations == ()


# ---------------------------------------------------------------------------- before_after


@pytest.mark.parametrize("d", [1, 4, 64])
def test_before_after_dots_up_to_64_values(d: int) -> None:
    x = _vec(d, 5) * 3 + 2
    y = _vec(d, 6)
    fig = charts.before_after(x, y, 2.0, 0.0)
    assert [t.type for t in fig.data] == ["scatter"] * 4
    xs, mean_x, ys, mean_y = fig.data
    assert xs.name == LABELS["x"] and xs.marker.color == COLORS["x"] and xs.mode == "markers"
    assert ys.name == LABELS["y"] and ys.marker.color == COLORS["y"]
    np.testing.assert_array_equal(np.asarray(xs.x), x)
    np.testing.assert_array_equal(np.asarray(ys.x), y)
    assert set(np.asarray(xs.y)) == {0} and set(np.asarray(ys.y)) == {1}
    assert len(xs.y) == d and len(ys.y) == d
    assert tuple(mean_x.x) == (2.0,) and tuple(mean_y.x) == (0.0,)
    assert mean_x.marker.line.color == COLORS["mu"] and mean_y.marker.line.color == COLORS["mu"]
    assert mean_x.name == "mean" and mean_x.showlegend is True and mean_y.showlegend is False
    assert tuple(fig.layout.yaxis.ticktext) == ("before: x", "after: y")
    _assert_base_layout(fig, "Before and after: every feature as a dot", "value", "")
    assert fig.layout.height == 300


@pytest.mark.parametrize("d", [65, 384, 4096])
def test_before_after_histograms_above_64_values(d: int) -> None:
    x, y = _vec(d, 7) * 10, _vec(d, 8)
    fig = charts.before_after(x, y, 0.0, 0.0)
    assert len(fig.data) == 2
    hx, hy = fig.data
    assert isinstance(hx, go.Histogram) and isinstance(hy, go.Histogram)
    assert (hx.name, hx.marker.color) == (LABELS["x"], COLORS["x"])
    assert (hy.name, hy.marker.color) == (LABELS["y"], COLORS["y"])
    assert hx.nbinsx == 60 and hy.nbinsx == 60
    np.testing.assert_array_equal(np.asarray(hx.x), x)
    np.testing.assert_array_equal(np.asarray(hy.x), y)
    assert fig.layout.barmode == "overlay"
    _assert_base_layout(fig, "Before and after: distribution of the d features", "value", "count")


# ---------------------------------------------------------------------------- affine_map


def test_affine_map() -> None:
    x_hat = np.array([-1.5, -0.5, 0.5, 1.5])
    y = 2.0 * x_hat + 3.5
    fig = charts.affine_map(x_hat, y)
    points, identity = fig.data
    assert points.mode == "markers" and points.marker.color == COLORS["y"] and points.marker.size == 10
    np.testing.assert_array_equal(np.asarray(points.x), x_hat)
    np.testing.assert_array_equal(np.asarray(points.y), y)
    assert tuple(identity.x) == (-1.5, 1.5) and tuple(identity.y) == (-1.5, 1.5)
    assert identity.line.color == COLORS["x_hat"] and identity.name == "y = x̂ (γ = 1, β = 0)"
    _assert_base_layout(fig, "The learned map x̂ → y, feature by feature", "x̂ᵢ", "yᵢ")


def test_affine_map_reference_line_spans_at_least_unit_and_markers_shrink() -> None:
    small = charts.affine_map(np.array([0.1, -0.2]), np.array([0.0, 0.0]))
    assert tuple(small.data[1].x) == (-1.0, 1.0)
    long = charts.affine_map(_vec(129), _vec(129))
    assert long.data[0].marker.size == 5


# ---------------------------------------------------------------------------- palette


def test_palette_colours_are_distinct_per_quantity() -> None:
    shown = ["x", "mu", "sigma_band", "centered", "x_hat", "y", "gamma"]
    assert len({COLORS[k] for k in shown}) == len(shown)
    assert COLORS["gamma"] == COLORS["beta"]  # γ and β share a hue (β drawn dashed)


# --- whole features on the x axis -------------------------------------------------------------------


def _per_feature_figures(d: int) -> list[go.Figure]:
    """Every builder that puts features 1..d along x, for a vector of size d."""
    from ui import charts_geometry, charts_gradients, charts_numerics

    v = _vec(d)
    return [
        charts.feature_chart([("x", v)], "t"),
        charts_geometry.outputs_before_after(v, v, v, v, moved_label="c·x"),
        charts_gradients.backward_terms_chart(v, v, v, v),
        charts_numerics.recipe_figure(v, v, v, variant_name="variant", title="t"),
        charts_numerics.rms_figure([("LayerNorm", v, COLORS["x"])], "t"),
    ]


@pytest.mark.parametrize("d", [1, 2, 3, 12])
def test_a_short_vector_has_a_tick_per_feature_and_no_half_features(d: int) -> None:
    """Found in QA: x = [1, 5] had ticks 0.5, 1, 1.5, 2, 2.5, as if there were features between the bars."""
    for fig in _per_feature_figures(d):
        axes = [fig.layout[k] for k in fig.layout if k.startswith("xaxis")]
        assert axes, fig.layout.title.text
        for axis in axes:
            assert (axis.dtick, axis.tick0) == (1, 1), (fig.layout.title.text, axis)


def test_a_long_vector_keeps_plotlys_own_ticks() -> None:
    for fig in _per_feature_figures(13):
        assert all(fig.layout[k].dtick is None for k in fig.layout if k.startswith("xaxis"))


@pytest.mark.parametrize("d", [4, 8])
def test_the_jacobians_cells_grow_with_their_numbers_on_a_projector(d: int) -> None:
    """Presentation mode grows every font, the heatmap's cell numbers too, but the cells kept their size:
    at d = 8 on a 1280 px projector the numbers ran into each other ("−0.27−0.31−0.17")."""
    from ui import charts_gradients
    from ui.theme import PRESENT_FONT, presenting_as

    jac = np.random.default_rng(d).normal(size=(d, d))
    normal = charts_gradients.jacobian_heatmap(jac, annotate=True)
    with presenting_as(True):
        big = charts_gradients.jacobian_heatmap(jac, annotate=True)
    assert big.data[0].textfont.size == pytest.approx(normal.data[0].textfont.size * PRESENT_FONT)
    assert big.layout.height >= normal.layout.height * PRESENT_FONT  # the square cells, by the height


@pytest.mark.parametrize("what", ["mean", "variance"])
def test_the_half_width_running_charts_keep_their_title_and_legend_short(what: str) -> None:
    # Drawn two side by side on Training vs inference: the title was cut to "…step by st" at 1280 px
    # and the legend wrapped over it at 1024 px (a QA pass). Plotly neither wraps nor shortens a title.
    steps = np.arange(1, 4)
    fig = charts_axes.running_chart(steps, np.ones(3), np.ones(3), 1.0, what=what, feature=3)
    assert fig.layout.title.text == f"Running {what}, feature 3"
    assert len(fig.layout.title.text) <= 30
    assert fig.layout.showlegend is False  # a legend wrapped into the title; the page explains the marks
    assert [t.name for t in fig.data] == ["this batch", "running"]  # for hovering
    assert fig.layout.xaxis.dtick == 1  # whole training steps, no 1.5
    assert fig.data[1].mode == "lines"


def test_a_running_estimate_of_one_step_is_drawn() -> None:
    # After one batch the running line had one point, drawn as nothing (and left out of the y range).
    fig = charts_axes.running_chart(
        np.array([1]), np.array([1.372]), np.array([4.7]), 7.7, what="variance", feature=0
    )
    assert fig.data[1].mode == "lines+markers"


def test_whole_step_ticks_grow_in_nice_steps() -> None:
    got = [charts_axes._whole_dtick(n) for n in (2, 8, 9, 17, 41, 100, 200, 1000)]
    assert got == [1, 1, 2, 5, 10, 20, 50, 200]
