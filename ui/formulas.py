"""Formulas that fit their column: a displayed formula wider than its column is drawn smaller.

KaTeX lays a displayed formula (``st.latex``) out on one line, and Streamlit 1.67 lets a line wider
than its column scroll sideways, with no scroll bar in sight. On a 1024×768 projector with the
sidebar open, the main column is 564 pixels wide, and eight lines ran past it: Precision's
"float32, offset 1e4: σ² = 1.00007032 × 10⁸ − 1.00007032 × 10⁸ = 0" lost the result it exists to
show, Invariances' y(c·x + b) and the Full formula's x̂ lost their last numbers (measured by a
sweep of every page).

The script ``ui/formulas.js`` (a hidden ``st.components.v2`` component, drawn by ``app.py`` on every
page) sets such a line's font size so that it fits: its width over the column's gives the factor,
down to 60% of KaTeX's size (below that, a line would be too small to read from the back of a room,
and it scrolls as before). It runs after every change of the page's formulas (a
``MutationObserver``, at the next animation frame) and of a column's width (a ``ResizeObserver``),
and it only reads and writes ``.katex-display`` elements: text the user controls never reaches it.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

KEY = "lab_fit_formulas"
SMALLEST = 0.6  # of KaTeX's own display size (1.21em)

_fit_formulas = st.components.v2.component(
    KEY,
    html=f"<style>.st-key-{KEY} {{display: none;}}</style>",  # draws nothing, takes no space
    js=Path(__file__).with_name("formulas.js").read_text(encoding="utf-8"),
    isolate_styles=False,  # the style must reach the element's own container
)


def fit_formulas() -> None:
    """Make every displayed formula of the page fit its column (once per tab; draws nothing).

    Call it on every run of every page (``app.py`` does, before the page). A line wider than its
    column is drawn smaller, down to :data:`SMALLEST` of KaTeX's size; a line that would need less
    scrolls sideways, as Streamlit draws it.

    Source: KaTeX's display size (``.katex-display > .katex``, 1.21em) as Streamlit 1.67 ships it,
    measured in Chromium by ``tests/e2e/test_presentation_browser.py``.
    """
    _fit_formulas(key=KEY, data={"smallest": SMALLEST})
