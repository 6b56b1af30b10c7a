"""Under the hood: what LayerNorm forgets (scale and shift) and where it sends vectors (geometry)."""

import functools
from typing import Any

import numpy as np
import plotly.graph_objects as go
import streamlit as st

import layernorm as ln
from layernorm.labs import geometry as geo
from layernorm.labs import shapes
from ui import charts_geometry as cg
from ui import controls, live, page, plot, session, theme
from ui import invariances_view as iv
from ui.fragments import page_fragment, rerun_fragments
from ui.live import invariances as inv
from ui.live import sidebar as live_sidebar
from ui.settings import LabInput
from ui.state import lab_input, lab_section
from ui.text import (
    plain,
)

C_CHOICES = inv.C_CHOICES
C_GRID = np.logspace(-6, 6, 97)  # the curve's scales, c > 0
GEO_SLIDER = inv.GEO_SLIDER  # per-axis γ and β on the geometry section
C_START, B_START = inv.C_START, inv.SHIFT[2]  # the scale and shift sliders' starting values
GEO_START = inv.GEO_START  # the geometry's γᵢ and βᵢ start at the identity
VIEW_START = "At an angle"  # the 3-D views' camera (also in 2-D, where the radio is not drawn)
CLOUD_POINTS, CLOUD_SEED = inv.CLOUD_POINTS, inv.CLOUD_SEED


@st.cache_resource(show_spinner=False, max_entries=64)
def _figure(builder: str, scale: float, *args: Any, **kwargs: Any) -> go.Figure:
    """``ui.charts_geometry.<builder>(...)``, cached per presentation scale (shared by every session).

    ``cache_resource``: every session gets the same Figure object, which nothing changes after it is
    built (``ui.plot.show`` only reads it); ``cache_data`` would unpickle a copy per rerun, and a
    Figure re-validates itself and its template when unpickled (~40 ms a figure).
    """
    made: go.Figure = getattr(cg, builder)(*args, **kwargs)
    return made


def figure(builder: str, *args: Any, **kwargs: Any) -> go.Figure:
    """A cached 3-D figure (building one costs more than its data) at this session's font scale."""
    return _figure(builder, theme.scale(), *args, **kwargs)


c_text = inv.c_text


lab_input()  # the page draws the input in its lab sections below
page.header(
    "Under the hood · Invariances and geometry",
    "LayerNorm throws information away on purpose. Add the same constant to all of a token's features "
    "and the normalized vector does not change; multiply them by a positive number and it changes only "
    "through ε, barely while ε stays far below the variance before and after: only the *pattern* across features "
    "survives, not its size or its offset. That is also a geometric statement: every normalized vector "
    "lands on one flat plane, on or just inside one sphere (further inside only when ε is comparable to "
    "σ²), whatever came in. Here you move the input and watch the output stay put, then see the plane "
    "and the sphere in 2-D and 3-D.",
)


# --- 1. scale and shift ----------------------------------------------------------------------------
# One lab section: the controls, the numbers they move and the curve. A release of c or b reruns it
# (the live slider's own rerun), and so does the sidebar. The numbers and the outputs chart follow the
# thumbs and the sidebar's ε, γ and β during a drag (ui.live); the notices and the curve follow on
# release (dimmed during a drag: ui.live.at_rest).
SCALE_SECTION = "inv_scale"


