"""The quiz as a class activity (``ui/class_quiz.py``, ``pages/16_quiz.py``): the teacher runs it question by
question for the whole room, then shows a summary; a following student sees only the run's question.

AppTest, the app's own store (the test process's SQLite file); each test starts its own class. A student's
page runs again as the class panel would make it (the beacon asks): here, a plain ``run()``.
"""

from __future__ import annotations

from typing import Any

from apptest_support import ok, open_page, page_text
from streamlit.testing.v1 import AppTest

from classroom.model import CLOSED, OPEN, REVEALED, clean_prompt, mean_text
from classroom.model import Question as Step
from classroom.runs import Run
from layernorm.labs.quiz import make_quiz
from layernorm.labs.quiz_kit import Question
from ui import class_quiz as cq
from ui import class_session as cs
from ui import session

QUIZ = "pages/16_quiz.py"


class Class:
    """A class of this test: its code and key, its quiz, and pages opened in it."""

    def __init__(self) -> None:
        started = cs.store().start()
        self.code, self.key = started.code, started.teacher_key
        self.quiz = make_quiz(cs.quiz_seed(self.code))

    def teacher(self) -> AppTest:
        return open_page(QUIZ, **{"class": self.code, "teach": self.key})

    def student(self, nickname: str | None = None) -> tuple[AppTest, str]:
        seat = cs.store().join(self.code, nickname)
        return open_page(QUIZ, **{"class": self.code, "seat": seat}), seat

    def current(self) -> str | None:
        room = cs.store().room(self.code)
        assert room is not None
        return room.current

    def state(self, n: int) -> str:
        found = cs.store().question(self.code, cq.qid(self.quiz[n - 1]))
        return OPEN if found is None else found.state


def _radios(at: AppTest) -> list[str]:
    """The keys of the quiz's answer radios the last run drew."""
    return [str(r.key) for r in at.radio if str(r.key).startswith("quiz_")]


def _click(at: AppTest, key: str) -> AppTest:
    return ok(at.button(key=key).click().run())


def _answer(at: AppTest, q: Question, choice: int) -> AppTest:
    """A student picks option ``choice`` of ``q`` in its box and presses Check."""
    key = next(k for k in _radios(at) if k.startswith(f"quiz_{q.key}_"))
    ok(at.radio(key=key).set_value(q.options[choice]).run())
    check = next(str(b.key) for b in at.button if str(b.key).startswith(f"check_{q.key}_"))
    return _click(at, check)


def _wrong(q: Question) -> int:
    return (q.answer + 1) % len(q.options)


def _teacher_buttons(at: AppTest) -> list[str]:
    return [
        str(b.key) for b in at.button if str(b.key).startswith(("quiz_run_", "class_reveal_", "class_close_"))
    ]


def test_the_teachers_start_makes_question_1_the_classs_and_a_student_sees_only_it() -> None:
    c = Class()
    student, _ = c.student()
    n = len(c.quiz)
    assert len(_radios(student)) == n  # no run: the whole quiz, as without a class
    teacher = c.teacher()
    assert [b for b in _teacher_buttons(teacher) if b.startswith("quiz_run_")] == ["quiz_run_start"]
    _click(teacher, "quiz_run_start")
    first = c.quiz[0]
    assert c.current() == cq.qid(first)
    assert cs.store().run_of(c.code, cq.RUN) == Run(OPEN, cq.qid(first), 2)
    told = cs.store().question(c.code, cq.qid(first))
    assert told is not None
    assert (told.labels, told.right, told.state) == (first.options, first.answer, OPEN)
    assert told.prompt == clean_prompt(f"{first.topic}: {first.prompt}")  # the projector's text
    assert f"Question 1 of {n}" in page_text(teacher)
    assert {"quiz_run_previous", "quiz_run_next", "quiz_run_summary"} <= set(_teacher_buttons(teacher))
    assert teacher.button(key="quiz_run_previous").disabled
    ok(student.run())
    assert len(_radios(student)) == 1 and _radios(student)[0].startswith(f"quiz_{first.key}_")
    assert [str(t.value) for t in student.text] == [first.prompt]
    assert f"Question 1 of {n}" in page_text(student)
    assert _teacher_buttons(student) == []  # a student is never drawn the teacher's buttons


