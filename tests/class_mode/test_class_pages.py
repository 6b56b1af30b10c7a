"""Class mode in the app (AppTest, the app's own store): links, seats, the teacher key, the boxes.

The store is the test process's SQLite file (``tests/conftest.py``); each test starts its own class.
"""

from __future__ import annotations

import pytest
from apptest_support import HOME, MEAN, ok, open_page, page_text
from streamlit.testing.v1 import AppTest

from layernorm.labs.quiz import BUILDERS
from ui import class_session as cs
from ui import session

QUIZ = "pages/16_quiz.py"
MEAN_OPTIONS = ["Every entry grows by 5", "Nothing: it is unchanged", "It is multiplied by 5"]


def _store() -> cs.Store:
    # The app's store is a st.cache_resource of the test process: the same database the app writes.
    return cs.store()


def _member(at: AppTest) -> cs.Member | None:
    key = session.klass.member.key
    found = at.session_state[key] if key in at.session_state else None
    return found if isinstance(found, cs.Member) else None


def test_a_teacher_link_makes_this_session_the_teacher_and_leaves_the_address() -> None:
    started = _store().start()
    at = open_page(HOME, **{"class": started.code, "teach": started.teacher_key})
    assert _member(at) == cs.Member(started.code, key=started.teacher_key)
    assert at.query_params.get("teach") is None
    assert at.query_params["class"] == started.code
    assert not any("not a setting" in str(i.value) or "teach" in str(i.value) for i in at.info)


@pytest.mark.parametrize("bad", ["wrong-key", ""])
def test_a_teacher_link_with_a_wrong_key_leads_nothing_and_says_so(bad: str) -> None:
    started = _store().start()
    at = open_page(MEAN, **{"class": started.code, "teach": bad})
    assert _member(at) is None
    assert at.query_params.get("teach") is None
    assert f"That teacher link's key is not class {started.code}'s: check the link." in page_text(at)
    assert not any(b.key == "class_reveal_mean_q" for b in at.button)


def test_a_teacher_link_of_an_ended_class_opens_its_results() -> None:
    started = _store().start()
    _store().end(started.code, started.teacher_key)
    at = open_page(HOME, **{"class": started.code, "teach": started.teacher_key})
    assert _member(at) is not None
    text = page_text(at)
    assert f"**Class {started.code}** · ended" in text and "you lead it" not in text
    assert {"class_results", "class_delete", "class_forget"} <= {b.key for b in at.button}
    assert not {"class_lead", "class_end", "class_show"} & {b.key for b in at.button}


def test_a_teacher_link_without_a_class_says_what_is_missing() -> None:
    at = open_page(HOME, teach="some-key")
    assert _member(at) is None
    assert "That teacher link has no class code: open the whole link." in page_text(at)


def test_a_class_ended_in_another_browser_is_said_on_the_teachers_next_run() -> None:
    started = _store().start()
    at = open_page(MEAN, **{"class": started.code, "teach": started.teacher_key})
    assert "you lead it" in page_text(at)
    _store().end(started.code, started.teacher_key)  # the teacher's other browser ends it
    ok(at.run())
    text = page_text(at)
    assert f"**Class {started.code}** · ended" in text and "you lead it" not in text
    assert not any(str(b.key).startswith(("class_close_", "class_again_")) for b in at.button)
    _store().delete(started.code, started.teacher_key)  # and then deletes it
    ok(at.run())
    assert _member(at) is None
    assert "The class has ended (nobody used it for three hours, or it was ended elsewhere)." in page_text(at)


def test_a_join_link_with_a_long_code_fills_the_box_only_as_far_as_typing_could() -> None:
    at = open_page(HOME, **{"class": "A" * 5000})
    box = at.text_input(key="class_join_code")
    assert box.value == "A" * 12
    code = _store().start().code
    spaced = " ".join(code.lower())  # read off a projector, one character at a time
    assert not box.max_chars  # the browser lets all of it in: no limit of its own
    box.set_value(spaced)
    ok(at.button(key="FormSubmitter:class_join-Join the class").click().run())
    member = _member(at)
    assert member is not None and member.code == code


