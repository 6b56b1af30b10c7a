"""Backward passes against central finite differences, plus the identities they must obey."""

from __future__ import annotations

import numpy as np
import pytest

import layernorm as ln
from layernorm.backward import batch_norm_backward, layer_norm_backward, rms_norm_backward

H = 1e-5  # central difference step: truncation ~h^2, rounding ~1e-16/h, both far below 1e-6


def _numeric_grad(f, arr: np.ndarray, dy: np.ndarray) -> np.ndarray:
    """d/d arr of sum(dy * f(arr)), one entry at a time, central differences."""
    grad = np.zeros_like(arr)
    for idx in np.ndindex(arr.shape):
        plus, minus = arr.copy(), arr.copy()
        plus[idx] += H
        minus[idx] -= H
        grad[idx] = (np.sum(dy * f(plus)) - np.sum(dy * f(minus))) / (2 * H)
    return grad


def _rel_err(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.max(np.abs(a - b)) / max(np.max(np.abs(a)), np.max(np.abs(b))))


@pytest.fixture
def data() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(7)
    x = rng.normal(2.0, 3.0, size=(4, 6))
    gamma = rng.normal(1.0, 0.5, size=6)
    dy = rng.normal(size=(4, 6))
    return x, gamma, dy


def test_layer_norm_backward_matches_finite_differences(data) -> None:
    x, gamma, dy = data
    beta = np.linspace(-1, 1, 6)
    dx, dgamma, dbeta = layer_norm_backward(x, gamma, dy, eps=1e-5)
    assert _rel_err(dx, _numeric_grad(lambda a: ln.layer_norm(a, gamma, beta, eps=1e-5), x, dy)) < 1e-6
    assert _rel_err(dgamma, _numeric_grad(lambda g: ln.layer_norm(x, g, beta, eps=1e-5), gamma, dy)) < 1e-6
    assert _rel_err(dbeta, _numeric_grad(lambda b: ln.layer_norm(x, gamma, b, eps=1e-5), beta, dy)) < 1e-6


def test_rms_norm_backward_matches_finite_differences(data) -> None:
    x, gamma, dy = data
    dx, dgamma = rms_norm_backward(x, gamma, dy, eps=1e-5)
    assert _rel_err(dx, _numeric_grad(lambda a: ln.rms_norm(a, gamma, eps=1e-5), x, dy)) < 1e-6
    assert _rel_err(dgamma, _numeric_grad(lambda g: ln.rms_norm(x, g, eps=1e-5), gamma, dy)) < 1e-6


def test_batch_norm_backward_matches_finite_differences(data) -> None:
    x, gamma, dy = data
    beta = np.linspace(-1, 1, 6)
    zeros, ones = np.zeros(6), np.ones(6)

    def bn(a, g=gamma, b=beta):
        return ln.batch_norm_train(a, g, b, zeros, ones, eps=1e-5)[0]

    dx, dgamma, dbeta = batch_norm_backward(x, gamma, dy, eps=1e-5)
    assert _rel_err(dx, _numeric_grad(bn, x, dy)) < 1e-6
    assert _rel_err(dgamma, _numeric_grad(lambda g: bn(x, g=g), gamma, dy)) < 1e-6
    assert _rel_err(dbeta, _numeric_grad(lambda b: bn(x, b=b), beta, dy)) < 1e-6


def test_batch_norm_backward_3d_matches_finite_differences() -> None:
    rng = np.random.default_rng(3)
    x, dy = rng.normal(size=(3, 2, 4)), rng.normal(size=(3, 2, 4))
    dx, _, _ = batch_norm_backward(x, None, dy)
    num = _numeric_grad(lambda a: ln.batch_norm_train(a, None, None, np.zeros(2), np.ones(2))[0], x, dy)
    assert _rel_err(dx, num) < 1e-6


