"""The gradients lesson's LayerNorm maths: its Jacobian, the facts it teaches (rows summing to 0,
x̂ in its null space), the three terms of the backward pass, and how the Jacobian's size follows ε.

The plain backward passes are :mod:`layernorm.backward`; these build on them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from layernorm._checks import F64, as_float64, check_eps, finite_results
from layernorm.backward import layer_norm_backward_from_steps, upstream
from layernorm.core import DEFAULT_EPS
from layernorm.steps import layer_norm_steps_unchecked


@finite_results()
def layer_norm_jacobian(x: ArrayLike, gamma: ArrayLike | None = None, *, eps: float = DEFAULT_EPS) -> F64:
    """The Jacobian ``J[i, j] = dy_i / dx_j`` of LayerNorm at one vector ``x``.

    Parameters
    ----------
    x : (d,) array_like
        One vector of features.
    gamma : (d,) array_like or scalar, optional
        Scale (ones by default); ``beta`` does not change the Jacobian.
    eps : float, default 1e-5
        Inside the square root.

    Returns
    -------
    J : (d, d) ndarray of float64
        Row ``i`` is the gradient of ``y_i``; uses ``d**2`` numbers of memory.

    Raises
    ------
    ValueError
        ``x`` not one finite vector, ``gamma`` of the wrong shape, ``eps`` negative.
    ZeroVarianceError
        ``x`` constant and ``eps == 0``.

    Notes
    -----
    Built from the backward pass itself: row ``i`` is :func:`layer_norm_backward` applied to the
    unit upstream gradient ``e_i``, so ``J.T @ g`` equals ``layer_norm_backward(x, gamma, g)[0]``.
    In closed form ``J = diag(gamma) (I - 1 1^T / d - x_hat x_hat^T / d) / sqrt(var + eps)``.
    Source: Ba, Kiros & Hinton (2016), "Layer Normalization", arXiv:1607.06450 (the backward
    algebra of Ioffe & Szegedy 2015, over features).
    """
    x64 = as_float64(x)
    if x64.ndim != 1 or x64.size == 0:
        raise ValueError(f"layer_norm_jacobian needs one vector x of shape (d,), got shape {x64.shape}")
    d = x64.size
    steps = layer_norm_steps_unchecked(
        np.broadcast_to(x64, (d, d)), gamma, eps=eps
    )  # the same x in every row
    jac, _, _ = layer_norm_backward_from_steps(steps, np.eye(d))  # row i: upstream gradient e_i
    return jac


@dataclass(frozen=True)
class LayerNormJacobian:
    """LayerNorm's Jacobian at one vector and the identities it obeys, as numbers to show.

    Attributes
    ----------
    jacobian : (d, d) ndarray of float64
        ``J[i, j] = dy_i / dx_j``.
    x_hat : (d,) ndarray
    gamma : (d,) ndarray
    std : float
        ``sqrt(var + eps)``, units of ``x``.
    eps : float
    row_sums : (d,) ndarray
        ``J @ 1``: 0 in exact arithmetic for any gamma and eps (adding a constant to x changes nothing).
    col_sums : (d,) ndarray
        ``1^T J``: 0 in exact arithmetic when gamma is the same for every feature.
    asymmetry : float
        ``max |J - J^T|``: 0 in exact arithmetic when gamma is the same for every feature.
    j_x_hat : (d,) ndarray
        ``J @ x_hat``, the response to scaling x about its mean.
    j_x_hat_expected : (d,) ndarray
        ``gamma * x_hat * eps / (var + eps)**1.5``: 0 when eps = 0 (scale invariance), not otherwise.
    spectral_norm : float
        Largest singular value of ``J``: ``|gamma| / sqrt(var + eps)`` for a shared gamma and d >= 3.
    """

    jacobian: F64
    x_hat: F64
    gamma: F64
    std: float
    eps: float
    row_sums: F64
    col_sums: F64
    asymmetry: float
    j_x_hat: F64
    j_x_hat_expected: F64
    spectral_norm: float

    @property
    def max_abs_row_sum(self) -> float:
        """``max_i |sum_j J[i, j]|``: how far the rows are from summing to 0."""
        return float(np.max(np.abs(self.row_sums)))

    @property
    def max_abs_col_sum(self) -> float:
        """``max_j |sum_i J[i, j]|``: how far the columns are from summing to 0."""
        return float(np.max(np.abs(self.col_sums)))

    @property
    def max_abs_entry(self) -> float:
        """``max |J[i, j]|``: the size of the numbers every sum above is built from."""
        return float(np.max(np.abs(self.jacobian)))

    @property
    def rounding_scale(self) -> float:
        """``max |gamma| / std``: the size of the terms that cancel inside ``J`` (its entries can be
        far smaller, e.g. ``eps / std**3`` for d = 2), so the size of ``J``'s float64 rounding."""
        return float(np.max(np.abs(self.gamma))) / self.std

    @property
    def eps_share(self) -> float:
        """``eps / std**2 = eps / (var + eps)``, between 0 and 1: ``1 - ||x_hat||^2 / d``.

        Near 0 while eps << var; 1 for a constant vector. For d = 2 ``J`` is exactly
        ``diag(gamma) * (eps / std**3) * (I - 1 1^T / 2)``: this share of ``diag(gamma) / std``.
        """
        return self.eps / self.std / self.std

    @property
    def eps_over_std3(self) -> float:
        """``eps / std**3``: for d = 2, ``J = diag(gamma) * eps_over_std3 * (I - 1 1^T / 2)``."""
        return self.eps_share / self.std

    @property
    def j_x_hat_gap(self) -> float:
        """``max |J x_hat - j_x_hat_expected|``: 0 to rounding (the identity holds for every eps)."""
        return float(np.max(np.abs(self.j_x_hat - self.j_x_hat_expected)))


