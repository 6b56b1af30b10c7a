"""The step pages' downloads (``ui/worksheet.py``): the numbers CSV and the printable worksheet.

The CSV must hold exactly the core's numbers (read back and compared with ``==``); the worksheet
must print the formula's live numbers as the pages format them, escape every user-controlled
text (the input's label, the link), carry ``@page`` CSS and embed plotly.js once. Through AppTest,
every step page shows both buttons, and the files its buttons would make hold that page's view.
The one-page print check (A4 and Letter) is in ``tests/e2e/test_worksheet_browser.py``.
"""

from __future__ import annotations

import html
import io
import re
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import markupsafe
import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest
from apptest_support import APP, STEP_FILES
from streamlit.testing.v1 import AppTest

import layernorm as ln
from ui import charts
from ui import worksheet_files as ws
from ui import worksheet_math as wm
from ui.text import digits_to_add_up, digits_to_separate, fmt, rounding_noise, tex_num

HOSTILE = (
    "<script>alert(1)</script> **bold** [x](javascript:alert(2)) & 'q' \"dq\" <img src=x onerror=alert(3)>"
)


def _vectors() -> dict[str, tuple[np.ndarray, np.ndarray | None, np.ndarray | None, float]]:
    """``name: (x, gamma, beta, eps)`` covering the sizes and the numerically awkward cases."""
    rng = np.random.default_rng(7)
    normal768 = ln.make_preset("standard normal", 768, 3)
    return {
        "d=1": (np.array([5.0]), None, None, 1e-5),
        "d=4": (np.array([1.0, 2.0, 3.0, 4.0]), None, None, 1e-5),
        "d=768": (normal768, None, None, 1e-12),
        "d=768 per-feature γ, β": (normal768, rng.normal(size=768), rng.normal(size=768), 1e-5),
        "near-constant": (3.0 + 1e-9 * ln.make_preset("standard normal", 8, 1), None, None, 1e-5),
        "constant": (np.full(6, 2.5), np.full(6, 2.0), np.full(6, -1.0), 1e-3),
        "large offset": (1e8 + ln.make_preset("standard normal", 16, 2), None, None, 1e-5),
        "tiny and huge": (np.array([1e-150, -3e-150, 2e150, -1e150]), None, None, 1.0),  # the lab's limits
    }


VECTORS = _vectors()


def _steps(name: str) -> ln.LayerNormSteps:
    x, g, b, eps = VECTORS[name]
    return ln.layer_norm_steps(x, g, b, eps=eps)


def _read_csv(data: bytes) -> pd.DataFrame:
    # pandas 3 reads floats correctly rounded by default (its old fast parser was not)
    return pd.read_csv(io.BytesIO(data), encoding="utf-8-sig")


def _core_columns(s: ln.LayerNormSteps) -> dict[str, np.ndarray]:
    """What each CSV column must equal, straight from the core (no arithmetic here but broadcasting)."""
    per_feature = {"x": s.x, "x − μ": s.centered, "(x − μ)²": s.squared_deviations, "x̂": s.x_hat}
    per_feature |= {"γ": s.gamma, "β": s.beta, "y": s.y}
    one_number = {"μ": s.mu, "σ²": s.var, "σ": s.sigma, "ε": s.eps, "√(σ² + ε)": s.std}  # on every row
    return {"i": np.arange(1, s.d + 1), **per_feature, **{k: np.full(s.d, v) for k, v in one_number.items()}}


# ------------------------------------------------------------------------------------------------ CSV


@pytest.mark.parametrize("name", list(VECTORS))
def test_csv_holds_exactly_the_cores_numbers(name: str) -> None:
    s = _steps(name)
    table = _read_csv(ws.worksheet_csv(s))
    assert tuple(table.columns) == ws.CSV_COLUMNS
    assert len(table) == s.d
    for column, expected in _core_columns(s).items():
        got = table[column].to_numpy()
        assert got.dtype == (np.int64 if column == "i" else np.float64), column
        assert np.array_equal(got, expected), column  # ==, not approximately


