"""Invariances' c and b answer during a drag (ui.live): every frame shown is the core's, release keeps it.

A page-side recorder takes, on animation frames during a mouse drag, what the student sees: the
slider's value label, the four readouts (the ε/c² line, the metrics, y(x), y(c x + b)) and the bars
of the outputs chart. Each recorded frame must equal what the page's per-value function
(``ui.live.invariances.frame``, built on the core) gives for the value the slider shows, at the other
control's value; after release the page (now the server's run) shows exactly the last live frame, the
URL carries it, and what is drawn at rest only (the chart's title, the notices, the curve) follows.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest
from playwright.sync_api import expect

import layernorm as ln
from e2e.support import Lab, drag_thumb_by, live_ready, page_by_url, query, recorder_js
from ui.live import invariances as inv
from ui.live import offered
from ui.text import fmt

pytestmark = pytest.mark.browser

INVARIANCES = page_by_url("/invariances")
X = ln.make_preset("standard normal", 8, 0)  # the sidebar's input on a fresh page
GAMMA, BETA = np.ones(8), np.zeros(8)
READOUTS = (inv.NUMBERS, inv.METRICS, inv.Y_X, inv.Y_MOVED)
B_VALUES = offered(*inv.SHIFT[:2], inv.SHIFT[3])

# What the student sees now, read from the page (the components draw in the document).
SEEN_JS = """
(key) => {
  const live = document.querySelector(`.st-key-${key}_live`);
  const readouts = %s.map((name) => {
    const r = document.querySelector(`.st-key-live_readout_${name}`);
    const tex = r.querySelector('annotation[encoding="application/x-tex"]');
    const metrics = Array.from(r.querySelectorAll('[data-testid="stMetric"]'), (m) => [
      m.querySelector('[data-testid="stMetricLabel"]').textContent,
      m.querySelector('[data-testid="stMetricValue"]').textContent,
    ]);
    return {key: name, tex: tex ? tex.textContent : null, metrics};
  });
  // Each bar's top in px on its trace's y axis (the drag moves Plotly's SVG) and each axis' map
  // from values to px (linear: px = m·value + b).
  const plot = document.querySelector(".st-key-%s .lab-chart");
  const bars = Array.from(plot.querySelectorAll("g.trace.bars"), (g) => ({
    index: g.__data__[0].trace.index,
    axis: g.__data__[0].trace.yaxis,
    tops: Array.from(g.querySelectorAll("g.point path"), (path) =>
      Number(/V([-0-9.e]+)H/.exec(path.getAttribute("d"))[1])),
  }));
  const axes = {};
  for (const [id, name] of [["y", "yaxis"], ["y2", "yaxis2"]]) {
    const a = plot._fullLayout[name];
    axes[id] = {m: a._m, b: a._b};
  }
  return {
    label: live.querySelector(".lab-live-value").textContent,
    thumb: live.querySelector("input").value,
    readouts, bars, axes,
  };
}
""" % (list(READOUTS), inv.CHART_OUTPUTS)  # noqa: UP031  # JavaScript's braces stay as they are
RECORD_JS = recorder_js(SEEN_JS)
NOTICES_JS = """() => Array.from(document.querySelectorAll('[data-testid="stAlertContainer"]'),
  (a) => a.textContent)"""


def wait_at_rest(lab: Lab, c: float, b: float) -> None:
    """Until the server's runs after the release have drawn section 1 and the curve for (c, b): the
    outputs chart's title names c·x + b, the curve's legend names b and its point sits at c (if c > 0).
    The release's callback reruns both sections; a wait that ends proves it did."""
    want = {
        "chart": inv.CHART_OUTPUTS,
        "title": f"<b>Outputs for x and for {inv.moved_label(c, b)}</b>",
        "rms": f"RMSNorm, b = {fmt(b, 3)}",
        "point": [c] if c > 0 else None,
    }
    lab.page.wait_for_function(
        """(want) => {
          const outputs = document.querySelector(`.st-key-${want.chart} .lab-chart`);
          const curve = document.querySelector(".st-key-inv_chart_curve .lab-chart");
          if (!outputs?.layout || !curve?.data) return false;
          const point = curve.data.find((t) => t.name === "your c (LayerNorm)");
          return outputs.layout.title.text === want.title && curve.data.some((t) => t.name === want.rms)
            && JSON.stringify(point ? Array.from(point.x) : null) === JSON.stringify(want.point);
        }""",
        arg=want,
    )
    lab.wait_idle()