@finite_results()
def layer_norm_jacobian_facts(
    x: ArrayLike, gamma: ArrayLike | None = None, *, eps: float = DEFAULT_EPS
) -> LayerNormJacobian:
    """:func:`layer_norm_jacobian` with its row and column sums, symmetry and ``J x_hat``.

    Parameters
    ----------
    x : (d,) array_like
    gamma : (d,) array_like or scalar, optional
    eps : float, default 1e-5

    Returns
    -------
    LayerNormJacobian

    Raises
    ------
    ValueError, ZeroVarianceError
        As :func:`layer_norm_jacobian`.

    Notes
    -----
    ``J x_hat = gamma * x_hat * (1 - ||x_hat||^2 / d) / std`` and ``1 - ||x_hat||^2 / d = eps / std^2``.
    Source: Ba, Kiros & Hinton (2016); this project (the identities, derived from the closed form).
    """
    jac = layer_norm_jacobian(x, gamma, eps=eps)
    steps = layer_norm_steps_unchecked(as_float64(x), gamma, eps=eps)
    std = float(steps.std)
    x_hat, gam = np.array(steps.x_hat), np.array(steps.gamma)
    return LayerNormJacobian(
        jacobian=jac,
        x_hat=x_hat,
        gamma=gam,
        std=std,
        eps=steps.eps,
        row_sums=np.sum(jac, axis=1),
        col_sums=np.sum(jac, axis=0),
        asymmetry=float(np.max(np.abs(jac - jac.T))),
        j_x_hat=jac @ x_hat,
        j_x_hat_expected=gam * x_hat * (steps.eps / std / std / std),  # never std**3: it may overflow
        spectral_norm=float(np.linalg.norm(jac, 2)),
    )


@dataclass(frozen=True)
class LayerNormBackwardTerms:
    """The three terms of LayerNorm's input gradient, ``dx = term_g + term_mean + term_proj``.

    For one vector with ``g = dy * gamma``::

        dx = g / std  -  mean(g) / std  -  x_hat * mean(g * x_hat) / std

    Attributes
    ----------
    g : (d,) ndarray of float64
        ``dy * gamma``, the upstream gradient seen by ``x_hat``.
    x_hat : (d,) ndarray
    std : float
        ``sqrt(var + eps)``, units of ``x``.
    eps : float
    mean_g : float
        ``mean(g)``.
    mean_g_x_hat : float
        ``mean(g * x_hat)``.
    term_g, term_mean, term_proj : (d,) ndarray
        ``g / std``, ``-mean(g) / std`` (every entry), ``-x_hat * mean(g * x_hat) / std``.
    dx : (d,) ndarray
        :func:`layer_norm_backward`'s ``dL/dx`` (the terms add up to it to rounding).
    dx_sum : float
        ``sum(dx)``: 0 in exact arithmetic, for any gamma and eps.
    dx_dot_x_hat : float
        ``dx . x_hat``.
    dx_dot_x_hat_expected : float
        ``(g . x_hat) * eps / std**3``: what ``dx . x_hat`` is in exact arithmetic (0 only when eps = 0).
    """

    g: F64
    x_hat: F64
    std: float
    eps: float
    mean_g: float
    mean_g_x_hat: float
    term_g: F64
    term_mean: F64
    term_proj: F64
    dx: F64
    dx_sum: float
    dx_dot_x_hat: float
    dx_dot_x_hat_expected: float

    @property
    def magnitude(self) -> float:
        """Largest ``|term|`` times ``max(1, max |x_hat|)``: the size of what ``dx_sum`` and
        ``dx_dot_x_hat`` add up, so the size of their float64 rounding."""
        terms = np.concatenate([self.term_g, self.term_mean, self.term_proj, self.dx])
        return float(np.max(np.abs(terms)) * max(1.0, float(np.max(np.abs(self.x_hat)))))

    @property
    def dx_dot_x_hat_gap(self) -> float:
        """``|dx_dot_x_hat - dx_dot_x_hat_expected|``: 0 in exact arithmetic, float64 rounding only."""
        return abs(self.dx_dot_x_hat - self.dx_dot_x_hat_expected)

    @property
    def eps_share(self) -> float:
        """``eps / std**2 = eps / (var + eps)``: the share of a push along ``x_hat`` that ``dx`` keeps.

        The component of ``dx`` along ``x_hat`` is this share of the component of ``(g - mean(g)) / std``
        along it (the projection term removes the rest): near 0 while eps << var, 1 when x is constant.
        """
        return self.eps / self.std / self.std


