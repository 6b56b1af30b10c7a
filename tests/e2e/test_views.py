"""Every page's view is remembered across page switches and reproduced by its link, in Chromium.

AppTest cannot show either: it keeps a page's widgets when the script leaves the page, and it has
no address bar. Here, for every page, a student changes that page's own controls with the mouse and
keyboard, the test reads back everything the view shows (each control's value and every metric),
then (1) switches to another page through the sidebar and back: the view must be the same, and
(2) opens the address bar's URL in a tab of a second Chromium (nothing shared but the server): the
same view again. The pages' controls are listed in ``ui.keys.PAGE_KEYS``; each widget carries
its key as the CSS class ``st-key-<key>`` (Streamlit 1.67), which is how the test finds it.
"""

from __future__ import annotations

import re
import time
import urllib.parse
from collections.abc import Iterator

import pytest
from playwright.sync_api import Locator, Playwright, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from e2e.support import PAGES, VECTOR_PAGES, VIEWPORT, WAIT_MS, AppPage, Lab, TabPool, page_by_url
from scripts.browser import CHROMIUM, CHROMIUM_ARGS
from ui.keys import PAGE_KEYS

pytestmark = pytest.mark.browser

HOME = page_by_url("/")
# Pages with their own controls; the pages that read the sidebar's vector and have none (Home, Full
# formula) are covered through the sidebar's ε, which is theirs too.
VIEW_PAGES = [p for p in PAGES if p.url.strip("/") in PAGE_KEYS]
SIDEBAR_ONLY = [p for p in VECTOR_PAGES if p.url.strip("/") not in PAGE_KEYS]
CHANGES_PER_PAGE = 4  # controls changed on each page (all of them would take minutes per page)


@pytest.fixture(scope="module")
def elsewhere(playwright_driver: Playwright) -> Iterator[TabPool]:
    """Tabs of a second Chromium: they share nothing with the tabs the `lab` fixture opens (no cookie, no
    storage, no cache), so a view they show came from the link and the server alone."""
    browser = playwright_driver.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
    pool = TabPool(browser.new_context(viewport=VIEWPORT))
    yield pool
    pool.close()
    browser.close()


def _box(lab: Lab, key: str) -> Locator:
    """The control a student uses: a live slider (ui.live) is ``<key>_live``; ``<key>`` is then the
    hidden slider that keeps its value for the link."""
    live = lab.page.locator(f".st-key-{key}_live")
    return live if live.count() else lab.page.locator(f".st-key-{key}")


def _read(box: Locator) -> str:
    """What a control shows: a slider's value text, the checked option, a box's state or text."""
    sliders = box.get_by_role("slider")
    if sliders.count():
        return ",".join(s.get_attribute("aria-valuetext") or "" for s in sliders.all())
    radios = box.locator('input[type="radio"]')
    if radios.count():
        return next((r.get_attribute("value") or "on" for r in radios.all() if r.is_checked()), "-") + (
            "|" + box.locator("label:has(input:checked)").inner_text()
        )
    checks = box.locator('input[type="checkbox"]')
    if checks.count():
        return str(checks.first.is_checked())
    numbers = box.locator("input")
    if numbers.count():
        return numbers.first.input_value()
    return box.inner_text()


def _view(lab: Lab, keys: tuple[str, ...], like: dict[str, str] | None = None) -> dict[str, str]:
    """What the view shows once the script is idle; given ``like``, read again until the view is the
    same (a section a page draws after its run, such as a fragment's, can come a moment later) or
    the wait runs out, as Playwright's ``expect`` does, and return the last read."""
    lab.wait_idle()
    seen = _read_view(lab, keys)
    deadline = time.monotonic() + WAIT_MS / 1000
    while like is not None and seen != like and time.monotonic() < deadline:
        lab.page.wait_for_timeout(100)
        seen = _read_view(lab, keys)
    return seen


def _read_view(lab: Lab, keys: tuple[str, ...]) -> dict[str, str]:
    """Everything the view shows that a control decides: each visible control and every metric."""
    lab.wait_idle()
    view = {
        k: _read(_box(lab, k).first) for k in keys if _box(lab, k).count() and _box(lab, k).first.is_visible()
    }
    metrics = lab.page.locator('[data-testid="stMain"] [data-testid="stMetric"]').all_inner_texts()
    view |= {f"metric {i}": re.sub(r"\s+", " ", m) for i, m in enumerate(metrics)}
    return view


# A Streamlit slider's thumb says its value in aria-valuenow; a live slider is an <input type=range>.
AT_MAXIMUM = """(thumb) => Number(thumb.getAttribute('aria-valuenow') ?? thumb.value)
  >= Number(thumb.getAttribute('aria-valuemax') ?? thumb.max)"""


