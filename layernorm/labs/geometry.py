"""What LayerNorm forgets (invariances) and where it sends vectors (geometry).

Invariances, for ``gamma = 1, beta = 0`` and a row ``x`` of ``d`` features with mean ``mu`` and
variance ``var``::

    LN(c * x + b) = sign(c) * (x - mu) / sqrt(var + eps / c**2)     for c != 0

so adding a constant ``b`` never changes the output, scaling by ``c > 0`` changes it only through
``eps / c**2`` (not at all when ``eps = 0``), and ``c < 0`` flips its sign. RMSNorm divides by the
root mean square without centring, so adding ``b`` moves its output.

Geometry: ``x_hat`` has mean 0, so it lies on the plane orthogonal to ``(1, ..., 1)``, and
``||x_hat||**2 = d * var / (var + eps)``, so it lies on (for ``eps = 0``) or just inside the sphere
of radius ``sqrt(d)``. For ``d = 3`` plane and sphere meet in a circle; for ``d = 2`` in the two
points ``+-(1, -1)``. ``y = gamma * x_hat + beta`` stretches each axis by ``gamma_i`` and moves
the centre to ``beta``.

Every normalized value here comes from :func:`layernorm.layer_norm` and :func:`layernorm.rms_norm`;
the meshes are only for drawing. Shapes: ``d`` features, ``k`` values of ``c``, ``n`` points.
Source: Ba, Kiros & Hinton (2016), "Layer Normalization", section 5.1 (invariance under re-scaling
and re-centering of a single case); Zhang & Sennrich (2019) for RMSNorm.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from layernorm._checks import F64, ResultRangeError, as_float64, check_eps, finite_results
from layernorm.core import DEFAULT_EPS, layer_norm, std
from layernorm.family import rms_norm
from layernorm.steps import layer_norm_steps_unchecked

ROUNDING = 2.0**-52  # float64's relative spacing just above 1
CLOUD_SPREAD = 1.5  # standard deviation of the random constant added to each cloud point


def _vector(x: ArrayLike, what: str) -> F64:
    x64 = as_float64(x)
    if x64.ndim != 1 or x64.size == 0:
        raise ValueError(f"{what} needs one vector x of shape (d,), got shape {x64.shape}")
    if not np.all(np.isfinite(x64)):
        raise ValueError("x contains NaN or infinity; normalization needs finite numbers")
    return x64


def _moved(x: F64, c: F64, shift: float) -> F64:
    """``c * x + shift`` for each ``c`` (rows), refusing values beyond float64's range."""
    with np.errstate(over="ignore", invalid="ignore"):
        moved: F64 = c[:, None] * x[None, :] + shift  # (k, d)
    if not np.all(np.isfinite(moved)):
        bad = c[~np.all(np.isfinite(moved), axis=1)]
        raise ResultRangeError(
            f"c * x + b overflows float64 (|value| above about 1.8e308) for c = {float(bad[0]):g}; "
            "use a smaller c or smaller numbers in x"
        )
    return moved


@dataclass(frozen=True)
class InvarianceCheck:
    """One transform ``x -> c * x + b`` and what LayerNorm and RMSNorm make of it.

    Attributes
    ----------
    c, shift : float
        The scale and the constant added (units of ``x``).
    eps : float
        Inside the square root, for both normalizations.
    x, moved : (d,) ndarray of float64
        The input and ``c * x + shift``.
    ln_x, ln_moved : (d,) ndarray
        LayerNorm with ``gamma = 1, beta = 0`` (that is ``x_hat``) of each.
    rms_x, rms_moved : (d,) ndarray
        RMSNorm (``gamma = 1``) of each.
    y_x, y_moved : (d,) ndarray
        LayerNorm with the given ``gamma`` and ``beta``.
    ln_gap, rms_gap, y_gap : float
        ``max |after - before|`` of each pair (dimensionless; ``y_gap`` in units of ``beta``).
    ln_flip_gap : float
        ``max |ln_moved + ln_x|``: 0 when the output only flipped sign (``c < 0``).
    effective_eps : float
        ``eps / c**2``: the eps the original ``x`` effectively sees (``inf`` when ``c = 0``, or
        when ``c`` is so small that ``eps / c**2`` passes float64's largest value, 1.8e308).
    """

    c: float
    shift: float
    eps: float
    x: F64
    moved: F64
    ln_x: F64
    ln_moved: F64
    rms_x: F64
    rms_moved: F64
    y_x: F64
    y_moved: F64
    ln_gap: float
    ln_flip_gap: float
    rms_gap: float
    y_gap: float
    effective_eps: float


