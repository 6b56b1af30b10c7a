"""How many students one server holds: N protocol-level sessions moving a slider, per N.

Run from the repository root (see ``benchmarks/README.md``)::

    .venv/bin/python benchmarks/bench_classroom.py [--ns 1,10,30,100,300] [--duration 20] [--page /mean]

No browsers. Each session does what the browser's own code does (Streamlit 1.67's frontend bundle and
``streamlit/web/server/starlette/starlette_websocket.py`` were read for this):

1. ``GET <page>``, ``GET /_stcore/health`` (its response sets the ``_streamlit_xsrf`` cookie) and
   ``GET /_stcore/host-config``;
2. a websocket to ``/_stcore/stream`` with that cookie, ``Origin: <base URL>`` and
   ``Sec-WebSocket-Protocol: streamlit, <_streamlit_xsrf cookie value>`` (the server reads the second
   entry as the XSRF token, a third would be a session id to resume; the token only gates the auth
   cookie, the connection is accepted either way);
3. a ``BackMsg.rerun_script`` (``ClientState``: the page's ``page_name``, empty ``page_script_hash`` and
   ``query_string``, ``context_info``), then ForwardMsgs (``new_session``, ``delta``...,
   ``script_finished``) until ``script_finished`` is not ``FINISHED_EARLY_FOR_RERUN`` (the lab's first
   run ends early once, for the page switch ``st.navigation`` makes);
4. a slider move: another ``rerun_script`` with the current page's ``page_script_hash`` (from the
   ``navigation`` message; ``new_session``'s is the main script's, and a full rerun sent with it runs
   Home instead: measured that way before 2026-12-01, a control outside a fragment timed Home),
   ``page_name`` empty, the query string with the widget's URL parameter updated (the lab's controls are
   ``bind="query-params"``; the browser rewrites the URL before it sends the rerun, and drops the
   parameter at the widget's default), ``widget_states`` with the widget's id and value
   (``double_array_value`` for ``st.slider``, ``string_array_value`` of option labels for
   ``st.select_slider``, ``double_value`` for ``st.number_input``) and ``cached_message_hashes`` (the
   browser's ForwardMsg cache: cacheable messages by hash, expired after ``max_cached_message_age``
   finished runs; ``ref_hash`` messages are resolved from it). A widget drawn inside an ``st.fragment``
   (its delta carries ``fragment_id``) is moved with that ``fragment_id`` in the ``ClientState``, as the
   browser does: the server reruns only that fragment.

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
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from http.cookiejar import CookieJar
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from scripts.browser import streamlit_server  # noqa: E402

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

FINISHED_EARLY_FOR_RERUN = 2  # ForwardMsg.ScriptFinishedStatus
WS_MAX_SIZE = 64 * 2**20


# --- servers -------------------------------------------------------------------------------------


def log_problems(log: Path, limit: int = 3) -> tuple[int, list[str]]:
    """Warnings, errors and tracebacks in a server log: their count and the first few distinct ones."""
    try:
        lines = log.read_text(errors="replace").splitlines()
    except OSError:
        return 0, []
    bad = [ln for ln in lines if re.search(r" (WARNING|ERROR|CRITICAL) |^Traceback", ln)]
    distinct: list[str] = []
    for ln in bad:
        text = re.sub(r"^\S+ \S+ ", "", ln)[:160]  # drop the timestamp
        if text not in distinct:
            distinct.append(text)
    return len(bad), distinct[:limit]


# --- server CPU and memory -----------------------------------------------------------------------


class ServerStats:
    """CPU seconds (user + system, with children) and RSS of the server: psutil, else /proc."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        try:
            import psutil

            self._proc: Any = psutil.Process(pid)
        except ImportError:
            self._proc = None
        self.source = "psutil" if self._proc is not None else "/proc"

    def _family(self) -> list[Any]:
        procs = [self._proc]
        with contextlib.suppress(Exception):
            procs += self._proc.children(recursive=True)
        return procs

    def cpu(self) -> float:
        if self._proc is None:
            fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        total = 0.0
        for p in self._family():
            with contextlib.suppress(Exception):
                t = p.cpu_times()
                total += t.user + t.system
        return total

    def rss_mb(self) -> float:
        if self._proc is None:
            pages = int(Path(f"/proc/{self.pid}/statm").read_text().split()[1])
            return pages * os.sysconf("SC_PAGE_SIZE") / 1e6
        total = 0
        for p in self._family():
            with contextlib.suppress(Exception):
                total += p.memory_info().rss
        return total / 1e6

    def established(self) -> int | None:
        """The server's ESTABLISHED TCP connections (the sessions' websockets), if psutil can tell."""
        if self._proc is None:
            return None
        try:
            conns = self._proc.net_connections(kind="tcp")
        except Exception:
            return None
        return sum(1 for c in conns if c.status == "ESTABLISHED")


