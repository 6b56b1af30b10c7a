"""Browser history that Back can trust: a page switch keeps the old page's address whole.

Streamlit 1.67's frontend writes the address bar in two ways. A control the student moves updates
its URL parameter with ``history.replaceState`` (no new entry). A query the *server* changes (a
page switch drops the old page's ``bind="query-params"`` parameters; a link is made canonical)
arrives as a ``page_info_changed`` message, written with ``history.pushState`` on the path the
browser is still on. On a page switch that message comes about 50 ms before the new page's own
``pushState``, so the history reads ``/mean?mean_shift=3``, ``/mean``, ``/variance`` (measured in
Chromium). Back then lands on ``/mean`` without its parameter, and since a link without a parameter
means that control's default, the student's value was lost.

The script ``ui/history.js`` (a hidden ``st.components.v2`` component, drawn by ``app.py`` on every
page) wraps the two calls once per tab:

- a ``pushState`` on the same path as the page shown becomes a ``replaceState``: the server
  changed this page's query, which is no new place to go back to. A second such change before
  the next page's push keeps the address from before the first: the new page's run may write a
  parameter of its own (a link's value made canonical, ``ui.widgets.placement_control``) while the
  browser still shows the old path, and that address had already lost the old page's parameters;
- a ``pushState`` to another path that follows such a change within 2 s, with no other history
  call between, first puts the old page's entry back to the address it had before the change
  (``/mean?mean_shift=3``), then adds the new page.

- a ``pushState`` within 1 s of a Back or Forward (``popstate``) becomes a ``replaceState``: two
  quick Backs start two runs, and the first one's answer arrives after the second Back and pushed
  its page again, on top of the page the student went back to. That cut off the Forward entries
  and made Back alternate between two pages (two Backs 50 ms apart;
  it happened without this module too). The last answer is the page shown, so its address wins.
  A sidebar click within that second adds no Back step, but its address is still right.

Every other call goes through unchanged. ``tests/e2e/test_history_browser.py`` checks Back and
Forward across page switches in Chromium.

A hand-typed link whose text the lab rewrites (``?inv_c=-1e-3`` becomes ``?inv_c=-0.001``, ``?d=17``
becomes ``?d=16``) is rewritten on the session's first runs, before this script is in the page, so
the link as typed stays one entry back: no history call can take an entry out. On Back or Forward
Streamlit seeds each bound widget from the entry's text alone (``inv_c=-1e-3`` matches no option's
text, so c fell back to its default; ``mean_shift=2.25`` was used off the slider's steps), without
the lab's link rules or a word. So when a Back or Forward makes such an entry current (the
Navigation API's ``currententrychange``, which comes before the ``popstate`` where Streamlit reads
the address; a listener on ``popstate`` itself runs after Streamlit's, measured in Chromium), the
script writes each value the lab rewrote in the lab's spelling (``data``:
``ui.session.links.spellings``, kept as the lab reads a link) into that entry: Back onto the typed
link shows and uses the values the lab said it uses. A browser without the Navigation API keeps
Streamlit's reading of the entry.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from ui import session

KEY = "lab_history"
_keep_pages = st.components.v2.component(
    "lab_history",
    html=f"<style>.st-key-{KEY} {{display: none;}}</style>",  # draws nothing, takes no space
    js=Path(__file__).with_name("history.js").read_text(encoding="utf-8"),
    isolate_styles=False,  # the style must reach the element's own container
)


def keep_pages_in_history() -> None:
    """Make the browser's Back return to the previous page with its controls' values.

    Call it on every run of every page (``app.py`` does, before the page). It draws nothing.

    Source: the history calls of Streamlit 1.67's frontend (``handlePageInfoChanged`` pushes the
    server's query change on the current path before the page switch pushes the new path), as
    described in the module's docstring.
    """
    _keep_pages(key=KEY, data=session.links.spellings.get())
