"""What the real-browser tests share: the app's pages, a driver for one tab, the server's log.

The fixtures that start the server and Chromium are in ``conftest.py`` beside this file; every
``test_*.py`` here imports what it needs from this module (``from e2e.support import ...``).
"""

from __future__ import annotations

import ast
import contextlib
import re
import urllib.parse
import weakref
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import BrowserContext, Locator, Page, ViewportSize, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from scripts.browser import IDLE, WS_TAP_JS, streamlit_server
from ui.lessons import LESSONS
from ui.navigation import HIDDEN, OWN_DATA_SECTIONS, SECTIONS

ROOT = Path(__file__).resolve().parents[2]
CHART = '[data-testid="labChart"]'  # a chart drawn by ui.plot.show: the div plotly.js draws in
RENDERED_CHART = f"{CHART} .main-svg"
UNANSWERED = "[data-testid=labLive][data-sent]"  # a live slider released, its run not yet drawn
EXCEPTION = '[data-testid="stException"]'
LESSON_LINKS = '[data-testid="stMain"] [data-testid="stPageLink-NavLink"]'
# Home's page links (pages/0_home.py): one per lesson page of the navigation, one per worked lesson
HOME_LINKS = sum(e.question is not None for entries in SECTIONS.values() for e in entries) + len(LESSONS)
WAIT_MS = 30_000
REAL_TOKEN = "Real token (MiniLM)"  # ui.settings.SOURCES; the URL carries the option's text
MINILM_D = 384

expect.set_options(timeout=WAIT_MS)


# --- which pages exist and where they live --------------------------------------------------------


@dataclass(frozen=True)
class AppPage:
    file: str  # "pages/1_mean.py"
    url: str  # "/mean"
    section: str  # the st.navigation section in app.py
    title: str | None  # the page's st.title / page.header text, when it is a plain string
    charts: bool  # the page draws Plotly charts (the quiz draws none)


def _navigation() -> dict[str, list[tuple[str, str, str]]]:
    """The app's navigation (ui/navigation.py): {section: [(path, title, icon), ...]}."""
    return {section: [(e.path, e.title, e.icon) for e in entries] for section, entries in SECTIONS.items()}


def _page_title(path: Path) -> str | None:
    """The first plain-string argument of ``st.title(...)`` or ``page.header(...)`` in a page file."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in {"title", "header"}
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            return node.args[0].value
    return None


def _url_path(file: Path) -> str:
    """pages/1_mean.py -> /mean; the home page (pages/0_*.py, the default) -> /."""
    if file.stem.startswith("0_"):
        return "/"
    return "/" + re.sub(r"^\d+_", "", file.stem)


def _app_pages() -> list[AppPage]:
    listed = {path: section for section, entries in _navigation().items() for path, _, _ in entries}
    hidden = {e.path for e in HIDDEN}  # pages no menu lists (the projector view): not lessons
    found = [p for p in (ROOT / "pages").glob("*.py") if f"pages/{p.name}" not in hidden]
    files = sorted(found, key=lambda p: int(p.stem.split("_")[0]))
    return [
        AppPage(
            file=f"pages/{f.name}",
            url=_url_path(f),
            section=listed.get(f"pages/{f.name}", ""),
            title=_page_title(f),
            charts=any(call in f.read_text(encoding="utf-8") for call in ("plot.show(", "show_chart(")),
        )
        for f in files
    ]


PAGES = _app_pages()
STEP_PAGES = [p for p in PAGES if p.section == "The formula, step by step"]
# The pages that read the sidebar's vector (app.py's other sections make their own data)
VECTOR_PAGES = [p for p in PAGES if p.section not in OWN_DATA_SECTIONS]


# --- the server and its log -------------------------------------------------------------------------

# A line of the server's log that means something went wrong: Python's tracebacks and any record
# Streamlit logs at WARNING or above ("2026-11-30 10:00:00.000 WARNING streamlit...", or the
# bare "Warning:"/"Error:" forms some libraries print).
_LOG_PROBLEM = re.compile(
    r"Traceback|Stack \(most recent call last\)|\b(WARNING|ERROR|CRITICAL)\b|^\s*\w*(Warning|Error)\b",
    re.MULTILINE,
)


class ServerLog:
    """A server's log file; :meth:`problems` lists what it logged since :meth:`mark`."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.offset = 0

    def mark(self) -> None:
        self.offset = self.path.stat().st_size if self.path.exists() else 0

    def new_text(self) -> str:
        with self.path.open("rb") as f:
            f.seek(self.offset)
            return f.read().decode("utf-8", "replace")

    def problems(self) -> list[str]:
        """Lines (with a little context) that hold a warning, an error or a traceback."""
        lines = self.new_text().splitlines()
        return ["\n".join(lines[i : i + 6]) for i, line in enumerate(lines) if _LOG_PROBLEM.search(line)]

    def assert_clean(self, what: str) -> None:
        found = self.problems()
        assert not found, f"the server logged a warning or traceback during {what}:\n" + "\n---\n".join(found)