def test_layer_norm_dx_sums_to_zero_and_is_orthogonal_to_x_hat(data) -> None:
    x, gamma, dy = data
    dx, _, _ = layer_norm_backward(x, gamma, dy, eps=0.0)
    x_hat = ln.standardize(x, eps=0.0)
    np.testing.assert_allclose(dx.sum(axis=-1), 0.0, atol=1e-12)
    np.testing.assert_allclose(np.sum(dx * x_hat, axis=-1), 0.0, atol=1e-12)


def test_layer_norm_gradient_scales_inversely_with_input_scale(data) -> None:
    x, gamma, dy = data
    dx1, dg1, _ = layer_norm_backward(x, gamma, dy, eps=0.0)
    dx10, dg10, _ = layer_norm_backward(10.0 * x + 5.0, gamma, dy, eps=0.0)
    np.testing.assert_allclose(dx10, dx1 / 10.0, rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(dg10, dg1, rtol=1e-10)


def test_rms_dx_orthogonal_to_x(data) -> None:
    x, gamma, dy = data
    dx, _ = rms_norm_backward(x, gamma, dy, eps=0.0)
    np.testing.assert_allclose(np.sum(dx * x, axis=-1), 0.0, atol=1e-12)


def test_batch_norm_dx_sums_to_zero_over_batch(data) -> None:
    x, gamma, dy = data
    dx, _, dbeta = batch_norm_backward(x, gamma, dy)
    np.testing.assert_allclose(dx.sum(axis=0), 0.0, atol=1e-12)
    np.testing.assert_allclose(dbeta, dy.sum(axis=0), rtol=1e-15)


def test_batch_norm_backward_is_layer_norm_backward_transposed(data) -> None:
    x, _, dy = data
    dx_bn, _, _ = batch_norm_backward(x, None, dy)
    dx_ln, _, _ = layer_norm_backward(x.T, None, dy.T)
    np.testing.assert_allclose(dx_bn, dx_ln.T, rtol=1e-12, atol=1e-15)


def test_tiny_hand_case() -> None:
    # x = [1, 3]: mu 2, var 1, x_hat [-1, 1]; dy = [1, 0] -> g - <g> = [0.5, -0.5], <g x_hat> = -0.5
    dx, dgamma, dbeta = layer_norm_backward([1.0, 3.0], None, [1.0, 0.0], eps=0.0)
    np.testing.assert_allclose(dx, [0.0, 0.0], atol=1e-15)
    np.testing.assert_allclose(dgamma, [-1.0, 0.0])
    np.testing.assert_allclose(dbeta, [1.0, 0.0])


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: layer_norm_backward(np.ones((2, 3)), None, np.ones((2, 4))), r"dy has shape \(2, 4\)"),
        (lambda: layer_norm_backward(np.ones((2, 3)), np.ones(2), np.ones((2, 3))), r"gamma has shape"),
        (lambda: layer_norm_backward([1.0, np.nan], None, [1.0, 1.0]), "NaN or infinity"),
        (lambda: rms_norm_backward([1.0, 2.0], None, [1.0, np.inf]), "dy contains NaN"),
        (lambda: batch_norm_backward(np.ones((1, 3)), None, np.ones((1, 3))), "more than 1 value"),
        (lambda: batch_norm_backward(np.ones(3), None, np.ones(3)), r"\(N, C\)"),
        (lambda: layer_norm_backward([1.0, 2.0], None, [1.0, 1.0], eps=-1.0), "eps must be"),
    ],
)
def test_bad_input_is_refused_with_a_clear_message(call, match) -> None:
    with pytest.raises(ValueError, match=match):
        call()


def test_constant_row_without_eps_is_refused() -> None:
    with pytest.raises(ln.ZeroVarianceError):
        layer_norm_backward([2.0, 2.0, 2.0], None, [1.0, 0.0, 0.0], eps=0.0)


