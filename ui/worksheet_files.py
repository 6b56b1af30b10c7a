"""The two files a step page offers: its numbers as a CSV and a printable one-page worksheet.

Both are built from the :class:`layernorm.LayerNormSteps` the page itself drew, so they hold exactly
the numbers on screen; nothing here computes a statistic (``layernorm`` does, ``ui.text`` formats).

- :func:`worksheet_csv`: one row per feature, every intermediate at full float64 precision.
- :func:`worksheet_html`: a self-contained HTML page (plotly.js embedded, so it works offline)
  with the formula and its live numbers, a short table, the page's charts and the link that
  reproduces the view; ``@page`` CSS keeps it on one A4 or Letter sheet. Its layout is the
  Jinja2 template ``ui/templates/worksheet.html.j2`` (autoescaped: the user's text stays text).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2
import numpy as np
import plotly.graph_objects as go  # type: ignore[import-untyped]
from markupsafe import Markup

from layernorm import LayerNormSteps
from ui import worksheet_math as wm
from ui.text import LABEL_LIMIT, digits_to_separate, fmt, rounding_noise, shorten
from ui.theme import COLORS


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





def _table(page: str, steps: LayerNormSteps, feature: int) -> dict[str, Any]:
    """The first :data:`TABLE_ROWS` features in the page's columns, formatted with ``ui.text.fmt``."""
    spec = STEP_PAGES[page]
    cols = _columns(steps)
    n = min(steps.d, TABLE_ROWS)
    mu_digits = wm.statistic_digits(spec.level, steps).mu
    text: dict[str, list[str]] = {}
    for c in spec.columns:
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
    here = feature if spec.level >= 3 else -1  # the row whose arithmetic is written out
    return {
        "columns": [{"name": c, "color": COLORS.get(_COLUMN_COLOR.get(c, ""))} for c in spec.columns],
        "rows": [{"here": r == here, "cells": [text[c][r] for c in spec.columns]} for r in range(n)],
        "shown": n,
        "more": steps.d - n,
    }


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


def _charts(figures: Sequence[go.Figure]) -> list[dict[str, Any]]:
    """The figures side by side as Plotly divs; plotly.js is embedded once, before the first."""
    if not figures:
        return []
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
        parts.append({"width": width, "height": height, "html": Markup(div)})  # Plotly's own markup
    return parts



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
    formula = [
        {"kind": "earlier" if step < spec.level and spec.level < 5 else "this", "html": Markup(line)}
        for step, line in wm.formula_lines(spec.level, steps, feature)
    ]
    return _template().render(
        title=title,
        label=shorten(label, LABEL_LIMIT) if label else "",
        notes=[shorten(n, 200) for n in notes],
        d=steps.d,
        eps=Markup(wm.num(steps.eps)),
        link=link,
        link_shown=LINK_SHOWN,
        formula=formula,
        scalars=[(name, Markup(value)) for name, value in wm.scalars(spec.level, steps)],
        table=_table(page, steps, feature),
        task=Markup(wm.task(spec.level, steps)),
        charts=_charts(figures),
    )


@functools.cache
def _template() -> jinja2.Template:
    """The worksheet's Jinja2 template, autoescaped (read once per process)."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(Path(__file__).parent / "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
    )
    return env.get_template("worksheet.html.j2")