@contextlib.contextmanager
def serve(log_path: Path) -> Iterator[tuple[str, ServerLog]]:
    """A fresh server (scripts/browser.py); a failure to start is a test failure, not an error."""
    try:
        with streamlit_server(log_path) as (_, base):
            yield base, ServerLog(log_path)
    except (RuntimeError, TimeoutError) as exc:
        pytest.fail(str(exc))


def live_ready(scope: Page | Locator, key: str) -> Locator:
    """Point at live slider ``key`` as a student reaching for it does, and wait until it holds a frame
    for every value: ``static/live/`` asks for new frames only then (a large input's, or after
    another control moved the page). Returns the slider's thumb."""
    root = scope.locator(f".st-key-{key}_live .lab-live")
    root.hover()  # scrolls it into view first
    scope.locator(f".st-key-{key}_live .lab-live[data-frames=ready]").wait_for()
    return root.locator("input[type=range]")


# --- a drag, recorded frame by frame -----------------------------------------------------------------

# What a live readout (ui.live) shows, as a JavaScript function of its box: its formula's TeX (KaTeX
# keeps it in the MathML annotation; null without a formula) and each metric's label, value and delta.
READOUT_JS = """(r) => ({
  tex: r.querySelector('.lab-live-formula annotation[encoding="application/x-tex"]')?.textContent ?? null,
  metrics: Array.from(r.querySelectorAll('[data-testid="stMetric"]')).map((m) => [
    m.querySelector('[data-testid="stMetricLabel"]').textContent,
    m.querySelector('[data-testid="stMetricValue"]').textContent,
    m.querySelector('[data-testid="stMetricDelta"]').textContent,
  ]),
})"""


def recorder_js(seen_js: str) -> str:
    """JavaScript that, given an argument, pushes ``(seen_js)(argument)`` into ``window.__frames`` on
    every animation frame (an exception as ``{error}``) until ``window.__stop`` is set."""
    return f"""
(arg) => {{
  const seen = {seen_js};
  window.__frames = [];
  window.__stop = false;
  const tick = () => {{
    if (window.__stop) return;
    try {{ window.__frames.push(seen(arg)); }} catch (e) {{ window.__frames.push({{error: String(e)}}); }}
    requestAnimationFrame(tick);
  }};
  requestAnimationFrame(tick);
}}
"""


