"""Run the app fuzzer for a number of cases: shared by ``make test`` (bounded) and ``make fuzz``.

Hypothesis runs :class:`~fuzz.machine.LabSession` in batches of sessions, each batch with its own
seed (``seed + batch number``), until the requested number of cases has run. A case is one
generated user action plus every check after it (see :mod:`fuzz.machine`).

``keep_going=False`` (pytest): the first fault fails the test, minimised by Hypothesis.
``keep_going=True`` (``make fuzz``): each *new kind* of fault is minimised, written to the report
and then only counted, so one fault does not hide the others and the run always finishes.
"""

from __future__ import annotations

import math
import sys
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from apptest_support import whole_page_runs
from hypothesis import HealthCheck, Phase, Verbosity, seed, settings
from hypothesis.stateful import run_state_machine_as_test

from fuzz.machine import FuzzFailure, LabSession, Stats, quiet_streamlit

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Found:
    """One fault, minimised: its kind, the failing checks, and the steps that reproduce it."""

    kind: str
    message: str
    steps: str
    batch_seed: int


@dataclass
class Result:
    stats: Stats
    found: list[Found] = field(default_factory=list)

    @property
    def seconds(self) -> float:
        return time.monotonic() - self.stats.started

    def summary(self) -> str:
        s = self.stats
        line = f"fuzz: {s.cases} cases, {s.failing_cases} failures in {self.seconds:.0f} s"
        if self.found:
            line += f" ({len(self.found)} distinct: {', '.join(sorted({f.kind for f in self.found}))})"
        return line


def _failures(exc: BaseException) -> list[FuzzFailure]:
    if isinstance(exc, FuzzFailure):
        return [exc]
    if isinstance(exc, BaseExceptionGroup):
        out: list[FuzzFailure] = []
        for e in exc.exceptions:
            out += _failures(e)
        return out
    return []


def _steps(exc: BaseException) -> str:
    notes = [n for n in getattr(exc, "__notes__", []) if n.strip()]
    return "\n".join(notes)


def limit_shrinking(seconds: float) -> None:
    """Cap the time Hypothesis spends minimising one failure (default 300 s; each AppTest replay is slow).

    Hypothesis has no public setting for this; the engine's module constant is the knob.
    """
    from hypothesis.internal.conjecture import engine

    if hasattr(engine, "MAX_SHRINKING_SECONDS"):
        engine.MAX_SHRINKING_SECONDS = int(seconds)


def run(
    cases: int,
    *,
    base_seed: int = 0,
    steps: int = 20,
    batch_sessions: int = 5,
    keep_going: bool = False,
    derandomize: bool = False,
    progress: Callable[[Stats], None] | None = None,
    shrink_seconds: float = 120,
    log: Callable[[str], None] = print,
) -> Result:
    """Run at least ``cases`` cases (sessions of ``steps`` actions) and return the counts.

    AppTest runs as under pytest (:func:`apptest_support.whole_page_runs`), wherever this is
    called from, so a fault reported here is one the tests would see too.
    """
    quiet_streamlit()
    limit_shrinking(shrink_seconds)
    stats = Stats(on_case=progress)
    LabSession.stats = stats
    LabSession.known_kinds = set()
    result = Result(stats)
    with whole_page_runs():
        batch = 0
        while stats.cases < cases:
            remaining = cases - stats.cases
            sessions = max(1, min(batch_sessions, math.ceil(remaining / steps)))
            batch_seed = base_seed + batch
            batch += 1
            config = settings(
                max_examples=sessions,
                stateful_step_count=steps,
                deadline=None,
                database=None,
                derandomize=derandomize,
                suppress_health_check=list(HealthCheck),
                print_blob=True,
                verbosity=Verbosity.normal,
                phases=[Phase.explicit, Phase.generate, Phase.shrink],
            )

            def factory() -> LabSession:
                return LabSession()

            stats.counting = True
            before = stats.cases
            try:
                run_state_machine_as_test(seed(batch_seed)(factory), settings=config)
            except Exception as exc:  # Ctrl-C still stops the run
                found = _failures(exc)
                if "Flaky" in type(exc).__name__:
                    log(flaky_diagnosis())
                if not keep_going:
                    raise
                if not found:  # the harness's own error (or Hypothesis'), not the app's: say so, go on
                    kind = f"fuzzer error {type(exc).__name__}"
                    text = format_exception(exc)[-3000:]
                    stats.failing_cases += 1
                    stats.kinds[kind] += 1
                    result.found.append(Found(kind, text, _steps(exc), batch_seed))
                    where = f"in the harness, not the app (batch seed {batch_seed})"
                    log(f"\nFUZZER ERROR, {where}\n{text}\n{_steps(exc)}\n")
                for f in found:
                    LabSession.known_kinds.add(f.kind)
                    result.found.append(Found(f.kind, str(f), _steps(f) or _steps(exc), batch_seed))
                    log(f"\nFAULT [{f.kind}] (batch seed {batch_seed})\n{f}\n{_steps(f) or _steps(exc)}\n")
            if stats.cases == before:  # every session failed at once: do not loop forever
                stats.cases += 1
    return result


def flaky_diagnosis() -> str:
    """The latest session next to the earlier one that began the same way: where they part is the flake."""
    traces = [t for t in LabSession.traces if t]
    if len(traces) < 2:
        return "flaky: not enough sessions recorded"
    last = traces[-1]

    def common(t: list[str]) -> int:
        n = 0
        while n < min(len(t), len(last)) and t[n] == last[n]:
            n += 1
        return n

    other = max(traces[:-1], key=common)
    n = common(other)
    return (
        f"flaky replay: the sessions agree for {n} lines, then\n  before: {other[n : n + 6]}\n"
        f"  replay: {last[n : n + 6]}\n  common start: {last[max(0, n - 6) : n]}"
    )


def write_report(result: Result, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as out:
        out.write(result.summary() + "\n\n")
        out.write("failing checks (cases):\n")
        for kind, n in result.stats.kinds.most_common():
            out.write(f"{n:6d}  {kind}\n")
        out.write("\ntime per action (s): count, mean, total\n")
        st = result.stats
        for name, total in st.rule_time.most_common():
            n = st.rule_count[name]
            out.write(f"  {name:24s} {n:6d} {total / n:7.3f} {total:8.1f}\n")
        for f in result.found:
            out.write(f"\n=== [{f.kind}] batch seed {f.batch_seed}\n{f.message}\n\n{f.steps}\n")


def progress_printer(total: int, *, every: int = 50, stream=sys.stderr) -> Callable[[Stats], None]:
    """A progress bar on a terminal, a line every ``every`` cases otherwise."""
    tty = stream.isatty()
    width = 30

    shown = [-1]

    def show(s: Stats) -> None:
        done = min(s.cases, total)
        if done == shown[0] or (not tty and done % every and done != total):
            return
        shown[0] = done
        elapsed = time.monotonic() - s.started
        eta = elapsed / done * (total - done) if done else 0.0
        bar = "#" * int(width * done / total) + "." * (width - int(width * done / total))
        line = (
            f"[{bar}] {done}/{total} cases, {s.failing_cases} failures, {s.sessions} sessions, "
            f"{elapsed:.0f} s, ~{eta:.0f} s left"
        )
        stream.write(("\r" + line) if tty else (line + "\n"))
        if tty and done == total:
            stream.write("\n")
        stream.flush()

    return show


def format_exception(exc: BaseException) -> str:
    return "".join(traceback.format_exception(exc))
