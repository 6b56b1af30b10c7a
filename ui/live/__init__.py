"""Controls that answer during a drag: formulas, metrics and charts follow the thumb in the browser.

``st.slider`` sends its value only when the mouse is released, so nothing on a page moved while a
student dragged. A live slider (:func:`slider`, :func:`select_slider`) is a native
``<input type="range">`` in a ``st.components.v2`` component that already holds what the page shows for
*every* value the slider offers: for each value, one :class:`Frame`, made by the page's own per-value
function, the same function the page draws its released view with. The browser switches between
frames on every ``input`` event (once per animation frame): no number is computed in the browser, so
every number shown during a drag is what the core and the page's formatting give for that value.

A frame has :class:`Readout` s (a formula and metrics, each drawn where the page calls
:func:`readout`) and :class:`Chart` s (a ``ui.plot.show`` chart's trace values and labelled lines).
During a drag the browser moves the charts' bars, points and lines itself, against a y axis fixed over
every frame (:func:`show_chart`): Plotly's own redraw costs 10–100 ms a chart, far more than a frame.

On release (or an arrow key) the component sends the value, and a callback puts it into the state of
an ordinary ``controls`` slider with the same key, drawn hidden beside it: that slider keeps doing
what every page control does (the URL key, ``persist_state="session"``, a link's value read as a
number and moved to the nearest offered value with a message, Back and Forward). The page reruns
with that value and draws the same frame (it is the same function), now from the server.

The frames go to the browser once per input: a later run sends only their ``id``, which the browser
keeps (if it does not have them, it asks, and the next run sends them again). What a frame holds and
how the frames are packed is :mod:`ui.live.frames` (no Streamlit); its names are importable from here.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import plotly.graph_objects as go
import streamlit as st

from ui import controls, links, plot, session
from ui.live.frames import Chart as Chart
from ui.live.frames import Frame as Frame
from ui.live.frames import Line as Line
from ui.live.frames import Metric as Metric
from ui.live.frames import Readout as Readout
from ui.live.frames import metric as metric
from ui.live.frames import offered as offered
from ui.live.frames import payload as payload
from ui.live.frames import slider_text as slider_text
from ui.live.frames import wire
from ui.sidebar import kept_moved

_HERE = Path(__file__).resolve().parent
_STREAMLIT_JS = Path(st.__file__).resolve().parent / "static" / "static" / "js"
_SEND_AT_ONCE = 256_000  # characters of base64 arrays: more waits for the browser to ask


def show_chart(fig: go.Figure, key: str, *payloads: dict[str, Any]) -> None:
    """Draw a chart of live frames (``ui.plot.show``) with its y axis fixed over every frame of every
    live control on the page: the bars move against still gridlines while a thumb moves, and the
    released figure has the same axis as the frames drawn during the drag."""
    plot.show(fixed_axes(fig, axis_ranges(key, payloads)), key=key)


Range = tuple[float, float] | None


def axis_ranges(key: str, payloads: Sequence[dict[str, Any]]) -> tuple[Range, Range]:
    """The y and x ranges that hold chart ``key`` in every frame of ``payloads`` (None: not fixed)."""
    found: list[Range] = []
    for name in ("ranges", "x_ranges"):
        ranges = [r for p in payloads if (r := p[name].get(key))]
        found.append((min(r[0] for r in ranges), max(r[1] for r in ranges)) if ranges else None)
    return found[0], found[1]


def fixed_axes(fig: go.Figure, ranges: tuple[Range, Range]) -> go.Figure:
    """``fig``, changed in place, with the y and x ``ranges`` (:func:`axis_ranges`) where it has none."""
    for axis, fixed in zip((fig.layout.yaxis, fig.layout.xaxis), ranges, strict=True):
        if fixed is not None and axis.range is None:  # a figure's own fixed range stays
            axis.autorange = False
            axis.range = list(fixed)
    return fig


_FRAME_CACHES: list[Any] = []


def frames_cache(max_entries: int) -> Callable[[Callable[..., dict[str, object]]], Any]:
    """Cache a page's payload of frames per input, shared by every session.

    ``st.cache_resource``, not ``st.cache_data``: a payload is read on every run of its page and never
    changed, and ``st.cache_data``'s copy of it (a pickle load per read) was 8 % of a class's server
    CPU (benchmarks/bench_class_mode.py under py-spy). :func:`clear_frame_caches` empties them all.
    """

    def wrap(f: Callable[..., dict[str, object]]) -> Any:
        cached = st.cache_resource(max_entries=max_entries, show_spinner=False)(f)
        _FRAME_CACHES.append(cached)
        return cached

    return wrap


def clear_frame_caches() -> None:
    """Empty every :func:`frames_cache` (the tests give each test empty caches)."""
    for cached in _FRAME_CACHES:
        cached.clear()


@functools.cache
def _katex_file() -> str:
    """rehype-katex's hashed file name in the installed Streamlit, looked up once per process: a glob
    of Streamlit's ~300 script files on every live slider's run was 17 % of a class's server CPU
    (benchmarks/bench_class_mode.py under py-spy)."""
    found = sorted(_STREAMLIT_JS.glob("rehype-katex.*.js"))
    return found[0].name if found else "rehype-katex.js"


def _katex_url() -> str:
    """Where Streamlit serves the module ``st.latex`` typesets with: rehype-katex, whose KaTeX matches
    the styles in Streamlit's CSS (hashed file name; ``live.js`` says why not the ``katex`` module)."""
    return plot.served_at("/static/js/" + _katex_file())


