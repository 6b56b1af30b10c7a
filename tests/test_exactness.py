"""Exactness under cancellation: every statistic is within a few ulps of the exact rational value.

Regression (fixed): ``ln.mean([1e16, -1e16, 1])`` was 0.5556 (exact: 1/3). The mean was
``np.add.reduce(x) / d`` plus one refinement ``mu += mean(x - mu)``; with |x| >> |mu|, ``x - mu``
is rounded, so the "residual" was rounding noise and moved mu away from the answer. The core
now sums each row faithfully (AccSum, ``layernorm/_accurate.py``) and carries the part of the
mean that mu cannot hold into the centred values.

Reference. ``Fraction`` arithmetic on the input as given: float16/float32/float64 values are
exact binary fractions, and 64-bit integers are taken as the integers themselves (the core
averages them exactly, beyond 2**53 too). ``ulp(v)`` is ``math.ulp(float(v))``.

Tolerance, in ulps of the exact value (u = 2**-53, one rounding = at most 1 ulp):

- mean: the row sum is faithful (off by less than 1 ulp of the sum, which is at most
  2 ulp of sum / d), then one division rounds: under 3 ulp, so ``K_MEAN = 4``.
- variance: first order, each centred value is off by at most u relative (plus at most
  ``4 u sigma`` from the part of the mean mu cannot hold, which adds only ``r**2``), its
  square by 2u + u, the pairwise sum of d positive terms by ``h(d) u`` with ``h`` the depth
  of NumPy's summation tree (``_pairwise_depth``: 11 for d = 23, 17 for d = 768), the
  division by u: ``(4 + h(d)) u``, so ``k_var(d) = 5 + h(d)`` ulps. Random rounding errors
  mostly cancel (about 1 ulp is typical); repeated values make them add up (5.6 ulp seen
  at d = 23). ``ddof = 1`` is one more division (+1); the running variance ``var * d/(d-1)``
  two more roundings (+2); a standard deviation halves the error and rounds once.

Variances outside float64's normal range are checked to the same ulps (of the subnormal
spacing below it), and ``inf`` where the exact variance exceeds the largest float64.
"""

from __future__ import annotations

import math
from decimal import Decimal, localcontext
from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import layernorm as ln
from layernorm._accurate import row_means
from layernorm.exact import spread_rows
from layernorm.steps import layer_norm_steps_unchecked

SETTINGS = settings(
    max_examples=200, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow]
)
K_MEAN = 4


