"""Mean's c answers during a drag (ui.live): every frame shown is the core's, and release keeps it.

A page-side recorder takes, on animation frames during a mouse drag, what the student sees: the
slider's value label, the formula's TeX (KaTeX keeps it in the MathML annotation), the metrics and
each chart's y values and line labels. Each recorded frame must equal what the page's one per-value
function (``ui.live.mean.frame``, built on the core) gives for the value the slider shows; after
release the page (now drawn from the server's run) must show exactly the last live frame, and the URL
must carry it.
"""

from __future__ import annotations

import itertools
import re
import urllib.parse
from typing import Any

import numpy as np
import pytest
from playwright.sync_api import BrowserContext, expect

from e2e.support import Lab, live_ready, page_by_url, query
from scripts.browser import IDLE
from ui.live import mean, offered

pytestmark = pytest.mark.browser

MEAN = page_by_url("/mean")
X = np.array([1.0, 2.5, -3.0, 40.0])
TYPED = {"src": "Type numbers", "typed": "1, 2.5, -3, 40"}
LIVE = ".st-key-mean_shift_live"
READOUT = ".st-key-live_readout_mean"


def mean_values() -> list[float]:
    lo, hi, _, step = mean.SHIFT
    return offered(lo, hi, step)


# What the student sees now, read from the page (the component draws in the document).
SEEN_JS = """
() => {
  const live = document.querySelector(".st-key-mean_shift_live");
  // What the chart shows: each bar's top in px on the plot's y axis (the drag moves Plotly's SVG), the
  // axis' map from values to px (linear: px = m·value + b), and the labels on its lines.
  const charts = ["mean_chart_x", "mean_chart_centered"].map((key) => {
    const plot = document.querySelector(`.st-key-${key} .lab-chart`);
    const ya = plot._fullLayout.yaxis;
    const tops = Array.from(plot.querySelectorAll("g.trace.bars g.point path"), (path) =>
      Number(/V([-0-9.e]+)H/.exec(path.getAttribute("d"))[1]));
    const notes = Array.from(plot.querySelectorAll("g.annotation text.annotation-text"),
      (t) => t.textContent);
    return {tops, notes, m: ya._m, b: ya._b, range: ya.range};
  });
  const readout = document.querySelector(".st-key-live_readout_mean");
  const metrics = Array.from(readout.querySelectorAll('[data-testid="stMetric"]')).map((m) => [
    m.querySelector('[data-testid="stMetricLabel"]').textContent,
    m.querySelector('[data-testid="stMetricValue"]').textContent,
    m.querySelector('[data-testid="stMetricDelta"]').textContent,
  ]);
  return {
    label: live.querySelector(".lab-live-value").textContent,
    thumb: live.querySelector("input").value,
    tex: readout.querySelector('annotation[encoding="application/x-tex"]').textContent,
    metrics, charts,
  };
}
"""
RECORD_JS = f"""
() => {{
  const seen = {SEEN_JS};
  window.__frames = [];
  const tick = () => {{
    if (window.__stop) return;
    try {{ window.__frames.push(seen()); }} catch (e) {{ window.__frames.push({{error: String(e)}}); }}
    requestAnimationFrame(tick);
  }};
  window.__stop = false;
  requestAnimationFrame(tick);
}}
"""


def expected(c: float) -> dict[str, Any]:
    f = mean.frame(X, 1e-5, c)
    r = f.readout(mean.READOUT)
    return {
        "label": f"{c:.2f}",
        "tex": r.tex,
        "metrics": [[m.label, m.value, m.delta or ""] for m in r.metrics],
        "charts": [{"y": list(ch.traces[0]), "notes": [ln.label for ln in ch.lines]} for ch in f.charts],
    }


def shown_as_expected(seen: dict[str, Any]) -> None:
    c = float(seen["label"])
    want = expected(c)
    assert seen["tex"] == want["tex"], c
    assert seen["metrics"] == want["metrics"], c
    for chart, want_chart in zip(seen["charts"], want["charts"], strict=True):
        assert chart["notes"] == want_chart["notes"], c  # every line's label
        # every bar stands where the core's value puts it on the axis (Plotly rounds px to 0.01)
        px = [chart["m"] * y + chart["b"] for y in want_chart["y"]]
        assert chart["tops"] == pytest.approx(px, abs=0.006), c


