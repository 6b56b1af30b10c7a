"""Dragging the vector itself (ui.live.vector): on each step page a student grabs feature 2's bar and
drags it up; on every animation frame the formulas and metrics are the page's, from the core, for the
vector with that feature at the value the bar's label shows; on release that vector becomes typed
numbers (the link carries it) and the page shows the last frame at every digit. The arrow keys move a
focused bar as they move any slider.
"""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from playwright.sync_api import expect

import layernorm as ln
from e2e.support import READOUT_JS, Lab, page_by_url, query
from ui.live import Frame, full_formula, mean, scale_shift, standardize, variance

pytestmark = pytest.mark.browser

EPS = 1e-5
ONES, ZEROS = np.ones(4), np.zeros(4)


def _variance(x: np.ndarray) -> Frame:
    f = variance.frame(x, EPS, variance.SCALE_DEFAULT)
    passes = variance.pass_frame(x, variance.SCALE_DEFAULT, variance.OFFSET_DEFAULT)
    return Frame((*f.readouts, *passes.readouts), f.charts)


# The page's numbers for a typed vector, the other controls at their defaults (the core builds them).
PAGES: dict[str, Callable[[np.ndarray], Frame]] = {
    "/mean": lambda x: mean.frame(x, EPS, 0.0),
    "/variance": _variance,
    "/standardize": lambda x: standardize.page_frame(x, EPS, 1, standardize.SPREAD_DEFAULT),
    "/scale_shift": lambda x: scale_shift.frame(x, ONES, ZEROS, EPS),
    "/full_formula": lambda x: full_formula.frame(x, ONES, ZEROS, EPS),
}

SEEN_JS = """
(keys) => ({
  tip: document.querySelector(".lab-bar-tip:not([hidden])")?.textContent ?? null,
  readouts: keys.map((key) => (READOUT)(document.querySelector(`.st-key-live_readout_${key}`))),
})
""".replace("READOUT", READOUT_JS)


def shown(f: Frame) -> list[dict[str, Any]]:
    return [
        {"tex": r.tex, "metrics": [[m.label, m.value, m.delta or ""] for m in r.metrics]} for r in f.readouts
    ]


def moved_x(tip: str) -> np.ndarray:
    """The vector the bar's label names: [1, v, 3, 4] for "x2 = v"."""
    m = re.fullmatch(r"x2 = (\S+)", tip)
    assert m, tip
    return np.array([1.0, ln.parse_number(m.group(1)), 3.0, 4.0])


@pytest.mark.parametrize("url", list(PAGES))
def test_dragging_a_bar_shows_the_cores_numbers_and_release_types_the_vector(lab: Lab, url: str) -> None:
    lab.open(page_by_url(url), query(src="Type numbers", typed="1, 2, 3, 4"))
    view = PAGES[url]
    keys = [r.key for r in view(np.array([1.0, 2, 3, 4])).readouts]
    for key in keys:
        if view(np.array([1.0, 2, 3, 4])).readout(key).tex is not None:
            lab.page.locator(f".st-key-live_readout_{key} .katex").first.wait_for()  # typeset
    bar = lab.page.locator('.lab-bar-input[data-feature="2"]')
    bar.hover()  # the student reaches for it: its frames are asked for
    expect(bar).to_have_attribute("data-frames", "ready")
    box = bar.bounding_box()
    assert box is not None
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] * 0.55
    lab.page.mouse.move(x, y)
    lab.page.mouse.down()
    seen = []
    for step in range(1, 13):
        lab.page.mouse.move(x, y - box["height"] * 0.03 * step)
        lab.page.evaluate("() => new Promise((done) => requestAnimationFrame(() => done()))")
        seen.append(lab.page.evaluate(SEEN_JS, keys))
    lab.page.mouse.up()

    tips = [s["tip"] for s in seen]
    assert len(set(tips)) >= 4, tips  # the bar followed the pointer through several values
    for s in seen:
        assert s["readouts"] == shown(view(moved_x(s["tip"]))), s["tip"]
    last = moved_x(seen[-1]["tip"])
    text = ", ".join(ln.number_text(float(v)) for v in last)
    expect(lab.page).to_have_url(re.compile(re.escape("typed=" + urllib.parse.quote_plus(text)) + "(&|$)"))
    expect(lab.sidebar.locator("textarea")).to_have_value(text)
    lab.wait_idle()
    after = lab.page.evaluate(SEEN_JS, keys)
    assert after["readouts"] == seen[-1]["readouts"]  # the released page: the last frame at every digit
    lab.assert_clean()


