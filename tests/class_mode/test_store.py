"""The class store on real SQLite and real PostgreSQL: the same tests, the same expected values."""

from __future__ import annotations

import threading

import pytest
import sqlalchemy as sa

from classroom.store import (
    CODE_ALPHABET,
    CODE_LENGTH,
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


def test_ending_a_class_deletes_its_answers_and_no_one_can_join_or_answer_after(store: Store) -> None:
    ended, kept = store.start(), store.start()
    seat, other = store.join(ended.code), store.join(kept.code)
    store.answer(ended.code, seat, "q1", 1, options=2)
    store.answer(kept.code, other, "q1", 0, options=2)
    store.end(ended.code, ended.teacher_key)
    assert store.room(ended.code) is None
    with store.engine.connect() as conn:
        assert conn.execute(sa.select(answers.c.room)).scalars().all() == [kept.code]
    with pytest.raises(ClassError, match="There is no class"):
        store.join(ended.code)
    with pytest.raises(ClassError, match="has ended"):
        store.answer(ended.code, seat, "q1", 0, options=2)
    with pytest.raises(ClassError, match="has ended"):
        store.reveal(ended.code, ended.teacher_key, "q1")
    assert store.tallies(kept.code) == {"q1": {0: 1}}


def test_a_class_idle_for_the_set_time_expires_and_a_touched_one_does_not(store: Store, clock: Clock) -> None:
    idle, busy = store.start(), store.start()
    seat = store.join(busy.code)
    clock.now += IDLE_SECONDS - 1
    store.answer(busy.code, seat, "q1", 0, options=2)  # an answer is activity
    assert store.expire() == 0
    clock.now += 2
    assert store.expire() == 1
    assert store.room(idle.code) is None and store.room(busy.code) is not None
    clock.now += IDLE_SECONDS + 1
    store.start()  # starting a class also ends the idle ones
    assert store.room(busy.code) is None


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
    with pytest.raises(RuntimeError, match="schema version 99; this lab reads version 1"):
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
    with pytest.raises(ClassError, match="plain text"):
        clean_nickname("a\u200bb")


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
