"""The projector view of a class, ``/projector?class=CODE``: made for the wall, safe to project.

Its address carries the class's code and nothing else; the code is public (students type it), so
anyone may open the view, and it shows only what the whole room may see: the join code, its QR and
link, how many students joined, and for the question the teacher last acted on (``Room.current``) its
text, its state, how many answered, and the counts of each option (the right one marked once the
answer is revealed). No nickname, seat or teacher key is read here, so none can be drawn.

It follows the class by itself: a timed fragment reads the store every :data:`PROJECTOR_POLL_S`
(an answer is on the wall within that and one run), whatever else the browser does. It reads the
store, not ``ui.class_session.room_now``'s copy of a second ago: a class has one projector, and the
room sees the answers come in.
"""

from __future__ import annotations

import functools
import io
import urllib.parse
from collections.abc import Sequence
from dataclasses import dataclass

import segno
import streamlit as st

from classroom.model import (
    CLOSED,
    PROMPT_MAX,
    REVEALED,
    QuestionResult,
    Room,
    normal_code,
    share_text,
    students_text,
)
from ui import charts_class
from ui import class_session as cs
from ui.fragments import page_fragment
from ui.presentation import STYLE as PRESENTATION_STYLE
from ui.shell import ensure_app_shell
from ui.text import plain, shorten

PATH = "projector"  # the view's url path (app.py registers the page under it)
PROJECTOR_POLL_S = 1.0
LABEL_IN_SENTENCE = 48  # about the characters of an option's text quoted in the summary (the chart has all)
# The wall's type: presentation mode's (ui.presentation), and larger for what the room reads at once.
# The view hides the sidebar: its controls act on the lessons, not on this view, and on a projector it
# takes a third of the wall. Streamlit collapses the sidebar only for the whole app
# (st.set_page_config), so this page hides it with a style of its own, drawn on this page only. It hides
# the header too (empty here: the toolbar is minimal and the sidebar hidden) and the 4rem presentation
# mode leaves above a page for it, so a question, its chart and its summary fit a 1280×720 wall whole.
STYLE = """<style>
[data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"], [data-testid="stExpandSidebarButton"],
[data-testid="stHeader"] {
  display: none;
}
[data-testid="stMain"] [data-testid="stMainBlockContainer"] { padding: 1rem 2rem 1rem 2rem; }
.st-key-projector_code p { font-size: clamp(3.5rem, 16vw, 8rem); font-weight: 700; letter-spacing: 0.06em;
  line-height: 1.1; margin: 0; }
.st-key-projector_lead p { font-size: 1.6rem; font-weight: 600; }
.st-key-projector_link p, .st-key-projector_joined p { font-size: 1.3rem; }
.st-key-projector_url [data-testid="stText"], .st-key-projector_prompt [data-testid="stText"],
.st-key-projector_summary [data-testid="stText"] { overflow-wrap: anywhere; white-space: normal; }
.st-key-projector_url [data-testid="stText"] { font-size: 1.3rem; }
.st-key-projector_prompt [data-testid="stText"] { font-size: clamp(1.2rem, 4vw, 1.5rem); font-weight: 600;
  line-height: 1.3; }
.st-key-projector_status p, .st-key-projector_corner p { font-size: clamp(1rem, 3vw, 1.2rem); }
.st-key-projector_summary [data-testid="stText"] { font-size: clamp(1rem, 3vw, 1.1rem); line-height: 1.4; }
.st-key-projector_corner p { text-align: right; }
.st-key-projector_qr img { image-rendering: pixelated; }
</style>"""
NEEDS = (
    "The projector view needs the class's code in its address: /projector?class= followed by the six "
    "letters and digits the teacher's screen shows (for example /projector?class=K7QF2M)."
)


def address(code: str) -> str:
    """The projector view's absolute address for class ``code`` (public: it carries the code only)."""
    url = urllib.parse.urlsplit(cs.join_address(code))
    query = urllib.parse.urlencode({cs.CLASS: code})
    return urllib.parse.urlunsplit((url.scheme, url.netloc, f"/{PATH}", query, ""))


@functools.lru_cache(maxsize=64)
def qr_png(text: str) -> bytes:
    """A QR code of ``text`` as a PNG (error correction M: it still reads off a dim projector)."""
    out = io.BytesIO()
    segno.make(text, error="m").save(out, kind="png", scale=8, border=2)
    return out.getvalue()


