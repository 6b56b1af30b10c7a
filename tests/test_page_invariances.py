"""Page 'Invariances and geometry' through AppTest: every control, the extremes, numbers equal the core's."""

from __future__ import annotations

import json
from functools import partial
from typing import Any

import numpy as np
import pytest
from apptest_support import answer_and_reveal, at_both_eps_ends, ok, open_with_sidebar, trace
from apptest_support import open_page as open_link
from apptest_support import plotly_array as _arr
from chart_specs import charts
from live_support import live_metrics, live_tex
from streamlit.testing.v1 import AppTest

import layernorm as ln
from layernorm.labs import geometry as geo
from ui import charts_geometry as cg
from ui.text import fmt_zero

PAGE = "pages/14_invariances.py"
EPS = 1e-5
DEFAULT_X = ln.make_preset("standard normal", 8, 0)
open_page = partial(open_with_sidebar, PAGE)


def metric(at: AppTest, label: str) -> str:
    """A metric's value: section 1's are drawn by its live readouts (ui.live), any other by st.metric."""
    shown = live_metrics(at) + [(m.label, str(m.value)) for m in at.metric]
    return next(value for name, value in shown if name == label)


def figures(at: AppTest) -> list[dict[str, Any]]:
    return [json.loads(c.spec) for c in charts(at)]


def texts(at: AppTest) -> str:
    parts = [e.value for e in at.markdown] + [e.value for e in at.caption] + [e.value for e in at.latex]
    parts += live_tex(at)  # section 1's formulas, drawn by its live readouts
    parts += [e.value for e in at.info] + [e.value for e in at.warning] + [e.value for e in at.error]
    return "\n".join(str(p) for p in parts)


def test_default_numbers_are_the_core_s() -> None:
    at = open_page()
    chk = geo.invariance_check(DEFAULT_X, 2.0, 1.0, eps=EPS)
    scale = np.concatenate([chk.ln_x, chk.ln_moved])
    assert metric(at, "LayerNorm moved by") == fmt_zero(chk.ln_gap, scale)
    assert metric(at, "LayerNorm + its flip") == fmt_zero(chk.ln_flip_gap, scale)
    assert metric(at, "RMSNorm moved by") == fmt_zero(chk.rms_gap, np.concatenate([chk.rms_x, chk.rms_moved]))
    curve = geo.invariance_curve(DEFAULT_X, np.logspace(-6, 6, 97), shift=1.0, eps=EPS)
    np.testing.assert_array_equal(_arr(trace(at, "RMSNorm, b = 1")["y"]), curve.rms_gap)
    np.testing.assert_array_equal(_arr(trace(at, "float64 rounding")["y"]), curve.rounding)
    assert "cannot be drawn" in texts(at)  # d = 8: the sidebar vector is not in the pictures


@pytest.mark.parametrize("c", [-100.0, -1.0, -0.001, 0.0, 1e-6, 1.0, 1e6])
def test_every_scale_renders_and_reports(c: float) -> None:
    at = open_page()
    at.select_slider(key="inv_c").set_value(c)
    ok(at.run())
    assert at.select_slider(key="inv_c").value == c
    chk = geo.invariance_check(DEFAULT_X, c, 1.0, eps=EPS)
    scale = np.concatenate([chk.ln_x, chk.ln_moved])
    assert metric(at, "LayerNorm moved by") == fmt_zero(chk.ln_gap, scale)
    assert metric(at, "LayerNorm + its flip") == fmt_zero(chk.ln_flip_gap, scale)
    if c == 0:
        assert "turns every input into the constant vector" in texts(at)
    if c < 0:
        assert "mirrors the vector" in texts(at)
    if c == -1.0:  # LN(−x + b) = −LN(x) exactly in exact arithmetic
        assert metric(at, "LayerNorm + its flip") in ("0", "0 (to rounding)")
    if c == 1.0:
        assert metric(at, "LayerNorm moved by") in ("0", "0 (to rounding)")  # x + 1 only rounds


@pytest.mark.parametrize("b", [-10.0, 0.0, 10.0])
def test_shift_slider(b: float) -> None:
    at = open_page()
    at.slider(key="inv_b").set_value(b)
    ok(at.run())
    chk = geo.invariance_check(DEFAULT_X, 2.0, b, eps=EPS)
    assert metric(at, "RMSNorm moved by") == fmt_zero(chk.rms_gap, np.concatenate([chk.rms_x, chk.rms_moved]))


def test_huge_inputs_times_the_largest_c() -> None:
    # The sidebar keeps |x| below 1e150, so c·x (c up to 1e6) stays in float64's range; the core
    # refuses an overflow with a message (tests/test_geometry.py) in case that limit ever moves.
    x = np.array([1e149, -1e149, 5.0])
    at = open_page(src="Type numbers", typed="1e149, -1e149, 5")
    at.select_slider(key="inv_c").set_value(1e6)
    ok(at.run())
    assert not at.error
    chk = geo.invariance_check(x, 1e6, 1.0, eps=EPS)
    assert metric(at, "LayerNorm moved by") == fmt_zero(chk.ln_gap, np.concatenate([chk.ln_x, chk.ln_moved]))


