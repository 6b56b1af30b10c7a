"""The class store on real SQLite and real PostgreSQL: the same tests, the same expected values."""

from __future__ import annotations

import threading

import pytest
import sqlalchemy as sa

from classroom.model import CLOSED, KEEP_DAYS, KEEP_DAYS_MAX, OPEN, REVEALED, Question, clean_prompt
from classroom.schema import SCHEMA_VERSION
from classroom.store import (
    CODE_ALPHABET,
    CODE_LENGTH,
    DAY,
    IDLE_SECONDS,
    NICKNAME_MAX,
    ClassError,
    Store,
    answers,
    clean_nickname,
    normal_code,
    open_engine,
    rooms,
    summarize,
)

from .conftest import Clock


def test_a_class_starts_with_a_random_code_and_a_key_that_only_its_hash_is_stored(store: Store) -> None:
    started = store.start()
    assert len(started.code) == CODE_LENGTH and set(started.code) <= set(CODE_ALPHABET)
    assert len(started.teacher_key) >= 32
    with store.engine.connect() as conn:
        stored = conn.execute(sa.select(rooms.c.teacher_hash)).scalar_one()
    assert started.teacher_key not in stored
    assert store.is_teacher(started.code, started.teacher_key)
    key, code = started.teacher_key, started.code
    # One character changed, to one it surely is not (a key ends in "x" one time in 64)
    assert not store.is_teacher(code, key[:-1] + ("y" if key.endswith("x") else "x"))
    assert not store.is_teacher(code, "")
    assert not store.is_teacher(code[:-1] + ("3" if code.endswith("2") else "2"), key)  # a code of no class
    other = store.start()
    assert other.code != started.code and other.teacher_key != started.teacher_key
    assert not store.is_teacher(other.code, started.teacher_key)


def test_answers_are_counted_never_attributed_and_a_change_replaces_the_old_answer(store: Store) -> None:
    code = store.start().code
    a, b, c = (store.join(code, name) for name in ("Ada", None, "Bo"))
    store.answer(code, a, "q1", 2, options=4)
    store.answer(code, b, "q1", 2, options=4)
    store.answer(code, c, "q1", 0, options=4)
    store.answer(code, a, "q2", 1, options=2)
    assert store.tallies(code) == {"q1": {2: 2, 0: 1}, "q2": {1: 1}}
    store.answer(code, c, "q1", 2, options=4)  # Bo changes their mind: still one answer of Bo's
    assert store.tallies(code) == {"q1": {2: 3}, "q2": {1: 1}}
    assert store.answer_of(code, c, "q1") == 2
    assert store.answer_of(code, b, "q2") is None
    room = store.room(code)
    assert room is not None and room.students == 3
    assert store.nicknames(code) == ["Ada", "Bo"]


@pytest.mark.parametrize("choice", [-1, 4, 7, True, 1.0, "1"])
def test_an_answer_that_is_not_an_offered_option_is_refused_and_nothing_is_stored(
    store: Store, choice: object
) -> None:
    code = store.start().code
    seat = store.join(code)
    with pytest.raises(ClassError, match="not one of the question's options"):
        store.answer(code, seat, "q1", choice, options=4)  # type: ignore[arg-type]
    assert store.tallies(code) == {}


def test_an_answer_from_no_seat_of_the_room_is_refused(store: Store) -> None:
    code, other = store.start().code, store.start().code
    seat = store.join(other)
    with pytest.raises(ClassError, match="not in it"):
        store.answer(code, seat, "q1", 0, options=2)
    with pytest.raises(ClassError, match="not in it"):
        store.answer(code, "made-up", "q1", 0, options=2)
    with pytest.raises(ClassError, match="not a question"):
        store.answer(other, seat, "q" * 65, 0, options=2)
    assert store.tallies(code) == {} and store.tallies(other) == {}


