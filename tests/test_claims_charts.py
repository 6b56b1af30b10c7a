"""Sentences inside the charts and the preset captions hold for every value the controls allow.

Exact texts of the titles and labels that were mended, and each preset caption checked against the
core over the sizes and seeds the sidebar offers.
"""

from __future__ import annotations

import numpy as np
import pytest
from apptest_support import open_page
from chart_specs import charts as drawn

import layernorm as ln
from layernorm.labs import blocks
from layernorm.labs import lenses as L
from ui import charts, charts_axes, charts_depth
from ui.settings import D_CHOICES, EPS_CHOICES

SEEDS = [*range(0, 60), 9999]  # the sidebar's seed runs from 0 to 9999


# ---------------------------------------------------------------------------- charts.py


EPS_TITLE = "Variance of x̂ = σ²/(σ² + ε): near 1 while ε ≪ σ², under ½ once ε > σ²"


def test_eps_curve_title() -> None:
    steps = ln.layer_norm_steps(ln.make_preset("standard normal", 8), eps=1e-5)
    grid = np.logspace(-12, 0, 61)
    fig = charts.eps_curve(grid, steps.x_hat_var_at(grid), 1e-5, float(steps.x_hat_var_expected), 1.0)
    assert fig.layout.title.text == EPS_TITLE


@pytest.mark.parametrize("name", list(ln.PRESETS))
@pytest.mark.parametrize("d", [2, 3, 8, 4096])
def test_eps_curve_title_holds_for_every_preset_and_eps(name: str, d: int) -> None:
    """The title's two clauses on the curve the page draws, for every offered ε (constant: σ² = 0)."""
    grid = np.array(EPS_CHOICES)
    for seed in (0, 1, 7):
        steps = ln.layer_norm_steps(ln.make_preset(name, d, seed), eps=1e-5)
        var, curve = float(steps.var), steps.x_hat_var_at(grid)
        assert np.all(curve[grid > var] < 0.5)
        assert np.all(curve[grid * 1e3 <= var] > 0.999)
        assert np.all(curve <= 1.0)


BAND_LABEL = "±1: x̂'s spread while ε ≪ σ²"


def test_standardized_chart_band_label_names_its_condition() -> None:
    fig = charts.standardized_chart(np.array([0.0, 0.0, 0.0]))  # a constant vector's x̂: no unit spread
    band, mean = fig.layout.annotations
    assert band.text == BAND_LABEL == charts.XHAT_BAND_LABEL
    assert mean.text == "mean 0"


@pytest.mark.parametrize("eps", [1e-12, 1e-5, 1.0])
def test_xhat_spread_is_one_while_eps_is_far_below_sigma_squared(eps: float) -> None:
    for name in ("standard normal", "scaled (σ = 10)", "one large outlier"):
        for d in (2, 8, 4096):
            steps = ln.layer_norm_steps(ln.make_preset(name, d, 3), eps=eps)
            spread = float(np.sqrt(ln.variance(steps.x_hat)))
            if eps * 1e3 <= float(steps.var):
                assert spread == pytest.approx(1.0, abs=1e-3)


# ---------------------------------------------------------------------------- charts_axes.py


def test_lens_value_bars_title_does_not_count_the_defined_values() -> None:
    fig = charts_axes.lens_value_bars(L.LENSES, [0.5, None, 0.25, None, 0.75], 1.2345)
    assert fig.layout.title.text == "One cell (x = 1.234), normalized by each lens"


def _heatmap(grid: blocks.DisplayGrid) -> object:
    return charts_axes.axes_heatmap(grid, None, 0, 0, n_seq=2, seq_len=4, title="t")


def test_axes_heatmap_hover_names_a_single_cell_when_every_cell_is_shown() -> None:
    grid = blocks.display_grid(np.arange(2 * 4 * 6, dtype=float).reshape(2, 4, 6))
    assert (grid.row_step, grid.col_step) == (1, 1)
    trace = _heatmap(grid).data[0]
    assert trace.hovertemplate == "feature %{x:.0f}<br>row %{y:.0f}<br>x = %{z:.3g}<extra></extra>"
    assert trace.colorbar.title.text == "x"


def test_axes_heatmap_hover_says_a_reduced_cell_is_a_block_mean() -> None:
    grid = blocks.display_grid(np.arange(2 * 4 * 6, dtype=float).reshape(2, 4, 6), max_rows=3, max_cols=2)
    assert (grid.row_step, grid.col_step) == (3, 3)
    trace = _heatmap(grid).data[0]
    assert trace.hovertemplate == (
        "features around %{x:.0f}<br>rows around %{y:.0f}<br>"
        "mean x over up to 3 rows × 3 features = %{z:.3g}<extra></extra>"
    )
    assert trace.colorbar.title.text == "mean x"


