"""The live sliders by keyboard (ui.live): PhET's steps, a visible focus, and no frame that shows another
value's numbers than the thumb's, whatever the keys' pace.

Arrow keys move a live slider one value, Shift+arrow and Page Up / Page Down a tenth of its values, Home
and End to its ends. Each press commits its value, and the server answers each one with a run; presses
quicker than the runs used to let an older press's answer redraw the readouts after a newer press had
moved the thumb (Invariances' slider read c = 100 while the formula said c = 10; Gradients, Variance and
Mean for 4–17 frames). A page-side recorder takes, on every animation frame once the page's own frame
callbacks have run (``e2e.support.painted_recorder_js``), the thumb's value, its label and every live
readout, while the keys go down 50, 150 and 300 ms apart; each frame must be the core's numbers for the
value the thumb shows.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from playwright.sync_api import expect

import layernorm as ln
from e2e.support import READOUT_JS, AppPage, Lab, page_by_url, painted_recorder_js, query
from ui.live import Frame, dyt, mean, offered, variance
from ui.live import gradients as lg
from ui.live import invariances as inv
from ui.live.standardize import spread_text
from ui.widgets import SPREADS

pytestmark = pytest.mark.browser

EPS = 1e-5
DEFAULT_X = ln.make_preset("standard normal", 8, 0)  # the sidebar's vector on a fresh page
MEAN_X = np.array([1.0, 2.5, -3.0, 40.0])


@dataclass(frozen=True)
class Keys:
    """A live slider, what the page shows at each of its values (the core's), and the keys to press."""

    page: AppPage
    key: str
    values: list[float]
    labels: list[str]
    frame: Callable[[float], Frame]
    presses: list[str]
    query: str = ""
    charts: tuple[str, ...] = ()  # bar charts whose bars the test checks too (one y axis each)


def _mean_values() -> list[float]:
    lo, hi, _, step = mean.SHIFT
    return offered(lo, hi, step)


CASES = {
    "mean": Keys(
        page_by_url("/mean"),
        "mean_shift",
        _mean_values(),
        [f"{c:.2f}" for c in _mean_values()],
        lambda c: mean.frame(MEAN_X, EPS, c),
        ["ArrowRight"] * 4 + ["ArrowLeft"] * 2,
        query(src="Type numbers", typed="1, 2.5, -3, 40"),
        (mean.CHART_X, mean.CHART_CENTERED),
    ),
    "invariances": Keys(
        page_by_url("/invariances"),
        "inv_c",
        list(inv.C_CHOICES),
        [inv.c_text(c) for c in inv.C_CHOICES],
        lambda c: inv.frame(DEFAULT_X, EPS, np.ones(8), np.zeros(8), c, 1.0),
        ["ArrowRight"] * 2 + ["ArrowLeft"] * 4,  # c = 2 → 100 → 0.1
    ),
    "variance": Keys(
        page_by_url("/variance"),
        "var_scale",
        list(variance.SCALES),
        [variance.scale_text(a) for a in variance.SCALES],
        lambda a: variance.with_passes(
            variance.frame(DEFAULT_X, EPS, a), DEFAULT_X, a, variance.OFFSET_DEFAULT
        ),
        ["ArrowRight"] * 3 + ["ArrowLeft"] * 2,
    ),
    "gradients": Keys(
        page_by_url("/gradients"),
        "grad_spread",
        list(SPREADS),
        [spread_text(s) for s in SPREADS],
        lambda s: lg.frame(EPS, s),
        ["ArrowRight"] * 3 + ["ArrowLeft"] * 2,
    ),
    "normalization_now": Keys(  # a page of its own data (MiniLM's Layer 0 · after FFN, sentence 2)
        page_by_url("/normalization_now"),
        "now_alpha",
        list(dyt.ALPHAS),
        [dyt.alpha_text(a) for a in dyt.ALPHAS],
        lambda a: dyt.frame(2, 1, a),
        ["ArrowRight"] * 3 + ["ArrowLeft"] * 2,
    ),
}

# What the student sees: the thumb (the range input's value), the label over it and its value text,
# each readout the slider's frames hold, and the bars of the charts named: each bar's top in px and the
# y axis' map from values to px (linear: px = m·value + b).
SEEN_JS = """
(a) => {
  const live = document.querySelector(`.st-key-${a.key}_live`);
  const input = live.querySelector("input");
  const charts = a.charts.map((key) => {
    const plot = document.querySelector(`.st-key-${key} .lab-chart`);
    const tops = Array.from(plot.querySelectorAll("g.trace.bars g.point path"), (path) =>
      Number(/V([-0-9.e]+)H/.exec(path.getAttribute("d"))[1]));
    return {tops, m: plot._fullLayout.yaxis._m, b: plot._fullLayout.yaxis._b};
  });
  return {
    thumb: Number(input.value),
    label: live.querySelector(".lab-live-value").textContent,
    valuetext: input.getAttribute("aria-valuetext"),
    readouts: a.readouts.map((k) => (READOUT)(document.querySelector(`.st-key-live_readout_${k}`))),
    charts,
  };
}
""".replace("READOUT", READOUT_JS)
RECORD_JS = painted_recorder_js(SEEN_JS)


def shown(f: Frame) -> list[dict[str, Any]]:
    return [
        {"tex": r.tex, "metrics": [[m.label, m.value, m.delta or ""] for m in r.metrics]} for r in f.readouts
    ]


def bars_at(seen: list[dict[str, Any]], case: Keys, v: float) -> bool:
    """Whether every bar of the charts named stands where the core's value at ``v`` puts it on its axis
    (Plotly, at rest, and the drag's moves both write px to a hundredth)."""
    f = case.frame(v)
    for key, chart in zip(case.charts, seen, strict=True):
        px = [chart["m"] * y + chart["b"] for y in f.chart(key).traces[0]]
        if chart["tops"] != pytest.approx(px, abs=0.006):
            return False
    return True


def focus_ready(lab: Lab, case: Keys) -> Any:
    """The slider's thumb, focused (reached for by keyboard: its frames are asked for if missing), with
    every readout typeset and a frame for every value."""
    thumb = lab.page.locator(f".st-key-{case.key}_live input[type=range]")
    thumb.evaluate("(e) => e.scrollIntoView({block: 'center'})")
    thumb.focus()
    expect(lab.page.locator(f".st-key-{case.key}_live .lab-live")).to_have_attribute("data-frames", "ready")
    for key in case.charts:
        lab.page.locator(f".st-key-{key} .main-svg").first.wait_for()
    for r in case.frame(case.values[0]).readouts:
        if r.tex is not None:
            lab.page.locator(f".st-key-live_readout_{r.key} .katex").first.wait_for()
    return thumb


@pytest.mark.parametrize("interval", [50, 150, 300])
@pytest.mark.parametrize("name", list(CASES))
def test_every_frame_shows_the_thumbs_numbers_whatever_the_keys_pace(
    lab: Lab, name: str, interval: int
) -> None:
    case = CASES[name]
    lab.open(case.page, case.query)
    focus_ready(lab, case)
    keys = [r.key for r in case.frame(case.values[0]).readouts]
    lab.page.evaluate(RECORD_JS, {"key": case.key, "readouts": keys, "charts": list(case.charts)})
    for key in case.presses:
        # key down, `interval` ms, key up: the next key goes down `interval` ms after this one
        lab.page.keyboard.press(key, delay=interval)
    lab.wait_idle()  # every press's value answered by the server
    frames: list[dict[str, Any]] = lab.page.evaluate(
        "() => { window.__stop = true; return window.__frames; }"
    )

    assert not [f for f in frames if "error" in f], frames[:3]
    thumbs = [f["thumb"] for f in frames]
    assert len(set(thumbs)) >= 3, f"the keys moved the thumb through too few values: {thumbs}"
    expected = {i: shown(case.frame(case.values[i])) for i in set(thumbs)}
    wrong = []
    for n, f in enumerate(frames):
        label = case.labels[f["thumb"]]
        found = {
            "label": f["label"] == label,
            "readouts": f["readouts"] == expected[f["thumb"]],
            "bars": bars_at(f["charts"], case, case.values[f["thumb"]]),
        }
        if not all(found.values()):
            wrong.append((n, label, [what for what, right in found.items() if not right], f["readouts"]))
    assert not wrong, (
        f"{len(wrong)} of {len(frames)} frames showed other numbers than the thumb's: {wrong[:2]}; "
        f"the thumbs frame by frame: {[case.labels[t] for t in thumbs]}; the thumb's numbers: "
        f"{[expected[frames[n]['thumb']] for n, *_ in wrong[:1]]}"
    )
    assert frames[-1]["valuetext"] == case.labels[frames[-1]["thumb"]]
    lab.assert_clean()


# PhET's keys on a slider of 201 values (Mean's c, −10 … 10 in steps of 0.1, at 0): a tenth is 20 values.
STEPS = [
    ("ArrowRight", "0.10"),
    ("Shift+ArrowRight", "2.10"),
    ("PageUp", "4.10"),
    ("Shift+ArrowLeft", "2.10"),
    ("PageDown", "0.10"),
    ("ArrowLeft", "0.00"),
    ("End", "10.00"),
    ("PageUp", "10.00"),  # at the end: nowhere to go
    ("Home", "-10.00"),
    ("Shift+ArrowDown", "-10.00"),
    ("Shift+ArrowUp", "-8.00"),
]


def test_phet_keys_small_large_and_to_the_ends(lab: Lab) -> None:
    case = CASES["mean"]
    lab.open(case.page, case.query)
    thumb = focus_ready(lab, case)
    mu = lab.page.locator(f".st-key-live_readout_{mean.READOUT} [data-testid=stMetricValue]").nth(1)
    for key, label in STEPS:
        thumb.press(key)
        expect(thumb).to_have_attribute("aria-valuetext", label)
        c = case.values[case.labels.index(label)]
        if c:
            expect(lab.page).to_have_url(re.compile(rf"mean_shift={re.escape(f'{c:g}')}(&|$)"))
        else:  # the default: the address leaves it out
            expect(lab.page).not_to_have_url(re.compile("mean_shift="))
        lab.wait_idle()
        expect(mu).to_have_text(mean.frame(MEAN_X, EPS, c).readout(mean.READOUT).metrics[1].value)
    lab.assert_clean()


FOCUS_JS = (
    """(e) => { const s = getComputedStyle(e); return [s.outlineStyle, parseFloat(s.outlineWidth)]; }"""
)


def test_a_live_slider_reached_by_tab_shows_its_focus(lab: Lab) -> None:
    case = CASES["mean"]
    lab.open(case.page, case.query)
    thumb = lab.page.locator(f".st-key-{case.key}_live input[type=range]")
    thumb.focus()
    lab.page.keyboard.press("Shift+Tab")
    lab.page.keyboard.press("Tab")  # by keyboard: :focus-visible
    expect(thumb).to_be_focused()
    style, width = thumb.evaluate(FOCUS_JS)
    assert style == "solid" and width >= 2, (style, width)
    lab.page.keyboard.press("Tab")
    assert thumb.evaluate(FOCUS_JS)[0] == "none"  # only while focused
    lab.assert_clean()
