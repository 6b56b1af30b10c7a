"""Quiz questions on what models since 2024 do instead of, and around, LayerNorm (the Normalization now
page): the tanh a trained LayerNorm resembles, DyT in place of MiniLM's LayerNorms, where the norm sits
over depth, and γ folded into the next layer. Each answer is computed by the core and each link opens the
page in the state that shows it (see :mod:`layernorm.labs.quiz`).

Source: this project (teaching material); DyT is Zhu et al. (2025), Peri-LN Kim et al. (2025).
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np

from layernorm.data.activations import MiniLMRecording, load_minilm_recording
from layernorm.data.weights import BertWeights, load_minilm_weights, load_tokenizer, tokenize
from layernorm.labs import bert
from layernorm.labs.depth import simulate_depth
from layernorm.labs.quiz_kit import Question, RepeatedOptions, ask, g, link, vec
from layernorm.labs.recent_norms import SiteDyT, fit_sites, fit_tanh_and_line, fold_gamma, placement_stack

# The sites where MiniLM's LayerNorm bends like a tanh, or does not: the page's site menu offers all 13
_SITES = tuple(range(13))
SWAP_KIND = "DyT fitted to each site (γ ⊙ tanh(α·x) + β, no statistics)"  # Your sentence's option


@functools.lru_cache(maxsize=1)
def _minilm() -> MiniLMRecording:
    return load_minilm_recording()


@functools.lru_cache(maxsize=1)
def _model() -> tuple[BertWeights, object, tuple[SiteDyT, ...]]:
    rec = _minilm()
    return load_minilm_weights(), load_tokenizer(), fit_sites(rec.inputs, rec.outputs, rec.attention_mask)


@functools.lru_cache(maxsize=128)
def _fits(site: int, sentence: int) -> tuple[float, float, float]:
    """The best tanh's α and r², and a straight line's r², at one site for one sentence (the page's)."""
    rec = _minilm()
    fits = fit_tanh_and_line(rec.sentence_tokens(sentence, site), eps=float(rec.eps[site]))
    return fits.tanh.alpha, fits.tanh.r_squared, fits.line.r_squared


def _tanh_or_line(rng: np.random.Generator) -> Question:
    rec = _minilm()
    site, sentence = int(rng.choice(_SITES)), int(rng.integers(rec.n_sentences))
    alpha, r_tanh, r_line = _fits(site, sentence)
    if abs(r_tanh - r_line) < 0.01:  # a tie within the readouts' digits: no one answer
        raise RepeatedOptions(f"the tanh and the line fit site {site} alike")
    tanh_wins = r_tanh > r_line
    tanh = f"the tanh: r² {g(r_tanh)} against {g(r_line)} for a line"
    line = f"a straight line: r² {g(r_line)} against {g(r_tanh)} for the tanh"
    return ask(
        rng, "dyt-tanh", "LayerNorm's input against its output",
        f"MiniLM's LayerNorm \"{rec.site_label(site)}\" normalizes the word-pieces of \"{rec.sentences[sentence]}\". "
        "Plot every feature's input x against its x̂ (before γ, β), for all the word-pieces at once, and fit "
        "both g·tanh(α·x) + b and a straight line by least squares. Which follows the points better?",
        tanh if tanh_wins else line, [line if tanh_wins else tanh, "both fit it exactly: x̂ depends on x alone"],
        f"A token with a huge feature has a huge σ, so all its features are divided by more: over many tokens the "
        f"largest inputs are squashed and the cloud bends like a tanh{' (best α = ' + g(alpha) + ')' if tanh_wins else ''}"
        f"{'' if tanh_wins else ', except where no token has an outlier, as here: then LayerNorm is close to a line'}. "
        "x̂ is not a function of x alone: the same x gives another x̂ in a token with another μ and σ, which DyT "
        "cannot see.",
        link("/normalization_now", now_site=rec.site_label(site), now_sentence=str(rec.sentences[sentence])),
    )  # fmt: skip


@functools.lru_cache(maxsize=1)
def _swap_cosines() -> tuple[float, ...]:
    """Each recorded sentence's embedding with DyT at every site against the model's own (one batch of
    the 7, once per process: a class's quizzes draw from them over and over)."""
    rec = _minilm()
    weights, tokenizer, sites = _model()
    batch = tokenize(tokenizer, [str(s) for s in rec.sentences])
    base = bert.forward(weights, batch.input_ids, batch.attention_mask, record=False)
    change = bert.Intervention(kind="dyt", dyt=sites)
    swapped = bert.forward(weights, batch.input_ids, batch.attention_mask, change=change, record=False)
    return tuple(float(v) for v in np.einsum("bd,bd->b", base.embedding, swapped.embedding))


def _dyt_swap(rng: np.random.Generator) -> Question:
    rec = _minilm()
    b = int(rng.integers(rec.n_sentences))
    sentence, cos = str(rec.sentences[b]), _swap_cosines()[b]
    return ask(
        rng, "dyt-swap", "DyT in a model trained with LayerNorm",
        f"Each of MiniLM's 13 LayerNorms is replaced by the DyT, γ ⊙ tanh(α·x) + β, that fits it best on the 7 "
        f"recorded sentences, with no retraining. For \"{sentence}\", how close is the new sentence embedding to the "
        "model's own (cosine similarity, 1 = the same direction)?",
        f"{g(cos)}: the fits are close, not exact, and the errors pile up over 13 sites",
        ["1: DyT computes what LayerNorm computed", "0: without statistics nothing of the sentence is left"],
        f"The cosine is {g(cos)}. A fitted tanh misses what depends on each token's own μ and σ, and each site "
        "passes its miss on to the next. DyT works when a model is trained with it, its weights learning around it; "
        "swapped into a model trained with LayerNorm it is an approximation.",
        link("/your_sentence", ys_text1=sentence, ys_kind=SWAP_KIND, ys_where="every site"),
    )  # fmt: skip


@functools.lru_cache(maxsize=32)
def _peri(n_layers: int, gain: float) -> tuple[float, float, float]:
    peri = simulate_depth(placement_stack("peri", n_layers, gain))
    pre = simulate_depth(placement_stack("pre", n_layers, gain))
    return float(peri.act_std[0]), float(peri.act_std[-1]), float(pre.act_std[-1])


def _peri_ln(rng: np.random.Generator) -> Question:
    n_layers = int(rng.choice([12, 24, 48, 96]))
    gain = float(rng.choice([1.0, 2.0, 3.0]))
    std0, peri, pre = _peri(n_layers, gain)
    bound = std0 + n_layers
    return ask(
        rng, "peri-ln", "the stream's growth under Peri-LN",
        f"A Peri-LN stack: each of {n_layers} layers adds LN(GELU(LN(h)·W)) to the stream h (weights of gain "
        f"{g(gain)}). The stream starts with std {g(std0)}. After the {n_layers} layers its std is at most…",
        f"{g(bound)}: each layer adds a vector of std at most 1",
        [f"{g(std0)}: the norms keep the stream where it started", "unbounded: a larger gain makes it explode"],
        f"The stream itself is never normalized, but every vector added to it is a LayerNorm output, of std at most "
        f"1; std(a + b) ≤ std(a) + std(b), so the std grows by at most 1 per layer, whatever the gain. Here it "
        f"reached {g(peri)} (pre-LN, which adds the sublayer's output unnormalized: {g(pre)}).",
        link("/normalization_now", now_layers=str(n_layers), now_gain=f"{gain:g}"),
    )  # fmt: skip


def _fold(rng: np.random.Generator) -> Question:
    gamma = rng.integers(1, 4, size=3).astype(float)
    beta = rng.integers(-2, 3, size=3).astype(float)
    w = rng.integers(-2, 3, size=(1, 3)).astype(float)
    while not np.any(w):
        w = rng.integers(-2, 3, size=(1, 3)).astype(float)
    b = float(rng.integers(-3, 4))
    folded = fold_gamma(gamma, beta, w, np.array([b]))
    right = f"W′ = {vec(folded.weight[0])}, b′ = {g(folded.bias[0])}"
    wrong_bias = f"W′ = {vec(folded.weight[0])}, b′ = {g(b)}"
    wrong_all = f"W′ = {vec(w[0])}, b′ = {g(b)}: γ and β cannot leave the norm"
    if len({right, wrong_bias, wrong_all}) < 3:
        raise RepeatedOptions("β adds nothing to the bias here")
    return ask(
        rng, "fold-gamma", "folding γ and β into the next layer",
        f"In a pre-norm block LayerNorm's output γ ⊙ x̂ + β feeds only a linear layer y = W·(γ ⊙ x̂ + β) + b, with "
        f"γ = {vec(gamma)}, β = {vec(beta)}, W = {vec(w[0])} (one output) and b = {g(b)}. Which W′ and b′ give the "
        "same y from x̂ alone (γ = 1, β = 0 in the norm)?",
        right, [wrong_bias, wrong_all],
        f"W·(γ ⊙ x̂ + β) + b = (W·diag γ)·x̂ + (W·β + b): W′ multiplies each column of W by its γ and b′ = W·β + b = "
        f"{g(folded.bias[0])}. It holds only where the norm feeds nothing but linear layers: in a post-LN model "
        "such as MiniLM the norm's output is also the stream the next block adds to.",
        link("/normalization_now", now_fold_site="Layer 0 · after FFN"),
    )  # fmt: skip


BUILDERS: tuple[Callable[[np.random.Generator], Question], ...] = (_tanh_or_line, _dyt_swap, _peri_ln, _fold)