# --- one session ---------------------------------------------------------------------------------


def js_number(v: float) -> str:
    """``String(v)`` in JavaScript (what the browser writes into the URL for a number)."""
    if float(v).is_integer() and abs(v) < 1e21:
        return str(int(v))
    text = repr(float(v))
    return re.sub(r"e([+-])0*(\d)", lambda m: f"e{'' if m.group(1) == '+' else '-'}{m.group(2)}", text)


def with_param(query: str, key: str, values: list[str] | None) -> str:
    """``query`` with ``key`` replaced by ``values`` (repeated) or removed, keys sorted, spaces as +."""
    pairs = [(k, v) for k, v in urllib.parse.parse_qsl(query, keep_blank_values=True) if k != key]
    pairs += [(key, v) for v in values or []]
    pairs.sort(key=lambda kv: kv[0])
    return urllib.parse.urlencode(pairs, quote_via=urllib.parse.quote).replace("%20", "+")


@dataclass
class Control:
    """The widget a session moves: its id, the two values it alternates between, and their URL form."""

    widget_id: str
    kind: str  # slider | select_slider | number_input
    label: str
    values: tuple[Any, Any]
    param: str | None  # the URL parameter (query_param_key), if bound
    url_values: tuple[list[str] | None, list[str] | None]  # None: at the default, no parameter
    fragment_id: str = ""  # the widget's st.fragment, if any: its moves rerun only that fragment

    def describe(self) -> str:
        a, b = self.values
        bound = f", URL ?{self.param}=" if self.param else ""
        where = ", in a fragment" if self.fragment_id else ""
        return f"{self.kind} {self.label!r} ({self.widget_id.rsplit('-', 1)[-1]}{bound}{where}) {a} ↔ {b}"

    def state(self, i: int) -> Any:
        from streamlit.proto.WidgetStates_pb2 import WidgetState

        ws = WidgetState(id=self.widget_id)
        v = self.values[i % 2]
        if self.kind == "slider":
            ws.double_array_value.data.append(float(v))
        elif self.kind == "select_slider":
            ws.string_array_value.data.append(str(v))
        else:
            ws.double_value = float(v)
        return ws


def pick_control(
    elements: list[tuple[list[int], str, Any, str]], *, in_fragment: bool = False
) -> Control | None:
    """The page's main slider: first st.slider in the main area, else select_slider, else number_input;
    then the same in the sidebar. ``in_fragment``: only a widget drawn inside an ``st.fragment``."""
    for area in (0, 1):
        for want in ("slider", "select_slider", "number_input"):
            for path, kind, el, fragment_id in elements:
                if (
                    not path
                    or path[0] != area
                    or not el.id
                    or el.disabled
                    or (in_fragment and not fragment_id)
                ):
                    continue
                if kind == "slider":
                    is_select = el.type == el.SELECT_SLIDER
                    if (want == "select_slider") != is_select:
                        continue
                    if want == "slider" and (el.data_type not in (el.INT, el.FLOAT) or len(el.default) != 1):
                        continue
                    if is_select and (len(el.default) != 1 or len(el.options) < 2):
                        continue
                elif kind != want:
                    continue
                control = _make_control(want, el, fragment_id)
                if control is not None:
                    return control
    return None