def test_a_drag_shows_the_cores_numbers_on_every_frame_and_release_keeps_them(lab: Lab) -> None:
    lab.open(MEAN, query(**TYPED))
    thumb = lab.page.locator(f"{LIVE} input[type=range]")
    expect(thumb).to_be_visible()
    lab.page.locator(f"{READOUT} .katex").first.wait_for()  # KaTeX loaded: the formula is typeset
    live_ready(lab.page, "mean_shift")
    for key in (mean.CHART_X, mean.CHART_CENTERED):
        lab.page.locator(f".st-key-{key} .main-svg").first.wait_for()
    box = thumb.bounding_box()
    assert box is not None
    y = box["y"] + box["height"] / 2
    left, right = box["x"] + 7, box["x"] + box["width"] - 7
    start = left + (right - left) / 2  # c = 0 is the middle of −10 … 10
    lab.page.evaluate(RECORD_JS)
    lab.page.mouse.move(start, y)
    lab.page.mouse.down()
    for i in range(1, 31):
        lab.page.mouse.move(start + 0.35 * (right - left) * i / 30, y)
        lab.page.evaluate("() => new Promise((done) => requestAnimationFrame(() => done()))")
    frames: list[dict[str, Any]] = lab.page.evaluate("() => window.__frames")
    lab.page.mouse.up()
    lab.page.evaluate("() => { window.__stop = true; }")

    assert not [f for f in frames if "error" in f], frames[:3]
    labels = [f["label"] for f in frames]
    assert len(set(labels)) >= 5, f"the numbers followed the thumb on too few frames: {labels}"
    for seen in {f["label"]: f for f in frames}.values():  # one recorded frame per value shown
        shown_as_expected(seen)
    last = frames[-1]
    assert mean_values()[int(last["thumb"])] == float(last["label"])  # the label says where the thumb is

    c = float(last["label"])
    expect(lab.page).to_have_url(re.compile(rf"mean_shift={re.escape(f'{c:g}')}(&|$)"))
    lab.wait_idle()
    after = lab.page.evaluate(f"() => ({SEEN_JS})()")
    assert after == last  # the released page: the last live frame at every digit
    shown_as_expected(after)
    lab.assert_clean()


def test_arrow_keys_move_c_and_the_link_keeps_it(lab: Lab) -> None:
    lab.open(MEAN, query(**TYPED))
    thumb = lab.slider("Add the same number c")
    thumb.focus()
    lab.page.keyboard.press("Tab")
    lab.page.keyboard.press("Shift+Tab")  # reachable with Tab: focus comes back to the same slider
    expect(thumb).to_be_focused()
    for _ in range(3):
        thumb.press("ArrowLeft")
    expect(thumb).to_have_attribute("aria-valuetext", "-0.30")
    expect(lab.page).to_have_url(re.compile(r"mean_shift=-0\.3(&|$)"))
    lab.wait_idle()
    shown_as_expected(lab.page.evaluate(f"() => ({SEEN_JS})()"))
    assert urllib.parse.parse_qs(urllib.parse.urlsplit(lab.page.url).query)["mean_shift"] == ["-0.3"]

    lab.nav_to(page_by_url("/variance"))
    lab.nav_to(MEAN)  # kept for the session, as every page control
    expect(lab.slider("Add the same number c")).to_have_attribute("aria-valuetext", "-0.30")
    shown_as_expected(lab.page.evaluate(f"() => ({SEEN_JS})()"))
    lab.assert_clean()


# The live formula's x_i: the subscript's box and font size against its base's, and any class the page's
# KaTeX styles do not know (KaTeX 0.18's "katex-sizing" where Streamlit's CSS is 0.16's "sizing").
SUBSCRIPT_JS = """() => {
  const formula = document.querySelector(".st-key-live_readout_mean .lab-live-formula .katex-html");
  const sub = formula.querySelector(".msupsub .mord");
  const base = sub.closest(".mord:has(> .msupsub)").querySelector(":scope > .mord, :scope > .mathnormal");
  const box = (e) => e.getBoundingClientRect();
  return {lower: box(sub).bottom - box(base).bottom,
          smaller: parseFloat(getComputedStyle(sub).fontSize) / parseFloat(getComputedStyle(base).fontSize),
          unknown: formula.querySelectorAll(".katex-sizing").length};
}"""


