"""Shared links and user text in a real browser: the frontend, not the server, renders Markdown.

Kind 4: ``/mean?preset=%60%20%5Bclick%5D(https%3A%2F%2Fexample.com)%20%60`` once put a clickable
link into the sidebar's warning. Whatever a link, a file name or typed text holds is shown as its
own characters: no ``<a>``, no bold, no colour, no icon, no formula, and a 10,000-character value
gives a short message. Kind 5: link values are numbers, matched within rounding (``eps=1e-7``
selects the slider's 1e-07), and a repeated key uses its last value and says so.

Every test here also fails on a warning or traceback in the server's log (``conftest.py``).
"""

from __future__ import annotations

import re
import urllib.parse

import numpy as np
import pytest
from playwright.sync_api import Locator, expect

import layernorm as ln
from e2e.support import Lab, Tabs, page_by_url, query
from ui.text import WORD_JOINER, fmt

pytestmark = pytest.mark.browser

MEAN = page_by_url("/mean")
X, TYPED = [0.1, -2.5, 1e-8, 7.0], "0.1, -2.5, 1e-08, 7"  # a file's numbers, as typed numbers
ISSUE_LINK = "?preset=%60%20%5Bclick%5D(https%3A%2F%2Fexample.com)%20%60"
# Elements a Markdown renderer makes; none may come from a user's text.
MARKUP = (
    "a, strong, em, code, pre, del, img, h1, h2, h3, ul, ol, li, blockquote, table, .katex, "
    'span[role="img"], .stMarkdownColoredText, .stMarkdownColoredBackground, .stMarkdownBadge'
)


def _alerts(lab: Lab) -> Locator:
    return lab.sidebar.locator('[data-testid="stAlert"]')


def _text(alert: Locator) -> str:
    """An alert's message as a reader sees it: no icon, the invisible U+2060 (it breaks shortcodes
    and autolinks) dropped, white space as the browser collapses it."""
    body = alert.locator('[data-testid="stMarkdownContainer"]').first.text_content() or ""
    return " ".join(body.replace(WORD_JOINER, "").split())


def test_the_issues_link_shows_its_text_and_no_link(lab: Lab) -> None:
    lab.open(MEAN, ISSUE_LINK)
    alert = _alerts(lab).filter(has_text="is not one of the presets")
    expect(alert).to_have_count(1)
    assert alert.locator("a").count() == 0 and alert.locator(MARKUP).count() == 0
    assert _text(alert) == (
        "The link's preset=` [click](https://example.com) ` is not one of the presets; "
        "the lab uses the default preset “standard normal”."
    )
    expect(lab.sidebar.get_by_role("combobox", name="Preset")).to_have_value("standard normal")
    lab.assert_clean()


@pytest.mark.parametrize(
    "value",
    [
        "**bold** _em_ $x^2$",
        ":red[x] :blue-background[y] :material/home: :smile:",
        "<b>x</b> <img src=x onerror=alert(1)>",
        "https://example.com www.e.org a@b.org -> <=",
        "# h - li > q",
    ],
)
def test_hostile_link_values_render_as_their_characters(lab: Lab, value: str) -> None:
    lab.open(MEAN, query(preset=value))
    alert = _alerts(lab).filter(has_text="is not one of the presets")
    expect(alert).to_have_count(1)
    assert alert.locator(MARKUP).count() == 0, alert.inner_html()
    assert f"preset={value} is not one of the presets" in _text(alert)
    lab.assert_clean()


def test_a_10000_character_link_value_gives_a_short_message(lab: Lab) -> None:
    lab.open(MEAN, "?" + urllib.parse.urlencode({"preset": "x" * 10_000}))
    alert = _alerts(lab).filter(has_text="is not one of the presets")
    expect(alert).to_have_count(1)
    text = _text(alert)
    assert "x" * 60 + "… (10,000 characters) is not one of the presets" in text
    assert len(text) < 250
    lab.assert_clean()


def test_eps_1e_7_selects_the_sliders_1e_07_without_a_warning(lab: Lab) -> None:
    lab.open(MEAN, "?eps=1e-7")
    expect(lab.slider("ε", in_sidebar=True)).to_have_attribute("aria-valuetext", "1e-07")
    expect(lab.page).to_have_url(re.compile(r"[?&]eps=1e-07(&|$)"))  # a copied link says the same
    assert _alerts(lab).count() == 0
    lab.assert_clean()


def test_a_repeated_key_uses_the_last_value_and_says_so(lab: Lab) -> None:
    lab.open(MEAN, "?d=16&d=768")
    expect(lab.metric("d (features)")).to_have_text("768")
    expect(lab.slider("Size d", in_sidebar=True)).to_have_attribute("aria-valuetext", "768")
    alert = _alerts(lab)
    expect(alert).to_have_count(1)
    assert _text(alert) == "d=16&d=768: the link gives d twice; the lab uses d = 768 (the last)."
    assert "d=768" in lab.page.url and "d=16" not in lab.page.url
    lab.assert_clean()


