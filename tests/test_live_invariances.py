"""Invariances' live sliders c and b: every frame they hold is what the page renders for that (c, b).

The expected texts are written here the way the page wrote them before its sliders were live (the
ε/c² line, the four metrics and their tooltips, y(x) and y(c x + b), the chart's bars), from the core
and ``ui.text``; the frames of c (at the current b) and of b (at the current c) must equal them.
"""

from __future__ import annotations

import base64
import json
from typing import Any

import numpy as np
import pytest
from apptest_support import open_page
from live_support import live_data, live_readouts
from streamlit.testing.v1 import AppTest

import layernorm as ln
from layernorm.labs import geometry as geo
from layernorm.labs import shapes
from ui import plot
from ui.live import invariances as inv
from ui.live import offered
from ui.text import digits_to_separate, fmt, fmt_zero, rounding_help, tex_base, tex_num, tex_vector

PAGE = "pages/14_invariances.py"
EPS = 1e-5
B_VALUES = offered(-10.0, 10.0, 0.5)
C_TEXTS = ["−100", "−10", "−1", "−0.1", "−0.001", "0", "1.00e−06", "1.00e−04", "0.001", "0.01", "0.1"]
C_TEXTS += ["0.5", "1", "2", "10", "100", "10000", "1.00e+06"]
C_URLS = ["-100", "-10", "-1", "-0.1", "-0.001", "0", "1.00e-06", "1.00e-04", "0.001", "0.01", "0.1"]
C_URLS += ["0.5", "1", "2", "10", "100", "10000", "1.00e6"]  # ASCII, no "+"
DEFAULT_X = ln.make_preset("standard normal", 8, 0)  # the sidebar's input on a fresh page
INPUTS: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = {  # x, γ, β
    "default": (DEFAULT_X, np.ones(8), np.zeros(8)),
    "constant d=8, γ=0": (ln.make_preset("constant", 8, 0), np.zeros(8), np.full(8, 0.5)),
    "large values": (np.array([40000.0, 40001.0, 40002.0, 40003.0]), np.full(4, 2.0), np.full(4, -1.0)),
    "normal d=96": (ln.make_preset("standard normal", 96, 3), np.ones(96), np.zeros(96)),
}


def arrays_of(sent: dict[str, Any]) -> list[np.ndarray]:
    return [np.frombuffer(base64.b64decode(a), dtype="<f8") for a in sent["arrays"]]


def expected(
    x: np.ndarray, eps: float, gamma: np.ndarray, beta: np.ndarray, c: float, b: float
) -> dict[str, Any]:
    """What section 1 showed for (c, b) before its sliders were live (the page's code, written out)."""
    chk = geo.invariance_check(x, c, b, gamma, beta, eps=eps)
    steps = ln.layer_norm_steps(x, eps=eps)
    eff = r"\infty" if not np.isfinite(chk.effective_eps) else tex_num(chk.effective_eps)
    scale = np.concatenate([chk.ln_x, chk.ln_moved])
    digits = digits_to_separate(np.concatenate([chk.y_x, chk.y_moved]), 3)
    c_shown = fmt(c, 3) if c != 0 else "0"
    b_shown = fmt(b, 3) if b != 0 else "0"
    return {
        "readouts": {
            inv.NUMBERS: rf"c = {tex_num(c, 3)},\ b = {tex_num(b, 3)}:\quad \sigma^2 = "
            rf"{tex_num(float(steps.var))},\quad"
            rf"\epsilon / c^2 = {tex_num(eps)} / {tex_base(c, 3)}^2 = {eff}",
            inv.METRICS: None,
            inv.Y_X: rf"y(x) = {tex_vector(chk.y_x, digits=digits)}",
            inv.Y_MOVED: rf"y(c\,x + b) = {tex_vector(chk.y_moved, digits=digits)}",
        },
        "metrics": [
            (
                "LayerNorm moved by",
                fmt_zero(chk.ln_gap, scale),
                "max |LN(c·x + b) − LN(x)| over the features. " + rounding_help(chk.ln_gap, scale),
            ),
            (
                "LayerNorm + its flip",
                fmt_zero(chk.ln_flip_gap, scale),
                "max |LN(c·x + b) + LN(x)|: 0 when the output only changed sign (c < 0).",
            ),
            (
                "RMSNorm moved by",
                fmt_zero(chk.rms_gap, np.concatenate([chk.rms_x, chk.rms_moved])),
                "max |RMS(c·x + b) − RMS(x)|: RMSNorm does not subtract the mean, so b moves it.",
            ),
            (
                "y moved by (your γ, β)",
                fmt_zero(chk.y_gap, np.concatenate([chk.y_x, chk.y_moved])),
                "max |y(c·x + b) − y(x)| with the sidebar's γ and β.",
            ),
        ],
        "traces": [chk.ln_x, chk.ln_moved, chk.rms_x, chk.rms_moved],
        "title": f"Outputs for x and for {c_shown}·x + {b_shown}".replace("+ −", "− "),
    }


