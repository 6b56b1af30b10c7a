"""Rerun time of "Which axis?" and "Training vs inference" per control change, as a ratio to the Mean page.

Run from the repository root:  .venv/bin/python benchmarks/bench_axes.py
Not a test: it prints a table. Each row is the median of REPEATS reruns through AppTest
(server-side script time only; the browser's drawing is not included).
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from streamlit.testing.v1 import AppTest  # noqa: E402

REPEATS = 5


def _open(page: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()
    at.switch_page(page).run()
    assert not at.exception, at.exception
    return at


def _time(at: AppTest, change: Callable[[AppTest, int], object]) -> float:
    times = []
    for r in range(REPEATS):
        t0 = time.perf_counter()
        change(at, r)
        times.append(time.perf_counter() - t0)
        assert not at.exception, at.exception
    return statistics.median(times)


def main() -> None:
    mean_at = _open("pages/1_mean.py")
    base = _time(mean_at, lambda at, r: at.slider(key="mean_shift").set_value(0.5 * (r % 2 + 1)).run())
    rows: list[tuple[str, float]] = [("Mean page: move the shift slider (baseline)", base)]

    ax = _open("pages/6_which_axis.py")
    t0 = time.perf_counter()
    ax.selectbox(key="axes_preset").set_value("Largest: 64 × 128 × 768").run()
    rows.append(("Which axis: apply 64×128×768 preset (first build)", time.perf_counter() - t0))
    cases: list[tuple[str, Callable[[AppTest, int], object]]] = [
        (
            "Which axis @64×128×768: sequence b",
            lambda at, r: at.number_input(key="axes_b").set_value(r + 1).run(),
        ),
        (
            "Which axis @64×128×768: token t",
            lambda at, r: at.number_input(key="axes_t").set_value(r + 5).run(),
        ),
        (
            "Which axis @64×128×768: feature i",
            lambda at, r: at.number_input(key="axes_i").set_value(r + 9).run(),
        ),
        (
            "Which axis @64×128×768: groups G",
            lambda at, r: at.number_input(key="axes_groups").set_value([2, 4, 8, 16, 32][r]).run(),
        ),
        (
            "Which axis @64×128×768: lens",
            lambda at, r: (
                at.radio(key="axes_lens")
                .set_value(["BatchNorm", "InstanceNorm", "GroupNorm", "RMSNorm", "LayerNorm"][r])
                .run()
            ),
        ),
        (
            "Which axis @64×128×768: new seed (rebuild 6.3M values)",
            lambda at, r: at.number_input(key="axes_seed").set_value(100 + r).run(),
        ),
    ]
    rows += [(name, _time(ax, fn)) for name, fn in cases]

    tv = _open("pages/7_train_vs_inference.py")
    tv.slider(key="tvi_n").set_value(256).run()
    tv.select_slider(key="tvi_d").set_value(64).run()
    cases = [
        (
            "Train vs inference @n=256, d=64: next batch",
            lambda at, r: at.button(key="tvi_next").click().run(),
        ),
        (
            "Train vs inference @n=256, d=64: momentum",
            lambda at, r: at.slider(key="tvi_momentum").set_value(0.2 + 0.1 * r).run(),
        ),
        (
            "Train vs inference @n=256, d=64: shift",
            lambda at, r: at.slider(key="tvi_shift").set_value(float(r - 2)).run(),
        ),
        (
            "Train vs inference @n=256, d=64: 500 redraws",
            lambda at, r: at.slider(key="tvi_redraws").set_value(500 - 10 * r).run(),
        ),
    ]
    rows += [(name, _time(tv, fn)) for name, fn in cases]

    width = max(len(n) for n, _ in rows)
    print(f"{'control change':<{width}}  {'seconds':>8}  {'× Mean page':>11}")
    for name, sec in rows:
        print(f"{name:<{width}}  {sec:8.3f}  {sec / base:11.1f}")


if __name__ == "__main__":
    main()
