"""The quiz in Chromium: each question is a fragment of its own (``pages/16_quiz.py``).

Choosing an answer reruns that question's box alone; Check reruns the box, the score above the
questions and the closing line below them (``ui.fragments.rerun_fragments``). A class takes the quiz at
once, and a full rerun sent every box on every click. These tests play it as a student
does and check that the score, each box and the closing line always agree.

The last test runs it as a class: a teacher leads it question by question, a student on a phone follows.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Locator, Page, Playwright, expect

from e2e.support import WAIT_MS, Lab, page_by_url
from layernorm.labs.quiz import BUILDERS
from scripts.browser import CHROMIUM, CHROMIUM_ARGS, IDLE

QUESTIONS = len(BUILDERS)  # one per confusion

pytestmark = pytest.mark.browser

QUIZ = page_by_url("/quiz")


def _box(lab: Lab, n: int) -> Locator:
    return lab.page.locator(f".st-key-quiz_box_{n}")


def _answer(lab: Lab, n: int, option: int) -> None:
    box = _box(lab, n)
    box.locator('label:has(input[type="radio"])').nth(option).click()
    lab.wait_idle()
    box.get_by_role("button", name="Check").click()
    expect(box.locator('[data-testid="stAlert"]')).to_have_count(1)  # right or not: it says why
    lab.wait_idle()


def test_checking_answers_updates_the_score_and_the_closing_line(lab: Lab) -> None:
    lab.open(QUIZ)
    total = lab.page.locator('[class*="st-key-quiz_box_"]').count()
    assert total == QUESTIONS
    for n in range(1, total + 1):
        _answer(lab, n, (n - 1) % 2)  # some right, some wrong
        right = lab.page.locator('[data-testid="stAlertContentSuccess"]').count()
        expect(lab.metric("answered")).to_have_text(f"{n} / {total}")
        expect(lab.metric("score")).to_have_text(f"{right} / {total}")
        closing = lab.page.get_by_text(re.compile(rf"^You got \d+ of {QUESTIONS}\."))
        if n < total:
            expect(closing).to_have_count(0)
    # Every box says right or not, and the score counts the right ones. (Which answers are right depends
    # on the session's random quiz: a fixed choice of options can be all wrong, so no count is asserted.)
    wrong = lab.page.locator('[data-testid="stAlertContentError"]').count()
    assert right + wrong == total
    expect(lab.page.get_by_text(f"You got {right} of {total}.", exact=False)).to_have_count(1)
    lab.assert_clean()


def test_choosing_an_answer_keeps_the_other_boxes_and_try_again_starts_over(lab: Lab) -> None:
    lab.open(QUIZ)
    _answer(lab, 1, 0)
    first_prompt = _box(lab, 2).inner_text()
    _box(lab, 2).locator('label:has(input[type="radio"])').nth(1).click()  # chosen, not checked
    lab.wait_idle()
    expect(_box(lab, 1).locator('[data-testid="stAlert"]')).to_have_count(1)  # box 1 still checked
    expect(lab.metric("answered")).to_have_text(f"1 / {QUESTIONS}")
    assert _box(lab, 2).locator("input[type=radio]").nth(1).is_checked()
    lab.page.get_by_role("button", name="Try again with new numbers").click()
    expect(lab.metric("answered")).to_have_text(f"0 / {QUESTIONS}")
    lab.wait_idle()
    expect(lab.page.locator('[data-testid="stMain"] [data-testid="stAlert"]')).to_have_count(0)
    assert _box(lab, 2).inner_text() != first_prompt  # new numbers, a new order
    lab.assert_clean()


# --- the quiz as a class activity (ui/class_quiz.py) ---------------------------------------------------

PANEL = ".st-key-class_panel"
BOXES = '[class*="st-key-quiz_box_"]'


@pytest.fixture
def chromium(playwright_driver: Playwright) -> Iterator[Browser]:
    """A Chromium of this test's own, for separate contexts (no shared cookies)."""
    browser = playwright_driver.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    yield browser
    browser.close()


def _page(chromium: Browser, **context: object) -> Page:
    page = chromium.new_context(**context).new_page()  # type: ignore[arg-type]
    page.set_default_timeout(WAIT_MS)
    return page


def _narrow(page: Page) -> bool:
    return bool(page.evaluate("document.documentElement.scrollWidth <= innerWidth"))


def test_a_teacher_runs_the_quiz_question_by_question_for_a_student_on_a_phone(
    chromium: Browser, server: str
) -> None:
    """Each step reaches the student's page by itself (the class's beacon); the student answers by keyboard
    on a phone, sees only the run's question, then their score and the room's summary."""
    teacher = _page(chromium, viewport={"width": 1280, "height": 720})
    teacher.goto(server + "/")
    teacher.locator(IDLE).wait_for()
    teacher.get_by_role("button", name="Start a class (teacher)").click()
    expect(teacher.locator(PANEL)).to_contain_text("you lead it")
    teacher.wait_for_function("document.cookie.includes('lab_teacher=')")  # its next load is the teacher's
    found = re.search(r"Class ([A-Z2-9]{6})", teacher.locator(PANEL).inner_text())
    assert found
    code = found.group(1)
    phone = _page(chromium, viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    phone.goto(f"{server}/?class={code}")
    phone.get_by_role("button", name="Join the class").tap()
    phone.wait_for_function("document.cookie.includes('lab_seat=')")
    phone.goto(f"{server}/quiz?class={code}")
    phone.locator(IDLE).wait_for()
    expect(phone.locator(BOXES)).to_have_count(QUESTIONS)  # no run: the whole quiz
    teacher.goto(f"{server}/quiz?class={code}")
    teacher.locator(IDLE).wait_for()
    teacher.get_by_role("button", name="Run the quiz with the class").click()

    expect(phone.get_by_text(f"Question 1 of {QUESTIONS}")).to_be_visible()
    expect(phone.locator(BOXES)).to_have_count(1)
    box = phone.locator(".st-key-quiz_box_1")
    box.locator('input[type="radio"]').first.focus()
    phone.keyboard.press("Space")
    expect(box.locator('input[type="radio"]').first).to_be_checked()
    phone.keyboard.press("Tab")
    expect(box.get_by_role("button", name="Check")).to_be_focused()
    phone.keyboard.press("Enter")
    expect(box.get_by_text("Your answer is in")).to_be_visible()
    expect(teacher.get_by_text("1 answer from the class")).to_be_visible()  # the teacher's box, live
    assert _narrow(phone)

    teacher.get_by_role("button", name="Next question").focus()
    teacher.keyboard.press("Enter")
    expect(phone.get_by_text(f"Question 2 of {QUESTIONS}")).to_be_visible()
    expect(phone.locator(BOXES)).to_have_count(1)
    expect(phone.locator(".st-key-quiz_box_2")).to_be_visible()

    teacher.get_by_role("button", name="Show the summary").click()
    expect(phone.get_by_text(re.compile(r"^Your score: [01] of 2$"))).to_be_visible()
    expect(
        phone.get_by_text(re.compile(r"^Mean score: [01] of 2, over the 1 student who answered"))
    ).to_be_visible()
    expect(phone.locator(BOXES)).to_have_count(0)
    phone.locator(IDLE).wait_for()
    assert _narrow(phone)
    expect(teacher.get_by_text("The quiz with the class: summary")).to_be_visible()

    teacher.get_by_role("button", name="End the run").click()
    expect(phone.locator(BOXES)).to_have_count(QUESTIONS)  # the whole quiz again
