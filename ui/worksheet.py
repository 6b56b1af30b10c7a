"""Take a step page home: its numbers as a CSV and a printable one-page worksheet.

Every step page (Mean, Variance, Standardize, Scale & shift, Full formula) ends with
:func:`offer`: two download buttons side by side. Both files are built from the
:class:`layernorm.LayerNormSteps` the page itself drew, so they hold exactly the numbers on
screen; nothing here computes a statistic (``layernorm`` does, ``ui.text`` formats).

- :func:`worksheet_csv`: one row per feature, every intermediate at full float64 precision.
- :func:`worksheet_html`: a self-contained HTML page (plotly.js embedded, so it works offline)
  with the formula and its live numbers, a short table, the page's charts and the link that
  reproduces the view; ``@page`` CSS keeps it on one A4 or Letter sheet.

The files are made only when the user clicks (``st.download_button`` with a callable), because
the worksheet embeds plotly.js (about 4.8 MB) and would otherwise be rebuilt on every rerun.
"""

from __future__ import annotations

import html
import re
import urllib.parse
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import plotly.graph_objects as go  # type: ignore[import-untyped]
import streamlit as st

import layernorm as ln
from layernorm import LayerNormSteps
from ui import charts
from ui.text import LABEL_LIMIT, digits_to_add_up, digits_to_separate, fmt, rounding_noise, shorten, tex_num
from ui.theme import COLORS

if TYPE_CHECKING:
    from ui.settings import LabInput

# --- the five step pages ------------------------------------------------------------------------


@dataclass(frozen=True)
class StepPage:
    """What a step page's worksheet shows.

    Attributes
    ----------
    title : str
        The page's title, also the worksheet's heading.
    slug : str
        The file names' middle part: ``layernorm-<slug>-worksheet.html``.
    level : int
        How far along the formula the page is (1 mean … 4 scale & shift, 5 all of it); the
        worksheet writes out every step up to this one.
    columns : tuple of str
        The :data:`CSV_COLUMNS` its printed table shows (the CSV always has all of them).
    """

    title: str
    slug: str
    level: int
    columns: tuple[str, ...]


STEP_PAGES: dict[str, StepPage] = {
    "mean": StepPage("Step 1 · The mean μ", "mean", 1, ("i", "x", "x − μ")),
    "variance": StepPage("Step 2 · The variance σ²", "variance", 2, ("i", "x", "x − μ", "(x − μ)²")),
    "standardize": StepPage(
        "Step 3 · Standardize: x̂ = (x − μ) / √(σ² + ε)", "standardize", 3, ("i", "x", "x − μ", "x̂")
    ),
    "scale_shift": StepPage(
        "Step 4 · Scale and shift: y = γ ⊙ x̂ + β", "scale-shift", 4, ("i", "x", "x̂", "γ", "β", "y")
    ),
    "full_formula": StepPage(
        "Step 5 · The full formula", "full-formula", 5, ("i", "x", "x − μ", "x̂", "γ", "β", "y")
    ),
}
# Per-feature columns, then the row statistics (the same in every row, so each row reads alone).
CSV_COLUMNS = ("i", "x", "x − μ", "(x − μ)²", "x̂", "γ", "β", "y", "μ", "σ²", "σ", "ε", "√(σ² + ε)")
TABLE_ROWS = 16  # features printed on the worksheet; the CSV has all d
LINK_SHOWN = 300  # characters of the link printed in full; a longer one is clipped on paper
# Colour of each column's heading on paper: the quantity's colour on every chart of the app.
_COLUMN_COLOR = {"x": "x", "x − μ": "centered", "(x − μ)²": "centered", "x̂": "x_hat", "y": "y"}
_COLUMN_COLOR |= {"γ": "gamma", "β": "beta", "μ": "mu"}


# --- the numbers ----------------------------------------------------------------------------------


def _one_vector(
    steps: LayerNormSteps,
    gamma: np.ndarray | float | None,
    beta: np.ndarray | float | None,
    eps: float | None,
) -> None:
    """Refuse batched steps, and γ, β, ε other than those ``steps`` was computed with."""
    if steps.x.ndim != 1:
        raise ValueError(f"a worksheet is for one vector (steps of shape (d,)), not shape {steps.x.shape}")
    for name, given, used in (("gamma", gamma, steps.gamma), ("beta", beta, steps.beta)):
        if given is None:
            continue
        try:
            same = np.array_equal(np.broadcast_to(np.asarray(given, dtype=np.float64), used.shape), used)
        except ValueError:
            same = False
        if not same:
            raise ValueError(f"{name} differs from the {name} these steps were computed with")
    if eps is not None and float(eps) != steps.eps:
        raise ValueError(f"eps = {eps!r} differs from the eps these steps were computed with ({steps.eps!r})")