def test_a_focused_bar_moves_one_step_per_arrow_key(lab: Lab) -> None:
    lab.open(page_by_url("/mean"), query(src="Type numbers", typed="1, 2, 3, 4"))
    bar = lab.page.locator('.lab-bar-input[data-feature="1"]')
    bar.focus()
    expect(bar).to_have_attribute("aria-valuetext", "x1 = 1")
    bar.press("ArrowUp")
    area = lab.sidebar.locator("textarea")
    expect(area).not_to_have_value("1, 2, 3, 4")
    typed = [ln.parse_number(t) for t in (area.input_value() or "").split(", ")]
    assert typed[1:] == [2.0, 3.0, 4.0] and 1.0 < typed[0] < 1.6, typed  # one grid step up
    mu = mean.frame(np.array(typed), EPS, 0.0).readout(mean.READOUT).metrics[1]
    assert mu.label == "μ (mean)"
    mu_shown = lab.page.locator(".st-key-live_readout_mean [data-testid=stMetricValue]").nth(1)
    expect(mu_shown).to_have_text(mu.value)
    expect(lab.page.locator('.lab-bar-input[data-feature="1"]')).to_have_attribute(
        "aria-valuetext", f"x1 = {ln.number_text(typed[0])}"
    )
    lab.assert_clean()


def test_after_a_bars_release_the_student_can_choose_a_preset_again(lab: Lab) -> None:
    """The release made the input typed numbers; the watch for the browser's stale copy of the Input box
    (ui.inputs.browser_caught_up) took the student's own choice of Preset, the value before, for stale
    and put Type numbers back, on every try; later, for 1.5 s after the release."""
    lab.open(page_by_url("/mean"))
    bar = lab.page.locator('.lab-bar-input[data-feature="1"]')
    bar.focus()
    bar.press("ArrowUp")
    source = lab.sidebar.get_by_role("combobox", name="Input")
    expect(source).to_have_value("Type numbers")
    lab.wait_idle()  # at once: the browser has drawn the release's input, so its next value is the student's
    source.focus()
    source.press("ArrowDown")
    lab.page.get_by_role("option", name="Preset", exact=True).click()
    lab.wait_idle()
    expect(source).to_have_value("Preset")
    expect(lab.page).not_to_have_url(re.compile(r"src="))
    lab.assert_clean()


def test_a_bar_still_under_the_pointer_after_its_release_gets_the_new_frames(lab: Lab) -> None:
    """After a release the chart is the new vector's, with new frames to ask for; a pointer that stays
    on the bar fires no new enter event, and the next drag moved nothing until it left and came back."""
    lab.open(page_by_url("/mean"), query(src="Type numbers", typed="1, 2, 3, 4"))
    bar = lab.page.locator('.lab-bar-input[data-feature="2"]')
    bar.hover()
    expect(bar).to_have_attribute("data-frames", "ready")
    box = bar.bounding_box()
    assert box is not None
    lab.page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] * 0.3)
    lab.page.mouse.down()
    lab.page.mouse.up()  # a press sets the value under the pointer
    expect(lab.sidebar.locator("textarea")).not_to_have_value("1, 2, 3, 4")
    lab.wait_idle()
    expect(lab.page.locator('.lab-bar-input[data-feature="2"]')).to_have_attribute("data-frames", "ready")
    lab.assert_clean()


def test_a_page_switch_right_after_a_release_shows_the_new_vector(lab: Lab) -> None:
    """The browser's text box holds the old numbers until the release's run has drawn it; a page link
    clicked before that sent them, and the new page showed the old vector under the new text (7 of 7
    scripted switches). Each round releases a bar and clicks the next page's link while the release's
    run is going."""
    pages = ["/mean", "/standardize", "/variance", "/full_formula"]
    lab.open(page_by_url(pages[0]), query(src="Type numbers", typed="1, 2, 3, 4"))
    for n, url in enumerate(pages[1:]):
        bar = lab.page.locator('.lab-bar-input[data-feature="2"]')
        before = lab.sidebar.locator("textarea").input_value()
        box = bar.bounding_box()
        assert box is not None
        started = lab.runs_started()
        lab.page.mouse.click(
            box["x"] + box["width"] / 2, box["y"] + box["height"] * (0.2 + 0.6 * (n % 2))
        )  # a release
        # its run has started (a quick one may be over by the time a look at the app's state comes)
        lab.wait_run_since(started)
        lab.page.evaluate(
            "(url) => document.querySelector(`[data-testid=stSidebarNav] a[href$='${url}']`).click()", url
        )
        lab.wait_for(page_by_url(url))
        area = lab.sidebar.locator("textarea")
        expect(area).not_to_have_value(before)
        x2 = (area.input_value() or "").split(", ")[1]
        expect(lab.page.locator('.lab-bar-input[data-feature="2"]')).to_have_attribute(
            "aria-valuetext", f"x2 = {x2}"
        )
        lab.assert_clean()
