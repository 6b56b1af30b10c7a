"""How many statistics each lens of :mod:`layernorm.labs.lenses` computes for one (B, T, d) batch.

Counted from the shape alone, so any size can be counted, even one too large to build. The letters
are the lenses module's: ``B`` sequences, ``T`` tokens per sequence, ``d`` features, ``G`` groups.
"""

from __future__ import annotations

from dataclasses import dataclass

from layernorm.labs.lenses import Shape3


@dataclass(frozen=True)
class StatCount:
    """How many statistics a lens computes for one forward pass over a (B, T, d) batch.

    Attributes
    ----------
    lens : str
        One of :data:`~layernorm.labs.lenses.LENSES`.
    n_groups : int
        Number of groups, each with its own statistics (e.g. ``B·T`` for LayerNorm).
    values_per_group : int
        Values averaged into each statistic (e.g. ``d`` for LayerNorm).
    stats_per_group : int
        2 (mean and variance) or 1 (RMSNorm's mean square).
    per : str
        What one group is, in words (``"token"``, ``"feature"``, ...).

    Notes
    -----
    References: Ba, Kiros & Hinton (2016); Ioffe & Szegedy (2015); Ulyanov et al. (2016);
    Wu & He (2018); Zhang & Sennrich (2019).
    """

    lens: str
    n_groups: int
    values_per_group: int
    stats_per_group: int  # 2 (mean and variance) or 1 (RMSNorm's mean square)
    per: str

    @property
    def total(self) -> int:
        return self.n_groups * self.stats_per_group


def stat_counts(shape: Shape3, *, groups: int = 1) -> tuple[StatCount, ...]:
    """Number of statistics each lens computes for ``shape`` (GroupNorm left out if ``G`` ∤ ``d``).

    Parameters
    ----------
    shape : (B, T, d) tuple of int
        Sizes of the batch, each at least 1 (no upper limit: nothing is built).
    groups : int, default 1
        GroupNorm's ``G``; GroupNorm is left out of the result unless ``G >= 1`` divides ``d``.

    Returns
    -------
    tuple of StatCount
        LayerNorm: 2 per token (``2·B·T``); BatchNorm: 2 per feature (``2·d``), whatever
        the batch; InstanceNorm: 2 per (sequence, feature); GroupNorm: 2 per (sequence,
        group); RMSNorm: 1 per token.

    Raises
    ------
    ValueError
        A size below 1 (any size can be counted, even one too large to build).

    Notes
    -----
    References: Ba, Kiros & Hinton (2016); Ioffe & Szegedy (2015); Ulyanov et al. (2016);
    Wu & He (2018); Zhang & Sennrich (2019).
    """
    b, t, d = (int(s) for s in shape)
    if min(b, t, d) < 1:
        raise ValueError(f"B, T and d must all be at least 1, got shape {(b, t, d)}")
    counts = [
        StatCount("LayerNorm", b * t, d, 2, "token"),
        StatCount("BatchNorm", d, b * t, 2, "feature"),
        StatCount("InstanceNorm", b * d, t, 2, "sequence × feature"),
    ]
    if int(groups) >= 1 and d % int(groups) == 0:
        counts.append(StatCount("GroupNorm", b * groups, t * d // groups, 2, "sequence × group"))
    counts.append(StatCount("RMSNorm", b * t, d, 1, "token"))
    return tuple(counts)
