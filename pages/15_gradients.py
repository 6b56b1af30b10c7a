"""Under the hood: the gradient through LayerNorm, its Jacobian and what ε does to it."""

import numpy as np
import streamlit as st

import layernorm as ln
from layernorm import formula
from layernorm.backward import layer_norm_backward_from_steps
from layernorm.gradient_check import CHECK_STEPS
from ui import charts_gradients, controls, live, page, plot, session
from ui import gradients_view as gv
from ui.fragments import page_fragment, rerun_fragments
from ui.live import gradients as lg
from ui.live import sidebar as live_sidebar
from ui.live import standardize
from ui.settings import LabInput
from ui.state import lab_input, lab_section
from ui.text import (
    fmt,
    plain,
)

MAX_CURVE_D = 64  # one SVD per ε: fine up to here
ANNOTATE_D = 8  # write the numbers into the cells up to this size
UPSTREAM = ["Random (seeded)", "All ones", "One-hot"]
EPS_GRID = np.logspace(-12, 0, 49)
NEAR_D, NEAR_MEAN = lg.NEAR_D, lg.NEAR_MEAN
G_STREAM = 15  # seeds g apart from the presets: seed 0 must not give g = x (then dx is only the ε term)


def upstream_gradient(kind: str, d: int, seed: int, k: int) -> np.ndarray:
    """The upstream gradient g = ∂L/∂y the student picked (an input, not a computation)."""
    if kind == UPSTREAM[1]:
        return np.ones(d)
    if kind == UPSTREAM[2]:
        return np.eye(d)[k - 1]
    return np.random.default_rng([G_STREAM, seed]).standard_normal(d)  # not the sidebar's draw


lab_input()  # the page draws the input in its lab sections below
page.header(
    "Under the hood · Gradients through LayerNorm",
    "Training sends a gradient backwards through every LayerNorm: given how the loss L changes "
    "with the outputs (g = ∂L/∂y), what is ∂L/∂x? Because LayerNorm forgets the mean and the scale "
    "of x, the answer can never push x to change its mean: the input gradient always sums to zero. "
    "Of a push that would grow or shrink x along x̂ it keeps only the share ε/(σ² + ε): next to nothing "
    "while ε ≪ σ². Below, the backward pass is split "
    "into its three terms with your numbers, the whole Jacobian is drawn, and ε shows what it is "
    "for: it keeps the gradient of a nearly constant vector from exploding.",
)
st.latex(
    r"\frac{\partial L}{\partial x} = \frac{1}{\hat\sigma}\Big(g\odot\gamma"
    r" - \operatorname{mean}(g\odot\gamma) - \hat x\,\operatorname{mean}(g\odot\gamma\odot\hat x)\Big),"
    r"\qquad \hat\sigma = \sqrt{\sigma^2 + \epsilon}"
)


# --- controls: the upstream gradient ---------------------------------------------------------------
# The controls and the text around the numbers are drawn once, by the page. The numbers are lab
# sections: the page's controls rerun theirs alone (on_change), and the sidebar's ε, γ, β, d, seed
# rerun those that read what moved, leaving the controls, headings and text where they are.
UPSTREAM_CONTROLS, BACKWARD, CHECK = "grad_upstream", "grad_backward", "grad_check"
SEED_START, K_START = 0, 1  # the controls' starting values


def upstream() -> tuple[str, int, int]:
    """The upstream gradient's kind, seed and one-hot position k as its controls hold them."""
    get = session.widgets.get
    return str(get("grad_kind", UPSTREAM[0])), int(get("grad_seed", SEED_START)), int(get("grad_k", K_START))


@page_fragment(key=UPSTREAM_CONTROLS)
def upstream_controls() -> None:
    c1, c2, c3 = st.columns([2, 1, 1])
    kind = str(
        controls.choice(
            "radio",
            "Upstream gradient g = ∂L/∂y",
            UPSTREAM,
            key="grad_kind",
            where=c1,
            horizontal=True,
            name="g",
            help="Random: any loss. All ones: L = sum of the outputs. One-hot: L = one output yₖ.",
            on_change=rerun_fragments,
            args=(UPSTREAM_CONTROLS, BACKWARD, CHECK),  # the seed and k boxes are enabled by the kind
        )
    )
    again = {"on_change": rerun_fragments, "args": (BACKWARD, CHECK)}
    controls.number_input(
        "Seed of g",
        0,
        9999,
        SEED_START,
        key="grad_seed",
        where=c2,
        name="seed",
        disabled=kind != UPSTREAM[0],
        **again,
    )
    controls.number_input(
        "One-hot at k =",
        1,
        4096,
        K_START,
        key="grad_k",
        where=c3,
        name="k",
        disabled=kind != UPSTREAM[2],
        **again,
    )


