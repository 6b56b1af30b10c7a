"""Step 1: the mean μ and the centred vector x − μ."""

import streamlit as st

import layernorm as ln
import ui.worksheet
from layernorm.core import _center_rows
from ui import charts, controls, page, plot
from ui.state import LabInput, lab_input, lab_section
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

lab_input()  # the page draws the input in its lab section below
page.header(
    "Step 1 · The mean μ",
    "Before we can fix how a token's numbers are spread, we need to know where they are centred. "
    "The mean is the balance point of the d features: a positive μ means the vector sits above "
    "zero on average, a negative μ below. Subtracting it slides every feature by the same amount, "
    "so the centred vector x − μ balances at zero (exactly in arithmetic; float64 may leave a "
    "rounding-sized remainder, which the page marks).",
)


# The page's own controls and the sidebar's ε, d, seed rerun only this part (ui.state.lab_section).
@lab_section("mean_body")
def body(lab: LabInput) -> None:
    shift = controls.slider(
        "Add the same number c to every feature (try it: what happens to x − μ?)",
        -10.0,
        10.0,
        0.0,
        0.5,
        key="mean_shift",
        name="c",
    )
    x = lab.x + shift  # the input as the student modified it
    steps = ln.layer_norm_steps(x, eps=lab.eps)
    mu = float(steps.mu)
    # μ gets the digits that tell it apart from every x it differs from (40001.5 is not 40002)
    mu_digits = digits_to_separate([mu], against=steps.x, same_within=rounding_noise(steps.x))
    terms = tex_sum(x, digits=mu_digits)
    st.latex(
        rf"\mu = \frac{{1}}{{d}}\sum_{{i=1}}^{{d}} x_i = \frac{{1}}{{{lab.d}}}\left({terms}\right) = {tex_num(mu, mu_digits)}"
    )

    c1, c2, c3 = st.columns(3)
    c1.metric("d (features)", lab.d)
    c2.metric("μ (mean)", fmt(mu, mu_digits), **(change_metric(shift) if shift else {}))
    mean_centered = float(ln.mean(steps.centered))
    c3.metric("mean of x − μ", **zero_metric(mean_centered, steps.centered))  # 0 in exact arithmetic

    plot.show(
        charts.feature_chart(
            [("x", steps.x)],
            f"The input x ({plain_chart(lab.label, LABEL_LIMIT)}) and its mean",
            hlines=[("mu", mu, f"μ = {fmt(mu, mu_digits)}")],
        ),
        key="mean_chart_x",
    )
    plot.show(
        charts.feature_chart(
            [("centered", steps.centered)],
            "Centred: x − μ balances at zero",
            hlines=[("mu", 0.0, "new mean = 0")],
        ),
        key="mean_chart_centered",
    )
    ui.worksheet.offer("mean", lab, steps)


body()

# What does not change with the page's controls is drawn outside the fragment: a control's rerun
# sends none of it again.
page.notice(
    [
        "x − μ has the same shape as x: centring moves the vector, it does not reshape it.",
        "Move c: μ moves by c, and x − μ stays the same up to float64 rounding (shift invariance).",
        "Pick the *one large outlier* preset: its feature at 40 (c = 0) adds 40/d to μ (5 at d = 8), and for "
        "d up to 8 every other feature lands below zero after centring. Real MiniLM tokens have "
        "outlier features too.",
    ]
)
page.predict_then_reveal(
    "mean_q",
    "Every feature of a token gets +5 added. What happens to x − μ?",
    ["Every entry grows by 5", "Nothing: it is unchanged", "It is multiplied by 5"],
    1,
    "μ grows by 5 too, so every difference xᵢ − μ stays the same (up to float64 rounding): "
    "LayerNorm's output does not change when the same number is added to every feature.",
)
page.show_source(ln.mean, _center_rows)
