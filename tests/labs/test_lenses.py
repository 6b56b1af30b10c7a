"""layernorm.labs.lenses: which cells share statistics, and the identities that tie the lenses together."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import layernorm as ln
from layernorm.data.activations import load_minilm_recording
from layernorm.labs import blocks, lens_counts, padding
from layernorm.labs import lenses as L

finite = st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False)


@st.composite
def batches(draw: st.DrawFn, min_d: int = 2) -> np.ndarray:
    shape = draw(st.tuples(st.integers(1, 4), st.integers(1, 5), st.integers(min_d, 12)))
    return draw(hnp.arrays(np.float64, shape, elements=finite))


# --- the four identities, as properties over shapes ------------------------------------------


@settings(max_examples=60, deadline=None)
@given(batches())
def test_layer_norm_is_batch_norm_over_the_transposed_axis(x: np.ndarray) -> None:
    tokens = x.reshape(-1, x.shape[2])
    n = tokens.shape[0]
    bn = ln.batch_norm_train(tokens.T, None, None, np.zeros(n), np.ones(n))[0].T
    np.testing.assert_allclose(ln.layer_norm(tokens), bn, rtol=0, atol=1e-9)


@settings(max_examples=60, deadline=None)
@given(batches(min_d=1))
def test_group_norm_one_group_is_layer_norm_over_c_and_l(x: np.ndarray) -> None:
    ncl = x.transpose(0, 2, 1)
    np.testing.assert_allclose(ln.group_norm(ncl, 1), ln.layer_norm(ncl, axis=(-2, -1)), atol=1e-9)


@settings(max_examples=60, deadline=None)
@given(batches(min_d=1))
def test_group_norm_one_channel_per_group_is_instance_norm(x: np.ndarray) -> None:
    ncl = x.transpose(0, 2, 1)
    np.testing.assert_allclose(ln.group_norm(ncl, ncl.shape[1]), ln.instance_norm(ncl), atol=1e-9)


@settings(max_examples=60, deadline=None)
@given(batches())
def test_rms_norm_is_layer_norm_on_zero_mean_rows(x: np.ndarray) -> None:
    z = x - x.mean(axis=-1, keepdims=True)
    np.testing.assert_allclose(ln.rms_norm(z, eps=1e-5), ln.layer_norm(z, eps=1e-5), atol=1e-7)


@settings(max_examples=40, deadline=None)
@given(batches())
def test_identity_gaps_reports_all_four_at_rounding_level(x: np.ndarray) -> None:
    gaps = padding.identity_gaps(x)
    assert list(gaps) == list(padding.IDENTITIES)
    assert all(g < 1e-7 for g in gaps.values())


def test_identity_gaps_needs_two_features() -> None:
    with pytest.raises(ValueError, match="d >= 2"):
        padding.identity_gaps(np.ones((2, 3, 1)))


# --- groups: each lens's rectangle, checked against the lens's own normalization ---------------

FULL = {
    "LayerNorm": lambda x, g: ln.layer_norm(x),
    "RMSNorm": lambda x, g: ln.rms_norm(x, eps=1e-5),
    "BatchNorm": lambda x, g: ln.batch_norm_train(
        x.transpose(0, 2, 1), None, None, np.zeros(x.shape[2]), np.ones(x.shape[2])
    )[0].transpose(0, 2, 1),
    "InstanceNorm": lambda x, g: ln.instance_norm(x.transpose(0, 2, 1)).transpose(0, 2, 1),
    "GroupNorm": lambda x, g: ln.group_norm(x.transpose(0, 2, 1), g).transpose(0, 2, 1),
}


@settings(max_examples=50, deadline=None)
@given(st.data())
def test_mask_holds_exactly_the_values_that_normalize_the_cell(data: st.DataObject) -> None:
    b, t, d = data.draw(st.tuples(st.integers(1, 3), st.integers(2, 5), st.integers(2, 8)))
    x = L.random_batch(b, t, d, seed=data.draw(st.integers(0, 50)))
    cell = (
        data.draw(st.integers(0, b - 1)),
        data.draw(st.integers(0, t - 1)),
        data.draw(st.integers(0, d - 1)),
    )
    groups = data.draw(st.sampled_from([k for k in range(1, d + 1) if d % k == 0]))
    for lens in L.LENSES:
        mask = L.lens_mask((b, t, d), cell, lens, groups=groups)
        reading = L.read_lens(x, cell, lens, groups=groups)
        vals = x[mask]
        assert mask.sum() == reading.group.n  # type: ignore[union-attr]
        expected_full = FULL[lens](x, groups)[cell]
        assert reading.x_hat == pytest.approx(expected_full, abs=1e-9)
        if lens == "RMSNorm":
            assert reading.mu is None
            assert reading.var == pytest.approx(np.mean(vals**2))
            assert reading.x_hat == pytest.approx(x[cell] / np.sqrt(np.mean(vals**2) + 1e-5))
        else:
            assert reading.mu == pytest.approx(np.mean(vals))
            assert reading.var == pytest.approx(np.var(vals))
            assert reading.x_hat == pytest.approx((x[cell] - np.mean(vals)) / np.sqrt(np.var(vals) + 1e-5))


def test_groups_by_hand_for_a_2x3x4_batch() -> None:
    shape, cell = (2, 3, 4), (1, 2, 3)  # row r = 1*3 + 2 = 5
    assert L.lens_group(shape, cell, "LayerNorm").rows == (5, 6)
    assert L.lens_group(shape, cell, "LayerNorm").cols == (0, 4)
    assert (L.lens_group(shape, cell, "BatchNorm").rows, L.lens_group(shape, cell, "BatchNorm").cols) == (
        (0, 6),
        (3, 4),
    )
    assert L.lens_group(shape, cell, "InstanceNorm").rows == (3, 6)
    gn = L.lens_group(shape, cell, "GroupNorm", groups=2)
    assert (gn.rows, gn.cols, gn.n) == ((3, 6), (2, 4), 6)
    assert L.lens_group(shape, cell, "BatchNorm").n == 6


def test_read_lens_by_hand() -> None:
    x = np.array([[[1.0, 2.0, 3.0, 6.0]], [[5.0, 2.0, 3.0, 2.0]]])  # (B=2, T=1, d=4)
    r = L.read_lens(x, (0, 0, 3), "LayerNorm", eps=0.0)
    assert (r.mu, r.var, r.value) == (3.0, 3.5, 6.0)
    assert r.x_hat == pytest.approx(3.0 / np.sqrt(3.5))
    bn = L.read_lens(x, (0, 0, 0), "BatchNorm", eps=0.0)  # feature 0 over both tokens: 1 and 5
    assert (bn.mu, bn.var, bn.x_hat) == (3.0, 4.0, -1.0)
    rms = L.read_lens(x, (0, 0, 3), "RMSNorm", eps=0.0)
    assert rms.var == pytest.approx(12.5) and rms.x_hat == pytest.approx(6 / np.sqrt(12.5))


def test_undefined_lenses_give_a_sentence_not_an_exception() -> None:
    x = L.random_batch(1, 1, 6, seed=0)
    bn = L.read_lens(x, (0, 0, 0), "BatchNorm")
    assert bn.x_hat is None and "more than 1 value per channel" in (bn.problem or "")
    gn = L.read_lens(x, (0, 0, 0), "GroupNorm", groups=4)
    assert gn.x_hat is None and "does not divide d = 6" in (gn.problem or "") and "1, 2, 3, 6" in gn.problem


@pytest.mark.parametrize(
    ("shape", "cell", "match"),
    [
        ((0, 2, 3), (0, 0, 0), "at least 1"),
        ((2, 2, 3), (2, 0, 0), "outside"),
        ((64, 128, 4096), (0, 0, 0), "limit"),
    ],
)
def test_lens_group_errors(shape: tuple[int, int, int], cell: tuple[int, int, int], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        L.lens_group(shape, cell, "LayerNorm")


def test_unknown_lens_and_bad_groups_raise() -> None:
    with pytest.raises(ValueError, match="unknown lens"):
        L.lens_group((1, 2, 3), (0, 0, 0), "WeightNorm")
    with pytest.raises(ValueError, match="does not divide"):
        L.check_groups(512, 3)


# --- counting statistics ------------------------------------------------------------------


def test_stat_counts_for_the_lesson_example_d512() -> None:
    counts = {c.lens: c for c in lens_counts.stat_counts((8, 16, 512), groups=32)}
    assert counts["LayerNorm"].stats_per_group == 2 and counts["LayerNorm"].values_per_group == 512
    assert counts["LayerNorm"].total == 2 * 8 * 16
    assert counts["BatchNorm"].n_groups == 512 and counts["BatchNorm"].total == 1024
    assert counts["BatchNorm"].values_per_group == 128
    assert counts["InstanceNorm"].total == 2 * 8 * 512
    assert counts["GroupNorm"].total == 2 * 8 * 32 and counts["GroupNorm"].values_per_group == 16 * 16
    assert counts["RMSNorm"].total == 128


def test_stat_counts_leave_out_group_norm_when_groups_do_not_divide() -> None:
    assert [c.lens for c in lens_counts.stat_counts((2, 3, 10), groups=3)] == [
        "LayerNorm",
        "BatchNorm",
        "InstanceNorm",
        "RMSNorm",
    ]


# --- padding ------------------------------------------------------------------------------


def test_padding_moves_batch_norm_not_layer_norm_on_the_real_minilm_batch() -> None:
    rec = load_minilm_recording()
    eff = padding.padding_effect(rec.inputs[0], rec.attention_mask)
    assert eff.n_real == int(rec.attention_mask.sum()) and eff.n_pad == rec.attention_mask.size - eff.n_real
    assert eff.n_pad > 0
    assert np.all(eff.ln_change == 0.0)
    assert np.all(eff.bn_change > 1e-3)
    assert not np.allclose(eff.bn_mean_with, eff.bn_mean_without)


def test_padding_effect_without_padding_is_zero_for_both() -> None:
    x = L.random_batch(2, 3, 4, seed=1)
    eff = padding.padding_effect(x, np.ones((2, 3)))
    assert eff.n_pad == 0 and np.all(eff.bn_change == 0) and np.all(eff.ln_change == 0)


def test_padding_effect_errors() -> None:
    with pytest.raises(ValueError, match="at least 2 real tokens"):
        padding.padding_effect(np.ones((1, 2, 3)), np.array([[1, 0]]))
    with pytest.raises(ValueError, match="mask"):
        padding.padding_effect(np.ones((1, 2, 3)), np.ones((2, 2)))


# --- generator and display grid -------------------------------------------------------------


def test_random_batch_is_seeded_and_shaped() -> None:
    a, b = L.random_batch(2, 3, 5, seed=4), L.random_batch(2, 3, 5, seed=4)
    assert a.shape == (2, 3, 5) and np.array_equal(a, b)
    assert not np.array_equal(a, L.random_batch(2, 3, 5, seed=5))


def test_display_grid_keeps_small_tensors_and_block_averages_large_ones() -> None:
    small = L.random_batch(7, 17, 384, seed=0)
    g = blocks.display_grid(small)
    assert not g.aggregated and g.z.shape == (119, 384) and np.array_equal(g.z, small.reshape(119, 384))
    big = np.arange(8192 * 768, dtype=float).reshape(64, 128, 768)
    gb = blocks.display_grid(big, max_rows=256, max_cols=512)
    assert gb.aggregated and gb.z.size <= 200_000
    assert gb.z.shape == (256, 384) and (gb.row_step, gb.col_step) == (32, 2)
    assert gb.z[0, 0] == pytest.approx(big.reshape(8192, 768)[:32, :2].mean())
    assert gb.row_centers[0] == 15.5 and gb.col_centers[-1] == 766.5
    uneven = blocks.display_grid(np.ones((1, 10, 3)), max_rows=4)
    assert uneven.z.shape == (4, 3) and np.all(uneven.z == 1.0) and uneven.row_centers[-1] == 9.0
