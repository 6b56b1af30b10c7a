"""A class's beacon: how a teacher's change reaches every student's browser within about a second,
without a script run per student per tick.

Streamlit cannot push to a browser: something in the browser must ask. A timed fragment asking the
store every few seconds costs a script run each time (about what a slider move costs), so thirty to
three hundred students polling that way were most of the server's work, and a teacher's move took
up to the timer's period plus a run to arrive. Instead, after every change a screen must follow
(``ui.class_session.room_changed``), the teacher's process writes a tiny public file,
``static/class/<CODE>.json`` = ``{"version": <the room's version>}``, which Streamlit serves as a
static file (``server.enableStaticServing``): no script, no session, no Python beyond the file
handler. Each student's browser reads it about once a second (:func:`draw`, ``ui/class_beacon.js``)
and asks its server for a run of the class panel only when the version moved past the one the
server last drew, or when the file is gone, or after :data:`FALLBACK_MS` with no run at all (an idle
class closed by expiry moves no version). The file holds nothing private: no key, no seat, no name;
anyone who knows the code may learn that the class changed, and nothing else.

Writing is atomic (a temporary file in the same folder, then ``os.replace``): a browser never reads
half a file. Several lab processes on one machine share the folder (``deploy/serve.py`` runs them
from one checkout). A folder the lab cannot write in leaves the students on a server timer
(:func:`usable`; the class panel then polls every few seconds, as it did before the beacon).
"""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import streamlit as st

from classroom.model import normal_code
from ui import session
from ui.plot import STATIC, served_at

FOLDER = STATIC / "class"
KEY = "class_beacon"  # the component's key (ui.session.WIDGET_KEYS): its trigger is "seen"
EVERY_MS = 1000  # how often a student's browser reads the file (each read ±25 %, so they spread)
FALLBACK_MS = 30_000  # a run asked for anyway when none came for this long
STALE_S = (
    24 * 60 * 60
)  # a file nobody wrote for a day goes when a class starts (one is written again if needed)
_log = logging.getLogger(__name__)

_component = st.components.v2.component(
    "lab_class_beacon",
    html=f"<style>.st-key-{KEY} {{display: none;}}</style>",  # draws nothing, takes no space
    js=Path(__file__).with_name("class_beacon.js").read_text(encoding="utf-8"),
    isolate_styles=False,  # the style must reach the element's own container
)


def path(code: str) -> Path | None:
    """Where class ``code``'s file is (None for a text that is no class code: no path is made of it)."""
    return FOLDER / f"{code}.json" if normal_code(code) == code else None


def url(code: str) -> str:
    """The file's address as the browser reaches it (under the server's base path, if any)."""
    return served_at(f"/app/static/class/{code}.json")


def version_in(file: Path) -> int | None:
    """The version a beacon file holds, or None when it is missing or not one."""
    try:
        found = json.loads(file.read_text(encoding="utf-8")).get("version")
    except (OSError, ValueError, AttributeError):
        return None
    return found if isinstance(found, int) and not isinstance(found, bool) else None


def write(code: str, version: int, *, fresh: bool = False) -> None:
    """Say that class ``code`` is at ``version``, atomically. An older version never replaces a newer
    one (two of the teacher's changes written by two threads in the other order); ``fresh``: a new
    class, whatever an old file of the same code said."""
    target = path(code)
    if target is None or not usable():
        return
    held = None if fresh else version_in(target)
    if held is not None and held >= version:
        return
    made: str | None = None
    try:
        with tempfile.NamedTemporaryFile(
            "w", dir=FOLDER, prefix=".beacon-", suffix=".tmp", delete=False, encoding="utf-8"
        ) as tmp:
            made = tmp.name
            json.dump({"version": int(version)}, tmp)
        os.chmod(made, 0o644)  # served to anyone, as the checked-out static files are
        os.replace(made, target)
    except OSError as error:
        _log.warning("class %s's beacon was not written (%s): its students follow within 30 s", code, error)
        if made is not None:
            with contextlib.suppress(OSError):
                os.unlink(made)


def write_if_missing(code: str, version: int) -> None:
    """A file for a class that has none (its folder was emptied, or it started before this server)."""
    target = path(code)
    if target is not None and not target.exists():
        write(code, version)


def remove(code: str) -> None:
    """The class is deleted: its file goes (its students' browsers then ask their server once)."""
    target = path(code)
    if target is not None:
        with contextlib.suppress(OSError):
            target.unlink()


def prune(now: float | None = None) -> None:
    """Files nobody wrote for :data:`STALE_S` go (classes deleted by expiry leave theirs behind)."""
    if not usable():
        return
    limit = (time.time() if now is None else now) - STALE_S
    for file in FOLDER.glob("*.json"):
        with contextlib.suppress(OSError):
            if file.stat().st_mtime < limit:
                file.unlink()


@functools.cache
def usable() -> bool:
    """Whether this process can write the beacons (checked once per process)."""
    try:
        FOLDER.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        _log.warning("students poll every few seconds: cannot make %s (%s)", FOLDER, error)
        return False
    if not os.access(FOLDER, os.W_OK | os.X_OK):
        _log.warning("students poll every few seconds: cannot write in %s", FOLDER)
        return False
    return True


def draw(code: str, version: int, on_seen: Callable[[], None]) -> None:
    """The hidden component that reads class ``code``'s file and asks for a run when it moved past
    ``version`` (the version this run draws). Draws nothing; call it in the fragment that should
    rerun. ``on_seen`` runs first in that rerun (:func:`seen` says what the browser read)."""
    data = {"url": url(code), "version": int(version), "every": EVERY_MS, "fallback": FALLBACK_MS}
    _component(key=KEY, data=data, on_seen_change=on_seen)


def seen() -> int | str | None:
    """What the browser read that made it ask: a version (int), "gone" (no file) or "tick" (the
    fallback); None when the browser did not ask. Read in ``on_seen``."""
    value = (session.widgets.get(KEY) or {}).get("seen")
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    return value if value in ("gone", "tick") else None
