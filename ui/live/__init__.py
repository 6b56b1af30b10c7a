"""Controls that answer during a drag: the numbers, formula and charts follow the thumb in the browser.

``st.slider`` sends its value only when the mouse is released, so nothing on a page moved while a
student dragged. A live slider (:func:`slider`) is a native ``<input type="range">`` in a
``st.components.v2`` component that already holds what the page shows for *every* value the slider
offers: for each value, one :class:`Frame` (the formula's TeX, the metrics' texts, the charts' data),
made by the page's own per-value function, the same function the page draws its released view with.
The browser switches between frames on every ``input`` event (once per animation frame): no number is
computed in the browser, so every number shown during a drag is what the core and the page's
formatting give for the value the thumb shows.

On release (or an arrow key) the component sends the value, and a callback puts it into the state
of an ordinary ``controls.slider`` with the same key, drawn hidden beside it: that slider keeps doing
what every page control does (the URL key, ``persist_state="session"``, a link's value read as a
number and moved to the nearest offered value with a message, Back and Forward). The page reruns
with that value and shows the same frame (it is the same function), now from the server.

What the component draws: the slider, the formula (KaTeX, the copy Streamlit's own ``st.latex``
uses) and the metrics. The charts stay ``ui.plot.show`` charts; during a drag the component redraws
them in place (``Plotly.react`` on the chart's plot, only the traces' y values and the labelled
horizontal lines changed), and on release the server's figure, built from the same frame, replaces it.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import streamlit as st

from ui import controls

_HERE = Path(__file__).resolve().parent
_STREAMLIT_JS = Path(st.__file__).resolve().parent / "static" / "static" / "js"


@dataclass(frozen=True)
class Metric:
    """One metric as ``st.metric`` would show it: label, value, optional grey delta, tooltip."""

    label: str
    value: str
    delta: str | None = None
    arrow: str = "off"  # "up", "down" or "off" (ui.text.delta_arrow)
    help: str | None = None


@dataclass(frozen=True)
class Line:
    """A labelled horizontal line of a chart (``ui.charts.feature_chart``'s ``hlines``)."""

    y: float
    label: str


@dataclass(frozen=True)
class Chart:
    """What of a chart changes with the live control: each trace's y values and the labelled lines.

    ``key`` is the chart's ``ui.plot.show`` key. Everything else of the figure (its x values,
    title, colours, axes) must not change with the control; ``tests/test_live_mean.py`` checks it.
    """

    key: str
    traces: tuple[np.ndarray, ...]
    lines: tuple[Line, ...] = ()


@dataclass(frozen=True)
class Frame:
    """Everything a page shows for one value of its live control."""

    tex: str
    metrics: tuple[Metric, ...]
    charts: tuple[Chart, ...] = field(default=())


def offered(lo: float, hi: float, step: float) -> list[float]:
    """The values a slider from ``lo`` to ``hi`` in steps of ``step`` offers (as ``st.slider`` does)."""
    n = round((hi - lo) / step)
    return [float(np.round(lo + i * step, 12)) for i in range(n + 1)]


def payload(values: Sequence[float], frame: Callable[[float], Frame]) -> dict[str, object]:
    """The frames of every value, as the component reads them (JSON-ready).

    Arrays are float64, base64, stored once however many frames share them (``arrays`` and indices).
    ``id`` changes whenever anything else does, so the browser decodes a payload once.
    """
    arrays: list[str] = []
    index: dict[bytes, int] = {}

    def ref(a: np.ndarray) -> int:
        raw = np.ascontiguousarray(a, dtype="<f8").tobytes()
        if raw not in index:
            index[raw] = len(arrays)
            arrays.append(base64.b64encode(raw).decode("ascii"))
        return index[raw]

    frames = []
    for v in values:
        f = frame(v)
        frames.append(
            {
                "value": f"{v:.2f}",  # as st.slider shows a float (its default format "%0.2f")
                "tex": f.tex,
                "metrics": [m.__dict__ for m in f.metrics],
                "charts": [
                    {
                        "key": c.key,
                        "traces": [ref(t) for t in c.traces],
                        "lines": [[float(ln.y), ln.label] for ln in c.lines],
                    }
                    for c in f.charts
                ],
            }
        )
    body = {"values": list(values), "frames": frames, "arrays": arrays}
    text = json.dumps(body, sort_keys=True)
    return body | {"id": hashlib.sha1(text.encode()).hexdigest()}


def _katex_url() -> str:
    """Where Streamlit serves the module ``st.latex`` typesets with: rehype-katex, whose KaTeX matches
    the styles in Streamlit's CSS (hashed file name; ``live.js`` says why not the ``katex`` module)."""
    found = sorted(_STREAMLIT_JS.glob("rehype-katex.*.js"))
    base = str(st.get_option("server.baseUrlPath") or "").strip("/")
    return ("/" + base if base else "") + "/static/js/" + (found[0].name if found else "rehype-katex.js")


_component = st.components.v2.component(
    "lab_live_slider",
    html='<div class="lab-live" data-testid="labLive"></div>',
    js=(_HERE / "live.js").read_text(encoding="utf-8"),
    css=(_HERE / "live.css").read_text(encoding="utf-8"),
    isolate_styles=False,  # KaTeX's styles are the document's; the charts it redraws are in the document
)


def _nearest(values: Sequence[float], v: object) -> float | None:
    """The offered value nearest to what the browser sent (None for anything not a number)."""
    if isinstance(v, bool) or not isinstance(v, int | float) or not np.isfinite(v):
        return None
    return min(values, key=lambda o: abs(o - float(v)))


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
) -> float:
    """A live slider: returns its value, like ``controls.slider`` with the same arguments.

    ``frames()`` gives :func:`payload` of the page's per-value function over :func:`offered` values
    (called on every run: the page caches it per input). The component draws the formula and the
    metrics of the current value's frame; the page draws the charts (``ui.plot.show``, keys as in
    the frames).
    The key is the URL key and the hidden ``controls.slider``'s key; the component's key is
    ``<key>_live``.
    """
    values = offered(lo, hi, step)
    live_key = f"{key}_live"

    def released() -> None:
        picked = _nearest(values, st.session_state[live_key]["value"])
        if picked is not None:
            st.session_state[key] = picked

    with st.container(key=f"live_state_{key}"):  # live.css hides its slider, never a link's message
        # Its label differs from the live slider's: a page has one visible slider of that name.
        kept = controls.slider(f"{name} (kept in the link)", lo, hi, value, step, key=key, name=name)
    current = float(kept)
    _component(
        data={
            "label": label,
            "value": current,
            "katex": _katex_url(),
            "link": {"key": key, "default": value},  # the URL key, left out at the default
            "payload": frames(),
        },
        key=live_key,
        on_value_change=released,
    )
    return current
