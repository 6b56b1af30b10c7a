"""The quiz as a class activity (``pages/16_quiz.py``): the teacher runs it question by question for the
whole room, then shows a summary.

Where the run stands lives in the class's database (``classroom.runs``: the run's state, the question
it is on), so every process and every reload agrees. Each step moves the room's version, and the run's
row is one of the page's questions for a student's class panel (``ui.class_views``): when the teacher
moves on, a student's page runs again and draws the run's new question. A student who explores alone
(not following the teacher) and a browser in no class see the whole quiz as without a run.

The teacher's buttons are drawn for the teacher only, and every one goes through the store, which checks
the teacher key. The summary shows counts and shares, never a name, so it can be projected.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import streamlit as st

from classroom.model import CLOSED, OPEN, REVEALED, Room, mean_text, share_text, students_text
from classroom.runs import RUN_PREFIX
from layernorm.labs.quiz_kit import Question
from ui import class_session as cs
from ui import class_views, session
from ui.class_roster import as_teacher, say_refusal

if TYPE_CHECKING:
    from classroom.store import Store

RUN = RUN_PREFIX + "quiz"
PLACE = "quiz_run"  # where a refusal of the teacher's run buttons is said


def qid(q: Question) -> str:
    """The question's id in the class (its answers, its state, the results)."""
    return f"quiz_{q.key}"


def about(q: Question) -> str:
    """What the projector and the results show of the question: its topic and its text."""
    return f"{q.topic}: {q.prompt}"


@dataclass(frozen=True)
class Place:
    """Where the room's run of the quiz stands: on question ``at`` (0-based), or its summary shown."""

    at: int
    summary: bool


def place(m: cs.Member | None, questions: Sequence[Question]) -> Place | None:
    """The run this screen draws, or None: no run going on (or ended), no class, or a student exploring
    alone. A student's page counts the run as one of its questions: a step of the run runs it again."""
    if m is None:
        return None
    if not m.teacher:
        session.klass.on_page.kept().add(RUN)
        if class_views.exploring_alone():
            return None
        room = cs.room_now(m.code)  # a step moves the version: the beacon's run has read it again
        seen = room.questions.get(RUN) if room is not None else None
        if seen is None or seen.state == CLOSED:
            return None
    run = cs.store().run_of(m.code, RUN)
    ids = [qid(q) for q in questions]
    if run is None or run.state == CLOSED or run.question not in ids:
        return None
    return Place(ids.index(run.question), run.state == REVEALED)


# --- the teacher's buttons ------------------------------------------------------------------------


def _leave(store: Store, code: str, key: str, to: str | None = None) -> None:
    """The question the run is on (as the store has it: another of the teacher's tabs may have moved it)
    stops taking answers as the run leaves it for ``to``, unless its answer is revealed."""
    run = store.run_of(code, RUN)
    if run is None or run.state != OPEN or run.question == to:
        return
    found = store.question(code, run.question)
    if found is None or found.state == OPEN:
        store.close_question(code, key, run.question)


def _go(questions: Sequence[Question], to: int) -> None:
    """Button callback: the run moves to question ``to``, described for the projector and the results; a
    question never asked is open (a new row's state), one met before keeps its state."""
    q = questions[to]

    def act(store: Store, code: str, key: str) -> None:
        _leave(store, code, key, qid(q))
        store.describe(code, key, qid(q), about(q), list(q.options), q.answer)
        store.set_run(code, key, RUN, OPEN, qid(q))

    as_teacher(PLACE, act)


def _summary(questions: Sequence[Question], at: int) -> None:
    _set(questions, at, REVEALED)


def _set(questions: Sequence[Question], at: int, state: str) -> None:
    """Button callback: the run takes ``state`` on the question it is on (question ``at`` as this screen
    drew it, unless the store has it on another); a summary closes that question's answers first."""

    def act(store: Store, code: str, key: str) -> None:
        if state == REVEALED:
            _leave(store, code, key)
        run = store.run_of(code, RUN)
        store.set_run(code, key, RUN, state, run.question if run is not None else qid(questions[at]))

    as_teacher(PLACE, act)


def start_bar(questions: Sequence[Question]) -> None:
    """The teacher's screen with no run going on: the button that starts one."""
    with st.container(border=True, key="quiz_run_bar"):
        st.markdown("**Run the quiz with the class**")
        st.caption(
            "One question at a time: every student who follows you sees only the question you are on. "
            "You reveal it and move on; a summary ends the run (counts and shares, no names)."
        )
        st.button(
            "Run the quiz with the class", key="quiz_run_start", on_click=_go, args=(questions, 0),
            icon=":material/play_arrow:", type="primary",
        )  # fmt: skip
        say_refusal(PLACE)


