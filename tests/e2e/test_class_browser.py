"""A class, end to end in Chromium: a teacher and three students, each in a browser context of their own.

The teacher starts a class on Home; the students open the join link and join; the teacher sends the
class to the Mean page; each student answers its question; the teacher's screen shows the room's
answers; Reveal shows the answer on every student's screen. Along the way: the teacher key is in no
student's page or address, nor in the teacher's own address, and no student sees a nickname.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Locator, Page, Playwright, expect

from e2e.support import WAIT_MS
from scripts.browser import CHROMIUM, CHROMIUM_ARGS, IDLE

pytestmark = pytest.mark.browser

MEAN_OPTIONS = ["Every entry grows by 5", "Nothing: it is unchanged", "It is multiplied by 5"]
PANEL = ".st-key-class_panel"


@pytest.fixture
def chromium(playwright_driver: Playwright) -> Iterator[Browser]:
    """A Chromium of this test's own, for separate contexts (no shared cookies or storage)."""
    browser = playwright_driver.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    yield browser
    browser.close()


def _tab(chromium: Browser) -> Page:
    page = chromium.new_context(viewport={"width": 1280, "height": 720}).new_page()
    page.set_default_timeout(WAIT_MS)
    return page


def _start_class(chromium: Browser, server: str) -> tuple[Page, Locator]:
    """A teacher's tab that has started a class on Home, and its class panel."""
    teacher = _tab(chromium)
    teacher.goto(server + "/")
    teacher.locator(IDLE).wait_for()
    teacher.get_by_role("button", name="Start a class (teacher)").click()
    panel = teacher.locator(PANEL)
    expect(panel).to_contain_text("you lead it")
    # the key's cookie is written by a component after the run: a tab opened before it is not the teacher's
    teacher.wait_for_function("document.cookie.includes('lab_teacher=')")
    return teacher, panel


def test_a_teacher_and_three_students_answer_reveal_and_follow(chromium: Browser, server: str) -> None:
    teacher, panel = _start_class(chromium, server)
    found = re.search(r"Class ([A-Z2-9]{6})", panel.inner_text())
    assert found, panel.inner_text()
    code = found.group(1)
    teacher.get_by_text("Your private teacher link").click()
    key_link = panel.locator('[data-testid="stCode"]').inner_text()
    key = re.search(r"teach=([\w-]+)", key_link)
    assert key, key_link
    assert "teach" not in teacher.url
    teacher.reload()  # a new session: the teacher stays the teacher (the key is in a cookie, not the address)
    teacher.locator(IDLE).wait_for()
    expect(panel).to_contain_text(f"Class {code} · you lead it")

    students = []
    for i in range(3):
        student = _tab(chromium)
        student.goto(f"{server}/?class={code}")
        student.locator(IDLE).wait_for()
        expect(student.get_by_label("Class code")).to_have_value(code)  # the join link fills it in
        student.get_by_label("Nickname (optional)").fill(f"Student{i}")
        student.get_by_role("button", name="Join the class").click()
        expect(student.locator(PANEL)).to_contain_text(f"Class {code}")
        expect(student).to_have_url(re.compile(rf"\?class={code}$"))  # the seat is in a cookie, not here
        students.append(student)
    expect(panel).to_contain_text("Students (3)")  # the roster (ui/class_teacher.py) counts them

    # Follow me: the teacher opens Mean and sends the class there
    teacher.locator('[data-testid="stSidebarNav"] a[href$="/mean"]').click()
    expect(teacher).to_have_url(re.compile(r"/mean"))
    teacher.locator(IDLE).wait_for()
    teacher.get_by_role("button", name="Send the class here").click()
    for student in students:
        expect(student).to_have_url(re.compile(rf"/mean\?.*class={code}"))

    # The room answers; the teacher's screen counts it, and says nothing of who
    for student, choice in zip(students, (0, 1, 1), strict=True):
        student.get_by_text(MEAN_OPTIONS[choice]).click()
        expect(student.get_by_text("Your answer is in")).to_be_visible()
    expect(teacher.get_by_text("3 answers from the class")).to_be_visible()
    expect(teacher.get_by_text(f"{MEAN_OPTIONS[1]} — 2")).to_be_visible()
    verdict = "2 of 3 right; most common wrong answer: Every entry grows by 5"
    expect(teacher.get_by_text(verdict)).to_be_visible()
    for student in students:
        expect(student.get_by_text("Right:")).to_have_count(0)  # nothing revealed yet

    teacher.get_by_role("button", name="Reveal to the class").click()
    expect(students[0].get_by_text("Not quite: the answer is Nothing")).to_be_visible()
    for student in students[1:]:
        expect(student.get_by_text("Right: Nothing: it is unchanged")).to_be_visible()
    expect(students[0].get_by_text("3 answers from the class")).to_be_visible()

    for student in students:
        text = student.locator("body").inner_text()
        assert key.group(1) not in text and key.group(1) not in student.url
        assert "Student" not in text  # nicknames are the teacher's to see

    # A student who explores alone stays; following again goes where the class is now
    alone, follower = students[0], students[1]
    alone.locator(PANEL).get_by_text("Follow the teacher").click()
    alone.locator(IDLE).wait_for()
    # Variance with typed numbers: the sidebar's settings are bound to the address on every page, so
    # only a lead that opens the page as a link does (ui.class_session.open_view) gives them to the follower
    teacher.goto(f"{server}/variance?src=Type+numbers&typed=5%2C+6%2C+7&class={code}")
    teacher.locator(IDLE).wait_for()
    expect(panel).to_contain_text("you lead it")
    teacher.get_by_role("button", name="Send the class here").click()
    expect(follower).to_have_url(re.compile(rf"/variance\?.*typed=5.*class={code}"))
    expect(follower.locator('[data-testid="stSidebar"] textarea')).to_have_value("5, 6, 7")
    expect(alone).to_have_url(re.compile(r"/mean\?"))
    alone.locator(PANEL).get_by_text("Follow the teacher").click()
    expect(alone).to_have_url(re.compile(rf"/variance\?.*class={code}"))


