"""Under the hood: LayerNorm in float16, bfloat16, float32 and float64, one-pass vs two-pass vs Welford."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

import layernorm as ln
from layernorm.labs import fused as F
from layernorm.labs import precision as P
from layernorm.labs.kernel_facts import KERNEL_FACTS
from ui import charts_numerics as cn
from ui import controls, live, page, plot, theme
from ui import fused_view as fv
from ui import precision_view as pv
from ui.live import precision as lp
from ui.live.precision import OFFSETS, offset_text
from ui.settings import LabInput
from ui.state import lab_input, lab_section
from ui.text import fmt

SWEEP = P.offset_grid()  # 1 … 1e8, 8 points per decade


@st.cache_data(show_spinner="Running every dtype and method over 65 offsets…", max_entries=16)
def sweep(x: np.ndarray, eps: float) -> P.PrecisionSweep:
    return ln.precision_sweep(x, SWEEP, eps=eps)


@st.cache_resource(show_spinner=False, max_entries=16)  # shared, never changed: see mark_offset
def sweep_figure(x: np.ndarray, eps: float, scale: float) -> go.Figure:  # scale: presentation mode
    """The four panels without the offset line: they change only with the vector and ε (~0.2 s to build)."""
    sw = sweep(x, eps)
    words = {dt: {m: [P.STATUS_WORDS[s] for s in sw.status[dt][m]] for m in P.METHODS} for dt in P.DTYPES}
    return cn.precision_base(sw.offsets, sw.error, words, sw.input_error)


lab_input()  # the page draws the input in its lab sections below
page.header(
    "Under the hood · Precision",
    "The formula is exact; computers are not. Each number a kernel stores is rounded to its dtype: "
    "float64 keeps 53 significant bits, float32 24, float16 11 (and nothing above 65504), bfloat16 only 8 "
    "(but float32's range). Here the sidebar's vector is pushed far from zero by an **offset** — which "
    "LayerNorm should ignore, since it subtracts the mean — and normalized with every step rounded to "
    "each dtype, with three ways of computing the variance. The error is measured against the core, "
    "which works in float64 with a two-pass variance.",
)
st.latex(
    r"\text{one-pass: } \sigma^2 = \overline{x^2} - \mu^2 \qquad "
    r"\text{two-pass: } \sigma^2 = \overline{(x-\mu)^2} \qquad "
    r"\text{Welford: } \mu_k = \mu_{k-1} + \tfrac{x_k - \mu_{k-1}}{k}"
)
st.latex(r"M_k = M_{k-1} + (x_k - \mu_{k-1})(x_k - \mu_k),\quad \sigma^2 = M_d / d")


# Everything the offset and the dtype change, in a fragment: moving them reruns only this part (and
# the sidebar's ε, d, seed rerun it with the page's other lab sections: ui.state.lab_section).
@lab_section("prec_offset")
def offset_section(lab: LabInput) -> None:
    c1, c2 = st.columns([3, 2])
    # The dtype first: the offset's live slider holds the formula of every offset in this dtype.
    dtype = str(
        controls.choice(
            "radio",
            "Formula below in",
            list(P.DTYPES),
            index=2,
            horizontal=True,
            key="prec_dtype",
            where=c2,
            name="dtype",
        )
        or "float32"
    )
    with c1:
        offset, _ = live.select_slider(
            "Offset added to every feature",
            OFFSETS,
            lp.DEFAULT,
            format_func=offset_text,
            key="prec_offset",
            name="offset",
            frames=lambda: lp.frames(lab.x, lab.eps, dtype),
        )
    with live.at_rest("prec_caption"):  # names the sidebar's ε: the released value's during its drag
        st.caption(
            f"Vector: {lab.d} features from the sidebar, ε = {fmt(lab.eps, 1)} (sidebar), γ = 1, β = 0."
        )

    # The same function made every formula the slider shows during a drag: the released view equals it.
    # (The formula's σ² do not depend on ε, so the sidebar's live ε needs no frames of it.)
    live.readout(lp.frame(lab.x, lab.eps, dtype, offset).readout(lp.FORMULA))
    # The sentences, the table and the chart are the server's (a readout holds TeX and metrics, and the
    # chart marks the offset with a vertical line a frame cannot move): dimmed while a slider moves.
    with live.at_rest("prec_at_offset"):
        num = lp.numbers(lab.x, lab.eps, dtype, offset)
        runs, exact_var, shown, n = num.runs, num.exact_var, num.shown, num.n
        one = runs["one_pass"]
        verdicts = []
        for m in P.METHODS:
            r = runs[m]
            status = str(r.status[0])
            if not np.isfinite(r.var[0]):  # no σ² to show: the reason alone
                verdicts.append(f"{pv.METHOD_NAMES[m]}: {P.STATUS_WORDS[status]}")
            else:
                verdicts.append(
                    f"{pv.METHOD_NAMES[m]}: σ² = {fmt(float(r.var[0]), n)}"
                    + ("" if status == "ok" else f" — {P.STATUS_WORDS[status]}")
                )
        statuses = {str(r.status[0]) for r in runs.values()}
        no_var = not any(np.isfinite(r.var[0]) for r in runs.values())
        if len(statuses) == 1 and no_var:  # the same reason three times and no σ² at all: say it once
            verdicts = [f"every method: {P.STATUS_WORDS[statuses.pop()]}"]
        st.markdown(
            f"In **{dtype}** at this offset: " + "; ".join(verdicts) + f". Exact: σ² = {fmt(exact_var, n)}."
        )
        if one.status[0] == "negative_variance":
            st.error(
                f"The one-pass variance in {dtype} is negative ({fmt(float(one.var[0]), n)}): two numbers of about "
                f"{fmt(shown[0], 3)} that should differ by {fmt(exact_var, 3)} were subtracted, and {dtype} cannot hold "
                "that many digits. σ² + ε is negative too, and its square root is undefined, so the output is NaN (not a number) "
                "in every feature.",
                icon="⚠️",
            )
        now = ln.precision_sweep(lab.x, [offset], eps=lab.eps)
        if one.status[0] == "ok" and float(one.var[0]) == 0 and exact_var > 0:
            st.warning(
                f"The one-pass variance in {dtype} came out exactly 0 (the exact value is {fmt(exact_var, 4)}): "
                "the spread was lost to rounding, so x − μ is divided by √ε alone instead of √(σ² + ε). "
                f"x̂'s largest error here: {cn.fmt_error(float(now.error[dtype]['one_pass'][0]))}.",
                icon="⚠️",
            )
        rows = []
        for dt in P.DTYPES:
            row = {"dtype": dt}
            changed = bool(now.input_changed[dt][0])
            core_err = float(now.input_error[dt][0])
            if np.isnan(core_err):
                row["input after rounding"] = "overflows to ∞"
            else:
                row["input after rounding"] = (
                    "unchanged"
                    if not changed
                    else "changed, x̂ still exact"
                    if core_err == 0
                    else "changed: x̂ error " + cn.fmt_error(core_err)
                )
            for m in P.METHODS:
                status = str(now.status[dt][m][0])
                err = float(now.error[dt][m][0])
                row[pv.METHOD_NAMES[m]] = cn.fmt_error(err) if status == "ok" else pv.SHORT[status]
            rows.append(row)
        st.markdown(
            f"**Largest error of x̂ at offset {offset_text(offset)}**, per dtype and method (x̂'s entries have a "
            "root mean square of at most 1, so an error of 0.01 is already visible; ✕ means there is no usable "
            "output):"
        )
        st.table(pd.DataFrame(rows).set_index("dtype"))

        plot.show(cn.mark_offset(sweep_figure(lab.x, lab.eps, theme.scale()), offset), key="prec_chart")


offset_section()


@lab_section("prec_sweep")
def sweep_section(lab: LabInput) -> None:
    """What the whole sweep of this vector shows, in words."""
    sw = sweep(lab.x, lab.eps)
    facts = []
    for dt in P.DTYPES:
        for m in P.METHODS:
            first = sw.first_failure(dt, m)
            if first is not None and first[1] != "input_overflow":
                facts.append(pv.say(dt, m, first[1], first[0]))
    for dt in ("bfloat16", "float16"):
        changed_at = sw.first_input_change(dt)
        if changed_at is not None:
            facts.append(
                f"Rounding to {dt} already changes the input itself from an offset of about {pv.about(changed_at)} on."
            )
    over = sw.first_failure("float16", "welford")
    if over is not None and over[1] == "input_overflow":
        facts.append(
            f"At the sweep's offset of about {pv.about(over[0])} the input itself is already above float16's largest "
            "number, 65504 (the sweep takes 8 offsets a decade: the input passed it after the one before)."
        )
    with live.at_rest("prec_sweep"):  # this ε's sweep: the released ε's while the sidebar's moves
        st.markdown("**Along the sweep (1 to 1e8, 65 offsets):**\n" + "\n".join(f"- {f}" for f in facts))


sweep_section()
st.caption(
    "The core is the reference: fed the float64 input it is exact at every offset (the grey line of the "
    "float64 panel lies on the floor, drawn at 1e-17). Fed an input already rounded to a dtype, it is "
    "exact for *that* input — the grey line shows what was lost before any arithmetic. These kernels add one "
    "feature at a time and keep everything in the dtype; real float16/bfloat16 kernels accumulate in float32."
)

with st.expander("Facts from real kernels (reference cases)"):
    for fact in KERNEL_FACTS:
        run = ln.layer_norm_in_dtype(fact.x, dtype=fact.dtype, method="one_pass", eps=fact.eps)
        status = str(run.status[0])
        ours = "fine" if status == "ok" else P.STATUS_WORDS[status]
        torch_out = ", ".join(fmt(v, 9) for v in fact.torch_observed[:4])
        st.markdown(
            f"- `{fact.case_id}` ({fact.dtype}, ε = {fmt(fact.eps, 1)}): {fact.note}. "
            f"This lab's one-pass {fact.dtype} kernel: {ours}"
            + (f" (x̂₁ = {fmt(float(run.x_hat[0, 0]), 9)})" if status == "ok" else "")
            + f". PyTorch 2.13 CPU returned [{torch_out}{', …' if len(fact.x) > 4 else ''}]."
        )

st.subheader("The fused kernel")
st.markdown(
    "A kernel need not compute γ·(x − μ)/√(σ² + ε) + β step by step. It can fold it into one multiply-add per "
    "entry, y = x·s + b, with s and b computed once and stored in the dtype. Exact arithmetic gives the same y; "
    "float32 does not when |μ·s| is large, since b is then rounded to a coarse spacing. PyTorch 2.13's CPU "
    "BatchNorm folds this way; its CPU LayerNorm does not. A float32 kernel can also get μ and σ² wrong: the "
    "table runs both forms with exact statistics and with the float32 Welford statistics of PyTorch's LayerNorm, "
    "so you can see which part is to blame. Each column is float32 arithmetic in a kernel's order, every step "
    f"rounded as {fv.CPU} round it; the note under each example says which columns are PyTorch's own output."
)
st.latex(  # two lines: one line is wider than a 1280-pixel projector's page
    r"\begin{aligned}&\text{step by step: } y = \gamma\cdot\big((x-\mu)\cdot r\big) + \beta,"
    r"\qquad r = 1/\sqrt{\sigma^2+\varepsilon}\\"
    r"&\text{fused: } s = \gamma\, r,\;\; b = \beta - \mu s,\;\; y = x\,s + b\end{aligned}"
)
CASES = {
    "channel": "BatchNorm: a channel of equal values",
    "d1": "LayerNorm: one feature (d = 1), β = −1, ε = 0.1",
    "row": "A float32 row near 2·10⁸",
    "sidebar": "The sidebar's vector, γ, β and ε",
}
MODES = {"train": "training", "eval": "eval"}  # the link carries these words: fused_mode=eval
MODE_CAPTIONS = ["the batch's own μ and σ²", "running mean = the value, running variance 0"]


@lab_section("prec_fused")
def fused_section(lab: LabInput) -> None:
    """Both forms with both sets of statistics, on a preset or on the sidebar's input."""
    case = controls.choice("selectbox", "Example", CASES, key="fused_case", name="example")
    rstd_in = "float64"  # the exact statistics' 1/√(σ² + ε): BatchNorm's training mode
    if case == "channel":
        c1, c2 = st.columns([3, 2])
        v = controls.select_slider(
            "Every value of the channel",
            F.CHANNEL_VALUES,
            5e7,
            format_func=lambda a: fmt(a, 1),
            key="fused_v",
            where=c1,
        )
        mode = controls.choice(
            "radio", "BatchNorm mode", MODES, key="fused_mode", name="mode", where=c2, captions=MODE_CAPTIONS
        )
        x, gamma, beta, eps = np.full(5, v), 1.0, 0.0, 1e-5
        if mode == "eval":
            rstd_in = "float32"  # PyTorch's eval kernel: 1 / std::sqrt(running_var + eps) in float
            setting = (
                f"5 values of {fv.num(v)} in one channel, eval mode with running mean {fv.num(v)} and running "
                "variance 0 (the channel's own μ and σ²), γ = 1, β = 0, ε = 1e-5"
            )
        else:
            setting = f"5 values of {fv.num(v)} in one channel, training mode, γ = 1, β = 0, ε = 1e-5"
    elif case == "d1":
        c1, c2 = st.columns(2)
        x1 = controls.select_slider(
            "x", F.CHANNEL_VALUES, 1.0, format_func=lambda a: fmt(a, 1), key="fused_x", where=c1
        )
        g = controls.select_slider(
            "γ", F.D1_GAMMAS, 1e12, format_func=lambda a: fmt(a, 1), key="fused_gamma", where=c2
        )
        x, gamma, beta, eps = np.array([x1]), g, -1.0, 0.1
        setting = (
            f"x = {fv.num(x1)}, γ = {fmt(g, 1)}, β = −1, ε = 0.1: x − μ = 0, so the right answer is β = −1"
        )
    elif case == "row":
        x, gamma, beta, eps = np.array(F.ROW_NEAR_2E8), 1.0, 0.0, 1e-5
        setting = "x = [200000016, 200000000, 200000032, 200000048] (float32 numbers, 16 apart), γ = 1, β = 0, ε = 1e-5"
    else:
        x, gamma, beta, eps = lab.x, lab.gamma, lab.beta, lab.eps
        setting = f"the sidebar's {lab.d} values, its γ and β, ε = {fmt(lab.eps, 1)}, rounded to float32"
    try:
        c = F.compare_affine_forms(x, gamma=gamma, beta=beta, eps=eps, rstd_in=rstd_in)
    except ValueError as err:  # only the sidebar's input can be beyond float32 (or constant at ε = 0)
        st.info(f"This input cannot be run in float32: {err}.", icon="ℹ️")
        return
    st.caption(f"Input: {setting}.")
    st.table(fv.output_table(c))
    st.markdown(fv.verdict(c))
    i = fv.worst_entry(c)
    st.markdown(
        f"**What the fused form stores** (entry {i + 1}, where it is furthest off with exact statistics):"
    )
    st.table(fv.folding_table(c, i))
    st.caption(fv.torch_note(case, c))


fused_section()


@lab_section("prec_notice")
def notice_section(lab: LabInput) -> None:
    """What to notice: checked against this vector's sweep, so it changes with the sidebar."""
    with live.at_rest("prec_notice"):  # this ε's sweep: the released ε's while the sidebar's moves
        page.notice(pv.notices(sweep(lab.x, lab.eps), constant=float(ln.variance(lab.x)) == 0))


notice_section()
page.predict_then_reveal(
    "prec_q",
    "The vector [40000, 40001, 40002, 40003] in float32 with the one-pass variance. What comes out?",
    [
        "About ±1.34, ±0.45, like float64",
        "A slightly wrong answer, off in the 4th digit",
        "NaN: the variance is negative",
    ],
    2,
    "E[x²] and μ² are both about 1.6e9, where float32's spacing is 128; their difference should be 1.25 "
    "and comes out −128, and √(−128 + ε) is undefined. ONNX Runtime's CPU kernel returns exactly this NaN.",
)
page.show_source(P.layer_norm_in_dtype, P.precision_sweep, F.stepwise_affine, F.fused_affine)
