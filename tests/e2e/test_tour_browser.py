"""The guided tour in Chromium (ui/tour.py, ui/tour_stops.py): started from Home, walked stop by stop with
Next, each stop's control outlined and used as a student uses it (keys, clicks), and the card noticing;
a mid-tour link opened in a fresh browser lands on its stop; Escape leaves and the sidebar resumes."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from playwright.sync_api import Browser, Locator, Page, Playwright, expect
from playwright.sync_api import Error as PlaywrightError

from e2e.support import WAIT_MS, Lab, page_by_url
from scripts.browser import CHROMIUM, CHROMIUM_ARGS, IDLE
from ui.tour_stops import STOPS

pytestmark = pytest.mark.browser

CARD = ".st-key-tour_card"
DONE = f"{CARD} [data-testid='stAlertContentSuccess']"


def _key(selector: str, key: str) -> Callable[[Page], None]:
    def act(page: Page) -> None:
        control = page.locator(selector).first
        control.focus()
        control.press(key)

    return act


def _click(selector: str) -> Callable[[Page], None]:
    return lambda page: page.locator(selector).first.click()


def _pick_second(key: str) -> Callable[[Page], None]:
    """Open the selectbox of ``key`` by keyboard and choose its second option. (A first click on Scale &
    shift's token box after the Undo button's run opens nothing, with or without the tour: Streamlit's.)"""

    def act(page: Page) -> None:
        box = page.locator(f".st-key-{key}").get_by_role("combobox")
        option = page.get_by_role("option").nth(1)
        for _ in range(4):  # a run that redraws the box closes its list: open it again and choose again
            try:
                if not option.is_visible():
                    box.focus()
                    box.press("ArrowDown")  # opens the list once the box has taken the focus
                    expect(option).to_be_visible(timeout=2000)
                text = option.inner_text(timeout=2000)
                option.click(timeout=2000)
                expect(box).to_have_value(text, timeout=5000)
                return
            except (AssertionError, PlaywrightError):
                continue
        raise AssertionError(f"the second option of {key} could not be chosen")

    return act


# What a student does at each stop that asks for something (its number: 1 is the first stop)
ACTIONS: dict[int, Callable[[Page], None]] = {
    2: _key(".st-key-mean_shift_live input[type=range]", "ArrowRight"),
    3: _key(".lab-bar-input[data-feature='1']", "ArrowUp"),
    4: _key(".st-key-var_scale_live input[type=range]", "ArrowRight"),
    5: _key(".st-key-std_spread_live input[type=range]", "End"),
    6: _key(".st-key-eps_live input[type=range]", "End"),
    7: _click(".st-key-ss_undo button"),
    8: _pick_second("ss_many_token"),
    9: lambda page: (
        page.locator(".st-key-affine_mode").get_by_text("Same γ, β for every feature").click(),
        _key(".st-key-gamma_live input[type=range]", "ArrowRight")(page),
    ),
    10: lambda page: page.locator(".st-key-axes_lens").get_by_text("BatchNorm", exact=True).click(),
    11: lambda page: page.locator(".st-key-tvi_mode").get_by_text("Inference", exact=True).click(),
    12: _key(".st-key-depth_layers input[type=range]", "End"),
    13: lambda page: page.locator(".st-key-depth_norm").get_by_text("LayerNorm", exact=True).click(),
    15: _pick_second("tf_site"),
    16: _key(".st-key-now_alpha_live input[type=range]", "ArrowRight"),
}


def _wait(lab: Lab) -> None:
    lab.page.locator(IDLE).wait_for()
    lab.wait_idle()


def test_the_whole_tour_from_home_each_stop_noticed(lab: Lab) -> None:
    assert set(ACTIONS) == {n for n, s in enumerate(STOPS, 1) if s.done is not None}
    lab.open(page_by_url("/"))
    lab.page.get_by_role("button", name="Start the guided tour").first.click()
    for n, stop in enumerate(STOPS, 1):
        card = lab.page.locator(CARD)
        expect(card).to_contain_text(f"step {n} of {len(STOPS)}")
        expect(card.locator("h3")).to_have_text(stop.title)
        expect(card.locator("h3")).to_be_focused()  # a screen reader starts at the stop's title
        expect(lab.page).to_have_url(re.compile(rf"/{stop.page}\?(.*&)?tour={n}(&|$)"))
        _wait(lab)
        if stop.target is not None:
            key = "affine_mode" if n == 9 else stop.target  # stop 7 left the sidebar's γ, β on Undo
            target = lab.page.locator(f".st-key-{key}").first
            expect(target).to_be_attached()
            assert target.evaluate("(e) => getComputedStyle(e).outlineStyle") == "solid", stop.target
        if n in ACTIONS:
            expect(lab.page.locator(DONE)).to_have_count(0)  # nothing done yet
            ACTIONS[n](lab.page)
            expect(lab.page.locator(DONE)).to_have_count(1)  # the card noticed, with the page's numbers
        lab.assert_clean()
        last = n == len(STOPS)
        lab.page.locator(f"{CARD} .st-key-{'tour_finish' if last else 'tour_next'} button").click()
    expect(lab.page.locator(CARD)).to_have_count(0)
    expect(lab.page).not_to_have_url(re.compile(r"tour="))
    expect(lab.page.get_by_role("button", name="Start the guided tour").first).to_be_visible()


@pytest.fixture
def fresh(playwright_driver: Playwright) -> Browser:
    browser = playwright_driver.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    yield browser
    browser.close()


def test_a_mid_tour_link_lands_on_its_stop_and_escape_leaves_it(fresh: Browser, server: str) -> None:
    phone = fresh.new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    page = phone.new_page()
    page.set_default_timeout(WAIT_MS)
    n = next(i for i, s in enumerate(STOPS, 1) if s.page == "standardize")
    page.goto(f"{server}/standardize?tour={n}")
    page.locator(IDLE).wait_for()
    card = page.locator(CARD)
    expect(card.locator("h3")).to_have_text(STOPS[n - 1].title)
    expect(card).to_contain_text(f"step {n} of {len(STOPS)}")
    assert card.bounding_box()["width"] <= 390  # fits the phone
    expect(card.locator("h3")).to_be_focused()  # the card's script has run: Escape is heard
    page.keyboard.press("Escape")
    expect(card).to_have_count(0)
    expect(page).not_to_have_url(re.compile(r"tour="))
    page.locator("[data-testid='stExpandSidebarButton']").click()
    resume = page.get_by_role("button", name=f"Resume the tour at step {n}")
    expect(resume).to_be_visible()
    resume.click()
    expect(page.locator(CARD).locator("h3")).to_have_text(STOPS[n - 1].title)
    expect(page.locator(CARD).locator("h3")).to_be_focused()  # the pressed Resume is gone: focus goes here


def test_show_me_brings_the_outlined_control_into_view_with_the_focus(lab: Lab) -> None:
    """Standardize's spread slider is screens below the card (the page's whole first section between):
    the card's button scrolls it into view and focuses it, so keys move it at once."""
    n = next(i for i, s in enumerate(STOPS, 1) if s.target == "std_spread_live")
    lab.open(page_by_url("/standardize"), f"?tour={n}")
    thumb = lab.page.locator(".st-key-std_spread_live input[type=range]")
    expect(lab.page.locator(CARD).locator("h3")).to_be_focused()
    assert not _in_view(lab.page, thumb)  # the test shows something only if the control starts out of view
    lab.page.locator(f"{CARD} .st-key-tour_show button").click()
    expect(thumb).to_be_focused()
    assert _in_view(lab.page, thumb)
    thumb.press("End")
    expect(lab.page.locator(DONE)).to_have_count(1)  # the card noticed the key the focused slider took


def _in_view(page: Page, element: Locator) -> bool:
    box = element.bounding_box()
    height = page.viewport_size["height"] if page.viewport_size else 0
    return box is not None and 0 <= box["y"] and box["y"] + box["height"] <= height


@pytest.mark.parametrize(
    ("page", "focused"), [("/mean", ".lab-bar-input"), ("/learning_rate", "[role=figure]")]
)
def test_show_me_on_a_chart_focuses_its_bars_or_the_chart_not_its_toolbar(
    lab: Lab, page: str, focused: str
) -> None:
    """Break-it pass: on Mean's bars and Learning rate's map the focus went to the chart toolbar's
    download button, which comes first in the chart's element."""
    n = next(
        i
        for i, s in enumerate(STOPS, 1)
        if s.page == page.strip("/")
        and isinstance(s.target, str)
        and s.target.endswith(("chart_x", "lr_map"))
    )
    lab.open(page_by_url(page), f"?tour={n}")
    lab.page.locator(f"{CARD} .st-key-tour_show button").click()
    target = lab.page.locator(f".st-key-{STOPS[n - 1].target}")
    expect(target.locator(focused).first).to_be_focused()
    assert _in_view(lab.page, target.locator(focused).first)
