"""Drag the vector itself: a feature's bar follows the pointer, and the page's numbers follow it.

Each bar of a page's input chart gets a native vertical ``<input type="range">`` laid over its
column (``live.js``, mode ``"bars"``): Tab reaches it, the arrow keys move it, a press or a drag puts
the bar's top where the pointer is. Its values are a grid of round numbers spanning the chart's y
axis (:class:`Grid`). The frames of one feature (the page's view of the input with that feature at
every grid value) are made when the browser asks for them: when the student reaches for its bar
(pointer over it, focus, press), or on a touch device, for every bar in view in one ask. Each is sent
once, and kept for every session of the process (:func:`_frames_of`); the page's view is the function
it draws itself with, so the last frame of a drag and the page after release are equal by
construction.

On release the new vector becomes the lab's input as typed numbers (``ui.inputs.use_typed``), the one
kind of vector a link carries, and the whole app reruns: the sidebar shows the typed numbers.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

import layernorm as ln
from ui import charts, live, session
from ui.inputs import use_typed
from ui.live import Chart, Frame
from ui.settings import LabInput, lab_typed
from ui.text import LABEL_LIMIT, plain_chart

LIMIT = 64  # features: past this a bar is a few pixels wide, too thin to grab
STEPS = 80  # at most this many grid steps between the axis' ends (a few pixels each on a projector)


@dataclass(frozen=True)
class Grid:
    """The values a dragged bar's top takes: ``(k0 + k)·step`` for ``k = 0 … count − 1``, rounded to
    ``decimals`` (round numbers, which typed text carries exactly)."""

    k0: int
    step: float
    count: int
    decimals: int

    def value(self, k: int) -> float:
        return round((self.k0 + k) * self.step, self.decimals)

    @property
    def span(self) -> tuple[float, float]:
        return self.value(0), self.value(self.count - 1)


def _nice(v: float) -> float:
    """The smallest of 1, 2, 5 × 10ᵏ at least ``v``."""
    power = 10.0 ** math.floor(math.log10(v))
    return next(m * power for m in (1, 2, 5, 10) if m * power >= v * (1 - 1e-12))


FAR = float(np.finfo(float).max) / 8  # bars beyond this are not dragged: the grid's arithmetic stays finite
TINY = 1e-290  # nor an axis shorter than this: its step would be subnormal


def grid_for(shown: np.ndarray, axis: Sequence[float] | None = None) -> Grid | None:
    """A grid over the chart's y axis (``axis``, when the page's other controls fix it), or else over
    the bars' values and zero with their span of room above and below; None past :data:`FAR` or
    under :data:`TINY`."""
    if axis is not None:
        lo, hi = axis
    else:
        lo, hi = min(float(shown.min()), 0.0), max(float(shown.max()), 0.0)
        span = hi - lo if hi > lo else max(abs(hi), 1.0)
        lo, hi = lo - span, hi + span
    if not -FAR <= lo <= hi <= FAR or hi - lo < TINY:
        return None
    step = _nice((hi - lo) / STEPS)
    decimals = max(0, -math.floor(math.log10(step)))
    k0, k1 = math.floor(lo / step), math.ceil(hi / step)
    return Grid(k0, step, k1 - k0 + 1, decimals)


def moved(x: np.ndarray, i: int, value: float, offset: float = 0.0) -> np.ndarray:
    """``x`` with feature ``i`` moved so that its bar (which shows ``xᵢ + offset``) stands at ``value``.

    ``value − offset`` keeps 12 significant digits, so that 2.4 − 0.3 types as 2.1, not
    2.0999999999999996 (the bar then stands at 2.1 + 0.3, as the page computes it).
    """
    out = np.array(x, dtype=float)
    out[i] = value if offset == 0 else float(f"{value - offset:.12g}")
    return out


def feature_frames(
    lab: LabInput, view: Callable[[LabInput], Frame], grid: Grid, i: int, offset: float = 0.0
) -> dict[str, object]:
    """The page's view with feature ``i`` at every grid value (``view(lab_typed(lab, x'))``: the input
    a release makes)."""
    values = [grid.value(k) for k in range(grid.count)]
    xs = {v: moved(lab.x, i, v, offset) for v in values}
    labels = [f"x{i + 1} = {ln.number_text(float(xs[v][i]))}" for v in values]
    return live.payload(values, lambda v: view(lab_typed(lab, xs[v])), labels)


@live.frames_cache(max_entries=64)
def _frames_of(
    page: str,
    key: str,
    base: str,
    i: int,
    _lab: LabInput,
    _view: Callable[[LabInput], Frame],
    _grid: Grid,
    _shift: float,  # not "_offset": that name is plotly.js's private one the Workarounds table lists
) -> dict[str, object]:
    """Feature ``i``'s frames, made once per process for the page's script, chart and ``base`` (which
    names the view's token, the input, the grid and the offset): a class on one vector asks for the
    same bars, and a touch device asks for every bar in view."""
    return feature_frames(_lab, _view, _grid, i, _shift)


def _features(asked: object, d: int) -> list[int]:
    """The features an ask names (an index, or a list of them), those the vector has, at most
    :data:`LIMIT`."""
    wanted = asked if isinstance(asked, list) else [asked]
    found = [i for i in wanted if isinstance(i, int) and not isinstance(i, bool) and 0 <= i < d]
    return list(dict.fromkeys(found))[:LIMIT]


def bars(
    lab: LabInput,
    view: Callable[[LabInput], Frame],
    token: object,
    *,
    chart: str,
    shown: np.ndarray,
    trace: int = 0,
    offset: float = 0.0,
    axis_of: Sequence[dict[str, Any]] = (),
    caption: str | None = "↕ Drag an x bar of the chart below (or focus it and press the arrow keys): "
    "that feature changes and the formulas, metrics and charts follow; what cannot follow is dimmed "
    "until you let go.",
) -> dict[str, object]:
    """Make the bars of trace ``trace`` of chart ``chart`` draggable (they show ``shown``, which is
    ``lab.x + offset``); return what :func:`ui.live.show_chart` needs to fix the chart's y axis over
    the grid. ``view(lab)`` is the page's frame for an input, its own controls as they are now, which
    ``token`` names; ``axis_of``: the payloads of the page's live controls, whose frames fix the
    chart's axis (the grid spans it). Nothing is drawn for an input of more than :data:`LIMIT`
    features. ``caption``: the line above the chart that tells a student the bars move (None when
    the chart's title says it)."""
    if session.live.bars_set.pop():  # a release set a new vector
        st.rerun(scope="app")  # the sidebar shows the typed numbers: a section's own rerun would not
    ranges = [r for p in axis_of if (r := p["ranges"].get(chart))]
    axis = (min(r[0] for r in ranges), max(r[1] for r in ranges)) if ranges else None
    grid = grid_for(np.asarray(shown, dtype=float), axis)
    if lab.d > LIMIT or grid is None:
        return {"ranges": {}, "x_ranges": {}}
    key = f"{chart}_bars"
    if caption:
        st.caption(caption)
    base = hashlib.sha1(repr((key, token, lab.fingerprint(), grid, offset)).encode()).hexdigest()
    asked = session.live.bars_asked.kept()  # {component key: features} the browser asked frames for
    ctx = get_script_run_ctx()
    page = ctx.page_script_hash if ctx else ""
    bodies = [
        _frames_of(page, key, base, i, lab, view, grid, offset) | {"feature": i, "base": base}
        for i in _features(asked.pop(key, []), lab.d)
    ]

    def ask() -> None:
        want = (session.widgets.get(key) or {}).get("feature") or {}
        if want.get("base") == base:
            asked[key] = _features(want.get("i"), lab.d)
        session.live.not_the_user.set(True)  # the browser asked, not the student: a link's notes stay

    def released() -> None:
        got = (session.widgets.get(key) or {}).get("set") or {}
        k, j, v = got.get("k"), got.get("i"), got.get("v")
        if not isinstance(j, int) or not 0 <= j < lab.d:
            return
        if got.get("base") == base and isinstance(k, int) and 0 <= k < grid.count:
            value = grid.value(k)
        elif isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) and abs(v) <= FAR:
            # a bar of the chart before the last release (a second drag began before this run drew
            # the new one): its grid's value, on the vector as it is now, keeps both changes
            value = float(v)
        else:
            return
        x = moved(lab.x, j, value, offset)
        use_typed(", ".join(ln.number_text(float(e)) for e in x))
        session.live.bars_set.set(True)

    at = [min(max(round((float(v) - grid.value(0)) / grid.step), 0), grid.count - 1) for v in shown]
    texts = [f"x{n + 1} = {ln.number_text(float(v))}" for n, v in enumerate(lab.x)]
    with st.container(key=f"live_bars_{chart}"):  # live.css hides it: the inputs lie over the chart
        live._component(
            data={
                "mode": "bars",
                "chart": chart,
                "trace": trace,
                "base": base,
                "span": list(grid.span),
                "count": grid.count,
                "at": at,
                "texts": texts,
                "katex": live._katex_url(),
                "payloads": bodies,
            },
            key=key,
            on_feature_change=ask,
            on_set_change=released,
        )
    lo, hi = grid.span
    pad = 0.02 * (hi - lo)
    return {"ranges": {chart: [lo - pad, hi + pad]}, "x_ranges": {}}


INPUT_CHART = "lab_input_chart"


def input_chart(lab: LabInput, view: Callable[[LabInput], Frame], token: object) -> None:
    """The input's bars, draggable, for a page whose own charts do not show x itself (at most
    :data:`LIMIT` features; larger inputs are shown by the page's other charts)."""
    if lab.d > LIMIT:
        return

    def with_input(at: LabInput) -> Frame:
        f = view(at)
        return Frame(f.readouts, (*f.charts, Chart(INPUT_CHART, (at.x,))))

    drag = bars(lab, with_input, token, chart=INPUT_CHART, shown=lab.x, caption=None)  # the title says it
    title = f"Your vector ({plain_chart(lab.label, LABEL_LIMIT)}): drag a bar to change that feature"
    live.show_chart(charts.feature_chart([("x", lab.x)], title, height=260), INPUT_CHART, drag)
