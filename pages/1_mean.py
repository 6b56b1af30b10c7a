"""Step 1: the mean μ and the centred vector x − μ."""

import layernorm as ln
import ui.worksheet
from layernorm import formula
from ui import live, page
from ui.live import mean, vector
from ui.settings import LabInput
from ui.state import lab_input, lab_section

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
    lo, hi, default, step = mean.SHIFT
    shift, frames = live.slider(
        "Add the same number c to every feature (try it: what happens to x − μ?)",
        lo,
        hi,
        default,
        step,
        key="mean_shift",
        name="c",
        frames=lambda: mean.frames(lab.x, lab.eps),
    )
    # The same function made every frame the slider shows during a drag: the released view equals it.
    shown = mean.shown(lab.x, lab.eps, shift)
    live.readout(shown.readout(mean.READOUT))
    # the input's bars (x + c) can be dragged: feature i follows the pointer, and the page with it
    drag = vector.bars(
        lab,
        lambda at: mean.frame(at.x, at.eps, shift),
        shift,
        chart=mean.CHART_X,
        shown=lab.x + shift,
        offset=shift,
        axis_of=[frames],
    )
    figures = mean.kept_figures(lab.x, lab.eps, shift, lab.label, [frames, drag])
    for fig, chart in zip(figures, shown.charts, strict=True):
        live.show_chart(fig, chart.key, frames, drag)  # its axes are fixed already
    steps = ln.layer_norm_steps(lab.x + shift, eps=lab.eps)
    ui.worksheet.offer("mean", lab, steps, lambda: mean.figures(shown, lab.label))


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
page.show_source(formula.mean)
