"""What Estimators and ε shows for one ε: the recipe's formula and metrics, and RMSNorm's (one function).

The page draws its released view with :func:`frame`; the sidebar's live ε (``ui.live.sidebar``) holds
:func:`frame` of every ε it offers while the page's ε is the sidebar's: the numbers during a drag and
after release are the same by construction.
"""

from __future__ import annotations

import numpy as np

import layernorm as ln
from ui.live import Frame, Metric, Readout
from ui.text import digits_not_to_look_exact, digits_to_separate, fmt, rounding_noise, tex_minus, tex_num

FORMULA, METRICS, RMS = "est_formula", "est_metrics", "est_rms"


def frame(x: np.ndarray, *, ddof: int, inside: bool, eps: float, variant_name: str) -> Frame:
    """The recipe (÷d or ÷(d−1), ε inside or outside, this ``eps``) beside the standard one on ``x``,
    and RMSNorm's two ε placements beside LayerNorm with the same ``eps``."""
    cmp = ln.compare_recipe(x, ddof=ddof, eps_inside=inside, eps=eps, standard_eps=ln.DEFAULT_EPS)
    mu = float(ln.mean(x))
    spread = float(ln.variance(x, ddof=ddof))  # σ² (÷d) or s² (÷(d−1)), the recipe's own
    val = [float(x[0]), float(cmp.standard[0]), float(cmp.variant[0])]
    # digits that tell the two x̂₁ apart and keep either from looking exact when it is not (the tutorial
    # case's 1.49997 is not the 1.5 four digits would print)
    noise = rounding_noise(val[1:])
    k = digits_not_to_look_exact(
        val[1:], digits_to_separate(val[1:], 4, same_within=noise), same_within=noise
    )
    sq = r"s^2" if ddof else r"\sigma^2"
    den = (
        rf"\sqrt{{{tex_num(spread, 4)} + {tex_num(eps, 3)}}}"
        if inside
        else rf"\sqrt{{{tex_num(spread, 4)}}} + {tex_num(eps, 3)}"
    )
    sym = rf"\sqrt{{{sq} + \varepsilon}}" if inside else rf"\sqrt{{{sq}}} + \varepsilon"
    tex = (
        rf"\hat x_1 = \frac{{x_1 - \mu}}{{{sym}}} = \frac{{{tex_num(val[0], 4)} {tex_minus(mu, 4)}}}{{{den}}}"
        rf" = {tex_num(val[2], k)} \quad\text{{(standard, }}\varepsilon = 10^{{-5}}"
        rf"\text{{: }} {tex_num(val[1], k)}\text{{)}}"
    )
    sd = digits_to_separate([cmp.standard_std, cmp.variant_std], 4, same_within=rounding_noise(1.0))
    metrics = (
        Metric("x̂₁, standard", fmt(val[1], k), help="÷d, ε = 1e-5 inside the root (PyTorch, the paper)"),
        Metric("x̂₁, yours", fmt(val[2], k), help=f"Your recipe: {variant_name}"),
        Metric("largest |difference|", fmt(cmp.max_abs_difference, 3)),
        Metric(
            "spread (std) of x̂: standard → yours",
            f"{fmt(cmp.standard_std, sd)} → {fmt(cmp.variant_std, sd)}",
        ),
    )
    rms = ln.compare_rms_placement(x, eps=eps)
    layer = ln.compare_recipe(x, ddof=0, eps_inside=True, eps=eps).standard  # LayerNorm with the same ε
    firsts = [rms.standard[0], rms.variant[0], layer[0]]
    rms_noise = rounding_noise(rms.standard)
    rk = digits_not_to_look_exact(
        firsts, digits_to_separate(firsts, 4, same_within=rms_noise), same_within=rms_noise
    )  # [1, 0, 0, 0] at ε = 1e-12: RMSNorm₁ is 1.999999999996, not the 2 four digits would print
    rms_metrics = (
        Metric("LayerNorm x̂₁", fmt(float(layer[0]), rk)),
        Metric("RMSNorm₁, ε inside √", fmt(float(rms.standard[0]), rk)),
        Metric("RMSNorm₁, ε outside", fmt(float(rms.variant[0]), rk)),
    )
    return Frame((Readout(FORMULA, tex), Readout(METRICS, None, metrics), Readout(RMS, None, rms_metrics)))
