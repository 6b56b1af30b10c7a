"""The teacher's list of students (rename, hide, remove), and how the teacher's screen acts on the store:
each action checked by the store against the teacher key, its refusal said where it was asked.

The list polls the store every :data:`ROSTER_POLL_S`, and is drawn only while the teacher opens it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import streamlit as st

from classroom.model import NICKNAME_MAX, ClassError, Seat
from ui import class_session as cs
from ui import session
from ui.fragments import page_fragment

if TYPE_CHECKING:
    from classroom.store import Store

ENDED_ELSEWHERE = "The class has ended (nobody used it for three hours, or it was ended elsewhere)."
ROSTER_POLL_S = 4.0


# --- acting as the teacher ------------------------------------------------------------------------


def as_teacher(place: str, act: Callable[[Store, str, str], object], *, changes_room: bool = True) -> bool:
    """Run ``act(store, code, key)`` for this browser's teacher; a refusal is kept to be said at ``place``.
    Returns whether it was done."""
    m = cs.member()
    if m is None or m.key is None:
        return False
    try:
        act(cs.store(), m.code, m.key)
    except ClassError as exc:
        session.klass.refused_here.set((place, str(exc)))
        return False
    session.klass.refused_here.set(None)
    if changes_room:
        cs.room_changed()
    return True


def say_refusal(place: str) -> None:
    """The store's message for the teacher's last action here, as plain text (it may quote a nickname)."""
    said = session.klass.refused_here.get()
    if said is not None and said[0] == place:
        st.text(said[1])


# --- the students ---------------------------------------------------------------------------------


def _rename(i: int, seat: str) -> None:
    name = session.widgets.get(f"class_name_{i}") or None
    if as_teacher(f"seat_{i}", lambda s, code, key: s.rename(code, key, seat, name), changes_room=False):
        session.widgets.set(f"class_name_{i}", "")


def _hide(i: int, seat: str, hidden: bool) -> None:
    as_teacher(f"seat_{i}", lambda s, code, key: s.hide(code, key, seat, hidden), changes_room=False)


def _ask_remove(seat: str | None) -> None:
    session.klass.removing.set(seat)


def _remove(i: int, seat: str) -> None:
    session.klass.removing.set(None)
    as_teacher(f"seat_{i}", lambda s, code, key: s.remove(code, key, seat))


def _student(i: int, seat: Seat) -> None:
    """One student's line: nickname (plain text) and a popover with the teacher's three actions, then
    the hidden mark and answer count."""
    name = seat.nickname if seat.nickname is not None else "(no nickname)"
    with st.container(horizontal=True, vertical_alignment="center", gap="small"):
        st.text(name)  # the popover follows on the same line when both fit
        with st.popover("Manage", icon=":material/manage_accounts:", type="tertiary"):
            st.text(name)
            # no max_chars: a browser would drop a longer paste without a word; the store says what is wrong
            st.text_input("New nickname (empty: none)", key=f"class_name_{i}",
                          placeholder=f"at most {NICKNAME_MAX} characters")  # fmt: skip
            st.button("Rename", key=f"class_rename_{i}", on_click=_rename, args=(i, seat.seat))
            st.button(
                "Show the name" if seat.hidden else "Hide the name",
                key=f"class_hide_{i}",
                icon=":material/visibility:" if seat.hidden else ":material/visibility_off:",
                on_click=_hide,
                args=(i, seat.seat, not seat.hidden),
                help="A hidden name is shown to no one but you.",
            )
            if session.klass.removing.get() != seat.seat:  # one step away from a mis-click
                st.button("Remove from the class", key=f"class_ask_remove_{i}", on_click=_ask_remove,
                          args=(seat.seat,), icon=":material/person_remove:")  # fmt: skip
            else:
                st.caption("Remove this student? They leave the class, and their answers go with them.")
                with st.container(horizontal=True, gap="small"):
                    st.button("Yes, remove", key=f"class_remove_{i}", type="primary", on_click=_remove,
                              args=(i, seat.seat))  # fmt: skip
                    st.button("Cancel", key=f"class_keep_{i}", on_click=_ask_remove, args=(None,))
    st.caption(("Hidden from the class · " if seat.hidden else "") + _count(seat.answers, "answer"))
    say_refusal(f"seat_{i}")


def _count(n: int, what: str) -> str:
    return f"{n} {what}{'s' if n != 1 else ''}"


def _students(m: cs.Member) -> None:
    """Every student of the class. Widget keys go by the student's place in the list: a seat id is a
    secret, never sent to a page (only the server keeps it, in the buttons' callbacks)."""
    try:
        seats = cs.store().roster(m.code, m.key or "")
    except ClassError as exc:
        st.text(str(exc))
        return
    if not seats:
        st.caption("Nobody has joined yet: show the join code.")
    for i, seat in enumerate(seats):
        _student(i, seat)


@page_fragment(by_user=False, run_every=ROSTER_POLL_S)
def roster(code: str) -> None:
    """Who has joined, on the teacher's screen only (nicknames are never shown beside an answer)."""
    room = cs.store().room(code)
    if room is None or room.closed:  # ended from another of the teacher's browsers, or idle: say so at once
        cs.leave(ENDED_ELSEWHERE)
        st.rerun(scope="app")
    m = cs.member()
    # The label holds the count, so a join makes it another element: its open state is kept here.
    shown = st.expander(
        f"Students ({room.students})",
        expanded=session.klass.roster_open.get(),
        key="class_students",
        on_change="rerun",
        icon=":material/groups:",
    )
    session.klass.roster_open.set(bool(shown.open))
    with shown:
        if shown.open and m is not None and m.teacher:  # drawn only while open: it polls
            _students(m)
