"""A chart in words: its name, a sentence or two of what it shows, and its numbers as a table.

A student who cannot see a chart gets from :func:`describe` what a sighted one takes from it: the
title, each trace's range (its smallest and its largest value, and where), the lines drawn across
it (their labels: "μ = 1.125"), and every value in a table (``ui/plot.js`` puts the name on the
chart, the sentences under it for a screen reader, and the table one keypress away). Everything is
read off the figure the chart draws, so the words and the bars never disagree; numbers are written
as the lab writes them (4 significant digits, more where fewer would look exact:
:func:`ui.text.digits_not_to_look_exact`).
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from typing import Any

import numpy as np
import plotly.graph_objects as go

from ui.text import digits_not_to_look_exact, fmt

ROWS = 200  # a table longer than this (a 768-feature vector) shows its first rows and says so
_TAG = re.compile(r"<[^>]*>")


@dataclass(frozen=True)
class Described:
    name: str
    summary: str
    columns: list[str]
    rows: list[list[str]]
    note: str  # what the table holds ("4 rows"; "the first 200 of 768 rows")

    def json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "summary": self.summary,
            "columns": self.columns,
            "rows": self.rows,
            "note": self.note,
        }


def _text(value: object) -> str:
    """Plotly's markup (``<b>``, ``<sub>``, ``<br>``, entities) as plain words."""
    return " ".join(html.unescape(_TAG.sub(" ", str(value))).split())


def _numbers(values: object) -> np.ndarray | None:
    if values is None:
        return None
    try:
        a = np.asarray(values, dtype=float).ravel()
    except (TypeError, ValueError):
        return None
    return a if a.size else None


def _axis_word(title: object, fallback: str) -> str:
    """An axis' title as one word or two ("feature i" -> "feature"), or ``fallback``."""
    return re.sub(r"\s+[a-z]$", "", _text(title)) if title else fallback


def _tick(v: object) -> str:
    """A position on an axis as written: a whole number without ".0"."""
    number = _numbers([v]) if not isinstance(v, str) else None
    return str(int(number[0])) if number is not None and float(number[0]).is_integer() else _text(v)


def _grid_labels(trace: Any, shape: tuple[int, int], words: tuple[str, str]) -> list[str]:
    """Each cell of a heatmap's or surface's z (row-major) named by its column's x and its row's y."""
    rows, cols = shape

    def ticks(values: object, n: int) -> list[str]:
        given = list(values) if values is not None and len(values) == n else []
        return [_tick(v) for v in given] if given else [str(i + 1) for i in range(n)]

    xs, ys = ticks(getattr(trace, "x", None), cols), ticks(getattr(trace, "y", None), rows)
    return [f"{words[0]} {xs[c]}, {words[1]} {ys[r]}" for r in range(rows) for c in range(cols)]


def _log_ticks(bar: Any) -> bool:
    """Whether a colour bar's tick texts are 10 to the power of its tick values (a log10 colour scale)."""
    vals = _numbers(getattr(bar, "tickvals", None)) if bar is not None else None
    texts = getattr(bar, "ticktext", None) if bar is not None else None
    if vals is None or texts is None or len(texts) != vals.size:
        return False
    try:
        shown = np.array([float(_text(t).replace("−", "-")) for t in texts])
    except ValueError:  # words, not numbers
        return False
    return bool(np.allclose(np.power(10.0, vals), shown, rtol=1e-9))


def _series(trace: Any, words: tuple[str, str] = ("x", "y")) -> tuple[str, list[str], np.ndarray] | None:
    """A trace's name, its points' labels and its values (the bars' heights, a line's y, a surface's z).
    ``words``: the x and y axes' names, for a grid's cells."""
    horizontal = getattr(trace, "orientation", None) == "h"
    value_of, label_of = ("x", "y") if horizontal else ("y", "x")
    if trace.type == "histogram":  # the samples it counts: their range is what it shows
        value_of, label_of = ("y", "x") if horizontal else ("x", "y")
    values = _numbers(getattr(trace, "z", None)) if hasattr(trace, "z") else None
    labels: list[str] = []
    if values is None:
        values = _numbers(getattr(trace, value_of, None))
        labels_raw = getattr(trace, label_of, None)
        if values is not None and labels_raw is not None and len(labels_raw) == values.size:
            at = _numbers(labels_raw)  # positions on a number line: written as the lab writes numbers
            labels = _shown(at) if at is not None else [_text(v) for v in labels_raw]
    else:
        try:
            shape = np.shape(np.asarray(trace.z, dtype=float))
        except (TypeError, ValueError):
            shape = ()
        if len(shape) == 2 and shape[0] * shape[1] == values.size:
            labels = _grid_labels(trace, (int(shape[0]), int(shape[1])), words)
    if values is None:
        return None
    if not labels:
        labels = [str(i + 1) for i in range(values.size)]
    bar = getattr(trace, "colorbar", None)
    colorbar = getattr(bar, "title", None)
    scale = _text(getattr(colorbar, "text", None) or "") if colorbar is not None else ""
    if _log_ticks(bar):  # coloured by log10 of the values: the values themselves are what it shows
        with np.errstate(over="ignore"):
            values = np.power(10.0, values)
    name = _text(getattr(trace, "name", None) or "") or scale or "values"
    return name, labels, values


