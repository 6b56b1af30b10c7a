"""The "Estimators and ε" recipes: ÷d or ÷(d−1), ε inside or outside the root, RMSNorm's two, ε presets."""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import layernorm as ln
from layernorm.eps_presets import EPS_PRESETS
from layernorm.variants import (
    compare_recipe,
    compare_rms_placement,
    layer_norm_eps_outside,
    layer_norm_recipe,
    layer_norm_std_plus_eps,
    layer_norm_unbiased,
    rms_norm_eps_outside,
)

TINY_PAIR = [0.09484422, 0.16441762]  # reference cases LN14/LN15: a two-value vector with a tiny spread


def test_one_hot_tutorial_gives_1_5_and_standard_gives_root_3() -> None:
    c = compare_recipe([1, 0, 0, 0], ddof=1, eps_inside=False, eps=1e-5)
    # sample std of [1,0,0,0] is exactly 0.5, x - mu = 0.75: 0.75 / (0.5 + 1e-5)
    np.testing.assert_allclose(c.variant, np.array([0.75, -0.25, -0.25, -0.25]) / (0.5 + 1e-5), rtol=1e-15)
    np.testing.assert_allclose(c.standard, np.array([0.75, -0.25, -0.25, -0.25]) / math.sqrt(0.1875 + 1e-5))
    assert c.standard[0] == pytest.approx(1.7320046213947808, rel=1e-14)  # LN16's expected value
    np.testing.assert_allclose(c.difference, c.variant - c.standard, rtol=0, atol=0)
    assert c.max_abs_difference == pytest.approx(1.7320046213947808 - 1.499970000599988, rel=1e-12)


def test_keras_eps_dominates_a_tiny_variance() -> None:
    half = (TINY_PAIR[1] - TINY_PAIR[0]) / 2  # sigma of two values
    keras = compare_recipe(TINY_PAIR, ddof=0, eps_inside=True, eps=1e-3)
    expected = half / math.sqrt(half**2 + 1e-3)
    np.testing.assert_allclose(keras.standard, [-expected, expected], rtol=1e-13)
    assert 0.739 < expected < 0.741  # "about ±0.74 instead of ±1"
    torch = compare_recipe(TINY_PAIR, ddof=0, eps_inside=True, eps=1e-5)
    assert torch.standard[1] == pytest.approx(0.9958935929304045, rel=1e-7)  # LN15 (float32 input there)
    outside = compare_recipe(TINY_PAIR, ddof=0, eps_inside=False, eps=1e-3)
    np.testing.assert_allclose(outside.variant, [-half / (half + 1e-3), half / (half + 1e-3)], rtol=1e-13)


@pytest.mark.parametrize(
    ("ddof", "inside", "func"),
    [(0, True, ln.standardize), (1, True, layer_norm_unbiased), (0, False, layer_norm_eps_outside),
     (1, False, layer_norm_std_plus_eps)],
)  # fmt: skip
def test_recipe_picks_the_named_function(ddof: int, inside: bool, func: object) -> None:
    assert layer_norm_recipe(ddof, inside) is func


def test_standard_recipe_equals_the_core_exactly() -> None:
    x = np.array([3.0, -1.0, 4.0, 1.0, -5.0, 9.0])
    c = compare_recipe(x, ddof=0, eps_inside=True, eps=1e-5)
    np.testing.assert_array_equal(c.variant, ln.layer_norm(x, eps=1e-5))
    assert c.max_abs_difference == 0.0
    assert not np.any(c.difference)


def test_eps_outside_by_hand() -> None:
    x = np.array([1.0, 2.0, 3.0, 4.0])  # mu 2.5, sigma sqrt(1.25)
    np.testing.assert_allclose(
        layer_norm_eps_outside(x, eps=0.1), (x - 2.5) / (math.sqrt(1.25) + 0.1), rtol=1e-15
    )


def test_rms_placement_by_hand() -> None:
    x = np.array([3.0, 4.0])  # rms = sqrt(12.5)
    c = compare_rms_placement(x, eps=0.5)
    np.testing.assert_allclose(c.standard, x / math.sqrt(12.5 + 0.5), rtol=1e-15)
    np.testing.assert_allclose(c.variant, x / (math.sqrt(12.5) + 0.5), rtol=1e-15)
    np.testing.assert_allclose(rms_norm_eps_outside(x, eps=0.5), c.variant, rtol=0)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(-1e3, 1e3), min_size=2, max_size=20).filter(lambda v: np.std(v) > 1e-3),
    st.sampled_from([1e-12, 1e-5, 1e-3]),
)
def test_recipes_agree_when_eps_is_negligible_and_d_large_enough(x: list[float], eps: float) -> None:
    """ε outside vs inside: both -> (x - mu)/sigma as eps -> 0; ÷(d−1) scales x_hat by sqrt((d-1)/d)."""
    d = len(x)
    ref = ln.layer_norm(x, eps=0.0)
    outside = compare_recipe(x, ddof=0, eps_inside=False, eps=0.0).variant
    np.testing.assert_allclose(outside, ref, rtol=1e-9, atol=1e-9)
    sample = compare_recipe(x, ddof=1, eps_inside=True, eps=0.0).variant
    np.testing.assert_allclose(sample, ref * math.sqrt((d - 1) / d), rtol=1e-9, atol=1e-9)
    # any eps > 0 only ever shrinks: the output's spread never exceeds 1, inside or outside the root
    for inside in (True, False):
        assert compare_recipe(x, ddof=0, eps_inside=inside, eps=eps).variant_std <= 1.0 + 1e-12


