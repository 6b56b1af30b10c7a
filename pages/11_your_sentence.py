"""Why normalize, part 4: your own sentence through the live transformer, and what breaks without LayerNorm."""

import html

import numpy as np
import streamlit as st
from streamlit.delta_generator import DeltaGenerator
from threadpoolctl import threadpool_limits

from layernorm.data.weights import (
    MAX_WORD_PIECES,
    WeightsMissingError,
    tokenize,
)
from layernorm.labs import bert, readouts
from ui import charts_live, controls, page, plot, session
from ui.fragments import page_fragment
from ui.minilm import dyt_sites, model, recording
from ui.text import digits_not_to_look_exact, digits_to_separate, fmt, plain

KINDS = {
    "layer": "The model's own LayerNorm",
    "none": "Remove it (pass the residual sum through)",
    "rms": "RMSNorm with the same γ (no centring, no β)",
    "batch": "BatchNorm instead (statistics over the batch)",
    "dyt": "DyT fitted to each site (γ ⊙ tanh(α·x) + β, no statistics)",
}
EPS_CHOICES = [float(f"1e{k}") for k in range(-12, 1)]
SITES = list(range(13))
DEFAULT_1 = "Layer normalization keeps every token in a sensible range."
DEFAULT_2 = "Normalizing activations makes deep networks easier to train."


@st.cache_resource(max_entries=32, show_spinner="Running the transformer on your words…")
def run(sentences: tuple[str, ...], change: bert.Intervention) -> tuple[object, bert.ForwardResult]:
    """One forward pass per (sentences, change), shared by reruns that only pick a token or a site."""
    weights, tokenizer = model()
    batch = tokenize(tokenizer, list(sentences))
    with threadpool_limits(1):  # one BLAS thread: many students share two cores
        result = bert.forward(weights, batch.input_ids, batch.attention_mask, change=change)  # type: ignore[arg-type]
    for arr in (result.site_inputs, result.site_outputs, result.embedding):
        arr.flags.writeable = False
    return batch, result


page.header(
    "Why normalize · Your sentence, live",
    "Type anything. The lab splits it into word-pieces and runs all-MiniLM-L6-v2 — 6 transformer layers, "
    "13 LayerNorms — on it right here, with every LayerNorm computed by the lab's own core. Then change "
    "what stands at those 13 places: remove LayerNorm, swap in RMSNorm, give it another ε, or let it pool "
    "statistics over the batch like BatchNorm, and watch how far the activations and the sentence's meaning move.",
)
st.latex(
    r"h \leftarrow \mathrm{LN}\big(h + \mathrm{Attention}(h)\big),\qquad h \leftarrow \mathrm{LN}\big(h + \mathrm{FFN}(h)\big)"
)

try:
    model()
    live = True
except (WeightsMissingError, OSError, ValueError) as exc:
    live = False
    st.warning(
        f"The live model is not available ({exc}). This page shows the {recording().n_sentences} recorded "
        "sentences instead; "
        "the interventions need the live model.",
        icon=":material/cloud_off:",
    )

# --- the sentences ------------------------------------------------------------------------------
with st.container(border=True):
    c1, c2 = st.columns(2)
    text1 = controls.text(
        "text_input", "Your sentence", DEFAULT_1, max_chars=2000, key="ys_text1", where=c1, disabled=not live
    )
    text2 = controls.text(
        "text_input",
        "A second sentence to compare (optional)",
        DEFAULT_2,
        max_chars=2000,
        key="ys_text2",
        where=c2,
        name="second sentence",
        disabled=not live,
    )
    st.caption(
        f"At most {MAX_WORD_PIECES} word-pieces per sentence ([CLS] and [SEP] included); longer text is cut."
    )


def unknown_note(number: int, words: list[str], longest: int) -> str:
    """Why sentence ``number``'s ``[UNK]`` pieces (``words``: the text behind each) are unknown."""
    spelled = [w for w in words if len(w) <= longest]
    long = len(words) - len(spelled)
    reasons = []
    if spelled:
        reasons.append(
            f"{len(spelled)} piece(s) became [UNK] ({plain(' '.join(spelled), 40)}): characters (emoji, some "
            "scripts) the model's English vocabulary cannot spell"
        )
    if long:
        reasons.append(
            f"{long} word(s) longer than {longest} characters became [UNK] whole: WordPiece does not split "
            "words that long"
        )
    return f"Sentence {number}: " + "; ".join(reasons) + ". They still pass through every LayerNorm."