def test_next_moves_every_follower_and_closes_the_question_left_unless_revealed() -> None:
    c = Class()
    student, seat = c.student()
    teacher = c.teacher()
    _click(teacher, "quiz_run_start")
    ok(student.run())
    q1, q2, q3 = c.quiz[:3]
    _answer(student, q1, _wrong(q1))
    assert cs.store().tallies(c.code) == {cq.qid(q1): {_wrong(q1): 1}}
    drawn = student.session_state[session.klass.questions_seen.key].get(cq.RUN, Step(1, OPEN))
    assert cq.RUN in student.session_state[session.klass.on_page.key]
    _click(teacher, "quiz_run_next")
    assert (c.current(), c.state(1), c.state(2)) == (cq.qid(q2), CLOSED, OPEN)
    room = cs.store().room(c.code)
    assert room is not None and room.questions[cq.RUN] != drawn  # so the class panel reruns the page
    ok(student.run())
    assert len(_radios(student)) == 1 and _radios(student)[0].startswith(f"quiz_{q2.key}_")
    assert f"Question 2 of {len(c.quiz)}" in page_text(student)
    _answer(student, q2, q2.answer)
    _click(teacher, f"class_reveal_{cq.qid(q2)}")  # in the run's one box
    ok(student.run())
    assert any(str(s.value).startswith("Right.") for s in student.success)
    _click(teacher, "quiz_run_next")
    assert (c.current(), c.state(2), c.state(3)) == (cq.qid(q3), REVEALED, OPEN)
    _click(teacher, "quiz_run_previous")  # back to the revealed one: it stays revealed, q3 closes
    assert (c.current(), c.state(2), c.state(3)) == (cq.qid(q2), REVEALED, CLOSED)
    assert cs.store().tallies(c.code) == {cq.qid(q1): {_wrong(q1): 1}, cq.qid(q2): {q2.answer: 1}}
    assert cs.store().answer_of(c.code, seat, cq.qid(q2)) == q2.answer


def test_a_late_joiner_and_a_reload_land_on_the_runs_question_with_their_answer() -> None:
    c = Class()
    teacher = c.teacher()
    _click(teacher, "quiz_run_start")
    _click(teacher, "quiz_run_next")
    _click(teacher, "quiz_run_next")
    q3 = c.quiz[2]
    late, seat = c.student()
    assert len(_radios(late)) == 1 and f"Question 3 of {len(c.quiz)}" in page_text(late)
    _answer(late, q3, 0)
    again = open_page(QUIZ, **{"class": c.code, "seat": seat})  # a reload: a new session, the same seat
    radio = again.radio(key=_radios(again)[0])
    assert radio.value == q3.options[0] and radio.disabled  # the class's answer, shown as given
    ok(teacher.run())  # the box's timer would: Vote again comes with the round's first answer
    _click(teacher, f"class_again_{cq.qid(q3)}")  # a new round, nobody's answer in it
    ok(again.run())
    assert not again.radio(key=_radios(again)[0]).disabled


def test_the_summary_shows_the_stores_numbers_and_each_student_their_own_score() -> None:
    c = Class()
    (ada, _), (bo, _), (cy, _) = (c.student(name) for name in ("Ada", "Bo", "Cy"))
    teacher = c.teacher()
    _click(teacher, "quiz_run_start")
    q1, q2 = c.quiz[:2]
    for at, choice in ((ada, q1.answer), (bo, _wrong(q1)), (cy, q1.answer)):
        _answer(ok(at.run()), q1, choice)
    _click(teacher, "quiz_run_next")
    for at, choice in ((ada, q2.answer), (bo, q2.answer)):
        _answer(ok(at.run()), q2, choice)
    _click(teacher, "quiz_run_summary")
    assert (c.state(1), c.state(2)) == (CLOSED, CLOSED)
    assert cs.store().run_of(c.code, cq.RUN) == Run(REVEALED, cq.qid(q2), 4)
    tallies = cs.store().tallies(c.code)
    assert tallies == {cq.qid(q1): {q1.answer: 2, _wrong(q1): 1}, cq.qid(q2): {q2.answer: 2}}
    assert sorted(cs.store().scores(c.code, {cq.qid(q1): q1.answer, cq.qid(q2): q2.answer}).values()) == [
        1,
        1,
        2,
    ]
    table = teacher.table[0].value
    assert list(table.columns) == ["question", "answered", "right", "share right"]
    assert table.values.tolist() == [[q1.topic, 3, 2, "≈ 67 %"], [q2.topic, 2, 2, "100 %"]]
    assert table.index.tolist() == [1, 2]  # each question's number in the quiz
    said = page_text(teacher)
    assert (
        "Mean score: **≈ 1.3 of 2**, over the 3 students who answered at least one of the 2 questions asked."
        in said
    )
    assert f"2 of the quiz's {len(c.quiz)} questions were asked" in said
    assert _radios(teacher) == []
    for at, score in ((ada, "2 of 2"), (bo, "1 of 2"), (cy, "1 of 2")):
        ok(at.run())
        text = page_text(at)
        assert f"**Your score: {score}**" in text and "Mean score: **≈ 1.3 of 2**" in text
        assert at.table[0].value.values.tolist() == table.values.tolist()
        assert _radios(at) == [] and _teacher_buttons(at) == []
    for shown in (teacher, ada):  # safe to project: no nickname anywhere on the page
        everything = page_text(shown) + " ".join(str(v) for v in shown.table[0].value.values.ravel())
        assert not any(name in everything for name in ("Ada", "Bo", "Cy"))
    late, _ = c.student()
    assert "**Your score: 0 of 2** (you answered none)" in page_text(late)


