"""Your sentence and Which axis say only what their numbers show (issue 28, parts 1-2).

Each sentence that speaks of the numbers is checked against the core at the controls' extremes:
one-word, punctuation-only and cut-off text, every kind at one site and at all sites, and the
largest batch Which axis builds. The model loads once per module (slow the first time).
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np
import pytest
import streamlit as st
from apptest_support import open_page
from streamlit.testing.v1 import AppTest

import layernorm as ln
from layernorm.data.weights import load_minilm_weights, load_tokenizer, tokenize
from layernorm.labs import bert, padding, readouts
from layernorm.labs import lenses as L
from ui.text import fmt

SENTENCE, AXES = "pages/11_your_sentence.py", "pages/6_which_axis.py"
DEFAULT_1 = "Layer normalization keeps every token in a sensible range."
ODD = ["!!!", "a", "I love it. I hate it.", "word " * 300]


@pytest.fixture(scope="module")
def model() -> tuple[object, object]:
    return load_minilm_weights(), load_tokenizer()


def _forward(model, sentences: list[str], change: bert.Intervention | None = None):  # type: ignore[no-untyped-def]
    w, tok = model
    batch = tokenize(tok, sentences)
    return bert.forward(w, batch.input_ids, batch.attention_mask, change=change)


@pytest.fixture
def sentence_page() -> Iterator[AppTest]:
    yield open_page(SENTENCE)


def _notice(at: AppTest) -> str:
    return next(m.value for m in at.markdown if m.value.startswith("**What to notice**"))


def _kept(at: AppTest, i: int = 1) -> str:
    return next(m.value for m in at.metric if m.label == f"sentence {i}: meaning kept")


# --- Your sentence: the notice and the question, against the core -------------------------------------


def test_rmsnorm_is_not_said_to_keep_the_meaning(model) -> None:  # type: ignore[no-untyped-def]
    """Not "the means are small, so the meaning mostly survives": RMSNorm as set here also drops β,
    and on a short sentence the embedding keeps a cosine of only 0.58."""
    base = _forward(model, ["I love it. I hate it."])
    changed = _forward(model, ["I love it. I hate it."], bert.Intervention(kind="rms"))
    assert readouts.compare(base, changed, 1).cosine_to_base[0] == pytest.approx(0.5782, abs=5e-4)


def test_removing_layernorm_does_not_grow_the_stream_at_every_layer(model) -> None:  # type: ignore[no-untyped-def]
    """Not "the residual stream grows layer after layer": on the default sentence it shrinks into the
    last site."""
    base = _forward(model, [DEFAULT_1])
    changed = _forward(model, [DEFAULT_1], bert.Intervention(kind="none"))
    size = readouts.compare(base, changed, 1).size_changed
    assert size[-1] < size[-2]


@pytest.mark.parametrize("text", ODD)
def test_every_token_leaves_each_layernorm_with_sigma_one(model, text: str) -> None:  # type: ignore[no-untyped-def]
    """The σ notice: whatever σ a token brings, its x̂ has σ ≈ 1 (ε = 1e−12 is far below every σ²)."""
    result = _forward(model, [text])
    w, _ = model
    x = result.site_inputs[:, 0].astype(np.float64)  # (S, T, d)
    x_hat = ln.layer_norm(x, eps=w.config.eps)
    assert np.all(np.abs(ln.std(x_hat) - 1) < 1e-6)


@pytest.mark.parametrize("text", ODD)
def test_removing_only_the_first_layernorm_changes_the_embedding(model, text: str) -> None:  # type: ignore[no-untyped-def]
    """The reveal's answer: the embedding changes (no NaN, not undone), by an amount that varies."""
    base = _forward(model, [text])
    changed = _forward(model, [text], bert.Intervention(kind="none", sites=(0,)))
    cos = readouts.compare(base, changed, 1).cosine_to_base[0]
    assert np.isfinite(changed.last_hidden).all()
    assert cos < 0.7


