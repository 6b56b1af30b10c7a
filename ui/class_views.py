"""Class mode on a student's screen (the teacher's is ``ui.class_teacher``): join or start a class
(Home), the class panel (sidebar), and a question's room view (the predict-then-check boxes and the
quiz).

What a student's screen learns from the class arrives through the class's beacon
(``ui.class_beacon``): the browser reads a tiny public file about once a second and asks for a run
of the class panel (a fragment) only when the room's version moved. That run reads the room and
follows it: the teacher's new lead (a page switch), a question of this page revealed, closed,
reopened or asked again (the page runs again once), pacing turned on or off, a removal or the end of
the class (the student leaves, with a word). No server timer ticks for a student; where the beacon
cannot be written, the panel falls back to one (:data:`STUDENT_POLL_S`). Each full run follows the
room too: while the teacher paces the class, a student who opens another page is brought back to
the teacher's.
The teacher's own screen polls the store with timers (``ui.class_teacher``).
A browser in no class polls nothing.
"""

from __future__ import annotations

import contextlib
import threading
import urllib.parse
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace

import streamlit as st

from classroom.model import CLOSED, OPEN, REVEALED, ClassError, Given, Question, Room
from ui import class_beacon, class_teacher, session
from ui import class_session as cs
from ui.fragments import page_fragment
from ui.navigation import page_file

# The panel's timer where the beacon cannot be written (a read-only static/ folder): each timed run
# costs the server what a slider move costs; at 2 s, 150 students' timers were half of two processes'
# work (benchmarks/README.md, "Class mode").
STUDENT_POLL_S = 4.0
JOIN_CODE_CHARS = 12  # six letters and digits, with a space or hyphen between each
FOLLOW = "class_follow"  # the student's "Follow the teacher" toggle
PACED_NOTE = "Your teacher keeps the class together."


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
    cs.ready_to_join()
    join_col, start_col = st.columns(2)
    with join_col:
        with st.form("class_join", border=True):
            # No max_chars: a browser counts UTF-16 units and drops a longer paste without a word (an
            # emoji is two or more); what is too long is said after Join, in characters as the class counts
            st.text_input(
                "Class code", key="class_join_code", placeholder="K7QF2M",
                value=st.query_params.get(cs.CLASS, "")[:JOIN_CODE_CHARS],  # a link's text, cut
            )  # fmt: skip
            st.text_input(
                "Nickname (optional)",
                key="class_join_name",
                placeholder=f"at most {cs.NICKNAME_MAX} characters",
            )
            st.form_submit_button("Join the class", on_click=_join, icon=":material/login:")
        if problem := session.klass.join_problem.get():
            st.text(problem)  # plain text: it may quote what the student typed
    with start_col:
        st.button(
            "Start a class (teacher)", key="class_start", on_click=cs.start_class, icon=":material/school:"
        )
        st.caption("You get a code and a QR code to project, and a private teacher link for yourself.")


# --- following the teacher, in turns --------------------------------------------------------------

# When the teacher moves the class, every following student's browser asks for the new page at once:
# on a 2-core machine, 150 page runs started together on one process (each 25-35 ms of CPU) shared
# the interpreter with each other and with the server's own websocket work, so all of them ended
# together, seconds later, and a slider released meanwhile by anyone waited behind all of them
# (benchmarks/bench_class_mode.py --paced). A follower's run waits its turn instead: a few at a time,
# first come first served; other runs never wait.
FOLLOW_TURNS = 2
TURN_WAIT_S = 10.0  # a turn not free after this long (a run that never ends) is not waited for
_turns = threading.Semaphore(FOLLOW_TURNS)


def turn() -> contextlib.AbstractContextManager[None]:
    """The whole app's run (``app.py``): a run that follows the teacher waits for one of
    :data:`FOLLOW_TURNS` turns of this process, any other run goes at once."""
    return waiting_turn(session.klass.following.pop())


@contextlib.contextmanager
def waiting_turn(following: bool) -> Iterator[None]:
    got = following and _turns.acquire(timeout=TURN_WAIT_S)
    try:
        yield
    finally:
        if got:
            _turns.release()


# --- the sidebar's class panel --------------------------------------------------------------------