def test_the_live_formula_is_typeset_as_st_latex_typesets(lab: Lab) -> None:
    """With Streamlit's other KaTeX module the live formula's x_i read "xi": the subscript sat on the
    baseline at full size (st.latex's styles belong to the KaTeX inside rehype-katex)."""
    lab.open(MEAN)
    lab.page.locator(f"{READOUT} .lab-live-formula .katex-html").wait_for()
    shape = lab.page.evaluate(SUBSCRIPT_JS)
    assert shape["unknown"] == 0
    assert shape["lower"] > 1  # px: below its base's baseline
    assert shape["smaller"] < 0.8
    lab.assert_clean()


def test_a_large_input_asks_for_its_frames_and_then_answers_during_a_drag(lab: Lab) -> None:
    """At d = 768 the first draw sends only the frames' id; the browser asks when the pointer reaches
    the slider, and the run that answers brings them (``ui.live``): without that answer the slider
    would work only on release."""
    lab.open(MEAN, query(d=768))
    live_ready(lab.page, "mean_shift")
    lab.page.locator(f".st-key-{mean.CHART_X} .main-svg").first.wait_for()
    lab.page.locator(f"{READOUT} .katex").first.wait_for()
    thumb = lab.page.locator(f"{LIVE} input[type=range]")
    box = thumb.bounding_box()
    assert box is not None
    y, middle = box["y"] + box["height"] / 2, box["x"] + box["width"] / 2
    mu = lab.page.locator(f"{READOUT} [data-testid=stMetricValue]").nth(1)
    before = mu.text_content()
    lab.page.mouse.move(middle, y)
    lab.page.mouse.down()
    lab.page.mouse.move(middle + 0.1 * box["width"], y)
    expect(mu).not_to_have_text(before or "")  # during the drag: the mouse is still down
    lab.page.mouse.up()
    lab.wait_idle()
    lab.assert_clean()


# Where a line-and-marker chart's markers are: during a drag one path of circles (static/live/chart.js), at
# rest Plotly's own markers; each as [x, y] px in the plot area, and the line's vertices.
MARKERS_JS = """(key) => {
  const plot = document.querySelector(`.st-key-${key} .lab-chart`);
  const g = plot.querySelector("g.trace.scatter");
  const dots = g.querySelector(":scope > path.lab-dots");
  const numbers = (d) => (d.match(/[-\\d.e]+/g) ?? []).map(Number);
  const line = numbers(g.querySelector("path.js-line").getAttribute("d"));
  const vertices = [];
  for (let k = 0; k + 1 < line.length; k += 2) vertices.push([line[k], line[k + 1]]);
  let markers;
  if (dots) {
    const r = Number(dots.dataset.r);
    markers = [...dots.getAttribute("d").matchAll(/M([-\\d.e]+),([-\\d.e]+)a/g)]
      .map((m) => [Number(m[1]) - r, Number(m[2])]);
  } else {
    markers = [...g.querySelectorAll("path.point")].map((p) => {
      const t = p.transform.baseVal.getItem(0).matrix;
      return [t.e, t.f];
    });
  }
  const ya = plot._fullLayout.yaxis;
  return {dots: Boolean(dots), hidden: g.querySelector("g.points").style.display === "none",
          markers, vertices, m: ya._m, b: ya._b};
}"""


def _flat(points: list[list[float]]) -> list[float]:
    return [v for point in points for v in point]


