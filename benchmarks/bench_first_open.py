"""What a page's first run costs a second student: the sidebar's live ε, γ and β frames made once.

Run from the repository root::

    .venv/bin/python benchmarks/bench_first_open.py [--repeats 3]

For every page whose numbers the sidebar's ε, γ and β move (``ui.live.sidebar.view``), with every cache
emptied first: the CPU time of a fresh session's first run of the page (app.py, then the page, through
``streamlit.testing.v1.AppTest`` with the tests' harness, ``tests/apptest_support.py``), then of a
second fresh session on the same page and vector, as the next student of a class opens it. The
second finds the sidebar's frames made (``ui.live.sidebar._shared_payload``). CPU time of this
process (``time.process_time``), the median of ``--repeats``. Prints a table and the ratios; asserts
nothing.
"""

from __future__ import annotations

import argparse
import logging
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]
os.environ.setdefault("LAB_DATABASE_URL", f"sqlite:///{tempfile.mkdtemp()}/classes.sqlite3")

import streamlit as st  # noqa: E402
from apptest_support import open_page  # noqa: E402

from ui import live  # noqa: E402

PAGES = [
    "pages/0_home.py",
    "pages/2_variance.py",
    "pages/3_standardize.py",
    "pages/4_scale_shift.py",
    "pages/5_full_formula.py",
    "pages/12_estimators_and_eps.py",
    "pages/14_invariances.py",
    "pages/15_gradients.py",
]


def empty_caches() -> None:
    """Every cache the lab keeps, emptied (without Streamlit's "No runtime found" outside a server)."""
    log = logging.getLogger("streamlit.runtime.caching.cache_data_api")
    level = log.level
    log.setLevel(logging.ERROR)
    try:
        st.cache_data.clear()
        live.clear_frame_caches()
    finally:
        log.setLevel(level)


def cpu_of(page: str) -> float:
    start = time.process_time()
    open_page(page)
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    open_page("pages/1_mean.py")  # imports and Streamlit's own first-run costs, outside the table
    print(f"{'page':34} {'first student':>14} {'second student':>15} {'ratio':>7}")
    ratios = []
    for page in PAGES:
        firsts, seconds = [], []
        for _ in range(args.repeats):
            empty_caches()
            firsts.append(cpu_of(page))
            seconds.append(cpu_of(page))
        first, second = statistics.median(firsts), statistics.median(seconds)
        ratios.append(first / second)
        print(f"{page:34} {first * 1000:11.0f} ms {second * 1000:12.0f} ms {first / second:6.1f}×")
    print(f"second student's first run: {statistics.median(ratios):.1f}× less CPU (median over pages)")


if __name__ == "__main__":
    main()