def check_frame(f: dict[str, Any], arrays: list[np.ndarray], want: dict[str, Any]) -> None:
    """A frame as the payload carries it equals what the page rendered, to the bit."""
    assert {r["key"]: r["tex"] for r in f["readouts"]} == want["readouts"]
    assert [r["key"] for r in f["readouts"]] == [inv.NUMBERS, inv.METRICS, inv.Y_X, inv.Y_MOVED]  # page order
    (metrics,) = [r["metrics"] for r in f["readouts"] if r["key"] == inv.METRICS]
    assert [(m["label"], m["value"], m["help"]) for m in metrics] == want["metrics"]
    assert all(m["delta"] is None and m["arrow"] == "off" for m in metrics)
    assert all(not r["metrics"] for r in f["readouts"] if r["key"] != inv.METRICS)
    (chart,) = f["charts"]
    assert chart["key"] == inv.CHART_OUTPUTS and chart["lines"] == []
    for i, trace in zip(chart["traces"], want["traces"], strict=True):
        assert arrays[i].tobytes() == np.asarray(trace, dtype="<f8").tobytes()  # every bit


def test_offered_values_and_their_texts_are_the_sliders() -> None:
    assert [inv.c_text(c) for c in inv.C_CHOICES] == C_TEXTS  # the live slider's texts
    assert B_VALUES == [-10.0 + 0.5 * i for i in range(41)] and B_VALUES[22] == 1.0


@pytest.mark.parametrize("name", list(INPUTS))
@pytest.mark.parametrize("b", [1.0, -10.0, 0.0])
def test_every_c_frame_is_what_the_page_renders_at_the_current_b(name: str, b: float) -> None:
    x, gamma, beta = INPUTS[name]
    sent = inv.frames_c.__wrapped__(x, EPS, gamma, beta, b)  # type: ignore[attr-defined]  # without the cache
    assert sent["values"] == inv.C_CHOICES
    assert sent["labels"] == C_TEXTS  # as the select slider showed them
    arrays = arrays_of(sent)
    for c, f in zip(inv.C_CHOICES, sent["frames"], strict=True):
        check_frame(f, arrays, expected(x, EPS, gamma, beta, c, b))


@pytest.mark.parametrize("name", list(INPUTS))
@pytest.mark.parametrize("c", [2.0, -1.0, 0.0, 1e-6, 1e6])
def test_every_b_frame_is_what_the_page_renders_at_the_current_c(name: str, c: float) -> None:
    x, gamma, beta = INPUTS[name]
    sent = inv.frames_b.__wrapped__(x, EPS, gamma, beta, c)  # type: ignore[attr-defined]
    assert sent["values"] == B_VALUES
    assert sent["labels"] == [f"{b:.2f}" for b in B_VALUES]  # as st.slider showed them
    arrays = arrays_of(sent)
    for b, f in zip(B_VALUES, sent["frames"], strict=True):
        check_frame(f, arrays, expected(x, EPS, gamma, beta, c, b))