def test_ending_the_run_gives_every_screen_the_whole_quiz_again() -> None:
    c = Class()
    student, _ = c.student()
    teacher = c.teacher()
    _click(teacher, "quiz_run_start")
    _click(teacher, "quiz_run_summary")
    _click(teacher, "quiz_run_back")  # back to the question: the run goes on, its answers still closed
    assert cs.store().run_of(c.code, cq.RUN) == Run(OPEN, cq.qid(c.quiz[0]), 4)
    assert c.state(1) == CLOSED and "quiz_run_next" in _teacher_buttons(teacher)
    _click(teacher, "quiz_run_summary")
    _click(teacher, "quiz_run_end")
    assert cs.store().run_of(c.code, cq.RUN) == Run(CLOSED, cq.qid(c.quiz[0]), 6)
    assert "quiz_run_start" in _teacher_buttons(teacher)
    ok(student.run())
    assert len(_radios(student)) == len(c.quiz)
    assert [r.question for r in cs.store().results(c.code, c.key)] == [cq.qid(c.quiz[0])]  # no run in it


def test_a_student_exploring_alone_keeps_the_whole_quiz_during_a_run() -> None:
    c = Class()
    student, _ = c.student()
    _click(c.teacher(), "quiz_run_start")
    ok(student.toggle(key="class_follow").set_value(False).run())
    assert len(_radios(student)) == len(c.quiz)
    ok(student.toggle(key="class_follow").set_value(True).run())
    assert len(_radios(student)) == 1


def test_the_mean_is_exact_or_says_it_is_rounded() -> None:
    assert [mean_text(t, n) for t, n in ((4, 2), (4, 3), (0, 5), (31, 1), (2, 3))] == [
        "2",
        "≈ 1.3",
        "0",
        "31",
        "≈ 0.7",
    ]


def test_a_second_tab_of_the_teacher_moves_the_run_from_where_the_store_has_it() -> None:
    c = Class()
    one, other = c.teacher(), c.teacher()
    _click(one, "quiz_run_start")
    ok(other.run())
    _click(one, "quiz_run_next")
    _click(one, "quiz_run_next")  # the run is on question 3; the other tab still shows question 1
    _click(other, "quiz_run_next")  # to question 2, as that tab meant: question 3's answers close
    assert (c.current(), c.state(3)) == (cq.qid(c.quiz[1]), CLOSED)
    _click(one, "quiz_run_summary")  # this tab shows question 3: the summary is of the run as it stands
    assert cs.store().run_of(c.code, cq.RUN) == Run(REVEALED, cq.qid(c.quiz[1]), 6)


def _box_of(at: AppTest, q: Question) -> tuple[Any, list[str]]:
    """``q``'s radio as the last run drew it, and the keys of the Check buttons drawn."""
    radio = at.radio(key=next(k for k in _radios(at) if k.startswith(f"quiz_{q.key}_")))
    return radio, [str(b.key) for b in at.button if str(b.key).startswith(f"check_{q.key}_")]


