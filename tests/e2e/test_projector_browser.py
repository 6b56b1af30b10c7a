"""The projector view in Chromium, on the shared server: it follows the class by itself (an answer given
through the store is on the wall within its poll), marks the answer once revealed, shows two rounds,
hides the sidebar, cuts nothing and scrolls nothing sideways on a projector (1280×720) or a phone
(390×844), light and dark, and on a 1280×720 wall every quiz question fits whole: its text, its chart and
its summary, without scrolling.

The class is made through the store the server uses (the session's database, ``tests/e2e/conftest.py``),
as the teacher's and students' browsers would make it. Screenshots go to ``/tmp/shots_projector/``.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, ViewportSize, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from classroom.store import Store, open_engine
from e2e.support import WAIT_MS, Tabs, follow_system_theme
from e2e.test_accessibility import violations
from layernorm.labs.quiz import make_quiz
from layernorm.labs.quiz_kit import Question
from scripts.browser import IDLE
from ui.class_projector import PROJECTOR_POLL_S, board
from ui.class_quiz import about

SHOTS = Path("/tmp/shots_projector")
OPTIONS = ["Every entry grows by 5", "Nothing: it is unchanged", "It is multiplied by 5"]
PROMPT = "Every feature of a token gets +5 added. What happens to x − μ?"
NAMES = ("Zoë Quark", "Mx Ninefold", "Pim-O", "Ada L")
# An answer is on the wall within the poll, one run and the browser's redraw; the rest is room for a busy
# machine (this bounds the wait, it is not waited).
ON_THE_WALL_MS = int(PROJECTOR_POLL_S * 1000) + 3000
WALL: ViewportSize = {"width": 1280, "height": 720}
SIZES = ((1280, 720), (390, 844))
COUNTS = ".st-key-projector_chart .lab-answer-count"  # the texts beside the bars
MARK = ".st-key-projector_chart .lab-mark"  # "(the answer)"


@pytest.fixture
def store(server: str) -> Iterator[Store]:
    """The shared server's class store (``server`` first: its fixture names the database)."""
    engine = open_engine(os.environ["LAB_DATABASE_URL"])
    yield Store(engine)
    engine.dispose()


CUT_JS = """width => [...document.querySelectorAll(
    '.lab-answer-text, .lab-answer-count, [data-testid="stMain"] p, [data-testid="stText"]')]
  .map(e => [e.textContent, e.getBoundingClientRect().right])
  .filter(([, right]) => right > width + 0.5)"""


def _nothing_cut(page: Page, width: int) -> None:
    """Every text of the main area lies inside the window's width, and nothing scrolls sideways, once
    the page has been laid out again for it."""
    try:
        page.wait_for_function(
            f"width => ({CUT_JS})(width).length === 0 && document.documentElement.scrollWidth <= width",
            arg=width,
            timeout=10_000,
        )
    except PlaywrightTimeout:
        assert page.evaluate(CUT_JS, width) == [], f"cut at {width} px"
        assert page.evaluate("document.documentElement.scrollWidth") <= width, (
            f"scrolls sideways at {width} px"
        )


def _shots(page: Page, name: str) -> None:
    """Screenshots of the wall in both sizes and themes; each view passes axe-core (test_accessibility)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        for scheme in ("light", "dark"):
            follow_system_theme(page, scheme)
            _nothing_cut(page, width)
            page.screenshot(path=str(SHOTS / f"{name}-{width}x{height}-{scheme}.png"))
            assert violations(page) == [], (name, width, scheme)
    page.set_viewport_size(WALL)
    follow_system_theme(page, "light")


def _read(page: Page, part: str) -> str:
    """A part of the wall's text as the browser gives it to a reader (and to copy and Ctrl-F)."""
    return page.locator(f".st-key-projector_{part}").inner_text().strip()


def _on_the_wall(page: Page, text: str, times: int = 1) -> float:
    """Seconds until ``text`` is ``times`` of the bars' texts (the caller has just changed the store)."""
    since = time.monotonic()
    expect(page.locator(COUNTS).filter(has_text=text)).to_have_count(times, timeout=ON_THE_WALL_MS)
    return time.monotonic() - since