def test_an_address_with_a_seat_that_is_no_seat_says_so_and_loses_it() -> None:
    code = _store().start().code
    at = open_page(HOME, **{"class": code, "seat": "made-up"})
    assert _member(at) is None
    assert f"That address's seat is not in class {code} (any more): join again." in page_text(at)
    assert at.query_params.get("seat") is None
    assert at.text_input(key="class_join_code").value == code


def test_a_returning_student_gets_their_seat_back_and_their_answer() -> None:
    code = _store().start().code
    seat = _store().join(code, "Ada")
    _store().answer(code, seat, "mean_q", 1, options=3)
    at = open_page(MEAN, **{"class": code, "seat": seat})
    assert _member(at) == cs.Member(code, seat=seat)
    assert at.query_params.get("seat") is None  # the seat moved into this browser's cookie
    text = page_text(at)
    assert "Your answer is in" in text
    assert not any(b.key == "mean_q_reveal" for b in at.button)  # the teacher reveals, not the student
    assert "is not a setting" not in text and "seat" not in " ".join(str(i.value) for i in at.info)


def test_a_seat_of_another_class_is_no_seat() -> None:
    code, other = _store().start().code, _store().start().code
    seat = _store().join(other)
    at = open_page(MEAN, **{"class": code, "seat": seat})
    assert _member(at) is None
    assert at.query_params.get("seat") is None
    assert at.text_input(key="class_join_code").value == code  # Home's join form, the code filled in
    assert f"That address's seat is not in class {code} (any more): join again." in page_text(at)


def test_a_student_answer_is_recorded_and_waits_for_the_reveal() -> None:
    started = _store().start()
    seat = _store().join(started.code)
    at = open_page(MEAN, **{"class": started.code, "seat": seat})
    ok(at.radio(key="mean_q_guess").set_value(MEAN_OPTIONS[2]).run())
    assert _store().tallies(started.code) == {"mean_q": {2: 1}}
    assert "Not quite" not in page_text(at)
    _store().reveal(started.code, started.teacher_key, "mean_q")  # by a teacher on another process
    cs.room_now.clear()  # this process reads the room again within a second (cs.room_now)
    ok(at.run())
    assert "Not quite: the answer is Nothing: it is unchanged." in page_text(at)
    assert at.radio(key="mean_q_guess").disabled


def test_exploring_alone_shows_the_reveal_button_and_the_answer_seen_is_final() -> None:
    code = _store().start().code
    seat = _store().join(code)
    at = open_page(MEAN, **{"class": code, "seat": seat})
    ok(at.toggle(key="class_follow").set_value(False).run())
    ok(at.radio(key="mean_q_guess").set_value(MEAN_OPTIONS[0]).run())
    ok(at.button(key="mean_q_reveal").click().run())
    assert "Not quite: the answer is Nothing: it is unchanged." in page_text(at)
    assert at.radio(key="mean_q_guess").disabled
    ok(at.toggle(key="class_follow").set_value(True).run())  # following again: still final
    assert at.radio(key="mean_q_guess").disabled
    again = open_page(MEAN, **{"class": code, "seat": seat})  # the same seat in a second window
    radio = again.radio(key="mean_q_guess")
    assert radio.value == MEAN_OPTIONS[0] and radio.disabled  # final in the class: no change offered
    assert "Your answer is in, and final: you saw the answer when you gave it." in page_text(again)
    assert _store().tallies(code) == {"mean_q": {0: 1}}


def test_the_teacher_sees_counts_and_reveals() -> None:
    started = _store().start()
    for choice in (0, 1, 1):
        _store().answer(started.code, _store().join(started.code), "mean_q", choice, options=3)
    at = open_page(MEAN, **{"class": started.code, "teach": started.teacher_key})
    text = page_text(at)
    assert "3 answers from the class" in text
    assert "2 of 3 right; most common wrong answer: Every entry grows by 5" in text
    bars = [(p.proto.value, p.proto.text) for p in at.get("progress")]
    assert bars == [
        (33, f"{MEAN_OPTIONS[0]} — 1"),
        (66, f"{MEAN_OPTIONS[1]} — 2"),
        (0, f"{MEAN_OPTIONS[2]} — 0"),
    ]
    ok(at.run())  # the same again: the teacher's answer is not given away before the reveal
    assert "✓" not in " ".join(str(p.proto.text) for p in at.get("progress"))
    ok(at.button(key="class_reveal_mean_q").click().run())
    assert _store().room(started.code).revealed == frozenset({"mean_q"})  # type: ignore[union-attr]
    assert "The answer: Nothing: it is unchanged." in page_text(at)