def test_csv_is_excel_friendly_text_with_repr_numbers() -> None:
    s = _steps("d=4")
    data = ws.worksheet_csv(s)
    assert data.startswith(b"\xef\xbb\xbf")  # BOM: Excel reads the Greek letters as UTF-8
    lines = data.decode("utf-8-sig").split("\r\n")
    assert lines[0] == ",".join(ws.CSV_COLUMNS)
    assert lines[-1] == "" and len(lines) == s.d + 2  # a header, d rows, CRLF after each
    first = lines[1].split(",")
    assert first[:8] == [
        "1",
        "1.0",
        "-1.5",
        "2.25",
        repr(float(s.x_hat[0])),
        "1.0",
        "0.0",
        repr(float(s.y[0])),
    ]
    assert first[8:] == [repr(float(v)) for v in (s.mu, s.var, s.sigma, s.eps, s.std)]


def test_csv_checks_gamma_beta_eps_against_the_steps() -> None:
    x, g, b, eps = VECTORS["d=768 per-feature γ, β"]
    s = ln.layer_norm_steps(x, g, b, eps=eps)
    assert ws.worksheet_csv(s, g, b, eps) == ws.worksheet_csv(s)
    with pytest.raises(ValueError, match="gamma differs"):
        ws.worksheet_csv(s, np.ones(768), b, eps)
    with pytest.raises(ValueError, match="beta differs"):
        ws.worksheet_csv(s, g, np.zeros(3), eps)
    with pytest.raises(ValueError, match="eps"):
        ws.worksheet_csv(s, g, b, 1e-3)
    plain = ln.layer_norm_steps([1.0, 2.0, 3.0])
    assert ws.worksheet_csv(plain, 1.0, 0.0, 1e-5) == ws.worksheet_csv(plain)  # scalars broadcast


def test_csv_refuses_a_batch() -> None:
    with pytest.raises(ValueError, match="one vector"):
        ws.worksheet_csv(ln.layer_norm_steps(np.ones((2, 3))))


# ------------------------------------------------------------------------------------------ worksheet


def _sheet(
    name: str = "d=4", page: str = "full_formula", *, label: str = "typed vector", link: str = "", **kw: Any
) -> str:
    s = _steps(name)
    return ws.worksheet_html(ws.STEP_PAGES[page].title, s, label=label, link=link, page=page, **kw)


def _text(doc: str) -> str:
    """The document's visible text, roughly: each tag a space, entities decoded, spaces collapsed."""
    body = re.sub(r"<style>.*?</style>|<script.*?</script>", "", doc, flags=re.S)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", body)).split())


def test_worksheet_writes_the_formula_with_the_live_numbers() -> None:
    doc = _text(_sheet("d=4", "full_formula", feature=0))
    assert "μ = 1 d Σ i x i = 1 4 (1 + 2 + 3 + 4) = 2.5" in doc
    assert "σ² = 1 d Σ i (x i − μ)² = 1 4 ((−1.5)² + (−0.5)² + 0.5² + …) = 1.25" in doc
    assert "x̂ 1 = 1 − 2.5 √ 1.25 + 1 × 10 −5 = −1.5 1.118 = −1.342" in doc
    assert "y 1 = 1 · (−1.342) + 0 = −1.342" in doc
    assert "d = 4 μ = 2.5 σ² = 1.25 σ = 1.118 ε = 1 × 10 −5 √(σ² + ε) = 1.118" in doc


@pytest.mark.parametrize("name", list(VECTORS))
@pytest.mark.parametrize("page", list(ws.STEP_PAGES))
def test_worksheet_numbers_are_the_cores_as_the_pages_format_them(name: str, page: str) -> None:
    s = _steps(name)
    feature = s.d - 1
    doc = _text(_sheet(name, page, feature=feature))
    mu_digits = digits_to_separate([float(s.mu)], against=s.x, same_within=rounding_noise(s.x))

    def shown(v: float, digits: int = 4) -> str:  # tex_num as the worksheet prints it (no TeX)
        t = tex_num(v, digits).replace("-", "−")
        return re.sub(r" \\times 10\^\{(.*)\}", r" × 10 \1", t)

    assert f"= {shown(float(s.mu), mu_digits)} " in doc
    level = ws.STEP_PAGES[page].level
    if level >= 3:
        assert f"= {shown(float(s.x_hat[feature]))} " in doc
    if level >= 4:  # y at the digits that make the printed γ · x̂ + β add up to it
        g, xh, b, y = (float(v[feature]) for v in (s.gamma, s.x_hat, s.beta, s.y))
        assert f"= {shown(y, digits_to_add_up([(g, xh, b, y)]))} " in doc
    # the table: ui.text.fmt of the core's values, first rows only
    rows = min(s.d, ws.TABLE_ROWS)
    x_digits = max(digits_to_separate(s.x[:rows]), mu_digits)
    cells = re.findall(r"<td>(.*?)</td>", _sheet(name, page, feature=feature))
    ncol = len(ws.STEP_PAGES[page].columns)
    assert len(cells) == rows * ncol
    assert cells[1::ncol] == [fmt(v, x_digits) for v in s.x[:rows].tolist()]
    assert cells[0::ncol] == [str(i) for i in range(1, rows + 1)]


