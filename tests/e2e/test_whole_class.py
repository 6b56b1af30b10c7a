"""A whole class in Chromium, from the first join to the deletion: the teacher's laptop (1280×800), the
projector view on the wall and three students (two desktops and a phone, by touch), each in a browser
context of their own.

The teacher starts a class; the students join by the link the join dialog shows (the address its QR
encodes); teacher-paced, the class follows the teacher to Mean, answers its question, the teacher closes
the answers and asks again (one student changes their answer), then reveals it; then Variance, and two
questions of the quiz run with the class, then each student's score. The CSV of the results is compared
row by row with the database; deleting the class leaves every student, and the wall, with a word.

The wall is photographed light and dark at 1280×720 into ``/tmp/whole-class-shots/``. No screen may
show a Python exception or raise a JavaScript error, and the server may log no warning (conftest.py).

The server draws the class's code, and the quiz's numbers and order come from it (``quiz_seed``): which two
questions the run asks differs from run to run. The test asserts nothing that draw decides: it reads the
question the run is on, and its right option, from the store (as the teacher's screen described it), checks
that every student's box shows those options and the wall the question the students see, and answers from
that. Every wait is for a state of a page (the wall's by its own poll, with the usual time limit), never
for a time.
"""

from __future__ import annotations

import csv
import io
import os
import re
import time
import urllib.parse
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Locator, Page, Playwright, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from classroom.model import clean_prompt
from classroom.store import Store, open_engine
from e2e.support import CHART, EXCEPTION, RENDERED_CHART, WAIT_MS, follow_system_theme
from layernorm.labs.quiz import BUILDERS
from scripts.browser import CHROMIUM, CHROMIUM_ARGS, IDLE
from ui.class_quiz import RUN
from ui.class_session import DELETED
from ui.class_views import PACED_NOTE

pytestmark = pytest.mark.browser

SHOTS = Path("/tmp/whole-class-shots")
PANEL = ".st-key-class_panel"
PACED = "Keep the class with me (teacher-paced)"
NOTE = ".st-key-projector_chart :is(.lab-answer-text, .lab-answer-count)"  # the wall's chart texts
RADIOS = 'label:has(input[type="radio"])'
QUIZ_LENGTH = len(BUILDERS)  # one question per misconception, whatever the seed
MEAN = ("Every feature of a token gets +5 added. What happens to x − μ?",
        ("Every entry grows by 5", "Nothing: it is unchanged", "It is multiplied by 5"), 1)  # fmt: skip
VARIANCE = ("Every feature is multiplied by 3. What happens to σ²?",
            ("It triples", "It is multiplied by 9", "It stays the same"), 1)  # fmt: skip
DESK = {"viewport": {"width": 1280, "height": 800}}
PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}
# The nicknames: one a spreadsheet would run as a formula (the CSV keeps it text), one not ASCII
NAMES = ("Ada L", "=Pim", "Zoë")
IN_CSV = {"=Pim": "'=Pim"}


@dataclass
class Screen:
    """One browser context's tab, and the JavaScript errors it raised."""

    name: str
    page: Page
    touch: bool = False
    errors: list[str] = field(default_factory=list)

    def press(self, target: Locator) -> None:
        """A tap on a phone, a click elsewhere."""
        if self.touch:
            target.tap()
        else:
            target.click()


@pytest.fixture
def chromium(playwright_driver: Playwright) -> Iterator[Browser]:
    """A Chromium of this test's own, for separate contexts (no shared cookies or storage)."""
    browser = playwright_driver.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    yield browser
    browser.close()


@pytest.fixture
def store(server: str) -> Iterator[Store]:
    """The shared server's class store (``server`` first: its fixture names the database)."""
    engine = open_engine(os.environ["LAB_DATABASE_URL"])
    yield Store(engine)
    engine.dispose()


def _screen(chromium: Browser, name: str, context: Mapping[str, object]) -> Screen:
    page = chromium.new_context(**context).new_page()  # type: ignore[arg-type]
    page.set_default_timeout(WAIT_MS)
    screen = Screen(name, page, touch=bool(context.get("has_touch")))
    page.on("pageerror", lambda exc: screen.errors.append(str(exc)))
    return screen


def _all_clean(screens: list[Screen]) -> None:
    for s in screens:
        boxes = s.page.locator(EXCEPTION).all_inner_texts()
        assert not boxes, f"{s.name} ({s.page.url}) shows an exception:\n" + "\n---\n".join(boxes)
        assert not s.errors, f"JavaScript errors on {s.name}'s screen: {s.errors}"


