"""The live controls of the numerics labs (Precision's offset, Gradients' spread): every frame they hold
is what the page rendered for that value before it had a live control.

The expected texts are written here the way the pages wrote them (formula, metrics), from the core and
``ui.text``; the frames must equal them for every value offered, the released page must show its
value's frame, and a link must still open the value it names.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest
from apptest_support import open_page
from live_support import live_data, live_readouts
from streamlit.testing.v1 import AppTest

import layernorm as ln
from layernorm.labs import precision as P
from ui.live import gradients as lg
from ui.live import precision as lp
from ui.text import digits_to_separate, fmt, tex_num
from ui.widgets import SPREADS as WIDGET_SPREADS


def ok(at: AppTest) -> AppTest:
    assert not at.exception, [e.value for e in at.exception]
    return at


def slider(at: AppTest, key: str) -> dict[str, Any]:
    """The data of the page's live slider ``key`` (the sidebar may draw live sliders of its own)."""
    (data,) = [d for d in live_data(at) if d["link"]["key"] == key]
    return data


def readout(at: AppTest, key: str) -> dict[str, Any]:
    """What the live readout ``key`` shows now."""
    (shown,) = [r for r in live_readouts(at) if r["key"] == key]
    return shown


# --- Precision: the offset ----------------------------------------------------------------------------

PREC = "pages/13_precision.py"
PREC_DIGITS = {"float16": 4, "bfloat16": 3, "float32": 9, "float64": 17}
PREC_INPUTS = {
    "default": ln.make_preset("standard normal", 8, 0),
    "40000 case": np.array([40000.0, 40001.0, 40002.0, 40003.0]),
    "constant d=8": ln.make_preset("constant", 8, 0),
    "normal d=768": ln.make_preset("standard normal", 768, 3),
}


def precision_tex(x: np.ndarray, eps: float, dtype: str, offset: float) -> str:
    """The formula Precision drew with st.latex for this offset and dtype (its own code, written out)."""
    shifted = x + offset
    one = ln.layer_norm_in_dtype(shifted, dtype=dtype, method="one_pass", eps=eps)
    exact_var = float(ln.variance(shifted))
    shown = [float(one.mean_sq[0]), float(one.mu_sq[0]), float(one.var[0]), exact_var]
    n = digits_to_separate(shown, PREC_DIGITS[dtype])
    if not np.isfinite(one.var[0]):
        one_tex = r"\text{undefined}"
    else:
        one_tex = rf"{tex_num(shown[0], n)} - {tex_num(shown[1], n)} = {tex_num(shown[2], n)}"
    text = "0" if offset == 0 else f"{offset:.0e}".replace("e+0", "e")
    return (
        rf"\text{{{dtype}, offset {text}:}}\quad \sigma^2_{{\text{{one-pass}}}} = {one_tex}"
        rf"\qquad \sigma^2_{{\text{{exact}}}} = {tex_num(exact_var, n)}"
    )


def test_precision_offers_the_offsets_the_select_slider_offered() -> None:
    assert lp.OFFSETS == [0.0, *(m * 10.0**k for k in range(8) for m in (1, 2, 5)), 1e8]
    assert [lp.offset_text(o) for o in (0.0, 1.0, 2e5, 1e8)] == ["0", "1e0", "2e5", "1e8"]


@pytest.mark.parametrize("dtype", list(P.DTYPES))
@pytest.mark.parametrize("name", list(PREC_INPUTS))
def test_every_precision_frame_is_the_formula_the_page_drew(name: str, dtype: str) -> None:
    x = PREC_INPUTS[name]
    sent = lp.frames.__wrapped__(x, 1e-5, dtype)  # type: ignore[attr-defined]  # without the cache
    assert sent["values"] == lp.OFFSETS
    assert sent["labels"] == [lp.offset_text(o) for o in lp.OFFSETS]  # as the select slider showed them
    for offset, f in zip(lp.OFFSETS, sent["frames"], strict=True):  # type: ignore[call-overload]
        (r,) = f["readouts"]
        assert r == {"key": lp.FORMULA, "tex": precision_tex(x, 1e-5, dtype, offset), "metrics": []}
        assert f["charts"] == []  # its chart marks the offset with a vertical line: drawn at rest only
    assert json.loads(json.dumps(sent)) == sent


def test_precision_frames_say_undefined_where_the_one_pass_variance_is() -> None:
    """float16 at an offset of 1e8: the input overflows, and the formula says so in one word."""
    sent = lp.frames.__wrapped__(PREC_INPUTS["default"], 1e-5, "float16")  # type: ignore[attr-defined]
    assert r"\text{undefined}" in sent["frames"][-1]["readouts"][0]["tex"]  # type: ignore[index]


@pytest.mark.parametrize(("offset", "dtype"), [(0.0, "float32"), (2e5, "float16"), (1e8, "bfloat16")])
def test_precision_page_shows_the_frame_of_its_offset(offset: float, dtype: str) -> None:
    at = open_page(PREC)
    ok(at.radio(key="prec_dtype").set_value(dtype).run())
    ok(at.select_slider(key="prec_offset").set_value(offset).run())
    data = slider(at, "prec_offset")
    assert data["index"] == lp.OFFSETS.index(offset)
    assert data["link"] == {
        "key": "prec_offset",
        "urls": [lp.offset_text(o) for o in lp.OFFSETS],
        "default": "1e4",
    }
    shown = readout(at, lp.FORMULA)
    x = at.session_state["lab_input"].x
    assert shown["tex"] == precision_tex(x, 1e-5, dtype, offset)
    assert sum("at this offset:" in m.value for m in at.markdown) == 1  # the sentences stay under it


