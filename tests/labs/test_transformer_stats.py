"""Per-site statistics of the recorded MiniLM LayerNorms, against the facts in assets/README.md."""

from __future__ import annotations

import numpy as np
import pytest

from layernorm.data.activations import load_minilm_recording
from layernorm.labs.transformer_stats import dimension_profile, parameter_histograms, site_stats


@pytest.fixture(scope="module")
def rec():
    return load_minilm_recording()


@pytest.fixture(scope="module")
def stats(rec):
    return site_stats(rec)


def test_recomputed_outputs_match_pytorch(stats) -> None:
    assert stats.max_formula_error.max() < 1e-5


def test_dimension_99_on_cls_is_the_outlier_after_layer_0_ffn(stats) -> None:
    s = stats.labels.index("Layer 0 · after FFN")
    assert stats.outlier_dim[s] == 99 and stats.outlier_token[s] == "[CLS]"
    assert 218.0 < stats.in_absmax[s] < 223.0
    assert stats.in_absmax[s] > 400 * stats.in_abs_median[s]
    # the outlier takes nearly all the variance: x_hat reaches the ceiling sqrt(d - 1)
    assert np.sqrt(383) - 0.05 < stats.x_hat_absmax[s] <= np.sqrt(383)


def test_dimension_223_takes_over_at_layer_4_ffn(stats) -> None:
    s = stats.labels.index("Layer 4 · after FFN")
    assert stats.outlier_dim[s] == 223
    assert 49.0 < stats.in_absmax[s] < 50.5


def test_outputs_are_bounded_while_inputs_are_not(stats) -> None:
    assert stats.in_absmax.max() > 200
    assert stats.out_absmax.max() < 35
    assert np.all(stats.x_hat_absmax <= np.sqrt(383) + 1e-9)


def test_gamma_summaries_are_not_the_initial_values(stats, rec) -> None:
    np.testing.assert_allclose(stats.gamma_median, np.median(rec.gamma.astype(np.float64), axis=1))
    assert np.all(stats.gamma_median < 0.8)  # training shrank the typical scale well below 1
    assert abs(rec.gamma[-1, 223]) < 0.01 and stats.gamma_min[-1] < 0.01


def test_dimension_profile_marks_the_outlier(rec) -> None:
    x_max, y_max = dimension_profile(rec, 2)
    assert x_max.shape == (384,) and int(np.argmax(x_max)) == 99
    assert y_max.max() < 30
    with pytest.raises(IndexError):
        dimension_profile(rec, 13)


def test_parameter_histograms_count_every_feature(rec) -> None:
    counts, edges = parameter_histograms(rec.gamma, bins=20)
    assert counts.shape == (13, 20) and edges.shape == (21,)
    np.testing.assert_array_equal(counts.sum(axis=1), 384)
    with pytest.raises(ValueError, match="finite"):
        parameter_histograms(np.array([[1.0, np.nan]]))
