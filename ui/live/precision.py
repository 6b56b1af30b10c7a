"""What the Precision page shows for one offset: the one-pass formula of the dtype picked (one function).

The page draws the released offset's :func:`frame`, and the live select slider holds :func:`frame` of
every offset it offers (:func:`frames`): the formula during a drag and after release is the same by
construction. :func:`numbers` is what the formula and the page's sentences below it are made from.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

import layernorm as ln
from layernorm.labs import precision as P
from ui.live import Frame, Readout, frames_cache, payload
from ui.text import digits_to_separate, tex_num

OFFSETS = [0.0] + [float(f"{m}e{k}") for k in range(0, 8) for m in (1, 2, 5)] + [1e8]
DEFAULT = 1e4
DIGITS = {"float16": 4, "bfloat16": 3, "float32": 9, "float64": 17}  # enough to see the dtype's own rounding
FORMULA = "prec_formula"


def offset_text(v: float) -> str:
    return "0" if v == 0 else f"{v:.0e}".replace("e+0", "e")


@dataclass(frozen=True)
class Numbers:
    """The runs of one offset in one dtype, and the digits the page shows their σ² with."""

    runs: dict[str, P.DtypeRun]
    exact_var: float
    shown: list[float]  # one-pass E[x²], μ², σ², and the exact σ²
    n: int


def numbers(x: np.ndarray, eps: float, dtype: str, offset: float) -> Numbers:
    """Every method's run on the sidebar's vector shifted by ``offset`` (added in float64), in ``dtype``."""
    shifted = x + offset
    runs = {m: ln.layer_norm_in_dtype(shifted, dtype=dtype, method=m, eps=eps) for m in P.METHODS}
    exact_var = float(ln.variance(shifted))
    one = runs["one_pass"]
    shown = [float(one.mean_sq[0]), float(one.mu_sq[0]), float(one.var[0]), exact_var]
    return Numbers(runs, exact_var, shown, digits_to_separate(shown, DIGITS[dtype]))


def frame(x: np.ndarray, eps: float, dtype: str, offset: float) -> Frame:
    """The formula of the one-pass variance at ``offset`` in ``dtype`` beside the exact σ²."""
    num = numbers(x, eps, dtype, offset)
    shown, n = num.shown, num.n
    if not np.isfinite(num.runs["one_pass"].var[0]):
        one_tex = r"\text{undefined}"  # the reason is in the sentence below (a long line would be cut off)
    else:
        one_tex = rf"{tex_num(shown[0], n)} - {tex_num(shown[1], n)} = {tex_num(shown[2], n)}"
    tex = (
        rf"\text{{{dtype}, offset {offset_text(offset)}:}}\quad \sigma^2_{{\text{{one-pass}}}} = {one_tex}"
        rf"\qquad \sigma^2_{{\text{{exact}}}} = {tex_num(num.exact_var, n)}"
    )
    return Frame((Readout(FORMULA, tex),))


@frames_cache(max_entries=16)
def frames(x: np.ndarray, eps: float, dtype: str) -> dict[str, object]:
    """Every offset's frame for this input and dtype (cached: a release reruns with the same input)."""
    return payload(OFFSETS, lambda o: frame(x, eps, dtype, o), [offset_text(o) for o in OFFSETS])
