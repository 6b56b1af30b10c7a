"""Who this browser is in a class: a student's seat or the teacher's key, and the class in the link.

A class's pages carry ``class=<code>`` in their address, on every page, so a browser that loses its
server (a lab process restarted, or another process behind the balancer) comes back in its class.
Who the browser is in that class is kept in a cookie of this site, set by a hidden component
(Streamlit reads cookies, ``st.context.cookies``, but cannot write them) and sent back with each new
session's connection: a student's seat in ``lab_seat`` (``<code>:<seat>``), so that a copied
address opened in another browser does not answer as that student (it opens Home's join form, the
code filled in); the teacher's key in ``lab_teacher`` (``<code>:<key>``). The private teacher link
(``?class=<code>&teach=<key>``) is read once, kept in this session and its cookie, and taken out of
the address, so a projected screen never shows it. An older address with ``seat=<seat>`` still
works: its seat moves into the cookie, once, and leaves the address. The cookie, not one tab's
address, says who the browser is: an address without a class (typed, a second tab, a pasted lesson
link) is in the class the cookie names while that class runs, and gets ``class=`` back; an address
naming another class opens that class's join form.

Storage is ``classroom.store``; this module is the Streamlit side of it. After every change of a
room a screen must follow, :func:`room_changed` writes the room's public beacon (``ui.class_beacon``).
"""

from __future__ import annotations

import hashlib
import os
import secrets
import time
import urllib.parse
from dataclasses import dataclass
from typing import TYPE_CHECKING, NoReturn

import limits
import streamlit as st

from classroom import database_url
from classroom.model import (
    CODE_ALPHABET,
    CODE_LENGTH,
    ClassError,
    Room,
    clean_nickname,
    normal_code,
)
from classroom.model import NICKNAME_MAX as NICKNAME_MAX  # the join form's limit is the class's
from ui import class_beacon, session
from ui.keys import CLASS_LINK_KEYS
from ui.settings import SOURCES

if TYPE_CHECKING:
    from classroom.store import Store

LINK_KEYS = CLASS_LINK_KEYS  # not settings of the lab: ui.linking leaves them alone
CLASS, SEAT, TEACH = LINK_KEYS  # the URL's keys (a seat only in an older address, read once)
COOKIE = "lab_teacher"  # "<code>:<key>" in the teacher's browser
SEAT_COOKIE = "lab_seat"  # "<code>:<seat>" in a student's browser
_COOKIE_HOURS = 12
_KEEP = """
export default function ({data}) {
  const where = "path=/; samesite=strict";
  document.cookie = data.value
    ? `${data.name}=${encodeURIComponent(data.value)}; ${where}; max-age=${data.hours * 3600}`
    : `${data.name}=; ${where}; max-age=0`;
}
"""
_keeper = st.components.v2.component(
    "lab_keep_cookie",
    html="<style>.st-key-lab_teacher_key, .st-key-lab_seat_key {display: none;}</style>",  # no space taken
    js=_KEEP,
    isolate_styles=False,
)
REMOVED = "Your teacher took you out of this class."
ENDED = "Your class has ended."
DELETED = "Your class has ended, and its answers were deleted."
# Joins that found no class, per client address: a code cannot be guessed by trying. A join that finds
# its class never counts: a whole room behind one address (a school's network, or HAProxy when it
# does not forward the address) joins in the same minute.
_FAILED_JOINS = limits.parse("20/minute")
_limiter = limits.strategies.MovingWindowRateLimiter(limits.storage.MemoryStorage())


_SECRET_MAX = 64  # a seat or a teacher key in a cookie is at most this long


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
    """The room as its students' runs read it: one query a second per class and process, whatever the
    number of students. A browser that read a newer version in the class's beacon has it read again
    (:func:`room_at_least`)."""
    return store().room(code)


def room_at_least(code: str, seen: int | str | None) -> None:
    """Before a student's run that the beacon asked for: the room is read again when this process's
    copy is older than the version the browser read, or the browser found no beacon ("gone")."""
    if seen is None or seen == "tick":
        return
    cached = room_now(code)
    if seen == "gone" or cached is None or (isinstance(seen, int) and cached.version < seen):
        room_now.clear()
    if seen == "gone":
        found = room_now(code)
        if found is not None and not found.closed:
            class_beacon.write_if_missing(code, found.version)  # emptied folder: its students read it again


