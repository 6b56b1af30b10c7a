"""The servers the tests start take a port that was free a moment ago; another test worker may bind it
first. Each start then tries a new port, and never takes a neighbour's server for its own."""

from __future__ import annotations

import contextlib
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa

from scripts import browser, postgres


@pytest.fixture
def taken_port() -> Iterator[int]:
    """A port that something else listens on, as if bound between "found free" and "bound"."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        yield s.getsockname()[1]


def _first(port: int, then: object) -> object:
    given = iter([port])
    return lambda: next(given, None) or then()  # type: ignore[operator]


def test_a_streamlit_server_whose_port_was_taken_starts_on_another(
    taken_port: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(browser, "free_port", _first(taken_port, browser.free_port))
    with browser.streamlit_server(tmp_path / "server.log") as (proc, url):
        assert proc.poll() is None and not url.endswith(f":{taken_port}")


def test_a_streamlit_server_does_not_take_a_neighbours_answer_for_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with browser.streamlit_server(tmp_path / "neighbour.log") as (_, neighbour):
        port = int(neighbour.rsplit(":", 1)[1])
        monkeypatch.setattr(browser, "free_port", _first(port, browser.free_port))
        with browser.streamlit_server(tmp_path / "server.log") as (proc, url):
            assert url != neighbour and proc.poll() is None
            assert url in (tmp_path / "server.log").read_text()


def test_a_postgres_whose_port_was_taken_starts_on_another(
    taken_port: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(postgres, "_free_port", _first(taken_port, postgres._free_port))
    with postgres.temporary_postgres() as url:
        assert f":{taken_port}/" not in url
        engine = sa.create_engine(url)
        with contextlib.closing(engine.connect()) as c:
            assert c.execute(sa.text("select 1")).scalar() == 1
        engine.dispose()
