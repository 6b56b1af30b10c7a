"""Draw a Plotly figure so that a rerun updates the chart in place instead of drawing a new one.

``st.plotly_chart`` (Streamlit 1.67) hashes the figure into the chart's element identity. When a
slider changes the data, the identity changes, so the browser throws the old plot away and runs a
fresh ``Plotly.newPlot``: that costs most of a slider's answer on a page with two or three charts,
and leaves a blank frame about one rerun in three. :func:`show` sends the same figure to a small
``st.components.v2`` component instead. Its identity is its key, so it stays on the page, and its
script calls ``Plotly.react`` on the plot it already has: plotly.js redraws only what changed.

What the browser needs:

- **plotly.js**, at the version of the installed ``plotly`` package (the one that builds the figures),
  served by Streamlit's static file serving (``server.enableStaticServing`` in
  ``.streamlit/config.toml``). Flat charts are drawn by plotly's *cartesian* partial bundle (1.5 MB,
  npm ``plotly.js-cartesian-dist-min``) and 3-D ones by its *gl3d* bundle (1.8 MB, loaded only when a
  3-D chart appears), two separate ``Plotly`` objects in one tab: a first visit compiles and runs a
  third of the full bundle's 4.8 MB (``benchmarks/README.md``, "First visit"). Without those npm
  packages at plotly's version, every chart uses the package's full bundle. :func:`prepare_static`
  copies the bundles into ``static/`` beside ``app.py`` once per server process; the copies are not
  committed (``.gitignore``).
- **The theme**: ``st.plotly_chart`` lets the browser fill in Streamlit's colour placeholders
  (``#000001`` … ``#000040``, among them ``ui.theme.INK``) and merge Streamlit's chart styling into
  the template. ``static/chart_themes.json`` is that result for the light and the dark theme,
  measured in Chromium by ``scripts/capture_chart_themes.py``. The component picks the theme whose
  background the page has (it is called again when the theme changes), replaces the placeholders and
  sets the template. The figure goes on the wire without its template, which the browser has.

A chart far from the screen is not redrawn at once. An update of a chart already on the page that
lies more than half a screen above or below the window (or in a hidden tab) waits until the student
scrolls it near, the page is printed, or nothing has changed for two seconds; then the newest figure
is drawn, one chart per idle moment. On the Invariances page a sidebar ε redrew five charts, three
of them out of sight at 1400 × 1000, before the next move could answer. The student sees the
same figures, and a printout or screenshot never meets an old one
(``tests/e2e/test_in_place_charts.py``). A chart's first draw is never put off.

If the plotly.js copies cannot be written (a read-only folder), :func:`show` falls back to
``st.plotly_chart``: the same chart, remounted on every rerun.

Given up against ``st.plotly_chart``: Streamlit's full-screen button (Plotly's own mode bar stays).
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import Any

import plotly
import plotly.graph_objects as go
import plotly.io as pio
import streamlit as st
from _plotly_utils.utils import convert_to_base64  # plotly's own encoder of NumPy arrays
from streamlit.delta_generator import DeltaGenerator

from ui import chart_text, theme

ROOT = Path(__file__).resolve().parents[1]
STATIC = ROOT / "static"  # Streamlit serves the folder named static beside the main script
PLOTLY_JS = STATIC / "plotly.min.js"  # the full bundle, when the partial ones are not installed
NODE_MODULES = ROOT / "node_modules"
# The partial bundles from npm (package.json): {part: (package, file)}. "flat" draws every chart
# without a 3-D trace, "solid" the others.
PARTIAL = {
    "flat": ("plotly.js-cartesian-dist-min", "plotly-cartesian.min.js"),
    "solid": ("plotly.js-gl3d-dist-min", "plotly-gl3d.min.js"),
}
THEMES = STATIC / "chart_themes.json"
VERSION = f"{plotly.__version__}-{st.__version__}"
# The copies' modification time, which Streamlit 1.67 sends as Last-Modified. It serves static/ with
# no Cache-Control and answers a conditional request with the whole file, so a browser keeps a file
# only by heuristic freshness (a tenth of its age since Last-Modified): with an old date a second tab
# takes plotly.js from its cache, already compiled, instead of fetching 0.5-1.5 MB again. Every URL
# carries VERSION, so another plotly is another address. (benchmarks/README.md, "First visit")
LAST_MODIFIED = 1_577_836_800  # 2020-01-01 UTC
DEFAULT_HEIGHT = 450  # st.plotly_chart's height for a figure without layout.height
_log = logging.getLogger(__name__)

# Until plotly.js has loaded (4.8 MB, once per browser session), the chart's box says so.
_HTML = (
    '<div class="lab-chart" data-testid="labChart"><p class="lab-chart-note" style="margin:0;padding:1rem 0;'
    'color:var(--st-text-color);opacity:0.6;font-family:var(--st-font)">Drawing the chart…</p></div>'
)
# The chart in words (ui/chart_text.py): the summary is for a screen reader (read with the chart's
# name), the table behind a small disclosure under the chart for everyone.
_CSS = """
.lab-chart-summary { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%);
  white-space: nowrap; }
