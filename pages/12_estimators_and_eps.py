"""Under the hood: ÷d or ÷(d−1), ε inside or outside the root, ε per framework, RMSNorm beside LayerNorm."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

import layernorm as ln
from layernorm.variants import layer_norm_std_plus_eps, layer_norm_unbiased
from ui import charts_numerics as cn
from ui import controls, live, page, plot, session
from ui.live import estimators
from ui.live import sidebar as live_sidebar
from ui.settings import LabInput
from ui.state import lab_input, lab_section
from ui.text import LABEL_LIMIT, digits_to_separate, fmt, plain, rounding_noise
from ui.theme import COLORS

VECTORS = {"sidebar": "the sidebar's", "one_hot": "one-hot [1, 0, 0, 0]", "tiny_pair": "tiny two-value"}
CASE_VECTORS = {"one_hot": np.array([1.0, 0.0, 0.0, 0.0]), "tiny_pair": np.array([0.09484422, 0.16441762])}
DIVISORS = {"d": "d (population, the standard)", "d-1": "d − 1 (sample)"}
PLACES = {"inside": "inside the root: √(σ² + ε)", "outside": "outside: σ + ε"}
PRESETS = {p.name: p for p in ln.EPS_PRESETS}
KERAS, TORCH = "Keras 3 LayerNormalization", "PyTorch nn.LayerNorm"


def eps_str(e: float) -> str:
    """ε as written in the frameworks' docs: 1e−05, 0.001, 1.19e−07."""
    return f"{e:.3g}".replace("-", "−")


def load(vector: str, divisor: str, place: str, eps: str) -> None:
    """Button callback: set this page's controls to a built-in case (the sidebar is left alone)."""
    session.widgets.update(est_vector=vector, est_divisor=divisor, est_place=place, est_eps=eps)


lab_input()  # the page draws the input in its lab section below
page.header(
    "Under the hood · Estimators and ε",
    "Two small choices hide inside every LayerNorm implementation: divide the squared deviations by d or "
    "by d − 1, and add ε inside the square root or to σ after it. Frameworks also disagree on how big ε is. "
    "On a long vector whose σ² is far above ε the recipes nearly agree; on a short vector, or one whose σ² "
    "is close to ε, they can differ in the first digit. Here you pick a recipe and see its output beside "
    "the standard one "
    "(÷d, ε inside, as in PyTorch and the paper).",
)