@finite_results(allow=("effective_eps",))
def invariance_check(
    x: ArrayLike,
    c: float,
    shift: float,
    gamma: ArrayLike | None = None,
    beta: ArrayLike | None = None,
    *,
    eps: float = DEFAULT_EPS,
) -> InvarianceCheck:
    """LayerNorm and RMSNorm of ``x`` and of ``c * x + shift``, side by side.

    Parameters
    ----------
    x : (d,) array_like
        One vector of features.
    c : float
        Scale; any finite number (negative flips, 0 makes a constant vector).
    shift : float
        Constant added to every feature after scaling (units of ``x``).
    gamma, beta : (d,) array_like or scalar, optional
        LayerNorm's scale and shift for ``y_x`` and ``y_moved`` (ones and zeros by default).
    eps : float, default 1e-5
        Inside the square root of both normalizations.

    Returns
    -------
    InvarianceCheck

    Raises
    ------
    ValueError
        ``x`` not one finite vector, ``c``/``shift`` not finite, ``c * x + shift`` overflowing,
        ``eps`` negative, ``gamma``/``beta`` of the wrong shape.
    ZeroVarianceError
        ``eps = 0`` and ``x`` or ``c * x + shift`` constant (``c = 0``): 0/0.

    Notes
    -----
    ``LN(c x + b) = sign(c) (x - mu) / sqrt(var + eps / c**2)``. Source: Ba, Kiros & Hinton
    (2016), section 5.1; Zhang & Sennrich (2019), section 3 (RMSNorm keeps re-scaling, not
    re-centering, invariance).
    """
    eps = check_eps(eps)
    x64 = _vector(x, "invariance_check")
    cf, bf = float(c), float(shift)
    if not (np.isfinite(cf) and np.isfinite(bf)):
        raise ValueError(f"c and b must be finite numbers, got c = {c!r}, b = {shift!r}")
    moved = _moved(x64, np.array([cf]), bf)[0]
    both = np.stack([x64, moved])  # (2, d)
    ln = layer_norm(both, eps=eps)
    rms = rms_norm(both, eps=eps)
    y = layer_norm(both, gamma, beta, eps=eps)
    with np.errstate(divide="ignore", over="ignore"):
        # c**2 may under- or overflow: eps / c**2 is then inf (beyond any float64) or 0
        with np.errstate(over="ignore", under="ignore", divide="ignore"):
            effective = float(np.float64(eps) / np.square(np.float64(cf))) if eps and cf != 0 else math.inf
        effective = 0.0 if eps == 0 else effective
    return InvarianceCheck(
        c=cf,
        shift=bf,
        eps=eps,
        x=x64.copy(),
        moved=moved,
        ln_x=ln[0],
        ln_moved=ln[1],
        rms_x=rms[0],
        rms_moved=rms[1],
        y_x=y[0],
        y_moved=y[1],
        ln_gap=float(np.max(np.abs(ln[1] - ln[0]))),
        ln_flip_gap=float(np.max(np.abs(ln[1] + ln[0]))),
        rms_gap=float(np.max(np.abs(rms[1] - rms[0]))),
        y_gap=float(np.max(np.abs(y[1] - y[0]))),
        effective_eps=effective,
    )