def painted_recorder_js(seen_js: str) -> str:
    """As :func:`recorder_js`, but each frame is taken once every animation frame callback of the page
    has run (a ``ResizeObserver``'s callback comes after them and after layout, before paint; the
    recorder resizes a box of its own each frame): what the frame paints, whichever callback moved the
    thumb or drew the numbers. A recorder's own ``requestAnimationFrame`` callback can run before a
    slider's in the same frame, and sees a thumb the slider has not drawn yet."""
    return f"""
(arg) => {{
  const seen = {seen_js};
  window.__frames = [];
  window.__stop = false;
  const box = document.createElement("div");
  box.style.cssText = "position: fixed; left: 0; top: 0; width: 1px; height: 1px; visibility: hidden";
  document.body.append(box);
  const painted = new ResizeObserver(() => {{
    if (window.__stop) return;
    try {{ window.__frames.push(seen(arg)); }} catch (e) {{ window.__frames.push({{error: String(e)}}); }}
  }});
  painted.observe(box);
  let n = 0;
  const tick = () => {{
    if (window.__stop) {{ painted.disconnect(); box.remove(); return; }}
    box.style.width = `${{1 + (++n % 2)}}px`;
    requestAnimationFrame(tick);
  }};
  requestAnimationFrame(tick);
}}
"""


def thumb_track(thumb: Locator) -> tuple[float, float, float]:
    """``(left, right, y)``: where a range input's thumb centre is at either end of its track, and the
    height to drag it at (the thumb is 14 px wide)."""
    box = thumb.bounding_box()
    assert box is not None
    return box["x"] + 7, box["x"] + box["width"] - 7, box["y"] + box["height"] / 2


def thumb_x(thumb: Locator, left: float, right: float) -> float:
    """Where the thumb's centre is now, on a track from ``left`` to ``right`` (:func:`thumb_track`)."""
    return left + (right - left) * int(thumb.input_value()) / int(thumb.get_attribute("max") or 1)


def record_drag(
    page: Page, record_js: str, arg: Any, y: float, start: float, stop: float, steps: int = 30
) -> list[dict[str, Any]]:
    """Start ``record_js`` (:func:`recorder_js`) with ``arg``, press the mouse at ``(start, y)`` and move
    it to ``stop`` in ``steps`` equal moves, one animation frame each; the frames recorded while the
    button was down. The mouse is released and the recorder stopped after."""
    page.evaluate(record_js, arg)
    page.mouse.move(start, y)
    page.mouse.down()
    for i in range(1, steps + 1):
        page.mouse.move(start + (stop - start) * i / steps, y)
        page.evaluate("() => new Promise((done) => requestAnimationFrame(() => done()))")
    frames: list[dict[str, Any]] = page.evaluate("() => window.__frames")
    page.mouse.up()
    page.evaluate("() => { window.__stop = true; }")
    return frames


def drag_thumb_by(
    page: Page, thumb: Locator, record_js: str, arg: Any, fraction: float, steps: int = 30
) -> list[dict[str, Any]]:
    """:func:`record_drag` of a range input's thumb from where it is by ``fraction`` of its track
    (negative: to the left)."""
    left, right, y = thumb_track(thumb)
    start = thumb_x(thumb, left, right)
    return record_drag(page, record_js, arg, y, start, start + fraction * (right - left), steps)


CUT_TEXT_JS = """() => [...document.querySelectorAll(
    '[data-testid="stMetricValue"], [data-testid="stMetricLabel"],'
    + ' [data-testid="stMain"] [data-testid="stWidgetLabel"],'
    + ' [data-testid="stMain"] [data-testid^="stBaseButton"]')]
  .filter(v => [v, ...v.querySelectorAll('*')].some(e => e.scrollWidth > e.clientWidth + 1))
  .map(v => v.innerText)
  .concat([...document.querySelectorAll('[data-testid="stMain"] .katex-display')]
    .filter(f => f.scrollWidth > f.clientWidth + 4)  // KaTeX's box overhangs by 2 px at any size
    .map(f => f.querySelector('annotation')?.textContent ?? f.innerText))"""


def nothing_cut(lab: Lab) -> list[str]:
    """The metric values and labels, control labels and displayed formulas the page cuts, once a
    formula has been fitted to its column (a frame after it is drawn, and again when KaTeX's fonts
    arrive): up to 5 s for that, then what is still cut."""
    with contextlib.suppress(PlaywrightTimeout):
        lab.page.wait_for_function(f"({CUT_TEXT_JS})().length === 0", timeout=5000)
    return list(lab.page.evaluate(CUT_TEXT_JS))


