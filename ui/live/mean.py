"""What the Mean page shows for one value of c: its formula, metrics and charts (one function).

The page draws the released value's :func:`frame`, and the live slider holds :func:`frame` of every c
it offers (:func:`payload`): the numbers during a drag and after release are the same by construction.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go

import layernorm as ln
from ui import charts
from ui.live import (
    Chart,
    Frame,
    Line,
    Metric,
    Range,
    Readout,
    axis_ranges,
    fixed_axes,
    frames_cache,
    offered,
    payload,
)
from ui.text import (
    LABEL_LIMIT,
    change_metric,
    digits_to_separate,
    fmt,
    plain_chart,
    rounding_noise,
    tex_num,
    tex_sum,
    zero_metric,
)
from ui.theme import scale

SHIFT = (-10.0, 10.0, 0.0, 0.1)  # c: min, max, default, step (fine: a drag passes a value a frame)
CHART_X, CHART_CENTERED = "mean_chart_x", "mean_chart_centered"
READOUT = "mean"


def frame(x: np.ndarray, eps: float, c: float) -> Frame:
    """The Mean page for the input ``x`` shifted by ``c`` (every number from ``ln.layer_norm_steps``)."""
    shifted = x + c  # the input as the student modified it
    steps = ln.layer_norm_steps(shifted, eps=eps)
    mu = float(steps.mu)
    # μ gets the digits that tell it apart from every x it differs from (40001.5 is not 40002)
    mu_digits = digits_to_separate([mu], against=steps.x, same_within=rounding_noise(steps.x))
    terms = tex_sum(shifted, digits=mu_digits)
    tex = (
        rf"\mu = \frac{{1}}{{d}}\sum_{{i=1}}^{{d}} x_i = \frac{{1}}{{{x.size}}}\left({terms}\right)"
        rf" = {tex_num(mu, mu_digits)}"
    )
    change = change_metric(c) if c else {}
    zero = zero_metric(float(ln.mean(steps.centered)), steps.centered)  # 0 in exact arithmetic
    metrics = (
        Metric("d (features)", str(x.size)),
        Metric("μ (mean)", fmt(mu, mu_digits), change.get("delta"), change.get("delta_arrow", "off")),
        Metric(
            "mean of x − μ", zero["value"], zero.get("delta"), zero.get("delta_arrow", "off"), zero["help"]
        ),
    )
    return Frame(
        (Readout(READOUT, tex, metrics),),
        (
            Chart(CHART_X, (steps.x,), (Line(mu, f"μ = {fmt(mu, mu_digits)}"),)),
            Chart(CHART_CENTERED, (steps.centered,), (Line(0.0, "new mean = 0"),)),
        ),
    )


def figures(f: Frame, label: str) -> list[go.Figure]:
    """The page's two charts for frame ``f`` (``label``: the input's name, plain text in the title)."""
    (x_chart, centered_chart) = f.charts
    return [
        charts.feature_chart(
            [("x", x_chart.traces[0])],
            f"The input ({plain_chart(label, LABEL_LIMIT)}) plus c, and its mean",
            hlines=[("mu", line.y, line.label) for line in x_chart.lines],
        ),
        charts.feature_chart(
            [("centered", centered_chart.traces[0])],
            "Centred: x − μ balances at zero",
            hlines=[("mu", line.y, line.label) for line in centered_chart.lines],
        ),
    ]


def shown(x: np.ndarray, eps: float, c: float) -> Frame:
    """:func:`frame`, kept for the last few hundred (input, c): the frame a release draws was made with
    its input's :func:`frames` (a class on one input asks for the same frames over and over)."""
    return _kept(np.ascontiguousarray(x, dtype=float).tobytes(), float(eps), float(c))


@functools.lru_cache(maxsize=512)
def _kept(x: bytes, eps: float, c: float) -> Frame:
    return frame(np.frombuffer(x), eps, c)


def kept_figures(
    x: np.ndarray, eps: float, c: float, label: str, payloads: Sequence[dict[str, Any]]
) -> tuple[go.Figure, ...]:
    """:func:`figures` of :func:`shown`, their axes fixed as :func:`ui.live.show_chart` fixes them
    over ``payloads``, kept for the last few hundred (input, c, label, font scale, axes): building
    them on every release was 9 % of a class's server CPU (``benchmarks/bench_class_mode.py`` under
    py-spy), and a class on one input asks for the same ones over and over. Read-only."""
    axes = tuple(axis_ranges(key, payloads) for key in (CHART_X, CHART_CENTERED))
    return _kept_figures(
        np.ascontiguousarray(x, dtype=float).tobytes(), float(eps), float(c), label, scale(), axes
    )


@functools.lru_cache(maxsize=256)
def _kept_figures(
    x: bytes, eps: float, c: float, label: str, font: float, axes: tuple[tuple[Range, Range], ...]
) -> tuple[go.Figure, ...]:
    made = figures(_kept(x, eps, c), label)
    return tuple(fixed_axes(fig, ranges) for fig, ranges in zip(made, axes, strict=True))


@frames_cache(max_entries=16)
def frames(x: np.ndarray, eps: float) -> dict[str, object]:
    """Every c's frame for this input (cached: a release reruns the page with the same input)."""
    lo, hi, _, step = SHIFT
    return payload(offered(lo, hi, step), lambda c: shown(x, eps, c))