def test_a_long_vectors_markers_follow_the_drag_and_release_puts_plotlys_back_in_place(lab: Lab) -> None:
    """Above 128 features a chart is a line with a marker per feature. During a drag its markers are
    drawn as one path (moving each of Plotly's 768 markers took most of a frame); they must stand
    where the core's values put them, on the line, and after release Plotly's own markers, drawn
    from the server's figure, must stand exactly there."""
    x = np.round(np.random.default_rng(7).normal(0, 2, 200), 2)
    lab.open(MEAN, query(src="Type numbers", typed=", ".join(f"{v:g}" for v in x)))
    live_ready(lab.page, "mean_shift")
    lab.page.locator(f"{READOUT} .katex").first.wait_for()
    key = mean.CHART_X
    lab.page.locator(f".st-key-{key} .main-svg").first.wait_for()
    thumb = lab.page.locator(f"{LIVE} input[type=range]")
    box = thumb.bounding_box()
    assert box is not None
    y, middle = box["y"] + box["height"] / 2, box["x"] + box["width"] / 2
    label = lab.page.locator(f"{LIVE} .lab-live-value")
    lab.page.mouse.move(middle, y)
    lab.page.mouse.down()
    lab.page.mouse.move(middle + 0.1 * box["width"], y)
    expect(label).not_to_have_text("0.00")
    during = lab.page.evaluate(MARKERS_JS, key)
    c = float(label.text_content() or "nan")
    lab.page.mouse.up()

    assert during["dots"] and during["hidden"], "during a drag the markers are one path"
    want = mean.frame(x, 1e-5, c).charts[0].traces[0]
    assert [p[1] for p in during["markers"]] == pytest.approx(
        [during["m"] * v + during["b"] for v in want], abs=0.006
    )
    assert during["markers"] == during["vertices"]  # each marker on the line's vertex
    expect(lab.page).to_have_url(re.compile(rf"mean_shift={re.escape(f'{c:g}')}(&|$)"))
    lab.wait_idle()
    expect(lab.page.locator(f".st-key-{key} path.lab-dots")).to_have_count(0)  # Plotly's figure again
    after = lab.page.evaluate(MARKERS_JS, key)
    assert not after["hidden"]
    assert _flat(after["markers"]) == pytest.approx(_flat(during["markers"]), abs=0.006)
    # Plotly's line leaves out vertices on a straight run; each one it draws is one the drag drew
    near = {(round(px), round(py)) for px, py in during["vertices"]}
    assert all((round(px), round(py)) in near for px, py in after["vertices"])
    assert after["vertices"][0] == pytest.approx(during["vertices"][0], abs=0.006)
    assert after["vertices"][-1] == pytest.approx(during["vertices"][-1], abs=0.006)
    lab.assert_clean()


def test_a_live_control_whose_code_cannot_load_says_so(browser: BrowserContext, server: str) -> None:
    """The live elements' code is static/live.js, imported by a small loader (ui.live): if it does
    not arrive, each element says so instead of staying empty."""
    tab = browser.new_page()
    try:
        tab.route("**/app/static/live.js*", lambda route: route.fulfill(status=404, body="gone"))
        tab.goto(server + MEAN.url)
        tab.locator(IDLE).wait_for()
        expect(tab.locator(f"{LIVE} .lab-live")).to_have_text(
            "This control could not be drawn (live.js did not load). Reload the page to try again."
        )
        expect(tab.locator(f"{READOUT} .lab-live")).to_contain_text("could not be drawn")
    finally:
        tab.close()


# Every write of the announcer's status region, timed (static/live/readout.js)
ANNOUNCED_JS = """() => {
  window.__said = [];
  new MutationObserver(() => {
    const region = document.querySelector('[data-testid="labLiveAnnounce"]');
    if (region && region.textContent !== (window.__said.at(-1)?.text ?? null))
      window.__said.push({t: performance.now(), text: region.textContent});
  }).observe(document.body, {childList: true, subtree: true, characterData: true});
}"""


def test_keys_and_releases_are_announced_politely_at_most_once_a_second(lab: Lab) -> None:
    lab.open(MEAN, query(**TYPED))
    lab.page.evaluate(ANNOUNCED_JS)
    thumb = lab.slider("Add the same number c")
    thumb.press("ArrowRight")
    region = lab.page.locator('[data-testid="labLiveAnnounce"]')
    expect(region).to_have_attribute("aria-live", "polite")
    lab.wait_idle()
    metrics = lab.page.evaluate(
        """() => Array.from(document.querySelectorAll('.st-key-live_readout_mean [data-testid="stMetric"]'),
          (m) => m.querySelector('[data-testid="stMetricLabel"]').textContent + " " +
                 m.querySelector('[data-testid="stMetricValue"]').textContent).join(", ")"""
    )
    expect(region).to_have_text(metrics)  # what the readout shows after the step, in words
    for _ in range(6):  # a key held: one step after another, each committed
        thumb.press("ArrowRight")
    expect(thumb).to_have_attribute("aria-valuetext", "0.70")
    lab.wait_idle()
    final = lab.page.evaluate(
        """() => Array.from(document.querySelectorAll('.st-key-live_readout_mean [data-testid="stMetric"]'),
          (m) => m.querySelector('[data-testid="stMetricLabel"]').textContent + " " +
                 m.querySelector('[data-testid="stMetricValue"]').textContent).join(", ")"""
    )
    expect(region).to_have_text(final)  # the newest numbers are the last said
    said = [s for s in lab.page.evaluate("() => window.__said") if s["text"]]  # not the region's making
    gaps = [b["t"] - a["t"] for a, b in itertools.pairwise(said)]
    assert all(g >= 990 for g in gaps), said  # never more than once a second
    lab.assert_clean()