# The page's controls and the sidebar's ε, d, seed rerun only this part (ui.state.lab_section).
@lab_section("est_body")
def body(lab: LabInput) -> None:
    # Two ready-made cases, a button each: the vector, the divisor, where ε goes, the framework's ε.
    cases = (
        (
            "Load the tutorial case: [1, 0, 0, 0], ÷(d−1), ε outside",
            "est_load_tutorial",
            ("one_hot", "d-1", "outside", TORCH),
        ),
        (
            "Load the Keras case: a tiny spread, ε = 1e-3",
            "est_load_keras",
            ("tiny_pair", "d", "inside", KERAS),
        ),
    )
    for column, (label, key, case) in zip(st.columns(2), cases, strict=True):
        column.button(label, key=key, on_click=load, args=case, width="stretch")
    c1, c2, c3, c4 = st.columns([1.3, 1, 1.2, 1.5])
    vector = controls.choice("radio", "Vector", VECTORS, key="est_vector", where=c1)
    divisor = controls.choice(
        "radio",
        "Variance divides by",
        DIVISORS,
        key="est_divisor",
        where=c2,
    )
    place = controls.choice("radio", "ε goes", PLACES, key="est_place", where=c3)
    eps_choice = controls.choice(
        "selectbox",
        "ε",
        ["sidebar", *PRESETS],
        format_func=lambda k: "the sidebar's ε" if k == "sidebar" else f"{k}: {eps_str(PRESETS[k].eps)}",
        key="est_eps",
        where=c4,
    )
    vector, divisor, place = vector or "sidebar", divisor or "d", place or "inside"
    eps = lab.eps if eps_choice in (None, "sidebar") else PRESETS[str(eps_choice)].eps
    x = lab.x if vector == "sidebar" else CASE_VECTORS[vector]
    ddof, inside = (1 if divisor == "d-1" else 0), place == "inside"
    variant_name = f"÷{'(d−1)' if ddof else 'd'}, ε {place}, ε = {eps_str(eps)}"
    shown_x = ", ".join(fmt(v, 8) for v in x[:6]) + (", …" if x.size > 6 else "")
    where = "built in; the sidebar's input is kept for the other pages" if vector != "sidebar" else lab.label
    with live.at_rest("est_caption"):  # names the sidebar's ε: the released value's during its drag
        st.caption(
            f"x = [{shown_x}] (d = {x.size}; {plain(where, LABEL_LIMIT)}). ε = {eps_str(eps)}: "
            + ("the sidebar's" if eps_choice in (None, "sidebar") else PRESETS[str(eps_choice)].source)
            + ". The standard recipe always uses PyTorch's ε = 1e-5."
        )

    try:
        cmp = ln.compare_recipe(x, ddof=ddof, eps_inside=inside, eps=eps, standard_eps=ln.DEFAULT_EPS)
    except ValueError as exc:  # d = 1 with ÷(d−1); never a traceback
        st.error(f"{exc}. Choose 'd (population)' or a longer vector.", icon="⚠️")
        cmp = ln.compare_recipe(x, ddof=0, eps_inside=inside, eps=eps, standard_eps=ln.DEFAULT_EPS)
        ddof, variant_name = 0, f"÷d, ε {place}, ε = {eps_str(eps)}"

    def view(at: LabInput) -> live.Frame:
        """The numbers the sidebar's ε changes (when ε is the sidebar's), this page's choices as they are."""
        e = at.eps if eps_choice in (None, "sidebar") else eps
        name = f"÷{'(d−1)' if ddof else 'd'}, ε {place}, ε = {eps_str(e)}"
        return estimators.frame(
            at.x if vector == "sidebar" else x, ddof=ddof, inside=inside, eps=e, variant_name=name
        )

    # One function for the released view and every frame of the sidebar's live ε, γ and β. Its frames
    # are made from the sidebar's input itself, not from this section's lab: the section reads ε only
    # when ε is the sidebar's, and must not count what the sidebar's sliders read as its own.
    sidebar = session.lab.lab.get()
    live_sidebar.view(
        view, (vector, ddof, place, str(eps_choice)), sidebar if isinstance(sidebar, LabInput) else lab
    )
    shown = view(lab)
    live.readout(shown.readout(estimators.FORMULA))
    st.caption(
        f"{'s² = Σ(xᵢ − μ)²/(d − 1)' if ddof else 'σ² = Σ(xᵢ − μ)²/d'}; d = {x.size}. γ = 1 and β = 0 here: "
        "the recipes differ only in x̂, and γ, β act the same way on every one of them."
    )
    live.readout(shown.readout(estimators.METRICS))
    # What ε changes and no frame holds (a chart titled with ε, a table) is drawn by the server: dimmed
    # while a slider moves (ui.live.at_rest).
    with live.at_rest("est_chart"):
        plot.show(
            cn.recipe_figure(
                cmp.standard, cmp.variant, cmp.difference, variant_name=variant_name,
                title=f"Standard (÷d, ε = 1e-5 inside) vs yours ({variant_name})",
            ),
            key="est_chart",
        )  # fmt: skip

    rows = []
    RECIPES = [
        (0, True, "standard (PyTorch, the paper)"),
        (1, True, "torch.std's default ÷(d−1)"),
        (0, False, "some hand-written code"),
        (1, False, "Annotated Transformer tutorial"),
    ]
    for dd, ins, seen in RECIPES:
        name = f"÷{'(d−1)' if dd else 'd'}, ε {'inside √' if ins else 'outside'}"
        row: dict[str, object] = {"recipe": name, "seen in": seen}
        try:
            c = ln.compare_recipe(x, ddof=dd, eps_inside=ins, eps=eps, standard_eps=ln.DEFAULT_EPS)
        except ValueError:
            row.update({"x̂₁": "undefined for d = 1", "std of x̂": "–", "largest |diff|": "–"})
        else:
            row.update(
                {"x̂₁": c.variant[0], "std of x̂": c.variant_std, "largest |diff|": c.max_abs_difference}
            )
        rows.append(row)
    table = pd.DataFrame(rows)
    nums = [r["x̂₁"] for r in rows if not isinstance(r["x̂₁"], str)]
    kk = digits_to_separate(nums, 4, same_within=rounding_noise(nums))
    for col, digits in (("x̂₁", kk), ("std of x̂", 6), ("largest |diff|", 3)):
        table[col] = [v if isinstance(v, str) else fmt(v, digits) for v in table[col]]
    with live.at_rest("est_table"):
        st.subheader(f"All four recipes on this vector, ε = {eps_str(eps)}")
        st.caption("The largest |difference| is against the standard recipe with PyTorch's ε = 1e-5.")
        st.table(table.set_index("recipe"))

    st.subheader("RMSNorm beside LayerNorm")
    st.markdown(
        "RMSNorm (T5, LLaMA) skips the centring: it divides x by the root mean square √(mean(x²) + ε), "
        "so a vector whose mean is far from 0 keeps that offset in its output. The authors' reference code "
        "put ε outside the root, as x / (rms + ε); PyTorch and Hugging Face put it inside."
    )
    rms = ln.compare_rms_placement(x, eps=eps)
    layer = ln.compare_recipe(x, ddof=0, eps_inside=True, eps=eps).standard  # LayerNorm with the same ε
    live.readout(shown.readout(estimators.RMS))
    with live.at_rest("est_rms_chart"):
        plot.show(
            cn.rms_figure(
                [("LayerNorm (÷d, ε inside)", layer, COLORS["x_hat"]),
                 ("RMSNorm, ε inside √", rms.standard, COLORS["x"]),
                 ("RMSNorm, ε outside", rms.variant, COLORS["y"])],
                f"LayerNorm vs RMSNorm, ε = {eps_str(eps)}; largest |inside − outside| = {fmt(rms.max_abs_difference, 3)}",
            ),
            key="est_rms_chart",
        )  # fmt: skip

    with st.expander("ε in frameworks and released models"):
        st.table(
            pd.DataFrame(
                [{"framework / model": p.name, "ε": eps_str(p.eps), "norm": p.norm,
                  "ε placement": "inside √" if p.eps_inside else "outside", "source": p.source}
                 for p in ln.EPS_PRESETS]
            ).set_index("framework / model")
        )  # fmt: skip