def test_a_check_the_class_refused_is_never_judged_nor_counted_in_the_run() -> None:
    c = Class()
    student, _ = c.student()
    teacher = c.teacher()
    _click(teacher, "quiz_run_start")
    ok(student.run())
    q1 = c.quiz[0]
    cs.store().reveal(c.code, c.key, cq.qid(q1))  # while the student's page still shows Check
    _answer(student, q1, q1.answer)  # the revealed answer, picked and checked: refused
    assert cs.store().tallies(c.code) == {}
    assert not student.success and "Right." not in page_text(student)
    radio, checks = _box_of(student, q1)
    assert radio.value is None and radio.disabled and checks == []  # nothing to answer any more
    assert f"No answer of yours is in: the answer is {q1.options[q1.answer]}." in page_text(student)
    _click(teacher, "quiz_run_summary")
    ok(student.run())
    assert "**Your score: 0 of 1** (you answered none)" in page_text(student)


def test_a_check_refused_on_the_whole_quiz_counts_in_no_score() -> None:
    c = Class()
    student, _ = c.student()
    q = c.quiz[1]
    cs.store().close_question(c.code, c.key, cq.qid(q))  # while the student's page still shows Check
    _answer(student, q, q.answer)
    radio, checks = _box_of(student, q)
    assert radio.value is None and radio.disabled and checks == []
    assert "Your teacher has closed this question: answers are not taken now. You have no answer in." in (
        page_text(student)
    )
    cs.store().reveal(c.code, c.key, cq.qid(q))
    cs.room_now.clear()
    ok(student.run())
    assert cs.store().tallies(c.code) == {}
    assert not student.success
    assert [str(m.value) for m in student.metric] == [f"0 / {len(c.quiz)}", f"0 / {len(c.quiz)}"]
    assert f"No answer of yours is in: the answer is {q.options[q.answer]}." in page_text(student)


def test_vote_again_starts_the_quiz_question_blank_and_the_score_says_what_it_counts() -> None:
    c = Class()
    student, seat = c.student()
    teacher = c.teacher()
    _click(teacher, "quiz_run_start")
    ok(student.run())
    q1 = c.quiz[0]
    _answer(student, q1, q1.answer)
    cs.store().vote_again(c.code, c.key, cq.qid(q1))
    cs.room_now.clear()
    ok(student.run())
    radio, checks = _box_of(student, q1)
    assert radio.value is None and not radio.disabled and len(checks) == 1  # round 2, answered afresh
    assert "Round 2: Answer, and your teacher reveals the answer to the whole class." in page_text(student)
    assert cs.store().given(c.code, seat) == {}
    _click(teacher, "quiz_run_summary")
    ok(student.run())
    assert (
        "**Your score: 0 of 1** (you have no answer in any question's last round, the one that counts after "
        "*Vote again*)"
    ) in page_text(student)


def test_a_quiz_answer_given_says_it_waits_for_the_reveal_not_that_it_can_change() -> None:
    c = Class()
    _click(c.teacher(), "quiz_run_start")
    student, seat = c.student()
    q1 = c.quiz[0]
    _answer(student, q1, 0)
    again = open_page(QUIZ, **{"class": c.code, "seat": seat})  # a reload: a new session, the same seat
    for at in (student, again):
        radio, checks = _box_of(at, q1)
        assert radio.value == q1.options[0] and radio.disabled and checks == []
        said = page_text(at)
        assert "Your answer is in: your teacher reveals the answer to the whole class." in said
        assert "change it" not in said


def test_a_class_quizs_closing_line_says_what_is_known_and_offers_no_new_numbers() -> None:
    c = Class()
    seat = cs.store().join(c.code)
    for q in c.quiz:  # every answer given earlier (another tab, before a reload)
        cs.store().answer(c.code, seat, cq.qid(q), q.answer, options=len(q.options), right=q.answer)
    student = open_page(QUIZ, **{"class": c.code, "seat": seat})
    n = len(c.quiz)
    said = [str(i.value) for i in student.info]
    assert f"You have answered all {n}: your score grows as your teacher reveals their answers." in said
    assert not any("Try again" in s for s in said)
    cs.store().reveal(c.code, c.key, cq.qid(c.quiz[0]))
    cs.room_now.clear()
    ok(student.run())
    said = [str(i.value) for i in student.info]
    so_far = "Your teacher has revealed 1 of them so far, and you got 1 of those right."
    assert f"You have answered all {n}. {so_far}" in said
    assert [str(m.value) for m in student.metric] == [f"1 / {n}", f"{n} / {n}"]
