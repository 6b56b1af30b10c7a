"""Fixtures shared by the whole test suite.

Only fixtures that several test modules need belong here; a module's own fixtures stay in
that module. The browser tests keep theirs in ``tests/e2e/conftest.py``.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from ui.state import LAB_RERUN


def _clear_cache_data() -> None:
    # Outside a running app Streamlit logs "No runtime found" on every clear; the clear
    # still empties every @st.cache_data function, so keep that warning out of the logs.
    log = logging.getLogger("streamlit.runtime.caching.cache_data_api")
    level = log.level
    log.setLevel(logging.ERROR)
    try:
        st.cache_data.clear()
    finally:
        log.setLevel(level)


@pytest.fixture(autouse=True)
def _clear_streamlit_data_cache() -> Iterator[None]:
    """Give every test an empty ``st.cache_data``.

    AppTest runs share one process, so a value cached by one test would otherwise be
    served to the next (TESTING.md). ``st.cache_resource`` is left alone on purpose: it
    holds read-only shared assets (the MiniLM recording) that are expensive to load.
    """
    _clear_cache_data()
    yield
    _clear_cache_data()


_APPTEST_RUN = AppTest._run


def _run_then_whole_page(self: AppTest, *args: object, **kwargs: object) -> AppTest:
    """``AppTest._run``, then a full run when that run reran only the page's lab sections.

    A move of the sidebar's ε, γ, β, d or seed reruns only the page's lab sections
    (``ui.state.lab_section``); the browser keeps the rest of the page, but AppTest's element
    tree holds only what the last run sent, so the sidebar and the page's text would be missing
    from it. ``tests/test_lab_sections.py`` checks, with the plain ``AppTest._run``, that the
    sections' rerun draws exactly what a full run draws and that nothing outside them changes;
    every other test then reads the whole page, as a full run draws it.
    """
    at = _APPTEST_RUN(self, *args, **kwargs)  # type: ignore[arg-type]
    if at.session_state.get(LAB_RERUN):
        at = _APPTEST_RUN(self, None, kwargs.get("timeout"))  # type: ignore[arg-type]
    return at


@pytest.fixture(autouse=True)
def _whole_page_after_lab_section_reruns(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every AppTest run shows the whole page (see :func:`_run_then_whole_page`); a test marked
    ``keyed_reruns`` sees each run as it is."""
    if request.node.get_closest_marker("keyed_reruns") is None:
        monkeypatch.setattr(AppTest, "_run", _run_then_whole_page)
