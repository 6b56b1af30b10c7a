"""Shapes the Invariances page draws: the sphere of radius √d that x̂ lies on, the plane (disc, circle,
line) of vectors summing to 0, in 3-D and 2-D. Plain meshes and polylines; the lesson's numbers are
in layernorm.labs.geometry. Source of every function: this project (drawing aids).
"""

from __future__ import annotations

import numpy as np

from layernorm._checks import F64, finite_results

# --- shapes to draw -----------------------------------------------------------------------------

_U = np.array([1.0, -1.0, 0.0]) / np.sqrt(2.0)  # orthonormal basis of the plane sum(x) = 0 in 3-D
_V = np.array([1.0, 1.0, -2.0]) / np.sqrt(6.0)


def _radius_and_count(radius: float, n: int) -> tuple[float, int]:
    """``radius`` and ``n`` as float and int; ValueError unless the radius is finite and >= 0 and n >= 3."""
    r = float(radius)
    if not np.isfinite(r) or r < 0 or int(n) < 3:
        raise ValueError(f"need a finite radius >= 0 and n >= 3, got radius {radius!r}, n {n!r}")
    return r, int(n)


@finite_results()
def sphere_mesh(radius: float, n: int = 25) -> tuple[F64, F64, F64]:
    """Points of the sphere of ``radius`` around 0 on an ``(n, n)`` latitude-longitude grid.

    Parameters
    ----------
    radius : float
        ``sqrt(d)`` for the sphere every ``x_hat`` lies on (units of ``x_hat``).
    n : int, default 25
        Grid lines each way (at least 3).

    Returns
    -------
    X, Y, Z : (n, n) ndarray of float64
        For a surface plot; every point has ``X**2 + Y**2 + Z**2 = radius**2``.

    Raises
    ------
    ValueError
        ``radius`` negative or not finite, ``n`` < 3.
    """
    r, n = _radius_and_count(radius, n)
    theta = np.linspace(0.0, np.pi, n)[:, None]  # polar angle
    phi = np.linspace(0.0, 2 * np.pi, n)[None, :]
    return r * np.sin(theta) * np.cos(phi), r * np.sin(theta) * np.sin(phi), r * np.cos(theta) + 0 * phi


@finite_results()
def sum_zero_disc_mesh(radius: float, n: int = 25) -> tuple[F64, F64, F64]:
    """A disc of the plane ``x1 + x2 + x3 = 0`` (orthogonal to (1, 1, 1)), centred at 0.

    Parameters
    ----------
    radius : float
        The disc's radius, measured in the plane (a little more than ``sqrt(3)`` frames the circle
        LayerNorm's outputs lie on).
    n : int, default 25
        Grid points along the radius and around (at least 3).

    Returns
    -------
    X, Y, Z : (n, n) ndarray of float64
        Every point has ``X + Y + Z = 0`` (to rounding) and lies within ``radius`` of 0.

    Raises
    ------
    ValueError
        ``radius`` negative or not finite, ``n`` < 3.
    """
    r, n = _radius_and_count(radius, n)
    rho = np.linspace(0.0, r, n)[:, None, None]
    t = np.linspace(0.0, 2 * np.pi, n)[None, :, None]
    pts = rho * (np.cos(t) * _U + np.sin(t) * _V)  # (n, n, 3)
    return pts[..., 0], pts[..., 1], pts[..., 2]


@finite_results()
def sum_zero_circle(radius: float, n: int = 121) -> F64:
    """The circle where the plane ``sum(x) = 0`` meets the sphere of ``radius`` in 3-D.

    Parameters
    ----------
    radius : float
        ``sqrt(3)`` for LayerNorm's outputs with ``eps = 0``.
    n : int, default 121
        Points along the circle (the first and last coincide, closing it).

    Returns
    -------
    (n, 3) ndarray of float64
        Each row sums to 0 and has norm ``radius``.

    Raises
    ------
    ValueError
        ``radius`` negative or not finite, ``n`` < 3.
    """
    r, n = _radius_and_count(radius, n)
    t = np.linspace(0.0, 2 * np.pi, n)[:, None]
    circle: F64 = r * (np.cos(t) * _U + np.sin(t) * _V)
    return circle


@finite_results()
def circle_2d(radius: float, n: int = 121) -> F64:
    """The circle of ``radius`` around 0 in the plane: the "sphere" of ``d = 2``.

    Parameters
    ----------
    radius : float
        ``sqrt(2)`` for LayerNorm's outputs with ``d = 2``.
    n : int, default 121
        Points (closed: the first and last coincide).

    Returns
    -------
    (n, 2) ndarray of float64

    Raises
    ------
    ValueError
        ``radius`` negative or not finite, ``n`` < 3.
    """
    r, n = _radius_and_count(radius, n)
    t = np.linspace(0.0, 2 * np.pi, n)
    return np.stack([r * np.cos(t), r * np.sin(t)], axis=1)


@finite_results()
def sum_zero_line(half_length: float) -> F64:
    """The segment of the line ``x1 + x2 = 0`` from ``(-h, h)`` to ``(h, -h)``: the "plane" of ``d = 2``.

    Parameters
    ----------
    half_length : float
        ``h``, the end points' coordinate (1 gives LayerNorm's two outputs ``+-(1, -1)``).

    Returns
    -------
    (2, 2) ndarray of float64

    Raises
    ------
    ValueError
        ``half_length`` not finite.
    """
    h = float(half_length)
    if not np.isfinite(h):
        raise ValueError(f"need a finite half_length, got {half_length!r}")
    return np.array([[-h, h], [h, -h]], dtype=np.float64)
