"""DyT, its fit to a LayerNorm, QK-norm's bound on attention logits, and γ folded into a linear layer."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import layernorm as ln
from layernorm.core import layer_norm
from layernorm.data.weights import load_minilm_weights, load_tokenizer, tokenize
from layernorm.labs import bert
from layernorm.labs.recent_norms import (
    DYT_ALPHA_INIT,
    FIT_ALPHA_RANGE,
    attention_logits,
    dyt,
    dyt_sse,
    fit_dyt,
    fit_sites,
    fold_check,
    fold_gamma,
    fold_site,
    head_projections,
    site_readers,
)


def test_dyt_exact_values() -> None:
    # tanh(0) = 0 gives β; past float64's range α·x is ±inf and tanh gives ±1 exactly
    assert dyt([0.0, 0.0], 3.0, gamma=[2.0, 5.0], beta=[1.0, -1.0]).tolist() == [1.0, -1.0]
    assert dyt([-1e308, 2.0], 1e308, gamma=[2.0, 3.0], beta=[1.0, 1.0]).tolist() == [-1.0, 4.0]
    assert dyt([1.0], 0.0).tolist() == [0.0]  # α = 0: no signal at all
    # tanh(artanh(0.5)) = 0.5 to a unit in the last place
    assert dyt([1.0], 0.5 * np.log(3.0))[0] == pytest.approx(0.5, rel=2e-16)
    assert DYT_ALPHA_INIT == 0.5


@given(
    arrays(np.float64, (3, 4), elements=st.floats(-1e6, 1e6)),
    st.floats(-1e3, 1e3),
    arrays(np.float64, (4,), elements=st.floats(-10, 10)),
)
def test_dyt_never_passes_gamma(x: np.ndarray, alpha: float, gamma: np.ndarray) -> None:
    assert np.all(np.abs(dyt(x, alpha, gamma=gamma)) <= np.abs(gamma))  # |tanh| <= 1, rounding is monotone


@pytest.mark.parametrize(
    ("x", "alpha", "message"),
    [([[np.nan]], 1.0, "NaN"), ([1.0], np.inf, "alpha"), (3.0, 1.0, "axis"), (["a"], 1.0, "text")],
)
def test_dyt_refuses_bad_input(x: object, alpha: float, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        dyt(x, alpha)  # type: ignore[arg-type]


def _synthetic(alpha: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(3)
    x = rng.normal(0.0, 4.0, size=(50, 6))
    gamma, beta = rng.normal(size=6), rng.normal(size=6)
    return x, gamma * np.tanh(alpha * x) + beta, gamma, beta


def test_fit_recovers_a_dyt_exactly() -> None:
    x, y, gamma, beta = _synthetic(0.37)
    fit = fit_dyt(x, y)
    assert fit.alpha == pytest.approx(0.37, rel=1e-7) and not fit.at_edge
    np.testing.assert_allclose(fit.gamma, gamma, rtol=1e-6)
    np.testing.assert_allclose(fit.beta, beta, rtol=1e-6, atol=1e-9)
    assert fit.rms < 1e-7 and fit.r_squared == pytest.approx(1.0, abs=1e-12)
    # a given α: γ and β only, the least squares for that α (at the true α: the truth, to rounding)
    given_alpha = fit_dyt(x, y, alpha=0.37)
    assert given_alpha.alpha == 0.37
    np.testing.assert_allclose(given_alpha.gamma, gamma, rtol=1e-12)
    assert given_alpha.rms < 1e-14


def test_fit_error_is_least_at_the_fitted_alpha() -> None:
    x, y, _, _ = _synthetic(1.3)
    y = y + np.random.default_rng(4).normal(0.0, 0.05, size=y.shape)
    fit = fit_dyt(x, y)
    best = dyt_sse(x, y, fit.alpha)
    assert best == pytest.approx(float(np.sum(fit.residual**2)), rel=1e-12)
    for other in (fit.alpha * 0.99, fit.alpha * 1.01, 0.5, 3.0):
        assert dyt_sse(x, y, other) > best
    assert fit.token_rms.shape == (50,) and fit.feature_rms.shape == (6,)
    assert np.sqrt(np.mean(fit.token_rms**2)) == pytest.approx(fit.rms, rel=1e-12)


def test_fit_of_a_straight_line_runs_to_the_searchs_smallest_alpha() -> None:
    """tanh(αx) ≈ αx for small α: a linear map is fitted best at the search's lower end."""
    x = np.linspace(-3, 3, 40).reshape(20, 2)
    fit = fit_dyt(x, 2.0 * x + 1.0)
    assert fit.alpha == FIT_ALPHA_RANGE[0] and fit.at_edge
    assert fit.r_squared > 1 - 1e-6


