"""How the tests and the fuzzer run the app through AppTest: one harness for both.

``tests/conftest.py`` applies :func:`run_then_whole_page` to every test (but those marked
``keyed_reruns``), and ``tests/fuzz/runner.py`` applies it with :func:`whole_page_runs` around a
fuzz run, so ``pytest`` and ``scripts/fuzz.py`` judge the same page after the same actions.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from streamlit.testing.v1 import AppTest

from ui.keys import LAB_RERUN

_APPTEST_RUN = AppTest._run


def run_then_whole_page(self: AppTest, *args: object, **kwargs: object) -> AppTest:
    """``AppTest._run``, then a full run when that run reran only the page's lab sections.

    A move of the sidebar's ε, γ, β, d or seed reruns only the page's lab sections
    (``ui.state.lab_section``); the browser keeps the rest of the page, but AppTest's element
    tree holds only what the last run sent, so the sidebar and the page's text would be missing
    from it. ``tests/test_lab_sections.py`` checks, with the plain ``AppTest._run``, that the
    sections' rerun draws exactly what a full run draws and that nothing outside them changes;
    every other test, and the fuzzer, then reads the whole page, as a full run draws it.
    """
    at = _APPTEST_RUN(self, *args, **kwargs)  # type: ignore[arg-type]
    if at.session_state.get(LAB_RERUN):
        at = _APPTEST_RUN(self, None, kwargs.get("timeout"))  # type: ignore[arg-type]
    return at


@contextmanager
def whole_page_runs() -> Iterator[None]:
    """Within the block every AppTest run shows the whole page (:func:`run_then_whole_page`)."""
    before = AppTest._run
    AppTest._run = run_then_whole_page  # type: ignore[method-assign]
    try:
        yield
    finally:
        AppTest._run = before  # type: ignore[method-assign]


APP = str(Path(__file__).resolve().parents[1] / "app.py")


def open_page(page: str, **query: str) -> AppTest:
    """A fresh session opened from a link to ``page`` (``"pages/1_mean.py"``) carrying ``query``.

    The whole app runs (the sidebar first, as in a browser) and the page must draw without an
    exception; the returned AppTest shows it.
    """
    at = AppTest.from_file(APP, default_timeout=120)
    for key, value in query.items():
        at.query_params[key] = value
    at.switch_page(page).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def page_text(at: AppTest) -> str:
    """Every sentence a page shows: its Markdown, captions, formulas and messages, one a line."""
    parts = [*at.markdown, *at.caption, *at.latex, *at.info, *at.warning, *at.error, *at.success]
    return "\n".join(str(e.value) for e in parts)
