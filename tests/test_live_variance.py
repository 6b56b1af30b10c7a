"""The Variance page's live stretch a: every frame it holds is what the page renders for that a.

The expected texts are written the way the page wrote them before the live slider (formula, metrics,
chart lines), from the core and ``ui.text`` (``tests/variance_expected.py``); the frames must equal them
for every a offered.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable

import numpy as np
import pytest
from chart_specs import charts
from live_support import assert_patched_is_drawn, live_data, live_readouts, page_opener
from streamlit.testing.v1 import AppTest
from variance_expected import expected, passes_expected

import layernorm as ln
from ui import plot
from ui.links import link_text
from ui.live import variance

A_VALUES = [0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0]
A_TEXTS = ["0.1", "0.2", "0.5", "1.0", "2.0", "5.0", "10.0"]  # st.select_slider's str(a), in links too
INPUTS = {
    "default": ln.make_preset("standard normal", 8, 0),
    "constant d=8": ln.make_preset("constant", 8, 0),
    "one value": np.array([7.0]),
    "large values": np.array([40000.0, 40001.0, 40002.0, 40003.0]),
    "tiny (σ² underflows)": np.array([0.0, 1e-170]),
    "normal d=768": ln.make_preset("standard normal", 768, 3),
}


def sliders(at: AppTest) -> dict[str, dict[str, object]]:
    """The page's live sliders by URL key (the sidebar may draw live sliders of its own)."""
    return {d["link"]["key"]: d for d in live_data(at) if d["link"]["key"] in ("var_scale", "var_offset")}


def readouts(at: AppTest) -> list[dict[str, object]]:
    """The page's live readouts, in page order."""
    return [r for r in live_readouts(at) if r["key"] in (variance.SIGMA2, variance.XHAT, variance.PASSES)]


def arrays_of(sent: dict[str, object]) -> list[np.ndarray]:
    return [np.frombuffer(base64.b64decode(a), dtype="<f8") for a in sent["arrays"]]  # type: ignore[attr-defined]


def test_the_stretch_offers_what_it_offered() -> None:
    assert list(variance.SCALES) == A_VALUES and variance.SCALE_DEFAULT == 1.0
    assert [variance.scale_text(a) for a in A_VALUES] == A_TEXTS == [str(a) for a in A_VALUES]


@pytest.mark.parametrize("name", list(INPUTS))
def test_every_frame_is_what_the_page_renders_for_its_a(name: str) -> None:
    x = INPUTS[name]
    offset = variance.OFFSET_DEFAULT
    sent = variance.scale_frames.__wrapped__(x, 1e-5, offset)  # type: ignore[attr-defined]  # without the cache
    arrays = arrays_of(sent)
    assert sent["values"] == A_VALUES
    assert sent["labels"] == A_TEXTS
    for a, f in zip(A_VALUES, sent["frames"], strict=True):  # type: ignore[call-overload]
        want = expected(x, 1e-5, a)
        *own, passes = f["readouts"]
        got = [(r["key"], r["tex"], [(m["label"], m["value"]) for m in r["metrics"]]) for r in own]
        assert got == want["readouts"], a
        # the float32 trap's readout further down is x·a + offset's: a moves it too
        assert passes == variance.pass_frame(x, a, offset).readout(variance.PASSES).json()
        for r in own:  # plain numbers: no delta, arrow or tooltip, as the page's st.metric had
            assert all((m["delta"], m["arrow"], m["help"]) == (None, "off", None) for m in r["metrics"])
        (chart,) = f["charts"]
        assert chart["key"] == variance.CHART
        (i,) = chart["traces"]
        assert arrays[i].tobytes() == np.asarray(want["trace"], dtype="<f8").tobytes()  # every bit
        assert json.dumps(chart["lines"]) == json.dumps(want["lines"])  # NaN-free, equal to the digit


@pytest.mark.parametrize("a", A_VALUES)
def test_the_chart_changes_only_where_the_browser_patches_it(a: float) -> None:
    """The browser redraws the chart from its frame: only the trace's y and the lines' y and labels."""
    x = INPUTS["default"]
    base = json.loads(plot.figure_json(variance.figure(x, 1e-5, 1.0)))
    now = json.loads(plot.figure_json(variance.figure(x, 1e-5, a)))
    (chart,) = variance.frame(x, 1e-5, a).charts
    assert len(base["data"]) == 1
    assert_patched_is_drawn(base, now, chart)


def test_the_frames_survive_json_exactly() -> None:
    sent = variance.scale_frames.__wrapped__(INPUTS["large values"], 1e-5, 1e8)  # type: ignore[attr-defined]
    assert json.loads(json.dumps(sent)) == sent


@pytest.fixture
def open_variance() -> Callable[..., AppTest]:
    return page_opener("pages/2_variance.py")


def shown_as_expected(at: AppTest, a: float) -> None:
    assert list(sliders(at)) == ["var_scale", "var_offset"]
    data = sliders(at)["var_scale"]
    assert data["index"] == A_VALUES.index(a)
    assert data["link"] == {"key": "var_scale", "urls": A_TEXTS, "default": "1.0"}
    want = expected(at.session_state["lab_input"].x, 1e-5, a)
    shown = readouts(at)
    assert shown[-1]["key"] == variance.PASSES  # the offset's, below
    got = [(r["key"], r["tex"], [(m["label"], m["value"]) for m in r["metrics"]]) for r in shown[:-1]]
    assert got == want["readouts"]
    (spec,) = [c.figure for c in charts(at) if c.key == variance.CHART]
    y = np.frombuffer(base64.b64decode(spec["data"][0]["y"]["bdata"]), dtype="<f8")
    assert y.tobytes() == np.asarray(want["trace"], dtype="<f8").tobytes()
    assert [n["text"] for n in spec["layout"]["annotations"]] == [line[1] for line in want["lines"]]  # type: ignore[attr-defined]


