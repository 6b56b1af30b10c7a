"""Why normalize, part 3: what the 13 LayerNorms of a real transformer (MiniLM) see and do."""

import math
from functools import partial

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from layernorm.labs.transformer_stats import SiteStats, dimension_profile, parameter_histograms, site_stats
from ui import charts_depth as cd
from ui import charts_transformer, controls, page, plot, theme
from ui.fragments import page_fragment
from ui.minilm import recording
from ui.text import digits_not_to_look_exact, digits_to_separate, fmt
from ui.theme import COLORS
from ui.widgets import placement_control, site_choice


@st.cache_data(show_spinner="Summarising the 13 LayerNorm sites…")
def stats() -> SiteStats:
    return site_stats(recording())


@st.cache_data(show_spinner=False)
def profile(site: int) -> tuple[np.ndarray, np.ndarray]:
    return dimension_profile(recording(), site)


@st.cache_resource(show_spinner=False)  # one shared object: unpickling a Figure re-validates it
def block_figure(placement: str, scale: float) -> go.Figure:  # scale: presentation mode, the cache key
    """The block diagram takes ~0.2 s to build (dozens of shapes); it only depends on the placement."""
    return cd.block_diagram(placement)


@st.cache_data(show_spinner=False)
def param_hist(which: str) -> tuple[np.ndarray, np.ndarray]:
    rec = recording()
    return parameter_histograms(rec.gamma if which == "gamma" else rec.beta)


page.header(
    "Why normalize · Inside a real transformer",
    "Everything so far used random numbers. Here are real ones: the hidden states of "
    "all-MiniLM-L6-v2, a 6-layer sentence encoder, recorded on 7 sentences just before each of its "
    "13 LayerNorms (d = 384). Most entries are small, around ±0.4, but a few features are enormous: "
    "one reaches over 200. Without normalization the next layer would receive those numbers as they "
    "are. Below: how big the residual stream gets at each LayerNorm, which features are to blame, "
    "what LayerNorm turns them into, and what training did to γ and β.",
)


