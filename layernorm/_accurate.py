"""Faithfully rounded row means for :mod:`layernorm.core` (private).

:func:`row_means` returns, for each row of ``d`` numbers, the mean ``mu`` (a float64
within 3 ulp of the exact rational mean, clamped into ``[min, max]`` of the row) and
``r``, the exact mean minus ``mu`` rounded to float64 (to within an ulp of ``r`` or
~2^-1074 absolute), so ``x - mu - r`` is the exact centred value carried in two parts.

The sums come from AccSum (Rump, Ogita & Oishi, "Accurate floating-point summation
part I: faithful rounding", SIAM J. Sci. Comput. 31(1), 2008, Algorithms 3.2, 4.1, 4.5),
vectorised over rows:

- ExtractVector: with ``sigma`` a power of two at least ``Ms * max|p|`` (``Ms >= n + 2``,
  a power of two), ``q = (sigma + p) - sigma`` rounds each ``p_i`` to a grid so coarse that
  ``tau = sum(q)`` is exact in any order, and ``p - q`` is exact.
- Repeat with ``sigma *= Ms * u`` on the remainders until ``|t + tau| >= Ms**2 * u * sigma``
  (or ``sigma`` underflows); then ``tau1 + (tau2 + sum(p))`` is a faithful rounding of the
  exact sum and ``lo = tau2 - (res - tau1) + sum(p)`` its remainder.

The first ``sigma`` of a row is a function of that row alone (its exponent rounded up to
8 mod 16), so a row's statistics never depend on the other rows it is computed with;
when every row of a block shares it the extraction runs as a scalar ufunc (the common
case), otherwise with a per-row column. Most rows stop after one extraction. Rows with
``max|x| >= 2**960`` are summed scaled by ``2**-64`` (exact unless the row also holds
values below ``2**-958``, which go to an exact integer path, as does ``d >= 2**53``).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from numpy.typing import NDArray

from layernorm._checks import F64

_U = 2.0**-53  # unit roundoff of float64 (half its machine epsilon)
_REALMIN = 2.0**-1022  # smallest normal float64
_SPLIT = 2.0**27 + 1.0  # Veltkamp's constant: mu = mh + ml with 26-bit halves
_HUGE = 2.0**960  # rows with max|x| at least this are summed scaled, so sigma stays finite
_SCALE = 64  # ... by 2**-64
_TINY = 2.0 ** (-1022 + _SCALE)  # below this, x * 2**-64 would be subnormal and lose bits


_ONES: dict[int, F64] = {}


def _ones(n: int) -> F64:
    """A read-only vector of n ones (cached: BLAS sums rows as a product with it)."""
    v = _ONES.get(n)
    if v is None:
        v = np.ones(n)
        v.flags.writeable = False
        if len(_ONES) < 64:
            _ONES[n] = v
    return v


def _exact_row_sums(q: F64, sigma: float | F64) -> F64:
    """Row sums of extracted parts ``q``, exact in any order of addition.

    Every ``q_i`` is a multiple of ``u * sigma`` and every partial sum stays below
    ``sigma``, so a BLAS matrix-vector product may form them, at twice the speed of
    ``np.add.reduce`` -- unless the grid is subnormal, which some BLAS flush to zero.
    """
    if isinstance(sigma, float) and sigma * _U >= _REALMIN:
        sums: F64 = np.dot(q, _ones(q.shape[1]))
        return sums
    return np.add.reduce(q, axis=1)  # type: ignore[no-any-return]


def _ms(n: int) -> float:
    """``Ms``: the smallest power of two with ``n + 2 <= Ms``."""
    return float(2 ** (n + 1).bit_length())


def _pow2_above(v: F64) -> F64:
    """A power of two strictly above each ``v >= 0`` (1 for 0)."""
    return np.ldexp(1.0, np.frexp(v)[1])


def _first_sigma(amax: F64, ms: float) -> F64:
    """First extraction unit of each row: ``Ms * 2**e`` with ``2**e > max|p|``, ``e = 8 mod 16``.

    Rounding the exponent up to a coarse grid makes neighbouring rows (N(0, 1) data, say)
    share one sigma, so the extraction is a scalar ufunc; any sigma >= Ms * max|p| is valid.
    """
    e = np.frexp(amax)[1]
    sigma: F64 = np.ldexp(ms, e + (8 - e) % 16)
    return sigma


def _sums(p: F64, amax: F64, ms: float, work: F64 | None = None, top: float | None = None) -> tuple[F64, F64]:
    """AccSum of each row of ``p`` (m, n): ``(hi, lo)``, ``hi`` faithful, ``lo`` ~ sum - hi.

    Needs ``max|p| < 2**960`` (the caller scales huge rows). ``p`` is not written;
    ``work`` (m, n), optional, is.
    """
    phi, big_phi = ms * _U, ms * ms * _U
    top = float(np.maximum.reduce(amax)) if top is None else top
    bot = float(np.minimum.reduce(amax))
    e_top, e_bot = math.frexp(top)[1], math.frexp(bot)[1]
    if e_top + (8 - e_top) % 16 == e_bot + (8 - e_bot) % 16:  # one sigma for all rows
        sigma: float | F64 = math.ldexp(ms, e_top + (8 - e_top) % 16)
        s: float | F64 = sigma
    else:
        sigma = _first_sigma(amax, ms)
        s = sigma[:, None]
    rest = np.add(p, s, out=work)  # ExtractVector, in one buffer: rest = q, then rest = p - q
    rest -= s
    tau = _exact_row_sums(rest, sigma)
    np.subtract(p, rest, out=rest)
    alpha = np.add.reduce(rest, axis=1)  # rounded: the pairwise order, fixed per row
    hi = tau + alpha  # t = 0 before this first extraction, so tau1 = tau, tau2 = 0
    lo = tau - hi  # R = tau2 - (hi - tau1), exact
    lo += alpha  # lo = R + sum(p)
    if isinstance(sigma, float) and bot > 0 and np.minimum.reduce(np.abs(tau)) >= big_phi * sigma:
        return hi, lo  # every row stops after one extraction (the usual case)
    more = np.flatnonzero((np.abs(tau) < big_phi * sigma) & (sigma > _REALMIN) & (amax > 0))
    if more.size:  # cancellation: extract again, only for these rows
        rem = rest[more]
        t, sg = tau[more], (np.full(more.size, sigma) if isinstance(sigma, float) else sigma[more])
        while more.size:
            sg = phi * sg
            restart = np.flatnonzero(t == 0)  # Rump's shortcut: the sum so far is 0, start afresh
            if restart.size:
                top_r = np.max(np.abs(rem[restart]), axis=1)
                sg[restart] = ms * _pow2_above(top_r)
                if not top_r.all():  # nothing left: the exact sum is 0
                    keep = np.ones(more.size, dtype=bool)
                    keep[restart[top_r == 0]] = False
                    hi[more[~keep]] = lo[more[~keep]] = 0.0
                    more, rem, t, sg = more[keep], rem[keep], t[keep], sg[keep]
                    if not more.size:
                        break
            q = (rem + sg[:, None]) - sg[:, None]
            tau = np.add.reduce(q, axis=1)  # exact
            rem -= q
            tau1 = t + tau
            stop = (np.abs(tau1) >= big_phi * sg) | (sg <= _REALMIN)
            if stop.any():
                tau2 = tau[stop] - (tau1[stop] - t[stop])  # FastTwoSum(t, tau), exact here
                a = np.add.reduce(rem[stop], axis=1)
                res = tau1[stop] + (tau2 + a)
                hi[more[stop]] = res
                lo[more[stop]] = (tau2 - (res - tau1[stop])) + a
                keep = ~stop
                more, rem, tau1, sg = more[keep], rem[keep], tau1[keep], sg[keep]
            t = tau1
    return hi, lo


def _exact_sum(row: NDArray[np.float64]) -> Fraction:
    """The exact sum of a row of floats, as a Fraction (integer arithmetic, no rounding)."""
    total = 0
    for v in row.tolist():
        num, den = float(v).as_integer_ratio()
        total += num * (2**1074 // den)  # den is a power of two <= 2**1074
    return Fraction(total, 2**1074)


def _exact_mean_parts(row: NDArray[np.float64], d: int, lo_b: float, hi_b: float) -> tuple[float, float]:
    """``(mu, r)`` of one row in exact rational arithmetic (the rare fallback)."""
    mean = _exact_sum(row) / d
    mu = min(max(float(mean), lo_b), hi_b)
    return mu, float(mean - Fraction(mu))


def row_means(
    parts: F64,
    d: int,
    xmin: F64,
    xmax: F64,
    amax: F64,
    work: F64 | None = None,
    bound: F64 | None = None,
    top: float | None = None,
) -> tuple[F64, F64 | None]:
    """Mean of each row and its remainder: ``(mu (m,), r (m,))`` in float64.

    Parameters
    ----------
    parts : (m, n) float64, finite
        Numbers whose row sums are ``d`` times the wanted means (``n == d``, or ``2 d`` for
        64-bit integers split into exact high and low halves).
    d : int
        The divisor.
    xmin, xmax : (m,) float64
        Row minimum and maximum of the numbers averaged: ``mu`` is clamped into them, so a
        constant row gets exactly its value.
    amax : (m,) float64
        An upper bound of ``max|parts|`` per row.
    work : (m, n) float64, optional
        Work space (overwritten).
    bound : (m,) float64, optional
        If every row provably has ``|r| <= bound`` (from ``|r| <= 3 u |sum| / d``, the
        sum being faithful), ``r`` is not computed and ``None`` is returned for it.
    top : float, optional
        ``max(amax)``, if the caller has it.

    Returns
    -------
    mu : (m,) float64
        Within 3 ulp of the exact mean (a faithful sum, divided by ``d``, clamped).
    r : (m,) float64 or None
        ``exact mean - mu`` to float64 rounding (or None, see ``bound``).
    """
    m, n = parts.shape
    ms = _ms(n)
    if top is None:
        top = float(np.maximum.reduce(amax))
    if top < _HUGE and d < 2**53:  # the usual case
        hi, lo = _sums(parts, amax, ms, work, top)
        mu = hi / d
        np.maximum(mu, xmin, out=mu)
        np.minimum(mu, xmax, out=mu)
        if bound is not None and np.logical_and.reduce(np.abs(hi) * (3 * _U / d) + 2.0**-1000 <= bound):
            return mu, None
        return mu, _remainder(mu, hi, lo, d)
    huge = amax >= _HUGE
    slow = np.zeros(m, dtype=bool)
    if d >= 2**53:
        slow[:] = True  # d itself is not exact in float64
    hrows = np.flatnonzero(huge)
    sub = np.abs(parts[hrows])
    slow[hrows] |= np.any((sub < _TINY) & (sub > 0), axis=1)
    mu = np.empty(m)
    r = np.empty(m)
    for rows, scale in ((np.flatnonzero(~huge & ~slow), 0), (np.flatnonzero(huge & ~slow), -_SCALE)):
        if rows.size:  # scaled: every value is at least 2**-958 or 0, so x * 2**-64 is exact
            hi, lo = _sums(np.ldexp(parts[rows], scale), np.ldexp(amax[rows], scale), ms)
            mu_s = hi / d
            mu_s = np.minimum(np.maximum(mu_s, np.ldexp(xmin[rows], scale)), np.ldexp(xmax[rows], scale))
            mu[rows], r[rows] = np.ldexp(mu_s, -scale), np.ldexp(_remainder(mu_s, hi, lo, d), -scale)
    for i in np.flatnonzero(slow).tolist():
        mu[i], r[i] = _exact_mean_parts(parts[i], d, float(xmin[i]), float(xmax[i]))
    return mu, r


def _remainder(mu: F64, hi: F64, lo: F64, d: int) -> F64:
    """``r = (hi + lo - d * mu) / d``, with ``hi - d * mu`` formed exactly.

    ``d * mu`` is ``d * mh + d * ml`` (Veltkamp's split of mu into 26-bit halves; Dekker's
    product when d has more than 26 bits), and ``hi - d * mu`` is representable because
    ``mu`` is ``hi / d`` rounded (or clamped next to it).
    """
    c = mu * _SPLIT
    mh = c - (c - mu)
    ml = mu - mh
    if d < 2**26:  # d * mh and d * ml are exact (at most 53 bits each)
        rho = (hi - d * mh) - d * ml
    else:  # Dekker's TwoProduct with d split too
        dh = float(d) * _SPLIT
        dh = dh - (dh - d)
        dl = d - dh
        prod = d * mu
        err = ((dh * mh - prod) + dh * ml + dl * mh) + dl * ml
        rho = (hi - prod) - err
    r: F64 = (rho + lo) / d
    return r
