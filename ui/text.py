"""Number formatting for the pages: one style for every number on screen."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np


def fmt(value: float, digits: int = 4) -> str:
    """Format a number with ``digits`` significant digits; scientific when tiny or huge."""
    v = float(value)
    if not math.isfinite(v):
        return "∞" if v > 0 else ("−∞" if v < 0 else "NaN")
    if v == 0:
        return "0"
    if 1 <= abs(v) < 1e5:  # no e-notation below 1e5: 12345.6 -> "12346", 1234.5 -> "1234" or "1235"
        text = f"{v:.{max(digits - 1 - math.floor(math.log10(abs(v))), 0)}f}"
        text = text.rstrip("0").rstrip(".") if "." in text else text
    elif 1e-3 <= abs(v) < 1:
        text = f"{v:.{digits}g}"
    else:
        text = f"{v:.{digits - 1}e}"
    return text.replace("-", "−")


def tex_num(value: float, digits: int = 4) -> str:
    """A number for ``st.latex``: ``1.2 \\times 10^{-5}`` rather than ``1.2e-05``."""
    v = float(value)
    if v != 0 and math.isfinite(v) and not 1e-3 <= abs(v) < 1e5:
        mant, exp = f"{v:.{digits - 1}e}".split("e")
        mant = mant.rstrip("0").rstrip(".") if "." in mant else mant
        return rf"{mant} \times 10^{{{int(exp)}}}"
    return fmt(v, digits).replace("−", "-")


def tex_vector(values: Sequence[float] | np.ndarray, *, head: int = 3, digits: int = 3) -> str:
    """A vector for LaTeX: all of it when short, else the first and last ``head`` entries."""
    vals = np.asarray(values, dtype=float).ravel()
    if vals.size <= 2 * head + 1:
        parts = [tex_num(v, digits) for v in vals]
    else:
        parts = (
            [tex_num(v, digits) for v in vals[:head]]
            + [r"\ldots"]
            + [tex_num(v, digits) for v in vals[-head:]]
        )
    return r"\left[" + ",\\ ".join(parts) + r"\right]"


def tex_sum(values: Sequence[float] | np.ndarray, *, head: int = 4, digits: int = 3) -> str:
    r"""``x_1 + x_2 + ...`` for LaTeX with proper signs: ``1.2 - 0.5 + \ldots``."""
    vals = np.asarray(values, dtype=float).ravel()
    shown = vals[:head]
    out = tex_num(shown[0], digits) if shown.size else "0"
    for v in shown[1:]:
        out += (" - " if v < 0 else " + ") + tex_num(abs(v), digits)
    return out + (r" + \ldots" if vals.size > head else "")


def tex_minus(value: float, digits: int = 4) -> str:
    """``- v`` for LaTeX, or ``+ |v|`` when v is negative (never ``- -0.5``)."""
    v = float(value)
    return ("+ " if v < 0 else "- ") + tex_num(abs(v), digits)
