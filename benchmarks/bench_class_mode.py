"""A class in class mode: N students and their teacher on the Mean page, from 1 process or several.

Run from the repository root (see ``benchmarks/README.md``)::

    .venv/bin/python benchmarks/bench_class_mode.py [--ns 30,150] [--processes 1,2] [--duration 30]
    .venv/bin/python benchmarks/bench_class_mode.py --ns 300 --processes 2 --paced --think 3,10 --duration 60
    .venv/bin/python benchmarks/bench_class_mode.py --ns 120 --processes 2 --paced --kill-at 20  # a fault

No browsers: the protocol-level sessions of ``scripts/session_client.py`` (read its docstring). Per
layout and N, a fresh ``deploy.serve.deployment`` (1 process: the lab process directly; 2 or more:
behind HAProxy, the sessions pinned by its cookie) on one PostgreSQL shared by every run. The class
is made with the store (``Store.start``, one ``Store.join`` per student); then

- the teacher opens ``/mean?class=CODE&teach=KEY``;
- the students open ``/mean?class=CODE`` with their seat in the ``lab_seat`` cookie (as a browser that
  joined keeps it), spread over ``--ramp`` seconds;
- for ``--duration`` seconds each student releases Mean's slider every ``--think`` seconds (uniform;
  0.5-1.5 s is the busy model, 3-10 s a class's pace; the first release within the first interval,
  none with ``--question-only``) and, once, at a random time in the first 60 % of the question's time
  (the window, or with ``--paced`` the time before the teacher's first move), answers ``mean_q`` (the
  right option): the radio's ``string_value`` sent as the box's fragment rerun, as the browser does;
  the answer counts as *accepted* when that run shows "Your answer is in";
- each student also does what ``ui/class_beacon.js`` does: it reads ``static/class/<CODE>.json`` every
  1 s ± 25 % and, when the version moved past the one its page drew (or after 30 s with no panel run),
  sends the beacon's trigger as a fragment rerun of the class panel; no timer ticks for a student. The
  teacher's screen keeps its timers: each ``auto_rerun`` the server asked for (the question box every
  1 s, the roster every 2 s) is sent as an ``is_auto_rerun`` fragment rerun on time, each timer's first
  run at a random point of its period. A session sends one run at a time (a release waits for a
  panel run going on, and the reverse); a run's time is counted from its send.
- ``--paced``: the room is teacher-paced (``Store.set_paced``, led to ``/mean``) and every
  ``--lead-every`` seconds (uniform) the teacher moves it to the other of ``/variance`` and ``/mean``
  as the teacher's panel does: ``Store.lead``, then the beacon written with the room's new version
  (``ui.class_beacon.write``, what ``room_changed`` does). The teacher's own screen stays on Mean (its
  chart is what *answer → chart* reads). A student who followed moves the new page's slider.

Reported: slider p50/p95; *follow*: a move's beacon written → the end of the student's run that showed
the new page, p50/p95 over every student and move, and per move the slowest student; answer → teacher's
chart (answer sent → the first "K answers from the class" on the teacher's screen with K at least its
rank among the accepted answers) p50/p95; answers accepted / in the database / lost; each lab
process's CPU and RSS, HAProxy's CPU, this client's CPU (it shares the cores), the load average.

``--kill-at S``: S seconds into the window, SIGKILL the lab process holding the most students but not the
teacher. Its students notice as the browser does (their websocket closes) and reconnect: the same
address and cookies (the seat's too), again every 0.5 s; HAProxy sends them to a live process; those
not yet accepted answer again. Reported: answers lost (accepted, not in the database), kill → first
finished run after reconnecting p50/p95, who saw their answer in again, and (paced) who came back on
the teacher's page and who followed the moves after the kill.

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
from scripts.session_client import (  # noqa: E402
    SEAT_COOKIE,
    Beacon,
    ServerStats,
    Session,
    beacon_drawn,
    beacon_trigger,
    pick_control,
    read_beacon,
)
from ui import class_beacon  # noqa: E402

QUESTION, RIGHT = "mean_q", 1
PAGES = ("/mean", "/variance")  # where a paced teacher leads the room, in turn
COUNT = re.compile(r"(\d+) answers? from the class")
ANSWER_IN = "Your answer is in"
FOLLOW_LIMIT_S = 30.0  # after the window, how long students may take to follow the last move


def pct(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    s = sorted(xs)
    return s[min(len(s) - 1, max(0, round(q * (len(s) - 1))))]


def machine_busy() -> tuple[float, float]:
    """(busy, total) CPU seconds of the whole machine so far (/proc/stat): what else ran shows here."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    tick = os.sysconf("SC_CLK_TCK")
    total = sum(fields[:8]) / tick
    return total - (fields[3] + fields[4]) / tick, total