def _make_control(kind: str, el: Any, fragment_id: str = "") -> Control | None:
    param = el.query_param_key if el.HasField("query_param_key") else None
    if kind == "slider":
        cur = el.value[0] if el.set_value and len(el.value) == 1 else el.default[0]
        lo, hi, step = el.min, el.max, el.step or 1.0
        k = max(1, round(0.1 * (hi - lo) / step))
        other = cur + k * step if cur + k * step <= hi else cur - k * step
        a, b = round(cur, 12), round(other, 12)
        if el.data_type == el.INT:
            a, b = round(a), round(b)
        default = js_number(el.default[0])
        urls = tuple(None if js_number(v) == default else [js_number(v)] for v in (a, b))
    elif kind == "select_slider":
        options = list(el.options)
        idx = int(el.value[0] if el.set_value and len(el.value) == 1 else el.default[0])
        k = max(1, round(0.1 * len(options)))
        jdx = idx + k if idx + k < len(options) else idx - k
        a, b = options[idx], options[jdx]
        default = options[int(el.default[0])]
        urls = tuple(None if v == default else [v] for v in (a, b))
    else:  # number_input
        cur = el.value if el.set_value else el.default
        step = el.step or 1.0
        span = (el.max - el.min) if el.has_min and el.has_max else 10 * step
        k = max(1, round(0.1 * span / step))
        other = cur + k * step if not el.has_max or cur + k * step <= el.max else cur - k * step
        a, b = round(cur, 12), round(other, 12)
        if el.data_type == el.INT:
            a, b = round(a), round(b)
        urls = tuple(None if js_number(v) == js_number(el.default) else [js_number(v)] for v in (a, b))
    if a == b:
        return None
    return Control(el.id, kind, el.label, (a, b), param, urls, fragment_id)  # type: ignore[arg-type]


@dataclass
class RunOutcome:
    ms: float
    finished: bool  # False: cut off (timeout / end of the measurement) after ``ms``
    exceptions: list[str] = field(default_factory=list)
    status: int = 0


