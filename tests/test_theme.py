"""Charts legible in the light and the dark theme, a colour-blind-safe palette, presentation mode.

Contrast is WCAG 2.2's ratio: text at least 4.5:1 (1.4.3), lines and markers at least 3:1 (1.4.11),
against every chart background Streamlit draws (``ui.theme.THEMES``). Colour-blind distances are
OKLab distances after Machado, Oliveira & Fernandes' (2009) simulation at full severity.
Every figure builder of ``ui/charts*.py`` is run on small inputs and every colour it sets is checked.
"""

from __future__ import annotations

import importlib
import inspect
import itertools
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
import pytest
from streamlit.elements.lib import streamlit_plotly_theme as st_plotly

from layernorm.labs.blocks import display_grid
from layernorm.labs.lenses import lens_group
from layernorm.labs.recent_norms import AttentionLogits, attention_logits
from ui import (
    charts,
    charts_axes,
    charts_depth,
    charts_geometry,
    charts_gradients,
    charts_live,
    charts_numerics,
    charts_recent,
    charts_training,
    charts_transformer,
    theme,
)
from ui.theme import BACKGROUND, COLORS, FONT_SIZE, INK, OKABE_ITO, PANEL, THEMES, contrast

# Every ui/charts*.py, found on disk: a new chart module's builders are checked without being listed here.
MODULES = tuple(
    importlib.import_module(f"ui.{p.stem}")
    for p in sorted((Path(__file__).resolve().parents[1] / "ui").glob("charts*.py"))
)
TEXT, MARK = 4.5, 3.0  # WCAG AA: text; lines, markers and bars
THEME_COLORS = (INK, BACKGROUND, PANEL)  # replaced by the browser with the active theme's colour
# The app's palette before this change (Okabe-Ito plus grey, brown and a warning red).
PREVIOUS = {
    "x": "#0072B2",
    "mu": "#E69F00",
    "sigma_band": "#56B4E9",
    "centered": "#7F7F7F",
    "x_hat": "#009E73",
    "y": "#D55E00",
    "gamma": "#CC79A7",
    "batch": "#8C564B",
    "warn": "#C00000",
}
HUES = {k: v for k, v in COLORS.items() if k != "beta"}  # β is γ's hue, drawn dashed


# --- contrast and colour-blindness ------------------------------------------------------------------


def test_contrast_matches_known_wcag_values() -> None:
    assert contrast("#000000", "#FFFFFF") == pytest.approx(21.0)
    assert contrast("#777777", "#FFFFFF") == pytest.approx(4.48, abs=0.01)
    assert contrast("#E69F00", "#FFFFFF") == pytest.approx(2.25, abs=0.01)  # Okabe-Ito orange fails
    assert contrast("#FFFFFF", "#E69F00") == contrast("#E69F00", "#FFFFFF")


# The chart backgrounds: Streamlit's light and dark theme, and its earlier dark background.
BACKGROUNDS = [THEMES["light"][BACKGROUND], THEMES["dark"][BACKGROUND], "#0E1117"]


@pytest.mark.parametrize("background", BACKGROUNDS)
@pytest.mark.parametrize("key", HUES)
def test_every_palette_colour_has_3_to_1_on_every_chart_background(key: str, background: str) -> None:
    assert contrast(COLORS[key], background) >= MARK
    assert contrast(theme.GUIDE, background) >= MARK


@pytest.mark.parametrize("name", THEMES)
def test_chart_text_colour_has_4_5_to_1_on_the_background_and_the_panel(name: str) -> None:
    ink = THEMES[name][INK]
    assert contrast(ink, THEMES[name][BACKGROUND]) >= TEXT
    assert contrast(ink, THEMES[name][PANEL]) >= TEXT


@pytest.mark.parametrize("key", HUES)
def test_text_on_a_palette_fill_reads_at_4_5_to_1(key: str) -> None:
    assert contrast(theme.ink_on(COLORS[key]), COLORS[key]) >= TEXT