def test_only_the_teacher_key_reveals_leads_or_ends(store: Store) -> None:
    started = store.start()
    code, key = started.code, started.teacher_key
    for act in (
        lambda k: store.reveal(code, k, "q1"),
        lambda k: store.lead(code, k, "mean", "d=4"),
        lambda k: store.end(code, k),
    ):
        with pytest.raises(ClassError, match="Only the class's teacher"):
            act(key + "x")
    room = store.room(code)
    assert room is not None and room.revealed == frozenset() and room.lead_version == 0
    store.reveal(code, key, "q1")
    store.reveal(code, key, "q1")  # twice is once
    assert store.lead(code, key, "mean", "d=4&seed=2") == 1
    assert store.lead(code, key, "variance", "") == 2
    room = store.room(code)
    assert room is not None
    assert (room.revealed, room.lead_page, room.lead_query, room.lead_version) == (
        frozenset({"q1"}),
        "variance",
        "",
        2,
    )


def test_a_revealed_question_takes_no_more_answers_and_keeps_its_tally(store: Store) -> None:
    started = store.start()
    code = started.code
    a, b = store.join(code), store.join(code)
    store.answer(code, a, "q1", 0, options=2)
    store.reveal(code, started.teacher_key, "q1")
    for seat, choice in ((a, 1), (b, 1)):
        with pytest.raises(ClassError, match="revealed"):
            store.answer(code, seat, "q1", choice, options=2)
    store.answer(code, b, "q2", 1, options=2)
    assert store.tallies(code) == {"q1": {0: 1}, "q2": {1: 1}}


def test_an_answer_given_with_the_answer_in_sight_is_final(store: Store) -> None:
    """A student who explores alone sees the answer at once: changing it then would count a copy."""
    code = store.start().code
    seat = store.join(code)
    store.answer(code, seat, "q1", 0, options=3, final=True)
    for choice in (1, 0):
        with pytest.raises(ClassError, match="your first answer is the one that counts"):
            store.answer(code, seat, "q1", choice, options=3)
    store.answer(code, seat, "q2", 2, options=3)  # another question: free
    store.answer(code, seat, "q2", 1, options=3, final=True)  # a change, then final
    assert store.tallies(code) == {"q1": {0: 1}, "q2": {1: 1}}


def test_an_ended_class_keeps_its_answers_for_the_teacher_and_takes_no_more(store: Store) -> None:
    ended, kept = store.start(), store.start()
    seat, other = store.join(ended.code), store.join(kept.code)
    store.answer(ended.code, seat, "q1", 1, options=2)
    store.answer(kept.code, other, "q1", 0, options=2)
    store.end(ended.code, ended.teacher_key)
    room = store.room(ended.code)
    assert room is not None and room.closed and store.tallies(ended.code) == {"q1": {1: 1}}
    with pytest.raises(ClassError, match="has ended: it takes no new students"):
        store.join(ended.code)
    with pytest.raises(ClassError, match="has ended: it takes no more answers"):
        store.answer(ended.code, seat, "q1", 0, options=2)
    with pytest.raises(ClassError, match="its results can be read"):
        store.reveal(ended.code, ended.teacher_key, "q1")
    assert [r.rounds for r in store.results(ended.code, ended.teacher_key)] == [{1: {1: 1}}]
    store.delete(ended.code, ended.teacher_key)
    assert store.room(ended.code) is None
    with store.engine.connect() as conn:
        assert conn.execute(sa.select(answers.c.room)).scalars().all() == [kept.code]
    with pytest.raises(ClassError, match="There is no class"):
        store.join(ended.code)
    with pytest.raises(ClassError, match="has been deleted"):
        store.answer(ended.code, seat, "q1", 0, options=2)
    assert store.tallies(kept.code) == {"q1": {0: 1}}


def test_an_idle_class_ends_and_is_deleted_once_its_kept_days_are_over(store: Store, clock: Clock) -> None:
    idle, busy, short = store.start(), store.start(), store.start(keep_days=1)
    seat = store.join(busy.code)
    clock.now += IDLE_SECONDS - 1
    store.answer(busy.code, seat, "q1", 0, options=2)  # an answer is activity
    assert store.expire() == (0, 0)
    clock.now += 2
    assert store.expire() == (2, 0)  # idle and short end; their answers stay
    ended = store.room(idle.code)
    assert ended is not None and ended.closed
    assert store.deleted_after(idle.code) == (clock.now, KEEP_DAYS)
    assert store.deleted_after(short.code) == (clock.now, 1)
    busy_room = store.room(busy.code)
    assert busy_room is not None and not busy_room.closed
    clock.now += DAY + 1
    assert store.expire() == (1, 1)  # busy is idle now; short's day is over
    assert store.room(short.code) is None and store.room(idle.code) is not None
    store.keep_for(idle.code, idle.teacher_key, 2)
    clock.now += DAY
    store.start()  # starting a class also housekeeps
    assert store.room(idle.code) is None and store.room(busy.code) is not None
    for days in (0, KEEP_DAYS_MAX + 1, True, 1.5):
        with pytest.raises(ClassError, match="between 1 and 365 days"):
            store.keep_for(busy.code, busy.teacher_key, days)  # type: ignore[arg-type]


