"""The class database's tables and how an engine is opened (SQLAlchemy Core, SQLite or PostgreSQL),
with the move from an older schema version. ``classroom.store`` reads and writes them."""

from __future__ import annotations

import hashlib
import hmac
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection, Engine

from classroom.model import CODE_LENGTH, KEEP_DAYS, NICKNAME_MAX, OPEN, QUESTION_MAX, REVEALED

SCHEMA_VERSION = 4
LABELS_MAX = 2000
DAY = 24 * 60 * 60
SEAT_MAX = 32

metadata = sa.MetaData()
lab_meta = sa.Table(
    "lab_meta",
    metadata,
    sa.Column("name", sa.String(32), primary_key=True),
    sa.Column("value", sa.String(64), nullable=False),
)
rooms = sa.Table(
    "class_room",
    metadata,
    sa.Column("code", sa.String(CODE_LENGTH), primary_key=True),
    sa.Column("teacher_hash", sa.String(64), nullable=False),
    sa.Column("created", sa.Float, nullable=False),
    sa.Column("active", sa.Float, nullable=False),
    sa.Column("closed", sa.Float),  # when it stopped taking answers (ended or idle); None while open
    sa.Column("keep_days", sa.Integer, nullable=False, server_default=str(KEEP_DAYS)),
    sa.Column("paced", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("lead_page", sa.String(64)),
    sa.Column("lead_query", sa.Text),  # at most LEAD_QUERY_MAX characters (classroom.store.Store.lead)
    sa.Column("lead_version", sa.Integer, nullable=False, server_default="0"),
    sa.Column("current", sa.String(QUESTION_MAX)),  # the question the teacher last acted on
    # Grows with every change a member's screen must follow (a lead, pacing, a question's state, the
    # end, a student removed): a browser that sees it move reads the room again.
    sa.Column("version", sa.Integer, nullable=False, server_default="0"),
)
seats = sa.Table(
    "class_seat",
    metadata,
    sa.Column("room", sa.String(CODE_LENGTH), primary_key=True),
    sa.Column("seat", sa.String(SEAT_MAX), primary_key=True),
    sa.Column("nickname", sa.String(NICKNAME_MAX)),
    sa.Column("joined", sa.Float, nullable=False),
    sa.Column("hidden", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("removed", sa.Float),  # the teacher removed this student (their answers went with it)
    # The student left (Leave the class): no longer counted as joined, nor their answers in the live
    # counts; the results keep them, and joining again from the same browser takes the seat back
    sa.Column("left_at", sa.Float),
)
questions = sa.Table(
    "class_question",
    metadata,
    sa.Column("room", sa.String(CODE_LENGTH), primary_key=True),
    sa.Column("question", sa.String(QUESTION_MAX), primary_key=True),
    sa.Column("round", sa.Integer, nullable=False, server_default="1"),
    sa.Column("state", sa.String(8), nullable=False, server_default=OPEN),
    sa.Column("prompt", sa.Text),  # at most PROMPT_MAX characters (classroom.model.clean_prompt)
    sa.Column("labels", sa.String(LABELS_MAX)),  # the options' texts, "\n" between them
    sa.Column("options", sa.Integer),
    sa.Column("right", sa.Integer),
    sa.Column("met", sa.Float, nullable=False),  # when the class first met it (the results' order)
)
answers = sa.Table(
    "class_answer",
    metadata,
    sa.Column("room", sa.String(CODE_LENGTH), primary_key=True),
    sa.Column("question", sa.String(QUESTION_MAX), primary_key=True),
    sa.Column("round", sa.Integer, primary_key=True),
    sa.Column("seat", sa.String(SEAT_MAX), primary_key=True),
    sa.Column("choice", sa.Integer, nullable=False),
    sa.Column("at", sa.Float, nullable=False),
    # The student saw the answer (exploring alone, or the quiz's own check): the answer cannot change.
    sa.Column("final", sa.Boolean, nullable=False, server_default=sa.false()),
)
# Each answer beside its question; with IN_CURRENT_ROUND, only the answers of the question's current round
# (what the class sees now: earlier rounds are kept for the results)
ANSWERED = answers.join(
    questions, (questions.c.room == answers.c.room) & (questions.c.question == answers.c.question)
)
IN_CURRENT_ROUND = answers.c.round == questions.c.round
# An answer of a student still in the class (not left), for the live counts: a student who left no
# longer counts as joined, so neither do their answers (the results keep them)
HERE = ANSWERED.join(seats, (seats.c.room == answers.c.room) & (seats.c.seat == answers.c.seat))
STILL_HERE = seats.c.left_at.is_(None)
_ROOM_TABLES = (answers, questions, seats, rooms)
_NEXT = rooms.c.version + 1
_V1_TABLES = ("class_answers", "class_reveals", "class_seats", "class_rooms")


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
    """An engine for ``url`` (``sqlite:///path`` or ``postgresql+psycopg://...``), tables created; a
    database of an older schema version is moved to this one with its classes."""
    engine = sa.create_engine(url, pool_pre_ping=True)
    if engine.dialect.name == "sqlite":
        sa.event.listen(engine, "connect", _sqlite_pragmas)
    try:
        metadata.create_all(engine)
        with engine.begin() as conn:
            found = conn.execute(
                sa.select(lab_meta.c.value).where(lab_meta.c.name == "schema_version")
            ).scalar()
            if found == "1":
                _from_version_1(conn)
            elif found in ("2", "3"):
                if found == "2":
                    _from_version_2(conn)
                _from_version_3(conn)
            elif found not in (None, str(SCHEMA_VERSION)):
                raise RuntimeError(
                    f"the class database has schema version {found}; this lab reads version {SCHEMA_VERSION}"
                )
            _upsert(
                conn, lab_meta, {"name": "schema_version", "value": str(SCHEMA_VERSION)}, ["name"], ["value"]
            )
    except BaseException:
        engine.dispose()
        raise
    return engine


def _from_version_2(conn: Connection) -> None:
    """Version 2 kept a question's prompt in 300 characters, which cut the longest quiz questions on the
    wall; version 3 keeps it as text (SQLite never checked the length)."""
    if conn.dialect.name == "postgresql":
        conn.execute(sa.text("ALTER TABLE class_question ALTER COLUMN prompt TYPE TEXT"))


def _from_version_3(conn: Connection) -> None:
    """Version 3 kept the teacher's lead in 2000 characters, and a seat stayed joined when its student
    left; version 4 keeps the lead as text (bounded by the store) and marks a seat left."""
    if "left_at" not in {c["name"] for c in sa.inspect(conn).get_columns("class_seat")}:
        conn.execute(sa.text("ALTER TABLE class_seat ADD COLUMN left_at FLOAT"))
    if conn.dialect.name == "postgresql":
        conn.execute(sa.text("ALTER TABLE class_room ALTER COLUMN lead_query TYPE TEXT"))


def _from_version_1(conn: Connection) -> None:
    """Copy version 1's classes into version 2's tables (every answer in round 1; a reveal becomes a
    revealed question) and drop the old tables."""
    old = sa.MetaData()
    old.reflect(conn, only=[t for t in _V1_TABLES if sa.inspect(conn).has_table(t)])
    if "class_rooms" in old.tables:
        r = old.tables["class_rooms"]
        conn.execute(
            rooms.insert().from_select(
                ["code", "teacher_hash", "created", "active", "lead_page", "lead_query", "lead_version"],
                sa.select(
                    r.c.code,
                    r.c.teacher_hash,
                    r.c.created,
                    r.c.active,
                    r.c.lead_page,
                    r.c.lead_query,
                    r.c.lead_version,
                ),
            )
        )
    if "class_seats" in old.tables:
        s = old.tables["class_seats"]
        conn.execute(
            seats.insert().from_select(
                ["room", "seat", "nickname", "joined"],
                sa.select(s.c.room, s.c.seat, s.c.nickname, s.c.joined),
            )
        )
    if "class_answers" in old.tables:
        a = old.tables["class_answers"]
        conn.execute(
            answers.insert().from_select(
                ["room", "question", "round", "seat", "choice", "at", "final"],
                sa.select(a.c.room, a.c.question, sa.literal(1), a.c.seat, a.c.choice, a.c.at, a.c.final),
            )
        )
        first = sa.select(a.c.room, a.c.question, sa.func.min(a.c.at)).group_by(a.c.room, a.c.question)
        conn.execute(questions.insert().from_select(["room", "question", "met"], first))
    if "class_reveals" in old.tables:
        v = old.tables["class_reveals"]
        for room, question, at in conn.execute(sa.select(v.c.room, v.c.question, v.c.at)):
            row = {"room": room, "question": question, "state": REVEALED, "met": at}
            _upsert(conn, questions, row, ["room", "question"], ["state"])
    for name in _V1_TABLES:
        if name in old.tables:
            old.tables[name].drop(conn)


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
