"""The teacher's screen of class mode (AppTest, the app's own SQLite store): a question's controls and
rounds, teacher-paced mode, the students' list, the results and their CSV, keeping and deleting.

Each test starts its own class; the store is the test process's (``tests/conftest.py``).
"""

from __future__ import annotations

import csv
import io
import re
from datetime import UTC, datetime
from typing import Any

import pandas as pd
from apptest_support import MEAN, VAR, every_message, ok, open_page, page_text
from streamlit.testing.v1 import AppTest

from classroom.model import CLOSED, OPEN, REVEALED, Started
from classroom.store import Store
from ui import class_results, session
from ui import class_session as cs

MEAN_OPTIONS = ["Every entry grows by 5", "Nothing: it is unchanged", "It is multiplied by 5"]
MEAN_PROMPT = "Every feature of a token gets +5 added. What happens to x − μ?"
TEACHER_WIDGETS = (  # every widget key of the teacher's screen begins with one of these
    "class_close_", "class_open_", "class_reveal_", "class_again_", "class_rename_", "class_hide_",
    "class_remove_", "class_ask_remove_", "class_keep_", "class_show", "class_lead", "class_results",
    "class_delete", "class_end", "class_paced", "class_name_", "class_students",
)  # fmt: skip


def _store() -> Store:
    return cs.store()


def _teacher(started: Started, page: str = MEAN) -> AppTest:
    return open_page(page, **{"class": started.code, "teach": started.teacher_key})


def _student(code: str, seat: str) -> AppTest:
    return open_page(MEAN, **{"class": code, "seat": seat})


def _texts(at: AppTest) -> list[str]:
    return [str(t.value) for t in at.text]


def _listed(at: AppTest) -> list[str]:
    """The plain texts of the students' list itself, not of the popovers on each line."""
    out: list[str] = []

    def walk(node: Any) -> None:
        if getattr(node, "type", "") == "popover":
            return
        if getattr(node, "type", "") == "text":
            out.append(str(node.value))
        for child in getattr(node, "children", {}).values():
            walk(child)

    for expander in at.expander:
        if expander.label.startswith("Students"):
            walk(expander)
    return out


def _captions(at: AppTest) -> list[str]:
    return [str(c.value) for c in at.caption]


def _keys(at: AppTest) -> set[str]:
    widgets = [*at.button, *at.toggle, *at.number_input, *at.text_input, *at.expander]
    return {str(w.key) for w in widgets if getattr(w, "key", None)}


def _open_students(at: AppTest) -> AppTest:
    at.session_state["class_students"] = True  # the teacher opens the list
    return ok(at.run())


# --- a question's controls ------------------------------------------------------------------------


def test_the_teachers_screen_describes_a_question_before_anyone_answers() -> None:
    started = _store().start()
    at = _teacher(started)
    found = _store().question(started.code, "mean_q")
    assert found is not None
    assert (found.prompt, found.labels, found.right, found.state, found.round) == (
        MEAN_PROMPT,
        tuple(MEAN_OPTIONS),
        1,
        OPEN,
        1,
    )
    assert "**Open** · round 1: students can answer" in _captions(at)
    assert {"class_close_mean_q", "class_reveal_mean_q"} <= _keys(at)
    assert "class_again_mean_q" not in _keys(at)  # no answer in this round: nothing to vote on again


def test_a_closed_question_refuses_answers_until_it_is_reopened() -> None:
    started = _store().start()
    seat = _store().join(started.code)
    teacher = _teacher(started)
    ok(teacher.button(key="class_close_mean_q").click().run())
    found = _store().question(started.code, "mean_q")
    assert found is not None and (found.state, found.round) == (CLOSED, 1)
    assert "**Closed**: no answers taken, the answer not shown" in _captions(teacher)
    keys = _keys(teacher)
    assert {"class_open_mean_q", "class_reveal_mean_q"} <= keys and "class_close_mean_q" not in keys

    student = _student(started.code, seat)
    assert student.radio(key="mean_q_guess").disabled  # a click on a closed question: none to make
    assert _store().tallies(started.code) == {}  # (a stale tab's click is refused: test_class_pages)

    ok(teacher.button(key="class_open_mean_q").click().run())
    assert "**Open** · round 1: students can answer" in _captions(teacher)
    ok(student.run())  # the student's panel sees the question open again
    assert not student.radio(key="mean_q_guess").disabled
    ok(student.radio(key="mean_q_guess").set_value(MEAN_OPTIONS[2]).run())
    assert _store().tallies(started.code) == {"mean_q": {2: 1}}


