"""Speed and exactness of ``layernorm.layer_norm`` against PyTorch and a memory pass.

Run from the repository root (torch is optional; see ``benchmarks/README.md``)::

    .venv-bench/bin/python benchmarks/bench_core.py            # speed + exactness tables
    .venv-bench/bin/python benchmarks/bench_core.py --profile  # + time of each pass of the core
    .venv-bench/bin/python benchmarks/bench_core.py --core /tmp/copy  # time /tmp/copy/layernorm

Everything is single-threaded: ``OMP/OPENBLAS/MKL_NUM_THREADS=1`` are set before
NumPy is imported (and threadpoolctl, when installed, limits any BLAS pool again),
``torch.set_num_threads(1)``. Times are the median of several timeit repeats of this
process's CPU time (``time.process_time``): on the shared 2-core machine other jobs
inflate wall-clock times at random, while a single-threaded CPU time equals the wall
time of an idle machine and still counts page faults (system time).
Prints tables; asserts nothing (wall-clock time is never a test).
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"  # before numpy: one BLAS/OpenMP thread, like torch below

import argparse  # noqa: E402
import importlib  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import timeit  # noqa: E402
from collections.abc import Callable  # noqa: E402
from decimal import Decimal, localcontext  # noqa: E402
from fractions import Fraction  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402

try:
    import threadpoolctl

    _POOLS = threadpoolctl.threadpool_limits(1)
    _POOL_INFO = ", ".join(
        f"{p['internal_api']} {p.get('version')} ({p.get('architecture')}, {p['num_threads']} thread)"
        for p in threadpoolctl.threadpool_info()
    )
except ImportError:
    _POOL_INFO = "threadpoolctl not installed (env variables only)"

try:
    import torch
    import torch.nn.functional as F

    torch.set_num_threads(1)
except ImportError:
    torch = None

core: Any = None  # layernorm.core, imported in main() (the repository's or --core DIR's)
D = 768
EPS = 1e-5
SHAPES = [(1, D), (32, D), (8, 128, D), (32, 512, D)]
TARGET_VS_TORCH = 3.0


def median_time(fn: Callable[[], object], repeat: int = 7, min_total: float = 0.2) -> float:
    """Median seconds per call over ``repeat`` timeit runs of an auto-ranged loop count."""
    timer = timeit.Timer(fn, timer=time.process_time)
    number, _ = timer.autorange()  # loops taking >= 0.2 s in all
    number = max(1, int(number * min_total / 0.2))
    return statistics.median(t / number for t in timer.repeat(repeat=repeat, number=number))


def fmt_time(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{seconds * 1e6:8.1f} µs"
    return f"{seconds * 1e3:8.2f} ms"


def speed_table() -> None:
    rng = np.random.default_rng(0)
    gamma = np.ones(D, np.float32)
    beta = np.zeros(D, np.float32)
    print(
        "Speed: float32 input, eps=1e-5, gamma=ones/beta=zeros passed to both; median of 7 repeats (CPU time)"
    )
    print("  copy pass = np.copyto(out, x) into a preallocated float32 array of x's shape")
    print("  (one read + one write of the float32 data; the core reads float32 and writes float64)")
    header = (
        f"{'shape':>16} | {'core':>11} | {'torch 1 thr':>11} | {'copy pass':>11} | "
        f"{'core/torch':>10} | {'core/copy':>9} | {'torch/copy':>10} | target ≤{TARGET_VS_TORCH:g}× torch"
    )
    print(header)
    print("-" * len(header))
    for shape in SHAPES:
        x = rng.standard_normal(shape, dtype=np.float32)
        out = np.empty_like(x)
        t_core = median_time(lambda x=x: core.layer_norm(x, gamma, beta, eps=EPS))
        t_copy = median_time(lambda x=x, out=out: np.copyto(out, x))
        if torch is not None:
            xt, gt, bt = torch.from_numpy(x), torch.from_numpy(gamma), torch.from_numpy(beta)
            t_torch = median_time(lambda xt=xt, gt=gt, bt=bt: F.layer_norm(xt, (D,), gt, bt, EPS))
            torch_cols = f"{fmt_time(t_torch)} | "
            core_torch = f"{t_core / t_torch:9.1f}×"
            verdict = "ok" if t_core / t_torch <= TARGET_VS_TORCH else "OVER"
            torch_ratio = f"{t_torch / t_copy:9.1f}×"
        else:
            torch_cols, core_torch = f"{'n/a':>11} | ", f"{'n/a':>10}"
            verdict, torch_ratio = "n/a (no torch)", f"{'n/a':>10}"
        print(
            f"{shape!s:>16} | {fmt_time(t_core)} | {torch_cols}{fmt_time(t_copy)} | "
            f"{core_torch} | {t_core / t_copy:8.1f}× | {torch_ratio} | {verdict}"
        )
    print()


def profile_table() -> None:
    """Median time of each pass of ``layer_norm_steps`` on the largest shape."""
    shape = SHAPES[-1]
    x = np.random.default_rng(0).standard_normal(shape, dtype=np.float32)
    x2 = x.reshape(-1, D).astype(np.float64)
    _, centered = core.center_rows(x2)
    _, std = core.spread_rows(centered, EPS)
    x_hat = centered / std
    g = np.ones(D)
    b = np.zeros(D)
    passes: list[tuple[str, Callable[[], object]]] = [
        ("whole layer_norm", lambda: core.layer_norm(x, eps=EPS)),
        ("float32 -> float64 copy", lambda: x.astype(np.float64)),
        ("center_rows (mean, x-mu, refine)", lambda: core.center_rows(x2)),
        ("spread_rows (einsum var, sqrt)", lambda: core.spread_rows(centered, EPS)),
        ("check_divisor", lambda: core.check_divisor(std)),
        ("x_hat = centered / std", lambda: centered / std),
        ("y = g * x_hat + b", lambda: g * x_hat + b),
    ]
    print(f"Profile of the core on {shape} (median of 5 repeats): each pass alone on the whole")
    print("  (n, d) array into a fresh output, as an unblocked core runs it; % of the whole call")
    whole = None
    for name, fn in passes:
        t = median_time(fn, repeat=5, min_total=0.1)
        whole = whole or t
        print(f"  {name:<36} {fmt_time(t)}  {100 * t / whole:5.0f}%")
    print()


# --- exactness ---------------------------------------------------------------------------------


def exact_layer_norm(row: np.ndarray, eps: float) -> np.ndarray:
    """``(x - mu) / sqrt(var + eps)`` of one float row, exact rationals then 50-digit sqrt."""
    xs = [Fraction(float(v)) for v in row]
    d = len(xs)
    mu = sum(xs, Fraction(0)) / d
    var = sum(((v - mu) ** 2 for v in xs), Fraction(0)) / d
    with localcontext() as ctx:
        ctx.prec = 60
        std = (
            Decimal(var.numerator) / Decimal(var.denominator)
            + Decimal(Fraction(eps).numerator) / Decimal(Fraction(eps).denominator)
        ).sqrt()
        out = [(Decimal((v - mu).numerator) / Decimal((v - mu).denominator)) / std for v in xs]
        return np.array([float(o) for o in out])


def adversarial_inputs() -> list[tuple[str, np.ndarray]]:
    rng = np.random.default_rng(1)
    cases = []
    for offset in (1e4, 1e5, 1e6, 1e7):
        cases.append((f"{offset:.0e} + N(0,1)", (offset + rng.standard_normal((4, D))).astype(np.float32)))
    # at 1e8 float32 steps are 8 apart, so N(0,1) noise would round away: use N(0, 100²)
    cases.append(("1e8 + 100·N(0,1)", (1e8 + 100 * rng.standard_normal((4, D))).astype(np.float32)))
    cases.append(("constant rows 0.1", np.full((4, D), 0.1, np.float32)))
    cases.append(("constant rows 1e4+0.1", np.full((4, D), 1e4 + 0.1, np.float32)))
    cases.append(("constant rows, 1e8", np.full((4, D), 1e8, np.float32)))
    cases.append(("1e20 · N(0,1)", (1e20 * rng.standard_normal((4, D))).astype(np.float32)))
    cases.append(("1e20 + 1e18·N(0,1)", (1e20 + 1e18 * rng.standard_normal((4, D))).astype(np.float32)))
    cases.append(("N(0,1) (easy)", rng.standard_normal((4, D)).astype(np.float32)))
    return cases


def error_table() -> None:
    print(f"Exactness: max |y - y_ref| over 4 rows × d={D}, eps=1e-5; y_ref from exact rationals")
    print("  (Fraction mean and variance of the float32 input as given, 60-digit Decimal sqrt);")
    print("  y is dimensionless (≈ N(0,1)), so an error of 1 means the output is garbage.")
    header = f"{'input (float32)':>24} | {'core (float64 stats)':>20} | {'torch float32':>14} | note"
    print(header)
    print("-" * len(header))
    for name, x in adversarial_inputs():
        ref = np.stack([exact_layer_norm(r, EPS) for r in x])
        err_core = float(np.max(np.abs(core.layer_norm(x, eps=EPS) - ref)))
        note = ""
        if torch is not None:
            with np.errstate(invalid="ignore"):
                y_t = F.layer_norm(torch.from_numpy(x), (D,), eps=EPS).numpy().astype(np.float64)
                err_t = np.abs(y_t - ref)
            n_bad = int(np.sum(~np.isfinite(y_t)))
            torch_col = f"{float(np.max(err_t[np.isfinite(err_t)], initial=0.0)):14.3g}"
            if n_bad:
                torch_col = f"{'NaN/inf':>14}"
                note = f"torch gives {n_bad} non-finite values"
        else:
            torch_col = f"{'n/a':>14}"
        print(f"{name:>24} | {err_core:20.3g} | {torch_col} | {note}")
    row = np.full((1, D), 0.1, np.float32)
    try:
        core.layer_norm(row, eps=0.0)
        core_says = "a value"
    except ValueError as exc:
        core_says = type(exc).__name__  # raised
    if torch is not None:
        y_t = F.layer_norm(torch.from_numpy(row), (D,), eps=0.0).numpy()
        torch_says = f"{int(np.isnan(y_t).sum())} NaN of {D}"
    else:
        torch_says = "n/a"
    print(f"{'constant row, eps=0':>24} | {core_says:>20} | {torch_says:>14} | 0/0: no right answer")
    print("  float32 output rounding alone is about 6e-8 × |y|, so torch errors above ~1e-6 are")
    print("  algorithmic (float32 statistics), not the float32 output format.")
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", action="store_true", help="also time each pass of the core")
    parser.add_argument(
        "--core", metavar="DIR", help="time DIR/layernorm instead of the repository's (a scratch copy)"
    )
    args = parser.parse_args()
    global core
    sys.path.insert(0, args.core or str(Path(__file__).resolve().parents[1]))
    core = importlib.import_module("layernorm.core")
    print(f"core: {Path(core.__file__).resolve()}")
    print(f"numpy {np.__version__}; thread pools: {_POOL_INFO}")
    blas_env = {k: os.environ[k] for k in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE") if k in os.environ}
    if blas_env:
        print(f"note: {blas_env} set; they may slow numpy (see benchmarks/README.md)")
    if torch is None:
        print("torch is NOT installed: torch columns show n/a (install benchmarks/requirements-bench.txt)")
    else:
        print(f"torch {torch.__version__}, torch.get_num_threads() = {torch.get_num_threads()}")
    print(f"load average {os.getloadavg()[0]:.1f} (2-core machine; CPU times, see docstring)")
    print()
    speed_table()
    if args.profile:
        profile_table()
    error_table()


if __name__ == "__main__":
    main()