def _change(lab: Lab, key: str) -> bool:
    """Change one control the way a student does; False if it cannot be changed here (disabled)."""
    box = _box(lab, key).first
    if not box.count() or not box.is_visible():
        return False
    sliders = box.get_by_role("slider")
    if sliders.count():
        thumb = sliders.first
        if thumb.is_disabled():
            return False
        thumb.focus()
        with lab.a_run():
            thumb.press("ArrowLeft" if thumb.evaluate(AT_MAXIMUM) else "ArrowRight")
        return True
    radios = box.locator("label:has(input[type=radio])")
    if radios.count():
        free = [
            r for r in radios.all() if not r.locator("input").is_checked() and r.locator("input").is_enabled()
        ]
        if not free:
            return False
        with lab.a_run():
            free[-1].click()
        return True
    toggle = box.locator('input[type="checkbox"]')
    if toggle.count():
        if toggle.first.is_disabled():
            return False
        with lab.a_run():
            box.locator("label").first.click()
        return True
    buttons = box.locator("button")
    if box.locator('[data-testid="stButtonGroup"]').count() and buttons.count() > 1:
        with lab.a_run():
            buttons.last.click()
        return True
    combo = box.get_by_role("combobox")
    if combo.count() and combo.first.is_enabled():  # a selectbox: open it and take another option
        listbox = lab.page.get_by_role("listbox")
        for _ in range(3):  # a rerun that redraws the box can take the focus (and the list) away
            combo.first.focus()
            lab.page.keyboard.press("ArrowDown")  # opens the list on the current option
            try:
                listbox.wait_for(timeout=5_000)
                break
            except PlaywrightTimeout:
                lab.wait_idle()
        else:
            return False
        with lab.a_run():
            lab.page.keyboard.press(
                "ArrowUp"
                if lab.page.get_by_role("option").last.get_attribute("aria-selected") == "true"
                else "ArrowDown"
            )
            lab.page.keyboard.press("Enter")
        return True
    number = box.locator('input[type="number"]')
    if number.count() and number.first.is_enabled():
        value = number.first.input_value()
        number.first.fill(str(int(float(value)) + 1))
        with lab.a_run():
            number.first.press("Enter")
        return True
    return False


def _query(url: str) -> dict[str, list[str]]:
    return urllib.parse.parse_qs(urllib.parse.urlsplit(url).query, keep_blank_values=True)


def _assert_same(before: dict[str, str], after: dict[str, str], what: str) -> None:
    diff = {
        k: (before.get(k), after.get(k))
        for k in before.keys() | after.keys()
        if before.get(k) != after.get(k)
    }
    assert not diff, f"{what} changed the view: {diff}"


@pytest.mark.parametrize("app_page", VIEW_PAGES, ids=[p.url for p in VIEW_PAGES])
def test_a_pages_view_survives_a_page_switch_and_round_trips_through_its_link(
    lab: Lab, elsewhere: TabPool, app_page: AppPage
) -> None:
    keys = PAGE_KEYS[app_page.url.strip("/")]
    lab.open(app_page)
    default = _view(lab, keys)
    changed: list[str] = []
    for key in keys:
        if len(changed) < CHANGES_PER_PAGE and _change(lab, key):
            changed.append(key)
    assert changed, f"no control of {app_page.url} could be changed: {keys}"
    set_view = _view(lab, keys)
    assert set_view != default, f"changing {changed} changed nothing on {app_page.url}"
    url = lab.page.url
    assert all(f"{k}=" in url for k in changed if set_view.get(k) != default.get(k)), (changed, url)
    lab.assert_clean()

    lab.nav_to(HOME)
    lab.nav_to(app_page)
    _assert_same(set_view, _view(lab, keys, set_view), f"leaving {app_page.url} for Home and coming back")
    assert _query(lab.page.url) == _query(url)  # the same settings (Streamlit may reorder them)

    with elsewhere.lend() as tabs:
        fresh = Lab(tabs.new(), lab.base)
        fresh.page.goto(url)
        fresh.wait_for(app_page)
        _assert_same(set_view, _view(fresh, keys, set_view), f"opening {url} in another browser")
        fresh.assert_clean()
        assert not fresh.page.locator('[data-testid="stAlert"]:has-text("link")').count()
        fresh.let_go()


@pytest.mark.parametrize("app_page", SIDEBAR_ONLY, ids=[p.url for p in SIDEBAR_ONLY])
def test_pages_without_own_controls_keep_the_sidebars_view(
    lab: Lab, elsewhere: TabPool, app_page: AppPage
) -> None:
    lab.open(app_page)
    eps = lab.slider("ε (inside", in_sidebar=True)
    eps.focus()
    with lab.a_run():
        eps.press("ArrowLeft")
    expect(eps).to_have_attribute("aria-valuetext", "5e-06")
    view = _view(lab, ())
    url = lab.page.url
    assert "eps=5e-06" in url
    lab.nav_to(page_by_url("/depth_and_drift"))  # a page that hides the vector controls
    lab.nav_to(app_page)
    _assert_same(view, _view(lab, (), view), "a detour through Depth and drift")
    with elsewhere.lend() as tabs:
        fresh = Lab(tabs.new(), lab.base)
        fresh.page.goto(url)
        fresh.wait_for(app_page)
        _assert_same(view, _view(fresh, (), view), f"opening {url} in another browser")
        fresh.let_go()


def test_a_click_on_the_chosen_segment_keeps_it(lab: Lab) -> None:
    """A segmented control's chosen option stays chosen when clicked again: it used to deselect, and the
    link then named another option (float64) than the one the page kept using (bfloat16)."""
    lab.open(page_by_url("/estimators_and_eps"), "?est_rms_dtype=float16")
    chosen = lab.page.locator(".st-key-est_rms_dtype").get_by_text("float16", exact=True)
    chosen.click()
    lab.wait_idle()
    assert _query(lab.page.url).get("est_rms_dtype") == ["float16"], lab.page.url
    expect(lab.page.get_by_text("default for float16 input", exact=False).first).to_be_visible()
    lab.assert_clean()
