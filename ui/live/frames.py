"""What a live control sends the browser: a :class:`Frame` for each value it offers, as one payload.

A frame holds :class:`Readout` s (a formula and a row of :class:`Metric` s) and :class:`Chart` s (each
trace's values and the labelled :class:`Line` s); :func:`payload` packs the frames of every offered
value (:func:`offered`) into the JSON the component reads. No Streamlit here: pages' per-value
functions and their tests build frames without a session. :mod:`ui.live` draws them.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Metric:
    """One metric as ``st.metric`` would show it: label, value, optional grey delta, tooltip."""

    label: str
    value: str
    delta: str | None = None
    arrow: str = "off"  # "up", "down" or "off" (ui.text.delta_arrow)
    help: str | None = None
    color: str = "gray"  # the delta's: "gray", or "red" for a warning (st.metric's delta_color="inverse")


def metric(label: str, shown: dict[str, Any]) -> Metric:
    """A :class:`Metric` from the keyword arguments ``st.metric`` would take (``ui.text.zero_metric``)."""
    return Metric(
        label,
        str(shown["value"]),
        shown.get("delta"),
        str(shown.get("delta_arrow", "off")),
        shown.get("help"),
        "red" if shown.get("delta_color") == "inverse" else "gray",
    )


@dataclass(frozen=True)
class Readout:
    """A formula (TeX, or None) and a row of metrics, drawn by :func:`readout` under ``key``."""

    key: str
    tex: str | None = None
    metrics: tuple[Metric, ...] = ()

    def json(self) -> dict[str, object]:
        return {"key": self.key, "tex": self.tex, "metrics": [m.__dict__ for m in self.metrics]}


@dataclass(frozen=True)
class Line:
    """A labelled horizontal line of a chart (``ui.theme.hline``: a shape and its annotation)."""

    y: float
    label: str


@dataclass(frozen=True)
class Chart:
    """What of a chart changes with a live control: each trace's y values and the labelled lines.

    ``key`` is the chart's ``ui.plot.show`` key. Everything else of the figure (its x values unless
    ``xs`` gives them, for scatter traces; title, colours, the first ``len(lines)`` shapes of type line
    and annotations) must not change with the control; the page's tests check it.
    """

    key: str
    traces: tuple[np.ndarray, ...]
    lines: tuple[Line, ...] = ()
    xs: tuple[np.ndarray | None, ...] = ()  # a scatter trace's x values, where they change too
    zs: tuple[np.ndarray | None, ...] = ()  # a 3-D scene's z values
    # Axes whose range changes with the control, by their name in the layout ("xaxis2", "scene.zaxis"):
    # a chart with any is redrawn by Plotly on each frame, as a 3-D scene is.
    axes: tuple[tuple[str, float, float], ...] = ()


@dataclass(frozen=True)
class Frame:
    """Everything a page shows for one value of a live control."""

    readouts: tuple[Readout, ...]
    charts: tuple[Chart, ...] = field(default=())

    def readout(self, key: str) -> Readout:
        return next(r for r in self.readouts if r.key == key)

    def chart(self, key: str) -> Chart:
        return next(c for c in self.charts if c.key == key)


def offered(lo: float, hi: float, step: float) -> list[float]:
    """The values a slider from ``lo`` to ``hi`` in steps of ``step`` offers (as ``st.slider`` does)."""
    n = round((hi - lo) / step)
    return [float(np.round(lo + i * step, 12)) for i in range(n + 1)]


def slider_text(v: float) -> str:
    """A float as ``st.slider`` shows it (its default format ``%0.2f``)."""
    return f"{v:.2f}"


def range_of(values: list[np.ndarray], *, zero: bool = True) -> list[float] | None:
    """An axis range that holds every value (and 0, where bars start, unless ``zero`` is False), with
    padding like Plotly's autorange (about 5 % each side)."""
    finite = [v[np.isfinite(v)] for v in values]
    finite = [v for v in finite if v.size]
    if not finite:
        return None
    lo = min(float(v.min()) for v in finite)
    hi = max(float(v.max()) for v in finite)
    if zero:
        lo, hi = min(lo, 0.0), max(hi, 0.0)
    pad = 0.05 * (hi - lo) if hi > lo else max(abs(hi), 1.0) * 0.5
    return [lo - pad, hi + pad]


