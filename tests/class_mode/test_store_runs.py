"""A run of questions in the class store (``classroom.runs``), on real SQLite and real PostgreSQL."""

from __future__ import annotations

import pytest

from classroom.model import CLOSED, OPEN, REVEALED, Question
from classroom.runs import Run
from classroom.store import ClassError, Store

RUN = "run:quiz"


def test_a_run_keeps_its_state_its_question_and_a_step_every_screen_sees_move(store: Store) -> None:
    started = store.start()
    code, key = started.code, started.teacher_key
    assert store.run_of(code, RUN) is None
    before = store.room(code)
    assert before is not None
    store.set_run(code, key, RUN, OPEN, "quiz_a")
    room = store.room(code)
    assert room is not None
    assert store.run_of(code, RUN) == Run(OPEN, "quiz_a", 2)
    assert room.current == "quiz_a" and room.version == before.version + 1
    assert room.questions[RUN] == Question(2, OPEN)  # a step a student's page can tell from no run
    store.set_run(code, key, RUN, OPEN, "quiz_b")
    store.set_run(code, key, RUN, REVEALED, "quiz_b")  # the summary
    assert store.run_of(code, RUN) == Run(REVEALED, "quiz_b", 4)
    store.close_question(code, key, "other_q")  # the teacher acts elsewhere: the run keeps its question
    room = store.room(code)
    assert room is not None and room.current == "other_q" and room.version == before.version + 4
    assert store.run_of(code, RUN) == Run(REVEALED, "quiz_b", 4)
    assert "quiz_b" not in room.questions  # the run says which question; the question's state is its own
    store.set_run(code, key, RUN, CLOSED, "quiz_b")
    assert store.run_of(code, RUN) == Run(CLOSED, "quiz_b", 5)


def test_a_run_is_the_teachers_and_is_no_question_of_the_results(store: Store) -> None:
    started = store.start()
    code, key = started.code, started.teacher_key
    with pytest.raises(ClassError, match="Only the class's teacher"):
        store.set_run(code, key + "x", RUN, OPEN, "quiz_a")
    no_run, no_question = "That is not a run of this lab.", "That is not a question of this lab."
    for run, state, question, said in (
        ("quiz", OPEN, "quiz_a", no_run),
        (RUN, "going", "quiz_a", no_run),
        (RUN, OPEN, "run:x", no_question),
        (RUN, OPEN, "", no_question),
        (RUN, OPEN, "q" * 65, no_question),
    ):
        with pytest.raises(ClassError) as refused:
            store.set_run(code, key, run, state, question)
        assert str(refused.value) == said
    assert store.run_of(code, RUN) is None
    store.set_run(code, key, RUN, OPEN, "quiz_a")
    store.close_question(code, key, "quiz_a")
    store.set_run(code, key, RUN, REVEALED, "quiz_a")
    assert [r.question for r in store.results(code, key)] == ["quiz_a"]
    store.end(code, key)
    with pytest.raises(ClassError, match="has ended"):
        store.set_run(code, key, RUN, OPEN, "quiz_a")


def test_scores_count_each_seats_right_answers_in_the_current_round(store: Store) -> None:
    started = store.start()
    code, key = started.code, started.teacher_key
    a, b, c, d = (store.join(code) for _ in range(4))
    store.answer(code, a, "q1", 0, options=3)
    store.answer(code, a, "q2", 1, options=3)
    store.answer(code, b, "q1", 2, options=3)
    store.answer(code, c, "q3", 0, options=3)  # a question left out of the scores
    store.answer(code, d, "q2", 0, options=3)
    right = {"q1": 0, "q2": 1}
    assert store.scores(code, right) == {a: 2, b: 0, d: 0}
    assert store.scores(code, {}) == {}
    store.vote_again(code, key, "q1")  # round 2 of q1: its round-1 answers no longer count
    store.answer(code, b, "q1", 0, options=3)
    assert store.scores(code, right) == {a: 1, b: 1, d: 0}
    store.remove(code, key, d)
    assert store.scores(code, right) == {a: 1, b: 1}
    other = store.start().code
    assert store.scores(other, right) == {}