def _columns(steps: LayerNormSteps) -> dict[str, np.ndarray]:
    """Every :data:`CSV_COLUMNS` column as a float64 array of length d (``i`` as int64).

    A squared deviation beyond float64's range (|x − μ| > 1.3e154) is ``inf``, as the core gives it.
    """
    d = steps.d
    with np.errstate(over="ignore"):
        squares = steps.squared_deviations
    return {
        "i": np.arange(1, d + 1),
        "x": steps.x,
        "x − μ": steps.centered,
        "(x − μ)²": squares,
        "x̂": steps.x_hat,
        "γ": steps.gamma,
        "β": steps.beta,
        "y": steps.y,
        "μ": np.full(d, float(steps.mu)),
        "σ²": np.full(d, float(steps.var)),
        "σ": np.full(d, float(steps.sigma)),
        "ε": np.full(d, steps.eps),
        "√(σ² + ε)": np.full(d, float(steps.std)),
    }


def worksheet_csv(
    steps: LayerNormSteps,
    gamma: np.ndarray | float | None = None,
    beta: np.ndarray | float | None = None,
    eps: float | None = None,
) -> bytes:
    """Every intermediate of one LayerNorm call as a CSV: one row per feature, full precision.

    Parameters
    ----------
    steps : LayerNormSteps
        From :func:`layernorm.layer_norm_steps` on one vector: ``x`` of shape ``(d,)``.
    gamma, beta : (d,) array_like or float, optional
        The scale and shift ``steps`` was computed with (default: those it holds). Given only
        as a check: the CSV always writes ``steps.gamma``, ``steps.beta`` and ``steps.y``.
    eps : float, optional
        The ε ``steps`` was computed with (units of ``x`` squared), likewise only checked.

    Returns
    -------
    bytes
        UTF-8 with a byte-order mark (so Excel reads μ, σ, γ), CRLF line ends, a header row and
        ``d`` rows. Columns :data:`CSV_COLUMNS`: ``i`` (1 … d), then ``x``, ``x − μ``,
        ``(x − μ)²``, ``x̂``, ``γ``, ``β``, ``y`` per feature, then the row's ``μ``, ``σ²``,
        ``σ``, ``ε`` and ``√(σ² + ε)``, repeated in every row. Numbers are written with
        ``repr``: the shortest text that reads back as the same float64 (in units of ``x``;
        ``σ²`` and ``ε`` in units of ``x`` squared; ``x̂`` has none).

    Raises
    ------
    ValueError
        ``steps`` holds a batch (``x`` not 1-D), or ``gamma``, ``beta``, ``eps`` are given and
        differ from those ``steps`` was computed with.
    """
    import pandas as pd  # here, when a CSV is asked for: a page that only offers one never imports pandas

    _one_vector(steps, gamma, beta, eps)
    table = pd.DataFrame(
        {
            name: values.tolist() if name == "i" else [repr(float(v)) for v in values]
            for name, values in _columns(steps).items()
        }
    )
    return table.to_csv(index=False, lineterminator="\r\n").encode("utf-8-sig")


# --- the worksheet ---------------------------------------------------------------------------------


def _num(value: float, digits: int = 4) -> str:
    """A number as ``ui.text.tex_num`` writes it for the page, in HTML: ``1.2 × 10<sup>−5</sup>``."""
    tex = tex_num(value, digits)
    m = re.fullmatch(r"(.*) \\times 10\^\{(-?\d+)\}", tex)
    if m:
        return f"{m[1].replace('-', '−')} × 10<sup>{m[2].replace('-', '−')}</sup>"
    return tex.replace("-", "−")


def _paren(value: float, digits: int) -> str:
    """A number that is about to be squared or multiplied: in brackets when negative."""
    text = _num(value, digits)
    return f"({text})" if value < 0 else text


def _sum(values: np.ndarray, digits: int, head: int = 4) -> str:
    """``x₁ + x₂ − x₃ + …`` with the signs folded in, as ``ui.text.tex_sum`` writes it."""
    shown = values[:head]
    digits = digits_to_separate(shown, digits)
    out = _num(float(shown[0]), digits)
    for v in shown[1:].tolist():
        out += (" − " if v < 0 else " + ") + _num(abs(v), digits)
    return out + (" + …" if values.size > head else "")