@finite_results()
def layer_norm_backward_terms(
    x: ArrayLike, gamma: ArrayLike | None, dy: ArrayLike, *, eps: float = DEFAULT_EPS
) -> LayerNormBackwardTerms:
    """Split LayerNorm's input gradient at one vector into its three terms.

    Parameters
    ----------
    x : (d,) array_like
        The forward input.
    gamma : (d,) array_like or scalar or None
        Scale (None: ones).
    dy : (d,) array_like
        Upstream gradient ``dL/dy``.
    eps : float, default 1e-5

    Returns
    -------
    LayerNormBackwardTerms

    Raises
    ------
    ValueError
        ``x`` not one finite vector, ``dy`` of another shape or not finite, ``gamma`` of the wrong
        shape, ``eps`` negative.
    ZeroVarianceError
        ``x`` constant and ``eps == 0``.

    Notes
    -----
    The mean term removes the part of ``g`` that would shift every feature alike; the projection
    term removes the part along ``x_hat`` that would only rescale it (exactly so when eps = 0).
    Source: Ba, Kiros & Hinton (2016), arXiv:1607.06450; Ioffe & Szegedy (2015), section 3.
    """
    x64 = as_float64(x)
    if x64.ndim != 1 or x64.size == 0:
        raise ValueError(f"layer_norm_backward_terms needs one vector x of shape (d,), got {x64.shape}")
    steps = layer_norm_steps_unchecked(x64, gamma, eps=eps)
    dy64 = upstream(dy, x64.shape)
    dx, _, _ = layer_norm_backward_from_steps(steps, dy64)
    std = float(steps.std)
    x_hat = np.array(steps.x_hat)
    g = dy64 * steps.gamma
    mean_g = float(np.mean(g))
    mean_g_x_hat = float(np.mean(g * x_hat))
    return LayerNormBackwardTerms(
        g=g,
        x_hat=x_hat,
        std=std,
        eps=steps.eps,
        mean_g=mean_g,
        mean_g_x_hat=mean_g_x_hat,
        term_g=g / std,
        term_mean=np.full(x64.size, -mean_g / std),
        term_proj=-x_hat * (mean_g_x_hat / std),
        dx=dx,
        dx_sum=float(np.sum(dx)),
        dx_dot_x_hat=float(dx @ x_hat),
        dx_dot_x_hat_expected=float(g @ x_hat) * (steps.eps / std / std / std),
    )


@dataclass(frozen=True)
class JacobianNormCurve:
    """The spectral norm of LayerNorm's Jacobian (gamma = 1) at one vector, for many eps.

    Attributes
    ----------
    eps : (k,) ndarray of float64
    norm : (k,) ndarray
        Largest singular value of ``J`` at each eps (units 1/x): the most LayerNorm can stretch
        a small change of ``x``. ``1 / sqrt(var + eps)`` for d >= 3, ``eps / (var + eps)**1.5``
        for d = 2, 0 for d = 1.
    ceiling : (k,) ndarray
        ``1 / sqrt(eps)`` (``inf`` at eps = 0): ``norm`` never exceeds it, whatever ``x``.
    """

    eps: F64
    norm: F64
    ceiling: F64


@finite_results(allow=("ceiling",))  # ceiling is inf at eps = 0, as documented
def layer_norm_jacobian_norm_vs_eps(x: ArrayLike, eps: ArrayLike) -> JacobianNormCurve:
    """How much LayerNorm (gamma = 1) can amplify a small change of ``x``, for every ``eps`` given.

    Parameters
    ----------
    x : (d,) array_like
        One vector (d**2 memory and one SVD per eps: meant for d up to a few hundred).
    eps : (k,) array_like
        Values of eps, each >= 0.

    Returns
    -------
    JacobianNormCurve

    Raises
    ------
    ValueError
        ``x`` not one finite vector, ``eps`` not a 1-D array of finite numbers >= 0.
    ZeroVarianceError
        ``x`` constant and an ``eps`` of 0.

    Notes
    -----
    Without eps a near-constant vector (var -> 0) has a gradient of size ``1 / sigma``, which
    explodes; eps caps it at ``1 / sqrt(eps)``. Source: this project (spectral norm via
    ``numpy.linalg.norm(J, 2)`` of :func:`layer_norm_jacobian`).
    """
    eps_grid = as_float64(eps, "eps")
    if eps_grid.ndim != 1:
        raise ValueError(f"eps must be a 1-D array of values, got shape {eps_grid.shape}")
    norm = np.array([np.linalg.norm(layer_norm_jacobian(x, eps=check_eps(e)), 2) for e in eps_grid])
    with np.errstate(divide="ignore"):
        ceiling = 1.0 / np.sqrt(eps_grid)
    return JacobianNormCurve(eps=eps_grid.copy(), norm=norm, ceiling=ceiling)
