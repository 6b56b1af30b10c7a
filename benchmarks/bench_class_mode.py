"""A class in class mode: N students and their teacher on the Mean page, from 1 process or several.

Run from the repository root (see ``benchmarks/README.md``)::

    .venv/bin/python benchmarks/bench_class_mode.py [--ns 30,150] [--processes 1,2] [--duration 30]
    .venv/bin/python benchmarks/bench_class_mode.py --ns 100 --processes 2 --kill-at 12   # the fault run

No browsers: the protocol-level sessions of ``scripts/session_client.py`` (read its docstring). Per
layout and N, a fresh ``deploy.serve.deployment`` (1 process: the lab process directly; 2 or more:
behind HAProxy, the sessions pinned by its cookie) on one PostgreSQL shared by every run. The class
is made with the store (``Store.start``, one ``Store.join`` per student); then

- the teacher opens ``/mean?class=CODE&teach=KEY``;
- the students open ``/mean?class=CODE&seat=SEAT``, spread over ``--ramp`` seconds;
- for ``--duration`` seconds each student moves Mean's slider (think 0.5-1.5 s, the first move 0-1.5 s
  into the window; none with ``--question-only``, the moment a question is up) and, once, at a random
  time in the first 60 % of the window, answers ``mean_q`` (the right option, index 1): the radio's
  ``string_value`` sent as the box's fragment rerun, as the browser does; the answer counts as *accepted*
  when that run shows "Your answer is in";
- every session also does what the browser's timers do: each ``auto_rerun`` the server asked for (the
  students' class panel every 4 s, the teacher's box every 1 s and roster every 2 s) is
  sent as an ``is_auto_rerun`` fragment rerun on time, each timer's first run at a random point of its
  period (a browser's timers start when its page loaded, during the ramp). A session sends one run at a
  time (a move waits for a poll going on, and the reverse); a run's time is counted from its send.
  Why the random starts: started together, 150 students' first moves land in one millisecond, which no
  class does; those 150 runs (4 % of the moves) took ~0.7 s and set the p95 alone.

Reported: slider p50/p95; answer → teacher's chart (answer sent → the first "K answers from the class" on
the teacher's screen with K at least its rank among the accepted answers) p50/p95; answers accepted / in
the database; each lab process's CPU and RSS, HAProxy's CPU, this client's CPU (it shares the cores).

``--kill-at S``: S seconds into the window, SIGKILL the lab process holding the most students but not the
teacher. Its students reconnect as a browser does (same URL and cookies, again every 0.5 s; HAProxy
sends them to a live process); those not yet accepted answer again. Reported: answers lost (accepted,
not in the database), kill → first finished run after reconnecting, who saw their answer in again.

Prints tables; asserts nothing. Everything it started is stopped at the end (also on SIGTERM).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import re
import signal
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
import sqlalchemy as sa  # noqa: E402

from classroom.store import Store, answers, open_engine  # noqa: E402
from deploy.serve import COOKIE, deployment  # noqa: E402
from scripts.postgres import temporary_postgres  # noqa: E402
from scripts.session_client import ServerStats, Session, pick_control  # noqa: E402

QUESTION, RIGHT = "mean_q", 1
COUNT = re.compile(r"(\d+) answers? from the class")
ANSWER_IN = "Your answer is in"


def pct(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    s = sorted(xs)
    return s[min(len(s) - 1, max(0, round(q * (len(s) - 1))))]


class Member(Session):
    """A student or the teacher: a ``Session`` that also keeps the page's timers and reads its text."""

    def __init__(self, base: str, query: str) -> None:
        super().__init__(base, "/mean")
        self.query_string = query
        self.lock = asyncio.Lock()
        self.polls: dict[str, float] = {}  # fragment id -> run_every seconds
        self.texts: list[str] = []  # this run's markdown and text bodies
        self.radio: tuple[str, list[str], str] | None = None  # mean_q's widget id, options, fragment id
        self.counts: list[tuple[float, int]] = []  # the teacher's "K answers from the class", when seen
        self.on_message = self._seen
        self.down = False  # reconnecting: its timers wait

    def _seen(self, kind: str | None, msg: Any) -> None:
        if kind == "auto_rerun":
            self.polls[msg.auto_rerun.fragment_id] = msg.auto_rerun.interval
        elif kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
            el_kind = msg.delta.new_element.WhichOneof("type")
            el = getattr(msg.delta.new_element, el_kind)
            if el_kind in ("markdown", "text"):
                self.texts.append(el.body)
                if m := COUNT.search(el.body):
                    self.counts.append((time.perf_counter(), int(m.group(1))))
            elif el_kind == "radio" and el.label == "Your prediction":
                self.radio = (el.id, list(el.options), msg.delta.fragment_id)

    @property
    def server(self) -> str:
        return next((c.value for c in self.jar if c.name == COOKIE), "direct")

    async def run(self, payload_of: Any, timeout: float) -> tuple[float, bool, list[str]]:
        """One run at a time per session: (ms, finished, the run's texts)."""
        async with self.lock:
            self.texts = []
            out = await self._run(payload_of(), timeout)
            return out.ms, out.finished, self.texts

    async def open(self, timeout: float) -> bool:
        await asyncio.wait_for(self.connect(), timeout)
        _, finished, _ = await self.run(lambda: self._rerun_msg(first=True), timeout)
        self.control = pick_control(self.elements)
        return finished and self.control is not None