def test_the_page_states_only_what_holds(sentence_page: AppTest) -> None:
    at = sentence_page
    notice = _notice(at)
    for false in ("mostly survives", "grows layer after layer", "comparable scale"):
        assert false not in notice
    assert "RMSNorm, as set here, skips the centring and drops β (it keeps γ)" in notice
    assert "leaves as an x̂ of σ ≈ 1 under the same γ and β as every other token" in notice
    assert at.radio(key="ys_q_guess").options == [
        "Nothing: the later LayerNorms fix it",
        "The sentence embedding changes: the later LayerNorms cannot undo it",
        "The model crashes with NaN",
    ]
    assert "largest |x| among its features" in [m.label for m in at.metric]


def test_one_site_changes_say_where_they_act(sentence_page: AppTest, model) -> None:  # type: ignore[no-untyped-def]
    """Punctuation only, BatchNorm at one site: the caption names that site; the cosine is the core's."""
    at = sentence_page
    at.text_input(key="ys_text1").set_value("!!!").run()
    at.text_input(key="ys_text2").set_value("").run()
    at.radio(key="ys_where").set_value("one site").run()
    at.select_slider(key="ys_one_site").set_value(0).run()
    at.radio(key="ys_kind").set_value("none").run()
    assert not at.exception
    base = _forward(model, ["!!!"])
    changed = _forward(model, ["!!!"], bert.Intervention(kind="none", sites=(0,)))
    assert _kept(at) == fmt(readouts.compare(base, changed, 1).cosine_to_base[0], 6)
    at.radio(key="ys_kind").set_value("batch").run()
    at.select_slider(key="ys_one_site").set_value(5).run()
    assert not at.exception
    captions = [c.value for c in at.caption]
    assert any(
        c.startswith("BatchNorm pooled each feature at Layer 2 · after attention over") for c in captions
    )


# --- Which axis: the identities' caption at the largest differences ---------------------------------


@pytest.fixture
def _fresh_caches() -> Iterator[None]:
    st.cache_data.clear()
    st.cache_resource.clear()
    yield


def test_identities_caption_names_the_difference_it_shows(_fresh_caches: None) -> None:
    """64 × 128 × 2 leaves 5.7e−14 between RMSNorm of the centred x and LayerNorm, not "about 1e-16"."""
    at = open_page(AXES)
    at.number_input(key="axes_B").set_value(64).run()
    at.number_input(key="axes_T").set_value(128).run()
    at.select_slider(key="axes_d").set_value(2).run()
    assert not at.exception
    assert (at.number_input(key="axes_B").value, at.number_input(key="axes_T").value) == (64, 128)
    x = L.random_batch(64, 128, 2, seed=0)
    k = max(1, min(64, 2**18 // (128 * 2)))
    largest = max(padding.identity_gaps(x[:k], eps=ln.DEFAULT_EPS).values())
    assert largest > 1e-14  # far from "about 1e-16"
    caption = next(c.value for c in at.caption if c.value.startswith("Computed on the first"))
    assert "about 1e-16" not in caption
    assert f"the largest difference, {fmt(largest, 2)}, is float64 rounding" in caption
    assert math.isclose(largest, 3.43e-14, rel_tol=0.01)


# --- Learning rate: the reveal at He init, on the settings where LayerNorm does survive more --------


def test_learning_rate_reveal_allows_the_one_step_layernorm_gains() -> None:
    """Of the 225 settings at init scale 1, three (6 layers, width 16, 4 seeds) let LayerNorm survive more."""
    from layernorm.labs.training import run_sweep

    res = run_sweep(depth=6, width=16, steps=50, n_seeds=4, init_gain=1.0)
    n_div = res.diverged.sum(axis=-1)
    largest = [
        max((float(v) for m, v in enumerate(res.lrs) if n_div[k, m] == 0), default=0.0) for k in (0, 1)
    ]
    assert res.norms == ("none", "layernorm")
    assert largest == pytest.approx([0.1, 10**-0.5])  # one step of the grid larger with LayerNorm
    at = open_page("pages/9_learning_rate.py")
    assert "None larger: the same or smaller" not in at.radio(key="lr_q_guess").options
    text = " ".join(m.value for m in at.markdown)
    assert "LayerNorm does not survive a larger learning rate here" not in text
