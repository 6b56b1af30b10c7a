"""Five normalizations of one (B, T, d) tensor that differ only in *which* values share a statistic.

Letters: ``B`` sequences in the batch, ``T`` tokens per sequence, ``d`` features per
token, ``G`` groups of features (GroupNorm). Drawn as a grid, the ``B * T`` tokens are
rows (row ``r = b * T + t``) and the ``d`` features are columns. Every lens's group of
values sharing one mean and one variance is then a rectangle of that grid:

=============  ==================================  ======================
lens           the cells sharing statistics         values per statistic
=============  ==================================  ======================
LayerNorm      one token: row ``r``, all features    ``d``
BatchNorm      one feature: column ``i``, all rows   ``B * T``
InstanceNorm   one sequence's feature ``i``          ``T``
GroupNorm      one sequence's group of features      ``T * d / G``
RMSNorm        as LayerNorm, but no mean removed     ``d`` (one statistic)
=============  ==================================  ======================

For InstanceNorm and GroupNorm the features are the channels and the tokens the
positions: ``x.transpose(0, 2, 1)`` has shape ``(N=B, C=d, L=T)``, as PyTorch's
``InstanceNorm1d``/``GroupNorm`` expect. The normalized values come from the core's
own :func:`~layernorm.layer_norm`, :func:`~layernorm.batch_norm_train`,
:func:`~layernorm.instance_norm`, :func:`~layernorm.group_norm` and
:func:`~layernorm.rms_norm` (no affine: gamma = 1, beta = 0).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from layernorm._checks import F64, as_float64, finite_results
from layernorm.batch import batch_norm_train
from layernorm.core import DEFAULT_EPS, layer_norm, mean, variance
from layernorm.family import group_norm, instance_norm, rms_norm

LENSES: tuple[str, ...] = ("LayerNorm", "BatchNorm", "InstanceNorm", "GroupNorm", "RMSNorm")
MAX_BATCH_VALUES = 2**23  # 8,388,608 values = 64 MiB in float64: the largest tensor the lab builds
Shape3 = tuple[int, int, int]
Cell = tuple[int, int, int]


def _check_shape(shape: Shape3) -> Shape3:
    b, t, d = (int(s) for s in shape)
    if min(b, t, d) < 1:
        raise ValueError(f"B, T and d must all be at least 1, got shape {(b, t, d)}")
    if b * t * d > MAX_BATCH_VALUES:
        raise ValueError(
            f"B·T·d = {b * t * d:,} values is more than the lab's limit of {MAX_BATCH_VALUES:,} "
            "(64 MiB in float64); make B, T or d smaller"
        )
    return b, t, d


def _check_cell(shape: Shape3, cell: Cell) -> Cell:
    b, t, i = (int(c) for c in cell)
    if not (0 <= b < shape[0] and 0 <= t < shape[1] and 0 <= i < shape[2]):
        raise ValueError(f"cell {(b, t, i)} is outside a tensor of shape {shape} (indices start at 0)")
    return b, t, i


def check_groups(d: int, groups: int) -> int:
    """Return ``groups`` after checking it divides ``d``.

    Parameters
    ----------
    d : int
        Number of features (GroupNorm's channels ``C``), at least 1.
    groups : int
        GroupNorm's number of groups ``G``.

    Returns
    -------
    int
        ``groups`` as an int; each group then holds ``d // groups`` features.

    Raises
    ------
    ValueError
        ``groups`` < 1 or not a whole divisor of ``d``; the message lists the divisors.

    Notes
    -----
    Source: Wu & He (2018), GroupNorm; PyTorch ``torch.nn.GroupNorm`` has the same rule
    (``num_channels`` divisible by ``num_groups``).
    """
    g = int(groups)
    if g < 1 or d % g:
        divisors = [k for k in range(1, d + 1) if d % k == 0]
        shown = divisors if len(divisors) <= 12 else [*divisors[:6], "…", *divisors[-3:]]
        raise ValueError(
            f"GroupNorm needs the {d} features split into equal groups: "
            f"G = {groups} does not divide d = {d}. "
            f"Try one of {', '.join(str(k) for k in shown)}."
        )
    return g


def random_batch(b: int, t: int, d: int, *, seed: int = 0) -> F64:
    """A seeded ``(B, T, d)`` batch whose features and tokens both differ.

    Each feature ``i`` has its own typical value ``m_i ~ N(0, 2²)`` and each token its
    own spread ``s_bt ~ U(0.5, 2)``: ``x[b, t, i] = m_i + s_bt * z``, ``z ~ N(0, 1)``.
    So BatchNorm (per feature) and LayerNorm (per token) remove different things.

    Parameters
    ----------
    b, t, d : int
        Sequences, tokens per sequence, features per token; ``B·T·d <= MAX_BATCH_VALUES``.
    seed : int, default 0
        Seed of ``numpy.random.default_rng``; the same seed gives the same batch.

    Returns
    -------
    x : (B, T, d) ndarray of float64
        Dimensionless activations.

    Raises
    ------
    ValueError
        A size below 1 or a tensor larger than :data:`MAX_BATCH_VALUES`.

    Notes
    -----
    Source: this project (teaching simulation).
    """
    b, t, d = _check_shape((b, t, d))
    rng = np.random.default_rng(seed)
    feature_mean = rng.normal(0.0, 2.0, size=d)  # (d,)
    token_scale = rng.uniform(0.5, 2.0, size=(b, t, 1))  # (B, T, 1)
    x = rng.standard_normal((b, t, d))
    x *= token_scale  # in place: the same bits as feature_mean + token_scale * z, without two temporaries
    x += feature_mean
    return x


@dataclass(frozen=True)
class LensGroup:
    """The rectangle of the (B·T rows) × (d columns) grid that shares one set of statistics.

    ``rows`` and ``cols`` are half-open ranges ``(start, stop)``; row ``r`` is token ``t``
    of sequence ``b`` with ``r = b * T + t``.

    Attributes
    ----------
    lens : str
        One of :data:`LENSES`.
    rows : (2,) tuple of int
        ``(start, stop)`` rows of the ``(B·T, d)`` grid, ``0 <= start < stop <= B·T``.
    cols : (2,) tuple of int
        ``(start, stop)`` feature columns, ``0 <= start < stop <= d``.
    description : str
        The group in words, e.g. ``"token 3 of sequence 0: its 8 features"``.

    Notes
    -----
    References: Ba, Kiros & Hinton (2016); Ioffe & Szegedy (2015); Ulyanov et al. (2016);
    Wu & He (2018); Zhang & Sennrich (2019).
    """

    lens: str
    rows: tuple[int, int]
    cols: tuple[int, int]
    description: str

    @property
    def n(self) -> int:
        """Number of values averaged into the group's statistics."""
        return (self.rows[1] - self.rows[0]) * (self.cols[1] - self.cols[0])


def lens_group(shape: Shape3, cell: Cell, lens: str, *, groups: int = 1) -> LensGroup:
    """Which cells share their mean and variance with ``cell`` under ``lens``.

    Parameters
    ----------
    shape : (B, T, d) tuple of int
        Sizes of the tensor, each at least 1, ``B·T·d <= MAX_BATCH_VALUES``.
    cell : (b, t, i) tuple of int
        Sequence, token and feature of the chosen value, from 0.
    lens : str
        One of :data:`LENSES`.
    groups : int, default 1
        GroupNorm's number of groups ``G`` (must divide ``d``); ignored by other lenses.

    Returns
    -------
    LensGroup
        The rectangle of the ``(B·T, d)`` grid holding ``cell``'s group.

    Raises
    ------
    ValueError
        Unknown lens, a size below 1 or a tensor larger than :data:`MAX_BATCH_VALUES`,
        a cell outside the tensor, or (GroupNorm) ``G`` not dividing ``d``.

    Notes
    -----
    References: Ba, Kiros & Hinton (2016); Ioffe & Szegedy (2015); Ulyanov et al. (2016);
    Wu & He (2018); Zhang & Sennrich (2019).
    """
    b_n, t_n, d = _check_shape(shape)
    b, t, i = _check_cell((b_n, t_n, d), cell)
    r = b * t_n + t
    seq = (b * t_n, (b + 1) * t_n)
    if lens in ("LayerNorm", "RMSNorm"):
        return LensGroup(lens, (r, r + 1), (0, d), f"token {t} of sequence {b}: its {d} features")
    if lens == "BatchNorm":
        return LensGroup(lens, (0, b_n * t_n), (i, i + 1), f"feature {i} in all {b_n}·{t_n} tokens")
    if lens == "InstanceNorm":
        return LensGroup(lens, seq, (i, i + 1), f"feature {i} in the {t_n} tokens of sequence {b}")
    if lens == "GroupNorm":
        g = check_groups(d, groups)
        width = d // g
        c0 = (i // width) * width
        text = f"features {c0}–{c0 + width - 1} (group {i // width + 1} of {g}) in sequence {b}"
        return LensGroup(lens, seq, (c0, c0 + width), text)
    raise ValueError(f"unknown lens {lens!r}; expected one of {LENSES}")


def lens_mask(shape: Shape3, cell: Cell, lens: str, *, groups: int = 1) -> NDArray[np.bool_]:
    """Boolean ``(B, T, d)`` mask of the cells in :func:`lens_group` (same arguments and errors).

    Parameters
    ----------
    shape, cell, lens, groups
        As :func:`lens_group`.

    Returns
    -------
    mask : (B, T, d) ndarray of bool
        True exactly for the cells that share ``cell``'s mean and variance.

    Raises
    ------
    ValueError
        As :func:`lens_group`: unknown lens, a size below 1 or a tensor larger than
        :data:`MAX_BATCH_VALUES`, a cell outside the tensor, or ``G`` not dividing ``d``.

    Notes
    -----
    References: Ba, Kiros & Hinton (2016); Ioffe & Szegedy (2015); Ulyanov et al. (2016);
    Wu & He (2018); Zhang & Sennrich (2019).
    """
    grp = lens_group(shape, cell, lens, groups=groups)
    b_n, t_n, d = shape
    grid = np.zeros((b_n * t_n, d), dtype=bool)
    grid[grp.rows[0] : grp.rows[1], grp.cols[0] : grp.cols[1]] = True
    return grid.reshape(b_n, t_n, d)


@dataclass(frozen=True)
class LensReading:
    """One lens applied to one cell: the group's statistics and the cell's normalized value.

    ``mu`` is None for RMSNorm (it does not centre) and ``var`` then holds the mean of
    squares ``mean(x²)``. ``problem`` is a sentence when the lens is undefined here
    (``x_hat`` is then None), e.g. BatchNorm training with one value per feature.

    Attributes
    ----------
    group : LensGroup or None
        The cells sharing the statistics; None when the group itself is undefined
        (``G`` not dividing ``d``).
    lens : str
        One of :data:`LENSES`.
    value : float
        The cell's input value ``x[b, t, i]``.
    mu : float or None
        Mean of the group (units of ``x``); None for RMSNorm or on a problem.
    var : float or None
        Population variance of the group (units of ``x`` squared), or RMSNorm's mean square.
    x_hat : float or None
        The cell's normalized value (dimensionless); None on a problem.
    problem : str or None, default None
        Why the lens is undefined on this input, in words.

    Notes
    -----
    References: Ba, Kiros & Hinton (2016); Ioffe & Szegedy (2015); Ulyanov et al. (2016);
    Wu & He (2018); Zhang & Sennrich (2019).
    """

    group: LensGroup | None
    lens: str
    value: float
    mu: float | None
    var: float | None
    x_hat: float | None
    problem: str | None = None


@finite_results()
def read_lens(
    x: ArrayLike, cell: Cell, lens: str, *, groups: int = 1, eps: float = DEFAULT_EPS
) -> LensReading:
    """The statistics of ``cell``'s group under ``lens`` and the cell's normalized value.

    Parameters
    ----------
    x : (B, T, d) array_like
    cell : (b, t, i) tuple of int
    lens : one of :data:`LENSES`
    groups : int, default 1
        GroupNorm's ``G``.
    eps : float, default 1e-5
        Inside the square root (units of ``x`` squared).

    Returns
    -------
    LensReading
        Never raises for a lens that is undefined on this input (a ``G`` that does not
        divide ``d``, BatchNorm with ``B·T = 1``): ``problem`` says why instead.

    Raises
    ------
    ValueError
        ``x`` not 3-D, a cell outside it, an unknown lens.

    Notes
    -----
    The normalized value is taken from the lens's core function run on the smallest
    slice that holds the group, so it is the tested code's number.
    References: Ba, Kiros & Hinton (2016); Ioffe & Szegedy (2015); Ulyanov et al. (2016);
    Wu & He (2018); Zhang & Sennrich (2019).
    """
    x64 = as_float64(x)
    if x64.ndim != 3:
        raise ValueError(f"x must have shape (B, T, d), got shape {x64.shape}")
    shape: Shape3 = (x64.shape[0], x64.shape[1], x64.shape[2])
    b, t, i = _check_cell(shape, cell)
    if lens not in LENSES:
        raise ValueError(f"unknown lens {lens!r}; expected one of {LENSES}")
    value = float(x64[b, t, i])
    try:
        grp = lens_group(shape, cell, lens, groups=groups)
    except ValueError as exc:
        return LensReading(None, lens, value, None, None, None, str(exc))
    vals = x64.reshape(-1, shape[2])[grp.rows[0] : grp.rows[1], grp.cols[0] : grp.cols[1]].ravel()
    try:
        if lens == "RMSNorm":
            ms = float(mean(np.square(vals)))
            return LensReading(grp, lens, value, None, ms, float(rms_norm(x64[b, t], eps=eps)[i]))
        if lens == "LayerNorm":
            x_hat = layer_norm(x64[b, t], eps=eps)[i]
        elif lens == "BatchNorm":
            column = x64[:, :, i].reshape(-1, 1)  # (B·T, 1): one channel, all tokens
            x_hat = batch_norm_train(column, None, None, 0.0, 1.0, eps=eps)[0][b * shape[1] + t, 0]
        elif lens == "InstanceNorm":
            x_hat = instance_norm(x64[b : b + 1, :, i : i + 1].transpose(0, 2, 1), eps=eps)[0, 0, t]
        else:
            x_hat = group_norm(x64[b : b + 1].transpose(0, 2, 1), groups, eps=eps)[0, i, t]
    except ValueError as exc:
        return LensReading(grp, lens, value, None, None, None, str(exc))
    return LensReading(grp, lens, value, float(mean(vals)), float(variance(vals)), float(x_hat))
