"""Scale & shift, "One γ, β for a whole sentence": the real tokens under one shared pair, from a link."""

from __future__ import annotations

import numpy as np
import pytest
from apptest_support import SS, open_page, page_text

from layernorm.data.activations import load_minilm_recording
from layernorm.labs.shared_affine import undo_for_token
from ui.text import fmt

REC = load_minilm_recording()


def _core(sentence: int, site: int, k: int) -> tuple[undo_for_token, list[str]]:
    positions = [int(t) for t in REC.real_token_indices(sentence)]
    tokens = REC.sentence_tokens(sentence, site)
    labels = [f"{t} · {REC.tokens[sentence, t]}" for t in positions]
    return undo_for_token(tokens, k, eps=float(REC.eps[site])), labels


@pytest.mark.parametrize(("sentence", "site", "k"), [(2, 2, 0), (3, 12, 4), (0, 0, 3)])
def test_a_link_opens_the_sentence_site_and_token_with_the_cores_numbers(
    sentence: int, site: int, k: int
) -> None:
    r, labels = _core(sentence, site, k)
    at = open_page(
        SS,
        ss_many_sentence=str(REC.sentences[sentence]),
        ss_many_site=REC.site_label(site),
        ss_many_token=labels[k],
    )
    shown = {m.label: m.value for m in at.metric}
    others = np.delete(r.miss, k)
    assert shown[f"token {labels[k]}: largest |y − x|"] == fmt(float(r.miss[k]))
    assert shown["every other token: largest |y − x|"] == fmt(float(np.max(others)))
    assert shown["shared γ = σ, β = μ of the token"] == f"{fmt(r.gamma)}, {fmt(r.beta)}"
    text = page_text(at)
    assert f"token {labels[k]} comes back to within {fmt(float(r.miss[k]))}" in text
    assert f"The other {len(labels) - 1} tokens miss by" in text
    # the one pair undoes token k and visibly misses every other token
    assert np.all(others > 1e3 * r.miss[k])


def test_a_token_past_a_shorter_sentences_end_falls_back_to_its_first() -> None:
    at = open_page(SS, ss_many_sentence=str(REC.sentences[0]), ss_many_token="12 · zero")
    _, labels = _core(0, 2, 0)
    assert {m.label for m in at.metric} >= {f"token {labels[0]}: largest |y − x|"}
