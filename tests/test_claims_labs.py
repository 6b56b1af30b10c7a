"""The lab pages' fixed sentences (notes, "what to notice", reveals, quiz explanations) hold for the numbers.

Each claim a page or the quiz makes about its numbers is checked here against the core, over the values
its controls allow (a few configurations: depth simulations are slow) or over many quiz seeds.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import numpy as np
import pytest
from apptest_support import open_page, page_text

import layernorm as ln
from layernorm.labs.depth import DepthConfig, simulate_depth
from layernorm.labs.quiz import make_quiz

SEEDS = range(60)


def _vectors(text: str) -> list[np.ndarray]:
    """Every ``[a, b, …]`` in a text, in order (real minus signs)."""
    return [
        np.array([float(v.replace("−", "-")) for v in inside.split(",")])
        for inside in re.findall(r"\[([^\]]+)\]", text)
    ]


def _quiz(key: str) -> Iterator[object]:
    for seed in SEEDS:
        yield next(q for q in make_quiz(seed) if q.key == key)


# --- the quiz ------------------------------------------------------------------------------------


def test_undo_explanation_says_one_gamma_beta_restores_only_its_own_token() -> None:
    for q in _quiz("undo"):
        assert "never limits what the layer can represent" not in q.explanation  # type: ignore[attr-defined]
        assert "but only for this x" in q.explanation  # type: ignore[attr-defined]
        x = _vectors(q.prompt)[0]  # type: ignore[attr-defined]
        other, other_y = _vectors(q.explanation)[:2]  # type: ignore[attr-defined]
        assert np.array_equal(other, 2 * x + 1)
        s = ln.layer_norm_steps(x, eps=0.0)
        core = ln.layer_norm(other, np.full(4, float(s.sigma)), np.full(4, float(s.mu)), eps=0.0)
        assert np.allclose(other_y, core, rtol=1e-3, atol=1e-3)  # as shown, 4 digits
        assert np.allclose(core, x) and not np.allclose(core, other)  # x's own token back, not the other


def test_no_quiz_text_names_llama_as_a_layernorm_model() -> None:
    for seed in range(10):
        for q in make_quiz(seed):
            text = " ".join([q.prompt, *q.options, q.explanation, q.link])
            assert "(GPT-2, LLaMA)" not in text and "GPT-2%2C+LLaMA" not in text
    q = next(_quiz("pre-post"))
    assert q.prompt == "In a pre-LN transformer block (GPT-2), where does LayerNorm sit?"  # type: ignore[attr-defined]
    assert "LLaMA and Mistral place RMSNorm, not LayerNorm" in q.explanation  # type: ignore[attr-defined]


def test_eps_explanation_holds_for_every_draw() -> None:
    for q in _quiz("eps-near-constant"):
        numbers = re.findall(r"σ² = ([0-9.e+−-]+) is smaller than ε = 1e−5", q.explanation)  # type: ignore[attr-defined]
        var = float(numbers[0].replace("−", "-"))
        assert var < 1e-5 and 1e-5 > var  # ε is most of σ² + ε
        assert "ε makes up most of σ² + ε" in q.explanation  # type: ignore[attr-defined]


def test_batch_of_one_explanation_matches_the_core() -> None:
    q = next(_quiz("batch-of-one"))
    assert "x − μ is 0 whatever the input" in q.explanation  # type: ignore[attr-defined]
    x = np.array([[3.0, -1.0, 2.0, 7.0]])
    assert np.array_equal(x - ln.mean(x, axis=0), np.zeros_like(x))
    with pytest.raises(ValueError, match="more than 1 value per channel"):
        ln.batch_norm_train(x, None, None, np.zeros(4), np.ones(4))


def test_rms_explanation_mean_is_not_zero_for_every_draw() -> None:
    for q in _quiz("rms-centring"):
        x = _vectors(q.prompt)[0]  # type: ignore[attr-defined]
        assert float(ln.mean(ln.rms_norm(x, eps=0.0))) > 0  # all-positive input, mean not 0
        assert "RMSNorm's only when the input's mean is 0" in q.explanation  # type: ignore[attr-defined]


# --- Depth and drift -------------------------------------------------------------------------------


def _sim(**kw: object) -> object:
    return simulate_depth(DepthConfig(batch=32, **kw))  # type: ignore[arg-type]


def test_depth_notice_no_longer_says_batchnorm_relu_explodes_at_any_depth() -> None:
    at = open_page("pages/8_depth_and_drift.py")
    text = page_text(at)
    assert "BatchNorm + ReLU keeps activations tidy but its gradients *explode* backwards" not in text
    assert "verdict goes from stable to growing to exploded, which it reads at 100 layers" in text
    # the page's default depth (30) with BatchNorm + ReLU at gain 3 reads growing (298×), 100 layers exploded
    at.radio(key="depth_norm").set_value("batchnorm").run()
    at.selectbox(key="depth_act").set_value("relu").run()
    at.slider(key="depth_gain").set_value(3.0).run()
    assert not at.exception and at.slider(key="depth_layers").value == 30
    assert "gradients growing: 298× larger" in " ".join(e.body for e in at.warning)  # QA: was "healthy"
    at.slider(key="depth_layers").set_value(100).run()
    assert not at.exception
    assert "gradients exploded" in " ".join(e.body for e in (*at.warning, *at.error))


@pytest.mark.parametrize(("width", "seed"), [(16, 0), (256, 999)])
def test_depth_notice_claims_hold_at_the_extremes(width: int, seed: int) -> None:
    for gain in (0.1, 3.0):  # BatchNorm + ReLU: tidy activations, exploded gradients at 100 layers
        r = _sim(n_layers=100, width=width, gain=gain, activation="relu", norm="batchnorm", seed=seed)
        assert r.status.startswith("stable") and r.grad_status.startswith("gradients exploded")  # type: ignore[attr-defined]
    tanh1 = _sim(n_layers=100, width=width, gain=1.0, activation="tanh", seed=seed)
    std = tanh1.act_std  # type: ignore[attr-defined]  # shrinks slowly over the layers (small ups and downs)
    assert std[100] < std[30] < std[10] < std[1] < std[0] and std[100] > 1e-3
    half = _sim(n_layers=100, width=width, gain=0.5, activation="tanh", seed=seed)
    assert re.match(r"vanished at layer 1[0-6]:", half.status)  # type: ignore[attr-defined]  # a dozen or so
    for act, lo, hi in (("linear", 9, 9), ("relu", 12, 15)):  # "after about 9 to 15 layers"
        r = _sim(n_layers=100, width=width, gain=3.0, activation=act, seed=seed)
        layer = int(re.match(r"exploded at layer (\d+):", r.status).group(1))  # type: ignore[union-attr, attr-defined]
        assert lo <= layer <= hi
    pre = _sim(n_layers=100, width=width, gain=0.1, activation="tanh", residual=True, placement="pre",
               norm="layernorm", seed=seed)  # fmt: skip
    assert pre.act_std[100] > pre.act_std[0]  # type: ignore[attr-defined]  # grows, slowly (not like √L here)
    assert pre.act_std[-1] < 3  # type: ignore[attr-defined]
    post = _sim(n_layers=100, width=width, gain=3.0, activation="linear", residual=True, placement="post",
                norm="layernorm", seed=seed)  # fmt: skip
    assert np.allclose(post.act_std[1:], 1.0, atol=1e-4)  # type: ignore[attr-defined]


def test_depth_reveal_does_not_promise_the_simulation_shows_13800() -> None:
    narrow = _sim(n_layers=100, width=16, gain=1.1, activation="linear", seed=0)
    ratio = float(narrow.act_std[-1] / narrow.act_std[0])  # type: ignore[attr-defined]
    assert ratio < 1000  # far below 1.1¹⁰⁰ ≈ 13 800: random layers scatter around it
    at = open_page("pages/8_depth_and_drift.py")
    assert "If every layer multiplies the std by 1.1" in page_text(at)


# --- Learning rate ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("depth", "width", "steps", "seeds"), [(4, 16, 50, 1), (4, 64, 200, 1), (6, 32, 100, 3)]
)
def test_learning_rate_reveal_holds_at_he_init(depth: int, width: int, steps: int, seeds: int) -> None:
    from layernorm.labs.training import run_sweep

    res = run_sweep(depth=depth, width=width, steps=steps, n_seeds=seeds, init_gain=1.0)
    n_div = res.diverged.sum(axis=-1)
    largest = [
        max((float(v) for m, v in enumerate(res.lrs) if n_div[k, m] == 0), default=0.0) for k in (0, 1)
    ]
    assert res.norms == ("none", "layernorm")
    assert largest[1] <= largest[0]  # "survives no larger learning rate with LayerNorm"


def test_learning_rate_notice_names_no_fixed_rates() -> None:
    at = open_page("pages/9_learning_rate.py")
    text = page_text(at)
    assert "LayerNorm trains the same network up to 0.1" not in text
    assert "above about 0.3 both diverge whatever the init" not in text
    options = " ".join(str(r.options) for r in at.radio)
    assert "Hardly any: none, or at most one step of the grid (√10×)" in options
