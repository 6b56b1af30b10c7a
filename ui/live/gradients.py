"""What the Gradients page shows for one spread of the nearly constant vector, and for one sidebar input.

The page draws the released spread's :func:`frame`, and the spread's live select slider holds
:func:`frame` of every spread it offers (:func:`frames`). The sidebar's live ε, γ, β hold
:func:`page_frame` (``ui.live.sidebar.view``): the backward pass's ∂L/∂x and its two identities
(:func:`backward_frame`) beside the spread's metrics. The numbers during a drag and after release are
the same by construction.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

import layernorm as ln
from ui.live import Frame, Metric, Readout, frames_cache, payload
from ui.live.standardize import spread_text  # the same slider as Standardize's (``spread_slider``)
from ui.settings import LabInput
from ui.text import (
    ROUNDING_K,
    ZERO_TO_ROUNDING,
    digits_to_separate,
    fmt,
    fmt_zero,
    rounding_help,
    rounding_noise,
    tex_vector,
)
from ui.widgets import SPREADS

NEAR_D, NEAR_SEED, NEAR_MEAN = 8, 1, 3.0
SPREAD_START = 1e-4  # the slider's starting value
METRICS = "grad_eps_metrics"
DX, IDENTITIES = "grad_dx", "grad_identities"


@st.cache_resource(show_spinner=False, max_entries=256)
def norm_vs_eps(x: np.ndarray, eps: tuple[float, ...]) -> ln.JacobianNormCurve:
    """``ln.layer_norm_jacobian_norm_vs_eps(x, eps)``, shared by every session (one SVD per ε).

    The grid's 49 SVDs depend only on ``x``: moving the sidebar's ε, or a class moving the same
    slider back and forth, finds the curve computed. The arrays are made read-only (shared).
    """
    curve = ln.layer_norm_jacobian_norm_vs_eps(x, np.array(eps))
    for values in (curve.eps, curve.norm, curve.ceiling):
        values.flags.writeable = False
    return curve


def near_constant(spread: float) -> np.ndarray:
    """The slider's vector: ``NEAR_D`` values close to ``NEAR_MEAN``, ``spread`` apart."""
    return ln.make_near_constant(NEAR_D, NEAR_MEAN, spread, seed=NEAR_SEED)


def frame(eps: float, spread: float) -> Frame:
    """The nearly constant vector's largest stretch at the sidebar's ε, without ε, and its ceiling."""
    now = norm_vs_eps(near_constant(spread), (eps, 0.0))
    stretch, without = fmt(float(now.norm[0])), fmt(float(now.norm[1]))
    metrics = (
        Metric("largest stretch at your ε", stretch, help="‖J‖ of the nearly constant vector"),
        Metric("without ε (ε = 0)", without, help="1/σ: what the gradient would be"),
        Metric("ceiling 1/√ε", fmt(float(now.ceiling[0]))),
    )
    return Frame((Readout(METRICS, None, metrics),))


@frames_cache(max_entries=16)
def frames(eps: float) -> dict[str, object]:
    """Every spread's frame at this ε (cached: a release reruns the section with the same ε)."""
    return payload(SPREADS, lambda s: frame(eps, s), [spread_text(s) for s in SPREADS])


def backward_frame(terms: ln.LayerNormBackwardTerms, d: int) -> Frame:
    """∂L/∂x with numbers, and its two identities: Σᵢ ∂L/∂xᵢ and ∂L/∂x · x̂ beside its exact value."""
    tex = rf"\frac{{\partial L}}{{\partial x}} = {tex_vector(terms.dx, digits=4)}"
    k_round = ROUNDING_K + d  # a sum of d numbers carries about one rounding per term
    dot, exact = terms.dx_dot_x_hat, terms.dx_dot_x_hat_expected
    alike = terms.dx_dot_x_hat_gap <= rounding_noise(terms.magnitude, k_round)

    def shown(v: float, n: int) -> str:
        """The metric's text, with 0 and "0 (to rounding)" read as the same number."""
        text = fmt_zero(v, terms.magnitude, n, k=k_round)
        return "0" if text == ZERO_TO_ROUNDING else text

    if alike:  # the same number up to float64 rounding: shown to the digits the two agree on
        dot_digits = next((n for n in range(4, 0, -1) if shown(dot, n) == shown(exact, n)), 1)
    else:  # really different: shown apart
        dot_digits = digits_to_separate([dot, exact], 4)
    same = (
        f"It equals the formula's value up to float64 rounding, so both are shown to the {dot_digits} "
        "significant digits they share. "
        if alike and dot_digits < 4
        else ""
    )
    metrics = (
        Metric(
            "Σᵢ ∂L/∂xᵢ",
            fmt_zero(terms.dx_sum, terms.magnitude, k=k_round),
            help="Zero in exact arithmetic for every γ and ε: adding a constant to x never changes y. "
            + rounding_help(terms.dx_sum, terms.magnitude, k_round),
        ),
        Metric(
            "∂L/∂x · x̂",
            fmt_zero(dot, terms.magnitude, dot_digits, k=k_round),
            help="Growing x along x̂ only rescales it, which LayerNorm forgets — up to ε. "
            + same
            + rounding_help(dot, terms.magnitude, k_round),
        ),
        Metric(
            "ε/σ̂³ · (g⊙γ)·x̂  (exact value)",
            fmt_zero(exact, terms.magnitude, dot_digits, k=k_round),
            help="What ∂L/∂x · x̂ is in exact arithmetic (here computed in float64 from the formula): 0 when "
            "(g⊙γ)·x̂ = 0, and otherwise not 0, since ε > 0.",
        ),
    )
    return Frame((Readout(DX, tex), Readout(IDENTITIES, None, metrics)))


def page_frame(at: LabInput, dy: np.ndarray, spread: float) -> Frame:
    """The page's readouts at the sidebar input ``at``: the backward pass of the upstream gradient ``dy``
    and the ε section's metrics at ``spread`` (the page's own controls as they are)."""
    eps_part = frame(at.eps, spread).readouts
    try:
        terms = ln.layer_norm_backward_terms(at.x, at.gamma, dy, eps=at.eps)
    except ValueError:  # the page shows its message instead of the backward numbers
        return Frame(eps_part)
    return Frame(backward_frame(terms, at.d).readouts + eps_part)
