"""How long the Learning-rate page's first full sweep takes, against plain NumPy matmuls of similar size.

Run from the repository root:  .venv/bin/python benchmarks/bench_training.py
Prints the first (cold) sweep, the median of several, and the ratio to a loop of batched
matrix products with the same shapes and count as the sweep's (forward + backward, no
LayerNorm, no bookkeeping), measured in the same process. Not a test: nothing is asserted.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from layernorm.labs.training import DEFAULT_LRS, N_SAMPLES, run_sweep

REPEATS = 5


def matmul_loop(depth: int = 6, width: int = 32, steps: int = 100, runs: int = len(DEFAULT_LRS) * 3) -> float:
    """Seconds for the sweep's matrix products alone: 2 groups x steps x depth x 3 batched products."""
    rng = np.random.default_rng(0)
    h = rng.normal(size=(runs, N_SAMPLES, width))
    w = rng.normal(size=(runs, width, width))
    t0 = time.perf_counter()
    for _ in range(2 * (steps + 1) * depth):
        a = h @ w
        _ = np.swapaxes(h, 1, 2) @ a
        _ = a @ np.swapaxes(w, 1, 2)
    return time.perf_counter() - t0


def main() -> None:
    t0 = time.perf_counter()
    run_sweep()
    first = time.perf_counter() - t0
    times, base = [], []
    for _ in range(REPEATS):
        t0 = time.perf_counter()
        run_sweep()
        times.append(time.perf_counter() - t0)
        base.append(matmul_loop())
    med, med_base = statistics.median(times), statistics.median(base)
    print(
        f"first full sweep (2 norms x {len(DEFAULT_LRS)} learning rates x 3 seeds, 100 steps): {first:.3f} s"
    )
    print(f"median of {REPEATS} further sweeps: {med:.3f} s (min {min(times):.3f}, max {max(times):.3f})")
    print(f"plain NumPy batched-matmul loop of the same shapes: median {med_base:.3f} s")
    print(f"ratio sweep / matmul loop: {med / med_base:.2f}x")


if __name__ == "__main__":
    main()