# The page's controls rerun only this part (a fragment), not app.py and the sidebar.
@page_fragment
def body() -> None:
    st.latex(
        r"y = \gamma \odot \frac{x - \mu}{\sqrt{\sigma^2 + \varepsilon}} + \beta,\qquad "
        r"\varepsilon = 10^{-12}\ \text{(BERT family)},\quad d = 384"
    )

    rec = recording()
    s = stats()
    worst = int(np.argmax(s.in_absmax))
    m1, m2, m3, m4 = st.columns(4)
    m1.metric("typical |x| (median, all sites)", f"{s.typical_abs:.2f}")
    m2.metric(
        "largest |x|", f"{s.in_absmax[worst]:.1f}", help=f"{s.labels[worst]}, token {s.outlier_token[worst]}"
    )
    m3.metric("outlier feature", f"dim {s.outlier_dim[worst]}", help=f"on the token {s.outlier_token[worst]}")
    m4.metric(
        "our formula vs PyTorch",
        f"{s.worst_formula_error:.1e}",
        help="Largest |y_ours − y_PyTorch| over every site and real token: the recomputation matches.",
    )

    plot.show(
        charts_transformer.site_scale_figure(
            s.labels,
            [
                ("max |x| (input)", s.in_absmax, COLORS["x"], "solid"),
                ("median token std (input)", s.in_std_median, COLORS["x"], "dot"),
                ("median |x| (input)", s.in_abs_median, COLORS["centered"], "dash"),
                ("max |x̂| (normalized)", s.x_hat_absmax, COLORS["x_hat"], "solid"),
                ("max |y| (output)", s.out_absmax, COLORS["y"], "solid"),
            ],
            "The residual stream entering each LayerNorm, and what comes out",
        ),
        key="tf_sites",
    )

    site = site_choice("Look at one site", index=2, key="tf_site", name="site")
    site = int(np.clip(site, 0, rec.n_sites - 1))
    x_max, y_max = profile(site)
    marks = sorted({99, 223, int(s.outlier_dim[site])})
    plot.show(charts_transformer.dimension_figure(x_max, y_max, s.labels[site], marks), key="tf_dims")
    ceiling = math.sqrt(383)  # |x̂| < √(d − 1): enough digits that a value below it never reads as equal
    at_outlier, largest = s.outlier_x_hat[site], s.x_hat_absmax[site]
    same = abs(at_outlier) == largest
    xhat_digits = digits_to_separate([at_outlier, largest], against=[ceiling, -ceiling])
    gammas = [float(rec.gamma[site, 99]), float(rec.gamma[site, 223])]
    gd = digits_not_to_look_exact(gammas, 3)  # float32's 0.30999824 is not the 0.31 three digits print
    # the largest |x| and the largest |x̂| can sit in different rows: a row's x̂ depends on its own spread
    st.caption(
        f"At {s.labels[site]} the largest |x| is {fmt(s.in_absmax[site])} (feature {s.outlier_dim[site]}, token "
        f"{s.outlier_token[site]}), while the median |x| is {fmt(s.in_abs_median[site], 3)}. After normalizing, "
        f"that entry's x̂ is {fmt(at_outlier, xhat_digits)}"
        + (
            ", the site's largest |x̂|"
            if same
            else f"; the site's largest |x̂|, elsewhere, is {fmt(largest, xhat_digits)}"
        )
        + f". The ceiling for d = 384 is √383 = {fmt(ceiling, xhat_digits)}, approached when one feature "
        f"carries the whole variance of its row. γ[99] = {fmt(gammas[0], gd)}, γ[223] = {fmt(gammas[1], gd)} here."
    )

    which = controls.choice(
        "radio",
        "Learned parameter",
        {"gamma": "γ (scale)", "beta": "β (shift)"},
        key="tf_param",
        name="parameter",
        horizontal=True,
    )
    counts, edges = param_hist(str(which))
    name = "γ" if which == "gamma" else "β"
    plot.show(
        charts_transformer.parameter_heatmap(counts, edges, s.labels, name, 1.0 if which == "gamma" else 0.0),
        key="tf_params",
    )
    params = pd.DataFrame(
        {
            "site": s.labels,
            "median γ": s.gamma_median,
            "min γ": s.gamma_min,
            "max γ": s.gamma_max,
            "median β": s.beta_median,
            "max |β|": s.beta_absmax,
        }
    )
    st.dataframe(  # per column, enough digits that two sites' different values never print alike
        params.style.format(
            {c: partial(fmt, digits=digits_to_separate(params[c], 3)) for c in params.columns if c != "site"}
        ),
        hide_index=True,
        width="stretch",
        key="tf_table",
    )

    st.subheader("Where the LayerNorms sit in the block")
    placement = placement_control("Placement (shared with the Depth and drift page)", key="tf_placement")
    plot.show(block_figure(placement, theme.scale()), key="tf_block")
    st.caption(
        "MiniLM is post-LN: its 13 sites are the embeddings LayerNorm plus, in each of 6 layers, one after the "
        "attention add and one after the feed-forward add. Try both placements on the Depth and drift page "
        "with residual connections switched on."
    )


body()

# What does not change with the page's controls is drawn outside the fragment: a control's rerun
# sends none of it again.
page.notice(
    [
        "From layer 0 on, typical entries stay near ±0.4 (at the embeddings they are ten times smaller), yet "
        "feature 99 of the [CLS] token reaches 222 after layer 0's feed-forward block: one number over 500× the "
        "median.",
        "LayerNorm divides the whole row by its std, which the outlier inflates: the outlier becomes ≈19.6 and "
        "every other feature of that token is squeezed toward 0. Normalization bounds the scale, it does not "
        "make the features equal.",
        "γ is not 1 any more: at most sites its median is about 0.6, so training *shrinks* most features after "
        "normalizing; at the final LayerNorm γ[223] is "
        f"{fmt(float(recording().gamma[-1, 223]), 2)}, which all but switches feature 223 off.",
    ]
)
page.predict_then_reveal(
    "tf_q",
    "A row of 384 numbers has one entry of 220 and the rest around ±0.4. After LayerNorm, that entry is about…",
    ["1", "220 / 0.4 ≈ 550", "√383 ≈ 19.6"],
    2,
    "The outlier supplies almost all of the variance, so σ ≈ 220/√384 and (220 − μ)/σ ≈ √383. "
    "Look at 'max |x̂|' at Layer 0 · after FFN: 19.56.",
)
page.show_source(site_stats, dimension_profile)