@pytest.mark.parametrize("x", [[5.0, 5.0, 5.0], [0.0, 0.0]])
def test_constant_vector_with_eps_zero_is_refused_not_nan(x: list[float]) -> None:
    with pytest.raises(ln.ZeroVarianceError, match="0/0"):
        layer_norm_eps_outside(x, eps=0.0)
    if not any(x):
        with pytest.raises(ln.ZeroVarianceError, match="0/0"):
            rms_norm_eps_outside(x, eps=0.0)
    c = compare_recipe(x, ddof=0, eps_inside=False, eps=1e-12)
    np.testing.assert_array_equal(c.variant, np.zeros(len(x)))


def test_d_equal_one_with_sample_variance_says_why() -> None:
    with pytest.raises(ValueError, match="d - 1 needs at least 2 values"):
        compare_recipe([3.0], ddof=1, eps_inside=True)
    c = compare_recipe([3.0], ddof=0, eps_inside=False, eps=1e-5)
    np.testing.assert_array_equal(c.variant, [0.0])


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        (
            {"x": [[1.0, 2.0]], "ddof": 0, "eps_inside": True},
            r"one non-empty vector \(d,\), got shape \(1, 2\)",
        ),
        ({"x": [1.0, np.nan], "ddof": 0, "eps_inside": True}, "NaN or infinity"),
        ({"x": [1.0, 2.0], "ddof": 2, "eps_inside": True}, "ddof must be 0"),
        ({"x": [1.0, 2.0], "ddof": 0, "eps_inside": True, "eps": -1.0}, "eps must be a finite number >= 0"),
    ],
)
def test_compare_recipe_errors(kwargs: dict[str, object], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        compare_recipe(**kwargs)  # type: ignore[arg-type]


def test_huge_values_stay_finite() -> None:
    x = np.array([1e200, -1e200, 3e200])
    for ddof in (0, 1):
        for inside in (True, False):
            assert np.all(np.isfinite(compare_recipe(x, ddof=ddof, eps_inside=inside).variant))
    assert np.all(np.isfinite(compare_rms_placement(x).variant))


FRAMEWORKS = (Path(__file__).parent / "data" / "FRAMEWORKS.md").read_text(encoding="utf-8")


def test_eps_presets_match_frameworks_md() -> None:
    by_name = {p.name: p for p in EPS_PRESETS}
    assert by_name["PyTorch nn.LayerNorm"].eps == 1e-5
    assert by_name["Keras 3 LayerNormalization"].eps == 1e-3
    assert by_name["Flax LayerNorm / RMSNorm"].eps == 1e-6
    assert by_name["BERT family (BERT-base, all-MiniLM-L6-v2)"].eps == 1e-12
    assert by_name["T5 / LLaMA RMSNorm (Hugging Face)"].eps == 1e-6
    assert by_name["PyTorch nn.RMSNorm (float32)"].eps == float(np.finfo(np.float32).eps)
    authors = by_name["RMSNorm authors' code"]
    assert authors.eps == 1e-8 and not authors.eps_inside
    # every row of FRAMEWORKS.md that names a LayerNorm/RMSNorm default has its number in the table
    for row, value in [
        ("PyTorch `nn.LayerNorm`", 1e-5),
        ("Keras 3 `LayerNormalization`", 1e-3),
        ("Flax `LayerNorm`", 1e-6),
        ("BERT family", 1e-12),
        ("T5 / LLaMA RMSNorm", 1e-6),
        ("RMSNorm authors' reference code", 1e-8),
    ]:
        line = next(ln_ for ln_ in FRAMEWORKS.splitlines() if row in ln_)
        assert re.search(rf"\| {value:.0e}".replace("e-0", "e-"), line), line
    assert all(p.source for p in EPS_PRESETS)
    assert {p.norm for p in EPS_PRESETS} == {"LayerNorm", "RMSNorm"}


def test_minilm_recording_eps_is_the_bert_preset() -> None:
    rec = ln.load_minilm_recording()
    assert set(rec.eps.tolist()) == {1e-12}


def test_standard_eps_compares_another_framework_with_pytorch() -> None:
    c = compare_recipe(TINY_PAIR, ddof=0, eps_inside=True, eps=1e-3, standard_eps=1e-5)
    assert c.variant[1] == pytest.approx(0.73995591, abs=1e-8)  # Keras
    assert c.standard[1] == pytest.approx(0.99589359, abs=1e-8)  # PyTorch
    assert c.max_abs_difference == pytest.approx(0.99589359 - 0.73995591, abs=1e-8)
    same = compare_recipe(TINY_PAIR, ddof=0, eps_inside=True, eps=1e-3)
    np.testing.assert_array_equal(same.standard, same.variant)