def room_changed(code: str | None = None) -> None:
    """After a change of class ``code`` (this browser's class when None) that a screen must follow (a
    lead, pacing, a question's state, the end, a removal, the deletion): this process reads the room
    again, and the class's beacon says its new version, so every student's browser asks for a run
    within about a second, on every process (``ui.class_beacon``)."""
    room_now.clear()
    if code is None:
        m = member()
        code = m.code if m is not None else None
    if code is None:
        return
    room = store().room(code)
    if room is None:
        class_beacon.remove(code)
    else:
        class_beacon.write(code, room.version)


def member() -> Member | None:
    found = session.klass.member.get()
    return found if isinstance(found, Member) else None


def cookie_value(code: str, secret: str) -> str:
    """What a class cookie holds: ``<code>:<seat>`` (``lab_seat``) or ``<code>:<key>`` (``lab_teacher``)."""
    return f"{code}:{secret}"


def parse_cookie(text: str) -> tuple[str, str] | None:
    """(code, seat or key) from a class cookie's text (percent-encoded or not), or None if it holds none."""
    code, colon, secret = urllib.parse.unquote(text).partition(":")
    if (
        not colon
        or normal_code(code) != code
        or not 0 < len(secret) <= _SECRET_MAX
        or not secret.isprintable()
        or any(c.isspace() for c in secret)
    ):
        return None
    return code, secret


def _cookie(name: str) -> str:
    """A cookie as this session's browser sent it when it connected ("" when it sent none)."""
    kept = st.context.cookies.get(name)  # not a str where no browser connected (AppTest)
    return kept if isinstance(kept, str) else ""


def _kept_seat() -> tuple[str, str] | None:
    """The seat this browser keeps: its cookie, unless this session has changed it since."""
    written = session.klass.seat_kept.get()
    return parse_cookie(written if written is not None else _cookie(SEAT_COOKIE))


def _forget_seat(code: str) -> None:
    """This browser's seat cookie, if it names class ``code``, is taken away."""
    kept = _kept_seat()
    if kept is not None and kept[0] == code:
        session.klass.seat_kept.set("")


def _drop_class_link() -> None:
    for key in (CLASS, SEAT, TEACH):
        if key in st.query_params:
            del st.query_params[key]


def leave(notice: str | None = None) -> None:
    """This browser leaves its class (a student, whose seat cookie goes) or stops leading it here (the
    teacher). Without a ``notice`` the student chose to leave (the Leave button): the seat is marked
    left, so the class no longer counts them as joined (a class that ended or removed them keeps its
    count as it was)."""
    m = member()
    if m is not None and m.seat is not None:
        if notice is None:
            store().leave(m.code, m.seat)
            room_now.clear()
        _forget_seat(m.code)
        session.klass.join_seat.clear()  # joining again is a new seat: maybe someone else at this screen
    session.klass.member.clear()
    session.klass.version_seen.clear()
    _drop_class_link()
    if notice:
        session.klass.notice.set(notice)


def why_out(m: Member, room: Room | None) -> str | None:
    """Why the student ``m`` is no longer in the class, or None while they are. The seat is looked up
    only when the room's version moved since the last look (a removal moves it)."""
    if room is None:
        return DELETED
    if room.closed:
        return ENDED
    if m.seat is None or session.klass.version_seen.get() == room.version:
        return None
    state = store().seat_state(m.code, m.seat)
    if state == "removed":
        return REMOVED
    if state == "left":
        return f"You left class {m.code} (in another tab of this browser)."
    if state == "gone":
        return f"This browser's seat is not in class {m.code} any more: join again."
    session.klass.version_seen.set(room.version)
    return None


def start_class() -> None:
    """Button callback: a new class, led from this browser."""
    started = store().start()
    session.klass.member.set(Member(started.code, key=started.teacher_key))
    class_beacon.prune()
    room = store().room(started.code)
    class_beacon.write(started.code, room.version if room is not None else 0, fresh=True)


