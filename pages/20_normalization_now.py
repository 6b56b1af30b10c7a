"""Why normalize, part 5: what models since 2024 do instead of, and around, LayerNorm."""

import numpy as np
import pandas as pd
import streamlit as st

from layernorm.data.weights import tokenize
from layernorm.labs import bert
from layernorm.labs import recent_norms as rn
from layernorm.labs.depth import DepthResult, sig, simulate_depth
from ui import charts_depth as cd
from ui import charts_recent, controls, live, page, plot
from ui.fragments import page_fragment
from ui.live import dyt
from ui.minilm import model, recording
from ui.text import fmt, fmt_bound, fmt_shown, plain
from ui.widgets import sentence_choice, site_choice

PLACEMENTS = {  # placement: (its name, the layer's formula)
    "none": ("no norm", r"h_l = h_{l-1} + \phi(h_{l-1} W_l)"),
    "post": ("post-LN (BERT, MiniLM)", r"h_l = \mathrm{LN}\big(h_{l-1} + \phi(h_{l-1} W_l)\big)"),
    "pre": ("pre-LN (GPT-2)", r"h_l = h_{l-1} + \phi\big(\mathrm{LN}(h_{l-1})\, W_l\big)"),
    "peri": ("Peri-LN", r"h_l = h_{l-1} + \mathrm{LN}\Big(\phi\big(\mathrm{LN}(h_{l-1})\, W_l\big)\Big)"),
    "output": ("output norm (OLMo 2)", r"h_l = h_{l-1} + \mathrm{LN}\big(\phi(h_{l-1} W_l)\big)"),
}
QK_SCALES = [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0]


@st.cache_data(show_spinner="Running five stacks forward and backward…", max_entries=32)
def stacks(n_layers: int, gain: float) -> dict[str, DepthResult]:
    out = {}
    for p in PLACEMENTS:
        out[p] = simulate_depth(rn.placement_stack(p, n_layers, gain))
    return out


@st.cache_data(show_spinner=False, max_entries=64)
def qk_sweep(layer: int, head: int, sentence: int, qk_norm: bool) -> list[rn.AttentionLogits]:
    weights, _ = model()
    rec = recording()
    # what enters layer `layer`'s attention: site 2·layer's output (the embeddings' norm for layer 0)
    x = np.array(rec.outputs[2 * layer, sentence, rec.real_token_indices(sentence)], dtype=np.float64)
    wq, wk, bq, bk = rn.head_projections(weights, layer, head)  # type: ignore[arg-type]
    return [rn.attention_logits(x, wq, wk, bq, bk, scale=s, qk_norm=qk_norm) for s in QK_SCALES]


@st.cache_data(show_spinner="Running MiniLM twice on the 7 sentences…", max_entries=16)
def fold_effects(site: int) -> tuple[rn.FoldCheck, np.ndarray, tuple[str, ...]]:
    weights, tokenizer = model()
    rec = recording()
    readers = rn.site_readers(weights, site)  # type: ignore[arg-type]
    real = rec.attention_mask.astype(bool)
    x = np.asarray(rec.inputs[site][real], dtype=np.float64)
    t = weights.tensors  # type: ignore[attr-defined]
    check = rn.fold_check(
        x,
        rec.gamma[site],
        rec.beta[site],
        t[f"{readers[0]}.weight"],
        t[f"{readers[0]}.bias"],
        eps=float(rec.eps[site]),
    )
    batch = tokenize(tokenizer, [str(s) for s in rec.sentences])
    cos = bert.folded_cosines(weights, batch.input_ids, batch.attention_mask, site)  # type: ignore[arg-type]
    return check, cos, readers


page.header(
    "Why normalize · Normalization now",
    "LayerNorm is not the last word. Since 2024 new models and papers have moved the norm around or replaced it: "
    "Dynamic Tanh (DyT) drops the statistics altogether, Peri-LN and OLMo 2 normalize what each sublayer "
    "adds to the stream, QK-norm normalizes attention's queries and keys, and nGPT keeps every hidden "
    "vector on a sphere. Each idea is played here on MiniLM's recorded activations or on the lab's "
    "stack of random layers; the numbers are the lab's, the claims about other models are the papers' "
    "(sources at the bottom).",
)

st.subheader("1 · The tanh inside LayerNorm (DyT)")
st.markdown(
    "Zhu et al. (2025) plotted LayerNorm's input against its output, before γ and β, for many tokens at "
    "once, in trained vision, speech and diffusion transformers, and saw S-shaped curves: most points on a "
    "straight line, the largest inputs squashed. A token that holds one huge feature has a huge σ, so every "
    "feature of that token is divided by more. DyT keeps the S and drops the statistics: "
    "**DyT(x) = γ ⊙ tanh(α·x) + β**, with one learned number α. Below: every feature of every word-piece of "
    "one sentence at a MiniLM LayerNorm, the tanh that fits best (least squares over α, g and b) and the "
    "one with your α."
)


