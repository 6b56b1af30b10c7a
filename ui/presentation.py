"""Presentation mode: the lab on a 1280×720 projector, read from the back row.

One toggle in the sidebar, "Presentation mode (projector)", kept across pages and carried by the
link as ``present=true`` (:func:`ui.controls.flag`). When it is on:

- text, widget labels and metric values are larger (the page's root font goes from 16 to 20 px, so
  everything Streamlit sizes in rem grows with it; metric values grow a little more, but never past
  their column: a value shrinks to fit it and wraps at its spaces rather than end in an ellipsis);
- charts get 22 px fonts and lines 1.5 times as thick (:func:`ui.theme.finish` reads the toggle);
- the code expander at the end of a page ("The code behind these numbers") is folded away. Every
  paragraph and caption is shown whole, the page's intro first: in front of a class nobody rests a
  pointer on a paragraph to read past its third line, and a caption often says when the claim
  beside it holds ("ε is not ≪ σ² here").

Only CSS changes, and it hides no control: every widget stays where it was and keeps its place in
the keyboard's Tab order. The style sheet is a constant: no user text ever reaches it.
"""

from __future__ import annotations

import streamlit as st

from ui import controls
from ui.theme import PRESENT_KEY

LABEL = "Presentation mode (projector)"

# The code expander: `.st-key-code_expander` once ui/page.py's show_source wraps its expander in
# st.container(key="code_expander"); until then, the expander that ends a page (show_source is always
# a page's last element).
_CODE = (
    ".st-key-code_expander",
    '[data-testid="stMainBlockContainer"] > [data-testid="stVerticalBlock"]'
    ' > :last-child:has(> [data-testid="stExpander"])',
)
STYLE = f"""<style>
html {{ font-size: 20px; }}
[data-testid="stMainBlockContainer"] {{ padding: 4rem 2rem 4rem 2rem; }}
[data-testid="stMain"] h1 {{ font-size: 2.4rem; }}
[data-testid="stMetric"] {{ container-type: inline-size; }}
[data-testid="stMetricValue"] {{ font-size: min(2.6rem, 19cqi); }}
[data-testid="stMetricValue"] p {{ white-space: normal !important; }}
[data-testid="stMetricLabel"] p {{ font-size: 1rem; }}
{", ".join(_CODE)} {{ display: none; }}
</style>"""


# On every page, in both modes: a label or a number that does not fit its column wraps at its spaces
# (and a metric's value shrinks to fit first) instead of ending in an ellipsis. At 1024×768 with the
# sidebar open, Streamlit cut values ("0.99996…" on Standardize, "2.070e−0…" on Invariances, a
# silently different number) and labels ("LayerNorm moved…", "Undo for this vector: γ = σ, β…"); in
# presentation mode the sidebar's section names too ("The formula, step by st…").
BASE_STYLE = """<style>
[data-testid="stMetric"] { container-type: inline-size; }
[data-testid="stMetricValue"] { font-size: min(2.25rem, 16cqi); }
[data-testid="stMetricValue"] p, [data-testid="stMetricLabel"] p, [data-testid="stWidgetLabel"] p,
[data-testid^="stBaseButton"] p { white-space: normal !important; }
[data-testid="stNavSectionHeader"] .stMarkdownEllipsis, [data-testid="stNavSectionHeader"] p {
  white-space: normal !important; overflow: visible !important; text-overflow: clip !important;
}
</style>"""


def presentation_toggle() -> bool:
    """The sidebar toggle (URL key ``present``); when on, restyle the page for a projector.

    ``app.py`` calls this on every run, right after the sidebar. Charts read the same toggle when
    they are built (:func:`ui.theme.presenting`), so they need nothing from here. In both modes it
    draws :data:`BASE_STYLE`, which wraps labels and numbers that do not fit rather than cut them.
    """
    on = controls.flag("toggle", LABEL, False, key=PRESENT_KEY, where=st.sidebar, name="presentation mode")
    st.html(BASE_STYLE)  # in both modes (no room on the page)
    if on:
        st.html(STYLE)  # a <style> alone: Streamlit adds it without taking room on the page
    return on
