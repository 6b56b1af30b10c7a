"""Step 2: the population variance σ², why ÷d, and why two passes."""

import streamlit as st

import layernorm as ln
import ui.worksheet
from layernorm import formula
from layernorm.variants import variance_one_pass
from ui import live, page, plot
from ui.live import sidebar as live_sidebar
from ui.live import variance, vector
from ui.settings import LabInput
from ui.state import lab_input, lab_section

lab_input()  # the page draws the input in its lab section below
page.header(
    "Step 2 · The variance σ²",
    "Knowing the centre is not enough: two tokens can share a mean while one is tightly bunched and "
    "the other scattered. The variance measures the spread as the average squared distance from μ. "
    "Squaring makes distances above and below the mean count alike instead of cancelling, and it "
    "weighs far-away features heavily.",
)


# The page's own controls and the sidebar's ε, d, seed rerun only this part (ui.state.lab_section).
@lab_section("variance_body")
def body(lab: LabInput) -> None:
    input_spot = st.container()  # the input's draggable bars, once the stretch a is known
    offset_guess = live.before_its_slider(  # the offset's slider is further down; a's frames need it
        "var_offset",
        variance.OFFSETS,
        [variance.offset_text(o) for o in variance.OFFSETS],
        variance.OFFSET_DEFAULT,
    )
    scale, _ = live.select_slider(
        "Stretch: multiply every feature by a",
        variance.SCALES,
        variance.SCALE_DEFAULT,
        key="var_scale",
        name="a",
        format_func=variance.scale_text,
        frames=lambda: variance.scale_frames(lab.x, lab.eps, offset_guess),
    )
    # The same function made every frame the slider shows during a drag: the released view equals it,
    # and it is what the sidebar's ε moves (the variance of x̂ depends on ε).
    shown = variance.frame(lab.x, lab.eps, scale)
    live_sidebar.view(lambda at: variance.frame(at.x, at.eps, scale), scale, lab)
    x = lab.x * scale
    steps = ln.layer_norm_steps(x, eps=lab.eps)
    live.readout(shown.readout(variance.SIGMA2))
    if float(steps.var) == 0 and float(steps.sigma) > 0:
        st.caption(
            "σ² is smaller than the smallest positive float64 (about 5e−324) and shows as 0; "
            "σ is computed without squaring, so it is still accurate, and so is everything LayerNorm "
            "computes here."
        )
    # Its y axis follows the figure (not fixed over every a): σ² spans four decades over a, and a
    # fixed axis would leave a = 1's bars a hundredth of the chart. The browser redraws it with Plotly.
    plot.show(variance.figure(lab.x, lab.eps, scale), key=variance.CHART)

    st.subheader("Why divide by d, not d − 1?")
    st.markdown(
        "In statistics, ÷(d−1) corrects for estimating a *population's* variance from a sample. LayerNorm "
        "is not estimating anything: the d numbers in front of it are the whole population it wants to "
        "rescale. Dividing by d gives their exact spread, so the normalized vector's variance is "
        "σ²/(σ² + ε): just under 1 while σ² is far above ε (it drops towards 0 when σ² is near ε or "
        "below it). Dividing by d − 1 would shrink it further, to (d−1)/d of that when ε ≪ σ²: a small "
        "but systematic shrink that matters most for small d."
    )
    if lab.d > 1:
        live.readout(shown.readout(variance.XHAT))
    else:
        st.info("With d = 1 the sample variance ÷(d−1) is 0/0: one more reason LayerNorm uses ÷d.")

    st.subheader("Why two passes? A float32 trap")
    st.markdown(
        "A tempting shortcut computes σ² = mean(x²) − μ² in one pass. When the values sit far from zero "
        "compared with their spread, the two terms are huge and nearly equal, and float32 loses the "
        "difference — sometimes giving a *negative* variance. The core subtracts μ first, in float64."
    )
    offset, _ = live.select_slider(
        "Add a large offset to every feature",
        variance.OFFSETS,
        variance.OFFSET_DEFAULT,
        key="var_offset",
        name="offset",
        format_func=variance.offset_text,
        frames=lambda: variance.offset_frames(lab.x, scale),
    )
    if offset != offset_guess:
        st.rerun()  # a's frames were made at another offset
    live.readout(variance.pass_frame(lab.x, scale, offset).readout(variance.PASSES))

    def whole(at: LabInput) -> live.Frame:  # everything above that a change of x moves
        return variance.with_passes(variance.frame(at.x, at.eps, scale), at.x, scale, offset)

    with input_spot:
        vector.input_chart(lab, whole, (scale, offset))
    ui.worksheet.offer("variance", lab, steps, lambda: [variance.figure(lab.x, lab.eps, scale)])


body()

# What does not change with the page's controls is drawn outside the fragment: a control's rerun
# sends none of it again.
page.notice(
    [
        "σ² is the average height of the squared deviations: the dashed orange line.",
        "Stretch x by a: σ² is multiplied by a², σ by a.",
        "The ÷(d−1) value is d/(d−1) times σ²: a third more at d = 4, only 0.13% more at d = 768.",
        "Push the offset up: once it is large next to the spread, the one-pass float32 formula loses "
        "the variance (it can even go negative), while the two-pass float64 value holds on far longer.",
    ]
)
page.predict_then_reveal(
    "var_q",
    "Every feature is multiplied by 3. What happens to σ²?",
    ["It triples", "It is multiplied by 9", "It stays the same"],
    1,
    "Every deviation triples, so every squared deviation is 9 times larger, and so is their mean.",
)
page.show_source(formula.variance, variance_one_pass)
