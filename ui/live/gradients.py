"""What the Gradients page shows for one spread of the nearly constant vector: its three ε metrics.

The page draws the released spread's :func:`frame`, and the live select slider holds :func:`frame` of
every spread it offers (:func:`frames`): the metrics during a drag and after release are the same by
construction.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

import layernorm as ln
from ui.live import Frame, Metric, Readout, payload
from ui.text import fmt
from ui.widgets import SPREADS

NEAR_D, NEAR_SEED, NEAR_MEAN = 8, 1, 3.0
SPREAD_START = 1e-4  # the slider's starting value
METRICS = "grad_eps_metrics"


def spread_text(v: float) -> str:
    """A spread as the slider shows it and the link carries it (``ui.widgets.near_constant_control``)."""
    return f"{v:.0e}"


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


@st.cache_data(max_entries=16, show_spinner=False)
def frames(eps: float) -> dict[str, object]:
    """Every spread's frame at this ε (cached: a release reruns the section with the same ε)."""
    return payload(SPREADS, lambda s: frame(eps, s), [spread_text(s) for s in SPREADS])