def end_class() -> None:
    """Button callback: the teacher ends the class; it takes no more answers (they are kept)."""
    m = member()
    if m is not None and m.key is not None:
        try:
            store().end(m.code, m.key)
        except ClassError:
            pass  # already ended (by another of the teacher's tabs, or it expired): nothing left to do
        room_changed(m.code)
    session.klass.notice.set("The class has ended: it takes no more answers. Its results stay in this panel.")


def join(typed_code: str, nickname: str | None) -> str | None:
    """Join the class ``typed_code``; returns a message for the student when that cannot be done.

    A browser that holds a seat of that class already (a second click on Join, another tab) gets that
    seat back: one student is one seat, whatever the clicks."""
    address = st.context.ip_address or "local"
    if not _limiter.test(_FAILED_JOINS, address):
        return "Too many tries to join in a minute: wait a little, then try again."
    code = normal_code(typed_code)
    if code is None:
        return code_problem(typed_code)
    try:
        clean_nickname(nickname)  # said before the class is looked up: a nickname is no guess of a code
    except ClassError as exc:
        return str(exc)
    m = member()
    if m is not None and m.code == code and m.seat is not None:
        return None  # a second click on Join, after the first seated this session
    kept = _kept_seat()
    mine = kept[1] if kept is not None and kept[0] == code else None
    try:
        seat = store().join(code, nickname, mine, session.klass.join_seat.get())
    except ClassError as exc:
        if store().room(code) is None:  # only a code that finds no class counts against the address
            _limiter.hit(_FAILED_JOINS, address)
        return str(exc)
    if kept is not None and kept[0] != code:  # its cookie now holds the new seat: the old one is left
        store().leave(*kept)
    _seated(Member(code, seat=seat))
    return None


def ready_to_join() -> None:
    """As the join form is drawn: the seat this session takes when it joins, drawn once (see join)."""
    if session.klass.join_seat.get() is None:
        session.klass.join_seat.set(secrets.token_urlsafe(12))


def code_problem(typed: str) -> str:
    """What is wrong with ``typed`` as a class code (it is none: :func:`classroom.model.normal_code`)."""
    text = "".join(ch for ch in typed.upper() if not ch.isspace() and ch != "-")
    shown = typed.strip() if len(typed.strip()) <= 20 else typed.strip()[:19] + "…"
    if not text:
        return f"Type the class code your teacher shows: {CODE_LENGTH} letters and digits, such as K7QF2M."
    unused = sorted({ch for ch in text if ch in "IO01"}, key=text.index)
    if unused:
        return (
            "A class code never has I, O, 0 or 1 (they are easily mixed up), and "
            f"“{shown}” has {_listed(unused)}: check the code with your teacher."
        )
    other = sorted({ch for ch in text if ch not in CODE_ALPHABET}, key=text.index)
    if other:
        return (
            "A class code has only the letters A to Z (no I or O) and the digits 2 to 9, and "
            f"“{shown}” has {_listed([f'“{ch}”' for ch in other[:5]])}: check the code with your teacher."
        )
    return (
        f"A class code has {CODE_LENGTH} letters and digits, and “{shown}” has {len(text)} "
        "(spaces and hyphens not counted): check the code with your teacher."
    )