# --- what the wall says (pure: no Streamlit) --------------------------------------------------------


def option_texts(result: QuestionResult) -> tuple[str, ...]:
    """The options' texts as the teacher's screen described them; "Option k" for any it did not."""
    seen = max((c for counts in result.rounds.values() for c in counts), default=-1) + 1
    n = max(len(result.labels), result.options or 0, seen)
    return tuple(result.labels[i] if i < len(result.labels) else f"Option {i + 1}" for i in range(n))


def _line(text: str) -> str:
    return shorten(text, len(str(text)))


def _cut(line: str, limit: int) -> str:
    """``line`` cut at a space near ``limit`` characters, an ellipsis where it was cut."""
    if len(line) <= limit:
        return line
    head = line[:limit]
    space = head.rfind(" ")
    return (head[:space] if space >= limit * 0.6 else head).rstrip(" ,;:") + "…"


def quotes(labels: Sequence[str]) -> list[str]:
    """Each option's text as the summary quotes it: cut near :data:`LABEL_IN_SENTENCE` characters, and
    later where the part kept would also begin another option (the chart shows every text whole)."""
    lines = [_line(text) for text in labels]
    said = []
    for line in lines:
        limit = LABEL_IN_SENTENCE
        cut = _cut(line, limit)
        while limit < len(line) and any(o != line and o.startswith(cut[:-1]) for o in lines):
            limit += 10
            cut = _cut(line, limit)
        said.append(f"“{cut}”")
    return said


