"""The Standardize page's live controls: the feature i of the worked formula, and the spread of the
nearly constant vector. Every frame they hold is what the page renders for that value.

The expected texts are written here the way the page wrote them before the live sliders (formula,
metrics, chart), from the core and ``ui.text``; the frames must equal them for every value offered.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable

import numpy as np
import pytest
from chart_specs import charts
from live_support import live_data, live_readouts, page_metrics, page_opener, page_tex
from streamlit.testing.v1 import AppTest

import layernorm as ln
from ui import plot
from ui.links import link_text
from ui.live import standardize
from ui.text import digits_to_separate, fmt, rounding_noise, tex_minus, tex_num

SPREADS = [1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1.0]
SPREAD_TEXTS = ["1e-08", "1e-07", "1e-06", "1e-05", "1e-04", "1e-03", "1e-02", "1e-01", "1e+00"]
INPUTS = {
    "default": ln.make_preset("standard normal", 8, 0),
    "constant d=8": ln.make_preset("constant", 8, 0),
    "large values": np.array([40000.0, 40001.0, 40002.0, 40003.0]),
    "two values": np.array([1.0, 2.0]),
    "normal d=768": ln.make_preset("standard normal", 768, 3),
}


def feature_tex(x: np.ndarray, eps: float, i: int) -> str:
    """The worked formula of feature i as the page wrote it before the live slider."""
    steps = ln.layer_norm_steps(x, eps=eps)
    k = i - 1
    mu_digits = digits_to_separate([float(steps.mu)], against=steps.x, same_within=rounding_noise(steps.x))
    return (
        rf"\hat{{x}}_{{{k + 1}}} = \frac{{x_{{{k + 1}}} - \mu}}{{\sqrt{{\sigma^2 + \epsilon}}}}"
        rf" = \frac{{{tex_num(steps.x[k], mu_digits)} {tex_minus(float(steps.mu), mu_digits)}}}"
        rf"{{\sqrt{{{tex_num(float(steps.var))} + {tex_num(eps)}}}}} = {tex_num(steps.x_hat[k])}"
    )


def near_expected(eps: float, spread: float) -> dict[str, object]:
    """The nearly constant vector's metrics and x̂, as the page computed them before."""
    near = ln.make_near_constant(8, 3.0, spread, seed=1)
    s = ln.layer_norm_steps(near, eps=eps)
    near_var = float(ln.variance(s.x_hat))
    return {
        "metrics": [
            ("σ² of this vector", fmt(float(s.var), digits_to_separate([float(s.var)], against=[eps]))),
            ("ε", f"{eps:.0e}"),
            (
                "variance of x̂",
                fmt(near_var, digits_to_separate([near_var], against=[1.0], same_within=rounding_noise(1.0))),
            ),
        ],
        "x_hat": s.x_hat,
    }


def sliders(at: AppTest) -> dict[str, dict[str, object]]:
    """The page's live sliders by URL key (the sidebar may draw live sliders of its own)."""
    return {d["link"]["key"]: d for d in live_data(at) if d["link"]["key"] in ("std_feature", "std_spread")}


def readouts(at: AppTest) -> list[dict[str, object]]:
    """The page's live readouts, in page order."""
    return [r for r in live_readouts(at) if r["key"] in (standardize.FEATURE, standardize.NEAR)]


def arrays_of(sent: dict[str, object]) -> list[np.ndarray]:
    return [np.frombuffer(base64.b64decode(a), dtype="<f8") for a in sent["arrays"]]  # type: ignore[attr-defined]


# ---------------------------------------------------------------------------- feature i


@pytest.mark.parametrize("name", list(INPUTS))
@pytest.mark.parametrize("eps", [1e-5, 1.0])
def test_every_feature_frame_is_the_formula_the_page_wrote(name: str, eps: float) -> None:
    x = INPUTS[name]
    sent = standardize.feature_frames.__wrapped__(x, eps)  # type: ignore[attr-defined]  # without the cache
    d = x.size
    assert sent["values"] == [float(i) for i in range(1, d + 1)]
    assert sent["labels"] == [str(i) for i in range(1, d + 1)]  # whole numbers, as the number box showed
    assert sent["arrays"] == [] and sent["ranges"] == {}
    for i, f in zip(range(1, d + 1), sent["frames"], strict=True):  # type: ignore[call-overload]
        assert f["charts"] == []
        assert f["readouts"] == [{"key": standardize.FEATURE, "tex": feature_tex(x, eps, i), "metrics": []}]


def test_the_spread_offers_what_it_offered() -> None:
    from ui.widgets import SPREADS as shared

    assert shared == SPREADS and standardize.SPREAD_DEFAULT == 1e-3
    assert [standardize.spread_text(v) for v in SPREADS] == SPREAD_TEXTS


@pytest.mark.parametrize("eps", [1e-12, 1e-5, 1e-2, 1.0])
def test_every_spread_frame_is_what_the_page_renders(eps: float) -> None:
    sent = standardize.spread_frames.__wrapped__(eps)  # type: ignore[attr-defined]
    arrays = arrays_of(sent)
    assert sent["values"] == SPREADS and sent["labels"] == SPREAD_TEXTS
    for spread, f in zip(SPREADS, sent["frames"], strict=True):  # type: ignore[call-overload]
        want = near_expected(eps, spread)
        (r,) = f["readouts"]
        assert r["key"] == standardize.NEAR and r["tex"] is None
        assert [(m["label"], m["value"]) for m in r["metrics"]] == want["metrics"]
        assert all((m["delta"], m["arrow"], m["help"]) == (None, "off", None) for m in r["metrics"])
        (chart,) = f["charts"]
        assert chart["key"] == standardize.CHART_NEAR and chart["lines"] == []
        (i,) = chart["traces"]
        assert arrays[i].tobytes() == np.asarray(want["x_hat"], dtype="<f8").tobytes()
    lo, hi = sent["ranges"][standardize.CHART_NEAR]  # type: ignore[index]  # a fixed axis holds every frame
    every = np.concatenate(arrays)
    assert lo < every.min() and every.max() < hi and lo <= 0 <= hi


