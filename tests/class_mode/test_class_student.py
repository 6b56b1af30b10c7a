"""The student's side of class mode: seats kept in a cookie, the class's beacon file, teacher-paced runs,
and leaving a class that ended or that the teacher took the student out of.

AppTest cannot set a browser's cookies: a test that opens a page as a browser holding one replaces
``ui.class_session._cookie`` (what the browser sent when it connected); what the app writes into the
cookie is the hidden component's data. The beacon's files go to a folder of the test's own.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any

import pytest
from apptest_support import HOME, MEAN, VAR, ok, open_page, page_text
from streamlit.testing.v1 import AppTest

from ui import class_beacon, session
from ui import class_session as cs
from ui import class_views as views


def _member(at: AppTest) -> cs.Member | None:
    key = session.klass.member.key
    found = at.session_state[key] if key in at.session_state else None
    return found if isinstance(found, cs.Member) else None


def _components(at: AppTest, name: str) -> list[dict[str, Any]]:
    """The data of every ``name`` component the last run drew, in page order."""
    return [json.loads(e.proto.json) for e in at.get("bidi_component") if e.proto.component_name == name]


def _seat_cookies(at: AppTest) -> list[str]:
    """What the last run wrote into the browser's seat cookie ("" takes it away)."""
    return [d["value"] for d in _components(at, "lab_keep_cookie") if d["name"] == "lab_seat"]


def _as_browser_with(monkeypatch: pytest.MonkeyPatch, **cookies: str) -> None:
    """The next sessions' browser sent these cookies when it connected."""
    monkeypatch.setattr(cs, "_cookie", lambda name: cookies.get(name, ""))


def _fresh(code: str) -> None:
    cs.room_now.clear()  # this process reads the room again (another process changed it)


# --- the seat cookie's text -------------------------------------------------------------------------


def test_a_cookie_holds_the_code_and_the_seat_and_reads_back() -> None:
    assert cs.cookie_value("K7QF2M", "a-B_c9") == "K7QF2M:a-B_c9"
    assert cs.parse_cookie("K7QF2M:a-B_c9") == ("K7QF2M", "a-B_c9")
    assert cs.parse_cookie("K7QF2M%3Aa-B_c9") == ("K7QF2M", "a-B_c9")  # as encodeURIComponent wrote it
    assert cs.parse_cookie("K7QF2M:x:y") == ("K7QF2M", "x:y")  # a key may hold anything printable


@pytest.mark.parametrize(
    "text",
    ["", "K7QF2M", "K7QF2M:", "k7qf2m:seat", "K7QF2:seat", "K7QF2M0:seat", ":seat", "K7QF2M:a b", "K7QF2M:\n",
     "K7QF2M:" + "s" * 65],
)  # fmt: skip
def test_a_cookie_that_holds_no_seat_reads_as_none(text: str) -> None:
    assert cs.parse_cookie(text) is None


# --- seats by cookie --------------------------------------------------------------------------------


def test_an_older_address_with_a_seat_moves_it_into_the_cookie_once() -> None:
    code = cs.store().start().code
    seat = cs.store().join(code, "Ada")
    at = open_page(MEAN, **{"class": code, "seat": seat})
    assert _member(at) == cs.Member(code, seat=seat)
    assert at.query_params.get("seat") is None and at.query_params["class"] == code
    assert _seat_cookies(at) == [f"{code}:{seat}"]
    ok(at.switch_page(VAR).run())  # the next page: still in the class, the seat in no address
    assert _member(at) == cs.Member(code, seat=seat)
    assert at.query_params.get("seat") is None and at.query_params["class"] == code


def test_a_browser_with_the_seat_cookie_is_back_in_its_seat(monkeypatch: pytest.MonkeyPatch) -> None:
    code = cs.store().start().code
    seat = cs.store().join(code)
    cs.store().answer(code, seat, "mean_q", 1, options=3)
    _as_browser_with(monkeypatch, lab_seat=f"{code}%3A{seat}")
    at = open_page(MEAN, **{"class": code})
    assert _member(at) == cs.Member(code, seat=seat)
    assert "Your answer is in" in page_text(at)
    assert _seat_cookies(at) == []  # the cookie holds it already


def test_a_copied_class_address_in_another_browser_opens_the_join_form() -> None:
    code = cs.store().start().code
    cs.store().join(code)
    at = open_page(MEAN, **{"class": code, "mean_shift": "2"})
    assert _member(at) is None
    assert at.text_input(key="class_join_code").value == code  # Home's join form, the code filled in
    assert _components(at, "lab_class_beacon") == []