def _nav(page: Page, path: str) -> None:
    """The teacher opens a page by the sidebar's menu (which shows its first pages until "View more")."""
    link = page.locator(f'[data-testid="stSidebarNav"] a[href$="{path}"]').first
    more = page.locator('[data-testid="stSidebarNavViewButton"]')
    if not link.is_visible() and more.count() and "more" in more.first.inner_text().lower():
        more.first.click()
    link.click()


def _on(s: Screen, path: str, code: str) -> None:
    expect(s.page).to_have_url(re.compile(rf"{re.escape(path)}\?(.*&)?class={code}(&|$)"))
    s.page.locator(IDLE).wait_for()


def _choose(s: Screen, option: str) -> None:
    label = s.page.locator('[data-testid="stMain"] label:has(input[type="radio"])')
    s.press(label.filter(has_text=re.compile(f"^{re.escape(option)}$")))


def _wall(page: Page, part: str) -> Locator:
    return page.locator(f".st-key-projector_{part}")


def _read(page: Page, part: str) -> str:
    """A part of the wall's text as a person reads it (without the word joiners that keep it plain)."""
    return _wall(page, part).inner_text().replace("\u2060", "").strip()


def _says(page: Page, part: str, text: str) -> None:
    """Until a part of the wall reads ``text`` (as :func:`_read` reads it): the wall follows by its own
    poll, so what it showed a moment before may still be there."""
    try:
        page.wait_for_function(
            """([selector, text]) => {
                const found = document.querySelector(selector);
                return found !== null && found.innerText.replaceAll("\u2060", "").trim() === text;
            }""",
            arg=[f".st-key-projector_{part}", text],
            polling=100,
        )
    except PlaywrightTimeoutError:
        raise AssertionError(f"the wall's {part} reads {_read(page, part)!r}, not {text!r}") from None


def _bars(page: Page, texts: dict[str, int]) -> None:
    """The wall's bars say each text exactly that many times."""
    for text, times in texts.items():
        expect(page.locator(NOTE).filter(has_text=text)).to_have_count(times)