def test_the_training_backward_matches_finite_differences() -> None:
    """ln.layer_norm_input_grad, fed ln.layer_norm_x_hat's outputs, is d/dx of sum(dy * x_hat)."""
    rng = np.random.default_rng(11)
    x, dy = rng.normal(1.0, 2.0, size=(2, 3, 5)), rng.normal(size=(2, 3, 5))
    x_hat, std = ln.layer_norm_x_hat(x, eps=1e-5)
    assert std.shape == (2, 3, 1)
    dx = ln.layer_norm_input_grad(x_hat, std, dy)
    assert _rel_err(dx, _numeric_grad(lambda a: ln.layer_norm_x_hat(a, eps=1e-5)[0], x, dy)) < 1e-6
    np.testing.assert_allclose(dx.sum(axis=-1), 0.0, atol=1e-13)


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: ln.layer_norm_x_hat([1.0, 2.0]), "float64 array"),
        (lambda: ln.layer_norm_x_hat(np.arange(3)), "float64 array"),
        (lambda: ln.layer_norm_x_hat(np.float64(2.0) * np.ones(())), "float64 array"),
        (lambda: ln.layer_norm_x_hat(np.ones((2, 0))), "d = 0"),
        (lambda: ln.layer_norm_x_hat(np.array([1.0, np.nan])), "NaN or infinity"),
        (lambda: ln.layer_norm_x_hat(np.array([1.0, 2.0]), eps=-1.0), "eps must be"),
        (lambda: ln.layer_norm_input_grad(np.ones((2, 3)), np.ones((2, 1)), np.ones((3, 2))), "do not match"),
        (lambda: ln.layer_norm_input_grad(np.ones((2, 3)), np.ones(2), np.ones((2, 3))), "do not match"),
    ],
)
def test_the_training_paths_refuse_bad_input_with_a_clear_message(call, match) -> None:
    with pytest.raises(ValueError, match=match):
        call()


def test_the_training_forward_refuses_a_constant_row_without_eps() -> None:
    with pytest.raises(ln.ZeroVarianceError):
        ln.layer_norm_x_hat(np.array([[1.0, 2.0], [3.0, 3.0]]), eps=0.0)


def test_a_gradient_beyond_float64_is_refused_by_name() -> None:
    """Found by Hypothesis: a row whose spread is one subnormal step (std 2.6e-309) with eps = 0.

    The true dL/dx is -0.5 / 2.62e-309 = -1.9e308 and +1.9e308, beyond float64's 1.8e308: the core
    raises ResultRangeError naming dx (it returned -inf and +inf, as PyTorch does), with no
    RuntimeWarning; the other row alone still gives its gradient.
    """
    a = 2.5052104538e-293
    x = np.array([[1.0, -1.0, 0.0], [a, a, np.nextafter(a, 1.0)]])
    dy = np.array([[0.0, 1.0, 0.0], [0.0, 1.0, 0.0]])
    with pytest.raises(ln.ResultRangeError, match="layer_norm_backward: dx does not fit in a float64"):
        layer_norm_backward(x, None, dy, eps=0.0)
    with pytest.raises(ln.ResultRangeError, match="batch_norm_backward: dx does not fit in a float64"):
        batch_norm_backward(np.ascontiguousarray(x.T), None, np.ascontiguousarray(dy.T), eps=0.0)
    dx, _, _ = layer_norm_backward(x[:1], None, dy[:1], eps=0.0)
    np.testing.assert_allclose(dx[0], np.array([1, 1, -2]) / 6 / np.sqrt(2 / 3), rtol=0, atol=1e-15)
    steps = ln.layer_norm_steps(x, eps=0.0)
    with pytest.raises(ln.ResultRangeError, match="layer_norm_input_grad: the result does not fit"):
        ln.layer_norm_input_grad(steps.x_hat, steps.std[:, None], dy)
    with pytest.raises(ln.ResultRangeError, match="rms_norm_backward: dx does not fit"):
        rms_norm_backward(np.array([[5e-324, 0.0, 0.0]]), None, np.array([[1.0, 1.0, 0.0]]), eps=0.0)


