"""Bounded app fuzzing inside ``make test``: a few hundred generated user actions through AppTest.

``FUZZ_CASES`` sets how many (default 300, about a minute); ``FUZZ_SEED`` picks other cases (the
default, 0, runs the same cases every time, so CI is reproducible). ``make fuzz`` runs 10,000+.
A failure prints the shortest sequence of actions that breaks the app.
"""

from __future__ import annotations

import os

import pytest

from fuzz.runner import run

pytestmark = pytest.mark.fuzz


def test_generated_sessions_never_break_the_app() -> None:
    cases = int(os.environ.get("FUZZ_CASES", "300"))
    result = run(cases, base_seed=int(os.environ.get("FUZZ_SEED", "0")), steps=15, batch_sessions=4)
    assert result.stats.cases >= cases