# The component's code is static/live.js and the modules it imports from static/live/, served by the
# app (``/app/static/``) and imported once per tab by the loader ui/live/loader.js, the component's
# own script: code given inline goes with every live element of every run (38 kB each, six on Mean:
# 260 kB a run, hashed, sent and parsed for nothing).
_LIVE_JS = plot.STATIC / "live.js"
_LIVE_MODULES = plot.STATIC / "live"


@functools.cache
def _code_version() -> str:
    """Changes with static/live.js or any module of static/live/ (each import carries it), so that a
    browser never runs a cached older copy of one, nor a mix of two versions."""
    digest = hashlib.sha256(_LIVE_JS.read_bytes())
    for module in sorted(_LIVE_MODULES.glob("*.js")):
        digest.update(module.name.encode() + b"\0" + module.read_bytes())
    return digest.hexdigest()[:16]


_live_component = st.components.v2.component(
    "lab_live_slider",
    html='<div class="lab-live" data-testid="labLive"></div>',
    js=(_HERE / "loader.js").read_text(encoding="utf-8"),
    css=(_HERE / "live.css").read_text(encoding="utf-8"),
    isolate_styles=False,  # KaTeX's styles are the document's; the charts it redraws are in the document
)


def _component(*, data: dict[str, object], **kwargs: Any) -> Any:
    """Mount a live element: ``data`` and where its code is, as JSON bytes (:func:`ui.live.frames.wire`)."""
    code = f"{plot.static_url()}live.js?v={_code_version()}"
    return _live_component(data=wire({**data, "code": code}), **kwargs)


# What a live element keeps out of sight: the hidden controls.slider beside each live slider, which
# carries its value to the URL and the session (``_mount``; a link's message above it stays visible),
# and the container of a chart's bar inputs (ui/live/vector.py: the inputs lie over the chart). These
# rules came only with the component's CSS (live.css), which the browser gets once it draws the first
# live element: for about 0.3 s after Home's run the sidebar showed Streamlit's own ε, γ and β sliders,
# and a key pressed on one went nowhere once the live slider replaced it (3 to 8 of 80 loads in
# Chromium; tests/e2e/test_live_sidebar.py). The app draws them first. (The bars' container is a block,
# drawn before any element's code has loaded, so it can still show, empty, for a moment.)
HIDDEN_STYLE = (
    "<style>"
    '[class*="st-key-live_state_"] .stElementContainer:has([data-testid="stSlider"]), '
    '[class*="st-key-live_bars_"] { display: none; }'
    "</style>"
)


