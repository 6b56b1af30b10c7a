"""What the Normalization now page shows for one α of DyT: the fit's formula, its numbers and its curve.

The page draws the released α's :func:`frame`, and the live select slider holds :func:`frame` of every α
it offers (:func:`frames`): the numbers during a drag and after release are the same by construction.
Every number is the core's (``layernorm.labs.recent_norms``); the cloud of points and the best fit do
not change with α and are drawn once (:func:`figure`).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from layernorm.labs.recent_norms import DYT_ALPHA_INIT, DyTFit, dyt, fit_dyt, fit_tanh_and_line
from ui.live import Chart, Frame, Metric, Readout, frames_cache, payload
from ui.minilm import recording
from ui.text import fmt_shown, tex_num
from ui.theme import COLORS, base_layout, finish

# The α a student can try: 1-2-3-5-7 steps over four decades, the DyT paper's starting 0.5 among them
ALPHAS = [m * 10.0**k for k in range(-3, 1) for m in (1, 1.5, 2, 3, 5, 7)] + [10.0]
ALPHAS = [float(f"{a:.3g}") for a in ALPHAS]
DEFAULT_ALPHA = DYT_ALPHA_INIT
CHART = "now_dyt_chart"
READOUT = "now_dyt"
CURVE_POINTS = 241


def alpha_text(a: float) -> str:
    return f"{a:g}"


@dataclass(frozen=True)
class Cloud:
    """One site's inputs and LayerNorm outputs (before γ and β) for one sentence's word-pieces."""

    x: np.ndarray  # (n, d) the site's input
    x_hat: np.ndarray  # (n, d) the core's LayerNorm of it, ε the model's
    tokens: tuple[str, ...]
    best: DyTFit  # one g and b for every value (the shape of the cloud)
    line: DyTFit  # α at the search's smallest: a straight line
    grid: np.ndarray  # (CURVE_POINTS,) the x values the curves are drawn at


@functools.lru_cache(maxsize=32)
def cloud(site: int, sentence: int) -> Cloud:
    rec = recording()
    x = rec.sentence_tokens(sentence, site)
    fits = fit_tanh_and_line(x, eps=float(rec.eps[site]))
    x_hat, best, line = fits.x_hat, fits.tanh, fits.line
    grid = np.linspace(float(x.min()), float(x.max()), CURVE_POINTS)
    for a in (x, x_hat, grid):
        a.flags.writeable = False
    tokens = tuple(str(rec.tokens[sentence, t]) for t in rec.real_token_indices(sentence))
    return Cloud(x, x_hat, tokens, best, line, grid)


def frame(site: int, sentence: int, alpha: float) -> Frame:
    """The fit of g·tanh(αx) + b for this α (g and b least squares), its formula, numbers and curve."""
    c = cloud(site, sentence)
    mine = fit_dyt(c.x, c.x_hat, alpha, per_feature=False)
    g, b = float(mine.gamma[0]), float(mine.beta[0])
    sign = "-" if b < 0 else "+"
    tex = (
        rf"\hat x \approx g\,\tanh(\alpha x) + b = {tex_num(g, 4)}\,\tanh({tex_num(alpha, 3)}\,x)"
        rf" {sign} {tex_num(abs(b), 3)}"
    )
    metrics = (
        Metric("r² with your α", fmt_shown(mine.r_squared), help="1: the curve goes through every point"),
        Metric("rms miss, your α", fmt_shown(mine.rms, 3), help="root mean square of x̂ minus the curve"),
        Metric("best α", fmt_shown(c.best.alpha, 3), help="least squares over α, g and b"),
        Metric("r², best α", fmt_shown(c.best.r_squared)),
        Metric("r², a straight line", fmt_shown(c.line.r_squared)),
    )
    curve = dyt(c.grid, alpha, g, b)
    return Frame((Readout(READOUT, tex, metrics),), (Chart(CHART, (curve,)),))


@frames_cache(max_entries=16)
def frames(site: int, sentence: int) -> dict[str, object]:
    """Every α's frame for this site and sentence (cached: a release reruns with the same ones)."""
    return payload(ALPHAS, lambda a: frame(site, sentence, a), [alpha_text(a) for a in ALPHAS])


def figure(site: int, sentence: int, f: Frame, site_label: str) -> go.Figure:
    """The cloud of (x, x̂), the best tanh over it and the curve of the frame's α (trace 0: it moves)."""
    c = cloud(site, sentence)
    best = c.best
    best_curve = dyt(c.grid, best.alpha, best.gamma[0], best.beta[0])
    traces = [
        go.Scatter(
            x=c.grid,
            y=f.chart(CHART).traces[0],
            name="your α",
            mode="lines",
            line={"color": COLORS["y"], "width": 3},
        ),
        go.Scatter(
            x=c.grid,
            y=best_curve,
            name=f"best α = {fmt_shown(best.alpha, 3)}",
            mode="lines",
            line={"color": COLORS["x"], "width": 2, "dash": "dash"},
        ),
        go.Scatter(
            x=c.x.ravel(),
            y=c.x_hat.ravel(),
            name="every feature of every word-piece",
            mode="markers",
            marker={"color": COLORS["x_hat"], "size": 4, "opacity": 0.45},
        ),
    ]
    fig = base_layout(
        go.Figure(traces),
        f"LayerNorm's input against its output (before γ, β) at {site_label}",
        x_title="x: the site's input (model units)",
        y_title="x̂ = (x − μ) / √(σ² + ε)",
        height=440,
    )
    return finish(fig)
