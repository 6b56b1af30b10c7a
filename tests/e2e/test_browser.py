"""The app in a real browser: Debian's Chromium, driven by Playwright, against `streamlit run`.

AppTest runs the scripts but renders nothing; these tests check what a student's browser shows:
every page draws its Plotly charts with no exception box and no JavaScript error, sliders commit
and the numbers follow, the shared input survives a page switch, and bad input or a strange link
is reported in place instead of crashing.

One server (session fixture) and one Chromium (fresh profile) serve the whole module; every test
opens a new tab, which is a new Streamlit session. Waits are on text of the *new* state (a page
title, a metric's value), never on a chart container alone: during a rerun the old and new
elements coexist for a moment (TESTING.md).
"""

from __future__ import annotations

import ast
import contextlib
import os
import re
import urllib.parse
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, Locator, Page, Playwright, expect, sync_playwright

import layernorm as ln
from scripts.browser import CHROMIUM, CHROMIUM_ARGS, IDLE, streamlit_server
from ui.text import fmt

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
CHART = '[data-testid="stPlotlyChart"]'
RENDERED_CHART = f"{CHART} .main-svg"
EXCEPTION = '[data-testid="stException"]'
WAIT_MS = 30_000
REAL_TOKEN = "Real token (MiniLM)"  # ui.state.SOURCES; the URL carries the option's text
MINILM_D = 384

expect.set_options(timeout=WAIT_MS)


# --- which pages exist and where they live --------------------------------------------------------


@dataclass(frozen=True)
class AppPage:
    file: str  # "pages/1_mean.py"
    url: str  # "/mean"
    section: str  # the st.navigation section in app.py
    title: str | None  # the page's st.title / page.header text, when it is a plain string


