"""The class's answers to one question as the projector shows them: a horizontal bar per option (two when
the question was voted again: the first round and the current one), each option's text above its bars
and each bar's count and share beside it. Counts and texts in, figure out.

Made to be read from the back row: the option texts and the numbers are written larger than a lesson
chart's ticks, each on a line of its own so that a long option wraps instead of squeezing the bars.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from typing import Any

import plotly.graph_objects as go

from ui.text import plain_chart, shorten
from ui.theme import COLORS, FONT_SIZE, GUIDE, base_layout, finish, scale

BIG = FONT_SIZE + 6  # option texts and counts: 22 px, 30 px on a projector
WRAP = 32  # characters on a line of an option's text: bold, they fit the narrowest plot (MIN_WIDTH)
LABEL_CHARS = 120  # an option's text longer than this is cut (the lab's own are under 60)
# The narrowest plot the layout is made for, px: the longest bar leaves room beside it for its text.
# (A narrower screen draws the chart at this width, zoomed out: ui.class_projector's style.)
MIN_WIDTH = 600
_CHAR = 0.55  # a character's width in the app's font, at most, in ems (digits, "≈", "·" and lowercase)
RIGHT_MARK = "✓"
NOW, FIRST = COLORS["x"], GUIDE  # the current round's bars, the first round's
RIGHT = COLORS["x_hat"]  # the right option's bar in the current round, once revealed
# px at 16 px type: a bar (one round shown, two), between a row's bars, between rows; the line height
_BAR, _BAR_TWO, _BAR_GAP, _ROW_GAP, _LINE = 34, 24, 4, 14, 1.3
_MARGIN = {"l": 12, "r": 12, "t": 12, "b": 12}


def _label_lines(text: str, right: bool) -> list[str]:
    """An option's text as the lines drawn above its bars: wrapped, shown literally, the answer marked."""
    shown = shorten(text, LABEL_CHARS)
    if right:
        shown = f"{RIGHT_MARK} {shown} (the\u00a0answer)"  # the mark's words stay on one line
    lines = [plain_chart(line, len(line)) for line in textwrap.wrap(shown, WRAP, break_long_words=True)]
    return [f"<b>{line}</b>" for line in lines] if right else lines or [""]


def answers_figure(
    labels: Sequence[str],
    rounds: Sequence[tuple[Sequence[int], Sequence[str]]],
    right: int | None = None,
) -> go.Figure:
    """How the room answered: for each option (``labels``, top to bottom), one bar per round in ``rounds``.

    Parameters
    ----------
    labels : sequence of str
        The options' texts, as the students saw them (shown literally, wrapped).
    rounds : sequence of (counts, texts)
        One or two rounds, the current one last: each option's count, and the text written beside its
        bar (its count and share, and which round it is when there are two).
    right : int, optional
        The option to mark as the answer (only once the answer is revealed).
    """
    k = scale()  # the y axis counts pixels (0 at the top): the rows grow with the type
    lines = [_label_lines(text, i == right) for i, text in enumerate(labels)]
    bar = (_BAR if len(rounds) == 1 else _BAR_TWO) * k
    labels_h = [len(ls) * BIG * _LINE * k for ls in lines]  # each option's text above its bars
    bars_h = len(rounds) * bar + (len(rounds) - 1) * _BAR_GAP * k
    tops = [sum(labels_h[:i]) + i * (bars_h + _ROW_GAP * k) for i in range(len(labels))]
    n = len(labels)
    total = tops[-1] + labels_h[-1] + bars_h if n else 0.0
    top = max((max(counts, default=0) for counts, _ in rounds), default=0)
    longest = max((len(t) for _, texts in rounds for t in texts), default=0)
    room = (8 + longest * _CHAR * BIG) * k / MIN_WIDTH  # the part of the width a bar's text takes
    x_max = max(top, 1) / max(1 - room, 0.3)  # the longest bar ends where its text still fits
    data: list[go.Bar] = []
    notes: list[dict[str, Any]] = []
    for j, (counts, texts) in enumerate(rounds):
        now = j == len(rounds) - 1
        centres = [tops[i] + labels_h[i] + j * (bar + _BAR_GAP * k) + bar / 2 for i in range(n)]
        colours = [RIGHT if now and i == right else NOW if now else FIRST for i in range(n)]
        data.append(
            go.Bar(
                x=list(counts),
                y=centres,
                orientation="h",
                width=bar,
                marker={"color": colours},
                hoverinfo="skip",
                showlegend=False,
            )
        )
        notes += [
            {"x": counts[i], "y": centres[i], "xref": "x", "yref": "y", "xanchor": "left", "xshift": 8}
            | {"text": plain_chart(texts[i], LABEL_CHARS), "showarrow": False, "font": {"size": BIG}}
            for i in range(n)
        ]
    notes += [
        {"x": 0, "xref": "paper", "y": tops[i] + labels_h[i], "yref": "y", "xanchor": "left"}
        | {"yanchor": "bottom", "align": "left", "text": "<br>".join(ls), "showarrow": False}
        | {"font": {"size": BIG}}
        for i, ls in enumerate(lines)
    ]
    hidden = {
        "showticklabels": False,
        "showgrid": False,
        "zeroline": False,
        "fixedrange": True,
        "automargin": False,
    }
    extra = {
        "barmode": "overlay",
        "showlegend": False,
        "margin": _MARGIN,
        "height": round(total + (_MARGIN["t"] + _MARGIN["b"]) * k) if n else 120,
        "xaxis": hidden | {"range": [0, x_max]},
        "yaxis": hidden | {"range": [total, 0]},  # reversed: the first option on top
        "annotations": notes,
    }
    fig = base_layout(go.Figure(data), "", extra=extra)
    return finish(fig)