@pytest.mark.parametrize("spread", SPREADS)
def test_the_near_chart_changes_only_where_the_browser_patches_it(spread: float) -> None:
    base = json.loads(plot.figure_json(standardize.near_figure(standardize.spread_frame(1e-5, 1e-3))))
    frame = standardize.spread_frame(1e-5, spread)
    now = json.loads(plot.figure_json(standardize.near_figure(frame)))
    patched = json.loads(json.dumps(base))
    patched["data"][0]["y"] = now["data"][0]["y"]
    y = np.frombuffer(base64.b64decode(patched["data"][0]["y"]["bdata"]), dtype="<f8")
    assert y.tobytes() == frame.chart(standardize.CHART_NEAR).traces[0].tobytes()
    assert patched == now  # the band and its label do not move


# ---------------------------------------------------------------------------- the page


@pytest.fixture
def open_standardize() -> Callable[..., AppTest]:
    return page_opener("pages/3_standardize.py")


def shown_as_expected(at: AppTest, i: int, spread: float) -> None:
    x, eps = at.session_state["lab_input"].x, at.session_state["lab_input"].eps
    assert list(sliders(at)) == ["std_feature", "std_spread"]
    feature, near = sliders(at)["std_feature"], sliders(at)["std_spread"]
    assert feature["link"]["key"] == "std_feature" and feature["index"] == i - 1
    assert feature["link"]["urls"] == [str(k) for k in range(1, x.size + 1)]  # std_feature=3, as before
    assert feature["labels"] == [str(k) for k in range(1, x.size + 1)]  # the thumb reads 3, not 3.00
    assert near["link"] == {
        "key": "std_spread",
        "urls": [link_text(t) for t in SPREAD_TEXTS],
        "default": "1e-03",
    }
    assert near["index"] == SPREADS.index(spread)
    want = near_expected(eps, spread)
    assert [r["key"] for r in readouts(at)] == [standardize.FEATURE, standardize.NEAR]
    assert readouts(at)[0]["tex"] == feature_tex(x, eps, i)
    assert feature_tex(x, eps, i) in page_tex(at) and len(at.main.latex) == 0  # drawn by the readout alone
    assert page_metrics(at)[-3:] == want["metrics"]  # the spread's, last on the page
    (spec,) = [c.figure for c in charts(at) if c.key == standardize.CHART_NEAR]
    y = np.frombuffer(base64.b64decode(spec["data"][0]["y"]["bdata"]), dtype="<f8")
    assert y.tobytes() == np.asarray(want["x_hat"], dtype="<f8").tobytes()
    assert spec["layout"]["yaxis"]["autorange"] is False  # fixed over every spread: bars move, not the axis


@pytest.mark.parametrize(("i", "spread"), [(1, 1e-3), (5, 1e-8), (8, 1.0)])
def test_page_shows_the_frames_of_its_values(
    open_standardize: Callable[..., AppTest], i: int, spread: float
) -> None:
    at = open_standardize()
    at.slider(key="std_feature").set_value(float(i))
    at.select_slider(key="std_spread").set_value(spread).run()
    assert not at.exception
    shown_as_expected(at, i, spread)


@pytest.mark.parametrize(("text", "i"), [("3", 3), ("8", 8), ("3.0", 3), ("2.6", 3), ("99", 8), ("0", 1)])
def test_a_feature_link_opens_its_feature(
    open_standardize: Callable[..., AppTest], text: str, i: int
) -> None:
    at = open_standardize(std_feature=text)
    assert at.slider(key="std_feature").value == i
    shown_as_expected(at, i, 1e-3)
    said = [str(e.value) for e in [*at.main.info, *at.main.warning, *at.sidebar.info, *at.sidebar.warning]]
    assert any(f"feature i = {i}." in s for s in said) is (text not in ("3", "8", "3.0"))


@pytest.mark.parametrize(("text", "spread"), [("1e-08", 1e-8), ("1e-5", 1e-5), ("0.01", 1e-2), ("1", 1.0)])
def test_a_spread_link_opens_its_spread(
    open_standardize: Callable[..., AppTest], text: str, spread: float
) -> None:
    at = open_standardize(std_spread=text)
    assert at.select_slider(key="std_spread").value == spread
    shown_as_expected(at, 1, spread)


def test_the_feature_survives_a_change_of_d(open_standardize: Callable[..., AppTest]) -> None:
    """As with the number box it replaced: kept when still offered, moved to d when d got smaller."""
    at = open_standardize()
    at.slider(key="std_feature").set_value(6.0).run()
    at.select_slider(key="d").set_value(16).run()
    at.run()  # the whole page (the sidebar's d reran only the lab section)
    assert not at.exception
    shown_as_expected(at, 6, 1e-3)
    at.select_slider(key="d").set_value(4).run()
    at.run()
    shown_as_expected(at, 4, 1e-3)


def test_one_feature_has_no_slider_and_its_formula(open_standardize: Callable[..., AppTest]) -> None:
    at = open_standardize(src="Type numbers", typed="7")
    assert list(sliders(at)) == ["std_spread"]
    assert readouts(at)[0]["tex"] == feature_tex(np.array([7.0]), 1e-5, 1)