def test_off_step_and_out_of_range_values_say_the_value_used(lab: Lab) -> None:
    lab.open(MEAN, "?gamma=0.52&seed=007&d=16.0&eps=banana")
    expect(lab.slider("γ", in_sidebar=True)).to_have_attribute("aria-valuetext", "0.50")
    expect(lab.metric("d (features)")).to_have_text("16")
    expect(lab.sidebar.get_by_role("spinbutton", name="Seed")).to_have_value("7")
    alert = _alerts(lab)
    expect(alert).to_have_count(1)
    assert _text(alert) == (
        "The link's gamma=0.52 is not on the slider's steps of 0.05; the lab uses the nearest step, "
        "γ = 0.5. The link's eps=banana is not a number; the lab uses the default ε = 1e-05."
    )
    lab.assert_clean()


def _upload_and_see_title(lab: Lab, name: str) -> tuple[Locator, Locator]:
    """Open Mean, upload ``1,2,3,10`` as a file named ``name``: (the uploader, Mean's first chart title),
    once the title names the file exactly as it was named."""
    lab.open(MEAN, query(src="Upload a file"))
    uploader = lab.sidebar.locator('input[type="file"]')
    uploader.set_input_files(files=[{"name": name, "mimeType": "text/csv", "buffer": b"1,2,3,10\n"}])
    title = lab.page.locator(".gtitle").filter(has_text="The input (file ")
    expect(title).to_have_text(f"The input (file {name}) plus c, and its mean")
    return uploader, title


def test_a_file_name_like_a_colour_placeholder_stays_as_typed_in_the_chart(lab: Lab) -> None:
    """The browser fills Streamlit's colour placeholders (#000001 … #000040) anywhere in a figure."""
    _upload_and_see_title(lab, "run#000012.csv")


def test_a_hostile_file_name_is_plain_in_the_sidebar_chart_and_warning(lab: Lab) -> None:
    name = "<b>x</b> [a](https:e.com) **b** $x$ :red[r].csv"
    uploader, title = _upload_and_see_title(lab, name)
    assert title.locator("a").count() == 0  # and the <b> is text: Plotly made no markup of it

    uploader.set_input_files(files=[{"name": "bad.csv", "mimeType": "text/csv", "buffer": b"1,oops\n"}])
    warning = lab.page.locator('[data-testid="stMain"] [data-testid="stAlert"]').filter(
        has_text="Your input has a problem"
    )
    expect(warning).to_have_count(1)
    assert warning.locator(MARKUP).count() == 0
    assert f"so the pages show: file {name} (last valid input)." in _text(warning)
    lab.assert_clean()


def test_typed_text_quoted_in_an_error_is_plain(lab: Lab) -> None:
    lab.open(MEAN, query(src="Type numbers"))
    token = "**b**<i>x</i>:smile:$z$_u_"  # brackets and commas would split it: the parser ignores them
    lab.type_numbers(f"1, 2, {token}")
    error = lab.sidebar.locator('[data-testid="stAlert"]').filter(has_text="is not a number")
    expect(error).to_have_count(1)
    assert error.locator(MARKUP).count() == 0
    assert _text(error).startswith(f"'{token}' (item 3, line 1) is not a number.")
    lab.assert_clean()


def _main_alerts(lab: Lab) -> Locator:
    return lab.page.locator('[data-testid="stMain"] [data-testid="stAlert"]')


@pytest.mark.parametrize(
    ("url", "query", "label", "key", "after"),
    [
        ("/mean", "?mean_shift=99", "Add the same number c", "Home", "mean_shift=-10"),
        ("/variance", "?var_scale=2&var_scale=5", "Stretch", "Home", "var_scale=0.1"),
    ],
)
def test_a_page_controls_link_warning_goes_once_the_student_moves_it(
    lab: Lab, url: str, query: str, label: str, key: str, after: str
) -> None:
    """QA: the control sits in a fragment; its rerun skipped the sidebar, which cleared the warning,
    so "the lab uses c = 10" stayed on screen next to c = −10."""
    lab.open(page_by_url(url), query)
    expect(_main_alerts(lab)).to_have_count(1)
    thumb = lab.page.locator('[data-testid="stMain"] [data-testid="stSlider"]').filter(has_text=label)
    thumb.get_by_role("slider").press(key)
    expect(lab.page).to_have_url(re.compile(re.escape(after)))
    lab.wait_idle()
    expect(_main_alerts(lab)).to_have_count(0)
    lab.assert_clean()


def test_a_negative_shift_points_down(lab: Lab) -> None:
    """QA: the μ metric's delta "−10" (a true minus) showed an up arrow; Streamlit reads only "-"."""
    lab.open(MEAN, "?mean_shift=-10")
    delta = (
        lab.page.locator('[data-testid="stMetric"]')
        .filter(has_text="μ (mean)")
        .locator('[data-testid="stMetricDelta"]')
    )
    expect(delta).to_contain_text("−10")
    expect(delta.locator("svg")).to_have_attribute("data-testid", re.compile("Down"))
    lab.assert_clean()