def test_another_tab_of_the_teacher_leaves_the_lead_with_the_first(chromium: Browser, server: str) -> None:
    """The teacher's key lives in a cookie: a second tab on an address without the class (a pasted lesson
    link) leads the class too, with the class put back into its address, and must not remove the key, or
    the first tab's next reload (a lost connection, a restarted process) would no longer lead the class."""
    teacher, panel = _start_class(chromium, server)
    code = re.search(r"Class ([A-Z2-9]{6})", panel.inner_text())
    assert code, panel.inner_text()
    other = teacher.context.new_page()  # the same browser: the same cookies
    other.set_default_timeout(WAIT_MS)
    other.goto(server + "/mean")
    other.locator(IDLE).wait_for()
    expect(other.locator(PANEL)).to_contain_text(f"Class {code.group(1)} · you lead it")
    expect(other).to_have_url(re.compile(rf"/mean\?class={code.group(1)}$"))
    teacher.reload()
    teacher.locator(IDLE).wait_for()
    expect(panel).to_contain_text("you lead it")


PACED = "Keep the class with me (teacher-paced)"  # the teacher's toggle (ui/class_teacher.py)
PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}
# Records, in the tab, when its address first shows a page: Date.now() at that moment (polled every
# 10 ms, so the time a student's page followed is measured in the student's own browser)
WATCH = """(path) => {
  window.labFollowed = null;
  clearInterval(window.labWatch);
  window.labWatch = setInterval(() => {
    if (location.pathname === path) { window.labFollowed = Date.now(); clearInterval(window.labWatch); }
  }, 10);
}"""
# Whether an element lies whole within the window's width, wider than half of it
INSIDE = """(selector) => {
  const box = document.querySelector(selector)?.getBoundingClientRect();
  return Boolean(box) && box.left >= 0 && box.right <= innerWidth && box.width > innerWidth / 2;
}"""


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]