def test_a_long_vector_prints_sixteen_rows_and_counts_the_rest() -> None:
    doc = _sheet("d=768", "mean")
    assert doc.count("<tr>") + doc.count('<tr class="here">') == 1 + ws.TABLE_ROWS  # header + rows
    assert "Features 17–768 (752 more) are not printed: the CSV has all of them" in doc
    short = _sheet("d=4", "mean")
    assert "more) are not printed" not in short


def test_user_text_is_escaped_never_raw() -> None:
    link = 'http://localhost:8501/mean?typed=1%2C+2&preset=<b>x</b>&q="a"'
    doc = _sheet("d=4", "mean", label=HOSTILE, link=link, notes=[HOSTILE])
    assert "<script" not in doc and "<img" not in doc and "<b>x</b>" not in doc
    assert markupsafe.escape(HOSTILE) in doc  # the label, literally (Markdown stays plain characters)
    assert f'href="{markupsafe.escape(link)}"' in doc
    assert f">{markupsafe.escape(link)}</a>" in doc
    assert "Reproduce this view: " + link in _text(doc)
    # a link that is not http(s) is printed as text, never made clickable
    doc = _sheet("d=4", "mean", link="javascript:alert(1)")
    assert "href=" not in doc and "javascript:alert(1)" in _text(doc)


def test_label_is_shortened_to_one_line() -> None:
    label = "file " + "a\u202eb\nc" * 100 + ".csv"
    doc = _sheet("d=4", "mean", label=label)
    assert "\u202e" not in doc and "b\nc" not in doc  # no bidi override, one line
    assert "Input: file ab cab cab c" in _text(doc) and f"… ({len(label)} characters)" in _text(doc)


def test_a_very_long_link_is_kept_whole_and_clipped_only_on_paper() -> None:
    link = "http://localhost:8501/mean?typed=" + "1.5%2C+" * 2000
    doc = _sheet("d=4", "mean", link=link)
    assert f">{link}</a>" in doc and 'class="link long"' in doc
    assert f"The link is {len(link):,} characters long" in doc
    assert "@media print { .link.long { display: block; max-height: 3.6em; overflow: hidden } }" in doc


def test_print_css_is_one_a4_page() -> None:
    doc = _sheet()
    assert "@page { size: A4; margin: 12mm }" in doc
    assert ".sheet { width: 186mm;" in doc  # fits A4 (186 mm) and Letter (192 mm) between the margins


def test_figures_embed_plotly_once_and_print_as_svg() -> None:
    s = _steps("d=768")
    chart = charts.feature_chart
    figures = [chart([("x", s.x)], "x"), chart([("centered", s.centered)], "x − μ")]
    assert [t.type for f in figures for t in f.data] == ["scatter", "scatter"]  # long vectors: SVG lines
    doc = ws.worksheet_html("t", s, figures=figures, page="mean")
    assert doc.count("Plotly.newPlot(") == 2
    assert doc.count("window.PlotlyConfig") == 1  # plotly.js itself: embedded once, works offline
    assert 'src="http' not in doc  # nothing fetched from the network
    webgl = go.Figure(go.Scattergl(figures[0].data[0].to_plotly_json() | {"type": "scattergl"}))
    printed = ws._print_figure(webgl, 340, 250)  # WebGL may print blank: SVG traces instead
    assert [t.type for t in printed.data] == ["scatter"]
    assert (
        np.array_equal(printed.data[0].y, s.x) and printed.data[0].line.color == figures[0].data[0].line.color
    )
    assert [t.type for t in webgl.data] == ["scattergl"]  # not modified