def _shown(values: np.ndarray) -> list[str]:
    """Each value as the lab writes it: 4 significant digits, more where fewer would look exact."""
    digits = digits_not_to_look_exact(values)
    return [fmt(v, digits) for v in values]


def _said(name: str, labels: list[str], values: np.ndarray, axis: str) -> str:
    text = _shown(values)

    def where(i: int) -> str:
        if not axis:  # samples (a histogram's): where one sits in the list says nothing
            return ""
        return (
            f" (at {axis} {labels[i]})"
            if labels[i] == str(i + 1) or _numbers([labels[i].replace("−", "-")]) is not None
            else f" (at {labels[i]})"
        )

    finite = np.isfinite(values)
    if values.size == 1:
        return f"{name}: {text[0]}"
    if not finite.any():
        return f"{name}: {values.size} values, none finite"
    lo = int(np.nanargmin(np.where(finite, values, np.nan)))
    hi = int(np.nanargmax(np.where(finite, values, np.nan)))
    if values[lo] == values[hi]:
        return f"{name}: {values.size} values, all {text[lo]}"
    return f"{name}: {values.size} values, from {text[lo]}{where(lo)} to {text[hi]}{where(hi)}"


def describe(fig: go.Figure) -> Described:
    """``fig``'s name, summary and table (see the module's docstring)."""
    title = fig.layout.title.text if fig.layout.title is not None else None
    name = _text(title) if title else "Chart"
    x_title = fig.layout.xaxis.title.text if fig.layout.xaxis and fig.layout.xaxis.title else None
    y_title = fig.layout.yaxis.title.text if fig.layout.yaxis and fig.layout.yaxis.title else None
    axis = _axis_word(x_title, "point")  # "feature i" -> "feature"
    words = (_axis_word(x_title, "column"), _axis_word(y_title, "row"))
    # Over a heatmap, a scatter's few points mark cells (your cell, a group's edge): said as places
    gridded = any(t.type == "heatmap" for t in fig.data)
    overlays = [t for t in fig.data if gridded and t.type == "scatter" and len(t.x or ()) <= 3]
    traces = [t for t in fig.data if t not in overlays]
    series = [s for s in (_series(t, words) for t in traces) if s is not None]
    kinds = [t.type for t in traces if _series(t, words) is not None]
    parts = [_said(*s, "" if kind == "histogram" else axis) for s, kind in zip(series, kinds, strict=True)]
    marks = [
        f"{_text(t.name or '') or 'a point'} at {words[0]} {_tick(x)}, {words[1]} {_tick(y)}"
        for t in overlays
        for x, y in zip(t.x or (), t.y or (), strict=False)
    ]
    marks += [_text(a.text) for a in (fig.layout.annotations or ()) if a.text and _text(a.text)]
    if parts:
        summary = ". ".join(parts) + "." + (" Marked: " + "; ".join(marks) + "." if marks else "")
    else:  # a diagram: its labels are what it says
        summary = "A diagram: " + "; ".join(marks) + "." if marks else "An empty chart."
    same = len({tuple(labels) for _, labels, _ in series}) == 1 and series
    if same:
        labels = series[0][1]
        columns = [axis, *(n for n, _, _ in series)]
        texts = [_shown(v) for _, _, v in series]
        rows = [[labels[i], *(t[i] for t in texts)] for i in range(len(labels))]
    else:
        columns = ["trace", axis, "value"]
        rows = [[n, labels[i], t] for n, labels, v in series for i, t in enumerate(_shown(v))]
    total = len(rows)
    note = f"{total} rows" if total <= ROWS else f"the first {ROWS} of {total} rows"
    return Described(name, summary, columns, rows[:ROWS], note)
