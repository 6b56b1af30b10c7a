"""Seats, joining and the teacher's lead: one student is one seat whatever the clicks, a student who
leaves no longer counts, a browser's seat (or the teacher's key) holds on any page of the lab, and a
lead always moves the class, saying what of the view could not go with it.

AppTest cannot set a browser's cookies: a test that opens a page as a browser holding one replaces
``ui.class_session._cookie`` (what the browser sent when it connected), as
``tests/class_mode/test_class_student.py`` does.
"""

from __future__ import annotations

import json
import threading
import urllib.parse
from typing import Any

import pytest
import sqlalchemy as sa
from apptest_support import HOME, MEAN, STD, VAR, ok, open_page
from streamlit.testing.v1 import AppTest

from classroom.model import LEAD_QUERY_MAX, NICKNAME_MAX, ClassError
from classroom.schema import SCHEMA_VERSION
from classroom.store import Store, open_engine
from ui import class_session as cs
from ui import session

from .conftest import Clock

JOIN = "FormSubmitter:class_join-Join the class"
MEAN_OPTIONS = ["Every entry grows by 5", "Nothing: it is unchanged", "It is multiplied by 5"]


def _member(at: AppTest) -> cs.Member | None:
    key = session.klass.member.key
    found = at.session_state[key] if key in at.session_state else None
    return found if isinstance(found, cs.Member) else None


def _as_browser_with(monkeypatch: pytest.MonkeyPatch, **cookies: str) -> None:
    """The next sessions' browser sent these cookies when it connected."""
    monkeypatch.setattr(cs, "_cookie", lambda name: cookies.get(name, ""))


def _cookies(at: AppTest, name: str) -> list[str]:
    """What the last run wrote into the browser's cookie ``name`` ("" takes it away)."""
    kept = [
        json.loads(e.proto.json)
        for e in at.get("bidi_component")
        if e.proto.component_name == "lab_keep_cookie"
    ]
    return [d["value"] for d in kept if d["name"] == name]


def _students(code: str) -> int:
    cs.room_now.clear()
    room = cs.store().room(code)
    assert room is not None
    return room.students


def _infos(at: AppTest) -> list[str]:
    return [str(i.value) for i in at.sidebar.info]


def _in_order(node: Any) -> list[tuple[str, str]]:
    """Every element under ``node`` in page order: (type, its text or label)."""
    out: list[tuple[str, str]] = []
    for child in getattr(node, "children", {}).values():
        kind = getattr(child, "type", "")
        text = getattr(child, "label", None) or getattr(child, "value", None)
        if kind in ("markdown", "alert", "warning", "expander", "button", "toggle", "caption", "text"):
            out.append((kind, str(text)))
        out += _in_order(child)
    return out


# --- one seat per student ---------------------------------------------------------------------------


def test_joining_again_with_the_seat_held_gives_it_back(store: Store) -> None:
    started = store.start()
    code = started.code
    seat = store.join(code, "Ada")
    assert store.join(code, None, kept=seat) == seat  # a second click on Join
    assert store.join(code, "Bea", kept=seat) == seat
    assert [s.nickname for s in store.roster(code, started.teacher_key)] == ["Bea"]
    assert store.room(code).students == 1  # type: ignore[union-attr]
    other = store.start().code
    assert store.join(other, None, kept=seat) != seat  # another class's seat is no seat here
    assert store.room(other).students == 1  # type: ignore[union-attr]


def test_two_joins_of_one_browser_that_overlap_make_one_seat(store: Store) -> None:
    """A double click on Join: each click's run is a thread of its own, both before either has a seat."""
    code = store.start().code
    fresh = "drawn-for-this-join"
    start = threading.Barrier(2)
    got: list[str] = []

    def click() -> None:
        start.wait()
        got.append(store.join(code, "Dee", None, fresh))

    clicks = [threading.Thread(target=click) for _ in range(2)]
    for t in clicks:
        t.start()
    for t in clicks:
        t.join()
    assert got == [fresh, fresh]
    assert store.room(code).students == 1  # type: ignore[union-attr]


def test_a_removed_seat_is_never_given_back(store: Store) -> None:
    started = store.start()
    seat = store.join(started.code, "Ada")
    store.remove(started.code, started.teacher_key, seat)
    again = store.join(started.code, "Ada", kept=seat)
    assert again != seat and store.seat_state(started.code, seat) == "removed"
    assert store.room(started.code).students == 1  # type: ignore[union-attr]