# --- one tab ------------------------------------------------------------------------------------------


VIEWPORT: ViewportSize = {"width": 1400, "height": 1000}  # the tests' Chromium window
# Chromium counts at most 50 entries in history.length: a tab is kept while a test that counts the
# entries it adds (tests/e2e/test_history_browser.py) still has 20 to spare.
KEPT_HISTORY = 30


class TabPool:
    """Tabs of one browser context that tests hand back, to be lent to the next tests.

    A new tab starts a new renderer process, which loads and compiles the app's JavaScript again: a
    page load in a new tab took 2.7 s of Chromium's CPU, the same load in a kept tab 1.5 s (Variance,
    three loads each, measured per process from /proc; docs/TESTING.md). A kept tab is reset first
    (`_reset`): it differs from a new one only in its history and in what its process has compiled.
    """

    def __init__(self, context: BrowserContext) -> None:
        self.context = context
        self.kept: list[Page] = []

    @contextlib.contextmanager
    def lend(self) -> Iterator[Tabs]:
        lent = Tabs(self)
        try:
            yield lent
        except BaseException:
            lent.spoil()
            raise
        finally:
            lent.give_back()

    def take(self) -> Page:
        return self.kept.pop() if self.kept else tapped(self.context.new_page())

    def keep(self, page: Page) -> None:
        if page.is_closed():
            return
        if page.evaluate("history.length") > KEPT_HISTORY:
            page.close()
            return
        _reset(page)
        self.kept.append(page)

    def close(self) -> None:
        for page in self.kept:
            page.close()
        self.kept.clear()


class Tabs:
    """The tabs one test took from a `TabPool`: back to the pool when the test passes, closed if not."""

    def __init__(self, pool: TabPool) -> None:
        self.pool = pool
        self.taken: list[Page] = []
        self.spoiled = False

    def new(self) -> Page:
        """A tab on nothing yet (about:blank), as `BrowserContext.new_page()` gives."""
        page = self.pool.take()
        self.taken.append(page)
        return page

    @contextlib.contextmanager
    def one(self) -> Iterator[Page]:
        """A tab for a moment: back to the pool on leaving, closed if an exception left."""
        page = self.new()
        try:
            yield page
        except BaseException:
            self.taken.remove(page)
            page.close()
            raise
        self.taken.remove(page)
        self.pool.keep(page)

    def spoil(self) -> None:
        """The test failed: its tabs may be in any state, so none is lent again."""
        self.spoiled = True

    def give_back(self) -> None:
        for page in self.taken:
            if self.spoiled:
                page.close()
            else:
                self.pool.keep(page)
        self.taken.clear()


def _reset(page: Page) -> None:
    """Leave a tab as `new_page()` makes it, but for its history and its compiled code: no session
    (the app's WebSocket closes), no session storage, and no route, media or viewport of a test."""
    if page.url.startswith("http"):
        page.evaluate("() => sessionStorage.clear()")
    page.unroute_all(behavior="ignoreErrors")
    page.goto("about:blank")
    page.emulate_media(media="null", color_scheme="light", reduced_motion="null")
    if page.viewport_size != VIEWPORT:
        page.set_viewport_size(VIEWPORT)


_TAPPED: weakref.WeakSet[Page] = weakref.WeakSet()  # tabs that already carry WS_TAP_JS


def tapped(page: Page) -> Page:
    """``page``, counting the script runs (``scripts.browser.WS_TAP_JS``) from its next address on."""
    if page not in _TAPPED:
        page.add_init_script(WS_TAP_JS)
        _TAPPED.add(page)
    return page


def wait_first_run(page: Page) -> None:
    """Until the server has finished the tab's first script run. The script-state attribute (``IDLE``)
    reads "notRunning" both before a run has begun and after it has ended; the server's messages
    tell the two apart. (What the browser draws after the run, such as Home's page links about 0.3 s
    later, is waited for by what reads it.)"""
    page.wait_for_function(
        "() => !window.__wsTap || (window.__wsTap.finished > 0 && !window.__wsTap.running)"
    )