if live:
    sentences = tuple(t.strip() for t in (text1, text2) if t.strip())
    if not sentences:
        st.info("Type a sentence above; meanwhile the page shows the default one.", icon=":material/edit:")
        sentences = (DEFAULT_1,)
    elif not text1.strip():
        st.info(
            "The first box is empty, so the page follows only the second sentence: it is sentence 1 below.",
            icon=":material/edit:",
        )
    batch, base = run(sentences, bert.Intervention())
    for i in range(len(sentences)):
        if batch.truncated[i]:
            st.warning(
                f"Sentence {i + 1} has {batch.lengths[i]} word-pieces; the model reads the first "
                f"{MAX_WORD_PIECES - 1} and a closing [SEP].",
                icon=":material/content_cut:",
            )
        if batch.unknown[i]:
            longest = int(model()[1].model.max_input_chars_per_word)  # type: ignore[attr-defined]
            st.info(unknown_note(i + 1, batch.unknown_words[i], longest), icon=":material/help:")
    pieces = batch.tokens
else:
    rec = recording()
    base = readouts.recorded_result(rec)
    sentences = tuple(str(s) for s in rec.sentences)
    pieces = [[str(t) for t in rec.tokens[i] if t != "[PAD]"] for i in range(rec.n_sentences)]


def _pick(label: str, names: list[str], key: str, where: DeltaGenerator) -> int:
    """A selectbox over positions shown by ``names``; a remembered position past the end moves to the last."""
    kept = session.widgets.get(key)
    if isinstance(kept, int) and kept >= len(names):
        session.widgets.set(key, len(names) - 1)
    picked = controls.choice(
        "selectbox", label, list(range(len(names))), format_func=names.__getitem__, key=key, where=where
    )
    return min(int(picked or 0), len(names) - 1)


# --- one token, one site ------------------------------------------------------------------------
# Picking a sentence, a token or a site only changes this section: a fragment reruns it alone.
@page_fragment
def token_section(sentences: tuple[str, ...], pieces: list[list[str]], base: bert.ForwardResult) -> None:
    st.subheader("1 · One token through the 13 LayerNorms")
    c1, c2, c3 = st.columns([2, 2, 3])
    s_idx = _pick("Sentence", [f"{i + 1}: {s[:60]}" for i, s in enumerate(sentences)], "ys_sentence", c1)
    row = pieces[s_idx]
    t_idx = _pick("Token", [f"{i}: {p}" for i, p in enumerate(row)], "ys_token", c2)
    site = int(
        controls.select_slider(
            "LayerNorm site", SITES, 2, format_func=readouts.site_label, key="ys_site", where=c3, name="site"
        )
    )
    st.code("  ".join(f"{i}:{p}" for i, p in enumerate(row)), language=None, wrap_lines=True)

    x_in = base.site_inputs[site, s_idx, t_idx]
    y_out = base.site_outputs[site, s_idx, t_idx]
    mu, sigma = readouts.token_statistics(base, s_idx, t_idx)
    marks, values = readouts.top_features(x_in, 3)
    token_text = html.escape(row[t_idx])  # Plotly titles understand some HTML
    m1, m2, m3, m4 = st.columns(4)
    m1.metric("μ entering this site", fmt(mu[site]))
    m2.metric("σ entering this site", fmt(sigma[site]))
    m3.metric(
        "largest |x| among its features",
        fmt(abs(values[0])),
        help=f"feature {int(marks[0])}: {fmt(values[0])}",
    )
    m4.metric("largest |y| after LayerNorm", fmt(float(np.max(np.abs(y_out)))))
    plot.show(
        charts_live.before_after_figure(
            x_in, y_out, marks, f"'{token_text}' at {labels[site]}: before and after"
        ),
        key="ys_chart_token",
    )
    plot.show(charts_live.token_statistics_figure(labels, mu, sigma, site), key="ys_chart_stats")


labels = [readouts.site_label(s) for s in SITES]
token_section(sentences, pieces, base)


