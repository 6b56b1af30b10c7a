"""layernorm.labs.shared_affine: one γ, β that undo token k give every token token k's statistics."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import layernorm as ln
from layernorm.data.activations import load_minilm_recording
from layernorm.labs.shared_affine import undo_for_token

# Three tokens with exact statistics: μ = 2.5, 25, 0 and σ² = 1.25, 125, 12.5.
TOKENS = np.array([[1.0, 2, 3, 4], [10, 20, 30, 40], [-5, 0, 5, 0]])


def test_the_shared_pair_is_token_ks_own_statistics() -> None:
    r = undo_for_token(TOKENS, 1, eps=0.0)
    assert r.beta == 25.0
    assert r.gamma == pytest.approx(np.sqrt(125.0), rel=1e-15)
    np.testing.assert_array_equal(r.mu, [2.5, 25.0, 0.0])
    np.testing.assert_allclose(r.sigma, np.sqrt([1.25, 125.0, 12.5]), rtol=1e-15)


def test_with_eps_zero_token_k_comes_back_and_every_token_gets_its_mean_and_spread() -> None:
    r = undo_for_token(TOKENS, 1, eps=0.0)
    np.testing.assert_allclose(r.y[1], TOKENS[1], rtol=0, atol=1e-13)
    np.testing.assert_allclose(r.mu_after, [25.0, 25.0, 25.0], rtol=0, atol=1e-13)
    np.testing.assert_allclose(r.sigma_after, [np.sqrt(125.0)] * 3, rtol=1e-14)
    # token 0 becomes 25 + √125·(x − 2.5)/√1.25 = 25 + 10·(x − 2.5): [10, 20, 30, 40], 36 from [1, 2, 3, 4]
    np.testing.assert_allclose(r.y[0], [10.0, 20, 30, 40], rtol=1e-15)
    assert r.miss[0] == pytest.approx(36.0, rel=1e-15)
    assert r.miss[1] < 1e-13


def test_eps_keeps_token_k_from_coming_back_exactly() -> None:
    r = undo_for_token(TOKENS, 0, eps=1e-5)
    # y_0 − μ_0 = (x_0 − μ_0)·σ/√(σ² + ε): the largest deviation, 1.5, shrinks by 1.5·(1 − √(1.25/1.25001))
    expected = 1.5 * (1 - np.sqrt(1.25 / 1.25001))
    assert r.miss[0] == pytest.approx(expected, rel=1e-9)
    assert r.factor[0] == pytest.approx(np.sqrt(1.25 / 1.25001), rel=1e-15)


@settings(max_examples=80, deadline=None)
@given(
    x=hnp.arrays(np.float64, st.tuples(st.integers(1, 6), st.integers(1, 8)), elements=st.floats(-1e3, 1e3)),
    data=st.data(),
)
def test_every_token_keeps_its_direction_and_takes_beta_as_its_mean(
    x: np.ndarray, data: st.DataObject
) -> None:
    k = data.draw(st.integers(0, x.shape[0] - 1))
    r = undo_for_token(x, k, eps=1e-5)
    scale = np.max(np.abs(x)) + 1.0
    np.testing.assert_allclose(
        r.y - r.beta, r.factor[:, None] * (x - r.mu[:, None]), rtol=0, atol=1e-12 * scale
    )
    np.testing.assert_allclose(r.mu_after, r.beta, rtol=0, atol=1e-12 * scale)
    np.testing.assert_array_equal(
        r.y, ln.layer_norm(x, np.full(x.shape[1], r.gamma), np.full(x.shape[1], r.beta))
    )


def test_real_minilm_tokens_one_pair_restores_one_token_only() -> None:
    rec = load_minilm_recording()
    site = 2
    tokens = rec.sentence_tokens(0, site)
    eps = float(rec.eps[site])
    r = undo_for_token(tokens, 0, eps=eps)
    assert r.miss[0] < 1e-9 * np.max(np.abs(tokens[0]))
    others = np.delete(r.miss, 0)
    assert np.all(others > 1e3 * r.miss[0])  # every other token visibly missed
    assert np.ptp(r.mu) > 0 and np.ptp(r.mu_after) < 1e-12  # their means differed; now all are μ_0


@pytest.mark.parametrize(
    ("tokens", "k", "message"),
    [
        (np.ones(3), 0, "rows"),
        (np.ones((2, 3)), 2, "0 <= k < 2"),
        (np.ones((2, 3)), -1, "0 <= k < 2"),
        (np.ones((2, 3)), True, "token number"),
        (np.array([[1.0, np.nan]]), 0, "NaN"),
    ],
)
def test_bad_arguments_say_what_is_wrong(tokens: np.ndarray, k: int, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        undo_for_token(tokens, k)
