"""Server-side rerun time of every page, and server memory per browser session.

Run from the repository root (see ``benchmarks/README.md``)::

    .venv-bench/bin/python benchmarks/bench_pages.py [--reruns 9] [--sessions 20] [--skip-memory]

1. Rerun time (``streamlit.testing.v1.AppTest``): for every file in ``pages/``, load
   ``app.py``, switch to the page, run once more as a warm-up, then change one control
   of that page before each of ``--reruns`` timed reruns (walking it through distinct
   values) and take the median. The control is the page's first slider, else
   select_slider, else number_input; pages without one get the sidebar ``eps``
   select_slider (or, if AppTest shows no sidebar, the page's first selectbox). Wall
   clock and this process's CPU time are both reported: the machine has 2 cores shared
   with other jobs, and CPU time is the steadier of the two. The baseline is a trivial
   page (one slider, one small Plotly chart) written to a temporary directory and timed
   the same way, before and after the pages.
2. Memory: ``streamlit run app.py`` on a free 127.0.0.1 port; Playwright drives Debian's
   /usr/bin/chromium, one browser with one context+page per session, each waiting until
   the app is connected and idle; the server's RSS (psutil) after 1 and after N sessions.

Prints tables; asserts nothing. The server and the browser are always stopped.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import re
import signal
import statistics
import sys
import tempfile
import textwrap
import time
import traceback
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
APP = ROOT / "app.py"
PAGES = ROOT / "pages"
TARGET_RATIO = 1.5
TARGET_MB = 2.0
sys.path.insert(0, str(ROOT))
from scripts.browser import CHROMIUM, CHROMIUM_ARGS, IDLE, streamlit_server  # noqa: E402

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


# --- rerun time ------------------------------------------------------------------------------


def page_files() -> list[Path]:
    """Every page script, in the numeric order of the file names."""

    def order(p: Path) -> tuple[int, str]:
        m = re.match(r"(\d+)", p.name)
        return (int(m.group(1)) if m else 10**6, p.name)

    return sorted((p for p in PAGES.glob("*.py") if not p.name.startswith("_")), key=order)


def _numeric_step(value: float, lo: float | None, hi: float | None, step: float, i: int) -> float:
    """The i-th value of a walk from ``value`` in ``step``s that bounces off ``lo``/``hi``."""
    direction = 1 if i % 8 < 4 else -1  # four steps up, four down
    new = value + direction * step
    if hi is not None and new > hi:
        new = value - step
    if lo is not None and new < lo:
        new = value + step
    if isinstance(value, int) and float(step).is_integer():
        return round(new)
    return round(new, 12)


class Control:
    """One widget of an AppTest run that can be moved to a new value each rerun."""

    def __init__(self, widget: Any, where: str) -> None:
        self.kind = widget.type
        self.key = widget.key
        self.label = f"{where} {self.kind} '{widget.key or widget.label}'"

    def move(self, at: Any, i: int) -> None:
        w = next(w for w in at.get(self.kind) if w.key == self.key)
        v = w.value
        if self.kind == "selectbox":
            idx = w.index if w.index is not None else 0
            new_idx = idx + 1 if idx + 1 < len(w.options) else idx - 1
            w.select_index(new_idx if i % 2 == 0 or idx == 0 else idx - 1)
        elif self.kind == "select_slider":
            opts = list(w.options)
            fmt = w.format_func
            idx = opts.index(str(fmt(v))) if str(fmt(v)) in opts else 0
            new_idx = idx + (1 if i % 8 < 4 else -1)
            if not 0 <= new_idx < len(opts):
                new_idx = idx - 1 if new_idx >= len(opts) else idx + 1
            w.set_value(_raw_option(opts[new_idx], fmt))
        elif self.kind == "slider":
            w.set_value(_numeric_step(v, w.min, w.max, w.step, i))
        else:  # number_input
            w.set_value(_numeric_step(v, w.min, w.max, w.step or 1, i))


def _raw_option(formatted: str, fmt: Any) -> Any:
    """Recover a select_slider option's value from its label (numeric options)."""
    for cast in (int, float):
        with contextlib.suppress(ValueError, TypeError):
            raw = cast(formatted)
            if str(fmt(raw)) == formatted:
                return raw
    with contextlib.suppress(Exception):  # a format_func that only takes its own option type
        if str(fmt(formatted)) == formatted:
            return formatted
    for index in range(4096):  # options that are positions (e.g. a site number shown as its name)
        with contextlib.suppress(Exception):
            if str(fmt(index)) == formatted:
                return index
    raise ValueError(f"cannot find the value behind option {formatted!r}")