def _frac(top: str, bottom: str) -> str:
    return f'<span class="frac"><span>{top}</span><span>{bottom}</span></span>'


def _sqrt(inside: str) -> str:
    return f'√<span class="rad">{inside}</span>'


def _sub(i: int) -> str:
    return f"<sub>{i}</sub>"


@dataclass(frozen=True)
class _Digits:
    """Significant digits of the statistics, chosen as the pages choose them."""

    mu: int
    var: int


def _digits(page: str, steps: LayerNormSteps) -> _Digits:
    # μ never looks like an x it differs from; σ² never like ε (the ÷(d−1) value on Variance)
    mu = digits_to_separate([float(steps.mu)], against=steps.x, same_within=rounding_noise(steps.x))
    var = float(steps.var)
    if page == "variance":
        var_digits = digits_to_separate([var, _sample_variance(steps)], same_within=rounding_noise(var))
    else:
        var_digits = digits_to_separate([var], against=[steps.eps], same_within=rounding_noise(var))
    return _Digits(mu, var_digits)


def _sample_variance(steps: LayerNormSteps) -> float:
    """The ÷(d−1) variance the Variance page compares with (σ² itself when d = 1, as its chart does)."""
    return float(ln.variance(steps.x, ddof=1)) if steps.d > 1 else float(steps.var)


def _formula_lines(page: str, steps: LayerNormSteps, feature: int) -> list[tuple[int, str]]:
    """``[(step, html), ...]``: the formula up to the page's step, each with the live numbers."""
    level = STEP_PAGES[page].level
    dg = _digits(page, steps)
    d, mu, var = steps.d, float(steps.mu), float(steps.var)
    k = feature + 1
    lines = [
        (
            1,
            f"μ = {_frac('1', 'd')} Σ<sub>i</sub> x<sub>i</sub> = {_frac('1', str(d))}"
            f"({_sum(steps.x, dg.mu)}) = <b>{_num(mu, dg.mu)}</b>",
        ),
    ]
    if level >= 2:
        squares = " + ".join(f"{_paren(float(c), 4)}²" for c in steps.centered[:3].tolist())
        more = " + …" if d > 3 else ""
        line = (
            f"σ² = {_frac('1', 'd')} Σ<sub>i</sub> (x<sub>i</sub> − μ)² = {_frac('1', str(d))}"
            f"({squares}{more}) = <b>{_num(var, dg.var)}</b>"
        )
        lines.append((2, line))
        if level == 2:
            lines.append((2, f"σ = √σ² = <b>{_num(float(steps.sigma))}</b>"))
    if level >= 3:
        x_k = float(steps.x[feature])
        minus = f"− {_num(abs(mu), dg.mu)}" if mu >= 0 else f"+ {_num(abs(mu), dg.mu)}"
        lines.append(
            (
                3,
                f"x̂<sub>i</sub> = {_frac('x<sub>i</sub> − μ', _sqrt('σ² + ε'))}, &nbsp; x̂{_sub(k)} = "
                f"{_frac(f'{_num(x_k, dg.mu)} {minus}', _sqrt(f'{_num(var, dg.var)} + {_num(steps.eps)}'))}"
                f" = {_frac(_num(float(steps.centered[feature])), _num(float(steps.std)))}"
                f" = <b>{_num(float(steps.x_hat[feature]))}</b>",
            )
        )
    if level >= 4:
        g, b = float(steps.gamma[feature]), float(steps.beta[feature])
        xh, y = float(steps.x_hat[feature]), float(steps.y[feature])
        n = digits_to_add_up([(g, xh, b, y)])  # the printed terms add up to the printed y
        sign = "−" if b < 0 else "+"
        lines.append(
            (
                4,
                f"y<sub>i</sub> = γ<sub>i</sub> x̂<sub>i</sub> + β<sub>i</sub>, &nbsp; y{_sub(k)} = "
                f"{_num(g, n)} · {_paren(xh, n)} {sign} {_num(abs(b), n)}"
                f" = <b>{_num(y, n)}</b>",
            )
        )
    return lines


