"""Take a full-page screenshot of every page, to *look* at what the app shows.

Usage: python scripts/screenshot_pages.py [out_dir] [query string]
Starts `streamlit run app.py` on a free port, drives Debian's Chromium with Playwright.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from scripts.browser import CHROMIUM, CHROMIUM_ARGS, IDLE, streamlit_server  # noqa: E402


def main() -> None:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else ROOT / "screenshots")
    query = sys.argv[2] if len(sys.argv) > 2 else ""
    out.mkdir(parents=True, exist_ok=True)
    pages = sorted((ROOT / "pages").glob("*.py"), key=lambda p: int(p.name.split("_")[0]))
    with tempfile.TemporaryDirectory() as tmp, streamlit_server(Path(tmp) / "server.log") as (_, base):
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1400, "height": 3400})
            for path in pages:
                slug = "" if path.stem.startswith("0_") else path.stem.split("_", 1)[1]
                page.goto(f"{base}/{slug}{query}")
                page.wait_for_selector(IDLE, timeout=60000)
                time.sleep(1.5)  # let Plotly finish drawing
                page.screenshot(path=str(out / f"{path.stem}.png"), full_page=True)
                print("saved", out / f"{path.stem}.png")
            browser.close()


if __name__ == "__main__":
    main()
