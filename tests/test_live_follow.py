"""During a drag, everything on a page that a live slider changes follows the thumb, or is dimmed.

A live slider (``ui.live``) carries a frame for each of its values: the readouts and charts the page
draws at that value. During a drag the browser shows the frame's readouts and charts and keeps
everything else as the server last drew it; what the server draws and no frame holds sits in an
``at_rest`` container, dimmed while a thumb moves. So, for every live slider of every page (its own
and the sidebar's ε, γ, β): the page at the slider's far end, drawn by the server, must show what a
drag to that end showed, element for element, outside the dimmed containers. A readout no frame held
(Variance's float32 trap under a drag of a; Invariances' numbers under the sidebar's ε) kept the
released value's numbers beside a thumb at another value.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from live_support import COMPONENT, live_data, page_opener
from streamlit.testing.v1 import AppTest

from ui.navigation import SECTIONS

PAGES = [entry.path for entries in SECTIONS.values() for entry in entries]
REST = "live_rest_"  # ui.live.at_rest's container keys
CONTROLS = {
    "slider",
    "select_slider",
    "radio",
    "checkbox",
    "toggle",
    "number_input",
    "selectbox",
    "multiselect",
    "text_area",
    "text_input",
    "button",
    "button_group",
    "download_button",
    "file_uploader",
}


def _shown(at: AppTest) -> tuple[dict[str, Any], dict[str, str], list[str]]:
    """What the main area shows outside the dimmed containers: the readouts by key, the charts by key,
    and every other element (not a control) in page order."""
    readouts: dict[str, Any] = {}
    charts: dict[str, str] = {}
    rest: list[str] = []

    def walk(node: Any, dimmed: bool) -> None:
        proto = getattr(node, "proto", None)
        dimmed = dimmed or REST in str(getattr(proto, "id", "") or "")
        kind = getattr(node, "type", None)
        if not dimmed and kind == "bidi_component":
            if proto.component_name == COMPONENT:
                data = json.loads(proto.bytes)
                if data["mode"] == "readout":
                    readouts[data["readout"]["key"]] = data["readout"]
            elif proto.component_name == "lab_chart":
                charts[proto.id.split("-", 2)[-1]] = proto.json
        elif not (dimmed or proto is None or getattr(node, "children", None) or kind in CONTROLS):
            rest.append(f"{kind}: {proto}")
        for k in sorted(getattr(node, "children", None) or {}):
            walk(node.children[k], dimmed)

    walk(at.main, False)
    return readouts, charts, rest


def _with_frames(at: AppTest) -> list[dict[str, Any]]:
    """The page's live sliders, each with its frames (a large payload waits to be asked for: ask)."""
    sliders = live_data(at)
    if any("frames" not in d["payload"] for d in sliders):
        at.session_state["_live_asked"] = {d["link"]["key"] for d in sliders}
        at.run()
        sliders = live_data(at)
    assert all("frames" in d["payload"] for d in sliders)
    return sliders


@pytest.mark.parametrize("page", PAGES)
def test_what_a_drag_shows_is_what_the_release_draws(page: str) -> None:
    open_page = page_opener(page)
    at = open_page()
    readouts, charts, rest = _shown(at)
    for slider in _with_frames(at):
        key, n = slider["link"]["key"], len(slider["values"])
        i = 0 if slider["index"] > (n - 1) / 2 else n - 1  # the far end
        frame = slider["payload"]["frames"][i]
        dragged = readouts | {r["key"]: r for r in frame["readouts"]}
        moved_charts = {c["key"] for c in frame["charts"]}
        released = open_page(**{key: slider["link"]["urls"][i]})
        readouts_now, charts_now, rest_now = _shown(released)
        where = f"{page}: {key} dragged to {slider['labels'][i]}"
        assert readouts_now == dragged, f"{where}: a readout no frame holds changed on release"
        still = {k: v for k, v in charts.items() if k not in moved_charts}
        assert {k: v for k, v in charts_now.items() if k not in moved_charts} == still, (
            f"{where}: a chart no frame holds changed on release (not dimmed)"
        )
        assert rest_now == rest, f"{where}: an element neither in a frame nor dimmed changed on release"
