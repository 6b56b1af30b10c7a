"""The quiz and the class panel by keyboard alone: Tab reaches every control, the focused one is
visibly marked, Space and Enter act (WCAG 2.1.1, 2.4.7). The live sliders' keys are
``tests/e2e/test_live_*.py``'s."""

from __future__ import annotations

import pytest
from playwright.sync_api import Locator, Page, expect

from e2e.support import Lab, page_by_url

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
    expect(lab.metric("answered")).to_have_text("1 / 31")
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
