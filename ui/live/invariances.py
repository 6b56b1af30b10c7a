"""What Invariances' "Scale by c, add b" shows for one scale c and shift b (one function).

The page draws the released (c, b)'s :func:`frame`; the live slider of c holds :func:`frame` of every c
it offers at the current b (:func:`frames_c`), the slider of b every b at the current c
(:func:`frames_b`): the numbers during a drag and after release are the same by construction.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

import layernorm as ln
from layernorm.labs import geometry as geo
from layernorm.labs import shapes
from ui import charts_geometry as cg
from ui.live import Chart, Frame, Metric, Readout, frames_cache, offered, payload
from ui.live.frames import range_of
from ui.text import digits_to_separate, fmt, fmt_zero, rounding_help, tex_base, tex_num, tex_vector

C_CHOICES = [-100.0, -10.0, -1.0, -0.1, -0.001, 0.0, 1e-6, 1e-4, 1e-3, 0.01, 0.1, 0.5, 1.0, 2.0, 10.0, 100.0]
C_CHOICES += [1e4, 1e6]
C_START = 2.0  # the scale slider's starting value
SHIFT = (-10.0, 10.0, 1.0, 0.5)  # b: min, max, default, step
# The readouts, in page order: the ε/c² line, the four metrics, y(x) and y(c x + b).
NUMBERS, METRICS, Y_X, Y_MOVED = "inv_numbers", "inv_metrics", "inv_y_x", "inv_y_moved"
CHART_OUTPUTS = "inv_chart_outputs"


def c_text(c: float) -> str:
    """c as the page writes it (the scale slider's texts, which the URL carries too)."""
    return fmt(c, 3) if c != 0 else "0"


def moved_label(c: float, b: float) -> str:
    """c·x + b in the chart's words (``2·x − 1``, not ``2·x + −1``)."""
    return f"{c_text(c)}·x + {c_text(b)}".replace("+ −", "− ")


def frame(x: np.ndarray, eps: float, gamma: np.ndarray, beta: np.ndarray, c: float, b: float) -> Frame:
    """The section for the input ``x`` scaled by ``c`` and shifted by ``b`` (every number from
    ``geo.invariance_check``). Raises ``ValueError`` where c·x + b overflows (the page says so)."""
    chk = geo.invariance_check(x, c, b, gamma, beta, eps=eps)
    var = float(ln.layer_norm_steps(x, eps=eps).var)
    eff = r"\infty" if not np.isfinite(chk.effective_eps) else tex_num(chk.effective_eps)
    numbers = (
        rf"c = {tex_num(c, 3)},\ b = {tex_num(b, 3)}:\quad \sigma^2 = {tex_num(var)},\quad"
        rf"\epsilon / c^2 = {tex_num(eps)} / {tex_base(c, 3)}^2 = {eff}"
    )
    scale = np.concatenate([chk.ln_x, chk.ln_moved])
    metrics = (
        Metric(
            "LayerNorm moved by",
            fmt_zero(chk.ln_gap, scale),
            help="max |LN(c·x + b) − LN(x)| over the features. " + rounding_help(chk.ln_gap, scale),
        ),
        Metric(
            "LayerNorm + its flip",
            fmt_zero(chk.ln_flip_gap, scale),
            help="max |LN(c·x + b) + LN(x)|: 0 when the output only changed sign (c < 0).",
        ),
        Metric(
            "RMSNorm moved by",
            fmt_zero(chk.rms_gap, np.concatenate([chk.rms_x, chk.rms_moved])),
            help="max |RMS(c·x + b) − RMS(x)|: RMSNorm does not subtract the mean, so b moves it.",
        ),
        Metric(
            "y moved by (your γ, β)",
            fmt_zero(chk.y_gap, np.concatenate([chk.y_x, chk.y_moved])),
            help="max |y(c·x + b) − y(x)| with the sidebar's γ and β.",
        ),
    )
    digits = digits_to_separate(np.concatenate([chk.y_x, chk.y_moved]), 3)
    return Frame(
        (
            Readout(NUMBERS, numbers),
            Readout(METRICS, None, metrics),
            Readout(Y_X, rf"y(x) = {tex_vector(chk.y_x, digits=digits)}"),
            Readout(Y_MOVED, rf"y(c\,x + b) = {tex_vector(chk.y_moved, digits=digits)}"),
        ),
        (Chart(CHART_OUTPUTS, (chk.ln_x, chk.ln_moved, chk.rms_x, chk.rms_moved)),),
    )


def frame_or_blank(
    x: np.ndarray, eps: float, gamma: np.ndarray, beta: np.ndarray, c: float, b: float
) -> Frame:
    """:func:`frame`, or, where c·x + b overflows (the page shows its error instead), a frame of the
    same structure that shows nothing (no formula, no metrics, no bars)."""
    try:
        return frame(x, eps, gamma, beta, c, b)
    except ValueError:
        blank = np.full(x.size, np.nan)
        return Frame(
            tuple(Readout(key) for key in (NUMBERS, METRICS, Y_X, Y_MOVED)),
            (Chart(CHART_OUTPUTS, (blank,) * 4),),
        )


def figure(f: Frame, c: float, b: float) -> go.Figure:
    """The chart of LayerNorm and RMSNorm of x and of c·x + b, for frame ``f`` (a new figure: the page
    fixes its y axis, so it is not one of the page's shared cached figures)."""
    return cg.outputs_before_after(*f.chart(CHART_OUTPUTS).traces, moved_label=moved_label(c, b))


@frames_cache(max_entries=32)
def frames_c(x: np.ndarray, eps: float, gamma: np.ndarray, beta: np.ndarray, b: float) -> dict[str, object]:
    """Every c's frame at the shift ``b`` (cached: a release of b comes back to the same c frames)."""
    return payload(
        C_CHOICES, lambda c: frame_or_blank(x, eps, gamma, beta, c, b), [c_text(c) for c in C_CHOICES]
    )


@frames_cache(max_entries=32)
def frames_b(x: np.ndarray, eps: float, gamma: np.ndarray, beta: np.ndarray, c: float) -> dict[str, object]:
    """Every b's frame at the scale ``c``."""
    lo, hi, _, step = SHIFT
    return payload(offered(lo, hi, step), lambda b: frame_or_blank(x, eps, gamma, beta, c, b))


@frames_cache(max_entries=16)
def chart_axis(x: np.ndarray, eps: float) -> dict[str, object]:
    """The outputs chart's y range over every (c, b) both sliders offer, as a payload's ``ranges``.

    c's frames are made at the current b and b's at the current c, so the range of the two payloads
    changes when the other control moves; drawn with this one too (``show_chart``), the axis holds
    still across every drag and release. The bars are LayerNorm and RMSNorm of x and of c·x + b
    (γ = 1, β = 0), row by row from the core for all c at once (what ``geo.invariance_check`` computes
    one c at a time; a row that overflows is one the page shows an error for, without bars).
    """
    lo, hi, _, step = SHIFT
    cs = np.array(C_CHOICES)
    seen = []
    for b in offered(lo, hi, step):
        with np.errstate(over="ignore", invalid="ignore"):
            moved = cs[:, None] * x[None, :] + b
        rows = np.vstack([x, moved[np.all(np.isfinite(moved), axis=1)]])
        for norm in (ln.layer_norm, ln.rms_norm):
            try:
                seen.append(norm(rows, eps=eps).ravel())
            except ValueError:  # a result beyond float64: the page shows the core's error instead
                continue
    return {"ranges": {CHART_OUTPUTS: range_of(seen)}, "x_ranges": {}}


# --- the geometry's per-axis γ and β -----------------------------------------------------------------
GEO_SLIDER = (-2.0, 2.0, 0.1)  # per-axis γ and β: min, max, step
GEO_START = {"geo_gamma": 1.0, "geo_beta": 0.0}  # the identity
GEO_Y = "inv_geo_y"  # the readout under the sliders: γ, β and, when your vector has d features, its y


CLOUD_POINTS, CLOUD_SEED = 300, 0  # the geometry's random inputs
GEO_PICTURES = {3: "geo_chart_y", 2: "geo_chart_2d"}  # the picture of y = γ⊙x̂ + β, by d
LINE_2D = shapes.sum_zero_line(3.0)  # d = 2: the line x₁ + x₂ = 0 across the right panel


@dataclass(frozen=True)
class YPicture:
    """The picture of y = γ⊙x̂ + β at one γ and β (d = 2 or 3): what ``ui.charts_geometry`` draws it
    from (``cloud_3d`` of y, or ``cloud_2d``'s two panels), and the same numbers as a live frame's
    chart (:meth:`chart`), so that a drag shows what the release draws."""

    cloud: geo.NormalizedCloud
    circle: np.ndarray  # 3-D: γ⊙(circle) + β; 2-D: x̂'s circle of radius √2
    ellipse: np.ndarray | None  # 2-D: γ⊙(segment) + β, where x̂'s segment goes
    user: tuple[np.ndarray, np.ndarray, np.ndarray] | None  # your x, x̂ and y (a vector of d features)

    @property
    def d(self) -> int:
        return int(self.cloud.y.shape[1])

    def chart(self) -> Chart:
        """The traces in the figure's order, and the ranges that change with γ and β."""
        beta = np.asarray(self.cloud.beta, dtype=float).reshape(1, -1)
        you = [] if self.user is None else [u.reshape(1, -1) for u in self.user]
        if self.d == 3:
            parts = [self.circle, self.cloud.y, beta, *you[2:]]
            lo, hi = cg.equal_range(self.cloud.y, *[a for a in (self.circle, *you[2:], beta)])
            axes = tuple((f"scene.{a}", lo, hi) for a in ("xaxis", "yaxis", "zaxis"))
            return Chart(
                GEO_PICTURES[3],
                tuple(p[:, 1] for p in parts),
                xs=tuple(p[:, 0] for p in parts),
                zs=tuple(p[:, 2] for p in parts),
                axes=axes,
            )
        assert self.ellipse is not None
        left = np.array(cg.equal_range(self.cloud.inputs, *you[:1]))
        diagonal = np.column_stack([left, left])
        parts = [diagonal, self.cloud.inputs, self.circle, LINE_2D, self.cloud.x_hat, self.ellipse]
        parts += [self.cloud.y, beta, *you]
        lo, hi = cg.equal_range(self.circle, self.cloud.y, self.ellipse, *you[1:])
        return Chart(
            GEO_PICTURES[2],
            tuple(p[:, 1] for p in parts),
            xs=tuple(p[:, 0] for p in parts),
            axes=(("xaxis2", lo, hi), ("yaxis2", lo, hi)),
        )


def y_picture(x: np.ndarray, eps: float, gamma: np.ndarray, beta: np.ndarray) -> YPicture:
    """The picture of y for per-axis ``gamma`` and ``beta`` (d = 2 or 3 of each), from the core; your
    vector ``x`` is in it when it has d features."""
    d = gamma.size
    cloud = geo.normalized_cloud(d, CLOUD_POINTS, seed=CLOUD_SEED, gamma=gamma, beta=beta, eps=eps)
    user = None
    if x.size == d:
        user = (x, ln.layer_norm(x, eps=eps), ln.layer_norm(x, gamma, beta, eps=eps))
    if d == 3:
        return YPicture(cloud, ln.scale_shift(shapes.sum_zero_circle(cloud.radius), gamma, beta), None, user)
    segment = shapes.sum_zero_line(1.0)  # x̂ can only lie between −(1, −1) and (1, −1)
    return YPicture(cloud, shapes.circle_2d(cloud.radius), ln.scale_shift(segment, gamma, beta), user)


def geo_frame(x: np.ndarray, eps: float, gamma: np.ndarray, beta: np.ndarray) -> Frame:
    """What the geometry's γ and β sliders show for per-axis ``gamma`` and ``beta`` (d of each): the
    two vectors, y = γ⊙x̂ + β of your vector when it has d features (from ``ln.layer_norm``), and for
    the picture of y (:func:`y_picture`; the browser redraws it with Plotly on each frame).
    """
    tex = rf"\gamma = {tex_vector(gamma)},\quad \beta = {tex_vector(beta)}"
    charts: tuple[Chart, ...] = ()
    try:
        charts = (y_picture(x, eps, gamma, beta).chart(),)
    except ValueError:  # your vector beyond float64: the page shows the core's refusal instead
        charts = ()
    if x.size == gamma.size:
        try:
            x_hat = ln.layer_norm(x, eps=eps)
            y = ln.layer_norm(x, gamma, beta, eps=eps)
        except ValueError:  # beyond float64: the picture shows the core's refusal, the readout no y
            return Frame((Readout(GEO_Y, tex),), charts)
        digits = digits_to_separate(np.concatenate([x_hat, y]), 3)
        tex += (
            rf":\quad \hat x = {tex_vector(x_hat, digits=digits)},\quad "
            rf"y = \gamma\odot\hat x + \beta = {tex_vector(y, digits=digits)}"
        )
    return Frame((Readout(GEO_Y, tex),), charts)


@frames_cache(max_entries=64)
def geo_frames(
    x: np.ndarray, eps: float, gamma: np.ndarray, beta: np.ndarray, which: str, i: int
) -> dict[str, object]:
    """Every value's frame of the slider of ``which`` ("gamma" or "beta") on axis ``i`` (from 0), the
    other γ and β at their current values."""
    lo, hi, step = GEO_SLIDER

    def at(v: float) -> Frame:
        g, b = gamma.copy(), beta.copy()
        (g if which == "gamma" else b)[i] = v
        return geo_frame(x, eps, g, b)

    return payload(offered(lo, hi, step), at)
