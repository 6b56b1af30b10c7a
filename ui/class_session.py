"""Who this browser is in a class: a student's seat or the teacher's key, and the class in the link.

A student's address carries ``class=<code>&seat=<seat>`` on every page, so a browser that loses its
server (a lab process restarted, or another process behind the balancer) comes back in its class,
in its seat, with its answers. The teacher's key never stays in an address: the private teacher link
(``?class=<code>&teach=<key>``) is read once, kept in this session, and taken out of the address, so
a projected screen never shows it. A reload, or a lost server, starts a new session: the teacher's
browser keeps the key in a cookie of this site (``lab_teacher``, set by a hidden component, sent back
with the next session's connection), so the teacher stays the teacher without the link.

Storage is ``classroom.store``; this module is the Streamlit side of it.
"""

from __future__ import annotations

import hashlib
import os
import urllib.parse
from dataclasses import dataclass
from typing import TYPE_CHECKING

import limits
import streamlit as st

from classroom import database_url
from classroom.model import ClassError, Room, normal_code
from ui import session
from ui.keys import CLASS_LINK_KEYS

if TYPE_CHECKING:
    from classroom.store import Store

LINK_KEYS = CLASS_LINK_KEYS  # not settings of the lab: ui.linking leaves them alone
CLASS, SEAT, TEACH = LINK_KEYS  # the URL's keys
COOKIE = "lab_teacher"  # "<code>:<key>" in the teacher's browser
_COOKIE_HOURS = 12
_KEEP_KEY = f"""
export default function ({{data}}) {{
  const where = "path=/; samesite=strict";
  document.cookie = data
    ? `{COOKIE}=${{encodeURIComponent(data)}}; ${{where}}; max-age={_COOKIE_HOURS * 3600}`
    : `{COOKIE}=; ${{where}}; max-age=0`;
}}
"""
_keep_key = st.components.v2.component(
    "lab_teacher_key",
    html="<style>.st-key-lab_teacher_key {display: none;}</style>",  # draws nothing, takes no space
    js=_KEEP_KEY,
    isolate_styles=False,
)
_JOINS = limits.parse("10/minute")  # join attempts per client address (a code cannot be guessed by trying)
_limiter = limits.strategies.MovingWindowRateLimiter(limits.storage.MemoryStorage())


@dataclass(frozen=True)
class Member:
    code: str
    seat: str | None = None  # a student's seat
    key: str | None = None  # the teacher's key

    @property
    def teacher(self) -> bool:
        return self.key is not None


@st.cache_resource(show_spinner=False)
def store() -> Store:
    """The class store of this lab process (one engine, shared by every session's thread).

    ``classroom.store`` (SQLAlchemy, about 0.23 s to import) is imported here, when a class is first
    used, not with the app: a fresh server's first visit does not wait for it."""
    from classroom.store import Store, open_engine

    return Store(open_engine(database_url()))


@st.cache_data(ttl=1.0, show_spinner=False, max_entries=1000)
def room_now(code: str) -> Room | None:
    """The room as the students' timers read it: one query a second per class and process, whatever the
    number of students (their timers tick every few seconds; a second more or less does not matter)."""
    return store().room(code)


def room_changed() -> None:
    """After this browser changed its room (a lead, a reveal, the end): this process's students see
    it on their next tick; the other processes' within :func:`room_now`'s second."""
    room_now.clear()


def member() -> Member | None:
    found = session.klass.member.get()
    return found if isinstance(found, Member) else None


def _leave_quietly() -> None:
    session.klass.member.clear()
    for key in (CLASS, SEAT, TEACH):
        if key in st.query_params:
            del st.query_params[key]


def leave(notice: str | None = None) -> None:
    """This browser leaves its class (a student) or stops leading it here (the teacher)."""
    _leave_quietly()
    if notice:
        session.klass.notice.set(notice)


def start_class() -> None:
    """Button callback: a new class, led from this browser."""
    started = store().start()
    session.klass.member.set(Member(started.code, key=started.teacher_key))


def end_class() -> None:
    """Button callback: the teacher ends the class; it takes no more answers (they are kept)."""
    m = member()
    if m is not None and m.key is not None:
        try:
            store().end(m.code, m.key)
        except ClassError:
            pass  # already ended (by another of the teacher's tabs, or it expired): nothing left to do
        room_changed()
    leave("The class has ended: it takes no more answers.")