def span(text: str) -> tuple[float, float]:
    lo, hi = (float(x) for x in text.split(","))
    return lo, hi


class Member(Session):
    """A student or the teacher: a ``Session`` that also keeps the page's timers and beacon, and reads
    its text."""

    def __init__(self, base: str, query: str) -> None:
        super().__init__(base, "/mean")
        self.query_string = query
        self.lock = asyncio.Lock()
        self.polls: dict[str, float] = {}  # fragment id -> run_every seconds
        self.texts: list[str] = []  # this run's markdown and text bodies
        self.radio: tuple[str, list[str], str] | None = None  # mean_q's widget id, options, fragment id
        self.counts: list[tuple[float, int]] = []  # the teacher's "K answers from the class", when seen
        self.beacon = Beacon()
        self.pages: dict[str, str] = {}  # page script hash -> "/variance"
        self.moved = False  # this run drew another page (a navigation message)
        self.followed = 0  # the last teacher's move this student was seen to follow
        self.seat = ""
        self.on_message = self._seen
        self.down = False  # reconnecting: its loops wait

    def _seen(self, kind: str | None, msg: Any) -> None:
        if kind == "auto_rerun":
            self.polls[msg.auto_rerun.fragment_id] = msg.auto_rerun.interval
        elif kind == "navigation":
            self.pages.update(
                {p.page_script_hash: "/" + p.url_pathname.strip("/") for p in msg.navigation.app_pages}
            )
            page = self.pages.get(msg.navigation.page_script_hash)
            if page is not None and page != self.page:
                self.page, self.moved, self.radio, self.polls = page, True, None, {}
        elif kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
            el_kind = msg.delta.new_element.WhichOneof("type")
            el = getattr(msg.delta.new_element, el_kind)
            if el_kind in ("markdown", "text"):
                self.texts.append(el.body)
                if m := COUNT.search(el.body):
                    self.counts.append((time.perf_counter(), int(m.group(1))))
            elif el_kind == "radio" and el.id.endswith(f"{QUESTION}_guess"):
                self.radio = (el.id, list(el.options), msg.delta.fragment_id)
            elif (found := beacon_drawn(msg)) is not None:
                self.beacon.drawn(found, time.perf_counter())

    @property
    def server(self) -> str:
        return next((c.value for c in self.jar if c.name == COOKIE), "direct")

    @property
    def cookies(self) -> str:
        return "; ".join(f"{c.name}={c.value}" for c in self.jar)

    async def run(self, payload_of: Any, timeout: float) -> tuple[float, bool, list[str]]:
        """One run at a time per session: (ms, finished, the run's texts)."""
        async with self.lock:
            self.texts, self.moved = [], False
            out = await self._run(payload_of(), timeout)
            if self.moved:  # the class panel switched the page: its slider is the one to move now
                self.control = pick_control(self.elements)
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
    think: str = ""
    paced: bool = False
    loaded: int = 0
    slider_ms: list[float] = field(default_factory=list)
    slider_at: list[tuple[float, float]] = field(default_factory=list)  # (sent, ms)
    slider_calm_ms: list[float] = field(default_factory=list)  # sent while no move was being followed
    poll_ms: list[float] = field(default_factory=list)  # the teacher's timed runs
    panel_ms: list[float] = field(default_factory=list)  # the students' beacon-asked panel runs
    reads: int = 0  # beacon reads
    follow_s: list[float] = field(default_factory=list)  # beacon written -> the new page's run done
    moves: list[tuple[float, str, int, int, float]] = field(
        default_factory=list
    )  # at, page, followed, of, slowest
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
    window: float = 0.0  # seconds measured: the window, and the last move followed
    machine_pct: float = 0.0  # the whole machine's busy CPU over the window, % of one core
    others_pct: float = 0.0  # of which neither the lab processes, HAProxy nor this client (PostgreSQL, ...)
    load: tuple[float, float, float] = (0.0, 0.0, 0.0)  # at the end of the window
    errors: list[str] = field(default_factory=list)
    reconnect_s: list[float] = field(default_factory=list)
    killed: str = ""
    killed_at: float = 0.0  # seconds into the window
    killed_students: int = 0
    saw_answer_again: int = 0
    could_see_answer: int = 0  # reconnected students who had answered, back on Mean
    answered_before_kill: int = 0  # of the killed process's students
    back_on_lead: int = 0  # reconnected students whose first run after it showed the lead page
    later_moves: list[tuple[int, int]] = field(
        default_factory=list
    )  # after the kill: (followed, of) its students