def hide_helpers() -> None:
    """Draw :data:`HIDDEN_STYLE` (a ``<style>`` alone: no room on the page); ``app.py``, first."""
    st.html(HIDDEN_STYLE)


def at_rest(key: str) -> Any:
    """A container for what the server draws and no frame holds (a table, a sentence): dimmed while
    any live slider moves, so a student never reads its numbers as the thumb's (``live.css``)."""
    return st.container(key=f"live_rest_{key}")


def readout(r: Readout) -> None:
    """Draw a frame's formula and metrics; a live slider's drag redraws them in place."""
    _component(
        data={"mode": "readout", "readout": r.json(), "katex": _katex_url()}, key=f"live_readout_{r.key}"
    )


def before_its_slider(key: str, values: Sequence[float], texts: Sequence[str], default: float) -> float:
    """A live slider's value before it is drawn this run, for the frames of a slider drawn above it:
    the kept value, or on a session's first run from a link, the link's text (``texts``: ``values`` as
    the slider shows them, which the URL carries as their :func:`ui.links.link_text`); anything else is
    ``default``. Once the slider is drawn, a page whose guess was
    wrong runs again (``st.rerun``), so that no frame shows another value than the page."""
    if session.widgets.has(key):
        return float(session.widgets.get(key))
    carried = (links.link_text(t) for t in texts)
    return dict(zip(carried, values, strict=True)).get(str(st.query_params.get(key, "")), default)


def _nearest(values: Sequence[float], v: object) -> float | None:
    """The offered value nearest to what the browser sent (None for anything not a number)."""
    if isinstance(v, bool) or not isinstance(v, int | float) or not np.isfinite(v):
        return None
    return min(values, key=lambda o: abs(o - float(v)))


def _mount(
    label: str,
    values: Sequence[float],
    labels: Sequence[str],
    urls: Sequence[str],
    current: float,
    default: float,
    *,
    key: str,
    frames: Callable[[], dict[str, object]],
    help: str | None = None,  # st.slider's name for a tooltip
) -> dict[str, object]:
    live_key = f"{key}_live"
    sent = session.live.sent.kept()

    def released() -> None:
        # A value the browser sent for a slider of the page it just left (Back or Forward) finds
        # none here: nothing to take.
        got = (session.widgets.get(live_key) or {}).get("value")
        value, number = (got.get("value"), got.get("release")) if isinstance(got, dict) else (got, None)
        picked = _nearest(values, value)
        if picked is not None:
            session.live.released.kept()[key] = (session.widgets.get(key), picked)
            session.widgets.set(key, picked)
            # the browser's number for this release, said back with every drawing of the slider
            ok = isinstance(number, int) and not isinstance(number, bool) and 0 < number < 2**53
            session.live.release_numbers.kept()[key] = number if ok else None

    asked = session.live.asked.kept()

    def missing() -> None:  # the browser does not have the frames of the id it was sent (or they are old)
        asked.add(key)
        session.live.not_the_user.set(True)  # the browser asked, not the student: a link's notes stay

    body = frames()
    # A large payload waits until the browser asks for it (when the student reaches for the slider):
    # the page's first draw does not wait for frames a student may never drag through.
    small = sum(len(a) for a in body["arrays"]) < _SEND_AT_ONCE  # type: ignore[attr-defined]
    full = key in asked or (sent.get(key) != body["id"] and small)
    asked.discard(key)
    sent[key] = str(body["id"])
    _component(
        data={
            "mode": "slider",
            "label": label,
            "help": help,
            "index": int(np.argmin(np.abs(np.subtract(values, current)))),
            "release": session.live.release_numbers.get().get(key),  # the last release the server took
            "values": list(values),  # the slider works without its frames (they may be on the way)
            "labels": list(labels),
            "katex": _katex_url(),
            "link": {"key": key, "urls": list(urls), "default": urls[values.index(default)]},
            "payload": body if full else {"id": body["id"]},
        },
        key=live_key,
        on_value_change=released,
        on_missing_change=missing,
    )
    return body