@pytest.mark.parametrize("sentence", range(7))
def test_a_layernorm_that_acts_as_a_line_is_fitted_at_the_searchs_end_for_every_sentence(
    sentence: int,
) -> None:
    """MiniLM's "Layer 1 · after attention": the error falls toward α = 0 for every sentence, and the
    refinement stopped just inside the search's end for two of them (found by a break-it pass)."""
    rec = ln.load_minilm_recording()
    x = rec.sentence_tokens(sentence, 3)
    fit = fit_dyt(x, layer_norm(x, eps=float(rec.eps[3])), per_feature=False)
    assert fit.at_edge and fit.alpha == FIT_ALPHA_RANGE[0]


def test_pooled_fit_has_one_gamma_and_beta() -> None:
    x, _, _, _ = _synthetic(0.2)
    y = 1.5 * np.tanh(0.2 * x) - 0.25
    fit = fit_dyt(x, y, per_feature=False)
    assert fit.alpha == pytest.approx(0.2, rel=1e-7)
    np.testing.assert_allclose(fit.gamma, 1.5, rtol=1e-6)
    np.testing.assert_allclose(fit.beta, -0.25, rtol=1e-6)


def test_a_layer_norm_squashes_an_outlier_token_as_tanh_does() -> None:
    """Tokens that hold one huge feature get a large σ: LayerNorm shrinks every feature of theirs. Over
    many tokens the input→output cloud bends like tanh, and a tanh fits it better than a line."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=(64, 32))
    x[::8, 5] = np.linspace(20.0, 200.0, 8)  # one feature is an outlier in 8 tokens
    y = layer_norm(x)
    curve = fit_dyt(x.reshape(-1, 1), y.reshape(-1, 1))
    line = fit_dyt(x.reshape(-1, 1), y.reshape(-1, 1), alpha=FIT_ALPHA_RANGE[0])
    assert curve.r_squared > line.r_squared + 0.1
    assert FIT_ALPHA_RANGE[0] < curve.alpha < 1.0
    # no feature of a LayerNorm output passes √(d − 1) (γ = 1, β = 0): the squashed outliers sit near it
    assert np.max(np.abs(y)) <= np.sqrt(31.0)


def test_fit_refuses_bad_shapes() -> None:
    with pytest.raises(ValueError, match="same"):
        fit_dyt(np.zeros((3, 2)), np.zeros((3, 3)))
    with pytest.raises(ValueError, match="at least 2"):
        fit_dyt(np.zeros((1, 2)), np.zeros((1, 2)))


def test_logits_without_qk_norm_grow_as_the_square_of_the_weights() -> None:
    rng = np.random.default_rng(1)
    x, wq, wk = rng.normal(size=(5, 8)), rng.normal(size=(8, 4)), rng.normal(size=(8, 4))
    one = attention_logits(x, wq, wk)
    for k in (1, 5, 20):  # a power of two scales every product exactly
        assert np.array_equal(attention_logits(x, wq, wk, scale=2.0**k).logits, 4.0**k * one.logits)
    assert one.bound is None
    np.testing.assert_allclose(one.weights.sum(axis=1), 1.0, rtol=1e-15)
    assert attention_logits(x, wq, wk, scale=2.0**20).entropy.max() < 1e-6  # all on one key


def test_qk_norm_bounds_every_logit_whatever_the_weights() -> None:
    rng = np.random.default_rng(2)
    x, wq, wk = rng.normal(size=(6, 8)), rng.normal(size=(8, 4)), rng.normal(size=(8, 4))
    for scale in (1e-3, 1.0, 1e3, 1e100):
        got = attention_logits(x, wq, wk, scale=scale, qk_norm=True)
        assert got.bound == 2.0 and got.max_abs <= 2.0  # √d_h, d_h = 4
    # with ε = 0 LayerNorm(2^k q) = LayerNorm(q) exactly: the weights' scale is gone
    base = attention_logits(x, wq, wk, qk_norm=True, eps=0.0).logits
    assert np.array_equal(attention_logits(x, wq, wk, scale=2.0**30, qk_norm=True, eps=0.0).logits, base)


def test_attention_logits_refuse_bad_input() -> None:
    with pytest.raises(ValueError, match="scale"):
        attention_logits(np.ones((2, 3)), np.ones((3, 2)), np.ones((3, 2)), scale=0.0)
    with pytest.raises(ValueError, match="d_h"):
        attention_logits(np.ones((2, 3)), np.ones((4, 2)), np.ones((3, 2)))


def test_folding_gamma_and_beta_keeps_the_layer_exactly_in_arithmetic() -> None:
    """W (γ ⊙ x̂ + β) + b = (W diag γ) x̂ + (W β + b), checked in exact fractions on values whose float64
    products are exact too (few bits each)."""
    w = np.array([[0.5, -1.25, 2.0], [3.0, 0.75, -0.5]])
    gamma, beta, bias = np.array([2.0, -0.5, 1.5]), np.array([0.25, 1.0, -2.0]), np.array([1.0, -3.0])
    x_hat = np.array([[1.0, -0.5, 0.25], [-2.0, 0.125, 4.0]])
    folded = fold_gamma(gamma, beta, w, bias)
    assert folded.weight.tolist() == [[1.0, 0.625, 3.0], [6.0, -0.375, -0.75]]
    assert folded.bias.tolist() == [1.0 + 0.125 - 1.25 - 4.0, -3.0 + 0.75 + 0.75 + 1.0]

    def exact(m: np.ndarray) -> list[list[Fraction]]:
        return [[Fraction(v) for v in row] for row in np.atleast_2d(m)]

    W, G, B, C = exact(w), exact(gamma)[0], exact(beta)[0], exact(bias)[0]
    Wf, Cf = exact(folded.weight), exact(folded.bias)[0]
    for row in exact(x_hat):
        y = [sum(W[o][j] * (G[j] * row[j] + B[j]) for j in range(3)) + C[o] for o in range(2)]
        y_folded = [sum(Wf[o][j] * row[j] for j in range(3)) + Cf[o] for o in range(2)]
        assert y == y_folded


@given(st.integers(0, 2**32 - 1))
def test_folded_layer_matches_to_rounding(seed: int) -> None:
    rng = np.random.default_rng(seed)
    w, gamma, beta, bias = rng.normal(size=(5, 7)), rng.normal(size=7), rng.normal(size=7), rng.normal(size=5)
    x_hat = rng.normal(size=(3, 7))
    folded = fold_gamma(gamma, beta, w, bias)
    np.testing.assert_allclose(
        x_hat @ folded.weight.T + folded.bias, (gamma * x_hat + beta) @ w.T + bias, rtol=1e-12, atol=1e-12
    )


def test_fold_refuses_mismatched_shapes() -> None:
    with pytest.raises(ValueError, match="gamma"):
        fold_gamma(np.ones(2), np.zeros(3), np.ones((4, 3)))


# --- on MiniLM's real weights: DyT in place of a LayerNorm, and γ folded into a site's readers ----------


@pytest.fixture(scope="module")
def minilm():  # type: ignore[no-untyped-def]
    rec = ln.load_minilm_recording()
    weights = load_minilm_weights()
    batch = tokenize(load_tokenizer(), [str(s) for s in rec.sentences])
    return rec, weights, batch


def test_site_readers_follow_the_post_ln_layout(minilm) -> None:  # type: ignore[no-untyped-def]
    _, weights, _ = minilm
    assert site_readers(weights, 0) == tuple(
        f"encoder.layer.0.attention.self.{p}" for p in ("query", "key", "value")
    )
    assert site_readers(weights, 1) == ("encoder.layer.0.intermediate.dense",)
    assert site_readers(weights, 2) == tuple(
        f"encoder.layer.1.attention.self.{p}" for p in ("query", "key", "value")
    )
    assert site_readers(weights, 12) == ()  # the encoder's output
    with pytest.raises(ValueError, match="site"):
        site_readers(weights, 13)


def test_a_dyt_site_computes_dyt_of_what_reaches_it(minilm) -> None:  # type: ignore[no-untyped-def]
    rec, weights, batch = minilm
    sites = fit_sites(rec.inputs, rec.outputs, rec.attention_mask)
    assert len(sites) == 13 and all(len(s.gamma) == 384 for s in sites)
    got = bert.forward(
        weights,
        batch.input_ids,
        batch.attention_mask,
        change=bert.Intervention(kind="dyt", sites=(4,), dyt=sites),
    )
    p = sites[4]
    expected = dyt(got.site_inputs[4], p.alpha, np.array(p.gamma), np.array(p.beta)).astype(np.float32)
    assert np.array_equal(got.site_outputs[4], expected)
    with pytest.raises(ValueError, match="all 13 sites"):
        bert.forward(weights, batch.input_ids, batch.attention_mask, change=bert.Intervention(kind="dyt"))


def test_folding_a_site_keeps_its_readers_and_changes_the_post_ln_model(minilm) -> None:  # type: ignore[no-untyped-def]
    rec, weights, batch = minilm
    site = 2
    folded = fold_site(weights, site)
    real = rec.attention_mask.astype(bool)
    x = rec.inputs[site][real].astype(np.float64)
    for name in site_readers(weights, site):  # each reader computes what it did, to float32 rounding
        check = fold_check(
            x,
            rec.gamma[site],
            rec.beta[site],
            weights.tensors[f"{name}.weight"],
            weights.tensors[f"{name}.bias"],
            eps=float(rec.eps[site]),
        )
        assert check.max_difference <= 1e-12 * check.max_output
        assert not np.array_equal(folded.tensors[f"{name}.weight"], weights.tensors[f"{name}.weight"])
    cos = bert.folded_cosines(weights, batch.input_ids, batch.attention_mask, site)
    assert cos.shape == (7,) and np.all(cos < 0.999) and np.all(cos > 0.5)
    untouched = load_minilm_weights().tensors  # fold_site made a copy: the model's own weights stay
    names = [f"{name}.weight" for name in site_readers(weights, site)]
    assert all(np.array_equal(weights.tensors[k], untouched[k]) for k in names)


def test_the_heads_projections_side_by_side_are_the_layers_projection(minilm) -> None:  # type: ignore[no-untyped-def]
    rec, weights, _ = minilm
    x = rec.outputs[2][0, :5].astype(np.float64)  # what enters layer 1's attention
    n_heads = weights.config.n_heads
    heads = [head_projections(weights, 1, h) for h in range(n_heads)]
    for i, part in ((0, "query"), (1, "key")):
        whole = x @ weights.tensors[f"encoder.layer.1.attention.self.{part}.weight"].astype(np.float64).T
        whole += weights.tensors[f"encoder.layer.1.attention.self.{part}.bias"]
        by_head = np.hstack([x @ hp[i] + hp[i + 2] for hp in heads])
        # BLAS may sum in another order
        np.testing.assert_allclose(by_head, whole, rtol=1e-13, atol=1e-13)
    for layer, head in ((-1, 0), (weights.config.n_layers, 0), (0, n_heads)):
        with pytest.raises(ValueError, match=r"layer|head"):
            head_projections(weights, layer, head)