def test_a_seat_cookie_of_another_class_is_not_this_class(monkeypatch: pytest.MonkeyPatch) -> None:
    code, other = cs.store().start().code, cs.store().start().code
    seat = cs.store().join(other)
    _as_browser_with(monkeypatch, lab_seat=f"{other}:{seat}")
    at = open_page(HOME, **{"class": code})
    assert _member(at) is None
    assert at.text_input(key="class_join_code").value == code
    assert _seat_cookies(at) == []  # the other class's seat stays this browser's


def test_joining_writes_the_seat_cookie_and_leaving_takes_it_away() -> None:
    code = cs.store().start().code
    at = open_page(HOME, **{"class": code})
    ok(at.button(key="FormSubmitter:class_join-Join the class").click().run())
    m = _member(at)
    assert m is not None and m.seat is not None
    assert _seat_cookies(at) == [f"{code}:{m.seat}"]
    assert at.query_params.get("seat") is None
    ok(at.button(key="class_leave").click().run())
    assert _member(at) is None
    assert _seat_cookies(at) == [""]
    assert at.query_params.get("class") is None


def test_a_removed_students_cookie_says_so_and_goes(monkeypatch: pytest.MonkeyPatch) -> None:
    started = cs.store().start()
    seat = cs.store().join(started.code)
    cs.store().remove(started.code, started.teacher_key, seat)
    _as_browser_with(monkeypatch, lab_seat=f"{started.code}:{seat}")
    at = open_page(MEAN, **{"class": started.code})
    assert _member(at) is None
    assert cs.REMOVED in [str(i.value) for i in at.sidebar.info]
    assert _seat_cookies(at) == [""]
    assert at.query_params.get("class") is None
    assert at.radio(key="mean_q_guess")  # the page as it is outside a class, where the student was


# --- leaving a class that changed -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (lambda s, code, key, seat: s.remove(code, key, seat), cs.REMOVED),
        (lambda s, code, key, seat: s.end(code, key), cs.ENDED),
        (lambda s, code, key, seat: s.delete(code, key), cs.DELETED),
    ],
    ids=["removed", "ended", "deleted"],
)
def test_a_student_taken_out_or_whose_class_ended_leaves_it_with_a_word(change: Any, said: str) -> None:
    started = cs.store().start()
    seat = cs.store().join(started.code)
    at = open_page(MEAN, **{"class": started.code, "seat": seat})
    assert _member(at) is not None
    change(cs.store(), started.code, started.teacher_key, seat)
    _fresh(started.code)
    ok(at.run())
    assert _member(at) is None
    assert [str(i.value) for i in at.sidebar.info] == [said]
    assert _seat_cookies(at) == [""]
    assert at.query_params.get("class") is None


# --- the beacon -------------------------------------------------------------------------------------


def test_the_beacon_file_says_the_version_and_nothing_else(beacons: Path) -> None:
    class_beacon.write("K7QF2M", 3)
    file = beacons / "K7QF2M.json"
    assert json.loads(file.read_text()) == {"version": 3}
    assert file.stat().st_mode & 0o777 == 0o644
    assert sorted(p.name for p in beacons.iterdir()) == ["K7QF2M.json"]  # no temporary file left
    class_beacon.write("K7QF2M", 2)  # an older change written late never replaces a newer one
    assert json.loads(file.read_text()) == {"version": 3}
    class_beacon.write("K7QF2M", 0, fresh=True)  # a new class of that code
    assert json.loads(file.read_text()) == {"version": 0}
    class_beacon.remove("K7QF2M")
    assert list(beacons.iterdir()) == []


