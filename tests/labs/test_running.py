"""layernorm.labs.running: BatchNorm's two modes against LayerNorm's one, with explicit state."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import layernorm as ln
from layernorm.labs import batch_effects
from layernorm.labs import running as R


def test_population_and_batches_are_seeded() -> None:
    pop = R.make_population(5, seed=3)
    assert pop.d == 5 and np.all(pop.std >= 0.5)
    a = R.draw_batch(pop, 4, seed=(1, 2))
    assert a.shape == (4, 5) and np.array_equal(a, R.draw_batch(pop, 4, seed=(1, 2)))
    assert not np.array_equal(a, R.draw_batch(pop, 4, seed=(1, 3)))


def test_train_step_by_the_update_rule_with_unbiased_variance() -> None:
    pop = R.make_population(3, seed=0)
    state = R.initial_state(3)
    step = R.train_step(state, pop, 4, momentum=0.25, seed=9)
    x = step.batch
    np.testing.assert_allclose(step.batch_mean, x.mean(axis=0))
    np.testing.assert_allclose(step.batch_var, x.var(axis=0))  # ÷n normalizes
    np.testing.assert_allclose(step.batch_var_unbiased, x.var(axis=0, ddof=1))  # ÷(n−1) is stored
    np.testing.assert_allclose(step.after.running_mean, 0.75 * 0 + 0.25 * x.mean(axis=0))
    np.testing.assert_allclose(step.after.running_var, 0.75 * 1 + 0.25 * x.var(axis=0, ddof=1))
    np.testing.assert_allclose(step.y, (x - x.mean(0)) / np.sqrt(x.var(0) + 1e-5))
    assert (step.before.step, step.after.step) == (0, 1)
    assert state.step == 0 and np.all(state.running_var == 1)  # input state untouched


def test_train_step_is_deterministic_and_depends_on_the_step() -> None:
    pop = R.make_population(4)
    s0 = R.initial_state(4)
    a, b = R.train_step(s0, pop, 8, seed=1), R.train_step(s0, pop, 8, seed=1)
    assert np.array_equal(a.batch, b.batch)
    assert not np.array_equal(a.batch, R.train_step(a.after, pop, 8, seed=1).batch)


def test_running_statistics_converge_to_the_population() -> None:
    pop = R.make_population(6, seed=2)
    state = R.initial_state(6)
    for _ in range(300):
        state = R.train_step(state, pop, 64, momentum=0.1, seed=0).after
    np.testing.assert_allclose(state.running_mean, pop.mean, atol=0.35)
    np.testing.assert_allclose(state.running_var, pop.std**2, rtol=0.2)


def test_momentum_zero_never_moves_and_one_forgets_everything() -> None:
    pop = R.make_population(3)
    s = R.initial_state(3)
    frozen = R.train_step(s, pop, 5, momentum=0.0)
    assert np.array_equal(frozen.after.running_mean, s.running_mean)
    full = R.train_step(s, pop, 5, momentum=1.0)
    np.testing.assert_allclose(full.after.running_var, full.batch_var_unbiased)


def test_batch_of_one_is_undefined_in_training() -> None:
    pop = R.make_population(3)
    with pytest.raises(ValueError, match="more than 1 value per channel"):
        R.train_step(R.initial_state(3), pop, 1)
    with pytest.raises(ValueError, match="more than 1 value per channel"):
        batch_effects.batch_mates(pop, 1, fixed_seed=0, mates_seed=0)
    with pytest.raises(ValueError, match="between 1 and 256"):
        R.train_step(R.initial_state(3), pop, 257)


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 64), st.integers(0, 100), st.integers(0, 100))
def test_batch_mates_change_batch_norm_but_never_layer_norm(n: int, s1: int, s2: int) -> None:
    pop = R.make_population(5, seed=1)
    x1, bn1, ln1 = batch_effects.batch_mates(pop, n, fixed_seed=7, mates_seed=s1)
    x2, bn2, ln2 = batch_effects.batch_mates(pop, n, fixed_seed=7, mates_seed=s2)
    assert np.array_equal(x1, x2)  # the same example
    assert np.array_equal(ln1, ln2) and np.array_equal(ln1, ln.layer_norm(x1))
    if s1 != s2:
        assert not np.allclose(bn1, bn2)


def test_redraw_spread_shrinks_with_batch_size() -> None:
    pop = R.make_population(4, seed=0)
    small = batch_effects.redraw_spread(pop, 4, n_redraws=100, fixed_seed=0)
    large = batch_effects.redraw_spread(pop, 256, n_redraws=100, fixed_seed=0)
    assert small.bn_y.shape == (100, 4)
    assert np.all(small.ln_std == 0) and np.all(large.ln_std == 0)
    assert np.all(large.bn_std < small.bn_std / 3)
    with pytest.raises(ValueError, match="at least 2 redraws"):
        batch_effects.redraw_spread(pop, 4, n_redraws=1, fixed_seed=0)


def test_shift_misnormalizes_batch_norm_not_layer_norm() -> None:
    pop = R.make_population(16, seed=0)
    state = R.RunningState(100, pop.mean.copy(), pop.std**2)  # perfectly trained
    same = batch_effects.shift_test(state, pop, shift=0.0, scale=1.0, n=256)
    assert abs(same.bn_mean) < 0.1 and abs(same.bn_std - 1) < 0.1
    moved = batch_effects.shift_test(state, pop, shift=3.0, scale=2.0, n=256)
    assert moved.bn_mean > 1.0 and moved.bn_std > 1.5
    assert abs(moved.ln_mean) < 1e-12 and abs(moved.ln_std - 1) < 1e-3
    np.testing.assert_allclose(moved.ln_y.mean(axis=1), 0, atol=1e-12)
    expected = (moved.bn_y * np.sqrt(pop.std**2 + 1e-5)) + pop.mean  # undo eval normalization
    assert expected.mean() == pytest.approx((pop.mean + 3).mean(), abs=0.3)
    with pytest.raises(ValueError, match="scale must be > 0"):
        batch_effects.shift_test(state, pop, shift=0.0, scale=0.0)


def test_make_population_limits() -> None:
    with pytest.raises(ValueError, match="between 1 and 256"):
        R.make_population(0)
    with pytest.raises(ValueError, match="at least 1 example"):
        R.draw_batch(R.make_population(2), 0, seed=0)


@pytest.mark.parametrize(("d", "n", "redraws"), [(8, 16, 30), (4, 2, 5), (16, 5, 7)])
def test_redraw_spread_is_batch_mates_redrawn_one_by_one(d: int, n: int, redraws: int) -> None:
    """All redraws run as one BatchNorm over R·d channels: the same bits as R separate batches."""
    pop = R.make_population(d, seed=3)
    spread = batch_effects.redraw_spread(pop, n, n_redraws=redraws, fixed_seed=3)
    for r in range(redraws):
        _, bn_y, ln_y = batch_effects.batch_mates(pop, n, fixed_seed=3, mates_seed=r)
        np.testing.assert_array_equal(spread.bn_y[r], bn_y)
        np.testing.assert_array_equal(spread.ln_y[r], ln_y)
