"""The sentences of Estimators and ε, Precision, Invariances and Gradients against the core's numbers.

Each sentence that speaks of the numbers on screen either holds for every value the controls and
links allow, or is computed from them and says when it holds: the controls are driven to their
extremes and each such sentence is checked against the core.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from apptest_support import open_page, page_text
from live_support import live_metric_elements, live_tex
from streamlit.testing.v1 import AppTest

import layernorm as ln
from layernorm.labs import geometry as geo
from ui.text import digits_to_separate, fmt, tex_num

MUCH_SMALLER = 0.01  # the pages' "ε ≪ σ²": ε/(σ² + ε) at most this


def open_link(page: str, **params: str) -> AppTest:
    return open_page(f"pages/{page}.py", **params)


def metric(at: AppTest, label: str) -> str:
    """A metric's value: an st.metric or a live readout's (Gradients' identities are live: ui.live)."""
    return next(str(m.value) for m in [*at.metric, *live_metric_elements(at)] if m.label == label)


# --- the core's new numbers ------------------------------------------------------------------------


@pytest.mark.parametrize("x", [[2.0, 2.001], [5.0, 7.0], [3.0, 3.0], [-1e6, 4.0]])
@pytest.mark.parametrize("gamma", [-1.5, [0.5, 3.0], 0.0])
@pytest.mark.parametrize("eps", [1e-12, 1e-3, 1.0])
def test_the_d2_jacobian_is_a_scaled_projection(x: list[float], gamma: object, eps: float) -> None:
    facts = ln.layer_norm_jacobian_facts(x, gamma, eps=eps)
    g = np.broadcast_to(np.asarray(gamma, dtype=float), (2,))
    closed = np.diag(g) * facts.eps_over_std3 @ (np.eye(2) - 0.5)
    np.testing.assert_allclose(facts.jacobian, closed, rtol=1e-9, atol=1e-12 * facts.rounding_scale)
    noise = 1e-12 * facts.rounding_scale  # J's entries come from terms of this size that cancel
    np.testing.assert_allclose(
        facts.spectral_norm, np.sqrt(np.mean(g**2)) * facts.eps_over_std3, rtol=1e-9, atol=noise
    )
    np.testing.assert_allclose(facts.eps_share, 1 - np.sum(facts.x_hat**2) / 2, atol=1e-15)


@pytest.mark.parametrize("eps", [1e-12, 1e-5, 1.0])
def test_dx_keeps_the_eps_share_of_a_push_along_x_hat(eps: float) -> None:
    x = ln.make_preset("standard normal", 8, 3) * 1e-3
    g = np.random.default_rng(7).standard_normal(8)
    t = ln.layer_norm_backward_terms(x, None, g, eps=eps)
    u = t.x_hat / np.linalg.norm(t.x_hat)
    np.testing.assert_allclose(t.dx @ u, t.eps_share * ((g - g.mean()) / t.std) @ u, rtol=1e-9)
    assert t.dx_dot_x_hat_gap == abs(t.dx_dot_x_hat - t.dx_dot_x_hat_expected)


def test_a_changed_input_need_not_lose_x_hat() -> None:
    sw = ln.precision_sweep([0.0, 256.0], [1.0, 2.0, 1e8], eps=1e-5)  # bfloat16: offset 1 rounds away
    assert sw.first_input_change("bfloat16") == 1.0
    assert sw.first_input_loss("bfloat16") is not None and sw.first_input_loss("bfloat16") >= 1.0
    assert sw.first_input_loss("float64") is None


# --- Gradients -------------------------------------------------------------------------------------

GRAD = "15_gradients"
LINK = {"src": "Type numbers", "typed": "2,2.001", "eps": "1e-03", "gamma": "-1.5", "grad_kind": "All ones"}


def test_the_issue_link_says_what_x_hat_and_the_jacobian_are() -> None:
    said = page_text(open_link(GRAD, **LINK))
    assert (
        "d = 2: x̂ = (−0.01581, 0.01581) and J = diag(γ)·ε/σ̂³·(I − 11ᵀ/2) exactly, with ε/σ̂³ = 31.61: "
        "the share ε/(σ² + ε) = 0.9998 of diag(γ)/σ̂·(I − 11ᵀ/2). Its largest stretch is |γ|·ε/σ̂³ = 47.42. "
        "Here ε is not ≪ σ², so x̂ lies inside ±(1, −1) and y still moves with x." in said
    )
    assert "x̂ is always ±(1, −1)" not in said and "With d = 2 the Jacobian is almost 0" not in said


D2_CASES = [
    {"src": "Preset", "d": "2", "eps": "1e-12"},
    {"src": "Preset", "d": "2", "eps": "1", "gamma": "3"},
    {"src": "Preset", "preset": "constant", "d": "2", "eps": "1e-12", "gamma": "-3"},
    {"src": "Type numbers", "typed": "5,7", "eps": "1e-12", "gamma": "0"},
    {"src": "Type numbers", "typed": "2,2.001", "eps": "2e-07"},
]


@pytest.mark.parametrize("params", D2_CASES)
def test_the_d2_note_is_the_core_s_at_the_extremes(params: dict[str, str]) -> None:
    at = open_link(GRAD, **params)
    said = page_text(at)
    eps = float(params["eps"])
    gamma = float(params.get("gamma", "1"))
    vec = (
        ln.make_preset(params.get("preset", "standard normal"), 2, 0)
        if params["src"] == "Preset"
        else ln.parse_vector_text(params["typed"])
    )
    facts = ln.layer_norm_jacobian_facts(vec, gamma, eps=eps)
    note = next(line for line in said.splitlines() if line.startswith("- d = 2:"))
    k = digits_to_separate(facts.x_hat, 4, against=[-1.0, 1.0])  # 0.99999999997, never a look-alike of 1
    assert f"x̂ = ({fmt(facts.x_hat[0], k)}, {fmt(facts.x_hat[1], k)})" in note
    assert f"ε/σ̂³ = {fmt(facts.eps_over_std3)}" in note
    assert f"ε/(σ² + ε) = {fmt(facts.eps_share)}" in note
    assert f"|γ|·ε/σ̂³ = {fmt(facts.spectral_norm)}." in note
    assert fmt(abs(gamma) * facts.eps_over_std3) == fmt(facts.spectral_norm)  # the formula is the number
    small = facts.eps_share <= MUCH_SMALLER
    assert ("Here ε ≪ σ², so x̂ is almost ±(1, −1)" in note) == small
    assert ("Here ε is not ≪ σ²" in note) == (not small)
    assert ("Your vector is constant" in said) == (float(ln.variance(vec)) == 0)


@pytest.mark.parametrize("eps", ["1e-12", "2e-12", "1"])
def test_the_dot_product_and_its_exact_value_show_the_same_digits(eps: str) -> None:
    """At ε = 1e-12 the two metrics read −2.162e−12 and −2.163e−12 beside the word "exact": the same
    number up to float64 rounding, shown as if they disagreed."""
    at = open_link(GRAD, eps=eps)
    dot, exact = metric(at, "∂L/∂x · x̂"), metric(at, "ε/σ̂³ · (g⊙γ)·x̂  (exact value)")
    assert dot == exact
    x = ln.make_preset("standard normal", 8, 0)
    g = np.random.default_rng([15, 0]).standard_normal(8)
    t = ln.layer_norm_backward_terms(x, None, g, eps=float(eps))
    assert any(exact == fmt(t.dx_dot_x_hat_expected, n) for n in range(1, 5))
    share = f"Here ε/(σ² + ε) = {fmt(t.eps_share)}: the share of a push along x̂ that ∂L/∂x keeps "
    assert share in page_text(at)
    assert ("(ε ≪ σ², so next to nothing)" in page_text(at)) == (t.eps_share <= MUCH_SMALLER)


def test_gradients_fixed_sentences_hold_at_every_value() -> None:
    said = page_text(open_link(GRAD))
    assert "(nearly) never pushes x" not in said
    assert "The second is *not* exactly zero" not in said
    at = open_link(GRAD)
    helps = [str(m.proto.help) for m in at.metric] + [m.help for m in live_metric_elements(at)]
    assert "0 only when ε = 0" not in " ".join(helps)
    assert "stops growing at 1/√ε, far below 1/σ" not in said


# --- Precision -------------------------------------------------------------------------------------

PREC = "13_precision"
ABOUT = re.compile(r"(?<!numbers of )about (−?[\d,.]+(?:e[+−]\d+)?)")  # an offset, not a value


def _significant(text: str) -> int:
    mantissa = text.replace(",", "").replace("−", "").split("e")[0].lstrip("0.").replace(".", "")
    return len(mantissa.rstrip("0")) if "." not in text.split("e")[0] else len(mantissa)


@pytest.mark.parametrize(
    "params",
    [{}, {"src": "Preset", "preset": "constant", "eps": "1e-12"}, {"d": "2", "eps": "1"}, {"d": "4096"}],
)
def test_precision_estimates_are_rounded_to_what_the_grid_tells(params: dict[str, str]) -> None:
    """The sweep's offsets are 8 a decade: "about 13335" or "about 74989" claimed five digits."""
    at = open_link(PREC, **params)
    said = page_text(at)
    found = [m for m in ABOUT.findall(said) if not m.endswith(".")]
    assert found
    for number in found:
        if "e" in number or "," in number or float(number.replace("−", "-")) >= 100:
            assert _significant(number) <= 2, number


def test_precision_default_names_the_float16_overflow_as_an_estimate() -> None:
    said = page_text(open_link(PREC))
    assert "At the sweep's offset of about 75,000 the input itself is already above float16's largest" in said
    assert "74989" not in said and "13335" not in said


def test_precision_table_note_holds_for_a_constant_vector() -> None:
    said = page_text(open_link(PREC, src="Preset", preset="constant"))
    assert "x̂ is about ±1" not in said
    assert "root mean square of at most 1" in said
    assert "a narrower spread would break it" not in said


# --- Invariances -----------------------------------------------------------------------------------

INV = "14_invariances"


@pytest.mark.parametrize("c", ["1e-06", "-100", "1e+06", "0"])
def test_invariances_numbers_at_the_extremes_of_c(c: str) -> None:
    at = open_link(INV, inv_c=c, inv_b="-10", eps="1")
    said = "\n".join([page_text(at), *live_tex(at)])  # section 1's formulas are live readouts (ui.live)
    x = ln.make_preset("standard normal", 8, 0)
    chk = geo.invariance_check(x, float(c), -10.0, np.ones(8), np.zeros(8), eps=1.0)
    if float(c) != 0:
        assert rf"= {tex_num(chk.effective_eps)}" in said
    assert "the normalized vector does not change: only" not in said
    assert "perfect circle" not in said and "0 to rounding or tiny" not in said
    assert ("c = 0 turns every input" in said) == (float(c) == 0)


# --- Estimators and ε ------------------------------------------------------------------------------


def test_estimators_notices_are_the_core_s_numbers() -> None:
    said = page_text(open_link("12_estimators_and_eps"))
    one_hot = np.array([1.0, 0.0, 0.0, 0.0])
    tut = ln.compare_recipe(one_hot, ddof=1, eps_inside=False, eps=1e-5, standard_eps=1e-5)
    k = digits_to_separate([tut.standard[0], tut.variant[0]], 4, against=[3**0.5, 1.5])  # 1.49997, not 1.5
    assert (
        f"x̂₁ = {fmt(tut.standard[0], k)} (√3 but for ε), the tutorial recipe {fmt(tut.variant[0], k)} (1.5"
        in said
    )
    pair = np.array([0.09484422, 0.16441762])
    keras = ln.compare_recipe(pair, ddof=0, eps_inside=True, eps=1e-3, standard_eps=1e-5)
    assert f"±{fmt(abs(keras.variant[0]), 2)} instead of ±1" in said
    assert f"PyTorch's 1e-5 and they return to ≈ ±{fmt(abs(keras.standard[0]), 3)}" in said
    assert (
        f"σ (≈ {fmt(np.sqrt(ln.variance(pair)), 2)})" in said
        and f"σ² (≈ {fmt(ln.variance(pair), 2)})" in said
    )
    assert f"√(767/768) ≈ {fmt(np.sqrt(767 / 768), 5)}" in said
    assert "On the sidebar's d = 768 vectors" not in said