@pytest.mark.parametrize("which", ["c", "b"])
def test_the_charts_axis_holds_every_frame_and_the_frames_survive_json(which: str) -> None:
    x, gamma, beta = INPUTS["large values"]
    if which == "c":
        sent = inv.frames_c.__wrapped__(x, EPS, gamma, beta, 1.0)  # type: ignore[attr-defined]
    else:
        sent = inv.frames_b.__wrapped__(x, EPS, gamma, beta, -1.0)  # type: ignore[attr-defined]
    assert json.loads(json.dumps(sent)) == sent
    arrays = arrays_of(sent)
    lo, hi = sent["ranges"][inv.CHART_OUTPUTS]
    for f in sent["frames"]:
        ys = np.concatenate([arrays[i] for i in f["charts"][0]["traces"]])
        assert lo < ys.min() and ys.max() < hi and lo <= 0 <= hi


@pytest.mark.parametrize("name", list(INPUTS))
def test_one_axis_holds_the_bars_of_every_c_and_b(name: str) -> None:
    x, gamma, beta = INPUTS[name]
    (lo, hi) = inv.chart_axis.__wrapped__(x, EPS)["ranges"][inv.CHART_OUTPUTS]  # type: ignore[attr-defined]
    assert lo <= 0 <= hi
    for b in B_VALUES:
        sent = inv.frames_c.__wrapped__(x, EPS, gamma, beta, b)  # type: ignore[attr-defined]
        # the payload's own range: what the axis would be without chart_axis, inside it
        c_lo, c_hi = sent["ranges"][inv.CHART_OUTPUTS]
        assert lo <= c_lo and c_hi <= hi, b
    for c in inv.C_CHOICES:
        b_lo, b_hi = inv.frames_b.__wrapped__(x, EPS, gamma, beta, c)["ranges"][inv.CHART_OUTPUTS]  # type: ignore[attr-defined]
        assert lo <= b_lo and b_hi <= hi, c


def test_a_frame_the_core_refuses_shows_nothing_and_keeps_the_charts_shape() -> None:
    """Where the core refuses a value (a result beyond float64), the page shows the core's error; that
    value's frame is blank (no formula, no metrics, no bars), not absent. The sidebar keeps |x| below
    1e150, so no page reaches it; the core's refusal is its ValueError."""
    x = np.array([1e300, -1e300, 5.0])
    for c in (1.0, 1e6):
        with pytest.raises(ValueError):
            inv.frame(x, EPS, np.ones(3), np.zeros(3), c, 1.0)
    sent = inv.frames_c.__wrapped__(x, EPS, np.ones(3), np.zeros(3), 1.0)  # type: ignore[attr-defined]
    arrays = arrays_of(sent)
    assert len(sent["frames"]) == len(inv.C_CHOICES)
    for blank in sent["frames"]:
        assert [(r["key"], r["tex"], r["metrics"]) for r in blank["readouts"]] == [
            (k, None, []) for k in (inv.NUMBERS, inv.METRICS, inv.Y_X, inv.Y_MOVED)
        ]
        (chart,) = blank["charts"]
        assert chart["key"] == inv.CHART_OUTPUTS and len(chart["traces"]) == 4
        assert all(np.isnan(arrays[i]).all() and arrays[i].size == 3 for i in chart["traces"])


def _figure_json(c: float, b: float) -> dict[str, Any]:
    x, gamma, beta = INPUTS["default"]
    return json.loads(plot.figure_json(inv.figure(inv.frame(x, EPS, gamma, beta, c, b), c, b)))