def test_the_projector_follows_the_class_and_cuts_nothing(tabs: Tabs, server: str, store: Store) -> None:
    started = store.start()
    seats = [store.join(started.code, name) for name in NAMES]
    page = tabs.new()
    page.set_viewport_size(WALL)
    page.goto(f"{server}/projector?class={started.code}")
    page.locator(IDLE).wait_for()
    expect(page.locator(".st-key-projector_code")).to_have_text(started.code)
    expect(page.locator(".st-key-projector_joined")).to_have_text("4 students joined")
    expect(page.locator(".st-key-projector_qr img")).to_be_visible()
    expect(page.locator('[data-testid="stSidebar"]')).to_be_hidden()  # no lab controls on the wall
    _shots(page, "1-join")

    # The teacher's screen describes the question and opens it: the wall shows it at its next poll
    store.describe(started.code, started.teacher_key, "mean_q", PROMPT, OPTIONS, 1)
    store.open_question(started.code, started.teacher_key, "mean_q")
    expect(page.locator(".st-key-projector_prompt")).to_be_visible(timeout=ON_THE_WALL_MS)
    assert _read(page, "prompt") == PROMPT
    waits = []
    steps = ((1, "1 · 100 %", 1), (0, "1 · 50 %", 2), (1, "2 · ≈ 67 %", 1))  # (choice, a bar's text, bars)
    for seat, (choice, seen, times) in zip(seats, steps, strict=False):
        store.answer(started.code, seat, "mean_q", choice, options=3)
        waits.append(_on_the_wall(page, seen, times))
    expect(page.locator(".st-key-projector_status")).to_have_text("Answers open · 3 of 4 students answered")
    expect(page.locator(MARK)).to_have_count(0)
    _shots(page, "2-question")

    store.reveal(started.code, started.teacher_key, "mean_q")
    since = time.monotonic()
    expect(page.locator(MARK)).to_have_count(1, timeout=ON_THE_WALL_MS)
    waits.append(time.monotonic() - since)
    store.vote_again(started.code, started.teacher_key, "mean_q")
    for seat in seats[:3]:
        store.answer(started.code, seat, "mean_q", 1, options=3)
    waits.append(_on_the_wall(page, "round 2: 3 · 100 %"))
    expect(page.locator(COUNTS).filter(has_text="round 1: 2 · ≈ 67 %")).to_have_count(1)
    expect(page.locator(".st-key-projector_summary")).to_have_text(  # drawn after the bars: waited for
        "3 of 4 students answered in round 2. All 3 answers are “Nothing: it is unchanged”. "
        "Round 1: 3 answers; most chose “Nothing: it is unchanged” (2, ≈ 67 %)."
    )
    store.reveal(started.code, started.teacher_key, "mean_q")
    expect(page.locator(MARK)).to_have_count(1, timeout=ON_THE_WALL_MS)
    expect(page.locator(".st-key-projector_summary")).to_contain_text(
        "The answer is “Nothing: it is unchanged”"
    )
    _shots(page, "3-revealed-two-rounds")

    # What the wall says is its characters only: a word joiner kept Ctrl-F from finding "F.batch_norm"
    assert "\u2060" not in page.locator('[data-testid="stMain"]').inner_text()
    shown = page.content()  # the whole document: nothing of who, nor the teacher's key
    for secret in (*NAMES, *seats, started.teacher_key):
        assert secret not in shown and secret not in page.url
    print(f"from the store to the wall: {', '.join(f'{w:.2f}' for w in waits)} s")


def _longest_versions(seeds: range) -> list[Question]:
    """Each quiz question in its longest version (its text and options) among the quizzes of ``seeds``."""
    longest: dict[str, Question] = {}
    for seed in seeds:
        for q in make_quiz(seed):
            size = len(about(q)) + sum(len(o) for o in q.options)
            if q.key not in longest or size > len(about(longest[q.key])) + sum(
                map(len, longest[q.key].options)
            ):
                longest[q.key] = q
    return list(longest.values())


# The wall shows this question whole once its prompt, its options and its summary are those of the
# store, and the summary ends inside the window (the chart is above it).
FITS_JS = """([prompt, options, summary]) => {
  const text = (s) => { const e = document.querySelector(s); return e ? e.innerText.trim() : null; };
  const labels = [...document.querySelectorAll('.lab-answer-text')].length;
  const end = document.querySelector('.st-key-projector_summary');
  return text('.st-key-projector_prompt') === prompt && labels === options
    && text('.st-key-projector_summary') === summary
    && end.getBoundingClientRect().bottom <= window.innerHeight && window.scrollY === 0;
}"""
WHERE_JS = """() => Object.fromEntries(['prompt', 'status', 'chart', 'summary'].map(
  (p) => [p, document.querySelector(`.st-key-projector_${p}`)?.getBoundingClientRect().bottom]))"""


def test_every_quiz_question_fits_a_1280x720_wall_after_two_rounds(
    tabs: Tabs, server: str, store: Store
) -> None:
    """Revealed after a second round, with two options tied in each: the tallest the wall gets (two bars
    an option, the longest summary). Walking it: about 1 s a question (the wall's poll)."""
    started = store.start()
    seats = [store.join(started.code) for _ in range(4)]
    page = tabs.new()
    page.set_viewport_size(WALL)
    page.goto(f"{server}/projector?class={started.code}")
    page.locator(IDLE).wait_for()
    expect(page.locator(".st-key-projector_code")).to_have_text(started.code)
    questions = _longest_versions(range(4))
    assert len(questions) == len(make_quiz(0))
    for q in questions:
        qid, n = f"quiz_{q.key}", len(q.options)
        tied = sorted(range(n), key=lambda i: -len(q.options[i]))[:2]  # the two longest: the longest quotes
        store.describe(started.code, started.teacher_key, qid, about(q), list(q.options), q.answer)
        store.open_question(started.code, started.teacher_key, qid)
        for round_no in (1, 2):
            if round_no == 2:
                store.vote_again(started.code, started.teacher_key, qid)
            for seat, choice in zip(seats, tied, strict=False):
                store.answer(started.code, seat, qid, choice, options=n)
        store.reveal(started.code, started.teacher_key, qid)
        result = store.question(started.code, qid)
        assert result is not None and result.round == 2
        said = board(result, len(seats)).summary
        try:
            page.wait_for_function(FITS_JS, arg=[about(q), n, said], timeout=WAIT_MS)
        except PlaywrightTimeout:
            SHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SHOTS / f"too-tall-{q.key}.png"))
            raise AssertionError(f"{q.key} does not fit 1280×720: {page.evaluate(WHERE_JS)}") from None