@pytest.mark.parametrize(("link", "offset"), [("2e5", 2e5), ("1e+08", 1e8), ("0", 0.0), ("3e5", 2e5)])
def test_a_precision_link_opens_its_offset(link: str, offset: float) -> None:
    at = open_page(PREC, prec_offset=link, prec_dtype="float16")
    assert at.select_slider(key="prec_offset").value == offset
    data = slider(at, "prec_offset")
    assert data["index"] == lp.OFFSETS.index(offset)
    shown = readout(at, lp.FORMULA)
    assert shown["tex"] == precision_tex(at.session_state["lab_input"].x, 1e-5, "float16", offset)


# --- Gradients: the spread of the nearly constant vector ------------------------------------------------

GRAD = "pages/15_gradients.py"
SPREADS = [10.0**k for k in range(-8, 1)]


def gradients_metrics(eps: float, spread: float) -> list[dict[str, object]]:
    """The three metrics Gradients drew with st.metric under its ε curve (its own code, written out)."""
    near = ln.make_near_constant(8, 3.0, spread, seed=1)
    now = ln.layer_norm_jacobian_norm_vs_eps(near, np.array((eps, 0.0)))
    shown = [
        ("largest stretch at your ε", fmt(float(now.norm[0])), "‖J‖ of the nearly constant vector"),
        ("without ε (ε = 0)", fmt(float(now.norm[1])), "1/σ: what the gradient would be"),
        ("ceiling 1/√ε", fmt(float(now.ceiling[0])), None),
    ]
    return [{"label": a, "value": v, "delta": None, "arrow": "off", "help": h} for a, v, h in shown]


def test_gradients_offers_the_spreads_the_select_slider_offered() -> None:
    assert WIDGET_SPREADS == SPREADS  # the spreads near_constant_control offers (Standardize's too)
    assert [lg.spread_text(s) for s in SPREADS] == [f"1e-0{k}" for k in range(8, 0, -1)] + ["1e+00"]


@pytest.mark.parametrize("eps", [1e-12, 1e-5, 1.0])
def test_every_gradients_frame_is_the_metrics_the_page_drew(eps: float) -> None:
    sent = lg.frames.__wrapped__(eps)  # type: ignore[attr-defined]  # without the cache
    assert sent["values"] == SPREADS
    assert sent["labels"] == [f"{s:.0e}" for s in SPREADS]  # as the select slider showed them
    seen = set()
    for spread, f in zip(SPREADS, sent["frames"], strict=True):  # type: ignore[call-overload]
        (r,) = f["readouts"]
        assert r == {"key": lg.METRICS, "tex": None, "metrics": gradients_metrics(eps, spread)}
        assert f["charts"] == []  # the ε curve's legend names the spread: drawn at rest only
        seen.add(r["metrics"][0]["value"])
    assert len(seen) > 1  # the spread moves the largest stretch
    assert json.loads(json.dumps(sent)) == sent


@pytest.mark.parametrize("spread", [1e-8, 1e-4, 1.0])
def test_gradients_page_shows_the_frame_of_its_spread(spread: float) -> None:
    at = open_page(GRAD)
    ok(at.select_slider(key="grad_spread").set_value(spread).run())
    data = slider(at, "grad_spread")
    assert data["index"] == SPREADS.index(spread)
    assert data["link"] == {"key": "grad_spread", "urls": [f"{s:.0e}" for s in SPREADS], "default": "1e-04"}
    shown = readout(at, lg.METRICS)
    assert shown["metrics"] == gradients_metrics(1e-5, spread)
    assert not [m for m in at.main.metric if m.label in ("largest stretch at your ε", "ceiling 1/√ε")]  # once


def test_the_sidebars_eps_sends_the_spreads_frames_of_the_new_eps() -> None:
    """The slider is in the section the sidebar's ε reruns: its frames follow ε, not only the metrics."""
    at = open_page(GRAD)
    ok(at.select_slider(key="grad_spread").set_value(1e-2).run())
    ok(at.select_slider(key="eps").set_value(1.0).run())
    data = slider(at, "grad_spread")
    assert data["index"] == SPREADS.index(1e-2)
    # the frames of ε = 1 (their id names their content; the section's rerun sent them, the full run
    # that AppTest adds after it sends the id alone)
    assert data["payload"]["id"] == lg.frames.__wrapped__(1.0)["id"]  # type: ignore[attr-defined]
    assert data["payload"]["id"] != lg.frames.__wrapped__(1e-5)["id"]  # type: ignore[attr-defined]
    shown = readout(at, lg.METRICS)
    assert shown["metrics"] == gradients_metrics(1.0, 1e-2)


@pytest.mark.parametrize(
    ("link", "spread"), [("1e-06", 1e-6), ("1e+00", 1.0), ("0.001", 1e-3), ("1e-8", 1e-8)]
)
def test_a_gradients_link_opens_its_spread(link: str, spread: float) -> None:
    at = open_page(GRAD, grad_spread=link, eps="1e-3")
    assert at.select_slider(key="grad_spread").value == spread
    data = slider(at, "grad_spread")
    assert data["index"] == SPREADS.index(spread)
    shown = readout(at, lg.METRICS)
    assert shown["metrics"] == gradients_metrics(1e-3, spread)
