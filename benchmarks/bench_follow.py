"""Teacher-paced page switches with the class's beacon: how fast N students follow, on P processes.

Run from the repository root::

    .venv/bin/python benchmarks/bench_follow.py [--ns 60,150,300] [--processes 2] [--moves 4]

No browsers: the protocol-level sessions of ``scripts/session_client.py``, behind HAProxy
(``deploy.serve.deployment``) on a temporary PostgreSQL. The class is made with the store (paced, led to
``/mean``); each student opens ``/mean?class=CODE`` with its seat in the ``lab_seat`` cookie
(``SEAT_COOKIE``, ``CODE:SEAT``, as a browser that joined keeps it; spread over 20 s) and then does what
``ui/class_beacon.js`` does in a browser: it reads ``/app/static/class/<CODE>.json`` every 1 s ± 25 % (a
new connection each time, through the balancer with its cookie) and, when the version moved past the
one its page drew, sends the beacon's trigger (``"seen": version``) as a fragment rerun of the class
panel. The panel's run follows the lead (``st.switch_page``) and the new page runs.

Reported: while nothing changes for 15 s, each lab process's CPU (the reads only) and per read; then per
move (``Store.lead`` to the other of Mean and Variance, then the beacon written as ``room_changed``
writes it): the time from the beacon's write to each student's ``navigation`` message (the new page)
and to the end of that page's run, p50/p95, and each lab process's CPU for the move. This client shares
the machine's cores with the servers, as ``bench_class_mode.py`` does. Prints; asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from streamlit.components.v2.bidi_component.main import _make_trigger_id  # noqa: E402
from streamlit.proto.WidgetStates_pb2 import WidgetState  # noqa: E402

from classroom.store import Store, open_engine  # noqa: E402
from deploy.serve import COOKIE, deployment  # noqa: E402
from scripts.postgres import temporary_postgres  # noqa: E402
from scripts.session_client import SEAT_COOKIE, ServerStats, Session  # noqa: E402
from ui import class_beacon  # noqa: E402


def pct(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, max(0, round(q * (len(s) - 1))))] if s else float("nan")


class Student(Session):
    """A session that keeps its page's beacon (component id, fragment id, the version drawn)."""

    def __init__(self, base: str, code: str, seat: str) -> None:
        super().__init__(base, "/mean")
        self.query_string = f"class={code}"  # the class only: the seat is in the cookie
        self.set_cookie(SEAT_COOKIE, f"{code}:{seat}")
        self.beacon: tuple[str, str] | None = None
        self.drawn = -1
        self.nav_at: float | None = None
        self.on_message = self._seen

    def _seen(self, kind: str | None, msg: Any) -> None:
        if kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
            el_kind = msg.delta.new_element.WhichOneof("type")
            el = getattr(msg.delta.new_element, el_kind)
            if el_kind == "bidi_component" and el.component_name == "lab_class_beacon":
                self.beacon = (el.id, msg.delta.fragment_id)
                self.drawn = json.loads(el.json)["version"]
        elif kind == "navigation" and self.nav_at is None:
            self.nav_at = time.perf_counter()

    async def read(self, host: str, port: int, code: str) -> int | None:
        """The beacon's version, as the browser's fetch reads it (None: no answer)."""
        r, w = await asyncio.open_connection(host, port)
        cookie = "; ".join(f"{c.name}={c.value}" for c in self.jar if c.name == COOKIE)
        w.write(
            f"GET /app/static/class/{code}.json?t={time.time_ns()} HTTP/1.1\r\nHost: {host}\r\n"
            f"Cookie: {cookie}\r\nConnection: close\r\n\r\n".encode()
        )
        data = await r.read()
        w.close()
        head, _, body = data.partition(b"\r\n\r\n")
        return int(json.loads(body)["version"]) if b" 200 " in head.split(b"\r\n")[0] else None


