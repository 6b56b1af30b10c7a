"""Property tests: the core is right for whole kinds of input, not just the reference sample.

Reference. ``exact_x_hat`` computes mu, x - mu and var as exact ``Fraction``s of the
dtype-rounded input (so it has no cancellation, whatever the offset) and rounds each
``x_hat_i = sign(c_i) * sqrt(c_i^2 / (var + eps))`` once: it is within 1 ulp of the true value.

Tolerance. The core works in float64 with a float64 mean; its centred values carry an
absolute error of a few ulp of the row's largest |x - mu| (the mean itself is representable
only to ulp(mu), which the refinement pass absorbs into the centred values). Dividing by
std turns that into a few ulp of max|x_hat|, and |x_hat_i| <= sqrt(d - 1) (Samuelson's
inequality). Hence ``atol = 32 * eps64 * sqrt(d)`` plus ``rtol = 32 * eps64``. This is
~10^-14: tight enough to catch a one-pass variance, float32 arithmetic (10^-7), a d - 1
divisor or eps in the wrong place, loose enough for any correct float64 two-pass code.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from layernorm import (
    ZeroVarianceError,
    layer_norm,
    layer_norm_input_grad,
    layer_norm_steps,
    layer_norm_x_hat,
    mean,
    variance,
)
from layernorm.backward import layer_norm_backward_from_steps

EPS64 = float(np.finfo(np.float64).eps)
SETTINGS = settings(
    max_examples=200, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow]
)

# Magnitudes per dtype, kept inside the dtype's finite range so rounding never overflows.
LIMITS: dict[str, tuple[float, float]] = {  # (max |offset|, max scale)
    "float16": (3e4, 3e4),
    "float32": (1e12, 1e20),
    "float64": (1e12, 1e20),
    "int32": (1e9, 1e9),
}


def exact_x_hat(row: list[float], eps: float) -> tuple[list[float], Fraction]:
    xs = [Fraction(v) for v in row]
    d = len(xs)
    mu = sum(xs, Fraction(0)) / d
    cs = [v - mu for v in xs]
    var = sum((c * c for c in cs), Fraction(0)) / d
    denom = var + Fraction(eps)
    if denom == 0:
        return [math.nan] * d, var
    return [math.copysign(math.sqrt(float(c * c / denom)), c) if c else 0.0 for c in cs], var


def reference(x: npt.NDArray[Any], k: int, eps: float) -> tuple[npt.NDArray[np.float64], list[Fraction]]:
    """Exact x_hat of ``x`` over its last ``k`` axes, and the exact variance of each row."""
    x64 = x.astype(np.float64)
    d = math.prod(x.shape[x.ndim - k :])
    rows = x64.reshape(-1, d)
    out, variances = [], []
    for r in rows.tolist():
        xh, v = exact_x_hat(r, eps)
        out.append(xh)
        variances.append(v)
    return np.array(out, dtype=np.float64).reshape(x.shape), variances


def tol(d: int) -> dict[str, float]:
    return {"rtol": 32 * EPS64, "atol": 32 * EPS64 * math.sqrt(d)}


@st.composite
def inputs(
    draw: st.DrawFn, dtypes: tuple[str, ...] = ("float16", "float32", "float64", "int32")
) -> tuple[npt.NDArray[Any], int, float]:
    """(x rounded to its dtype, k normalized trailing axes, eps)."""
    dtype = draw(st.sampled_from(dtypes))
    shape = tuple(draw(st.lists(st.integers(1, 5), min_size=1, max_size=4)))
    k = draw(st.integers(1, len(shape)))
    max_off, max_scale = LIMITS[dtype]
    unit = draw(
        hnp.arrays(
            np.float64,
            shape,
            elements=st.one_of(
                st.floats(-1, 1, allow_nan=False, allow_subnormal=False),
                st.sampled_from([0.0, 0.5, -1.0, 1.0]),  # repeats: constant rows and ties
            ),
        )
    )
    log_off = draw(st.one_of(st.just(-math.inf), st.floats(-3, math.log10(max_off))))
    offset = draw(st.sampled_from([-1.0, 1.0])) * (0.0 if log_off == -math.inf else 10.0**log_off)
    scale = 10.0 ** draw(st.floats(-6, math.log10(max_scale)))
    raw = offset + scale * unit
    if dtype == "int32":
        x = np.clip(np.rint(raw), -(2**31) + 1, 2**31 - 1).astype(np.int32)
    else:
        x = raw.astype(dtype)
    eps = draw(st.sampled_from([0.0, 1e-12, 1e-5, 1e-3, 1.0]))
    return x, k, eps


def _axis(k: int) -> tuple[int, ...]:
    return tuple(range(-k, 0))


@SETTINGS
@given(inputs())
def test_layer_norm_matches_exact_reference(case: tuple[npt.NDArray[Any], int, float]) -> None:
    x, k, eps = case
    before = x.copy()
    ref, variances = reference(x, k, eps)
    d = math.prod(x.shape[x.ndim - k :])
    if eps == 0 and any(v == 0 for v in variances):
        with pytest.raises(ZeroVarianceError):
            layer_norm(x, eps=eps, axis=_axis(k))
        return
    y = layer_norm(x, eps=eps, axis=_axis(k))
    assert y.dtype == np.float64 and y.shape == x.shape
    assert np.all(np.isfinite(y))
    np.testing.assert_allclose(y, ref, **tol(d))
    np.testing.assert_array_equal(x, before)


@SETTINGS
@given(inputs())
def test_variance_and_mean_match_exact(case: tuple[npt.NDArray[Any], int, float]) -> None:
    x, k, _ = case
    _, variances = reference(x, k, 0.0)
    d = math.prod(x.shape[x.ndim - k :])
    v = variance(x, axis=_axis(k)).ravel()
    # relative error of sum(c^2) with c accurate to a few ulp of max|c| is <= 2 * that * d
    for got, exact in zip(v.tolist(), variances, strict=True):
        assert got == pytest.approx(float(exact), rel=64 * EPS64 * d, abs=1e-300)
    rows = x.astype(np.float64).reshape(-1, d)
    mu = mean(x, axis=_axis(k)).ravel()
    for got, r in zip(mu.tolist(), rows.tolist(), strict=True):
        exact_mu = sum(map(Fraction, r), Fraction(0)) / d
        # the mean to float64 rounding relative to the row's magnitude
        assert abs(Fraction(got) - exact_mu) <= Fraction(4 * EPS64) * Fraction(max(abs(t) for t in r))


@SETTINGS
@given(
    ints=hnp.arrays(
        np.int64, st.tuples(st.integers(1, 4), st.integers(2, 12)), elements=st.integers(-(2**30), 2**30)
    ),
    c=st.integers(-(2**40), 2**40),
    p=st.integers(-20, 20),
    eps=st.sampled_from([0.0, 1e-5]),
)
def test_shift_invariance(ints: npt.NDArray[np.int64], c: int, p: int, eps: float) -> None:
    # x and x + c on a dyadic grid: both exact in float64, so LayerNorm must agree to tolerance.
    x = ints.astype(np.float64) * 2.0**p
    shifted = (ints + c).astype(np.float64) * 2.0**p
    if np.any(np.ptp(ints, axis=-1) == 0) and eps == 0:
        return  # 0/0, covered by the ZeroVarianceError tests
    np.testing.assert_allclose(layer_norm(shifted, eps=eps), layer_norm(x, eps=eps), **tol(x.shape[-1]))


@SETTINGS
@given(inputs(("float32", "float64")), st.floats(-30, 30), st.integers(-60, 60))
def test_scale_invariance(case: tuple[npt.NDArray[Any], int, float], log_a: float, j: int) -> None:
    x, k, eps = case
    x64 = x.astype(np.float64)
    d = math.prod(x.shape[x.ndim - k :])
    _, variances = reference(x, k, 0.0)
    if any(v == 0 for v in variances):
        eps = max(eps, 1e-5)
    base = layer_norm(x64, eps=eps, axis=_axis(k))
    # power of two: a * x is exact; LN(a x, a^2 eps) = LN(x, eps)
    a2 = 2.0**j
    if np.array_equal((a2 * x64) / a2, x64) and eps * a2 * a2 / a2 / a2 == eps:  # no subnormal loss
        np.testing.assert_allclose(layer_norm(a2 * x64, eps=eps * a2 * a2, axis=_axis(k)), base, **tol(d))
    # any positive a: a * x rounds each value by <= eps64 * |a x|, which moves x_hat by up to
    # ~ eps64 * max|x| / sqrt(var + eps) per value (the row's conditioning: large offset, small
    # spread is ill-conditioned for *this* identity, not for the core).
    a = 10.0**log_a
    ax = a * x64
    denoms = [float(v) + eps for v in variances]
    if (
        np.all(np.isfinite(ax))
        and np.all((ax != 0) | (x64 == 0))
        and np.isfinite(eps * a * a)
        and min(denoms) > 1e-290  # var + eps representable, so the conditioning below is finite
        and np.all(np.abs(ax[ax != 0]) > 1e-290)  # a * x not subnormal
    ):
        rows = x64.reshape(-1, d)
        cond = [
            max(abs(t) for t in r) / math.sqrt(float(v) + eps)
            for r, v in zip(rows.tolist(), variances, strict=True)
        ]
        atol = (4 * EPS64 * math.sqrt(d) * np.array(cond) + tol(d)["atol"])[:, None]
        got = layer_norm(ax, eps=eps * a * a, axis=_axis(k)).reshape(-1, d)
        assert np.all(np.abs(got - base.reshape(-1, d)) <= atol + tol(d)["rtol"] * np.abs(got))


@SETTINGS
@given(inputs())
def test_x_hat_mean_zero_and_variance_below_one(case: tuple[npt.NDArray[Any], int, float]) -> None:
    x, k, eps = case
    _, variances = reference(x, k, 0.0)
    if eps == 0 and any(v == 0 for v in variances):
        eps = 1e-5
    s = layer_norm_steps(x, eps=eps, axis=_axis(k))
    d = s.d
    rows = s.x_hat.reshape(-1, d)
    if eps == 0:
        # var/(var+eps) is 1 for every non-constant row. (s.x_hat_var_expected is NaN when var
        # underflows to 0 for |x - mu| < ~1e-162: see test_core's regression test for that case.)
        v_expected = [1.0] * rows.shape[0]
    else:
        v_expected = np.ravel(s.x_hat_var_expected).tolist()
    for row, v_exp in zip(rows.tolist(), v_expected, strict=True):
        assert abs(math.fsum(row) / d) <= tol(d)["atol"]
        v = math.fsum(t * t for t in row) / d
        assert v <= 1 + 64 * EPS64 * d
        if math.isfinite(v_exp):
            assert v == pytest.approx(v_exp, rel=64 * EPS64 * d, abs=64 * EPS64 * d)


@SETTINGS
@given(inputs(), st.data())
def test_steps_consistent_with_layer_norm(
    case: tuple[npt.NDArray[Any], int, float], data: st.DataObject
) -> None:
    x, k, eps = case
    _, variances = reference(x, k, 0.0)
    if eps == 0 and any(v == 0 for v in variances):
        eps = 1e-3
    norm_shape = x.shape[x.ndim - k :]
    gamma = data.draw(hnp.arrays(np.float64, norm_shape, elements=st.floats(-3, 3)))
    beta = data.draw(hnp.arrays(np.float64, norm_shape, elements=st.floats(-3, 3)))
    s = layer_norm_steps(x, gamma, beta, eps=eps, axis=_axis(k))
    y = layer_norm(x, gamma, beta, eps=eps, axis=_axis(k))
    np.testing.assert_array_equal(s.y, y)
    np.testing.assert_array_equal(s.x, x.astype(np.float64))
    batch = x.shape[: x.ndim - k]
    assert s.mu.shape == batch and s.var.shape == batch and s.std.shape == batch
    assert s.d == math.prod(norm_shape) and s.eps == eps
    expand = (...,) + (None,) * k
    np.testing.assert_array_equal(s.x_hat, s.centered / s.std[expand])
    np.testing.assert_allclose(s.y, gamma * s.x_hat + beta, rtol=0, atol=0)
    # centered = x - mu to rounding of x
    scale = np.max(np.abs(s.x)) if s.x.size else 1.0
    np.testing.assert_allclose(s.centered, s.x - s.mu[expand], rtol=0, atol=4 * EPS64 * scale)
    with np.errstate(over="ignore"):
        mean_sq = np.mean(s.centered**2, axis=_axis(k))
    finite = np.isfinite(mean_sq) & (mean_sq > 1e-290)
    np.testing.assert_allclose(s.var[finite], mean_sq[finite], rtol=16 * EPS64 * s.d)
    np.testing.assert_allclose(s.std[finite], np.sqrt(s.var[finite] + eps), rtol=4 * EPS64)
    # gamma = 1, beta = 0 gives x_hat exactly
    np.testing.assert_array_equal(layer_norm(x, eps=eps, axis=_axis(k)), s.x_hat)


@SETTINGS
@given(inputs(("float64",)), st.data())
def test_the_training_forward_and_backward_are_the_display_paths_bit_for_bit(
    case: tuple[npt.NDArray[Any], int, float], data: st.DataObject
) -> None:
    """layer_norm_x_hat / layer_norm_input_grad (the sweep's) = layer_norm_steps and its backward."""
    x, _, eps = case
    _, variances = reference(x, 1, 0.0)
    if eps == 0 and any(v == 0 for v in variances):
        with pytest.raises(ZeroVarianceError):
            layer_norm_x_hat(x, eps=eps)
        eps = 1e-3
    before = x.copy()
    x_hat, std = layer_norm_x_hat(x, eps=eps)
    s = layer_norm_steps(x, eps=eps)
    np.testing.assert_array_equal(x_hat, s.x_hat)
    np.testing.assert_array_equal(std, s.std[..., None])
    np.testing.assert_array_equal(x, before)  # x is never written
    dy = data.draw(hnp.arrays(np.float64, x.shape, elements=st.floats(-1e3, 1e3)))
    dx = layer_norm_input_grad(x_hat, std, dy)
    np.testing.assert_array_equal(dx, layer_norm_backward_from_steps(s, dy)[0])