def test_a_class_answers_one_quiz_and_the_score_waits_for_the_reveal() -> None:
    started = _store().start()
    seats = [_store().join(started.code) for _ in range(2)]
    first = open_page(QUIZ, **{"class": started.code, "seat": seats[0]})
    second = open_page(QUIZ, **{"class": started.code, "seat": seats[1]})
    prompts = [str(t.value) for t in first.text]
    assert prompts == [str(t.value) for t in second.text]  # the same numbers and order on every screen
    assert not any(b.key == "quiz_again" for b in first.button)
    radio = next(r for r in first.radio if str(r.key).startswith("quiz_"))
    ok(radio.set_value(radio.options[0]).run())
    check = next(b for b in first.button if str(b.key).startswith("check_"))
    ok(check.click().run())
    question = "quiz_" + str(check.key).removeprefix("check_").rsplit("_", 1)[0]
    assert _store().tallies(started.code) == {question: {0: 1}}
    assert any(str(m.value) == f"0 / {len(BUILDERS)}" for m in first.metric)  # no score before the reveal


def test_home_join_form_joins_with_a_nickname_and_refuses_a_bad_code() -> None:
    code = _store().start().code
    at = open_page(HOME, **{"class": code})
    assert at.text_input(key="class_join_code").value == code
    at.text_input(key="class_join_code").set_value("K7QF")
    ok(at.button(key="FormSubmitter:class_join-Join the class").click().run())
    said = " ".join(str(t.value) for t in at.text)
    assert "A class code has 6 letters and digits, and “K7QF” has 4" in said
    assert _member(at) is None
    at.text_input(key="class_join_code").set_value(code.lower())
    at.text_input(key="class_join_name").set_value("<b>Bo</b>")
    ok(at.button(key="FormSubmitter:class_join-Join the class").click().run())
    member = _member(at)
    assert member is not None and member.code == code and member.seat is not None
    assert _store().nicknames(code) == ["<b>Bo</b>"]
    assert at.query_params.get("seat") is None  # the seat is this browser's cookie, never the address's
    assert at.query_params["class"] == code


def test_the_teachers_roster_shows_nicknames_as_plain_text() -> None:
    started = _store().start()
    _store().join(started.code, "**B** [x](h://e) :red[y]")
    at = open_page(HOME, **{"class": started.code, "teach": started.teacher_key})
    assert [e.label for e in at.expander if e.label.startswith("Students")] == ["Students (1)"]
    at.session_state["class_students"] = True  # the teacher opens the list of students
    ok(at.run())
    assert {str(t.value) for t in at.text} == {"**B** [x](h://e) :red[y]"}  # st.text: never Markdown


def test_the_teacher_sees_the_whole_quiz_in_one_live_table() -> None:
    started = _store().start()
    first = open_page(QUIZ, **{"class": started.code, "seat": _store().join(started.code)})
    radio = next(r for r in first.radio if str(r.key).startswith("quiz_"))
    ok(radio.set_value(radio.options[0]).run())
    ok(next(b for b in first.button if str(b.key).startswith("check_")).click().run())
    teacher = open_page(QUIZ, **{"class": started.code, "teach": started.teacher_key})
    table = teacher.dataframe[0].value
    assert list(table.columns) == ["question", "answers", "right", "most common wrong answer"]
    assert len(table) == len(BUILDERS) and table["answers"].sum() == 1
    assert not any(str(b.key).startswith("check_") for b in teacher.button)  # the teacher answers nothing
    assert len(teacher.get("progress")) == 1  # the score's: the boxes do not poll (stale counts)
    assert sum("live: the table above" in str(c.value) for c in teacher.caption) == len(BUILDERS)
    assert sum(str(b.key).startswith("class_reveal_quiz_") for b in teacher.button) == len(BUILDERS)