def join(typed_code: str, nickname: str | None) -> str | None:
    """Join the class ``typed_code``; returns a message for the student when that cannot be done."""
    if not _limiter.hit(_JOINS, st.context.ip_address or "local"):
        return "Too many tries to join in a minute: wait a little, then try again."
    code = normal_code(typed_code)
    if code is None:
        return "A class code is six letters and digits, as your teacher shows it (for example K7QF2M)."
    try:
        seat = store().join(code, nickname)
    except ClassError as exc:
        return str(exc)
    session.klass.member.set(Member(code, seat=seat))
    return None


def read_class_link() -> None:
    """Every run, before the page: the class the address names, and the address kept in the class.

    A teacher link makes this session the teacher's and loses its key from the address; an address
    with a seat of a class that still exists puts a returning browser back in its seat. While this
    browser is in a class, every page's address carries the class (and the seat): Streamlit drops
    the keys no control is bound to on a page switch, and the browser writes the new page's address
    back over the old one (``ui.history``), so this adds no Back step.
    """
    given = st.query_params
    code = normal_code(given.get(CLASS, "")) if given.get(CLASS) else None
    if TEACH in given:
        key = given.get(TEACH, "")
        del st.query_params[TEACH]
        if code is not None and store().is_teacher(code, key) and _running(code):
            session.klass.member.set(Member(code, key=key))
        elif code is not None and store().is_teacher(code, key):
            session.klass.notice.set(f"Class {code} has ended: it takes no more answers.")
        elif code is not None and store().room(code) is not None:
            session.klass.notice.set(f"That teacher link's key is not class {code}'s: check the link.")
        elif code is None:
            session.klass.notice.set("That teacher link has no class code: open the whole link.")
        else:
            session.klass.notice.set("That teacher link is not valid any more: the class has ended.")
    m = member()
    if m is None and code is not None and given.get(SEAT):
        if store().has_seat(code, given[SEAT]):
            m = Member(code, seat=given[SEAT])
            session.klass.member.set(m)
        else:
            del st.query_params[SEAT]
            session.klass.notice.set(f"That address's seat is not in class {code} (any more): join again.")
    kept = st.context.cookies.get(COOKIE)  # not a str where no browser connected (AppTest)
    kept_code, _, kept_key = urllib.parse.unquote(kept if isinstance(kept, str) else "").partition(":")
    if (
        m is None
        and code is not None
        and kept_code == code
        and store().is_teacher(code, kept_key)
        and _running(code)
    ):
        m = Member(code, key=kept_key)
        session.klass.member.set(m)
    if m is not None and m.key is not None:
        _keep_key(key="lab_teacher_key", data=f"{m.code}:{m.key}")
    elif kept_code and not store().is_teacher(kept_code, kept_key):
        _keep_key(key="lab_teacher_key", data="")  # its class has ended: the key goes
    # (a class that goes on keeps its key: another tab of the teacher's, on a page of no class, must not
    # take the lead from the tab that has it, whose next reload reads the key from this cookie)
    if m is not None:
        if given.get(CLASS) != m.code:
            st.query_params[CLASS] = m.code
        if m.seat is not None and given.get(SEAT) != m.seat:
            st.query_params[SEAT] = m.seat


def _running(code: str) -> bool:
    room = store().room(code)
    return room is not None and not room.closed


def public_base() -> str:
    """Where students reach the lab: ``LAB_PUBLIC_URL`` if set, else the address the teacher opened."""
    return os.environ.get("LAB_PUBLIC_URL", "").strip() or st.context.url or "http://localhost:8501/"


def only_here(address: str) -> bool:
    """Whether ``address`` opens the lab only on the computer that serves it (a loopback host)."""
    return (urllib.parse.urlsplit(address).hostname or "") in {"localhost", "127.0.0.1", "::1"}


def quiz_seed(code: str) -> int:
    """The quiz's seed for class ``code``: the same numbers and order on every screen of the class."""
    return int.from_bytes(hashlib.sha256(code.encode()).digest()[:4]) % 2**31


def join_address(code: str) -> str:
    """The join link to show the class: Home, with the code filled in."""
    url = urllib.parse.urlsplit(public_base())
    return urllib.parse.urlunsplit((url.scheme, url.netloc, "/", urllib.parse.urlencode({CLASS: code}), ""))


def teacher_address(m: Member) -> str:
    """The teacher's private link: the same class, led from any browser that opens it."""
    url = urllib.parse.urlsplit(join_address(m.code))
    query = urllib.parse.urlencode({CLASS: m.code, TEACH: m.key or ""})
    return urllib.parse.urlunsplit((url.scheme, url.netloc, "/", query, ""))


def view_query() -> str:
    """This view's link without the class's own keys: what "Send the class here" sends."""
    pairs = [(k, v) for k in st.query_params if k not in LINK_KEYS for v in st.query_params.get_all(k)]
    return urllib.parse.urlencode(pairs)
