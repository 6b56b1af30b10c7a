"""Page 'Gradients through LayerNorm' through AppTest: every control, the extremes, the core's numbers."""

from __future__ import annotations

import json
from functools import partial

import numpy as np
import pandas as pd
import pytest
from apptest_support import (
    APP,
    answer_and_reveal,
    at_both_eps_ends,
    ok,
    open_with_sidebar,
    trace,
    type_numbers,
)
from apptest_support import plotly_array as _arr
from chart_specs import charts
from live_support import live_metric_elements
from streamlit.testing.v1 import AppTest

import layernorm as ln
from ui.settings import AFFINE_MODES
from ui.text import ROUNDING_K, digits_to_separate, fmt, fmt_zero, tex_num

PAGE = "pages/15_gradients.py"
EPS = 1e-5
DEFAULT_X = ln.make_preset("standard normal", 8, 0)
open_page = partial(open_with_sidebar, PAGE)


def metric(at: AppTest, label: str) -> str:
    """A metric's value: an st.metric, or one of the spread's live readout (ui.live.gradients)."""
    return next(str(m.value) for m in [*at.metric, *live_metric_elements(at)] if m.label == label)


def heatmap(at: AppTest) -> np.ndarray | None:
    for chart in charts(at):
        for tr in json.loads(chart.spec)["data"]:
            if tr.get("type") == "heatmap":
                return _arr(tr["z"])
    return None


def texts(at: AppTest) -> str:
    parts = [e.value for e in at.markdown] + [e.value for e in at.caption] + [e.value for e in at.latex]
    parts += [e.value for e in at.info] + [e.value for e in at.warning] + [e.value for e in at.error]
    return "\n".join(str(p) for p in parts)


def random_g(seed: int, d: int) -> np.ndarray:
    return np.random.default_rng([15, seed]).standard_normal(d)


DX = "dx = ∂L/∂x  (their sum)"


def test_default_numbers_are_the_core_s() -> None:
    at = open_page()
    g = random_g(0, 8)
    terms = ln.layer_norm_backward_terms(DEFAULT_X, None, g, eps=EPS)
    k = ROUNDING_K + 8
    assert metric(at, "Σᵢ ∂L/∂xᵢ") == fmt_zero(terms.dx_sum, terms.magnitude, k=k)
    assert metric(at, "Σᵢ ∂L/∂xᵢ") in ("0", "0 (to rounding)")
    shown, exact = metric(at, "∂L/∂x · x̂"), metric(at, "ε/σ̂³ · (g⊙γ)·x̂  (exact value)")
    assert shown == exact == fmt(terms.dx_dot_x_hat_expected)  # equal to rounding: printed alike
    np.testing.assert_array_equal(_arr(trace(at, DX)["y"]), terms.dx)
    assert np.max(np.abs(terms.dx)) > 0.1  # g is not x (different random streams): a real gradient
    np.testing.assert_array_equal(heatmap(at), ln.layer_norm_jacobian(DEFAULT_X, np.ones(8), eps=EPS))
    assert metric(at, "largest |row sum|") in ("0", "0 (to rounding)")
    assert metric(at, "largest |J − Jᵀ|") in ("0", "0 (to rounding)")
    curve = ln.layer_norm_jacobian_norm_vs_eps(DEFAULT_X, np.logspace(-12, 0, 49))
    np.testing.assert_array_equal(_arr(trace(at, "your vector")["y"]), curve.norm)


def test_upstream_choices() -> None:
    at = open_page()
    at.radio(key="grad_kind").set_value("All ones")
    ok(at.run())
    dx = _arr(trace(at, DX)["y"])
    np.testing.assert_array_equal(dx, ln.layer_norm_backward_terms(DEFAULT_X, None, np.ones(8), eps=EPS).dx)
    assert np.max(np.abs(dx)) < 1e-14  # L = sum(y) does not depend on x
    at.radio(key="grad_kind").set_value("One-hot")
    ok(at.run())
    at.number_input(key="grad_k").set_value(3)
    ok(at.run())
    jac = ln.layer_norm_jacobian(DEFAULT_X, eps=EPS)
    np.testing.assert_allclose(_arr(trace(at, DX)["y"]), jac[2], rtol=0, atol=1e-15)
    at.number_input(key="grad_k").set_value(50)  # beyond d = 8: clamped, and said
    ok(at.run())
    assert "sits at k = 8" in texts(at)
    np.testing.assert_allclose(_arr(trace(at, DX)["y"]), jac[7], rtol=0, atol=1e-15)
    at.radio(key="grad_kind").set_value("Random (seeded)")
    ok(at.run())
    at.number_input(key="grad_seed").set_value(9999)
    ok(at.run())
    expected = ln.layer_norm_backward_terms(DEFAULT_X, None, random_g(9999, 8), eps=EPS).dx
    np.testing.assert_array_equal(_arr(trace(at, DX)["y"]), expected)


