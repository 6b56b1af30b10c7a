"""A class's shared state in one database: rooms, seats, answers, reveals, and where the teacher leads.

One code path for both databases (SQLAlchemy Core): an embedded SQLite file by default, PostgreSQL
when several lab processes serve one class (``LAB_DATABASE_URL``, see ``classroom.config``). Every
write is its own committed transaction, so an answer a student saw accepted survives the process
that accepted it. Nothing here knows Streamlit: the interface (``ui.classmode``) calls these methods.

Trust: a room's code is public (it is projected); the teacher key is not. Only a hash of the key is
stored, and it is compared in constant time. Student input is validated here, whoever calls:
a choice must be one of the question's options, a nickname is short plain text.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from collections.abc import Callable
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection, Engine

from classroom.model import (
    CODE_ALPHABET,
    CODE_LENGTH,
    IDLE_SECONDS,
    NICKNAME_MAX,
    QUESTION_MAX,
    ClassError,
    Room,
    Started,
    Summary,
    clean_nickname,
    normal_code,
    summarize,
)

__all__ = [  # the model's names, for callers that know only the store
    "CODE_ALPHABET",
    "CODE_LENGTH",
    "IDLE_SECONDS",
    "NICKNAME_MAX",
    "QUESTION_MAX",
    "ClassError",
    "Room",
    "Started",
    "Store",
    "Summary",
    "clean_nickname",
    "normal_code",
    "open_engine",
    "summarize",
]

SCHEMA_VERSION = 1

metadata = sa.MetaData()
lab_meta = sa.Table(
    "lab_meta",
    metadata,
    sa.Column("name", sa.String(32), primary_key=True),
    sa.Column("value", sa.String(64), nullable=False),
)
rooms = sa.Table(
    "class_rooms",
    metadata,
    sa.Column("code", sa.String(CODE_LENGTH), primary_key=True),
    sa.Column("teacher_hash", sa.String(64), nullable=False),
    sa.Column("created", sa.Float, nullable=False),
    sa.Column("active", sa.Float, nullable=False),
    sa.Column("lead_page", sa.String(64)),
    sa.Column("lead_query", sa.String(2000)),
    sa.Column("lead_version", sa.Integer, nullable=False, server_default="0"),
)
seats = sa.Table(
    "class_seats",
    metadata,
    sa.Column("room", sa.String(CODE_LENGTH), primary_key=True),
    sa.Column("seat", sa.String(32), primary_key=True),
    sa.Column("nickname", sa.String(NICKNAME_MAX)),
    sa.Column("joined", sa.Float, nullable=False),
)
answers = sa.Table(
    "class_answers",
    metadata,
    sa.Column("room", sa.String(CODE_LENGTH), primary_key=True),
    sa.Column("question", sa.String(QUESTION_MAX), primary_key=True),
    sa.Column("seat", sa.String(32), primary_key=True),
    sa.Column("choice", sa.Integer, nullable=False),
    sa.Column("at", sa.Float, nullable=False),
    # The student saw the answer (exploring alone, or the quiz's own check): the answer cannot change.
    sa.Column("final", sa.Boolean, nullable=False, server_default=sa.false()),
)
reveals = sa.Table(
    "class_reveals",
    metadata,
    sa.Column("room", sa.String(CODE_LENGTH), primary_key=True),
    sa.Column("question", sa.String(QUESTION_MAX), primary_key=True),
    sa.Column("at", sa.Float, nullable=False),
)
_ROOM_TABLES = (answers, reveals, seats, rooms)


def _hash(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def _matches(stored_hash: str, key: str) -> bool:
    """Whether ``key`` is the key whose hash is stored, compared in constant time."""
    return hmac.compare_digest(stored_hash, _hash(key))


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    # WAL lets the teacher's reads go on while a student's answer is written; busy_timeout makes a
    # writer wait for another (sessions are threads of one process, or several processes) instead of failing.
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA busy_timeout=10000")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


def open_engine(url: str) -> Engine:
    """An engine for ``url`` (``sqlite:///path`` or ``postgresql+psycopg://...``), tables created."""
    engine = sa.create_engine(url, pool_pre_ping=True)
    if engine.dialect.name == "sqlite":
        sa.event.listen(engine, "connect", _sqlite_pragmas)
    try:
        metadata.create_all(engine)
        with engine.begin() as conn:
            found = conn.execute(
                sa.select(lab_meta.c.value).where(lab_meta.c.name == "schema_version")
            ).scalar()
            if found is None:
                _upsert(
                    conn, lab_meta, {"name": "schema_version", "value": str(SCHEMA_VERSION)}, ["name"], []
                )
            elif found != str(SCHEMA_VERSION):
                raise RuntimeError(
                    f"the class database has schema version {found}; this lab reads version {SCHEMA_VERSION}"
                )
    except BaseException:
        engine.dispose()
        raise
    return engine


def _upsert(
    conn: Connection, table: sa.Table, row: dict[str, Any], keys: list[str], update: list[str]
) -> None:
    """Insert ``row``, or on a clash of ``keys`` update its ``update`` columns (none: keep the old row)."""
    insert = postgresql.insert if conn.dialect.name == "postgresql" else sqlite.insert
    stmt = insert(table).values(**row)
    if update:
        conn.execute(
            stmt.on_conflict_do_update(index_elements=keys, set_={c: stmt.excluded[c] for c in update})
        )
    else:
        conn.execute(stmt.on_conflict_do_nothing(index_elements=keys))


class Store:
    """The classes of one database. Safe to share between threads (each call takes its own connection)."""

    def __init__(self, engine: Engine, clock: Callable[[], float] = time.time) -> None:
        self.engine = engine
        self.clock = clock

    # --- the teacher's side -------------------------------------------------------------------

    def start(self) -> Started:
        """Make a room with a fresh random code; the key returned is the only copy of the teacher key."""
        self.expire()
        key = secrets.token_urlsafe(24)
        now = self.clock()
        for _ in range(20):
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
            try:
                with self.engine.begin() as conn:
                    conn.execute(
                        rooms.insert().values(code=code, teacher_hash=_hash(key), created=now, active=now)
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

    def _as_teacher(self, conn: Connection, code: str, key: str) -> None:
        stored = conn.execute(sa.select(rooms.c.teacher_hash).where(rooms.c.code == code)).scalar()
        if stored is None:
            raise ClassError("This class has ended.")
        if not _matches(stored, key):
            raise ClassError("Only the class's teacher can do that.")
        conn.execute(rooms.update().where(rooms.c.code == code).values(active=self.clock()))

    def reveal(self, code: str, key: str, question: str) -> None:
        """Show ``question``'s answer on every student's screen."""
        with self.engine.begin() as conn:
            self._as_teacher(conn, code, key)
            _upsert(
                conn,
                reveals,
                {"room": code, "question": question, "at": self.clock()},
                ["room", "question"],
                [],
            )

    def lead(self, code: str, key: str, page: str, query: str) -> int:
        """Send the room to ``page`` with the link ``query``; returns the new lead version."""
        if len(page) > 64 or len(query) > 2000:
            raise ClassError("That view's link is too long to send to the class.")
        with self.engine.begin() as conn:
            self._as_teacher(conn, code, key)
            conn.execute(
                rooms.update()
                .where(rooms.c.code == code)
                .values(lead_page=page, lead_query=query, lead_version=rooms.c.lead_version + 1)
            )
            return int(conn.execute(sa.select(rooms.c.lead_version).where(rooms.c.code == code)).scalar_one())

    def end(self, code: str, key: str) -> None:
        """End the class: its seats, answers and reveals are deleted with it."""
        with self.engine.begin() as conn:
            self._as_teacher(conn, code, key)
            self._delete(conn, [code])

    def tallies(self, code: str) -> dict[str, dict[int, int]]:
        """Every question's answers so far: {question: {choice: how many}} (counts only, never who)."""
        query = (
            sa.select(answers.c.question, answers.c.choice, sa.func.count())
            .where(answers.c.room == code)
            .group_by(answers.c.question, answers.c.choice)
        )
        out: dict[str, dict[int, int]] = {}
        with self.engine.connect() as conn:
            for question, choice, n in conn.execute(query):
                out.setdefault(question, {})[int(choice)] = int(n)
        return out

    def nicknames(self, code: str) -> list[str]:
        """The nicknames students gave, in alphabetical order (for the teacher's screen only)."""
        query = sa.select(seats.c.nickname).where(seats.c.room == code, seats.c.nickname.is_not(None))
        with self.engine.connect() as conn:
            return [str(n) for n in conn.execute(query.order_by(seats.c.nickname)).scalars()]

    # --- everyone's side ----------------------------------------------------------------------

    def room(self, code: str) -> Room | None:
        """The room ``code`` as its members see it, or None if there is no such class (any more)."""
        with self.engine.connect() as conn:
            row = conn.execute(
                sa.select(rooms.c.lead_page, rooms.c.lead_query, rooms.c.lead_version).where(
                    rooms.c.code == code
                )
            ).first()
            if row is None:
                return None
            students = conn.execute(sa.select(sa.func.count()).where(seats.c.room == code)).scalar_one()
            shown = conn.execute(sa.select(reveals.c.question).where(reveals.c.room == code)).scalars()
            return Room(code, int(students), row[0], row[1], int(row[2]), frozenset(shown))

    def join(self, code: str, nickname: str | None = None) -> str:
        """A new seat in ``code``'s class; returns the seat's id, which the student's browser keeps."""
        name = clean_nickname(nickname)
        self.expire()
        seat = secrets.token_urlsafe(12)
        now = self.clock()
        with self.engine.begin() as conn:
            if conn.execute(sa.select(rooms.c.code).where(rooms.c.code == code)).first() is None:
                raise ClassError(f"There is no class {code} (a class ends when its teacher ends it).")
            conn.execute(seats.insert().values(room=code, seat=seat, nickname=name, joined=now))
            conn.execute(rooms.update().where(rooms.c.code == code).values(active=now))
        return seat

    def has_seat(self, code: str, seat: str) -> bool:
        with self.engine.connect() as conn:
            found = conn.execute(sa.select(seats.c.seat).where(seats.c.room == code, seats.c.seat == seat))
            return found.first() is not None

    def answer(
        self, code: str, seat: str, question: str, choice: int, options: int, *, final: bool = False
    ) -> None:
        """Record (or change) a seat's answer until the question is revealed; returns once it is committed.

        ``options`` is how many options the question offers (the lab's own count, not the student's).
        ``final``: the student sees the answer now, so this answer is the last this seat gives (an answer
        changed after seeing the right one would count a copy as a prediction).
        """
        if not 0 < len(question) <= QUESTION_MAX:
            raise ClassError("That is not a question of this lab.")
        if isinstance(choice, bool) or not isinstance(choice, int) or not 0 <= choice < options:
            raise ClassError("That answer is not one of the question's options.")
        now = self.clock()
        with self.engine.begin() as conn:
            if not conn.execute(
                sa.select(seats.c.seat).where(seats.c.room == code, seats.c.seat == seat)
            ).first():
                raise ClassError("This class has ended, or this browser is not in it.")
            shown = sa.select(reveals.c.room).where(reveals.c.room == code, reveals.c.question == question)
            if conn.execute(shown).first():
                raise ClassError("The answer is revealed: this question takes no more answers.")
            this = (answers.c.room == code, answers.c.question == question, answers.c.seat == seat)
            if conn.execute(sa.select(answers.c.final).where(*this)).scalar():
                raise ClassError("You have seen the answer: your first answer is the one that counts.")
            row = {
                "room": code,
                "question": question,
                "seat": seat,
                "choice": choice,
                "at": now,
                "final": final,
            }
            _upsert(conn, answers, row, ["room", "question", "seat"], ["choice", "at", "final"])
            conn.execute(rooms.update().where(rooms.c.code == code).values(active=now))

    def answer_of(self, code: str, seat: str, question: str) -> int | None:
        """The answer this seat gave to ``question``, if any."""
        query = sa.select(answers.c.choice).where(
            answers.c.room == code, answers.c.seat == seat, answers.c.question == question
        )
        with self.engine.connect() as conn:
            found = conn.execute(query).scalar()
        return None if found is None else int(found)

    # --- housekeeping -------------------------------------------------------------------------

    def expire(self, idle: float = IDLE_SECONDS) -> int:
        """End every class nobody has touched for ``idle`` seconds; returns how many ended."""
        with self.engine.begin() as conn:
            old = list(
                conn.execute(sa.select(rooms.c.code).where(rooms.c.active < self.clock() - idle)).scalars()
            )
            self._delete(conn, old)
        return len(old)

    @staticmethod
    def _delete(conn: Connection, codes: list[str]) -> None:
        if codes:
            for table in _ROOM_TABLES:
                key = table.c.code if table is rooms else table.c.room
                conn.execute(table.delete().where(key.in_(codes)))