@dataclass
class Result:
    layout: str
    n: int
    loaded: int = 0
    slider_ms: list[float] = field(default_factory=list)
    poll_ms: list[float] = field(default_factory=list)
    answer_ms: list[float] = field(default_factory=list)  # answer sent -> teacher's chart
    sent: dict[str, float] = field(default_factory=dict)  # seat -> when its accepted answer was sent
    accepted_at: dict[str, float] = field(default_factory=dict)
    in_db: int = 0
    lost: int = 0  # accepted by a client, not in the database
    not_on_chart: int = 0
    cpu_pct: list[float] = field(default_factory=list)  # per lab process
    rss_mb: list[float] = field(default_factory=list)
    haproxy_cpu_pct: float = 0.0
    cpu_ms_per_run: float = float("nan")  # the live processes' CPU / their finished runs
    client_cpu_pct: float = 0.0
    errors: list[str] = field(default_factory=list)
    reconnect_s: list[float] = field(default_factory=list)
    killed: str = ""
    killed_students: int = 0
    saw_answer_again: int = 0
    answered_before_kill: int = 0  # of the killed process's students


async def measure(d: Any, store: Store, layout: str, n: int, args: argparse.Namespace) -> Result:
    res = Result(layout, n)
    started = store.start()
    seats = [store.join(started.code, f"s{i}") for i in range(n)]
    base = d.labs[0].url if len(d.labs) == 1 else d.url
    teacher = Member(base, f"class={started.code}&teach={started.teacher_key}")
    students = {seat: Member(base, f"class={started.code}&seat={seat}") for seat in seats}
    deadline = time.perf_counter() + args.ramp + args.load_timeout
    if not await teacher.open(args.load_timeout):
        res.errors.append("the teacher's page did not load")

    async def open_one(s: Member, delay: float) -> None:
        await asyncio.sleep(delay)
        try:
            if await s.open(max(1.0, deadline - time.perf_counter())):
                res.loaded += 1
        except Exception as exc:
            res.errors.append(f"load: {type(exc).__name__}: {exc}"[:120])

    await asyncio.gather(*(open_one(s, i * args.ramp / n) for i, s in enumerate(students.values())))
    stats = [ServerStats(lab.proc.pid) for lab in d.labs]
    hap = ServerStats(d.haproxy.pid) if len(d.labs) > 1 else None
    cpu0, hcpu0 = [s.cpu() for s in stats], hap.cpu() if hap else 0.0
    ccpu0, t0 = time.process_time(), time.perf_counter()
    stop_at = t0 + args.duration
    killed, killed_at, peak = asyncio.Event(), 0.0, [s.rss_mb() for s in stats]

    async def reconnect(s: Member) -> None:
        """As the browser: the same URL and cookies, again every 0.5 s until a page run finishes."""
        with contextlib.suppress(Exception):
            await asyncio.wait_for(s.ws.close(), 1)
        while time.perf_counter() < stop_at + args.grace:
            s.lock = asyncio.Lock()  # a run cut by the lost connection leaves nothing to wait for
            with contextlib.suppress(Exception):
                if await s.open(10):
                    return
            await asyncio.sleep(0.5)

    async def timers(s: Member, r: random.Random) -> None:
        due: dict[str, float] = {}
        while time.perf_counter() < stop_at + (args.grace if s is teacher else 0):
            now = time.perf_counter()
            for fid, every in list(s.polls.items()):
                if s.down:
                    break
                due.setdefault(fid, now + r.uniform(0, every))  # a browser's timer starts at its page's load
                if now >= due[fid]:
                    due[fid] = now + every
                    with contextlib.suppress(Exception):  # a lost connection: the student's loop reconnects
                        ms, _, _ = await s.run(lambda f=fid: s._rerun_msg(fragment_id=f, auto=True), 30)
                        res.poll_ms.append(ms)
            await asyncio.sleep(0.05)

    async def answer(seat: str, s: Member) -> bool:
        assert s.radio is not None
        from streamlit.proto.WidgetStates_pb2 import WidgetState

        wid, options, fid = s.radio
        t_sent = time.perf_counter()
        state = WidgetState(id=wid, string_value=options[RIGHT])
        _, ok, texts = await s.run(lambda: s._rerun_msg(state, fragment_id=fid), 30)
        if ok and any(ANSWER_IN in t for t in texts):
            res.sent[seat], res.accepted_at[seat] = t_sent, time.perf_counter()
            return True
        return False

    async def student(seat: str, s: Member, r: random.Random) -> None:
        answer_at = t0 + r.uniform(0.05, 0.6) * args.duration
        i = 1
        await asyncio.sleep(r.uniform(0, 1.5))  # students do not all move in the window's first millisecond
        timer = asyncio.create_task(timers(s, r))
        try:
            while time.perf_counter() < stop_at:
                try:
                    if seat not in res.sent and s.radio and time.perf_counter() >= answer_at:
                        await answer(seat, s)
                    if args.question_only:  # the room thinks and answers; nobody moves a slider
                        await asyncio.sleep(0.1)
                        continue
                    c = s.control
                    assert c is not None
                    state = c.state(i)
                    ms, _, _ = await s.run(lambda: s._rerun_msg(state, fragment_id=c.fragment_id), 30)  # noqa: B023
                    res.slider_ms.append(ms)
                    i += 1
                except Exception as exc:  # the process went away: reconnect as the browser does
                    if not killed.is_set():
                        res.errors.append(f"run: {type(exc).__name__}"[:80])
                    s.down = True
                    await reconnect(s)
                    s.down = False
                    if killed.is_set():
                        res.reconnect_s.append(time.perf_counter() - killed_at)
                    if seat in res.sent and any(ANSWER_IN in t for t in s.texts):
                        res.saw_answer_again += 1
                    continue
                await asyncio.sleep(r.uniform(0.5, 1.5))
        finally:
            timer.cancel()

    async def killer() -> None:
        nonlocal killed_at
        await asyncio.sleep(args.kill_at)
        by_server: dict[str, int] = {}
        for s in students.values():
            by_server[s.server] = by_server.get(s.server, 0) + 1
        victims = [lab for lab in d.labs if lab.name != teacher.server]
        lab = max(victims, key=lambda lab: by_server.get(lab.name, 0))
        res.killed, res.killed_students = lab.name, by_server.get(lab.name, 0)
        res.answered_before_kill = sum(
            1 for seat, s in students.items() if s.server == lab.name and seat in res.sent
        )
        killed_at = time.perf_counter()
        killed.set()
        lab.proc.kill()

    async def sample() -> None:
        while True:
            await asyncio.sleep(0.5)
            for k, s in enumerate(stats):
                with contextlib.suppress(Exception):
                    peak[k] = max(peak[k], s.rss_mb())

    rng = random.Random(args.seed * 1000 + n)
    ready = {seat: s for seat, s in students.items() if s.control is not None}
    aux = [asyncio.create_task(sample()), asyncio.create_task(timers(teacher, random.Random(args.seed)))]
    if args.kill_at:
        aux.append(asyncio.create_task(killer()))
    tasks = [asyncio.create_task(student(seat, s, random.Random(rng.random()))) for seat, s in ready.items()]
    await asyncio.wait(tasks, timeout=args.duration + args.grace)
    window = time.perf_counter() - t0
    await asyncio.sleep(max(0.0, stop_at + args.grace - time.perf_counter()))  # the teacher's last polls
    for t in tasks + aux:
        t.cancel()
    await asyncio.gather(*tasks, *aux, return_exceptions=True)
    # A killed process's CPU is no longer readable: its share is left out (nan).
    alive = [lab.proc.poll() is None for lab in d.labs]
    res.cpu_pct = [
        100 * (s.cpu() - c) / window if a else float("nan")
        for s, c, a in zip(stats, cpu0, alive, strict=True)
    ]
    res.rss_mb = peak
    runs = len(res.slider_ms) + len(res.poll_ms) + len(res.sent)
    if all(alive) and runs:
        res.cpu_ms_per_run = sum(res.cpu_pct) * window * 10 / runs
    res.haproxy_cpu_pct = 100 * (hap.cpu() - hcpu0) / window if hap else 0.0
    res.client_cpu_pct = 100 * (time.process_time() - ccpu0) / window
    # The k-th accepted answer (by acceptance) is on the teacher's chart once it shows k answers.
    order = sorted(res.accepted_at, key=lambda seat: res.accepted_at[seat])
    for k, seat in enumerate(order, start=1):
        seen = [t for t, count in teacher.counts if count >= k and t >= res.sent[seat]]
        if seen:
            res.answer_ms.append((seen[0] - res.sent[seat]) * 1e3)
        else:
            res.not_on_chart += 1
    with store.engine.connect() as conn:
        rows = conn.execute(
            sa.select(answers.c.seat).where(answers.c.room == started.code, answers.c.question == QUESTION)
        ).all()
    res.in_db = len(rows)
    res.lost = len(set(res.sent) - {row.seat for row in rows})
    await asyncio.gather(*(s.close() for s in [teacher, *students.values()]))
    return res


