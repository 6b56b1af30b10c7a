"""Which axis? One (B, T, d) tensor under five normalization lenses."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import streamlit as st

import layernorm as ln
from layernorm.labs import blocks, lens_counts, padding
from layernorm.labs import lenses as L
from ui import charts_axes, controls, page, plot, session
from ui.fragments import page_fragment
from ui.minilm import recording
from ui.text import digits_to_separate, fmt, fmt_zero, is_rounding_zero, rounding_noise
from ui.widgets import site_choice

SOURCES = ["Seeded random batch", "Real MiniLM batch (padded)"]
PRESETS: dict[str, tuple[int, int, int]] = {
    "Small: 2 sequences × 4 tokens × 8 features": (2, 4, 8),
    "The lesson's example: d = 512 (4 × 16 × 512)": (4, 16, 512),
    "Largest: 64 × 128 × 768": (64, 128, 768),
    "One token: 1 × 1 × 2": (1, 1, 2),
}
D_CHOICES = [2, 3, 4, 6, 8, 12, 16, 32, 64, 128, 256, 384, 512, 768, 1024, 2048, 4096]
EPS = ln.DEFAULT_EPS

page.header(
    "Which axis? · Five lenses on one tensor",
    "Every normalization in this family does the same three things — subtract a mean, divide by a "
    "standard deviation, rescale — and differs in one decision only: **which numbers are pooled into "
    "that mean and variance**. LayerNorm pools one token's own features (*what is typical for this "
    "token?*). BatchNorm pools one feature across every token in the batch (*what is typical for "
    "this feature?*). Pick a cell below and watch which cells it shares its statistics with.",
)
st.latex(
    r"\hat{x} = \frac{x - \mu_S}{\sqrt{\sigma_S^2 + \varepsilon}},\qquad "
    r"\mu_S = \frac{1}{|S|}\sum_{j \in S} x_j,\qquad \sigma_S^2 = \frac{1}{|S|}\sum_{j\in S}(x_j-\mu_S)^2"
)
st.caption(
    "Only the set S changes. LayerNorm: one token's d features. BatchNorm: one feature in all B·T tokens. "
    "InstanceNorm: one feature in one sequence's T tokens. GroupNorm: a group of d/G features in one "
    "sequence. RMSNorm: like LayerNorm, but it skips the mean and divides by √(mean of x² + ε). "
    f"No γ/β here (γ = 1, β = 0) and ε = {EPS:g}."
)


def _apply_preset() -> None:
    b, t, d = PRESETS[session.widgets.get("axes_preset")]
    session.widgets.update(axes_B=b, axes_T=t, axes_d=d)


@st.cache_resource(max_entries=3, show_spinner="Building the batch…")
def _tensor(source: str, b: int, t: int, d: int, seed: int, site: int) -> np.ndarray:
    """The (B, T, d) tensor, built once per setting and shared read-only (up to 64 MiB)."""
    if source == SOURCES[1]:
        x = recording().inputs[site].astype(np.float64)
    else:
        x = L.random_batch(b, t, d, seed=seed)
    x.flags.writeable = False
    return x


@st.cache_data(max_entries=8)
def _grid(source: str, b: int, t: int, d: int, seed: int, site: int) -> blocks.DisplayGrid:
    return blocks.display_grid(_tensor(source, b, t, d, seed, site))


@st.cache_data(max_entries=8)
def _identities(source: str, b: int, t: int, d: int, seed: int, site: int) -> tuple[dict[str, float], int]:
    x = _tensor(source, b, t, d, seed, site)
    k = max(1, min(b, 2**18 // (t * d)))  # at most ~262k values (or one sequence): ~0.1 s
    return padding.identity_gaps(x[:k], eps=EPS), k


def identities_verdict(gaps: list[float], scale: float) -> str:
    """What the identities' differences are, read from their sizes (``scale``: the largest possible |x̂|)."""
    largest = max(gaps)
    if largest == 0:
        return "the two sides agree exactly, bit for bit."
    if all(g == 0 or is_rounding_zero(g, scale) for g in gaps):
        return (
            f"the largest difference, {fmt(largest, 2)}, is float64 rounding (each value is rounded to "
            "steps of 2⁻⁵² ≈ 2.2e−16 of its size), not approximation."
        )
    return (
        f"the largest difference, {fmt(largest, 2)}, is more than float64 rounding of values this size "
        "would leave."
    )


