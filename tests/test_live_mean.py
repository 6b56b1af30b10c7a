"""The Mean page's live slider: every frame it holds is what the page renders for that c.

The expected texts are written here the way the page wrote them before the live slider (formula,
metrics, chart lines), from the core and ``ui.text``; the frames must equal them for every c offered.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable

import numpy as np
import pytest
from live_support import assert_patched_is_drawn, live_data, live_readouts, page_opener
from streamlit.testing.v1 import AppTest

import layernorm as ln
from ui import plot
from ui.live import _nearest, mean, offered, payload
from ui.live.frames import wire
from ui.text import change_metric, digits_to_separate, fmt, rounding_noise, tex_num, tex_sum, zero_metric

C_VALUES = offered(-10.0, 10.0, 0.1)
INPUTS = {
    "default": np.array([1.0, 2.0, 3.0, 4.0]),
    "constant d=8": ln.make_preset("constant", 8, 0),
    "large values": np.array([40000.0, 40001.0, 40002.0, 40003.0]),
    "normal d=4096": ln.make_preset("standard normal", 4096, 3),
}


def bits(b64: str) -> bytes:
    """The float64 bytes of a base64 array (Plotly's ``bdata``, the payload's arrays)."""
    return np.frombuffer(base64.b64decode(b64), dtype="<f8").tobytes()


def expected(x: np.ndarray, eps: float, c: float) -> dict[str, object]:
    """What the page showed for c before it had a live slider (its own code, written out)."""
    s = ln.layer_norm_steps(x + c, eps=eps)
    mu = float(s.mu)
    digits = digits_to_separate([mu], against=s.x, same_within=rounding_noise(s.x))
    tex = (
        rf"\mu = \frac{{1}}{{d}}\sum_{{i=1}}^{{d}} x_i = \frac{{1}}{{{x.size}}}"
        rf"\left({tex_sum(x + c, digits=digits)}\right) = {tex_num(mu, digits)}"
    )
    delta = change_metric(c) if c else {"delta": None, "delta_arrow": "off"}
    zero = zero_metric(float(ln.mean(s.centered)), s.centered)
    return {
        "tex": tex,
        "metrics": [
            ("d (features)", str(x.size), None, "off"),
            ("μ (mean)", fmt(mu, digits), delta["delta"], delta["delta_arrow"]),
            ("mean of x − μ", zero["value"], zero.get("delta"), zero.get("delta_arrow", "off")),
        ],
        "help": zero["help"],
        "traces": [s.x, s.centered],
        "lines": [(mu, f"μ = {fmt(mu, digits)}"), (0.0, "new mean = 0")],
    }


def test_offered_values_are_the_sliders() -> None:
    assert C_VALUES == [round(-10.0 + 0.1 * i, 12) for i in range(201)]
    assert C_VALUES[100] == 0.0 and C_VALUES[-1] == 10.0 and 2.5 in C_VALUES


@pytest.mark.parametrize("name", list(INPUTS))
def test_every_frame_is_what_the_page_renders_for_its_c(name: str) -> None:
    x = INPUTS[name]
    sent = mean.frames.__wrapped__(x, 1e-5)  # type: ignore[attr-defined]  # without the cache
    arrays = [np.frombuffer(base64.b64decode(a), dtype="<f8") for a in sent["arrays"]]  # type: ignore[attr-defined]
    assert sent["values"] == C_VALUES
    assert sent["labels"] == [f"{c:.2f}" for c in C_VALUES]  # as st.slider showed them
    for c, f in zip(C_VALUES, sent["frames"], strict=True):  # type: ignore[call-overload]
        want = expected(x, 1e-5, c)
        (r,) = f["readouts"]
        assert r["key"] == mean.READOUT
        assert r["tex"] == want["tex"]
        assert [(m["label"], m["value"], m["delta"], m["arrow"]) for m in r["metrics"]] == want["metrics"]
        assert r["metrics"][2]["help"] == want["help"]
        assert [ch["key"] for ch in f["charts"]] == [mean.CHART_X, mean.CHART_CENTERED]
        for chart, trace, line in zip(f["charts"], want["traces"], want["lines"], strict=True):
            (i,) = chart["traces"]
            assert arrays[i].tobytes() == np.asarray(trace, dtype="<f8").tobytes()  # every bit
            assert chart["lines"] == [[line[0], line[1]]]
    for chart in sent["frames"][0]["charts"]:  # type: ignore[index]  # a fixed axis holds every frame
        lo, hi = sent["ranges"][chart["key"]]  # type: ignore[index]
        for f in sent["frames"]:  # type: ignore[attr-defined]
            (ch,) = [c for c in f["charts"] if c["key"] == chart["key"]]
            ys = np.concatenate([arrays[i] for i in ch["traces"]] + [np.array([ln[0] for ln in ch["lines"]])])
            assert lo < ys.min() and ys.max() < hi and lo <= 0 <= hi


def test_the_frames_survive_json_exactly() -> None:
    x = INPUTS["large values"]
    sent = mean.frames.__wrapped__(x, 1e-5)  # type: ignore[attr-defined]
    assert json.loads(json.dumps(sent)) == sent


def test_a_chart_changes_only_where_the_browser_patches_it() -> None:
    """The browser redraws a chart from its frame: only the traces' y and the lines' y and labels."""
    x = INPUTS["default"]
    base = [json.loads(plot.figure_json(f)) for f in mean.figures(mean.frame(x, 1e-5, 0.0), "v")]
    for c in (-10.0, 2.5, 10.0):
        frame = mean.frame(x, 1e-5, c)
        figs = [json.loads(plot.figure_json(f)) for f in mean.figures(frame, "v")]
        for was, now, chart in zip(base, figs, frame.charts, strict=True):
            assert_patched_is_drawn(was, now, chart)


def test_payload_shares_equal_arrays() -> None:
    sent = payload([0.0, 1.0], lambda c: mean.frame(np.zeros(4), 1e-5, 0.0))
    assert len(sent["arrays"]) == 1  # type: ignore[arg-type]  # x and x − μ are the same zeros


def test_a_payload_goes_on_the_wire_as_its_text_in_the_order_the_browser_compares() -> None:
    sent = payload([0.0, 1.0], lambda c: mean.frame(np.array([1.0, 2.0, 4.0]), 1e-5, c))
    assert sent.text == json.dumps(dict(sent))  # written once, the same text json.dumps gives
    wired = wire({"mode": "slider", "payload": sent, "index": 1})
    assert wired == json.dumps({"mode": "slider", "index": 1, "payload": dict(sent)}).encode()
    # a readout's text in a frame is the readout component's text (static/live/frames.js, staleAgainst)
    frame = json.loads(wired)["payload"]["frames"][1]["readouts"][0]
    drawn = mean.frame(np.array([1.0, 2.0, 4.0]), 1e-5, 1.0).readouts[0].json()
    assert json.dumps(frame) == json.dumps(drawn)
    assert wire({"payload": sent}) == json.dumps({"payload": dict(sent)}).encode()
    copy = sent | {"feature": 2}  # a copy is a plain dict, encoded when sent
    assert json.loads(wire({"payload": copy}))["payload"]["feature"] == 2


def mean_slider(at: AppTest) -> dict[str, object]:
    """The data of Mean's own live slider (the sidebar's ε, γ, β are live sliders too)."""
    (data,) = [d for d in live_data(at) if d["link"]["key"] == "mean_shift"]
    return data


@pytest.fixture
def open_mean() -> Callable[..., AppTest]:
    return page_opener("pages/1_mean.py")


@pytest.mark.parametrize("c", [-10.0, 0.0, 3.5])
def test_page_shows_the_frame_of_its_value(open_mean: Callable[..., AppTest], c: float) -> None:
    at = open_mean()
    at.slider(key="mean_shift").set_value(c).run()
    assert not at.exception
    data = mean_slider(at)
    assert data["index"] == C_VALUES.index(c)
    (shown,) = live_readouts(at)
    want = expected(at.session_state["lab_input"].x, 1e-5, c)
    assert shown["tex"] == want["tex"]
    assert [(m["label"], m["value"]) for m in shown["metrics"]] == [m[:2] for m in want["metrics"]]
    specs = [json.loads(json.loads(e.proto.json)["spec"]) for e in at.get("bidi_component")
             if e.proto.component_name == "lab_chart"]  # fmt: skip
    for spec, y, line in zip(specs, want["traces"], want["lines"], strict=True):  # type: ignore[call-overload]
        assert (
            np.frombuffer(base64.b64decode(spec["data"][0]["y"]["bdata"]), dtype="<f8").tobytes()
            == y.tobytes()
        )
        assert [n["text"] for n in spec["layout"]["annotations"]] == [line[1]]
        assert spec["layout"]["yaxis"]["autorange"] is False  # fixed over every c: bars move, not the axis


def test_frames_go_to_the_browser_once_per_input(open_mean: Callable[..., AppTest]) -> None:
    """A small input's frames go with the first run; later runs with the same input send their id only."""
    at = open_mean()
    first = mean_slider(at)
    assert "frames" in first["payload"]
    at.slider(key="mean_shift").set_value(1.5).run()
    again = mean_slider(at)
    assert again["payload"] == {"id": first["payload"]["id"]}
    assert again["index"] == C_VALUES.index(1.5)


def test_a_large_input_sends_its_frames_when_the_browser_asks(open_mean: Callable[..., AppTest]) -> None:
    """At d = 768 the frames are megabytes: the first draw sends their id, the browser asks for them."""
    at = open_mean(d="768")
    first = mean_slider(at)
    assert set(first["payload"]) == {"id"}
    at.session_state["_live_asked"] = {"mean_shift"}  # what the component's "missing" trigger records
    at.run()
    asked = mean_slider(at)
    assert asked["payload"]["id"] == first["payload"]["id"] and len(asked["payload"]["frames"]) == 201
    at.run()
    again = mean_slider(at)
    assert set(again["payload"]) == {"id"}  # once


def test_a_release_takes_the_nearest_offered_value() -> None:
    """What the browser sends on release becomes mean_shift: the nearest offered value, or nothing."""
    assert _nearest(C_VALUES, 2.43) == 2.4
    assert _nearest(C_VALUES, -99) == -10.0
    assert _nearest(C_VALUES, "3") is None and _nearest(C_VALUES, float("nan")) is None