def _navigation() -> dict[str, list[tuple[str, str, str]]]:
    """The SECTIONS literal of app.py: {section: [(path, title, icon), ...]}."""
    tree = ast.parse((ROOT / "app.py").read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        target = getattr(node, "target", None) or (getattr(node, "targets", None) or [None])[0]
        if isinstance(node, ast.Assign | ast.AnnAssign) and getattr(target, "id", None) == "SECTIONS":
            assert node.value is not None
            sections: dict[str, list[tuple[str, str, str]]] = ast.literal_eval(node.value)
            return sections
    raise AssertionError("app.py has no SECTIONS = {...} navigation literal")


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
    files = sorted((ROOT / "pages").glob("*.py"), key=lambda p: int(p.stem.split("_")[0]))
    return [
        AppPage(
            file=f"pages/{f.name}",
            url=_url_path(f),
            section=listed.get(f"pages/{f.name}", ""),
            title=_page_title(f),
        )
        for f in files
    ]


PAGES = _app_pages()
STEP_PAGES = [p for p in PAGES if p.section == "The formula, step by step"]


# --- the server, the browser, and a small driver --------------------------------------------------


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`streamlit run app.py` on a free loopback port; yields its base URL, stops it by PID."""
    with _serve(tmp_path_factory.mktemp("streamlit") / "server.log") as base:
        yield base


@contextlib.contextmanager
def _serve(log_path: Path) -> Iterator[str]:
    """A fresh server (scripts/browser.py); a failure to start is a test failure, not an error."""
    try:
        with streamlit_server(log_path) as (_, base):
            yield base
    except (RuntimeError, TimeoutError) as exc:
        pytest.fail(str(exc))


@pytest.fixture(scope="session")
def playwright_driver() -> Iterator[Playwright]:
    with sync_playwright() as pw:
        yield pw


@pytest.fixture(scope="session")
def browser(
    playwright_driver: Playwright, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[BrowserContext]:
    """Debian's Chromium with a fresh, empty profile directory."""
    if not os.access(CHROMIUM, os.X_OK):
        pytest.fail(f"{CHROMIUM} is missing: run `bash scripts/ensure_chromium.sh` (or `make test`)")
    context = playwright_driver.chromium.launch_persistent_context(
        user_data_dir=tmp_path_factory.mktemp("chromium-profile"),
        executable_path=CHROMIUM,
        headless=True,
        args=CHROMIUM_ARGS,
        viewport={"width": 1400, "height": 1000},
    )
    context.set_default_timeout(WAIT_MS)
    yield context
    context.close()


class Lab:
    """One browser tab on the app: open pages, wait for them, read metrics, check for errors."""

    def __init__(self, page: Page, base: str) -> None:
        self.page = page
        self.base = base
        self.page_errors: list[str] = []
        page.on("pageerror", lambda exc: self.page_errors.append(str(exc)))

    def open(self, app_page: AppPage, query: str = "") -> None:
        self.page.goto(self.base + app_page.url + query)
        self.wait_for(app_page)

    def wait_for(self, app_page: AppPage) -> None:
        """Until this page's own title is shown, its charts are drawn and the script is idle."""
        if app_page.title:
            expect(self.page.locator("h1").first).to_contain_text(app_page.title)
        if app_page.url != "/":
            self.page.locator(RENDERED_CHART).first.wait_for()
        self.wait_idle()

    def wait_idle(self) -> None:
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
        box = scope.locator('[data-testid="stSlider"]').filter(has_text=label_start)
        expect(box).to_have_count(1)
        return box.get_by_role("slider")

    def nav_to(self, app_page: AppPage) -> None:
        """Switch pages the way a student does: the sidebar navigation link (same session)."""
        link = self.page.locator(f'[data-testid="stSidebarNav"] a[href$="{app_page.url}"]')
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


@pytest.fixture
def lab(browser: BrowserContext, server: str) -> Iterator[Lab]:
    page = browser.new_page()
    try:
        yield Lab(page, server)
    finally:
        page.close()


def _query(**params: str | int) -> str:
    return "?" + urllib.parse.urlencode(params)


def _page(url: str) -> AppPage:
    found = [p for p in PAGES if p.url == url]
    assert found, f"no page file serves {url}; pages: {[p.url for p in PAGES]}"
    return found[0]


# --- (a) every page renders ------------------------------------------------------------------------


@pytest.mark.parametrize("app_page", PAGES, ids=[p.url for p in PAGES])
def test_page_renders(lab: Lab, app_page: AppPage) -> None:
    assert app_page.section, f"{app_page.file} exists but app.py's navigation does not list it"
    lab.open(app_page)
    if app_page.url != "/":
        assert lab.page.locator(RENDERED_CHART).count() >= 1
    lab.assert_clean()


# --- (b) a real MiniLM token flows through every step page ----------------------------------------


def test_real_token_on_every_step_page(lab: Lab) -> None:
    assert STEP_PAGES, "app.py lists no step pages"
    first, *rest = STEP_PAGES
    lab.open(first, _query(src=REAL_TOKEN))
    expect(lab.sidebar.get_by_role("combobox", name="Input")).to_have_value(REAL_TOKEN)
    token_box = lab.sidebar.get_by_role("combobox", name="Token")
    token = token_box.input_value()  # e.g. "0: [CLS]"
    assert re.match(r"\d+: \S", token), f"unexpected token choice text {token!r}"
    for app_page in [first, *rest]:
        if app_page is not first:
            lab.nav_to(app_page)  # the choice must survive the page switch
        expect(token_box).to_have_value(token)
        assert MINILM_D in lab.trace_lengths(), f"{app_page.url}: no chart plots the {MINILM_D} features"
        lab.assert_clean()
    # The page that names the input in a chart title names the token.
    lab.nav_to(_page("/mean"))
    expect(lab.page.locator(RENDERED_CHART).get_by_text(token.split(": ", 1)[1]).first).to_be_visible()


# --- (c) sliders move and the numbers follow -------------------------------------------------------

PRESET: dict[str, str | int] = {"src": "Preset", "preset": "standard normal", "d": 8, "seed": 0}


def test_mean_follows_the_shift_slider(lab: Lab) -> None:
    lab.open(_page("/mean"), _query(**PRESET))
    x = ln.make_preset("standard normal", 8, 0)
    mu_value = lab.metric("μ (mean)")
    expect(mu_value).to_have_text(fmt(float(x.mean())))
    thumb = lab.slider("Add the same number c")
    thumb.focus()
    for _ in range(3):
        thumb.press("ArrowRight")
    c = float(thumb.get_attribute("aria-valuetext") or "nan")
    assert c > 0, f"the slider did not move (c = {c})"
    expect(mu_value).to_have_text(fmt(float(x.mean()) + c))  # μ shifts by exactly c
    lab.assert_clean()


def test_standardized_variance_follows_the_eps_slider(lab: Lab) -> None:
    lab.open(_page("/standardize"), _query(**PRESET))
    x = ln.make_preset("standard normal", 8, 0)

    def var_x_hat(eps: float) -> str:
        return fmt(float(ln.variance(ln.layer_norm_steps(x, eps=eps).x_hat)), 6)

    thumb = lab.slider("ε (inside the square root)", in_sidebar=True)
    eps_before = float(thumb.get_attribute("aria-valuetext") or "nan")
    value = lab.metric("variance of x̂")
    expect(value).to_have_text(var_x_hat(eps_before))
    thumb.focus()
    for _ in range(6):
        thumb.press("ArrowRight")
    eps_after = float(thumb.get_attribute("aria-valuetext") or "nan")
    assert eps_after > eps_before
    expect(lab.metric("ε")).to_have_text(f"{eps_after:.0e}")
    expect(value).to_have_text(var_x_hat(eps_after))
    assert var_x_hat(eps_after) != var_x_hat(eps_before)
    lab.assert_clean()


# --- (d) the input survives a page switch ----------------------------------------------------------


def test_typed_numbers_survive_a_page_switch(lab: Lab) -> None:
    numbers = [2.0, 4.0, 6.0, 20.0]  # mean 8, population variance 50
    lab.open(_page("/variance"), _query(src="Type numbers"))
    lab.type_numbers(", ".join(f"{v:g}" for v in numbers))
    expect(lab.metric("σ² (÷d, population)")).to_have_text(fmt(float(ln.variance(numbers))))
    lab.nav_to(_page("/mean"))
    expect(lab.metric("μ (mean)")).to_have_text(fmt(float(ln.mean(numbers))))
    expect(lab.metric("d (features)")).to_have_text(str(len(numbers)))
    lab.assert_clean()


# --- (e) bad typed input is reported in place ------------------------------------------------------


def test_bad_typed_input_shows_a_message_not_an_exception(lab: Lab) -> None:
    lab.open(_page("/mean"), _query(src="Type numbers"))
    lab.type_numbers("1, 2, abc")
    expect(lab.sidebar.locator('[data-testid="stAlert"]').filter(has_text="'abc'")).to_be_visible()
    lab.assert_clean()
    assert lab.page.locator(RENDERED_CHART).count() >= 1  # the page still shows the last valid input


# --- (f) a strange link -----------------------------------------------------------------------------


def test_strange_url_renders_without_exception(lab: Lab) -> None:
    lab.open(_page("/mean"), "?d=999999&eps=banana&src=nope")
    expect(lab.page.get_by_text("The link asked for")).to_be_visible()
    lab.assert_clean()


def test_deep_link_to_a_fresh_server_runs_inside_the_app(browser: BrowserContext, tmp_path: Path) -> None:
    """The first request a new server ever gets is a shared link to a lesson page.

    With the lessons in a folder named ``pages/`` Streamlit starts in its legacy multipage mode
    and would run the page file alone (no app.py: no sections, no shared sidebar). The page must
    come up inside the app anyway: its own title, the app's navigation sections, the sidebar input.
    """
    target = next(p for p in PAGES if p.url == "/which_axis")
    with _serve(tmp_path / "server.log") as base:
        tab = browser.new_page()
        try:
            lab = Lab(tab, base)
            lab.open(target, "?d=768")
            nav = tab.locator('[data-testid="stSidebarNav"]')
            expect(nav).to_contain_text("The formula, step by step")
            expect(nav).to_contain_text("Layer versus batch")
            expect(lab.sidebar).to_contain_text("Your vector")
            assert tab.locator(EXCEPTION).count() == 0
            assert lab.page_errors == []
        finally:
            tab.close()