def _scalars(page: str, steps: LayerNormSteps) -> list[tuple[str, str]]:
    dg = _digits(page, steps)
    out = [("d", str(steps.d)), ("μ", _num(float(steps.mu), dg.mu))]
    if STEP_PAGES[page].level >= 2:
        out += [("σ²", _num(float(steps.var), dg.var)), ("σ", _num(float(steps.sigma)))]
    if STEP_PAGES[page].level >= 3:
        out += [("ε", _num(steps.eps)), ("√(σ² + ε)", _num(float(steps.std)))]
    return out


def _table(page: str, steps: LayerNormSteps, feature: int) -> str:
    """The first :data:`TABLE_ROWS` features in the page's columns, formatted with ``ui.text.fmt``."""
    cols = _columns(steps)
    n = min(steps.d, TABLE_ROWS)
    mu_digits = _digits(page, steps).mu
    head = "".join(
        f'<th style="border-bottom-color:{COLORS[_COLUMN_COLOR[c]]}">{html.escape(c)}</th>'
        if c in _COLUMN_COLOR
        else f"<th>{html.escape(c)}</th>"
        for c in STEP_PAGES[page].columns
    )
    text: dict[str, list[str]] = {}
    for c in STEP_PAGES[page].columns:
        shown = cols[c][:n]
        if c == "i":
            text[c] = [str(int(v)) for v in shown.tolist()]
            continue
        digits = digits_to_separate(shown)
        if c == "x":  # as many digits as μ, so no x reads like μ unless it equals it
            digits = max(digits, mu_digits)
        if c in ("β", "γ"):  # β = μ, γ = σ (undoing the normalization) must not read as a rounded μ, σ
            near = float(steps.mu) if c == "β" else float(steps.sigma)
            digits = max(digits, digits_to_separate(shown, against=steps.x, same_within=rounding_noise(near)))
        text[c] = [fmt(v, digits) for v in shown.tolist()]
    here = feature if STEP_PAGES[page].level >= 3 else -1  # the row whose arithmetic is written out
    rows = "".join(
        ('<tr class="here">' if r == here else "<tr>")
        + "".join(f"<td>{text[c][r]}</td>" for c in STEP_PAGES[page].columns)
        + "</tr>"
        for r in range(n)
    )
    more = ""
    if steps.d > n:
        more = (
            f'<p class="more">Features {n + 1}–{steps.d} ({steps.d - n:,} more) are not printed: '
            "the CSV has all of them, at full precision.</p>"
        )
    return f"<div><table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>{more}</div>"


def _task(page: str, steps: LayerNormSteps) -> str:
    """A short "work it out" paragraph: what to check by hand in the table, with the page's numbers."""
    dg = _digits(page, steps)
    d, mu, var = steps.d, _num(float(steps.mu), dg.mu), _num(float(steps.var), dg.var)
    level = STEP_PAGES[page].level
    if level == 1:
        text = (
            f"Add up the x column and divide by d = {d}: that is μ = {mu}. Then add up the x − μ column: "
            "it comes to 0 in exact arithmetic, because centring slides every feature by the same amount "
            "(the printed values are rounded, so a sum by hand may miss 0 in its last digits)."
        )
    elif level == 2:
        text = (
            f"Square each x − μ (the (x − μ)² column), add the squares and divide by d = {d}: that is "
            f"σ² = {var}, and its square root σ = {_num(float(steps.sigma))}. Divide by d, not d − 1: the "
            "d numbers are the whole population LayerNorm rescales, not a sample."
        )
    elif level == 3:
        expected = float(steps.x_hat_var_expected)
        digits = digits_to_separate([expected], 6, against=[1.0], same_within=rounding_noise(1.0))
        if float(steps.var) == 0:
            why = "0, because this vector is constant: every x − μ is 0"
        elif expected >= 0.99:
            why = "just under 1, because of ε"
        else:
            why = "well under 1, because ε is not small next to σ² here"
        text = (
            f"Divide each x − μ by √(σ² + ε) = {_num(float(steps.std))}: that is the x̂ column. x̂ has mean 0 "
            f"and variance σ² / (σ² + ε) = {_num(expected, digits)}: {why}."
        )
    elif level == 4:
        text = (
            "Multiply each x̂ by its γ and add its β: that is the y column. With γ = 1 and β = 0, y is x̂; "
            "with this vector's own γ = σ and β = μ, y is this vector again (closely while ε ≪ σ²), and "
            "no other: a network's γ and β are shared by every token, each with its own μ and σ."
        )
    else:
        text = (
            "Read one row from left to right: that is the whole formula for one feature. μ and σ² are "
            "computed from this vector; γ and β are given to the formula (in a network, learned "
            "parameters shared by every token)."
        )
    return f'<aside class="task"><p class="task-title">Work it out</p><p>{text}</p></aside>'


