"""A PostgreSQL server of the lab's own: a throwaway one in a temporary folder (the tests, the benchmarks),
or one whose data stays in a folder from one start to the next (``deploy/serve.py``: ``data/postgres/``).

Debian's ``postgresql`` package provides the programs (``scripts/ensure_debian.sh postgresql`` installs it).
The server listens on a free loopback port and a socket in its temporary folder, trusts local connections,
and is stopped (fast shutdown) when the ``with`` block ends. PostgreSQL refuses to run as root, so
as root the folder is given to the ``postgres`` user and the programs run as that user.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path


def _bindir() -> Path:
    found = shutil.which("pg_config")
    if found:
        out = subprocess.run([found, "--bindir"], capture_output=True, text=True, check=False).stdout.strip()
        if out and (Path(out) / "initdb").exists():
            return Path(out)
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if not candidates:
        raise RuntimeError(
            "PostgreSQL's server programs are missing: run `bash scripts/ensure_debian.sh postgresql` "
            "(Debian: apt-get install postgresql)"
        )
    return Path(candidates[-1]).parent


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _as_owner(cmd: list[str]) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *cmd] if os.geteuid() == 0 else cmd


@contextlib.contextmanager
def temporary_postgres(*, max_connections: int = 100) -> Iterator[str]:
    """Start a server with its data in a new temporary folder; yields its SQLAlchemy URL.

    The folder is made directly in the system's temporary directory: as root, the ``postgres`` user
    must be able to reach it, which a folder inside root's own private temporary folders is not.
    """
    bindir = _bindir()
    with tempfile.TemporaryDirectory(prefix="lab-postgres-") as name:
        with _server(bindir, Path(name), max_connections, durable=False) as url:
            yield url


@contextlib.contextmanager
def persistent_postgres(folder: Path, *, max_connections: int = 100) -> Iterator[str]:
    """Start a server whose data lives in ``folder`` (made and initialised on first use, reused after);
    yields its SQLAlchemy URL. Unlike the throwaway server it syncs to disk: a class's answers must
    survive a power cut, not only a restart.

    As root, ``folder`` is given to the ``postgres`` user, and every folder above it must let that user
    through (``/root`` does not: keep the clone elsewhere, or set ``LAB_DATABASE_URL``).
    """
    folder = folder.resolve()
    folder.mkdir(parents=True, exist_ok=True)
    if os.geteuid() == 0:
        probe = subprocess.run(_as_owner(["test", "-x", str(folder)]), check=False)
        if probe.returncode != 0:
            raise RuntimeError(
                f"the postgres user cannot reach {folder}: a folder above it is private. Move the lab, "
                "or point LAB_DATABASE_URL at a PostgreSQL of your own."
            )
    with _server(_bindir(), folder, max_connections, durable=True) as url:
        yield url


@contextlib.contextmanager
def _server(bindir: Path, folder: Path, max_connections: int, *, durable: bool) -> Iterator[str]:
    data, sock = folder / "data", folder / "sock"
    sock.mkdir(exist_ok=True)
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres")
        shutil.chown(sock, "postgres")
    port = _free_port()
    run = {"check": True, "capture_output": True, "text": True}
    if (data / "PG_VERSION").exists():  # a durable server's data from an earlier start
        # Still running if what started it was killed outright: stopped first, so this start owns it.
        pg_ctl = [str(bindir / "pg_ctl"), "-D", str(data)]
        if subprocess.run(_as_owner([*pg_ctl, "status"]), capture_output=True, check=False).returncode == 0:
            subprocess.run(_as_owner([*pg_ctl, "-m", "fast", "-w", "stop"]), capture_output=True, check=False)
        yield from _running(bindir, folder, port, max_connections, durable=durable)
        return
    subprocess.run(
        _as_owner(
            [
                str(bindir / "initdb"),
                "-D",
                str(data),
                "-U",
                "postgres",
                "--auth=trust",
                "-E",
                "UTF8",
                *([] if durable else ["--no-sync"]),
            ]
        ),
        **run,  # type: ignore[call-overload]
    )
    yield from _running(bindir, folder, port, max_connections, durable=durable)


def _running(bindir: Path, folder: Path, port: int, max_connections: int, *, durable: bool) -> Iterator[str]:
    """Start the server on ``folder / "data"``, yield its URL, stop it.

    A free port is free only until someone binds it: another test worker may take it before the
    server does. A start that lost its port (the log says the address is in use) is tried again on a
    new one, three times in all."""
    data, sock, log = folder / "data", folder / "sock", folder / "server.log"
    for attempt in range(3):
        options = f"-p {port} -k {sock} -c listen_addresses=127.0.0.1 -c max_connections={max_connections}"
        if not durable:  # a throwaway server's data need not survive a crash: no waiting for the disk
            options += " -c fsync=off"
        said_before = log.stat().st_size if log.exists() else 0
        start = [
            str(bindir / "pg_ctl"),
            "-D",
            str(data),
            "-o",
            options,
            "-l",
            str(log),
            "-w",
            "-t",
            "60",
            "start",
        ]
        try:
            subprocess.run(_as_owner(start), check=True, capture_output=True, text=True)
            break
        except subprocess.CalledProcessError:
            with log.open("rb") as f:
                f.seek(said_before)
                lost_the_port = b"Address already in use" in f.read()
            if attempt == 2 or not lost_the_port:
                raise
            port = _free_port()
    try:
        yield f"postgresql+psycopg://postgres@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run(
            _as_owner([str(bindir / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop"]),
            capture_output=True,
            check=False,
        )
