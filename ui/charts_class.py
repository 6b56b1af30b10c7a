"""The class's answers to one question as the projector shows them: a horizontal bar per option (two when
the question was voted again: the first round and the current one), each option's text beside its bars
and each bar's count and share beside the bar. Counts and texts in, HTML out.

HTML, not a Plotly figure: the browser wraps an option's text at the width the wall really has. A figure's
texts are wrapped on the server, for the narrowest screen it might be drawn on, so on a 1280 px wall a
long option took three lines in a third of the width and the chart ran off the bottom of the screen.
Every text is escaped, so what a teacher's screen described shows as its characters, and stays text a
person can select, copy and find with Ctrl-F.

Made to be read from the back row: option texts and counts in presentation mode's chart size or larger
(:data:`STYLE`, in rem of the wall's 20 px root).
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from ui.text import shorten
from ui.theme import COLORS, GUIDE

LABEL_CHARS = 120  # an option's text longer than this is cut (the lab's own are under 110)
RIGHT_MARK = "✓"
NOW, FIRST = COLORS["x"], GUIDE  # the current round's bars, the first round's
RIGHT = COLORS["x_hat"]  # the right option's bar in the current round, once revealed
_CHAR_EM = 0.6  # a count's character at most, in ems (digits, "≈", "·", "%" and lowercase)

# Wide screens: an option's text on the left, as wide as it needs up to 58 % of the width, its bars on
# the right; narrow ones (a phone): the text above its bars. 1.2rem is 24 px on the wall (presentation
# mode's root of 20 px); presentation mode's chart texts are 22 px.
STYLE = """<style>
.lab-answers { display: grid; grid-template-columns: fit-content(58%) minmax(0, 1fr);
  column-gap: 1.2rem; row-gap: 0.7rem; align-items: center; font-size: 1.3rem; line-height: 1.3; }
.lab-answer-text { overflow-wrap: anywhere; }
.lab-answer-text.lab-right { font-weight: 700; }
.lab-answer-text .lab-mark { white-space: nowrap; }
.lab-answer-bars { display: flex; flex-direction: column; gap: 0.2rem; min-width: 0; }
.lab-answer-round { display: flex; align-items: center; gap: 0.4rem; min-height: 1.35em;
  white-space: nowrap; }
.lab-answer-bar { flex: none; align-self: stretch; border-radius: 0.15rem; }
@media (max-width: 699px) {
  .lab-answers { grid-template-columns: minmax(0, 1fr); font-size: 1rem; row-gap: 0.3rem; }
  .lab-answer-bars { margin-bottom: 0.6rem; }
}
</style>"""


def _label(text: str, right: bool) -> str:
    """An option's text as the wall shows it: escaped, cut when very long, the answer marked."""
    shown = html.escape(shorten(text, LABEL_CHARS))
    if not right:
        return f'<div class="lab-answer-text">{shown}</div>'
    mark = '<span class="lab-mark">(the answer)</span>'  # the mark's words stay on one line
    return f'<div class="lab-answer-text lab-right">{RIGHT_MARK} {shown} {mark}</div>'


def answers_html(
    labels: Sequence[str],
    rounds: Sequence[tuple[Sequence[int], Sequence[str]]],
    right: int | None = None,
) -> str:
    """How the room answered: for each option (``labels``, top to bottom), one bar per round in ``rounds``.

    Parameters
    ----------
    labels : sequence of str
        The options' texts, as the students saw them (shown literally, wrapped by the browser).
    rounds : sequence of (counts, texts)
        One or two rounds, the current one last: each option's count, and the text written beside its
        bar (its count and share, and which round it is when there are two).
    right : int, optional
        The option to mark as the answer (only once the answer is revealed).

    Returns
    -------
    str
        The chart's HTML, for ``st.html`` on a page that draws :data:`STYLE`: the longest bar ends where
        the longest bar's text still fits beside it.
    """
    top = max((max(counts, default=0) for counts, _ in rounds), default=0)
    longest = max((len(t) for _, texts in rounds for t in texts), default=0)
    room = f"{longest * _CHAR_EM + 0.4:.2f}em"  # the longest text beside its bar, and the gap before it
    rows = []
    for i, text in enumerate(labels):
        bars = []
        for j, (counts, texts) in enumerate(rounds):
            now = j == len(rounds) - 1
            colour = RIGHT if now and i == right else NOW if now else FIRST
            part = counts[i] / max(top, 1)
            bar = f"width: calc((100% - {room}) * {part:.4f}); background: {colour}"
            bars.append(
                f'<div class="lab-answer-round"><span class="lab-answer-bar" style="{bar}"></span>'
                f'<span class="lab-answer-count">{html.escape(texts[i])}</span></div>'
            )
        rows.append(f'{_label(text, i == right)}<div class="lab-answer-bars">{"".join(bars)}</div>')
    return f'<div class="lab-answers">{"".join(rows)}</div>'
