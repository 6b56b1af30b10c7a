"""Fixtures shared by the whole test suite.

Only fixtures that several test modules need belong here; a module's own fixtures stay in
that module. The browser tests keep theirs in ``tests/e2e/conftest.py``.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest
import streamlit as st


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