def test_another_pages_link_value_counts_when_the_menu_opens_that_page(lab: Lab) -> None:
    """QA: /mean?depth_layers=100 said nothing; then the menu opened Depth and drift at L = 30."""
    lab.open(MEAN, "?depth_layers=100")
    note = lab.sidebar.locator('[data-testid="stAlert"]').filter(has_text="Depth and drift")
    expect(note).to_contain_text("it is used when you open that page")
    lab.nav_to(page_by_url("/depth_and_drift"))  # the menu: the URL's query does not come along
    layers = lab.page.locator('[data-testid="stMain"] [data-testid="stSlider"]').filter(has_text="Layers L")
    expect(layers.get_by_role("slider")).to_have_value("100")
    expect(lab.page).to_have_url(re.compile(r"depth_layers=100"))  # and the view's link says so
    expect(lab.sidebar.locator('[data-testid="stAlert"]')).to_have_count(0)
    lab.assert_clean()


def test_a_files_numbers_reach_a_fresh_tab_through_the_link(lab: Lab, tabs: Tabs, server: str) -> None:
    # A link carries no file or table (a QA pass found a copied link opened on other numbers without
    # a word). "Put these numbers in the link" makes them typed numbers, which the address carries.
    lab.open(MEAN, query(src="Upload a file"))
    lab.sidebar.locator('input[type="file"]').set_input_files(
        files=[{"name": "v.csv", "mimeType": "text/csv", "buffer": b"0.1\n-2.5\n1e-8\n7\n"}]
    )
    mu_value = lab.metric("μ (mean)")
    expect(mu_value).to_have_text(fmt(float(ln.mean(np.array(X)))))
    lab.sidebar.get_by_role("button", name="Put these numbers in the link").click()
    expect(lab.sidebar.locator("textarea")).to_have_value(TYPED)
    expect(lab.page).to_have_url(re.compile(r"[?&]typed=" + re.escape(urllib.parse.quote_plus(TYPED))))
    lab.assert_clean()

    with tabs.one() as tab:  # another session: what a student opening the link sees
        fresh = Lab(tab, server)
        fresh.page.goto(lab.page.url)
        fresh.wait_for(MEAN)
        expect(fresh.sidebar.locator("textarea")).to_have_value(TYPED)
        expect(fresh.metric("μ (mean)")).to_have_text(fmt(float(ln.mean(np.array(X)))))
        expect(fresh.sidebar).not_to_contain_text("carries no")
        fresh.assert_clean()
        fresh.let_go()


def test_a_link_to_the_table_input_says_it_carries_no_table(lab: Lab) -> None:
    lab.open(MEAN, query(src="Edit a table"))
    alert = _alerts(lab).filter(has_text="A link carries no table")
    expect(alert).to_have_count(1)
    assert "(1, 2, 3, 4)" in _text(alert) and "“Put these numbers in the link”" in _text(alert)
    lab.assert_clean()


def _link_alerts(lab: Lab) -> Locator:
    """The link's messages, wherever they are: the main area (each above its control) and the sidebar."""
    return lab.page.locator('[data-testid="stAlert"]').filter(has_text=re.compile(r"[Tt]he link"))


@pytest.mark.parametrize(
    ("url", "query", "label"),
    [
        ("/train_vs_inference", "?tvi_shift=inf&tvi_mode=foo&tvi_redraws=25&tvi_n=2.5&eps=abc", "Redraws"),
        ("/learning_rate", "?lr_gain=2.5&lr_pick=0.02", "Loss curves at learning rate"),
        ("/depth_and_drift", "?depth_gain=9&depth_pick=7.5", "Inspect layer"),
    ],
    ids=["tvi", "lr", "depth"],
)
def test_a_links_messages_all_go_at_the_first_action_in_any_section(
    lab: Lab, url: str, query: str, label: str
) -> None:
    """Browser QA: the messages lived in several fragments (and the sidebar), and a control's rerun redrew
    only its own: "the lab uses n = 3" stayed above n after a move of the redraws, and Learning
    rate's init-scale note after a move of the curves' learning rate. A fresh tab shows none."""
    lab.open(page_by_url(url), query)
    messages = _link_alerts(lab)
    expect(messages.first).to_be_visible()
    assert messages.count() >= 2, messages.all_inner_texts()  # in more than the moved control's section
    thumb = lab.page.locator('[data-testid="stMain"] [data-testid="stSlider"]').filter(has_text=label)
    before = thumb.get_by_role("slider").get_attribute("aria-valuetext")
    thumb.get_by_role("slider").focus()
    thumb.get_by_role("slider").press("ArrowLeft")
    expect(thumb.get_by_role("slider")).not_to_have_attribute("aria-valuetext", before or "")
    lab.wait_idle()
    expect(messages).to_have_count(0)
    lab.assert_clean()


def test_answering_the_question_takes_a_links_messages_away(lab: Lab) -> None:
    lab.open(MEAN, "?mean_shift=99")
    expect(_main_alerts(lab)).to_have_count(1)
    # the box's radio by its key (a block found by its text may be drawn before its radio is)
    lab.page.locator('.st-key-mean_q_guess label:has(input[type="radio"])').first.click()
    lab.wait_idle()
    expect(_link_alerts(lab)).to_have_count(0)
    lab.assert_clean()
