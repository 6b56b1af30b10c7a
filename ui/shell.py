"""The app's shell: every page runs inside ``app.py`` (its navigation and sidebar)."""

from __future__ import annotations

import streamlit as st


def ensure_app_shell() -> None:
    """Make sure the page runs inside ``app.py`` (navigation, sidebar), not on its own.

    Because the lessons live in a folder named ``pages/``, Streamlit starts in its
    legacy multipage mode: until ``app.py`` has called ``st.navigation`` once in
    the process, a request for a page (a shared deep link to a fresh server)
    executes ``pages/<page>.py`` alone. Turning the legacy flag off and rerunning
    sends that request through ``app.py``; page hashes come from the URL path, so
    the same page opens. (Private flag of Streamlit 1.67, covered by the page tests.)
    """
    from streamlit.runtime.pages_manager import PagesManager

    if PagesManager.uses_pages_directory:
        PagesManager.uses_pages_directory = False
        st.rerun()