@dataclass(frozen=True)
class InvarianceCurve:
    """How far LayerNorm and RMSNorm outputs move under ``x -> c * x + shift``, for many ``c``.

    Attributes
    ----------
    c : (k,) ndarray of float64
        The scales.
    shift : float
        The constant added (units of ``x``).
    eps : float
    ln_gap : (k,) ndarray
        ``max_i |LN(c x + b)_i - LN(x)_i|`` (gamma = 1, beta = 0), dimensionless.
    rms_gap : (k,) ndarray
        The same for RMSNorm.
    rounding : (k,) ndarray
        ``2**-52 * d * (|b| + |c| max|x|) / (|c| sigma)``: about as far as float64 rounding alone
        can move LayerNorm's output (``c * x + b`` keeps ``x``'s pattern only to the digits left
        beside ``b``). NaN where ``c * sigma`` is 0.
    """

    c: F64
    shift: float
    eps: float
    ln_gap: F64
    rms_gap: F64
    rounding: F64


@finite_results(allow=("rounding",))  # rounding is NaN, as documented, where c * sigma is 0
def invariance_curve(
    x: ArrayLike, c: ArrayLike, *, shift: float = 0.0, eps: float = DEFAULT_EPS
) -> InvarianceCurve:
    """The invariance gaps of LayerNorm and RMSNorm for every scale in ``c``.

    Parameters
    ----------
    x : (d,) array_like
        One vector of features.
    c : (k,) array_like
        Scales (any finite numbers; the lesson uses positive ones on a log grid).
    shift : float, default 0
        Constant added after scaling.
    eps : float, default 1e-5
        Inside the square root of both normalizations (0 allowed for non-constant inputs).

    Returns
    -------
    InvarianceCurve

    Raises
    ------
    ValueError
        ``x`` not one finite vector, ``c`` not a finite 1-D array, overflow of ``c * x + shift``,
        ``eps`` negative.
    ZeroVarianceError
        ``eps = 0`` and a constant row (``x`` constant, or ``c = 0``).

    Notes
    -----
    With ``eps = 0`` the LayerNorm gap is float64 rounding for every ``c > 0``; with ``eps > 0``
    it grows once ``c**2 * var`` comes near ``eps``. Source: Ba, Kiros & Hinton (2016), section 5.1.
    """
    eps = check_eps(eps)
    x64 = _vector(x, "invariance_curve")
    cs = as_float64(c, "c")
    if cs.ndim != 1 or not np.all(np.isfinite(cs)):
        raise ValueError(f"c must be a 1-D array of finite numbers, got shape {cs.shape}")
    bf = float(shift)
    if not np.isfinite(bf):
        raise ValueError(f"b must be a finite number, got {shift!r}")
    moved = _moved(x64, cs, bf)  # (k, d)
    ln_gap = np.max(np.abs(layer_norm(moved, eps=eps) - layer_norm(x64, eps=eps)), axis=1)
    rms_gap = np.max(np.abs(rms_norm(moved, eps=eps) - rms_norm(x64, eps=eps)), axis=1)
    pattern = np.abs(cs) * float(std(x64))  # the size of the pattern LayerNorm keeps
    carried = abs(bf) + np.abs(cs) * float(np.max(np.abs(x64)))  # the size of c * x + b
    with np.errstate(divide="ignore", invalid="ignore"):
        rounding = np.where(pattern > 0, ROUNDING * x64.size * carried / pattern, np.nan)
    return InvarianceCurve(c=cs.copy(), shift=bf, eps=eps, ln_gap=ln_gap, rms_gap=rms_gap, rounding=rounding)


