"""layernorm.labs.stepping: one MLP trained step by step, its per-layer statistics recorded."""

from __future__ import annotations

import numpy as np
import pytest

from layernorm.labs.stepping import MAX_STEPS, NORMALIZATIONS, output_drift, train_stepped

# Loss at steps 0, 10 and 30 for lr 0.1, depth 4, width 16, seed 3. The same network written with
# torch.nn.functional.layer_norm / batch_norm and torch.optim.SGD in float64 (PyTorch 2.13) gives
# these to 1e-15: the forward, both normalizations' backward and the γ, β updates agree.
PINNED = {
    "none": (1.3228057617504467, 0.28773554229078807, 0.09212200225345556),
    "layernorm": (1.039700940261808, 0.19830101458483462, 0.10053354903524711),
    "batchnorm": (0.8179100490613982, 0.14696310899933604, 0.03408472170584315),
}


@pytest.mark.parametrize("norm", NORMALIZATIONS)
def test_the_loss_curve_is_the_one_pytorch_trains(norm: str) -> None:
    run = train_stepped(norm, lr=0.1, depth=4, width=16, steps=30, seed=3)
    np.testing.assert_allclose(run.loss[[0, 10, 30]], PINNED[norm], rtol=1e-12)
    assert run.diverged_at == -1


def test_a_run_is_the_same_bits_every_time() -> None:
    a, b = (train_stepped("batchnorm", lr=0.03, depth=3, steps=40, seed=7) for _ in range(2))
    for field in (
        "loss",
        "pre_mean",
        "pre_std",
        "out_mean",
        "out_std",
        "gamma_mean",
        "beta_mean",
        "gamma_off",
        "beta_off",
    ):
        np.testing.assert_array_equal(getattr(a, field), getattr(b, field))


def test_every_normalization_starts_from_the_same_weights() -> None:
    runs = [train_stepped(n, depth=3, steps=1, seed=5) for n in NORMALIZATIONS]
    # the first layer's a = x·W + b is computed before any normalization: identical at step 0
    assert len({r.pre_mean[0, 0] for r in runs}) == 1
    assert len({r.pre_std[0, 0] for r in runs}) == 1


def test_gamma_and_beta_start_at_one_and_zero_and_are_learned() -> None:
    for norm in ("layernorm", "batchnorm"):
        run = train_stepped(norm, lr=0.1, depth=2, steps=20)
        np.testing.assert_array_equal(run.gamma_mean[0], [1.0, 1.0])
        np.testing.assert_array_equal(run.beta_mean[0], [0.0, 0.0])
        assert np.all(run.gamma_mean[20] != 1.0) and np.all(run.beta_mean[20] != 0.0)
    plain = train_stepped("none", depth=2, steps=20)
    assert np.all(plain.gamma_mean == 1.0) and np.all(plain.beta_mean == 0.0)


def test_a_small_learning_rate_lowers_the_loss_at_every_step() -> None:
    for norm in NORMALIZATIONS:
        loss = train_stepped(norm, lr=0.003, depth=3, steps=50).loss
        assert np.all(np.diff(loss) < 0), norm


def test_a_divergence_ends_every_curve_with_nan_from_that_step() -> None:
    runs = {n: train_stepped(n, lr=0.5, depth=4, width=32, steps=100) for n in NORMALIZATIONS}
    assert runs["none"].diverged_at == 4 and runs["layernorm"].diverged_at == 4
    assert runs["batchnorm"].diverged_at == -1 and np.all(np.isfinite(runs["batchnorm"].loss))
    for norm in ("none", "layernorm"):
        run = runs[norm]
        assert np.all(np.isfinite(run.loss[:4])) and np.all(np.isnan(run.loss[4:]))
        assert np.all(np.isnan(run.out_std[4:])) and np.all(np.isfinite(run.out_std[:4]))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"norm": "rmsnorm"}, "norm must be one of"),
        ({"lr": 0.0}, "lr must be"),
        ({"lr": float("nan")}, "lr must be"),
        ({"depth": 9}, "depth must be"),
        ({"width": 2}, "width must be"),
        ({"steps": MAX_STEPS + 1}, "steps must be"),
        ({"seed": -1}, "seed must be"),
    ],
)
def test_bad_settings_say_which(kwargs: dict[str, object], message: str) -> None:
    args: dict[str, object] = {"norm": "none"} | kwargs
    with pytest.raises(ValueError, match=message):
        train_stepped(**args)  # type: ignore[arg-type]


