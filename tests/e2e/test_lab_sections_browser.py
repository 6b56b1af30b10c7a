"""In Chromium, a sidebar move that reruns only the page's lab sections shows what a fresh tab shows.

The sidebar's ε, γ, β, d and seed rerun only a page's lab sections (``ui.state.lab_section``); the
browser keeps the page's other elements from the last full run. After each move the page must read
exactly as a fresh tab opened at the same address: the main area's text (but the charts'), the
sidebar's text and every chart's figure (``tests/test_lab_sections.py`` checks the same element by
element in AppTest). An element a section drew before and does not draw now must go (γ = 0 on
Invariances adds a note that γ ≠ 0 removes).

A fresh tab is one that opens the address anew: a new Streamlit session that knows only the URL (a
tab the ``tabs`` fixture lends, on about:blank until then).
"""

from __future__ import annotations

import re
import urllib.parse

import pytest
from playwright.sync_api import Locator, Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from e2e.support import (
    FORMULA_WAITING,
    VECTOR_PAGES,
    YS_RMS,
    YS_RMS_ONE_SITE,
    AppPage,
    Lab,
    Tabs,
    page_by_url,
    page_drawn,
)
from scripts.browser import IDLE

# Each chart's last drawn figure text, by its key (as in test_in_place_charts.py)
DRAWN_SPECS = """() => Object.fromEntries([...document.querySelectorAll('.lab-chart')].map((plot) => [
  [...plot.closest('[class*="st-key-"]').classList].find((c) => c.startsWith('st-key-')),
  plot.labSpec ?? null]))"""
MAIN = '[data-testid="stMain"]'
# The main area's text but the charts' (compared by their figures): a chart redrawn in place may hold
# the same texts in another order in its SVG (a legend that gains an entry is drawn after the title).
MAIN_TEXT = f"""() => [...document.querySelectorAll('{MAIN} [data-testid="stElementContainer"]')]
  .filter((e) => !e.querySelector('.lab-chart')).map((e) => e.innerText).join('\\n')"""
SIDEBAR = '[data-testid="stSidebar"]'
# (label of the sidebar slider, key to press): each moves one step
PRESSES = [("ε (inside the square root)", "ArrowRight"), ("Size d", "ArrowRight"), ("γ (scale", "ArrowLeft")]
# Each page (but Home, whose one section reads nothing a move changes) gets two of the three moves,
# in turn, so every move is tried on most pages; tests/test_lab_sections.py tries every move on
# every page in AppTest, element by element.
PAGE_MOVES = [(p.url, [PRESSES[i % 3], PRESSES[(i + 1) % 3]]) for i, p in enumerate(VECTOR_PAGES)]


def _settled(tab: Page) -> tuple[str, str, dict[str, str]]:
    """(main text, sidebar text, chart figures) once the run is over and every chart is drawn."""
    tab.locator(IDLE).wait_for()
    tab.evaluate("() => { if (globalThis.labOffscreen) globalThis.labOffscreen.quietMs = 0; }")
    # An element whose code a tab has not loaded yet (st.table's, in a fresh tab) shows Streamlit's
    # skeleton until it has, up to 2 s after the run ended: a fresh tab read then missed the table.
    tab.wait_for_function(
        f"() => Object.values(({DRAWN_SPECS})()).every((s) => s !== null)"
        " && !(globalThis.labOffscreen && globalThis.labOffscreen.waiting() > 0)"
        " && !document.querySelector('[data-testid=\"stSkeleton\"]')"
        f" && !document.querySelector('{FORMULA_WAITING}')"
    )
    return tab.evaluate(MAIN_TEXT), tab.locator(SIDEBAR).inner_text(), tab.evaluate(DRAWN_SPECS)


def _fresh(tabs: Tabs, url: str, app_page: AppPage) -> tuple[str, str, dict[str, str]]:
    with tabs.one() as tab:
        tab.goto(url)
        page_drawn(tab, app_page)
        return _settled(tab)


def _press(lab: Lab, label_start: str, key: str) -> Locator:
    thumb = lab.slider(label_start, in_sidebar=True)
    before = thumb.get_attribute("aria-valuetext")
    thumb.focus()
    # Focus may ask for the slider's frames (static/live/slider.js, `want`): the press waits for the answer.
    expect(lab.page.locator('[data-frames="asked"]')).to_have_count(0)
    lab.wait_idle()
    thumb.press(key)
    expect(thumb).not_to_have_attribute("aria-valuetext", before or "")
    return thumb


SAME_AS = f"""(want) => {{
  const specs = ({DRAWN_SPECS})();
  return ({MAIN_TEXT})() === want[0]
    && document.querySelector('{SIDEBAR}').innerText === want[1]
    && JSON.stringify(specs) === JSON.stringify(want[2]);
}}"""


def _now_and_fresh(
    lab: Lab, tabs: Tabs, app_page: AppPage
) -> tuple[tuple[str, str, dict[str, str]], tuple[str, str, dict[str, str]]]:
    """(this tab, a fresh tab at its address), each settled; this tab gets up to 10 s to catch up."""
    fresh = _fresh(tabs, lab.page.url, app_page)  # the address already holds the new value
    try:  # the move's run may not have begun yet: wait (10 s at most) for the page to catch up
        lab.page.wait_for_function(SAME_AS, arg=list(fresh), timeout=10_000)
    except PlaywrightTimeout:
        pass
    return _settled(lab.page), fresh