def scale_controls(lab: LabInput) -> tuple[float, float, tuple[dict[str, object], ...]]:
    """The live sliders c and b: their values, and their payloads with the chart's one y axis."""
    c1, c2 = st.columns(2)
    # A move of the kept (hidden) slider, e.g. Back onto an address, reruns this section by name.
    again = {"on_change": rerun_fragments, "args": (SCALE_SECTION,)}
    lo, hi, _, step = inv.SHIFT
    shifts = live.offered(lo, hi, step)
    b_guess = live.before_its_slider("inv_b", shifts, [f"{v:g}" for v in shifts], B_START)  # c's frames' b
    with c1:
        c, frames_c = live.select_slider(
            "Scale c",
            C_CHOICES,
            C_START,
            key="inv_c",
            name="c",
            format_func=c_text,
            frames=lambda: inv.frames_c(lab.x, lab.eps, lab.gamma, lab.beta, b_guess),
            help="Negative values flip the vector; 0 flattens it to the constant b.",
            **again,
        )
    with c2:
        b, frames_b = live.slider(
            "Add b to every feature",
            lo,
            hi,
            B_START,
            step,
            key="inv_b",
            name="b",
            frames=lambda: inv.frames_b(lab.x, lab.eps, lab.gamma, lab.beta, c),
            **again,
        )
    if b != b_guess:  # c's frames were made at another b: not what a drag of c must show
        st.rerun()
    by_sidebar = live_sidebar.view(
        lambda at: inv.frame_or_blank(at.x, at.eps, at.gamma, at.beta, c, b), (c, b), lab, part="scale"
    )
    return c, b, (frames_c, frames_b, inv.chart_axis(lab.x, lab.eps), *by_sidebar)


def scale_numbers(lab: LabInput, c: float, b: float, payloads: tuple[dict[str, object], ...]) -> None:
    try:
        # The same function made every frame the sliders show during a drag: the released view equals it.
        shown = inv.frame(lab.x, lab.eps, lab.gamma, lab.beta, c, b)
    except ValueError as exc:  # overflow of c·x + b for huge inputs; never a traceback
        st.error(plain(exc, 400), icon="⚠️")
        return
    live.readout(shown.readout(inv.NUMBERS))
    with live.at_rest("inv_notices"):
        notices(lab, c)
    live.readout(shown.readout(inv.METRICS))
    # one y axis for every (c, b) (inv.chart_axis with the payloads): it holds through both drags
    live.show_chart(inv.figure(shown, c, b), inv.CHART_OUTPUTS, *payloads)
    live.readout(shown.readout(inv.Y_X))
    live.readout(shown.readout(inv.Y_MOVED))


def notices(lab: LabInput, c: float) -> None:
    for kind, text, icon in iv.scale_notes(c, lab.gamma):
        getattr(st, kind)(text, icon=icon)


def scale_curve(lab: LabInput, c: float, b: float) -> None:
    try:
        now = geo.invariance_check(lab.x, c, b, eps=lab.eps).ln_gap  # LN alone: no γ, β read
        curve = geo.invariance_curve(lab.x, C_GRID, shift=b, eps=lab.eps)
    except ValueError as exc:
        st.error(plain(exc, 400), icon="⚠️")
        return
    try:
        curve0 = geo.invariance_curve(lab.x, C_GRID, shift=b, eps=0.0).ln_gap
    except ln.ZeroVarianceError:
        curve0 = None
        st.caption(iv.NO_EPS0_CURVE)
    plot.show(
        figure(
            "invariance_curve_chart",
            curve.c,
            curve.ln_gap,
            curve.rms_gap,
            eps=lab.eps,
            shift=b,
            ln_gap_eps0=curve0,
            c_now=c,
            gap_now=now,
            rounding=curve.rounding,
        ),
        key="inv_chart_curve",
    )


@lab_section(SCALE_SECTION)
def scale_section(lab: LabInput) -> None:
    c, b, payloads = scale_controls(lab)
    st.latex(iv.SCALE_LATEX)
    scale_numbers(lab, c, b, payloads)
    st.caption(iv.AFFINE_NOTE)
    st.markdown(iv.CURVE_INTRO)
    with live.at_rest("inv_curve"):
        scale_curve(lab, c, b)
    st.caption(iv.CURVE_NOTE)


st.subheader("Scale by c, add b: what moves?")
scale_section()


# --- 2. geometry -----------------------------------------------------------------------------------
# A fragment for d (which changes how many γ, β sliders there are). Inside it, the numbers and
# pictures are lab sections: the view reruns the pictures, γᵢ and βᵢ only the picture of y, and the
# sidebar all three, without the radios, sliders and text around them.
PICTURES = ("inv_geometry", "inv_y")