def test_a_student_who_left_counts_no_more_live_and_stays_in_the_results(store: Store) -> None:
    started = store.start()
    code, key = started.code, started.teacher_key
    ada, bo = store.join(code, "Ada"), store.join(code, "Bo")
    store.answer(code, ada, "mean_q", 1, options=3, right=1)
    store.answer(code, bo, "mean_q", 0, options=3, right=1)
    store.leave(code, bo)
    assert store.seat_state(code, bo) == "left"
    assert store.room(code).students == 1  # type: ignore[union-attr]
    assert store.tallies(code) == {"mean_q": {1: 1}}
    assert store.question(code, "mean_q").rounds == {1: {1: 1}}  # type: ignore[union-attr]
    assert store.scores(code, {"mean_q": 1}) == {ada: 1}
    assert [s.nickname for s in store.roster(code, key)] == ["Ada"]
    assert [(r.round, r.answered, r.right) for r in _results(store, code, key)] == [(1, 2, 1)]
    assert sorted(r.nickname for r in store.answer_rows(code, key)) == ["Ada", "Bo"]
    with pytest.raises(ClassError, match="You left this class"):
        store.answer(code, bo, "mean_q", 1, options=3)
    assert store.join(code, None, kept=bo) == bo  # the same browser joins again: the seat is back
    assert store.room(code).students == 2  # type: ignore[union-attr]
    assert store.tallies(code) == {"mean_q": {1: 1, 0: 1}}


class _Row:
    def __init__(self, round_: int, answered: int, right: int | None) -> None:
        self.round, self.answered, self.right = round_, answered, right


def _results(store: Store, code: str, key: str) -> list[_Row]:
    out = []
    for q in store.results(code, key):
        for n, counts in sorted(q.rounds.items()):
            out.append(_Row(n, sum(counts.values()), counts.get(q.right) if q.right is not None else None))
    return out


def test_a_double_click_on_join_makes_one_seat() -> None:
    """Two clicks on Join reach the server one after the other: the second finds the seat the first made."""
    code = cs.store().start().code

    def join_twice(code: str) -> None:
        import streamlit as st

        from ui import class_session as cs

        st.text(repr([cs.join(code, "Dee"), cs.join(code, "Dee")]))

    at = AppTest.from_function(join_twice, args=(code,), default_timeout=60).run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.text[0].value == "[None, None]"
    assert _students(code) == 1


def test_leaving_then_joining_again_counts_one_student() -> None:
    code = cs.store().start().code
    at = open_page(HOME, **{"class": code})
    at.text_input(key="class_join_name").set_value("Lea")
    ok(at.button(key=JOIN).click().run())
    first = _member(at)
    assert first is not None and first.seat is not None
    cs.store().answer(code, first.seat, "mean_q", 1, options=3)
    ok(at.button(key="class_leave").click().run())
    assert _member(at) is None and _students(code) == 0
    assert cs.store().seat_state(code, first.seat) == "left"
    at = open_page(HOME, **{"class": code})  # the join link again
    ok(at.button(key=JOIN).click().run())
    assert _member(at) is not None and _students(code) == 1
    assert cs.store().tallies(code) == {}  # the left seat's answer is no longer counted live ...
    assert cs.store().rounds(code, "mean_q") == {1: {1: 1}}  # ... and is kept for the results


def test_joining_another_class_leaves_the_one_this_browser_was_in(monkeypatch: pytest.MonkeyPatch) -> None:
    first, second = cs.store().start().code, cs.store().start().code
    seat = cs.store().join(first, "Ada")
    _as_browser_with(monkeypatch, lab_seat=f"{first}:{seat}")
    at = open_page(HOME, **{"class": second})
    ok(at.button(key=JOIN).click().run())
    m = _member(at)
    assert m is not None and m.code == second
    assert _cookies(at, "lab_seat") == [f"{second}:{m.seat}"]
    assert (_students(first), _students(second)) == (0, 1)


# --- the join form --------------------------------------------------------------------------------


FAMILY = "👩‍👩‍👧‍👦🏳️‍🌈🏴󠁧󠁢󠁳󠁣󠁴󠁿"  # 18 characters as the class counts them, 31 UTF-16 units as a browser does


