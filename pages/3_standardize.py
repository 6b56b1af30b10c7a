"""Step 3: standardize with ε inside the square root."""

import numpy as np
import streamlit as st

import layernorm as ln
import ui.worksheet
from layernorm import formula
from ui import charts, live, page, plot, session
from ui.live import sidebar as live_sidebar
from ui.live import standardize, vector
from ui.settings import LabInput
from ui.state import lab_input, lab_section

lab_input()  # the page draws the input in its lab section below
page.header(
    "Step 3 · Standardize: x̂ = (x − μ) / √(σ² + ε)",
    "Now we use both statistics: subtract the mean so the vector is centred at zero, then divide by "
    "√(σ² + ε), very nearly the standard deviation, so its spread becomes one. Whatever scale the "
    "token arrived with, x̂ leaves with variance σ²/(σ² + ε): 1 for all practical purposes while σ² "
    "is far above ε. The small ε under the root is a safety margin: without it, a vector whose "
    "features are all equal would divide zero by zero.",
)


# The page's own controls and the sidebar's ε, d, seed rerun only this part (ui.state.lab_section).
@lab_section("std_body")
def body(lab: LabInput) -> None:
    input_spot = st.container()  # the input's draggable bars, once the page's controls are known
    steps = ln.layer_norm_steps(lab.x, eps=lab.eps)
    if lab.d > 1:
        # To Streamlit a slider whose range changed is a new widget, which starts again at 1: on the
        # run where d changed, the feature is written back, as the number box this was kept it
        # (controls.slider moves one beyond the new d to d).
        if session.pages.std_feature_d.get() not in (None, lab.d):
            session.widgets.touch("std_feature")
        session.pages.std_feature_d.set(lab.d)
        feature, _ = live.slider(
            "Show the arithmetic for feature i =",
            1.0,
            float(lab.d),
            1.0,
            1.0,
            key="std_feature",
            name="feature i",
            frames=lambda: standardize.feature_frames(lab.x, lab.eps),
            format_func=standardize.feature_text,
        )
        i = int(min(max(round(feature), 1), lab.d)) - 1
    else:  # one feature: nothing to choose (a slider needs two ends)
        i = 0
    # The same function made every frame the slider shows during a drag: the released view equals it.
    live.readout(
        standardize.feature_frame(standardize.worked(lab.x, lab.eps), i + 1).readout(standardize.FEATURE)
    )
    st.caption("ε is set in the sidebar (log scale, 1e-12 to 1), so it is the same on every page.")
    shown = standardize.xhat_frame(lab.x, lab.eps)
    live.readout(shown.readout(standardize.XHAT))
    xhat_chart = st.empty()  # drawn below, once the sidebar's ε frames give its fixed axis

    eps_grid = np.logspace(-12, 0, 61)
    xhat_var = steps.x_hat_var_at(eps_grid)
    eps_curve = charts.eps_curve(
        eps_grid, xhat_var, lab.eps, float(steps.x_hat_var_expected), float(steps.var)
    )
    with live.at_rest("std_eps"):  # its marker stands at the released ε
        plot.show(eps_curve, key="std_chart_eps")

    st.subheader("Where ε takes over: a nearly constant vector")
    st.markdown(
        "ε matters only when σ² is not far above it. Here is a vector of eight values around 3, with a "
        "spread you choose. While σ² is much larger than ε, x̂ still has nearly unit variance; once σ² "
        "falls well below ε, the division is by about √ε instead and x̂ collapses towards zero — finite, "
        "never NaN."
    )
    spread, spreads = standardize.spread_slider(
        "std_spread", standardize.SPREAD_DEFAULT, lambda: standardize.spread_frames(lab.eps)
    )
    near = standardize.spread_frame(lab.eps, spread)
    live.readout(near.readout(standardize.NEAR))

    # The sidebar's ε moves all of the above during a drag: its frames are this function of ε.
    def view(at: LabInput) -> live.Frame:
        return standardize.page_frame(at.x, at.eps, i + 1, spread)

    by_eps = live_sidebar.view(view, (i, spread), lab)
    with input_spot:
        vector.input_chart(lab, view, (i, spread))
    xhat_figure = charts.standardized_chart(steps.x_hat)
    with xhat_chart.container():
        live.show_chart(xhat_figure, standardize.CHART_XHAT, *by_eps)
    live.show_chart(standardize.near_figure(near), standardize.CHART_NEAR, spreads, *by_eps)
    ui.worksheet.offer("standardize", lab, steps, lambda: [xhat_figure, eps_curve], feature=i)


body()

# What does not change with the page's controls is drawn outside the fragment: a control's rerun
# sends none of it again.
page.notice(
    [
        "x̂ has mean 0 (up to rounding) and variance σ²/(σ² + ε): just below 1 while σ² is far above ε, "
        "lower when it is not, and 0 for a constant vector.",
        "Slide ε up in the sidebar: x̂ barely changes while ε is far below σ²; as ε nears σ² and passes "
        "it, x̂ shrinks towards 0.",
        "Choose the *constant* preset: σ² = 0, and x̂ is exactly 0 everywhere thanks to ε.",
    ]
)
page.predict_then_reveal(
    "std_q",
    "A token's features are all exactly 3 and ε = 1e-5. What is x̂?",
    ["NaN, because of 0/0", "All zeros", "All ones"],
    1,
    "x − μ is 0 and the divisor is √ε ≈ 0.0032, so every entry is 0/0.0032 = 0. With ε = 0 it would be 0/0.",
)
page.show_source(formula.standardize)
