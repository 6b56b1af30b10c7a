"""AppTest for the "Why normalize" pages: every control moves, numbers follow, extremes stay readable."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator

import numpy as np
import pytest
import streamlit as st
from chart_specs import charts
from streamlit.testing.v1 import AppTest

from layernorm.labs.depth import DepthConfig, simulate_depth

DEPTH, LR, TF = "pages/8_depth_and_drift.py", "pages/9_learning_rate.py", "pages/10_inside_a_transformer.py"


@pytest.fixture(autouse=True)
def _fresh_cache() -> Iterator[None]:
    st.cache_data.clear()
    yield
    st.cache_data.clear()


def _open(page: str) -> AppTest:
    at = AppTest.from_file("../app.py", default_timeout=60)
    at.run()
    assert not at.exception
    at.switch_page(page).run()
    assert not at.exception
    return at


def _metrics(at: AppTest) -> list[str]:
    return [m.value for m in at.metric]


def _verdict(at: AppTest) -> str:
    return " ".join(e.value for e in [*at.error, *at.warning, *at.success])


def _chart(at: AppTest, i: int) -> dict:
    return json.loads(charts(at)[i].spec)


def _ys(trace: dict) -> np.ndarray:
    y = trace["y"]
    if isinstance(y, dict):
        return np.frombuffer(base64.b64decode(y["bdata"]), dtype=np.dtype(y["dtype"]))
    return np.asarray(y, dtype=float)


def _set(at: AppTest, kind: str, key: str, value: object) -> AppTest:
    getattr(at, kind)(key=key).set_value(value).run()
    assert not at.exception
    assert getattr(at, kind)(key=key).value == value  # the value really took
    return at


def test_depth_page_defaults_render_with_charts() -> None:
    at = _open(DEPTH)
    assert len(charts(at)) == 3
    assert at.metric[1].label == "std at layer 30"
    assert "Activations:" in _verdict(at)


def test_depth_extreme_says_exploded_in_words() -> None:
    at = _open(DEPTH)
    _set(at, "slider", "depth_layers", 100)
    _set(at, "slider", "depth_gain", 3.0)
    _set(at, "selectbox", "depth_act", "linear")
    assert "exploded" in at.error[0].value
    assert "gradients exploded" in at.error[0].value
    assert len(charts(at)) == 3  # charts still drawn, not blank
    std_trace = _chart(at, 0)["data"][0]
    assert np.all(np.isfinite(_ys(std_trace))) and _ys(std_trace).max() > 1e40


@pytest.mark.parametrize(
    ("kind", "key", "value"),
    [
        ("slider", "depth_layers", 60),
        ("slider", "depth_gain", 0.5),
        ("select_slider", "depth_width", 32),
        ("selectbox", "depth_act", "relu"),
        ("radio", "depth_norm", "batchnorm"),
        ("toggle", "depth_residual", True),
        ("number_input", "depth_seed", 7),
    ],
)
def test_every_depth_control_changes_the_numbers(kind: str, key: str, value: object) -> None:
    at = _open(DEPTH)
    before = (_metrics(at), _verdict(at))
    _set(at, kind, key, value)
    assert (_metrics(at), _verdict(at)) != before


def test_placement_changes_numbers_and_survives_a_page_switch() -> None:
    at = _open(DEPTH)
    _set(at, "toggle", "depth_residual", True)
    _set(at, "radio", "depth_norm", "layernorm")
    before = _metrics(at)
    _set(at, "radio", "depth_placement", "pre")
    assert _metrics(at) != before
    at.switch_page(TF).run()
    assert not at.exception
    assert at.radio(key="tf_placement").value == "pre"  # one shared choice, each page its own widget
    texts = [a["text"] for a in _chart(at, 3)["layout"]["annotations"]]
    assert any("pre-LN" in t for t in texts)


def test_post_ln_stream_std_does_not_print_as_an_exact_1() -> None:
    # post-LN divides by √(σ² + ε): the stream's std is 0.99999…, which three digits printed as "1"
    at = _open(DEPTH)
    _set(at, "toggle", "depth_residual", True)
    _set(at, "radio", "depth_norm", "layernorm")
    _set(at, "radio", "depth_placement", "post")
    res = simulate_depth(
        DepthConfig(
            n_layers=30, width=128, activation="tanh", residual=True, norm="layernorm", placement="post"
        )
    )
    assert 0.99999 < res.act_std[-1] < 1
    shown = _metrics(at)[1]
    assert shown != "1" and shown.startswith("0.99999")
    assert float(shown) == pytest.approx(res.act_std[-1], rel=1e-6)


def test_relu_gain_3_notice_covers_a_slow_explosion() -> None:
    # width 16, seed 10: ReLU at gain 3 grows 1.66× a layer and explodes at layer 19, past "9 to 15"
    at = _open(DEPTH)
    _set(at, "slider", "depth_gain", 3.0)
    _set(at, "selectbox", "depth_act", "relu")
    _set(at, "select_slider", "depth_width", 16)
    _set(at, "number_input", "depth_seed", 10)
    assert "exploded at layer 19" in at.error[0].value
    said = " ".join(m.value for m in at.markdown)
    assert "after about 9 to 15 layers" not in said and "2 to 3× per layer" not in said
    assert "explodes after about 11 to 20 layers" in said


def test_inspect_layer_view_and_compare() -> None:
    at = _open(DEPTH)
    _set(at, "slider", "depth_pick", 20)
    assert _chart(at, 2)["layout"]["title"]["text"].startswith("Activations at layer 20")
    _set(at, "radio", "depth_view", "Ridgeline")
    assert "up to layer 20" in _chart(at, 2)["layout"]["title"]["text"]
    assert len(_chart(at, 0)["data"]) > 1
    _set(at, "checkbox", "depth_compare", False)
    names = [t.get("name") for t in _chart(at, 0)["data"] if t.get("name")]
    assert names == ["no normalization (yours)"]


def test_inspect_beyond_the_stack_is_clamped_with_a_note() -> None:
    at = _open(DEPTH)
    _set(at, "slider", "depth_layers", 5)
    _set(at, "slider", "depth_pick", 50)
    assert _chart(at, 2)["layout"]["title"]["text"].startswith("Activations at layer 5")
    assert any("so layer 5 is shown" in c.value for c in at.caption)


def test_transformer_caption_gives_the_outliers_own_x_hat() -> None:
    # Layer 4 · after FFN: the largest |x| (feature 223, token ")") normalizes to −15.61; the 18.44 the
    # caption called "that feature's x̂" is feature 99 of another token
    at = _open(TF)
    _set(at, "selectbox", "tf_site", 10)
    caption = next(c.value for c in at.caption if c.value.startswith("At Layer 4 · after FFN"))
    assert "the largest |x| is 49.82 (feature 223, token ))" in caption
    assert "that entry's x̂ is −15.61; the site's largest |x̂|, elsewhere, is 18.44" in caption
    assert "that feature's x̂ is 18.44" not in caption
    assert "γ[223] = 0.309998 here" in caption  # float32 0.30999824, not an exact-looking 0.31


def test_transformer_dimension_chart_labels_222_5_not_223() -> None:
    at = _open(TF)  # site 2, Layer 0 · after FFN: feature 99 reaches 222.53, which "223" rounded to a whole
    notes = [a["text"] for c in charts(at) if c.key == "tf_dims" for a in c.figure["layout"]["annotations"]]
    assert "dim 99: 222.5" in notes and "dim 99: 223" not in notes


def test_transformer_notice_does_not_call_a_tiny_gamma_0() -> None:
    said = " ".join(m.value for m in _open(TF).markdown)
    assert "γ[223] is 0," not in said
    assert "at the final LayerNorm γ[223] is −4.8e−33, which all but switches feature 223 off" in said


SWEEP_CODE = ("run_sweep", "layer_norm_x_hat", "layer_norm_input_grad")


def test_learning_rate_page_default_sweep() -> None:
    at = _open(LR)
    assert _metrics(at) == ["0.00316", "0.1", "4"]
    hm = _chart(at, 0)["data"][0]
    assert hm["type"] == "heatmap" and hm["y"] == ["no normalization", "LayerNorm"]
    assert "✗" in hm["text"][0][-1]
    # the code shown is the code that trained: the sweep and the LayerNorm forward and backward it calls
    assert not at.code  # the code box is closed, and a closed box holds no code
    at.session_state["show_code"] = True  # the student opens it
    at.run()
    shown = [c.value for c in at.code]
    assert [next((c for c in shown if f"def {f}(" in c), None) is not None for f in SWEEP_CODE] == [True] * 3


@pytest.mark.parametrize(
    ("kind", "key", "value"),
    [
        ("select_slider", "lr_gain", 1.0),
        ("slider", "lr_depth", 4),
        ("select_slider", "lr_width", 16),
        ("select_slider", "lr_steps", 50),
        ("slider", "lr_seeds", 1),
    ],
)
def test_every_learning_rate_control_changes_the_sweep(kind: str, key: str, value: object) -> None:
    at = _open(LR)
    before = _chart(at, 0)["data"][0]["text"]
    _set(at, kind, key, value)
    assert _chart(at, 0)["data"][0]["text"] != before


def test_loss_curve_learning_rate_pick() -> None:
    at = _open(LR)
    _set(at, "select_slider", "lr_pick", 10.0)
    assert _chart(at, 1)["layout"]["title"]["text"] == "Training loss at learning rate 10"
    assert "6 of 6 runs diverged" in at.warning[0].value
    _set(at, "select_slider", "lr_pick", 0.001)
    assert not at.warning


def test_transformer_page_numbers() -> None:
    at = _open(TF)
    assert _metrics(at)[1] == "222.5" and _metrics(at)[2] == "dim 99"
    assert len(charts(at)) == 4


def test_transformer_controls() -> None:
    at = _open(TF)
    cap = at.caption[0].value
    _set(at, "selectbox", "tf_site", 10)
    assert at.caption[0].value != cap and "feature 223" in at.caption[0].value
    title = _chart(at, 2)["layout"]["title"]["text"]
    _set(at, "radio", "tf_param", "beta")
    assert (
        _chart(at, 2)["layout"]["title"]["text"] != title and "β" in _chart(at, 2)["layout"]["title"]["text"]
    )


@pytest.mark.parametrize("key", ["depth_q", "lr_q", "tf_q"])
def test_predict_then_reveal(key: str) -> None:
    page = {"depth_q": DEPTH, "lr_q": LR, "tf_q": TF}[key]
    at = _open(page)
    radio = at.radio(key=f"{key}_guess")
    radio.set_value(radio.options[0]).run()
    at.button(key=f"{key}_reveal").click().run()
    assert not at.exception
    assert at.success or at.warning
