"""The quiz, the class panel and the five step pages by keyboard alone: Tab reaches every control, the
focused one is visibly marked, Space and Enter act (WCAG 2.1.1, 2.4.7), each live slider and bar moves
by its arrow key and what its readouts then show is announced. The live sliders' other keys are
``tests/e2e/test_live_*.py``'s."""

from __future__ import annotations

import pytest
from playwright.sync_api import Locator, Page, expect

from e2e.support import AppPage, Lab, page_by_url
from e2e.test_live_drag import ANNOUNCED_JS
from layernorm.labs.quiz import BUILDERS

pytestmark = pytest.mark.browser

QUIZ, HOME = page_by_url("/quiz"), page_by_url("/")
TABS_AT_MOST = 200  # more Tab presses than any page has stops before what is sought

# The focused element, and whether a focus mark is drawn on it or on its nearest drawn box: an
# outline, or a box-shadow ring (Streamlit's buttons and radios draw one of the two).
FOCUS_JS = """() => {
  const e = document.activeElement;
  if (!e || e === document.body) return null;
  const marked = (el) => {
    const s = getComputedStyle(el);
    return (s.outlineStyle !== "none" && parseFloat(s.outlineWidth) > 0) || s.boxShadow !== "none";
  };
  let mark = false;
  for (let el = e, up = 0; el && up < 4 && !mark; el = el.parentElement, up++) mark = marked(el);
  const label = e.getAttribute("aria-label") ?? e.textContent.trim().slice(0, 60);
  return {tag: e.tagName, type: e.type ?? null, label, mark};
}"""


def tab_to(page: Page, target: Locator) -> list[dict[str, object]]:
    """Press Tab until ``target`` has the focus; every stop on the way, as :data:`FOCUS_JS` reads it."""
    stops = []
    for _ in range(TABS_AT_MOST):
        page.keyboard.press("Tab")
        stops.append(page.evaluate(FOCUS_JS))
        if target.evaluate("(e) => e === document.activeElement || e.contains(document.activeElement)"):
            return stops
    raise AssertionError(f"{TABS_AT_MOST} Tab presses never reached {target}: {stops[-5:]}")


def unmarked(stops: list[dict[str, object] | None]) -> list[dict[str, object]]:
    """The links, buttons and scrolling areas among ``stops`` drawn with no focus mark (an outline or
    a ring). A text field or a slider marks focus by its border or thumb's colour, which a computed
    style read alone cannot tell from its resting look: those are not judged here."""
    return [s for s in stops if s and s["tag"] in {"A", "BUTTON", "MAIN", "SUMMARY"} and not s["mark"]]


def test_a_quiz_question_is_answered_and_checked_by_keyboard_alone(lab: Lab) -> None:
    lab.open(QUIZ)
    box = lab.page.locator(".st-key-quiz_box_1")
    stops = tab_to(lab.page, box.locator("input[type=radio]").first)
    assert unmarked(stops) == []
    lab.page.keyboard.press("Space")  # the first option, chosen
    lab.wait_idle()
    expect(box.locator("input[type=radio]").first).to_be_checked()
    check = box.get_by_role("button", name="Check")
    tab_to(lab.page, check)
    lab.page.keyboard.press("Enter")
    expect(box.locator('[data-testid="stAlert"]')).to_have_count(1)  # right or not, and why
    expect(lab.metric("answered")).to_have_text(f"1 / {len(BUILDERS)}")
    lab.assert_clean()


def test_home_joins_and_starts_a_class_by_keyboard(lab: Lab) -> None:
    lab.open(HOME)
    code = lab.page.get_by_label("Class code")
    stops = tab_to(lab.page, code)
    assert unmarked(stops) == []
    lab.page.keyboard.type("ZZZZZZ")
    lab.page.keyboard.press("Tab")
    expect(lab.page.get_by_label("Nickname (optional)")).to_be_focused()
    lab.page.keyboard.type("Key")
    lab.page.keyboard.press("Enter")  # submits the form
    expect(lab.page.get_by_text("There is no class ZZZZZZ", exact=False)).to_be_visible()
    start = lab.page.get_by_role("button", name="Start a class (teacher)")
    try:
        tab_to(lab.page, start)
        lab.page.keyboard.press("Enter")
        expect(lab.page.get_by_role("button", name="End the class", exact=False).first).to_be_attached()
        lab.assert_clean()
    finally:
        # The teacher's key is now this browser's cookie, and a browser with one is in its class on
        # every page: the tests that use this browser next must not be the class's teacher.
        lab.page.context.clear_cookies()


