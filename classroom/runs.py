"""A run: the teacher leads the whole room through a series of questions, one at a time (the quiz,
question by question), then shows a summary. A part of :class:`classroom.store.Store`.

A run needs no table of its own. It is a row of the questions table whose id starts with
:data:`RUN_PREFIX` (``"run:quiz"``), which no student answers and the results leave out:

- its state says where the run stands: ``OPEN`` while it goes on, ``REVEALED`` once its summary is on
  every screen, ``CLOSED`` when the teacher stopped it (the questions are answered as without a run);
- its prompt names the question the run is on. ``Room.current`` is set to that question too (the
  projector shows it), but ``Room.current`` also moves when the teacher acts on a question of
  another page, so the run keeps its own;
- its round grows with every step, so each step changes ``Room.questions``, which every student's
  screen compares with what it drew (``ui.class_views``): a student's page runs again and draws the
  run's new question.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

import sqlalchemy as sa

from classroom.model import QUESTION_MAX, QUESTION_STATES, ClassError
from classroom.schema import _NEXT, HERE, IN_CURRENT_ROUND, STILL_HERE, _upsert, answers, questions, rooms

if TYPE_CHECKING:
    from sqlalchemy.engine import Connection, Engine

RUN_PREFIX = "run:"  # a run's row in the questions table: never a question a student answers


@dataclass(frozen=True)
class Run:
    """Where a run stands: its state (``OPEN`` going on, ``REVEALED`` its summary shown, ``CLOSED``
    stopped), the question it is on, and its step (grows with every change of the run)."""

    state: str
    question: str
    step: int


class Runs:
    """The store's side of a run (every change checks the teacher key)."""

    engine: Engine
    clock: Callable[[], float]

    def _as_teacher(self, conn: Connection, code: str, key: str, *, running: bool = True) -> None:
        raise NotImplementedError  # Store's

    def set_run(self, code: str, key: str, run: str, state: str, question: str) -> None:
        """The run ``run`` takes ``state`` and is on ``question``, which becomes the room's current
        question; the room's version moves (every student's screen follows). The question's own state
        is the teacher's to set (``open_question``, ``close_question``, ``reveal``)."""
        if not run.startswith(RUN_PREFIX) or state not in QUESTION_STATES:
            raise ClassError("That is not a run of this lab.")
        for name in (run, question):
            if not isinstance(name, str) or not 0 < len(name) <= QUESTION_MAX:
                raise ClassError("That is not a question of this lab.")
        if question.startswith(RUN_PREFIX):
            raise ClassError("That is not a question of this lab.")
        with self.engine.begin() as conn:
            self._as_teacher(conn, code, key)
            row = {"room": code, "question": run, "met": self.clock()}
            _upsert(conn, questions, row, ["room", "question"], [])
            conn.execute(
                questions.update()
                .where(questions.c.room == code, questions.c.question == run)
                .values(state=state, prompt=question, round=questions.c.round + 1)
            )
            conn.execute(rooms.update().where(rooms.c.code == code).values(current=question, version=_NEXT))

    def run_of(self, code: str, run: str) -> Run | None:
        """Where the run ``run`` of class ``code`` stands, or None if the teacher never started it."""
        with self.engine.connect() as conn:
            row = conn.execute(
                sa.select(questions.c.state, questions.c.prompt, questions.c.round).where(
                    questions.c.room == code, questions.c.question == run
                )
            ).first()
        return None if row is None or row[1] is None else Run(row[0], row[1], int(row[2]))

    def scores(self, code: str, right: Mapping[str, int]) -> dict[str, int]:
        """How many of the questions of ``right`` ({question: its right choice, the lab's own}) each seat
        answered right, in each question's current round: {seat: right answers}, for every seat still in
        the class with an answer to at least one of them (a removed student's answers are gone, a student
        who left no longer counts). Never shown with names."""
        if not right:
            return {}
        query = (
            sa.select(answers.c.seat, answers.c.question, answers.c.choice)
            .select_from(HERE)
            .where(
                answers.c.room == code,
                answers.c.question.in_(list(right)),
                IN_CURRENT_ROUND,
                STILL_HERE,
            )
        )
        out: dict[str, int] = {}
        with self.engine.connect() as conn:
            for seat, question, choice in conn.execute(query):
                out[seat] = out.get(seat, 0) + int(int(choice) == right[question])
        return out