async def measure(d: Any, store: Store, layout: str, n: int, args: argparse.Namespace) -> Result:
    res = Result(layout, n, args.think, args.paced)
    think = span(args.think)
    started = store.start()
    code, key = started.code, started.teacher_key
    class_beacon.write(code, 0, fresh=True)  # the teacher's process writes it when a class starts
    lead = {"page": "/mean", "index": 0, "written": 0.0}  # the room's lead, as students should follow it
    if args.paced:
        store.set_paced(code, key, True)
        store.lead(code, key, "/mean", "")
    room = store.room(code)
    assert room is not None
    class_beacon.write(code, room.version)
    seats = [store.join(code, f"s{i}") for i in range(n)]
    base = d.labs[0].url if len(d.labs) == 1 else d.url
    teacher = Member(base, f"class={code}&teach={key}")
    students: dict[str, Member] = {}
    for seat in seats:
        s = students[seat] = Member(base, f"class={code}")
        s.seat = seat
        s.set_cookie(SEAT_COOKIE, f"{code}:{seat}")
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
    ccpu0, t0, busy0 = time.process_time(), time.perf_counter(), machine_busy()
    stop_at = t0 + args.duration
    stopping = asyncio.Event()
    killed, peak = asyncio.Event(), [s.rss_mb() for s in stats]
    rng = random.Random(args.seed * 1000 + n)
    lead_at: list[float] = []  # the teacher's moves, seconds into the window
    if args.paced:
        lo, hi = span(args.lead_every)
        at = rng.uniform(lo, hi)
        while at < args.duration:
            lead_at.append(at)
            at += rng.uniform(lo, hi)
    question_s = min([args.duration, *lead_at[:1]])  # the question is up until the room moves on
    follow: dict[int, dict[str, float]] = {}  # move index -> seat -> its time to follow that move
    on_killed: set[str] = set()  # the seats on the killed process

    def note_follow(s: Member) -> None:
        """After a finished run: a student whose page became the lead's has followed the last move."""
        i = int(lead["index"])
        if i and s.followed < i and s.page == lead["page"]:
            s.followed = i
            follow.setdefault(i, {})[s.seat] = time.perf_counter() - float(lead["written"])

    async def reconnect(s: Member) -> None:
        """As the browser: the same address and cookies, again every 0.5 s until a page run finishes."""
        with contextlib.suppress(Exception):
            await asyncio.wait_for(s.ws.close(), 1)
        while time.perf_counter() < stop_at + args.grace and not stopping.is_set():
            with contextlib.suppress(Exception):
                if await s.open(10):
                    return
            await asyncio.sleep(0.5)

    async def watch(seat: str, s: Member) -> None:
        """The browser notices a closed websocket at once, whatever it was doing: it reconnects."""
        while not stopping.is_set():
            with contextlib.suppress(Exception):
                await s.ws.wait_closed()
            if stopping.is_set():
                return
            s.down = True
            await reconnect(s)
            s.down = False
            if killed.is_set() and not stopping.is_set():
                res.reconnect_s.append(time.perf_counter() - t0 - res.killed_at)
                if s.page == lead["page"]:
                    res.back_on_lead += 1
                if seat in res.sent and s.radio is not None:  # back on Mean, where the answer shows
                    res.could_see_answer += 1
                    res.saw_answer_again += any(ANSWER_IN in t for t in s.texts)
            note_follow(s)

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
                    with contextlib.suppress(Exception):  # a lost connection: the watcher reconnects
                        ms, _, _ = await s.run(lambda f=fid: s._rerun_msg(fragment_id=f, auto=True), 30)
                        res.poll_ms.append(ms)
            await asyncio.sleep(0.05)

    async def beacon(s: Member, r: random.Random) -> None:
        """``ui/class_beacon.js``: a read every 1 s ± 25 %; the panel's run when the version moved."""
        await asyncio.sleep(r.uniform(0, 1))
        while time.perf_counter() < stop_at or (
            s.followed < int(lead["index"]) and time.perf_counter() < stop_at + FOLLOW_LIMIT_S
        ):
            b = s.beacon
            if not s.down and b.component_id:
                seen = await read_beacon(base, code, s.cookies)
                res.reads += 1
                want = b.decide(seen, time.perf_counter())
                if want is not None and not s.down:
                    trigger = beacon_trigger(b.component_id, want)
                    with contextlib.suppress(Exception):
                        ms, ok, _ = await s.run(lambda: s._rerun_msg(trigger, fragment_id=b.fragment_id), 60)  # noqa: B023
                        if ok:
                            res.panel_ms.append(ms)
                            note_follow(s)
            await asyncio.sleep(r.uniform(0.75, 1.25))

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
        answer_at = t0 + r.uniform(0.05, 0.6) * question_s
        i = 1
        await asyncio.sleep(r.uniform(*think) * r.random())  # the first release within one think time
        tasks = [asyncio.create_task(f(s, r)) for f in (timers, beacon)]
        tasks.append(asyncio.create_task(watch(seat, s)))
        try:
            while time.perf_counter() < stop_at:
                if s.down:
                    await asyncio.sleep(0.1)
                    continue
                try:
                    if seat not in res.sent and s.radio and time.perf_counter() >= answer_at:
                        await answer(seat, s)
                    if args.question_only or s.control is None:  # nobody moves a slider / none here
                        await asyncio.sleep(0.1)
                        continue
                    c = s.control
                    state = c.state(i)
                    ms, ok, _ = await s.run(lambda: s._rerun_msg(state, fragment_id=c.fragment_id), 30)  # noqa: B023
                    if ok:
                        res.slider_ms.append(ms)
                        res.slider_at.append((time.perf_counter() - ms / 1e3, ms))
                        note_follow(s)  # a full run follows a paced room too
                    i += 1
                except Exception as exc:  # the connection went away: the watcher reconnects
                    if not killed.is_set():
                        res.errors.append(f"run: {type(exc).__name__}"[:80])
                    await asyncio.sleep(0.2)
                    continue
                await asyncio.sleep(r.uniform(*think))
            # the last move is followed to its end (the reads go on, no more releases), up to 30 s
            while s.followed < int(lead["index"]) and time.perf_counter() < stop_at + FOLLOW_LIMIT_S:
                await asyncio.sleep(0.1)
        finally:
            for t in tasks:
                t.cancel()

    async def teacher_leads() -> None:
        """Teacher-paced: the room moves to the other page, as the teacher's panel moves it."""
        for k, at in enumerate(lead_at, start=1):
            await asyncio.sleep(max(0.0, t0 + at - time.perf_counter()))
            page = PAGES[k % 2]

            def move(page: str = page) -> None:
                store.lead(code, key, page, "")
                room = store.room(code)
                assert room is not None
                class_beacon.write(code, room.version)

            await asyncio.to_thread(move)
            lead.update(page=page, index=k, written=time.perf_counter())

    async def killer() -> None:
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
        on_killed.update(seat for seat, s in students.items() if s.server == lab.name)
        res.killed_at = time.perf_counter() - t0
        killed.set()
        lab.proc.kill()

    async def sample() -> None:
        while True:
            await asyncio.sleep(0.5)
            for k, s in enumerate(stats):
                with contextlib.suppress(Exception):
                    peak[k] = max(peak[k], s.rss_mb())

    ready = {seat: s for seat, s in students.items() if s.control is not None}
    aux = [asyncio.create_task(sample()), asyncio.create_task(timers(teacher, random.Random(args.seed)))]
    if args.kill_at:
        aux.append(asyncio.create_task(killer()))
    if args.paced:
        aux.append(asyncio.create_task(teacher_leads()))
    tasks = [asyncio.create_task(student(seat, s, random.Random(rng.random()))) for seat, s in ready.items()]
    await asyncio.wait(tasks, timeout=args.duration + args.grace + (FOLLOW_LIMIT_S if args.paced else 0))
    window = res.window = time.perf_counter() - t0
    res.load = os.getloadavg()
    await asyncio.sleep(max(0.0, stop_at + args.grace - time.perf_counter()))  # the teacher's last polls
    stopping.set()
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
    runs = len(res.slider_ms) + len(res.poll_ms) + len(res.panel_ms) + len(res.sent)
    if all(alive) and runs:
        res.cpu_ms_per_run = sum(res.cpu_pct) * window * 10 / runs
    res.haproxy_cpu_pct = 100 * (hap.cpu() - hcpu0) / window if hap else 0.0
    res.client_cpu_pct = 100 * (time.process_time() - ccpu0) / window
    busy1 = machine_busy()
    res.machine_pct = 100 * (busy1[0] - busy0[0]) / window
    res.others_pct = (
        res.machine_pct - sum(x for x in res.cpu_pct if x == x) - res.haproxy_cpu_pct - res.client_cpu_pct
    )
    for k, at in enumerate(lead_at, start=1):
        got = follow.get(k, {})
        res.follow_s += got.values()
        res.moves.append((at, PAGES[k % 2], len(got), len(ready), max(got.values(), default=float("nan"))))
        if killed.is_set() and at > res.killed_at:
            res.later_moves.append((len(on_killed & set(got)), len(on_killed)))
    busy = [(t0 + at, t0 + at + slowest) for at, _, _, _, slowest in res.moves if slowest == slowest]
    res.slider_calm_ms = [ms for sent, ms in res.slider_at if not any(a <= sent <= b for a, b in busy)]
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
            sa.select(answers.c.seat).where(answers.c.room == code, answers.c.question == QUESTION)
        ).all()
    res.in_db = len(rows)
    res.lost = len(set(res.sent) - {row.seat for row in rows})
    await asyncio.gather(*(s.close() for s in [teacher, *students.values()]))
    class_beacon.remove(code)
    return res


