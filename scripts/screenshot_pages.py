"""Take a full-page screenshot of every page, to *look* at what the app shows.

Usage: python scripts/screenshot_pages.py [out_dir] [query string]
Starts `streamlit run app.py` on a free port, drives Debian's Chromium with Playwright.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
IDLE = '[data-testid="stApp"][data-test-connection-state="CONNECTED"][data-test-script-state="notRunning"]'


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def main() -> None:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else ROOT / "screenshots")
    query = sys.argv[2] if len(sys.argv) > 2 else ""
    out.mkdir(parents=True, exist_ok=True)
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
         "--server.address", "127.0.0.1", "--server.port", str(port), "--browser.gatherUsageStats", "false",
         "--server.fileWatcherType", "none"], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=1)
                break
            except OSError:
                time.sleep(0.2)
        pages = sorted((ROOT / "pages").glob("*.py"), key=lambda p: int(p.name.split("_")[0]))
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
            page = browser.new_page(viewport={"width": 1400, "height": 3400})
            for path in pages:
                slug = "" if path.stem.startswith("0_") else path.stem.split("_", 1)[1]
                page.goto(f"http://127.0.0.1:{port}/{slug}{query}")
                page.wait_for_selector(IDLE, timeout=60000)
                time.sleep(1.5)
                page.screenshot(path=str(out / f"{path.stem}.png"), full_page=True)
                print("saved", out / f"{path.stem}.png")
            browser.close()
    finally:
        server.terminate()
        server.wait(10)


if __name__ == "__main__":
    main()
