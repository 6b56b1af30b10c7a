"""Class mode on a student's screen (the teacher's is ``ui.class_teacher``): join or start a class
(Home), the class panel (sidebar), and a question's room view (the predict-then-check boxes and the
quiz).

Everything a screen learns from the class arrives by polling the store, one timer per screen where
it can be: a student's class panel reruns alone every :data:`STUDENT_POLL_S` (the class still there,
the teacher's lead, a reveal of a question on this page, which reruns the page once); the teacher's
question box every ``ui.class_teacher.TEACHER_POLL_S``. Each timed run costs the server about as much
as a slider move (``benchmarks/bench_class_mode.py``), so a student's boxes do not poll: thirty
students with a timer in every box doubled the server's load.
A browser in no class polls nothing.
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Callable, Sequence

import streamlit as st

from classroom.model import ClassError
from ui import class_session as cs
from ui import class_teacher, session
from ui.fragments import page_fragment
from ui.navigation import page_file

# A student's timer: the reveal and the teacher's lead reach a student within this (plus a run). Each
# timed run costs the server what a slider move costs; at 2 s, 150 students' timers were half of two
# processes' work (benchmarks/README.md, "Class mode").
STUDENT_POLL_S = 4.0
JOIN_CODE_CHARS = 12  # six letters and digits, with a space or hyphen between each
ENDED = "Your class has ended."
FOLLOW = "class_follow"  # the student's "Follow the teacher" toggle


# --- Home: join or start --------------------------------------------------------------------------


def _join() -> None:
    problem = cs.join(session.widgets.get("class_join_code", ""), session.widgets.get("class_join_name"))
    session.klass.join_problem.set(problem)
    if problem is None:
        session.klass.lead_seen.set(0)  # go where the class is now


def home_section() -> None:
    """Home's "Run it as a class": a student joins with the code, a teacher starts a class."""
    m = cs.member()
    st.subheader("Run it as a class")
    if m is not None:
        who = "You lead" if m.teacher else "You are in"
        st.success(
            f"{who} class {m.code}: its panel is in the sidebar, below the menu.", icon=":material/groups:"
        )
        return
    st.caption(
        "The room answers each *Predict, then check* and the quiz together: the teacher sees how the class "
        "answered, live, then reveals the answer on every screen. Nothing personal is asked."
    )
    join_col, start_col = st.columns(2)
    with join_col:
        with st.form("class_join", border=True):
            st.text_input(  # room for a code typed with spaces or hyphens ("K7Q F2M", "K 7 Q F 2 M")
                "Class code", key="class_join_code", max_chars=JOIN_CODE_CHARS, placeholder="K7QF2M",
                value=st.query_params.get(cs.CLASS, "")[:JOIN_CODE_CHARS],  # a link's text, cut as typing is
            )  # fmt: skip
            st.text_input("Nickname (optional)", key="class_join_name", max_chars=24)
            st.form_submit_button("Join the class", on_click=_join, icon=":material/login:")
        if problem := session.klass.join_problem.get():
            st.text(problem)  # plain text: it may quote what the student typed
    with start_col:
        st.button(
            "Start a class (teacher)", key="class_start", on_click=cs.start_class, icon=":material/school:"
        )
        st.caption("You get a code and a QR code to project, and a private teacher link for yourself.")


# --- the sidebar's class panel --------------------------------------------------------------------


@page_fragment(by_user=False, run_every=STUDENT_POLL_S)
def _follow(code: str, page: str) -> None:
    """Every few seconds: the class still there, and the teacher's lead followed if it is new."""
    room = cs.room_now(code)
    if room is None or room.closed:
        cs.leave(ENDED)
        st.rerun(scope="app")
    st.caption(f"Class {code} · {room.students} joined")
    new = room.revealed - session.klass.revealed_seen.get()
    session.klass.revealed_seen.set(room.revealed)
    if new & session.klass.on_page.get() and not exploring_alone():
        st.rerun(scope="app")  # a question on this page was revealed: the page shows the answer
    seen = session.klass.lead_seen.get()
    if seen is None:
        session.klass.lead_seen.set(room.lead_version)
    elif room.lead_version > seen and session.widgets.get(FOLLOW, True):
        # also a lead sent while the student explored alone: following again goes where the class is
        session.klass.lead_seen.set(room.lead_version)
        m = cs.member()
        if room.lead_page is not None and m is not None and m.seat is not None:
            query = dict(urllib.parse.parse_qsl(room.lead_query or ""))
            st.switch_page(page_file(room.lead_page), query_params=query | {cs.CLASS: code, cs.SEAT: m.seat})


