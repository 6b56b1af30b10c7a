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
from typing import Any

import pytest
import sqlalchemy as sa
from streamlit.testing.v1 import AppTest

from classroom.model import LEAD_QUERY_MAX, ClassError
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


# --- the join form --------------------------------------------------------------------------------


# --- the seat and the teacher's key belong to the browser -----------------------------------------


# --- the teacher's lead ---------------------------------------------------------------------------


def test_a_lead_of_the_longest_link_the_class_takes(store: Store) -> None:
    started = store.start()
    store.lead(started.code, started.teacher_key, "/mean", "x" * LEAD_QUERY_MAX)
    assert store.room(started.code).lead_query == "x" * LEAD_QUERY_MAX  # type: ignore[union-attr]
    with pytest.raises(ClassError, match="too long"):
        store.lead(started.code, started.teacher_key, "/mean", "x" * (LEAD_QUERY_MAX + 1))


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
