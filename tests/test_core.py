"""Hand-computed values, identities, exactness and error messages of the NumPy core."""

from __future__ import annotations

import math
import re
import warnings
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

import layernorm as ln
from layernorm import (
    DEFAULT_EPS,
    DEFAULT_MOMENTUM,
    LayerNormSteps,
    ZeroVarianceError,
    batch_norm_eval,
    batch_norm_train,
    group_norm,
    instance_norm,
    layer_norm,
    layer_norm_steps,
    mean,
    rms_norm,
    scale_shift,
    standardize,
    variance,
)
from layernorm import std as ln_std

F64 = npt.NDArray[np.float64]


# --- references ---------------------------------------------------------------------------


def loop_layer_norm(
    x: Any, gamma: Sequence[float] | None = None, beta: Sequence[float] | None = None, eps: float = 1e-5
) -> F64:
    """Slow pure-Python float64 LayerNorm over the last axis, sums with ``math.fsum``."""
    arr = np.asarray(x, dtype=np.float64)
    rows = arr.reshape(-1, arr.shape[-1]).tolist()
    d = arr.shape[-1]
    g = [1.0] * d if gamma is None else [float(v) for v in gamma]
    b = [0.0] * d if beta is None else [float(v) for v in beta]
    out: list[list[float]] = []
    for row in rows:
        # x_i - mu = (d * x_i - sum_j x_j) / d: the numerator summed exactly by fsum (d copies of
        # x_i), so each centred value is correctly rounded, whatever the offset of the row.
        centered = [math.fsum([v] * d + [-w for w in row]) / d for v in row]
        var = math.fsum(c * c for c in centered) / d
        std = math.sqrt(var + eps)
        out.append([g[i] * (centered[i] / std) + b[i] for i in range(d)])
    return np.array(out, dtype=np.float64).reshape(arr.shape)


def exact_x_hat(row: Sequence[float], eps: float) -> list[float]:
    """x_hat of one row from exact rational statistics, each value correctly rounded to ~1 ulp.

    mu, x - mu and var are exact Fractions; x_hat_i = sign(c_i) * sqrt(c_i^2 / (var + eps)),
    where the ratio is rounded once to float64 and then square-rooted (error <= 1 ulp).
    """
    xs = [Fraction(float(v)) for v in row]
    d = len(xs)
    mu = sum(xs, Fraction(0)) / d
    cs = [v - mu for v in xs]
    var = sum((c * c for c in cs), Fraction(0)) / d
    denom = var + Fraction(eps)
    return [math.copysign(math.sqrt(float(c * c / denom)), c) if c else 0.0 for c in cs]


def exact_var(row: Sequence[float], ddof: int = 0) -> Fraction:
    xs = [Fraction(float(v)) for v in row]
    mu = sum(xs, Fraction(0)) / len(xs)
    return sum(((v - mu) ** 2 for v in xs), Fraction(0)) / (len(xs) - ddof)


def exact_rows(x: Any, eps: float) -> F64:
    arr = np.asarray(x, dtype=np.float64)
    rows = arr.reshape(-1, arr.shape[-1])
    return np.array([exact_x_hat(r.tolist(), eps) for r in rows]).reshape(arr.shape)


# --- tiny hand-computed cases ---------------------------------------------------------------


def test_hand_computed_1234() -> None:
    x = [1.0, 2.0, 3.0, 4.0]
    assert float(mean(x)) == 2.5
    assert float(variance(x)) == 1.25
    assert float(variance(x, ddof=1)) == pytest.approx(5 / 3, rel=1e-15)
    expected = (np.array(x) - 2.5) / math.sqrt(1.25 + 1e-5)
    np.testing.assert_allclose(layer_norm(x), expected, rtol=1e-15, atol=0)
    np.testing.assert_allclose(standardize(x), expected, rtol=1e-15, atol=0)
    # eps = 0: the textbook values +-3/sqrt(5), +-1/sqrt(5)
    s5 = math.sqrt(5)
    np.testing.assert_allclose(layer_norm(x, eps=0), [-3 / s5, -1 / s5, 1 / s5, 3 / s5], rtol=1e-15)
    assert DEFAULT_EPS == 1e-5


def test_hand_computed_affine() -> None:
    x = [2.0, 4.0]  # mu 3, var 1 -> x_hat [-1, 1] with eps 0
    y = layer_norm(x, gamma=[2.0, -3.0], beta=[0.5, 1.0], eps=0)
    np.testing.assert_array_equal(y, [-1.5, -2.0])
    # scalar gamma/beta broadcast
    np.testing.assert_array_equal(layer_norm(x, gamma=10.0, beta=1.0, eps=0), [-9.0, 11.0])
    np.testing.assert_array_equal(scale_shift([-1.0, 1.0], [2.0, -3.0], [0.5, 1.0]), [-1.5, -2.0])
    np.testing.assert_array_equal(scale_shift([[-1.0, 1.0]]), [[-1.0, 1.0]])


