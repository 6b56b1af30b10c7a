"""Reading a page's live sliders (``ui.live``) in AppTest: the formula and metrics they show.

A live slider draws its value's formula and metrics in the browser, from the frames the server sent
(``st.components.v2``), so AppTest sees them as the component's data, not as ``st.latex``/``st.metric``.
"""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

from streamlit.testing.v1 import AppTest

COMPONENT = "lab_live_slider"


def live_data(at: AppTest) -> list[dict[str, Any]]:
    """The data of every live slider on the page, in page order."""
    found = []
    for element in at.get("bidi_component"):
        proto = element.proto
        if proto.component_name == COMPONENT:
            found.append(json.loads(proto.json))
    return found


def live_frames(at: AppTest) -> list[dict[str, Any]]:
    """The frame each live slider shows now (its value's)."""
    return [d["payload"]["frames"][d["payload"]["values"].index(d["value"])] for d in live_data(at)]


def live_metrics(at: AppTest) -> list[tuple[str, str]]:
    """``(label, value)`` of the metrics the live sliders show, as ``at.metric`` would list them."""
    return [(m["label"], m["value"]) for f in live_frames(at) for m in f["metrics"]]


def live_tex(at: AppTest) -> list[str]:
    """The formulas the live sliders show (TeX, without ``$$``)."""
    return [f["tex"] for f in live_frames(at)]


def live_metric_elements(at: AppTest) -> list[SimpleNamespace]:
    """The live sliders' metrics with ``label``, ``value`` and ``delta`` (``""`` for none), as
    ``at.metric``'s elements have them."""
    return [
        SimpleNamespace(label=m["label"], value=m["value"], delta=m["delta"] or "")
        for f in live_frames(at)
        for m in f["metrics"]
    ]