def _movable(widget: Any) -> bool:
    if widget.key is None:
        return False
    if widget.type == "slider":
        return isinstance(widget.value, (int, float))
    if widget.type == "select_slider":
        return not isinstance(widget.value, (list, tuple))
    return widget.value is not None


def pick_control(at: Any) -> Control | None:
    """The page's own slider/select_slider/number_input, else a sidebar one (``eps`` first)."""
    for kind in ("slider", "select_slider", "number_input"):
        for w in at.main.get(kind):
            if _movable(w):
                return Control(w, "page")
    side = [w for kind in ("select_slider", "slider", "number_input") for w in at.sidebar.get(kind)]
    side.sort(key=lambda w: w.key != "eps")
    for w in side:
        if _movable(w):
            return Control(w, "sidebar")
    for w in at.main.get("selectbox"):
        if w.key is not None and len(w.options) > 1:
            return Control(w, "page")
    return None


Timing = tuple[list[float], list[float], str, list[str]]  # wall s, CPU s, control, errors


def time_reruns(at: Any, reruns: int) -> Timing:
    """Warm up, then time ``reruns`` reruns, each after moving one control."""
    errors: list[str] = []
    at.run()  # warm-up
    errors += [e.value for e in at.exception]
    control = pick_control(at)
    if control is None:
        return [], [], "no slider/select_slider/number_input found", errors
    wall, cpu = [], []
    for i in range(reruns):
        control.move(at, i)
        t0, c0 = time.perf_counter(), time.process_time()
        at.run()
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
        errors += [e.value for e in at.exception]
    return wall, cpu, control.label, errors


def _apptest() -> Any:
    """``AppTest``, with its bare-mode "missing ScriptRunContext" warning silenced."""
    from streamlit.testing.v1 import AppTest

    # AppTest() itself writes session state outside a script run, which logs that warning
    # once per app; it would bury the tables. (The logger exists once AppTest is imported.)
    logging.getLogger("streamlit.runtime.scriptrunner_utils.script_run_context").setLevel(logging.ERROR)
    return AppTest


def bench_trivial(reruns: int) -> Timing:
    AppTest = _apptest()

    with tempfile.TemporaryDirectory(prefix="bench_trivial_") as tmp:
        script = Path(tmp) / "trivial_page.py"
        script.write_text(TRIVIAL_PAGE)
        at = AppTest.from_file(str(script), default_timeout=60)
        at.run()
        result = time_reruns(at, reruns)
    if result[3]:
        print(f"  trivial page raised: {result[3][:2]}")
    return result


def bench_page(page: Path, reruns: int) -> Timing:
    AppTest = _apptest()

    at = AppTest.from_file(str(APP), default_timeout=60)
    at.run()
    at.switch_page(str(page.relative_to(ROOT))).run()
    return time_reruns(at, reruns)