@page_fragment
def dyt_section() -> None:
    rec = recording()
    c1, c2 = st.columns(2)
    site = site_choice("LayerNorm site", key="now_site", index=2, where=c1)
    sentence = sentence_choice("Sentence", key="now_sentence", index=1, where=c2)
    alpha, frames = live.select_slider(
        "α of DyT (drag it: the orange curve is g·tanh(α·x) + b with g and b fitted for your α)",
        dyt.ALPHAS,
        dyt.DEFAULT_ALPHA,
        format_func=dyt.alpha_text,
        key="now_alpha",
        name="alpha",
        frames=lambda: dyt.frames(site, sentence),
    )
    shown = dyt.frame(site, sentence, alpha)
    live.readout(shown.readout(dyt.READOUT))
    live.show_chart(dyt.figure(site, sentence, shown, rec.site_label(site)), dyt.CHART, frames)
    with live.at_rest("now_dyt_words"):
        c = dyt.cloud(site, sentence)
        best, line = c.best, c.line
        if best.at_edge and best.alpha == rn.FIT_ALPHA_RANGE[0]:
            verdict = (
                f"At this site the best tanh is a straight line over these inputs (α reached the search's "
                f"smallest, {best.alpha:g}): here LayerNorm squashes nothing a line does not follow "
                f"(r² {fmt_shown(line.r_squared)} for a line)."
            )
        elif best.r_squared > line.r_squared + 0.01:
            verdict = (
                f"Here a tanh follows LayerNorm better than any straight line: r² {fmt_shown(best.r_squared)} "
                f"against {fmt_shown(line.r_squared)}."
            )
        else:
            verdict = (
                f"Here a tanh follows LayerNorm about as well as a straight line: r² "
                f"{fmt_shown(best.r_squared)} against {fmt_shown(line.r_squared)}."
            )
        worst = int(np.argmax(best.token_rms))
        features = np.argsort(best.feature_rms)[::-1][:3]
        d = c.x.shape[1]
        st.markdown(
            f"{verdict} The fit misses most on the word-piece **{plain(c.tokens[worst])}** (rms miss "
            f"{fmt_shown(float(best.token_rms[worst]))}, against a median of "
            f"{fmt_shown(float(np.median(best.token_rms)))} over the sentence's {len(c.tokens)} word-pieces) "
            f"and on features {', '.join(str(int(j)) for j in features)}. "
            f"The largest |x̂| is {fmt_shown(float(np.max(np.abs(c.x_hat))))}: no feature of x̂ can pass "
            f"√(d − 1) = {fmt_shown(float(np.sqrt(d - 1)))} (d = {d}), approached only when every other feature "
            "of the token is the same. One tanh for every token cannot tell which token a value came from; "
            "LayerNorm can."
        )
    st.caption(
        "A fit to a trained LayerNorm is not a model trained with DyT: Zhu et al. train from scratch with "
        "DyT in place (α starting at 0.5 by default), and γ and β learn their own values."
    )


dyt_section()

st.subheader("2 · Where the norm sits")
st.markdown(
    "BERT and MiniLM normalize the stream itself after each sublayer (post-LN); GPT-2 normalizes a "
    "sublayer's input and adds its output to the stream unnormalized (pre-LN). Peri-LN (Kim et al. 2025) "
    "normalizes both the sublayer's input and its output; OLMo 2 (Team OLMo 2025) normalizes only the "
    "output (with RMSNorm). In the last three the stream itself is not normalized between layers (only, in "
    "a real model, by a final norm at the top), so it can grow; the "
    "question is how fast. Below: the lab's stack of random GELU layers (width 64, batch 32), the five "
    "placements side by side."
)
for name, tex in PLACEMENTS.values():
    st.latex(rf"\text{{{name.split(' (')[0]}:}}\quad {tex}")