def test_ending_the_class_takes_a_second_click_and_keeps_its_answers() -> None:
    started = _store().start()
    at = open_page(MEAN, **{"class": started.code, "teach": started.teacher_key})
    ok(at.button(key="class_end").click().run())
    room = _store().room(started.code)
    assert room is not None and room.closed
    assert _member(at) is not None  # the teacher keeps the class's results
    told = [str(t.value) for t in at.text]  # the class panel's notice is plain text
    assert "The class has ended: it takes no more answers. Its results stay in this panel." in told
    assert f"**Class {started.code}** · ended" in page_text(at)
    ok(at.button(key="class_forget").click().run())
    assert _member(at) is None


@pytest.mark.parametrize(
    ("address", "here"),
    [
        ("http://localhost:8501/", True),
        ("http://127.0.0.1:9/x", True),
        ("http://[::1]:8501/", True),
        ("http://192.168.1.20:8501/", False),
        ("https://lab.school.example/", False),
    ],
)
def test_a_join_link_on_a_loopback_address_is_told_apart(address: str, here: bool) -> None:
    assert cs.only_here(address) is here


def test_a_refused_click_is_not_judged_the_box_judges_what_the_class_holds() -> None:
    started = _store().start()
    seat = _store().join(started.code)
    at = open_page(MEAN, **{"class": started.code, "seat": seat})
    ok(at.radio(key="mean_q_guess").set_value(MEAN_OPTIONS[0]).run())  # wrong, and recorded
    _store().close_question(started.code, started.teacher_key, "mean_q")  # before this page heard of it
    ok(at.radio(key="mean_q_guess").set_value(MEAN_OPTIONS[1]).run())  # the right one: refused
    refusal = "Your teacher has closed this question: answers are not taken now."
    radio = at.radio(key="mean_q_guess")
    assert radio.value == MEAN_OPTIONS[0] and radio.disabled  # what the class holds, while closed
    assert f"{refusal} Your answer is in." in page_text(at)
    _store().open_question(started.code, started.teacher_key, "mean_q")
    cs.room_now.clear()
    ok(at.run())
    assert refusal not in " ".join(str(t.value) for t in at.text)  # reopened: the refusal is old news
    assert not at.radio(key="mean_q_guess").disabled
    _store().reveal(started.code, started.teacher_key, "mean_q")
    cs.room_now.clear()
    ok(at.run())
    assert _store().tallies(started.code) == {"mean_q": {0: 1}}
    assert "Not quite: the answer is Nothing: it is unchanged." in page_text(at)
    assert not at.success and refusal not in page_text(at) + " ".join(str(t.value) for t in at.text)


def test_two_tabs_of_one_seat_each_show_and_judge_the_answer_given_last() -> None:
    started = _store().start()
    seat = _store().join(started.code)
    one = open_page(MEAN, **{"class": started.code, "seat": seat})
    other = open_page(MEAN, **{"class": started.code, "seat": seat})  # a second tab: the same seat
    ok(one.radio(key="mean_q_guess").set_value(MEAN_OPTIONS[1]).run())
    ok(other.radio(key="mean_q_guess").set_value(MEAN_OPTIONS[2]).run())  # changed in the other tab
    _store().reveal(started.code, started.teacher_key, "mean_q")
    cs.room_now.clear()
    for at in (ok(one.run()), ok(other.run())):
        assert at.radio(key="mean_q_guess").value == MEAN_OPTIONS[2]
        assert "Not quite: the answer is Nothing: it is unchanged." in page_text(at)
        assert not at.success


def test_a_reveal_without_an_answer_of_the_student_says_so() -> None:
    started = _store().start()
    at = open_page(MEAN, **{"class": started.code, "seat": _store().join(started.code)})
    _store().reveal(started.code, started.teacher_key, "mean_q")
    cs.room_now.clear()
    ok(at.run())
    radio = at.radio(key="mean_q_guess")
    assert radio.value is None and radio.disabled
    assert "No answer of yours is in: the answer is Nothing: it is unchanged." in page_text(at)