def _print_figure(fig: go.Figure, width: int, height: int) -> go.Figure:
    """A copy of ``fig`` sized for paper: small fonts, tight margins, SVG traces only.

    WebGL traces (``Scattergl``, used for long vectors) may print blank, so they become
    ``Scatter`` with the same data and style.
    """
    traces = []
    for trace in fig.data:
        if trace.type == "scattergl":
            spec = {k: v for k, v in trace.to_plotly_json().items() if k != "type"}
            trace = go.Scatter(spec, skip_invalid=True)
        traces.append(trace)
    out = go.Figure(data=traces, layout=fig.layout)
    out.update_layout(
        width=width,
        height=height,
        font={"size": 10},
        title={"font": {"size": 12}},
        margin={"l": 48, "r": 10, "t": 52, "b": 36},
        legend={"font": {"size": 9}},
    )
    out.update_annotations(font_size=9)
    out.update_xaxes(automargin=True)  # long tick labels ("before: x") widen the margin, not get cut
    out.update_yaxes(automargin=True)
    return out


def _charts(figures: Sequence[go.Figure]) -> str:
    """The figures side by side as Plotly divs; plotly.js is embedded once, before the first."""
    if not figures:
        return ""
    gap = 12
    width = (700 - gap * (len(figures) - 1)) // len(figures)
    height = 250
    parts = []
    for n, fig in enumerate(figures):
        div = _print_figure(fig, width, height).to_html(
            full_html=False,
            include_plotlyjs=n == 0,
            div_id=f"worksheet-chart-{n + 1}",
            config={"staticPlot": True, "displayModeBar": False},
            default_width=f"{width}px",
            default_height=f"{height}px",
        )
        parts.append(f'<div class="chart" style="width:{width}px;height:{height}px">{div}</div>')
    return f'<section class="charts">{"".join(parts)}</section>'


_CSS = """
@page { size: A4; margin: 12mm }
* { box-sizing: border-box }
html { -webkit-print-color-adjust: exact; print-color-adjust: exact }
body { margin: 0; background: #eceff1; color: #1b1b1b;
       font: 9.5pt/1.3 "DejaVu Sans", "Segoe UI", Helvetica, Arial, sans-serif }
.sheet { width: 186mm; margin: 0; background: #fff; overflow: hidden }
@media screen {
  .sheet { width: calc(186mm + 16mm); margin: 8mm auto; padding: 8mm; box-shadow: 0 1px 6px #0003 }
}
@media print { body { background: #fff } .sheet { max-height: 255mm } }
header { border-bottom: 2px solid #0072B2; padding-bottom: 4px; margin-bottom: 7px }
header p { margin: 0 }
.kicker { font-size: 7.5pt; letter-spacing: .08em; text-transform: uppercase; color: #555 }
h1 { margin: 0 0 2px; font-size: 14pt; font-weight: 600 }
.meta { color: #333; overflow-wrap: anywhere }
.meta .label { font-weight: 600 }
.notes { font-size: 8pt; color: #444 }
.reproduce { font-size: 8pt; margin-top: 2px }
.link { font-family: "DejaVu Sans Mono", Consolas, monospace; font-size: 7.5pt; word-break: break-all;
        color: #0b4f8a }
.clipped { display: block; font-size: 7.5pt; color: #555 }
@media screen { .clipped { display: none } .link.long { display: block; max-height: 6em; overflow-y: auto } }
@media print { .link.long { display: block; max-height: 3.6em; overflow: hidden } }
.formula { margin: 0 0 6px; padding: 4px 10px; background: #f6f8fa; border-left: 3px solid #E69F00;
           font-family: "DejaVu Serif", "Cambria Math", "Times New Roman", serif; font-size: 10.5pt }
.formula p { margin: 2px 0; line-height: 1.75 }
.formula p.earlier { color: #555; font-size: 9pt; line-height: 1.6 }
.formula p.earlier::after { content: "   (earlier step)"; font-family: sans-serif; font-size: 7pt }
.formula b { color: #000 }
.frac { display: inline-flex; flex-direction: column; vertical-align: middle; text-align: center;
        line-height: 1.1; margin: 0 2px }
.frac > span:first-child { border-bottom: 1px solid currentColor; padding: 0 3px 1px }
.frac > span:last-child { padding: 1px 3px 0 }
.rad { border-top: 1px solid currentColor; padding: 0 2px }
.scalars { display: flex; flex-wrap: wrap; gap: 2px 16px; margin: 0 0 6px; font-size: 9pt }
.scalars b { font-weight: 600 }
.numbers { display: flex; gap: 16px; align-items: flex-start; margin: 0 0 6px }
table { border-collapse: collapse; font-size: 8pt; line-height: 1.25; font-variant-numeric: tabular-nums }
th, td { padding: 0 8px; text-align: right; white-space: nowrap }
th { border-bottom: 2px solid #999; font-weight: 600 }
tbody tr:nth-child(even) { background: #f4f6f8 }
tr.here td { background: #fff3c4; font-weight: 600 }
.more { margin: 2px 0 0; font-size: 7.5pt; color: #555 }
.task { flex: 1; min-width: 52mm; padding: 5px 9px; border: 1px dashed #999; border-radius: 4px;
        font-size: 8.5pt }
.task p { margin: 0 }
.task .task-title { font-weight: 600; margin-bottom: 2px }
.charts { display: flex; gap: 12px; margin: 0 0 4px; break-inside: avoid }
.chart { overflow: hidden }
footer { border-top: 1px solid #bbb; padding-top: 3px; font-size: 7.5pt; color: #444 }
"""