def rerun_table(reruns: int) -> None:
    print(f"Rerun time after a control change (AppTest; median of {reruns} reruns; wall clock and CPU)")
    first = bench_trivial(reruns)
    rows: list[tuple[str, Timing]] = []
    for page in page_files():
        try:
            result = bench_page(page, reruns)
        except Exception as exc:  # keep going: one broken page must not hide the others
            result = ([], [], f"failed: {type(exc).__name__}: {exc}"[:90], [])
        rows.append((page.name, result))
    last = bench_trivial(reruns)
    base_wall = statistics.median(first[0] + last[0])
    base_cpu = statistics.median(first[1] + last[1])
    print(
        f"  trivial page (1 slider + 1 small Plotly chart): wall {base_wall * 1e3:.1f} ms, CPU "
        f"{base_cpu * 1e3:.1f} ms (wall before the pages {statistics.median(first[0]) * 1e3:.1f} ms, "
        f"after {statistics.median(last[0]) * 1e3:.1f} ms)"
    )
    header = (
        f"{'page':>28} | {'wall':>9} | {'ratio':>6} | {'CPU':>9} | {'ratio':>6} | "
        f"≤{TARGET_RATIO:g}× (CPU) | control moved"
    )
    print(header)
    print("-" * (len(header) + 30))
    for name, (wall, cpu, control, errors) in rows:
        if not wall:
            print(f"{name:>28} | {'n/a':>9} | {'n/a':>6} | {'n/a':>9} | {'n/a':>6} | {'n/a':>10} | {control}")
            continue
        w, c = statistics.median(wall), statistics.median(cpu)
        verdict = "ok" if c / base_cpu <= TARGET_RATIO else "OVER"
        note = f"  [page raised: {errors[0][:60]!r}]" if errors else ""
        print(
            f"{name:>28} | {w * 1e3:6.1f} ms | {w / base_wall:5.1f}× | {c * 1e3:6.1f} ms | "
            f"{c / base_cpu:5.1f}× | {verdict:>10} | {control}{note}"
        )
    print()


# --- memory per session ----------------------------------------------------------------------


def rss_mb(pid: int, samples: int = 3) -> float:
    """Median resident set size of ``pid`` in MB (1e6 bytes) over a few samples."""
    import psutil

    proc = psutil.Process(pid)
    values = []
    for _ in range(samples):
        values.append(proc.memory_info().rss / 1e6)
        time.sleep(0.5)
    return statistics.median(values)


def memory_table(sessions: int, path: str = "/") -> None:
    print(f"Server memory with browser sessions (Chromium, {sessions} sessions on {path})")
    if not Path(CHROMIUM).exists():
        print(f"  skipped: {CHROMIUM} not found (apt-get install -y chromium)")
        return
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        print("  skipped: playwright is not installed (pip install playwright; never `playwright install`)")
        return
    log = Path(tempfile.gettempdir()) / f"bench_pages_streamlit_{os.getpid()}.log"
    rows: list[tuple[str, float]] = []
    with streamlit_server(log) as (proc, url), sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            rows.append(("server started, no session", rss_mb(proc.pid)))
            load_times = []
            for i in range(sessions):
                t0 = time.perf_counter()
                page = browser.new_context().new_page()
                page.goto(url + path, timeout=60_000)
                page.wait_for_selector(IDLE, timeout=60_000)
                load_times.append(time.perf_counter() - t0)
                if i == 0:
                    time.sleep(1.0)
                    rows.append(("1 session", rss_mb(proc.pid)))
            time.sleep(1.0)
            rows.append((f"{sessions} sessions", rss_mb(proc.pid)))
        finally:
            browser.close()
    for name, mb in rows:
        print(f"  {name:>28}: {mb:8.1f} MB RSS")
    per = (rows[-1][1] - rows[1][1]) / max(1, sessions - 1)
    verdict = "ok" if per < TARGET_MB else "OVER"
    print(f"  {'per additional session':>28}: {per:8.2f} MB   (target < {TARGET_MB:g} MB: {verdict})")
    print(
        f"  page load to idle: first {load_times[0]:.2f} s, "
        f"median of the others {statistics.median(load_times[1:] or load_times):.2f} s"
    )
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reruns", type=int, default=9, help="timed reruns per page (default 9)")
    parser.add_argument("--sessions", type=int, default=20, help="browser sessions to open (default 20)")
    parser.add_argument("--skip-memory", action="store_true", help="only the AppTest rerun table")
    parser.add_argument("--skip-reruns", action="store_true", help="only the memory table")
    parser.add_argument("--memory-page", default="/", help="page the browser sessions open (default /)")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # run the finally blocks on kill
    os.chdir(ROOT)
    sys.path.insert(0, str(ROOT))
    import streamlit

    print(f"streamlit {streamlit.__version__}; load average {os.getloadavg()[0]:.1f} (2-core machine)")
    print()
    if not args.skip_reruns:
        rerun_table(args.reruns)
    if not args.skip_memory:
        try:
            memory_table(args.sessions, args.memory_page)
        except Exception:
            print("  memory benchmark failed:")
            traceback.print_exc(file=sys.stdout)
    print(f"load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
