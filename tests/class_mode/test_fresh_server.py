"""Students who open a deep link at the same moment on a freshly started lab process all land in the app.

A fresh process starts in Streamlit's legacy "pages/ directory" mode and runs a deep link's page alone,
without ``app.py`` (no sidebar, no class), until ``ui.shell.ensure_app_shell`` switches the mode off and
reruns. Every run that had started in that mode must rerun too, not only the first: in a 150-student
benchmark, 3 students whose pages loaded while their process was fresh were never in the class.

Half the students come back with their seat in the browser's cookie (``lab_seat``, which the page's
hidden component sets; this client runs no script, so the test puts it in the jar), half with an
older address that carries it (``seat=``).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import http.cookiejar
from pathlib import Path

import pytest

from classroom.store import Store, open_engine
from scripts.browser import streamlit_server
from scripts.session_client import Session

STUDENTS = 6


def seat_cookie(value: str) -> http.cookiejar.Cookie:
    """The ``lab_seat`` cookie as a browser keeps it for the lab's host."""
    return http.cookiejar.Cookie(
        version=0, name="lab_seat", value=value, port=None, port_specified=False, domain="127.0.0.1",
        domain_specified=False, domain_initial_dot=False, path="/", path_specified=True, secure=False,
        expires=None, discard=True, comment=None, comment_url=None, rest={},
    )  # fmt: skip


def test_students_opening_a_fresh_server_together_are_all_in_their_class(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = f"sqlite:///{tmp_path / 'classes.sqlite3'}"
    monkeypatch.setenv("LAB_DATABASE_URL", url)
    engine = open_engine(url)
    store = Store(engine)
    started = store.start()
    seats = [store.join(started.code, f"s{i}") for i in range(STUDENTS)]
    engine.dispose()

    async def open_all(base: str) -> list[list[str]]:
        sessions = []
        for i, seat in enumerate(seats):
            s = Session(base, "/mean")
            if i % 2:
                s.query_string = f"class={started.code}&seat={seat}"
            else:
                s.query_string = f"class={started.code}"
                s.jar.set_cookie(seat_cookie(f"{started.code}:{seat}"))
            texts: list[str] = []
            s.on_message = lambda kind, msg, texts=texts: (
                texts.append(msg.delta.new_element.markdown.body) if kind == "delta" else None
            )
            sessions.append((s, texts))
        await asyncio.gather(*(s.connect() for s, _ in sessions))
        await asyncio.gather(*(s.load(90) for s, _ in sessions))
        await asyncio.gather(*(s.close() for s, _ in sessions))
        return [texts for _, texts in sessions]

    with streamlit_server(tmp_path / "server.log") as (_, base):
        # A thread of its own: a worker that ran Playwright's sync API keeps an event loop in this one.
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            seen = pool.submit(asyncio.run, open_all(base)).result()
    panel = f"Class {started.code} · {STUDENTS} joined"
    assert [panel in texts for texts in seen] == [True] * STUDENTS