def test_a_paced_class_follows_the_teacher_on_a_desktop_and_a_phone(chromium: Browser, server: str) -> None:
    """Teacher-paced, with the beacon: each student's browser goes where the teacher goes, a phone too.

    A copied address (class only) opened in another browser is not that student: Home's join form, the
    code filled in. A student who opens another page while paced is brought back. Prints how long each
    student took to follow the teacher over ten page switches (teacher's click to the student's address)."""
    teacher, panel = _start_class(chromium, server)
    found = re.search(r"Class ([A-Z2-9]{6})", panel.inner_text())
    assert found, panel.inner_text()
    code = found.group(1)
    desk = _tab(chromium)
    desk.goto(f"{server}/?class={code}")
    desk.get_by_role("button", name="Join the class").click()
    expect(desk.locator(PANEL)).to_contain_text(f"Class {code}")
    teacher.get_by_text(PACED).click()
    expect(desk.locator(PANEL)).to_contain_text("Your teacher keeps the class together.")
    expect(desk.locator(PANEL).get_by_role("switch", name="Follow the teacher")).to_be_disabled()

    # The teacher opens Mean: the class goes there (paced: no "Send the class here")
    teacher.locator('[data-testid="stSidebarNav"] a[href$="/mean"]').click()
    expect(desk).to_have_url(re.compile(rf"/mean\?(.*&)?class={code}"))
    desk.locator(IDLE).wait_for()

    # The desktop student's address, copied to a phone: not that student; Home's join form instead
    phone = chromium.new_context(**PHONE).new_page()  # type: ignore[arg-type]
    phone.set_default_timeout(WAIT_MS)
    phone.goto(desk.url)
    expect(phone.get_by_label("Class code")).to_have_value(code)
    expect(phone.locator(PANEL)).to_have_count(0)
    phone.get_by_role("button", name="Join the class").tap()
    expect(phone).to_have_url(re.compile(rf"/mean\?(.*&)?class={code}"))  # a late joiner lands on the lead
    phone.locator(IDLE).wait_for()
    phone.get_by_text(MEAN_OPTIONS[1]).tap()  # a Predict-then-check box, by touch
    expect(phone.get_by_text("Your answer is in")).to_be_visible()
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390  # nothing wider than the phone
    phone.get_by_test_id("stExpandSidebarButton").tap()  # the class panel, in the phone's sidebar
    expect(phone.locator(PANEL)).to_be_visible()
    expect(phone.locator(PANEL)).to_contain_text("Your teacher keeps the class together.")
    phone.wait_for_function(INSIDE, arg=PANEL)  # the sidebar slid in: whole, within the phone's width

    # Paced: a student who opens another page is brought back to the teacher's
    phone.locator('[data-testid="stSidebarNav"] a[href$="/variance"]').tap()
    expect(phone).to_have_url(re.compile(rf"/mean\?(.*&)?class={code}"))
    phone.locator(IDLE).wait_for()
    expect(phone.get_by_text("Your answer is in")).to_be_visible()

    followed: dict[str, list[float]] = {"desktop": [], "phone": []}
    for move in range(10):
        path = "/variance" if move % 2 == 0 else "/mean"
        for student in (desk, phone):
            student.evaluate(WATCH, path)
        teacher.locator(IDLE).wait_for()
        clicked = time.time() * 1000
        teacher.locator(f'[data-testid="stSidebarNav"] a[href$="{path}"]').click()
        for name, student in (("desktop", desk), ("phone", phone)):
            student.wait_for_function("() => window.labFollowed !== null")
            followed[name].append(student.evaluate("window.labFollowed") - clicked)
            expect(student).to_have_url(re.compile(rf"{path}\?(.*&)?class={code}"))
            student.locator(IDLE).wait_for()
    every = followed["desktop"] + followed["phone"]
    for name, times in {**followed, "all": every}.items():
        print(
            f"{name}: teacher's click to the student's page, {len(times)} moves: "
            f"p50 {_percentile(times, 0.5):.0f} ms, p95 {_percentile(times, 0.95):.0f} ms, "
            f"max {max(times):.0f} ms"
        )
    for student in (desk, phone):
        assert "seat" not in student.url

    # The teacher ends the class: each student's browser leaves it, and says so
    teacher.locator(PANEL).get_by_role("button", name="End the class", exact=True).click()
    teacher.get_by_role("button", name="End it now").click()
    for student in (desk, phone):
        expect(student.locator('[data-testid="stSidebar"]')).to_contain_text("Your class has ended.")
        expect(student.locator(PANEL)).to_have_count(0)
        assert f"class={code}" not in student.url
    phone.context.close()