def _listed(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _seated(m: Member, *, write: bool = True) -> Member:
    """``m`` is this browser's seat; ``write``: its cookie is set (it does not hold that seat yet)."""
    session.klass.member.set(m)
    if write:
        session.klass.seat_kept.set(cookie_value(m.code, m.seat or ""))
    session.klass.version_seen.clear()
    return m


def _sit(code: str, seat: str, unknown: str | None) -> Member | None:
    """Seat ``seat`` of class ``code`` for this browser, if it is one; else say why and forget it.
    ``unknown``: what to say of a seat the class never had, when it came from an address (None: it
    came from the cookie, which then holds it already, and nothing is said)."""
    state = store().seat_state(code, seat)
    room = room_now(code)
    if state == "in" and room is not None and not room.closed:
        m = _seated(Member(code, seat=seat), write=unknown is not None)
        session.klass.version_seen.set(room.version)  # its seat was looked up just now
        return m
    _forget_seat(code)
    if state == "removed":
        session.klass.notice.set(REMOVED)
        _drop_class_link()
    elif state == "in":
        session.klass.notice.set(f"Class {code} has ended: it takes no more answers.")
        _drop_class_link()
    elif unknown is not None:
        session.klass.notice.set(unknown)
    elif room is None and CLASS not in st.query_params:  # (an address with the class says so itself)
        session.klass.notice.set(f"Class {code}, which this browser was in, is deleted, with its answers.")
    return None


def _by_cookie(kept_code: str, kept_key: str) -> Member | None:
    """An address that names no class (typed, pasted, a lesson link): the class this browser is in by
    its cookies, while that class runs; the teacher's key first, then a student's seat. A seat of a
    class that ended or was deleted, or whose student the teacher removed, goes, with a word."""
    if kept_code and store().is_teacher(kept_code, kept_key):
        room = store().room(kept_code)
        if room is not None and not room.closed:
            m = Member(kept_code, key=kept_key)
            session.klass.member.set(m)
            return m
    kept = _kept_seat()
    return _sit(kept[0], kept[1], None) if kept is not None else None


def read_class_link() -> None:
    """Every run, before the page: the class the address names, and who this browser is in it.

    A teacher link makes this session the teacher's and loses its key from the address; the teacher's
    cookie makes a new session of the teacher's browser the teacher again; a student's seat cookie, for
    the class the address names, puts a returning student back in their seat; an older address's seat
    moves into that cookie and leaves the address. While this browser is in a class, every page's
    address carries the class: Streamlit drops the keys no control is bound to on a page switch, and
    the browser writes the new page's address back over the old one (``ui.history``), so this adds no
    Back step. An address with no class (typed, pasted, a lesson link) is in the class this browser's
    cookie names while that class runs, and gets the class back into it: a seat or the teacher's key
    belongs to the browser, not to one tab's address. A student no longer in the class (ended, deleted,
    removed) leaves it here, with a word.
    """
    given = st.query_params
    code = normal_code(given.get(CLASS, "")) if given.get(CLASS) else None
    if TEACH in given:
        key = given.get(TEACH, "")
        del st.query_params[TEACH]
        if code is not None and store().is_teacher(code, key):  # an ended class too: its results
            session.klass.member.set(Member(code, key=key))
        elif code is not None and store().room(code) is not None:
            session.klass.notice.set(f"That teacher link's key is not class {code}'s: check the link.")
        elif code is None:
            session.klass.notice.set("That teacher link has no class code: open the whole link.")
        else:
            session.klass.notice.set(
                f"That teacher link opens nothing any more: class {code} was deleted, with its answers "
                "(by its teacher, or when its kept days were over)."
            )
            _drop_class_link()  # nothing to join: this word, not the join form's
    m = member()
    if SEAT in given:  # an older address: its seat moves into this browser's cookie, once
        seat = given.get(SEAT, "")
        del st.query_params[SEAT]
        if m is None and code is not None and seat:
            m = _sit(code, seat, f"That address's seat is not in class {code} (any more): join again.")
    kept_code, _, kept_key = urllib.parse.unquote(_cookie(COOKIE)).partition(":")
    if m is None and code is not None and kept_code == code and store().is_teacher(code, kept_key):
        m = Member(code, key=kept_key)
        session.klass.member.set(m)
    if m is None and code is not None and (kept := _kept_seat()) is not None and kept[0] == code:
        m = _sit(code, kept[1], None)
    if m is None and CLASS not in given:
        m = _by_cookie(kept_code, kept_key)
    if m is not None and m.seat is not None and (why := why_out(m, room_now(m.code))) is not None:
        leave(why)
        m = None
    if m is not None and m.key is not None:
        _keep(COOKIE, cookie_value(m.code, m.key), key="lab_teacher_key")
    elif kept_code and not store().is_teacher(kept_code, kept_key):
        _keep(COOKIE, "", key="lab_teacher_key")  # its class has ended: the key goes
    # (a class that goes on keeps its key: another tab of the teacher's, on a page of no class, must not
    # take the lead from the tab that has it, whose next reload reads the key from this cookie)
    if (written := session.klass.seat_kept.get()) is not None:
        _keep(SEAT_COOKIE, written, key="lab_seat_key")  # on every run: a run cut short may not have set it
    if m is not None and given.get(CLASS) != m.code:
        st.query_params[CLASS] = m.code


def _keep(name: str, value: str, *, key: str) -> None:
    """Set this browser's cookie ``name`` to ``value`` ("": take it away), by the hidden component."""
    _keeper(key=key, data={"name": name, "value": value, "hours": _COOKIE_HOURS})


def link_class() -> str | None:
    """The class code the address carries, if it is one."""
    given = st.query_params.get(CLASS)
    return normal_code(given) if given else None


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


TYPING = ("src", SOURCES[1])  # the sidebar's input when the vector is the typed numbers


def lead_view(query: str) -> tuple[str, tuple[str, ...]]:
    """The view's link ``query`` as a lead carries it (at most ``LEAD_QUERY_MAX`` characters), and the
    keys it leaves out: the longest values go first until it fits (the page always goes; what is left
    out is at its starting value on the students' screens)."""
    from classroom.model import LEAD_QUERY_MAX

    pairs = urllib.parse.parse_qsl(query, keep_blank_values=True)
    left: list[str] = []
    while len(urllib.parse.urlencode(pairs)) > LEAD_QUERY_MAX:
        sizes: dict[str, int] = {}
        for k, v in pairs:
            sizes[k] = sizes.get(k, 0) + len(urllib.parse.urlencode([(k, v)]))
        longest = max(sizes, key=lambda k: sizes[k])
        # without its typed numbers, "Type numbers" would show every student the box's starting text:
        # the input goes too, and the class has the sidebar's preset vector
        gone = {longest, TYPING[0]} if longest == "typed" and TYPING in pairs else {longest}
        left += [k for k, _ in pairs if k in gone and k not in left]
        pairs = [(k, v) for k, v in pairs if k not in gone]
    return urllib.parse.urlencode(pairs), tuple(left)


def open_view(page: str, query: list[tuple[str, str]]) -> NoReturn:
    """Open ``page`` (a page file) with the link ``query`` in this session as a link opens: every control
    the link names takes its value, every other bound control its starting value. A student following
    the teacher sees the teacher's view. ``st.switch_page`` cannot carry a key a control of this run is
    bound to (the sidebar's are, on every page: it raised, and the class stayed where it was), and
    would keep each student's own values for the keys a link leaves out; so the address is set and the
    new page's run asked for as Back or Forward asks for one, where the address decides."""
    from streamlit.runtime.runtime_util import MESSAGE_FLUSH_INTERVAL_SECS
    from streamlit.runtime.scriptrunner_utils.script_requests import RerunData
    from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

    ctx = get_script_run_ctx()
    if ctx is None or ctx.script_requests is None:
        st.switch_page(page, query_params=query)
    where = os.path.realpath(os.path.join(os.path.dirname(ctx.main_script_path), page))
    pages = ctx.pages_manager.get_pages().values()
    page_hash = next(p["page_script_hash"] for p in pages if p["script_path"] == where)
    values: dict[str, list[str]] = {}
    for k, v in query:
        values.setdefault(k, []).append(v)
    session.replace_address(ctx, values)  # the browser's address, and this run's query string
    time.sleep(2 * MESSAGE_FLUSH_INTERVAL_SECS)  # as st.switch_page: the address leaves before the rerun
    ctx.script_requests.request_rerun(
        RerunData(
            query_string=ctx.query_string,
            page_script_hash=page_hash,
            cached_message_hashes=ctx.cached_message_hashes,
            context_info=ctx.context_info,
            is_history_navigation=True,
        )
    )
    st.empty()  # a point where the runner takes the request: the new page's run starts here
    raise RuntimeError(f"the run did not switch to {page}")