def worksheet_html(
    title: str,
    steps: LayerNormSteps,
    gamma: np.ndarray | float | None = None,
    beta: np.ndarray | float | None = None,
    eps: float | None = None,
    label: str = "",
    link: str = "",
    figures: Sequence[go.Figure] = (),
    *,
    page: str = "full_formula",
    feature: int = 0,
    notes: Sequence[str] = (),
) -> str:
    """A printable one-page worksheet of one step page: self-contained HTML.

    Parameters
    ----------
    title : str
        The heading, e.g. the page's title (escaped).
    steps : LayerNormSteps
        From :func:`layernorm.layer_norm_steps` on one vector (``x`` of shape ``(d,)``): the
        only source of the numbers printed.
    gamma, beta, eps : optional
        As in :func:`worksheet_csv`: only checked against ``steps``.
    label : str
        The input's description, as the sidebar names it (user text: a file name, a token;
        shortened to ``ui.text.LABEL_LIMIT`` characters on one line and escaped).
    link : str
        The URL that reproduces the view (printed as escaped text; a link only when it is
        ``http(s)``). Longer than :data:`LINK_SHOWN` characters, it is clipped to three lines
        on paper and scrolls in a small box on screen (the file holds all of it).
    figures : sequence of plotly Figure
        The page's charts, at most about three; drawn side by side at 700 px in all, with
        plotly.js embedded once (about 4.8 MB) so the file needs no network. Not modified.
    page : {"mean", "variance", "standardize", "scale_shift", "full_formula"}
        Which step's formula and table columns to print (:data:`STEP_PAGES`).
    feature : int
        0-based index of the feature whose arithmetic the formula writes out (steps 3 and 4)
        and whose row the table highlights.
    notes : sequence of str
        Extra lines under the input's description (escaped).

    Returns
    -------
    str
        A complete HTML document. Numbers are formatted with :func:`ui.text.fmt` (the table)
        and as ``ui.text.tex_num`` writes them (the formula), with the digits the pages choose.
        At most :data:`TABLE_ROWS` features are tabulated; a note counts the rest. The content
        fits 186 mm × 255 mm: one A4 page (``@page { size: A4; margin: 12mm }``) or one Letter
        page at the same margins.

    Raises
    ------
    ValueError
        As :func:`worksheet_csv`; also ``feature`` outside ``0 … d − 1``.
    KeyError
        ``page`` is not a step page.
    """
    _one_vector(steps, gamma, beta, eps)
    spec = STEP_PAGES[page]
    if not 0 <= feature < steps.d:
        raise ValueError(f"feature {feature} is outside 0 … {steps.d - 1}")
    lines = "".join(
        f'<p class="{"earlier" if step < spec.level and spec.level < 5 else "this"}">{text}</p>'
        for step, text in _formula_lines(page, steps, feature)
    )
    scalars = "".join(f"<span>{name} = <b>{value}</b></span>" for name, value in _scalars(page, steps))
    shown_label = html.escape(shorten(label, LABEL_LIMIT)) if label else "(not named)"
    shown_notes = " ".join(html.escape(shorten(n, 200)) for n in notes)
    link_text = html.escape(link)
    long = " long" if len(link) > LINK_SHOWN else ""
    if link.startswith(("http://", "https://")):
        link_html = f'<a class="link{long}" href="{html.escape(link, quote=True)}">{link_text}</a>'
    else:
        link_html = f'<span class="link{long}">{link_text or "(not available)"}</span>'
    if long:
        link_html += (
            f'<span class="clipped">The link is {len(link):,} characters long, so paper shows only its '
            "start: open this file on a screen to follow or copy all of it.</span>"
        )
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{html.escape(title)} · LayerNorm Lab worksheet</title>
<style>{_CSS}</style>
</head>
<body>
<main class="sheet">
<header>
<p class="kicker">LayerNorm Lab · worksheet</p>
<h1>{html.escape(title)}</h1>
<p class="meta">Input: <span class="label">{shown_label}</span> · d = {steps.d} · ε = {_num(steps.eps)}</p>
{f'<p class="notes">{shown_notes}</p>' if shown_notes else ""}
<p class="reproduce">Reproduce this view: {link_html}</p>
</header>
<section class="formula">{lines}</section>
<section class="scalars">{scalars}</section>
<section class="numbers">{_table(page, steps, feature)}{_task(page, steps)}</section>
{_charts(figures)}
<footer>Numbers from the lab's tested core (<code>layernorm</code>), to the digits that tell them apart;
the CSV download has every feature at full float64 precision.</footer>
</main>
</body>
</html>
"""


# --- the page's charts ----------------------------------------------------------------------------


def page_figures(page: str, steps: LayerNormSteps) -> list[go.Figure]:
    """The main charts of a step page, drawn from ``steps`` with ``ui.charts`` as the page draws them.

    Parameters
    ----------
    page : str
        A key of :data:`STEP_PAGES`.
    steps : LayerNormSteps
        The page's steps, one vector.

    Returns
    -------
    list of plotly Figure
        Mean: x with μ, and x − μ. Variance: the squared deviations with σ² and the ÷(d−1)
        value. Standardize: x̂ with the ±1 band, and x̂'s variance against ε. Scale & shift: x̂,
        y and x as bars, and the map x̂ → y. Full formula: before and after.

    Raises
    ------
    KeyError
        ``page`` is not a step page.
    """
    with np.errstate(over="ignore"):  # squares beyond float64's range are inf, as the page draws them
        return _page_figures(page, steps)


def _page_figures(page: str, steps: LayerNormSteps) -> list[go.Figure]:
    spec = STEP_PAGES[page]
    mu = float(steps.mu)
    if spec.slug == "mean":
        mu_digits = _digits(page, steps).mu
        return [
            charts.feature_chart(
                [("x", steps.x)], "The input x and its mean", hlines=[("mu", mu, f"μ = {fmt(mu, mu_digits)}")]
            ),
            charts.feature_chart(
                [("centered", steps.centered)],
                "Centred: x − μ balances at zero",
                hlines=[("mu", 0.0, "new mean = 0")],
            ),
        ]
    if spec.slug == "variance":
        var = float(steps.var)
        var_digits = _digits(page, steps).var
        return [
            charts.variance_chart(steps.squared_deviations, var, _sample_variance(steps), digits=var_digits)
        ]
    if spec.slug == "standardize":
        eps_grid = np.logspace(-12, 0, 61)
        return [
            charts.standardized_chart(steps.x_hat),
            charts.eps_curve(
                eps_grid,
                steps.x_hat_var_at(eps_grid),
                steps.eps,
                float(steps.x_hat_var_expected),
                float(steps.var),
            ),
        ]
    if spec.slug == "scale-shift":
        return [
            charts.feature_chart(
                [("x_hat", steps.x_hat), ("y", steps.y), ("x", steps.x)], "x̂ in, y out (and x)"
            ),
            charts.affine_map(steps.x_hat, steps.y),
        ]
    return [charts.before_after(steps.x, steps.y, mu, float(ln.mean(steps.y)))]


# --- on the page ------------------------------------------------------------------------------------


def current_link() -> str:
    """The URL of the current view: the page's address and its query string (the bound widgets).

    Returns
    -------
    str
        ``st.context.url`` (scheme, host, page path) with ``?`` and the current
        ``st.query_params`` URL-encoded, every value of a repeated key kept. Without a browser
        (AppTest) the address is ``http://<Host header>/`` or, lacking that, empty, so the
        result may be only the query string (``""`` when there is none).
    """
    base = st.context.url
    if not base:
        host = st.context.headers.get("Host")
        base = f"http://{host}/" if host else ""
    from ui.state import reads_everything  # here: ui.state is imported by the pages anyway

    reads_everything()  # the link holds every control: a lab section that shows it reruns on any move
    pairs = [(k, v) for k in st.query_params for v in st.query_params.get_all(k)]
    query = urllib.parse.urlencode(pairs)
    return f"{base}?{query}" if query else base


def _view_notes(page: str, lab: LabInput, steps: LayerNormSteps) -> list[str]:
    notes = []
    if lab.problem:
        notes.append("The input in the sidebar has a problem, so this is the last valid input.")
    if steps.x.shape != lab.x.shape or not np.array_equal(steps.x, lab.x):
        notes.append("x is the sidebar's vector as changed by this page's controls (the link keeps them).")
    if STEP_PAGES[page].level >= 4:
        notes.append(f"γ and β: {lab.affine_mode}.")
    return notes


def offer(
    page_name: str,
    lab: LabInput,
    steps: LayerNormSteps,
    figures: Sequence[go.Figure] | Callable[[], Sequence[go.Figure]] | None = None,
    *,
    feature: int = 0,
) -> None:
    """Two download buttons side by side: the numbers as a CSV and a printable worksheet (HTML).

    Both files are made only when clicked (a callable ``data``, run by Streamlit on its own
    thread), and a download does not rerun the page (``on_click="ignore"``). The link and the
    input's description are read now, on the script's thread.

    Parameters
    ----------
    page_name : {"mean", "variance", "standardize", "scale_shift", "full_formula"}
        Which step page (:data:`STEP_PAGES`); the widget keys are ``ws_csv_<page_name>`` and
        ``ws_html_<page_name>``, the files ``layernorm-<slug>-numbers.csv`` and
        ``layernorm-<slug>-worksheet.html``.
    lab : LabInput
        The sidebar's input (its label, γ/β mode and whether it had a problem).
    steps : LayerNormSteps
        The steps the page drew (one vector): every number in both files. A page before Scale & shift
        draws x̂ without γ and β; its files take ``lab``'s γ and β for the γ, β and y columns (the
        sidebar's, as on every later page), so the same link gives the same γ, β and y on every page.
    figures : sequence of plotly Figure, or a callable returning them, optional
        The worksheet's charts; a callable is called only when the worksheet is clicked.
        Default: :func:`page_figures` (the page's main charts, drawn from ``steps``).
    feature : int
        0-based feature whose arithmetic the worksheet writes out (Standardize's ``i``).

    Raises
    ------
    KeyError
        ``page_name`` is not a step page.
    """
    spec = STEP_PAGES[page_name]
    if spec.level < 4:  # the page stops before y; its files still use the sidebar's γ and β, as y does
        steps = ln.layer_norm_steps(steps.x, lab.gamma, lab.beta, eps=steps.eps)
    link = current_link()
    notes = _view_notes(page_name, lab, steps)
    feature = min(max(int(feature), 0), steps.d - 1)
    if figures is None:
        make_figures: Callable[[], Sequence[go.Figure]] = lambda: page_figures(page_name, steps)  # noqa: E731
    elif callable(figures):
        make_figures = figures
    else:
        shown = list(figures)
        make_figures = lambda: shown  # noqa: E731

    def make_html() -> str:
        return worksheet_html(
            spec.title,
            steps,
            label=lab.label,
            link=link,
            figures=make_figures(),
            page=page_name,
            feature=feature,
            notes=notes,
        )

    row = st.container(horizontal=True, gap="small")
    row.download_button(
        "Download the numbers (CSV)",
        lambda: worksheet_csv(steps),
        file_name=f"layernorm-{spec.slug}-numbers.csv",
        mime="text/csv",
        key=f"ws_csv_{page_name}",
        on_click="ignore",
        icon=":material/table_view:",
        help="One row per feature: x, x − μ, (x − μ)², x̂, γ, β, y and the statistics, at full precision.",
    )
    row.download_button(
        "Printable worksheet (HTML)",
        make_html,
        file_name=f"layernorm-{spec.slug}-worksheet.html",
        mime="text/html",
        key=f"ws_html_{page_name}",
        on_click="ignore",
        icon=":material/print:",
        help="One page with the formula, the numbers, the charts and the link to this view. "
        "Open it and print (A4 or Letter); it works offline.",
    )