@lab_section(BACKWARD)
def backward_numbers(lab: LabInput) -> None:
    kind, seed, k_raw = upstream()
    k = min(max(k_raw, 1), lab.d)
    if kind == UPSTREAM[2] and k != k_raw:
        st.info(f"Your vector has d = {lab.d} features, so the one-hot sits at k = {k}.", icon="ℹ️")
    dy = upstream_gradient(kind, lab.d, seed, k)

    try:
        terms = ln.layer_norm_backward_terms(lab.x, lab.gamma, dy, eps=lab.eps)
    except ValueError as exc:  # the sidebar keeps x, γ, ε valid; this is a last guard, never a traceback
        st.error(plain(exc, 400), icon="⚠️")
        return

    # --- the three terms, with numbers ----------------------------------------------------------------
    feature_arithmetic(lab, terms)
    # ∂L/∂x and its identities come from one function, for the released view and every frame of the
    # sidebar's live ε, γ, β (with the ε section's metrics: ui.live.gradients.page_frame).
    register_view(lab, dy)
    shown = lg.backward_frame(terms, lab.d)
    live.readout(shown.readout(lg.DX))
    # What no frame holds (a caption with numbers, the terms' chart) is dimmed while a slider moves.
    with live.at_rest("grad_terms"):
        st.caption(
            f"σ̂ = √(σ² + ε) = {fmt(terms.std, 6)}; g⊙γ uses the sidebar's γ "
            f"({plain(lab.affine_mode, 80)}); ε = {lab.eps:.0e}."
        )
        plot.show(
            charts_gradients.backward_terms_chart(terms.term_g, terms.term_mean, terms.term_proj, terms.dx),
            key="grad_chart_terms",
        )

    # --- the two identities -------------------------------------------------------------------------------
    live.readout(shown.readout(lg.IDENTITIES))
    with live.at_rest("grad_share"):
        st.caption(
            f"Here ε/(σ² + ε) = {fmt(terms.eps_share)}: the share of a push along x̂ that ∂L/∂x keeps "
            + (
                "(ε ≪ σ², so next to nothing)."
                if terms.eps_share <= gv.MUCH_SMALLER
                else "(ε is not ≪ σ² here)."
            )
        )


def register_view(lab: LabInput, dy: np.ndarray) -> None:
    """Say what the sidebar's ε, γ, β change on this page: the backward pass of ``dy`` and the ε
    section's metrics, at the spread the slider holds (both sections that draw them call it).
    """
    spread_now = float(session.widgets.get("grad_spread", lg.SPREAD_START))
    token = (*upstream(), spread_now, dy.tobytes())
    live_sidebar.view(lambda at: lg.page_frame(at, dy, spread_now), token, lab)


def current_dy(lab: LabInput) -> np.ndarray:
    """The upstream gradient g as the controls hold it (the one-hot's k kept within d)."""
    kind, seed, k_raw = upstream()
    return upstream_gradient(kind, lab.d, seed, min(max(k_raw, 1), lab.d))


# Nested in the backward section: the feature picked changes only its two lines of arithmetic, so it
# reruns them alone; the section's own controls and the sidebar rerun both.
@page_fragment
def feature_arithmetic(lab: LabInput, terms: ln.LayerNormBackwardTerms) -> None:
    i = int(
        controls.number_input(
            "Show the arithmetic for feature i =",
            1,
            lab.d,
            1,
            key="grad_feature",
            where=st.columns([1, 3])[0],
            name="feature i",
        )
    )
    i = min(max(i, 1), lab.d) - 1
    with live.at_rest("grad_feature_arithmetic"):  # no frame holds them: dimmed while a slider moves
        for line in gv.feature_latex(terms, i):
            st.latex(line)


upstream_controls()
st.subheader("The backward pass, term by term")
backward_numbers()
st.markdown(
    "The first is zero to rounding, always. The second is in general not zero: ε breaks the scale "
    "invariance, and the dot product is exactly ε/σ̂³ · (g⊙γ)·x̂ — the third number (0 only when "
    "(g⊙γ)·x̂ = 0, e.g. g = all ones with γ shared). While ε ≪ σ² it is a small share of what the "
    "push along x̂ would be; move ε in the sidebar and watch the two numbers move together."
)