# --- interventions ------------------------------------------------------------------------------
# The changes' controls rerun only this section (a fragment): the sentences and section 1 stay. The
# section gets the base forward pass as an argument (a shared cache_resource object, not a copy).
@page_fragment
def change_section(sentences: tuple[str, ...], base: bert.ForwardResult) -> None:
    st.subheader("2 · Change the LayerNorms, see what happens")
    with st.container(border=True):
        c1, c2 = st.columns([3, 2])
        kind = controls.choice(
            "radio",
            "At the LayerNorm sites",
            KINDS,
            key="ys_kind",
            where=c1,
            name="change",
            disabled=not live,
        )
        where = controls.choice(
            "radio",
            "Where",
            ["every site", "one site"],
            key="ys_where",
            where=c2,
            horizontal=True,
            disabled=not live,
        )
        one = int(
            controls.select_slider(
                "Which site",
                SITES,
                5,
                format_func=readouts.site_label,
                key="ys_one_site",
                where=c2,
                name="changed site",
                disabled=not live or where != "one site",
            )
        )
        c3, c4 = st.columns([3, 2])
        eps = float(
            controls.select_slider(
                "ε at the changed sites",
                EPS_CHOICES,
                1e-12,
                format_func=lambda v: f"{v:.0e}",
                key="ys_eps",
                where=c3,
                name="ε",
                disabled=not live or kind in ("none", "dyt"),
            )
        )
        unit = bool(
            controls.flag(
                "toggle",
                "γ = 1, β = 0 there",
                False,
                key="ys_unit",
                where=c4,
                disabled=not live or kind in ("none", "dyt"),
            )
        )

    change = bert.Intervention(
        kind=kind or "layer",  # type: ignore[arg-type]
        sites=(one,) if where == "one site" else (),
        eps=None if eps == 1e-12 or kind == "dyt" else eps,
        unit_affine=unit and kind != "dyt",
        dyt=dyt_sites() if kind == "dyt" else (),
    )
    if not live:
        plot.show(
            charts_live.residual_figure(labels, readouts.residual_size(base), None, ""),
            key="ys_chart_residual",
        )
    elif change.is_identity:
        plot.show(
            charts_live.residual_figure(
                labels, readouts.residual_size(base, range(len(sentences))), None, ""
            ),
            key="ys_chart_residual",
        )
        st.caption("Pick a change above: this is the model exactly as trained.")
    else:
        mates = tuple(str(s) for s in recording().sentences) if change.kind == "batch" else ()
        _, changed = run(sentences + mates, change)
        cmp = readouts.compare(base, changed, len(sentences))
        name = KINDS[change.kind].split(" (")[0] + ("" if where == "every site" else f" at {labels[one]}")
        plot.show(
            charts_live.residual_figure(labels, cmp.size_base, cmp.size_changed, name),
            key="ys_chart_residual",
        )
        cols = st.columns(len(sentences) + 1)
        # a cosine of 0.99999999966 (ε = 1e-6 everywhere) is not the "1 = unchanged" six digits print
        kept_digits = digits_not_to_look_exact(cmp.cosine_to_base, 6)
        for i in range(len(sentences)):
            cols[i].metric(
                f"sentence {i + 1}: meaning kept",
                fmt(cmp.cosine_to_base[i], kept_digits),
                help="Cosine between the sentence embedding with this change and without it (1 = unchanged).",
            )
        if cmp.pair_base is not None and cmp.pair_changed is not None:
            pair = [cmp.pair_changed, cmp.pair_base]  # a change never reads "0.5767, was 0.5767"
            pair_digits = digits_not_to_look_exact(pair, digits_to_separate(pair, 4))
            cols[-1].metric(
                "similarity of your two sentences",
                fmt(cmp.pair_changed, pair_digits),
                delta=f"was {fmt(cmp.pair_base, pair_digits)}",
                delta_color="off",
                delta_arrow="off",  # a text, not a signed change
            )
        else:
            cols[-1].caption("Add a second sentence to see how their similarity moves.")
        if change.kind == "dyt":
            st.caption(
                "A model trained with LayerNorm, each LayerNorm replaced after training by the DyT that fits it "
                "best on the 7 recorded sentences (least squares, Normalization now): not a model trained with "
                "DyT, whose weights would have learned around it."
            )
        if change.kind == "batch":
            st.caption(
                f"BatchNorm pooled each feature {'at every site' if where == 'every site' else 'at ' + labels[one]} "
                f"over the real tokens of your sentence(s) and the {len(mates)} recorded ones: change a batch-mate "
                "and your sentence's numbers change. LayerNorm never looks outside the token."
            )


change_section(sentences, base)

page.notice(
    [
        "Follow σ across the 13 sites: before each LayerNorm it is whatever the sum before it made it; the "
        "LayerNorm divides every token by its own σ, so whatever σ a token brings, it leaves as an x̂ of σ ≈ 1 "
        "under the same γ and β as every other token.",
        "Remove LayerNorm everywhere and compare the two curves: nothing divides the residual stream by its "
        "size any more, so every later layer gets inputs unlike the normalized ones its weights were trained "
        "on. 'meaning kept' (1 = unchanged) says how far that moved your sentence.",
        "RMSNorm, as set here, skips the centring and drops β (it keeps γ): compare μ with σ in section 1 to "
        "see how much centring there is to skip, and read 'meaning kept' for what the two together cost. "
        "BatchNorm instead makes your sentence depend on the sentences next to it.",
    ]
)
page.predict_then_reveal(
    "ys_q",
    "You remove only the very first LayerNorm (Embeddings LN). What happens to the rest of the network?",
    [
        "Nothing: the later LayerNorms fix it",
        "The sentence embedding changes: the later LayerNorms cannot undo it",
        "The model crashes with NaN",
    ],
    1,
    "The later LayerNorms rescale every token, but the first attention layer already saw unnormalized inputs "
    "its weights were not trained for, and what it added stays in the residual stream: rescaling a token "
    "does not take it out again. Try it: 'one site', Embeddings LN, 'Remove it', and read 'meaning kept' "
    "(1 = unchanged).",
)
page.show_source(bert.forward, bert._normalize_site)