@pytest.mark.parametrize(("c", "b"), [(-1.0, 1.0), (1e6, 1.0), (2.0, -10.0), (0.0, 3.5)])
def test_the_chart_changes_only_in_its_bars_and_in_its_texts_of_c_and_b(c: float, b: float) -> None:
    """The browser moves the four traces' bars; the title and the hatched traces' names say c·x + b."""
    was, now = _figure_json(2.0, 1.0), _figure_json(c, b)
    x, gamma, beta = INPUTS["default"]
    want = expected(x, EPS, gamma, beta, c, b)
    patched = json.loads(json.dumps(was))
    for trace, new, y in zip(patched["data"], now["data"], want["traces"], strict=True):
        trace["y"] = new["y"]
        assert np.frombuffer(base64.b64decode(trace["y"]["bdata"]), dtype="<f8").tobytes() == y.tobytes()
    assert now["layout"]["title"]["text"] == want["title"]
    label = want["title"].removeprefix("Outputs for x and for ")
    assert [t["name"] for t in now["data"]] == [
        "of x",
        f"LayerNorm of {label}",
        "of x",
        f"RMSNorm of {label}",
    ]
    # what the live frames do not carry: the title and the names (ui.live moves bars and lines only)
    patched["layout"]["title"]["text"] = now["layout"]["title"]["text"]
    for trace, new in zip(patched["data"], now["data"], strict=True):
        trace["name"] = new["name"]
    assert patched == now


# --- the page ----------------------------------------------------------------------------------------


def shown(at: AppTest) -> dict[str, Any]:
    """The readouts and the chart's traces the page shows now."""
    readouts = [r for r in live_readouts(at) if r["key"] != inv.GEO_Y]  # section 1's
    specs = [
        json.loads(json.loads(e.proto.json)["spec"])
        for e in at.get("bidi_component")
        if e.proto.component_name == "lab_chart"
    ]
    (outputs,) = [s for s in specs if s["layout"]["title"]["text"].startswith("Outputs for x")]
    return {"readouts": readouts, "outputs": outputs}


def sliders(at: AppTest) -> tuple[dict[str, Any], dict[str, Any]]:
    """The data of section 1's live sliders c and b (the sidebar's live sliders are drawn too)."""
    by_key = {d["link"]["key"]: d for d in live_data(at)}
    return by_key["inv_c"], by_key["inv_b"]


def check_page(at: AppTest, c: float, b: float, x: np.ndarray = DEFAULT_X) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert (at.session_state["inv_c"], at.session_state["inv_b"]) == (c, b)
    c_data, b_data = sliders(at)
    assert c_data["index"] == inv.C_CHOICES.index(c) and c_data["link"]["key"] == "inv_c"
    assert b_data["index"] == B_VALUES.index(b) and b_data["link"]["key"] == "inv_b"
    gamma, beta = np.ones(x.size), np.zeros(x.size)
    # the frames the sliders hold: c's at this b, b's at this c
    assert c_data["payload"]["id"] == inv.frames_c.__wrapped__(x, EPS, gamma, beta, b)["id"]  # type: ignore[attr-defined]
    assert b_data["payload"]["id"] == inv.frames_b.__wrapped__(x, EPS, gamma, beta, c)["id"]  # type: ignore[attr-defined]
    want = expected(x, EPS, gamma, beta, c, b)
    seen = shown(at)
    assert [r["key"] for r in seen["readouts"]] == [inv.NUMBERS, inv.METRICS, inv.Y_X, inv.Y_MOVED]
    assert {r["key"]: r["tex"] for r in seen["readouts"]} == want["readouts"]
    (metrics,) = [r["metrics"] for r in seen["readouts"] if r["key"] == inv.METRICS]
    assert [(m["label"], m["value"], m["help"]) for m in metrics] == want["metrics"]
    chart = seen["outputs"]
    assert chart["layout"]["title"]["text"] == want["title"]
    for trace, y in zip(chart["data"], want["traces"], strict=True):
        assert np.frombuffer(base64.b64decode(trace["y"]["bdata"]), dtype="<f8").tobytes() == y.tobytes()
    assert chart["layout"]["yaxis"]["autorange"] is False  # fixed over every c and b: the bars move
    # one axis for every (c, b): the bars move against it in both drags, and no release moves it
    assert (
        chart["layout"]["yaxis"]["range"] == inv.chart_axis.__wrapped__(x, EPS)["ranges"][inv.CHART_OUTPUTS]
    )  # type: ignore[attr-defined]
    said = "\n".join(str(e.value) for e in [*at.warning, *at.info])
    assert ("c = 0 turns every input into the constant vector" in said) == (c == 0)
    assert ("A negative c mirrors the vector" in said) == (c < 0)