body()

# RMSNorm's look-alikes (layernorm.rms_variants): each divides the whole vector by one other number.
RMS_EXAMPLES = {
    "sidebar": "the sidebar's vector",
    "ten": "0, 1, …, 9 (Keras' rms_scaling)",
    "alternating": "0.05, −0.05, 0.05, −0.05 (the dtype's ε)",
    "pair": "3, 4 (a square root too many)",
}
RMS_EXAMPLE_VECTORS = {
    "ten": np.arange(10.0),
    "alternating": np.array([0.05, -0.05, 0.05, -0.05]),
    "pair": np.array([3.0, 4.0]),
}
RMS_DTYPES = ("float64", "float32", "bfloat16", "float16")
RMS_ROWS = {  # variant: (what the class calls it, what the whole vector is divided by)
    "rmsnorm": ("RMSNorm (PyTorch nn.RMSNorm, eps=None)", "√(mean(x²) + ε)"),
    "keras_rms_scaling": ("Keras 3 LayerNormalization(rms_scaling=True)", "√(σ² + ε)"),
    "dtype_eps": ("RMSNorm with the dtype's own machine ε", "√(mean(x²) + ε)"),
    "sqrt_of_rms": ("x / √(RMS(x) + ε): a square root too many", "√(RMS(x) + ε)"),
}


POWERS = {2.0**-k: k for k in (7, 10, 23, 52)}  # the machine ε the RMSNorm rows can use
SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def rms_eps_str(e: float) -> str:
    """A machine ε as the power of two it is (2⁻⁷ = 0.0078125), any other ε as the frameworks write it."""
    return (
        f"2{str(-POWERS[e]).translate(SUPERSCRIPT)} = {e:.8g}".replace("-", "−")
        if e in POWERS
        else eps_str(e)
    )