@page_fragment
def placement_section() -> None:
    c1, c2 = st.columns(2)
    n_layers = int(controls.slider("Layers L", 1, 100, 48, 1, key="now_layers", where=c1))
    gain = float(
        controls.slider(
            "Init gain (weights ~ N(0, gain²/d))", 0.5, 3.0, 1.0, 0.05, key="now_gain", name="gain", where=c2
        )
    )
    results = stacks(n_layers, gain)
    colors = charts_recent.PLACEMENT_COLORS
    series = [
        (PLACEMENTS[p][0], np.arange(r.n_computed + 1), r.act_std, colors[p], cd.DASHES[i % 4])
        for i, (p, r) in enumerate(results.items())
    ]
    std0 = float(results["none"].act_std[0])
    plot.show(
        cd.per_layer_figure(
            series,
            "Size of the residual stream per layer, five placements",
            "std of h_l",
            hi=1e4 * std0,
            lo=1e-4 * std0,
        ),
        key="now_placement_chart",
    )
    rows = []
    for p, r in results.items():
        rows.append(
            {
                "placement": PLACEMENTS[p][0],
                "std at the input": sig(float(r.act_std[0]), 3),
                f"std at layer {r.n_computed}": sig(float(r.act_std[-1]), 3),
                "activations": r.status,
                "gradients": r.grad_status,
            }
        )
    st.dataframe(pd.DataFrame(rows), hide_index=True)
    st.caption(
        "Post-LN holds the stream at std 1 (a hair under, for ε) by construction. The others let it grow. "
        "Peri-LN and the output norm add a normalized vector, of std at most 1, per layer: their stream's "
        "std grows by at most 1 per layer, whatever the gain. Pre-LN adds whatever the sublayer gives it."
    )


placement_section()

st.subheader("3 · QK-norm: attention logits that cannot run away")
st.markdown(
    "Attention scores each query against each key: logit = q·k / √d_h, then a softmax. If training makes "
    "the query and key projections s times larger, every logit grows s² times, and for large s the softmax "
    "puts almost all of a query's weight on one key. ViT-22B (Dehghani et al. 2023) normalized queries and "
    "keys before their product; OLMo 2 does too (with RMSNorm), because, in its words, logits that are too "
    "large \u201ccan lead to training loss divergence\u201d. "
    "After LayerNorm a query or key has length at most √d_h, so no logit can pass √d_h, whatever s is. "
    "Below: one head of MiniLM (which has no QK-norm), its real weights multiplied by s."
)


@page_fragment
def qk_section() -> None:
    c1, c2, c3 = st.columns(3)
    layer = int(controls.choice("selectbox", "Layer", list(range(6)), key="now_qk_layer", where=c1))
    head = int(controls.choice("selectbox", "Head", list(range(12)), key="now_qk_head", where=c2))
    sentence = sentence_choice("Sentence", key="now_qk_sentence", index=1, where=c3)
    scale = float(
        controls.select_slider(
            "s: the query and key projections times",
            QK_SCALES,
            1.0,
            key="now_qk_scale",
            name="s",
            format_func=lambda v: f"{v:g}",
        )
    )
    plain_runs = qk_sweep(layer, head, sentence, False)
    normed = qk_sweep(layer, head, sentence, True)
    plot.show(charts_recent.qk_figure(QK_SCALES, plain_runs, normed, scale), key="now_qk_chart")
    at = QK_SCALES.index(scale)
    a, b = plain_runs[at], normed[at]
    n = a.logits.shape[0]
    m1, m2, m3, m4 = st.columns(4)
    m1.metric("largest |logit|, plain", fmt_shown(a.max_abs))
    m2.metric(
        "largest |logit|, QK-norm", fmt_shown(b.max_abs), help=f"never above √d_h = {fmt_shown(b.bound or 0)}"
    )
    m3.metric(
        "top weight per query, plain", fmt_shown(a.top_weight), help="mean over queries; 1: one key only"
    )
    m4.metric("top weight per query, QK-norm", fmt_shown(b.top_weight))
    st.markdown(
        f"At s = {fmt(scale, 2)}, over this sentence's {n} word-pieces: the largest logit is "
        f"{fmt_shown(a.max_abs)} without QK-norm and {fmt_shown(b.max_abs)} with it (bound √d_h = "
        f"{fmt_shown(b.bound or 0)}); a query gives its favourite key {fmt_shown(a.top_weight)} of its attention "
        f"on average without, {fmt_shown(b.top_weight)} with. QK-norm changes the head even at s = 1: it is "
        "a different model, trained that way, not a fix added afterwards."
    )


qk_section()

st.subheader("4 · γ folds into the next layer, in a pre-norm block")
st.markdown(
    "A norm's γ and β are followed by a linear layer: W(γ ⊙ x̂ + β) + b = (W·diag γ) x̂ + (Wβ + b). In a "
    "pre-norm block the norm's output feeds nothing else, so γ and β can be folded into W and b and the "
    "norm left with γ = 1, β = 0: the block computes the same numbers, to rounding (quantization tools such as QuaRot do "
    "exactly this). γ is then there for training, not for what the model can express. In a post-LN model "
    "such as MiniLM the norm's output is also the residual stream the next block adds to, and the fold "
    "breaks the model."
)


