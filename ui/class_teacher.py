"""Class mode on the teacher's screen: the class panel (join code, pacing, the lead, the students, the
results, keeping and deleting), a question's live tallies with its controls, and the quiz's summary.
The students' list is ``ui.class_roster``, the results and their CSV ``ui.class_results``.

The teacher's screen polls the store: the students every ``ui.class_roster.ROSTER_POLL_S``, a
question's box every :data:`TEACHER_POLL_S` (an answer is on the teacher's screen within that time
plus one run). Every teacher action goes through the store, which checks the teacher key; none is
drawn for a student.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import streamlit as st

from classroom.model import (
    CLOSED,
    KEEP_DAYS,
    KEEP_DAYS_MAX,
    LEAD_QUERY_MAX,
    OPEN,
    REVEALED,
    ClassError,
    Room,
    summarize,
)
from ui import class_projector, class_results, session
from ui import class_session as cs
from ui.class_projector import qr_png
from ui.class_roster import ENDED_ELSEWHERE, as_teacher, roster, say_refusal
from ui.fragments import page_fragment
from ui.navigation import SECTIONS, address

TEACHER_POLL_S = 1.0
PACED = "class_paced"  # the pacing toggle's key
KEEP = "class_keep_days"  # the days-kept input's key
_STATE_WORDS = {
    OPEN: ("Open", "students can answer"),
    CLOSED: ("Closed", "no answers taken, the answer not shown"),
    REVEALED: ("Revealed", "the answer is on every screen"),
}


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
    right.image(qr_png(cs.join_address(code)), width=280)


def _send_here(page: str) -> None:
    m = cs.member()
    if m is not None and m.key is not None:
        try:
            cs.store().lead(m.code, m.key, page, cs.lead_view(cs.view_query())[0])
            cs.room_changed()
            session.klass.notice.set(None)
        except ClassError as exc:
            session.klass.notice.set(str(exc))


def _keep_with_me(m: cs.Member, room: Room, page: str) -> None:
    """Teacher-paced: each full run of the teacher's page leads the class to it, with its view."""
    query = cs.lead_view(cs.view_query())[0]
    if (page, query) != (room.lead_page, room.lead_query or ""):
        try:
            cs.store().lead(m.code, m.key or "", page, query)
            cs.room_changed()
        except ClassError as exc:
            session.klass.notice.set(str(exc))


def _set_paced() -> None:
    on = bool(session.widgets.get(PACED, False))
    as_teacher("paced", lambda s, code, key: s.set_paced(code, key, on))


def _keep_for() -> None:
    days = int(session.widgets.get(KEEP, KEEP_DAYS))
    as_teacher("keep", lambda s, code, key: s.keep_for(code, key, days), changes_room=False)


def _delete() -> None:
    m = cs.member()
    if m is None:
        return
    if as_teacher("delete", lambda s, code, key: s.delete(code, key)) or cs.store().room(m.code) is None:
        session.klass.results_open.set(False)
        cs.leave(f"Class {m.code} is deleted, with every answer.")


# --- the panel ------------------------------------------------------------------------------------


def _left_behind(room: Room, page: str) -> None:
    """Said at the top of the panel while the class is on this page without a part of this view: a link
    too long for a lead leaves its longest values out (``ui.class_session.lead_view``)."""
    whole = cs.view_query()
    query, left = cs.lead_view(whole)
    if not left or (room.lead_page, room.lead_query or "") != (page, query):
        return
    title = next((e.title for es in SECTIONS.values() for e in es if address(e.path) == page), page)
    size = f"{len(whole):,} characters in the link; a lead carries at most {LEAD_QUERY_MAX:,}"
    if cs.TYPING[0] in left:  # the typed numbers were the vector: the class has a preset instead
        others = [k for k in left if k not in ("typed", cs.TYPING[0])]
        said = (
            f"The class is on {title} with the sidebar's preset vector, not your typed numbers: they are "
            f"too long to send ({size}). Fewer numbers go with the page."
        )
    else:
        others, said = list(left), ""
    if others:
        keys = ", ".join(f"`{k}`" for k in others)  # the lab's own key names: safe as code
        said += (
            f" The class has {keys} at {'its' if len(others) == 1 else 'their'} starting value"
            f"{'' if len(others) == 1 else 's'}, not yours: too long to send ({size})."
        )
    st.warning(said.strip(), icon=":material/link_off:")


