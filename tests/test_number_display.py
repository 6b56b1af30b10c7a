"""Numbers on screen through AppTest: never rounded into other numbers, rounding noise never shown as a value.

The rule (docs/ARCHITECTURE.md, "Numbers on screen"): every number has enough significant digits to be right
at the shown precision and to tell it apart from the values it is compared with (μ next to the x's,
σ² next to the ÷(d−1) value, a table's column), and a result that is 0 in exact arithmetic says
"0 (to rounding)" instead of printing float64's leftovers. Expected values come from the core
(``layernorm``); the digits from ``ui.text``'s helpers, which ``tests/test_ui_text.py`` checks.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
import streamlit as st
from apptest_support import ok
from chart_specs import charts
from live_support import live_readouts, live_tex
from streamlit.proto.Metric_pb2 import Metric
from streamlit.testing.v1 import AppTest

import layernorm as ln
from layernorm.labs import batch_effects
from layernorm.labs import running as R
from ui.text import TO_ROUNDING, ZERO_TO_ROUNDING, fmt, fmt_g

APP = str(Path(__file__).resolve().parents[1] / "app.py")
MEAN, VAR, STD, SS, FULL = (
    "pages/1_mean.py",
    "pages/2_variance.py",
    "pages/3_standardize.py",
    "pages/4_scale_shift.py",
    "pages/5_full_formula.py",
)
AXES, TVI = "pages/6_which_axis.py", "pages/7_train_vs_inference.py"
UNDO = "Undo for this vector: γ = σ, β = μ"
ISSUE = "40000, 40001, 40002, 40003"  # μ = 40001.5, which 4 significant digits turn into x₃ = 40002


@pytest.fixture(autouse=True)
def _clear_resources() -> Iterator[None]:
    st.cache_resource.clear()  # the axes/running pages keep tensors there; st.cache_data: conftest
    yield


def open_page(page: str, typed: str | None = None) -> AppTest:
    at = ok(AppTest.from_file(APP, default_timeout=60).run())
    if typed is not None:
        ok(at.selectbox(key="src").set_value("Type numbers").run())
        ok(at.text_area(key="typed").set_value(typed).run())
    return ok(at.switch_page(page).run())


def metric(at: AppTest, label: str) -> tuple[str, str | None]:
    """(value, help) of the metric whose label starts with ``label``."""
    m = metric_element(at, label)
    return m.value, m.proto.help or None


def metric_element(at: AppTest, label: str):  # type: ignore[no-untyped-def]
    for m in at.metric:
        if m.label.startswith(label):
            return m
    for live in (m for r in live_readouts(at) for m in r["metrics"]):  # a live readout draws its own
        if live["label"].startswith(label):
            arrow = {"up": Metric.MetricDirection.UP, "down": Metric.MetricDirection.DOWN}
            proto = Metric(help=live["help"] or "", color=Metric.MetricColor.GRAY,
                           direction=arrow.get(live["arrow"], Metric.MetricDirection.NONE))  # fmt: skip
            return SimpleNamespace(value=live["value"], delta=live["delta"] or "", proto=proto)
    raise AssertionError(f"no metric {label!r}: {[m.label for m in at.metric]}")


def says_zero_to_rounding(at: AppTest, label: str) -> str:
    """Assert the metric reads "0" with a grey, arrowless "to rounding" under it; return its tooltip."""
    m = metric_element(at, label)
    assert (m.value, m.delta) == ("0", TO_ROUNDING), (m.value, m.delta)
    assert m.proto.direction == Metric.MetricDirection.NONE and m.proto.color == Metric.MetricColor.GRAY
    assert m.proto.help
    return str(m.proto.help)


def latex(at: AppTest) -> list[str]:
    return live_tex(at) + [e.value for e in at.latex]


def annotations(at: AppTest, i: int) -> list[str]:
    spec = json.loads(charts(at)[i].spec)
    return [a.get("text", "") for a in spec["layout"].get("annotations", [])]


# --- the issue's example: μ of [40000, 40001, 40002, 40003] is 40001.5, not 40002 -------------------


def test_mean_page_shows_mu_as_40001_5() -> None:
    at = open_page(MEAN, ISSUE)
    assert metric(at, "μ (mean)")[0] == "40001.5"
    (formula,) = latex(at)
    assert formula.strip("$\n ").endswith(r"\left(40000 + 40001 + 40002 + 40003\right) = 40001.5")
    assert "μ = 40001.5" in annotations(at, 0)  # the dashed μ line on the chart says the same
    exact = metric_element(at, "mean of x − μ")
    assert (exact.value, exact.delta) == ("0", "")  # x − μ = ±0.5, ±1.5 exactly: a true 0, no note


@pytest.mark.parametrize(
    ("page", "shown"),
    [
        (VAR, r"(x_i - 40001.5)^2"),
        (STD, r"{40000 - 40001.5}"),
        (FULL, r"\right] - 40001.5}"),
    ],
)
def test_every_formula_with_mu_shows_40001_5(page: str, shown: str) -> None:
    at = open_page(page, ISSUE)
    assert any(shown in f for f in latex(at)), latex(at)
    assert not any("40002}" in f and "40001.5" not in f for f in latex(at))
    if page == FULL:
        assert metric(at, "μ")[0] == "40001.5"


def test_undo_shows_the_mean_of_y_as_mu() -> None:
    at = open_page(SS, ISSUE)
    ok(at.button(key="ss_undo").click().run())
    assert metric(at, "mean of y")[0] == "40001.5"  # y ≈ x again; its mean is μ, not one of the x's


# --- statistics next to the values they are compared with -----------------------------------------


@pytest.mark.parametrize(
    ("preset", "d", "seed"),
    [  # the first four printed σ² and ÷(d−1) alike with 4 digits (1.003 and 1.003, 100.3 and 100.3, …)
        ("standard normal", 2048, 0),
        ("scaled (σ = 10)", 2048, 0),
        ("one large outlier", 4096, 0),
        ("one-hot [1, 0, 0, 0]", 4096, 0),
        ("standard normal", 8, 0),
    ],
)
def test_variance_and_its_d_minus_1_version_never_look_alike(preset: str, d: int, seed: int) -> None:
    at = ok(AppTest.from_file(APP, default_timeout=60).run())
    ok(at.selectbox(key="preset").set_value(preset).run())
    ok(at.select_slider(key="d").set_value(d).run())
    ok(at.number_input(key="seed").set_value(seed).run())
    ok(at.switch_page(VAR).run())
    x = ln.make_preset(preset, d, seed)
    var, var_sample = float(ln.variance(x)), float(ln.variance(x, ddof=1))
    assert var != var_sample
    shown, shown_sample = metric(at, "σ² (÷d")[0], metric(at, "÷(d−1)")[0]
    assert shown != shown_sample
    for text, value in ((shown, var), (shown_sample, var_sample)):
        assert float(text.replace("−", "-")) == pytest.approx(
            value, rel=1e-3
        )  # (fmt's rounding: tests/test_ui_text.py)
    labels = [t for i in range(len(charts(at))) for t in annotations(at, i)]  # the input's chart is first
    assert f"σ² (÷d) = {shown}" in labels and f"÷(d−1) = {shown_sample}" in labels


def test_full_formula_table_columns_tell_different_values_apart() -> None:
    values = [1.0000001, 1.0000002, 40000.0, 40003.0]  # %.6g would show 1 and 1, 40000 and 40000.0 twice
    at = open_page(FULL, ", ".join(map(str, values)))
    s = ln.layer_norm_steps(np.array(values))
    columns = json.loads(at.dataframe[0].proto.columns)
    formats = {k: v["type_config"]["format"] for k, v in columns.items() if "type_config" in v}
    for col, vals in [("x", s.x), ("x − μ", s.centered), ("x̂", s.x_hat), ("y", s.y)]:
        digits = int(formats[col].removeprefix("%.").removesuffix("g"))
        assert len({fmt_g(v, digits) for v in vals}) == len(set(vals.tolist())), (col, formats[col])
    mu_digits = int(formats["μ"].removeprefix("%.").removesuffix("g"))
    assert fmt_g(float(s.mu), mu_digits) not in {fmt_g(v, mu_digits) for v in s.x}


def test_which_axis_table_and_identities() -> None:
    at = open_page(AXES)
    table = at.dataframe[0].value
    pooled = [v for v in table["x̂ of your cell"] if v != "undefined"]
    assert len(set(pooled)) == len(pooled)  # five lenses, five different numbers on screen
    identities = at.dataframe[1].value
    # the identities hold exactly in exact arithmetic: what is left is said to be rounding, not printed
    assert set(identities["largest |difference|"]) <= {"0", ZERO_TO_ROUNDING}


def test_running_statistics_never_look_like_the_true_ones_they_differ_from() -> None:
    at = open_page(TVI)
    ok(at.select_slider(key="tvi_auto_steps").set_value(200).run())
    ok(at.button(key="tvi_auto").click().run())
    pop = R.make_population(8)
    state = at.session_state["tvi_history"][-1].after
    (caption,) = [c.value for c in at.caption if c.value.startswith("The true values for feature 0")]
    true_mean, true_var = caption.removesuffix(".").split("mean ")[1].split(", variance ")
    if state.running_mean[0] != pop.mean[0]:
        assert metric(at, "running mean, feature 0")[0] != true_mean
    if state.running_var[0] != pop.var[0]:
        assert metric(at, "running variance, feature 0")[0] != true_var


# --- rounding noise is not a value -------------------------------------------------------------------


def test_training_vs_inference_layernorm_output_mean_is_zero_to_rounding() -> None:
    at = open_page(TVI)
    state, population = R.initial_state(8), R.make_population(8)
    res = batch_effects.shift_test(state, population, shift=2.0, scale=1.0, n=128, seed=0)
    assert res.ln_mean != 0 and abs(res.ln_mean) < 1e-15  # the issue's 3.469e−18
    help_text = says_zero_to_rounding(at, "LayerNorm output mean")
    assert fmt(res.ln_mean) in help_text  # the tiny value is still there to read, in the tooltip
    bars = json.loads(charts(at)[-1].spec)["data"]
    assert bars[1]["text"][0] == ZERO_TO_ROUNDING  # the chart's bar label says the same
    assert "e−18" not in " ".join(m.value for m in at.metric)


def test_mean_page_mean_of_x_minus_mu_is_zero_to_rounding() -> None:
    at = open_page(MEAN, "0.1, 0.2, 0.3")
    s = ln.layer_norm_steps([0.1, 0.2, 0.3])
    leftover = float(ln.mean(s.centered))
    assert leftover != 0 and abs(leftover) < 1e-16  # float64 leaves a few 1e−18
    assert fmt(leftover) in says_zero_to_rounding(at, "mean of x − μ")


def test_standardize_mean_of_x_hat_is_zero_to_rounding() -> None:
    at = open_page(STD, "0.1, 0.2, 0.3")
    assert float(ln.mean(ln.standardize([0.1, 0.2, 0.3]))) != 0
    says_zero_to_rounding(at, "mean of x̂")


def test_undo_on_full_formula_shows_beta_as_mu_not_as_an_x() -> None:
    """γ = σ, β = μ: the formula's β is 40001.5 (the helper's report: it printed 40002, like x₃)."""
    at = open_page(FULL, ISSUE)
    ok(at.radio(key="affine_mode").set_value(UNDO).run())
    (y_line,) = [f for f in latex(at) if r"_{\beta}" in f]
    assert r"\left[40001.5,\ 40001.5" in y_line, y_line
    assert "40002,\\ 40002" not in y_line
