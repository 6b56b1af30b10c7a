"""Reading a page's live controls (``ui.live``) in AppTest: the formulas and metrics they show.

A live readout draws its formula and metrics in the browser from the data the server sent
(``st.components.v2``), so AppTest sees them as the component's data, not as ``st.latex``/``st.metric``.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
from streamlit.testing.v1 import AppTest

COMPONENT = "lab_live_slider"
APP = str(Path(__file__).resolve().parents[1] / "app.py")


def page_opener(page: str) -> Callable[..., AppTest]:
    """A function that opens ``page`` (``"pages/1_mean.py"``) in a fresh session from a link carrying
    its keyword arguments as the query: the app runs first, then switches to the page, which must
    draw without an exception."""

    def open_page(**query: str) -> AppTest:
        at = AppTest.from_file(APP, default_timeout=60)
        for k, v in query.items():
            at.query_params[k] = v
        at.run()
        at.switch_page(page).run()
        assert not at.exception
        return at

    return open_page


def sent(proto: Any) -> dict[str, Any]:
    """A live element's data as the browser reads it (JSON bytes: ``ui.live.frames.wire``)."""
    return json.loads(proto.bytes)


def _component_data(at: AppTest, mode: str) -> list[dict[str, Any]]:
    found = []
    for element in at.get("bidi_component"):
        proto = element.proto
        if proto.component_name == COMPONENT:
            data = sent(proto)
            if data["mode"] == mode:
                found.append(data)
    return found


def live_data(at: AppTest) -> list[dict[str, Any]]:
    """The data of every live slider on the page, in page order."""
    return _component_data(at, "slider")


def live_readouts(at: AppTest) -> list[dict[str, Any]]:
    """Every live readout on the page (``{key, tex, metrics}``), in page order: what it shows now."""
    return [d["readout"] for d in _component_data(at, "readout")]


def live_metrics(at: AppTest) -> list[tuple[str, str]]:
    """``(label, value)`` of the metrics the live readouts show, as ``at.metric`` would list them."""
    return [(m["label"], m["value"]) for r in live_readouts(at) for m in r["metrics"]]


def live_tex(at: AppTest) -> list[str]:
    """The formulas the live readouts show (TeX, without ``$$``)."""
    return [r["tex"] for r in live_readouts(at) if r["tex"] is not None]


def live_metric_elements(at: AppTest) -> list[SimpleNamespace]:
    """The live readouts' metrics with ``label``, ``value``, ``delta`` (``""`` for none) and ``help``,
    as ``at.metric``'s elements have them."""
    return [
        SimpleNamespace(label=m["label"], value=m["value"], delta=m["delta"] or "", help=m["help"] or "")
        for r in live_readouts(at)
        for m in r["metrics"]
    ]


def _in_page_order(at: AppTest, root: Any = None) -> list[Any]:
    """Every element under ``root`` (the whole page: sidebar first; ``at.main``: the main area), depth
    first in the order Streamlit places them."""

    def walk(node: Any) -> list[Any]:
        children = getattr(node, "children", None) or {}
        return [node] + [e for k in sorted(children) for e in walk(children[k])]

    return walk(at._tree if root is None else root)


def page_metric_elements(at: AppTest, root: Any = None) -> list[SimpleNamespace]:
    """Every metric the page shows, ``st.metric`` s and live readouts' alike, in page order, with
    ``label``, ``value``, ``delta`` (``""`` for none) and ``help`` (``""`` for none).

    A page with a live readout below an ``st.metric`` (Standardize) lists them as the student reads
    them; ``live_metrics(at) + at.metric`` would put every live one first. ``root``: as
    :func:`_in_page_order` (``at.main`` for the main area alone).
    """
    found = []
    for e in _in_page_order(at, root):
        if e.type == "metric":
            found.append(
                SimpleNamespace(label=e.label, value=e.value, delta=e.delta or "", help=e.help or "")
            )
        elif e.type == "bidi_component" and e.proto.component_name == COMPONENT:
            data = sent(e.proto)
            if data["mode"] == "readout":
                found += [
                    SimpleNamespace(
                        label=m["label"], value=m["value"], delta=m["delta"] or "", help=m["help"] or ""
                    )
                    for m in data["readout"]["metrics"]
                ]
    return found


def page_metrics(at: AppTest) -> list[tuple[str, str]]:
    """``(label, value)`` of every metric the page shows, in page order (:func:`page_metric_elements`)."""
    return [(m.label, m.value) for m in page_metric_elements(at)]


def page_tex(at: AppTest) -> list[str]:
    """Every formula the page shows, ``st.latex`` s and live readouts' alike, in page order (no ``$$``)."""
    found = []
    for e in _in_page_order(at):
        if e.type == "latex":
            found.append(e.value.strip().removeprefix("$$").removesuffix("$$").strip())
        elif e.type == "bidi_component" and e.proto.component_name == COMPONENT:
            data = sent(e.proto)
            if data["mode"] == "readout" and data["readout"]["tex"] is not None:
                found.append(data["readout"]["tex"])
    return found


def assert_patched_is_drawn(was: dict[str, Any], now: dict[str, Any], chart: Any) -> None:
    """Figure ``was`` (Plotly JSON, one value's) patched as the browser patches it from a frame's
    ``chart`` (``ui.live.Chart``) equals ``now``, the figure the server draws at the frame's value: each
    trace's y is the chart's trace to the bit, and each line (a shape and its label) moves to the chart's."""
    patched = json.loads(json.dumps(was))
    for trace, y in zip(patched["data"], chart.traces, strict=True):
        trace["y"] = now["data"][0]["y"]
        assert np.frombuffer(base64.b64decode(trace["y"]["bdata"]), dtype="<f8").tobytes() == y.tobytes()
    for shape, note, line in zip(
        patched["layout"]["shapes"], patched["layout"]["annotations"], chart.lines, strict=True
    ):
        shape["y0"] = shape["y1"] = note["y"] = line.y
        note["text"] = line.label
    assert patched == now