# --- ∂L/∂γ, ∂L/∂β and a finite-difference check -----------------------------------------------------
@lab_section(CHECK)
def check_numbers(lab: LabInput) -> None:
    c1, c2, c3 = st.columns([2, 1, 1])
    what = str(
        controls.choice(
            "radio", "Nudge", list(gv.CHECK_WHAT), key="grad_check_of", where=c1, horizontal=True,
            format_func=gv.CHECK_WHAT.get, name="nudge",
        )
    )  # fmt: skip
    i = int(controls.number_input("Feature i =", 1, 4096, 1, key="grad_check_i", where=c2, name="feature i"))
    h = float(
        controls.choice(
            "selectbox", "Step h", CHECK_STEPS, key="grad_check_h", index=CHECK_STEPS.index(gv.CHECK_H_START),
            where=c3, format_func=gv.step_text, name="step h",
        )
    )  # fmt: skip
    i = min(max(i, 1), lab.d)
    dy = current_dy(lab)
    try:
        check = ln.finite_difference_check(
            lab.x, lab.gamma, lab.beta, dy, eps=lab.eps, parameter=what, index=i - 1, steps=CHECK_STEPS
        )
        steps = ln.layer_norm_steps(lab.x, lab.gamma, eps=lab.eps)
        _, dgamma, dbeta = ln.layer_norm_backward(lab.x, lab.gamma, dy, eps=lab.eps)
    except ValueError as exc:  # the sidebar keeps x, γ, ε valid; this is a last guard, never a traceback
        st.error(plain(exc, 400), icon="⚠️")
        return
    # Computed from the sidebar's ε, γ, β, which no frame of this section holds: dimmed while they move.
    with live.at_rest("grad_check"):
        st.latex(
            gv.check_latex(
                i, float(dy[i - 1]), float(steps.x_hat[i - 1]), float(dgamma[i - 1]), float(dbeta[i - 1])
            )
        )
        k = CHECK_STEPS.index(h)
        metrics = gv.check_metrics(check, what, i, h)
        m1, m2 = st.columns(2)  # fifteen digits each: two to a row at 1280 px
        m1.metric(*metrics[0])
        m2.metric(*metrics[1])
        m3, _ = st.columns(2)
        m3.metric(*metrics[2])
        plot.show(
            charts_gradients.finite_difference_chart(
                np.array(CHECK_STEPS), check.errors, chosen=k, what=f"{gv.CHECK_SYMBOL[what]}ᵢ"
            ),
            key="grad_chart_check",
        )
        st.caption(gv.check_sentence(check, what))


st.subheader("∂L/∂γ and ∂L/∂β, and a check you can run")
st.markdown(
    "γ and β are learned, so the backward pass gives their gradients too: ∂L/∂βᵢ = gᵢ (β is added "
    "straight to the output) and ∂L/∂γᵢ = gᵢ·x̂ᵢ. A gradient check nudges one entry by ±h, runs the "
    "forward pass twice and compares (L(θ + h) − L(θ − h))/2h with the backward pass's number. Pick "
    "what to nudge and the step, and see where the check stops agreeing."
)
check_numbers()


# --- the Jacobian ---------------------------------------------------------------------------------
@lab_section("grad_jacobian")
def jacobian_numbers(lab: LabInput) -> None:
    if lab.d > gv.MAX_JACOBIAN_D:
        st.info(gv.jacobian_too_big(lab.d), icon="🔎")
        return
    # The Jacobian's numbers and picture are the server's (a heatmap is no bar or scatter chart a frame
    # can move): dimmed while a slider moves.
    with live.at_rest("grad_jacobian"):
        facts = ln.layer_norm_jacobian_facts(lab.x, lab.gamma, eps=lab.eps)
        st.latex(gv.jacobian_latex(facts, lab.d))
        plot.show(
            charts_gradients.jacobian_heatmap(facts.jacobian, annotate=lab.d <= ANNOTATE_D),
            key="grad_chart_jacobian",
        )
        for col, metric in zip(st.columns(3), gv.jacobian_metrics(facts, lab.d), strict=True):
            col.metric(**metric)
        constant = float(ln.layer_norm_steps(lab.x, lab.gamma, eps=lab.eps).var) == 0.0
        notes = gv.jacobian_notes(facts, lab.d, constant)
        st.markdown("\n".join(f"- {n}" for n in notes))


