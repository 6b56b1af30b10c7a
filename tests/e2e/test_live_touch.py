"""The live controls under a finger (ui.live, ui.live.vector), in Chromium's touch emulation at 390 × 844.

A finger has no hover: the frames of a live control were asked for only when a pointer reached it, and
came a run later, so a touch drag's first moves (or all of a short one) showed nothing moving. On a
touch device the frames of the live controls in view are asked for before they are touched. A frame
that arrives during a drag (a mouse pressed at once, with no hover before) is drawn at once, at the
thumb's value, and the bar's value text says it. Every live slider and a vector's bars are touch
targets of at least 24 px (WCAG 2.5.8).

Touches are sent as a phone sends them (CDP ``Input.dispatchTouchEvent``); a page-side recorder takes
every frame once the page's own frame callbacks have run (``e2e.support.painted_recorder_js``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from playwright.sync_api import BrowserContext, CDPSession, Locator, Playwright, expect

import layernorm as ln
from e2e.support import (
    READOUT_JS,
    WAIT_MS,
    Lab,
    page_by_url,
    painted_recorder_js,
    query,
    tapped,
)
from scripts.browser import CHROMIUM, CHROMIUM_ARGS
from ui.live import Frame, mean, variance
from ui.live.vector import grid_for, moved

pytestmark = pytest.mark.browser

EPS = 1e-5
PHONE = {"width": 390, "height": 844}
DEFAULT_X = ln.make_preset("standard normal", 8, 0)  # the sidebar's vector on a fresh page
LIVE_PAGES = ["/mean", "/variance", "/standardize", "/scale_shift", "/full_formula", "/precision",
              "/invariances", "/gradients", "/estimators_and_eps", "/normalization_now"]  # fmt: skip
OWN_DATA = {"/normalization_now"}  # its sidebar holds no vector, so no live ε, γ, β


def variance_view(x: np.ndarray) -> Frame:
    """Variance's numbers for the input ``x``, its controls at their defaults (the frames of its bars)."""
    return variance.with_passes(
        variance.frame(x, EPS, variance.SCALE_DEFAULT), x, variance.SCALE_DEFAULT, variance.OFFSET_DEFAULT
    )


def shown(f: Frame) -> list[dict[str, Any]]:
    return [
        {"tex": r.tex, "metrics": [[m.label, m.value, m.delta or ""] for m in r.metrics]} for r in f.readouts
    ]


VARIANCE_KEYS = [r.key for r in variance_view(DEFAULT_X).readouts]
GRID = grid_for(DEFAULT_X)  # Variance's input chart: its axis is the grid's (ui.live.vector.input_chart)


def bar_value(k: int) -> float:
    assert GRID is not None
    return GRID.value(k)


@pytest.fixture(scope="module")
def phone(playwright_driver: Playwright) -> Iterator[BrowserContext]:
    """A phone: Chromium with touch (its primary pointer is coarse), 390 × 844."""
    browser = playwright_driver.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)  # type: ignore[arg-type]
    context.set_default_timeout(WAIT_MS)
    yield context
    context.close()
    browser.close()


@pytest.fixture
def finger(phone: BrowserContext, server: str) -> Iterator[Lab]:
    lab = Lab(tapped(phone.new_page()), server)
    yield lab
    lab.let_go()
    lab.page.close()


# What the student sees of a dragged bar: the thumb (its grid index), its value text and the readouts.
BAR_JS = """
(a) => {
  const input = document.querySelector(`.lab-bar-input[data-feature="${a.feature}"]`);
  return {
    k: Number(input.value),
    valuetext: input.getAttribute("aria-valuetext"),
    readouts: a.readouts.map((k) => (READOUT)(document.querySelector(`.st-key-live_readout_${k}`))),
  };
}
""".replace("READOUT", READOUT_JS)
RECORD_BAR_JS = painted_recorder_js(BAR_JS)
NEXT_FRAME = "() => new Promise((done) => requestAnimationFrame(() => done()))"


def touch(cdp: CDPSession, kind: str, x: float = 0, y: float = 0) -> None:
    points = [] if kind == "touchEnd" else [{"x": x, "y": y}]
    cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})


def bar_top(bar: Locator) -> tuple[float, float, float]:
    """Where a bar's handle is: (x, y) in px, and the px of one grid step."""
    box = bar.bounding_box()
    assert box is not None
    at = int(bar.input_value()) / int(bar.get_attribute("max") or 1)
    thumb = 6  # px, live.css's handle: the input's ends reach past the axis by half of it
    step = (box["height"] - thumb) / int(bar.get_attribute("max") or 1)
    return box["x"] + box["width"] / 2, box["y"] + thumb / 2 + (1 - at) * (box["height"] - thumb), step


