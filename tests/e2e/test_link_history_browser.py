"""Back onto a hand-typed link shows the values the lab said it uses, in Chromium.

The lab writes a hand-typed link's values in its own spelling (``inv_c=-1e-3`` becomes ``inv_c=-0.001``,
``d=17`` becomes ``d=16``). On a session's first run Streamlit writes that change as a new history
entry, before any of the lab's script is in the page, so the link as typed stays one entry back.
On Back or Forward Streamlit seeds each URL-bound control from the entry's text alone: a value
the lab reads (``-1e-3``) but the control's options do not spell that way fell back to the control's
default, and a value off the control's steps was used as typed, in both cases without a word
(found by a browser QA pass). ``ui/history.py`` gives such an entry the lab's spelling before
Streamlit reads it.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from e2e.support import Lab, page_by_url

pytestmark = pytest.mark.browser

INVARIANCES = page_by_url("/invariances")
C_LABEL = "Scale c"
D_LABEL = "Size d (features)"

# Notes the Back's "popstate" (it comes after ui/history.py has respelled the entry and is where
# Streamlit reads the address and seeds the bound controls). No script run is awaited: when Back
# lands before the move's rerun was sent, the server already has the entry's values and Streamlit
# runs nothing (measured: the page showed the right c and URL, with no run after Back).
_WATCH_BACK = """() => { window.__backed = false;
    addEventListener('popstate', () => { window.__backed = true; }, {once: true}); }"""

# The c the Invariances page computed with (the line under its formula starts "c = …") equals the
# slider's, and no run is going.
_C_SETTLED = f"""() => {{
    const a = [...document.querySelectorAll('[data-testid="stMain"] annotation')]
        .map(e => e.textContent).find(t => t.startsWith('c = '));
    const v = [...document.querySelectorAll('[data-testid="stMain"] [data-testid="stSlider"]')]
        .find(e => e.innerText.startsWith({C_LABEL!r}))?.querySelector('input[type="range"]')
        ?.getAttribute('aria-valuetext');
    const idle = document.querySelector('[data-testid="stApp"]').getAttribute('data-test-script-state');
    if (!a || !v || idle !== 'notRunning') return false;
    const number = s => parseFloat(s.replace('\\u2212', '-').replace('\\u00d7 10^{{', 'e').replace('}}', ''));
    return Math.abs(number(v) - number(a.slice(4).split(',')[0].trim())) <= 1e-9 * Math.abs(number(v));
}}"""


def _back(lab: Lab) -> None:
    """Press Back and wait until Streamlit has read the entry it lands on and no run is going."""
    lab.page.evaluate(_WATCH_BACK)
    lab.page.go_back()
    lab.page.wait_for_function("() => window.__backed")
    lab.wait_idle()


@pytest.mark.parametrize(
    ("query", "shown", "in_url", "move"),
    [
        # −1 is offered, shown "−1" and written "-1" (ASCII); Back straight after opening the link
        ("?src=Type+numbers&typed=1,2,4,8&inv_c=%E2%88%921&inv_b=3", "−1", "inv_c=-1", False),
        ("?inv_c=-1e-3", "−0.001", "inv_c=-0.001", True),
        ("?inv_c=7", "10", "inv_c=10", True),  # not offered: the nearest, said
    ],
)
def test_back_onto_a_hand_typed_page_link_shows_the_value_the_lab_said(
    lab: Lab, query: str, shown: str, in_url: str, move: bool
) -> None:
    lab.open(INVARIANCES, query)
    thumb = lab.slider(C_LABEL)
    expect(thumb).to_have_attribute("aria-valuetext", shown)
    if move:  # the student moves c first (a replaced entry): Back goes to the link's entry all the same
        thumb.focus()
        thumb.press("ArrowRight")
        expect(thumb).not_to_have_attribute("aria-valuetext", shown)
        lab.wait_idle()
    else:  # the lab's spelling of the link is a new entry; a Back before it exists leaves the app
        lab.page.wait_for_url(lambda url: in_url in url)
    _back(lab)
    lab.page.wait_for_function(_C_SETTLED)
    expect(lab.slider(C_LABEL)).to_have_attribute("aria-valuetext", shown)
    assert in_url in lab.page.url, f"after Back from {query}: {lab.page.url}"
    if "inv_b=3" in query:
        expect(lab.slider("Add b to every feature")).to_have_attribute("aria-valuetext", "3.00")
    lab.assert_clean()


def test_back_onto_a_hand_typed_sidebar_link_shows_the_value_the_lab_said(lab: Lab) -> None:
    """d=17 is between two sizes offered: the lab uses 16 and says so; Back showed the default 8."""
    lab.open(INVARIANCES, "?d=17")
    d = lab.slider(D_LABEL, in_sidebar=True)
    expect(d).to_have_attribute("aria-valuetext", "16")
    d.focus()
    d.press("ArrowRight")
    expect(d).to_have_attribute("aria-valuetext", "24")
    lab.wait_idle()
    _back(lab)
    expect(lab.slider(D_LABEL, in_sidebar=True)).to_have_attribute("aria-valuetext", "16")
    expect(lab.page).to_have_url(re.compile(r"[?&]d=16(&|$)"))
    lab.assert_clean()
