"""One palette for the whole app, legible in the light and the dark theme, and presentation mode.

Each quantity keeps its colour on every page; the names are the quantities, not the hues. The palette
is Okabe & Ito's colour-blind-safe one. Three of its hues are moved just enough that every line and
marker has at least 3:1 contrast (WCAG 2.2, 1.4.11) on both chart backgrounds, Streamlit's light
(#FFFFFF) and dark (#171614; #0E1117 in earlier releases) theme; the output's vermillion is a shade
darker so that it stays apart from the darker orange of the mean for deuteranopes. tests/test_theme.py
measures both:

=============  =========  ========================  =========  ========================
quantity       Okabe-Ito  contrast white / #171614  now        contrast white / #171614
=============  =========  ========================  =========  ========================
μ (mean)       #E69F00    2.25 / 8.03               #C48A00    3.01 / 6.01
μ ± σ band     #56B4E9    2.31 / 7.84               #1E9CE7    3.02 / 6.00
y (output)     #D55E00    3.87 / 4.68               #CC5A00    4.18 / 4.33
warning red    #C00000    6.48 / 2.79               #CA0000    5.98 / 3.02
=============  =========  ========================  =========  ========================

Charts use Streamlit's own Plotly template ("streamlit"): the browser fills in the active theme's
background, grid and text colours, so a chart follows the light/dark choice without a rerun. Text
on the chart background never gets a fixed colour (no single colour reaches 4.5:1 on both
backgrounds): it is :data:`INK`, a placeholder the browser replaces with the theme's strongest text
colour. :data:`BACKGROUND` is the theme's background (for gaps, halos and veils); text on a filled
box takes :func:`ink_on` the box's colour.
"""

from __future__ import annotations

import contextlib
import copy
import re
import threading
from collections.abc import Iterator
from typing import Any

import plotly.graph_objects as go
import plotly.io as pio
from streamlit.elements.lib import streamlit_plotly_theme as _st_plotly

from ui import session

OKABE_ITO: dict[str, str] = {  # the published hues, for the record and the tests
    "blue": "#0072B2",
    "orange": "#E69F00",
    "sky_blue": "#56B4E9",
    "bluish_green": "#009E73",
    "vermillion": "#D55E00",
    "reddish_purple": "#CC79A7",
}
COLORS: dict[str, str] = {
    "x": "#0072B2",  # input vector: blue
    "mu": "#C48A00",  # mean: orange, darkened to 3:1 on white
    "sigma_band": "#1E9CE7",  # ±σ band: sky blue, darkened to 3:1 on white (drawn translucent)
    "centered": "#7F7F7F",  # x − μ: grey
    "x_hat": "#009E73",  # normalized x̂: bluish green
    "y": "#CC5A00",  # output y: vermillion, a shade darker to stay apart from the darker orange
    "gamma": "#CC79A7",  # γ (and β, dashed): reddish purple
    "beta": "#CC79A7",
    "batch": "#8C564B",  # BatchNorm, when compared with LayerNorm: brown
    "warn": "#CA0000",  # lightened to 3:1 on the dark background
}
# Names of the quantities as shown in legends and tables.
LABELS: dict[str, str] = {
    "x": "x (input)",
    "mu": "μ (mean)",
    "sigma_band": "μ ± σ",
    "centered": "x − μ",
    "x_hat": "x̂ (normalized)",
    "y": "y = γ·x̂ + β",
    "gamma": "γ (scale)",
    "beta": "β (shift)",
}
FONT_SIZE = 16  # readable from the back row when projected

# Theme-following colours: placeholders of Streamlit's Plotly template that the browser replaces, in
# the whole figure, with the active theme's colour (as st.plotly_chart's default theme="streamlit" does;
# ui/plot.py does it for the in-place charts from static/chart_themes.json).
INK = _st_plotly.GRAY_90  # the theme's strongest chart text: #262730 (light), #FAFAFA (dark)
BACKGROUND = _st_plotly.BG_COLOR  # the chart's background: #FFFFFF (light), #171614 (dark)
PANEL = _st_plotly.BG_MIX  # a faintly raised background: #FCFCFB (light), #22211E (dark)
# What those placeholders become in Streamlit 1.67 (measured in Chromium; tests/test_theme.py checks
# every chart colour on them, tests/e2e/test_presentation_browser.py that the browser draws them).
THEMES: dict[str, dict[str, str]] = {
    "light": {INK: "#262730", BACKGROUND: "#FFFFFF", PANEL: "#FCFCFB"},
    "dark": {INK: "#FAFAFA", BACKGROUND: "#171614", PANEL: "#22211E"},
}
HALO = "auto"  # font shadow: Plotly outlines text in the contrasting colour, legible where it crosses data
GUIDE = "#7F7F7F"  # drawing aids and neutral reference lines: 4.0:1 on white, 4.5:1 on #171614