def sidebar_panel(page: str) -> None:
    """The class panel in the sidebar (below the menu, above the vector), on every page, for a browser in a
    class; else what ended, once, or nothing. ``page``: the address of the page shown ("/variance")."""
    m = cs.member()
    notice = session.klass.notice.get()
    if m is None:
        if notice:
            st.sidebar.info(notice, icon=":material/groups:")
            session.klass.notice.set(None)
        return
    with st.sidebar.container(border=True, key="class_panel"):
        if m.teacher:
            class_teacher.panel(m, page)
        else:
            st.toggle(
                "Follow the teacher",
                key=FOLLOW,
                value=True,
                help="Off: explore alone; your answers still count, and you see each answer now.",
            )
            _follow(m.code, page)
            st.button("Leave the class", key="class_leave", on_click=cs.leave, icon=":material/logout:")
        if notice:
            st.text(notice)  # plain text, once
            session.klass.notice.set(None)


# --- a question answered by the room --------------------------------------------------------------


def exploring_alone() -> bool:
    return not session.widgets.get(FOLLOW, True)


def record(
    question: str,
    choice: int,
    options: int,
    *,
    final: bool = False,
    right: int | None = None,
    prompt: str = "",
) -> None:
    """A student's answer into the class (called when the student commits); a refusal is said in the box.

    ``final``: the student is about to see the answer (exploring alone), so this answer cannot change.
    ``right`` and ``prompt``: the question's right option and its text, for the teacher's results.
    """
    m = cs.member()
    if m is None or m.seat is None:
        return
    try:
        cs.store().answer(m.code, m.seat, question, choice, options, final=final, right=right, prompt=prompt)
        session.klass.refused(question).clear()
    except ClassError as exc:
        session.klass.refused(question).set(str(exc))


def room_view(
    question: str,
    options: Sequence[str],
    answer: int,
    show_answer: Callable[[int | None], None],
    *,
    live: bool = True,
    prompt: str = "",
) -> bool:
    """A question's class part, inside the question's own box. Returns True when the box should show
    the student's own result now (no class, exploring alone, or revealed), False while it waits.

    The teacher sees the room's tallies, live, and a button that reveals the answer on every screen;
    ``show_answer(None)`` then shows the answer and its explanation. A student's box waits for the reveal.
    """
    m = cs.member()
    if m is None:
        return True
    session.klass.on_page.kept().add(question)
    if m.teacher:
        class_teacher.tallies(m, question, options, answer, show_answer, live, prompt)
        return False
    if refused := session.klass.refused(question).get():
        st.text(refused)
    if exploring_alone():
        return True
    room = cs.room_now(m.code)  # at most a second old, as the timer that reruns the page on a reveal reads it
    if room is not None and question in room.revealed:
        class_teacher.tally_bars(options, cs.store().tallies(m.code).get(question, {}), answer)
        return True
    if room is not None:
        given = cs.store().answer_of(m.code, m.seat or "", question)
        st.caption(
            "Your answer is in: you can change it until your teacher reveals the answer."
            if given is not None
            else "Answer, and your teacher reveals the answer to the whole class."
        )
    return False


def poll_every() -> float | None:
    """How often a question's box reruns on its own in this browser: the teacher's, for the live tallies;
    None otherwise (a student's reveal comes through the class panel's timer)."""
    m = cs.member()
    return class_teacher.TEACHER_POLL_S if m is not None and m.teacher else None


def new_page_run() -> None:
    """A full run starts: the page's questions are counted again as its boxes draw."""
    session.klass.on_page.set(set())
