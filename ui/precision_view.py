"""Precision's sentences and table words, made from a :class:`~layernorm.labs.precision.PrecisionSweep`.

Every number comes from :mod:`layernorm.labs.precision`; this module only picks and formats them,
and tells the lesson's usual story of the four panels only where this vector's sweep shows it.
"""

from __future__ import annotations

from layernorm.labs import precision as P
from ui.text import fmt

METHOD_NAMES = {"one_pass": "one-pass", "two_pass": "two-pass", "welford": "Welford"}
SHORT = {
    "input_overflow": "✕ input overflows",
    "sum_overflow": "✕ sum overflows",
    "step_overflow": "✕ a step x − μ overflows",
    "deviation_overflow": "✕ x − μ overflows",
    "square_overflow": "✕ sum of squares overflows",
    "negative_variance": "✕ σ² < 0, so NaN",
    "zero_divisor": "✕ 0/0, so NaN",
    "not_finite": "✕ not finite",
}

OVERFLOWS = {"sum_overflow", "step_overflow", "deviation_overflow", "square_overflow"}


def about(offset: float) -> str:
    """An offset of the sweep, rounded to the two digits its grid can tell apart (8 points a decade)."""
    rounded = float(f"{offset:.2g}")
    return f"{rounded:,.0f}" if 1e3 <= rounded < 1e5 else fmt(rounded, 2)


def say(dtype: str, method: str, status: str, at: float) -> str:
    return (
        f"{METHOD_NAMES[method]} in {dtype} first fails at an offset of about {about(at)}: "
        f"{P.STATUS_WORDS[status]}."
    )


def notices(sw: P.PrecisionSweep, constant: bool = False) -> list[str]:
    """What to notice in the four panels, each point checked against this vector's sweep.

    The lesson's usual story (one-pass breaks first in float32; in float16 two-pass breaks on its sum
    while Welford lasts until the input overflows) holds for most vectors, not all: a point is told the
    usual way only when the sweep shows it, and otherwise says what this vector does instead (else a
    sentence such as "Welford survives until the input overflows" could stand under a Welford failure).
    """

    at = sw.first_failure  # (offset, status) of a dtype and method's first failure, or None

    def where(first: tuple[float, str] | None) -> str:
        return "over the whole sweep" if first is None else f"until an offset of about {about(first[0])}"

    points = []
    one, two, wel = at("float32", "one_pass"), at("float32", "two_pass"), at("float32", "welford")
    if one is not None and all(o is None or o[0] > one[0] for o in (two, wel)):
        points.append(
            "Slide the offset up with float32 selected: the one-pass variance breaks from about "
            f"{about(one[0])} on; two-pass holds {where(two)}, Welford {where(wel)}."
        )
    elif one is None:
        points.append("float32: with this vector even the one-pass variance holds over the whole sweep.")
    two16, wel16 = at("float16", "two_pass"), at("float16", "welford")
    if two16 is not None and two16[1] != "input_overflow" and (wel16 is None or wel16[0] > two16[0]):
        tail = (
            "until the input itself overflows"
            if wel16 is not None and wel16[1] == "input_overflow"
            else where(wel16)
        )
        why = "its largest number is 65504, so " if two16[1] in OVERFLOWS else ""
        points.append(
            f"float16 panel: {why}two-pass breaks early (about {about(two16[0])}: "
            f"{P.STATUS_WORDS[two16[1]]}); Welford, which keeps a running mean instead of a sum, "
            f"lasts {tail}."
        )
    elif wel16 is not None and two16 is not None and wel16[0] <= two16[0] and wel16[1] != "input_overflow":
        points.append(
            f"float16 panel: here Welford breaks no later than two-pass (about {about(wel16[0])}: "
            f"{P.STATUS_WORDS[wel16[1]]}): its running mean avoids the big sum, but not this."
        )
    lost = sw.first_input_loss("bfloat16")
    if lost is not None:
        points.append(
            f"bfloat16 panel: the grey line leaves the floor from an offset of about {about(lost)}: 8 "
            "significant bits cannot hold the shifted input (1000.3, say, becomes 1000), so no method can "
            "recover what the input lost."
        )
    one64 = at("float64", "one_pass")
    points.append(
        f"float64 one-pass fails too, only later (from an offset of about {about(one64[0])})."
        if one64 is not None
        else "float64 one-pass holds over this whole sweep: x − μ is 0 for a constant vector, whatever σ² "
        "comes out."
        if constant
        else "float64 one-pass holds over this whole sweep: 53 bits outlast an offset of 1e8 for this "
        "vector's spread (a narrower spread would break it)."
    )
    return points