@page_fragment
def fold_section() -> None:
    rec = recording()
    site = site_choice(
        "LayerNorm site (its γ, β folded into the layers that read it)",
        key="now_fold_site",
        index=2,
    )
    weights, _ = model()
    readers = rn.site_readers(weights, site)  # type: ignore[arg-type]
    if not readers:
        st.info(
            f"{rec.site_label(site)} is MiniLM's last norm: its output is the encoder's, and no layer of "
            "the encoder reads it. Choose another site."
        )
        return
    check, cos, readers = fold_effects(site)
    st.markdown(
        f"**As a pre-norm block** (this site's input, LayerNorm, then `{readers[0]}`, MiniLM's real "
        f"weights, float64): the layer on γ ⊙ x̂ + β and the folded layer on x̂ differ by at most "
        f"{fmt_bound(check.max_difference, 2)} over all {int(rec.attention_mask.sum())} word-pieces, "
        f"where the outputs reach {fmt_shown(check.max_output)}: rounding, nothing more."
    )
    st.markdown(
        f"**In MiniLM itself** (post-LN): folding this site's γ and β into {len(readers)} reading "
        f"layer{'s' if len(readers) > 1 else ''} and setting γ = 1, β = 0 changes the sentence embeddings: "
        f"cosine similarity to the model's own from {fmt_shown(float(cos.min()))} to {fmt_shown(float(cos.max()))} "
        "over the 7 sentences (1 would be unchanged). The readers compute what they did; the residual add "
        "now gets x̂ instead of γ ⊙ x̂ + β."
    )


fold_section()

st.subheader("5 · nGPT: the sphere as the whole design")
st.markdown(
    "LayerNorm puts x̂ on a sphere of radius √d, for ε → 0 (Invariances and geometry). nGPT (Loshchilov et al. 2025) "
    "takes that as the design: in its words, \u201call vectors forming the embeddings, MLP, attention "
    "matrices and hidden states are unit norm normalized\u201d, each layer moving the token a step along "
    "the sphere; it reports reaching the same accuracy in 4 to 20 times fewer training steps, depending on "
    "the sequence length."
)

page.notice(
    [
        "What later work says about DyT, in its authors' numbers: Derf, erf(αx + s) in DyT's place (Chen et al. "
        "2025), lists GPT-2 validation loss 2.94 with LayerNorm, 2.97 with DyT and 2.94 with Derf, and "
        "DiT-XL/2 FID 19.94, 20.83 and 18.92: DyT trails there. DyT's own paper reports ResNet-50 at 76.2 % "
        "with BatchNorm and 68.9 % with DyT (Appendix D): it does not replace BatchNorm in classic CNNs.",
        "DyT's paper: ViT-B on ImageNet-1K 82.3 % with LayerNorm and 82.5 % with DyT, ViT-L 83.1 % and 83.6 %; "
        "for large language models α's starting value had to be tuned (0.8 in attention blocks and 0.2 "
        "elsewhere for LLaMA 7B).",
    ]
)
st.markdown(
    "**Sources.** Zhu, Chen, He, LeCun, Liu, *Transformers without Normalization*, CVPR 2025, "
    "[arXiv:2503.10622](https://arxiv.org/abs/2503.10622) (Table 1; §7.2, Table 10; Appendix D, Table 16), "
    "code [jiachenzhu/DyT](https://github.com/jiachenzhu/DyT) (`alpha_init_value=0.5`). "
    "Chen, Lu, Zhu, Sun, Liu, *Stronger Normalization-Free Transformers*, "
    "[arXiv:2512.10938](https://arxiv.org/abs/2512.10938), results in "
    "[zlab-princeton/Derf](https://github.com/zlab-princeton/Derf). "
    "Kim et al., *Peri-LN*, ICML 2025, [arXiv:2502.02732](https://arxiv.org/abs/2502.02732). "
    "Team OLMo, *2 OLMo 2 Furious*, [arXiv:2501.00656](https://arxiv.org/abs/2501.00656) (§2.1: reordered "
    "norm, QK-norm). Dehghani et al., *Scaling Vision Transformers to 22 Billion Parameters*, ICML 2023, "
    "[arXiv:2302.05442](https://arxiv.org/abs/2302.05442) (§2, QK normalization). Henry et al., "
    "*Query-Key Normalization for Transformers*, Findings of EMNLP 2020, "
    "[arXiv:2010.04245](https://arxiv.org/abs/2010.04245) (ℓ2-normalized queries and keys). Loshchilov, "
    "Hsieh, Sun, Ginsburg, *nGPT*, ICLR 2025, [arXiv:2410.01131](https://arxiv.org/abs/2410.01131). "
    "Ashkboos et al., *QuaRot*, NeurIPS 2024, [arXiv:2404.00456](https://arxiv.org/abs/2404.00456) "
    "(§3; `fuse_ln_linear` in its code)."
)
page.show_source(rn.dyt, rn.fit_dyt, rn.attention_logits, rn.fold_gamma)
