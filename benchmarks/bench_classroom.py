"""How many students one server holds: N protocol-level sessions moving a slider, per N.

Run from the repository root (see ``benchmarks/README.md``)::

    .venv/bin/python benchmarks/bench_classroom.py [--ns 1,10,30,100,300] [--duration 20] [--page /mean]

No browsers: each session speaks the websocket protocol as the browser does (``scripts/session_client.py``
says how).

Unlike the browser, a session sends only the moved widget's state, not every mounted widget's
(the server keeps the others' previous values: same script work), and downloads no static assets.


Per N (1, 10, 30, 100, 300; stop once the rerun p95 passes ``--limit-ms``), a fresh server
(``scripts.browser.streamlit_server`` for the lab; the same ``streamlit run`` flags for a trivial app of
one ``st.slider`` and one 16-point ``st.plotly_chart``, the one ``bench_pages.py`` uses): N sessions
connect spread over ``--ramp`` seconds, then each loops for ``--duration`` seconds: think uniform
0.5-1.5 s, move the page's main slider (alternating between its value and one about a tenth of its range
away), time from sending the BackMsg to that run's ``script_finished``. Server CPU (user + system, psutil)
and RSS are sampled during the loops, RSS again ``--after`` seconds after every session closed.

``--same-server`` keeps one server per app for every N in turn instead, so ``--ns 100,100,100`` shows
whether memory stays flat from one class to the next. Streamlit keeps a closed session's state for
``server.disconnectedSessionTTL`` (120 s by default) in case its browser reconnects: use ``--after 150``
to see memory once they are gone. The server-log column then counts the whole log so far.

Prints tables; asserts nothing. The servers are always stopped (also on SIGTERM).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from scripts.browser import streamlit_server  # noqa: E402
from scripts.session_client import (  # noqa: E402
    ServerStats,
    Session,
    log_problems,
)

# Same as bench_pages.py's trivial page: one slider, one 16-point Plotly line that depends on it.
TRIVIAL_PAGE = textwrap.dedent(
    """
    import numpy as np
    import plotly.graph_objects as go
    import streamlit as st

    k = st.slider("k", 1, 20, 3, key="k")
    t = np.arange(16)
    st.plotly_chart(go.Figure(go.Scatter(x=t, y=np.sin(t * k / 10))), key="chart")
    """
)


# --- one N ---------------------------------------------------------------------------------------


@dataclass
class Row:
    n: int
    sessions_ok: int = 0
    load_ms: list[float] = field(default_factory=list)
    rerun_ms: list[float] = field(default_factory=list)  # includes cut-off reruns (time until the cut)
    unfinished: int = 0
    errors: list[str] = field(default_factory=list)
    window_s: float = 0.0
    cpu_s: float = 0.0
    client_cpu_s: float = 0.0
    rss_idle: float = 0.0
    rss_loaded: float = 0.0
    rss_peak: float = 0.0
    rss_after: float = 0.0
    conns_after: int | None = None
    log_count: int = 0
    log_first: list[str] = field(default_factory=list)
    control: str = ""
    load_before: float = 0.0
    load_after: float = 0.0

    @property
    def reruns(self) -> int:
        return len(self.rerun_ms) - self.unfinished

    def pct(self, q: float) -> float:
        if not self.rerun_ms:
            return float("nan")
        xs = sorted(self.rerun_ms)
        return xs[min(len(xs) - 1, max(0, round(q * (len(xs) - 1))))]


async def measure(proc: subprocess.Popen, base: str, page: str, n: int, args: argparse.Namespace) -> Row:
    row = Row(n, load_before=os.getloadavg()[0])
    stats = ServerStats(proc.pid)
    row.rss_idle = stats.rss_mb()
    sessions = [Session(base, page) for _ in range(n)]
    rng = random.Random(args.seed * 1000 + n)

    # 1. Everyone opens the page, spread over --ramp seconds.
    load_deadline = time.perf_counter() + args.ramp + args.load_timeout

    async def open_one(s: Session, delay: float) -> None:
        await asyncio.sleep(delay)
        try:
            await asyncio.wait_for(s.connect(), max(1.0, load_deadline - time.perf_counter()))
            out = await s.load(max(1.0, load_deadline - time.perf_counter()))
        except Exception as exc:
            row.errors.append(f"connect: {type(exc).__name__}: {exc}"[:160])
            await s.close()
            s.ws = None
            return
        if not out.finished:
            row.errors.append(f"page load not finished after {out.ms / 1e3:.0f} s")
            return
        row.load_ms.append(out.ms)
        row.errors += [f"load raised {e}" for e in out.exceptions]
        if s.page_not_found:
            row.errors.append(f"page_not_found for {page}")
        if s.control is None:
            row.errors.append("no slider/select_slider/number_input on the page")

    await asyncio.gather(*(open_one(s, i * args.ramp / max(1, n)) for i, s in enumerate(sessions)))
    ready = [s for s in sessions if s.ws is not None and s.control is not None and s.run_count > 0]
    row.sessions_ok = len(ready)
    if ready:
        row.control = ready[0].control.describe()  # type: ignore[union-attr]
    row.rss_loaded = stats.rss_mb()

    # 2. Everyone moves the slider for --duration seconds (think 0.5-1.5 s between moves).
    peak = row.rss_loaded
    t_start = time.perf_counter()
    stop_at = t_start + args.duration
    cpu0, ccpu0 = stats.cpu(), time.process_time()

    async def sample() -> None:
        nonlocal peak
        while True:
            await asyncio.sleep(0.5)
            with contextlib.suppress(Exception):
                peak = max(peak, stats.rss_mb())

    async def loop(s: Session, r: random.Random) -> None:
        i = 1  # the first move goes away from the loaded value
        await asyncio.sleep(r.uniform(0.5, 1.5))
        while time.perf_counter() < stop_at:
            out = await s.move(i, args.rerun_timeout)
            row.rerun_ms.append(out.ms)
            if not out.finished:
                row.unfinished += 1
                row.errors.append(f"rerun cut off after {out.ms / 1e3:.1f} s (--rerun-timeout or --grace)")
                return
            row.errors += [f"rerun raised {e}" for e in out.exceptions]
            i += 1
            think = r.uniform(0.5, 1.5)
            if time.perf_counter() + think >= stop_at:
                return
            await asyncio.sleep(think)

    sampler = asyncio.create_task(sample())
    tasks = [asyncio.create_task(loop(s, random.Random(rng.random()))) for s in ready]
    if tasks:
        # Runs still going at the end get --grace seconds; a cut-off run counts with its time so far.
        done, pending = await asyncio.wait(tasks, timeout=args.duration + args.grace)
        for t in pending:
            t.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
        for t in done:
            if t.exception() is not None:
                row.errors.append(f"session: {type(t.exception()).__name__}: {t.exception()}"[:160])
    row.window_s = time.perf_counter() - t_start
    row.cpu_s = stats.cpu() - cpu0
    row.client_cpu_s = time.process_time() - ccpu0
    sampler.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await sampler
    row.rss_peak = max(peak, stats.rss_mb())
    for s in sessions:
        if s.undecodable:
            row.errors.append(f"{s.undecodable} ForwardMsg(s) not decodable / unknown ref_hash")
        if s.unknown_types:
            row.errors.append(f"ForwardMsg without a type: {sorted(s.unknown_types)}")

    # 3. Everyone leaves; memory --after seconds later.
    await asyncio.gather(*(s.close() for s in sessions))
    await asyncio.sleep(args.after)
    samples = []
    for _ in range(3):
        samples.append(stats.rss_mb())
        await asyncio.sleep(0.3)
    row.rss_after = statistics.median(samples)
    row.conns_after = stats.established()
    row.load_after = os.getloadavg()[0]
    return row


# --- the tables ----------------------------------------------------------------------------------

HEADER = (
    f"{'N':>4} | {'ok':>4} | {'reruns':>6} | {'/s':>5} | {'median':>7} | {'p95':>7} | {'max':>7} | "
    f"{'cut':>3} | "
    f"{'CPU %':>6} | {'CPU s/rerun':>11} | {'RSS MB idle/loaded/peak/after':>29} | {'load p95':>8} | "
    f"{'client':>6} | {'errs':>4}"
)


def fmt_row(r: Row) -> str:
    rate = r.reruns / r.window_s if r.window_s else 0.0
    cpu_pct = 100 * r.cpu_s / r.window_s if r.window_s else 0.0
    per = f"{r.cpu_s / r.reruns:.3f}" if r.reruns else "n/a"
    client = 100 * r.client_cpu_s / r.window_s if r.window_s else 0.0
    load95 = (
        sorted(r.load_ms)[min(len(r.load_ms) - 1, round(0.95 * (len(r.load_ms) - 1)))] if r.load_ms else 0
    )
    rss = f"{r.rss_idle:.0f}/{r.rss_loaded:.0f}/{r.rss_peak:.0f}/{r.rss_after:.0f}"
    med = statistics.median(r.rerun_ms) if r.rerun_ms else 0.0
    return (
        f"{r.n:>4} | {r.sessions_ok:>4} | {r.reruns:>6} | {rate:>5.1f} | {med:>4.0f} ms | "
        f"{r.pct(0.95):>4.0f} ms | {max(r.rerun_ms, default=0):>4.0f} ms | {r.unfinished:>3} | "
        f"{cpu_pct:>5.0f}% | "
        f"{per:>11} | {rss:>29} | {load95 / 1e3:>6.1f} s | {client:>5.0f}% | {len(r.errors):>4}"
    )


def print_table(title: str, rows: list[Row]) -> None:
    print(title)
    if rows and rows[0].control:
        print(f"  control moved: {rows[0].control}")
    print("  " + HEADER)
    print("  " + "-" * len(HEADER))
    for r in rows:
        print("  " + fmt_row(r))
    for r in rows:
        notes = []
        if r.errors:
            distinct = list(dict.fromkeys(r.errors))
            notes.append(f"{len(r.errors)} errors, e.g. {distinct[:3]}")
        if r.log_count:
            notes.append(f"server log: {r.log_count} warning/error lines, e.g. {r.log_first}")
        for note in notes:
            print(f"  N={r.n}: {note}")
    print(
        f"  server TCP connections still ESTABLISHED {ARGS_AFTER:g} s after the clients left: "
        + ", ".join(f"N={r.n} {'n/a' if r.conns_after is None else r.conns_after}" for r in rows)
    )
    print(
        "  load average (1 min) before/after each N: "
        + ", ".join(f"N={r.n} {r.load_before:.1f}/{r.load_after:.1f}" for r in rows)
    )
    print()


ARGS_AFTER = 10.0


def new_server(name: str, log: Path, tmp: Path) -> contextlib.AbstractContextManager[tuple[Any, str]]:
    """A fresh server for the lab (``app.py``) or the trivial app, logging to ``log``."""
    if name == "lab":
        return streamlit_server(log)
    script = tmp / "trivial_app.py"
    script.write_text(TRIVIAL_PAGE)
    return streamlit_server(log, script=script)


def run_app(name: str, page: str, args: argparse.Namespace, tmp: Path) -> tuple[list[Row], str | None]:
    rows: list[Row] = []
    breaking: str | None = None
    with contextlib.ExitStack() as keep:
        served: tuple[Any, str] | None = None  # --same-server: one server for every N, in order
        for n in args.ns:
            log = tmp / (f"{name}_all.log" if args.same_server else f"{name}_{n}.log")
            t0 = time.perf_counter()
            if args.same_server:
                if served is None:
                    served = keep.enter_context(new_server(name, log, tmp))
                row = asyncio.run(measure(served[0], served[1], page, n, args))
            else:
                with new_server(name, log, tmp) as (proc, url):
                    row = asyncio.run(measure(proc, url, page, n, args))
            row.log_count, row.log_first = log_problems(log)
            rows.append(row)
            print(f"  · {name} N={n}: {fmt_row(row)}   [{time.perf_counter() - t0:.0f} s]", flush=True)
            if breaking is None and row.pct(0.95) > args.limit_ms:
                breaking = str(n)
            elif breaking is None and row.sessions_ok < n / 2:
                breaking = f"{n} (only {row.sessions_ok} sessions loaded)"
            if breaking is not None and not args.keep_going:
                break
    return rows, breaking


def main() -> None:
    global ARGS_AFTER
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ns", default="1,10,30,100,300", help="session counts (default 1,10,30,100,300)")
    parser.add_argument("--duration", type=float, default=20.0, help="seconds of slider moves per N (20)")
    parser.add_argument("--page", default="/mean", help="the lab's page, e.g. /depth_and_drift (/mean)")
    parser.add_argument("--apps", default="lab,trivial", help="lab, trivial or both (default lab,trivial)")
    parser.add_argument(
        "--ramp", type=float, default=5.0, help="sessions connect spread over this many s (5)"
    )
    parser.add_argument(
        "--load-timeout", type=float, default=90.0, help="page-load limit after the ramp (90 s)"
    )
    parser.add_argument("--rerun-timeout", type=float, default=60.0, help="one rerun's limit (60 s)")
    parser.add_argument("--grace", type=float, default=15.0, help="time for runs going at the end (15 s)")
    parser.add_argument("--after", type=float, default=10.0, help="RSS this many s after all left (10)")
    parser.add_argument("--limit-ms", type=float, default=1000.0, help="stop once rerun p95 passes it (1000)")
    parser.add_argument("--keep-going", action="store_true", help="measure every N, past the breaking one")
    parser.add_argument("--seed", type=int, default=0, help="think-time seed (0)")
    parser.add_argument(
        "--same-server",
        action="store_true",
        help="one server per app for every N in turn (e.g. --ns 100,100,100: does memory stay flat "
        "from one class to the next?); default a fresh server per N",
    )
    args = parser.parse_args()
    args.ns = [int(x) for x in args.ns.split(",") if x.strip()]
    ARGS_AFTER = args.after
    apps = [a.strip() for a in args.apps.split(",") if a.strip()]
    page = "/" + args.page.strip("/")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # run the finally blocks (stop servers) on kill
    os.chdir(ROOT)
    import streamlit
    import websockets

    t_all = time.perf_counter()
    try:
        import psutil  # noqa: F401

        source = "psutil"
    except ImportError:
        source = "/proc"
    print(
        f"streamlit {streamlit.__version__}, websockets {websockets.__version__}; {os.cpu_count()} cores; "
        f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}; server CPU/RSS from {source}"
    )
    print(
        f"N in {args.ns}, {args.duration:g} s of moves per N (think 0.5-1.5 s), "
        f"connect ramp {args.ramp:g} s, "
        f"stop at rerun p95 > {args.limit_ms:g} ms; RSS after: {args.after:g} s after the last session closed"
    )
    print()
    results: dict[str, tuple[list[Row], str | None]] = {}
    with tempfile.TemporaryDirectory(prefix="bench_classroom_") as tmp:
        for name in apps:
            where = page if name == "lab" else "/"
            what = f"app.py, page {where}" if name == "lab" else "one st.slider + one st.plotly_chart"
            print(f"{name}: {what}")
            results[name] = run_app(name, where, args, Path(tmp))
            print()
    print(
        "Columns: ok = sessions that loaded; reruns = finished reruns in the window, /s per second; "
        "median/p95/max = BackMsg sent → script_finished (cut = runs cut off at the end, counted with their "
        "time so far); CPU % = server user+system CPU over the window, of one core; CPU s/rerun = that CPU "
        "/ reruns; RSS: idle server (--same-server: before this N), all sessions loaded, peak during the "
        "moves, after; load p95 = page "
        "open → first script_finished; client = this process's CPU %; errs = exceptions, timeouts, "
        "failed connects."
    )
    print()
    for name, (rows, _) in results.items():
        what = f"lab (app.py, {page})" if name == "lab" else "trivial app (1 slider + 1 Plotly line)"
        print_table(what, rows)

    def say(name: str) -> str:
        if name not in results:
            return "not run"
        rows, breaking = results[name]
        if breaking is not None:
            return breaking
        return f"none up to {rows[-1].n}" if rows else "n/a"

    print(
        f"breaking N (first N with p95 > {args.limit_ms / 1e3:g} s): "
        f"lab {say('lab')}, trivial {say('trivial')}"
    )
    print(
        f"total {time.perf_counter() - t_all:.0f} s; load average at the end "
        f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}"
    )


if __name__ == "__main__":
    main()