def test_a_finger_finds_the_bars_frames_ready_and_every_frame_of_its_drag_follows(finger: Lab) -> None:
    lab = finger
    lab.open(page_by_url("/variance"))
    for key in VARIANCE_KEYS:
        if variance_view(DEFAULT_X).readout(key).tex is not None:
            lab.page.locator(f".st-key-live_readout_{key} .katex").first.wait_for()
    bar = lab.page.locator('.lab-bar-input[data-feature="2"]')
    # No pointer has reached any bar: the bars in view asked for their frames by themselves.
    for n in range(1, 9):
        expect(lab.page.locator(f'.lab-bar-input[data-feature="{n}"]')).to_have_attribute(
            "data-frames", "ready"
        )
    k0 = int(bar.input_value())
    x, y, step = bar_top(bar)
    cdp = lab.page.context.new_cdp_session(lab.page)
    lab.page.evaluate(RECORD_BAR_JS, {"feature": 2, "readouts": VARIANCE_KEYS})
    touch(cdp, "touchStart", x, y)
    for i in range(1, 31):  # up, a grid step in two moves
        touch(cdp, "touchMove", x, y - step * i / 2)
        lab.page.evaluate(NEXT_FRAME)
    frames: list[dict[str, Any]] = lab.page.evaluate(
        "() => { window.__stop = true; return window.__frames; }"
    )
    touch(cdp, "touchEnd")

    assert not [f for f in frames if "error" in f], frames[:3]
    moved_frames = [f for f in frames if f["k"] != k0]
    assert len({f["k"] for f in moved_frames}) >= 4, [f["k"] for f in frames]
    for f in moved_frames:  # from the first frame the thumb moved in: that value's numbers, and said
        v = bar_value(f["k"])
        assert f["readouts"] == shown(variance_view(moved(DEFAULT_X, 1, v))), v
        assert f["valuetext"] == f"x2 = {ln.number_text(v)}"
    last = moved(DEFAULT_X, 1, bar_value(moved_frames[-1]["k"]))
    text = ", ".join(ln.number_text(float(e)) for e in last)
    expect(lab.sidebar.locator("textarea")).to_have_value(text)  # the release typed the moved vector
    lab.wait_idle()
    # the new vector's bars: their frames asked for again, with no finger on them
    expect(lab.page.locator('.lab-bar-input[data-feature="5"]')).to_have_attribute("data-frames", "ready")
    cdp.detach()
    lab.assert_clean()


def test_a_finger_finds_a_sidebar_sliders_frames_ready_when_the_sidebar_opens(finger: Lab) -> None:
    """A page control's move leaves the sidebar's sliders' frames at its old value (stale: a page
    control's run does not draw the sidebar). A phone's sidebar is closed: once opened, its sliders in
    view ask for new frames by themselves, before a finger lands."""
    lab = finger
    lab.open(page_by_url("/variance"))
    eps = lab.page.locator(".st-key-eps_live .lab-live")
    expect(eps).to_have_attribute("data-frames", "ready")
    scale = lab.page.locator(".st-key-var_scale_live input[type=range]")
    with lab.a_run():
        scale.evaluate(  # a release of the stretch a, as a finger's lifts it
            """(e) => { e.value = String(Number(e.value) + 1);
                 e.dispatchEvent(new Event("input", {bubbles: true}));
                 e.dispatchEvent(new Event("change", {bubbles: true})); }"""
        )
    expect(eps).to_have_attribute("data-frames", "stale")  # out of view in the closed sidebar: not asked
    lab.page.locator('[data-testid="stExpandSidebarButton"]').tap()
    eps.scroll_into_view_if_needed()
    expect(eps).to_have_attribute("data-frames", "ready")
    lab.assert_clean()


SIZES_JS = """(where) => Array.from(document.querySelectorAll(
    `[data-testid=${where}] :is(.lab-live-input, .lab-bar-input)`), (e) => {
  const r = e.getBoundingClientRect();
  return [e.closest("[class*='st-key-']").className.match(/st-key-(\\S+)/)[1], e.dataset.feature ?? "",
          r.width, r.height];
})"""


# The sidebar has slid in: its content is where it is drawn open, and was there a frame before too
# (wait_for_function asks once an animation frame).
OPENED_JS = """() => {
  const r = document.querySelector('[data-testid="stSidebarContent"]').getBoundingClientRect();
  const now = `${r.left} ${r.width}`, still = window.__sidebarWas === now;
  window.__sidebarWas = now;
  return still && r.left >= 0;
}"""