def _pacing(room: Room, page: str) -> None:
    # The store is the truth: another of the teacher's tabs may have changed it
    session.widgets.set(PACED, room.paced)
    st.toggle("Keep the class with me (teacher-paced)", key=PACED, on_change=_set_paced)
    st.caption(
        "On: students cannot wander; they land on each page you open within a few seconds. A setting you "
        "change on a page reaches them with *Send the class here*."
        if room.paced
        else "Off: students explore on their own and follow you when you send the class somewhere."
    )
    say_refusal("paced")
    st.button(
        "Send the class here",
        key="class_lead",
        on_click=_send_here,
        args=(page,),
        icon=":material/near_me:",
        help="Every student who follows you opens this page, with this page's settings.",
    )


def _days(n: int) -> str:
    return f"{n} day{'s' if n != 1 else ''}"


def _keeping(m: cs.Member) -> int:
    """Keeping and deleting the answers; returns the days they are kept after the class."""
    kept = cs.store().deleted_after(m.code)
    days = kept[1] if kept is not None else KEEP_DAYS
    with st.expander("Keep or delete the answers", icon=":material/database:"):
        st.caption(f"Answers are kept after the class for {_days(days)}, then deleted.")
        session.widgets.set(KEEP, days)
        st.number_input(
            "Days to keep them", min_value=1, max_value=KEEP_DAYS_MAX, step=1, key=KEEP, on_change=_keep_for
        )
        say_refusal("keep")
        with st.popover("Delete the class now", icon=":material/delete_forever:"):
            st.caption("Every student leaves, and every answer is deleted now. This cannot be undone.")
            st.button("Delete it now", key="class_delete", on_click=_delete, type="primary")
        say_refusal("delete")
    return days


def panel(m: cs.Member, page: str) -> None:
    room = cs.store().room(m.code)
    if room is None:
        session.klass.results_open.set(False)
        cs.leave(ENDED_ELSEWHERE)
        st.rerun()  # the sidebar then says so, with no class panel left behind
    if room.closed:
        _ended_panel(m)
        return
    if room.paced:
        _keep_with_me(m, room, page)
        room = cs.store().room(m.code) or room  # the lead just sent: what the class has now
    st.markdown(f"**Class {m.code}** · you lead it")
    _left_behind(room, page)
    roster(m.code)
    if st.button("Show the join code", key="class_show", icon=":material/qr_code_2:"):
        _show_code(m.code)
    st.link_button(
        "Open the projector view",
        class_projector.address(m.code),
        icon=":material/co_present:",
        help="For the wall: the join code, then the question you act on and the room's answers. "
        "No names and no key: safe to project.",
    )
    _pacing(room, page)
    _results_button(m)
    with st.expander("Your private teacher link"):
        st.caption("Lead the class from another browser with it. Do not project it or share it.")
        st.code(cs.teacher_address(m), language=None)
    days = _keeping(m)
    with st.popover("End the class", icon=":material/logout:"):  # one step away from a mis-click
        st.caption(
            "The class takes no more answers or students, and every student leaves it. Its answers are "
            f"kept for {_days(days)}, then deleted: this panel and your teacher link keep its *Results*."
        )
        st.button("End it now", key="class_end", on_click=cs.end_class, type="primary")


def _results_button(m: cs.Member) -> None:
    st.button(
        "Results", key="class_results", icon=":material/table_view:", on_click=class_results.open_results
    )
    if session.klass.results_open.get():  # drawn on each full run until the teacher closes it
        class_results.show_results(m.code, m.key or "")


def _ended_panel(m: cs.Member) -> None:
    """An ended class on its teacher's screen: its results, how long they are kept, and deleting it."""
    st.markdown(f"**Class {m.code}** · ended")
    st.caption("It takes no more answers or students. Its results stay here until you delete them.")
    _results_button(m)
    _keeping(m)
    st.button(
        "Stop showing this class here",
        key="class_forget",
        on_click=cs.leave,
        icon=":material/logout:",
        help="Only this browser stops showing it; your teacher link opens its results again.",
    )


