"""Named, seeded example vectors for the lesson.

Every preset is deterministic for a given ``(name, d, seed)``, so a chart made
from it is the same on every rerun and on every machine.
"""

from __future__ import annotations

import numpy as np

from layernorm._checks import F64

MAX_D = 4096
# Captions speak of the draws, not of the distribution: a few draws (d = 2) can have any mean and spread.
PRESETS: dict[str, str] = {
    "standard normal": (
        "Random draws from a normal distribution with mean 0 and standard deviation 1; "
        "the d values drawn have their own μ and σ."
    ),
    "shifted (mean 2.5)": "The standard normal draws moved up by 2.5: μ is their own mean plus 2.5.",
    "scaled (σ = 10)": "The standard normal draws stretched ten times: σ is ten times their own.",
    "one large outlier": (
        "The standard normal draws with one feature set to 40, far above the rest "
        "(real transformer activations have outlier features too)."
    ),
    "constant": "Every feature equals 3: the variance is 0 and only ε keeps the division finite.",
    "one-hot [1, 0, 0, 0]": "A single 1 and zeros elsewhere (d = 4 gives [1, 0, 0, 0]).",
}


def make_preset(name: str, d: int, seed: int = 0) -> F64:
    """Build the preset vector ``name`` with ``d`` features.

    Parameters
    ----------
    name : str
        A key of :data:`PRESETS`.
    d : int
        Number of features, 1 to 4096.
    seed : int, default 0
        Seed of NumPy's ``default_rng`` for the random presets.

    Returns
    -------
    x : (d,) ndarray of float64

    Raises
    ------
    ValueError
        Unknown ``name``, or ``d`` outside 1 to 4096.

    Notes
    -----
    Source: this project (teaching examples).
    """
    if name not in PRESETS:
        raise ValueError(f"unknown preset {name!r}; choose one of {list(PRESETS)}")
    if not 1 <= int(d) <= MAX_D:
        raise ValueError(f"d must be between 1 and {MAX_D}, got {d}")
    d = int(d)
    z = np.random.default_rng(seed).standard_normal(d)
    if name == "standard normal":
        return z
    if name == "shifted (mean 2.5)":
        return z + 2.5
    if name == "scaled (σ = 10)":
        return 10.0 * z
    if name == "one large outlier":
        z[d // 3] = 40.0
        return z
    if name == "constant":
        return np.full(d, 3.0)
    one_hot = np.zeros(d)
    one_hot[0] = 1.0
    return one_hot


def make_near_constant(d: int, mean: float, spread: float, seed: int = 0) -> F64:
    """A nearly constant vector: ``mean + spread * make_preset("standard normal", d, seed)``.

    The case where ε decides the result: its variance is about ``spread**2``, so once that falls
    well below ε, LayerNorm divides by about √ε instead of σ.

    Parameters
    ----------
    d : int
        Number of features, 1 to 4096.
    mean : float
        The value every feature is close to (units of x).
    spread : float
        Standard deviation of the random part (units of x); 0 gives a constant vector.
    seed : int, default 0
        Seed of the standard normal part (as :func:`make_preset`).

    Returns
    -------
    x : (d,) ndarray of float64
        Its standard deviation is ``|spread|`` times that of the ``d`` standard normal draws
        (near ``|spread|`` for a large ``d``).

    Raises
    ------
    ValueError
        ``d`` outside 1 to 4096.

    Notes
    -----
    Source: this project (teaching example for ε).
    """
    return float(mean) + float(spread) * make_preset("standard normal", d, seed=seed)
