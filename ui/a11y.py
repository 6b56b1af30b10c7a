"""What the lab adds to Streamlit's markup so that assistive technology reads every page right.

axe-core (``tests/e2e/test_accessibility.py``) found, on every page in both themes and both sizes,
markup of Streamlit 1.67's own that the lab can mend from outside, soundly, with attributes alone:

- **The pages' menu** is a ``<ul>`` whose children are one ``<div>`` per section, each holding the
  section's header and its ``<li>`` items: a list with no items of its own, and items whose parent is
  not a list (axe's ``list`` and ``listitem``, 72 of 72 page views). Each section's ``<div>`` becomes
  ``role="list"``, named by its header; the ``<ul>`` becomes ``role="none"``. A screen reader then
  reads "App pages" as one list per section ("The formula, step by step, list, 5 items").
- **A region that scrolls sideways** (a formula or a table wider than a phone's column) cannot be
  reached by keyboard (``scrollable-region-focusable``, 12 views at 390 px): it gets ``tabindex="0"``
  while it scrolls, so Tab reaches it and the arrow keys scroll it.

- **Focus** on the menu's and Home's page links was a 15 % tint, and none on the main area (a
  scroller Tab stops on): they get an outline in the text colour (:data:`STYLE`).

The script (``ui/a11y.js``, a hidden ``st.components.v2`` component drawn by ``app.py`` on every
page) runs once per tab and keeps the attributes as the page changes (a ``MutationObserver``). The
captions' contrast, the focus outlines and reduced motion are the lab's own style (:data:`STYLE`).
The Workarounds table in ``docs/ARCHITECTURE.md`` lists the script.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

KEY = "lab_a11y"

# Streamlit draws a caption at opacity 0.6 (#828180 on white: 3.88:1, under the 4.5:1 WCAG AA asks
# of 14 px text, on 9 pages; a link in a caption faded with it). Drawn opaque in 75 % of the text
# colour instead, it reads about 6:1 in the light theme and stays above 9:1 in the dark one, and a
# link in a caption keeps its own colour.
# The lab's one animation, the fade of what a drag's frames do not hold (ui/live/live.css), is off for
# a student whose system asks for reduced motion (the charts never animate: Plotly.react without a
# transition; the training page's Play runs only when pressed, and Pause stops it).
STYLE = (
    "<style>.stMarkdown [data-testid='stCaptionContainer'] "
    "{ opacity: 1; color: color-mix(in srgb, currentColor 75%, transparent); }"
    # The menu's and Home's page links mark focus with a 15 % tint only, and the main area (a scroller
    # Tab stops on) with nothing: a keyboard user lost the place (WCAG 2.4.7)
    "[data-testid='stSidebarNav'] a:focus-visible, [data-testid='stPageLink'] a:focus-visible, "
    "[data-testid='stMain']:focus-visible "
    "{ outline: 2px solid currentColor; outline-offset: -2px; }"
    "@media (prefers-reduced-motion: reduce) "
    "{ [class*='st-key-live_rest_'] { transition: none !important; } }"
    "</style>"
)

_mend = st.components.v2.component(
    KEY,
    html=f"<style>.st-key-{KEY} {{display: none;}}</style>" + STYLE,  # draws nothing, takes no space
    js=Path(__file__).with_name("a11y.js").read_text(encoding="utf-8"),
    isolate_styles=False,  # the style must reach the page's captions
)


def mend_markup() -> None:
    """Draw the hidden element that mends Streamlit's markup for assistive technology (``app.py``,
    on every run of every page, before the page)."""
    _mend(key=KEY)
