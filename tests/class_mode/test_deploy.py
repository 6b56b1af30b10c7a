"""``deploy/serve.py``: two lab processes behind a real HAProxy, on a real PostgreSQL.

No browser: sessions speak Streamlit's websocket protocol (``scripts/session_client.py``), keeping
their cookies as a browser does. Needs Debian's ``haproxy`` (``scripts/ensure_debian.sh``; ``make
test`` and CI install it).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import socket
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from class_mode.test_fresh_server import seat_cookie
from classroom.store import Store, open_engine
from deploy import serve
from deploy.serve import COOKIE, Deployment, deployment, haproxy_binary
from scripts.postgres import _free_port as free_port
from scripts.session_client import Session


@pytest.fixture(scope="module")
def served(postgres_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    """The deployment, started as if another process had taken the first lab's port and the balancer's
    between the moment each was found free and the moment it was bound (as another test worker can):
    both start on new ports."""
    try:
        haproxy_binary()
    except RuntimeError as exc:  # missing: a failure that says how to get it, never a skip
        pytest.fail(str(exc))
    folder: Path = tmp_path_factory.mktemp("deploy")
    with contextlib.ExitStack() as held, pytest.MonkeyPatch.context() as mp:
        taken = []
        for _ in range(2):
            s = held.enter_context(socket.socket())
            s.bind(("127.0.0.1", 0))
            s.listen()
            taken.append(s.getsockname()[1])
        found = iter([taken[0], serve._free_port(), taken[1]])  # lab1, lab2, the balancer
        mp.setattr(serve, "_free_port", lambda: next(found, None) or free_port())
        with deployment(
            2, database_url=postgres_url, folder=folder, haproxy_output=folder / "haproxy.log"
        ) as d:
            assert taken[0] not in [lab.port for lab in d.labs] and f":{taken[1]}" not in d.url
            yield d


def _server(s: Session) -> str | None:
    return next((c.value for c in s.jar if c.name == COOKIE), None)


def test_the_balancer_pins_a_browser_by_cookie_and_passes_websockets(served: Deployment) -> None:
    text = served.config.read_text()
    assert f"cookie {COOKIE} insert indirect nocache" in text
    for lab in served.labs:
        assert f"server {lab.name} 127.0.0.1:{lab.port} cookie {lab.name} check" in text
    assert "timeout tunnel" in text
    assert "uri /_stcore/health" in text


def test_sessions_spread_stay_on_their_process_and_move_when_it_dies(served: Deployment) -> None:
    engine = open_engine(served.database_url)
    store = Store(engine)
    started = store.start()
    seat = store.join(started.code, "ada")
    engine.dispose()

    async def scenario() -> tuple[list[str | None], list[bool], str | None, bool, bool]:
        first = Session(served.url, "/mean")
        first.query_string = f"class={started.code}&seat={seat}"
        # The page's hidden component moves the seat into a cookie (ui/class_session.py); this client runs
        # no script, so it keeps the cookie as the browser would
        first.jar.set_cookie(seat_cookie(f"{started.code}:{seat}"))
        second = Session(served.url, "/mean")
        loaded = []
        for s in (first, second):
            await s.connect()
            loaded.append((await s.load(60)).finished and not s.page_not_found and s.control is not None)
        moved = await first.move(1, 60)
        loaded.append(moved.finished and not moved.exceptions)
        servers = [_server(first), _server(second)]

        # The same browser's next request keeps its process: HAProxy sets no new cookie.
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(first.jar))
        with opener.open(served.url + "/_stcore/health", timeout=10) as r:
            again = r.headers.get_all("Set-Cookie") or []
        assert not any(h.startswith(COOKIE) for h in again)

        # Its process dies: the browser reconnects with the same cookie and address, and lands on the
        # other process, in its seat.
        victim = next(lab for lab in served.labs if lab.name == servers[0])
        assert victim.proc is not None
        victim.proc.kill()
        victim.proc.wait()
        await first.close()
        texts: list[str] = []
        first.on_message = lambda kind, msg: texts.append(msg.delta.new_element.markdown.body)
        reloaded = False
        for _ in range(40):
            try:
                await first.connect()
                reloaded = (await first.load(30)).finished
                if reloaded:
                    break
            except OSError:
                pass
            await asyncio.sleep(0.5)
        await first.close()
        await second.close()
        in_seat = f"Class {started.code} · 1 joined" in texts
        return servers, loaded, _server(first), reloaded, in_seat

    # In a thread of its own: a worker that ran Playwright's sync API before keeps an event loop running
    # in this thread, where asyncio.run refuses to start.
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        servers, loaded, after, reloaded, in_seat = pool.submit(asyncio.run, scenario()).result()
    assert all(loaded)
    assert sorted(s or "" for s in servers) == sorted(lab.name for lab in served.labs)  # one on each
    assert reloaded
    assert after is not None and after != servers[0]
    assert in_seat  # the class panel of a student of this class, on the other process
    served.restart_exited()