st.subheader("The whole Jacobian ∂y/∂x")
jacobian_numbers()


# --- what ε does -------------------------------------------------------------------------------------
norm_vs_eps = lg.norm_vs_eps  # shared by every session (one SVD per ε)
GRID = tuple(float(e) for e in EPS_GRID)


# The spread's slider is drawn in the section that shows its numbers: its drag shows the metrics of
# every spread (ui.live.gradients), and the sidebar's ε, which they read, reruns it with them.
@lab_section("grad_eps")
def eps_numbers(lab: LabInput) -> None:
    spread_now, _ = standardize.spread_slider(
        "grad_spread",
        lg.SPREAD_START,
        lambda: lg.frames(lab.eps),
        on_change=rerun_fragments,  # records the rerun as every section-rerunning control does
        args=("grad_eps",),
    )
    register_view(lab, current_dy(lab))
    near = lg.near_constant(spread_now)  # the slider's vector
    near_curve = norm_vs_eps(near, GRID)
    near_now = norm_vs_eps(near, (lab.eps, 0.0))
    curves = [(f"nearly constant (spread {spread_now:.0e})", near_curve.norm, "mu")]
    now = [float(near_now.norm[0])]
    if 2 <= lab.d <= MAX_CURVE_D:
        curves.append(("your vector", norm_vs_eps(lab.x, GRID).norm, "x"))
        now.append(float(norm_vs_eps(lab.x, (lab.eps,)).norm[0]))
    else:
        st.caption(
            f"Your vector (d = {lab.d}) is left out of the curve: it is drawn for 2 ≤ d ≤ {MAX_CURVE_D}."
        )
    # Drawn at rest only (dimmed while a slider moves): its legend names the spread and its marker sits
    # at the sidebar's ε, neither of which a frame can move.
    with live.at_rest("grad_chart_eps"):
        plot.show(
            charts_gradients.jacobian_norm_curve(
                EPS_GRID, curves, eps_now=lab.eps, ceiling=near_curve.ceiling, now=now
            ),
            key="grad_chart_eps",
        )
    # The same function made every frame the slider shows during a drag: the released view equals it.
    live.readout(lg.frame(lab.eps, spread_now).readout(lg.METRICS))


st.subheader("What ε does to the gradient of a nearly constant vector")
st.markdown(
    "Without ε, LayerNorm stretches a small change of x by up to 1/σ: a vector whose features are "
    f"almost equal would get an enormous gradient. Here {NEAR_D} values close to {NEAR_MEAN:g} with a "
    "spread you choose, next to your own vector (γ = 1). ε caps the stretch at 1/√ε."
)
eps_numbers()

page.notice(
    [
        "Σᵢ ∂L/∂xᵢ is 0 to rounding whatever g, γ and ε: LayerNorm cannot be pushed to move its input's mean.",
        "Pick g = all ones (L = Σ y) with γ shared: ∂L/∂x is 0 to rounding — that loss does not depend "
        "on x at all.",
        "Pick one-hot k: ∂L/∂x is row k of the Jacobian (for d ≤ 16, compare the bars with that row of "
        "the heatmap).",
        "With d = 2, x̂ can only be ±(a, −a) with a = σ/√(σ² + ε): while ε ≪ σ², a ≈ 1 and the Jacobian "
        "is almost 0, so the output hardly moves.",
        "Raise ε: the nearly constant vector's largest stretch is 1/√(σ² + ε), never above 1/√ε; once ε "
        "is well above σ² it is about 1/√ε, far below 1/σ.",
    ]
)
page.predict_then_reveal(
    "grad_q",
    "γ = 1, and the loss is the sum of all of LayerNorm's outputs, L = Σᵢ yᵢ. What is ∂L/∂x?",
    ["All ones", "Zero everywhere", "x̂ / σ̂"],
    1,
    "Σᵢ yᵢ = Σᵢ x̂ᵢ + Σᵢ βᵢ, and x̂ always sums to 0, so L does not depend on x: "
    "g − mean(g) = 0 and mean(g·x̂) = mean(x̂) = 0, so both terms cancel g.",
)
page.show_source(
    formula.layer_norm_backward,
    ln.layer_norm_backward_terms,
    layer_norm_backward_from_steps,
    ln.layer_norm_jacobian,
    ln.layer_norm_jacobian_facts,
)
