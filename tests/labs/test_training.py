"""The learning-rate sweep: deterministic, divergence detected, LayerNorm's effect where it exists."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import layernorm as ln
from layernorm.backward import layer_norm_backward_from_steps
from layernorm.labs import training
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


def test_the_sweep_gives_the_same_bits_as_when_it_kept_every_intermediate(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The sweep runs ln.layer_norm_x_hat and ln.layer_norm_input_grad, which skip what only a
    display needs (e8dcf64). Put layer_norm_steps and layer_norm_backward_from_steps back in their
    place and every loss must be the same to the last bit.

    Both sweeps run here, on this machine. The matrix products go through the machine's BLAS, whose
    kernel (Haswell, SkylakeX, ...) sets the summation order, so bits pinned on one machine are not
    another's: final losses pinned as hex on a Haswell kernel differed in the last bit on SkylakeX.
    """
    forwards: dict[int, ln.LayerNormSteps] = {}  # the old backward needs its forward's steps

    def x_hat_by_steps(a: np.ndarray, *, eps: float) -> tuple[np.ndarray, np.ndarray]:
        s = ln.layer_norm_steps(a, eps=eps)
        forwards[id(s.x_hat)] = s  # s keeps x_hat alive, so its id is not reused
        return s.x_hat, s.std[..., None]

    def input_grad_by_steps(x_hat: np.ndarray, std: np.ndarray, dy: np.ndarray) -> np.ndarray:
        s = forwards[id(x_hat)]
        assert s.x_hat is x_hat and np.array_equal(s.std[..., None], std)
        return layer_norm_backward_from_steps(s, dy)[0]

    settings = {"depth": 4, "width": 16, "steps": 30, "n_seeds": 2, "init_gain": 1.0, "lrs": (0.01, 0.1, 1.0)}
    fast = run_sweep(**settings)  # type: ignore[arg-type]
    monkeypatch.setattr(training, "layer_norm_x_hat", x_hat_by_steps)
    monkeypatch.setattr(training, "layer_norm_input_grad", input_grad_by_steps)
    old = run_sweep(**settings, workers=1)  # type: ignore[arg-type]
    assert len(forwards) > 100  # the old path really ran
    np.testing.assert_array_equal(fast.loss, old.loss)
    np.testing.assert_array_equal(fast.diverged_at, old.diverged_at)
    assert fast.diverged_at.tolist() == [[[-1, -1], [-1, -1], [-1, 7]], [[-1, -1], [-1, -1], [5, 4]]]
    # Final losses of the LayerNorm runs at lr 0.01 and 0.1. Haswell, SkylakeX, Sandybridge and
    # Nehalem kernels (OPENBLAS_CORETYPE) give these to within 6e-16 relative; a change in the
    # sweep's arithmetic moves them far more than the 1e-12 allowed.
    expected = [[0.24661067413775242, 0.4319481787010787], [0.042678051542664304, 0.08856499413540003]]
    np.testing.assert_allclose(fast.loss[1, :2, :, -1], expected, rtol=1e-12, atol=0)