def payload(
    values: Sequence[float], frame: Callable[[float], Frame], labels: Sequence[str] | None = None
) -> dict[str, object]:
    """The frames of every value, as the component reads them (JSON-ready).

    Arrays are float64, base64, stored once however many frames share them (``arrays`` and indices).
    ``ranges``: per chart, a y range that holds every frame's traces and lines. ``id`` changes
    whenever anything else does, so the browser decodes a payload once.
    """
    labels = list(labels) if labels is not None else [slider_text(v) for v in values]
    arrays: list[str] = []
    index: dict[bytes, int] = {}
    seen: dict[str, list[np.ndarray]] = {}
    seen_x: dict[str, list[np.ndarray]] = {}

    def ref(a: np.ndarray) -> int:
        raw = np.ascontiguousarray(a, dtype="<f8").tobytes()
        if raw not in index:
            index[raw] = len(arrays)
            arrays.append(base64.b64encode(raw).decode("ascii"))
        return index[raw]

    frames = []
    for v in values:
        f = frame(v)
        for c in f.charts:
            seen.setdefault(c.key, []).extend(
                [np.asarray(t, dtype=float) for t in c.traces] + [np.array([ln.y for ln in c.lines])]
            )
            if any(x is not None for x in c.xs):
                seen_x.setdefault(c.key, []).extend(np.asarray(x, dtype=float) for x in c.xs if x is not None)
        frames.append(
            {
                "readouts": [r.json() for r in f.readouts],
                "charts": [
                    {
                        "key": c.key,
                        "traces": [ref(t) for t in c.traces],
                        "lines": [[float(ln.y), ln.label] for ln in c.lines],
                        "xs": [None if x is None else ref(x) for x in c.xs],
                        "zs": [None if z is None else ref(z) for z in c.zs],
                        "axes": [[name, float(lo), float(hi)] for name, lo, hi in c.axes],
                    }
                    for c in f.charts
                ],
            }
        )
    ranges = {key: range_of(arrs) for key, arrs in seen.items()}
    x_ranges = {key: range_of(arrs, zero=False) for key, arrs in seen_x.items()}
    body = {
        "values": list(values),
        "labels": labels,
        "frames": frames,
        "arrays": arrays,
        "ranges": ranges,
        "x_ranges": x_ranges,
    }
    text = json.dumps(body)  # keys in their order: the browser compares a readout's JSON text with the page's
    ident = hashlib.sha1(text.encode()).hexdigest()
    made = Payload(body | {"id": ident})
    made.text = f'{text[:-1]}, "id": "{ident}"}}'
    return made


class Payload(dict):  # type: ignore[type-arg]
    """A payload and its JSON text, written once when it is made. The frames are cached per process
    and sent by every session that opens the page (a whole class after its teacher moves): encoding
    them again on each run was about a sixth of a class's server CPU (py-spy, --gil). A copy
    (``payload | {...}``) is a plain dict, encoded when sent."""

    __slots__ = ("text",)
    text: str


def wire(data: dict[str, object]) -> bytes:
    """A live element's data as the JSON bytes the browser reads (``ui/live/loader.js``), each
    :class:`Payload` 's text spliced in as it was written."""
    plain = {k: v for k, v in data.items() if not isinstance(v, Payload)}
    made = [f"{json.dumps(k)}: {v.text}" for k, v in data.items() if isinstance(v, Payload)]
    text = json.dumps(plain)
    if made:
        text = text[:-1] + (", " if plain else "") + ", ".join(made) + "}"
    return text.encode()