def test_vote_again_starts_round_2_and_shows_round_1_beside_it() -> None:
    started = _store().start()
    seats = [_store().join(started.code) for _ in range(3)]
    for seat, choice in zip(seats, (0, 1, 1), strict=True):
        _store().answer(started.code, seat, "mean_q", choice, options=3)
    at = _teacher(started)
    assert (
        "2 of 3 right; most common wrong answer: Every entry grows by 5 (only you see this until you reveal)."
        in (_captions(at))
    )
    ok(at.button(key="class_again_mean_q").click().run())
    found = _store().question(started.code, "mean_q")
    assert found is not None and (found.state, found.round) == (OPEN, 2)
    assert found.rounds == {1: {0: 1, 1: 2}}  # round 1 kept
    captions = _captions(at)
    assert "**Open** · round 2: students can answer" in captions
    assert "0 answers from the class in round 2" in captions
    assert (
        "Right: 2 of 3 in round 1 → no answers in round 2 (only you see this until you reveal)." in captions
    )
    pd.testing.assert_frame_equal(
        at.table[0].value.reset_index(drop=True),
        pd.DataFrame({"round 1": [1, 2, 0], "round 2": [0, 0, 0]}),
    )

    _store().answer(started.code, seats[0], "mean_q", 1, options=3)  # after talking it over
    ok(at.run())
    pd.testing.assert_frame_equal(
        at.table[0].value.reset_index(drop=True),
        pd.DataFrame({"round 1": [1, 2, 0], "round 2": [0, 1, 0]}),
    )
    assert "Right: 2 of 3 in round 1 → 1 of 1 in round 2 (only you see this until you reveal)." in _captions(
        at
    )
    assert [p.proto.text for p in at.get("progress")] == [f"{MEAN_OPTIONS[0]} — 0", f"{MEAN_OPTIONS[1]} — 1",
                                                          f"{MEAN_OPTIONS[2]} — 0"]  # fmt: skip

    ok(at.button(key="class_reveal_mean_q").click().run())
    assert _store().question(started.code, "mean_q").state == REVEALED  # type: ignore[union-attr]
    assert "Right: 2 of 3 in round 1 → 1 of 1 in round 2" in _captions(at)
    assert not {"class_close_mean_q", "class_again_mean_q", "class_reveal_mean_q"} & _keys(at)


# --- teacher-paced --------------------------------------------------------------------------------


def test_teacher_paced_leads_the_class_on_each_full_run_of_another_page() -> None:
    started = _store().start()
    at = _teacher(started)
    assert at.toggle(key="class_paced").value is False
    ok(at.toggle(key="class_paced").set_value(True).run())
    room = _store().room(started.code)
    assert room is not None and room.paced
    assert (room.lead_page, room.lead_query, room.lead_version) == ("/mean", "", 1)  # here, at once
    assert any(c.startswith("On: students cannot wander") for c in _captions(at))

    ok(at.switch_page(VAR).run())
    room = _store().room(started.code)
    assert room is not None and (room.lead_page, room.lead_version) == ("/variance", 2)
    ok(at.run())  # nothing moved: no new lead
    assert _store().room(started.code).lead_version == 2  # type: ignore[union-attr]

    _store().set_paced(started.code, started.teacher_key, False)  # from the teacher's other tab
    ok(at.run())
    assert at.toggle(key="class_paced").value is False  # the store is the truth
    ok(at.switch_page(MEAN).run())
    room = _store().room(started.code)
    assert room is not None and not room.paced and (room.lead_page, room.lead_version) == ("/variance", 2)


# --- the students ---------------------------------------------------------------------------------


def test_the_students_list_shows_nicknames_as_typed_and_never_a_seat() -> None:
    started = _store().start()
    names = ["<img src=x onerror=alert", "**B** [x](h://e) :red[y]", None]
    seats = [_store().join(started.code, name) for name in names]
    _store().answer(started.code, seats[0], "mean_q", 0, options=3)
    at = _teacher(started)
    assert [e.label for e in at.expander if e.label.startswith("Students")] == ["Students (3)"]
    assert not any(str(k).startswith("class_rename_") for k in _keys(at))  # closed: not drawn
    _open_students(at)
    assert _listed(at) == ["<img src=x onerror=alert", "**B** [x](h://e) :red[y]", "(no nickname)"]
    assert [c for c in _captions(at) if re.fullmatch(r"\d+ answers?", c)] == [
        "1 answer",
        "0 answers",
        "0 answers",
    ]
    assert {f"class_{w}_{i}" for w in ("rename", "hide", "ask_remove", "name") for i in range(3)} <= _keys(at)
    page = every_message(at)
    assert not any(seat in page for seat in seats)