def camera() -> dict[str, float]:
    """Where the eye sits for the 3-D views: the view radio's choice (its first one in 2-D, where it is
    not drawn)."""
    return cg.CAMERAS.get(str(session.widgets.get("geo_view", VIEW_START)), cg.CAMERAS[VIEW_START])


@lab_section("inv_norm")
def norm_numbers(lab: LabInput) -> None:
    steps = ln.layer_norm_steps(lab.x, eps=lab.eps)
    live.at_rest("inv_norm_numbers").latex(iv.norm_latex(lab.x, lab.eps, float(steps.var)))


@lab_section("inv_geometry")
def geometry_pictures(lab: LabInput, d: int) -> None:
    cloud = geo.normalized_cloud(d, CLOUD_POINTS, seed=CLOUD_SEED, eps=lab.eps)  # x and x̂: no γ, β
    hint = iv.cloud_hint(lab.d, d)
    if hint is not None:
        st.info(hint[0], icon=hint[1])
    st.caption(iv.cloud_caption(cloud, d, lab.eps))
    if d == 2:
        return
    eye = camera()
    sphere = shapes.sphere_mesh(cloud.radius)
    plane = shapes.sum_zero_disc_mesh(1.2 * cloud.radius)
    left, right = st.columns(2)
    plot.show(
        figure(
            "cloud_3d",
            cloud.inputs,
            kind="x",
            title="Before: random inputs x",
            camera=eye,
            diagonal=True,
            user=lab.x if lab.d == d else None,
        ),
        key="geo_chart_before",
        where=left,
    )
    plot.show(
        figure(
            "cloud_3d",
            cloud.x_hat,
            kind="x_hat",
            title="After: x̂ on the plane, on or inside the sphere",
            camera=eye,
            sphere=sphere,
            plane=plane,
            circle=shapes.sum_zero_circle(cloud.radius),
            user=ln.layer_norm(lab.x, eps=lab.eps) if lab.d == d else None,
        ),
        key="geo_chart_xhat",
        where=right,
    )


def geo_before_sliders(d: int) -> tuple[np.ndarray, np.ndarray]:
    """γ and β before their sliders are drawn this run (each slider's frames are made at the others'
    values): the kept values, or on a session's first run from a link, the link's (canonical) texts;
    anything else is the start, and the section then runs again once every slider has its value
    (:func:`geo_controls`)."""
    lo, hi, step = GEO_SLIDER
    values = live.offered(lo, hi, step)
    texts = [f"{v:g}" for v in values]

    def one(key: str, start: float) -> float:
        return live.before_its_slider(key, values, texts, start)

    gamma = np.array([one(f"geo_gamma{i + 1}", GEO_START["geo_gamma"]) for i in range(d)])
    beta = np.array([one(f"geo_beta{i + 1}", GEO_START["geo_beta"]) for i in range(d)])
    return gamma, beta


def geo_controls(lab: LabInput, d: int) -> tuple[np.ndarray, np.ndarray]:
    """The live sliders γᵢ and βᵢ (a row of γ, a row of β) and the values they hold."""
    lo, hi, step = GEO_SLIDER
    # A move of a kept (hidden) slider, e.g. Back onto an address, reruns this section by name.
    again = {"on_change": rerun_fragments, "args": ("inv_y",)}
    guess = geo_before_sliders(d)
    gamma, beta = guess[0].copy(), guess[1].copy()
    # A row of γ and a row of β, three columns each whatever d: a slider that changed column when d
    # changed (β₁ was the fourth of 2·d columns in 3-D, the third in 2-D) was mounted anew by the
    # browser, and its next moves often never reached the address.
    for name, key, values in (("γ", "geo_gamma", gamma), ("β", "geo_beta", beta)):
        which = key.removeprefix("geo_")
        cols = st.columns(3)
        for i in range(d):
            # this slider's frames: every value of it, the others as they stand now (copies: the
            # loop changes the arrays after the frames are made)
            g, b = gamma.copy(), beta.copy()
            with cols[i]:
                values[i], _ = live.slider(
                    f"{name}{'₁₂₃'[i]}",
                    lo,
                    hi,
                    GEO_START[key],
                    step,
                    key=f"{key}{i + 1}",
                    name=f"{name}{'₁₂₃'[i]}",
                    frames=lambda w=which, i=i, g=g, b=b: inv.geo_frames(lab.x, lab.eps, g, b, w, i),
                    **again,
                )
    if not (np.array_equal(gamma, guess[0]) and np.array_equal(beta, guess[1])):
        st.rerun()  # a slider's frames were made at another value of a slider drawn after it
    return gamma, beta