# A live readout's formula before the tab has loaded KaTeX: blank (static/live/readout.js). A fresh
# tab read then lacked Home's formula (1 CI run in about 5).
FORMULA_WAITING = '[data-testid="labLiveFormula"][data-typeset="waiting"]'


def page_drawn(page: Page, app_page: AppPage) -> None:
    """Until ``app_page`` is drawn in ``page``: its title (or, when the page formats it, its heading),
    its first chart or Home's last lesson link, the end of the tab's first run, and no element showing
    Streamlit's loading skeleton.

    Home's links are drawn about 0.3 s after its run has ended (a projector test counted 19 of 20). An
    element whose code the tab has not loaded yet shows the skeleton for a moment after the run (the
    quiz's text was not there yet in one CI run, with the run over and the app idle).
    """
    if app_page.title:
        expect(page.locator("h1").first).to_contain_text(app_page.title)
    else:
        page.locator('[data-testid="stMain"] h1').first.wait_for()
    if app_page.url == "/":
        page.locator(LESSON_LINKS).nth(HOME_LINKS - 1).wait_for()
    elif app_page.charts:
        page.locator(RENDERED_CHART).first.wait_for()
    wait_first_run(page)
    expect(page.locator('[data-testid="stSkeleton"]')).to_have_count(0)
    expect(page.locator(FORMULA_WAITING)).to_have_count(0)


