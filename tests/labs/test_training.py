"""The learning-rate sweep: deterministic, divergence detected, LayerNorm's effect where it exists."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from layernorm.labs.training import make_task, run_sweep

SMALL = {"depth": 4, "width": 16, "steps": 30, "n_seeds": 2}


def test_sweep_is_deterministic_and_shaped() -> None:
    a, b = run_sweep(**SMALL), run_sweep(**SMALL)
    assert a.loss.shape == (2, 9, 2, 31)
    np.testing.assert_array_equal(a.loss, b.loss)
    np.testing.assert_array_equal(a.diverged_at, b.diverged_at)


def test_a_run_does_not_depend_on_the_runs_beside_it() -> None:
    """Diverged runs leave the batch and the work is split over threads: no run may change by a bit."""
    settings = {"depth": 5, "width": 16, "steps": 40, "n_seeds": 3, "init_gain": 2.0}
    one, two = run_sweep(**settings, workers=1), run_sweep(**settings, workers=2)
    np.testing.assert_array_equal(one.loss, two.loss)
    np.testing.assert_array_equal(one.diverged_at, two.diverged_at)
    assert np.any(one.diverged_at >= 0) and np.any(one.diverged_at < 0)  # some leave the batch, some stay
    for m, lr in enumerate(one.lrs):  # each learning rate alone, each seed alone
        alone = run_sweep(**{**settings, "n_seeds": 1}, lrs=(float(lr),))
        np.testing.assert_array_equal(alone.loss[:, 0, 0], one.loss[:, m, 0])
        np.testing.assert_array_equal(alone.diverged_at[:, 0, 0], one.diverged_at[:, m, 0])


def test_loss_starts_at_the_same_value_with_and_without_layernorm_only_if_init_matches() -> None:
    res = run_sweep(**SMALL)
    # same seed -> same initial weights, so all learning rates start from the same loss within a norm
    np.testing.assert_array_equal(res.loss[0, :, 0, 0], res.loss[0, 0, 0, 0])
    np.testing.assert_array_equal(res.loss[1, :, 1, 0], res.loss[1, 0, 1, 0])


def test_tiny_learning_rate_both_train_and_nothing_diverges() -> None:
    res = run_sweep(**SMALL, lrs=(1e-3, 1e-2))
    assert not res.diverged.any()
    assert np.all(res.final_loss < res.loss[..., 0])  # loss went down for every run


def test_huge_learning_rate_diverges_even_with_layernorm() -> None:
    res = run_sweep(**SMALL, lrs=(10.0,))
    assert res.diverged.all()
    assert np.all(np.isnan(res.final_loss))
    k, m, s = 1, 0, 0
    at = res.diverged_at[k, m, s]
    assert np.all(np.isfinite(res.loss[k, m, s, :at])) and np.all(np.isnan(res.loss[k, m, s, at:]))


def test_layernorm_survives_a_learning_rate_that_kills_a_badly_scaled_plain_network() -> None:
    res = run_sweep(depth=6, width=32, steps=60, n_seeds=2, init_gain=2.0, lrs=(0.01, 0.1))
    assert res.diverged[0].all()  # no normalization: diverges
    assert not res.diverged[1].any()  # LayerNorm: trains
    assert np.all(res.final_loss[1] < res.loss[1, :, :, 0])


def test_median_final_loss_ignores_diverged_seeds() -> None:
    res = run_sweep(**SMALL, lrs=(1e-2, 10.0))
    med = res.median_final_loss()
    np.testing.assert_allclose(med[:, 0], np.median(res.final_loss[:, 0], axis=-1))
    assert np.all(np.isnan(med[:, 1]))


def test_progress_is_reported_up_to_one() -> None:
    seen: list[float] = []
    run_sweep(**SMALL, progress=lambda f, msg: seen.append(f))
    assert seen[-1] == 1.0 and all(b >= a for a, b in itertools.pairwise(seen))


def test_task_target_is_standardized() -> None:
    x, y = make_task()
    assert x.shape == (64, 8) and y.shape == (64, 1)
    assert abs(float(y.mean())) < 1e-12 and abs(float(y.std()) - 1.0) < 1e-12


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"depth": 0}, "depth"),
        ({"width": 2}, "width"),
        ({"steps": 0}, "steps"),
        ({"n_seeds": 11}, "n_seeds"),
        ({"lrs": (0.1, -1.0)}, "lrs"),
        ({"lrs": ()}, "lrs"),
        ({"norms": ("batchnorm",)}, "norms"),
        ({"init_gain": float("nan")}, "init_gain"),
    ],
)
def test_bad_settings_are_refused(kwargs: dict[str, object], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        run_sweep(**kwargs)  # type: ignore[arg-type]


def test_the_sweep_gives_the_same_bits_as_when_it_kept_every_intermediate() -> None:
    """Final losses pinned from the sweep as it was when each layer ran layer_norm_steps (f1f4d04).

    The sweep now runs ln.layer_norm_x_hat and ln.layer_norm_input_grad, which skip what only a
    display needs; the arithmetic must be the same to the last bit.
    """
    res = run_sweep(depth=4, width=16, steps=30, n_seeds=2, init_gain=1.0, lrs=(0.01, 0.1, 1.0))
    assert res.diverged_at.tolist() == [[[-1, -1], [-1, -1], [-1, 7]], [[-1, -1], [-1, -1], [5, 4]]]
    expected = [
        ["0x1.f90f046221185p-3", "0x1.ba509f945a01ap-2"],
        ["0x1.5d9e5c743f739p-5", "0x1.6ac320961c91cp-4"],
    ]
    assert [[float(v).hex() for v in row] for row in res.loss[1, :2, :, -1]] == expected
