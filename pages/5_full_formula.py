"""Step 5: the whole formula with every intermediate in one table."""

import pandas as pd
import streamlit as st

import layernorm as ln
import ui.worksheet
from layernorm import formula
from ui import live, page, plot
from ui.live import full_formula, vector
from ui.live import sidebar as live_sidebar
from ui.settings import AFFINE_MODES, LabInput
from ui.state import lab_input, lab_section
from ui.text import column_format, fmt, rounding_noise

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

    def view(at: LabInput) -> live.Frame:
        return full_formula.frame(at.x, at.gamma, at.beta, at.eps)

    payloads = live_sidebar.view(view, None, lab)
    vector.input_chart(lab, view, None)
    shown = view(lab)
    live.readout(shown.readout(full_formula.XHAT))
    live.readout(shown.readout(full_formula.Y))
    if float(steps.var) == 0 and float(steps.sigma) > 0:
        st.caption(
            f"σ² is below the smallest positive float64 and shows as 0; σ = {fmt(float(steps.sigma))} is "
            "computed without squaring and is accurate, and so is every number in the table."
        )

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
    with live.at_rest("full_table"):  # a table is drawn by the server: dimmed while a slider moves
        st.dataframe(
            table,
            hide_index=True,
            height=min(38 + 35 * lab.d, 400),
            width="stretch",
            column_config={  # per column, enough digits that different values never print alike
                c: st.column_config.NumberColumn(
                    format=column_format(
                        [float(steps.mu)], against=steps.x, same_within=rounding_noise(steps.x)
                    )
                    if c == "μ"
                    else column_format(table[c])
                )
                for c in table.columns
                if c != "i"
            },
        )
    figure = full_formula.figure(lab.x, lab.gamma, lab.beta, lab.eps)
    ui.worksheet.offer("full_formula", lab, steps, lambda: [figure])
    if shown.charts:
        live.show_chart(figure, full_formula.CHART, *payloads)
    else:
        with live.at_rest("full_chart"):
            plot.show(figure, key=full_formula.CHART)

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
page.show_source(formula.layer_norm)