# ---------------------------------------------------------------------------- charts_depth.py


def test_divergence_map_title_says_the_median_leaves_diverged_seeds_out() -> None:
    med = np.array([[0.5, np.nan], [0.1, 0.2]])
    fig = charts_depth.divergence_map(
        np.array([0.01, 0.1]), ["LayerNorm", "none"], med, np.array([[1, 3], [0, 0]]), 3
    )
    assert fig.layout.title.text == (
        "Final loss by learning rate: median over the seeds that did not diverge (✗: all did)"
    )


# ---------------------------------------------------------------------------- presets


# Every preset's caption, word for word, as the sidebar shows it: the expected texts, written out here.
PRESET_CAPTIONS = [
    (
        "standard normal",
        "Random draws from a normal distribution with mean 0 and standard deviation 1; "
        "the d values drawn have their own μ and σ.",
    ),
    ("shifted (mean 2.5)", "The standard normal draws moved up by 2.5: μ is their own mean plus 2.5."),
    ("scaled (σ = 10)", "The standard normal draws stretched ten times: σ is ten times their own."),
    (
        "one large outlier",
        "The standard normal draws with one feature set to 40, far above the rest "
        "(real transformer activations have outlier features too).",
    ),
    ("constant", "Every feature equals 3: the variance is 0 and only ε keeps the division finite."),
    ("one-hot [1, 0, 0, 0]", "A single 1 and zeros elsewhere (d = 4 gives [1, 0, 0, 0])."),
]


def test_preset_captions_exact() -> None:
    assert list(ln.PRESETS.items()) == PRESET_CAPTIONS  # these presets, in this order, these words


@pytest.mark.parametrize("d", D_CHOICES)
def test_preset_captions_hold_for_every_size(d: int) -> None:
    for seed in SEEDS:
        z = np.random.default_rng(seed).standard_normal(d)
        np.testing.assert_array_equal(ln.make_preset("standard normal", d, seed), z)  # "random draws"
        mu, sigma = float(ln.mean(z)), float(np.sqrt(ln.variance(z)))

        shifted = ln.make_preset("shifted (mean 2.5)", d, seed)
        assert float(ln.mean(shifted)) == pytest.approx(mu + 2.5, abs=1e-12)
        np.testing.assert_allclose(shifted - 2.5, z, atol=1e-15)

        scaled = ln.make_preset("scaled (σ = 10)", d, seed)
        assert float(np.sqrt(ln.variance(scaled))) == pytest.approx(10 * sigma, rel=1e-12)

        outlier = ln.make_preset("one large outlier", d, seed)
        assert np.count_nonzero(outlier == 40.0) == 1
        assert float(np.max(np.delete(outlier, d // 3))) < 10.0  # "far above the rest"

    constant = ln.make_preset("constant", d, 0)
    assert np.all(constant == 3.0) and float(ln.variance(constant)) == 0.0
    for eps in EPS_CHOICES:
        np.testing.assert_array_equal(ln.layer_norm(constant, eps=eps), np.zeros(d))  # finite thanks to ε

    one_hot = ln.make_preset("one-hot [1, 0, 0, 0]", d, 0)
    assert one_hot[0] == 1.0 and np.count_nonzero(one_hot) == 1


def test_outlier_stays_far_above_the_rest_for_every_seed_at_the_largest_size() -> None:
    largest = max(float(np.max(np.random.default_rng(s).standard_normal(4096))) for s in range(10000))
    assert largest < 10.0


def test_pages_pass_chart_titles_that_hold_for_every_eps() -> None:
    """Standardize's near-constant chart called its band '±1: unit spread' (x̂ collapses once σ² < ε),
    and Invariances put x̂ 'on the sphere' (inside it when ε is comparable to σ²)."""
    standardize = " ".join(str(c.figure) for c in drawn(open_page("pages/3_standardize.py", eps="1")))
    assert "unit spread" not in standardize and charts.XHAT_BAND_LABEL in standardize
    invariances = " ".join(str(c.figure) for c in drawn(open_page("pages/14_invariances.py", eps="1")))
    assert "on the plane and the sphere" not in invariances
    assert "After: x̂ on the plane, on or inside the sphere" in invariances
