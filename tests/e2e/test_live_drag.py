"""Mean's c answers during a drag (ui.live): every frame shown is the core's, and release keeps it.

A page-side recorder takes, on animation frames during a mouse drag, what the student sees: the
slider's value label, the formula's TeX (KaTeX keeps it in the MathML annotation), the metrics and
each chart's y values and line labels. Each recorded frame must equal what the page's one per-value
function (``ui.live.mean.frame``, built on the core) gives for the value the slider shows; after
release the page (now drawn from the server's run) must show exactly the last live frame, and the URL
must carry it.
"""

from __future__ import annotations

import re
import urllib.parse
from typing import Any

import numpy as np
import pytest
from playwright.sync_api import expect

from e2e.support import Lab, page_by_url, query
from ui.live import mean

pytestmark = pytest.mark.browser

MEAN = page_by_url("/mean")
X = np.array([1.0, 2.5, -3.0, 40.0])
TYPED = {"src": "Type numbers", "typed": "1, 2.5, -3, 40"}
LIVE = ".st-key-mean_shift_live"

# What the student sees now, read from the page (the component draws in the document).
SEEN_JS = """
() => {
  const live = document.querySelector(".st-key-mean_shift_live");
  const charts = ["mean_chart_x", "mean_chart_centered"].map((key) => {
    const plot = document.querySelector(`.st-key-${key} .lab-chart`);
    const y = plot.data[0].y;  // the server's figure keeps Plotly's typed-array spec ({dtype, bdata})
    const values = y.bdata
      ? new Float64Array(Uint8Array.from(atob(y.bdata), (c) => c.charCodeAt(0)).buffer)
      : y;
    return {y: Array.from(values), notes: (plot.layout.annotations ?? []).map((a) => a.text)};
  });
  const metrics = Array.from(live.querySelectorAll('[data-testid="stMetric"]')).map((m) => [
    m.querySelector('[data-testid="stMetricLabel"]').textContent,
    m.querySelector('[data-testid="stMetricValue"]').textContent,
    m.querySelector('[data-testid="stMetricDelta"]').textContent,
  ]);
  return {
    label: live.querySelector(".lab-live-value").textContent,
    thumb: live.querySelector("input").value,
    tex: live.querySelector('annotation[encoding="application/x-tex"]').textContent,
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
    return {
        "label": f"{c:.2f}",
        "tex": f.tex,
        "metrics": [[m.label, m.value, m.delta or ""] for m in f.metrics],
        "charts": [{"y": list(ch.traces[0]), "notes": [ln.label for ln in ch.lines]} for ch in f.charts],
    }


def shown_as_expected(seen: dict[str, Any]) -> None:
    c = float(seen["label"])
    want = expected(c)
    assert seen["tex"] == want["tex"], c
    assert seen["metrics"] == want["metrics"], c
    assert seen["charts"] == want["charts"], c  # every float64 of every bar, every line's label


def test_a_drag_shows_the_cores_numbers_on_every_frame_and_release_keeps_them(lab: Lab) -> None:
    lab.open(MEAN, query(**TYPED))
    thumb = lab.page.locator(f"{LIVE} input[type=range]")
    expect(thumb).to_be_visible()
    lab.page.locator(f"{LIVE} .katex").first.wait_for()  # KaTeX loaded: the formula is typeset
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
    assert float(last["thumb"]) == float(last["label"])  # the label says where the thumb is

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
    expect(thumb).to_have_attribute("aria-valuetext", "-1.50")
    expect(lab.page).to_have_url(re.compile(r"mean_shift=-1\.5(&|$)"))
    lab.wait_idle()
    shown_as_expected(lab.page.evaluate(f"() => ({SEEN_JS})()"))
    assert urllib.parse.parse_qs(urllib.parse.urlsplit(lab.page.url).query)["mean_shift"] == ["-1.5"]

    lab.nav_to(page_by_url("/variance"))
    lab.nav_to(MEAN)  # kept for the session, as every page control
    expect(lab.slider("Add the same number c")).to_have_attribute("aria-valuetext", "-1.50")
    shown_as_expected(lab.page.evaluate(f"() => ({SEEN_JS})()"))
    lab.assert_clean()


# The live formula's x_i: the subscript's box and font size against its base's, and any class the page's
# KaTeX styles do not know (KaTeX 0.18's "katex-sizing" where Streamlit's CSS is 0.16's "sizing").
SUBSCRIPT_JS = """() => {
  const formula = document.querySelector(".st-key-mean_shift_live .lab-live-formula .katex-html");
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
    lab.page.locator(f"{LIVE} .lab-live-formula .katex-html").wait_for()
    shape = lab.page.evaluate(SUBSCRIPT_JS)
    assert shape["unknown"] == 0
    assert shape["lower"] > 1  # px: below its base's baseline
    assert shape["smaller"] < 0.8
    lab.assert_clean()
