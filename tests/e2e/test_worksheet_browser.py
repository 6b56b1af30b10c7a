"""The step pages' downloads in a real browser: click, save, read; print the worksheet to PDF.

On the Mean page the CSV download must hold the numbers the page shows (and exactly the core's),
the worksheet must carry the link of the current view (the address and its query string), and
the worksheet, opened from disk with no server, must draw its charts as SVG and print on exactly
one A4 page and one Letter page with nothing cut off. A worst case (d = 768, a 20,000-character
link, a long label, every note) must fit too.

Every test here that uses the server also fails on a warning or traceback in its log (``conftest.py``).
"""

from __future__ import annotations

import io
import re
import urllib.parse
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from playwright.sync_api import BrowserContext, Download, Locator, Page, expect

import layernorm as ln
from e2e.support import Lab, page_by_url, query
from ui import charts
from ui import worksheet_files as ws
from ui.text import digits_to_separate, fmt, rounding_noise

pytestmark = pytest.mark.browser

MEAN = page_by_url("/mean")
FORMATS = ("A4", "Letter")


def _download(button: Locator) -> Download:
    with button.page.expect_download() as info:
        button.click()
    return info.value


def _button(lab: Lab, key: str) -> Locator:
    button = lab.page.locator(f".st-key-{key}").get_by_role("button")
    expect(button).to_have_count(1)
    return button


def pdf_pages(pdf: bytes) -> int:
    """Pages of a PDF: its ``/Type /Page`` objects (not the ``/Type /Pages`` tree nodes)."""
    return len(re.findall(rb"/Type\s*/Page(?!s)", pdf))


def check_prints_on_one_page(browser: BrowserContext, path: Path, screenshot: Path | None = None) -> None:
    """Open a worksheet file in a new tab and print it: one A4 and one Letter page, nothing clipped."""
    page = browser.new_page()
    try:
        _check_print(page, path, screenshot)
    finally:
        page.close()


def _check_print(page: Page, path: Path, screenshot: Path | None) -> None:
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(path.as_uri())
    charts = page.locator(".chart")
    for i in range(charts.count()):
        expect(charts.nth(i).locator(".main-svg").first).to_be_attached()
    assert page.locator(".chart canvas").count() == 0, "a WebGL chart may print blank"
    for paper in FORMATS:
        assert pdf_pages(page.pdf(format=paper)) == 1, f"{path.name} does not print on one {paper} page"
    page.emulate_media(media="print")
    scroll, client = page.evaluate(
        "(s => [s.scrollHeight, s.clientHeight])(document.querySelector('.sheet'))"
    )
    assert scroll <= client, f"the print layout cuts off {scroll - client}px of {path.name}"
    assert client <= 255 / 25.4 * 96, "taller than a Letter page's 255 mm between the margins"
    if screenshot is not None:
        page.screenshot(path=screenshot, full_page=True)
    page.emulate_media(media="null")
    assert not errors, f"JavaScript errors in the worksheet: {errors}"


def test_mean_page_downloads_hold_the_view(lab: Lab, browser: BrowserContext, tmp_path: Path) -> None:
    lab.open(MEAN, query(preset="one large outlier", d=12, mean_shift="2.5"))
    x = ln.make_preset("one large outlier", 12, 0) + 2.5  # the page adds c = 2.5 to every feature
    steps = ln.layer_norm_steps(x, eps=1e-5)

    csv = _download(_button(lab, "ws_csv_mean"))
    assert csv.suggested_filename == "layernorm-mean-numbers.csv"
    table = pd.read_csv(io.BytesIO(Path(csv.path()).read_bytes()), encoding="utf-8-sig")
    # what the page shows, from the CSV's numbers
    mu = float(table["μ"].iloc[0])
    mu_digits = digits_to_separate([mu], against=table["x"], same_within=rounding_noise(table["x"]))
    expect(lab.metric("d (features)")).to_have_text(str(len(table)))
    expect(lab.metric("μ (mean)")).to_have_text(fmt(mu, mu_digits))
    # and exactly the core's
    assert np.array_equal(table["x"].to_numpy(), steps.x)
    assert np.array_equal(table["x − μ"].to_numpy(), steps.centered)
    assert np.array_equal(table["x̂"].to_numpy(), steps.x_hat)
    assert mu == float(steps.mu) and float(table["σ²"].iloc[0]) == float(steps.var)

    sheet = _download(_button(lab, "ws_html_mean"))
    assert sheet.suggested_filename == "layernorm-mean-worksheet.html"
    path = tmp_path / sheet.suggested_filename
    sheet.save_as(path)
    doc = path.read_text(encoding="utf-8")
    found = re.search(r'Reproduce this view: <a class="link" href="([^"]+)">', doc)
    assert found, "the worksheet has no link"
    link = urllib.parse.urlsplit(found[1].replace("&amp;", "&"))
    shown = urllib.parse.urlsplit(lab.page.url)
    assert (link.scheme, link.netloc, link.path) == (shown.scheme, shown.netloc, shown.path)
    assert link.path.endswith("/mean")
    assert urllib.parse.parse_qs(link.query) == urllib.parse.parse_qs(shown.query)
    assert urllib.parse.parse_qs(link.query)["mean_shift"] == ["2.5"]
    assert "one large outlier, d = 12, seed 0" in doc
    lab.assert_clean()

    check_prints_on_one_page(browser, path, tmp_path / "worksheet.png")


def test_the_worst_case_worksheet_still_prints_on_one_page(browser: BrowserContext, tmp_path: Path) -> None:
    rng = np.random.default_rng(5)
    x = rng.normal(size=768)
    x[17] = 40.0  # an outlier feature, as in real transformers
    notes = [
        "The input in the sidebar has a problem, so this is the last valid input.",
        "x is the sidebar's vector as changed by this page's controls (the link keeps them).",
        "γ and β: Per feature (edit on Scale & shift).",
    ]
    link = "http://127.0.0.1:8501/full_formula?src=Type+numbers&typed=" + "1.2345%2C+" * 2000
    for page in ws.STEP_PAGES:
        g, b = (
            (rng.normal(size=768), rng.normal(size=768)) if ws.STEP_PAGES[page].level >= 4 else (None, None)
        )
        steps = ln.layer_norm_steps(x, g, b, eps=1e-5)
        doc = ws.worksheet_html(
            ws.STEP_PAGES[page].title,
            steps,
            label="file " + "résultats_<b>final</b>" * 30 + ".csv",
            link=link,
            figures=[charts.feature_chart([(k, getattr(steps, k))], k) for k in ("x", "y")],
            page=page,
            feature=767,
            notes=notes,
        )
        path = tmp_path / f"{page}.html"
        path.write_text(doc, encoding="utf-8")
        check_prints_on_one_page(browser, path)