def test_the_join_form_takes_what_the_class_takes_and_says_what_it_refuses() -> None:
    assert len(FAMILY) <= NICKNAME_MAX < len(FAMILY.encode("utf-16-le")) // 2
    started = cs.store().start()
    code = started.code
    at = open_page(HOME, **{"class": code})
    field = at.text_input(key="class_join_name")
    assert not field.proto.max_chars  # a browser's limit counts UTF-16 units and drops a paste silently
    assert not at.text_input(key="class_join_code").proto.max_chars
    assert str(NICKNAME_MAX) in field.proto.placeholder
    long = "A" * (NICKNAME_MAX + 1)
    field.set_value(long)  # a form's fields go with its submit
    ok(at.button(key=JOIN).click().run())
    assert _member(at) is None
    assert f"A nickname has at most {NICKNAME_MAX} characters (this one has {NICKNAME_MAX + 1})." in [
        str(t.value) for t in at.text
    ]
    assert at.text_input(key="class_join_name").value == long  # nothing typed is lost
    at.text_input(key="class_join_name").set_value(FAMILY)
    ok(at.button(key=JOIN).click().run())
    m = _member(at)
    assert m is not None and m.seat is not None
    assert [s.nickname for s in cs.store().roster(code, started.teacher_key)] == [FAMILY]


def test_an_over_long_emoji_nickname_is_said_with_why_it_counts_as_more() -> None:
    name = FAMILY + FAMILY
    with pytest.raises(ClassError) as said:
        cs.store().join(cs.store().start().code, name)
    assert str(said.value) == (
        f"A nickname has at most {NICKNAME_MAX} characters (this one has {len(name)}; an emoji or an accent "
        "can count as several)."
    )


def test_the_teachers_rename_field_has_no_browser_limit() -> None:
    started = cs.store().start()
    cs.store().join(started.code, "Ada")
    at = open_page(MEAN, **{"class": started.code, "teach": started.teacher_key})
    at.session_state["class_students"] = True
    ok(at.run())
    assert not at.text_input(key="class_name_0").proto.max_chars


@pytest.mark.parametrize(
    ("typed", "said"),
    [
        ("I0O1AB", "A class code never has I, O, 0 or 1 (they are easily mixed up), and “I0O1AB” has "
                   "I, 0, O and 1"),
        ("K7QF2", "A class code has 6 letters and digits, and “K7QF2” has 5 (spaces and hyphens not "
                  "counted)"),
        ("K7Q#2M", "A class code has only the letters A to Z (no I or O) and the digits 2 to 9, and "
                   "“K7Q#2M” has “#”"),
        ("", "Type the class code your teacher shows: 6 letters and digits, such as K7QF2M."),
    ],
)  # fmt: skip
def test_a_code_that_is_none_is_told_what_is_wrong_with_it(typed: str, said: str) -> None:
    at = open_page(HOME)
    at.text_input(key="class_join_code").set_value(typed)
    ok(at.button(key=JOIN).click().run())
    texts = [str(t.value) for t in at.text]
    assert any(t.startswith(said) for t in texts), texts
    assert at.text_input(key="class_join_code").value == typed


def test_a_teacher_link_of_a_deleted_class_says_it_was_deleted() -> None:
    started = cs.store().start()
    cs.store().delete(started.code, started.teacher_key)
    at = open_page(MEAN, **{"class": started.code, "teach": started.teacher_key})
    assert _member(at) is None
    assert any(f"class {started.code} was deleted" in t for t in _infos(at)), _infos(at)
    assert not any("has ended" in t for t in _infos(at))


# --- the seat and the teacher's key belong to the browser -----------------------------------------


def test_a_paced_students_browser_on_an_address_without_the_class_is_brought_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    started = cs.store().start()
    seat = cs.store().join(started.code, "Ada")
    cs.store().set_paced(started.code, started.teacher_key, True)
    cs.store().lead(started.code, started.teacher_key, "/mean", "mean_shift=2")
    _as_browser_with(monkeypatch, lab_seat=f"{started.code}:{seat}")
    at = open_page(VAR)  # /variance typed into the address bar
    assert _member(at) == cs.Member(started.code, seat=seat)
    assert at.radio(key="mean_q_guess")  # on the teacher's page, with the teacher's view
    assert at.query_params["class"] == started.code and at.query_params["mean_shift"] == "2"


