"""The code the pages show (``layernorm.formula``, one formula step per line) gives the tested core's numbers.

On every LayerNorm reference case and on generated vectors whose mean is at most a thousand times
their spread, the readable lines and the exact core agree to 1e-9 relative; where the variance is 0
and ε is 0 the core refuses (ZeroVarianceError) and the readable lines give NaN, which is why the
pages' numbers come from the core.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as hs

import layernorm as ln
from layernorm import formula

CASES = [
    c
    for c in json.loads((Path(__file__).parent / "data" / "reference_cases.json").read_text())
    if c["op"] == "layer_norm"
]
TOL = {"rtol": 1e-9, "atol": 1e-12}


def _inputs(case: dict[str, object]) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    x = np.asarray(case["x"], dtype=str(case["dtype"])).astype(np.float64)  # the rounded input, in float64
    d = x.shape[-1]
    gamma = np.ones(d) if case["gamma"] is None else np.asarray(case["gamma"], dtype=np.float64)
    beta = np.zeros(d) if case["beta"] is None else np.asarray(case["beta"], dtype=np.float64)
    return x, gamma, beta, float(case["eps"])  # type: ignore[arg-type]


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_the_shown_formula_gives_the_cores_numbers_on_every_reference_case(case: dict[str, object]) -> None:
    x, gamma, beta, eps = _inputs(case)
    try:
        steps = ln.layer_norm_steps(x, gamma, beta, eps=eps)
    except ln.ZeroVarianceError:
        with np.errstate(divide="ignore", invalid="ignore"):
            assert np.isnan(formula.layer_norm(x, gamma, beta, eps)).all()
        return
    np.testing.assert_allclose(formula.mean(x)[..., 0], steps.mu, **TOL)
    np.testing.assert_allclose(formula.variance(x)[..., 0], steps.var, **TOL)
    np.testing.assert_allclose(formula.standardize(x, eps), steps.x_hat, **TOL)
    np.testing.assert_allclose(formula.layer_norm(x, gamma, beta, eps), steps.y, **TOL)


vectors = hs.tuples(
    hs.lists(hs.integers(-1000, 1000), min_size=2, max_size=64).filter(lambda v: len(set(v)) > 1),
    hs.integers(-1000, 1000),  # offset, in spreads
    hs.sampled_from([1e-3, 1.0, 1e3]),  # scale
    hs.sampled_from([1e-12, 1e-5, 1e-3, 1.0]),
)


@given(vectors)
def test_the_shown_formula_and_its_backward_agree_with_the_core_on_generated_vectors(
    v: tuple[list[int], int, float, float],
) -> None:
    z, offset, scale, eps = v
    x = (np.asarray(z, dtype=np.float64) / 1000 + offset) * scale
    d = x.size
    gamma, beta = np.linspace(-2.0, 2.0, d), np.linspace(0.5, -0.5, d)
    want_y = ln.layer_norm(x, gamma, beta, eps=eps)
    np.testing.assert_allclose(formula.layer_norm(x, gamma, beta, eps), want_y, **TOL)
    dy = np.cos(np.arange(d))
    want = ln.layer_norm_backward(x, gamma, dy, eps=eps)
    got = formula.layer_norm_backward(dy, x, gamma, eps)
    for a, b in zip(got, want, strict=True):
        np.testing.assert_allclose(a.reshape(np.shape(b)), b, rtol=1e-7, atol=1e-9 / scale)


def test_where_the_shown_lines_lose_digits_the_core_does_not_as_the_module_says() -> None:
    """The two examples ``layernorm/formula.py`` gives, with the numbers it quotes."""
    x = np.array([1e8 + 0.1, 1e8 + 0.2, 1e8 + 0.3])
    assert round(float(formula.standardize(x, 0.0)[0]), 8) == -1.22474496
    assert round(float(ln.standardize(x, eps=0.0)[0]), 8) == -1.22474490
    huge = np.array([1e200, -1e200, 0.0])
    with np.errstate(over="ignore"):
        assert formula.standardize(huge, 0.0).tolist() == [0.0, 0.0, 0.0]
    assert np.round(ln.standardize(huge, eps=0.0), 8).tolist() == [1.22474487, -1.22474487, 0.0]