def slider(
    label: str,
    lo: float,
    hi: float,
    value: float,
    step: float,
    *,
    key: str,
    name: str,
    frames: Callable[[], dict[str, object]],
    on_change: Callable[..., None] | None = None,
    args: tuple[Any, ...] = (),
    format_func: Callable[[float], str] = slider_text,
) -> tuple[float, dict[str, object]]:
    """A live slider over ``lo … hi`` in steps of ``step``: its value, like ``controls.slider`` with
    the same arguments, and the payload (for :func:`show_chart`). ``format_func`` writes a value's
    label (``st.slider``'s ``%0.2f`` unless given: whole numbers read ``3``, not ``3.00``).

    ``frames()`` gives :func:`payload` of the page's per-value function over :func:`offered` values
    (called on every run: the page caches it per input). The page draws the value's frame with
    :func:`readout` and :func:`show_chart`. The key is the URL key and the hidden slider's key; the
    component's key is ``<key>_live``. ``on_change``, ``args``: the kept slider's callback, for a move
    of it (Back onto an address); a release reruns the live slider's own fragment, as a widget's
    move does (a callback's keyed ``st.rerun`` then ran with the address before the release, whose
    old value the kept slider took back).
    """
    values, labels, urls = _offered_texts(lo, hi, step, format_func)
    again = {"on_change": kept_moved, "args": (key, on_change, args)}
    with st.container(key=f"live_state_{key}"):  # live.css hides its slider, never a link's message
        # Its label differs from the live slider's: a page has one visible slider of that name.
        kept = controls.slider(f"{name} (kept in the link)", lo, hi, value, step, key=key, name=name, **again)
    current = float(kept)
    body = _mount(label, values, labels, urls, current, value, key=key, frames=frames)
    return current, body


@functools.lru_cache(maxsize=256)
def _offered_texts(
    lo: float, hi: float, step: float, format_func: Callable[[float], str]
) -> tuple[tuple[float, ...], tuple[str, ...], tuple[str, ...]]:
    """A slider's offered values, their labels and their URL texts, made once per slider (they were
    4 % of a class's server CPU when made on every run)."""
    values = tuple(offered(lo, hi, step))
    # The URL writes a float as Streamlit's slider does (JavaScript's shortest text: 1, −2.5).
    urls = tuple(f"{v:g}" if abs(v) < 1e15 else repr(v) for v in values)
    return values, tuple(format_func(v) for v in values), urls


def select_slider(
    label: str,
    options: Sequence[float],
    value: float,
    *,
    key: str,
    name: str,
    format_func: Callable[[float], str],
    frames: Callable[[], dict[str, object]],
    on_change: Callable[..., None] | None = None,
    args: tuple[Any, ...] = (),
    help: str | None = None,  # the label's tooltip, as st.select_slider's help
) -> tuple[float, dict[str, object]]:
    """A live ``controls.select_slider`` over numeric ``options`` shown as ``format_func`` writes them
    (the URL carries them in ASCII, :func:`ui.links.link_text`); otherwise as :func:`slider`."""
    values = [float(o) for o in options]
    again = {"on_change": kept_moved, "args": (key, on_change, args)}
    with st.container(key=f"live_state_{key}"):
        kept = controls.select_slider(
            f"{name} (kept in the link)",
            list(options),
            value,
            key=key,
            name=name,
            format_func=format_func,
            **again,
        )
    texts = [format_func(o) for o in options]
    body = _mount(
        label,
        values,
        texts,
        [links.link_text(t) for t in texts],  # as the kept slider writes them (controls.select_slider)
        float(kept),
        float(value),
        key=key,
        frames=frames,
        help=help,
    )
    return float(kept), body