def run_bar(m: cs.Member, questions: Sequence[Question], at: int) -> None:
    """Above the run's question: the teacher's buttons, or what a student needs to know."""
    n = len(questions)
    if not m.teacher:
        st.markdown(f"**Question {at + 1} of {n}**")
        st.caption(
            "Your teacher runs the quiz: you see the question the class is on. Your score comes at the end."
        )
        return
    with st.container(border=True, key="quiz_run_bar"):
        st.markdown(f"**Question {at + 1} of {n}** · you run the quiz with the class")
        with st.container(horizontal=True, gap="small"):
            st.button("Previous", key="quiz_run_previous", on_click=_go, args=(questions, at - 1),
                      icon=":material/arrow_back:", disabled=at == 0)  # fmt: skip
            st.button("Next question", key="quiz_run_next", on_click=_go, args=(questions, at + 1),
                      icon=":material/arrow_forward:", disabled=at == n - 1, type="primary")  # fmt: skip
            st.button("Show the summary", key="quiz_run_summary", on_click=_summary, args=(questions, at),
                      icon=":material/summarize:")  # fmt: skip
        st.caption(
            "Students who follow you see only this question. Moving to another question closes this one's "
            "answers, unless its answer is revealed (Reopen in its box brings them back). Reveal, close or "
            "vote again in the question's box below; the summary closes this question's answers too."
        )
        say_refusal(PLACE)


# --- the summary ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Row:
    """One question asked in the run, as the summary shows it."""

    n: int  # its number in the quiz (1-based)
    question: Question
    answered: int  # answers in its current round
    right: int
    round: int = 1  # its current round


def asked(questions: Sequence[Question], room: Room, tallies: dict[str, dict[int, int]]) -> list[Row]:
    """The quiz's questions the class was asked (answered, or closed, revealed or voted again by the
    teacher), in the quiz's order, each with its current round's answers and right ones."""
    rows = []
    for n, q in enumerate(questions, 1):
        counts = tallies.get(qid(q), {})
        met = room.questions.get(qid(q))
        if counts or (met is not None and (met.state != OPEN or met.round > 1)):
            rows.append(Row(n, q, sum(counts.values()), counts.get(q.answer, 0), met.round if met else 1))
    return rows


def _asked(k: int) -> str:
    return "the question asked" if k == 1 else f"the {k} questions asked"


def summary(m: cs.Member, questions: Sequence[Question], at: int) -> None:
    """The run's end, for the teacher and every student who follows: per question asked, how many answered
    and how many were right; the mean score; a student's own score. No names: safe to project."""
    store = cs.store()
    room = store.room(m.code)
    if room is None:
        return  # the class is gone: the class panel says so
    rows = asked(questions, room, store.tallies(m.code))
    scores = store.scores(m.code, {qid(r.question): r.question.answer for r in rows})
    st.subheader("The quiz with the class: summary")
    k = len(rows)
    if m.seat is not None and rows:
        mine = scores.get(m.seat)
        again = any(r.round > 1 for r in rows)  # an answer of an earlier round counts no more
        if again and mine is None:
            why = " (you have no answer in any question's last round, the one that counts after *Vote again*)"
        elif again:
            why = " (after *Vote again* only a question's last round counts)"
        else:
            why = " (you answered none)" if mine is None else ""
        st.markdown(f"**Your score: {mine or 0} of {k}**{why}")
    if not rows:
        st.markdown("No question was asked.")
    elif not scores:
        st.markdown(f"Nobody answered {_asked(k)}.")
    else:
        st.markdown(
            f"Mean score: **{mean_text(sum(scores.values()), len(scores))} of {k}**, over the "
            f"{students_text(len(scores))} who answered at least one of {_asked(k)}."
        )
    if rows:
        import pandas as pd  # only on a class's quiz: a first page load does not wait for pandas

        shares = [share_text(r.right, r.answered) if r.answered else "—" for r in rows]
        table = pd.DataFrame(
            [(r.question.topic, r.answered, r.right, told) for r, told in zip(rows, shares, strict=True)],
            columns=["question", "answered", "right", "share right"],
            index=[r.n for r in rows],  # the question's number in the quiz, a column of its own
        )
        # a plain table: it wraps on a phone and reads from the back of a room
        st.table(table, alt="The questions asked: how many answered each, and how many were right.")
        st.caption(
            f"{k} of the quiz's {len(questions)} questions {'was' if k == 1 else 'were'} asked (answered, "
            "or closed or revealed by the teacher). Each counts the answers of its last round."
        )
    if m.teacher:
        with st.container(horizontal=True, gap="small"):
            st.button(f"Back to question {at + 1}", key="quiz_run_back", on_click=_set,
                      args=(questions, at, OPEN), icon=":material/undo:")  # fmt: skip
            st.button("End the run", key="quiz_run_end", on_click=_set, args=(questions, at, CLOSED),
                      icon=":material/stop:", help="Every screen shows the whole quiz again.")  # fmt: skip
        say_refusal(PLACE)


def sync_answers(m: cs.Member, questions: Sequence[Question]) -> None:
    """A student's answers as the class holds them (each question's current round): after a reload, in
    another tab, after *Vote again* or a refusal, the score and the boxes count these, no other."""
    if m.teacher or m.seat is None:
        return
    held = cs.store().given(m.code, m.seat)
    session.pages.quiz_answers.set({q.key: held[qid(q)].choice for q in questions if qid(q) in held})
