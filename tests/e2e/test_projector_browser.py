"""The projector view in Chromium, on the shared server: it follows the class by itself (an answer given
through the store is on the wall within its poll), marks the answer once revealed, shows two rounds,
hides the sidebar, and cuts nothing on a projector (1280×720) or a phone (390×844), light and dark.

The class is made through the store the server uses (the session's database, ``tests/e2e/conftest.py``),
as the teacher's and students' browsers would make it. Screenshots go to ``/tmp/projector-shots/``.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from classroom.store import Store, open_engine
from e2e.support import CHART, RENDERED_CHART, Tabs, follow_system_theme
from scripts.browser import IDLE
from ui.class_projector import PROJECTOR_POLL_S

SHOTS = Path("/tmp/projector-shots")
OPTIONS = ["Every entry grows by 5", "Nothing: it is unchanged", "It is multiplied by 5"]
PROMPT = "Every feature of a token gets +5 added. What happens to x − μ?"
NAMES = ("Zoë Quark", "Mx Ninefold", "Pim-O", "Ada L")
# An answer is on the wall within the poll, one run and Plotly's redraw; the rest is room for a busy
# machine (this bounds the wait, it is not waited).
ON_THE_WALL_MS = int(PROJECTOR_POLL_S * 1000) + 3000
SIZES = ((1280, 720), (390, 844))
NOTE = f"{CHART} .annotation-text"


@pytest.fixture
def store(server: str) -> Iterator[Store]:
    """The shared server's class store (``server`` first: its fixture names the database)."""
    engine = open_engine(os.environ["LAB_DATABASE_URL"])
    yield Store(engine)
    engine.dispose()


CUT_JS = """width => [...document.querySelectorAll(
    '[data-testid="labChart"] .annotation-text, [data-testid="stMain"] p, [data-testid="stText"]')]
  .map(e => [e.textContent, e.getBoundingClientRect().right])
  .filter(([, right]) => right > width + 0.5)"""


def _nothing_cut(page: Page, width: int) -> None:
    """Every chart text and the main area's texts lie inside the window's width, once the charts have
    been laid out again for it (Plotly redraws a chart for a new width after the window's resize)."""
    try:
        page.wait_for_function(f"width => ({CUT_JS})(width).length === 0", arg=width, timeout=10_000)
    except PlaywrightTimeout:
        assert page.evaluate(CUT_JS, width) == [], f"cut at {width} px"


def _shots(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        for scheme in ("light", "dark"):
            follow_system_theme(page, scheme)
            _nothing_cut(page, width)
            page.screenshot(path=str(SHOTS / f"{name}-{width}x{height}-{scheme}.png"))
    page.set_viewport_size({"width": 1280, "height": 720})
    follow_system_theme(page, "light")


def _read(page: Page, part: str) -> str:
    """A part of the wall's text as a person reads it (without the word joiners that keep it plain)."""
    return page.locator(f".st-key-projector_{part}").inner_text().replace("\u2060", "").strip()


def _on_the_wall(page: Page, text: str, times: int = 1) -> float:
    """Seconds until ``text`` is ``times`` of the chart's texts (the caller has just changed the store)."""
    since = time.monotonic()
    expect(page.locator(NOTE).filter(has_text=text)).to_have_count(times, timeout=ON_THE_WALL_MS)
    return time.monotonic() - since


def test_the_projector_follows_the_class_and_cuts_nothing(tabs: Tabs, server: str, store: Store) -> None:
    started = store.start()
    seats = [store.join(started.code, name) for name in NAMES]
    page = tabs.new()
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(f"{server}/projector?class={started.code}")
    page.locator(IDLE).wait_for()
    expect(page.locator(".st-key-projector_code")).to_have_text(started.code)
    expect(page.locator(".st-key-projector_joined")).to_have_text("4 students joined")
    expect(page.locator(".st-key-projector_qr img")).to_be_visible()
    expect(page.locator('[data-testid="stSidebar"]')).to_be_hidden()  # no lab controls on the wall
    _shots(page, "join")

    # The teacher's screen describes the question and opens it: the wall shows it at its next poll
    store.describe(started.code, started.teacher_key, "mean_q", PROMPT, OPTIONS, 1)
    store.open_question(started.code, started.teacher_key, "mean_q")
    expect(page.locator(".st-key-projector_prompt")).to_be_visible(timeout=ON_THE_WALL_MS)
    assert _read(page, "prompt") == PROMPT
    page.locator(RENDERED_CHART).first.wait_for()
    waits = []
    steps = ((1, "1 · 100 %", 1), (0, "1 · 50 %", 2), (1, "2 · ≈ 67 %", 1))  # (choice, a bar's text, bars)
    for seat, (choice, seen, times) in zip(seats, steps, strict=False):
        store.answer(started.code, seat, "mean_q", choice, options=3)
        waits.append(_on_the_wall(page, seen, times))
    expect(page.locator(".st-key-projector_status")).to_have_text("Answers open · 3 of 4 students answered")
    expect(page.locator(NOTE).filter(has_text="✓")).to_have_count(0)

    store.reveal(started.code, started.teacher_key, "mean_q")
    waits.append(_on_the_wall(page, "(the answer)"))
    store.vote_again(started.code, started.teacher_key, "mean_q")
    for seat in seats[:3]:
        store.answer(started.code, seat, "mean_q", 1, options=3)
    waits.append(_on_the_wall(page, "round 2: 3 · 100 %"))
    expect(page.locator(NOTE).filter(has_text="round 1: 2 · ≈ 67 %")).to_have_count(1)
    assert _read(page, "summary") == (
        "3 of 4 students answered in round 2. All 3 answers are “Nothing: it is unchanged”. "
        "Round 1: 3 answers; most chose “Nothing: it is unchanged” (2, ≈ 67 %)."
    )
    store.reveal(started.code, started.teacher_key, "mean_q")
    waits.append(_on_the_wall(page, "(the answer)"))
    _shots(page, "round-2-revealed")

    shown = page.content()  # the whole document: nothing of who, nor the teacher's key
    for secret in (*NAMES, *seats, started.teacher_key):
        assert secret not in shown and secret not in page.url
    print(f"from the store to the wall: {', '.join(f'{w:.2f}' for w in waits)} s")