def test_constant_vector_and_eps_extremes() -> None:
    at = open_page(preset="constant")
    assert "Your vector is constant" in texts(at)
    for eps in at_both_eps_ends(at):
        assert f"ε = {eps:.0e}" in texts(at)


def test_zero_gamma_collapses_to_beta() -> None:
    at = open_page(gamma=0.0, beta=0.5)
    assert "Your γ is 0" in texts(at)
    assert metric(at, "y moved by (your γ, β)") == "0"


def test_d3_highlights_the_user_vector_and_cameras() -> None:
    at = open_page(d=3)
    x = ln.make_preset("standard normal", 3, 0)
    user = trace(at, "your x̂")
    got = np.array([_arr(user[a])[0] for a in "xyz"])
    np.testing.assert_array_equal(got, ln.layer_norm(x, eps=EPS))
    assert "cannot be drawn" not in texts(at)
    measured, expected = geo.x_hat_norm_squared(x, eps=EPS)
    assert "2.99" in texts(at)  # ‖x̂‖² just under d = 3
    for view, eye in cg.CAMERAS.items():
        at.radio(key="geo_view").set_value(view)
        ok(at.run())
        scene = next(f["layout"]["scene"] for f in figures(at) if "scene" in f["layout"])
        assert scene["camera"]["eye"] == eye
    assert float(measured) == pytest.approx(float(expected), rel=1e-14)


def test_gamma_beta_sliders_move_the_y_cloud() -> None:
    at = open_page()
    at.slider(key="geo_gamma1").set_value(0.0)
    at.slider(key="geo_beta1").set_value(1.5)
    ok(at.run())
    y = _arr(trace(at, "y = γ⊙x̂ + β")["x"])  # first coordinate of every point
    np.testing.assert_array_equal(y, np.full(300, 1.5))


def test_d2_surprise_and_the_user_point() -> None:
    at = open_page(src="Type numbers", typed="5, 7")
    at.radio(key="geo_d").set_value(2)
    ok(at.run())
    xh = trace(at, "x̂ (all inputs)")
    cloud = geo.normalized_cloud(2, 300, seed=0, eps=EPS)
    np.testing.assert_array_equal(_arr(xh["x"]), cloud.x_hat[:, 0])
    assert np.all(np.abs(cloud.x_hat) <= 1.0)  # on ±(1, −1), or pulled inside by ε
    user = trace(at, "your x̂")
    np.testing.assert_array_equal(
        [_arr(user["x"])[0], _arr(user["y"])[0]], ln.layer_norm([5.0, 7.0], eps=EPS)
    )
    assert "The d = 2 surprise" in texts(at)
    at.radio(key="geo_d").set_value(3)
    ok(at.run())
    assert "choose d = 2 above" in texts(at)


def test_predict_then_reveal() -> None:
    at = answer_and_reveal(open_page(), "inv_q", "Both on (−1, 1)")
    assert at.success and "Right" in at.success[0].value


def test_near_1e16_adding_b_moves_layernorm_and_the_notice_says_when() -> None:
    # Stored 2 apart, 1e16 + 2 + 1 rounds up to 1e16 + 4 while 1e16 + 1 rounds down: x + b is another
    # vector, and 'LayerNorm moved by' at c = 1 is far from 0
    typed = "1e16 10000000000000002 10000000000000004 10000000000000008"
    at = open_link(PAGE, src="Type numbers", typed=typed, inv_c="1", inv_b="1")
    x = np.array([1e16, 1e16 + 2, 1e16 + 4, 1e16 + 8])
    chk = geo.invariance_check(x, 1.0, 1.0, eps=EPS)
    assert metric(at, "LayerNorm moved by") == fmt_zero(chk.ln_gap, np.concatenate([chk.ln_x, chk.ln_moved]))
    assert chk.ln_gap > 0.5
    said = texts(at)
    assert (
        "With c = 1 and any b, 'LayerNorm moved by' is 0 to rounding as long as float64 holds x + b" in said
    )
    assert "near 1e16" in said


def test_at_eps_1_the_three_views_do_not_say_just_inside() -> None:
    # ε = 1 on standard normal inputs: some ‖x̂‖² are far below 3, the circle's
    at = open_page(eps=1.0)
    low, high = geo.normalized_cloud(3, 300, seed=0, eps=1.0).norm_squared_range
    assert low < 0.001 and high < 2.5
    said = texts(at)
    assert "sit on (or, by ε, just inside) the green circle" not in said
    assert (
        "on the green circle where it meets the sphere of radius √3 while ε ≪ their spread, and inside"
        in said
    )
