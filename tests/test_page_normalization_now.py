"""Normalization now: every number its sentences, table and metrics say is the core's."""

from __future__ import annotations

import numpy as np
from apptest_support import ok, open_page, page_text

import layernorm as ln
from layernorm.core import layer_norm
from layernorm.data.weights import load_minilm_weights, load_tokenizer, tokenize
from layernorm.labs import bert
from layernorm.labs import recent_norms as rn
from layernorm.labs.depth import DepthConfig, simulate_depth
from ui.text import fmt_shown as shown

PAGE = "pages/20_normalization_now.py"
REC = ln.load_minilm_recording()


def _fits(site: int, sentence: int) -> tuple[rn.DyTFit, rn.DyTFit, np.ndarray]:
    x = REC.sentence_tokens(sentence, site)
    x_hat = layer_norm(x, eps=float(REC.eps[site]))
    return rn.fit_dyt(x, x_hat, per_feature=False), rn.fit_dyt(x, x_hat, 1e-6, per_feature=False), x_hat


def test_the_tanh_sentence_is_the_fits() -> None:
    text = page_text(ok(open_page(PAGE)))
    best, line, x_hat = _fits(2, 1)  # the page's defaults: Layer 0 · after FFN, the second sentence
    assert best.r_squared > line.r_squared + 0.01
    assert (
        f"Here a tanh follows LayerNorm better than any straight line: r² {shown(best.r_squared)} against "
        f"{shown(line.r_squared)}." in text
    )
    tokens = [str(REC.tokens[1, t]) for t in REC.real_token_indices(1)]
    worst = int(np.argmax(best.token_rms))
    assert f"rms miss {shown(float(best.token_rms[worst]))}, against a median of" in text
    assert tokens[worst] == "[CLS]"
    assert f"The largest |x̂| is {shown(float(np.max(np.abs(x_hat))))}" in text
    assert "√(d − 1) = 19.57 (d = 384)" in text


def test_a_site_where_layernorm_is_a_line_says_so() -> None:
    best, line, _ = _fits(3, 1)
    assert best.at_edge and best.alpha == rn.FIT_ALPHA_RANGE[0]
    text = page_text(ok(open_page(PAGE, now_site=REC.site_label(3))))
    assert "At this site the best tanh is a straight line over these inputs" in text
    assert f"(r² {shown(line.r_squared)} for a line)" in text


def test_the_placement_table_is_the_simulations() -> None:
    at = ok(open_page(PAGE, now_layers="30", now_gain="2"))
    table = at.dataframe[0].value
    for placement, row in zip(("none", "post", "pre", "peri", "output"), table.itertuples(), strict=True):
        cfg = DepthConfig(
            n_layers=30,
            width=64,
            gain=2.0,
            activation="gelu",
            residual=True,
            norm="none" if placement == "none" else "layernorm",
            placement="post" if placement == "none" else placement,
        )
        r = simulate_depth(cfg)
        assert row[3] == f"{r.act_std[-1]:#.3g}".replace(".e", "e").rstrip(".")
        assert row[4] == r.status and row[5] == r.grad_status
        if placement in ("peri", "output"):  # the caption's bound: at most 1 more per layer
            assert r.act_std[-1] <= r.act_std[0] + 30


def test_qk_norms_numbers_and_bound() -> None:
    at = ok(open_page(PAGE, now_qk_layer="1", now_qk_head="3", now_qk_scale="64"))
    weights = load_minilm_weights()
    rows = slice(3 * 32, 4 * 32)
    name = "encoder.layer.1.attention.self"
    t = weights.tensors
    x = np.array(REC.outputs[2, 1, REC.real_token_indices(1)], dtype=np.float64)
    args = (x, t[f"{name}.query.weight"][rows].T, t[f"{name}.key.weight"][rows].T)
    biases = (t[f"{name}.query.bias"][rows], t[f"{name}.key.bias"][rows])
    plain = rn.attention_logits(*args, *biases, scale=64.0)
    normed = rn.attention_logits(*args, *biases, scale=64.0, qk_norm=True)
    assert normed.max_abs <= np.sqrt(32) < plain.max_abs
    text = page_text(at)
    assert (
        f"the largest logit is {shown(plain.max_abs)} without QK-norm and {shown(normed.max_abs)} with it"
        in text
    )


def test_the_fold_sentences_are_the_models() -> None:
    text = page_text(ok(open_page(PAGE, now_fold_site=REC.site_label(1))))
    weights = load_minilm_weights()
    batch = tokenize(load_tokenizer(), [str(s) for s in REC.sentences])
    cos = bert.folded_cosines(weights, batch.input_ids, batch.attention_mask, 1)
    assert f"from {shown(float(cos.min()))} to {shown(float(cos.max()))} over the 7 sentences" in text
    assert "`encoder.layer.0.intermediate.dense`" in text and "into 1 reading layer and" in text
    last = page_text(ok(open_page(PAGE, now_fold_site=REC.site_label(12))))
    assert "is MiniLM's last norm" in last