def _shots(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    for scheme in ("light", "dark"):
        follow_system_theme(page, scheme)
        page.screenshot(path=str(SHOTS / f"{name}-1280x720-{scheme}.png"))
    follow_system_theme(page, "light")


def _teacher_key(t: Screen, code: str) -> str:
    """The teacher's key, from the teacher's cookie (``ui.class_session.COOKIE``)."""
    t.page.wait_for_function("document.cookie.includes('lab_teacher=')")  # set by a component, after the run
    kept = {c["name"]: c["value"] for c in t.page.context.cookies()}
    written, _, key = urllib.parse.unquote(kept["lab_teacher"]).partition(":")
    assert written == code
    return key


def _utc(at: float) -> str:
    return datetime.fromtimestamp(at, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _lead(t: Page, screens: Sequence[Screen], path: str, code: str) -> None:
    """The teacher opens ``path``; every screen lands there (teacher-paced)."""
    _nav(t, path)
    for s in screens:
        _on(s, path, code)


def _answer(students: Sequence[Screen], options: Sequence[str], choices: Sequence[int]) -> None:
    """Each student picks their option of the page's question, and the box says it is in."""
    for s, choice in zip(students, choices, strict=True):
        _choose(s, options[choice])
        expect(s.page.get_by_text("Your answer is in")).to_be_visible()


@dataclass(frozen=True)
class Asked:
    """The quiz question the class's run is on, as the store and a student's box have it."""

    question: str  # its id in the class ("quiz_<key>")
    labels: tuple[str, ...]  # its options, in the box's order
    right: int  # the right option, as the teacher's screen described the question to the store
    prompt: str  # its topic and text as a student's box shows them, as the wall and the results keep them


def _asked(store: Store, code: str, box: Locator, n: int) -> Asked:
    """The question the run is on (question ``n``, drawn in the student's ``box``): its id and right option
    from the store, checked against the options and the text the box shows."""
    run = store.run_of(code, RUN)
    assert run is not None, "the quiz's run is not in the store"
    found = store.question(code, run.question)
    assert found is not None and found.right is not None, f"{run.question} is not described"
    expect(box.locator(RADIOS)).to_have_text(list(found.labels))
    heading = box.locator('[data-testid="stMarkdownContainer"]').first.inner_text().strip()
    assert heading.startswith(f"{n}. "), heading
    text = box.locator('[data-testid="stText"]').first.inner_text()
    prompt = clean_prompt(f"{heading.removeprefix(f'{n}. ')}: {text}")
    assert prompt is not None
    assert found.prompt == prompt, (found.prompt, prompt)
    return Asked(run.question, found.labels, found.right, prompt)


def test_a_whole_class_from_join_to_delete(chromium: Browser, server: str, store: Store) -> None:
    begun = time.monotonic()
    teacher = _screen(chromium, "the teacher", DESK)
    wall = _screen(chromium, "the projector", {"viewport": {"width": 1280, "height": 720}})
    t, w = teacher.page, wall.page
    t.goto(server + "/")
    t.locator(IDLE).wait_for()
    t.get_by_role("button", name="Start a class (teacher)").click()
    panel = t.locator(PANEL)
    expect(panel).to_contain_text("you lead it")
    found = re.search(r"Class ([A-Z2-9]{6})", panel.inner_text())
    assert found, panel.inner_text()
    code = found.group(1)
    key = _teacher_key(teacher, code)

    # The join dialog: its link is the QR's; the wall shows the same link
    t.get_by_role("button", name="Show the join code").click()
    dialog = t.get_by_role("dialog")
    expect(dialog).to_contain_text(code)
    link = dialog.locator('[data-testid="stText"]').first.inner_text().strip()
    base = urllib.parse.urlsplit(server)
    assert link == f"{base.scheme}://{base.netloc}/?class={code}"
    t.keyboard.press("Escape")
    expect(dialog).to_have_count(0)
    wall_link = panel.get_by_role("link", name="Open the projector view")
    assert wall_link.get_attribute("href") == f"{base.scheme}://{base.netloc}/projector?class={code}"
    w.goto(wall_link.get_attribute("href") or "")
    w.locator(IDLE).wait_for()
    expect(_wall(w, "code")).to_have_text(code)
    _says(w, "url", link)
    expect(_wall(w, "joined")).to_have_text("0 students joined")

    students = [_screen(chromium, name, PHONE if name == NAMES[2] else DESK) for name in NAMES]
    ada, pim, zoe = students
    for s in students:
        s.page.goto(link)
        expect(s.page.get_by_label("Class code")).to_have_value(code)
        s.page.get_by_label("Nickname (optional)").fill(s.name)
        s.press(s.page.get_by_role("button", name="Join the class"))
        expect(s.page.get_by_text(f"You are in class {code}")).to_be_visible()
        s.page.wait_for_function("document.cookie.includes('lab_seat=')")
    expect(_wall(w, "joined")).to_have_text("3 students joined")
    expect(panel).to_contain_text("Students (3)")
    _shots(w, "join")
    screens = [teacher, wall, *students]
    _all_clean(screens)

    # Teacher-paced: the class lands on each page the teacher opens
    t.get_by_text(PACED).click()
    for s in students:
        expect(s.page.locator(PANEL)).to_contain_text(PACED_NOTE)
    _lead(t, (teacher, *students), "/mean", code)

    # Round 1: one wrong, two right; the teacher's box counts them, the wall too
    prompt, options, right = MEAN
    _answer(students, options, (0, 1, 1))
    # nothing wider than the phone, once every chart of the page is drawn
    zoe.page.locator(RENDERED_CHART).first.wait_for()
    zoe.page.wait_for_function(
        f"() => [...document.querySelectorAll('{CHART}')].every((c) => c.querySelector('.main-svg'))"
    )
    expect(zoe.page.locator('[data-testid="stSkeleton"]')).to_have_count(0)
    assert zoe.page.evaluate("document.documentElement.scrollWidth") <= 390
    expect(t.get_by_text("3 answers from the class")).to_be_visible()
    expect(t.get_by_text(f"{options[1]} — 2")).to_be_visible()
    # the wall follows the class to its question without a click (no question is open before it)
    _says(w, "prompt", prompt)
    expect(_wall(w, "status")).to_have_text("Answers open · 3 of 3 students answered")

    t.get_by_role("button", name="Close answers").click()
    for s in students:
        expect(s.page.get_by_text("Your teacher has closed this question")).to_be_visible()
    expect(_wall(w, "status")).to_have_text("Answers closed · 3 of 3 students answered")
    _says(w, "prompt", prompt)
    _bars(w, {"1 · ≈ 33 %": 1, "2 · ≈ 67 %": 1, "0 · 0 %": 1})
    _says(w, "summary", "3 of 3 students answered. Most chose “Nothing: it is unchanged” (2, ≈ 67 %).")

    # Vote again: a new round; Ada changes her mind, the others give the same answer again
    t.get_by_role("button", name="Vote again").click()
    for s in students:
        expect(s.page.get_by_text("Round 2: Answer, and your teacher reveals")).to_be_visible()
    expect(_wall(w, "status")).to_have_text("Answers open · round 2 · 0 of 3 students answered")
    for s in students:
        chosen = s.page.locator('[data-testid="stMain"] input[type="radio"]:checked')
        expect(chosen, f"{s.name}'s box after Vote again: asks afresh").to_have_count(0)
        _choose(s, options[1])
        expect(s.page.get_by_text("Round 2: Your answer is in")).to_be_visible()
        expect(s.page.get_by_role("radio", name=options[1])).to_be_checked()
    expect(t.get_by_text("3 answers from the class in round 2")).to_be_visible()
    expect(_wall(w, "status")).to_have_text("Answers open · round 2 · 3 of 3 students answered")
    _bars(w, {"round 2: 3 · 100 %": 1, "round 1: 2 · ≈ 67 %": 1, "round 1: 1 · ≈ 33 %": 1})
    _says(
        w,
        "summary",
        "3 of 3 students answered in round 2. All 3 answers are “Nothing: it is unchanged”. "
        "Round 1: 3 answers; most chose “Nothing: it is unchanged” (2, ≈ 67 %).",
    )
    _shots(w, "mean-round-2")

    t.get_by_role("button", name="Reveal to the class").click()
    for s in students:
        expect(s.page.get_by_text(f"Right: {options[right]}")).to_be_visible()
    expect(_wall(w, "status")).to_have_text("Answer revealed · round 2 · 3 of 3 students answered")
    _bars(w, {"(the answer)": 1})
    _says(
        w,
        "summary",
        "3 of 3 students answered in round 2. All 3 answers are “Nothing: it is unchanged”. "
        "The answer is “Nothing: it is unchanged”: 3 chose it (100 %). "
        "Round 1: 3 answers; most chose “Nothing: it is unchanged” (2, ≈ 67 %).",
    )
    _shots(w, "mean-revealed")
    _all_clean(screens)

    # A second page and its question: Pim is wrong this time
    _lead(t, (teacher, *students), "/variance", code)
    var_prompt, var_options, var_right = VARIANCE
    _answer(students, var_options, (1, 0, 1))
    expect(t.get_by_text("3 answers from the class")).to_be_visible()
    # Mean's question is revealed, so the wall moves on to the question the class answers now
    _says(w, "prompt", var_prompt)
    expect(_wall(w, "status")).to_have_text("Answers open · 3 of 3 students answered")
    t.get_by_role("button", name="Reveal to the class").click()
    for s in (ada, zoe):
        expect(s.page.get_by_text(f"Right: {var_options[var_right]}")).to_be_visible()
    expect(pim.page.get_by_text(f"Not quite: the answer is {var_options[var_right]}")).to_be_visible()
    expect(_wall(w, "status")).to_have_text("Answer revealed · 3 of 3 students answered")
    _says(w, "prompt", var_prompt)
    _says(
        w,
        "summary",
        "3 of 3 students answered. Most chose “It is multiplied by 9” (2, ≈ 67 %). "
        "The answer is “It is multiplied by 9”: 2 chose it (≈ 67 %).",
    )
    _all_clean(screens)

    # The quiz, run with the class for two questions: Ada right twice, Pim once, Zoë never. Which two
    # questions the class's code draws is not the test's: it reads each from the store and the boxes.
    _nav(t, "/quiz")
    for s in (teacher, *students):
        _on(s, "/quiz", code)
    t.get_by_role("button", name="Run the quiz with the class").click()
    rights = ((True, True, False), (True, False, False))
    asked: list[Asked] = []
    for n, right_ones in enumerate(rights, start=1):
        if n == 2:
            t.get_by_role("button", name="Next question").click()
        # the teacher's bar on question n: the store's run is on it (the button's callback moved it)
        expect(t.locator(".st-key-quiz_run_bar")).to_contain_text(f"Question {n} of {QUIZ_LENGTH}")
        q: Asked | None = None
        for s, is_right in zip(students, right_ones, strict=True):
            expect(s.page.get_by_text(f"Question {n} of {QUIZ_LENGTH}")).to_be_visible()
            box = s.page.locator(f".st-key-quiz_box_{n}")
            expect(s.page.locator('[class*="st-key-quiz_box_"]')).to_have_count(1)
            if q is None:
                q = _asked(store, code, box, n)
                assert q.question not in [a.question for a in asked], "the run asked the same question again"
                asked.append(q)
            else:  # one quiz for the whole class: the same options, in the same order, on every screen
                expect(box.locator(RADIOS)).to_have_text(list(q.labels))
            choice = q.right if is_right else (q.right + 1) % len(q.labels)
            s.press(box.locator(RADIOS).nth(choice))
            expect(box.locator('input[type="radio"]').nth(choice)).to_be_checked()
            s.press(box.get_by_role("button", name="Check"))
            expect(box.get_by_text("Your answer is in")).to_be_visible()
        assert q is not None
        expect(t.locator(f".st-key-quiz_box_{n}").get_by_text("3 answers from the class")).to_be_visible()
        _says(w, "prompt", q.prompt)  # the question the students see, as stored: one line, cut
        expect(_wall(w, "status")).to_have_text("Answers open · 3 of 3 students answered")
    t.get_by_role("button", name="Show the summary").click()
    for s, score in zip(students, (2, 1, 0), strict=True):
        expect(s.page.get_by_text(f"Your score: {score} of 2", exact=True)).to_be_visible()
        expect(
            s.page.get_by_text(
                "Mean score: 1 of 2, over the 3 students who answered at least one of the 2 questions asked."
            )
        ).to_be_visible()
    expect(t.get_by_text("The quiz with the class: summary")).to_be_visible()
    expect(_wall(w, "status")).to_have_text("Answers closed · 3 of 3 students answered")
    _shots(w, "quiz-summary")
    shown = w.content()  # the whole document: nothing of who, nor the teacher's key
    for secret in (*NAMES, key):
        assert secret not in shown
    _all_clean(screens)

    # The results: the CSV holds every student × question × round, as the database has it
    t.locator(PANEL).get_by_role("button", name="Results").click()
    results = t.get_by_role("dialog")
    expect(results).to_contain_text(f"Class {code}: 15 answers to 4 questions.")
    with t.expect_download() as download:
        results.get_by_role("button", name="Download the answers (CSV)").click()
    assert download.value.suggested_filename == f"class-{code}-answers.csv"
    raw = Path(download.value.path()).read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")  # the mark that makes a spreadsheet read UTF-8
    table = list(csv.reader(io.StringIO(raw.decode("utf-8-sig"), newline="")))
    assert table[0] == ["nickname", "question", "prompt", "round", "answer", "right", "time"]
    labels = {"mean_q": MEAN[1], "var_q": VARIANCE[1]} | {a.question: a.labels for a in asked}
    rows = store.answer_rows(code, key)
    assert table[1:] == [
        [
            IN_CSV.get(r.nickname, r.nickname),
            r.question,
            r.prompt or "",
            str(r.round),
            labels[r.question][r.choice],
            "" if r.right is None else "yes" if r.right else "no",
            _utc(r.at),
        ]
        for r in rows
    ]
    # ... and the database holds what the students did: (question, round) -> {nickname: choice}
    given: dict[tuple[str, int], dict[str, int]] = {}
    for r in rows:
        given.setdefault((r.question, r.round), {})[r.nickname] = r.choice

    def chose(a: Asked, rights_of: tuple[bool, ...]) -> dict[str, int]:
        n = len(a.labels)
        return {name: a.right if ok else (a.right + 1) % n for name, ok in zip(NAMES, rights_of, strict=True)}

    assert given == {
        ("mean_q", 1): dict(zip(NAMES, (0, 1, 1), strict=True)),
        ("mean_q", 2): dict.fromkeys(NAMES, 1),
        ("var_q", 1): dict(zip(NAMES, (1, 0, 1), strict=True)),
        (asked[0].question, 1): chose(asked[0], rights[0]),
        (asked[1].question, 1): chose(asked[1], rights[1]),
    }
    assert len(rows) == 15
    t.keyboard.press("Escape")
    expect(results).to_have_count(0)
    _all_clean(screens)

    # Deleting the class: every student leaves it with a word, the wall finds no class
    t.locator(PANEL).get_by_text("Keep or delete the answers").click()
    t.locator(PANEL).get_by_role("button", name="Delete the class now").click()
    t.get_by_role("button", name="Delete it now").click()
    expect(t.locator('[data-testid="stSidebar"]')).to_contain_text(
        f"Class {code} is deleted, with every answer."
    )
    for s in students:
        expect(s.page.locator('[data-testid="stSidebar"]')).to_contain_text(DELETED)
        expect(s.page.locator(PANEL)).to_have_count(0)
        expect(s.page).not_to_have_url(re.compile(f"class={code}"))
    expect(w.get_by_text(f"There is no class {code} (any more).")).to_be_visible()
    assert store.room(code) is None
    _all_clean(screens)
    quiz = ", ".join(a.question for a in asked)
    print(f"a whole class, join to delete: {time.monotonic() - begun:.1f} s (class {code}, quiz: {quiz})")