def test_mean_and_variance_axes() -> None:
    x = np.arange(12.0).reshape(3, 4)
    np.testing.assert_array_equal(mean(x), [1.5, 5.5, 9.5])
    np.testing.assert_array_equal(mean(x, axis=0), [4.0, 5.0, 6.0, 7.0])
    assert float(mean(x, axis=(0, 1))) == 5.5
    np.testing.assert_array_equal(variance(x), [1.25, 1.25, 1.25])
    np.testing.assert_array_equal(variance(x, axis=0), [32 / 3] * 4)
    assert float(variance(x, axis=(0, 1))) == pytest.approx(143 / 12, rel=1e-15)
    np.testing.assert_array_equal(variance([7.0]), 0.0)


# --- layer_norm_steps ---------------------------------------------------------------------


def test_layer_norm_steps_every_field() -> None:
    x = np.array([[1.0, 2.0, 3.0, 4.0], [0.0, 0.0, 2.0, 2.0]])
    x_before = x.copy()
    gamma = np.array([1.0, 2.0, 3.0, 4.0])
    beta = np.array([0.0, -1.0, 1.0, 0.5])
    g_before, b_before = gamma.copy(), beta.copy()
    s = layer_norm_steps(x, gamma, beta, eps=1e-3)
    assert isinstance(s, LayerNormSteps)
    np.testing.assert_array_equal(s.x, x)
    np.testing.assert_array_equal(s.mu, [2.5, 1.0])
    np.testing.assert_array_equal(s.centered, [[-1.5, -0.5, 0.5, 1.5], [-1.0, -1.0, 1.0, 1.0]])
    np.testing.assert_array_equal(s.var, [1.25, 1.0])
    np.testing.assert_allclose(s.std, [math.sqrt(1.251), math.sqrt(1.001)], rtol=1e-15)
    np.testing.assert_array_equal(s.sigma, [math.sqrt(1.25), 1.0])
    x_hat = s.centered / s.std[:, None]
    np.testing.assert_allclose(s.x_hat, x_hat, rtol=1e-15)
    np.testing.assert_array_equal(s.gamma, gamma)
    np.testing.assert_array_equal(s.beta, beta)
    np.testing.assert_allclose(s.y, gamma * x_hat + beta, rtol=1e-15, atol=1e-15)
    assert s.eps == 1e-3
    assert s.d == 4
    np.testing.assert_allclose(s.x_hat_var_expected, [1.25 / 1.251, 1.0 / 1.001], rtol=1e-15)
    for name in ("x", "mu", "centered", "var", "std", "x_hat", "gamma", "beta", "y"):
        arr = getattr(s, name)
        assert arr.dtype == np.float64, name
        assert not arr.flags.writeable, name
        with pytest.raises(ValueError, match="read-only"):
            arr[...] = 0
    with pytest.raises(AttributeError):
        s.eps = 1.0  # type: ignore[misc]
    # inputs untouched
    np.testing.assert_array_equal(x, x_before)
    np.testing.assert_array_equal(gamma, g_before)
    np.testing.assert_array_equal(beta, b_before)
    np.testing.assert_array_equal(layer_norm(x, gamma, beta, eps=1e-3), s.y)


def test_layer_norm_steps_leaves_caller_arrays_writeable() -> None:
    # Regression (fixed): layer_norm_steps marks its result arrays read-only
    # (`arr.flags.writeable = False`),
    # but `check_param` returns a float64 gamma/beta *as passed* (no copy), so the caller's own
    # arrays are frozen: after layer_norm_steps(x, gamma, beta) with float64 (4,) gamma/beta,
    # `gamma.flags.writeable` is False and `gamma[0] = 2.0` raises "assignment destination is
    # read-only". Expected: the caller's arrays keep WRITEABLE=True (copy before freezing).
    x = np.array([[1.0, 2.0, 3.0, 4.0]])
    gamma = np.array([1.0, 2.0, 3.0, 4.0])
    beta = np.array([0.0, -1.0, 1.0, 0.5])
    layer_norm_steps(x, gamma, beta)
    layer_norm(x, gamma, beta)
    assert x.flags.writeable
    assert gamma.flags.writeable, "layer_norm_steps froze the caller's gamma"
    assert beta.flags.writeable, "layer_norm_steps froze the caller's beta"


def test_layer_norm_steps_is_a_snapshot() -> None:
    # Regression (fixed): the "frozen" LayerNormSteps aliases a float64 caller's x (s.x is a read-only *view*
    # of it, and s.gamma/s.beta are the caller's arrays), so editing the input afterwards
    # silently changes the recorded steps: s.x[0, 0] becomes 99.0 after x[0, 0] = 99.0.
    # Expected: s.x keeps the values it was computed from (x[0, 0] == 1.0), consistent with s.y.
    x = np.array([[1.0, 2.0, 3.0, 4.0]])
    s = layer_norm_steps(x)
    x[0, 0] = 99.0
    assert s.x[0, 0] == 1.0


def test_layer_norm_steps_shapes_vector_and_multi_axis() -> None:
    s = layer_norm_steps([1.0, 2.0, 3.0])
    assert s.mu.shape == () and s.var.shape == () and s.std.shape == ()
    assert s.x_hat.shape == (3,) and s.d == 3
    x = np.arange(24.0).reshape(2, 3, 4)
    s2 = layer_norm_steps(x, axis=(-2, -1))
    assert s2.mu.shape == (2,) and s2.d == 12
    assert s2.gamma.shape == (3, 4)
    np.testing.assert_array_equal(s2.mu, [5.5, 17.5])
    np.testing.assert_allclose(s2.var, [143 / 12, 143 / 12], rtol=1e-15)