# --- the gradient check a student runs (Gradients page) -------------------------------------------

STEPS = [float(f"1e-{k}") for k in range(1, 14)]


def test_the_check_s_backward_numbers_are_the_backward_pass_s() -> None:
    x, gamma = np.array([1.0, 2.5, -3.0, 4.0]), np.array([1.5, 0.5, 1.0, 2.0])
    g = np.array([0.3, -1.2, 0.7, 2.0])
    dx, dgamma, dbeta = layer_norm_backward(x, gamma, g, eps=1e-5)
    x_hat = ln.layer_norm_steps(x, gamma, eps=1e-5).x_hat
    for i in range(4):
        at = {p: ln.finite_difference_check(x, gamma, 0.1, g, eps=1e-5, parameter=p, index=i, steps=STEPS)
              for p in ("x", "gamma", "beta")}  # fmt: skip
        assert at["x"].analytic == dx[i]
        assert at["gamma"].analytic == dgamma[i] == g[i] * x_hat[i]  # one row: the sum is one product
        assert at["beta"].analytic == dbeta[i] == g[i]


def test_a_straight_line_has_no_curvature_error_and_x_has_a_best_step() -> None:
    """L is linear in γᵢ and βᵢ: at h = 0.1 only rounding separates the two. In xᵢ it curves: the
    largest and the smallest step are both worse than the best one, which lies between."""
    rng = np.random.default_rng(3)
    for d in (2, 5, 64):
        x, gamma, beta, g = (
            rng.normal(size=d),
            rng.normal(1, 0.3, size=d),
            rng.normal(size=d),
            rng.normal(size=d),
        )
        for p in ("gamma", "beta"):
            c = ln.finite_difference_check(x, gamma, beta, g, eps=1e-5, parameter=p, index=d - 1, steps=STEPS)
            loss = abs(float(np.dot(g, ln.layer_norm(x, gamma, beta, eps=1e-5)))) + 1.0
            assert c.errors[0] <= 8 * np.finfo(float).eps * loss / 0.1 * d, (d, p, c.errors[0])
        c = ln.finite_difference_check(x, gamma, beta, g, eps=1e-5, parameter="x", index=0, steps=STEPS)
        assert 0 < c.best < len(STEPS) - 1
        assert c.errors[c.best] < 1e-7 * max(1.0, abs(c.analytic))
        assert c.errors[0] > c.errors[c.best] and c.errors[-1] > c.errors[c.best]


def test_one_feature_is_a_constant_loss_in_x_and_gamma() -> None:
    """d = 1: x̂ = 0, y = β whatever x and γ are, so both derivatives are 0 and every nudge agrees."""
    for p in ("x", "gamma"):
        c = ln.finite_difference_check([3.0], 2.0, 0.5, [1.7], eps=1e-5, parameter=p, index=0, steps=STEPS)
        assert c.analytic == 0.0
        np.testing.assert_array_equal(c.numeric, np.zeros(len(STEPS)))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"parameter": "delta"}, "parameter must be one of"),
        ({"index": 4}, "index must be 0 … 3"),
        ({"index": -1}, "index must be 0 … 3"),
        ({"steps": [1e-3, 0.0]}, "steps must be positive finite"),
        ({"steps": [float("inf")]}, "steps must be positive finite"),
        ({"steps": []}, "steps must be positive finite"),
    ],
)
def test_the_check_says_what_is_wrong(kwargs: dict, message: str) -> None:
    args = {"parameter": "x", "index": 0, "steps": STEPS} | kwargs
    with pytest.raises(ValueError, match=message):
        ln.finite_difference_check([1.0, 2.0, 3.0, 4.0], None, None, [1.0, 0.0, 0.0, 0.0], **args)
