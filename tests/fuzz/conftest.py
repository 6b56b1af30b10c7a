"""The fuzz tests' marker. ``pytest -m "not fuzz"`` skips them; ``make test`` runs them."""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "fuzz: generated inputs against the app (bounded in make test; make fuzz runs 10,000+)"
    )