# Streamlit's template, also when this module is imported before Streamlit has registered it. Set once:
# passing template= to every figure makes Plotly re-validate it each time (~10 ms a chart).
_st_plotly.configure_streamlit_plotly_theme()

# The trace types this app draws. The default template is Streamlit's, keeping its layout (colourway,
# colour scales) and its defaults for these types only: the same charts, but Streamlit's defaults for
# candlesticks, contours, tables, waterfalls... (half its 3.7 kB) are no longer copied into every
# figure (ui/plot.py leaves the template off the wire; tests/test_theme.py checks that every builder
# draws only these types, with Streamlit's defaults for each).
TRACE_TYPES = ("bar", "scatter", "scatter3d", "heatmap", "surface", "histogram")
_streamlit_template = pio.templates["streamlit"]
pio.templates["layernorm_lab"] = go.layout.Template(
    layout=_streamlit_template.layout,
    data={t: _streamlit_template.data[t] for t in TRACE_TYPES if _streamlit_template.data[t]},
)
pio.templates.default = "layernorm_lab"


# --- contrast -----------------------------------------------------------------------------------


def relative_luminance(color: str) -> float:
    """WCAG 2.2 relative luminance of a ``#RRGGBB`` colour."""
    channels = [int(color.lstrip("#")[i : i + 2], 16) / 255 for i in (0, 2, 4)]
    r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    """WCAG contrast ratio of two ``#RRGGBB`` colours, 1 … 21."""
    hi, lo = sorted((relative_luminance(a), relative_luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def ink_on(fill: str) -> str:
    """Black or white, whichever reads better on ``fill`` (≥ 4.5:1 on every palette colour)."""
    return "#000000" if contrast("#000000", fill) >= contrast("#FFFFFF", fill) else "#FFFFFF"


# --- presentation mode ----------------------------------------------------------------------------

PRESENT_KEY = "present"  # the sidebar toggle's key (ui.presentation), which is also its URL key
PRESENT_FONT = 22 / FONT_SIZE  # fonts: 16 px -> 22 px on a projector
PRESENT_LINE = 1.5  # line widths
PRESENT_MARKER = 1.25  # marker sizes
_forced = threading.local()


@contextlib.contextmanager
def presenting_as(on: bool) -> Iterator[None]:
    """Build figures as if presentation mode were ``on`` (tests; the app reads the toggle)."""
    before = getattr(_forced, "on", None)
    _forced.on = on
    try:
        yield
    finally:
        _forced.on = before


def presenting() -> bool:
    """Is presentation mode on for the session running this script (its toggle, ``present``)?

    Read from the session, not from a module flag: the server runs many students' sessions at once,
    and a fragment's rerun does not pass through ``app.py``.
    """
    forced = getattr(_forced, "on", None)
    if forced is not None:
        return bool(forced)
    with contextlib.suppress(KeyError, AttributeError):
        return bool(session.widget_in_run(PRESENT_KEY))
    return False


def scale() -> float:
    """The font scale of the figures built now: 1, or :data:`PRESENT_FONT` in presentation mode.

    A page that caches a figure puts this in the cache key (a cached figure keeps its sizes).
    """
    return PRESENT_FONT if presenting() else 1.0


def _scaled(node: Any, parent: str, font: float, line: float, marker: float) -> Any:
    """The sizes inside a figure's JSON ``node``, scaled; None where nothing changes (sparse update)."""
    if isinstance(node, dict):
        out = {}
        for key, value in node.items():
            if key == "template":
                continue
            new = None
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                if key == "size" and parent.endswith("font"):
                    new = value * font
                elif key == "size" and parent == "marker":
                    new = value * marker
                elif (key == "width" and parent.endswith("line")) or key == "arrowwidth":
                    new = value * line
                elif parent == "margin" and key in "lrtb":
                    new = round(value * font)
            elif isinstance(value, (dict, list)):
                new = _scaled(value, key, font, line, marker)
            if new is not None and new is not value and new != value:  # 0 × k is no change
                out[key] = new
        return out or None
    if isinstance(node, list) and node and all(isinstance(v, dict) for v in node):
        items = [_scaled(v, parent, font, line, marker) for v in node]
        return items if any(items) else None
    return None


FEW_FEATURES = 12  # up to this many features, every one gets its tick


def feature_ticks(d: int, *axes: str) -> dict[str, dict[str, int]]:
    """Layout that ticks each feature (1, 2, …) on ``axes`` (default ``"xaxis"``) when ``d`` is small.

    Plotly's automatic ticks put half features on a short axis (0.5, 1, 1.5, 2 for d = 2), which
    reads as if there were features between the bars; past :data:`FEW_FEATURES` its steps are
    whole. Empty for a larger ``d``. Merge it into ``base_layout(..., extra=...)`` (a plain dict:
    no validation pass).
    """
    if d > FEW_FEATURES:
        return {}
    return {axis: {"dtick": 1, "tick0": 1} for axis in axes or ("xaxis",)}


def finish(fig: go.Figure) -> go.Figure:
    """The last step of every figure builder: presentation mode's larger fonts and thicker lines.

    Fonts grow by :data:`PRESENT_FONT` (16 px → 22 px), line widths by :data:`PRESENT_LINE` and
    marker sizes by :data:`PRESENT_MARKER`; margins grow with the fonts. Only sizes the figure sets
    are touched, so every builder sets its text sizes (``base_layout`` does for axes and legend).
    A figure is scaled once, however often this runs on it. Outside presentation mode: unchanged.
    """
    if not presenting() or getattr(fig, "_presentation_scaled", False):
        return fig
    k = (PRESENT_FONT, PRESENT_LINE, PRESENT_MARKER)
    base = layout_dict(fig)
    update = _scaled(base, "layout", *k) or {}
    for name in ("annotations", "shapes"):  # lists: merge item by item, keep the rest
        items = update.pop(name, None)
        if items:
            update[name] = [_merge(old, new or {}) for old, new in zip(base[name], items, strict=True)]
    data = []
    for trace in fig.data:
        spec = trace.to_plotly_json()
        data.append(_merge(spec, _scaled(spec, "trace", *k) or {}))
    out = _rebuilt(fig, data, _merge(base, update))
    out._presentation_scaled = True
    return out


# --- the common layout ------------------------------------------------------------------------------


def _merge(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    """``base`` with ``extra`` merged in, nested dicts merged key by key (as ``update_layout`` does)."""
    out = dict(base)
    for key, value in extra.items():
        old = out.get(key)
        out[key] = _merge(old, value) if isinstance(value, dict) and isinstance(old, dict) else value
    return out


def layout_dict(fig: go.Figure) -> dict[str, Any]:
    """A deep copy of ``fig``'s layout as a dict, without the template (numpy arrays stay arrays).

    Plotly keeps the layout as a dict in ``fig._layout``; copying it without the template is ~100×
    cheaper than ``fig.layout.to_plotly_json()``, which copies the whole template too.
    """
    raw = getattr(fig, "_layout", None)
    if not isinstance(raw, dict):  # not where Plotly keeps it in this version: the public way
        raw = fig.layout.to_plotly_json()
    return {k: copy.deepcopy(v) for k, v in raw.items() if k != "template"}


def relayout(fig: go.Figure, layout: dict[str, Any], *, axes: dict[str, Any] | None = None) -> go.Figure:
    """A new figure: ``fig`` with ``layout`` merged into its layout and ``axes`` into every 2-D axis.

    The same result as ``fig.update_layout(layout)`` followed by ``fig.update_xaxes(**axes)`` and
    ``fig.update_yaxes(**axes)``, but built in one pass: Plotly's ``update_*`` methods validate
    property by property and cost ~10 ms a call, a fresh figure from a dict ~3 ms for all of it.
    The template is left out of the dict and filled in again by the constructor (the default).
    The new figure is not validated again (see :func:`_rebuilt`).
    """
    merged = _merge(layout_dict(fig), layout)
    if axes:
        names = {"xaxis", "yaxis"} | {k for k in merged if re.fullmatch(r"[xy]axis\d*", k)}
        for name in names:
            merged[name] = _merge(merged.get(name, {}), axes)
    return _rebuilt(fig, [t.to_plotly_json() for t in fig.data], merged)


def _rebuilt(fig: go.Figure, data: list[dict[str, Any]], layout: dict[str, Any]) -> go.Figure:
    """A new figure of ``data`` and ``layout`` with ``fig``'s frames, subplot grid and finish() mark.

    Copied: make_subplots' grid (so row/col still address the axes) and ``_presentation_scaled``.
    Not validated again: ``data`` comes from traces Plotly validated when the builder made them,
    and validating the whole figure once more was the largest part of a step page's rerun (~40 % of
    Mean's server CPU, measured with py-spy). What validation would still catch — a misspelt layout
    property, a value Plotly would coerce — is checked for every figure builder in
    ``tests/test_theme.py`` (each figure's JSON equals the JSON of its validated copy). Empty
    ``shapes``/``annotations`` lists are dropped, as validation drops them.
    """
    layout = {k: v for k, v in layout.items() if not (k in ("shapes", "annotations") and len(v) == 0)}
    spec = {"data": data, "layout": layout, "frames": [f.to_plotly_json() for f in fig.frames]}
    out = go.Figure(spec, _validate=False)
    for attr in ("_grid_ref", "_grid_str", "_presentation_scaled"):
        if attr in fig.__dict__:
            out.__dict__[attr] = fig.__dict__[attr]
    return out


def base_layout(
    fig: go.Figure,
    title: str,
    *,
    x_title: str = "",
    y_title: str = "",
    height: int = 380,
    extra: dict[str, Any] | None = None,
) -> go.Figure:
    """Return ``fig`` with the app's common layout (font, margins, legend on top), as a new figure.

    Streamlit's template gives tick labels, axis titles and legend 12-14 px in a pale grey (3.8:1 on
    white); they are set here to the app's sizes and to :data:`INK`. Use the returned figure: the
    argument is not changed (see :func:`relayout`). ``extra`` is more layout, merged in last.
    """
    layout = {
        "title": {  # pinned to the top, so a legend that wraps to two rows grows under it, not over it
            "text": title,
            "x": 0.0,
            "xanchor": "left",
            "y": 1.0,
            "yanchor": "top",
            "pad": {"t": 12},
            "font": {"size": FONT_SIZE + 2},
        },
        "font": {"size": FONT_SIZE, "color": INK},
        "height": height,
        "margin": {"l": 60, "r": 20, "t": 70, "b": 50},
        "legend": {
            "orientation": "h",
            "yanchor": "bottom",
            "y": 1.0,
            "xanchor": "right",
            "x": 1.0,
            "font": {"size": FONT_SIZE - 2, "color": INK},
        },
        "xaxis": {"title": {"text": x_title}},
        "yaxis": {"title": {"text": y_title}},
        "bargap": 0.15,
    }
    axes = {
        "tickfont": {"size": FONT_SIZE - 2, "color": INK},
        "title": {"font": {"size": FONT_SIZE, "color": INK}},
    }
    return relayout(fig, _merge(layout, extra) if extra else layout, axes=axes)


_LABEL_PLACES = {  # annotation_position of add_hline -> where the label sits on the line
    "top left": (0, "left", "bottom"),
    "top right": (1, "right", "bottom"),
    "bottom left": (0, "left", "top"),
    "bottom right": (1, "right", "top"),
}


def hrect(y0: float, y1: float, **props: Any) -> dict[str, Any]:
    """The shape ``fig.add_hrect(y0=y0, y1=y1, **props)`` would add (full width), as a plain dict."""
    return {"type": "rect", "xref": "x domain", "x0": 0, "x1": 1, "yref": "y", "y0": y0, "y1": y1, **props}


def hline(
    y: float, line: dict[str, Any], label: str = "", where: str = "top right", **font: Any
) -> list[Any]:
    """``[shape, annotation]`` of a full-width horizontal line at ``y`` with ``label`` on it.

    The layout items ``fig.add_hline(y, line=..., annotation_text=label, annotation_position=where,
    annotation_font=font)`` would add, as plain dicts: put them into a layout's ``shapes`` and
    ``annotations`` (``add_hline`` costs ~10 ms a line).
    """
    if where not in _LABEL_PLACES:
        raise ValueError(f"where must be one of {sorted(_LABEL_PLACES)}, got {where!r}")
    x, xanchor, yanchor = _LABEL_PLACES[where]
    shape = {
        "type": "line",
        "xref": "x domain",
        "x0": 0,
        "x1": 1,
        "yref": "y",
        "y0": y,
        "y1": y,
        "line": line,
    }
    note: dict[str, Any] = {"showarrow": False, "text": label, "xref": "x domain", "x": x, "xanchor": xanchor}
    note.update({"yref": "y", "y": y, "yanchor": yanchor})
    if font:
        note["font"] = font
    return [shape, note]
