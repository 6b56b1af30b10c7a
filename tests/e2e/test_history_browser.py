"""Back and Forward across page switches keep each page's controls (ui/history.py), in Chromium.

A browser QA pass found Back after a sidebar page switch landing on the old page *without* its URL
parameters, so its controls fell back to their defaults and the student's values were gone for the
rest of the session. Streamlit writes the server's change of the query (the old page's parameters
dropped) as a new history entry on the old path just before the new page's entry.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Locator, expect

import layernorm as ln
from e2e.support import AppPage, Lab, page_by_url, query
from ui.text import digits_to_separate, fmt, rounding_noise

pytestmark = pytest.mark.browser

PRESET = {"src": "Random preset", "preset": "standard normal", "d": 8, "seed": 0}


def _mu_text(shift: float) -> str:
    v = ln.make_preset("standard normal", 8, 0) + shift
    return fmt(float(v.mean()), digits_to_separate([v.mean()], against=v, same_within=rounding_noise(v)))


def _history_length(lab: Lab) -> int:
    return int(lab.page.evaluate("history.length"))


def test_back_returns_to_the_previous_page_with_its_values(lab: Lab) -> None:
    mean, variance = page_by_url("/mean"), page_by_url("/variance")
    lab.open(mean, query(**PRESET))
    thumb = lab.slider("Add the same number c")
    thumb.focus()
    for _ in range(4):
        thumb.press("ArrowRight")  # 0 -> 0.4 (step 0.1), as a student moves it
    expect(thumb).to_have_attribute("aria-valuetext", "0.40")
    expect(lab.metric("μ (mean)")).to_have_text(_mu_text(0.4))
    expect(lab.page).to_have_url(re.compile(r"/mean\?.*mean_shift=0\.4"))
    lab.wait_idle()
    entries = _history_length(lab)

    lab.nav_to(variance)
    assert _history_length(lab) == entries + 1  # one page switch, one entry (was two)
    lab.page.go_back()
    lab.wait_for(mean)
    expect(lab.page).to_have_url(re.compile(r"/mean\?.*mean_shift=0\.4"))
    expect(lab.slider("Add the same number c")).to_have_attribute("aria-valuetext", "0.40")
    expect(lab.metric("μ (mean)")).to_have_text(_mu_text(0.4))

    lab.page.go_forward()
    lab.wait_for(variance)
    lab.nav_to(mean)  # and the sidebar's way back still finds the value
    expect(lab.slider("Add the same number c")).to_have_attribute("aria-valuetext", "0.40")
    expect(lab.metric("μ (mean)")).to_have_text(_mu_text(0.4))
    lab.assert_clean()


def test_back_keeps_a_radio_and_a_select_slider(lab: Lab) -> None:
    precision, mean = page_by_url("/precision"), page_by_url("/mean")
    lab.open(precision, query(**PRESET))
    main = lab.page.locator('[data-testid="stMain"]')
    main.locator('[data-testid="stRadio"] label').filter(has_text=re.compile(r"^bfloat16$")).click()
    expect(lab.page).to_have_url(re.compile(r"prec_dtype=bfloat16"))
    offset = lab.slider("Offset added to every feature")
    offset.focus()
    offset.press("End")  # the largest offset, 1e8
    expect(lab.page).to_have_url(re.compile(r"prec_offset=1e\+?0?8"))
    expect(main.get_by_text("In bfloat16 at this offset", exact=False)).to_be_visible()
    lab.wait_idle()
    shown = offset.get_attribute("aria-valuetext")

    lab.nav_to(mean)
    lab.page.go_back()
    lab.wait_for(precision)
    expect(lab.page).to_have_url(re.compile(r"prec_dtype=bfloat16"))
    expect(lab.slider("Offset added to every feature")).to_have_attribute("aria-valuetext", shown or "")
    # the dtype's radio, not the fused section's mode
    dtype = main.locator('[data-testid="stRadio"]').filter(has=lab.page.get_by_text("bfloat16", exact=True))
    expect(dtype.locator("label:has(input:checked)")).to_have_text("bfloat16")
    expect(main.get_by_text("In bfloat16 at this offset", exact=False)).to_be_visible()
    lab.assert_clean()


def test_two_quick_backs_go_two_steps_and_keep_forward(lab: Lab) -> None:
    """Two Backs 50 ms apart: the first Back's run answers after the second and used to push its page
    again on top (history 5 -> 7, Forward gone, Back alternating between two pages; a browser QA pass)."""
    mean, variance, standardize = page_by_url("/mean"), page_by_url("/variance"), page_by_url("/standardize")
    lab.open(mean, query(**PRESET))
    thumb = lab.slider("Add the same number c")
    thumb.focus()
    for _ in range(6):
        thumb.press("ArrowRight")  # 0 -> 0.6
    expect(lab.page).to_have_url(re.compile(r"/mean\?.*mean_shift=0\.6"))
    lab.wait_idle()
    lab.nav_to(variance)
    lab.nav_to(standardize)
    entries = _history_length(lab)
    lab.page.evaluate("history.back(); setTimeout(() => history.back(), 50)")
    expect(lab.page).to_have_url(re.compile(r"/mean\?.*mean_shift=0\.6"))
    lab.wait_for(mean)
    lab.page.wait_for_timeout(1500)  # the first Back's late answer has arrived by now
    lab.wait_idle()
    expect(lab.page).to_have_url(re.compile(r"/mean\?.*mean_shift=0\.6"))
    expect(lab.slider("Add the same number c")).to_have_attribute("aria-valuetext", "0.60")
    expect(lab.metric("μ (mean)")).to_have_text(_mu_text(0.6))
    assert _history_length(lab) == entries
    lab.page.go_forward()
    lab.wait_for(variance)
    lab.page.go_forward()
    lab.wait_for(standardize)
    expect(lab.page).to_have_url(re.compile(r"/standardize"))
    lab.assert_clean()


def _checked_radio(lab: Lab, label_start: str) -> Locator:
    """The checked option's label of the main area's radio whose label starts with ``label_start``."""
    box = lab.page.locator('[data-testid="stMain"] [data-testid="stRadio"]').filter(has_text=label_start)
    expect(box).to_have_count(1)
    return box.locator("label:has(input:checked)")


DEPTH_RADIO, TF_RADIO = "Where the normalization sits", "Placement"
PRE = "pre-LN: before the sublayer (GPT-2)"


def _pick(lab: Lab, placement: str) -> None:
    """Click a placement option on the page shown and wait until its run is over."""
    lab.page.locator('[data-testid="stMain"] [data-testid="stRadio"] label').filter(
        has_text=re.compile(rf"^{placement}")
    ).click()
    lab.page.wait_for_timeout(300)
    lab.wait_idle()


def _settle_on(lab: Lab, page: AppPage) -> None:
    """After Back or Forward: ``page`` is drawn, and a late rewrite of its address would have come."""
    lab.wait_for(page)
    lab.page.wait_for_timeout(1000)
    lab.wait_idle()


def _agree(lab: Lab, radio: str, key: str, placement: str) -> None:
    """The radio shows ``placement``, and the address says so (post-LN, the default, is left out)."""
    expect(_checked_radio(lab, radio)).to_have_text(re.compile(rf"^{placement}"))
    if placement == "pre-LN":
        expect(lab.page).to_have_url(re.compile(rf"{key}=pre-LN"))
    else:
        expect(lab.page).not_to_have_url(re.compile(rf"{key}=pre-LN"))


def test_back_keeps_the_placement_shared_by_two_pages(lab: Lab) -> None:
    """The placement radio is one choice shown on two pages; Back to either kept neither (QA pass).

    Depth and drift with residual connections and pre-LN, then Inside a real transformer (pre-LN
    too), then Back: the radio used to show post-LN, the URL lost its placement, and the transformer
    page's entry picked up ``depth_residual=true``.
    """
    depth, tf = page_by_url("/depth_and_drift"), page_by_url("/inside_a_transformer")
    lab.open(depth)
    main = lab.page.locator('[data-testid="stMain"]')
    residual = main.locator('[data-testid="stCheckbox"]').filter(has_text="Residual connections")
    residual.locator("label").click()
    expect(lab.page).to_have_url(re.compile(r"depth_residual=true"))
    lab.wait_idle()
    main.locator('[data-testid="stRadio"] label').filter(has_text=re.compile(r"^pre-LN")).click()
    expect(_checked_radio(lab, DEPTH_RADIO)).to_have_text(re.compile(r"^pre-LN"))
    expect(lab.page).to_have_url(re.compile(r"depth_placement=pre-LN"))  # the click's run has begun
    lab.wait_idle()

    lab.nav_to(tf)
    expect(_checked_radio(lab, TF_RADIO)).to_have_text(re.compile(r"^pre-LN"))  # one shared choice
    assert "depth_residual" not in lab.page.url

    lab.page.go_back()
    _settle_on(lab, depth)
    expect(lab.page).to_have_url(re.compile(r"depth_residual=true"))
    expect(_checked_radio(lab, DEPTH_RADIO)).to_have_text(re.compile(r"^pre-LN"))

    lab.page.go_forward()
    _settle_on(lab, tf)
    expect(_checked_radio(lab, TF_RADIO)).to_have_text(re.compile(r"^pre-LN"))
    assert "depth_residual" not in lab.page.url

    # Changed on the transformer page, it is changed on Depth and drift too.
    main.locator('[data-testid="stRadio"] label').filter(has_text=re.compile(r"^post-LN")).click()
    expect(_checked_radio(lab, TF_RADIO)).to_have_text(re.compile(r"^post-LN"))
    lab.wait_idle()
    lab.nav_to(depth)
    expect(_checked_radio(lab, DEPTH_RADIO)).to_have_text(re.compile(r"^post-LN"))
    lab.assert_clean()


def test_back_and_forward_show_what_each_entry_had_and_the_address_agrees(lab: Lab) -> None:
    """QA: pre-LN on Depth, post-LN on the transformer page, Back: Depth showed pre-LN under an address
    saying post-LN (the shared choice was written over the restored entry), and Forward the reverse."""
    depth, tf = page_by_url("/depth_and_drift"), page_by_url("/inside_a_transformer")
    lab.open(depth, query(depth_residual="true"))
    _pick(lab, "pre-LN")
    _agree(lab, DEPTH_RADIO, "depth_placement", "pre-LN")
    lab.nav_to(tf)
    _agree(lab, TF_RADIO, "tf_placement", "pre-LN")  # the shared choice, and in this entry's address
    _pick(lab, "post-LN")
    _agree(lab, TF_RADIO, "tf_placement", "post-LN")
    for step, (page, radio, key, shown) in enumerate(
        [(depth, DEPTH_RADIO, "depth_placement", "pre-LN"), (tf, TF_RADIO, "tf_placement", "post-LN")] * 2
    ):
        lab.page.go_back() if step % 2 == 0 else lab.page.go_forward()
        _settle_on(lab, page)
        _agree(lab, radio, key, shown)  # each entry's own view, radio and address alike
    lab.nav_to(depth)  # the sidebar's way: the placement seen last
    _agree(lab, DEPTH_RADIO, "depth_placement", "post-LN")
    lab.assert_clean()


def test_back_to_a_link_keeps_its_placement(lab: Lab) -> None:
    """QA: a link with tf_placement=pre-LN, then Depth and drift, then Back: the transformer page came
    back post-LN without the parameter (3 of 4 with more keys in the link). The new page's first run
    writes the URL while the browser still shows the old path (ui/history.py keeps the first address)."""
    depth, tf = page_by_url("/depth_and_drift"), page_by_url("/inside_a_transformer")
    for extra in ({}, {"depth_residual": "true", "depth_placement": "post-LN: after the add (BERT)"}):
        lab.open(tf, query(tf_placement=PRE, **extra))
        _agree(lab, TF_RADIO, "tf_placement", "pre-LN")
        lab.nav_to(depth)
        lab.page.go_back()
        _settle_on(lab, tf)
        _agree(lab, TF_RADIO, "tf_placement", "pre-LN")
    lab.assert_clean()


EPS = "ε (inside the square root)"


def test_back_keeps_a_sidebar_value_every_page_shows(lab: Lab) -> None:
    """A sidebar control is one key on every page (drawn by app.py): Back keeps its value too."""
    mean, variance = page_by_url("/mean"), page_by_url("/variance")
    lab.open(mean, query(**PRESET))
    eps = lab.slider(EPS, in_sidebar=True)
    eps.focus()
    eps.press("End")  # the largest ε offered
    expect(lab.page).to_have_url(re.compile(r"eps="))
    lab.wait_idle()
    shown = eps.get_attribute("aria-valuetext")
    lab.nav_to(variance)
    expect(lab.slider(EPS, in_sidebar=True)).to_have_attribute("aria-valuetext", shown or "")
    lab.page.go_back()
    lab.wait_for(mean)
    lab.page.wait_for_timeout(1000)  # a late rewrite of the address would have happened by now
    lab.wait_idle()
    expect(lab.page).to_have_url(re.compile(r"/mean\?.*eps="))
    expect(lab.slider(EPS, in_sidebar=True)).to_have_attribute("aria-valuetext", shown or "")
    lab.assert_clean()