def value_of(key: str, label: str) -> float:
    if key == "inv_c":
        return inv.C_CHOICES[[inv.c_text(c) for c in inv.C_CHOICES].index(label)]
    return float(label)


def expected(c: float, b: float) -> dict[str, Any]:
    f = inv.frame(X, 1e-5, GAMMA, BETA, c, b)
    return {
        "readouts": [
            {
                "key": r.key,
                "tex": r.tex,
                "metrics": [[m.label, m.value] for m in r.metrics],
            }
            for r in f.readouts
        ],
        "traces": [np.asarray(t) for t in f.chart(inv.CHART_OUTPUTS).traces],
    }


def shown_as_expected(seen: dict[str, Any], c: float, b: float, *, by_plotly: bool = False) -> None:
    """``seen`` is the core's frame for (c, b). ``by_plotly``: the chart is Plotly's own drawing (at
    rest), which draws a bar shorter than 2 px as 2 px from a whole pixel near the axis, so it stays
    visible; the drag moves every bar to its value's exact px."""
    want = expected(c, b)
    assert seen["readouts"] == want["readouts"], (c, b)
    assert sorted(bar["index"] for bar in seen["bars"]) == [0, 1, 2, 3]
    for bar in seen["bars"]:
        axis = seen["axes"][bar["axis"]]
        # every bar stands where the core's value puts it on its axis (Plotly rounds px to 0.01)
        px = np.array([axis["m"] * y + axis["b"] for y in want["traces"][bar["index"]]])
        tiny = np.abs(px - axis["b"]) < 2 if by_plotly else np.zeros(px.size, dtype=bool)
        tops = np.array(bar["tops"])
        assert tops[~tiny] == pytest.approx(px[~tiny], abs=0.006), (c, b, bar["index"])
        assert np.all(np.abs(tops[tiny] - px[tiny]) <= 2), (c, b, bar["index"])


def released_as_last(after: dict[str, Any], last: dict[str, Any]) -> None:
    """The released page (Plotly's drawing) shows the last live frame: the same label, thumb and
    readouts at every digit, and each bar where the drag left it (a bar under 2 px: within 2 px)."""
    assert {k: after[k] for k in ("label", "thumb", "readouts", "axes")} == {
        k: last[k] for k in ("label", "thumb", "readouts", "axes")
    }
    for was, now in zip(last["bars"], after["bars"], strict=True):
        assert was["index"] == now["index"]
        assert now["tops"] == pytest.approx(was["tops"], abs=2)


def drag(lab: Lab, key: str, fraction: float) -> list[dict[str, Any]]:
    """Drag the slider's thumb by ``fraction`` of its track with the mouse; the frames recorded."""
    lab.page.locator(f".st-key-live_readout_{inv.NUMBERS} .katex").first.wait_for()  # KaTeX loaded
    thumb = live_ready(lab.page, key)
    expect(thumb).to_be_visible()
    lab.page.locator(f".st-key-{inv.CHART_OUTPUTS} .main-svg").first.wait_for()
    thumb.evaluate("(e) => e.scrollIntoView({block: 'center'})")
    frames = drag_thumb_by(lab.page, thumb, RECORD_JS, key, fraction)
    assert not [f for f in frames if "error" in f], frames[:3]
    return frames