def test_close_reopen_and_vote_again_keep_each_rounds_answers_apart(store: Store, clock: Clock) -> None:
    started = store.start()
    code, key = started.code, started.teacher_key
    a, b, c = (store.join(code, n) for n in ("Ada", "Bo", None))
    clock.now += 1  # the export lists answers by time
    store.answer(code, a, "q1", 0, options=3, right=2, prompt="Which?")
    clock.now += 1  # the export lists answers by time
    store.answer(code, b, "q1", 2, options=3, right=2)
    store.close_question(code, key, "q1")
    with pytest.raises(ClassError, match="closed this question"):
        clock.now += 1  # the export lists answers by time
        store.answer(code, c, "q1", 2, options=3)
    room = store.room(code)
    assert room is not None and room.questions["q1"] == Question(1, CLOSED) and room.current == "q1"
    assert room.revealed == frozenset()
    store.open_question(code, key, "q1")
    clock.now += 1  # the export lists answers by time
    store.answer(code, c, "q1", 1, options=3)
    assert store.vote_again(code, key, "q1") == 2
    assert store.tallies(code) == {} and store.answer_of(code, a, "q1") is None
    clock.now += 1  # the export lists answers by time
    store.answer(code, a, "q1", 2, options=3)
    clock.now += 1  # the export lists answers by time
    store.answer(code, c, "q1", 2, options=3)
    assert store.tallies(code) == {"q1": {2: 2}}
    assert store.rounds(code, "q1") == {1: {0: 1, 2: 1, 1: 1}, 2: {2: 2}}
    store.reveal(code, key, "q1")
    room = store.room(code)
    assert room is not None and room.questions["q1"] == Question(2, REVEALED) and room.revealed == {"q1"}
    results = store.results(code, key)
    assert [(r.question, r.prompt, r.options, r.right, r.state) for r in results] == [
        ("q1", "Which?", 3, 2, REVEALED)
    ]
    rows = [(r.nickname, r.round, r.choice, r.right) for r in store.answer_rows(code, key)]
    assert rows == [
        ("Ada", 1, 0, False),
        ("Bo", 1, 2, True),
        ("(no nickname)", 1, 1, False),
        ("Ada", 2, 2, True),
        ("(no nickname)", 2, 2, True),
    ]
    for act in (store.close_question, store.open_question, store.vote_again, store.reveal):
        with pytest.raises(ClassError, match="Only the class's teacher"):
            act(code, key + "x", "q1")


def test_the_teacher_removes_renames_and_hides_students(store: Store, clock: Clock) -> None:
    started = store.start()
    code, key = started.code, started.teacher_key
    a = store.join(code, "<img src=x onerror=alert")
    clock.now += 1  # the roster lists students in the order they joined
    b = store.join(code, "Bo")
    store.answer(code, a, "q1", 1, options=2)
    store.answer(code, b, "q1", 0, options=2)
    assert [(s.nickname, s.answers) for s in store.roster(code, key)] == [
        ("<img src=x onerror=alert", 1),
        ("Bo", 1),
    ]
    store.rename(code, key, a, "Ann")
    store.hide(code, key, b, True)
    assert store.nicknames(code) == ["Ann"]
    assert [(s.nickname, s.hidden) for s in store.roster(code, key)] == [("Ann", False), ("Bo", True)]
    store.remove(code, key, a)
    assert store.seat_state(code, a) == "removed" and store.seat_state(code, b) == "in"
    assert store.seat_state(code, "made-up") == "gone"
    assert store.tallies(code) == {"q1": {0: 1}}
    room = store.room(code)
    assert room is not None and room.students == 1
    with pytest.raises(ClassError, match="took you out of this class"):
        store.answer(code, a, "q1", 1, options=2)
    with pytest.raises(ClassError, match="not in the class"):
        store.rename(code, key, a, "Back")
    with pytest.raises(ClassError, match="plain text"):
        store.rename(code, key, b, "a\x07")
    for act in (lambda k: store.remove(code, k, b), lambda k: store.hide(code, k, b, False)):
        with pytest.raises(ClassError, match="Only the class's teacher"):
            act(key + "x")