def _go_with_the_class(m: cs.Member, room: Room, page: str) -> None:
    """Follow the teacher: to a new lead (while following), and back to the lead page while the
    teacher paces the class. ``page``: the address of the page shown ("/variance")."""
    seen = session.klass.lead_seen.get()
    target = None
    if seen is None:  # a session's first run stays where it opened (a reload, a lost server)
        session.klass.lead_seen.set(room.lead_version)
    elif room.lead_version > seen and (room.paced or not exploring_alone()):
        # also a lead sent while the student explored alone: following again goes where the class is
        session.klass.lead_seen.set(room.lead_version)
        target = room.lead_page
    if target is None and room.paced and room.lead_page not in (None, page):
        target = room.lead_page  # another page opened (the menu, a link): back with the class
    if target is not None:
        query = urllib.parse.parse_qsl(room.lead_query or "")
        session.klass.following.set(True)
        cs.open_view(page_file(target), [*query, (cs.CLASS, m.code)])


def _moved_here(room: Room) -> bool:
    """Whether a question of the page shown changed (its state or round) since the page was drawn."""
    before = session.klass.questions_seen.get()
    session.klass.questions_seen.set(dict(room.questions))
    unmet = Question(1, OPEN)  # a question the class has not met yet is open, in round 1
    return any(before.get(q, unmet) != room.questions.get(q, unmet) for q in session.klass.on_page.get())


def _beacon_seen(code: str) -> Callable[[], None]:
    def seen() -> None:  # first in the run the beacon asked for
        cs.room_at_least(code, class_beacon.seen())

    return seen


def _follow_room(code: str, page: str) -> None:
    """The class panel's own runs (the beacon asked, or the fallback timer): the class still there,
    this student still in it, the pacing as drawn, the teacher's lead followed, a reveal shown."""
    m = cs.member()
    if m is None or m.seat is None or m.code != code:
        st.rerun(scope="app")  # left meanwhile (another tab of the same session): the panel goes
    room = cs.room_now(code)
    why = cs.why_out(m, room)
    if why is not None or room is None:
        cs.leave(why)
        st.rerun(scope="app")
    if room.paced != session.klass.paced_seen.get():
        st.rerun(scope="app")  # the toggle, and the page while paced, follow in a full run
    _go_with_the_class(m, room, page)
    if _moved_here(room) and not exploring_alone():
        st.rerun(scope="app")  # a question of this page was revealed, closed, opened or asked again
    st.caption(f"Class {code} · {room.students} joined")
    class_beacon.draw(code, room.version, _beacon_seen(code))


_follow = page_fragment(by_user=False)(_follow_room)
_follow_timed = page_fragment(by_user=False, run_every=STUDENT_POLL_S)(_follow_room)


def _student_panel(m: cs.Member, page: str) -> None:
    room = cs.room_now(m.code)  # read_class_link has just found the class running and the seat in it
    if room is None:
        return
    session.klass.paced_seen.set(room.paced)
    session.klass.questions_seen.set(dict(room.questions))  # this full run draws the page's questions
    _go_with_the_class(m, room, page)
    if room.paced:
        session.widgets.set(FOLLOW, True)  # set before the toggle is drawn: following is not a choice now
    st.toggle(
        "Follow the teacher",
        key=FOLLOW,
        value=True,
        disabled=room.paced,
        help="Off: explore alone; your answers still count, and you see each answer now.",
    )
    if room.paced:
        st.caption(PACED_NOTE)
    (_follow if class_beacon.usable() else _follow_timed)(m.code, page)
    st.button("Leave the class", key="class_leave", on_click=cs.leave, icon=":material/logout:")


def _class_link_without_a_seat(page: str) -> None:
    """An address with a class this browser has no seat in (a copied link, another browser): Home's
    join form, the code filled in; or a word when that class takes no students."""
    code = cs.link_class()
    if code is None or page == "/":
        return
    room = cs.room_now(code)
    if room is not None and not room.closed:
        st.switch_page(page_file("/"), query_params={cs.CLASS: code})
    del st.query_params[cs.CLASS]
    session.klass.notice.set(
        f"There is no class {code} (any more)."
        if room is None
        else f"Class {code} has ended: it takes no more answers."
    )


def sidebar_panel(page: str) -> None:
    """The class panel in the sidebar (below the menu, above the vector), on every page, for a browser in a
    class; else what ended, once, or nothing. ``page``: the address of the page shown ("/variance")."""
    m = cs.member()
    if m is None:
        _class_link_without_a_seat(page)
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
            _student_panel(m, page)
        if notice:
            st.text(notice)  # plain text, once
            session.klass.notice.set(None)


# --- a question answered by the room --------------------------------------------------------------