def test_the_teacher_renames_hides_and_removes_a_student() -> None:
    started = _store().start()
    seats = [_store().join(started.code, name) for name in ("Ada", "Bo", "Cy")]
    _store().answer(started.code, seats[2], "mean_q", 0, options=3)
    at = _open_students(_teacher(started))

    ok(at.text_input(key="class_name_1").set_value("Bea").run())
    ok(at.button(key="class_rename_1").click().run())
    assert [s.nickname for s in _store().roster(started.code, started.teacher_key)] == ["Ada", "Bea", "Cy"]
    assert _listed(at) == ["Ada", "Bea", "Cy"]
    assert at.text_input(key="class_name_1").value == ""

    ok(at.text_input(key="class_name_0").set_value("A\x07b").run())
    ok(at.button(key="class_rename_0").click().run())
    said = (
        "A nickname is plain text: it cannot hold U+0007 (a control character), an invisible control or "
        "format character."
    )
    assert _listed(at) == ["Ada", said, "Bea", "Cy"]  # in place, under Ada
    assert _store().roster(started.code, started.teacher_key)[0].nickname == "Ada"

    ok(at.button(key="class_hide_0").click().run())
    assert _store().roster(started.code, started.teacher_key)[0].hidden
    assert _store().nicknames(started.code) == ["Bea", "Cy"]
    assert "Hidden from the class · 0 answers" in _captions(at)
    assert at.button(key="class_hide_0").label == "Show the name"
    ok(at.button(key="class_hide_0").click().run())
    assert _store().nicknames(started.code) == ["Ada", "Bea", "Cy"]

    ok(at.button(key="class_ask_remove_2").click().run())
    assert "class_remove_2" in _keys(at) and len(_store().roster(started.code, started.teacher_key)) == 3
    ok(at.button(key="class_keep_2").click().run())  # Cancel
    assert "class_remove_2" not in _keys(at)
    ok(at.button(key="class_ask_remove_2").click().run())
    ok(at.button(key="class_remove_2").click().run())
    assert [s.nickname for s in _store().roster(started.code, started.teacher_key)] == ["Ada", "Bea"]
    assert _store().seat_state(started.code, seats[2]) == "removed"
    assert _store().tallies(started.code) == {}  # Cy's answer went with Cy
    assert [e.label for e in at.expander if e.label.startswith("Students")] == ["Students (2)"]
    assert _listed(at) == ["Ada", "Bea"]


# --- results and their CSV ------------------------------------------------------------------------