class Session:
    """One student: the browser's HTTP requests, its websocket and its part of the protocol."""

    def __init__(self, base: str, page: str) -> None:
        self.base = base
        self.page = page  # "/mean" or "/"
        self.ws: Any = None
        self.query_string = ""
        self.page_hash = ""
        self.cache: dict[str, list[Any]] = {}  # hash -> [encoded ForwardMsg, run count when last used]
        self.run_count = 0
        self.max_age = 2
        self.elements: list[tuple[list[int], str, Any, str]] = []
        self.expanders: list[
            tuple[Any, str]
        ] = []  # the last run's expanders: (Block.Expandable, fragment_id)
        self.sent: list[str] = []  # the kinds of the last run's new elements, in order
        self.control: Control | None = None
        self.undecodable = 0
        self.unknown_types: set[str] = set()
        self.page_not_found = False
        self.on_message: Any = None  # called with each ForwardMsg (ref_hash resolved): bench_class_mode.py
        self.jar = CookieJar()  # kept across reconnects, as a browser keeps its cookies (a balancer's too)

    async def connect(self) -> None:
        jar = self.jar
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))

        def fetch() -> None:
            for path in (self.page, "/_stcore/health", "/_stcore/host-config"):
                with opener.open(self.base + path, timeout=60) as r:
                    r.read()

        await asyncio.to_thread(fetch)
        cookies = {c.name: c.value for c in jar}
        xsrf = cookies.get("_streamlit_xsrf", "PLACEHOLDER_AUTH_TOKEN")  # the browser's fallback
        from websockets.asyncio.client import connect

        self.ws = await connect(
            self.base.replace("http://", "ws://", 1) + "/_stcore/stream",
            subprotocols=["streamlit", xsrf],  # type: ignore[list-item]
            additional_headers={"Cookie": "; ".join(f"{k}={v}" for k, v in cookies.items())},
            origin=self.base,  # type: ignore[arg-type]
            max_size=WS_MAX_SIZE,
            # compression: offered, as the browser does; declined (server.enableWebsocketCompression=false)
            open_timeout=60,
        )

    def _rerun_msg(
        self, widget: Any = None, first: bool = False, fragment_id: str = "", auto: bool = False
    ) -> bytes:
        from streamlit.proto.BackMsg_pb2 import BackMsg

        msg = BackMsg()
        cs = msg.rerun_script
        cs.query_string = self.query_string
        if first:
            cs.page_name = self.page.strip("/")
            cs.page_script_hash = ""
        else:
            cs.page_script_hash = self.page_hash
        if widget is not None:
            cs.widget_states.widgets.append(widget)
        if fragment_id:  # as the browser does for a widget inside an st.fragment
            cs.fragment_id = fragment_id
        cs.is_auto_rerun = auto  # a fragment's run_every timer, not the user
        cs.cached_message_hashes.extend(self.cache)
        ci = cs.context_info
        ci.timezone, ci.timezone_offset, ci.locale = "UTC", 0, "en-US"
        ci.url = self.base + self.page + (f"?{self.query_string}" if self.query_string else "")
        ci.is_embedded = False
        return msg.SerializeToString()

    async def load(self, timeout: float) -> RunOutcome:
        """The first run, as on opening the page; then the control to move is known."""
        out = await self._run(self._rerun_msg(first=True), timeout)
        self.control = pick_control(self.elements)
        return out

    async def move(self, i: int, timeout: float) -> RunOutcome:
        """Move the control to its value number ``i % 2``: the URL first, then the rerun."""
        c = self.control
        assert c is not None
        if c.param:
            self.query_string = with_param(self.query_string, c.param, c.url_values[i % 2])
        return await self._run(self._rerun_msg(c.state(i), fragment_id=c.fragment_id), timeout)

    async def _run(self, payload: bytes, timeout: float) -> RunOutcome:
        from google.protobuf.message import DecodeError
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        t0 = time.perf_counter()
        deadline = t0 + timeout
        exceptions: list[str] = []
        self.elements, self.sent, self.expanders = [], [], []
        try:
            await self.ws.send(payload)
            while True:
                data = await asyncio.wait_for(self.ws.recv(), max(0.001, deadline - time.perf_counter()))
                msg = ForwardMsg()
                try:
                    msg.ParseFromString(data)
                except DecodeError:
                    self.undecodable += 1
                    continue
                kind = msg.WhichOneof("type")
                if kind == "ref_hash":
                    hit = self.cache.get(msg.ref_hash)
                    if hit is None:
                        self.undecodable += 1
                        continue
                    hit[1] = self.run_count
                    msg = ForwardMsg()
                    msg.ParseFromString(hit[0])
                    kind = msg.WhichOneof("type")
                elif msg.metadata.cacheable and msg.hash:
                    if msg.hash in self.cache:
                        self.cache[msg.hash][1] = self.run_count
                    else:
                        self.cache[msg.hash] = [data, self.run_count]
                if self.on_message is not None:
                    self.on_message(kind, msg)
                if kind == "new_session":
                    self.page_hash = msg.new_session.page_script_hash
                    self.max_age = msg.new_session.config.max_cached_message_age or self.max_age
                    self.elements = []
                elif kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
                    el_kind = msg.delta.new_element.WhichOneof("type")
                    el = getattr(msg.delta.new_element, el_kind)
                    # a page's source code (the code box) apart from other code elements
                    python = el_kind == "code" and el.language == "python"
                    self.sent.append("code:python" if python else el_kind)
                    if el_kind == "exception":
                        exceptions.append(f"{el.type}: {el.message}"[:200])
                    elif el_kind in ("slider", "number_input", "radio"):  # radios: tests pick them
                        path = list(msg.metadata.delta_path)
                        self.elements.append((path, el_kind, el, msg.delta.fragment_id))
                elif kind == "delta" and msg.delta.add_block.WhichOneof("type") == "expandable":
                    self.expanders.append((msg.delta.add_block.expandable, msg.delta.fragment_id))
                elif kind == "navigation" and msg.navigation.page_script_hash:
                    # With st.navigation the page is this hash, not new_session's (the main script's):
                    # a full rerun sent with new_session's hash runs the default page (Home).
                    self.page_hash = msg.navigation.page_script_hash
                elif kind == "page_info_changed":
                    self.query_string = msg.page_info_changed.query_string
                elif kind == "page_not_found":
                    self.page_not_found = True
                elif kind == "script_finished":
                    if msg.script_finished == FINISHED_EARLY_FOR_RERUN:
                        continue
                    self.run_count += 1
                    for h in [
                        h for h, (_, seen) in self.cache.items() if self.run_count - seen > self.max_age
                    ]:
                        del self.cache[h]
                    ms = (time.perf_counter() - t0) * 1e3
                    return RunOutcome(ms, True, exceptions, msg.script_finished)
                elif kind is None:
                    self.unknown_types.add("(none)")
        except (TimeoutError, asyncio.CancelledError):
            return RunOutcome((time.perf_counter() - t0) * 1e3, False, exceptions, -1)

    async def toggle(self, expander: Any, fragment_id: str, open_: bool, timeout: float) -> RunOutcome:
        """Open or close an expander that tracks its state (``on_change`` set): the browser's click."""
        from streamlit.proto.WidgetStates_pb2 import WidgetState

        ws = WidgetState(id=expander.id, bool_value=open_)
        return await self._run(self._rerun_msg(ws, fragment_id=fragment_id), timeout)

    async def close(self) -> None:
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.ws.close(), 10)


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