.lab-chart-words details { font-family: var(--st-font); font-size: 0.8rem; margin: 0 0 0.5rem; }
.lab-chart-words summary { cursor: pointer; width: fit-content; }
.lab-chart-words .lab-chart-table { max-height: 18rem; overflow: auto; }
.lab-chart-words table { border-collapse: collapse; margin-top: 0.25rem; min-width: min(100%, 24rem); }
.lab-chart-words caption { text-align: left; padding-bottom: 0.25rem; }
.lab-chart-words th, .lab-chart-words td { padding: 0.1rem 0.6rem; text-align: right; font-weight: normal;
  border-bottom: 1px solid color-mix(in srgb, currentColor 25%, transparent); }
.lab-chart-words thead th { font-weight: 600; }
"""
_chart = st.components.v2.component(
    "lab_chart",
    html=_HTML,
    css=_CSS,
    js=Path(__file__).with_name("plot.js").read_text(encoding="utf-8"),
    isolate_styles=False,  # plotly.js puts its styles in the document's head
)


def _same_file(a: Path, b: Path) -> bool:
    """Whether ``a`` and ``b`` hold the same bytes (``b`` may be missing)."""
    return b.exists() and a.stat().st_size == b.stat().st_size and a.read_bytes() == b.read_bytes()


def _copy(source: Path, target: Path) -> None:
    """``source`` to ``target`` unless it is there already, through a temporary file and an atomic
    rename (servers starting together never serve half a file)."""
    if not _same_file(source, target):
        with (
            source.open("rb") as src,
            tempfile.NamedTemporaryFile(dir=target.parent, prefix=".plotly-", delete=False) as tmp,
        ):
            shutil.copyfileobj(src, tmp)
        os.chmod(tmp.name, 0o644)  # readable by any server, as a checked-out file is (not 0600)
        os.replace(tmp.name, target)
    with contextlib.suppress(OSError):  # another user's copy: served all the same, only not kept
        os.utime(target, (LAST_MODIFIED, LAST_MODIFIED))


def bundle_version(path: Path) -> str | None:
    """The plotly.js version a bundle's first comment names (``* plotly.js (cartesian - minified)
    v4.1.1``), or None."""
    try:
        with path.open("rb") as f:
            head = f.read(300).decode("ascii", "replace")
    except OSError:
        return None
    found = re.search(r"plotly\.js (?:\([^)]*\) )?v(\S+)", head)
    return found.group(1) if found else None


def partial_sources() -> dict[str, Path] | None:
    """The partial bundles in ``node_modules/`` when both are there at the installed plotly's version."""
    wanted = plotly.offline.get_plotlyjs_version()
    found = {part: NODE_MODULES / package / name for part, (package, name) in PARTIAL.items()}
    return found if all(bundle_version(p) == wanted for p in found.values()) else None


