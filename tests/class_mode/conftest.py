"""Class mode's fixtures: a store on a real SQLite file and on a real PostgreSQL server.

The PostgreSQL server is started once per test process (``scripts/postgres.py``); every test gets
empty tables. No database is mocked: both dialects run the same statements the lab runs.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa

from classroom.store import Store, metadata, open_engine
from scripts.postgres import temporary_postgres


class Clock:
    """A clock the test moves by hand (seconds)."""

    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    try:
        with temporary_postgres() as url:
            yield url
    except RuntimeError as exc:  # the programs are missing: a failure that says how to get them
        pytest.fail(str(exc))


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'classes.sqlite3'}"
    url: str = request.getfixturevalue("postgres_url")
    engine = sa.create_engine(url)
    metadata.drop_all(engine)
    with engine.begin() as conn:  # version 1's tables, which a test of the move to version 2 makes
        for table in ("class_answers", "class_reveals", "class_seats", "class_rooms"):
            conn.execute(sa.text(f"DROP TABLE IF EXISTS {table}"))
    engine.dispose()
    return url


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def store(database_url: str, clock: Clock) -> Iterator[Store]:
    engine = open_engine(database_url)
    yield Store(engine, clock)
    engine.dispose()


@pytest.fixture(autouse=True)
def beacons(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The class beacons a test's teacher actions write (ui.class_beacon), in a folder of the test's
    own, not the app's static/class/."""
    from ui import class_beacon

    folder = tmp_path / "class"
    monkeypatch.setattr(class_beacon, "FOLDER", folder)
    class_beacon.usable.cache_clear()
    yield folder
    class_beacon.usable.cache_clear()