def test_bad_arguments_are_refused() -> None:
    s = _steps("d=4")
    with pytest.raises(ValueError, match="feature 4 is outside"):
        ws.worksheet_html("t", s, page="standardize", feature=4)
    with pytest.raises(KeyError):
        ws.worksheet_html("t", s, page="gradients")
    with pytest.raises(ValueError, match="eps"):
        ws.worksheet_html("t", s, eps=0.1)


# ---------------------------------------------------------------------------------------- the pages


def _open(page: str, query: dict[str, str] | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    for k, v in (query or {}).items():
        at.query_params[k] = v
    at.run()
    at.switch_page(page).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.mark.parametrize("page", list(STEP_FILES))
def test_each_step_page_offers_both_downloads(page: str, deferred: dict[str, Callable[[], Any]]) -> None:
    at = _open(STEP_FILES[page])
    buttons = {b.key: b for b in at.get("download_button")}
    assert set(buttons) == {f"ws_csv_{page}", f"ws_html_{page}"}  # page 5's old table CSV is gone
    assert buttons[f"ws_csv_{page}"].proto.label == "Download the numbers (CSV)"
    assert buttons[f"ws_html_{page}"].proto.label == "Printable worksheet (HTML)"
    assert all(b.proto.ignore_rerun and b.proto.deferred_file_id for b in buttons.values())
    slug = ws.STEP_PAGES[page].slug
    assert set(deferred) == {f"layernorm-{slug}-numbers.csv", f"layernorm-{slug}-worksheet.html"}
    x = ln.make_preset("standard normal", 8, 0)  # the sidebar's defaults
    s = ln.layer_norm_steps(x, eps=1e-5)
    table = _read_csv(deferred[f"layernorm-{slug}-numbers.csv"]())
    assert np.array_equal(table["x"].to_numpy(), s.x) and np.array_equal(table["y"].to_numpy(), s.y)
    doc = deferred[f"layernorm-{slug}-worksheet.html"]()
    assert ws.STEP_PAGES[page].title.split(":")[0] in html.unescape(doc)
    assert "standard normal, d = 8, seed 0" in doc


def test_the_files_hold_the_pages_own_view(deferred: dict[str, Callable[[], Any]]) -> None:
    at = _open(STEP_FILES["mean"], {"mean_shift": "2.5", "preset": "one large outlier", "d": "12"})
    assert not at.exception
    x = ln.make_preset("one large outlier", 12, 0) + 2.5  # the page adds c to every feature
    s = ln.layer_norm_steps(x, eps=1e-5)
    table = _read_csv(deferred["layernorm-mean-numbers.csv"]())
    for column, expected in _core_columns(s).items():
        assert np.array_equal(table[column].to_numpy(), expected), column
    doc = deferred["layernorm-mean-worksheet.html"]()
    text = _text(doc)
    assert "mean_shift=2.5" in text and "preset=one+large+outlier" in text and "d=12" in text
    assert "x is the sidebar's vector as changed by this page's controls" in text


def test_scale_and_shift_uses_the_sidebars_gamma_beta(deferred: dict[str, Callable[[], Any]]) -> None:
    _open(STEP_FILES["scale_shift"], {"gamma": "2", "beta": "-0.5"})
    x = ln.make_preset("standard normal", 8, 0)
    s = ln.layer_norm_steps(x, np.full(8, 2.0), np.full(8, -0.5), eps=1e-5)
    table = _read_csv(deferred["layernorm-scale-shift-numbers.csv"]())
    assert np.array_equal(table["γ"].to_numpy(), s.gamma) and np.array_equal(table["y"].to_numpy(), s.y)
    assert "γ and β: Same γ, β for every feature." in _text(
        deferred["layernorm-scale-shift-worksheet.html"]()
    )


def test_standardize_writes_out_the_chosen_feature(deferred: dict[str, Callable[[], Any]]) -> None:
    _open(STEP_FILES["standardize"], {"src": "Type numbers", "typed": "1, 2, 3, 10", "std_feature": "4"})
    doc = deferred["layernorm-standardize-worksheet.html"]()
    s = ln.layer_norm_steps([1.0, 2.0, 3.0, 10.0], eps=1e-5)
    assert f"<b>{tex_num(float(s.x_hat[3])).replace('-', '−')}</b>" in doc  # feature i = 4 written out
    assert '<tr class="here"><td>4</td>' in doc


def _printed_numbers(html_text: str) -> list[str]:
    """The numbers of one formula line as printed, as text (HTML minus and × 10<sup>k</sup> undone)."""
    text = re.sub(r" × 10<sup>(−?\d+)</sup>", r"e\1", html_text)
    text = re.sub(r"<[^>]+>", " ", text).replace("−", "-")
    return re.findall(r"-?\d+(?:\.\d+)?(?:e-?\d+)?", text)


@pytest.mark.parametrize("feature", [0, 1, 3])
@pytest.mark.parametrize(
    "x", [[40000.0, 40001.0, 40002.0, 40003.0], [1.0, 2.0, 3.0, 4.0], [1e8, 1e8 + 1, 1e8 + 3, 1e8 - 7]]
)
def test_the_undo_worksheets_arithmetic_adds_up_and_beta_is_mu(x: list[float], feature: int) -> None:
    """γ = σ, β = μ: the printed γ · x̂ + β rounds to the printed y; β = 40001.5 never prints as 40002."""
    base = ln.layer_norm_steps(x, eps=1e-5)
    s = ln.layer_norm_steps(x, np.full(4, float(base.sigma)), np.full(4, float(base.mu)), eps=1e-5)
    (line,) = [text for step, text in wm.formula_lines(5, s, feature) if step == 4]
    written = line.split("&nbsp;")[1]
    g, xh, b, y = (Decimal(t) for t in _printed_numbers(written)[-4:])
    if " − " in written.split("·")[1]:
        b = -b
    half_unit = Decimal(5).scaleb(y.as_tuple().exponent - 1)  # half of y's last printed digit
    assert abs(g * xh + b - y) <= half_unit, (written, g * xh + b, y)
    doc = ws.worksheet_html("t", s, page="full_formula")
    if x[0] == 40000.0:
        assert doc.count("<td>40001.5</td>") == 4  # β = μ = 40001.5 in each row of the table, not 40002


def test_digits_to_add_up() -> None:
    assert digits_to_add_up([(1.0, 2.0, 3.0, 5.0)]) == 4
    g, xh, b = 1.118033988749895, -1.3416346865494747, 40001.5
    n = digits_to_add_up([(g, xh, b, g * xh + b)])
    printed = [float(fmt(v, n).replace("−", "-")) for v in (g, xh, b)]
    assert fmt(printed[0] * printed[1] + printed[2], n) == fmt(g * xh + b, n)


@pytest.mark.parametrize(
    ("x", "eps", "said"),
    [
        (np.full(4, 2.5), 1e-5, "= 0: 0, because this vector is constant"),  # QA: it said "just under 1"
        (np.array([0.0, 0.002]), 1e-5, "well under 1, because ε is not small next to σ² here"),
        (np.array([1.0, 2.0, 3.0, 4.0]), 1e-5, "just under 1, because of ε"),
    ],
)
def test_standardize_task_says_just_under_1_only_when_it_is(x: np.ndarray, eps: float, said: str) -> None:
    s = ln.layer_norm_steps(x, eps=eps)
    assert said in ws.worksheet_html("t", s, page="standardize")


def test_the_worksheets_tasks_claim_no_undo_for_every_token() -> None:
    """QA: 'with γ = σ and β = μ, y is x again (up to ε)' and 'γ and β are learned parameters' held
    neither for a vector with σ² near ε nor in the lab's Undo mode, where γ and β come from the vector."""
    s = ln.layer_norm_steps(np.array([0.0, 0.002]), eps=1e-5)
    scale_shift = ws.worksheet_html("t", s, page="scale_shift")
    assert "y is x again (up to ε)" not in scale_shift
    assert "closely while ε ≪ σ²" in scale_shift and "shared by every token" in scale_shift
    assert "γ and β are learned parameters" not in ws.worksheet_html("t", s, page="full_formula")
