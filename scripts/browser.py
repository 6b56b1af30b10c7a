"""One place for driving the app in a real browser: Debian's Chromium and a `streamlit run` server.

Used by the browser tests (`tests/e2e`), the screenshot tool and the page benchmark.
"""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"  # Debian's package `chromium`; never `playwright install`
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",  # this machine's closed network refuses them anyway
    "--disable-component-update",
    "--disable-sync",
]
IDLE = '[data-testid="stApp"][data-test-connection-state="CONNECTED"][data-test-script-state="notRunning"]'

# The server's messages (ForwardMsg, protobuf) tell when a run begins (new_session) and ends
# (script_finished): the script-state attribute alone misses a short run, since React may render
# "running" and "notRunning" in one commit and the attribute then never changes (a browser test
# waited 30 s for a run that had come and gone that way). An init script wraps WebSocket, counts the
# runs in ``window.__wsTap`` (``started``, ``finished``, ``running``) and hands the top-level field
# numbers (and varint values) of each message to the listeners a benchmark installs. Field numbers
# come from the installed Streamlit.
FIELDS = ForwardMsg.DESCRIPTOR.fields_by_name
WS_TAP_JS = """
(() => {
  if (window.__wsTap) return;  // installed once, however many init scripts carry it
  const Native = window.WebSocket;
  const listeners = [];
  const tap = (window.__wsTap = {listeners, count: 0, started: 0, finished: 0, running: false});
  const fields = (buf) => {
    const b = new Uint8Array(buf);
    const out = [];
    let i = 0;
    const varint = () => {
      let x = 0, s = 0, c = 0;
      do { c = b[i++]; x += (c & 0x7f) * 2 ** s; s += 7; } while (c & 0x80 && i < b.length);
      return x;
    };
    while (i < b.length) {
      const tag = varint();
      const wire = tag & 7;
      const f = Math.floor(tag / 8);
      if (wire === 0) out.push([f, varint()]);
      else if (wire === 1) { out.push([f, null]); i += 8; }
      else if (wire === 2) { out.push([f, null]); const n = varint(); i += n; }
      else if (wire === 5) { out.push([f, null]); i += 4; }
      else break;
    }
    return out;
  };
  const hear = (data) => {
    const t = performance.now();
    tap.count += 1;
    const f = fields(data);
    if (f.some(([n]) => n === NEW_SESSION)) { tap.started += 1; tap.running = true; }
    if (f.some(([n]) => n === SCRIPT_FINISHED)) { tap.finished += 1; tap.running = false; }
    for (const l of listeners) l(f, t);
  };
  class Tapped extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', (e) => {
        if (e.data instanceof ArrayBuffer) hear(e.data);
        else if (e.data instanceof Blob) e.data.arrayBuffer().then(hear);
      });
    }
  }
  window.WebSocket = Tapped;
})();
""".replace("NEW_SESSION", str(FIELDS["new_session"].number)).replace(
    "SCRIPT_FINISHED", str(FIELDS["script_finished"].number)
)


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def streamlit_server(
    log: Path, *, timeout: float = 60.0, script: Path = ROOT / "app.py"
) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """Start a fresh `streamlit run <script>` on loopback; yield ``(process, base URL)``; stop it by PID.

    Run from the repository root, so ``.streamlit/config.toml`` applies to any ``script`` (the
    benchmarks' trivial app too).

    A free port is free only until someone binds it: another test worker may take it between
    :func:`free_port` and the server's start. So the server counts as up only when its own log says it
    serves that port, and a start that lost its port is tried again on a new one (three times).
    """
    for attempt in range(3):
        try:
            with _one_server(log, timeout=timeout, script=script) as started:
                yield started
            return
        except PortTaken:
            if attempt == 2:
                raise


class PortTaken(RuntimeError):
    """The server could not have the port it was given: another process bound it first."""


def lost_its_port(log_text: str, port: int) -> bool:
    """Whether a Streamlit server's log says it exited because ``port`` was taken."""
    return f"Port {port} is not available" in log_text or f"Port {port} is already in use" in log_text


@contextlib.contextmanager
def _one_server(log: Path, *, timeout: float, script: Path) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    port = free_port()
    cmd = [
        sys.executable, "-m", "streamlit", "run", str(script),
        "--server.headless", "true", "--server.address", "127.0.0.1", "--server.port", str(port),
        "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none",
        # Name each record's level (Streamlit's default format has none), so a test can find warnings.
        "--logger.messageFormat", "%(asctime)s %(levelname)s %(name)s: %(message)s",
    ]  # fmt: skip
    with log.open("wb") as out:
        proc = subprocess.Popen(
            cmd,
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout
        while True:
            if proc.poll() is not None:
                said = log.read_text()
                if lost_its_port(said, port):
                    raise PortTaken(said[-3000:])
                raise RuntimeError(f"streamlit exited with {proc.returncode}:\n{said[-3000:]}")
            # healthy, and it is this server that answers (its log names the port), not a neighbour's
            with contextlib.suppress(OSError):
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                    if r.status == 200 and f"{url}" in log.read_text():
                        break
            if time.monotonic() > deadline:
                raise TimeoutError(f"streamlit not healthy after {timeout:.0f} s:\n{log.read_text()[-3000:]}")
            time.sleep(0.2)
        yield proc, url
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=15)