def rms_sentence(rows: tuple[ln.RmsVariantRow, ...], dtype: str, x_mean: float) -> str:
    """How far each variant is from RMSNorm on this vector (whose mean is ``x_mean``), from the rows'
    own numbers."""
    if not np.any(rows[0].output):
        return "x is all zeros: every variant outputs zeros, whatever its scale factor."
    parts = []
    for r in rows[1:]:
        name = RMS_ROWS[r.variant][0].replace("the dtype's", f"{dtype}'s")
        if abs(r.ratio - 1.0) <= rounding_noise(1.0):
            parts.append(f"{name} gives RMSNorm's output (to rounding)")
            continue
        k = digits_to_separate([r.ratio, 1.0], 4, same_within=rounding_noise(1.0))
        if r.variant == "keras_rms_scaling" and abs(r.under_root - rows[0].under_root) <= rounding_noise(
            rows[0].under_root
        ):
            name += (
                " (x's mean is 0, so σ² is the mean square and only Keras' ε differs)"
                if x_mean == 0
                else f" (x's mean, {fmt(x_mean)}, is too small to move σ² off the mean square in float64: "
                "only Keras' ε differs)"
            )
        change = f"{fmt(abs(r.ratio - 1.0) * 100, 3)}% {'larger' if r.ratio > 1 else 'smaller'}"
        parts.append(
            f"{name} gives {fmt(r.ratio, k)} × RMSNorm's output ({change}; largest |difference| "
            f"{fmt(r.max_abs_difference, 3)})"
        )
    return "On these numbers: " + "; ".join(parts) + "."


@lab_section("est_rms_variants")
def rms_variants_section(lab: LabInput) -> None:
    st.subheader("RMSNorm variants")
    st.markdown(
        "Three formulas that go by RMSNorm's name divide by something else. Each divides the whole "
        "vector by one number, so its output is RMSNorm's output times one factor. **Keras 3** "
        "`LayerNormalization(rms_scaling=True)` divides by √(σ² + ε), the spread about the mean, not "
        "the mean square (its source computes `ops.var`; keras-team/keras issue 21234). **PyTorch 2.13**'s "
        "`nn.RMSNorm(eps=None)` uses the machine ε of the type it computes in: float32's 2⁻²³ for "
        "float16, bfloat16 and float32 input (older docs said `torch.finfo(x.dtype).eps`, pytorch/pytorch "
        "issue 155527); code that takes the input dtype's own ε gets bfloat16's 2⁻⁷ = 0.0078, more than "
        "the mean square of numbers near ±0.05. PyTorch's docs up to 2.5 printed **x / √(RMS(x) + ε)**, one square root too many."
    )
    c1, c2 = st.columns([1.4, 1])
    example = controls.choice("selectbox", "Example", RMS_EXAMPLES, key="est_rms_example", where=c1)
    dtype = controls.choice(
        "segmented_control", "Input dtype (sets the ε)", RMS_DTYPES, index=2, key="est_rms_dtype", where=c2
    )
    example, dtype = example or "sidebar", dtype or "bfloat16"
    x = lab.x if example == "sidebar" else RMS_EXAMPLE_VECTORS[example]
    rows = ln.rms_variants(x, dtype=dtype)
    head = 4
    outputs = np.concatenate([r.output[:head] for r in rows])
    ko = digits_to_separate(outputs, 8, same_within=rounding_noise(outputs))
    ks = digits_to_separate([r.scale for r in rows], 7, same_within=rounding_noise([r.scale for r in rows]))
    # What is under the root, and the divisor, apart from one another: √(1 + ε) = 1.00000006, not 1
    under, divisors = [r.under_root for r in rows], [r.divisor for r in rows]
    ku = digits_to_separate(under, 6, same_within=rounding_noise(under))
    kd = max(
        digits_to_separate(divisors, 7, same_within=rounding_noise(divisors)),
        *(digits_to_separate([r.divisor], 7, against=[r.under_root]) for r in rows),
    )
    table = pd.DataFrame(
        [
            {
                "variant": RMS_ROWS[r.variant][0].replace("the dtype's", f"{dtype}'s"),
                "divides x by": RMS_ROWS[r.variant][1],
                "ε": rms_eps_str(r.eps),
                "divisor": f"√({fmt(r.under_root, ku)} + ε) = {fmt(r.divisor, kd)}",
                "scale factor": fmt(r.scale, ks),
                "output": ", ".join(fmt(v, ko) for v in r.output[:head]) + (", …" if x.size > head else ""),
                "× RMSNorm's": fmt(
                    r.ratio, digits_to_separate([r.ratio, 1.0], 4, same_within=rounding_noise(1.0))
                ),
            }
            for r in rows
        ]
    ).set_index("variant")
    shown_x = ", ".join(fmt(v, 8) for v in x[:6]) + (", …" if x.size > 6 else "")
    st.caption(
        f"x = [{shown_x}] (d = {x.size}; "
        + (plain(lab.label, LABEL_LIMIT) if example == "sidebar" else "built in; the sidebar's input is kept")
        + f"). ε is not the sidebar's: RMSNorm and the √-too-many row use PyTorch's default for {dtype} "
        f"input ({rms_eps_str(rows[0].eps)}), Keras its default 1e−3, the third row {dtype}'s own machine ε. "
        "The lab computes in float64 on the numbers as shown; only ε follows the dtype. PyTorch given "
        "bfloat16 stores 0.05 as 0.050048828125 and rounds its outputs to bfloat16 (measured with torch "
        "2.13: [1, −1, 1, −1] with its default ε, ±0.4922 with ε = 2⁻⁷)."
    )
    st.table(table)
    st.markdown(rms_sentence(rows, dtype, float(ln.mean(x))))


