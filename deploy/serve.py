"""Serve the lab from several processes behind HAProxy, with one command.

Run from the repository root (or ``make class PROCESSES=2``)::

    .venv/bin/python deploy/serve.py --processes 2 --port 8501

One Streamlit process uses one core at most (a session's script runs in a thread, under one GIL), so a
class bigger than one process holds (``benchmarks/bench_class_mode.py``) needs several, on one machine or
more cores. This starts:

1. the class database: ``LAB_DATABASE_URL`` if set, else a PostgreSQL of the lab's own whose data stays
   in ``data/postgres/`` (a class's answers survive a restart of everything); every process must share
   one database, so SQLite is never used here;
2. ``--processes`` times ``streamlit run app.py`` on free loopback ports, all with that database and one
   cookie secret (the ``_streamlit_xsrf`` cookie one process sets is valid on the others);
3. HAProxy (Debian's ``haproxy``: ``bash scripts/ensure_debian.sh haproxy``) on ``--host``:``--port``, in the
   foreground, its configuration written from ``deploy/haproxy.cfg.j2`` into ``data/deploy/``: a cookie
   (``LABSERVER``) pins a browser to the process that holds its session; websockets pass through.

A lab process that exits is started again on its port; meanwhile its students' browsers reconnect
through HAProxy to another process and, their address carrying ``?class=..`` and their browser's
cookie the seat, sit in their seat again (their answers are in the database). Ctrl-C, SIGTERM or a
closed terminal stops everything, the database last; if serve.py is killed outright, the lab processes
and HAProxy go with it, and the next start stops the PostgreSQL left running on ``data/postgres/``
before starting it again.
Logs: ``data/deploy/lab-<i>.log``; HAProxy's lines go to this terminal.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import os
import secrets
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import jinja2

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from scripts.browser import lost_its_port  # noqa: E402
from scripts.postgres import _free_port, persistent_postgres, temporary_postgres  # noqa: E402

DATA = ROOT / "data"
TEMPLATE = Path(__file__).with_name("haproxy.cfg.j2")
COOKIE = "LABSERVER"
# SQLAlchemy's default pool per lab process (5 + 10 overflow), and room for psql and the benchmarks.
CONNECTIONS_PER_PROCESS = 15


@dataclass
class Lab:
    """One ``streamlit run app.py`` behind the balancer."""

    name: str
    port: int
    log: Path
    env: dict[str, str]
    proc: subprocess.Popen[bytes] | None = None
    restarts: int = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        cmd = [
            sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"),
            "--server.headless", "true", "--server.address", "127.0.0.1", "--server.port", str(self.port),
            "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none",
            "--logger.messageFormat", "%(asctime)s %(levelname)s %(name)s: %(message)s",
        ]  # fmt: skip
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(
                cmd,
                cwd=ROOT,
                env=self.env,
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,  # Ctrl-C in the terminal reaches serve.py, which stops it in order
                preexec_fn=_die_with_parent,
            )

    def healthy(self) -> bool:
        """It answers, and it is this process that answers: its own log names its address (a free port
        is free only until someone binds it, and another test's server may have)."""
        try:
            with urllib.request.urlopen(self.url + "/_stcore/health", timeout=2) as r:
                return r.status == 200 and self.url in self.log.read_text(errors="replace")
        except OSError:
            return False

    def lost_its_port(self) -> bool:
        """It exited because another process had bound its port first."""
        exited = self.proc is not None and self.proc.poll() is not None
        return exited and lost_its_port(self.log.read_text(errors="replace"), self.port)

    def stop(self) -> None:
        _stop(self.proc)


@dataclass
class Deployment:
    url: str  # the balancer's address
    database_url: str
    config: Path
    labs: list[Lab]
    haproxy: subprocess.Popen[bytes] | None = None
    events: list[str] = field(default_factory=list)

    def restart_exited(self) -> list[Lab]:
        """Start again every lab process that has exited; returns those restarted."""
        again = []
        for lab in self.labs:
            if lab.proc is not None and lab.proc.poll() is not None:
                code = lab.proc.returncode
                lab.restarts += 1
                lab.start()
                self.events.append(f"{lab.name} (port {lab.port}) exited with {code}; started again")
                again.append(lab)
        return again


def _die_with_parent() -> None:
    """In the child: SIGTERM when serve.py dies, even killed outright (Linux), so nothing is left running."""
    with contextlib.suppress(Exception):
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def _stop(proc: subprocess.Popen[bytes] | None, grace: float = 10.0) -> None:
    if proc is None or proc.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        proc.terminate()
    try:
        proc.wait(grace)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
        proc.wait()


def haproxy_binary() -> str:
    found = shutil.which("haproxy") or ("/usr/sbin/haproxy" if Path("/usr/sbin/haproxy").exists() else None)
    if found is None:
        raise RuntimeError(
            "HAProxy is missing: run `bash scripts/ensure_debian.sh haproxy` (apt-get install haproxy)"
        )
    return found


def render_config(labs: list[Lab], host: str, port: int, maxconn: int = 4096, token: str = "lab") -> str:
    env = jinja2.Environment(
        undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True, autoescape=False
    )
    template = env.from_string(TEMPLATE.read_text())
    return template.render(servers=labs, host=host, port=port, maxconn=maxconn, token=token)


def _wait(
    what: str, ready: Callable[[], bool], procs: list[subprocess.Popen[bytes] | None], timeout: float
) -> None:
    deadline = time.monotonic() + timeout
    while not ready():
        for p in procs:
            if p is not None and p.poll() is not None:
                raise RuntimeError(f"{what}: a process exited with {p.returncode} while starting")
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what}: not ready after {timeout:.0f} s")
        time.sleep(0.2)


