"""The app's shell: every page runs inside ``app.py`` (its navigation and sidebar)."""

from __future__ import annotations

import streamlit as st

from ui import session


def entered_app() -> None:
    """``app.py``, first on every run: this session's pages now run inside the app."""
    session.sections.in_app.set(True)


def ensure_app_shell() -> None:
    """Make sure the page runs inside ``app.py`` (navigation, sidebar), not on its own.

    Because the lessons live in a folder named ``pages/``, Streamlit starts in its
    legacy multipage mode: until that mode is turned off in the process, a request for
    a page (a deep link to a fresh server) executes ``pages/<page>.py`` alone. Turning
    the legacy flag off and rerunning sends that request through ``app.py``; page hashes
    come from the URL path, so the same page opens. Every session whose run never went
    through ``app.py`` reruns, not only the one that finds the flag on: students who open
    a fresh server at the same moment all start their runs in that mode
    (``tests/class_mode/test_fresh_server.py``). (Private flag of Streamlit 1.67, covered
    by the page tests.)
    """
    from streamlit.runtime.pages_manager import PagesManager

    alone = PagesManager.uses_pages_directory or not session.sections.in_app.present()
    PagesManager.uses_pages_directory = False
    if alone:
        st.rerun()
