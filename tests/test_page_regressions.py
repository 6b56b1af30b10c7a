"""Faults found by trying to break the pages, each pinned by a test."""

from __future__ import annotations

from pathlib import Path

from live_support import page_metrics
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[1] / "app.py")


def _open(page: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120).run()
    at.switch_page(page).run()
    assert not at.exception
    return at


def _typed(at: AppTest, text: str) -> None:
    at.selectbox(key="src").set_value("Type numbers").run()
    at.text_area(key="typed").input(text).run()
    assert not at.exception, [e.value for e in at.exception]


def test_variance_one_pass_overflow_is_said_not_shown_as_nan() -> None:
    at = _open("pages/2_variance.py")
    _typed(at, "1e20 2e20 3e20")
    shown = dict(page_metrics(at))  # st.metric and live readouts'
    assert shown["one-pass E[x²] − μ² in float32"] == "overflow"
    assert all("NaN" not in str(v) for v in shown.values()), shown


def test_variance_underflow_is_explained() -> None:
    at = _open("pages/2_variance.py")
    _typed(at, "1e-300 2e-300 3e-300")
    shown = dict(page_metrics(at))  # st.metric and live readouts'
    assert shown["σ² (÷d, population)"] == "0" and shown["σ = √σ²"] != "0"
    assert any("smaller than the smallest positive float64" in c.value for c in at.caption)


def test_depth_page_never_celebrates_exploding_gradients() -> None:
    at = _open("pages/8_depth_and_drift.py")
    at.slider(key="depth_layers").set_value(100).run()
    at.slider(key="depth_gain").set_value(3.0).run()
    at.selectbox(key="depth_act").set_value("relu").run()
    at.radio(key="depth_norm").set_value("batchnorm").run()
    assert not at.exception
    assert not at.success, [s.value for s in at.success]
    assert any("gradients exploded" in w.value for w in at.warning)


def test_inference_at_batch_size_one_claims_no_training_value() -> None:
    at = _open("pages/7_train_vs_inference.py")
    at.slider(key="tvi_n").set_value(1).run()
    at.segmented_control(key="tvi_mode").set_value("Inference").run()
    assert not at.exception
    text = " ".join(m.value for m in at.markdown)
    assert "(training)" not in text
    assert "a single example works" in text