def round_of(question: str) -> int:
    """The question's round in this browser's class (1 outside a class, or before *Vote again*)."""
    m = cs.member()
    room = cs.room_now(m.code) if m is not None else None
    found = room.questions.get(question) if room is not None else None
    return found.round if found is not None else 1


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
) -> bool:
    """A student's answer into the class (called when the student commits). Returns whether the class
    took it; a refusal is said in the question's box while the question stays as it was then.

    ``final``: the student is about to see the answer (exploring alone), so this answer cannot change.
    ``right`` and ``prompt``: the question's right option and its text, for the teacher's results.
    """
    m = cs.member()
    if m is None or m.seat is None:
        return False
    try:
        cs.store().answer(m.code, m.seat, question, choice, options, final=final, right=right, prompt=prompt)
    except ClassError as exc:
        cs.room_now.clear()  # the question as the store has it now, not this process's second-old copy
        room = cs.room_now(m.code)
        then = room.questions.get(question, Question(1, OPEN)) if room is not None else None
        session.klass.refused(question).set((str(exc), then))
        return False
    session.klass.refused(question).clear()
    return True


UNMET = Question(1, OPEN)  # a question the class has not met yet (or no class): open, in round 1


@dataclass(frozen=True)
class Seen:
    """A question's box as this browser's place in the class has it (:func:`room_view`)."""

    show: bool  # the box shows the student's result now: no class, exploring alone, or revealed
    student: bool  # a student's seat: the box shows, and judges, what the class holds for it
    held: Given | None = None  # the seat's answer in the question's current round, as the class holds it
    state: Question = UNMET  # the question's round and state

    @property
    def takes(self) -> bool:
        """Whether the class takes an answer (or a change of it) from this seat now."""
        return self.state.state == OPEN and not (self.held is not None and self.held.final)

    @property
    def revealed(self) -> bool:
        return self.state.state == REVEALED


def room_view(
    question: str,
    options: Sequence[str],
    answer: int,
    show_answer: Callable[[int | None], None],
    *,
    live: bool = True,
    prompt: str = "",
    changeable: bool = True,
) -> Seen:
    """A question's class part, inside the question's own box: what the box should show (:class:`Seen`).

    The teacher sees the room's tallies, live, and a button that reveals the answer on every screen;
    ``show_answer(None)`` then shows the answer and its explanation. A student's box says where the
    question stands and waits for the reveal. ``changeable``: the box lets a student change an answer
    given while the question is open (the quiz's does not).
    """
    m = cs.member()
    if m is None:
        return Seen(show=True, student=False)
    session.klass.on_page.kept().add(question)
    if m.teacher:
        class_teacher.tallies(m, question, options, answer, show_answer, live, prompt)
        return Seen(show=False, student=False)
    room = cs.room_now(m.code)  # the panel's run that reran the page on a reveal has read it
    now = room.questions.get(question, Question(1, OPEN)) if room is not None else Question(1, OPEN)
    held = cs.store().given(m.code, m.seat or "", question).get(question)
    seen = Seen(show=True, student=True, held=held, state=now)
    refused = session.klass.refused(question).get()
    # said while the question stays open as it was refused in; a closed or revealed one says so itself
    if refused is not None and refused[1] == now and now.state == OPEN:
        st.text(refused[0])
    if seen.revealed:
        class_teacher.tally_bars(options, cs.store().tallies(m.code).get(question, {}), answer, now.round)
        return seen
    again = f"Round {now.round}: " if now.round > 1 else ""
    if now.state == CLOSED:
        st.caption(
            f"{again}Your teacher has closed this question: answers are not taken now. "
            + ("Your answer is in." if held is not None else "You have no answer in.")
        )
    if exploring_alone():
        return seen
    if room is not None and now.state != CLOSED:
        if held is not None and held.final:
            st.caption(f"{again}Your answer is in, and final: you saw the answer when you gave it.")
        elif held is not None and changeable:
            st.caption(
                f"{again}Your answer is in: you can change it until your teacher closes the question or "
                "reveals the answer."
            )
        elif held is not None:
            st.caption(f"{again}Your answer is in: your teacher reveals the answer to the whole class.")
        else:
            st.caption(f"{again}Answer, and your teacher reveals the answer to the whole class.")
    return replace(seen, show=False)


def poll_every() -> float | None:
    """How often a question's box reruns on its own in this browser: the teacher's, for the live tallies;
    None otherwise (a student's reveal comes through the class panel, which the beacon reruns)."""
    m = cs.member()
    return class_teacher.TEACHER_POLL_S if m is not None and m.teacher else None


def new_page_run() -> None:
    """A full run starts: the page's questions are counted again as its boxes draw."""
    session.klass.on_page.set(set())