# --- the tables ----------------------------------------------------------------------------------

HEADER = (
    f"{'layout':<22} | {'N':>4} | {'ok':>4} | {'think':>7} | {'paced':>5} | {'moves':>5} | "
    f"{'slider p50':>10} | {'p95':>6} | {'follow p50':>10} | {'p95':>6} | {'panel runs':>10} | "
    f"{'reads/s':>7} | {'answer→chart p50':>16} | {'p95':>6} | {'accepted/in DB/lost':>19} | "
    f"{'lab CPU % (each)':>18} | {'CPU ms/run':>10} | {'RSS MB (each)':>13} | {'HAProxy':>7} | "
    f"{'client':>6} | {'others':>6} | {'load 1 min':>10} | {'errs':>4}"
)


def fmt(r: Result) -> str:
    cpu = "/".join("killed" if x != x else f"{x:.0f}" for x in r.cpu_pct)
    rss = "/".join(f"{x:.0f}" for x in r.rss_mb)
    follow = (
        f"{pct(r.follow_s, 0.5):>8.2f} s | {pct(r.follow_s, 0.95):>4.2f} s"
        if r.paced
        else f"{'–':>10} | {'–':>6}"
    )
    return (
        f"{r.layout:<22} | {r.n:>4} | {r.loaded:>4} | {r.think:>7} | {'yes' if r.paced else 'no':>5} | "
        f"{len(r.slider_ms):>5} | {pct(r.slider_ms, 0.5):>7.0f} ms | {pct(r.slider_ms, 0.95):>6.0f} | "
        f"{follow} | {len(r.panel_ms):>10} | {r.reads / r.window:>7.0f} | "
        f"{pct(r.answer_ms, 0.5):>13.0f} ms | {pct(r.answer_ms, 0.95):>6.0f} | "
        f"{f'{len(r.sent)}/{r.in_db}/{r.lost}':>19} | {cpu:>18} | {r.cpu_ms_per_run:>10.1f} | {rss:>13} | "
        f"{r.haproxy_cpu_pct:>6.1f}% | {r.client_cpu_pct:>5.0f}% | {r.others_pct:>5.0f}% | "
        f"{r.load[0]:>10.2f} | {len(r.errors):>4}"
    )