def test_a_version_1_database_moves_to_this_version_with_its_classes(database_url: str, clock: Clock) -> None:
    """A lab upgraded during a class keeps it: every answer in round 1, a reveal a revealed question."""
    engine = sa.create_engine(database_url)
    with engine.begin() as conn:
        for stmt in V1_SCHEMA:
            conn.execute(sa.text(stmt))
    engine.dispose()
    store = Store(open_engine(database_url), clock)
    try:
        room = store.room("ABC234")
        assert room is not None and room.students == 2 and room.lead_page == "mean"
        assert room.questions == {"q1": Question(1, REVEALED), "q2": Question(1, OPEN)}
        assert store.tallies("ABC234") == {"q1": {1: 1, 0: 1}, "q2": {2: 1}}
        assert store.nicknames("ABC234") == ["Ada"]
        with store.engine.connect() as conn:
            assert not sa.inspect(conn).has_table("class_answers")
            assert conn.execute(sa.text("SELECT value FROM lab_meta")).scalar() == str(SCHEMA_VERSION)
    finally:
        store.engine.dispose()


def test_a_version_2_database_keeps_its_classes_and_takes_the_longest_prompts(
    database_url: str, clock: Clock
) -> None:
    """Version 2 held a prompt in 300 characters: the longest quiz questions came to the wall cut."""
    first = Store(open_engine(database_url), clock)
    started = first.start()
    first.describe(started.code, started.teacher_key, "q1", "short", ["a", "b"], 0)
    with first.engine.begin() as conn:  # back to version 2 as it was made
        if conn.dialect.name == "postgresql":
            conn.execute(sa.text("ALTER TABLE class_question ALTER COLUMN prompt TYPE VARCHAR(300)"))
        conn.execute(sa.text("UPDATE lab_meta SET value = '2' WHERE name = 'schema_version'"))
    first.engine.dispose()
    store = Store(open_engine(database_url), clock)
    try:
        long = "Which holds? " + "x" * 480
        assert len(long) > 300 and clean_prompt(long) == long
        store.describe(started.code, started.teacher_key, "q2", long, ["a", "b"], 1)
        assert store.question(started.code, "q1").prompt == "short"  # type: ignore[union-attr]
        assert store.question(started.code, "q2").prompt == long  # type: ignore[union-attr]
        with store.engine.connect() as conn:
            assert conn.execute(sa.text("SELECT value FROM lab_meta")).scalar() == str(SCHEMA_VERSION)
    finally:
        store.engine.dispose()


# Version 1's tables as the lab of 2026-12-05 made them, with one class in them
V1_SCHEMA = [
    stmt
    for stmt in """
CREATE TABLE lab_meta (name VARCHAR(32) PRIMARY KEY, value VARCHAR(64) NOT NULL);
INSERT INTO lab_meta VALUES ('schema_version', '1');
CREATE TABLE class_rooms (code VARCHAR(6) PRIMARY KEY, teacher_hash VARCHAR(64) NOT NULL,
  created FLOAT NOT NULL, active FLOAT NOT NULL, lead_page VARCHAR(64), lead_query VARCHAR(2000),
  lead_version INTEGER NOT NULL DEFAULT 0);
CREATE TABLE class_seats (room VARCHAR(6), seat VARCHAR(32), nickname VARCHAR(24),
  joined FLOAT NOT NULL, PRIMARY KEY (room, seat));
CREATE TABLE class_answers (room VARCHAR(6), question VARCHAR(64), seat VARCHAR(32),
  choice INTEGER NOT NULL, at FLOAT NOT NULL, final BOOLEAN NOT NULL DEFAULT FALSE,
  PRIMARY KEY (room, question, seat));
CREATE TABLE class_reveals (room VARCHAR(6), question VARCHAR(64), at FLOAT NOT NULL,
  PRIMARY KEY (room, question));
INSERT INTO class_rooms VALUES ('ABC234', 'h', 1000000, 1000000, 'mean', 'd=4', 3);
INSERT INTO class_seats VALUES ('ABC234', 's1', 'Ada', 1000000), ('ABC234', 's2', NULL, 1000000);
INSERT INTO class_answers VALUES ('ABC234', 'q1', 's1', 1, 1000001, FALSE),
  ('ABC234', 'q1', 's2', 0, 1000002, FALSE), ('ABC234', 'q2', 's1', 2, 1000003, FALSE);
INSERT INTO class_reveals VALUES ('ABC234', 'q1', 1000004)
""".split(";")
]


