"""Class mode on the teacher's screen: the class panel (join code, lead, pacing, the roster), a
question's live tallies with its controls, and the quiz's summary.

The teacher's screen polls the store: the roster every :data:`ROSTER_POLL_S`, a question's box every
:data:`TEACHER_POLL_S` (an answer is on the teacher's screen within that time plus one run).
"""

from __future__ import annotations

import io
from collections.abc import Callable, Sequence

import segno
import streamlit as st

from classroom.model import ClassError, summarize
from ui import class_session as cs
from ui import session
from ui.fragments import page_fragment
from ui.text import plain

ENDED_ELSEWHERE = "The class has ended (nobody used it for three hours, or it was ended elsewhere)."
ROSTER_POLL_S = 4.0
TEACHER_POLL_S = 1.0


def _qr_png(text: str) -> bytes:
    out = io.BytesIO()
    segno.make(text, error="m").save(out, kind="png", scale=8, border=2)
    return out.getvalue()


@st.dialog("Join the class", width="large")
def _show_code(code: str) -> None:
    left, right = st.columns([3, 2], vertical_alignment="center")
    left.markdown(f"# {code}")
    left.text(cs.join_address(code))
    left.caption("Open the link, or type the code on the lab's Home page.")
    if cs.only_here(cs.join_address(code)):
        left.warning(
            "This address opens the lab only on this computer. Open the lab by this computer's network "
            "address (`streamlit run` prints it as Network URL), or set LAB_PUBLIC_URL, then show the code "
            "again.",
            icon=":material/wifi_off:",
        )
    right.image(_qr_png(cs.join_address(code)), width=280)


def _send_here(page: str) -> None:
    m = cs.member()
    if m is not None and m.key is not None:
        try:
            cs.store().lead(m.code, m.key, page, cs.view_query())
            cs.room_changed()
            session.klass.notice.set(None)
        except ClassError as exc:
            session.klass.notice.set(str(exc))


@page_fragment(by_user=False, run_every=ROSTER_POLL_S)
def _roster(code: str) -> None:
    """Who has joined, on the teacher's screen only (nicknames are never shown beside an answer)."""
    room = cs.store().room(code)
    if room is None or room.closed:  # ended from another of the teacher's browsers, or idle: say so at once
        cs.leave(ENDED_ELSEWHERE)
        st.rerun(scope="app")
    names = cs.store().nicknames(code)
    st.caption(f"{room.students} joined" + (f": {plain(', '.join(names), limit=400)}" if names else ""))


def panel(m: cs.Member, page: str) -> None:
    room = cs.store().room(m.code)
    if room is None or room.closed:
        cs.leave(ENDED_ELSEWHERE)
        st.rerun()  # the sidebar then says so, with no class panel left behind
    st.markdown(f"**Class {m.code}** · you lead it")
    _roster(m.code)
    if st.button("Show the join code", key="class_show", icon=":material/qr_code_2:"):
        _show_code(m.code)
    st.button(
        "Send the class here",
        key="class_lead",
        on_click=_send_here,
        args=(page,),
        icon=":material/near_me:",
        help="Every student who follows you opens this page, with this page's settings.",
    )
    with st.expander("Your private teacher link"):
        st.caption("Lead the class from another browser with it. Do not project it or share it.")
        st.code(cs.teacher_address(m), language=None)
    with st.popover("End the class", icon=":material/logout:"):  # one step away from a mis-click
        st.caption("Every student leaves the class, and it takes no more answers.")
        st.button("End it now", key="class_end", on_click=cs.end_class, type="primary")


def tally_bars(options: Sequence[str], counts: dict[int, int], answer: int | None) -> None:
    """How the room answered: one bar per option (the right one marked once revealed)."""
    total = sum(counts.values())
    st.caption(f"{total} answer{'s' if total != 1 else ''} from the class")
    for i, text in enumerate(options):
        n = counts.get(i, 0)
        mark = "  ✓ the answer" if answer == i else ""
        st.progress(n / total if total else 0.0, text=f"{text} — {n}{mark}")


def tallies(
    m: cs.Member,
    question: str,
    options: Sequence[str],
    answer: int,
    show_answer: Callable[[int | None], None],
    live: bool,
    prompt: str = "",
) -> None:
    room = cs.store().room(m.code)
    revealed = room is not None and question in room.revealed
    counts = cs.store().tallies(m.code).get(question, {})
    if not live and not revealed:  # a box that does not poll would show counts that have moved on
        st.caption("How the class answers, live: the table above.")
    else:
        tally_bars(options, counts, answer if revealed else None)
    if revealed:
        show_answer(None)
        return
    if counts and live:
        told = summarize(counts, answer)
        st.caption(
            f"{told.right} of {told.answers} right"
            + (
                f"; most common wrong answer: {options[told.common_wrong]}"
                if told.common_wrong is not None
                else ""
            )
            + " (only you see this until you reveal)."
        )
    st.button("Reveal to the class", key=f"class_reveal_{question}", on_click=_reveal, args=(question,),
              icon=":material/visibility:")  # fmt: skip


def _reveal(question: str) -> None:
    m = cs.member()
    if m is not None and m.key is not None:
        try:
            cs.store().reveal(m.code, m.key, question)
            cs.room_changed()
        except ClassError as exc:
            session.klass.notice.set(str(exc))


def quiz_summary(questions: Sequence[tuple[str, str, Sequence[str], int]]) -> None:
    """The teacher's live view of the quiz: per question (its id, title, options, right choice), how many
    answered, how many are right and the most common wrong answer. One timer for the whole quiz."""

    @page_fragment(by_user=False, run_every=TEACHER_POLL_S)
    def table(code: str) -> None:
        import pandas as pd  # only on the teacher's quiz: a first page load does not wait for pandas

        tallies = cs.store().tallies(code)
        rows = []
        for qid, title, options, answer in questions:
            told = summarize(tallies.get(qid, {}), answer)
            wrong = options[told.common_wrong] if told.common_wrong is not None else ""
            rows.append((title, told.answers, told.right, wrong))
        st.dataframe(
            pd.DataFrame(rows, columns=["question", "answers", "right", "most common wrong answer"]),
            hide_index=True,
        )

    m = cs.member()
    if m is not None and m.teacher:
        st.markdown("**How the class answered** (live; reveal each question in its box)")
        table(m.code)