def y_picture(lab: LabInput, d: int, gamma: np.ndarray, beta: np.ndarray) -> None:
    shown = inv.y_picture(lab.x, lab.eps, gamma, beta)  # what the sliders' frames hold at each value
    cloud, user = shown.cloud, shown.user
    if d == 3:
        fig = figure(
            "cloud_3d",
            cloud.y,
            kind="y",
            title="Then y = γ⊙x̂ + β",
            camera=camera(),
            circle=shown.circle,
            centre=cloud.beta,
            user=None if user is None else user[2],
        )
    else:
        fig = figure(
            "cloud_2d",
            cloud.inputs,
            cloud.x_hat,
            cloud.y,
            circle=shown.circle,
            line=inv.LINE_2D,
            ellipse_points=shown.ellipse,
            beta=cloud.beta,
            user=user,
        )
    plot.show(fig, key=inv.GEO_PICTURES[d])


@lab_section("inv_y")
def y_section(lab: LabInput, d: int) -> None:
    """γᵢ and βᵢ, their readout and the picture of y = γ⊙x̂ + β. The sliders' frames read the input
    (your vector's y), so they sit in this lab section: the sidebar reruns them with the picture."""
    gamma, beta = geo_controls(lab, d)
    live.readout(inv.geo_frame(lab.x, lab.eps, gamma, beta).readout(inv.GEO_Y))
    # ε moves the readout and the picture of y too (γ, β here are these sliders', not the sidebar's):
    # made once per ε, not once per value of the sidebar's γ and β (the page took 2.5 times as long)
    by_eps = functools.cache(lambda eps: inv.geo_frame(lab.x, eps, gamma, beta))
    live_sidebar.view(lambda at: by_eps(at.eps), (d, *gamma, *beta), lab, part="geometry_y")
    if d == 2:
        y_picture(lab, d, gamma, beta)
        return
    left, right = st.columns(2)
    with left:
        y_picture(lab, d, gamma, beta)
    right.markdown(iv.THREE_VIEWS)


@page_fragment
def geometry_section() -> None:
    st.subheader("Where LayerNorm sends vectors: a plane and a sphere")
    st.markdown(iv.GEOMETRY_INTRO)
    norm_numbers()
    c1, c2 = st.columns([1, 2])
    d = int(
        controls.choice(
            "radio", "Dimension d", [2, 3], index=1, key="geo_d", where=c1, horizontal=True, name="d"
        )
    )
    if d == 3:
        controls.choice(
            "radio",
            "Look from",
            list(cg.CAMERAS),
            key="geo_view",
            where=c2,
            horizontal=True,
            name="view",
            help="You can also drag the 3-D views to turn them.",
            on_change=rerun_fragments,
            args=PICTURES,
        )
    with live.at_rest("inv_pictures"):  # ε moves the clouds of x̂; no frame holds them
        geometry_pictures(d)
    # γᵢ and βᵢ change only the picture of y = γ⊙x̂ + β (in 2-D, the one picture): their sliders sit
    # right above it, in its lab section, and rerun it alone.
    st.markdown("**γ stretches each axis, β moves the centre** (for these pictures only):")
    y_section(d)
    if d == 2:
        st.markdown(iv.D2_SURPRISE)


geometry_section()

page.notice(iv.NOTICES)
page.predict_then_reveal("inv_q", *iv.QUESTION)
page.show_source(geo.invariance_check, geo.invariance_curve, geo.x_hat_norm_squared, geo.normalized_cloud)