@pytest.mark.parametrize("a", [0.1, 1.0, 5.0])
def test_page_shows_the_frame_of_its_value(open_variance: Callable[..., AppTest], a: float) -> None:
    at = open_variance()
    at.select_slider(key="var_scale").set_value(a).run()
    assert not at.exception
    shown_as_expected(at, a)


@pytest.mark.parametrize(
    ("text", "a"), [("0.1", 0.1), ("2.0", 2.0), ("2", 2.0), ("10.0", 10.0), ("5e0", 5.0)]
)
def test_a_link_opens_its_a(open_variance: Callable[..., AppTest], text: str, a: float) -> None:
    at = open_variance(var_scale=text)
    assert at.select_slider(key="var_scale").value == a
    shown_as_expected(at, a)


def test_a_link_between_values_takes_the_nearest_and_says_so(open_variance: Callable[..., AppTest]) -> None:
    at = open_variance(var_scale="4.5")
    assert at.select_slider(key="var_scale").value == 5.0
    shown_as_expected(at, 5.0)
    assert any(
        "a = 5.0" in str(e.value)
        for e in [*at.main.info, *at.main.warning, *at.sidebar.info, *at.sidebar.warning]
    )


def test_one_value_has_no_why_divide_by_d_readout(open_variance: Callable[..., AppTest]) -> None:
    at = open_variance(src="Type numbers", typed="7")
    assert [r["key"] for r in readouts(at)] == [variance.SIGMA2, variance.PASSES]
    assert any("d = 1" in str(i.value) for i in at.main.info)


# ---------------------------------------------------------------------------- the offset

OFFSETS = [0.0, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8]
OFFSET_TEXTS = ["0", "1e+02", "1e+03", "1e+04", "1e+05", "1e+06", "1e+07", "1e+08"]  # as the page showed


def test_the_offset_offers_what_it_offered() -> None:
    assert list(variance.OFFSETS) == OFFSETS and variance.OFFSET_DEFAULT == 1e4
    assert [variance.offset_text(o) for o in OFFSETS] == OFFSET_TEXTS


@pytest.mark.parametrize("name", [*INPUTS, "huge (x² overflows float32)"])
@pytest.mark.parametrize("a", [0.1, 1.0, 10.0])
def test_every_offset_frame_is_what_the_page_renders(name: str, a: float) -> None:
    x = INPUTS.get(name, np.array([1e21, 2e21]))
    sent = variance.offset_frames.__wrapped__(x, a)  # type: ignore[attr-defined]
    assert sent["values"] == OFFSETS and sent["labels"] == OFFSET_TEXTS
    seen_deltas = set()
    for offset, f in zip(OFFSETS, sent["frames"], strict=True):  # type: ignore[call-overload]
        assert f["charts"] == []
        (r,) = f["readouts"]
        assert r["key"] == variance.PASSES and r["tex"] is None
        assert [(m["label"], m["value"], m["delta"]) for m in r["metrics"]] == passes_expected(x, a, offset)
        assert all((m["arrow"], m["help"]) == ("off", None) for m in r["metrics"])  # words, not a change
        seen_deltas |= {m["delta"] for m in r["metrics"]}
    if name == "huge (x² overflows float32)":
        assert "x² exceeds float32's 3.4e38" in seen_deltas


def test_the_default_input_goes_negative_somewhere() -> None:
    """The page's "negative: √ would give NaN" is reached: [1, 2, 3, 4] at the default offset."""
    (r,) = variance.pass_frame(np.array([1.0, 2.0, 3.0, 4.0]), 1.0, 1e4).readouts
    assert r.metrics[1].delta == "negative: √ would give NaN"


@pytest.mark.parametrize(("text", "offset"), [("0", 0.0), ("1e+06", 1e6), ("1e6", 1e6), ("100", 1e2)])
def test_an_offset_link_opens_its_offset(
    open_variance: Callable[..., AppTest], text: str, offset: float
) -> None:
    at = open_variance(var_offset=text, var_scale="2.0")
    assert at.select_slider(key="var_offset").value == offset
    scale, shift = sliders(at)["var_scale"], sliders(at)["var_offset"]
    # the link carries them in ASCII, without "+" (1e+04 is 1e4)
    assert shift["link"] == {
        "key": "var_offset",
        "urls": [link_text(t) for t in OFFSET_TEXTS],
        "default": "1e4",
    }
    assert (scale["index"], shift["index"]) == (A_VALUES.index(2.0), OFFSETS.index(offset))
    shown = readouts(at)[-1]
    x = at.session_state["lab_input"].x
    assert [(m["label"], m["value"], m["delta"]) for m in shown["metrics"]] == passes_expected(x, 2.0, offset)
    # the offset's frames are those of the current a
    assert shift["payload"]["id"] == variance.offset_frames.__wrapped__(x, 2.0)["id"]  # type: ignore[attr-defined]