def test_inputs_never_mutated_float32_and_int() -> None:
    for x in (np.array([[3.0, 1.0, 2.0]], dtype=np.float32), np.array([[5, 1, 9]], dtype=np.int32)):
        before = x.copy()
        layer_norm(x)
        layer_norm_steps(x)
        variance(x)
        rms_norm(x)
        np.testing.assert_array_equal(x, before)
        assert x.dtype == before.dtype


# --- identities ---------------------------------------------------------------------------


RNG = np.random.default_rng(20240601)


def test_shift_invariance_exact_for_dyadic_values() -> None:
    # Values with few bits: x + c is exact, so every statistic shifts exactly.
    x = RNG.integers(-64, 64, size=(5, 16)) / 8.0
    for c in (1.0, -1000.0, 2.0**20, 12345.0):
        np.testing.assert_allclose(layer_norm(x + c), layer_norm(x), rtol=0, atol=1e-15)


def test_shift_invariance_approximate() -> None:
    x = RNG.standard_normal((4, 32))
    for c in (0.1, -7.3, 1e3):
        # x + c rounds: the error is about ulp(c) / sigma
        np.testing.assert_allclose(layer_norm(x + c), layer_norm(x), rtol=0, atol=1e-12)


def test_positive_scale_invariance() -> None:
    x = RNG.standard_normal((4, 32))
    for a in (2.0**-30, 0.25, 8.0, 2.0**40):  # powers of two: every step scales exactly
        np.testing.assert_array_equal(layer_norm(a * x, eps=0), layer_norm(x, eps=0))
    for a in (1e-6, 3.7, 1e20):
        np.testing.assert_allclose(layer_norm(a * x, eps=0), layer_norm(x, eps=0), rtol=1e-13, atol=1e-14)
    # with eps: LN(a x, eps) = LN(x, eps / a^2) exactly in maths
    for a in (1e-3, 3.7, 1e4):
        np.testing.assert_allclose(
            layer_norm(a * x, eps=1e-5), layer_norm(x, eps=1e-5 / a**2), rtol=1e-12, atol=1e-13
        )
    # large scale: eps no longer matters
    np.testing.assert_allclose(layer_norm(1e6 * x), layer_norm(x, eps=0), rtol=1e-12, atol=1e-13)
    # small scale: eps dominates and shrinks x_hat (the lesson's point)
    assert np.max(np.abs(layer_norm(1e-4 * x))) < 0.1 * np.max(np.abs(layer_norm(x)))
    # negative scale flips the sign
    np.testing.assert_allclose(layer_norm(-2.5 * x, eps=0), -layer_norm(x, eps=0), rtol=1e-14, atol=1e-15)


@pytest.mark.parametrize("eps", [0.0, 1e-5, 0.5, 10.0])
def test_x_hat_mean_zero_and_variance(eps: float) -> None:
    x = RNG.standard_normal((6, 50)) * np.array([[0.01], [0.1], [1], [10], [1e3], [1e-3]]) + 3.0
    s = layer_norm_steps(x, eps=eps)
    for row, v_expected in zip(s.x_hat, s.x_hat_var_expected, strict=True):
        assert abs(math.fsum(row) / row.size) < 1e-14
        v = math.fsum(t * t for t in row) / row.size
        assert v == pytest.approx(float(v_expected), rel=1e-13)
    if eps == 0:
        np.testing.assert_array_equal(s.x_hat_var_expected, np.ones(6))
    else:
        assert np.all(s.x_hat_var_expected < 1)
    np.testing.assert_allclose(s.x_hat_var_expected, s.var / (s.var + eps), rtol=1e-15)


def test_x_hat_var_expected_for_tiny_spread() -> None:
    # Regression (fixed): for a non-constant row whose spread is below ~1e-162 the population variance
    # underflows to 0 (documented), but then LayerNormSteps.x_hat_var_expected = var / (var + eps)
    # is 0/0 with eps = 0: it returns NaN and emits "RuntimeWarning: invalid value encountered in
    # divide" (an error under this suite's filterwarnings). Input x = [1e-170, 0.0], eps = 0:
    # x_hat = [1, -1] (correct, std = 5e-171) but var = 0.0, sigma = 0.0 and
    # x_hat_var_expected = nan; expected x_hat_var_expected = 1.0 (and sigma == std when eps = 0).
    s = layer_norm_steps([1e-170, 0.0], eps=0)
    np.testing.assert_array_equal(s.x_hat, [1.0, -1.0])
    assert float(s.std) == 5e-171
    assert float(s.x_hat_var_expected) == 1.0


def test_identity_affine_gives_x_hat() -> None:
    x = RNG.standard_normal((3, 7))
    s = layer_norm_steps(x, np.ones(7), np.zeros(7))
    np.testing.assert_array_equal(s.y, s.x_hat)
    np.testing.assert_array_equal(layer_norm(x), standardize(x))


def test_gamma_sigma_beta_mu_recovers_x() -> None:
    for x in (RNG.standard_normal(10) * 5 + 2, np.array([1.0, 2.0, 4.0, 8.0]), RNG.uniform(-1e6, 1e6, 33)):
        s = layer_norm_steps(x, eps=0)
        y = layer_norm(x, gamma=float(s.sigma), beta=float(s.mu), eps=0)
        np.testing.assert_allclose(y, x, rtol=0, atol=1e-14 * np.max(np.abs(x)))


