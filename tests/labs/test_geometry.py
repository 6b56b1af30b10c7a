"""Invariances and geometry (layernorm.labs.geometry): exact cases, the closed form, properties, errors."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import layernorm as ln
from layernorm.labs import geometry as geo
from layernorm.labs import shapes

ULP = 2.0**-52
X = np.array([1.0, 2.0, 3.0, 4.0])  # mu 2.5, var 1.25


def _ln_closed_form(x: np.ndarray, c: float, eps: float) -> np.ndarray:
    """LN(c x + b) = sign(c) (x - mu) / sqrt(var + eps / c^2), written out by hand."""
    mu = x.mean()
    var = np.mean((x - mu) ** 2)
    return np.sign(c) * (x - mu) / np.sqrt(var + eps / c**2)


# --- invariance_check -------------------------------------------------------------------------------


def test_identity_transform_moves_nothing() -> None:
    chk = geo.invariance_check(X, 1.0, 0.0, eps=1e-5)
    assert chk.ln_gap == 0.0 and chk.rms_gap == 0.0 and chk.y_gap == 0.0
    assert chk.effective_eps == 1e-5


@pytest.mark.parametrize("c", [-10.0, -0.5, 0.001, 0.5, 3.0, 1e4])
@pytest.mark.parametrize("eps", [0.0, 1e-5, 0.3])
def test_matches_closed_form(c: float, eps: float) -> None:
    chk = geo.invariance_check(X, c, 7.5, eps=eps)
    np.testing.assert_allclose(chk.ln_moved, _ln_closed_form(X, c, eps), rtol=1e-12, atol=1e-12)
    assert chk.effective_eps == pytest.approx(eps / c**2, rel=1e-15)


def test_exact_invariance_without_eps_and_flip_for_negative_c() -> None:
    pos = geo.invariance_check(X, 3.0, -4.0, eps=0.0)
    assert pos.ln_gap <= 8 * ULP * 2  # max |x_hat| = 1.34: a few roundings
    neg = geo.invariance_check(X, -3.0, -4.0, eps=0.0)
    assert neg.ln_flip_gap <= 8 * ULP * 2
    assert neg.ln_gap == pytest.approx(2 * np.max(np.abs(neg.ln_x)), rel=1e-14)


def test_eps_breaks_scale_invariance_by_the_predicted_amount() -> None:
    c, eps = 0.01, 1e-5  # c^2 var = 1.25e-4, comparable to eps
    chk = geo.invariance_check(X, c, 0.0, eps=eps)
    expected = np.max(np.abs(_ln_closed_form(X, c, eps) - _ln_closed_form(X, 1.0, eps)))
    assert chk.ln_gap == pytest.approx(expected, rel=1e-10)
    assert chk.ln_gap > 0.05


def test_rms_norm_is_scale_but_not_shift_invariant() -> None:
    assert geo.invariance_check(X, 5.0, 0.0, eps=0.0).rms_gap <= 8 * ULP * 2
    chk = geo.invariance_check(X, 1.0, 1.0, eps=0.0)
    by_hand = np.max(np.abs((X + 1) / np.sqrt(np.mean((X + 1) ** 2)) - X / np.sqrt(np.mean(X**2))))
    assert chk.rms_gap == pytest.approx(by_hand, rel=1e-14)
    assert chk.rms_gap > 0.05


def test_zero_gamma_collapses_output_to_beta() -> None:
    beta = np.array([0.5, -1.0, 2.0, 0.0])
    chk = geo.invariance_check(X, -7.0, 3.0, 0.0, beta, eps=1e-5)
    np.testing.assert_array_equal(chk.y_x, beta)
    np.testing.assert_array_equal(chk.y_moved, beta)
    assert chk.y_gap == 0.0


def test_c_zero_flattens_the_input() -> None:
    chk = geo.invariance_check(X, 0.0, 2.0, eps=1e-5)
    np.testing.assert_array_equal(chk.moved, np.full(4, 2.0))
    np.testing.assert_array_equal(chk.ln_moved, np.zeros(4))
    assert chk.ln_gap == np.max(np.abs(chk.ln_x)) and chk.effective_eps == np.inf
    with pytest.raises(ln.ZeroVarianceError):
        geo.invariance_check(X, 0.0, 2.0, eps=0.0)


def test_errors() -> None:
    with pytest.raises(ValueError, match="overflows float64"):
        geo.invariance_check([1e300, -1e300], 1e10, 0.0)
    with pytest.raises(ValueError, match="must be finite"):
        geo.invariance_check(X, np.inf, 0.0)
    with pytest.raises(ValueError, match=r"one vector x of shape \(d,\)"):
        geo.invariance_check(np.ones((2, 2)), 1.0, 0.0)
    with pytest.raises(ValueError, match="NaN or infinity"):
        geo.invariance_check([1.0, np.nan], 1.0, 0.0)
    with pytest.raises(ValueError, match="1-D array of finite"):
        geo.invariance_curve(X, [1.0, np.nan])
    with pytest.raises(ValueError, match=r"overflows float64 .* for c = 1e\+10"):
        geo.invariance_curve([1e300, -1e300], [1.0, 1e10])


# --- invariance_curve -------------------------------------------------------------------------------


def test_curve_agrees_with_check_point_by_point() -> None:
    cs = np.array([1e-4, 0.3, 1.0, 50.0])
    curve = geo.invariance_curve(X, cs, shift=-2.0, eps=1e-5)
    for i, c in enumerate(cs):
        chk = geo.invariance_check(X, c, -2.0, eps=1e-5)
        assert curve.ln_gap[i] == pytest.approx(chk.ln_gap, rel=1e-12, abs=1e-15)
        assert curve.rms_gap[i] == pytest.approx(chk.rms_gap, rel=1e-12, abs=1e-15)
    assert curve.ln_gap[0] > 0.9  # c = 1e-4: c^2 var = 1.25e-8 << eps, the output has collapsed
    assert curve.ln_gap[3] < 1e-5  # c = 50: eps / c^2 is negligible


def test_curve_without_eps_is_rounding_only() -> None:
    cs = np.logspace(-6, 6, 25)
    curve = geo.invariance_curve(X, cs, shift=3.0, eps=0.0)
    # c x + 3 keeps x's pattern only to the digits left beside 3: the reported rounding level
    np.testing.assert_allclose(curve.rounding, ULP * 4 * (3 + cs * 4) / (cs * np.sqrt(1.25)), rtol=1e-14)
    assert np.all(curve.ln_gap <= curve.rounding)
    assert curve.ln_gap[0] > 1e-11  # and at c = 1e-6 that rounding is visible: 3 dwarfs 1e-6 x
    # RMSNorm moves by b relative to c x: large for small c, fading as c x dwarfs b
    assert curve.rms_gap[0] > 0.5 and np.all(np.diff(curve.rms_gap) < 0)
    assert np.all(np.isnan(geo.invariance_curve(np.full(3, 2.0), cs, eps=1e-5).rounding))


# --- geometry ---------------------------------------------------------------------------------------


def test_norm_squared_identity() -> None:
    measured, expected = geo.x_hat_norm_squared(X, eps=1e-5)
    assert float(expected) == pytest.approx(4 * 1.25 / (1.25 + 1e-5), rel=1e-15)
    assert float(measured) == pytest.approx(float(expected), rel=1e-14)
    m0, e0 = geo.x_hat_norm_squared(X, eps=0.0)
    assert float(e0) == 4.0 and float(m0) == pytest.approx(4.0, rel=1e-15)
    mc, ec = geo.x_hat_norm_squared(np.full(5, 3.0), eps=1e-5)
    assert float(mc) == 0.0 and float(ec) == 0.0


def test_cloud_is_seeded_and_lands_on_plane_and_sphere() -> None:
    a = geo.normalized_cloud(3, 200, seed=4, eps=1e-5)
    b = geo.normalized_cloud(3, 200, seed=4, eps=1e-5)
    np.testing.assert_array_equal(a.inputs, b.inputs)
    assert a.inputs.shape == (200, 3) and a.radius == pytest.approx(np.sqrt(3))
    np.testing.assert_allclose(a.x_hat.sum(axis=1), 0.0, atol=16 * ULP)
    _, expected = geo.x_hat_norm_squared(a.inputs, eps=1e-5)
    np.testing.assert_allclose(a.norm_squared, expected, rtol=1e-13)
    low, high = a.norm_squared_range
    assert low <= high < 3.0 and low > 2.9  # just inside the sphere of radius sqrt(3)
    np.testing.assert_array_equal(a.x_hat, ln.layer_norm(a.inputs, eps=1e-5))


def test_cloud_gamma_beta_and_d2_surprise() -> None:
    gamma, beta = np.array([2.0, -0.5]), np.array([1.0, 0.25])
    cloud = geo.normalized_cloud(2, 300, seed=0, gamma=gamma, beta=beta, eps=0.0)
    # every non-constant input of 2 features lands on (1, -1) or (-1, 1)
    np.testing.assert_allclose(np.abs(cloud.x_hat), 1.0, rtol=0, atol=4 * ULP)
    np.testing.assert_array_equal(np.sign(cloud.x_hat[:, 0]), -np.sign(cloud.x_hat[:, 1]))
    np.testing.assert_allclose(cloud.y, gamma * cloud.x_hat + beta, rtol=0, atol=0)


def test_meshes() -> None:
    x, y, z = shapes.sphere_mesh(2.0, 9)
    assert x.shape == (9, 9)
    np.testing.assert_allclose(x**2 + y**2 + z**2, 4.0, rtol=1e-14)
    px, py, pz = shapes.sum_zero_disc_mesh(3.0, 7)
    np.testing.assert_allclose(px + py + pz, 0.0, atol=1e-15)
    assert np.max(px**2 + py**2 + pz**2) == pytest.approx(9.0, rel=1e-14)
    circle = shapes.sum_zero_circle(np.sqrt(3), 50)
    np.testing.assert_allclose(circle.sum(axis=1), 0.0, atol=1e-15)
    np.testing.assert_allclose(np.linalg.norm(circle, axis=1), np.sqrt(3), rtol=1e-14)
    circle = shapes.circle_2d(np.sqrt(2), 20)
    np.testing.assert_allclose(np.linalg.norm(circle, axis=1), np.sqrt(2), rtol=1e-15)
    np.testing.assert_array_equal(shapes.sum_zero_line(1.0), [[-1.0, 1.0], [1.0, -1.0]])
    with pytest.raises(ValueError, match="radius"):
        shapes.sphere_mesh(-1.0)
    with pytest.raises(ValueError, match="d >= 2"):
        geo.normalized_cloud(1)
    with pytest.raises(ValueError, match="between 1 and 100000"):
        geo.normalized_cloud(3, 0)


# --- properties -------------------------------------------------------------------------------------

vectors = st.integers(2, 12).flatmap(
    lambda d: st.lists(st.floats(-1e3, 1e3, allow_nan=False), min_size=d, max_size=d).map(np.array)
)


@settings(max_examples=80, deadline=None)
@given(x=vectors, c=st.floats(1e-3, 1e3), b=st.floats(-100, 100), sign=st.sampled_from([1.0, -1.0]))
def test_shift_and_scale_invariance_without_eps(x: np.ndarray, c: float, b: float, sign: float) -> None:
    sigma = float(ln.std(x))
    assume(sigma > 1e-6 * max(1.0, float(np.max(np.abs(x)))))
    chk = geo.invariance_check(x, sign * c, b, eps=0.0)
    # c x + b keeps x's pattern only to the rounding of numbers as large as |b| + |c| max|x|,
    # relative to the pattern's own size |c| sigma; the normalized values are at most sqrt(d).
    bound = 64 * ULP * x.size * (abs(b) + c * float(np.max(np.abs(x)))) / (c * sigma)
    assert (chk.ln_gap if sign > 0 else chk.ln_flip_gap) <= bound
