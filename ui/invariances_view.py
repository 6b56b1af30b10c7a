"""Invariances' sentences and formulas, made from the core's numbers (``layernorm.labs.geometry``).

Scaling and shifting the input (section 1) and where LayerNorm sends vectors (section 2): this
module only picks and formats the numbers, and holds the words around them; the page draws them,
with its controls and charts.
"""

from __future__ import annotations

import numpy as np

from layernorm.labs import geometry as geo
from ui.live import invariances as inv
from ui.text import digits_to_separate, fmt, tex_num

CLOUD_POINTS, CLOUD_SEED = inv.CLOUD_POINTS, inv.CLOUD_SEED
SCALE_LATEX = (
    r"\mathrm{LN}(c\,x + b) = \operatorname{sign}(c)\,\frac{x - \mu}{\sqrt{\sigma^2 + \epsilon / c^2}}"
    r"\qquad (\gamma = 1,\ \beta = 0)"
)
AFFINE_NOTE = "y = γ⊙LN(·) + β with the sidebar's γ and β. Set γ = 0 there: both become β."
CURVE_INTRO = (
    "**How nearly?** The curve tries every scale c > 0 (your b kept). With ε = 0 LayerNorm would "
    "not move at all (only float64 rounding is left); with your ε it moves as far as ε/c² differs from "
    "ε next to σ²: little while both are far below σ², a lot once c²σ² is no longer much larger than ε, "
    "because the input then looks nearly constant. RMSNorm moves as soon as b ≠ 0."
)
CURVE_NOTE = (
    "Log–log axes; a gap of exactly 0 has no place on them and is not drawn. At c = 1 nothing "
    "changes, hence the dip. For large c the output tends to the ε-free x̂, which differs from "
    "LN(x) itself by a factor √(1 + ε/σ²), about 1 + ε/(2σ²) while ε ≪ σ²: the flat tail (a constant "
    "vector has no tail: its output is 0 at every c). The dotted line is what float64 rounding alone "
    "can do: for small c, b dwarfs c·x and keeps fewer of its digits."
)
NO_EPS0_CURVE = "Your vector is constant, so LayerNorm with ε = 0 is 0/0: that curve is left out."


def scale_notes(c: float, gamma: np.ndarray) -> list[tuple[str, str, str]]:
    """(kind, text, icon) of what this c or the sidebar's γ does to the output, in order."""
    notes = []
    if c == 0:
        notes.append((
            "warning",
            "c = 0 turns every input into the constant vector (b, b, …, b): the pattern is gone. "
            "LayerNorm returns x̂ = 0 (ε keeps 0/0 away) and so y = β, whatever x was.",
            "⚠️",
        ))  # fmt: skip
    elif c < 0:
        notes.append((
            "info",
            "A negative c mirrors the vector: LayerNorm's output flips sign. Compare 'LayerNorm + its "
            "flip' below with 'LayerNorm moved by'.",
            "🔁",
        ))  # fmt: skip
    if np.all(gamma == 0):
        notes.append((
            "info",
            "Your γ is 0, so y = 0·x̂ + β = β for every input: the output has forgotten x entirely.",
            "🧊",
        ))  # fmt: skip
    return notes


GEOMETRY_INTRO = (
    "x̂ has mean 0, so its features add up to 0: it lies on the plane orthogonal to (1, …, 1). "
    "Its variance is σ²/(σ² + ε), so its squared length is d·σ²/(σ² + ε): it lies just inside the "
    "sphere of radius √d while ε ≪ σ², further inside as ε grows towards σ², and at the centre when "
    "the vector is constant. For your vector:"
)


def norm_latex(x: np.ndarray, eps: float, var: float) -> str:
    """‖x̂‖² of the vector ``x`` against d·σ²/(σ² + ε) (``var``: its σ²)."""
    measured, expected = geo.x_hat_norm_squared(x, eps=eps)
    nd = digits_to_separate([float(measured), float(expected)], 6, against=[float(x.size)])
    return (
        rf"\lVert\hat x\rVert^2 = {tex_num(float(measured), nd)} \qquad "
        rf"d\,\frac{{\sigma^2}}{{\sigma^2 + \epsilon}} = {x.size}\cdot\frac{{{tex_num(var)}}}"
        rf"{{{tex_num(var)} + {tex_num(eps)}}} = {tex_num(float(expected), nd)}"
    )