def test_every_live_slider_and_bar_is_a_touch_target_of_24_px(lab: Lab) -> None:
    lab.page.set_viewport_size(PHONE)  # type: ignore[arg-type]
    for url in LIVE_PAGES:
        lab.open(page_by_url(url))
        lab.page.locator(".lab-live-input").first.wait_for()
        if url in {"/mean", "/variance", "/standardize", "/scale_shift", "/full_formula"}:
            lab.page.locator(".lab-bar-input").first.wait_for()  # placed once their chart is drawn
        main = lab.page.evaluate(SIZES_JS, "stMain")
        if url in OWN_DATA:
            small = [s for s in main if s[2] < 24 or s[3] < 24]
            assert main and not small, (url, main)
            continue
        # a phone's sidebar opens when asked (and stays open from page to page): its sliders are measured open
        if lab.page.locator('[data-testid="stSidebar"][data-collapsed="true"]').count():
            lab.page.locator('[data-testid="stExpandSidebarButton"]').click()
        expect(lab.page.locator('[data-testid="stSidebar"]')).to_have_attribute("data-collapsed", "false")
        lab.page.wait_for_function(OPENED_JS)
        sidebar = lab.page.evaluate(SIZES_JS, "stSidebar")
        assert len(sidebar) == 3, (url, sidebar)  # ε, γ and β
        small = [s for s in main + sidebar if s[2] < 24 or s[3] < 24]
        assert not small, (url, small)
    lab.assert_clean()


# --- a frame that arrives during a drag -------------------------------------------------------------

# Until the readouts show `want` (shown(), in JavaScript's terms)
SHOWS_JS = f"""(a) => JSON.stringify(a.readouts.map((k) =>
  ({READOUT_JS})(document.querySelector(`.st-key-live_readout_${{k}}`)))) === JSON.stringify(a.want)"""


def test_a_bars_frames_that_arrive_during_a_drag_are_drawn_at_once(lab: Lab) -> None:
    """A mouse pressed at once on a bar (no hover first, as a finger does): its frames are asked for at
    the press and come a run later, while the thumb stands where the drag left it. The page then shows
    that value's numbers at once, and the bar says its value, with no further move."""
    lab.open(page_by_url("/variance"))
    for key in VARIANCE_KEYS:
        if variance_view(DEFAULT_X).readout(key).tex is not None:
            lab.page.locator(f".st-key-live_readout_{key} .katex").first.wait_for()
    for n in (2, 3, 4):  # a bar whose frames came before the drag moved tests nothing: the next one
        bar = lab.page.locator(f'.lab-bar-input[data-feature="{n}"]')
        expect(bar).to_have_attribute("data-frames", "missing")  # a mouse: nothing asked before a reach
        x, y, step = bar_top(bar)
        lab.page.mouse.move(x, y)
        lab.page.mouse.down()
        lab.page.mouse.move(x, y - 5 * step)
        early = bar.get_attribute("data-frames") != "ready"
        if early:
            break
        lab.page.mouse.up()
        lab.wait_idle()
    assert early, "the frames came before the drag moved, three times"
    expect(bar).to_have_attribute("data-frames", "ready")
    k = int(bar.input_value())
    v = bar_value(k)
    x_moved = moved(DEFAULT_X, n - 1, v)
    expect(bar).to_have_attribute("aria-valuetext", f"x{n} = {ln.number_text(v)}")
    want = shown(variance_view(x_moved))
    lab.page.wait_for_function(SHOWS_JS, arg={"readouts": VARIANCE_KEYS, "want": want})
    lab.page.mouse.up()
    lab.wait_idle()
    lab.assert_clean()


MEAN_768 = ln.make_preset("standard normal", 768, 0)


def test_a_sliders_frames_that_arrive_during_a_drag_are_drawn_at_once(lab: Lab) -> None:
    """At d = 768 Mean's frames wait to be asked for; a press at once (the pointer arrives and presses)
    asks, and the drag moves before they come."""
    lab.open(page_by_url("/mean"), query(d=768))
    readout = lab.page.locator(f".st-key-live_readout_{mean.READOUT} .katex").first
    readout.wait_for()
    live = lab.page.locator(".st-key-mean_shift_live .lab-live")
    thumb = live.locator("input[type=range]")
    box = thumb.bounding_box()
    assert box is not None
    y, middle = box["y"] + box["height"] / 2, box["x"] + box["width"] / 2
    for fraction in (0.1, 0.15, 0.2):
        lab.page.mouse.move(middle, y)
        lab.page.mouse.down()
        lab.page.mouse.move(middle + fraction * box["width"], y)
        early = live.get_attribute("data-frames") != "ready"
        if early:
            break
        lab.page.mouse.up()
        lab.wait_idle()
        lab.open(page_by_url("/mean"), query(d=768))  # frames not yet asked for again
        readout.wait_for()
    assert early, "the frames came before the drag moved, three times"
    expect(live).to_have_attribute("data-frames", "ready")
    label = live.locator(".lab-live-value").text_content() or ""
    want = shown(mean.frame(MEAN_768, EPS, float(label)))
    lab.page.wait_for_function(SHOWS_JS, arg={"readouts": [mean.READOUT], "want": want})
    lab.page.mouse.up()
    lab.wait_idle()
    lab.assert_clean()
