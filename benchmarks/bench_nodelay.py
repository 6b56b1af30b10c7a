"""One student on an idle server: a slider move's time, with and without TCP_NODELAY (``ui/nodelay.py``).

Run from the repository root::

    .venv/bin/python benchmarks/bench_nodelay.py [--moves 60]

Two copies of a one-slider app (the slider in a fragment, two lines of text that follow it), each on a
fresh ``streamlit run`` with the lab's flags and ``.streamlit/config.toml``; the second calls
``ui.nodelay.send_without_delay()`` first, as ``app.py`` does. One protocol-level session
(``scripts.session_client.Session``) opens each and moves the slider ``--moves`` times, one move at a time;
a move's time runs from sending it to the run's ``script_finished``. Also printed: the gap between the
run's first message and its second, where Nagle's algorithm waited for the client's delayed
acknowledgement. Prints a table and the ratio; asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from scripts.browser import streamlit_server  # noqa: E402
from scripts.session_client import Session, pick_control  # noqa: E402

APP = """
import streamlit as st
{first}

@st.fragment
def moved() -> None:
    v = st.slider("v", 0, 100, 5)
    st.write(f"v = {{v}}")
    st.write(f"2v = {{2 * v}}")


moved()
"""


class Timed(Session):
    """A session that notes when each of a run's messages arrives."""

    def __init__(self, base: str) -> None:
        super().__init__(base, "/")
        self.arrivals: list[float] = []
        self.on_message = lambda kind, msg: self.arrivals.append(time.perf_counter())


async def measure(url: str, moves: int) -> tuple[list[float], list[float]]:
    s = Timed(url)
    await s.connect()
    await s.load(60)
    s.control = pick_control(s.elements, in_fragment=True)
    assert s.control is not None, "no slider in a fragment"
    times, gaps = [], []
    for i in range(moves):
        s.arrivals = []
        out = await s.move(i, 30)
        times.append(out.ms)
        if len(s.arrivals) >= 3:
            gaps.append(1000 * (s.arrivals[2] - s.arrivals[1]))
    return times, gaps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=60)
    args = parser.parse_args()
    variants = {
        "Streamlit as it is": "",
        "send_without_delay()": "from ui.nodelay import send_without_delay\nsend_without_delay()",
    }
    medians = {}
    print(f"{args.moves} moves, one at a time, on an idle server")
    print(f"  {'server':24} | move p50 | move p95 | 2nd message after the 1st (p50)")
    with tempfile.TemporaryDirectory() as tmp:
        for name, first in variants.items():
            script = Path(tmp) / f"app_{len(medians)}.py"
            script.write_text(APP.format(first=first))
            with streamlit_server(Path(tmp) / f"{script.stem}.log", script=script) as (_, url):
                times, gaps = asyncio.run(measure(url, args.moves))
            medians[name] = statistics.median(times)
            p95 = sorted(times)[round(0.95 * (len(times) - 1))]
            gap = statistics.median(gaps) if gaps else float("nan")
            print(f"  {name:24} | {medians[name]:6.1f} ms | {p95:6.1f} ms | {gap:6.1f} ms")
    a, b = medians.values()
    print(f"ratio (as it is / with send_without_delay): {a / b:.1f}x")


if __name__ == "__main__":
    main()
