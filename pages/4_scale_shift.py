"""Step 4: the learned scale γ and shift β."""

import numpy as np
import streamlit as st

import layernorm as ln
import ui.worksheet
from layernorm import formula
from layernorm.labs.shared_affine import SharedUndo, undo_for_token
from ui import charts_transformer, controls, live, page, plot, session
from ui.fragments import page_fragment
from ui.live import scale_shift, vector
from ui.live import sidebar as live_sidebar
from ui.minilm import recording
from ui.settings import AFFINE_MODES, LabInput
from ui.sidebar import affine_table, set_affine_table
from ui.state import lab_input, lab_section
from ui.text import MESSAGE_LIMIT, digits_to_separate, fmt, plain, rounding_noise
from ui.widgets import sentence_choice, site_choice

lab_input()  # the page draws the input in its lab section below
page.header(
    "Step 4 · Scale and shift: y = γ ⊙ x̂ + β",
    "Forcing every token to mean 0 and unit spread could throw away something useful. So LayerNorm "
    "ends with two learned vectors: γ stretches each feature and β moves it. They start at γ = 1 and "
    "β = 0, so a fresh network gets plain standardization; training then sets each feature's scale "
    "and offset. One γ and one β serve every token, while μ and σ are each token's own: γ = σ, β = μ "
    "gives back the one token they were taken from, not every token at once.",
)
st.latex(
    r"y_i = \gamma_i \, \hat{x}_i + \beta_i \qquad \gamma_i \text{ starts at } 1,\; \beta_i \text{ at } 0"
)


c1, c2, c3 = st.columns(3)
# The sidebar's own setters: a page never writes the sidebar's γ, β or their mode itself.
set_mode = session.sidebar.set_affine_mode
c1.button("Reset: γ = 1, β = 0", key="ss_reset", on_click=session.sidebar.reset_affine)
c2.button("Undo for this vector: γ = σ, β = μ", key="ss_undo", on_click=set_mode, args=(AFFINE_MODES[2],))
c3.button("Edit γ, β per feature", key="ss_table", on_click=set_mode, args=(AFFINE_MODES[1],))


# The sidebar's ε, γ, β, d and seed, and the per-feature table, rerun only this part (ui.state.lab_section).
@lab_section("ss_body")
def body(lab: LabInput) -> None:
    st.caption(f"Current choice (sidebar): **{lab.affine_mode}**")

    gamma, beta = lab.gamma, lab.beta
    if lab.affine_mode == AFFINE_MODES[1]:
        # Text cells, read by ln.parse_number: the grid's number editor would rewrite 1e-8 or −3 itself.
        cell = "A number such as 1.5, −3, .01 or 1e-8"
        edited = st.data_editor(
            affine_table(lab.d, as_text=True),
            key=f"ss_editor_{lab.d}",
            width="stretch",
            height=min(38 + 35 * lab.d, 320),
            num_rows="fixed",
            placeholder="",
            column_config={c: st.column_config.TextColumn(c, help=cell) for c in ("γ", "β")},
        )
        st.caption("A link carries no per-feature γ, β: they stay in this browser session.")
        try:
            gamma = ln.vector_from_table(edited["γ"].tolist(), "γ column")
            beta = ln.vector_from_table(edited["β"].tolist(), "β column")
            set_affine_table(lab.d, edited)  # other pages (and this d, later) use the edited values
        except ln.InputError as exc:
            st.error(
                f"γ/β table: {plain(exc, MESSAGE_LIMIT)} The last valid values are used meanwhile.", icon="⚠️"
            )

    steps = ln.layer_norm_steps(lab.x, gamma, beta, eps=lab.eps)
    table = lab.affine_mode == AFFINE_MODES[1]  # the page's own γ, β (the table as edited above)

    def view(at: LabInput) -> live.Frame:
        return scale_shift.frame(at.x, gamma if table else at.gamma, beta if table else at.beta, at.eps)

    # the table's γ, β are the view's own; otherwise it reads the sidebar's, which the frames' input holds
    token = (gamma.tobytes(), beta.tobytes()) if table else None
    payloads = live_sidebar.view(view, token, lab)
    shown = scale_shift.frame(lab.x, gamma, beta, lab.eps)
    live.readout(shown.readout(scale_shift.READOUT))
    # the input's bars (the third of each group) can be dragged: the page follows feature i
    drag = vector.bars(
        lab,
        view,
        (table, gamma.tobytes(), beta.tobytes()),
        chart=scale_shift.CHART_BARS,
        shown=lab.x,
        trace=2,
        axis_of=payloads,
    )
    for fig, chart in zip(scale_shift.figures(shown), shown.charts, strict=True):
        live.show_chart(fig, chart.key, *payloads, drag)
    if lab.affine_mode == AFFINE_MODES[2]:
        mu_digits = digits_to_separate(
            [float(steps.mu)], against=steps.x, same_within=rounding_noise(steps.x)
        )
        st.caption(
            f"γ = σ = {fmt(float(steps.sigma))} and β = μ = {fmt(float(steps.mu), mu_digits)}: this vector's "
            "own statistics, used for every feature. They give back this vector only; another token, "
            "with its own μ and σ, would need its own γ and β, and a LayerNorm has one γ and one β for all."
        )
    if lab.affine_mode == AFFINE_MODES[3] and lab.recorded_y is not None:
        st.info(
            "These are MiniLM's learned γ and β for this LayerNorm site: no longer 1 and 0 after training, "
            "and different from feature to feature.",
            icon=":material/memory:",
        )
    ui.worksheet.offer("scale_shift", lab, steps, lambda: scale_shift.figures(shown))