def test_a_drag_of_c_shows_the_cores_numbers_on_every_frame_and_release_keeps_them(lab: Lab) -> None:
    lab.open(INVARIANCES)
    frames = drag(lab, "inv_c", -0.3)  # from c = 2 down to 0.001 (every c on the way is > 0)
    labels = [f["label"] for f in frames]
    assert len(set(labels)) >= 5, f"the numbers followed the thumb on too few frames: {labels}"
    for seen in {f["label"]: f for f in frames}.values():  # one recorded frame per value shown
        # the first value's frames are the page at rest (Plotly's drawing) until the thumb moves
        shown_as_expected(seen, value_of("inv_c", seen["label"]), 1.0, by_plotly=seen["label"] == labels[0])
    assert len({str(f["readouts"]) for f in frames}) >= 5  # the readouts changed during the drag
    last = frames[-1]
    c = value_of("inv_c", last["label"])
    assert inv.C_CHOICES[int(last["thumb"])] == c  # the label says where the thumb is
    assert 0 < c < 2

    expect(lab.page).to_have_url(re.compile(rf"inv_c={re.escape(inv.c_text(c))}(&|$)"))
    wait_at_rest(lab, c, 1.0)
    after = lab.page.evaluate(f"(key) => ({SEEN_JS})(key)", "inv_c")
    released_as_last(after, last)
    shown_as_expected(after, c, 1.0, by_plotly=True)
    assert not [n for n in lab.page.evaluate(NOTICES_JS) if "c = 0" in n or "negative c" in n]
    lab.assert_clean()


def test_a_drag_of_b_shows_the_cores_numbers_on_every_frame_and_release_keeps_them(lab: Lab) -> None:
    lab.open(INVARIANCES, "?inv_c=-1")
    frames = drag(lab, "inv_b", -0.4)  # from b = 1 down to about −7
    labels = [f["label"] for f in frames]
    assert len(set(labels)) >= 5, f"the numbers followed the thumb on too few frames: {labels}"
    for seen in {f["label"]: f for f in frames}.values():
        shown_as_expected(seen, -1.0, value_of("inv_b", seen["label"]), by_plotly=seen["label"] == labels[0])
    last = frames[-1]
    b = value_of("inv_b", last["label"])
    assert B_VALUES[int(last["thumb"])] == b and b < 0

    expect(lab.page).to_have_url(re.compile(rf"inv_b={re.escape(f'{b:g}')}(&|$)"))
    expect(lab.page).to_have_url(re.compile(r"inv_c=-1(&|$)"))  # c kept, in ASCII
    wait_at_rest(lab, -1.0, b)
    after = lab.page.evaluate(f"(key) => ({SEEN_JS})(key)", "inv_b")
    released_as_last(after, last)
    shown_as_expected(after, -1.0, b, by_plotly=True)
    assert any("A negative c mirrors the vector" in n for n in lab.page.evaluate(NOTICES_JS))
    lab.assert_clean()


# --- the geometry's γᵢ and βᵢ ------------------------------------------------------------------------
GEO_VALUES = offered(*inv.GEO_SLIDER)
GEO_SEEN_JS = """
([key, picture]) => {
  const live = document.querySelector(`.st-key-${key}_live`);
  const r = document.querySelector(".st-key-live_readout_GEO_Y");
  const tex = r.querySelector('annotation[encoding="application/x-tex"]');
  const plot = document.querySelector(`.st-key-${picture} .lab-chart`);
  const yours = plot?.data?.find((t) => t.name === "your y");
  let opacity = 1;
  for (let e = plot; e; e = e.parentElement) opacity *= Number(getComputedStyle(e).opacity);
  return {
    label: live.querySelector(".lab-live-value").textContent,
    thumb: live.querySelector("input").value,
    tex: tex ? tex.textContent : null,
    yours: yours ? [yours.x[0], yours.y[0], ...(yours.z ? [yours.z[0]] : [])].map(Number) : null,
    dimmed: opacity < 0.99,
    dragging: document.documentElement.classList.contains("lab-live-dragging"),
    // the trace types plotly.js drew: a 3-D picture redrawn by the flat bundle turns into "scatter"
    types: [...new Set((plot?._fullData ?? []).map((t) => t.type))].sort().join(),
  };
}
""".replace("GEO_Y", inv.GEO_Y)
GEO_RECORD_JS = recorder_js(GEO_SEEN_JS)