def test_moved_colours_stay_close_to_okabe_ito() -> None:
    moved = {"mu": "orange", "sigma_band": "sky_blue", "y": "vermillion"}
    for key, hue in moved.items():
        assert 0 < _oklab_distance(COLORS[key], OKABE_ITO[hue]) <= 0.10, key
    for key, hue in {"x": "blue", "x_hat": "bluish_green", "gamma": "reddish_purple"}.items():
        assert COLORS[key] == OKABE_ITO[hue]  # the ones that passed are untouched


# Machado et al. (2009), severity 1.0, on linear RGB.
CVD = {
    "normal": np.eye(3),
    "protanopia": np.array(
        [[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216], [-0.003882, -0.048116, 1.051998]]
    ),
    "deuteranopia": np.array(
        [[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413], [-0.011820, 0.042940, 0.968881]]
    ),
}


def _linear(color: str) -> np.ndarray:
    c = np.array([int(color.lstrip("#")[i : i + 2], 16) / 255 for i in (0, 2, 4)])
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def _oklab(linear: np.ndarray) -> np.ndarray:
    m1 = np.array(
        [
            [0.4122214708, 0.5363325363, 0.0514459929],
            [0.2119034982, 0.6806995451, 0.1073969566],
            [0.0883024619, 0.2817188376, 0.6299787005],
        ]
    )
    m2 = np.array(
        [
            [0.2104542553, 0.7936177850, -0.0040720468],
            [1.9779984951, -2.4285922050, 0.4505937099],
            [0.0259040371, 0.7827717662, -0.8086757660],
        ]
    )
    return m2 @ np.cbrt(m1 @ linear)


def _oklab_distance(a: str, b: str, vision: str = "normal") -> float:
    sim = CVD[vision]
    return float(
        np.linalg.norm(_oklab(np.clip(sim @ _linear(a), 0, 1)) - _oklab(np.clip(sim @ _linear(b), 0, 1)))
    )


def _closest_pair(palette: dict[str, str], vision: str, only: set[str] | None = None) -> float:
    return min(
        _oklab_distance(palette[a], palette[b], vision)
        for a, b in itertools.combinations(palette, 2)
        if only is None or {a, b} & only
    )


@pytest.mark.parametrize("vision", ["protanopia", "deuteranopia"])
def test_palette_is_no_harder_to_tell_apart_than_before(vision: str) -> None:
    # The closest pair overall (grey x − μ and green x̂ for deuteranopes, 0.033) is the old palette's.
    assert _closest_pair(HUES, vision) >= _closest_pair(PREVIOUS, vision) - 1e-9


@pytest.mark.parametrize(
    ("vision", "floor"), [("normal", 0.10), ("protanopia", 0.065), ("deuteranopia", 0.065)]
)
def test_moved_colours_stay_apart_from_every_other_quantity(vision: str, floor: float) -> None:
    # Without the darker vermillion, mean orange and output y would be 0.048 apart for deuteranopes.
    moved = {k for k in HUES if COLORS[k] != PREVIOUS[k]}
    assert moved == {"mu", "sigma_band", "y", "warn"}
    assert _closest_pair(HUES, vision, only=moved) >= floor


# --- theme-following colours -------------------------------------------------------------------------


def test_charts_use_streamlits_template_and_its_placeholders() -> None:
    assert pio.templates.default == "layernorm_lab"
    ours, streamlits = pio.templates["layernorm_lab"], pio.templates["streamlit"]
    assert ours.layout.to_plotly_json() == streamlits.layout.to_plotly_json()
    for kind in theme.TRACE_TYPES:  # Streamlit's defaults for every type the charts draw
        assert [t.to_plotly_json() for t in ours.data[kind]] == [
            t.to_plotly_json() for t in streamlits.data[kind]
        ]
    assert len(ours.to_plotly_json()["data"]) < len(streamlits.to_plotly_json()["data"])  # and no others
    assert (INK, BACKGROUND, PANEL) == (st_plotly.GRAY_90, st_plotly.BG_COLOR, st_plotly.BG_MIX)