def test_a_second_tab_without_the_class_is_in_the_class_and_has_no_reveal_of_its_own(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    started = cs.store().start()
    seat = cs.store().join(started.code, "Ada")
    _as_browser_with(monkeypatch, lab_seat=f"{started.code}:{seat}")
    at = open_page(MEAN)
    assert _member(at) == cs.Member(started.code, seat=seat)
    assert at.query_params["class"] == started.code
    assert "mean_q_reveal" not in {b.key for b in at.button}
    ok(at.radio(key="mean_q_guess").set_value(MEAN_OPTIONS[1]).run())
    assert cs.store().tallies(started.code) == {"mean_q": {1: 1}}  # answered as the class's student


def test_the_teachers_browser_on_a_pasted_lesson_link_keeps_its_class(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    started = cs.store().start()
    cs.store().set_paced(started.code, started.teacher_key, True)
    _as_browser_with(monkeypatch, lab_teacher=f"{started.code}:{started.teacher_key}")
    at = open_page("pages/8_depth_and_drift.py", depth_layers="100")
    assert _member(at) == cs.Member(started.code, key=started.teacher_key)
    assert at.query_params["class"] == started.code
    assert any(str(m.value).startswith(f"**Class {started.code}**") for m in at.sidebar.markdown)
    room = cs.store().room(started.code)
    assert room is not None and (room.lead_page, room.lead_query) == ("/depth_and_drift", "depth_layers=100")


@pytest.mark.parametrize("how", ["ended", "deleted"])
def test_a_seat_cookie_of_a_class_that_ended_or_was_deleted_goes_with_a_word_once(
    how: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    started = cs.store().start()
    seat = cs.store().join(started.code, "Ada")
    getattr(cs.store(), "end" if how == "ended" else "delete")(started.code, started.teacher_key)
    _as_browser_with(monkeypatch, lab_seat=f"{started.code}:{seat}")
    at = open_page(MEAN)
    assert _member(at) is None and at.query_params.get("class") is None
    said = (
        f"Class {started.code} has ended: it takes no more answers."
        if how == "ended"
        else f"Class {started.code}, which this browser was in, is deleted, with its answers."
    )
    assert _infos(at) == [said]
    assert _cookies(at, "lab_seat") == [""]
    ok(at.switch_page(VAR).run())
    assert _infos(at) == []  # once
    assert "var_q_reveal" in {b.key for b in at.button}  # the page as outside a class


def test_a_teacher_cookie_of_an_ended_class_opens_no_class_on_a_plain_address(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    started = cs.store().start()
    cs.store().end(started.code, started.teacher_key)
    _as_browser_with(monkeypatch, lab_teacher=f"{started.code}:{started.teacher_key}")
    at = open_page(MEAN)
    assert _member(at) is None and at.query_params.get("class") is None
    assert _cookies(at, "lab_teacher") == []  # kept: the teacher link still opens its results


# --- the teacher's lead ---------------------------------------------------------------------------


def test_a_lead_with_the_sidebars_settings_moves_the_follower_to_the_teachers_view() -> None:
    started = cs.store().start()
    seat = cs.store().join(started.code, "Ada")
    at = open_page(
        VAR, **{"class": started.code, "seat": seat, "src": "Type numbers", "typed": "1, 2, 3, 10"}
    )
    cs.store().lead(
        started.code, started.teacher_key, "/mean", "src=Type+numbers&typed=5%2C+6%2C+7&mean_shift=2"
    )
    cs.room_changed(started.code)
    ok(at.run())
    assert at.radio(key="mean_q_guess")
    assert at.text_area(key="typed").value == "5, 6, 7"
    assert at.query_params["typed"] == "5, 6, 7" and at.query_params["class"] == started.code
    cs.store().lead(started.code, started.teacher_key, "/variance", "")  # the teacher's view at its defaults
    cs.room_changed(started.code)
    ok(at.run())
    assert at.radio(key="var_q_guess")
    assert at.selectbox(key="src").value == "Preset"  # the teacher's vector, not the student's own
    assert "typed" not in at.query_params


TITLE = "3 · Standardize"  # its title in the menu (ui.navigation)


def _many(n: int) -> str:
    return ", ".join(f"{i * 1.2345678:.6f}" for i in range(n))


def test_a_lead_too_long_for_the_class_moves_it_and_says_what_stayed_behind() -> None:
    started = cs.store().start()
    cs.store().set_paced(started.code, started.teacher_key, True)
    typed = _many(900)
    link = urllib.parse.urlencode({"src": "Type numbers", "typed": typed})
    assert len(link) > LEAD_QUERY_MAX
    at = open_page(
        STD, **{"class": started.code, "teach": started.teacher_key, "src": "Type numbers", "typed": typed}
    )
    room = cs.store().room(started.code)
    assert room is not None and room.lead_page == "/standardize" and "typed" not in (room.lead_query or "")
    order = _in_order(at.sidebar)
    said = [i for i, (kind, text) in enumerate(order) if "too long to send" in text]
    top = [i for i, (kind, text) in enumerate(order) if text.startswith(f"**Class {started.code}**")]
    students = [i for i, (kind, text) in enumerate(order) if text.startswith("Students (")]
    assert said and top and students and top[0] < said[0] < students[0], order  # near the top of the panel
    sentence = order[said[0]][1]
    assert sentence.startswith(
        f"The class is on {TITLE} with the sidebar's preset vector, not your typed numbers: they are too "
        "long to send ("
    ), sentence
    assert sentence.endswith(
        f"characters in the link; a lead carries at most {LEAD_QUERY_MAX:,}). Fewer numbers go with the page."
    )
    ok(at.switch_page(VAR).run())  # a page of the menu: the typed numbers ride along in its address
    room = cs.store().room(started.code)
    assert room is not None and room.lead_page == "/variance"


def test_a_lead_of_the_longest_link_the_class_takes(store: Store) -> None:
    started = store.start()
    store.lead(started.code, started.teacher_key, "/mean", "x" * LEAD_QUERY_MAX)
    assert store.room(started.code).lead_query == "x" * LEAD_QUERY_MAX  # type: ignore[union-attr]
    with pytest.raises(ClassError, match="too long"):
        store.lead(started.code, started.teacher_key, "/mean", "x" * (LEAD_QUERY_MAX + 1))


def test_a_lead_keeps_every_value_it_can_and_leaves_the_longest_out() -> None:
    typed = _many(900)
    whole = urllib.parse.urlencode({"src": "Type numbers", "typed": typed, "eps": "1e-3", "std_feature": "2"})
    assert cs.lead_view(whole) == ("eps=1e-3&std_feature=2", ("src", "typed"))
    table = urllib.parse.urlencode({"src": "Edit a table", "typed": typed, "eps": "1e-3"})
    assert cs.lead_view(table) == ("src=Edit+a+table&eps=1e-3", ("typed",))  # the input stays a table
    short = urllib.parse.urlencode({"src": "Type numbers", "typed": _many(250)})
    assert cs.lead_view(short) == (short, ())


# --- the move from version 3 ----------------------------------------------------------------------


def test_a_version_3_database_takes_long_leads_and_seats_that_left(database_url: str, clock: Clock) -> None:
    first = Store(open_engine(database_url), clock)
    started = first.start()
    seat = first.join(started.code, "Ada")
    with first.engine.begin() as conn:  # back to version 3 as it was made
        conn.execute(sa.text("ALTER TABLE class_seat DROP COLUMN left_at"))
        if conn.dialect.name == "postgresql":
            conn.execute(sa.text("ALTER TABLE class_room ALTER COLUMN lead_query TYPE VARCHAR(2000)"))
        conn.execute(sa.text("UPDATE lab_meta SET value = '3' WHERE name = 'schema_version'"))
    first.engine.dispose()
    store = Store(open_engine(database_url), clock)
    try:
        store.lead(started.code, started.teacher_key, "/mean", "x" * LEAD_QUERY_MAX)
        assert store.room(started.code).lead_query == "x" * LEAD_QUERY_MAX  # type: ignore[union-attr]
        assert store.seat_state(started.code, seat) == "in"
        store.leave(started.code, seat)
        assert store.room(started.code).students == 0  # type: ignore[union-attr]
        with store.engine.connect() as conn:
            assert conn.execute(sa.text("SELECT value FROM lab_meta")).scalar() == str(SCHEMA_VERSION) == "4"
    finally:
        store.engine.dispose()
