"""Variance's stretch a and offset, Standardize's feature i and spread answer during a drag (ui.live).

As in test_live_drag (Mean's c): a page-side recorder takes, on animation frames during a mouse drag,
what the student sees: the slider's value label, each readout's formula (KaTeX keeps its TeX in the
MathML annotation) and metrics, and the chart the control moves. Each recorded frame must equal what
the page's per-value function (``ui.live.variance``, ``ui.live.standardize``, built on the core)
gives for the value the slider shows; after release the page, drawn from the server's run, must show
the last live frame, and the URL must carry its value.

A chart whose y axis is fixed over every frame (the nearly constant vector's) is moved in Plotly's
SVG during a drag: its bars are read back from their paths, to a pixel. Variance's chart keeps its
own axis and is redrawn by Plotly: its data is read exactly.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from playwright.sync_api import expect

from e2e.support import READOUT_JS, Lab, drag_thumb_by, live_ready, page_by_url, query, recorder_js
from ui import links
from ui.live import Frame, standardize, variance

pytestmark = pytest.mark.browser

EPS = 1e-5
X = np.array([1.0, 2.5, -3.0, 40.0, 7.0, -2.0, 0.5, 3.0])
TYPED = {"src": "Type numbers", "typed": "1, 2.5, -3, 40, 7, -2, 0.5, 3"}

# What the student sees now (the components draw in the document). spec: {live, readouts, charts}.
SEEN_JS = """
(spec) => {
  const live = document.querySelector(`.st-key-${spec.live}`);
  const readout = READOUT;
  const readouts = spec.readouts.map((key) => readout(document.querySelector(`.st-key-live_readout_${key}`)));
  const charts = spec.charts.map((key) => {
    const plot = document.querySelector(`.st-key-${key} .lab-chart`);
    const y = plot.data[0].y;  // the server's figure keeps Plotly's typed-array spec ({dtype, bdata})
    const values = y.bdata
      ? new Float64Array(Uint8Array.from(atob(y.bdata), (c) => c.charCodeAt(0)).buffer)
      : y;
    const ya = plot._fullLayout.yaxis;
    const bars = [];  // each bar's top as drawn, in data units (the path Plotly or the drag wrote)
    for (const point of plot.querySelectorAll("g.trace.bars g.point")) {
      const d = point.querySelector("path")?.getAttribute("d") ?? "";
      const m = /^M[-\\d.e]+,[-\\d.e]+V([-\\d.e]+)H/.exec(d);
      bars[point.__data__.i] = m ? ya.p2c(Number(m[1])) : null;
    }
    return {y: Array.from(values), bars, fixed: !ya.autorange,
            pixel: Math.abs(ya.range[1] - ya.range[0]) / ya._length,
            notes: Array.from(plot.querySelectorAll("g.annotation text.annotation-text"))
              .map((t) => t.textContent)};
  });
  return {label: live.querySelector(".lab-live-value").textContent,
          thumb: live.querySelector("input").value, readouts, charts};
}
""".replace("READOUT", READOUT_JS)
RECORD_JS = recorder_js(SEEN_JS)


@dataclass(frozen=True)
class Control:
    """A live control, what it moves, and the frame the core gives for the value its label shows."""

    url: str
    key: str
    readouts: tuple[str, ...]
    charts: tuple[str, ...]
    value_of: Callable[[str], float]  # the slider's label → its value
    url_text: Callable[[float], str]  # the value as the slider shows it (the link: its link_text)
    frame: Callable[[float], Frame]
    toward: float  # where to drag: a fraction of the track from the thumb (negative: left)


CONTROLS = {
    "var_scale": Control(
        "/variance",
        "var_scale",
        (variance.SIGMA2, variance.XHAT),
        (variance.CHART,),
        float,
        variance.scale_text,
        lambda a: variance.frame(X, EPS, a),
        0.5,
    ),
    "var_offset": Control(
        "/variance",
        "var_offset",
        (variance.PASSES,),
        (),
        float,
        variance.offset_text,
        lambda o: variance.pass_frame(X, 1.0, o),
        0.55,
    ),
    "std_feature": Control(
        "/standardize",
        "std_feature",
        (standardize.FEATURE,),
        (),
        float,
        lambda i: str(round(i)),
        lambda i: standardize.feature_frame(standardize.worked(X, EPS), round(i)),
        0.6,
    ),
    "std_spread": Control(
        "/standardize",
        "std_spread",
        (standardize.NEAR,),
        (standardize.CHART_NEAR,),
        float,
        standardize.spread_text,
        lambda v: standardize.spread_frame(EPS, v),
        -0.65,
    ),
}


def spec(c: Control) -> dict[str, Any]:
    return {"live": f"{c.key}_live", "readouts": list(c.readouts), "charts": list(c.charts)}


def seen_now(lab: Lab, c: Control) -> dict[str, Any]:
    return lab.page.evaluate(f"(spec) => ({SEEN_JS})(spec)", spec(c))  # type: ignore[no-any-return]


def shown_as_expected(c: Control, seen: dict[str, Any], *, at_rest: bool) -> None:
    """Every readout as the core's frame has it; each chart's bars (to a pixel while moved in the
    SVG, exactly when Plotly drew the data) and line labels too."""
    value = c.value_of(seen["label"])
    assert seen["label"] == c.url_text(value)  # the text the control showed before: "3", not "3.00"
    f = c.frame(value)
    want = [
        {"tex": r.tex, "metrics": [[m.label, m.value, m.delta or ""] for m in r.metrics]}
        for r in (f.readout(k) for k in c.readouts)
    ]
    assert seen["readouts"] == want, value
    for key, chart in zip(c.charts, seen["charts"], strict=True):
        frame_chart = f.chart(key)
        y = frame_chart.traces[0]
        labels = [ln.label for ln in frame_chart.lines]
        assert chart["notes"][: len(labels)] == labels, value  # the lines' labels come first
        if chart["fixed"] and not at_rest:  # moved in the SVG: the bars' tops, to a pixel
            assert len(chart["bars"]) == y.size, value
            assert np.allclose(chart["bars"], y, rtol=0, atol=1.01 * chart["pixel"]), (
                value,
                chart["bars"],
                y,
            )
        else:  # Plotly drew the data: every float64 of every bar
            assert chart["y"] == list(y), value


def drag(lab: Lab, c: Control) -> list[dict[str, Any]]:
    """Press the thumb, move it ``c.toward`` of the track in small steps, one frame each, and return
    what was seen on every animation frame while the mouse was down (the mouse is released after)."""
    thumb = lab.page.locator(f".st-key-{c.key}_live input[type=range]")
    expect(thumb).to_be_visible()
    live_ready(lab.page, c.key)
    for key in c.readouts:
        if c.frame(c.value_of(seen_now(lab, c)["label"])).readout(key).tex is not None:
            lab.page.locator(f".st-key-live_readout_{key} .katex").first.wait_for()  # typeset
    thumb.scroll_into_view_if_needed()
    return drag_thumb_by(lab.page, thumb, RECORD_JS, spec(c), c.toward)


@pytest.mark.parametrize("name", list(CONTROLS))
def test_a_drag_shows_the_cores_numbers_on_every_frame_and_release_keeps_them(lab: Lab, name: str) -> None:
    c = CONTROLS[name]
    lab.open(page_by_url(c.url), query(**TYPED))
    before = seen_now(lab, c)
    shown_as_expected(c, before, at_rest=True)
    frames = drag(lab, c)

    assert not [f for f in frames if "error" in f], frames[:3]
    labels = [f["label"] for f in frames]
    assert len(set(labels)) >= 3, f"the numbers followed the thumb on too few frames: {labels}"
    changed = {str(f["readouts"]) for f in frames}
    assert len(changed) >= 3, "the readouts changed during the drag"
    for seen in {f["label"]: f for f in frames}.values():  # one recorded frame per value shown
        shown_as_expected(c, seen, at_rest=False)
    last = frames[-1]
    assert last["label"] != before["label"]

    value = c.value_of(last["label"])
    carried = links.link_text(c.url_text(value))  # ASCII, no "+": 1e+08 is carried as 1e8
    expect(lab.page).to_have_url(re.compile(rf"{c.key}={re.escape(carried)}(&|$)"))
    lab.wait_idle()
    expect(lab.page.locator(f".st-key-{c.key}_live .lab-live-value")).to_have_text(last["label"])
    # Plotly draws the server's figure after the run ends (until then the SVG holds the last frame)
    wants = [[float(v) for v in c.frame(value).chart(key).traces[0]] for key in c.charts]
    lab.page.wait_for_function(
        f"([spec, wants]) => JSON.stringify(({SEEN_JS})(spec).charts.map((c) => c.y))"
        " === JSON.stringify(wants)",
        arg=[spec(c), wants],
    )
    after = seen_now(lab, c)
    assert after["readouts"] == last["readouts"]  # the released page: the last live frame at every digit
    shown_as_expected(c, after, at_rest=True)
    lab.assert_clean()