# --- a question's box -----------------------------------------------------------------------------


def tally_bars(options: Sequence[str], counts: dict[int, int], answer: int | None, round_no: int = 1) -> None:
    """How the room answered: one bar per option (the right one marked once revealed)."""
    total = sum(counts.values())
    st.caption(
        f"{total} answer{'s' if total != 1 else ''} from the class"
        + (f" in round {round_no}" if round_no > 1 else "")
    )
    for i, text in enumerate(options):
        n = counts.get(i, 0)
        mark = "  ✓ the answer" if answer == i else ""
        st.progress(n / total if total else 0.0, text=f"{text} — {n}{mark}")


def _describe(m: cs.Member, question: str, prompt: str, options: Sequence[str], answer: int) -> None:
    """Tell the store the question's text and options once a session, so the projector and the results
    know them before anyone answers."""
    done = session.klass.described.kept()
    if (m.code, question) in done:
        return
    try:
        cs.store().describe(m.code, m.key or "", question, prompt, list(options), answer)
    except ClassError:
        return  # the class is gone: the panel says so on the next full run
    done.add((m.code, question))


# The question's controls: (store method, label, key's word, icon, what it does, the states it fits)
_CONTROLS = (
    ("close_question", "Close answers", "close", ":material/lock:",
     "Students cannot answer or change an answer; nothing is shown to them.", (OPEN,)),
    ("open_question", "Reopen", "open", ":material/lock_open:",
     "Students can answer again, in the same round.", (CLOSED,)),
    ("reveal", "Reveal to the class", "reveal", ":material/visibility:",
     "Shows the answer on every screen; the question takes no more answers.", (OPEN, CLOSED)),
    ("vote_again", "Vote again", "again", ":material/replay:",
     "A new round: everyone answers again (after talking it over); this round's answers are kept apart.",
     (OPEN, CLOSED)),
)  # fmt: skip


def _control(question: str, state: str, answered: bool) -> None:
    """The buttons that fit the question's state (Vote again once this round has answers)."""
    with st.container(horizontal=True, gap="small"):
        for action, label, word, icon, does, states in _CONTROLS:
            if state in states and (answered or action != "vote_again"):
                st.button(label, key=f"class_{word}_{question}", on_click=_question_act,
                          args=(action, question), icon=icon, help=does)  # fmt: skip


def _question_act(action: str, question: str) -> None:
    as_teacher(f"q_{question}", lambda s, code, key: getattr(s, action)(code, key, question))


def tallies(
    m: cs.Member,
    question: str,
    options: Sequence[str],
    answer: int,
    show_answer: Callable[[int | None], None],
    live: bool,
    prompt: str = "",
) -> None:
    """The teacher's part of a question's box: its state and round, the class's answers (each round
    side by side after *Vote again*), and the controls that fit the state."""
    _describe(m, question, prompt, options, answer)
    found = cs.store().question(m.code, question)
    state, round_no = (found.state, found.round) if found is not None else (OPEN, 1)
    rounds = found.rounds if found is not None else {}
    counts = rounds.get(round_no, {})
    revealed = state == REVEALED
    word, meaning = _STATE_WORDS[state]
    st.caption(
        f"**{word}**" + (f" · round {round_no}" if state == OPEN or round_no > 1 else "") + f": {meaning}"
    )
    if not live and not revealed:  # a box that does not poll would show counts that have moved on
        st.caption("How the class answers, live: the table above.")
    else:
        tally_bars(options, counts, answer if revealed else None, round_no)
    if live:
        class_results.how_right(options, rounds, round_no, answer, revealed)
    if revealed:
        show_answer(None)
    elif not _ended(m):
        _control(question, state, bool(counts))
    say_refusal(f"q_{question}")


def _ended(m: cs.Member) -> bool:
    room = cs.store().room(m.code)  # the teacher's own read (one browser), not the students' cached one
    return room is None or room.closed


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