STEP_PAGES = [page_by_url(u) for u in ("/mean", "/variance", "/standardize", "/scale_shift", "/full_formula")]

# The focused element if it is a live control (a live slider's thumb or a bar of a vector), named:
# a slider by its label, a bar by its chart's place among the page's charts and its feature.
LIVE_FOCUS_JS = """() => {
  const e = document.activeElement;
  if (!e || e.tagName !== "INPUT" || e.type !== "range") return null;
  if (e.classList.contains("lab-bar-input")) {
    const charts = [...document.querySelectorAll(".lab-bar-input[data-feature='1']")];
    const first = e.parentElement.querySelector(".lab-bar-input[data-feature='1']");
    return {kind: "bar", name: `chart ${charts.indexOf(first)} feature ${e.dataset.feature}`,
            value: e.getAttribute("aria-valuetext") ?? e.value};
  }
  const root = e.closest('[data-testid="labLive"]');
  if (!root) return null;
  return {kind: "slider", name: root.querySelector("label")?.textContent ?? "?",
          value: e.getAttribute("aria-valuetext") ?? e.value};
}"""

# What each readout on the page would say now (static/live/readout.js, spoken)
READOUTS_SAY_JS = """() => [...document.querySelectorAll('[data-testid="labLiveMetrics"]')].map((box) =>
  [...box.querySelectorAll('[data-testid="stMetric"]')].map((m) =>
    m.querySelector('[data-testid="stMetricLabel"]').textContent + " " +
    m.querySelector('[data-testid="stMetricValue"]').textContent).join(", ")).filter((t) => t)"""


# Every live control a student can reach on the page, named as LIVE_FOCUS_JS names them
LIVE_CONTROLS_JS = """() => {
  const seen = (e) => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== "hidden";
  const sliders = [...document.querySelectorAll('[data-testid="labLive"]')]
    .filter((root) => [...root.querySelectorAll('input[type="range"]')].some(seen))
    .map((root) => root.querySelector("label")?.textContent ?? "?");
  const bars = [...document.querySelectorAll(".lab-bar-input[data-feature='1']")].filter(seen)
    .map((_, n) => `chart ${n} feature 1`);
  return [...sliders, ...bars];
}"""


@pytest.mark.parametrize("app_page", STEP_PAGES, ids=[p.url for p in STEP_PAGES])
def test_the_step_pages_live_controls_move_by_keyboard_and_are_announced(lab: Lab, app_page: AppPage) -> None:
    """Tab through the page; each live slider met, and the first bar of each vector, moves one step by
    the arrow key: its value text moves, focus stays on it, and when the readouts' numbers change they
    are announced in the polite status region as the readouts then show them."""
    lab.open(app_page)
    lab.page.evaluate(ANNOUNCED_JS)
    expected = set(lab.page.evaluate(LIVE_CONTROLS_JS))
    assert len(expected) >= 4, expected  # the sidebar's ε, γ, β and the page's own
    focused = lab.page.locator("input:focus")
    moved: dict[str, str | None] = {}
    for _ in range(TABS_AT_MOST * 2):
        if set(moved) >= expected:
            break
        lab.page.keyboard.press("Tab")
        got = lab.page.evaluate(LIVE_FOCUS_JS)
        if got is None or got["name"] in moved or got["name"] not in expected:
            continue
        before = lab.page.evaluate(READOUTS_SAY_JS)
        said_before = len(lab.page.evaluate("() => window.__said"))
        lab.page.keyboard.press("ArrowRight")
        expect(focused).not_to_have_attribute("aria-valuetext", got["value"])  # focus stays, and moved
        lab.wait_idle()
        assert lab.page.evaluate(LIVE_FOCUS_JS)["name"] == got["name"]
        after = lab.page.evaluate(READOUTS_SAY_JS)
        if after == before:
            moved[got["name"]] = None  # no readout on this page reads this control
            continue
        # said once the readouts changed, at most a second later, with the numbers they show
        lab.page.wait_for_function(
            """([n, now]) => {
              const said = window.__said.slice(n).filter((s) => s.text);
              return said.length > 0 && said.at(-1).text.split(". ").every((part) => now.includes(part));
            }""",
            arg=[said_before, after],
        )
        moved[got["name"]] = lab.page.evaluate("() => window.__said.at(-1).text")
    assert set(moved) == expected
    assert any(moved.values()), moved  # each page's own readouts follow its controls
    lab.assert_clean()