def _listed(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def chosen(labels: Sequence[str], counts: Sequence[int]) -> str:
    """The sentence on the most chosen option(s), for at least one answer: "Most chose “2.5” (7, ≈ 58 %)."
    ("most" only past half), "Chosen most: …" for a plurality or two options tied, "All 12 answers are
    …" and "The one answer is …". Three or more options tied are counted, not quoted (the chart names
    them): the sentence stays short enough for the wall."""
    total = sum(counts)
    top = max(counts)
    tops = [i for i, c in enumerate(counts) if c == top]
    each = f"{top} each, {share_text(top, total)} each"
    if len(tops) > 2 and len(tops) == len(counts):
        return f"All {len(tops)} options tie ({each})."
    if len(tops) > 2:
        return f"{len(tops)} options tie for the most ({each})."
    said = quotes(labels)
    if len(tops) == 2:
        return f"Chosen most: {_listed([said[i] for i in tops])} ({each})."
    best = said[tops[0]]
    if top == total:
        return f"The one answer is {best}." if total == 1 else f"All {total} answers are {best}."
    if 2 * top > total:
        return f"Most chose {best} ({top}, {share_text(top, total)})."
    return f"Chosen most: {best} ({top}, {share_text(top, total)})."


def summary(
    labels: Sequence[str],
    counts: Sequence[int],
    students: int,
    *,
    right: int | None = None,
    round_: int = 1,
    first: Sequence[int] | None = None,
) -> str:
    """The chart in words, from the same numbers, for a screen reader and for whoever cannot see the
    chart: how many answered, the most chosen option, the answer once revealed (``right``), and in a
    round after the first (``round_``), how round 1 (``first``) went."""
    total = sum(counts)
    where = f" in round {round_}" if round_ > 1 else ""
    said = [f"{total} of {students_text(students)} answered{where}."]
    if total:
        said.append(chosen(labels, counts))
    if right is not None:
        got = counts[right]
        answer = f"The answer is {quotes(labels)[right]}"
        if not total:
            said.append(f"{answer}.")
        elif not got:
            said.append(f"{answer}: nobody chose it.")
        else:
            said.append(f"{answer}: {got} chose it ({share_text(got, total)}).")
    if first is not None:
        before = sum(first)
        if not before:
            said.append("In round 1 nobody answered.")
        else:
            told = chosen(labels, first)
            noun = "answer" if before == 1 else "answers"
            said.append(f"Round 1: {before} {noun}; {told[0].lower()}{told[1:]}")
    return " ".join(said)


@dataclass(frozen=True)
class Board:
    """Everything the wall shows of one question."""

    prompt: str
    state: str  # "Answers open", "Answers closed" or "Answer revealed"
    answered: str  # "7 of 20 students answered"
    labels: tuple[str, ...]
    rounds: tuple[tuple[tuple[int, ...], tuple[str, ...]], ...]  # (counts, bar texts), the current last
    right: int | None  # marked only once revealed
    summary: str


def _counts(by_choice: dict[int, int], n: int) -> tuple[int, ...]:
    return tuple(by_choice.get(i, 0) for i in range(n))


def _bar_texts(counts: Sequence[int], prefix: str) -> tuple[str, ...]:
    total = sum(counts)
    return tuple(f"{prefix}{c} · {share_text(c, total)}" if total else f"{prefix}{c}" for c in counts)


def board(result: QuestionResult, students: int, *, ended: bool = False) -> Board:
    """What the wall shows of ``result`` in a class of ``students``; ``ended``: the class takes no answers."""
    labels = option_texts(result)
    now = _counts(result.rounds.get(result.round, {}), len(labels))
    revealed = result.state == REVEALED
    known = result.right is not None and 0 <= result.right < len(labels)
    right = result.right if revealed and known else None
    if revealed:
        state = "Answer revealed"
    else:
        state = "Answers closed" if ended or result.state == CLOSED else "Answers open"
    first = None
    rounds: tuple[tuple[tuple[int, ...], tuple[str, ...]], ...] = ((now, _bar_texts(now, "")),)
    if result.round > 1:
        state += f" · round {result.round}"
        first = _counts(result.rounds.get(1, {}), len(labels))
        rounds = ((first, _bar_texts(first, "round 1: ")), (now, _bar_texts(now, f"round {result.round}: ")))
    return Board(
        prompt=result.prompt or "The question on the teacher's screen",
        state=state,
        answered=f"{sum(now)} of {students_text(students)} answered",
        labels=labels,
        rounds=rounds,
        right=right,
        summary=summary(labels, now, students, right=right, round_=result.round, first=first),
    )


# --- the page ---------------------------------------------------------------------------------------


def page() -> None:
    """The projector page (``pages/19_projector.py``): the class its address names, followed live."""
    ensure_app_shell()
    st.html(PRESENTATION_STYLE)
    st.html(STYLE)
    st.html(charts_class.STYLE)
    given = st.query_params.get(cs.CLASS)
    code = normal_code(given) if given else None
    if code is None:
        st.warning(NEEDS if not given else f"“{plain(given)}” is not a class code. {NEEDS}")
        return
    _live(code)


@page_fragment(by_user=False, run_every=PROJECTOR_POLL_S)
def _live(code: str) -> None:
    room = cs.store().room(code)
    if room is None:
        st.warning(f"There is no class {code} (any more).")
        return
    result = cs.store().question(code, room.current) if room.current is not None else None
    if room.closed and result is None:
        st.info(f"Class {code} has ended.")
    if result is not None:
        _question(room, result)
    elif not room.closed:
        _join(room)


def _join(room: Room) -> None:
    link = cs.join_address(room.code)
    left, right = st.columns([3, 2], vertical_alignment="center")
    for key, text in (
        ("projector_lead", "Join the class"),
        ("projector_code", room.code),
        ("projector_link", "Scan the QR code, or open this link:"),
    ):
        left.container(key=key).markdown(text)
    left.container(key="projector_url").text(link)  # plain text: a link copied from it works
    left.container(key="projector_joined").markdown(f"{students_text(room.students)} joined")
    with right, st.container(key="projector_qr"):
        st.image(qr_png(link), width=360, alt="The join link as a QR code")
    if cs.only_here(link):
        st.warning(
            "This address opens the lab only on the computer that serves it: students cannot scan it. "
            "Open the lab by that computer's network address, or set LAB_PUBLIC_URL.",
            icon=":material/wifi_off:",
        )


def _question(room: Room, result: QuestionResult) -> None:
    shown = board(result, room.students, ended=room.closed)
    # The prompt and the summary quote what the teacher's screen described: st.text shows them as their
    # characters, with nothing inserted (ui.text.plain's word joiners would break copying and Ctrl-F)
    st.container(key="projector_prompt").text(shorten(shown.prompt, PROMPT_MAX))
    status, corner = st.columns([4, 1], vertical_alignment="center")
    status.container(key="projector_status").markdown(f"**{shown.state}** · {shown.answered}")
    # Late students can still join; an ended class says so here, where it takes the question no room
    join = "**Class ended**" if room.closed else f"Join: **{room.code}**"
    corner.container(key="projector_corner").markdown(join)
    with st.container(key="projector_chart"):
        st.html(charts_class.answers_html(shown.labels, shown.rounds, shown.right))
    st.container(key="projector_summary").text(shorten(shown.summary, 2000))