body()


def span(values: np.ndarray) -> str:
    """ "a to b", or one number when both ends print alike."""
    lo, hi = fmt(float(np.min(values))), fmt(float(np.max(values)))
    return lo if lo == hi else f"{lo} to {hi}"


@st.cache_data(show_spinner=False)
def shared_undo(sentence: int, site: int, k: int) -> SharedUndo:
    rec = recording()
    tokens = rec.sentence_tokens(sentence, site)
    return undo_for_token(tokens, k, eps=float(rec.eps[site]))


# Real tokens, not the sidebar's vector: these controls rerun only this part.
@page_fragment
def many_tokens() -> None:
    st.subheader("One γ, β for a whole sentence", anchor="many-tokens")
    rec = recording()
    st.markdown(
        "*Undo* gives one vector back. A LayerNorm layer, though, has one γ and one β for every token "
        f"that passes through it. Below are the real tokens of one sentence at one of MiniLM's LayerNorms "
        f"(d = {rec.d}, with the model's own ε). Pick a token: γ becomes its σ and "
        "β its μ, for every feature of every token."
    )
    c1, c2, c3 = st.columns([3, 2, 2])
    sentence = sentence_choice("Sentence", key="ss_many_sentence", where=c1)
    site = site_choice("LayerNorm", index=2, key="ss_many_site", where=c2)
    positions = [int(t) for t in rec.real_token_indices(sentence)]
    label = {t: f"{t} · {rec.tokens[sentence, t]}" for t in positions}
    k = int(
        controls.choice(
            "selectbox",
            "Undo for token",
            positions,
            format_func=label.__getitem__,
            key="ss_many_token",
            where=c3,
        )
    )
    r = shared_undo(sentence, site, positions.index(k))
    others = np.delete(np.arange(len(positions)), r.k)
    m1, m2, m3 = st.columns(3)
    m1.metric(f"token {label[k]}: largest |y − x|", fmt(float(r.miss[r.k])))
    m2.metric("every other token: largest |y − x|", fmt(float(np.max(r.miss[others]))))
    m3.metric("shared γ = σ, β = μ of the token", f"{fmt(r.gamma)}, {fmt(r.beta)}")
    plot.show(
        charts_transformer.token_statistics_figure(
            [label[t] for t in positions], (r.mu, r.sigma), (r.mu_after, r.sigma_after), r.k
        ),
        key="ss_many_chart",
    )
    kept = (span(r.mu_after), span(r.sigma_after)) == (fmt(r.beta), fmt(r.gamma))
    own = f", token {label[k]}'s own" if kept else ""
    st.markdown(
        f"With ε = {fmt(float(rec.eps[site]), 1)}, token {label[k]} comes back to within "
        f"{fmt(float(r.miss[r.k]))}. The other {others.size} {'token misses' if others.size == 1 else 'tokens miss'} "
        f"by {span(r.miss[others])}: before this LayerNorm their means ran from {span(r.mu[others])} and their "
        f"spreads from {span(r.sigma[others])}; after it every token has mean {span(r.mu_after)} and spread "
        f"{span(r.sigma_after)}{own}. One pair cannot undo every token: each token's own μ and σ are not in "
        "LayerNorm's output."
    )
    st.markdown(
        "**Then why does it work?** Each token keeps the *direction* of x − μ: its y − β is its x − μ "
        "times one number, γ/√(σ² + ε) (here "
        f"{span(r.factor)}, one per token). The next layer reads y through weight matrices, so it still "
        "sees which features stand out and how they compare. What is gone is each token's own offset and "
        "length. MiniLM normalizes after each block (post-LN), so this output *is* the stream the next "
        "block reads; a pre-LN model such as GPT-2 normalizes only the copy a block reads, and the "
        "residual stream around it keeps every token's scale (see *Inside a real transformer*)."
    )


many_tokens()
page.notice(
    [
        "With γ = 1 and β = 0, y is exactly x̂: each feature's vermillion y is as tall as its green x̂, "
        "and the map's points sit on the dotted line y = x̂.",
        "A shared γ sets the slope of the map's points, β lifts them; per-feature values can scatter the "
        "points off one line.",
        "Press *Undo*: with this vector's σ as γ and its μ as β, y lands back on x (closely while ε ≪ σ²). "
        "It is often said that γ and β can therefore always undo the normalization; they can for one "
        "token, but γ and β are shared by every token while μ and σ are each token's own, so each "
        "token's own mean and spread are gone from LayerNorm's output. A pre-LN transformer (GPT-2) still "
        "carries them in the residual stream that runs around its LayerNorms; a post-LN one (BERT, "
        "MiniLM) normalizes the stream itself.",
    ]
)
page.predict_then_reveal(
    "ss_q",
    "One γ and one β for every feature: which pair gives y a mean of 1.5 and a standard deviation of 2 "
    "across a token's features (take ε ≪ σ²)? Try it with the sidebar's sliders.",
    ["γ = 1.5, β = 2", "γ = 2, β = 1.5", "γ = 1, β = 0"],
    1,
    "Across its features x̂ has mean 0 and standard deviation √(σ²/(σ² + ε)), which is 1 when ε ≪ σ²; "
    "multiplying by 2 sets the spread and adding 1.5 sets the centre. Per-feature γᵢ, βᵢ would not set "
    "feature i's mean over many tokens to βᵢ: x̂ is standardized across one token's features, not "
    "across tokens.",
)
page.show_source(formula.layer_norm)