def test_rms_norm_equals_layer_norm_on_zero_mean_rows() -> None:
    v = RNG.standard_normal((5, 6))
    x = np.concatenate([v, -v[:, ::-1]], axis=1)  # every row sums to exactly 0
    assert all(math.fsum(row) == 0 for row in x.tolist())
    assert np.all(np.abs(mean(x)) < 1e-16)  # mean to float64 rounding (the sum order is NumPy's)
    for eps in (0.0, 1e-6, 1e-5, 0.3):
        np.testing.assert_allclose(rms_norm(x, eps=eps), layer_norm(x, eps=eps), rtol=1e-14, atol=1e-15)
    gamma = RNG.uniform(0.5, 2, 12)
    np.testing.assert_allclose(rms_norm(x, gamma, eps=1e-6), layer_norm(x, gamma, eps=1e-6), rtol=1e-14)
    # ... and differs from it on a row with a mean
    assert not np.allclose(rms_norm(x + 1.0, eps=1e-6), layer_norm(x + 1.0, eps=1e-6))


def test_rms_norm_hand_value_and_default_eps() -> None:
    # [3, 4]: rms = sqrt(12.5)
    np.testing.assert_allclose(rms_norm([3.0, 4.0], eps=0), [3 / math.sqrt(12.5), 4 / math.sqrt(12.5)])
    f32eps = float(np.finfo(np.float32).eps)
    np.testing.assert_allclose(
        rms_norm([3.0, 4.0]), np.array([3.0, 4.0]) / math.sqrt(12.5 + 2.220446049250313e-16)
    )
    np.testing.assert_allclose(
        rms_norm(np.array([3.0, 4.0], dtype=np.float32)), np.array([3.0, 4.0]) / math.sqrt(12.5 + f32eps)
    )
    np.testing.assert_allclose(rms_norm([3, 4]), np.array([3.0, 4.0]) / math.sqrt(12.5 + f32eps))
    with pytest.raises(ZeroVarianceError):
        rms_norm([0.0, 0.0], eps=0)


def test_layer_norm_is_batch_norm_over_the_transpose() -> None:
    x = RNG.standard_normal((5, 8)) * 3 + 1
    for eps in (0.0, 1e-5):
        bn, _, _ = batch_norm_train(x.T, None, None, np.zeros(5), np.ones(5), eps=eps)
        np.testing.assert_allclose(bn.T, layer_norm(x, eps=eps), rtol=1e-14, atol=1e-15)