@finite_results()
def x_hat_norm_squared(x: ArrayLike, *, eps: float = DEFAULT_EPS) -> tuple[F64, F64]:
    """``||x_hat||**2`` over the last axis, measured and as the identity predicts.

    Parameters
    ----------
    x : (..., d) array_like
    eps : float, default 1e-5

    Returns
    -------
    measured : (...) ndarray of float64
        ``sum_i x_hat_i**2`` of the core's ``x_hat``.
    expected : (...) ndarray of float64
        ``d * var / (var + eps)``: ``d`` when ``eps = 0``, just under it otherwise.

    Raises
    ------
    ValueError, ZeroVarianceError
        As :func:`layernorm.layer_norm_steps`.

    Notes
    -----
    Since ``mean(x_hat) = 0``, ``||x_hat||**2 = d * variance(x_hat) = d * var / (var + eps)``:
    every normalized vector lies on (or, with eps, just inside) the sphere of radius ``sqrt(d)``.
    Source: Ba, Kiros & Hinton (2016), eq. 4.
    """
    steps = layer_norm_steps_unchecked(x, eps=eps)
    measured: F64 = np.sum(np.square(steps.x_hat), axis=-1)
    expected: F64 = steps.d * steps.x_hat_var_expected
    return measured, expected


@dataclass(frozen=True)
class NormalizedCloud:
    """A seeded cloud of random inputs and where LayerNorm sends each point.

    Attributes
    ----------
    inputs : (n, d) ndarray of float64
        ``z + m * (1, ..., 1)`` with ``z`` standard normal and ``m`` normal with standard
        deviation :data:`CLOUD_SPREAD`: a blob stretched along the diagonal LayerNorm forgets.
    x_hat : (n, d) ndarray
        LayerNorm of each row with ``gamma = 1, beta = 0``.
    y : (n, d) ndarray
        ``gamma * x_hat + beta``.
    norm_squared : (n,) ndarray
        ``||x_hat||**2`` of each point (``d`` up to eps).
    radius : float
        ``sqrt(d)``, the sphere's radius.
    gamma, beta : (d,) ndarray
    eps : float
    """

    inputs: F64
    x_hat: F64
    y: F64
    norm_squared: F64
    radius: float
    gamma: F64
    beta: F64
    eps: float

    @property
    def norm_squared_range(self) -> tuple[float, float]:
        """Smallest and largest ``||x_hat||**2`` over the cloud (both ``d`` when eps = 0)."""
        return float(np.min(self.norm_squared)), float(np.max(self.norm_squared))


@finite_results()
def normalized_cloud(
    d: int,
    n: int = 300,
    *,
    seed: int = 0,
    gamma: ArrayLike | None = None,
    beta: ArrayLike | None = None,
    eps: float = DEFAULT_EPS,
) -> NormalizedCloud:
    """``n`` random inputs of ``d`` features, normalized by the core's :func:`layer_norm`.

    Parameters
    ----------
    d : int
        Features per point, at least 2 (the pages draw 2 and 3).
    n : int, default 300
        Number of points, 1 to 100 000.
    seed : int, default 0
        Seed of NumPy's ``default_rng``: the same cloud on every run.
    gamma, beta : (d,) array_like or scalar, optional
        Scale and shift (ones and zeros by default).
    eps : float, default 1e-5

    Returns
    -------
    NormalizedCloud

    Raises
    ------
    ValueError
        ``d < 2``, ``n`` outside 1..100 000, ``gamma``/``beta`` of the wrong shape, ``eps`` < 0.

    Notes
    -----
    Source: this project (teaching simulation).
    """
    eps = check_eps(eps)
    if int(d) < 2:
        raise ValueError(f"a cloud needs d >= 2 features per point, got d = {d}")
    if not 1 <= int(n) <= 100_000:
        raise ValueError(f"n must be between 1 and 100000 points, got {n}")
    rng = np.random.default_rng(seed)
    z = rng.standard_normal((int(n), int(d)))
    m = CLOUD_SPREAD * rng.standard_normal((int(n), 1))
    inputs = z + m  # (n, d)
    steps = layer_norm_steps_unchecked(inputs, gamma, beta, eps=eps)
    measured, _ = x_hat_norm_squared(inputs, eps=eps)
    return NormalizedCloud(
        inputs=inputs,
        x_hat=np.array(steps.x_hat),
        y=np.array(steps.y),
        norm_squared=measured,
        radius=float(np.sqrt(int(d))),
        gamma=np.array(steps.gamma),
        beta=np.array(steps.beta),
        eps=eps,
    )