def geo_at(key: str, v: float, gamma: np.ndarray, beta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    g, b = gamma.copy(), beta.copy()
    (g if key.startswith("geo_gamma") else b)[int(key[-1]) - 1] = v
    return g, b


def geo_drag(lab: Lab, key: str, picture: str, fraction: float) -> list[dict[str, Any]]:
    """Drag the geometry's slider ``key`` by ``fraction`` of its track; what was seen on each frame."""
    lab.page.locator(f".st-key-live_readout_{inv.GEO_Y} .katex").first.wait_for()  # KaTeX loaded
    thumb = live_ready(lab.page, key)
    thumb.evaluate("(e) => e.scrollIntoView({block: 'center'})")
    frames = drag_thumb_by(lab.page, thumb, GEO_RECORD_JS, [key, picture], fraction, steps=20)
    assert not [f for f in frames if "error" in f], frames[:3]
    return frames


@pytest.mark.parametrize(
    ("typed", "key", "fraction"),
    [("1, 2, 4", "geo_gamma1", -0.3), ("1, 2, 4", "geo_beta3", 0.3), ("5, 7", "geo_gamma1", 0.3)],
)
def test_a_drag_of_a_geometry_slider_shows_the_cores_y_in_its_readout_and_its_picture(
    lab: Lab, typed: str, key: str, fraction: float
) -> None:
    x = np.array([float(t) for t in typed.split(",")])
    d = x.size
    picture = inv.GEO_PICTURES[d]
    lab.open(
        INVARIANCES,
        query(src="Type numbers", typed=typed, geo_gamma2="0.5", **({"geo_d": "2"} if d == 2 else {})),
    )
    gamma, beta = np.ones(d), np.zeros(d)
    gamma[1] = 0.5
    start = float((gamma if "gamma" in key else beta)[int(key[-1]) - 1])
    frames = geo_drag(lab, key, picture, fraction)
    moved = [f for f in frames if f["dragging"]]
    labels = [f["label"] for f in moved]
    assert len(set(labels)) >= 4, f"the readout followed the thumb on too few frames: {labels}"
    for seen in {f["label"]: f for f in moved}.values():  # one recorded frame per value shown
        g, b = geo_at(key, float(seen["label"]), gamma, beta)
        assert seen["tex"] == inv.geo_frame(x, 1e-5, g, b).readout(inv.GEO_Y).tex, seen["label"]
        # the picture follows too: your point there is your y at the thumb's value (the core's)
        assert seen["yours"] == ln.layer_norm(x, g, b, eps=1e-5).tolist(), seen["label"]
    assert not any(f["dimmed"] for f in frames)  # a picture that moves is not dimmed
    # drawn by the Plotly that drew it first (ui/plot.js): a 3-D picture stays 3-D during the drag
    drawn = {f["types"] for f in frames}
    assert drawn == {"scatter3d"} if d == 3 else drawn == {"scatter"}, drawn
    last = frames[-1]
    v = float(last["label"])
    assert GEO_VALUES[int(last["thumb"])] == v and v != start and (v < start) == (fraction < 0)

    expect(lab.page).to_have_url(re.compile(rf"{key}={re.escape(f'{v:g}')}(&|$)"))
    expect(lab.page).to_have_url(re.compile(r"geo_gamma2=0\.5(&|$)"))  # the others kept
    g, b = geo_at(key, v, gamma, beta)
    # the release draws the server's picture at the released value: your point's y, from the core
    lab.wait_idle()
    after = lab.page.evaluate(f"(which) => ({GEO_SEEN_JS})(which)", [key, picture])
    assert after == {**last, "dragging": False}  # the last live frame at every digit
    assert after["yours"] == ln.layer_norm(x, g, b, eps=1e-5).tolist()
    lab.assert_clean()