def test_answers_survive_the_engine_that_wrote_them(database_url: str, clock: Clock) -> None:
    """What a student saw accepted is committed: a new process (a new engine) reads it back."""
    first = Store(open_engine(database_url), clock)
    code = first.start().code
    seat = first.join(code)
    first.answer(code, seat, "q1", 1, options=3)
    first.engine.dispose()
    second = Store(open_engine(database_url), clock)
    try:
        assert second.tallies(code) == {"q1": {1: 1}}
        assert second.has_seat(code, seat)
    finally:
        second.engine.dispose()


def test_many_threads_answering_at_once_lose_no_answer(store: Store) -> None:
    code = store.start().code
    seats = [store.join(code) for _ in range(40)]
    errors: list[BaseException] = []

    def answer(i: int) -> None:
        try:
            for q in range(5):
                store.answer(code, seats[i], f"q{q}", i % 3, options=3)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=answer, args=(i,)) for i in range(len(seats))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    want = {0: 14, 1: 13, 2: 13}
    assert store.tallies(code) == {f"q{q}": want for q in range(5)}


def test_a_database_of_another_schema_version_is_refused_with_a_message(database_url: str) -> None:
    engine = open_engine(database_url)
    with engine.begin() as conn:
        conn.execute(sa.text("UPDATE lab_meta SET value = '99' WHERE name = 'schema_version'"))
    engine.dispose()
    with pytest.raises(RuntimeError, match=f"schema version 99; this lab reads version {SCHEMA_VERSION}"):
        open_engine(database_url)


@pytest.mark.parametrize(
    ("typed", "code"),
    [
        ("abc234", "ABC234"),
        (" AbC-234 ", "ABC234"),
        ("ABC 234", "ABC234"),
        ("ABC23", None),
        ("ABC2345", None),
        ("ABCD10", None),
        ("ÄBC234", None),
        ("", None),
    ],
)
def test_a_typed_code_is_read_in_its_stored_spelling(typed: str, code: str | None) -> None:
    assert normal_code(typed) == code


def test_a_nickname_is_short_plain_text() -> None:
    assert clean_nickname("  Ada   L. ") == "Ada L."
    assert clean_nickname("") is None and clean_nickname("   ") is None and clean_nickname(None) is None
    assert clean_nickname("<b>x</b>") == "<b>x</b>"  # kept as typed, shown as plain text
    assert clean_nickname("x" * NICKNAME_MAX) == "x" * NICKNAME_MAX
    with pytest.raises(ClassError, match="at most 24 characters"):
        clean_nickname("x" * (NICKNAME_MAX + 1))
    with pytest.raises(ClassError, match=r"U\+200B \(zero width space\)"):
        clean_nickname("a\u200bb")
    with pytest.raises(ClassError, match=r"U\+0007 \(a control character\)"):
        clean_nickname("a\x07b")
    # emoji written with a zero-width joiner, a subdivision flag's tag characters, other scripts
    for name in (
        "🏳️\u200d🌈",
        "👨\u200d👩\u200d👧",
        "🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f",
        "Zoë",
        "ثلاثة",
        "می\u200cخواهم",
    ):
        assert clean_nickname(name) == name