# --- the tables ----------------------------------------------------------------------------------

HEADER = (
    f"{'layout':<22} | {'N':>4} | {'ok':>4} | {'moves':>5} | {'slider p50':>10} | {'p95':>6} | "
    f"{'polls':>5} | {'poll p95':>8} | {'answer→chart p50':>16} | {'p95':>6} | {'accepted/in DB':>14} | "
    f"{'lab CPU % (each)':>18} | {'CPU ms/run':>10} | {'RSS MB (each)':>13} | {'HAProxy':>7} | "
    f"{'client':>6} | {'errs':>4}"
)


def fmt(r: Result) -> str:
    cpu = "/".join("killed" if x != x else f"{x:.0f}" for x in r.cpu_pct)
    rss = "/".join(f"{x:.0f}" for x in r.rss_mb)
    return (
        f"{r.layout:<22} | {r.n:>4} | {r.loaded:>4} | {len(r.slider_ms):>5} | "
        f"{pct(r.slider_ms, 0.5):>7.0f} ms | {pct(r.slider_ms, 0.95):>6.0f} | {len(r.poll_ms):>5} | "
        f"{pct(r.poll_ms, 0.95):>5.0f} ms | {pct(r.answer_ms, 0.5):>13.0f} ms | "
        f"{pct(r.answer_ms, 0.95):>6.0f} | "
        f"{len(r.sent):>6}/{r.in_db:<7} | {cpu:>18} | {r.cpu_ms_per_run:>10.1f} | {rss:>13} | "
        f"{r.haproxy_cpu_pct:>6.1f}% | "
        f"{r.client_cpu_pct:>5.0f}% | {len(r.errors):>4}"
    )


