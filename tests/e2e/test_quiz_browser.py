"""The quiz in Chromium: each question is a fragment of its own (``pages/16_quiz.py``).

Choosing an answer reruns that question's box alone; Check reruns the box, the score above the
questions and the closing line below them (``ui.fragments.rerun_fragments``). A class takes the quiz at
once, and a full rerun sent every box on every click. These tests play it as a student
does and check that the score, each box and the closing line always agree.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Locator, expect

from e2e.support import Lab, page_by_url
from layernorm.labs.quiz import BUILDERS

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
