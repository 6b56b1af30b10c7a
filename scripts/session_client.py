"""A Streamlit session without a browser: it speaks the browser's websocket protocol.

Used by the class benchmarks (``benchmarks/bench_classroom.py``, ``bench_class_mode.py``,
``bench_follow.py``, ``bench_nodelay.py``) and by the tests that need many sessions, or a session
before any browser (``tests/class_mode``, ``tests/e2e/test_fragment_reruns.py``).

Each session does what the browser's own code does (Streamlit 1.67's frontend bundle and
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

A student in a class also does what ``ui/class_beacon.js`` does in the browser (:class:`Beacon`,
:func:`read_beacon`, :func:`beacon_trigger`): it reads the class's public file about once a second and,
when the version moved past the one its page drew, sends the hidden component's trigger ``"seen"`` as a
fragment rerun of the class panel. Its seat is the ``lab_seat`` cookie (:meth:`Session.set_cookie`),
as a browser that joined keeps it; the address carries the class only.

Unlike the browser, a session sends only the moved widget's state, not every mounted widget's
(the server keeps the others' previous values: same script work), and downloads no static assets
(the beacon's file apart).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import time
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from http.cookiejar import Cookie, CookieJar
from pathlib import Path
from typing import Any

FINISHED_EARLY_FOR_RERUN = 2  # ForwardMsg.ScriptFinishedStatus
WS_MAX_SIZE = 64 * 2**20
SEAT_COOKIE = "lab_seat"  # ui.class_session.SEAT_COOKIE: "<code>:<seat>"
BEACON_COMPONENT = "lab_class_beacon"  # ui.class_beacon's component


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
                control = make_control(want, el, fragment_id)
                if control is not None:
                    return control
    return None


def make_control(kind: str, el: Any, fragment_id: str = "") -> Control | None:
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

    def set_cookie(self, name: str, value: str) -> None:
        """A cookie of the lab's site, as a page's script writes it (``document.cookie``, the value
        percent-encoded as ``encodeURIComponent`` does): e.g. a student's seat, :data:`SEAT_COOKIE`."""
        host = urllib.parse.urlsplit(self.base).hostname or ""
        cookie = Cookie(
            version=0, name=name, value=urllib.parse.quote(value, safe=""), port=None,
            port_specified=False, domain=host, domain_specified=False, domain_initial_dot=False,
            path="/", path_specified=True, secure=False, expires=None, discard=True, comment=None,
            comment_url=None, rest={},
        )  # fmt: skip
        self.jar.set_cookie(cookie)

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


# --- a class's beacon (ui/class_beacon.py, ui/class_beacon.js) -----------------------------------


def beacon_drawn(msg: Any) -> tuple[str, str, int] | None:
    """The class beacon a ForwardMsg draws: (component id, fragment id, the room's version it drew)."""
    if msg.WhichOneof("type") != "delta" or msg.delta.WhichOneof("type") != "new_element":
        return None
    el_kind = msg.delta.new_element.WhichOneof("type")
    if el_kind != "bidi_component":
        return None
    el = msg.delta.new_element.bidi_component
    if el.component_name != BEACON_COMPONENT:
        return None
    return el.id, msg.delta.fragment_id, int(json.loads(el.json)["version"])


def beacon_trigger(component_id: str, seen: int | str) -> Any:
    """The widget state the hidden component sends: its trigger ``"seen"`` with what the browser read."""
    from streamlit.components.v2.bidi_component.main import _make_trigger_id
    from streamlit.proto.WidgetStates_pb2 import WidgetState

    trigger = WidgetState(id=_make_trigger_id(component_id, "events"))
    trigger.json_trigger_value = json.dumps([{"event": "seen", "value": seen}])
    return trigger


async def read_beacon(base: str, code: str, cookies: str = "") -> int | str | None:
    """Class ``code``'s beacon as the browser's ``fetch`` reads it: its version, ``"gone"`` (404), or
    None (no answer, or not a version). A new connection each time, with the site's cookies (through a
    balancer, its own pins the read to the browser's process)."""
    where = urllib.parse.urlsplit(base)
    host, port = where.hostname or "127.0.0.1", where.port or 80
    try:
        r, w = await asyncio.open_connection(host, port)
        w.write(
            f"GET /app/static/class/{code}.json?t={time.time_ns()} HTTP/1.1\r\nHost: {where.netloc}\r\n"
            f"Cookie: {cookies}\r\nConnection: close\r\n\r\n".encode()
        )
        data = await asyncio.wait_for(r.read(), 30)
        w.close()
    except (OSError, TimeoutError):
        return None
    head, _, body = data.partition(b"\r\n\r\n")
    status = head.split(b"\r\n", 1)[0]
    if b" 404 " in status:
        return "gone"
    if b" 200 " not in status:
        return None
    try:
        version = json.loads(body)["version"]
    except (ValueError, KeyError, TypeError):
        return None
    return version if isinstance(version, int) and not isinstance(version, bool) else None


@dataclass
class Beacon:
    """One tab's beacon reader, deciding as ``ui/class_beacon.js`` does (``decide``): what to send, if
    anything, for what a read found. Times are ``time.perf_counter()`` seconds."""

    component_id: str = ""
    fragment_id: str = ""
    version: int = -1  # the version the page drew last
    drawn_at: float = 0.0
    asked: int | str | None = None
    asked_at: float = float("-inf")
    fallback: float = 30.0  # class_beacon.FALLBACK_MS
    again: float = 5.0  # a version asked for and not drawn is asked for again after this long

    def drawn(self, found: tuple[str, str, int], now: float) -> None:
        self.component_id, self.fragment_id, self.version = found
        self.drawn_at = now

    def decide(self, seen: int | str | None, now: float) -> int | str | None:
        """What to send for ``seen`` (a version, "gone", "tick"), or None; noted as asked."""
        if isinstance(seen, int) and seen <= self.version:
            self.asked = None  # the server has drawn it
        want: int | str | None = None
        if (
            isinstance(seen, int)
            and seen > self.version
            and (seen != self.asked or now - self.asked_at > self.again)
        ):
            want = seen
        elif seen == "gone" and self.asked != "gone":
            want = "gone"
        elif now - max(self.drawn_at, self.asked_at) > self.fallback:
            want = "tick"
        if want is not None:
            self.asked, self.asked_at = want, now
        return want
