"""What the teacher reads of a class and does to its students: its questions with every round's
counts, the roster (remove, rename, hide), the results and one row per answer for the export. A part
of :class:`classroom.store.Store`."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa

from classroom.model import OPEN, AnswerRow, ClassError, QuestionResult, Seat, clean_nickname
from classroom.runs import RUN_PREFIX
from classroom.schema import _NEXT, ANSWERED, STILL_HERE, answers, questions, rooms, seats

if TYPE_CHECKING:
    from sqlalchemy.engine import Connection, Engine


class Reports:
    """The teacher's side of the store for students and results (every method checks the key)."""

    engine: Engine
    clock: Callable[[], float]

    def _as_teacher(self, conn: Connection, code: str, key: str, *, running: bool = True) -> None:
        raise NotImplementedError  # Store's

    def remove(self, code: str, key: str, seat: str) -> None:
        """Take a student out of the class: their answers go, and their browser is told so."""
        with self.engine.begin() as conn:
            self._as_teacher(conn, code, key, running=False)
            found = conn.execute(
                seats.update()
                .where(seats.c.room == code, seats.c.seat == seat, seats.c.removed.is_(None))
                .values(removed=self.clock(), nickname=None)
            )
            if found.rowcount == 0:
                raise ClassError("That student is not in the class (any more).")
            conn.execute(answers.delete().where(answers.c.room == code, answers.c.seat == seat))
            conn.execute(rooms.update().where(rooms.c.code == code).values(version=_NEXT))

    def rename(self, code: str, key: str, seat: str, nickname: str | None) -> None:
        """Give a student another nickname (None: none); it is checked as a student's own would be."""
        name = clean_nickname(nickname)
        self._set_seat(code, key, seat, nickname=name)

    def hide(self, code: str, key: str, seat: str, hidden: bool) -> None:
        """Hide a nickname from every screen but the teacher's roster (or show it again)."""
        self._set_seat(code, key, seat, hidden=bool(hidden))

    def _set_seat(self, code: str, key: str, seat: str, **values: Any) -> None:
        with self.engine.begin() as conn:
            self._as_teacher(conn, code, key, running=False)
            found = conn.execute(
                seats.update()
                .where(seats.c.room == code, seats.c.seat == seat, seats.c.removed.is_(None))
                .values(**values)
            )
            if found.rowcount == 0:
                raise ClassError("That student is not in the class (any more).")

    def question(self, code: str, question: str) -> QuestionResult | None:
        """One question of the class with its rounds' counts (no names) as the class sees them live (of
        the students still in it), or None if the class never met it."""
        with self.engine.connect() as conn:
            row = conn.execute(
                sa.select(
                    questions.c.prompt,
                    questions.c.labels,
                    questions.c.options,
                    questions.c.right,
                    questions.c.state,
                    questions.c.round,
                ).where(questions.c.room == code, questions.c.question == question)
            ).first()
        if row is None:
            return None
        labels = tuple(row[1].split("\n")) if row[1] else ()
        rounds = self.rounds(code, question, here=True)
        return QuestionResult(question, row[0], row[2], row[3], row[4], rounds, labels, int(row[5]))

    def rounds(self, code: str, question: str, *, here: bool = False) -> dict[int, dict[int, int]]:
        """One question's answers in every round: {round: {choice: how many}} (never who); ``here``: only
        of the students still in the class (a student who left no longer counts live)."""
        query = (
            sa.select(answers.c.round, answers.c.choice, sa.func.count())
            .where(answers.c.room == code, answers.c.question == question)
            .group_by(answers.c.round, answers.c.choice)
        )
        if here:
            query = query.select_from(
                answers.join(seats, (seats.c.room == answers.c.room) & (seats.c.seat == answers.c.seat))
            ).where(STILL_HERE)
        out: dict[int, dict[int, int]] = {}
        with self.engine.connect() as conn:
            for rnd, choice, n in conn.execute(query):
                out.setdefault(int(rnd), {})[int(choice)] = int(n)
        return out

    def nicknames(self, code: str) -> list[str]:
        """The nicknames students gave, not hidden, in alphabetical order (for the teacher's screen only)."""
        query = sa.select(seats.c.nickname).where(
            seats.c.room == code, seats.c.nickname.is_not(None), ~seats.c.hidden, seats.c.removed.is_(None)
        )
        with self.engine.connect() as conn:
            return [str(n) for n in conn.execute(query.order_by(seats.c.nickname)).scalars()]

    def roster(self, code: str, key: str) -> list[Seat]:
        """Every student in the class (not removed, not left), in the order they joined, with how many
        answers each gave."""
        counted = (
            sa.select(answers.c.seat, sa.func.count().label("n"))
            .where(answers.c.room == code)
            .group_by(answers.c.seat)
            .subquery()
        )
        query = (
            sa.select(seats.c.seat, seats.c.nickname, seats.c.hidden, sa.func.coalesce(counted.c.n, 0))
            .select_from(seats.outerjoin(counted, counted.c.seat == seats.c.seat))
            .where(seats.c.room == code, seats.c.removed.is_(None), STILL_HERE)
            .order_by(seats.c.joined, seats.c.seat)
        )
        with self.engine.begin() as conn:
            self._as_teacher(conn, code, key, running=False)
            return [Seat(s, n, bool(h), int(c)) for s, n, h, c in conn.execute(query)]

    def results(self, code: str, key: str) -> list[QuestionResult]:
        """Every question the class was asked (answered, or closed, revealed or voted again by the teacher),
        in the order the class first met them, with its rounds. A question the teacher's screen only
        described, with no answer and no action, is not one."""
        with self.engine.begin() as conn:
            self._as_teacher(conn, code, key, running=False)
            met = list(
                conn.execute(
                    sa.select(
                        questions.c.question,
                        questions.c.prompt,
                        questions.c.options,
                        questions.c.right,
                        questions.c.state,
                        questions.c.labels,
                        questions.c.round,
                    )
                    .where(questions.c.room == code)
                    .order_by(questions.c.met, questions.c.question)
                )
            )
        found = [
            QuestionResult(q, p, o, r, s, self.rounds(code, q), tuple(lb.split("\n")) if lb else (), int(n))
            for q, p, o, r, s, lb, n in met
        ]
        asked = [q for q in found if q.rounds or q.state != OPEN or q.round > 1]
        return [q for q in asked if not q.question.startswith(RUN_PREFIX)]  # a run is no question

    def answer_rows(self, code: str, key: str) -> list[AnswerRow]:
        """One row per student × question × round (the CSV export), by question, round, then time."""
        query = (
            sa.select(
                seats.c.nickname,
                answers.c.question,
                questions.c.prompt,
                answers.c.round,
                answers.c.choice,
                questions.c.right,
                answers.c.at,
            )
            .select_from(
                ANSWERED.join(seats, (seats.c.room == answers.c.room) & (seats.c.seat == answers.c.seat))
            )
            .where(answers.c.room == code)
            .order_by(questions.c.met, answers.c.question, answers.c.round, answers.c.at, answers.c.seat)
        )
        with self.engine.begin() as conn:
            self._as_teacher(conn, code, key, running=False)
            rows = list(conn.execute(query))
        return [
            AnswerRow(
                n or "(no nickname)", q, p, int(r), int(c), None if right is None else int(c) == right, at
            )
            for n, q, p, r, c, right, at in rows
        ]