def test_feature_arithmetic() -> None:
    at = open_page()
    at.number_input(key="grad_feature").set_value(8)
    ok(at.run())
    terms = ln.layer_norm_backward_terms(DEFAULT_X, None, random_g(0, 8), eps=EPS)
    assert r"\partial x_{8}" in texts(at)
    assert rf"= {tex_num(terms.dx[7], 6)}" in texts(at)


@pytest.mark.parametrize("d", [2, 16, 24])
def test_sizes(d: int) -> None:
    at = open_page(d=d)
    jac = heatmap(at)
    if d <= 16:
        assert jac is not None and jac.shape == (d, d)
        np.testing.assert_array_equal(
            jac, ln.layer_norm_jacobian(ln.make_preset("standard normal", d, 0), eps=EPS)
        )
    else:
        assert jac is None and "too many to read" in texts(at) and "d ≤ 16" in texts(at)
    if d == 2:
        facts = ln.layer_norm_jacobian_facts(ln.make_preset("standard normal", 2, 0), eps=EPS)
        k = digits_to_separate(facts.x_hat, 4, against=[-1.0, 1.0])
        assert f"d = 2: x̂ = ({fmt(facts.x_hat[0], k)}, {fmt(facts.x_hat[1], k)})" in texts(at)


def test_d2_x_hat_is_not_printed_as_plus_minus_one() -> None:
    # x = (1, 2): x̂ = ±0.5/√(0.25 + 1e-5) = ±0.99998, which four digits print as ±1
    at = type_numbers(open_page(), "1 2")
    assert "d = 2: x̂ = (−0.99998, 0.99998) and" in texts(at)
    assert r"\hat\sigma = 0.50001," in texts(at)  # √(0.25 + 1e-5), not 0.5


def test_large_d_leaves_the_user_curve_out() -> None:
    at = open_page(d=384)
    assert "left out of the curve" in texts(at)
    assert heatmap(at) is None


def test_constant_vector_and_eps_extremes() -> None:
    at = open_page(preset="constant")
    assert "Your vector is constant" in texts(at)
    for eps in at_both_eps_ends(at):
        jac = ln.layer_norm_jacobian(np.full(8, 3.0), eps=eps)
        np.testing.assert_array_equal(heatmap(at), jac)
        assert metric(at, "ceiling 1/√ε") == fmt(1 / np.sqrt(eps))


@pytest.mark.parametrize("spread", [1e-8, 1.0])
def test_spread_slider(spread: float) -> None:
    at = open_page()
    at.select_slider(key="grad_spread").set_value(spread)
    ok(at.run())
    near = 3.0 + spread * ln.make_preset("standard normal", 8, seed=1)
    now = ln.layer_norm_jacobian_norm_vs_eps(near, [EPS, 0.0])
    assert metric(at, "largest stretch at your ε") == fmt(float(now.norm[0]))
    assert metric(at, "without ε (ε = 0)") == fmt(float(now.norm[1]))


def test_per_feature_gamma_breaks_symmetry() -> None:
    at = AppTest.from_file(APP, default_timeout=60)
    ok(at.run())
    gamma = ["0.5", "1", "2", "1", "1", "3", "1", "1"]
    at.session_state["affine_tables"] = {8: pd.DataFrame({"γ": gamma, "β": ["0"] * 8}, dtype=object)}
    at.radio(key="affine_mode").set_value(AFFINE_MODES[1])
    ok(at.run())
    ok(at.switch_page(PAGE).run())
    facts = ln.layer_norm_jacobian_facts(DEFAULT_X, np.array(gamma, dtype=float), eps=EPS)
    np.testing.assert_array_equal(heatmap(at), facts.jacobian)
    assert metric(at, "largest |J − Jᵀ|") == fmt_zero(facts.asymmetry, facts.rounding_scale, k=ROUNDING_K + 8)
    assert facts.asymmetry > 0.1 and "no longer symmetric" in texts(at)
    assert metric(at, "Σᵢ ∂L/∂xᵢ") in ("0", "0 (to rounding)")  # still: rows of J sum to 0 for any γ


def test_predict_then_reveal() -> None:
    at = answer_and_reveal(open_page(), "grad_q", "Zero everywhere")
    assert at.success and "Right" in at.success[0].value


CHECK_STEPS = [float(f"1e-{k}") for k in range(13, 0, -1)]  # as the page offers them


