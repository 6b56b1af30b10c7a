"""How the tests and the fuzzer run the app through AppTest: one harness for both.

``tests/conftest.py`` applies :func:`run_then_whole_page` to every test (but those marked
``keyed_reruns``), and ``tests/fuzz/runner.py`` applies it with :func:`whole_page_runs` around a
fuzz run, so ``pytest`` and ``scripts/fuzz.py`` judge the same page after the same actions.
"""

from __future__ import annotations

import base64
import functools
import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
from chart_specs import charts
from streamlit.components.v2 import manifest_scanner
from streamlit.testing.v1 import AppTest, local_script_runner

from ui import session
from ui.navigation import SECTIONS, address
from ui.settings import EPS_CHOICES

_APPTEST_RUN = AppTest._run

# Every new AppTest's first run looks for Components v2 manifests in the metadata of every installed
# package (82 in the dev environment): 0.5–0.7 s of CPU an AppTest, about half of what opening a page
# costs, and thousands of AppTests in `make test`. The installed packages do not change while the
# tests run, so the scan's answer is kept for the process. The lab's own components are declared in
# code (``st.components.v2.component``), not by manifest, and are registered as before.
manifest_scanner.scan_component_manifests = functools.cache(manifest_scanner.scan_component_manifests)


def _wait_for_the_run(runner: local_script_runner.LocalScriptRunner, timeout: float = 3) -> None:
    """``local_script_runner.require_widgets_deltas``, waiting on the script's thread instead of
    waking every millisecond to look at its events: the polling thread took the GIL from the script
    a thousand times a second (tests/test_page_estimators.py: 62 s of CPU with it, 47 s without).
    On a timeout it stops the run and raises as Streamlit's does."""
    thread = runner._script_thread
    if thread is not None:
        thread.join(timeout)  # the thread ends after the run's SHUTDOWN event (AppTest runs once)
    if runner.script_stopped():
        return
    runner.request_stop()
    runner.join()
    raise RuntimeError(f"AppTest script run timed out after {timeout}(s)")


local_script_runner.require_widgets_deltas = _wait_for_the_run


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
    if at.session_state.get(session.sections.rerun.key):
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
STEP_SECTION = "The formula, step by step"
# Home and the formula's step pages
HOME, MEAN, VAR, STD, SS, FULL = (
    "pages/0_home.py",
    "pages/1_mean.py",
    "pages/2_variance.py",
    "pages/3_standardize.py",
    "pages/4_scale_shift.py",
    "pages/5_full_formula.py",
)
# The step pages (the navigation's section of them), each by its short name
STEP_FILES = {address(e.path).strip("/"): e.path for e in SECTIONS[STEP_SECTION]}


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


def every_message(at: AppTest) -> str:
    """Every element's message as the browser gets it (ids, labels, texts, values, charts' and
    components' data): what a page sends, to check that something is sent nowhere."""
    out: list[str] = []

    def walk(node: Any) -> None:
        out.append(str(getattr(node, "proto", "")))
        for child in getattr(node, "children", {}).values():
            walk(child)

    walk(at._tree)
    return "\n".join(out)


def ok(at: AppTest) -> AppTest:
    """``at``, after checking that its last run raised no exception."""
    assert not at.exception, [e.value for e in at.exception]
    return at


# The sidebar's controls by key, and how AppTest reaches each (``open_with_sidebar``).
_SIDEBAR_WIDGETS = {
    "d": "select_slider",
    "eps": "select_slider",
    "preset": "selectbox",
    "src": "selectbox",
    "typed": "text_area",
    "gamma": "slider",
    "beta": "slider",
}


def open_with_sidebar(page: str, *, timeout: float = 60, **sidebar: Any) -> AppTest:
    """A fresh session on ``page`` (the app's first page run first, then a switch, as a student
    clicks), then each sidebar control in ``sidebar`` set in turn, with a run after each."""
    at = AppTest.from_file(APP, default_timeout=timeout)
    ok(at.run())
    ok(at.switch_page(page).run())
    for key, value in sidebar.items():
        getattr(at, _SIDEBAR_WIDGETS[key])(key=key).set_value(value)
        ok(at.run())
    return at


def at_both_eps_ends(at: AppTest) -> Iterator[float]:
    """The sidebar's ε set to its smallest choice, then to its largest, with a run after each; yields
    each ε once the page shows it."""
    for eps in (EPS_CHOICES[0], EPS_CHOICES[-1]):
        ok(at.select_slider(key="eps").set_value(eps).run())
        yield eps


def type_numbers(at: AppTest, text: str) -> AppTest:
    """The sidebar's source set to "Type numbers" and ``text`` typed into it (a run after each)."""
    ok(at.selectbox(key="src").set_value("Type numbers").run())
    return ok(at.text_area(key="typed").set_value(text).run())


def plotly_array(v: Any) -> np.ndarray:
    """A trace's data as an array: Plotly's typed-array spec (``{dtype, bdata, shape}``) or a list."""
    if isinstance(v, dict) and "bdata" in v:
        a = np.frombuffer(base64.b64decode(v["bdata"]), dtype=np.dtype(v["dtype"]))
        return a.reshape([int(n) for n in str(v["shape"]).split(",")]) if "shape" in v else a
    return np.asarray(v, dtype=float)


def trace(at: AppTest, name: str) -> dict[str, Any]:
    """The first trace named ``name`` in the charts of the last run."""
    for chart in charts(at):
        for tr in json.loads(chart.spec)["data"]:
            if tr.get("name") == name:
                return tr
    raise AssertionError(f"no trace named {name!r}")


def answer_and_reveal(at: AppTest, quiz: str, guess: str) -> AppTest:
    """Pick ``guess`` in the page's predict-then-reveal question ``quiz`` (its radio ``<quiz>_guess``)
    and press its reveal button (``<quiz>_reveal``), with a run after each."""
    at.radio(key=f"{quiz}_guess").set_value(guess)
    ok(at.run())
    at.button(key=f"{quiz}_reveal").click()
    return ok(at.run())
