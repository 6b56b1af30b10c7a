"""A class's shared state in one database: rooms, seats, questions, answers, and where the teacher leads.

One code path for both databases (SQLAlchemy Core): an embedded SQLite file by default, PostgreSQL
when several lab processes serve one class (``LAB_DATABASE_URL``, see ``classroom``). Every write is
its own committed transaction, so an answer a student saw accepted survives the process that accepted
it, and every process reads a question's state (open, closed, revealed, its round) from here. Nothing
here knows Streamlit: the interface (``ui.class_session``, ``ui.class_views``) calls these methods.

Trust: a room's code is public (it is projected); the teacher key is not. Only a hash of the key is
stored, and it is compared in constant time. Student input is validated here, whoever calls: a
choice must be one of the question's options, a nickname is short plain text.

What is kept: a class stops taking answers when its teacher ends it or after three idle hours, and
its answers stay for the teacher's results until :data:`KEEP_DAYS` (or the teacher's number of days)
after that; the teacher may delete it at any time.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from classroom.model import (
    CLOSED,
    CODE_ALPHABET,
    CODE_LENGTH,
    IDLE_SECONDS,
    KEEP_DAYS,
    KEEP_DAYS_MAX,
    LEAD_QUERY_MAX,
    NICKNAME_MAX,
    OPEN,
    QUESTION_MAX,
    REVEALED,
    ClassError,
    Given,
    Question,
    Room,
    Started,
    Summary,
    clean_nickname,
    clean_prompt,
    normal_code,
    summarize,
)
from classroom.reports import Reports
from classroom.runs import Runs
from classroom.schema import (
    _NEXT,
    _ROOM_TABLES,
    ANSWERED,
    DAY,
    HERE,
    IN_CURRENT_ROUND,
    LABELS_MAX,
    SEAT_MAX,
    STILL_HERE,
    _hash,
    _matches,
    _upsert,
    answers,
    lab_meta,
    metadata,
    open_engine,
    questions,
    rooms,
    seats,
)

__all__ = [  # the model's and the schema's names, for callers that know only the store
    "CODE_ALPHABET", "CODE_LENGTH", "DAY", "IDLE_SECONDS", "KEEP_DAYS", "NICKNAME_MAX", "QUESTION_MAX",
    "ClassError", "Room", "Started", "Store", "Summary", "answers", "clean_nickname", "lab_meta", "metadata",
    "normal_code", "open_engine", "questions", "rooms", "seats", "summarize",
]  # fmt: skip


class Store(Reports, Runs):
    """The classes of one database. Safe to share between threads (each call takes its own connection)."""

    def __init__(self, engine: Engine, clock: Callable[[], float] = time.time) -> None:
        self.engine = engine
        self.clock = clock

    # --- the teacher's side -------------------------------------------------------------------

    def start(self, keep_days: int = KEEP_DAYS) -> Started:
        """Make a room with a fresh random code; the key returned is the only copy of the teacher key."""
        _check_days(keep_days)
        self.expire()
        key = secrets.token_urlsafe(24)
        now = self.clock()
        for _ in range(20):
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
            try:
                with self.engine.begin() as conn:
                    conn.execute(
                        rooms.insert().values(
                            code=code, teacher_hash=_hash(key), created=now, active=now, keep_days=keep_days
                        )
                    )
            except sa.exc.IntegrityError:
                continue  # that code is taken: draw again
            return Started(code, key)
        raise RuntimeError("no free class code after 20 draws")

    def is_teacher(self, code: str, key: str | None) -> bool:
        """Whether ``key`` is ``code``'s teacher key (compared in constant time)."""
        if not key:
            return False
        with self.engine.connect() as conn:
            stored = conn.execute(sa.select(rooms.c.teacher_hash).where(rooms.c.code == code)).scalar()
        return stored is not None and _matches(stored, key)

    def _as_teacher(self, conn: Connection, code: str, key: str, *, running: bool = True) -> None:
        """Check the key; ``running``: the class must still take answers (a closed one only reports)."""
        row = conn.execute(
            sa.select(rooms.c.teacher_hash, rooms.c.closed).where(rooms.c.code == code)
        ).first()
        if row is None:
            raise ClassError("This class has been deleted.")
        if not _matches(row[0], key):
            raise ClassError("Only the class's teacher can do that.")
        if running and row[1] is not None:
            raise ClassError("This class has ended: its results can be read and exported, nothing more.")
        if running:
            conn.execute(rooms.update().where(rooms.c.code == code).values(active=self.clock()))

    def _question_state(
        self, code: str, key: str, question: str, state: str, *, new_round: bool = False
    ) -> int:
        _check_question(question)
        now = self.clock()
        with self.engine.begin() as conn:
            self._as_teacher(conn, code, key)
            _upsert(
                conn,
                questions,
                {"room": code, "question": question, "met": now},
                ["room", "question"],
                [],
            )
            this = (questions.c.room == code, questions.c.question == question)
            values: dict[str, Any] = {"state": state}
            if new_round:
                values["round"] = questions.c.round + 1
            conn.execute(questions.update().where(*this).values(**values))
            conn.execute(rooms.update().where(rooms.c.code == code).values(current=question, version=_NEXT))
            return int(conn.execute(sa.select(questions.c.round).where(*this)).scalar_one())

    def reveal(self, code: str, key: str, question: str) -> None:
        """Show ``question``'s answer on every student's screen; it takes no more answers."""
        self._question_state(code, key, question, REVEALED)

    def close_question(self, code: str, key: str, question: str) -> None:
        """Stop taking answers to ``question`` without showing its answer."""
        self._question_state(code, key, question, CLOSED)

    def open_question(self, code: str, key: str, question: str) -> None:
        """Take answers to ``question`` again, in the same round (a closed one is reopened)."""
        self._question_state(code, key, question, OPEN)

    def vote_again(self, code: str, key: str, question: str) -> int:
        """A new round of ``question``: open, nobody's answer in it yet; the earlier rounds are kept.
        Returns the new round's number."""
        return self._question_state(code, key, question, OPEN, new_round=True)

    def describe(
        self, code: str, key: str, question: str, prompt: str, labels: list[str], right: int | None
    ) -> None:
        """What the projector and the results show of ``question``: its prompt, its options' texts and its
        right option (the lab's own, given when the teacher's screen draws the question)."""
        _check_question(question)
        if not labels or (right is not None and not 0 <= right < len(labels)):
            raise ClassError("That is not a question of this lab.")
        text = "\n".join(" ".join(label.split()) for label in labels)[:LABELS_MAX]
        about = {"prompt": clean_prompt(prompt), "labels": text, "options": len(labels), "right": right}
        with self.engine.begin() as conn:
            self._as_teacher(conn, code, key, running=False)
            _upsert(
                conn,
                questions,
                {"room": code, "question": question, "met": self.clock(), **about},
                ["room", "question"],
                list(about),
            )
            _show_if_free(conn, code, question)

    def set_paced(self, code: str, key: str, paced: bool) -> None:
        """Teacher-paced: every student's browser follows the teacher's lead and cannot wander."""
        with self.engine.begin() as conn:
            self._as_teacher(conn, code, key)
            conn.execute(rooms.update().where(rooms.c.code == code).values(paced=bool(paced), version=_NEXT))

    def lead(self, code: str, key: str, page: str, query: str) -> int:
        """Send the room to ``page`` with the link ``query`` (at most :data:`LEAD_QUERY_MAX` characters);
        returns the new lead version."""
        if len(page) > 64 or len(query) > LEAD_QUERY_MAX:
            raise ClassError(
                f"That view's link is too long to send to the class (over {LEAD_QUERY_MAX:,} characters)."
            )
        with self.engine.begin() as conn:
            self._as_teacher(conn, code, key)
            conn.execute(
                rooms.update()
                .where(rooms.c.code == code)
                .values(
                    lead_page=page, lead_query=query, lead_version=rooms.c.lead_version + 1, version=_NEXT
                )
            )
            return int(conn.execute(sa.select(rooms.c.lead_version).where(rooms.c.code == code)).scalar_one())

    def end(self, code: str, key: str) -> None:
        """End the class: it takes no more answers or students; its results are kept until deleted."""
        with self.engine.begin() as conn:
            self._as_teacher(conn, code, key)
            conn.execute(
                rooms.update().where(rooms.c.code == code).values(closed=self.clock(), version=_NEXT)
            )

    def delete(self, code: str, key: str) -> None:
        """Delete the class now, with every seat and answer."""
        with self.engine.begin() as conn:
            self._as_teacher(conn, code, key, running=False)
            self._delete(conn, [code])

    def keep_for(self, code: str, key: str, days: int) -> None:
        """Keep the class's results ``days`` days after it ends (then they are deleted)."""
        _check_days(days)
        with self.engine.begin() as conn:
            self._as_teacher(conn, code, key, running=False)
            conn.execute(rooms.update().where(rooms.c.code == code).values(keep_days=days))

    def deleted_after(self, code: str) -> tuple[float | None, int] | None:
        """(when the class ended or None, days kept after that), or None for no such class."""
        with self.engine.connect() as conn:
            row = conn.execute(
                sa.select(rooms.c.closed, rooms.c.keep_days).where(rooms.c.code == code)
            ).first()
        return None if row is None else (row[0], int(row[1]))

    def tallies(self, code: str) -> dict[str, dict[int, int]]:
        """Every question's answers in its current round: {question: {choice: how many}} (never who), of
        the students still in the class."""
        query = (
            sa.select(answers.c.question, answers.c.choice, sa.func.count())
            .select_from(HERE)
            .where(answers.c.room == code, IN_CURRENT_ROUND, STILL_HERE)
            .group_by(answers.c.question, answers.c.choice)
        )
        out: dict[str, dict[int, int]] = {}
        with self.engine.connect() as conn:
            for question, choice, n in conn.execute(query):
                out.setdefault(question, {})[int(choice)] = int(n)
        return out

    # --- everyone's side ----------------------------------------------------------------------

    def room(self, code: str) -> Room | None:
        """The room ``code`` as its members see it, or None if there is no such class (any more)."""
        with self.engine.connect() as conn:
            row = conn.execute(
                sa.select(
                    rooms.c.lead_page,
                    rooms.c.lead_query,
                    rooms.c.lead_version,
                    rooms.c.paced,
                    rooms.c.closed,
                    rooms.c.current,
                    rooms.c.version,
                ).where(rooms.c.code == code)
            ).first()
            if row is None:
                return None
            students = conn.execute(
                sa.select(sa.func.count()).where(seats.c.room == code, seats.c.removed.is_(None), STILL_HERE)
            ).scalar_one()
            met = {
                q: Question(int(r), s)
                for q, r, s in conn.execute(
                    sa.select(questions.c.question, questions.c.round, questions.c.state).where(
                        questions.c.room == code
                    )
                )
            }
        shown = frozenset(q for q, state in met.items() if state.state == REVEALED)
        return Room(
            code,
            int(students),
            row[0],
            row[1],
            int(row[2]),
            shown,
            met,
            bool(row[3]),
            row[4] is not None,
            row[5],
            int(row[6]),
        )

    def join(
        self, code: str, nickname: str | None = None, kept: str | None = None, fresh: str | None = None
    ) -> str:
        """A seat in ``code``'s class; returns the seat's id, which the student's browser keeps.

        ``kept``: the seat this browser holds (its cookie); ``fresh``: the id its join drew for a new
        seat. A seat of this class that its student left, or still holds (a second click on Join), is
        given back, with the nickname now given if any: two joins of one browser that overlap make one
        seat. A seat the teacher removed is never given back. Otherwise a new seat (``fresh``'s id).
        """
        name = clean_nickname(nickname)
        self.expire()
        now = self.clock()
        with self.engine.begin() as conn:
            found = conn.execute(sa.select(rooms.c.closed).where(rooms.c.code == code)).first()
            if found is None:
                raise ClassError(f"There is no class {code}: check the code with your teacher.")
            if found[0] is not None:
                raise ClassError(f"Class {code} has ended: it takes no new students.")
            conn.execute(rooms.update().where(rooms.c.code == code).values(active=now))
            back = {"left_at": None} | ({"nickname": name} if name is not None else {})
            for wanted in (kept, fresh):
                mine = (seats.c.room == code, seats.c.seat == wanted, seats.c.removed.is_(None))
                if wanted is not None and conn.execute(seats.update().where(*mine).values(**back)).rowcount:
                    return wanted
            seat = secrets.token_urlsafe(12)
            if fresh is not None and len(fresh) <= SEAT_MAX:
                taken = sa.select(seats.c.seat).where(seats.c.room == code, seats.c.seat == fresh)
                seat = fresh if conn.execute(taken).first() is None else seat
            row = {"room": code, "seat": seat, "nickname": name, "joined": now}
            _upsert(conn, seats, row, ["room", "seat"], [])  # (a seat made meanwhile is kept as it is)
        return seat

    def leave(self, code: str, seat: str) -> None:
        """The student of ``seat`` leaves the class: no longer counted as joined, nor their answers in the
        live counts; the results keep their answers, and :meth:`join` with the seat gives it back."""
        with self.engine.begin() as conn:
            conn.execute(
                seats.update()
                .where(seats.c.room == code, seats.c.seat == seat, STILL_HERE)
                .values(left_at=self.clock())
            )

    def seat_state(self, code: str, seat: str) -> str:
        """ "in" (a student of the class), "removed" (the teacher removed them), "left" (the student left)
        or "gone" (no such seat)."""
        with self.engine.connect() as conn:
            found = conn.execute(
                sa.select(seats.c.removed, seats.c.left_at).where(seats.c.room == code, seats.c.seat == seat)
            ).first()
        if found is None:
            return "gone"
        return "removed" if found[0] is not None else "left" if found[1] is not None else "in"

    def has_seat(self, code: str, seat: str) -> bool:
        return self.seat_state(code, seat) == "in"

    def answer(
        self,
        code: str,
        seat: str,
        question: str,
        choice: int,
        options: int,
        *,
        final: bool = False,
        right: int | None = None,
        prompt: str | None = None,
    ) -> None:
        """Record (or change) a seat's answer in the question's current round; returns once committed.

        ``options`` is how many options the question offers and ``right`` its right option, if any
        (the lab's own, never the student's); ``prompt`` the question's text for the results.
        ``final``: the student sees the answer now, so this answer is the last this seat gives in this
        round (an answer changed after seeing the right one would count a copy as a prediction).
        Refused when the class has ended, the question is closed or revealed, or the seat was removed.
        """
        _check_question(question)
        if isinstance(choice, bool) or not isinstance(choice, int) or not 0 <= choice < options:
            raise ClassError("That answer is not one of the question's options.")
        now = self.clock()
        with self.engine.begin() as conn:
            where = conn.execute(
                sa.select(rooms.c.closed, seats.c.removed, seats.c.left_at)
                .select_from(rooms.join(seats, seats.c.room == rooms.c.code))
                .where(rooms.c.code == code, seats.c.seat == seat)
            ).first()
            if where is None:
                raise ClassError("This class has been deleted, or this browser is not in it.")
            if where[1] is not None:
                raise ClassError("Your teacher took you out of this class: this answer was not recorded.")
            if where[2] is not None:
                raise ClassError("You left this class: join it again to answer.")
            if where[0] is not None:
                raise ClassError("The class has ended: it takes no more answers.")
            about = {"options": options, "right": right, "prompt": clean_prompt(prompt)}
            _upsert(
                conn,
                questions,
                {"room": code, "question": question, "met": now, **about},
                ["room", "question"],
                [],
            )
            this_q = (questions.c.room == code, questions.c.question == question)
            if right is not None:
                conn.execute(questions.update().where(*this_q, questions.c.right.is_(None)).values(**about))
            rnd, state = conn.execute(sa.select(questions.c.round, questions.c.state).where(*this_q)).one()
            if state == REVEALED:
                raise ClassError("The answer is revealed: this question takes no more answers.")
            if state == OPEN:
                _show_if_free(conn, code, question)
            if state == CLOSED:
                raise ClassError("Your teacher has closed this question: answers are not taken now.")
            this = (
                answers.c.room == code,
                answers.c.question == question,
                answers.c.round == rnd,
                answers.c.seat == seat,
            )
            if conn.execute(sa.select(answers.c.final).where(*this)).scalar():
                raise ClassError("You have seen the answer: your first answer is the one that counts.")
            row = {
                "room": code,
                "question": question,
                "round": rnd,
                "seat": seat,
                "choice": choice,
                "at": now,
                "final": final,
            }
            _upsert(conn, answers, row, ["room", "question", "round", "seat"], ["choice", "at", "final"])
            conn.execute(rooms.update().where(rooms.c.code == code).values(active=now))

    def answer_of(self, code: str, seat: str, question: str) -> int | None:
        """The answer this seat gave to ``question`` in its current round, if any."""
        query = (
            sa.select(answers.c.choice)
            .select_from(ANSWERED)
            .where(
                answers.c.room == code,
                answers.c.seat == seat,
                answers.c.question == question,
                IN_CURRENT_ROUND,
            )
        )
        with self.engine.connect() as conn:
            found = conn.execute(query).scalar()
        return None if found is None else int(found)

    def given(self, code: str, seat: str, question: str | None = None) -> dict[str, Given]:
        """Every answer this seat gave in its question's current round (``question``'s alone, when given):
        {question: its answer}, what a student's boxes show as theirs and judge once it is revealed."""
        query = (
            sa.select(answers.c.question, answers.c.choice, answers.c.final)
            .select_from(ANSWERED)
            .where(answers.c.room == code, answers.c.seat == seat, IN_CURRENT_ROUND)
        )
        if question is not None:
            query = query.where(answers.c.question == question)
        with self.engine.connect() as conn:
            return {q: Given(int(choice), bool(final)) for q, choice, final in conn.execute(query)}

    # --- housekeeping -------------------------------------------------------------------------

    def expire(self, idle: float = IDLE_SECONDS) -> tuple[int, int]:
        """End every class nobody has touched for ``idle`` seconds, and delete every class whose kept
        days are over; returns (how many ended, how many deleted)."""
        now = self.clock()
        with self.engine.begin() as conn:
            ended = conn.execute(
                rooms.update().where(rooms.c.closed.is_(None), rooms.c.active < now - idle).values(closed=now)
            ).rowcount
            old = list(
                conn.execute(
                    sa.select(rooms.c.code).where(
                        rooms.c.closed.is_not(None), rooms.c.closed + rooms.c.keep_days * DAY < now
                    )
                ).scalars()
            )
            self._delete(conn, old)
        return int(ended), len(old)

    @staticmethod
    def _delete(conn: Connection, codes: list[str]) -> None:
        if codes:
            for table in _ROOM_TABLES:
                key = table.c.code if table is rooms else table.c.room
                conn.execute(table.delete().where(key.in_(codes)))


def _show_if_free(conn: Connection, code: str, question: str) -> None:
    """Make ``question`` the room's current one (the projector's) unless the current one still takes
    answers: the teacher's screen drawing a question, or an answer to it, puts it up once the last one
    was closed or revealed, so the wall follows the class without a click."""
    still_open = sa.exists(
        sa.select(questions.c.question).where(
            questions.c.room == code, questions.c.question == rooms.c.current, questions.c.state == OPEN
        )
    )
    conn.execute(
        rooms.update()
        .where(rooms.c.code == code, sa.or_(rooms.c.current.is_(None), ~still_open))
        .values(current=question)
    )


def _check_question(question: str) -> None:
    if not isinstance(question, str) or not 0 < len(question) <= QUESTION_MAX:
        raise ClassError("That is not a question of this lab.")


def _check_days(days: int) -> None:
    if isinstance(days, bool) or not isinstance(days, int) or not 1 <= days <= KEEP_DAYS_MAX:
        raise ClassError(f"Results are kept between 1 and {KEEP_DAYS_MAX} days after the class.")