@pytest.mark.parametrize(
    ("what", "symbol", "i", "h"), [("x", "x", 1, 1e-5), ("gamma", "γ", 3, 1e-13), ("beta", "β", 8, 0.1)]
)
def test_the_gradient_check_shows_the_core_s_numbers(what: str, symbol: str, i: int, h: float) -> None:
    at = open_page()
    ok(at.radio(key="grad_check_of").set_value(what).run())
    ok(at.number_input(key="grad_check_i").set_value(i).run())
    ok(at.selectbox(key="grad_check_h").set_value(h).run())
    g = random_g(0, 8)
    check = ln.finite_difference_check(
        DEFAULT_X, None, None, g, eps=EPS, parameter=what, index=i - 1, steps=CHECK_STEPS
    )
    k = CHECK_STEPS.index(h)
    sub = "₁₂₃₄₅₆₇₈"[i - 1]
    step = f"{h:.0e}".replace("e-0", "e−").replace("e-", "e−")
    assert metric(at, f"backward pass ∂L/∂{symbol}{sub}") == fmt(check.analytic, 15)
    assert metric(at, f"finite difference, h = {step}") == fmt(float(check.numeric[k]), 15)
    assert metric(at, "|difference|") == fmt(float(check.errors[k]), 2)
    errors = _arr(trace(at, "|difference|")["y"])
    np.testing.assert_array_equal(errors, np.where(check.errors > 0, check.errors, np.nan))
    _, dgamma, dbeta = ln.layer_norm_backward(DEFAULT_X, None, g, eps=EPS)
    line = next(str(e.value).strip("$\n") for e in at.latex if r"\partial \gamma_" in str(e.value))
    assert f"= {tex_num(float(dgamma[i - 1]))}," in line and line.endswith(
        f"= {tex_num(float(dbeta[i - 1]))}"
    )
    said = texts(at)
    if check.errors.min() > 0:
        best = f"{CHECK_STEPS[check.best]:.0e}".replace("e-0", "e−").replace("e-", "e−")
        assert f"agree best at h = {best} (|difference| {fmt(float(check.errors[check.best]), 2)})" in said
    else:
        assert "agree exactly at h = " in said
    assert ("L is a straight line in" in said) is (what != "x")
    assert not at.exception and not at.error


def test_the_gradient_check_keeps_its_feature_within_d() -> None:
    at = open_page(d=4)
    ok(at.number_input(key="grad_check_i").set_value(9).run())
    x = ln.make_preset("standard normal", 4, 0)
    check = ln.finite_difference_check(
        x, None, None, random_g(0, 4), eps=EPS, parameter="x", index=3, steps=CHECK_STEPS
    )
    assert metric(at, "backward pass ∂L/∂x₄") == fmt(check.analytic, 15)


def test_the_check_with_gamma_zero_says_l_does_not_move() -> None:
    # γ = 0: y = β for every x, so L is one number at every xᵢ ± h and both sides are exactly 0. The
    # sentence about the step's curvature and rounding growing like 1/h described nothing on screen.
    at = open_page(gamma=0.0)
    g = random_g(0, 8)
    check = ln.finite_difference_check(
        DEFAULT_X, np.zeros(8), None, g, eps=EPS, parameter="x", index=0, steps=CHECK_STEPS
    )
    assert check.analytic == 0 and not np.any(check.numeric)
    said = texts(at)
    assert (
        "Here the two agree exactly at every step h (so the log chart has no point to draw): L does not "
        "change when xᵢ moves (∂L/∂xᵢ = 0" in said
    )
    assert "off in two ways" not in said and "grows like 1/h" not in said


def test_the_check_of_an_unread_gamma_says_l_does_not_move() -> None:
    # One-hot at k = 2: L = y₂, which γ₁ never reaches (∂L/∂γ₁ = g₁·x̂₁ = 0)
    at = open_page()
    ok(at.radio(key="grad_kind").set_value("One-hot").run())
    ok(at.number_input(key="grad_k").set_value(2).run())
    ok(at.radio(key="grad_check_of").set_value("gamma").run())
    said = texts(at)
    assert "L does not change when γᵢ moves (∂L/∂γᵢ = 0" in said
    assert "what separates the two is rounding" not in said


def test_a_constant_vector_with_gamma_zero_has_a_zero_jacobian() -> None:
    at = type_numbers(open_page(gamma=0.0), "5 5 5 5")
    np.testing.assert_array_equal(heatmap(at), np.zeros((4, 4)))
    said = texts(at)
    assert "J = diag(γ)(I − 11ᵀ/d)/√ε, which is 0 here because γ = 0" in said
    assert "only ε keeps them finite" not in said


def test_one_feature_has_a_zero_jacobian_for_any_gamma() -> None:
    at = type_numbers(open_page(), "7")
    np.testing.assert_array_equal(heatmap(at), np.zeros((1, 1)))
    assert "With one feature x̂ = 0 for every x, so J = 0" in texts(at)
    assert "only ε keeps them finite" not in texts(at)