def cloud_hint(your_d: int, d: int) -> tuple[str, str] | None:
    """(text, icon) telling how to see your own vector among the points, or None when it is there."""
    if your_d not in (d, 2, 3):
        return (
            f"Your vector has d = {your_d}, which cannot be drawn. To see your own point here, pick "
            f"Preset with size d = {d} in the sidebar, or type {d} numbers (e.g. "
            f"{'5, 7' if d == 2 else '1, 2, 4'}).",
            "💡",
        )
    if your_d != d:
        return f"Your vector has d = {your_d}: choose d = {your_d} above to see it among the points.", "👆"
    return None


def cloud_caption(cloud: geo.NormalizedCloud, d: int, eps: float) -> str:
    low, high = cloud.norm_squared_range
    nd = digits_to_separate([low, high], 4, against=[float(d)])
    return (
        f"{CLOUD_POINTS} random inputs (seed {CLOUD_SEED}), each a standard normal vector plus a random "
        f"constant. Their ‖x̂‖² lie between {fmt(low, nd)} and {fmt(high, nd)} (d = {d}, ε = {eps:.0e})."
    )


THREE_VIEWS = (
    "**Reading the three views**\n\n"
    "- *Before:* the blob is stretched along the dashed diagonal (1, 1, 1), because each input "
    "got a random constant added. LayerNorm forgets that direction entirely.\n"
    "- *After:* the points lie in the plane x₁ + x₂ + x₃ = 0, on the green circle where it meets the "
    "sphere of radius √3 while ε ≪ their spread, and inside it otherwise (the caption below gives their "
    "‖x̂‖², 3 on the circle). A 3-feature vector keeps just one number: its angle around the circle.\n"
    "- *Then:* γ stretches each axis, so the circle becomes an ellipse (a negative γ mirrors it) "
    "and β moves its centre (×). γ = 0 on an axis flattens it; all three at 0 collapse it to β.\n"
    "- Raise ε in the sidebar towards 1: inputs with a small spread fall *inside* the circle."
)
D2_SURPRISE = (
    "**The d = 2 surprise:** with two features, x − μ is (+a, −a) or (−a, +a), so after dividing "
    "by √(a² + ε) every non-constant input lands on the line through (1, −1) and (−1, 1), at "
    "±a/√(a² + ε) times (1, −1): on the two end points themselves while ε ≪ a², so the "
    f"{CLOUD_POINTS} points pile up on two spots and only the sign of x₁ − x₂ survives. "
    "ε pulls inputs with a² not far above ε inside (raise ε in the sidebar to see it)."
)
NOTICES = [
    "With c = 1 and any b, 'LayerNorm moved by' is 0 to rounding as long as float64 holds x + b exactly: "
    "typed numbers near 1e16 are stored 2 apart, so there b = 1 rounds some of them up and not others, "
    "and LayerNorm moves. With other c > 0 it stays tiny while ε/c² and ε are both far below σ². "
    "RMSNorm moves as soon as b ≠ 0 (by less than rounding when b is tiny next to x).",
    "Make c small (1e-4, 1e-6): once ε/c² (shown above) is comparable to σ², LayerNorm's output shrinks.",
    "c < 0: 'LayerNorm + its flip' is 0 to rounding while ε/c² and ε are both far below σ²: the output "
    "only changed sign.",
    "In 3-D, turn the view to 'Along (1, 1, 1)': the normalized points form a circle (with ε comparable "
    "to their spread, some fall inside it).",
]

# The page's question: (question, choices, the right one's index, why)
QUESTION = (
    "With d = 2, γ = 1, β = 0 and a tiny ε, where do x = (5, 7) and x = (−100, 3) land?",
    ["Both on (−1, 1)", "On two different points of the circle of radius √2", "On (−1, 1) and (1, −1)"],
    0,
    "In both, the first feature is the smaller one, so x − μ = (−a, +a) and x̂ = (−1, 1) (times "
    "√(σ²/(σ² + ε)), which is 1 to many digits). With two features, LayerNorm keeps only which one is "
    "larger.",
)