rms_variants_section()

# What does not change with the page's controls is drawn outside the fragment: a control's rerun
# sends none of it again.
# The tutorial case's x̂₁ from the core: ε keeps them off √3 and 1.5 in the fifth digit
TUTORIAL = ln.compare_recipe(
    CASE_VECTORS["one_hot"], ddof=1, eps_inside=False, eps=PRESETS[TORCH].eps, standard_eps=ln.DEFAULT_EPS
)
TUTORIAL_X1 = (float(TUTORIAL.standard[0]), float(TUTORIAL.variant[0]))
TUTORIAL_DIGITS = digits_to_separate(TUTORIAL_X1, 4, against=[3**0.5, 1.5])
page.notice(
    [
        f"Load the tutorial case: the standard recipe gives x̂₁ = {fmt(TUTORIAL_X1[0], TUTORIAL_DIGITS)} "
        f"(√3 but for ε), the tutorial recipe {fmt(TUTORIAL_X1[1], TUTORIAL_DIGITS)} (1.5 but for ε). "
        "While ε ≪ σ², ÷(d−1) alone shrinks x̂ by √((d−1)/d): ≈ 0.866 for d = 4.",
        "Load the Keras case: ε = 1e-3 is about as large as σ² (≈ 0.0012), so the outputs are ≈ ±0.74 instead "
        "of ±1. Switch ε to PyTorch's 1e-5 and they return to ≈ ±0.996.",
        "With ε outside the root the same ε hurts much less on that vector: it is compared with σ (≈ 0.035), "
        "not with σ² (≈ 0.0012).",
        "RMSNorm variants, example 0.05, −0.05, 0.05, −0.05 with bfloat16: PyTorch's RMSNorm gives ≈ 0.99998, "
        "the same formula with bfloat16's own ε ≈ 0.49. Switch the dtype to float32: the two rows agree.",
        "With d = 768 in the sidebar (and ε ≪ σ²), ÷(d−1) shrinks x̂ only by √(767/768) ≈ 0.99935: "
        "the choice matters for short vectors.",
    ]
)
page.predict_then_reveal(
    "est_q",
    "Keras uses ε = 1e-3. A two-value vector has σ = 0.035 (σ² = 0.0012). What does Keras' LayerNorm output?",
    ["±1, like any LayerNorm", "about ±0.74", "about ±0.035"],
    1,
    "x̂ = (x − μ)/√(σ² + ε) = 0.035/√(0.0012 + 0.001) ≈ 0.74: with ε comparable to σ², ε "
    "takes over the denominator. PyTorch's 1e-5 gives ±0.996.",
)
page.show_source(ln.compare_recipe, ln.layer_norm_eps_outside, layer_norm_unbiased, layer_norm_std_plus_eps,
                 ln.rms_norm_eps_outside, ln.rms_variants, ln.rms_norm_variant, ln.default_rms_eps)  # fmt: skip
