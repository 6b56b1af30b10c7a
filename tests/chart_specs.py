"""Read back, in AppTest, the charts a page drew with ``ui.plot.show``.

``show`` sends each figure to the ``lab_chart`` component as JSON text (``data["spec"]``); AppTest
sees the component as an element of type ``bidi_component``. ``charts(at)`` lists them in page
order, each with its key, the figure's JSON text and the figure as a dict.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from streamlit.testing.v1 import AppTest


@dataclass(frozen=True)
class Chart:
    key: str  # the key passed to ui.plot.show
    spec: str  # the figure as Plotly JSON text, without its template
    height: float  # the height the browser gives the plot, px

    @property
    def figure(self) -> dict[str, Any]:
        figure: dict[str, Any] = json.loads(self.spec)
        return figure


def charts(at: AppTest) -> list[Chart]:
    """Every chart ``ui.plot.show`` drew in the last run, in page order (sidebar first)."""
    out = []
    for element in at.get("bidi_component"):
        proto = element.proto
        if proto.component_name.rsplit(".", 1)[-1] != "lab_chart":
            continue
        data = json.loads(proto.json)
        out.append(Chart(key=proto.id.rsplit("-", 1)[-1], spec=data["spec"], height=data["height"]))
    return out