def test_a_fresh_page_shows_the_frame_of_c_2_and_b_1() -> None:
    at = open_page(PAGE)
    check_page(at, 2.0, 1.0)
    c_data, b_data = sliders(at)
    assert "frames" in c_data["payload"] and "frames" in b_data["payload"]  # d = 8: sent with the page
    assert c_data["link"]["urls"] == C_URLS and c_data["link"]["default"] == "2"
    assert c_data["label"] == "Scale c" and b_data["label"] == "Add b to every feature"
    assert c_data["help"] == "Negative values flip the vector; 0 flattens it to the constant b."
    assert b_data["link"]["default"] == "1" and b_data["link"]["urls"][0] == "-10"


@pytest.mark.parametrize(("c", "b"), [(-1.0, 1.0), (0.0, -10.0), (1e6, 3.5), (1e-6, 10.0)])
def test_page_shows_the_frame_of_its_values(c: float, b: float) -> None:
    at = open_page(PAGE)
    at.select_slider(key="inv_c").set_value(c).run()
    at.slider(key="inv_b").set_value(b).run()
    check_page(at, c, b)


@pytest.mark.parametrize(
    ("query", "c", "b"),
    [
        ({"inv_c": "-1", "inv_b": "3"}, -1.0, 3.0),
        ({"inv_c": "1e6"}, 1e6, 1.0),
        ({"inv_c": "1.00e+06", "inv_b": "-2.5"}, 1e6, -2.5),
        ({"inv_b": "7.5"}, 2.0, 7.5),  # c's frames made at the link's b on the first run
        ({"inv_c": "0", "inv_b": "-0"}, 0.0, 0.0),
    ],
)
def test_links_open_their_values(query: dict[str, str], c: float, b: float) -> None:
    at = open_page(PAGE, **query)
    check_page(at, c, b)
    assert not [w.value for w in at.warning if "inv" in str(w.value)]


def test_a_link_not_on_the_grid_takes_the_nearest_and_says_so() -> None:
    at = open_page(PAGE, inv_c="7", inv_b="2.7")
    check_page(at, 10.0, 2.5)
    notes = sorted(str(w.value) for w in at.warning if "inv_" in str(w.value))
    assert notes == [  # the link's text as the message's Markdown source escapes it
        "The link's inv_b=2\u2060\\.7 is not on the slider's steps of 0.5; "
        "the lab uses the nearest step, b = 2.5.",
        "The link's inv_c=7 is not one of the values offered; the lab uses the nearest, c = 10.",
    ]


def test_the_sidebar_input_makes_new_frames() -> None:
    at = open_page(PAGE, src="Type numbers", typed="1, 2, 4, 8", inv_c="-10", inv_b="0.5")
    check_page(at, -10.0, 0.5, x=np.array([1.0, 2.0, 4.0, 8.0]))


# --- the geometry's γᵢ and βᵢ ------------------------------------------------------------------------
GEO_VALUES = offered(-2.0, 2.0, 0.1)
GEO_KEYS = [f"geo_{w}{i}" for w in ("gamma", "beta") for i in (1, 2, 3)]


def geo_expected(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray) -> str:
    """The readout under the geometry's sliders (written out): γ, β and, for a vector of d features,
    its x̂ and y = γ⊙x̂ + β from the core."""
    tex = rf"\gamma = {tex_vector(gamma)},\quad \beta = {tex_vector(beta)}"
    if x.size == gamma.size:
        x_hat, y = ln.layer_norm(x, eps=EPS), ln.layer_norm(x, gamma, beta, eps=EPS)
        digits = digits_to_separate(np.concatenate([x_hat, y]), 3)
        tex += (
            rf":\quad \hat x = {tex_vector(x_hat, digits=digits)},\quad "
            rf"y = \gamma\odot\hat x + \beta = {tex_vector(y, digits=digits)}"
        )
    return tex


