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
    """
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
                raise RuntimeError(f"streamlit exited with {proc.returncode}:\n{log.read_text()[-3000:]}")
            with contextlib.suppress(OSError):
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                    if r.status == 200:
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
