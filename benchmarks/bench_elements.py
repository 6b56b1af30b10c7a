"""What one Streamlit element costs the browser when a fragment's rerun sends it again.

Run from the repository root (a benchmark: it prints a table and asserts nothing)::

    .venv/bin/python benchmarks/bench_elements.py [--presses 8]

``benchmarks/elements_app.py`` draws a fragment with a slider and twenty elements of one kind, each
showing the slider's value. For each kind, a fresh tab in Debian's Chromium presses the slider's
thumb (2 untimed presses, then ``--presses``) and reads the tab's main-thread busy time from
Chromium's ``Performance.getMetrics`` (TaskDuration: scripts, style, layout, paint) before and after.
The cost of one element is (kind − bare fragment) / 20, per press; the trivial page of
``bench_browser.py`` (one slider, one Plotly line drawn anew) is measured the same way, as the
yardstick. A page's control whose answer redraws K charts and sends L formulas and M metrics cannot
be faster than what those cost here, whatever the server does.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from playwright.sync_api import Page, sync_playwright  # noqa: E402

from scripts.browser import CHROMIUM, CHROMIUM_ARGS, IDLE, streamlit_server  # noqa: E402

KINDS = ["none", "static_markdown", "markdown", "caption", "metric", "metric_in_columns", "button", "radio",
         "latex", "table"]  # fmt: skip
N = 20


def busy_ms_per_press(page: Page, presses: int) -> float:
    """Main-thread milliseconds per press of the slider ``k`` (2 untimed presses first)."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("Performance.enable")
    page.locator(IDLE).wait_for(timeout=60_000)
    thumb = page.locator(".st-key-k").get_by_role("slider").first
    thumb.focus()

    def press(i: int) -> None:
        page.keyboard.press("ArrowRight" if i % 2 == 0 else "ArrowLeft")
        time.sleep(0.15)
        page.locator(IDLE).wait_for(timeout=60_000)
        time.sleep(0.5)  # the charts' and KaTeX's work after the commit

    def task_s() -> float:
        metrics = cdp.send("Performance.getMetrics")["metrics"]
        return float(next(m["value"] for m in metrics if m["name"] == "TaskDuration"))

    for i in range(2):
        press(i)
    t0 = task_s()
    for i in range(presses):
        press(i)
    return 1000.0 * (task_s() - t0) / presses


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--presses", type=int, default=8, help="timed presses per kind (default 8)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench_elements_") as tmp, sync_playwright() as pw:
        here = ROOT / "benchmarks"
        with (
            streamlit_server(Path(tmp) / "elements.log", script=here / "elements_app.py") as (_, url),
            streamlit_server(Path(tmp) / "trivial.log", script=here / "trivial_app.py") as (_, triv),
        ):
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            costs: dict[str, float] = {}
            for kind in ["trivial", *KINDS]:
                page = browser.new_page(viewport={"width": 1400, "height": 1000})
                page.goto(triv if kind == "trivial" else f"{url}/?kind={kind}")
                time.sleep(1.5)
                costs[kind] = busy_ms_per_press(page, args.presses)
                page.close()
                print(f"  {kind:<18} {costs[kind]:7.1f} ms a press", file=sys.stderr, flush=True)
            browser.close()
    trivial, bare = costs.pop("trivial"), costs.pop("none")
    print(f"trivial page (one slider, one Plotly line drawn anew): {trivial:.1f} ms of main thread a press")
    print(f"bare fragment (one slider): {bare:.1f} ms a press\n")
    print(f"{'element (sent again)':<30} {'ms each':>8} {'× trivial each':>15} {'20 of them × trivial':>21}")
    for kind, ms in costs.items():
        each = (ms - bare) / N
        print(f"{kind:<30} {each:8.2f} {each / trivial:14.3f}× {(ms - bare) / trivial:20.2f}×")
    print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