def _parse(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def test_the_results_and_the_csv_hold_every_answer_of_every_round() -> None:
    started = _store().start()
    code, key = started.code, started.teacher_key
    ada, nobody, eq = (_store().join(code, name) for name in ("Ada", None, "=1+1"))
    _store().answer(code, ada, "q_other", 1, options=2)  # a question the teacher's screen never described
    at = _teacher(started)  # describes mean_q
    for seat, choice in ((ada, 1), (nobody, 0), (eq, 1)):
        _store().answer(code, seat, "mean_q", choice, options=3, right=1, prompt=MEAN_PROMPT)
    ok(at.run())  # the box's next tick
    ok(at.button(key="class_again_mean_q").click().run())
    _store().answer(code, nobody, "mean_q", 1, options=3, right=1, prompt=MEAN_PROMPT)

    rows = _store().answer_rows(code, key)
    results = _store().results(code, key)
    parsed = _parse(class_results.results_csv(rows, results))
    times = [r.pop("time") for r in parsed]
    assert parsed == [
        {"nickname": "Ada", "question": "q_other", "prompt": "", "round": "1", "answer": "1", "right": ""},
        {"nickname": "Ada", "question": "mean_q", "prompt": MEAN_PROMPT, "round": "1",
         "answer": MEAN_OPTIONS[1], "right": "yes"},
        {"nickname": "(no nickname)", "question": "mean_q", "prompt": MEAN_PROMPT, "round": "1",
         "answer": MEAN_OPTIONS[0], "right": "no"},
        {"nickname": "'=1+1", "question": "mean_q", "prompt": MEAN_PROMPT, "round": "1",
         "answer": MEAN_OPTIONS[1], "right": "yes"},
        {"nickname": "(no nickname)", "question": "mean_q", "prompt": MEAN_PROMPT, "round": "2",
         "answer": MEAN_OPTIONS[1], "right": "yes"},
    ]  # fmt: skip
    assert [(r.nickname.removeprefix("'"), r.question, r.round) for r in rows] == [
        ("Ada", "q_other", 1), ("Ada", "mean_q", 1), ("(no nickname)", "mean_q", 1), ("=1+1", "mean_q", 1),
        ("(no nickname)", "mean_q", 2),
    ]  # fmt: skip
    for shown, row in zip(times, rows, strict=True):
        assert shown.endswith("Z") and len(shown) == len("2026-12-06T09:30:05Z")
        assert datetime.fromisoformat(shown) == datetime.fromtimestamp(int(row.at), UTC)

    ok(at.button(key="class_results").click().run())
    table = at.dataframe[0].value
    assert table.to_dict("records") == [
        {"question": "q_other", "round": 1, "answered": 1, "right": None},
        {"question": MEAN_PROMPT, "round": 1, "answered": 3, "right": 2},
        {"question": MEAN_PROMPT, "round": 2, "answered": 1, "right": 1},
    ]
    assert [getattr(b, "label", None) for b in at.get("download_button") if b.key == "class_csv"] == [
        "Download the answers (CSV)"
    ]
    assert f"Class {code}: 5 answers to 2 questions." in " ".join(_captions(at))


def test_an_iso_time_is_utc_to_the_second() -> None:
    assert class_results.iso_utc(0.0) == "1970-01-01T00:00:00Z"
    assert class_results.iso_utc(1_000_000.75) == "1970-01-12T13:46:40Z"


# --- keeping, ending, deleting --------------------------------------------------------------------


def test_the_teacher_sets_how_long_answers_are_kept() -> None:
    started = _store().start()
    at = _teacher(started)
    assert "Answers are kept after the class for 30 days, then deleted." in _captions(at)
    ok(at.number_input(key="class_keep_days").set_value(1).run())
    assert _store().deleted_after(started.code) == (None, 1)
    captions = _captions(at)
    assert "Answers are kept after the class for 1 day, then deleted." in captions
    assert (
        "The class takes no more answers or students, and every student leaves it. Its answers are kept for "
        "1 day, then deleted: this panel and your teacher link keep its *Results*."
    ) in captions
    _store().keep_for(started.code, started.teacher_key, 90)  # from the teacher's other tab
    ok(at.run())
    assert at.number_input(key="class_keep_days").value == 90


def test_deleting_the_class_takes_a_second_click_and_deletes_everything() -> None:
    started = _store().start()
    seat = _store().join(started.code, "Ada")
    _store().answer(started.code, seat, "mean_q", 0, options=3)
    at = _teacher(started)
    ok(at.button(key="class_delete").click().run())
    assert _store().room(started.code) is None
    assert _store().deleted_after(started.code) is None
    assert (
        session.klass.member.key not in at.session_state or at.session_state[session.klass.member.key] is None
    )
    assert f"Class {started.code} is deleted, with every answer." in page_text(at)
    assert not {"class_end", "class_delete", "class_results"} & _keys(at)


def test_a_student_is_drawn_no_teacher_action() -> None:
    started = _store().start()
    seat = _store().join(started.code, "Ada")
    _store().answer(started.code, seat, "mean_q", 0, options=3)
    at = _student(started.code, seat)
    assert not {k for k in _keys(at) if k.startswith(TEACHER_WIDGETS)}
    assert not [e.label for e in at.expander if e.label.startswith("Students")]


def test_the_panel_opens_the_projector_view_of_this_class_only() -> None:
    started = _store().start()
    at = _teacher(started)
    links = [el.proto for el in at.get("link_button")]
    projector = [b for b in links if b.label == "Open the projector view"]
    assert len(projector) == 1
    assert projector[0].url.endswith(f"/projector?class={started.code}")
    assert started.teacher_key not in projector[0].url  # safe to project: no key in it


def test_after_vote_again_a_students_box_asks_afresh_and_records_round_2() -> None:
    started = _store().start()
    seat = _store().join(started.code, "Ada")
    student = _student(started.code, seat)
    ok(student.radio(key="mean_q_guess").set_value(MEAN_OPTIONS[1]).run())
    assert _store().vote_again(started.code, started.teacher_key, "mean_q") == 2
    cs.room_now.clear()  # as the teacher's button does (cs.room_changed)
    ok(student.run())  # the beacon's run: the question of this page is in a new round
    fresh = student.radio(key="mean_q_r2_guess")
    assert fresh.value is None  # round 1's choice is not shown as if given again
    ok(fresh.set_value(MEAN_OPTIONS[1]).run())  # the same option again is a round-2 answer
    assert _store().rounds(started.code, "mean_q") == {1: {1: 1}, 2: {1: 1}}
