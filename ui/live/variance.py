"""What the Variance page shows for one stretch a (its formula, metrics and chart), and for one
offset (the float32 trap's two variances).

The page draws the released values' frames, and each live slider holds the frames of every value it
offers, made by the same function: :func:`frame` for a (:func:`scale_frames`), :func:`pass_frame` for
the offset, at the current a (:func:`offset_frames`). The numbers during a drag and after release are
the same by construction. A drag of a leaves the float32 trap's numbers as they were until release:
the stretch is drawn before the offset, whose value its frames would need.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

import layernorm as ln
from layernorm.variants import layer_norm_unbiased, variance_one_pass
from ui import charts
from ui.live import Chart, Frame, Line, Metric, Readout, frames_cache, payload
from ui.text import digits_to_separate, fmt, rounding_noise, tex_minus, tex_num

SCALES = (0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0)  # a: the options of the stretch
SCALE_DEFAULT = 1.0
OFFSETS = (0.0, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8)  # the float32 trap's offsets
OFFSET_DEFAULT = 1e4
SIGMA2, XHAT, PASSES = "var_sigma2", "var_xhat", "var_passes"  # the readouts, in page order
CHART = "var_chart"


def scale_text(a: float) -> str:
    """An a as the stretch has always shown it (``st.select_slider``'s ``str``), and as links carry it."""
    return str(a)


def offset_text(v: float) -> str:
    """An offset as the page shows it, and as links carry it: 0, 1e+02 … 1e+08."""
    return "0" if v == 0 else f"{v:.0e}"


@dataclass(frozen=True)
class Stretched:
    """The numbers of x·a the page shows (the frame and the chart are made from the same ones)."""

    x: np.ndarray
    steps: ln.LayerNormSteps
    var: float
    var_sample: float  # ÷(d−1); NaN for d = 1
    var_digits: int


def stretched(x: np.ndarray, eps: float, a: float) -> Stretched:
    xa = x * a
    steps = ln.layer_norm_steps(xa, eps=eps)
    var = float(steps.var)
    var_sample = float(ln.variance(xa, ddof=1)) if x.size > 1 else float("nan")
    # σ² and the ÷(d−1) value must look different
    var_digits = digits_to_separate([var, var_sample], same_within=rounding_noise(var))
    return Stretched(xa, steps, var, var_sample, var_digits)


def frame(x: np.ndarray, eps: float, a: float) -> Frame:
    """The Variance page for the input ``x`` stretched by ``a`` (every number from the core)."""
    s = stretched(x, eps, a)
    steps, d = s.steps, x.size
    # μ must not look like an x it differs from
    mu_digits = digits_to_separate([float(steps.mu)], against=steps.x, same_within=rounding_noise(steps.x))
    tex = (
        rf"\sigma^2 = \frac{{1}}{{d}}\sum_{{i=1}}^{{d}}(x_i-\mu)^2 = \frac{{1}}{{{d}}}\sum_i (x_i "
        rf"{tex_minus(float(steps.mu), mu_digits)})^2 = {tex_num(s.var, s.var_digits)}"
    )
    sigma2 = Readout(
        SIGMA2,
        tex,
        (
            Metric("σ² (÷d, population)", fmt(s.var, s.var_digits)),
            Metric("σ = √σ²", fmt(float(steps.sigma))),
            Metric("÷(d−1) would give", fmt(s.var_sample, s.var_digits) if d > 1 else "undefined (d = 1)"),
        ),
    )
    readouts = [sigma2]
    if d > 1:
        shown = [
            float(ln.variance(ln.standardize(s.x, eps=eps))),
            float(ln.variance(layer_norm_unbiased(s.x, eps=eps))),
            (d - 1) / d,
        ]
        # enough digits to tell them apart, and to show "just under 1" (ε) unless only rounding separates them
        xhat_digits = digits_to_separate(shown, 6, against=[1.0], same_within=rounding_noise(1.0))
        readouts.append(
            Readout(
                XHAT,
                None,
                (
                    Metric("variance of x̂ with ÷d", fmt(shown[0], xhat_digits)),
                    Metric("variance of x̂ with ÷(d−1)", fmt(shown[1], xhat_digits)),
                    Metric("(d − 1)/d", fmt(shown[2], xhat_digits)),
                ),
            )
        )
    pop, sample = chart_lines(s)
    chart = Chart(CHART, (steps.squared_deviations,), (Line(*pop), Line(*sample)))
    return Frame(tuple(readouts), (chart,))


def chart_lines(s: Stretched) -> tuple[tuple[float, str], tuple[float, str]]:
    """σ²'s line and the ÷(d−1) line (σ² again at d = 1), with the labels ``charts.variance_chart`` writes."""
    sample = s.var_sample if s.x.size > 1 else s.var
    return (
        (s.var, f"σ² (÷d) = {fmt(s.var, s.var_digits)}"),
        (sample, f"÷(d−1) = {fmt(sample, s.var_digits)}"),
    )


def figure(x: np.ndarray, eps: float, a: float) -> go.Figure:
    """The page's chart of the squared deviations for x·a (the frame's chart holds its numbers)."""
    s = stretched(x, eps, a)
    (pop, _), (sample, _) = chart_lines(s)
    return charts.variance_chart(s.steps.squared_deviations, pop, sample, digits=s.var_digits)


def with_passes(f: Frame, x: np.ndarray, a: float, offset: float) -> Frame:
    """Frame ``f`` and the float32 trap's readout for x·a + offset (drawn further down the page, and
    moved by a as much as by the offset)."""
    return Frame((*f.readouts, *pass_frame(x, a, offset).readouts), f.charts)


@frames_cache(max_entries=16)
def scale_frames(x: np.ndarray, eps: float, offset: float) -> dict[str, object]:
    """Every a's frame for this input and offset (cached: a release reruns the page with the same input)."""
    return payload(
        SCALES, lambda a: with_passes(frame(x, eps, a), x, a, offset), [scale_text(a) for a in SCALES]
    )


def pass_frame(x: np.ndarray, a: float, offset: float) -> Frame:
    """Two-pass float64 against one-pass float32 for x·a + offset (the delta words a failure)."""
    shifted = x * a + offset
    exact = float(ln.variance(shifted))
    naive = float(variance_one_pass(shifted, dtype=np.float32))
    digits = digits_to_separate([exact, naive], 6)  # the two recipes' answers never look alike
    label = "one-pass E[x²] − μ² in float32"
    if math.isfinite(naive):
        one_pass = Metric(
            label, fmt(naive, digits), "negative: √ would give NaN" if naive < 0 else None, color="red"
        )
    else:  # x² passed float32's largest number (3.4e38): the shortcut has no answer at all
        one_pass = Metric(label, "overflow", "x² exceeds float32's 3.4e38", color="red")
    exact_metric = Metric("two-pass, float64 (this lab)", fmt(exact, digits))
    return Frame((Readout(PASSES, None, (exact_metric, one_pass)),))


@frames_cache(max_entries=16)
def offset_frames(x: np.ndarray, a: float) -> dict[str, object]:
    """Every offset's frame for this input and a."""
    return payload(OFFSETS, lambda o: pass_frame(x, a, o), [offset_text(o) for o in OFFSETS])