def test_the_browser_bundle_still_replaces_the_placeholders() -> None:
    # Streamlit's frontend swaps these exact strings for the theme's colours (CustomTheme.tsx); if a
    # new release stopped doing so, INK would be drawn as near-black on the dark theme.
    static = Path(inspect.getfile(st_plotly)).parents[2] / "static" / "static" / "js"
    bundle = next(
        p.read_text(encoding="utf-8") for p in static.glob("PlotlyChart*.js") if "#000038" in p.read_text()
    )
    for placeholder in THEME_COLORS:
        assert re.search(rf"`{placeholder}`", bundle), placeholder
    assert "replaceAll(h,t.colors.bgColor)" in bundle.replace(" ", "")


# --- every chart builder, every colour it sets -----------------------------------------------------------


def _vec(d: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(d)


def _builders() -> dict[str, Callable[[], go.Figure | list[go.Figure]]]:
    x8, x200 = _vec(8), _vec(200, 1)
    batch = np.random.default_rng(2).standard_normal((2, 4, 8))
    grid = display_grid(batch)
    lenses = list(charts_axes.LENS_COLORS)
    layers = np.arange(11)
    curve = np.logspace(0, -3, 11)
    offsets = np.logspace(0, 8, 9)
    dtypes = charts_numerics.PANEL_ORDER
    methods = charts_numerics.METHOD_STYLE
    err = {t: {m: np.where(offsets > 1e6, np.nan, 1e-8 * offsets) for m in methods} for t in dtypes}
    words = {t: {m: ["overflow"] * offsets.size for m in methods} for t in dtypes}
    c = np.logspace(-3, 3, 13)
    w_q, w_k = np.random.default_rng(5).standard_normal((2, 8, 4))

    def heads(scale: float, qk_norm: bool) -> AttentionLogits:
        return attention_logits(batch[0, :, :], w_q, w_k, scale=scale, qk_norm=qk_norm)

    pts2 = np.random.default_rng(3).standard_normal((20, 2))
    pts3 = np.random.default_rng(4).standard_normal((20, 3))
    circle3 = np.c_[np.cos(np.linspace(0, 6.3, 30)), np.sin(np.linspace(0, 6.3, 30)), np.zeros(30)]
    u, v = np.meshgrid(np.linspace(0, 3.1, 5), np.linspace(0, 6.3, 5))
    sphere = (np.sin(u) * np.cos(v), np.sin(u) * np.sin(v), np.cos(u))
    plane = (u, v, -u - v)
    sites = [f"site {i}" for i in range(13)]
    return {
        "charts.feature_chart": lambda: charts.feature_chart(
            [("x", x8), ("x_hat", x8), ("y", x8)],
            "t",
            hlines=[("mu", 0.3, "μ"), ("warn", -1.0, "low")],
            band=(-1, 1),
        ),
        "charts.feature_chart long": lambda: charts.feature_chart([("x", x200)], "t"),
        "charts.variance_chart": lambda: charts.variance_chart(x8**2, 1.0, 1.1),
        "charts.eps_curve": lambda: charts.eps_curve(
            np.logspace(-9, 0, 10), np.linspace(1, 0, 10), 1e-5, 0.9, 0.3
        ),
        "charts.before_after": lambda: [
            charts.before_after(x8, x8 / 2, 0.1, 0.0),
            charts.before_after(x200, x200 / 2, 0.1, 0.0),
        ],
        "charts.affine_map": lambda: charts.affine_map(x8, 2 * x8 + 1),
        "charts.standardized_chart": lambda: charts.standardized_chart(x8),
        "charts_axes.axes_heatmap": lambda: charts_axes.axes_heatmap(
            grid,
            lens_group((2, 4, 8), (0, 1, 2), "LayerNorm"),
            1,
            2,
            n_seq=2,
            seq_len=4,
            title="t",
            pad_rows=[3],
        ),
        "charts_axes.lens_value_bars": lambda: charts_axes.lens_value_bars(
            lenses, [0.5, None, 1.0, -1.0, 0.2], 0.3
        ),
        "charts_axes.stat_count_bars": lambda: charts_axes.stat_count_bars(
            lenses, [16, 16, 32, 8, 8], lenses
        ),
        "charts_axes.padding_bars": lambda: charts_axes.padding_bars(["a", "b"], np.ones(2), np.zeros(2)),
        "charts_axes.running_chart": lambda: charts_axes.running_chart(
            layers, curve, curve * 1.1, 0.5, what="mean", feature=0
        ),
        "charts_axes.redraw_chart": lambda: charts_axes.redraw_chart(x200, 0.3, 8),
        "charts_axes.shift_chart": lambda: charts_axes.shift_chart(0.1, 0.9, 0.0, 1.0),
        "charts_depth.per_layer_figure": lambda: charts_depth.per_layer_figure(
            [("LN", layers, curve, charts_depth.NORM_COLORS["layernorm"], "solid")], "t", "y", hi=1e3, lo=1e-3
        ),
        "charts_depth.histogram_figure": lambda: charts_depth.histogram_figure(
            np.ones(5) / 5, np.linspace(-1, 1, 6), "t", COLORS["x"]
        ),
        "charts_depth.ridgeline_figure": lambda: charts_depth.ridgeline_figure(
            np.ones((3, 5)), np.linspace(-1, 1, 6), [0, 5, 10], "t"
        ),
        "charts_depth.block_diagram": lambda: [
            charts_depth.block_diagram("post"),
            charts_depth.block_diagram("pre"),
        ],
        "charts_depth.loss_curves_figure": lambda: charts_depth.loss_curves_figure(
            [("LN", curve, COLORS["x_hat"], "solid")], "t", diverged=[("none", 3, 1.0, COLORS["centered"])]
        ),
        "charts_depth.divergence_map": lambda: charts_depth.divergence_map(
            np.array([0.01, 0.1, 1.0]),
            ["none", "LayerNorm"],
            np.array([[0.5, np.nan, np.nan], [0.01, 0.02, np.nan]]),  # rows: the normalizations
            np.array([[0, 3, 3], [0, 1, 3]]),
            3,
        ),
        "charts_transformer.site_scale_figure": lambda: charts_transformer.site_scale_figure(
            sites, [("max |x|", np.linspace(1, 20, 13), COLORS["x"], "solid")], "t"
        ),
        "charts_transformer.dimension_figure": lambda: charts_transformer.dimension_figure(
            np.abs(x200), np.abs(x200) / 3, "s", [3]
        ),
        "charts_transformer.parameter_heatmap": lambda: charts_transformer.parameter_heatmap(
            np.arange(15).reshape(3, 5), np.linspace(0, 2, 6), ["a", "b", "c"], "γ", 1.0
        ),
        "charts_training.layer_statistics_figure": lambda: charts_training.layer_statistics_figure(
            [("a", np.ones((5, 3))), ("b", np.zeros((5, 3)))], "s", last_step=3, max_step=10
        ),
        "charts_transformer.token_statistics_figure": lambda: charts_transformer.token_statistics_figure(
            ["0 · a", "1 · b", "2 · c"], (x8[:3], np.abs(x8[:3])), (np.ones(3), np.ones(3)), 1
        ),
        "charts_geometry.outputs_before_after": lambda: charts_geometry.outputs_before_after(
            x8, x8, x8, x8, moved_label="2·x + 1"
        ),
        "charts_geometry.invariance_curve_chart": lambda: charts_geometry.invariance_curve_chart(
            c,
            c * 1e-3,
            c * 1e-2,
            eps=1e-5,
            shift=1.0,
            ln_gap_eps0=c * 1e-16,
            c_now=1.0,
            gap_now=1e-3,
            rounding=c * 1e-16,
        ),
        "charts_geometry.cloud_2d": lambda: charts_geometry.cloud_2d(
            pts2,
            pts2,
            pts2,
            circle=pts2,
            line=pts2,
            ellipse_points=pts2,
            beta=np.zeros(2),
            user=(pts2[0], pts2[1], pts2[2]),
        ),
        "charts_geometry.cloud_3d": lambda: [
            charts_geometry.cloud_3d(
                pts3,
                kind=kind,
                title="t",
                camera=charts_geometry.CAMERAS["At an angle"],
                sphere=sphere,
                plane=plane,
                circle=circle3,
                diagonal=True,
                centre=np.zeros(3),
                user=pts3[0],
            )
            for kind in ("x", "x_hat", "y")
        ],
        "charts_gradients.jacobian_heatmap": lambda: charts_gradients.jacobian_heatmap(
            np.eye(4) - 0.25, annotate=True
        ),
        "charts_gradients.backward_terms_chart": lambda: charts_gradients.backward_terms_chart(
            x8, x8, x8, x8
        ),
        "charts_gradients.finite_difference_chart": lambda: charts_gradients.finite_difference_chart(
            c, np.where(c > 2, c, 0.0), chosen=3, what="xᵢ"
        ),
        "charts_gradients.jacobian_norm_curve": lambda: charts_gradients.jacobian_norm_curve(
            c,
            [("LayerNorm", c, "x_hat"), ("RMSNorm", c * 2, "batch")],
            eps_now=1.0,
            ceiling=c * 3,
            now=[1.0, 2.0],
        ),
        "charts_live.token_statistics_figure": lambda: charts_live.token_statistics_figure(
            sites, curve.repeat(2)[:13], curve.repeat(2)[:13], 4
        ),
        "charts_live.residual_figure": lambda: charts_live.residual_figure(
            sites, np.ones(13), np.ones(13) * 2, "changed"
        ),
        "charts_live.before_after_figure": lambda: charts_live.before_after_figure(x200, x200 / 2, [3], "t"),
        "charts_numerics.recipe_figure": lambda: charts_numerics.recipe_figure(
            x8, x8, x8 * 1e-6, variant_name="v", title="t"
        ),
        "charts_numerics.rms_figure": lambda: charts_numerics.rms_figure(
            [("LayerNorm", x8, COLORS["x_hat"]), ("RMSNorm", x200, COLORS["x"])], "t"
        ),
        "charts_numerics.precision_base": lambda: charts_numerics.precision_base(
            offsets, err, words, {t: np.full(offsets.size, 1e-10) for t in dtypes}
        ),
        "charts_numerics.mark_offset": lambda: charts_numerics.mark_offset(
            charts_numerics.precision_base(
                offsets, err, words, {t: np.full(offsets.size, 1e-10) for t in dtypes}
            ),
            1e4,
        ),
        "charts_numerics.precision_figure": lambda: charts_numerics.precision_figure(
            offsets, err, words, {t: np.full(offsets.size, 1e-10) for t in dtypes}, current_offset=1e4
        ),
        "charts_recent.qk_figure": lambda: charts_recent.qk_figure(
            [1.0, 2.0, 4.0], [heads(s, False) for s in (1, 2, 4)], [heads(s, True) for s in (1, 2, 4)], 2.0
        ),
    }


BUILDERS = _builders()


def _figures(name: str) -> list[go.Figure]:
    made = BUILDERS[name]()
    return made if isinstance(made, list) else [made]


def test_every_figure_builder_is_checked() -> None:
    public = {
        f"{m.__name__.split('.')[-1]}.{n}"
        for m in MODULES
        for n, f in inspect.getmembers(m, inspect.isfunction)
        if not n.startswith("_")
        and f.__module__ == m.__name__
        and "Figure" in str(inspect.signature(f).return_annotation)
    }
    covered = {n.split(" ")[0] for n in BUILDERS}
    assert public == covered


def _walk(node: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    if isinstance(node, dict):
        for k, v in node.items():
            if k != "template":
                yield from _walk(v, (*path, k))
    elif isinstance(node, list) and node and all(isinstance(v, dict) for v in node):
        for i, v in enumerate(node):
            yield from _walk(v, (*path, str(i)))
    else:
        yield path, node


def _hex(color: str) -> str:
    """A colour as ``#RRGGBB``; names ("black", "white") fail: they cannot follow the theme."""
    assert re.fullmatch(r"#[0-9A-Fa-f]{6}", color), f"{color!r} is not a #RRGGBB colour"
    return color.upper()


def _colours(fig: go.Figure) -> Iterator[tuple[str, str, str, str | None]]:
    """``(kind, where, colour, own background)`` for every colour the figure sets.

    kind "text": a font colour (own background: an annotation's bgcolor); "mark": a line, a marker,
    a marker's outline, an arrow, a hatch. Fills of areas and colour scales of heatmaps are data, not
    marks. Width-0 lines draw nothing.
    """
    spec = fig.to_plotly_json()
    for part in ("data", "layout"):
        items = spec[part] if part == "data" else [spec[part]]
        for n, item in enumerate(items):
            for path, value in _walk(item):
                where = f"{part}[{n}]." + ".".join(path)
                if not path or path[-1] not in ("color", "arrowcolor", "fgcolor") or value is None:
                    continue
                parent = path[-2] if len(path) > 1 else ""
                values = value if isinstance(value, (list, tuple)) else [value]
                if parent.endswith("font"):
                    owner = _get(item, path[:-2])
                    bg = owner.get("bgcolor") if isinstance(owner, dict) else None
                    # labels on heatmap cells carry each cell's colour in customdata
                    cells = item.get("customdata") if isinstance(value, (list, tuple)) else None
                    for i, v in enumerate(values):
                        yield "text", where, v, (cells[i] if cells is not None else bg)
                elif parent == "line" and _get(item, path[:-1]).get("width", 1) == 0:
                    continue
                elif parent in ("line", "marker", "pattern") or path[-1] == "arrowcolor":
                    if parent == "marker" and item.get("type") in ("heatmap", "surface"):
                        continue
                    for v in values:
                        if isinstance(v, str):
                            yield "mark", where, v, None


def _get(node: Any, path: tuple[str, ...]) -> Any:
    for key in path:
        node = node[int(key)] if isinstance(node, list) else node[key]
    return node


@pytest.mark.parametrize("name", BUILDERS)
def test_chart_colours_meet_wcag_aa_in_both_themes(name: str) -> None:
    for fig in _figures(name):
        found = list(_colours(fig))
        assert found, "a figure with no colour at all?"
        for kind, where, colour, own_bg in found:
            for theme_name, values in THEMES.items():
                c = values.get(colour, colour)
                if kind == "text":
                    # Text in the theme's ink reads on the chart; any other colour only on its own box.
                    if colour == INK and own_bg in (None, BACKGROUND, PANEL):
                        continue  # checked once for all: test_chart_text_colour_has_4_5_to_1_...
                    assert own_bg is not None, f"{where}: fixed text colour {colour} on the chart background"
                    behind = values.get(own_bg, own_bg)
                    assert contrast(_hex(c), _hex(behind)) >= TEXT, (where, colour, own_bg, theme_name)
                elif colour in (INK, BACKGROUND):
                    continue  # ink, or a gap / halo in the page's own colour: follows the theme
                else:
                    bg = values[BACKGROUND]
                    assert contrast(_hex(c), bg) >= MARK, (
                        f"{where} = {colour}: {contrast(c, bg):.2f}:1 on {theme_name}"
                    )


@pytest.mark.parametrize("name", BUILDERS)
def test_chart_text_defaults_to_the_themes_ink(name: str) -> None:
    # Streamlit's template colours ticks and axis titles a pale grey (#808495, 3.8:1 on white) and
    # sizes them 12-14 px: every figure sets its own, so that text inherits ink at the app's sizes.
    for fig in _figures(name):
        assert fig.layout.font.color == INK
        assert fig.layout.font.size == FONT_SIZE
        if fig.layout.scene.xaxis.range is not None:  # 3-D: the scene's own axes
            continue
        for axis in [*fig.select_xaxes(), *fig.select_yaxes()]:
            assert axis.tickfont.color == INK and axis.tickfont.size == FONT_SIZE - 2, name


# --- presentation mode ----------------------------------------------------------------------------------


def _sizes(fig: go.Figure) -> dict[str, float]:
    """Every font size, line width and marker size the figure sets, by where it is."""
    out = {}
    for part in ("data", "layout"):
        spec = fig.to_plotly_json()
        items = spec[part] if part == "data" else [spec[part]]
        for n, item in enumerate(items):
            for path, value in _walk(item):
                if isinstance(value, (int, float)) and not isinstance(value, bool) and path:
                    parent = path[-2] if len(path) > 1 else ""
                    if (path[-1] == "size" and (parent.endswith("font") or parent == "marker")) or (
                        path[-1] == "width" and parent.endswith("line")
                    ):
                        out[f"{part}[{n}]." + ".".join(path)] = float(value)
    return out


def test_presentation_is_off_outside_a_session() -> None:
    assert theme.presenting() is False and theme.scale() == 1.0
    with theme.presenting_as(True):
        assert theme.presenting() is True and theme.scale() == pytest.approx(22 / 16)
    assert theme.presenting() is False


@pytest.mark.parametrize("name", BUILDERS)
def test_presentation_mode_scales_fonts_lines_and_markers(name: str) -> None:
    normal = _figures(name)
    with theme.presenting_as(True):
        big = _figures(name)
    for a, b in zip(normal, big, strict=True):
        small, large = _sizes(a), _sizes(b)
        assert small.keys() == large.keys()
        for where, size in small.items():
            if size == 0:  # a line that is not drawn stays undrawn
                assert large[where] == 0
                continue
            k = large[where] / size
            if ".marker.size" in where:
                assert k == pytest.approx(theme.PRESENT_MARKER), where
            elif where.endswith("width"):
                assert k == pytest.approx(theme.PRESENT_LINE), where
            else:
                assert k == pytest.approx(theme.PRESENT_FONT), where
                assert large[where] >= 17, f"{where}: {large[where]} px is small on a projector"
        assert b.layout.font.size == 22 and b.layout.title.font.size in (None, 24.75)


def test_presentation_scaling_happens_once() -> None:
    with theme.presenting_as(True):
        fig = charts.variance_chart(np.ones(4), 1.0, 1.3)  # built on feature_chart, finished twice
        again = theme.finish(fig)
    assert again is fig and fig.layout.font.size == 22
    assert fig.layout.shapes[0].line.width == pytest.approx(4.5)


def test_presenting_reads_the_sessions_toggle(monkeypatch: pytest.MonkeyPatch) -> None:
    class Ctx:
        session_state: ClassVar[dict[str, bool]] = {theme.PRESENT_KEY: True}

    import streamlit.runtime.scriptrunner_utils.script_run_context as src

    monkeypatch.setattr(src, "get_script_run_ctx", lambda suppress_warning=False: Ctx())
    assert theme.presenting() is True
    Ctx.session_state = {}
    assert theme.presenting() is False


def test_presentation_style_is_constant_css() -> None:
    from ui import presentation

    style = presentation.STYLE
    assert style.startswith("<style>") and style.endswith("</style>") and style.count("<") == 2
    assert ".st-key-code_expander" in style and "stMetricValue" in style
    assert "display: none" in style


# --- building figures in one pass gives what Plotly's update methods give -----------------------------


def _slow_base_layout(fig: go.Figure, title: str, x_title: str, y_title: str) -> go.Figure:
    """The common layout the way Plotly's own update methods apply it (what base_layout replaced)."""
    fig.update_layout(
        title={"text": title, "x": 0.0, "xanchor": "left", "y": 1.0, "yanchor": "top", "pad": {"t": 12}},
        title_font_size=FONT_SIZE + 2,
        font={"size": FONT_SIZE, "color": INK},
        height=380,
        margin={"l": 60, "r": 20, "t": 70, "b": 50},
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.0, "xanchor": "right", "x": 1.0},
        legend_font={"size": FONT_SIZE - 2, "color": INK},
        xaxis_title=x_title,
        yaxis_title=y_title,
        bargap=0.15,
    )
    axes = {
        "tickfont": {"size": FONT_SIZE - 2, "color": INK},
        "title_font": {"size": FONT_SIZE, "color": INK},
    }
    fig.update_xaxes(**axes)
    fig.update_yaxes(**axes)
    return fig


@pytest.mark.parametrize("subplots", [False, True])
def test_base_layout_equals_plotly_update_methods(subplots: bool) -> None:
    from plotly.subplots import make_subplots

    def made() -> go.Figure:
        fig = make_subplots(rows=2, cols=2) if subplots else go.Figure()
        kw = {"row": 2, "col": 2} if subplots else {}
        fig.add_trace(go.Bar(x=np.arange(1, 5), y=np.array([1.0, -2.0, 3.5, 0.25])), **kw)
        fig.update_yaxes(type="log")
        return fig

    fast = theme.base_layout(made(), "t", x_title="a", y_title="b")
    slow = _slow_base_layout(made(), "t", "a", "b")
    assert json.loads(fast.to_json()) == json.loads(slow.to_json())
    assert list(fast.data[0].x) == [1, 2, 3, 4]  # arrays stay arrays, not base64 dicts
    if subplots:  # the subplot grid survives: row/col still address the axes
        fast.update_xaxes(title_text="late", row=2, col=2)
        assert fast.layout.xaxis4.title.text == "late"


@pytest.mark.parametrize("where", ["top left", "top right", "bottom left", "bottom right"])
def test_hline_items_equal_add_hline(where: str) -> None:
    line = {"color": COLORS["mu"], "dash": "dash", "width": 3}
    font = {"size": FONT_SIZE - 1, "shadow": "auto"}
    slow = go.Figure(go.Bar(x=[1, 2], y=[1.0, 2.0]))
    slow.add_hline(y=0.5, line=line, annotation_text="μ", annotation_position=where, annotation_font=font)
    shape, note = theme.hline(0.5, line, "μ", where, **font)
    fast = go.Figure(go.Bar(x=[1, 2], y=[1.0, 2.0]), layout={"shapes": [shape], "annotations": [note]})
    assert json.loads(fast.to_json()) == json.loads(slow.to_json())
    with pytest.raises(ValueError, match="where must be one of"):
        theme.hline(0.5, line, "μ", "middle")


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_no_2d_chart_uses_webgl(name: str) -> None:
    """WebGL (scattergl) costs a new GL context on every remount, and browsers cap their number."""
    for fig in _figures(name):
        assert not [t.type for t in fig.data if t.type in ("scattergl", "heatmapgl", "pointcloud")], name


@pytest.mark.parametrize("present", [False, True], ids=["normal", "presentation"])
@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_every_figure_equals_its_validated_copy(name: str, present: bool) -> None:
    """Figures are rebuilt without Plotly's validation (speed, ui.theme._rebuilt): each must be exactly
    what Plotly makes of it when it validates every property (which raises on a misspelt one)."""
    with theme.presenting_as(present):
        made = BUILDERS[name]()
        for fig in made if isinstance(made, list) else [made]:
            validated = go.Figure(fig.to_dict())
            assert json.loads(fig.to_json()) == json.loads(validated.to_json())


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_every_chart_draws_only_the_trace_types_its_template_covers(name: str) -> None:
    made = BUILDERS[name]()
    for fig in made if isinstance(made, list) else [made]:
        assert {t.type for t in fig.data} <= set(theme.TRACE_TYPES), name
        assert fig.to_dict()["layout"]["template"] == pio.templates["layernorm_lab"].to_plotly_json()
