"""Fuzz LayerNorm Lab's whole input surface: ``make fuzz`` (10,000 cases) or ``python scripts/fuzz.py``.

Drives the app through Streamlit's AppTest with generated links, typed text, table edits, uploads
and widget values (``tests/fuzz/``), prints a progress bar, one block per fault found (minimised),
and a summary line such as ``fuzz: 10000 cases, 0 failures in 1234 s``. The full report goes to
``artifacts/fuzz-report.txt``. Exit status 1 when any case failed.

    python scripts/fuzz.py --cases 10000 --seed 7      # reproduce a run: same seed, same cases
    FUZZ_CASES=500 python scripts/fuzz.py
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# The fuzzer lives in tests/fuzz (imported as ``fuzz``, like pytest does); this file is also called
# fuzz.py, so its own folder must not shadow the package.
sys.path[:] = [str(ROOT / "tests"), str(ROOT)] + [
    p for p in sys.path if Path(p or ".").resolve() != ROOT / "scripts"
]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=int(os.environ.get("FUZZ_CASES", "10000")))
    parser.add_argument("--seed", type=int, default=None, help="base seed (default: random, printed)")
    parser.add_argument("--steps", type=int, default=20, help="actions per session (default 20)")
    parser.add_argument("--shrink-seconds", type=float, default=120, help="time to minimise each fault")
    parser.add_argument("--report", type=Path, default=ROOT / "artifacts" / "fuzz-report.txt")
    parser.add_argument(
        "--reader-examples", type=int, default=2000, help="then the readers' properties (0: skip)"
    )
    args = parser.parse_args()
    base_seed = args.seed if args.seed is not None else random.SystemRandom().randrange(10**6)

    warnings.simplefilter("error")  # as under pytest (pyproject: filterwarnings = error)
    warnings.simplefilter("ignore", ResourceWarning)  # temp dirs cleaned up at exit
    from fuzz.runner import progress_printer, run, write_report

    print(f"fuzz: {args.cases} cases, {args.steps} actions per session, seed {base_seed}", flush=True)
    result = run(
        args.cases,
        base_seed=base_seed,
        steps=args.steps,
        keep_going=True,
        shrink_seconds=args.shrink_seconds,
        progress=progress_printer(args.cases),
    )
    write_report(result, args.report)
    readers_ok = True
    if args.reader_examples > 0:
        readers_ok = run_reader_properties(args.reader_examples)
    print(f"report: {args.report.relative_to(ROOT) if args.report.is_relative_to(ROOT) else args.report}")
    print(f"reproduce: python scripts/fuzz.py --cases {args.cases} --steps {args.steps} --seed {base_seed}")
    readers = ""
    if args.reader_examples > 0:
        verdict = "passed" if readers_ok else "FAILED"
        readers = f" (reader properties, {args.reader_examples} examples each: {verdict})"
    print(result.summary() + readers, flush=True)
    return 1 if result.stats.failing_cases or not readers_ok else 0


def run_reader_properties(examples: int) -> bool:
    """The readers' properties (tests/fuzz/test_fuzz_readers.py) with many fresh random examples."""
    env = dict(os.environ, FUZZ_READER_EXAMPLES=str(examples), FUZZ_RANDOM="1", HYPOTHESIS_PROFILE="fuzz")
    print(f"readers: {examples} random examples per property (tests/fuzz/test_fuzz_readers.py)", flush=True)
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/fuzz/test_fuzz_readers.py"]
    return subprocess.run(cmd, cwd=ROOT, env=env, check=False).returncode == 0


if __name__ == "__main__":
    sys.exit(main())
