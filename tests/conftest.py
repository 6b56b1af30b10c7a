"""Fixtures shared by the whole test suite.

Only fixtures that several test modules need belong here; a module's own fixtures stay in
that module. The browser tests keep theirs in ``tests/e2e/conftest.py``.
"""

from __future__ import annotations

import base64
import logging
import os
import random
import secrets
import zlib
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import streamlit as st
from apptest_support import run_then_whole_page
from hypothesis import HealthCheck, settings
from streamlit.runtime.media_file_manager import MediaFileManager
from streamlit.testing.v1 import AppTest

from ui import live

# Property tests draw the same examples on every run, so `make test` passes or fails the same way
# each time; a failure prints its example and a @reproduce_failure blob. HYPOTHESIS_PROFILE=fuzz
# draws new examples (and more, where a test does not set its own count) to explore. No deadline:
# an example's time depends on the machine's load (test_formula's took 405 ms beside three other
# workers), and a test must not fail by chance.
settings.register_profile("ci", derandomize=True, database=None, print_blob=True, deadline=None)
settings.register_profile(
    "fuzz",
    derandomize=False,
    database=None,
    print_blob=True,
    max_examples=1000,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(autouse=True)
def _app_draws_from_the_test_name(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """The app's own random draws in this process come from a generator seeded by the test's name.

    The lab draws the quiz's seed, a class's code, its teacher key and a student's seat with
    ``secrets``. Drawn at random, they made a test's data differ from run to run (a quiz of other
    numbers; a teacher key ending in the very character a test changed its last one to, one run in
    64). Seeded by the test's name, each test sees the same values on every run and worker, and two
    tests see different ones. Nothing in a test process needs them secret; a server the browser
    tests start is another process and draws its own.
    """
    rng = random.Random(zlib.crc32(request.node.nodeid.encode()))

    def token_urlsafe(nbytes: int | None = None) -> str:
        return base64.urlsafe_b64encode(rng.randbytes(32 if nbytes is None else nbytes)).rstrip(b"=").decode()

    monkeypatch.setattr(secrets, "randbelow", rng.randrange)
    monkeypatch.setattr(secrets, "choice", rng.choice)
    monkeypatch.setattr(secrets, "token_urlsafe", token_urlsafe)


@pytest.fixture(autouse=True, scope="session")
def _class_database(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Class mode's store in AppTest runs: a database of this test process, not the repository's data/."""
    folder = tmp_path_factory.mktemp("classes")
    os.environ.setdefault("LAB_DATABASE_URL", f"sqlite:///{folder / 'classes.sqlite3'}")


def _quietly(clear: Callable[[], None]) -> None:
    # Outside a running app Streamlit logs "No runtime found" on every clear; the clear
    # still empties the caches, so keep that warning out of the logs.
    logs = [
        logging.getLogger(f"streamlit.runtime.caching.{api}")
        for api in ("cache_data_api", "cache_resource_api")
    ]
    levels = [log.level for log in logs]
    for log in logs:
        log.setLevel(logging.ERROR)
    try:
        clear()
    finally:
        for log, level in zip(logs, levels, strict=True):
            log.setLevel(level)


@pytest.fixture(autouse=True)
def _clear_streamlit_data_cache() -> Iterator[None]:
    """Give every test an empty ``st.cache_data``.

    AppTest runs share one process, so a value cached by one test would otherwise be
    served to the next (docs/TESTING.md). ``st.cache_resource`` is left alone on purpose: it
    holds read-only shared assets (the MiniLM recording) that are expensive to load, and the live
    sliders' frames (``ui.live.frames_cache``), which a test process keeps across its tests as a
    server keeps them across its sessions: making them again in every test was 30% of the CPU of
    ``tests/test_lab_sections.py``, ``test_page_links.py``, ``test_pages_steps.py`` and
    ``test_section_reruns.py``. A test that counts the frames a session makes asks for
    ``empty_frame_caches``.
    """
    _quietly(st.cache_data.clear)
    yield
    _quietly(st.cache_data.clear)


@pytest.fixture
def empty_frame_caches() -> None:
    """Every ``ui.live.frames_cache`` empty, as in a server no session has used yet."""
    _quietly(live.clear_frame_caches)


@pytest.fixture(autouse=True)
def _whole_page_after_lab_section_reruns(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every AppTest run shows the whole page (see :func:`apptest_support.run_then_whole_page`); a test marked
    ``keyed_reruns`` sees each run as it is."""
    if request.node.get_closest_marker("keyed_reruns") is None:
        monkeypatch.setattr(AppTest, "_run", run_then_whole_page)


@pytest.fixture
def deferred(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Callable[[], Any]]]:
    """``file name: callable`` of every download a page registered (Streamlit runs them on click)."""
    made: dict[str, Callable[[], Any]] = {}
    original = MediaFileManager.add_deferred

    def add_deferred(self: MediaFileManager, data: Callable[[], Any], *args: Any, **kwargs: Any) -> str:
        made[str(kwargs.get("file_name"))] = data
        return original(self, data, *args, **kwargs)

    monkeypatch.setattr(MediaFileManager, "add_deferred", add_deferred)
    yield made