def geo_state(at: AppTest, d: int) -> tuple[np.ndarray, np.ndarray]:
    gamma = np.array([float(at.session_state[f"geo_gamma{i + 1}"]) for i in range(d)])
    beta = np.array([float(at.session_state[f"geo_beta{i + 1}"]) for i in range(d)])
    return gamma, beta


def check_geometry(at: AppTest, x: np.ndarray, d: int) -> None:
    """Each of the geometry's live sliders holds, for every value it offers, the readout the page shows
    at that value (the others as they stand), and the page shows the frame of the values it holds."""
    assert not at.exception, [e.value for e in at.exception]
    gamma, beta = geo_state(at, d)
    by_key = {s["link"]["key"]: s for s in live_data(at)}
    assert {k for k in by_key if k.startswith("geo_")} == {k for k in GEO_KEYS if int(k[-1]) <= d}
    for key in sorted(k for k in by_key if k.startswith("geo_")):
        which, i = key[4:-1], int(key[-1]) - 1
        data = by_key[key]
        now = (gamma if which == "gamma" else beta)[i]
        assert data["index"] == GEO_VALUES.index(now) and data["values"] == GEO_VALUES
        sent = inv.geo_frames.__wrapped__(x, EPS, gamma, beta, which, i)  # type: ignore[attr-defined]
        assert data["payload"]["id"] == sent["id"]  # the frames the browser holds are these
        assert sent["labels"] == [f"{v:.2f}" for v in GEO_VALUES]
        for v, f in zip(GEO_VALUES, sent["frames"], strict=True):
            g, b = gamma.copy(), beta.copy()
            (g if which == "gamma" else b)[i] = v
            if d == 3:  # the picture of y, written out
                assert frame_picture(sent, f) == picture_expected(x, g, b), (key, v)
            elif x.size == 2:  # 2-D: your y, the last trace
                assert frame_picture(sent, f)["traces"][-1][:2] == [
                    [t] for t in ln.layer_norm(x, g, b, eps=EPS)
                ]
            if v == now:  # the picture at rest: the frame of the values the sliders hold
                assert frame_picture(sent, f) == page_picture(at, d), key
            assert [(r["key"], r["tex"], r["metrics"]) for r in f["readouts"]] == [
                (inv.GEO_Y, geo_expected(x, g, b), [])
            ], (key, v)
    (geo,) = [r for r in live_readouts(at) if r["key"] == inv.GEO_Y]
    assert geo["tex"] == geo_expected(x, gamma, beta)  # what the page shows at rest
    if d == 3:
        assert page_picture(at, d) == picture_expected(x, gamma, beta)


def picture_expected(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray) -> dict[str, Any]:
    """The 3-D picture of y, written out: γ⊙(circle) + β, the cloud's y, β and your y, each as x, y, z
    lists in the figure's trace order, and the one range of its three axes."""
    cloud = geo.normalized_cloud(3, 300, seed=0, eps=EPS)
    parts = [
        ln.scale_shift(shapes.sum_zero_circle(cloud.radius), gamma, beta),
        ln.scale_shift(cloud.x_hat, gamma, beta),
        beta.reshape(1, 3),
    ]
    if x.size == 3:
        parts.append(ln.layer_norm(x, gamma, beta, eps=EPS).reshape(1, 3))
    lim = max(1.0, *(float(np.max(np.abs(p))) for p in parts)) * 1.12
    axes = {f"scene.{a}": [-lim, lim] for a in ("xaxis", "yaxis", "zaxis")}
    return {"traces": [[p[:, k].tolist() for k in range(3)] for p in parts], "axes": axes}


def frame_picture(sent: dict[str, Any], frame: dict[str, Any]) -> dict[str, Any]:
    (chart,) = frame["charts"]
    assert chart["key"] in inv.GEO_PICTURES.values()
    arrays = [np.frombuffer(base64.b64decode(a), dtype="<f8") for a in sent["arrays"]]
    zs = chart["zs"] or [None] * len(chart["traces"])
    traces = [
        [arrays[n].tolist() for n in (x, y, z) if n is not None]
        for x, y, z in zip(chart["xs"], chart["traces"], zs, strict=True)
    ]
    return {"traces": traces, "axes": {name: [lo, hi] for name, lo, hi in chart["axes"]}}


