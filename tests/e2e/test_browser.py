"""The app in a real browser: Debian's Chromium, driven by Playwright, against `streamlit run`.

AppTest runs the scripts but renders nothing; these tests check what a student's browser shows:
a real token flows through every step page, sliders commit and the numbers follow, the shared
input survives a page switch, and bad input or a strange link is reported in place instead of
crashing. (That every page opens and draws its charts with no exception box and no JavaScript
error is checked in tests/e2e/test_presentation_browser.py, at 1024×768.)

One server (session fixture) and one Chromium (fresh profile) serve the whole module; every test
opens the app in a tab of its own, which is a new Streamlit session. Waits are on text of the
*new* state (a page title, a metric's value), never on a chart container alone: during a rerun the
old and new elements coexist for a moment (docs/TESTING.md).
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from playwright.sync_api import BrowserContext, expect

import layernorm as ln
from e2e.support import (
    EXCEPTION,
    MINILM_D,
    PAGES,
    REAL_TOKEN,
    RENDERED_CHART,
    STEP_PAGES,
    Lab,
    page_by_url,
    query,
    serve,
)
from ui.text import digits_to_separate, fmt, rounding_noise

pytestmark = pytest.mark.browser


# --- (a) a real MiniLM token flows through every step page ----------------------------------------


def test_real_token_on_every_steppage_by_url(lab: Lab) -> None:
    assert STEP_PAGES, "app.py lists no step pages"
    first, *rest = STEP_PAGES
    lab.open(first, query(src=REAL_TOKEN))
    expect(lab.sidebar.get_by_role("combobox", name="Input")).to_have_value(REAL_TOKEN)
    token_box = lab.sidebar.get_by_role("combobox", name="Token")
    token = token_box.input_value()  # e.g. "0: [CLS]"
    assert re.match(r"\d+: \S", token), f"unexpected token choice text {token!r}"
    for app_page in [first, *rest]:
        if app_page is not first:
            lab.nav_to(app_page)  # the choice must survive the page switch
        expect(token_box).to_have_value(token)
        assert MINILM_D in lab.trace_lengths(), f"{app_page.url}: no chart plots the {MINILM_D} features"
        lab.assert_clean()
    # The page that names the input in a chart title names the token.
    lab.nav_to(page_by_url("/mean"))
    expect(lab.page.locator(RENDERED_CHART).get_by_text(token.split(": ", 1)[1]).first).to_be_visible()


# --- (b) sliders move and the numbers follow -------------------------------------------------------

PRESET: dict[str, str | int] = {"src": "Preset", "preset": "standard normal", "d": 8, "seed": 0}


def test_mean_follows_the_shift_slider(lab: Lab) -> None:
    lab.open(page_by_url("/mean"), query(**PRESET))
    x = ln.make_preset("standard normal", 8, 0)

    def mu_text(shifted: object) -> str:  # μ with the digits that tell it apart from every x
        v = np.asarray(shifted, dtype=float)
        return fmt(float(v.mean()), digits_to_separate([v.mean()], against=v, same_within=rounding_noise(v)))

    mu_value = lab.metric("μ (mean)")
    expect(mu_value).to_have_text(mu_text(x))
    thumb = lab.slider("Add the same number c")
    thumb.focus()
    for _ in range(3):
        thumb.press("ArrowRight")
    c = float(thumb.get_attribute("aria-valuetext") or "nan")
    assert c > 0, f"the slider did not move (c = {c})"
    expect(mu_value).to_have_text(mu_text(x + c))  # μ shifts by exactly c
    lab.assert_clean()


def test_standardized_variance_follows_the_eps_slider(lab: Lab) -> None:
    lab.open(page_by_url("/standardize"), query(**PRESET))
    x = ln.make_preset("standard normal", 8, 0)

    def var_x_hat(eps: float) -> str:  # 6 digits or more: as many as it takes to show it is below 1
        s = ln.layer_norm_steps(x, eps=eps)
        shown = [float(ln.variance(s.x_hat)), float(s.x_hat_var_expected)]
        return fmt(shown[0], digits_to_separate(shown, 6, against=[1.0], same_within=rounding_noise(1.0)))

    thumb = lab.slider("ε (inside the square root)", in_sidebar=True)
    eps_before = float(thumb.get_attribute("aria-valuetext") or "nan")
    value = lab.metric("variance of x̂")
    expect(value).to_have_text(var_x_hat(eps_before))
    thumb.focus()
    for _ in range(6):
        thumb.press("ArrowRight")
    eps_after = float(thumb.get_attribute("aria-valuetext") or "nan")
    assert eps_after > eps_before
    expect(lab.metric("ε")).to_have_text(f"{eps_after:.0e}")
    expect(value).to_have_text(var_x_hat(eps_after))
    assert var_x_hat(eps_after) != var_x_hat(eps_before)
    lab.assert_clean()


# --- (c) the input survives a page switch ----------------------------------------------------------


def test_typed_numbers_survive_a_page_switch(lab: Lab) -> None:
    numbers = [2.0, 4.0, 6.0, 20.0]  # mean 8, population variance 50
    lab.open(page_by_url("/variance"), query(src="Type numbers"))
    lab.type_numbers(", ".join(f"{v:g}" for v in numbers))
    expect(lab.metric("σ² (÷d, population)")).to_have_text(fmt(float(ln.variance(numbers))))
    lab.nav_to(page_by_url("/mean"))
    expect(lab.metric("μ (mean)")).to_have_text(fmt(float(ln.mean(numbers))))
    expect(lab.metric("d (features)")).to_have_text(str(len(numbers)))
    lab.assert_clean()


# --- (d) bad typed input is reported in place ------------------------------------------------------


def test_bad_typed_input_shows_a_message_not_an_exception(lab: Lab) -> None:
    lab.open(page_by_url("/mean"), query(src="Type numbers"))
    lab.type_numbers("1, 2, abc")
    expect(lab.sidebar.locator('[data-testid="stAlert"]').filter(has_text="'abc'")).to_be_visible()
    lab.assert_clean()
    assert lab.page.locator(RENDERED_CHART).count() >= 1  # the page still shows the last valid input


# --- (e) a strange link -----------------------------------------------------------------------------


def test_strange_url_renders_without_exception(lab: Lab) -> None:
    lab.open(page_by_url("/mean"), "?d=999999&eps=banana&src=nope")
    expect(lab.page.get_by_text("The link's eps=banana is not a number")).to_be_visible()
    lab.assert_clean()


def test_deep_link_to_a_fresh_server_runs_inside_the_app(browser: BrowserContext, tmp_path: Path) -> None:
    """The first request a new server ever gets is a shared link to a lesson page.

    With the lessons in a folder named ``pages/`` Streamlit starts in its legacy multipage mode
    and would run the page file alone (no app.py: no sections, no shared sidebar). The page must
    come up inside the app anyway: its own title, the app's navigation sections, the sidebar input.
    """
    target = next(p for p in PAGES if p.url == "/which_axis")
    with serve(tmp_path / "server.log") as (base, log):
        tab = browser.new_page()
        try:
            lab = Lab(tab, base)
            lab.open(target, "?d=768")
            nav = tab.locator('[data-testid="stSidebarNav"]')
            expect(nav).to_contain_text("The formula, step by step")
            expect(nav).to_contain_text("Layer versus batch")
            expect(lab.sidebar).to_contain_text("Your vector")
            assert tab.locator(EXCEPTION).count() == 0
            assert lab.page_errors == []
            log.assert_clean("a deep link as the first request")
        finally:
            tab.close()
