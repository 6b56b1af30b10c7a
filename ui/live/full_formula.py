"""What The full formula shows for one input: its two formulas, its metrics and its chart (one function).

The page draws :func:`frame` of the sidebar's input; the sidebar's live γ, β and ε hold :func:`frame`
at each of their values (``ui.live.sidebar.view``). The table is drawn at rest only.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

import layernorm as ln
from ui import charts
from ui.live import Chart, Frame, Metric, Readout
from ui.text import digits_to_separate, fmt, rounding_noise, tex_minus, tex_num, tex_vector

XHAT, Y = "full_xhat", "full_y"
CHART = "full_chart"
DOTS_LIMIT = 64  # charts.before_after: dots up to here (a live chart), histograms beyond (at rest)


def frame(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, eps: float) -> Frame:
    """The full formula for ``x`` with ``gamma``, ``beta``, ``eps`` (every number from the core)."""
    steps = ln.layer_norm_steps(x, gamma, beta, eps=eps)
    mu, var = float(steps.mu), float(steps.var)
    # μ never looks like an x it differs from (so the x's get at least as many digits); σ² never looks like ε
    mu_digits = digits_to_separate([mu], against=steps.x, same_within=rounding_noise(steps.x))
    var_digits = digits_to_separate([var], against=[eps], same_within=rounding_noise(var))
    # β never reads like an x or μ it differs from (β = μ undoes the normalization: 40001.5, not 40002)
    beta_digits = digits_to_separate(steps.beta, against=[*steps.x, mu], same_within=rounding_noise(steps.x))
    # the two halves on their own lines, so a projected screen shows all of each
    centred = f"{tex_vector(steps.x, head=2, digits=mu_digits)} {tex_minus(mu, mu_digits)}"
    xhat_tex = (
        rf"\hat{{\mathbf{{x}}}} = \frac{{{centred}}}"
        rf"{{\sqrt{{{tex_num(var, var_digits)} + {tex_num(eps)}}}}} = {tex_vector(steps.x_hat, head=2)}"
    )
    gamma_tex = tex_vector(steps.gamma, head=2)
    y_tex = (
        rf"\mathbf{{y}} = \underbrace{{{gamma_tex}}}_{{\gamma}} \odot \hat{{\mathbf{{x}}}}"
        rf" + \underbrace{{{tex_vector(steps.beta, head=2, digits=beta_digits)}}}_{{\beta}}"
        rf" = {tex_vector(steps.y, head=2)}"
    )
    metrics = (
        Metric("μ", fmt(mu, mu_digits)),
        Metric("σ²", fmt(var, var_digits)),
        Metric("√(σ² + ε)", fmt(float(steps.std))),
        Metric("d", str(x.size)),
    )
    chart = ()
    if x.size <= DOTS_LIMIT:
        rows = np.zeros(x.size), np.zeros(1), np.ones(x.size), np.ones(1)
        where = steps.x, np.array([mu]), steps.y, np.array([float(ln.mean(steps.y))])
        chart = (Chart(CHART, rows, xs=where),)
    return Frame((Readout(XHAT, xhat_tex), Readout(Y, y_tex, metrics)), chart)


def figure(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, eps: float) -> go.Figure:
    """The page's chart (dots for d ≤ 64, a live chart; histograms beyond)."""
    steps = ln.layer_norm_steps(x, gamma, beta, eps=eps)
    return charts.before_after(steps.x, steps.y, float(steps.mu), float(ln.mean(steps.y)))