def notes(r: Result) -> list[str]:
    out = []
    if r.not_on_chart:
        out.append(f"{r.not_on_chart} accepted answers never reached the teacher's chart")
    if r.killed:
        out.append(
            f"killed {r.killed} ({r.killed_students} students on it); answers lost {r.lost} "
            f"(accepted {len(r.sent)}, in the database {r.in_db}); reconnected {len(r.reconnect_s)}: kill → "
            f"first finished run p50 {pct(r.reconnect_s, 0.5):.1f} s, p95 {pct(r.reconnect_s, 0.95):.1f} s, "
            f"max {max(r.reconnect_s, default=float('nan')):.1f} s; {r.saw_answer_again} of the "
            f"{r.answered_before_kill} who had answered before the kill saw their answer in again"
        )
    elif r.lost:
        out.append(f"answers lost: {r.lost}")
    if r.errors:
        out.append(f"errors, e.g. {list(dict.fromkeys(r.errors))[:3]}")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ns", default="30,150", help="students per class (30,150)")
    parser.add_argument("--processes", default="1,2", help="lab processes per layout (1,2; 1 = no HAProxy)")
    parser.add_argument("--duration", type=float, default=30.0, help="seconds of class per run (30)")
    parser.add_argument("--ramp", type=float, default=10.0, help="students connect over this many s (10)")
    parser.add_argument(
        "--load-timeout", type=float, default=90.0, help="page-load limit after the ramp (90)"
    )
    parser.add_argument("--grace", type=float, default=5.0, help="the teacher polls this long after (5 s)")
    parser.add_argument("--kill-at", type=float, default=0.0, help="kill a lab process this many s in (off)")
    parser.add_argument(
        "--question-only",
        action="store_true",
        help="students only answer (and keep their timers): a question's moment, no slider moves",
    )
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    ns = [int(x) for x in args.ns.split(",") if x.strip()]
    layouts = [int(x) for x in args.processes.split(",") if x.strip()]
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # stop the servers on kill too
    os.chdir(ROOT)
    print(f"{os.cpu_count()} cores; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"N in {ns}, processes {layouts}, {args.duration:g} s per run, ramp {args.ramp:g} s", flush=True)
    results: list[Result] = []
    t_all = time.perf_counter()
    with temporary_postgres() as url, tempfile.TemporaryDirectory(prefix="bench_class_mode_") as tmp:
        store = Store(open_engine(url))
        for p in layouts:
            for n in ns:
                layout = "1 process" if p == 1 else f"{p} processes + HAProxy"
                folder = Path(tmp) / f"p{p}_n{n}"
                t0 = time.perf_counter()
                with deployment(
                    p, database_url=url, folder=folder, haproxy_output=folder / "haproxy.log"
                ) as d:
                    r = asyncio.run(measure(d, store, layout, n, args))
                results.append(r)
                print(f"  · {fmt(r)}   [{time.perf_counter() - t0:.0f} s]", flush=True)
    print()
    print(
        "Columns: ok = students whose page loaded; moves = finished slider reruns, p50/p95 from send to "
        "script_finished; polls = the timers' fragment reruns; answer→chart = answer sent → teacher's chart "
        "counts it; accepted = answers a student saw in; lab CPU = each process's user+system CPU over "
        "the window, % of one core; CPU ms/run = their CPU / every finished run (moves, polls, answers), "
        "what one student's action costs; RSS = each process's peak; HAProxy = its CPU; client = this "
        "process's CPU."
    )
    print("  " + HEADER)
    for r in results:
        print("  " + fmt(r))
        for note in notes(r):
            print(f"    {r.layout}, N={r.n}: {note}")
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"total {time.perf_counter() - t_all:.0f} s; load average {load}")


if __name__ == "__main__":
    main()