def _pairwise_depth(n: int) -> int:
    """Additions on the longest path of ``np.add.reduce`` over n contiguous numbers.

    NumPy's pairwise sum (``pairwise_sum`` in ``loops_utils.h.src``): n < 8 sequentially
    (from 0); n <= 128 in 8 running sums, combined in a 3-level tree, then the n % 8
    leftovers one by one; larger n split in two at a multiple of 8.
    """

    def pw(k: int) -> int:
        if k < 8:
            return max(k - 1, 0)
        if k <= 128:
            return (k // 8 - 1) + 3 + k % 8
        half = k // 2 - (k // 2) % 8
        return 1 + max(pw(half), pw(k - half))

    return pw(n)


def k_var(d: int) -> float:
    """Ulps allowed for a variance over d numbers (see the module docstring)."""
    return 5 + _pairwise_depth(d)


U = 2.0**-53
MAXF = float(np.finfo(np.float64).max)


# --- the issue's examples (each fails on the one-step-refinement core) ---------------------


def test_issue_example_mean_is_one_third() -> None:
    assert float(ln.mean([1e16, -1e16, 1])) == 1 / 3  # was 0.5555555555555556
    s = ln.layer_norm_steps([1e16, -1e16, 1.0], eps=0)
    assert float(s.mu) == 1 / 3
    # x3 - mu = 2/3: rounding 1 - fl(1/3) once (it was 0.444...)
    assert abs(Fraction(float(s.centered[2])) - Fraction(2, 3)) <= Fraction(math.ulp(2 / 3))
    exact_var = Fraction(2 * 10**32 + Fraction(2, 3), 3)  # ((1e16 - 1/3)^2 + (1e16 + 1/3)^2 + 4/9) / 3
    assert _ulps(float(s.var), exact_var) <= 1  # (all three squares are exact here)


def test_clustered_pair_variance_is_exact() -> None:
    # The mean 1e8 + ulp/2 lies between two floats; the rounded mean alone makes var = ulp^2/2.
    u = math.ulp(1e8)
    for x in ([1e8, 1e8 + u], [1e8 + u, 1e8]):
        assert float(ln.variance(x)) == u * u / 4
        s = ln.layer_norm_steps(x, eps=0)
        assert sorted(s.centered.tolist()) == [-u / 2, u / 2]
        np.testing.assert_array_equal(np.abs(s.x_hat), [1.0, 1.0])


def test_variance_near_the_top_of_the_float64_range() -> None:
    # The squares overflow (1.96e308) but the variance does not: 9.8e307 (it was inf).
    assert _ulps(float(ln.variance([1.4e154, -1.4e154, 0.0, 0.0])), Fraction(1.4e154) ** 2 / 2) <= 2
    s = ln.layer_norm_steps([1.4e154, -1.4e154, 0.0, 0.0], eps=0)
    assert math.isfinite(float(s.var)) and float(s.sigma) ** 2 == pytest.approx(float(s.var), rel=1e-15)


def test_integers_near_2_62_are_averaged_as_integers() -> None:
    x = np.array([2**62 + 1, -(2**62), 0], dtype=np.int64)
    assert float(ln.mean(x)) == 1 / 3  # float64 would see [2**62, -2**62, 0]: mean 0
    assert float(ln.variance(np.array([2**62 + 1, 2**62 + 2]))) == 0.25
    assert float(ln.variance(np.array([2**63 - 1, 2**63 - 2], dtype=np.uint64))) == 0.25
    s = ln.layer_norm_steps(np.array([[2**62 + 1, 2**62 + 2], [7, 7]]), eps=0.5)
    np.testing.assert_array_equal(s.centered, [[-0.5, 0.5], [0.0, 0.0]])
    assert float(s.var[0]) == 0.25 and float(s.var[1]) == 0.0


def test_constant_rows_and_huge_rows_keep_their_guarantees() -> None:
    for c in (0.1, 1 / 3, 1e8 + 0.1, 1e300, -1.7e308, 5e-324):
        s = ln.layer_norm_steps(np.full((2, 5), c), eps=1e-5)
        assert np.all(s.centered == 0) and np.all(s.mu == c) and np.all(s.var == 0)
    with pytest.raises(ln.ZeroVarianceError):
        ln.layer_norm(np.full(4, 0.1), eps=0)
    # sums that overflow, values that cancel at 1e308, a tiny value surviving next to them
    assert float(ln.mean([1.7e308, 1.7e308])) == 1.7e308
    assert float(ln.mean([1e308, -1e308, 3e-300])) == float(Fraction(3e-300) / 3)
    assert float(ln.mean([1e308, -1e308, 6 * 2.0**-1074])) == 2 * 2.0**-1074  # exact integer path
    with pytest.raises(ln.ResultRangeError, match=r"x - mean\(x\) does not fit in a float64"):
        ln.layer_norm([1.7e308, -1.7e308, 1e308])


def test_row_means_with_divisors_beyond_26_and_53_bits() -> None:
    # d * mu is formed exactly by Dekker's product once d has more than 26 bits, and by exact
    # rational arithmetic once d is not a float64 integer: the mean of parts summing to S is S / d.
    parts = np.array([[1e16, -1e16, 1.0, 3.0], [0.1, 0.2, 0.3, -0.7], [2.5, 2.5, 2.5, 2.5]])
    amax = np.max(np.abs(parts), axis=1)
    inf = np.full(3, np.inf)
    for d in (3, 2**26 + 3, 2**40 + 1, 2**53 + 7):
        mu, r = row_means(parts, d, -inf, inf, amax)
        assert r is not None
        for i, row in enumerate(parts.tolist()):
            exact = sum(map(Fraction, row), Fraction(0)) / d
            assert _ulps(float(mu[i]), exact) <= K_MEAN, (d, i)
            rest = exact - Fraction(float(mu[i]))
            assert abs(Fraction(float(r[i])) - rest) <= Fraction(math.ulp(float(rest))) + Fraction(
                2.0**-1074
            ), (d, i)


# --- reference -----------------------------------------------------------------------------


def _frac_rows(x: npt.NDArray[Any]) -> list[list[Fraction]]:
    if x.dtype.kind in "iu":
        return [[Fraction(int(v)) for v in row] for row in x.tolist()]
    return [[Fraction(float(v)) for v in row] for row in x.astype(np.float64).tolist()]


def _exact_stats(row: list[Fraction]) -> tuple[Fraction, Fraction, list[Fraction]]:
    d = len(row)
    mu = sum(row, Fraction(0)) / d
    cs = [v - mu for v in row]
    return mu, sum((c * c for c in cs), Fraction(0)), cs  # (mean, sum of squares, centred)


def _ulps(got: float, exact: Fraction) -> float:
    """|got - exact| in ulps of exact (subnormal spacing below the normal range)."""
    return float(abs(Fraction(got) - exact) / Fraction(math.ulp(float(exact))))


def _sqrt(v: Fraction) -> Fraction:
    with localcontext() as ctx:
        ctx.prec = 50
        return Fraction((Decimal(v.numerator) / Decimal(v.denominator)).sqrt())


def _check_var(got: float, exact: Fraction, k: float) -> None:
    if exact > MAXF:
        assert got == math.inf or _ulps(got, exact) <= k, (got, float(exact))
    else:
        assert _ulps(got, exact) <= k, (got, float(exact), _ulps(got, exact))


# --- strategies built to cancel ------------------------------------------------------------


def _scaled(m: float, e: int, sign: int) -> float:
    return sign * math.ldexp(m, e)


# |m * 2**e| < 2**1021 with room for the 4 ulps a pair or cluster adds (m < 2 - 2**-48 = 2 - 16 ulps):
# with m up to just below 2, big + 3 ulps crossed 2**1021 (Hypothesis, seed 1011).
MAGNITUDE = st.builds(_scaled, st.floats(1, 2 - 2**-48), st.integers(-1070, 1020), st.sampled_from([1, -1]))
MODERATE = st.builds(
    _scaled, st.floats(1, 2, exclude_max=True), st.integers(-60, 60), st.sampled_from([1, -1])
)


@st.composite
def cancelling_row(draw: st.DrawFn, d: int) -> list[float]:
    """Huge +/- pairs (equal or a few ulps apart), small values, clusters a few ulps wide."""
    out: list[float] = []
    while len(out) < d:
        kind = draw(st.sampled_from(["pair", "small", "cluster", "any"]))
        if kind == "pair" and len(out) + 2 <= d:
            big = abs(draw(MAGNITUDE))
            k = draw(st.integers(-3, 3))
            out += [big, -(big + k * math.ulp(big))]
        elif kind == "cluster":
            c = draw(st.one_of(MAGNITUDE, MODERATE))
            out += [c + draw(st.integers(-4, 4)) * math.ulp(c) for _ in range(min(d - len(out), 3))]
        elif kind == "small":
            out.append(draw(MODERATE))
        else:
            out.append(draw(st.one_of(MAGNITUDE, st.integers(-(2**53), 2**53).map(float))))
    perm = draw(st.permutations(range(d)))
    return [out[i] for i in perm]


@st.composite
def float_rows(draw: st.DrawFn) -> npt.NDArray[Any]:
    m, d = draw(st.integers(1, 4)), draw(st.integers(1, 40))
    dtype = draw(st.sampled_from([np.float64, np.float64, np.float32, np.float16]))
    x = np.array([draw(cancelling_row(d)) for _ in range(m)])
    if dtype != np.float64:
        top = float(np.finfo(dtype).max)
        x = np.clip(x, -top, top).astype(dtype)
    # keep x - mu inside float64 (|x| <= 2**1021); such inputs raise ValueError instead
    assert np.max(np.abs(x.astype(np.float64))) <= 2.0**1021
    return x


NEAR_2_62 = st.builds(
    lambda s, big, small: s * big + small,
    st.sampled_from([1, -1, 0]),
    st.sampled_from([2**62, 2**62 + 2**40, 2**61 * 3]),
    st.integers(-(2**33), 2**33),
)


@st.composite
def int_rows(draw: st.DrawFn) -> npt.NDArray[Any]:
    m, d = draw(st.integers(1, 4)), draw(st.integers(1, 30))
    elem = st.one_of(NEAR_2_62, st.integers(-(2**63), 2**63 - 1), st.integers(-10, 10))
    if draw(st.booleans()):
        return np.array([[draw(elem) for _ in range(d)] for _ in range(m)], dtype=np.int64)
    uelem = st.one_of(st.integers(2**63 - 2**34, 2**64 - 1), st.integers(0, 2**64 - 1), st.integers(0, 9))
    return np.array([[draw(uelem) for _ in range(d)] for _ in range(m)], dtype=np.uint64)


_TINY = 2.0**-973  # its ulp is subnormal: Hypothesis found [_TINY, _TINY, next float] with eps = 0
ROWS = st.one_of(float_rows(), float_rows(), int_rows(), int_rows().map(lambda a: a.astype(np.float64)))


# --- properties ----------------------------------------------------------------------------


@SETTINGS
@given(ROWS)
def test_mean_variance_std_within_a_few_ulps(x: npt.NDArray[Any]) -> None:
    d = x.shape[1]
    exact = [_exact_stats(r) for r in _frac_rows(x)]
    mus, sig = ln.mean(x), ln.std(x)
    var0 = _variance_or_refusal(x, 0, any(ss / d > MAXF for _, ss, _ in exact))
    var1 = _variance_or_refusal(x, 1, any(ss / (d - 1) > MAXF for _, ss, _ in exact)) if d > 1 else None
    for i, (mu, ss, _) in enumerate(exact):
        assert _ulps(float(mus[i]), mu) <= K_MEAN, (float(mus[i]), float(mu))
        if var0 is not None:
            _check_var(float(var0[i]), ss / d, k_var(d))
        if var1 is not None:
            _check_var(float(var1[i]), ss / (d - 1), k_var(d) + 1)
        assert _ulps(float(sig[i]), _sqrt(ss / d)) <= k_var(d) / 2 + 1
    # a row's statistics do not depend on the rows beside it, nor on the axis layout
    np.testing.assert_array_equal(ln.mean(x[-1:]), mus[-1:])
    np.testing.assert_array_equal(ln.mean(np.ascontiguousarray(x.T), axis=0), mus)
    if var0 is not None:
        np.testing.assert_array_equal(ln.variance(np.ascontiguousarray(x.T), axis=0), var0)


def _variance_or_refusal(x: npt.NDArray[Any], ddof: int, over: bool) -> npt.NDArray[Any] | None:
    """``ln.variance(x, ddof=ddof)``, or None after checking it refuses a variance beyond float64."""
    if over:
        with pytest.raises(ln.ResultRangeError, match="variance: the result does not fit in a float64"):
            ln.variance(x, ddof=ddof)
        return None
    return ln.variance(x, ddof=ddof)


@SETTINGS
@given(ROWS, st.sampled_from([0.0, 1e-5, 1.0]))
@example(np.array([[_TINY, _TINY, np.nextafter(_TINY, 1.0)]]), 0.0)  # x - mu is subnormal
def test_layer_norm_steps_within_a_few_ulps(x: npt.NDArray[Any], eps: float) -> None:
    d = x.shape[1]
    rows = _frac_rows(x)
    exact = [_exact_stats(r) for r in rows]
    if eps == 0 and any(ss == 0 for _, ss, _ in exact):
        with pytest.raises(ln.ZeroVarianceError):
            ln.layer_norm_steps(x, eps=eps)
        return
    if any(ss / d > MAXF for _, ss, _ in exact):  # the public steps refuse a var beyond float64
        with pytest.raises(ln.ResultRangeError, match=r"layer_norm_steps: the result\.var does not fit"):
            ln.layer_norm_steps(x, eps=eps)
    s = layer_norm_steps_unchecked(x, eps=eps)  # its other fields are still checked below
    np.testing.assert_array_equal(ln.layer_norm(x, eps=eps), s.y)
    for i, (mu, ss, cs) in enumerate(exact):
        var = ss / d
        assert _ulps(float(s.mu[i]), mu) <= K_MEAN
        _check_var(float(s.var[i]), var, k_var(d))
        assert _ulps(float(s.sigma[i]), _sqrt(var)) <= k_var(d) / 2 + 1
        assert _ulps(float(s.std[i]), _sqrt(var + Fraction(eps))) <= k_var(d) / 2 + 2
        sigma = float(_sqrt(var))
        std = _sqrt(var + Fraction(eps))
        for j, c in enumerate(cs):
            # x - mu: a few ulps, plus at most 4 u sigma for the part of the mean mu cannot hold
            err = abs(Fraction(float(s.centered[i, j])) - c)
            assert err <= 2 * Fraction(math.ulp(float(c))) + Fraction(4 * U * sigma), (i, j)
            xh = c / std
            err_h = abs(Fraction(float(s.x_hat[i, j])) - xh)
            # A subnormal x - mu is held to 2**-1074, not to its ulps (float64 has no finer grid there):
            # x_hat carries that through the division. Found by Hypothesis in a fresh clone's CI:
            # x = [1.2526e-293] * 3 (differing in their last bits), eps = 0, x_hat off by 2**-48.
            sub = 2 * Fraction(2.0**-1074) / std if abs(c) < Fraction(2.0**-1022) else 0
            assert err_h <= 4 * Fraction(math.ulp(float(xh))) + Fraction(8 * U) + sub, (i, j)
        # the same row alone gives the same bits
        np.testing.assert_array_equal(layer_norm_steps_unchecked(x[i], eps=eps).centered, s.centered[i])


@SETTINGS
@given(ROWS)
@example(np.array([[2.01e154, 0.0]]))  # a newcomer's make test: the unbiased variance overflowed silently
def test_batch_group_instance_norm_statistics(x: npt.NDArray[Any]) -> None:
    m, d = x.shape
    exact = [_exact_stats(r) for r in _frac_rows(x)]
    eps = 1e-5 if any(ss == 0 for _, ss, _ in exact) else 0.0
    y_ln = ln.layer_norm(x, eps=eps)
    # GroupNorm with one group and InstanceNorm over (N = m, C = 1, L = d) are LayerNorm rows
    np.testing.assert_array_equal(ln.group_norm(x.reshape(m, 1, d), 1, eps=eps), y_ln.reshape(m, 1, d))
    np.testing.assert_array_equal(ln.instance_norm(x.reshape(m, 1, d), eps=eps), y_ln.reshape(m, 1, d))
    if d < 2:
        return
    # BatchNorm over (N = d, C = m): channel i's batch is row i
    xb = np.ascontiguousarray(x.T)
    if any(ss / (d - 1) > MAXF for _, ss, _ in exact):  # the unbiased running variance cannot be held
        with pytest.raises(ln.ResultRangeError, match="batch_norm_train: new_running_var does not fit"):
            ln.batch_norm_train(xb, None, None, np.zeros(m), np.ones(m), momentum=1.0, eps=eps)
        return
    y, run_mean, run_var = ln.batch_norm_train(xb, None, None, np.zeros(m), np.ones(m), momentum=1.0, eps=eps)
    np.testing.assert_array_equal(y, y_ln.T)
    for i, (mu, ss, _) in enumerate(exact):
        assert _ulps(float(run_mean[i]), mu) <= K_MEAN
        _check_var(float(run_var[i]), ss / (d - 1), k_var(d) + 2)  # the unbiased one: var * d / (d - 1)
    # eval mode with the exact statistics rounded to float64: (x - mean) / sqrt(var + eps)
    rm = np.array([float(mu) for mu, _, _ in exact])
    rv = np.array([MAXF if ss / d > MAXF else float(ss / d) for _, ss, _ in exact])
    ye = ln.batch_norm_eval(xb, None, None, rm, rv, eps=1e-5)
    for i, row in enumerate(_frac_rows(x)):
        std = _sqrt(Fraction(float(rv[i])) + Fraction(1e-5))
        for j, v in enumerate(row):
            ref = (v - Fraction(float(rm[i]))) / std
            assert abs(Fraction(float(ye[j, i])) - ref) <= 4 * Fraction(math.ulp(float(ref))) + Fraction(
                1e-300
            )


@SETTINGS
@given(float_rows())
def test_rms_norm_mean_of_squares(x: npt.NDArray[Any]) -> None:
    d = x.shape[1]
    ms, rms = spread_rows(x.astype(np.float64), 0.0)  # what rms_norm divides by, with eps = 0
    for i, row in enumerate(_frac_rows(x)):
        exact = sum((v * v for v in row), Fraction(0)) / d
        _check_var(float(ms[i, 0]), exact, k_var(d) - 2)  # (x itself is exact: no centring error)
        assert _ulps(float(rms[i, 0]), _sqrt(exact)) <= k_var(d) / 2 + 1
    if np.all(rms > 0):
        y = ln.rms_norm(x, eps=0.0)
        np.testing.assert_array_equal(y, x.astype(np.float64) / rms)


@SETTINGS
@given(ROWS, st.data())
def test_backward_uses_the_exact_statistics(x: npt.NDArray[Any], data: st.DataObject) -> None:
    m, d = x.shape
    if d < 2:
        return  # BatchNorm needs two values per channel
    exact = [_exact_stats(r) for r in _frac_rows(x)]
    eps = 1e-5 if any(ss == 0 for _, ss, _ in exact) else 0.0
    dy = np.array(data.draw(st.lists(st.floats(-2, 2), min_size=m * d, max_size=m * d))).reshape(m, d)
    stds = [float(_sqrt(ss / d + Fraction(eps))) for _, ss, _ in exact]
    try:
        dx, _, _ = ln.layer_norm_backward(x, None, dy, eps=eps)
        # BatchNorm's backward over (N = d, C = m) is LayerNorm's backward of the rows
        dxb, _, _ = ln.batch_norm_backward(
            np.ascontiguousarray(x.T), None, np.ascontiguousarray(dy.T), eps=eps
        )
    except ln.ResultRangeError:
        # only a row whose spread is below float64's normal range may give a gradient that does not
        # fit (its deviations are subnormal: test_backward_of_a_subnormal_spread)
        assert any(s < 2.0**-1000 for s in stds), stds
        return
    for i, (_, ss, cs) in enumerate(exact):
        std = _sqrt(ss / d + Fraction(eps))
        if not 1e-150 < float(std) < 1e150:
            continue
        xh = [c / std for c in cs]
        g = [Fraction(float(v)) for v in dy[i]]
        mg = sum(g, Fraction(0)) / d
        mgx = sum((a * b for a, b in zip(g, xh, strict=True)), Fraction(0)) / d
        ref = [float((g[j] - mg - xh[j] * mgx) / std) for j in range(d)]
        # the backward formula's own float64 sums: a few u of sum |dy| (1 + |x_hat|^2) / std
        scale = float(sum(abs(v) for v in g) * (1 + max(abs(float(h)) for h in xh) ** 2) / std)
        np.testing.assert_allclose(dx[i], ref, rtol=0, atol=64 * U * scale + 1e-300)
        np.testing.assert_allclose(dxb[:, i], ref, rtol=0, atol=64 * U * scale + 1e-300)


def test_backward_of_a_subnormal_spread() -> None:
    """A row whose values differ by one subnormal step (2.2e-308 and its neighbour): its deviations
    from the mean (±2.5e-324) are not float64 numbers, the gradient's division by its spread
    overflows, and the core says so (ResultRangeError) rather than returning inf or a wrong number.
    The case a property test met in one run of make check."""
    a = 2.2250738585072014e-308
    x = np.array([[1.0, -1.0], [a, np.nextafter(a, 1.0)]])
    dy = np.array([[0.0, 0.0], [0.0, 1.0]])
    with pytest.raises(ln.ResultRangeError, match="dx does not fit in a float64"):
        ln.layer_norm_backward(x, None, dy, eps=0.0)
    dx, _, _ = ln.layer_norm_backward(x, None, dy, eps=1e-5)  # any eps: a small, finite gradient
    assert np.all(np.isfinite(dx))
