"""Every page passes axe-core's WCAG 2.0, 2.1 and 2.2 A and AA rules, light and dark, on a desktop
window and on a phone, and every chart on it has a name, a summary and a table (ui/chart_text.py);
on a phone, metric values are at least 16 px and charts' titles are whole and uncovered.

axe-core is the npm package (``package.json``), injected into the page as the tests' own script; it
checks the page as the browser drew it, Streamlit's markup and the lab's alike. What the lab mends
in Streamlit's markup (the pages' menu, sideways-scrolling regions, the captions' contrast) is
``ui/a11y.py``; no violation is excused.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from e2e.support import PAGES, WAIT_MS, AppPage, Lab, follow_system_theme
from ui.tour_stops import STOPS

AXE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]  # WCAG 2.2 AA, as schools ask
DESKTOP, PHONE = {"width": 1280, "height": 720}, {"width": 390, "height": 844}

RUN_AXE = """(tags) => axe.run(document, {runOnly: {type: "tag", values: tags}}).then((r) =>
  r.violations.map((v) => ({rule: v.id, help: v.help, nodes: v.nodes.slice(0, 3).map((n) =>
    n.target.join(" ") + " :: " + n.failureSummary.replace(/\\s+/g, " "))})))"""


def _settled(page: Page) -> None:
    """Two animation frames: what the lab mends after a layout change (ui/a11y.js) is done."""
    page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")


def violations(page: Page) -> list[dict[str, Any]]:
    """axe-core's violations of :data:`TAGS` on the page as it is drawn now."""
    if not AXE.exists():
        pytest.fail(f"{AXE} is missing: run `npm ci` (make test does)")
    if not page.evaluate("() => typeof axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    _settled(page)
    return list(page.evaluate(RUN_AXE, TAGS))


# Each chart's accessible name and description as the accessibility tree gets them (ui/chart_text.py)
CHART_WORDS = """() => [...document.querySelectorAll('[data-testid="labChart"]')].map((c) => ({
  role: c.getAttribute("role"), name: c.getAttribute("aria-label"),
  summary: document.getElementById(c.getAttribute("aria-describedby") || "")?.textContent ?? null,
  table: c.parentElement.querySelectorAll(".lab-chart-words tbody tr").length}))"""


def axe_everywhere(lab: Lab, also: Callable[[str, dict[str, int]], None] = lambda name, size: None) -> None:
    """axe on the page as drawn, light and dark, at both sizes (``also`` checks more in each view)."""
    found = {}
    for scheme in ("light", "dark"):
        follow_system_theme(lab.page, scheme)
        lab.wait_idle()
        for name, size in (("desktop", DESKTOP), ("phone", PHONE)):
            lab.page.set_viewport_size(size)
            found[f"{scheme}, {name}"] = violations(lab.page)
            also(name, size)
    lab.page.set_viewport_size(DESKTOP)
    assert not any(found.values()), {k: v for k, v in found.items() if v}


# The metric values drawn smaller than 16 px (a visible one): five live metrics in one row shrank each
# value to 9 px on a phone before a live readout put at most two in a row there (ui/live/live.css).
SMALL_VALUES = """() => [...document.querySelectorAll('[data-testid="stMetricValue"]')]
  .filter((v) => v.offsetParent !== null && parseFloat(getComputedStyle(v).fontSize) < 16)
  .map((v) => v.innerText + " at " + getComputedStyle(v).fontSize)"""


# On a phone, each drawn chart's title lies within the chart, no legend covers it and Plotly's toolbar
# (always shown on a touch screen) is not drawn over it (ui/plot.js): the titles' ends were cut and
# the toolbar covered them on every page.
CHART_FAULTS = """() => [...document.querySelectorAll('.lab-chart')].filter((p) => p._fullLayout)
  .flatMap((p) => {
  const r = p.getBoundingClientRect(), t = p.querySelector('.gtitle')?.getBoundingClientRect();
  const l = p.querySelector('.legend')?.getBoundingClientRect(), name = p.getAttribute('aria-label');
  const faults = [];
  if (p.querySelector('.modebar')) faults.push(name + ': toolbar');
  if (t && t.width && (t.right > r.right + 1 || t.left < r.left - 1 || t.top < r.top - 1))
    faults.push(name + ': title outside the chart');
  if (t && t.width && l && l.height && l.top < t.bottom && l.bottom > t.top
      && l.left < t.right && l.right > t.left)
    faults.push(name + ': legend over the title');
  return faults;
})"""


def _values_readable(lab: Lab) -> Callable[[str, dict[str, int]], None]:
    def check(name: str, size: dict[str, int]) -> None:
        _settled(lab.page)
        assert lab.page.evaluate(SMALL_VALUES) == [], name
        if name == "phone":  # the charts are drawn again for the new width: a moment to do it
            with contextlib.suppress(PlaywrightTimeout):
                lab.page.wait_for_function(f"({CHART_FAULTS})().length === 0", timeout=WAIT_MS)
            assert lab.page.evaluate(CHART_FAULTS) == []

    return check


@pytest.mark.parametrize("app_page", PAGES, ids=[p.url for p in PAGES])
def test_every_page_passes_axe_in_both_themes_and_sizes(lab: Lab, app_page: AppPage) -> None:
    lab.open(app_page)
    axe_everywhere(lab, _values_readable(lab))
    charts = lab.page.evaluate(CHART_WORDS)
    for chart in charts:  # every chart can be read without seeing it
        assert chart["role"] == "figure" and chart["name"] and chart["summary"], chart
        assert chart["table"] or chart["summary"].startswith("A diagram: "), chart
        # as the accessibility tree gives it to a screen reader: a figure of that name, described
        figure = lab.page.get_by_role("figure", name=chart["name"], exact=True).first
        expect(figure).to_have_accessible_description(chart["summary"])
    lab.assert_clean()


def test_reduced_motion_turns_off_the_labs_fade(lab: Lab) -> None:
    lab.open(next(p for p in PAGES if p.url == "/precision"))  # it has parts a drag's frames do not hold
    rest = lab.page.locator('[class*="st-key-live_rest_"]').first
    lab.page.evaluate("() => document.documentElement.classList.add('lab-live-dragging')")  # as a drag does
    assert rest.evaluate("(e) => getComputedStyle(e).transitionDuration") == "0.15s"
    lab.page.emulate_media(reduced_motion="reduce")
    assert rest.evaluate("(e) => getComputedStyle(e).transitionDuration") == "0s"
    lab.page.evaluate("() => document.documentElement.classList.remove('lab-live-dragging')")


@pytest.mark.parametrize("n", [1, 2, 10])  # Home, a live control outlined on Mean, a radio on Which axis
def test_the_tours_card_and_outline_pass_axe_in_both_themes_and_sizes(lab: Lab, n: int) -> None:
    stop = STOPS[n - 1]
    lab.open(next(p for p in PAGES if p.url == "/" + stop.page), f"?tour={n}")
    expect(lab.page.locator(".st-key-tour_card h3")).to_have_text(stop.title)

    def fits(name: str, size: dict[str, int]) -> None:
        right = lab.page.locator(".st-key-tour_card").evaluate("(e) => e.getBoundingClientRect().right")
        assert right <= size["width"], (name, right)  # the card fits the screen

    axe_everywhere(lab, fits)
    lab.assert_clean()