@contextlib.contextmanager
def _database(database_url: str | None, processes: int, throwaway: bool) -> Iterator[str]:
    if database_url:
        yield database_url
        return
    connections = max(100, CONNECTIONS_PER_PROCESS * processes + 20)
    if throwaway:
        with temporary_postgres(max_connections=connections) as url:
            yield url
    else:
        with persistent_postgres(DATA / "postgres", max_connections=connections) as url:
            yield url


@contextlib.contextmanager
def deployment(
    processes: int = 2,
    *,
    port: int | None = None,
    host: str = "127.0.0.1",
    database_url: str | None = None,
    folder: Path = DATA / "deploy",
    throwaway_database: bool = False,
    haproxy_output: Path | None = None,
    timeout: float = 90.0,
) -> Iterator[Deployment]:
    """The database, ``processes`` lab processes and HAProxy on ``host:port`` (a free port if None),
    running; everything stopped when the block ends. ``throwaway_database``: a temporary PostgreSQL
    instead of ``data/postgres/`` (tests, benchmarks). ``haproxy_output``: a file for HAProxy's lines
    (default: this process's terminal)."""
    folder.mkdir(parents=True, exist_ok=True)
    binary = haproxy_binary()
    with contextlib.ExitStack() as stack:
        url = stack.enter_context(_database(database_url, processes, throwaway_database))
        env = os.environ | {
            "LAB_DATABASE_URL": url,
            "STREAMLIT_SERVER_COOKIE_SECRET": secrets.token_hex(32),
            "PYTHONUNBUFFERED": "1",
        }
        labs = [Lab(f"lab{i}", _free_port(), folder / f"lab{i}.log", env) for i in range(1, processes + 1)]
        for lab in labs:
            lab.log.write_bytes(b"")
            stack.callback(lab.stop)  # stopped in reverse order of starting, before the database
            lab.start()
        for attempt in range(3):  # a lab that lost its port to another process starts on a new one
            lost = [lab for lab in labs if lab.lost_its_port()]
            for lab in lost if attempt else ():
                lab.port = _free_port()
                lab.start()
            procs = [lab.proc for lab in labs]
            try:
                _wait("lab processes", lambda: all(lab.healthy() for lab in labs), procs, timeout)
                break
            except RuntimeError:
                if attempt == 2 or not any(lab.lost_its_port() for lab in labs):
                    raise
        out = stack.enter_context(haproxy_output.open("wb")) if haproxy_output else None
        token = secrets.token_hex(8)
        chosen = port is None  # a port of our choosing may be lost to another process: choose again
        for attempt in range(3 if chosen else 1):
            port = _free_port() if chosen else port
            config = folder / "haproxy.cfg"
            config.write_text(render_config(labs, host, port, token=token))
            check = subprocess.run([binary, "-c", "-q", "-f", str(config)], capture_output=True, text=True)
            if check.returncode != 0:
                raise RuntimeError(f"HAProxy refused {config}:\n{check.stdout}{check.stderr}")
            d = Deployment(
                f"http://{'127.0.0.1' if host in ('0.0.0.0', '::') else host}:{port}", url, config, labs
            )
            # -db: stay in the foreground, no daemon, so that stopping this process's child stops it.
            d.haproxy = subprocess.Popen(
                [binary, "-db", "-f", str(config)], stdout=out, stderr=subprocess.STDOUT if out else None,
                stdin=subprocess.DEVNULL, start_new_session=True, preexec_fn=_die_with_parent,
            )  # fmt: skip
            stack.callback(_stop, d.haproxy)

            def balancer_ok(d: Deployment = d) -> bool:
                try:
                    with urllib.request.urlopen(d.url + "/_stcore/health", timeout=2) as r:
                        return r.status == 200 and r.headers.get("X-Lab-Balancer") == token
                except OSError:
                    return False

            try:
                _wait("haproxy", balancer_ok, [d.haproxy], 30)
                break
            except RuntimeError:  # it exited: its port was taken
                if attempt == 2 or not chosen:
                    raise
        yield d


def _interrupt(*_: object) -> None:
    raise KeyboardInterrupt


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=int, default=2, help="lab processes (2; about one per core)")
    parser.add_argument("--port", type=int, default=8501, help="the balancer's port (8501)")
    parser.add_argument(
        "--host", default="0.0.0.0", help="the balancer's address (0.0.0.0: every interface, for a class)"
    )
    args = parser.parse_args()
    if args.processes < 1:
        parser.error("--processes: at least 1")
    # SIGTERM unwinds like Ctrl-C: haproxy, then the lab processes, then the database are stopped.
    signal.signal(signal.SIGTERM, _interrupt)
    signal.signal(signal.SIGHUP, _interrupt)  # the terminal window closed
    where = "LAB_DATABASE_URL" if os.environ.get("LAB_DATABASE_URL") else f"PostgreSQL in {DATA / 'postgres'}"
    print(f"starting {args.processes} lab processes, class data: {where} ...", flush=True)
    try:
        with deployment(
            args.processes, port=args.port, host=args.host, database_url=os.environ.get("LAB_DATABASE_URL")
        ) as d:
            ports = ", ".join(f"{lab.name} :{lab.port}" for lab in d.labs)
            print(f"serving on http://{args.host}:{args.port} ({ports}); config {d.config}", flush=True)
            print("Ctrl-C stops everything.", flush=True)
            while d.haproxy is not None and d.haproxy.poll() is None:
                time.sleep(1)
                for lab in d.restart_exited():
                    print(f"{lab.name} had exited: started again on port {lab.port}", flush=True)
            if d.haproxy is not None and d.haproxy.returncode:
                print(f"haproxy exited with {d.haproxy.returncode}; stopping", file=sys.stderr)
    except KeyboardInterrupt:
        print("stopping...", flush=True)


if __name__ == "__main__":
    main()