def test_at_learning_rate_0_3_the_plain_network_dies_and_the_normalized_ones_learn() -> None:
    """Home's lesson link "Learning rate 0.3: a layer dies without normalization" and the page's
    Predict, then check say this."""
    runs = {n: train_stepped(n, lr=0.3, depth=4, width=32, steps=100) for n in NORMALIZATIONS}
    plain = runs["none"]
    assert plain.out_std[100, -1] == 0.0  # every ReLU of the last layer outputs 0 on every example
    assert plain.loss[100] == pytest.approx(0.5, rel=1e-12)  # the zero predictor's loss (y has variance 1)
    for norm in ("layernorm", "batchnorm"):  # and the page's question says their last layers keep a spread
        assert runs[norm].loss[100] < 0.05 and runs[norm].out_std[100, -1] > 0.1, norm


def test_gamma_off_and_beta_off_are_the_largest_moves_of_any_unit() -> None:
    run = train_stepped("layernorm", lr=0.1, depth=2, width=8, steps=20, seed=1)
    assert np.all(run.gamma_off[0] == 0.0) and np.all(run.beta_off[0] == 0.0)
    # a unit's move is at least the layer mean's move, and some unit has moved by step 20
    assert np.all(run.gamma_off >= np.abs(run.gamma_mean - 1.0))
    assert np.all(run.beta_off >= np.abs(run.beta_mean))
    assert np.all(run.gamma_off[20] > 0.0) and np.all(run.beta_off[20] > 0.0)
    plain = train_stepped("none", depth=2, steps=20)
    assert np.all(plain.gamma_off == 0.0) and np.all(plain.beta_off == 0.0)


def test_the_output_spread_moves_while_gamma_and_beta_barely_do() -> None:
    """LayerNorm, learning rate 0.001, 8 layers, seed 0: the last layer's spread moves by about 6 %
    while no γ leaves 1 by 3 % and no |β| reaches 0.02. γ and β do not set the output's statistics
    alone: the weights before the norm move them too."""
    drift = output_drift(train_stepped("layernorm", lr=0.001, depth=8, width=32, steps=300, seed=0), 300)
    assert drift is not None and drift.change is not None
    assert drift.change < -0.05
    assert drift.gamma_off < 0.03 and drift.beta_off < 0.02
    assert drift.change == (drift.end - drift.start) / drift.start


def test_output_drift_reads_the_curves_up_to_t_and_none_after_a_divergence() -> None:
    run = train_stepped("batchnorm", lr=0.1, depth=3, steps=40, seed=2)
    drift = output_drift(run, 25)
    assert drift is not None
    assert (drift.start, drift.end) == (run.out_std[0, -1], run.out_std[25, -1])
    assert drift.gamma_off == np.max(run.gamma_off[:26]) and drift.beta_off == np.max(run.beta_off[:26])
    zero = output_drift(run, 0)
    assert zero is not None and (zero.change, zero.gamma_off, zero.beta_off) == (0.0, 0.0, 0.0)
    diverged = train_stepped("none", lr=0.5, depth=4, width=32, steps=100)
    assert output_drift(diverged, diverged.diverged_at) is None
    assert output_drift(diverged, diverged.diverged_at - 1) is not None
    with pytest.raises(ValueError, match="t must be between 0 and 40"):
        output_drift(run, 41)