def test_the_beacon_is_written_whole_then_renamed_into_place(
    beacons: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    replaced: list[tuple[Path, Path, str]] = []
    real = os.replace

    def replace(src: str, dst: Path) -> None:
        replaced.append((Path(src), Path(dst), Path(src).read_text()))  # what a reader would meet
        real(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    class_beacon.write("K7QF2M", 12)
    [(src, dst, text)] = replaced
    assert src.parent == beacons and src.name.startswith(".") and dst == beacons / "K7QF2M.json"
    assert text == '{"version": 12}'


def test_no_beacon_path_is_made_of_a_text_that_is_no_code(beacons: Path) -> None:
    for bad in ("../x", "k7qf2m", "K7QF2M/..", ""):
        assert class_beacon.path(bad) is None
        class_beacon.write(bad, 1)
    assert not beacons.exists() or list(beacons.iterdir()) == []


def test_a_folder_that_cannot_be_written_leaves_the_students_on_a_timer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "file").write_text("")
    monkeypatch.setattr(class_beacon, "FOLDER", tmp_path / "file" / "class")  # under a file: no folder
    class_beacon.usable.cache_clear()
    assert not class_beacon.usable()
    class_beacon.write("K7QF2M", 1)  # nothing written, nothing raised


def test_stale_beacons_go_when_a_class_starts(beacons: Path) -> None:
    class_beacon.write("K7QF2M", 1)
    class_beacon.write("ABCDEF", 1)
    old = os.stat(beacons / "ABCDEF.json").st_mtime - class_beacon.STALE_S - 1
    os.utime(beacons / "ABCDEF.json", (old, old))
    class_beacon.prune()
    assert sorted(p.name for p in beacons.iterdir()) == ["K7QF2M.json"]


def test_a_change_of_the_room_moves_its_beacon_and_a_deletion_removes_it(beacons: Path) -> None:
    started = cs.store().start()
    cs.store().set_paced(started.code, started.teacher_key, True)
    cs.room_changed(started.code)
    room = cs.store().room(started.code)
    assert room is not None and room.version == 1
    assert json.loads((beacons / f"{started.code}.json").read_text()) == {"version": 1}
    cs.store().lead(started.code, started.teacher_key, "/mean", "")
    cs.room_changed(started.code)
    assert json.loads((beacons / f"{started.code}.json").read_text()) == {"version": 2}
    cs.store().delete(started.code, started.teacher_key)
    cs.room_changed(started.code)
    assert not (beacons / f"{started.code}.json").exists()


def test_a_class_started_has_its_beacon_and_each_student_reads_it(beacons: Path) -> None:
    teacher = open_page(HOME)
    ok(teacher.button(key="class_start").click().run())
    m = _member(teacher)
    assert m is not None and m.teacher
    assert json.loads((beacons / f"{m.code}.json").read_text()) == {"version": 0}
    student = open_page(MEAN, **{"class": m.code, "seat": cs.store().join(m.code)})
    assert _components(student, "lab_class_beacon") == [
        {"url": f"/app/static/class/{m.code}.json", "version": 0, "every": 1000, "fallback": 30000}
    ]
    assert not _components(teacher, "lab_class_beacon")  # the teacher's screen has its own timers


def test_a_version_the_browser_read_is_read_again_from_the_store() -> None:
    started = cs.store().start()
    before = cs.room_now(started.code)
    assert before is not None
    cs.store().set_paced(started.code, started.teacher_key, True)  # on another process: no room_changed
    cs.room_at_least(started.code, "tick")  # the fallback: a second-old copy is good enough
    assert cs.room_now(started.code) == before
    cs.room_at_least(started.code, before.version + 1)
    after = cs.room_now(started.code)
    assert after is not None and after.paced and after.version == before.version + 1


def test_a_browser_that_found_no_beacon_has_it_written(beacons: Path) -> None:
    started = cs.store().start()
    cs.room_at_least(started.code, "gone")
    assert json.loads((beacons / f"{started.code}.json").read_text()) == {"version": 0}


# --- teacher-paced ----------------------------------------------------------------------------------


def test_a_paced_student_on_another_page_is_brought_to_the_teachers() -> None:
    started = cs.store().start()
    seat = cs.store().join(started.code)
    at = open_page(VAR, **{"class": started.code, "seat": seat})
    ok(at.toggle(key=views.FOLLOW).set_value(False).run())  # exploring alone, before the pacing
    cs.store().lead(started.code, started.teacher_key, "/mean", "mean_shift=2")
    cs.store().set_paced(started.code, started.teacher_key, True)
    _fresh(started.code)
    ok(at.run())
    assert at.radio(key="mean_q_guess")  # on Mean, with the teacher's view
    assert at.query_params["mean_shift"] == "2" and at.query_params["class"] == started.code
    follow = at.toggle(key=views.FOLLOW)
    assert follow.value is True and follow.disabled
    assert views.PACED_NOTE in [str(c.value) for c in at.caption]
    ok(at.switch_page(VAR).run())  # the menu: another page
    assert at.radio(key="mean_q_guess")
    assert not any(str(r.key) == "var_q_guess" for r in at.radio)
    cs.store().set_paced(started.code, started.teacher_key, False)
    _fresh(started.code)
    ok(at.switch_page(VAR).run())  # unpaced: the student goes where they like
    assert at.radio(key="var_q_guess")
    assert not at.toggle(key=views.FOLLOW).disabled


def test_a_late_joiner_lands_on_the_teachers_page() -> None:
    started = cs.store().start()
    cs.store().set_paced(started.code, started.teacher_key, True)
    cs.store().lead(started.code, started.teacher_key, "/variance", "")
    at = open_page(HOME, **{"class": started.code})
    ok(at.button(key="FormSubmitter:class_join-Join the class").click().run())
    assert _member(at) is not None
    assert at.radio(key="var_q_guess")


# --- a question's box, as the teacher changes it ----------------------------------------------------


def test_a_students_box_says_when_the_question_is_closed_and_asked_again() -> None:
    started = cs.store().start()
    seat = cs.store().join(started.code)
    at = open_page(MEAN, **{"class": started.code, "seat": seat})
    assert "Answer, and your teacher reveals the answer to the whole class." in page_text(at)
    ok(at.radio(key="mean_q_guess").set_value("It is multiplied by 5").run())
    said = (
        "Your answer is in: you can change it until your teacher closes the question or reveals the answer."
    )
    assert said in page_text(at)
    cs.store().close_question(started.code, started.teacher_key, "mean_q")
    _fresh(started.code)
    ok(at.run())
    assert "Your teacher has closed this question: answers are not taken now." in page_text(at)
    cs.store().vote_again(started.code, started.teacher_key, "mean_q")
    _fresh(started.code)
    ok(at.run())
    assert "Round 2: Answer, and your teacher reveals the answer to the whole class." in page_text(at)


def test_a_link_to_a_class_that_is_gone_says_so_on_its_page() -> None:
    started = cs.store().start()
    cs.store().delete(started.code, started.teacher_key)
    at = open_page(VAR, **{"class": started.code})
    assert at.radio(key="var_q_guess")  # the page opened, as outside a class
    assert [str(i.value) for i in at.sidebar.info] == [f"There is no class {started.code} (any more)."]
    assert at.query_params.get("class") is None


# --- following in turns ---------------------------------------------------------------------------


def test_followers_runs_take_turns_and_other_runs_never_wait() -> None:
    holders = [views.waiting_turn(True) for _ in range(views.FOLLOW_TURNS)]
    for h in holders:
        h.__enter__()
    try:
        with views.waiting_turn(False):  # a run that does not follow: at once, turns all taken
            pass
        entered = threading.Event()

        def follower() -> None:
            with views.waiting_turn(True):
                entered.set()

        t = threading.Thread(target=follower)
        t.start()
        assert not entered.wait(0.2)  # waiting: every turn is taken
        holders.pop().__exit__(None, None, None)  # a turn comes free: the waiting follower goes
        assert entered.wait(5)
        t.join(5)
    finally:
        for h in holders:
            h.__exit__(None, None, None)
    assert views._turns.acquire(blocking=False)  # every turn given back
    views._turns.release()


def test_a_run_that_follows_the_teacher_is_marked_for_its_turn_once(monkeypatch: pytest.MonkeyPatch) -> None:
    started = cs.store().start()
    cs.store().set_paced(started.code, started.teacher_key, True)
    cs.store().lead(started.code, started.teacher_key, "/variance", "")
    seat = cs.store().join(started.code, "Ada")
    _as_browser_with(monkeypatch, lab_seat=f"{started.code}:{seat}")
    taken: list[bool] = []
    real = views.waiting_turn

    def noted(following: bool) -> Any:
        taken.append(following)
        return real(following)

    monkeypatch.setattr(views, "waiting_turn", noted)
    at = open_page(MEAN, **{"class": started.code})
    assert True in taken and at.radio(key="var_q_guess")  # brought to the teacher's page: a follow
    ok(at.switch_page(VAR).run())
    assert taken[-1] is False  # a run on the teacher's page is not one


# --- joining --------------------------------------------------------------------------------------


def test_a_room_behind_one_address_all_joins_and_guessed_codes_are_limited(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import limits

    monkeypatch.setattr(
        cs, "_limiter", limits.strategies.MovingWindowRateLimiter(limits.storage.MemoryStorage())
    )
    monkeypatch.setattr(cs, "_seated", lambda m, **_: m)  # no session to seat: the limit is what is tried
    code = cs.store().start().code
    assert [cs.join(code, f"s{i}") for i in range(40)] == [None] * 40  # one address (HAProxy, a school)
    too_many = "Too many tries to join in a minute: wait a little, then try again."
    guesses = [cs.join(guess, None) for guess in ("ZZZZZZ", "ZZZZZY") * 10]
    assert all(g is not None and g.startswith("There is no class ZZZZZ") for g in guesses)
    assert cs.join("ZZZZZX", None) == too_many  # the 21st wrong code in a minute
    assert cs.join(code, "late") == too_many  # from that address, for the rest of the minute
    assert cs.store().room(code).students == 40  # type: ignore[union-attr]