def notes(r: Result) -> list[str]:
    out = []
    for at, page, got, of, slowest in r.moves:
        out.append(
            f"move at {at:.0f} s to {page}: {got}/{of} students followed, the slowest in {slowest:.2f} s"
        )
    if r.moves:
        out.append(
            f"slider released while no move was being followed: {len(r.slider_calm_ms)} releases, p50 "
            f"{pct(r.slider_calm_ms, 0.5):.0f} ms, p95 {pct(r.slider_calm_ms, 0.95):.0f} ms"
        )
    if r.not_on_chart:
        out.append(f"{r.not_on_chart} accepted answers never reached the teacher's chart")
    if r.killed:
        out.append(
            f"killed {r.killed} at {r.killed_at:.0f} s ({r.killed_students} students on it); answers lost "
            f"{r.lost} (accepted {len(r.sent)}, in the database {r.in_db}); reconnected "
            f"{len(r.reconnect_s)}: kill → first finished run p50 {pct(r.reconnect_s, 0.5):.1f} s, "
            f"p95 {pct(r.reconnect_s, 0.95):.1f} s, max {max(r.reconnect_s, default=float('nan')):.1f} s; "
            f"{r.answered_before_kill} had answered before the kill; of those back on Mean, "
            f"{r.saw_answer_again} of {r.could_see_answer} saw their answer in again"
        )
        if r.paced:
            later = ", ".join(f"{got}/{of}" for got, of in r.later_moves) or "none in the window"
            out.append(
                f"pacing: {r.back_on_lead} of {len(r.reconnect_s)} reconnected came back on the teacher's "
                f"page; the killed process's students who followed each later move: {later}"
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
    parser.add_argument(
        "--think", default="0.5,1.5", help="s between a student's slider releases, LO,HI (0.5,1.5: busy)"
    )
    parser.add_argument(
        "--paced", action="store_true", help="teacher-paced: the teacher moves the room every --lead-every s"
    )
    parser.add_argument("--lead-every", default="20,60", help="s between the teacher's moves, LO,HI (20,60)")
    parser.add_argument("--kill-at", type=float, default=0.0, help="kill a lab process this many s in (off)")
    parser.add_argument(
        "--question-only",
        action="store_true",
        help="students only answer (and read their beacon): a question's moment, no slider moves",
    )
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    ns = [int(x) for x in args.ns.split(",") if x.strip()]
    layouts = [int(x) for x in args.processes.split(",") if x.strip()]
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # stop the servers on kill too
    os.chdir(ROOT)
    print(f"{os.cpu_count()} cores; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(
        f"N in {ns}, processes {layouts}, {args.duration:g} s per run, ramp {args.ramp:g} s, think "
        f"{args.think} s" + (f", paced, a move every {args.lead_every} s" if args.paced else ""),
        flush=True,
    )
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
        "script_finished; follow = a teacher's move (beacon written) → the end of the student's run that "
        "showed the new page, every student and move; panel runs = the students' runs their beacon asked "
        "for; reads/s = the students' beacon reads; answer→chart = answer sent → teacher's chart counts "
        "it; accepted = answers a student saw in, lost = accepted and not in the database; lab CPU = each "
        "process's user+system CPU over the window, % of one core; CPU ms/run = their CPU (the beacon "
        "reads' too) / every finished run (moves, panel runs, the teacher's polls, answers); RSS = each "
        "process's peak; HAProxy = its CPU; client = this process's CPU; others = the rest of the "
        "machine's busy CPU over the window (PostgreSQL, and whatever else runs: well over 10 %, the run "
        "shared the cores); load 1 min = at the window's end."
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