def page_picture(at: AppTest, d: int) -> dict[str, Any]:
    specs = [
        json.loads(json.loads(e.proto.json)["spec"])
        for e in at.get("bidi_component")
        if e.proto.component_name == "lab_chart"
    ]
    title = "Then y" if d == 3 else "After: x"
    (fig,) = [f for f in specs if title in json.dumps(f.get("layout", {}))]

    def values(a: Any) -> list[float]:
        if isinstance(a, dict):
            return (
                np.frombuffer(base64.b64decode(a["bdata"]), dtype=np.dtype(a["dtype"])).astype(float).tolist()
            )
        return [float(v) for v in a]

    layout = fig["layout"]
    if d == 3:
        traces = [[values(t[a]) for a in "xyz"] for t in fig["data"] if t.get("type") == "scatter3d"]
        axes = {f"scene.{a}": layout["scene"][a]["range"] for a in ("xaxis", "yaxis", "zaxis")}
    else:
        traces = [[values(t[a]) for a in "xy"] for t in fig["data"]]
        axes = {a: layout[a]["range"] for a in ("xaxis2", "yaxis2")}
    return {"traces": traces, "axes": axes}


def y_cloud(at: AppTest, d: int) -> np.ndarray:
    specs = [
        json.loads(json.loads(e.proto.json)["spec"])
        for e in at.get("bidi_component")
        if e.proto.component_name == "lab_chart"
    ]
    name = "y (all inputs)" if d == 2 else "y = γ⊙x̂ + β"
    (trace,) = [t for s in specs for t in s["data"] if t.get("name") == name]
    axes = "xy" if d == 2 else "xyz"
    return np.column_stack(
        [np.frombuffer(base64.b64decode(trace[a]["bdata"]), dtype=np.dtype(trace[a]["dtype"])) for a in axes]
    )


@pytest.mark.parametrize(
    ("typed", "d", "moves"),
    [
        ("1, 2, 4", 3, {"geo_gamma1": -0.5, "geo_beta3": 1.2, "geo_gamma2": 0.0}),
        (None, 3, {"geo_gamma3": 2.0, "geo_beta1": -2.0}),  # d = 8: no y of your vector
        ("5, 7", 2, {"geo_gamma2": -1.3, "geo_beta1": 0.7}),
    ],
)
def test_every_geometry_frame_is_what_the_page_shows(
    typed: str | None, d: int, moves: dict[str, float]
) -> None:
    query = {"src": "Type numbers", "typed": typed} if typed else {}
    at = open_page(PAGE, **query, **({"geo_d": "2"} if d == 2 else {}))
    x = np.array([float(t) for t in typed.split(",")]) if typed else DEFAULT_X
    check_geometry(at, x, d)
    for key, v in moves.items():
        at.slider(key=key).set_value(v).run()
        check_geometry(at, x, d)
        gamma, beta = geo_state(at, d)
        want = ln.scale_shift(geo.normalized_cloud(d, 300, seed=0, eps=EPS).x_hat, gamma, beta)
        np.testing.assert_array_equal(y_cloud(at, d), want)  # the picture, redrawn at rest


def test_a_geometry_link_opens_its_values_in_every_sliders_frames() -> None:
    """On a first run from a link, each slider's frames are made at the link's values of the others
    (those drawn after it included)."""
    at = open_page(PAGE, src="Type numbers", typed="1, 2, 4", geo_beta3="-1.5", geo_gamma2="0.3")
    assert geo_state(at, 3)[0].tolist() == [1.0, 0.3, 1.0]
    assert geo_state(at, 3)[1].tolist() == [0.0, 0.0, -1.5]
    check_geometry(at, np.array([1.0, 2.0, 4.0]), 3)