@functools.cache
def prepare_static() -> dict[str, str] | None:
    """Put the plotly.js bundles the charts load in ``static/``, once per process.

    ``app.py``'s first chart calls it; :func:`show` checks it (cached) before every chart.

    Returns
    -------
    dict or None
        The file each kind of chart loads, ``{"flat": ..., "solid": ...}`` (names in ``static/``): the
        partial bundles when :func:`partial_sources` finds them, else the installed plotly's full
        bundle for both. None when ``static/chart_themes.json`` is missing or a copy cannot be
        written (then :func:`show` draws with ``st.plotly_chart``).

    Source: ``node_modules/plotly.js-{cartesian,gl3d}-dist-min`` (npm, ``package-lock.json``), or
    ``plotly/package_data/plotly.min.js`` of the installed ``plotly`` package.
    """
    # pandas before any page of this process builds a figure (app.py calls this first in every run):
    # Streamlit imports it the first time a chart's component is drawn, and plotly looks for it in
    # sys.modules on every trace it builds, so a figure built in another session's thread meanwhile
    # met a half-imported pandas ("partially initialized module 'pandas' has no attribute 'Series'":
    # an exception box on a fresh server opened by several students at once). A run that comes here
    # while another imports it waits on the import lock. (Not at module import: tests/test_imports.py.)
    import pandas  # noqa: F401

    full = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
    if not THEMES.exists() or not full.exists():
        return None
    sources = partial_sources()
    if sources is None:
        _log.warning(
            "plotly.js's partial bundles are not in node_modules at plotly.js %s (run `npm ci`): every chart "
            "loads the full 4.8 MB bundle, and a first visit is slower",
            plotly.offline.get_plotlyjs_version(),
        )
        sources = dict.fromkeys(PARTIAL, full)
    try:
        for source in set(sources.values()):
            _copy(source, STATIC / source.name)
    except OSError as error:
        _log.warning("charts are remounted on every rerun: cannot write in %s (%s)", STATIC, error)
        return None
    return {part: source.name for part, source in sources.items()}


def served_at(path: str) -> str:
    """``path`` (``"/app/static/"``) as the browser reaches it: under the server's base path, if any."""
    base = str(st.get_option("server.baseUrlPath") or "").strip("/")
    return ("/" + base if base else "") + path


def static_url() -> str:
    """Where Streamlit serves ``static/`` (``/app/static/`` under the server's base path)."""
    return served_at("/app/static/")


def figure_json(fig: go.Figure) -> str:
    """The figure as Plotly JSON text without ``layout.template`` (the browser has the template).

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
        Any figure; NumPy arrays are written as base64 typed arrays (``{"dtype", "bdata"}``),
        as ``st.plotly_chart`` sends them. The figure itself is not changed.

    Returns
    -------
    str
        ``{"data": [...], "layout": {...}}`` (plus ``"frames"`` when the figure has any).
    """
    spec: dict[str, Any] = {
        "data": [trace.to_plotly_json() for trace in fig.data],  # copies
        "layout": theme.layout_dict(fig),  # a copy, without the template
    }
    if fig.frames:
        spec["frames"] = [frame.to_plotly_json() for frame in fig.frames]
    convert_to_base64(spec)  # NumPy arrays as typed arrays, as Figure.to_dict() writes them
    return str(pio.to_json(spec, validate=False))


_WORDS: dict[str, dict[str, Any]] = {}  # a figure's text -> its words: a class draws the same charts


def _words(spec: str, fig: go.Figure) -> dict[str, Any]:
    """``chart_text.describe(fig)`` as the component reads it, made once per figure per process."""
    said = _WORDS.get(spec)
    if said is None:
        said = chart_text.describe(fig).json()
        if len(_WORDS) >= 512:
            _WORDS.pop(next(iter(_WORDS)), None)
        _WORDS[spec] = said
    return said


def show(fig: go.Figure, key: str, where: DeltaGenerator | None = None) -> None:
    """Draw ``fig`` as the chart named ``key``, updated in place when a rerun changes it.

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
        The chart, built by a ``ui.charts*`` builder (colour placeholders of ``ui.theme`` allowed).
        Its height is ``layout.height`` (450 px when unset); it is as wide as its container.
    key : str
        The chart's identity on the page: the same key on the next rerun redraws the same plot.
        Unique on a page, like a widget key.
    where : DeltaGenerator, optional
        A column or container to draw in; the current one when omitted.

    Source: ``Plotly.react`` (plotly.js) in a ``st.components.v2`` component; the theme as
    ``st.plotly_chart(theme="streamlit")`` resolves it (``static/chart_themes.json``).
    """
    bundles = prepare_static()
    if bundles is None:
        (st if where is None else where).plotly_chart(fig, key=key)
        return
    spec = figure_json(fig)
    height = fig.layout.height if isinstance(fig.layout.height, int | float) else DEFAULT_HEIGHT
    data = {"spec": spec, "height": height, "url": static_url(), "version": VERSION, "bundles": bundles}
    data["words"] = _words(spec, fig)  # its name, summary and table, for a screen reader
    if where is None:
        _chart(data=data, key=key)
        return
    with where:
        _chart(data=data, key=key)
