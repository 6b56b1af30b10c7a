"""Step 5: the whole formula with every intermediate in one table."""

import pandas as pd
import streamlit as st

import layernorm as ln
import ui.worksheet
from ui import charts, page, plot
from ui.state import AFFINE_MODES, LabInput, lab_input, lab_section
from ui.text import column_format, digits_to_separate, fmt, rounding_noise, tex_minus, tex_num, tex_vector

lab_input()  # the page draws the input in its lab section below
page.header(
    "Step 5 · The full formula",
    "All the pieces at once: centre with μ, divide by √(σ² + ε), then apply the learned γ and β. "
    "Every quantity is in the table below, feature by feature, exactly as the core computed it.",
)


st.latex(
    r"\mathrm{LayerNorm}(\mathbf{x}) = \gamma \odot \frac{\mathbf{x} - \mu}{\sqrt{\sigma^2 + \epsilon}} + \beta"
)


# The sidebar's ε, γ, β, d and seed rerun only this part (ui.state.lab_section), not the page's text.
@lab_section("full_body")
def body(lab: LabInput) -> None:
    steps = ln.layer_norm_steps(lab.x, lab.gamma, lab.beta, eps=lab.eps)
    mu, var = float(steps.mu), float(steps.var)
    # μ never looks like an x it differs from (so the x's get at least as many digits); σ² never looks like ε
    mu_digits = digits_to_separate([mu], against=steps.x, same_within=rounding_noise(steps.x))
    var_digits = digits_to_separate([var], against=[lab.eps], same_within=rounding_noise(var))
    # β never reads like an x or μ it differs from (β = μ undoes the normalization: 40001.5, not 40002)
    beta_digits = digits_to_separate(steps.beta, against=[*steps.x, mu], same_within=rounding_noise(steps.x))
    st.latex(  # the two halves on their own lines, so a projected screen shows all of each
        rf"\hat{{\mathbf{{x}}}} = \frac{{{tex_vector(steps.x, head=2, digits=mu_digits)} {tex_minus(mu, mu_digits)}}}"
        rf"{{\sqrt{{{tex_num(var, var_digits)} + {tex_num(lab.eps)}}}}} = {tex_vector(steps.x_hat, head=2)}"
    )
    st.latex(
        rf"\mathbf{{y}} = \underbrace{{{tex_vector(steps.gamma, head=2)}}}_{{\gamma}} \odot \hat{{\mathbf{{x}}}}"
        rf" + \underbrace{{{tex_vector(steps.beta, head=2, digits=beta_digits)}}}_{{\beta}}"
        rf" = {tex_vector(steps.y, head=2)}"
    )
    c1, c2, c3, c4 = st.columns(4)
    if float(steps.var) == 0 and float(steps.sigma) > 0:
        st.caption(
            f"σ² is below the smallest positive float64 and shows as 0; σ = {fmt(float(steps.sigma))} is "
            "computed without squaring and is accurate, and so is every number in the table."
        )
    c1.metric("μ", fmt(mu, mu_digits))
    c2.metric("σ²", fmt(var, var_digits))
    c3.metric("√(σ² + ε)", fmt(float(steps.std)))
    c4.metric("d", lab.d)

    table = pd.DataFrame(
        {
            "i": range(1, lab.d + 1),
            "x": steps.x,
            "μ": float(steps.mu),
            "x − μ": steps.centered,
            "σ²": float(steps.var),
            "√(σ² + ε)": float(steps.std),
            "x̂": steps.x_hat,
            "γ": steps.gamma,
            "β": steps.beta,
            "y": steps.y,
        }
    )
    st.dataframe(
        table,
        hide_index=True,
        height=min(38 + 35 * lab.d, 400),
        width="stretch",
        column_config={  # per column, enough digits that different values never print alike
            c: st.column_config.NumberColumn(
                format=column_format([mu], against=steps.x, same_within=rounding_noise(steps.x))
                if c == "μ"
                else column_format(table[c])
            )
            for c in table.columns
            if c != "i"
        },
    )
    ui.worksheet.offer("full_formula", lab, steps)
    plot.show(
        charts.before_after(steps.x, steps.y, float(steps.mu), float(ln.mean(steps.y))), key="full_chart"
    )

    if lab.recorded_y is not None:
        st.subheader("Does it match the real model?")
        diff = ln.max_abs_diff(steps.y, lab.recorded_y)
        same_setup = (
            lab.affine_mode == AFFINE_MODES[3] and lab.model_eps is not None and lab.eps == lab.model_eps
        )
        if same_setup:
            st.success(
                f"MiniLM's own LayerNorm output (recorded from PyTorch) and this lab's agree to "
                f"{fmt(diff)} at most — float32 rounding in the model.",
                icon=":material/check_circle:",
            )
        else:
            st.info(
                f"Largest difference from MiniLM's recorded output: {fmt(diff)}. To reproduce the model "
                f"(to float32 rounding) choose *MiniLM's learned γ, β* and ε = {lab.model_eps:.0e} in the "
                "sidebar.",
                icon=":material/info:",
            )


body()
page.notice(
    [
        "Read one row of the table left to right: that is the whole formula for one feature.",
        "x̂ has mean 0 (up to rounding) and variance σ²/(σ² + ε): close to 1 unless ε is near σ² or above "
        "it. With one γ and one β for every feature, y has mean β and standard deviation |γ| times x̂'s; "
        "per-feature γ and β (MiniLM's) mix with x̂'s own pattern.",
        "Two statistics (μ and σ²) were computed from this one token — no other token was needed.",
    ]
)
page.predict_then_reveal(
    "full_q",
    "How many statistics (numbers that summarize the token) does LayerNorm compute from one token of "
    "width d = 512?",
    ["512", "2", "1024"],
    1,
    "Just μ and σ². γ and β have 512 entries each, but they are learned parameters, not statistics.",
)
page.show_source(ln.layer_norm_steps)
