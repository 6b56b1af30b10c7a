"""Fixtures of the real-browser tests: one server and one Chromium for the session, tabs lent per test.

Every test that uses the shared server also checks the server's log: a Streamlit warning or a
Python traceback logged while the test ran fails that test, even when the page itself looked fine.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from playwright.sync_api import BrowserContext, Playwright, sync_playwright

from e2e.support import VIEWPORT, WAIT_MS, Lab, ServerLog, TabPool, Tabs, serve
from scripts.browser import CHROMIUM, CHROMIUM_ARGS


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark ``browser`` every test that starts Chromium (each does through ``playwright_driver``), whatever
    its file says, so that ``-m "not browser"`` (``make check``) runs none and needs no Chromium. A
    ``pytestmark`` in this file would mark nothing: a conftest is not a test module."""
    for item in items:
        if "playwright_driver" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, ServerLog]]:
    """`streamlit run app.py` on a free loopback port: ``(base URL, its log)``; stopped by PID."""
    folder = tmp_path_factory.mktemp("streamlit")
    # Class mode's store: a database of this run's own, never the repository's data/ folder
    os.environ["LAB_DATABASE_URL"] = f"sqlite:///{folder / 'classes.sqlite3'}"
    with serve(folder / "server.log") as running:
        yield running


@pytest.fixture(scope="session")
def server(served: tuple[str, ServerLog]) -> str:
    """The shared server's base URL."""
    return served[0]


@pytest.fixture(autouse=True)
def _clean_server_log(request: pytest.FixtureRequest) -> Iterator[None]:
    """Fail a test during which the shared server logged a warning or a traceback."""
    if "server" not in request.fixturenames:
        yield
        return
    log: ServerLog = request.getfixturevalue("served")[1]
    log.mark()
    yield
    log.assert_clean(request.node.name)


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
        pytest.fail(f"{CHROMIUM} is missing: run `bash scripts/ensure_debian.sh chromium` (or `make test`)")
    context = playwright_driver.chromium.launch_persistent_context(
        user_data_dir=tmp_path_factory.mktemp("chromium-profile"),
        executable_path=CHROMIUM,
        headless=True,
        args=CHROMIUM_ARGS,
        viewport=VIEWPORT,
    )
    context.set_default_timeout(WAIT_MS)
    yield context
    context.close()


_FAILED = pytest.StashKey[bool]()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item) -> Iterator[pytest.TestReport]:
    """Note a test's failure, so that its tabs, in whatever state the failure left them, are not kept."""
    report: pytest.TestReport = yield
    if report.failed:
        item.stash[_FAILED] = True
    return report


@pytest.fixture(scope="session")
def _tab_pool(browser: BrowserContext) -> Iterator[TabPool]:
    pool = TabPool(browser)
    yield pool
    pool.close()


@pytest.fixture
def tabs(_tab_pool: TabPool, request: pytest.FixtureRequest) -> Iterator[Tabs]:
    """New tabs on the shared Chromium for this test (each a new Streamlit session once it opens a page)."""
    with _tab_pool.lend() as lent:
        yield lent
        if request.node.stash.get(_FAILED, False):
            lent.spoil()


@pytest.fixture
def lab(tabs: Tabs, server: str) -> Iterator[Lab]:
    """A tab on nothing yet, to open the shared server's pages in."""
    lab = Lab(tabs.new(), server)
    yield lab
    lab.let_go()