@pytest.mark.parametrize(("url", "presses"), PAGE_MOVES, ids=[url for url, _ in PAGE_MOVES])
def test_each_sidebar_move_leaves_the_page_as_a_fresh_tab_shows_it(
    lab: Lab, tabs: Tabs, url: str, presses: list[tuple[str, str]]
) -> None:
    app_page = page_by_url(url)
    lab.open(app_page)
    lab.page.evaluate("() => { if (globalThis.labOffscreen) globalThis.labOffscreen.quietMs = 0; }")
    for label, key in presses:
        _press(lab, label, key)
        now, fresh = _now_and_fresh(lab, tabs, app_page)
        assert now[0] == fresh[0], f"{url} after {label}: the main area differs from a fresh tab"
        assert now[1] == fresh[1], f"{url} after {label}: the sidebar differs from a fresh tab"
        assert now[2] == fresh[2], f"{url} after {label}: a chart differs from a fresh tab"
    lab.assert_clean()


def test_a_note_a_section_no_longer_draws_goes(lab: Lab) -> None:
    lab.open(page_by_url("/invariances"), "?gamma=0.05")
    note = lab.page.locator(MAIN).get_by_text("Your γ is 0")
    expect(note).to_have_count(0)
    _press(lab, "γ (scale", "ArrowLeft")  # γ = 0: the section says what that does
    expect(note).to_have_count(1)
    _press(lab, "γ (scale", "ArrowRight")
    lab.wait_idle()
    expect(note).to_have_count(0)
    expect(lab.page.locator("h1").first).to_contain_text("Invariances")  # the rest of the page stays
    lab.assert_clean()


# Sections nested in or beside a page's fragment (Depth and drift's inspect section, Your sentence's
# change section): their own controls rerun them alone, and the page must still read as a fresh tab.
@pytest.mark.parametrize(
    ("url", "query", "label"),
    [
        ("/depth_and_drift", "", "Inspect layer"),
        ("/invariances", "", "β₂"),
        ("/gradients", "", "Show the arithmetic for feature i"),
        ("/invariances", "?geo_d=2", "γ₁"),
        ("/your_sentence", "?" + YS_RMS_ONE_SITE, "Which site"),
        ("/your_sentence", "?" + YS_RMS, "ε at the changed sites"),
    ],
    ids=["depth-pick", "geo-beta2", "grad-feature", "geo-2d-gamma1", "ys-one-site", "ys-eps"],
)
def test_a_sections_own_control_leaves_the_page_as_a_fresh_tab_shows_it(
    lab: Lab, tabs: Tabs, url: str, query: str, label: str
) -> None:
    app_page = page_by_url(url)
    lab.open(app_page, query)
    lab.page.evaluate("() => { if (globalThis.labOffscreen) globalThis.labOffscreen.quietMs = 0; }")
    number = lab.page.locator('[data-testid="stMain"] [data-testid="stNumberInput"]').filter(has_text=label)
    for key in ("ArrowRight", "ArrowLeft"):  # a move, and back
        if number.count():  # a number input: its + and − buttons
            field = number.locator("input")
            before = field.input_value()
            step = "stNumberInputStepUp" if key == "ArrowRight" else "stNumberInputStepDown"
            number.locator(f'[data-testid="{step}"]').click()
            expect(field).not_to_have_value(before)
        else:
            thumb = lab.slider(label)
            before = thumb.get_attribute("aria-valuetext") or ""
            thumb.focus()
            thumb.press(key)
            expect(thumb).not_to_have_attribute("aria-valuetext", before)
        lab.wait_idle()
        now, fresh = _now_and_fresh(lab, tabs, app_page)
        assert now[0] == fresh[0], f"{url} after {label} {key}: the main area differs from a fresh tab"
        assert now[2] == fresh[2], f"{url} after {label} {key}: a chart differs from a fresh tab"
    lab.assert_clean()


def test_the_geometrys_sliders_reach_the_address_after_d_changes(lab: Lab) -> None:
    """Browser QA: after the geometry's d radio changed, β₁'s moves often never reached the address
    (2 of 4 sessions): the slider had changed column (the fourth of 2·d in 3-D, the third in 2-D), so
    the browser mounted it anew, and a fresh tab or a reload showed another picture. Each slider now
    keeps its column whatever d is. Several rounds, since the fault came and went."""
    lab.open(page_by_url("/invariances"))
    radio = lab.page.locator('[data-testid="stMain"] [data-testid="stRadio"]').filter(has_text="Dimension d")
    for round_, (d, press) in enumerate([("2", "ArrowLeft"), ("3", "ArrowRight"), ("2", "ArrowRight")]):
        radio.get_by_text(d, exact=True).click()
        expect(lab.page).to_have_url(re.compile(rf"geo_d={d}" if d == "2" else r"^(?!.*geo_d=2)"))
        lab.wait_idle()
        for label in ("β₁", "β₂"):
            thumb = lab.slider(label)
            for _ in range(2):
                before = thumb.get_attribute("aria-valuetext") or ""
                thumb.focus()
                thumb.press(press)
                expect(thumb).not_to_have_attribute("aria-valuetext", before)
                lab.wait_idle()
            key = "geo_beta1" if label == "β₁" else "geo_beta2"
            shown = float(thumb.get_attribute("aria-valuetext") or "nan")
            carried = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(lab.page.url).query)).get(key)
            value = 0.0 if carried is None else float(carried)
            assert value == shown, f"round {round_}, d = {d}: {label} shows {shown}, the address {carried}"
    lab.assert_clean()