@pytest.mark.parametrize(
    ("counts", "answer", "want"),
    [
        ({}, 1, (0, 0, None)),
        ({1: 4}, 1, (4, 4, None)),
        ({0: 2, 1: 3, 2: 2}, 1, (7, 3, 0)),  # a tie between wrong answers: the first option
        ({0: 1, 2: 5, 3: 0}, 0, (6, 1, 2)),
        ({3: 0, 2: 0}, 1, (0, 0, None)),
    ],
)
def test_a_questions_summary(counts: dict[int, int], answer: int, want: tuple[int, int, int | None]) -> None:
    told = summarize(counts, answer)
    assert (told.answers, told.right, told.common_wrong) == want


def test_every_change_a_screen_must_follow_moves_the_rooms_version(store: Store) -> None:
    started = store.start()
    code, key = started.code, started.teacher_key
    seat = store.join(code)

    def version() -> int:
        room = store.room(code)
        assert room is not None
        return room.version

    seen = [version()]
    for act in (
        lambda: store.lead(code, key, "mean", ""),
        lambda: store.set_paced(code, key, True),
        lambda: store.close_question(code, key, "q1"),
        lambda: store.open_question(code, key, "q1"),
        lambda: store.vote_again(code, key, "q1"),
        lambda: store.reveal(code, key, "q1"),
        lambda: store.remove(code, key, seat),
        lambda: store.end(code, key),
    ):
        act()
        seen.append(version())
    assert seen == list(range(9))
    room = store.room(code)
    assert room is not None and room.paced and room.closed


def test_a_described_question_gives_the_projector_its_texts_and_counts(store: Store) -> None:
    started = store.start()
    code, key = started.code, started.teacher_key
    assert store.question(code, "q1") is None
    store.describe(code, key, "q1", "Which is  the mean?", ["2.5", "1.25", "  4 "], right=0)
    a = store.join(code)
    store.answer(code, a, "q1", 2, options=3)
    told = store.question(code, "q1")
    assert told is not None
    assert (told.prompt, told.labels, told.options, told.right, told.state, told.round, told.rounds) == (
        "Which is the mean?",
        ("2.5", "1.25", "4"),
        3,
        0,
        OPEN,
        1,
        {1: {2: 1}},
    )
    for labels, right in (([], None), (["a", "b"], 2)):
        with pytest.raises(ClassError, match="not a question of this lab"):
            store.describe(code, key, "q1", "?", labels, right)
    with pytest.raises(ClassError, match="Only the class's teacher"):
        store.describe(code, key + "x", "q1", "?", ["a"], None)


def test_results_list_the_questions_asked_in_the_order_the_class_met_them(store: Store, clock: Clock) -> None:
    started = store.start()
    code, key = started.code, started.teacher_key
    seat = store.join(code)
    for question in ("q1", "q2", "q3", "q4"):  # the teacher's screen describes every question it shows
        clock.now += 1
        store.describe(code, key, question, question.upper(), ["a", "b"], 0)
    clock.now += 1
    store.answer(code, seat, "q3", 1, options=2)
    store.close_question(code, key, "q2")
    store.reveal(code, key, "q1")  # a later action does not move a question in the results
    assert [r.question for r in store.results(code, key)] == ["q1", "q2", "q3"]  # q4: never asked


def test_the_projectors_question_follows_the_class_while_none_is_open(store: Store) -> None:
    """The current question moves with the teacher's actions, and without them to a question drawn on
    the teacher's screen or answered, as long as the current one no longer takes answers."""
    started = store.start()
    code, key = started.code, started.teacher_key
    seat = store.join(code)

    def current() -> str | None:
        room = store.room(code)
        assert room is not None
        return room.current

    assert current() is None
    store.describe(code, key, "q1", "One?", ["a", "b"], 0)  # the teacher's screen draws q1
    assert current() == "q1"
    store.describe(code, key, "q2", "Two?", ["a", "b"], 0)  # q1 still takes answers: it stays up
    store.answer(code, seat, "q2", 1, options=2)
    assert current() == "q1"
    store.reveal(code, key, "q1")
    store.answer(code, seat, "q2", 0, options=2)  # q1 is done: the question the class answers goes up
    assert current() == "q2"
    store.close_question(code, key, "q2")
    store.describe(code, key, "q3", "Three?", ["a", "b"], 1)
    assert current() == "q3"
    store.vote_again(code, key, "q2")  # a teacher's action always puts its question up
    assert current() == "q2"