# The page's controls rerun only this part (a fragment), not app.py and the sidebar.
@page_fragment
def body() -> None:
    # --- the data ----------------------------------------------------------------------------------
    with st.container(border=True):
        c_src, c_shape = st.columns([2, 5])
        source = controls.choice("radio", "Data", SOURCES, key="axes_source", where=c_src)
        site, seed = 0, 0
        if source == SOURCES[0]:
            with c_shape:
                st.selectbox(
                    "Shape preset",
                    list(PRESETS),
                    index=None,
                    key="axes_preset",
                    on_change=_apply_preset,
                    placeholder="Choose a preset, or set B, T, d below",
                )
                c1, c2, c3, c4 = st.columns(4)  # a preset sets B, T, d through session state
                b_n = controls.number_input("B sequences", 1, 64, 2, key="axes_B", where=c1, name="B")
                t_n = controls.number_input("T tokens each", 1, 128, 4, key="axes_T", where=c2, name="T")
                d = int(controls.select_slider("d features", D_CHOICES, 8, key="axes_d", where=c3, name="d"))
                seed = controls.number_input("Seed", 0, 9999, 0, key="axes_seed", where=c4, name="seed")
        else:
            rec = recording()
            b_n, t_n, d = rec.n_sentences, rec.seq_len, rec.d
            site = site_choice(
                "LayerNorm site (the input it receives)", key="axes_site", where=c_shape, name="site"
            )
            c_shape.caption(
                f"all-MiniLM-L6-v2: {b_n} sentences padded to T = {t_n} positions, d = {d}. "
                f"{rec.n_real_tokens} real tokens, {rec.attention_mask.size - rec.n_real_tokens} "
                "padding tokens (grey tabs left of the heatmap)."
            )

    if b_n * t_n * d > L.MAX_BATCH_VALUES:
        st.error(
            f"B·T·d = {b_n}·{t_n}·{d} = {b_n * t_n * d:,} values is more than this lab builds "
            f"({L.MAX_BATCH_VALUES:,}, 64 MiB in float64). Lower B, T or d.",
            icon="⚠️",
        )
        return  # nothing below can be drawn

    x = _tensor(source, b_n, t_n, d, seed, site)
    shape = (b_n, t_n, d)

    # --- the cell and the lens -------------------------------------------------------------------
    c1, c2, c3, c4 = st.columns(4)  # a stored index beyond a range that just shrank moves to its end
    cb = controls.number_input("Sequence b", 0, b_n - 1, 0, key="axes_b", where=c1, name="b")
    ct = controls.number_input("Token t", 0, t_n - 1, 0, key="axes_t", where=c2, name="t")
    ci = controls.number_input("Feature i", 0, d - 1, 0, key="axes_i", where=c3, name="i")
    groups = controls.number_input(
        "GroupNorm groups G",
        1,
        d,
        2,
        key="axes_groups",
        where=c4,
        name="G",
        help="G must divide d: each group holds d/G features.",
    )
    cell = (cb, ct, ci)
    lens = controls.choice(
        "radio",
        "Highlight the cells that share statistics under",
        L.LENSES,
        key="axes_lens",
        horizontal=True,
        name="lens",
    )

    try:
        L.check_groups(d, groups)
    except ValueError as exc:
        st.warning(str(exc), icon="⚠️")

    readings = [L.read_lens(x, cell, name, groups=groups, eps=EPS) for name in L.LENSES]
    current = readings[L.LENSES.index(lens)]
    grid = _grid(source, b_n, t_n, d, seed, site)
    pad_rows: list[int] = []
    if source == SOURCES[1]:
        pad_rows = np.flatnonzero(recording().attention_mask.reshape(-1) == 0).tolist()

    # Digits per column of the table below: the five lenses' numbers never look alike unless they agree
    # to rounding (GroupNorm with G = d is InstanceNorm), and no group's μ looks like your cell's x.
    x_hats = [r.x_hat for r in readings if r.x_hat is not None]
    mus = [r.mu for r in readings if r.mu is not None and r.lens != "RMSNorm"]
    variances = [r.var for r in readings if r.var is not None]
    xhat_digits = digits_to_separate(x_hats, same_within=rounding_noise([*x_hats, 1.0]))
    mu_digits = digits_to_separate(
        mus, against=[current.value], same_within=rounding_noise([*mus, current.value])
    )
    var_digits = digits_to_separate(variances, same_within=rounding_noise(variances))
    cell_text = f"x[{cb}, {ct}, {ci}] = {fmt(current.value, mu_digits)}"
    if current.group is None:
        title = f"{lens} is undefined here — see the message above"
    else:  # RMSNorm pools no μ; a group can be the cell alone (InstanceNorm with T = 1)
        stats = "its mean of x²" if lens == "RMSNorm" else "μ, σ²"
        others = current.group.n - 1
        title = f"{lens}: your cell {cell_text} " + (
            f"shares {stats} with {others:,} other cell{'s' if others > 1 else ''}"
            if others
            else f"is the only cell its {stats} {'is' if lens == 'RMSNorm' else 'are'} computed from"
        )
    plot.show(
        charts_axes.axes_heatmap(
            grid, current.group, cb * t_n + ct, ci, n_seq=b_n, seq_len=t_n, title=title, pad_rows=pad_rows
        ),
        key="axes_heatmap",
    )
    if grid.aggregated:
        st.caption(
            f"The tensor has {b_n * t_n:,} × {d:,} = {b_n * t_n * d:,} cells, more than a screen can show: each "
            f"pixel is the mean of a block of {grid.row_step} tokens × {grid.col_step} features "
            f"({grid.z.shape[0]} × {grid.z.shape[1]} = {grid.z.size:,} pixels sent). The outline and the "
            "numbers below use the full tensor."
        )
    else:
        st.caption("Rows are tokens, columns are features; black lines separate the sequences.")
    if current.group is not None:
        st.markdown(f"**{lens}** pools *{current.group.description}*.")

    rows = []
    for r in readings:
        rows.append(
            {
                "lens": r.lens,
                "x̂ of your cell": fmt(r.x_hat, xhat_digits) if r.x_hat is not None else "undefined",
                "values pooled": r.group.n if r.group else None,
                "μ of the group": "not used"
                if r.lens == "RMSNorm" and r.problem is None
                else (fmt(r.mu, mu_digits) if r.mu is not None else "—"),
                "σ² of the group": (
                    f"{fmt(r.var, var_digits)} (mean of x²)"
                    if r.lens == "RMSNorm"
                    else fmt(r.var, var_digits)
                )
                if r.var is not None
                else "—",
                "pools": r.group.description if r.group else "—",
            }
        )
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch", key="axes_table")
    plot.show(
        charts_axes.lens_value_bars(
            L.LENSES,
            [r.x_hat for r in readings],
            current.value,
            digits=xhat_digits,  # as in the table
            value_digits=mu_digits,
        ),
        key="axes_values",
    )
    for r in readings:
        if r.problem and r.lens == "BatchNorm":
            st.info(
                "BatchNorm is undefined for a batch of one token: every feature's 'batch' holds a single "
                "value, so x − μ is 0 and there is no spread to divide by. " + r.problem,
                icon="ℹ️",
            )

    # --- counting statistics ---------------------------------------------------------------------
    st.subheader("How many statistics does each lens compute?")
    counts = lens_counts.stat_counts(shape, groups=groups)
    plot.show(
        charts_axes.stat_count_bars(
            [c.lens for c in counts],
            [c.total for c in counts],
            [f"{c.total:,}  ({c.stats_per_group} per {c.per})" for c in counts],
        ),
        key="axes_counts",
    )
    by = {c.lens: c for c in counts}
    st.markdown(
        f"For this shape (B = {b_n}, T = {t_n}, d = {d}): LayerNorm computes **2 numbers per token** "
        f"(μ and σ²), {by['LayerNorm'].total:,} in all, each from that token's own {d} features — exact, "
        f"no batch needed. "
        + (
            f"BatchNorm computes **2 numbers per feature**, {by['BatchNorm'].total:,} in all, "
            f"each *estimated* from the {b_n * t_n:,} tokens that happen to share the batch."
            if b_n * t_n > 1
            else f"BatchNorm would compute **2 numbers per feature**, {by['BatchNorm'].total:,} in all, from "
            "the tokens that share the batch: from this batch's one token it cannot (the message above)."
        )
        + (
            " Pick the preset with d = 512 to see the lesson's example: 512 means and 512 variances for BatchNorm."
            if source == SOURCES[0]
            else ""
        )
    )

    # --- padding ---------------------------------------------------------------------------------
    st.subheader("Padding: tokens that are not there still count for BatchNorm")
    if source == SOURCES[1]:
        rec = recording()
        eff = padding.padding_effect(x, rec.attention_mask, eps=EPS)
        real = np.flatnonzero(rec.attention_mask.reshape(-1) == 1)
        labels = [f"s{r // t_n}·{rec.tokens.reshape(-1)[r]}·{r % t_n}" for r in real]
        m1, m2, m3 = st.columns(3)
        m1.metric("padding tokens in the batch", f"{eff.n_pad} of {eff.n_pad + eff.n_real}")
        m2.metric("largest BatchNorm change", fmt(eff.largest_bn_change))
        m3.metric("largest LayerNorm change", fmt(eff.largest_ln_change), help="Exactly 0: not rounding.")
        plot.show(charts_axes.padding_bars(labels, eff.bn_change, eff.ln_change), key="axes_padding")
        st.caption(
            "Each real token normalized twice: once in the padded batch, once in a batch of the real tokens "
            "only. BatchNorm's per-feature mean and variance include the padding rows, so every real token's "
            "output moves; LayerNorm only ever looks at the token itself."
        )
    else:
        st.info(
            f"Switch **Data** to the real MiniLM batch: its {recording().n_sentences} sentences are padded to "
            f"{recording().seq_len} positions.",
            icon="ℹ️",
        )

    # --- identities ------------------------------------------------------------------------------
    st.subheader("Four identities, checked on this batch")
    if d < 2:
        st.info("The identities need d ≥ 2.")
    else:
        gaps, k = _identities(source, b_n, t_n, d, seed, site)
        st.dataframe(
            pd.DataFrame(  # both sides are normalized values, |x̂| ≤ √(n − 1) for a pool of n ≤ T·d cells
                {
                    "identity": list(gaps),
                    "largest |difference|": [fmt_zero(v, math.sqrt(t_n * d)) for v in gaps.values()],
                }
            ),
            hide_index=True,
            width="stretch",
            key="axes_identities",
        )
        st.caption(
            f"Computed on the first {k} of {b_n} sequence(s) with the core functions on both sides; "
            + identities_verdict(list(gaps.values()), math.sqrt(t_n * d))
            + " For GroupNorm and InstanceNorm the features are the channels C and the tokens the positions L."
        )


body()

# What does not change with the page's controls is drawn outside the fragment.
page.notice(
    [
        "Under LayerNorm the outline is one *row*; under BatchNorm it is one *column* through every sequence.",
        "Change the batch (seed, B, or another sequence): LayerNorm's x̂ of your cell only changes if your "
        "token changes; BatchNorm's changes with any token in the batch.",
        "Set G = 1 and G = d for GroupNorm: it becomes LayerNorm over a whole sequence, then InstanceNorm.",
        "RMSNorm's x̂ is close to LayerNorm's when the token's mean is small next to its spread — and far off "
        "when it is not.",
    ]
)
page.predict_then_reveal(
    "axes_q",
    "A transformer has d = 512 and you run it on a batch of 32 sequences of 100 tokens. "
    "How many means does BatchNorm compute per layer?",
    ["512", "3,200", "32", "1"],
    0,
    "One per feature, across all 3,200 tokens. LayerNorm computes one per token instead: 3,200.",
)
page.show_source(L.read_lens, L.lens_group, padding.padding_effect)
