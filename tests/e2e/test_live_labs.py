"""The numerics labs' live controls answer during a mouse drag (ui.live), with the core's numbers.

For each live control (Precision's offset, Gradients' spread, and the sidebar's ε on Estimators and ε,
Precision and Gradients) a page-side recorder takes, on animation
frames during a drag, what the student sees: the slider's value label and every live readout's formula
(KaTeX keeps its TeX in the MathML annotation) and metrics. The readouts must change during the drag,
each recorded frame must equal what the page's per-value function (``ui.live.precision`` /
``ui.live.gradients``, built on the core) gives for the value the slider shows, and after release the
page, now drawn from the server's run, must show exactly the last live frame, with the URL carrying it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pytest
from playwright.sync_api import expect

import layernorm as ln
from e2e.support import (
    READOUT_JS,
    AppPage,
    Lab,
    live_ready,
    page_by_url,
    record_drag,
    recorder_js,
    thumb_track,
)
from ui import links
from ui.live import Frame
from ui.live import estimators as le
from ui.live import gradients as lg
from ui.live import precision as lp
from ui.settings import EPS_CHOICES, eps_text
from ui.widgets import SPREADS

pytestmark = pytest.mark.browser

DEFAULT_X = ln.make_preset("standard normal", 8, 0)  # the sidebar's default vector
DEFAULT_G = np.random.default_rng([15, 0]).standard_normal(8)  # Gradients' default upstream gradient


def estimators_at(eps: float) -> Frame:
    """Estimators and ε as it opens (the sidebar's vector and ε, ÷d, ε inside) at the sidebar's ``eps``."""
    name = f"÷d, ε inside, ε = {f'{eps:.3g}'.replace('-', '−')}"
    return le.frame(DEFAULT_X, ddof=0, inside=True, eps=eps, variant_name=name)


def gradients_at(eps: float, g: np.ndarray = DEFAULT_G) -> Frame:
    """Gradients as it opens (random g of seed 0, γ = 1, spread 1e-04) at the sidebar's ``eps``."""
    terms = ln.layer_norm_backward_terms(DEFAULT_X, np.ones(8), g, eps=eps)
    return Frame(lg.backward_frame(terms, 8).readouts + lg.frame(eps, lg.SPREAD_START).readouts)


def pick_one_hot(lab: Lab) -> None:
    """Gradients' g = one-hot at k = 1: a page control's move, after which the sidebar's frames are
    stale until the browser asks for new ones."""
    main = lab.page.locator('[data-testid="stMain"]')
    main.locator('[data-testid="stRadio"] label').filter(has_text=re.compile(r"^One-hot$")).click()
    expect(lab.page).to_have_url(re.compile(r"grad_kind=One-hot"))
    expect(main.get_by_label("One-hot at k =")).to_be_enabled()  # the run that answers the click has drawn
    lab.wait_idle()


def sidebar_eps(page: str, frame: Callable[[float], Frame]) -> Live:
    return Live(page_by_url(page), "eps", EPS_CHOICES, [eps_text(e) for e in EPS_CHOICES], 1e-5, 1.0, frame)


@dataclass(frozen=True)
class Live:
    page: AppPage
    key: str  # the URL key; the live slider is <key>_live
    values: list[float]
    labels: list[str]
    start: float  # the value the page opens with
    end: float  # where the drag goes
    frame: Callable[[float], Frame]  # the page's per-value function, at the page's default input
    first: Callable[[Lab], None] | None = None  # what the student does before the drag


CONTROLS = {
    "precision offset": Live(
        page_by_url("/precision"),
        "prec_offset",
        lp.OFFSETS,
        [lp.offset_text(o) for o in lp.OFFSETS],
        lp.DEFAULT,
        1e8,
        lambda o: lp.frame(DEFAULT_X, 1e-5, "float32", o),
    ),
    "gradients spread": Live(
        page_by_url("/gradients"),
        "grad_spread",
        SPREADS,
        [lg.spread_text(s) for s in SPREADS],
        lg.SPREAD_START,
        SPREADS[-1],
        lambda s: lg.frame(1e-5, s),
    ),
    "estimators sidebar eps": sidebar_eps("/estimators_and_eps", estimators_at),
    "gradients sidebar eps": sidebar_eps("/gradients", gradients_at),
    "gradients sidebar eps after g moved": replace(
        sidebar_eps("/gradients", lambda e: gradients_at(e, np.eye(8)[0])), first=pick_one_hot
    ),
}

# What the student sees now, read from the page: the live slider's label and every live readout.
SEEN_JS = """
(key) => {
  const live = document.querySelector(`.st-key-${key}_live`);
  const readout = READOUT;
  const readouts = {};
  for (const box of document.querySelectorAll('[class*="st-key-live_readout_"]')) {
    const name = [...box.classList].find((c) => c.startsWith("st-key-live_readout_")).slice(20);
    readouts[name] = readout(box);
  }
  return {label: live.querySelector(".lab-live-value").textContent,
          thumb: live.querySelector("input").value, readouts};
}
""".replace("READOUT", READOUT_JS)
RECORD_JS = recorder_js(SEEN_JS)


def expected(c: Live, label: str) -> dict[str, Any]:
    f = c.frame(c.values[c.labels.index(label)])
    return {
        r.key: {"tex": r.tex, "metrics": [[m.label, m.value, m.delta or ""] for m in r.metrics]}
        for r in f.readouts
    }


@pytest.mark.parametrize("name", list(CONTROLS))
def test_a_drag_shows_the_cores_numbers_on_every_frame_and_release_keeps_them(lab: Lab, name: str) -> None:
    c = CONTROLS[name]
    lab.open(c.page)
    if c.first is not None:
        c.first(lab)
    live = f".st-key-{c.key}_live"
    thumb = lab.page.locator(f"{live} input[type=range]")
    thumb.scroll_into_view_if_needed()
    expect(thumb).to_be_visible()
    live_ready(lab.page, c.key)
    for key in expected(c, c.labels[0]):  # KaTeX loaded: every live formula is typeset
        if expected(c, c.labels[0])[key]["tex"] is not None:
            lab.page.locator(f".st-key-live_readout_{key} .katex").first.wait_for()
    before = lab.page.evaluate(f"(key) => ({SEEN_JS})(key)", c.key)
    assert before["label"] == c.labels[c.values.index(c.start)]
    keys = list(expected(c, c.labels[0]))  # the readouts this control's frames hold

    def mine(seen: dict[str, Any]) -> dict[str, Any]:
        return {k: seen["readouts"][k] for k in keys}

    def others(seen: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in seen["readouts"].items() if k not in keys}

    assert mine(before) == expected(c, before["label"])  # the page as it opens

    left, right, y = thumb_track(thumb)
    last = len(c.values) - 1
    start = left + (right - left) * c.values.index(c.start) / last
    stop = left + (right - left) * c.values.index(c.end) / last
    frames = record_drag(lab.page, RECORD_JS, c.key, y, start, stop)

    assert not [f for f in frames if "error" in f], frames[:3]
    shown = {f["label"]: f for f in frames}  # one recorded frame per value shown
    assert len(shown) >= 4, f"the numbers followed the thumb on too few frames: {list(shown)}"
    assert len({repr(mine(f)) for f in shown.values()}) == len(shown)  # each value its own numbers
    for label, seen in shown.items():
        assert mine(seen) == expected(c, label), label
        assert others(seen) == others(before), label  # what other controls show stays as it was
    end = frames[-1]
    assert c.labels[int(end["thumb"])] == end["label"] == c.labels[-1 if c.end == c.values[-1] else 0]

    # as the lab writes a number into a link: ASCII, no "+" (1e+00 is 1e0)
    expect(lab.page).to_have_url(re.compile(rf"{c.key}={re.escape(links.link_text(end['label']))}(&|$)"))
    lab.wait_idle()
    after = lab.page.evaluate(f"(key) => ({SEEN_JS})(key)", c.key)
    assert after == end  # the released page: the last live frame at every digit
    lab.assert_clean()
