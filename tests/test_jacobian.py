"""LayerNorm's Jacobian and the terms of its backward pass (layernorm.backward).

Checked three independent ways: against central finite differences of the forward pass, against the
closed form ``J = diag(gamma) (I - 1 1^T/d - x_hat x_hat^T/d) / std``, and against the backward pass
itself (``J.T @ g``); then the identities, with exact hand-computed cases and hypothesis properties.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import layernorm as ln
from layernorm.backward import layer_norm_backward

ULP = 2.0**-52
# Central differences in float64: truncation error ~ h^2 |y'''| / 6 (about 1e-12 for |x| ~ 1, sigma ~ 1),
# rounding error ~ ulp * |y| / h (about 2e-16 * 3 / 1e-6 ~ 7e-10). 1e-7 relative sits far above both
# and far below any real mistake (a wrong term is off by O(1) of max |J|).
H = 1e-6
FD_TOL = 1e-7


def _finite_difference_jacobian(x: np.ndarray, gamma: np.ndarray | None, eps: float) -> np.ndarray:
    d = x.size
    jac = np.empty((d, d))
    for j in range(d):
        step = np.zeros(d)
        step[j] = H
        jac[:, j] = (ln.layer_norm(x + step, gamma, eps=eps) - ln.layer_norm(x - step, gamma, eps=eps)) / (
            2 * H
        )
    return jac


def _closed_form(x: np.ndarray, gamma: np.ndarray, eps: float) -> np.ndarray:
    d = x.size
    steps = ln.layer_norm_steps(x, eps=eps)
    xh = steps.x_hat
    return gamma[:, None] * (np.eye(d) - np.ones((d, d)) / d - np.outer(xh, xh) / d) / float(steps.std)


RNG = np.random.default_rng(11)
X6 = RNG.normal(1.5, 2.0, size=6)
GAMMA6 = RNG.normal(1.0, 0.6, size=6)
G6 = RNG.normal(size=6)


# --- exact cases ------------------------------------------------------------------------------------


def test_hand_computed_d3() -> None:
    # x = (0, 0, 3): mu = 1, x - mu = (-1, -1, 2), var = 2, x_hat = (-1, -1, 2)/sqrt(2):
    # J = (I - 1 1^T/3 - x_hat x_hat^T/3)/sqrt(2) = [[1, -1, 0], [-1, 1, 0], [0, 0, 0]] / (2 sqrt(2)).
    expected = np.array([[1.0, -1.0, 0.0], [-1.0, 1.0, 0.0], [0.0, 0.0, 0.0]]) / (2 * np.sqrt(2))
    np.testing.assert_allclose(
        ln.layer_norm_jacobian([0.0, 0.0, 3.0], eps=0.0), expected, rtol=0, atol=4 * ULP
    )


def test_d2_jacobian_is_zero_without_eps() -> None:
    # d = 2: every non-constant input maps to +-(1, -1), so nothing moves the output.
    np.testing.assert_allclose(ln.layer_norm_jacobian([1.0, 3.0], eps=0.0), np.zeros((2, 2)), atol=4 * ULP)
    # With eps the only direction left is x_hat, with eigenvalue eps / std^3
    # (here x_hat = (-1, 1) / sqrt(1 + eps) and std^2 = 1 + eps).
    eps = 0.25
    jac = ln.layer_norm_jacobian([1.0, 3.0], eps=eps)
    x_hat = np.array([-1.0, 1.0]) / np.sqrt(1 + eps)
    np.testing.assert_allclose(jac @ x_hat, x_hat * eps / (1 + eps) ** 1.5, rtol=1e-14)
    np.testing.assert_allclose(jac @ np.ones(2), 0.0, atol=4 * ULP)


def test_constant_vector_jacobian_is_centering_over_sqrt_eps() -> None:
    # x_hat = 0 and std = sqrt(eps): J = (I - 1 1^T/d) / sqrt(eps).
    eps = 1e-4
    jac = ln.layer_norm_jacobian(np.full(4, 3.0), eps=eps)
    np.testing.assert_allclose(jac, (np.eye(4) - 0.25) / 0.01, rtol=1e-14)


# --- three independent checks -----------------------------------------------------------------------


@pytest.mark.parametrize("gamma", [None, GAMMA6], ids=["gamma=1", "gamma per feature"])
@pytest.mark.parametrize("eps", [0.0, 1e-5, 0.5])
def test_matches_central_finite_differences(gamma: np.ndarray | None, eps: float) -> None:
    jac = ln.layer_norm_jacobian(X6, gamma, eps=eps)
    fd = _finite_difference_jacobian(X6, gamma, eps)
    assert np.max(np.abs(jac - fd)) < FD_TOL * np.max(np.abs(jac))


@pytest.mark.parametrize("eps", [0.0, 1e-5, 1.0])
def test_matches_closed_form(eps: float) -> None:
    np.testing.assert_allclose(
        ln.layer_norm_jacobian(X6, GAMMA6, eps=eps), _closed_form(X6, GAMMA6, eps), rtol=0, atol=1e-14
    )


def test_transpose_times_g_is_the_backward_pass() -> None:
    jac = ln.layer_norm_jacobian(X6, GAMMA6, eps=1e-5)
    dx, _, _ = layer_norm_backward(X6, GAMMA6, G6, eps=1e-5)
    np.testing.assert_allclose(jac.T @ G6, dx, rtol=0, atol=1e-14)
    assert np.max(np.abs(jac @ G6 - dx)) > 1e-3  # not J @ g: gamma per feature makes J non-symmetric


# --- identities -------------------------------------------------------------------------------------


@pytest.mark.parametrize("eps", [0.0, 1e-5, 1.0])
def test_rows_sum_to_zero_for_any_gamma_and_eps(eps: float) -> None:
    facts = ln.layer_norm_jacobian_facts(X6, GAMMA6, eps=eps)
    assert facts.max_abs_row_sum <= 6 * 8 * ULP * facts.rounding_scale


def test_columns_sum_to_zero_and_symmetric_only_for_shared_gamma() -> None:
    shared = ln.layer_norm_jacobian_facts(X6, 1.7, eps=1e-5)
    assert shared.max_abs_col_sum <= 6 * 8 * ULP * shared.rounding_scale
    assert shared.asymmetry <= 4 * ULP * shared.rounding_scale
    own = ln.layer_norm_jacobian_facts(X6, GAMMA6, eps=1e-5)
    # column j sums to (gamma_j - mean(gamma) - x_hat_j mean(gamma x_hat)) / std
    xh = own.x_hat
    expected = (GAMMA6 - GAMMA6.mean() - xh * np.mean(GAMMA6 * xh)) / own.std
    np.testing.assert_allclose(own.col_sums, expected, rtol=1e-12)
    assert own.max_abs_col_sum > 0.1 and own.asymmetry > 0.1


@pytest.mark.parametrize("eps", [0.0, 1e-5, 1.0])
def test_j_times_x_hat_is_eps_over_std_cubed(eps: float) -> None:
    facts = ln.layer_norm_jacobian_facts(X6, GAMMA6, eps=eps)
    assert facts.j_x_hat_gap <= 64 * ULP * facts.rounding_scale * np.max(np.abs(facts.x_hat))
    if eps == 0.0:
        assert np.max(np.abs(facts.j_x_hat_expected)) == 0.0  # exactly scale invariant
    else:
        assert np.max(np.abs(facts.j_x_hat)) > 1e-7  # eps breaks scale invariance, measurably


def test_spectral_norm() -> None:
    steps = ln.layer_norm_steps(X6, eps=1e-5)
    assert ln.layer_norm_jacobian_facts(X6, 2.0, eps=1e-5).spectral_norm == pytest.approx(
        2.0 / float(steps.std), rel=1e-13
    )


def test_backward_terms_add_up_and_obey_the_identities() -> None:
    eps = 1e-3
    t = ln.layer_norm_backward_terms(X6, GAMMA6, G6, eps=eps)
    dx, _, _ = layer_norm_backward(X6, GAMMA6, G6, eps=eps)
    np.testing.assert_array_equal(t.dx, dx)
    np.testing.assert_allclose(t.term_g + t.term_mean + t.term_proj, dx, rtol=0, atol=8 * ULP * t.magnitude)
    np.testing.assert_allclose(t.g, G6 * GAMMA6, rtol=0)
    assert t.mean_g == pytest.approx(np.mean(G6 * GAMMA6), rel=1e-14)
    assert abs(t.dx_sum) <= 64 * ULP * t.magnitude
    # dx . x_hat = (g . x_hat) eps / std^3: small but not 0 while eps > 0
    assert t.dx_dot_x_hat == pytest.approx(t.dx_dot_x_hat_expected, rel=1e-9)
    assert abs(t.dx_dot_x_hat_expected) > 1e-6
    zero = ln.layer_norm_backward_terms(X6, GAMMA6, G6, eps=0.0)
    assert abs(zero.dx_dot_x_hat) <= 64 * ULP * zero.magnitude and zero.dx_dot_x_hat_expected == 0.0


def test_all_ones_upstream_gives_zero_gradient_and_one_hot_gives_a_row() -> None:
    t = ln.layer_norm_backward_terms(X6, None, np.ones(6), eps=1e-5)  # L = sum(y), constant in x
    assert np.max(np.abs(t.dx)) <= 16 * ULP * t.magnitude
    jac = ln.layer_norm_jacobian(X6, GAMMA6, eps=1e-5)
    one_hot = np.eye(6)[2]
    np.testing.assert_allclose(
        ln.layer_norm_backward_terms(X6, GAMMA6, one_hot, eps=1e-5).dx, jac[2], rtol=0, atol=1e-15
    )


def test_norm_against_eps() -> None:
    eps = np.array([0.0, 1e-8, 1e-4, 1.0])
    curve = ln.layer_norm_jacobian_norm_vs_eps(X6, eps)
    var = float(ln.variance(X6))
    np.testing.assert_allclose(curve.norm, 1 / np.sqrt(var + eps), rtol=1e-13)
    assert curve.ceiling[0] == np.inf and curve.ceiling[-1] == 1.0
    near = 3.0 + 1e-6 * np.array([1.0, -1.0, 0.5, -0.5])  # var ~ 6e-13: eps caps the gradient
    capped = ln.layer_norm_jacobian_norm_vs_eps(near, [1e-4, 1e-2])
    np.testing.assert_allclose(capped.norm, capped.ceiling, rtol=1e-7)
    d2 = ln.layer_norm_jacobian_norm_vs_eps([1.0, 3.0], [0.25])  # d = 2: eps / std^3
    assert d2.norm[0] == pytest.approx(0.25 / 1.25**1.5, rel=1e-13)


# --- errors -----------------------------------------------------------------------------------------


def test_errors() -> None:
    with pytest.raises(ValueError, match=r"one vector x of shape \(d,\), got shape \(2, 3\)"):
        ln.layer_norm_jacobian(np.ones((2, 3)))
    with pytest.raises(ValueError, match="eps must be a finite number >= 0"):
        ln.layer_norm_jacobian([1.0, 2.0], eps=-1.0)
    with pytest.raises(ln.ZeroVarianceError):
        ln.layer_norm_jacobian([2.0, 2.0, 2.0], eps=0.0)
    with pytest.raises(ValueError, match=r"gamma has shape \(2,\), expected \(3,\)"):
        ln.layer_norm_jacobian([1.0, 2.0, 4.0], [1.0, 2.0])
    with pytest.raises(ValueError, match=r"dy has shape \(2,\), expected \(3,\)"):
        ln.layer_norm_backward_terms([1.0, 2.0, 4.0], None, [1.0, 2.0])
    with pytest.raises(ValueError, match="dy contains NaN"):
        ln.layer_norm_backward_terms([1.0, 2.0, 4.0], None, [1.0, np.nan, 0.0])
    with pytest.raises(ValueError, match="1-D array"):
        ln.layer_norm_jacobian_norm_vs_eps([1.0, 2.0], [[1e-5]])


# --- properties -------------------------------------------------------------------------------------

vectors = st.integers(2, 16).flatmap(
    lambda d: st.lists(st.floats(-1e3, 1e3, allow_nan=False), min_size=d, max_size=d).map(np.array)
)


@settings(max_examples=60, deadline=None)
@given(x=vectors, eps=st.sampled_from([1e-12, 1e-5, 1e-2, 1.0]), seed=st.integers(0, 2**16))
def test_properties(x: np.ndarray, eps: float, seed: int) -> None:
    rng = np.random.default_rng(seed)
    d = x.size
    gamma, g = rng.normal(1.0, 0.5, d), rng.normal(size=d)
    facts = ln.layer_norm_jacobian_facts(x, gamma, eps=eps)
    size = (
        facts.rounding_scale
    )  # entries are differences of terms this size (d = 2: they cancel to eps/std^3)
    bound = 8 * d * ULP * size  # a row sum adds d numbers, each within a few roundings of its exact value
    assert facts.max_abs_row_sum <= bound
    assert facts.j_x_hat_gap <= 64 * d * ULP * size * max(1.0, float(np.max(np.abs(facts.x_hat))))
    dx, _, _ = layer_norm_backward(x, gamma, g, eps=eps)
    assert np.max(np.abs(facts.jacobian.T @ g - dx)) <= bound * max(1.0, float(np.sum(np.abs(g))))
    np.testing.assert_allclose(facts.jacobian, _closed_form(x, gamma, eps), rtol=0, atol=bound + 1e-300)
