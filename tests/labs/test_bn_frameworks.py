"""layernorm.labs.bn_frameworks: what each framework's running variance stores, and F.batch_norm's default.

The expected values were checked against PyTorch 2.13 (CPU, float32 and float64) outside the project:
``BatchNorm1d(1, momentum=1.0)`` on [[1], [2], [3], [4]] stores running_var 1.6666666 (float32);
``F.batch_norm`` on [[2], [6]] with running statistics 0 and 1 gives [1.99998999, 5.99996996] and
leaves them alone, and with ``training=True`` gives ±0.99999875 and moves them to 0.4 and 1.7.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import layernorm as ln
from layernorm.labs import bn_frameworks as B

X4 = [[1.0], [2.0], [3.0], [4.0]]
FULL_BATCH = {"PyTorch": 1.0, "TensorFlow fused": 0.0, "Keras 3": 0.0, "Flax": 0.0}  # weight 1 on the batch


@pytest.mark.parametrize(
    ("name", "stored"), [("PyTorch", 5 / 3), ("TensorFlow fused", 5 / 3), ("Keras 3", 1.25), ("Flax", 1.25)]
)
def test_a_batch_given_full_weight_stores_the_frameworks_variance(name: str, stored: float) -> None:
    u = B.running_update(X4, [0.0], [1.0], framework_name=name, momentum=FULL_BATCH[name])
    assert u.batch_weight == 1.0 and u.n == 4
    assert u.new_running_var[0] == pytest.approx(stored, rel=1e-15, abs=0)
    assert round(float(u.new_running_var[0]), 4) == (1.6667 if B.FRAMEWORKS[name].unbiased else 1.25)
    if name == "PyTorch":  # PyTorch 2.13 in float32 stores 1.66666663, float32's nearest to 5/3
        assert np.float32(u.new_running_var[0]) == np.float32(1.66666663)
    assert u.new_running_mean[0] == 2.5
    assert (u.batch_var[0], u.batch_var_unbiased[0]) == (1.25, pytest.approx(5 / 3, rel=1e-15))
    assert u.blended_var[0] == (u.batch_var_unbiased if B.FRAMEWORKS[name].unbiased else u.batch_var)[0]


def test_pytorch_stores_what_batch_norm_train_stores() -> None:
    _, rm, rv = ln.batch_norm_train(X4, None, None, [0.0], [1.0], momentum=0.1)
    u = B.running_update(X4, [0.0], [1.0], framework_name="PyTorch", momentum=0.1)
    assert np.array_equal(u.new_running_mean, rm) and np.array_equal(u.new_running_var, rv)
    assert u.new_running_var[0] == pytest.approx(0.9 + 0.1 * 5 / 3, rel=1e-15)  # 1.0666…


@pytest.mark.parametrize("name", ["TensorFlow fused", "Keras 3", "Flax"])
def test_keras_momentum_weights_the_old_value(name: str) -> None:
    u = B.running_update(X4, [0.0], [1.0], framework_name=name, momentum=0.99)  # their default
    batch = 5 / 3 if B.FRAMEWORKS[name].unbiased else 1.25
    assert u.new_running_var[0] == pytest.approx(0.99 * 1 + (1 - 0.99) * batch, rel=1e-15)
    assert u.batch_weight == pytest.approx(0.01, rel=1e-13)
    kept = B.running_update(X4, [0.0], [1.0], framework_name=name, momentum=1.0)
    assert (kept.new_running_mean[0], kept.new_running_var[0], kept.batch_weight) == (0.0, 1.0, 0.0)


def test_the_same_momentum_means_opposite_things() -> None:
    torch = B.running_update(X4, [0.0], [1.0], framework_name="PyTorch", momentum=1.0)
    keras = B.running_update(X4, [0.0], [1.0], framework_name="Keras 3", momentum=1.0)
    assert torch.new_running_var[0] == pytest.approx(5 / 3) and keras.new_running_var[0] == 1.0


@pytest.mark.parametrize(("name", "m"), [("PyTorch", 1.0), ("Keras 3", 0.0), ("Flax", 0.0)])
def test_at_the_same_weight_only_the_variance_blended_in_differs(name: str, m: float) -> None:
    rows = B.running_updates(X4, [0.0], [1.0], framework_name=name, momentum=m)
    assert list(rows) == ["PyTorch", "TensorFlow fused", "Keras 3", "Flax"]
    assert [r.momentum for r in rows.values()] == [1.0, 0.0, 0.0, 0.0]
    assert [(r.batch_weight, r.old_weight) for r in rows.values()] == [(1.0, 0.0)] * 4
    stored = [r.new_running_var[0] for r in rows.values()]
    np.testing.assert_allclose(stored, [5 / 3, 5 / 3, 1.25, 1.25], rtol=1e-15, atol=0)
    assert [round(float(v), 4) for v in stored] == [1.6667, 1.6667, 1.25, 1.25]


def test_running_updates_at_pytorchs_default() -> None:
    rows = B.running_updates(X4, [0.0], [1.0], framework_name="PyTorch", momentum=0.1)
    assert rows["Keras 3"].momentum == 0.9 and rows["Keras 3"].batch_weight == pytest.approx(0.1, rel=1e-15)
    assert rows["PyTorch"].new_running_var[0] == pytest.approx(0.9 + 0.1 * 5 / 3, rel=1e-15)
    assert rows["Flax"].new_running_var[0] == pytest.approx(0.9 + 0.1 * 1.25, rel=1e-15)
    with pytest.raises(ValueError, match="momentum must be between 0 and 1"):
        B.running_updates(X4, [0.0], [1.0], framework_name="Flax", momentum=-0.1)


def test_defaults_and_spelling() -> None:
    assert [f.default_momentum for f in B.FRAMEWORKS.values()] == [0.1, 0.99, 0.99, 0.99]
    assert [f.momentum_weights_batch for f in B.FRAMEWORKS.values()] == [True, False, False, False]
    with pytest.raises(ValueError, match="framework must be one of PyTorch, TensorFlow fused"):
        B.framework("JAX")


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.floats(-1e3, 1e3), min_size=2, max_size=6),
    st.floats(0, 1),
    st.sampled_from(list(B.FRAMEWORKS)),
)
def test_the_update_is_a_blend_of_old_and_batch(values: list[float], m: float, name: str) -> None:
    x = np.array(values)[:, None]
    u = B.running_update(x, [0.5], [2.0], framework_name=name, momentum=m)
    w = u.batch_weight
    assert w == (m if name == "PyTorch" else 1 - m)
    expected = (1 - w) * 2.0 + w * u.blended_var[0]
    assert u.new_running_var[0] == pytest.approx(expected, rel=1e-12, abs=1e-12)
    lo, hi = sorted((2.0, float(u.blended_var[0])))
    assert lo - 1e-9 * hi <= u.new_running_var[0] <= hi * (1 + 1e-12)  # between old and batch


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"x": [[1.0]]}, "Expected more than 1 value per channel"),
        ({"x": [1.0, 2.0]}, "BatchNorm expects x of shape"),
        ({"x": np.ones((2, 1, 3))}, r"shape \(N, C\)"),
        ({"momentum": 1.5}, "momentum must be between 0 and 1"),
        ({"momentum": math.nan}, "momentum must be between 0 and 1"),
        ({"running_var": [-1.0]}, "running_var must be >= 0"),
        ({"running_mean": [0.0, 0.0]}, "running_mean"),
        ({"framework_name": "Caffe"}, "framework must be one of"),
    ],
)
def test_running_update_refuses_bad_input(kwargs: dict[str, object], message: str) -> None:
    args: dict[str, object] = {
        "x": X4, "running_mean": [0.0], "running_var": [1.0], "framework_name": "PyTorch", "momentum": 0.1
    }  # fmt: skip
    with pytest.raises(ValueError, match=message):
        B.running_update(**{**args, **kwargs})  # type: ignore[arg-type]


# --- F.batch_norm ---------------------------------------------------------------------------------
X2 = [[2.0], [6.0]]


def test_functional_batch_norm_defaults_to_inference() -> None:
    call = B.functional_batch_norm(X2, [0.0], [1.0])
    assert call.training is False and call.moved is False
    exact = [2 / math.sqrt(1 + 1e-5), 6 / math.sqrt(1 + 1e-5)]  # 1.9999900000749995, 5.999970000224998
    np.testing.assert_allclose(call.y[:, 0], exact, rtol=1e-12, atol=0)
    np.testing.assert_allclose(call.y[:, 0], [1.9999900000749995, 5.999970000224998], rtol=1e-12, atol=0)
    np.testing.assert_allclose(call.y[:, 0], [1.99999, 5.99997], rtol=0, atol=5e-6)  # as the task rounds
    np.testing.assert_allclose(call.y[:, 0], [1.99998999, 5.99996996], rtol=0, atol=5e-8)  # torch float32
    assert (call.running_mean[0], call.running_var[0]) == (0.0, 1.0)


def test_functional_batch_norm_training_true_normalizes_with_the_batch_and_moves_the_statistics() -> None:
    call = B.functional_batch_norm(X2, [0.0], [1.0], training=True)
    assert call.training is True and call.moved is True
    exact = 2 / math.sqrt(4 + 1e-5)  # 0.9999987500023437: x − μ = ±2, σ² = 4 (÷n)
    np.testing.assert_allclose(call.y[:, 0], [-exact, exact], rtol=1e-12, atol=0)
    np.testing.assert_allclose(call.y[:, 0], [-0.99999875, 0.99999875], rtol=0, atol=5e-9)
    assert call.running_mean[0] == pytest.approx(0.4, rel=1e-12)  # 0.9·0 + 0.1·4
    assert call.running_var[0] == pytest.approx(1.7, rel=1e-12)  # 0.9·1 + 0.1·8 (÷(n−1) = 8)


def test_functional_batch_norm_matches_the_two_modes_and_leaves_its_inputs() -> None:
    rm, rv = np.array([0.0]), np.array([1.0])
    off = B.functional_batch_norm(X2, rm, rv)
    assert np.array_equal(off.y, ln.batch_norm_eval(X2, None, None, rm, rv))
    on = B.functional_batch_norm(X2, rm, rv, training=True, momentum=0.5, eps=0.0)
    y, new_rm, new_rv = ln.batch_norm_train(X2, None, None, rm, rv, momentum=0.5, eps=0.0)
    assert np.array_equal(on.y, y) and np.array_equal(on.running_mean, new_rm)
    assert np.array_equal(on.running_var, new_rv)
    assert (rm[0], rv[0]) == (0.0, 1.0)  # the caller's arrays are not changed in place
    still = B.functional_batch_norm(X2, rm, rv, training=True, momentum=0.0)
    assert still.moved is False  # momentum 0 in training: the statistics stay


def test_functional_batch_norm_refuses_bad_input() -> None:
    with pytest.raises(ValueError, match="Expected more than 1 value per channel"):
        B.functional_batch_norm([[2.0]], [0.0], [1.0], training=True)
    assert B.functional_batch_norm([[2.0]], [0.0], [1.0]).y[0, 0] == pytest.approx(2 / math.sqrt(1 + 1e-5))
    with pytest.raises(ValueError, match="running_var must be >= 0"):
        B.functional_batch_norm(X2, [0.0], [-2.0])
    with pytest.raises(ValueError, match="momentum"):
        B.functional_batch_norm(X2, [0.0], [1.0], training=True, momentum=2.0)
    with pytest.raises(ValueError, match="running_mean must hold real numbers"):
        B.functional_batch_norm(X2, ["a"], [1.0])