def test_group_norm_one_group_is_layer_norm_and_c_groups_is_instance_norm() -> None:
    x = RNG.standard_normal((3, 6, 5)) * 2 - 1
    np.testing.assert_allclose(group_norm(x, 1), layer_norm(x, axis=(-2, -1)), rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(group_norm(x, 6), instance_norm(x), rtol=1e-14, atol=1e-15)
    # InstanceNorm = LayerNorm over the positions of each (sample, channel)
    np.testing.assert_allclose(instance_norm(x), layer_norm(x, axis=-1), rtol=1e-14, atol=1e-15)
    # 2 groups: each half of the channels normalized together
    g2 = group_norm(x, 2)
    np.testing.assert_allclose(g2[:, :3], layer_norm(x[:, :3], axis=(-2, -1)), rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(g2[:, 3:], layer_norm(x[:, 3:], axis=(-2, -1)), rtol=1e-14, atol=1e-15)
    # per-channel affine
    gamma, beta = np.arange(1.0, 7.0), np.arange(6.0) / 10
    g3 = group_norm(x, 3)
    np.testing.assert_allclose(
        group_norm(x, 3, gamma, beta), g3 * gamma[:, None] + beta[:, None], rtol=1e-14, atol=1e-14
    )
    # 4-D input (N, C, H, W)
    x4 = RNG.standard_normal((2, 4, 3, 3))
    np.testing.assert_allclose(group_norm(x4, 1), layer_norm(x4, axis=(-3, -2, -1)), rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(group_norm(x4, 4), instance_norm(x4), rtol=1e-14, atol=1e-15)


# --- slow loop reference ------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(20))
def test_matches_python_loop_reference(seed: int) -> None:
    rng = np.random.default_rng(seed)
    d = int(rng.integers(1, 40))
    n = int(rng.integers(1, 6))
    offset = float(rng.choice([-1, 1])) * 10 ** rng.uniform(-2, 6)
    x = rng.standard_normal((n, d)) * 10 ** rng.uniform(-3, 3) + offset
    gamma = rng.uniform(-2, 2, d)
    beta = rng.uniform(-1, 1, d)
    eps = float(rng.choice([1e-12, 1e-5, 1e-3]))
    ref = loop_layer_norm(x, gamma, beta, eps)
    got = layer_norm(x, gamma, beta, eps=eps)
    # Both are float64 two-pass computations: they agree to a few ulp of the terms g*x_hat and b.
    scale = np.abs(gamma * ref) + np.abs(beta) + 1e-300
    assert np.all(np.abs(got - ref) <= 1e-14 * scale), np.max(np.abs(got - ref) / scale)


def test_loop_reference_matches_hand_value() -> None:
    # guard the reference itself
    np.testing.assert_allclose(
        loop_layer_norm([[1, 2, 3, 4]]), [(np.array([1, 2, 3, 4]) - 2.5) / math.sqrt(1.25 + 1e-5)], rtol=1e-15
    )
    assert exact_x_hat([1, 2, 3, 4], 0.0) == pytest.approx([-3 / 5**0.5, -1 / 5**0.5, 1 / 5**0.5, 3 / 5**0.5])


# --- exactness kinds ----------------------------------------------------------------------


def _assert_exact(x: Any, eps: float, rtol: float = 4e-16 * 8) -> None:
    got = layer_norm(x, eps=eps)
    ref = exact_rows(x, eps)
    assert np.all(np.isfinite(got))
    # a few float64 ulp of each value (a value 0 in exact arithmetic must be ~0 relative to the row)
    np.testing.assert_allclose(got, ref, rtol=rtol, atol=rtol)


@pytest.mark.parametrize("spread", [1.0, 1e-2, 1e-4])
def test_large_offset_float64(spread: float) -> None:
    rng = np.random.default_rng(1)
    x = 1e8 + spread * rng.standard_normal((3, 64))
    _assert_exact(x, eps=0.0)
    _assert_exact(x, eps=1e-5 * spread**2)
    # the spread of the rounded input, not of the offset, sets the answer
    s = layer_norm_steps(x, eps=0)
    for row, var in zip(x, s.var, strict=True):
        assert float(var) == pytest.approx(float(exact_var(row.tolist())), rel=1e-14)


def test_large_offset_1e8_hand_value() -> None:
    x = 1e8 + np.array([1.0, 2.0, 3.0, 4.0])
    np.testing.assert_allclose(layer_norm(x), layer_norm([1.0, 2.0, 3.0, 4.0]), rtol=1e-15, atol=0)
    assert float(variance(x)) == 1.25
    assert float(mean(x)) == 1e8 + 2.5


def test_large_offset_float32_input() -> None:
    rng = np.random.default_rng(2)
    x = (np.float32(1e8) + (rng.integers(-20, 20, (3, 32)) * 8).astype(np.float32)).astype(np.float32)
    assert x.dtype == np.float32
    _assert_exact(x, eps=1e-5)
    x2 = np.array([40000, 40001, 40002, 40003], dtype=np.float32)
    _assert_exact(x2, eps=1e-5)
    assert float(variance(x2)) == 1.25


def test_huge_magnitudes() -> None:
    rng = np.random.default_rng(3)
    x32 = (rng.standard_normal((3, 16)) * 1e20).astype(np.float32)
    _assert_exact(x32, eps=1e-5)
    x32b = (np.float32(3e38) - np.abs(rng.standard_normal(8)).astype(np.float32) * np.float32(1e37)).astype(
        np.float32
    )
    _assert_exact(x32b, eps=1e-5)
    x64 = rng.standard_normal((3, 16)) * 1e300
    _assert_exact(x64, eps=1e-5)
    _assert_exact(np.array([1e308, -1e308, 1.7e308, -1.7e308, 0.0]), eps=1e-5)
    # the variance is beyond float64 but the divisor std is not: layer_norm_steps, which returns
    # the variance, refuses (it returned var = inf); std and layer_norm give their finite values
    with pytest.raises(ln.ResultRangeError, match=r"layer_norm_steps: the result\.var does not fit"):
        layer_norm_steps(x64, eps=0)
    np.testing.assert_array_equal(ln.standardize(x64, eps=0), layer_norm(x64, eps=0))
    np.testing.assert_allclose(
        ln.std(x64),
        [math.sqrt(float(exact_var(r.tolist()) / Fraction(10) ** 600)) * 1e300 for r in x64],
        rtol=1e-14,
    )


def test_tiny_magnitudes_underflow_path() -> None:
    rng = np.random.default_rng(4)
    x = rng.standard_normal((2, 10)) * 1e-160
    _assert_exact(x, eps=0.0)
    np.testing.assert_allclose(layer_norm(x, eps=1e-5), 0.0, atol=1e-150)  # eps dominates entirely


def test_float16_input() -> None:
    rng = np.random.default_rng(5)
    x = (rng.standard_normal((4, 24)) * 100 + 1000).astype(np.float16)
    _assert_exact(x, eps=1e-5)
    _assert_exact(np.array([65504, -65504, 0.0, 1.0], dtype=np.float16), eps=1e-12)
    np.testing.assert_array_equal(layer_norm(np.zeros(10, dtype=np.float16), eps=1e-12), np.zeros(10))
    assert layer_norm(x).dtype == np.float64


CONSTANTS = [
    0.0,
    -0.0,
    0.1,
    1 / 3,
    -3.7,
    math.pi,
    1e8 + 0.1,
    1234.567,
    65504.0,
    1e300,
    1e308,
    1.7e308,
    -1.7e308,
    1e-300,
    5e-324,
    2.2250738585072014e-308,
]


@pytest.mark.parametrize("c", CONSTANTS)
def test_constant_rows_give_exactly_beta(c: float) -> None:
    for d in (*range(1, 40), 64, 100, 127, 768, 1000, 4096):
        beta = np.linspace(-1, 1, d)
        y = layer_norm(np.full((2, d), c), 3.0, beta, eps=1e-5)
        np.testing.assert_array_equal(y, np.broadcast_to(beta, (2, d)), err_msg=f"c={c!r} d={d}")
        s = layer_norm_steps(np.full(d, c), eps=1e-12)
        assert np.all(s.centered == 0) and float(s.var) == 0.0, (c, d)
    for dt in (np.float16, np.float32):
        if abs(c) <= float(np.finfo(dt).max):
            xc = np.full(7, c, dtype=dt)
            np.testing.assert_array_equal(layer_norm(xc, beta=0.5), np.full(7, 0.5))


def test_d_equals_one() -> None:
    x = np.array([[5.0], [-3.0], [1e300], [0.0]])
    np.testing.assert_array_equal(layer_norm(x, [2.0], [0.7]), [[0.7]] * 4)
    np.testing.assert_array_equal(layer_norm(x), np.zeros((4, 1)))
    s = layer_norm_steps(x)
    assert s.d == 1
    np.testing.assert_array_equal(s.mu, x[:, 0])
    np.testing.assert_array_equal(s.var, np.zeros(4))
    with pytest.raises(ZeroVarianceError):
        layer_norm(x, eps=0)


# --- BatchNorm ----------------------------------------------------------------------------


def test_batch_norm_train_conventions() -> None:
    x = np.array([[1.0, 10.0], [2.0, 30.0], [6.0, 20.0]])  # channel 0: mean 3, var 14/3; ch 1: mean 20
    rm0, rv0 = np.array([1.0, -1.0]), np.array([2.0, 0.5])
    m = 0.3
    y, rm, rv = batch_norm_train(x, [2.0, 1.0], [0.0, 5.0], rm0, rv0, momentum=m, eps=1e-5)
    mu = np.array([3.0, 20.0])
    var_b = np.array([14 / 3, 200 / 3])  # biased: divide by n = 3
    var_u = np.array([7.0, 100.0])  # unbiased: divide by n - 1 = 2
    np.testing.assert_allclose(
        y, np.array([2.0, 1.0]) * (x - mu) / np.sqrt(var_b + 1e-5) + [0.0, 5.0], rtol=1e-14
    )
    np.testing.assert_allclose(rm, (1 - m) * rm0 + m * mu, rtol=1e-15)
    np.testing.assert_allclose(rv, (1 - m) * rv0 + m * var_u, rtol=1e-15)
    np.testing.assert_array_equal(rm0, [1.0, -1.0])  # not updated in place
    np.testing.assert_array_equal(rv0, [2.0, 0.5])
    assert DEFAULT_MOMENTUM == 0.1
    _, rm_d, rv_d = batch_norm_train(x, None, None, rm0, rv0)
    np.testing.assert_allclose(rv_d, 0.9 * rv0 + 0.1 * var_u, rtol=1e-15)
    np.testing.assert_allclose(rm_d, 0.9 * rm0 + 0.1 * mu, rtol=1e-15)


def test_batch_norm_train_3d_counts_every_position() -> None:
    x = RNG.standard_normal((4, 3, 5))
    y, _, rv = batch_norm_train(x, None, None, np.zeros(3), np.ones(3), momentum=1.0, eps=0)
    vals = np.moveaxis(x, 1, 0).reshape(3, -1)  # n = 20 per channel
    np.testing.assert_allclose(rv, vals.var(axis=1, ddof=1), rtol=1e-13)
    np.testing.assert_allclose(
        y,
        (x - x.mean(axis=(0, 2), keepdims=True)) / x.std(axis=(0, 2), keepdims=True),
        rtol=1e-12,
        atol=1e-13,
    )


def test_batch_norm_momentum_edges() -> None:
    x = RNG.standard_normal((6, 3)) + 4
    rm0, rv0 = np.array([0.5, 1.5, -2.0]), np.array([0.1, 2.0, 3.0])
    y0, rm, rv = batch_norm_train(x, None, None, rm0, rv0, momentum=0.0)
    np.testing.assert_array_equal(rm, rm0)
    np.testing.assert_array_equal(rv, rv0)
    y1, rm, rv = batch_norm_train(x, None, None, rm0, rv0, momentum=1.0)
    np.testing.assert_allclose(rm, x.mean(axis=0), rtol=1e-14)
    np.testing.assert_allclose(rv, x.var(axis=0, ddof=1), rtol=1e-13)
    np.testing.assert_array_equal(y0, y1)  # momentum never changes the training output


def test_batch_norm_eval_ignores_batch_mates() -> None:
    x = RNG.standard_normal((5, 4, 3))
    rm, rv = RNG.standard_normal(4), RNG.uniform(0.5, 2, 4)
    gamma, beta = RNG.uniform(-2, 2, 4), RNG.uniform(-1, 1, 4)
    y = batch_norm_eval(x, gamma, beta, rm, rv)
    for i in range(5):
        np.testing.assert_array_equal(batch_norm_eval(x[i : i + 1], gamma, beta, rm, rv), y[i : i + 1])
    shape = (1, 4, 1)
    np.testing.assert_allclose(
        y,
        gamma.reshape(shape) * (x - rm.reshape(shape)) / np.sqrt(rv.reshape(shape) + 1e-5)
        + beta.reshape(shape),
        rtol=1e-14,
        atol=1e-15,
    )
    # the training output, by contrast, depends on the batch
    yt, _, _ = batch_norm_train(x, gamma, beta, rm, rv)
    yt0, _, _ = batch_norm_train(x[:2], gamma, beta, rm, rv)
    assert not np.allclose(yt[:2], yt0)


def test_batch_norm_eval_errors() -> None:
    with pytest.raises(ValueError, match="running_var must be >= 0"):
        batch_norm_eval([[1.0, 2.0]], None, None, [0.0, 0.0], [1.0, -1.0])
    with pytest.raises(ZeroVarianceError):
        batch_norm_eval([[1.0, 2.0]], None, None, [0.0, 0.0], [1.0, 0.0], eps=0)
    with pytest.raises(ValueError, match=re.escape("running_mean has shape (3,), expected (2,)")):
        batch_norm_eval([[1.0, 2.0]], None, None, [0.0, 0.0, 0.0], [1.0, 1.0])
    with pytest.raises(ValueError, match="NaN or infinity"):
        batch_norm_eval([[1.0, np.inf]], None, None, [0.0, 0.0], [1.0, 1.0])
    with pytest.raises(ValueError, match=re.escape("shape (N, C) or (N, C, L)")):
        batch_norm_eval([1.0, 2.0], None, None, [0.0, 0.0], [1.0, 1.0])


# --- error messages -----------------------------------------------------------------------


def test_error_wrong_gamma_shape() -> None:
    x = np.ones((2, 4))
    with pytest.raises(ValueError, match=re.escape("gamma has shape (3,), expected (4,)")):
        layer_norm(x, gamma=[1.0, 1.0, 1.0])
    with pytest.raises(ValueError, match=re.escape("beta has shape (4, 1), expected (4,)")):
        layer_norm(x, beta=np.zeros((4, 1)))
    with pytest.raises(ValueError, match=re.escape("gamma has shape (4,), expected (3, 4)")):
        layer_norm(np.ones((2, 3, 4)), gamma=np.ones(4), axis=(-2, -1))
    with pytest.raises(ValueError, match="gamma contains NaN or infinity"):
        layer_norm(x, gamma=[1.0, np.nan, 1.0, 1.0])


def test_error_non_trailing_axis() -> None:
    with pytest.raises(ValueError, match="must be the trailing axes"):
        layer_norm(np.ones((3, 4)), axis=0)
    with pytest.raises(ValueError, match="must be the trailing axes"):
        layer_norm(np.ones((2, 3, 4)), axis=(0, 2))
    with pytest.raises(ValueError, match="out of range"):
        layer_norm(np.ones((3, 4)), axis=2)
    with pytest.raises(ValueError, match="same axis twice"):
        layer_norm(np.ones((3, 4)), axis=(-1, 1))
    with pytest.raises(ValueError, match="at least one axis"):
        layer_norm(np.ones((3, 4)), axis=())


@pytest.mark.parametrize("eps", [-1e-5, -0.0 - 1e-300, float("nan"), float("inf"), -float("inf")])
def test_error_bad_eps(eps: float) -> None:
    with pytest.raises(ValueError, match="eps must be a finite number >= 0"):
        layer_norm([1.0, 2.0], eps=eps)
    with pytest.raises(ValueError, match="eps must be a finite number >= 0"):
        batch_norm_train([[1.0], [2.0]], None, None, [0.0], [1.0], eps=eps)
    with pytest.raises(ValueError, match="eps must be a finite number >= 0"):
        rms_norm([1.0, 2.0], eps=eps)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_error_nan_or_inf_in_x(bad: float) -> None:
    x = np.array([[1.0, 2.0, 3.0], [1.0, bad, 2.0]])
    for f in (layer_norm, standardize, variance, mean, rms_norm):
        with pytest.raises(ValueError, match="NaN or infinity"):
            f(x)
    with pytest.raises(ValueError, match="NaN or infinity"):
        batch_norm_train(x, None, None, np.zeros(3), np.ones(3))
    with pytest.raises(ValueError, match="NaN or infinity"):
        group_norm(x[:, :, None], 3)


def test_error_zero_variance() -> None:
    x = np.array([[1.0, 2.0], [3.0, 3.0], [0.0, 1.0], [5.0, 5.0]])
    with pytest.raises(ZeroVarianceError, match=re.escape("row(s) [1, 3] have variance 0 and eps is 0")):
        layer_norm(x, eps=0)
    assert issubclass(ZeroVarianceError, ValueError)
    with pytest.raises(ZeroVarianceError):
        batch_norm_train(np.ones((3, 2)), None, None, [0.0, 0.0], [1.0, 1.0], eps=0)
    with pytest.raises(ZeroVarianceError):
        group_norm(np.ones((1, 2, 3)), 1, eps=0)
    # eps > 0: no error, exactly beta
    np.testing.assert_array_equal(layer_norm(x, eps=1e-30)[1], [0.0, 0.0])


def test_error_group_count() -> None:
    x = np.ones((2, 6, 3))
    for g in (4, 5, 7, 0, -1):
        with pytest.raises(
            ValueError, match=re.escape(f"num_groups={g} must be a whole divisor of the 6 channels")
        ):
            group_norm(x, g)
    with pytest.raises(ValueError, match=re.escape("divisors: [1, 2, 3, 6]")):
        group_norm(x, 4)
    with pytest.raises(ValueError, match="GroupNorm expects x of shape"):
        group_norm(np.ones(6), 1)
    with pytest.raises(ValueError, match="InstanceNorm expects x of shape"):
        instance_norm(np.ones((2, 3)))


@pytest.mark.parametrize("shape", [(1, 3), (1, 2, 1), (1, 1)])
def test_error_batch_norm_one_value_per_channel(shape: tuple[int, ...]) -> None:
    c = shape[1]
    with pytest.raises(ValueError, match="Expected more than 1 value per channel when training"):
        batch_norm_train(np.arange(float(np.prod(shape))).reshape(shape), None, None, np.zeros(c), np.ones(c))


def test_batch_norm_one_sample_with_positions_is_legal() -> None:
    y, _, _ = batch_norm_train(np.array([[[1.0, 3.0]]]), None, None, [0.0], [1.0], eps=0)
    np.testing.assert_array_equal(y, [[[-1.0, 1.0]]])


@pytest.mark.parametrize("m", [-0.1, 1.1, float("nan"), 10.0])
def test_error_momentum_out_of_range(m: float) -> None:
    with pytest.raises(ValueError, match="momentum must be between 0 and 1"):
        batch_norm_train([[1.0], [2.0]], None, None, [0.0], [1.0], momentum=m)


def test_error_string_and_other_non_numbers() -> None:
    for x in (["a", "b"], "abc", np.array(["1.0", "x"])):
        with pytest.raises(ValueError, match="x must hold real numbers"):
            layer_norm(x)
    with pytest.raises(ValueError, match="x must hold real numbers"):
        variance(["a", "b"])
    with pytest.raises(ValueError, match="gamma must hold real numbers"):
        layer_norm([1.0, 2.0], gamma=["a", "b"])
    with pytest.raises(ValueError, match="single number"):
        layer_norm(3.0)
    with pytest.raises(ValueError, match="d = 0"):
        layer_norm(np.ones((3, 0)))
    with pytest.raises(ValueError, match="ddof must be 0"):
        variance([1.0, 2.0], ddof=2)
    with pytest.raises(ValueError, match="at least 2 values"):
        variance([1.0], ddof=1)


def test_complex_input_is_refused() -> None:
    # Regression (fixed): `_checks.as_float64` promises "Raises ValueError for strings, objects and complex
    # numbers", but a complex array goes through `arr.astype(np.float64, copy=False)` (kind 'c'
    # is not caught), so NumPy silently drops the imaginary part (only a ComplexWarning, which
    # the app never sees). layer_norm([1+2j, 3, 5]) returns [-1.2247, 0, 1.2247] instead of
    # raising ValueError("x must hold real numbers, got an array of dtype complex128").
    x = np.array([1 + 2j, 3, 5])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # show the silent result the app gets, not the warning
        with pytest.raises(ValueError, match="x must hold real numbers"):
            layer_norm(x)


def test_x_hat_var_at_matches_a_fresh_call_for_each_eps() -> None:
    x = np.array([1.0, 2.0, 3.0, 4.0])
    grid = np.logspace(-12, 0, 13)
    got = layer_norm_steps(x).x_hat_var_at(grid)
    want = [float(layer_norm_steps(x, eps=e).x_hat_var_expected) for e in grid]
    np.testing.assert_allclose(got, want, rtol=1e-15, atol=0)
    assert float(layer_norm_steps([3.0, 3.0]).x_hat_var_at(0.0)) == 0.0  # constant row: x_hat is 0


def test_std_is_the_population_standard_deviation() -> None:
    x = RNG.standard_normal((5, 9)) * 3 + 7
    np.testing.assert_allclose(ln_std(x), np.std(x, axis=-1), rtol=1e-14, atol=0)
    assert float(ln_std([1e-200, 3e-200])) == 1e-200  # exact where var underflows to 0


# --- an empty batch: no rows to normalize is not an error (PyTorch returns empty tensors) -------------


@pytest.mark.parametrize("shape", [(0, 4), (2, 0, 4), (0, 3, 4)])
def test_an_empty_batch_gives_empty_results_of_the_right_shapes(shape: tuple[int, ...]) -> None:
    x = np.empty(shape)
    batch = shape[:-1]
    assert ln.layer_norm(x).shape == shape
    assert ln.rms_norm(x).shape == shape
    assert ln.standardize(x).shape == shape
    assert ln.mean(x).shape == ln.variance(x).shape == ln.std(x).shape == batch
    steps = ln.layer_norm_steps(x, gamma=np.ones(4), beta=np.zeros(4))
    assert steps.y.shape == steps.x_hat.shape == steps.centered.shape == shape
    assert steps.mu.shape == steps.var.shape == batch
    x_hat, std = ln.layer_norm_x_hat(x)
    assert x_hat.shape == shape and std.shape == (*batch, 1)
    dx, dgamma, dbeta = ln.layer_norm_backward(x, np.ones(4), np.empty(shape))
    assert dx.shape == shape
    np.testing.assert_array_equal(dgamma, np.zeros(4))  # a sum over no rows
    np.testing.assert_array_equal(dbeta, np.zeros(4))


def test_group_norm_of_an_empty_batch_is_empty() -> None:
    assert ln.group_norm(np.empty((0, 4, 3)), 2).shape == (0, 4, 3)
    assert ln.group_norm(np.empty((0, 4)), 4).shape == (0, 4)