async def measure(url: str, n: int, processes: int, moves: int, folder: Path) -> None:
    with deployment(processes, database_url=url, folder=folder, haproxy_output=folder / "haproxy.log") as d:
        engine = open_engine(url)
        store = Store(engine)
        started = store.start()
        code, key = started.code, started.teacher_key
        store.set_paced(code, key, True)
        store.lead(code, key, "/mean", "")

        def write_beacon() -> float:
            room = store.room(code)
            assert room is not None
            class_beacon.write(code, room.version)
            return time.perf_counter()

        write_beacon()
        students = [Student(d.url, code, store.join(code)) for _ in range(n)]
        host, port = d.url.removeprefix("http://").rsplit(":", 1)

        async def open_one(s: Student, delay: float) -> None:
            await asyncio.sleep(delay)
            await s.connect()
            await s.load(120)

        await asyncio.gather(*(open_one(s, i * 20 / n) for i, s in enumerate(students)))
        loaded = sum(1 for s in students if s.beacon is not None)
        stats = [ServerStats(lab.proc.pid) for lab in d.labs if lab.proc is not None]
        stop = asyncio.Event()
        follow: list[list[float]] = []
        done: list[list[float]] = []
        written = [0.0]
        reads = [0]

        async def reader(s: Student, r: random.Random) -> None:
            await asyncio.sleep(r.uniform(0, 1))
            while not stop.is_set():
                try:
                    seen = await s.read(host, int(port), code)
                except OSError:
                    seen = None
                reads[0] += 1
                if seen is not None and seen > s.drawn and s.beacon is not None:
                    cid, fid = s.beacon
                    trigger = WidgetState(id=_make_trigger_id(cid, "events"))
                    trigger.json_trigger_value = json.dumps([{"event": "seen", "value": seen}])
                    s.nav_at = None
                    await s._run(s._rerun_msg(trigger, fragment_id=fid), 60)
                    if s.nav_at is not None and follow:
                        follow[-1].append(s.nav_at - written[0])
                        done[-1].append(time.perf_counter() - written[0])
                await asyncio.sleep(r.uniform(0.75, 1.25))

        rng = random.Random(1)
        tasks = [asyncio.create_task(reader(s, random.Random(rng.random()))) for s in students]
        await asyncio.sleep(3)
        cpu0, t0, reads0 = [s.cpu() for s in stats], time.perf_counter(), reads[0]
        await asyncio.sleep(15)
        dt, count = time.perf_counter() - t0, reads[0] - reads0
        cpu = [s.cpu() - c for s, c in zip(stats, cpu0, strict=True)]
        shares = ", ".join(f"{c / dt * 100:.0f} %" for c in cpu)
        print(
            f"{n} students ({loaded} in the class), {processes} processes; quiet, {count / dt:.0f} reads/s: "
            f"lab CPU {shares}, {sum(cpu) / count * 1e3:.2f} ms a read",
            flush=True,
        )
        for move in range(moves):
            page = "/variance" if move % 2 == 0 else "/mean"
            follow.append([])
            done.append([])
            cpu0 = [s.cpu() for s in stats]
            store.lead(code, key, page, "")
            written[0] = write_beacon()
            give_up = time.perf_counter() + 60
            while len(follow[-1]) < loaded and time.perf_counter() < give_up:
                await asyncio.sleep(0.1)
            f = follow[-1]
            spent = ", ".join(f"{s.cpu() - c:.1f} s" for s, c in zip(stats, cpu0, strict=True))
            print(
                f"  move {move + 1} to {page}: {len(f)}/{loaded} followed; beacon -> new page "
                f"p50 {pct(f, 0.5):.2f} s, p95 {pct(f, 0.95):.2f} s; "
                f"its run done p95 {pct(done[-1], 0.95):.2f} s; lab CPU {spent}",
                flush=True,
            )
            await asyncio.sleep(3)
        stop.set()
        await asyncio.gather(*tasks, return_exceptions=True)
        every = [x for f in follow for x in f]
        print(f"  all moves: p50 {pct(every, 0.5):.2f} s, p95 {pct(every, 0.95):.2f} s", flush=True)
        for s in students:
            await s.close()
        engine.dispose()
        class_beacon.remove(code)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--ns", default="60,150,300", help="class sizes, comma-separated")
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--moves", type=int, default=4)
    args = parser.parse_args()
    with temporary_postgres() as url:
        for n in (int(x) for x in args.ns.split(",")):
            with tempfile.TemporaryDirectory() as tmp:
                asyncio.run(measure(url, n, args.processes, args.moves, Path(tmp)))


if __name__ == "__main__":
    main()