class Lab:
    """One browser tab on the app: open pages, wait for them, read metrics, check for errors."""

    def __init__(self, page: Page, base: str) -> None:
        self.page = page
        self.base = base
        self.page_errors: list[str] = []
        self._on_error = lambda exc: self.page_errors.append(str(exc))
        page.on("pageerror", self._on_error)
        tapped(page)  # counts the script runs (a_run), from the tab's first address

    def let_go(self) -> None:
        """Stop collecting the tab's JavaScript errors: another test may use the tab next."""
        self.page.remove_listener("pageerror", self._on_error)

    def open(self, app_page: AppPage, query: str = "") -> None:
        self.page.goto(self.base + app_page.url + query)
        self.wait_for(app_page)

    def wait_for(self, app_page: AppPage) -> None:
        """Until this page is drawn (:func:`page_drawn`) and the app is idle."""
        page_drawn(self.page, app_page)
        self.wait_idle()

    @contextlib.contextmanager
    def a_run(self) -> Iterator[None]:
        """Around an action that reruns the script: on leaving, wait until a run has started since
        the action began, every run has finished, and the app is idle again."""
        before = self.runs_started()
        yield
        self.wait_run_since(before)
        self.page.wait_for_function("() => !window.__wsTap.running")
        self.wait_idle()

    def runs_started(self) -> int:
        """How many script runs the server has begun in this tab (``scripts.browser.WS_TAP_JS``)."""
        started = self.page.evaluate("() => window.__wsTap?.started ?? null")
        assert started is not None, "no WebSocket tap in this tab: make its Lab before it opens the app"
        return int(started)

    def wait_run_since(self, started: int) -> None:
        """Until a run begins after ``runs_started()`` returned ``started``: the server's message says
        so even when the run is too short for the app's script state to show it."""
        self.page.wait_for_function("(n) => window.__wsTap.started > n", arg=started)

    def wait_idle(self) -> None:
        """Until no live slider's release is unanswered (``static/live/slider.js``: the app is idle for a
        moment between a release and its run) and the script is idle."""
        expect(self.page.locator(UNANSWERED)).to_have_count(0)
        self.page.locator(IDLE).wait_for()

    @property
    def sidebar(self) -> Locator:
        return self.page.locator('[data-testid="stSidebar"]')

    def metric(self, label: str) -> Locator:
        """The value of the first st.metric whose label is exactly ``label``."""
        label_el = self.page.locator('[data-testid="stMetricLabel"]').get_by_text(label, exact=True)
        box = self.page.locator('[data-testid="stMetric"]').filter(has=label_el).first
        return box.locator('[data-testid="stMetricValue"]')

    def slider(self, label_start: str, *, in_sidebar: bool = False) -> Locator:
        """The focusable thumb (an ``<input type=range>``, ARIA role slider) of a labelled slider."""
        scope = self.sidebar if in_sidebar else self.page.locator('[data-testid="stMain"]')
        # visible: a live slider's hidden kept slider (ui.live) carries the same label in the sidebar
        box = scope.locator('[data-testid="stSlider"]').filter(has_text=label_start, visible=True)
        expect(box).to_have_count(1)
        return box.get_by_role("slider")

    def nav_to(self, app_page: AppPage) -> None:
        """Switch pages the way a student does: the sidebar navigation link (same session)."""
        link = self.page.locator(f'[data-testid="stSidebarNav"] a[href$="{app_page.url}"]')
        more = self.page.locator('[data-testid="stSidebarNavViewButton"]')
        if not link.first.is_visible() and more.count() and "more" in more.first.inner_text().lower():
            more.first.click()  # the navigation shows its first pages until "View N more" is pressed
        link.first.click()
        expect(self.page).to_have_url(re.compile(re.escape(app_page.url) + r"(\?.*)?$"))
        self.wait_for(app_page)

    def type_numbers(self, text: str) -> None:
        """Replace the sidebar's "Type numbers" text and commit it (Ctrl+Enter, as Streamlit wants)."""
        area = self.sidebar.locator("textarea")
        expect(area).to_have_count(1)
        area.fill(text)
        area.press("Control+Enter")

    def assert_clean(self) -> None:
        """No Streamlit exception box, every chart on screen drawn, no JavaScript error.

        Call it once the new state is on screen (after a wait on its text), not right after an action.
        """
        self.wait_idle()
        exceptions = self.page.locator(EXCEPTION).all_inner_texts()
        assert not exceptions, f"{self.page.url} shows an exception:\n" + "\n---\n".join(exceptions)
        charts = self.page.locator(CHART)
        for i in range(charts.count()):
            if charts.nth(i).is_visible():
                expect(charts.nth(i).locator(".main-svg").first).to_be_attached()
        assert not self.page_errors, f"JavaScript errors: {self.page_errors}"

    def trace_lengths(self) -> list[int]:
        """Number of points of every trace of every drawn Plotly figure (from Plotly's own state)."""
        lengths: list[int] = self.page.evaluate(
            """() => Array.from(document.querySelectorAll('.js-plotly-plot'))
                 .flatMap(div => (div._fullData || []).map(t => t._length || 0))"""
        )
        return lengths


def query(**params: str | int) -> str:
    return "?" + urllib.parse.urlencode(params)


def page_by_url(url: str) -> AppPage:
    found = [p for p in PAGES if p.url == url]
    assert found, f"no page file serves {url}; pages: {[p.url for p in PAGES]}"
    return found[0]


# Your sentence's change as its link carries it (a radio's shown text): RMSNorm, everywhere or at one site
YS_RMS = "ys_kind=" + urllib.parse.quote("RMSNorm with the same γ (no centring, no β)")
YS_RMS_ONE_SITE = YS_RMS + "&ys_where=" + urllib.parse.quote("one site")


def follow_system_theme(page: Page, scheme: str) -> None:
    """Set the system's colour scheme ("light" or "dark"), and wait until the app has drawn it
    (Streamlit follows the system's setting) and, if the page has a chart, the chart too."""
    page.emulate_media(color_scheme=scheme)  # type: ignore[arg-type]
    page.wait_for_function(
        """dark => {
          const [r, g, b] = getComputedStyle(document.querySelector('[data-testid="stApp"]'))
            .backgroundColor.match(/\\d+/g).map(Number);
          return (r + g + b < 200) === dark;
        }""",
        arg=scheme == "dark",
    )
    if page.locator(CHART).count():
        expect(page.locator(CHART).first).to_have_attribute("data-theme", scheme)
