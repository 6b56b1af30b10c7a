"""What a student sees while dragging a slider, in real Chromium: updates per second during the drag.

Run from the repository root (a benchmark: it prints a table and asserts nothing)::

    .venv/bin/python benchmarks/bench_drag.py [--targets /mean:mean_shift,/mean?d=4096:mean_shift,/mean:bar2]
        [--repeats 3] [--moves 90] [--seconds 1.5] [--json out.json]

Two fresh servers on loopback (``scripts/browser.streamlit_server``): the app and
``benchmarks/trivial_app.py`` (one ``st.slider``, one Plotly line), driven by one headless Debian
Chromium. For each target (a page and the widget key of one control, or ``barN`` for feature N's bar
of the page's input chart), the page is opened in a fresh tab, and the mouse drags the control's
thumb: down on the thumb, ``--moves`` moves spread over ``--seconds`` (40 % of the track's width, to
the right, or to the left past the middle; a bar: 40 % of its column, up or down), up.

What counts as an update: an animation frame in which something a student reads changed: the text of
a formula (KaTeX) or of a metric, or a chart's SVG (``.main-svg``). A ``MutationObserver`` on the
document and on every open shadow root marks such changes (the control's own thumb and value label
are not watched); a ``requestAnimationFrame`` loop stamps the frames that had one. Per drag:

- ``steps``: frames in which the control's own value changed during the drag (a slider of 201 values
  passes 80 of them over 40 % of its track): no page can show more distinct values than that;
- ``updates``: frames with an update between the mouse's down and up, and ``per s`` over the drag;
- ``longest gap``: the longest time without an update during the drag (its start and end count as
  edges: a drag with no update has the whole drag as its gap);
- ``release → settled``: from the mouse's up to the last update after it, once the app is idle and
  nothing changed for a second (``n/a`` when nothing changed after release).

The trivial page is measured the same way before and after the app's targets. The load average is
printed with the table: the machine has 2 cores shared with other jobs.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import os
import statistics
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]  # as tests/e2e does: `scripts.*` and `e2e.*`
from bench_browser import TRIVIAL_KEY, holder, servers_and_chromium  # noqa: E402
from e2e.support import RENDERED_CHART, live_ready  # noqa: E402
from playwright.sync_api import Page  # noqa: E402

from scripts.browser import IDLE  # noqa: E402

WAIT_MS = 60_000
QUIET_MS = 1000  # settled: idle and no update for this long
WATCHED = (
    ".katex, [data-testid='stMetric'], [data-testid='labLiveFormula'], [data-testid='labLiveMetrics'], "
    ".main-svg"
)

# Installed in the tab before a drag; window.__dragProbe.stop(upAt) resolves with the frames' times.
PROBE_JS = """
([watched, control]) => {
  // steps: the frames in which the control's own value changed (what the thumb went through)
  const probe = {dirty: false, frames: [], steps: [], stopped: false, observers: [], value: null};
  const value = () => {
    const el = document.querySelector(control[0]) ?? document.querySelector(control[1]);
    return el ? el.getAttribute("aria-valuenow") ?? el.value : null;
  };
  const hit = (node) => {
    const el = node.nodeType === 1 ? node : node.parentElement;
    return el && el.closest(watched);
  };
  const holds = (node) => node.nodeType === 1 && (node.matches(watched) || node.querySelector(watched));
  const touched = (r) => hit(r.target) || [...r.addedNodes, ...r.removedNodes].some(holds);
  const note = (records) => { if (records.some(touched)) probe.dirty = true; };
  const observe = (root) => {
    const o = new MutationObserver(note);
    o.observe(root, {subtree: true, childList: true, characterData: true, attributes: true});
    probe.observers.push(o);
  };
  observe(document.body);
  const walk = (root) => {  // open shadow roots (a component with isolated styles) are watched too
    for (const el of root.querySelectorAll("*")) {
      if (el.shadowRoot) { observe(el.shadowRoot); walk(el.shadowRoot); }
    }
  };
  walk(document);
  const tick = (t) => {
    if (probe.stopped) return;
    if (probe.dirty) { probe.frames.push(t); probe.dirty = false; }
    const now = value();
    if (now !== probe.value) { if (probe.value !== null) probe.steps.push(t); probe.value = now; }
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
  window.__dragProbe = probe;
}
"""
STOP_JS = """() => {
  const p = window.__dragProbe;
  p.stopped = true;
  p.observers.forEach((o) => o.disconnect());
  return [p.frames, p.steps];
}"""
LAST_JS = "() => { const f = window.__dragProbe.frames; return [performance.now(), f.at(-1) ?? null]; }"


@dataclass
class Drag:
    updates: int
    per_s: float
    longest_gap_ms: float
    settled_ms: float | None
    drag_ms: float
    steps: int  # frames in which the control's value changed during the drag


@dataclass
class Row:
    name: str
    drags: list[Drag] = field(default_factory=list)
    error: str = ""

    def median(self, what: str) -> float:
        xs = [getattr(d, what) for d in self.drags if getattr(d, what) is not None]
        return float(statistics.median(xs)) if xs else float("nan")


def thumb_and_track(page: Page, key: str) -> tuple[float, float, float, float]:
    """Where the control's thumb is and how far its track goes: (thumb x, track left, right, y), px.

    A live slider (``ui.live``) is a visible native range input; ``st.slider``'s input is hidden and
    its thumb is the absolutely positioned element two levels up (docs/TESTING.md).
    """
    live = holder(page, f"{key}_live").locator("input[type=range]")
    if live.count():
        live_ready(page, key)
        live.first.scroll_into_view_if_needed()  # below the fold on a 720-pixel window, or in the sidebar
        box = live.first.bounding_box()
        assert box is not None
        lo, hi = (float(live.first.get_attribute(a) or 0) for a in ("min", "max"))
        v = float(live.first.input_value())
        left, right = box["x"] + 7, box["x"] + box["width"] - 7  # the thumb's centre stays 7 px inside
        return left + (v - lo) / (hi - lo) * (right - left), left, right, box["y"] + box["height"] / 2
    thumb = holder(page, key).get_by_role("slider").first.locator("xpath=../..")
    tb, sb = thumb.bounding_box(), holder(page, key).locator('[data-testid="stSlider"]').first.bounding_box()
    assert tb is not None and sb is not None
    return tb["x"] + tb["width"] / 2, sb["x"], sb["x"] + sb["width"], tb["y"] + tb["height"] / 2


def bar_path(page: Page, feature: str) -> tuple[float, float, float, float]:
    """A dragged bar of the vector (``ui.live.vector``): from its top, 40 % of its column up (or down,
    past the middle): (x, y0, y1). The student reaches for it first, which fetches its frames."""
    bar = page.locator(f'.lab-bar-input[data-feature="{feature}"]')
    bar.hover()
    page.locator(f'.lab-bar-input[data-feature="{feature}"][data-frames=ready]').wait_for(timeout=WAIT_MS)
    box = bar.bounding_box()
    assert box is not None
    at = float(bar.input_value()) / float(bar.get_attribute("max") or 1)
    thumb = 6  # px, live.css's handle: the input's ends reach past the axis by half of it
    y0 = box["y"] + thumb / 2 + (1 - at) * (box["height"] - thumb)
    span = 0.4 * (box["height"] - thumb)
    y1 = y0 - span if y0 - span >= box["y"] else y0 + span
    return box["x"] + box["width"] / 2, y0, box["x"] + box["width"] / 2, y1


def drag_once(page: Page, key: str, moves: int, seconds: float) -> Drag:
    page.locator(IDLE).wait_for(timeout=WAIT_MS)
    if key.startswith("bar"):  # "bar2": feature 2's bar of the page's input chart
        x0, y0, x1, y1 = bar_path(page, key.removeprefix("bar"))
        control = [f'.lab-bar-input[data-feature="{key.removeprefix("bar")}"]'] * 2
    else:
        x0, left, right, y0 = thumb_and_track(page, key)
        span = 0.4 * (right - left)
        x1, y1 = (x0 + span if x0 + span <= right else x0 - span), y0
        control = [f".st-key-{key}_live input[type=range]", f".st-key-{key} input[type=range]"]
    page.evaluate(PROBE_JS, [WATCHED, control])
    page.mouse.move(x0, y0)
    down = page.evaluate("performance.now()")
    page.mouse.down()
    start = time.perf_counter()
    for i in range(1, moves + 1):
        page.mouse.move(x0 + (x1 - x0) * i / moves, y0 + (y1 - y0) * i / moves)
        wait = start + seconds * i / moves - time.perf_counter()
        if wait > 0:
            time.sleep(wait)  # a benchmark paces the hand; tests never sleep
    up = page.evaluate("performance.now()")
    page.mouse.up()
    deadline = time.perf_counter() + 15
    while time.perf_counter() < deadline:  # settled: idle and quiet for QUIET_MS
        now, last = page.evaluate(LAST_JS)
        idle = page.locator(IDLE).count() > 0
        if idle and now - max(up, last or up) > QUIET_MS:
            break
        time.sleep(0.05)
    frames, steps = page.evaluate(STOP_JS)
    during = [t for t in frames if down <= t <= up]
    after = [t for t in frames if t > up]
    edges = [down, *during, up]
    gap = max(b - a for a, b in itertools.pairwise(edges))
    drag_ms = up - down
    settled = (after[-1] - up) if after else None
    moved = len([t for t in steps if down <= t <= up])
    return Drag(len(during), 1000 * len(during) / drag_ms, gap, settled, drag_ms, moved)


def measure(page: Page, name: str, key: str, args: argparse.Namespace) -> Row:
    row = Row(name)
    try:
        page.bring_to_front()
        for _ in range(args.repeats):
            row.drags.append(drag_once(page, key, args.moves, args.seconds))
    except Exception as exc:  # a benchmark reports what failed and goes on
        row.error = f"{type(exc).__name__}: {str(exc).splitlines()[0][:100]}"
    return row


def open_tab(ctx: Any, url: str) -> Page:
    tab = ctx.new_page()
    tab.goto(url)
    drawn = f"{RENDERED_CHART}, [data-testid='stPlotlyChart'] .main-svg, [data-testid=labLiveFormula] .katex"
    tab.locator(drawn).first.wait_for(timeout=WAIT_MS)  # a chart, or a formula where none (Home)
    tab.locator(IDLE).wait_for(timeout=WAIT_MS)
    # the control, drawn (a live slider's hidden twin never is)
    where = ":is([data-testid='stMain'], [data-testid='stSidebar'])"
    control = f"{where} :is(input[type=range], [role=slider]):visible"
    tab.locator(control).first.wait_for(timeout=WAIT_MS)
    return tab


def fmt(x: float | None, spec: str = ".0f") -> str:
    return "n/a" if x is None or x != x else format(x, spec)


def report(rows: list[Row], trivial: list[Row]) -> None:
    base_settled = statistics.mean(t.median("settled_ms") for t in trivial)
    head = (
        f"{'target':<28} {'n':>2} {'steps':>5} {'updates':>7} {'per s':>6} {'longest gap ms':>14} "
        f"{'release→settled ms':>18} {'× trivial':>9}  notes"
    )
    print(head)
    print("-" * len(head))
    for r in [trivial[0], *rows, *trivial[1:]]:
        settled, updates, per_s, gap = map(r.median, ("settled_ms", "updates", "per_s", "longest_gap_ms"))
        print(
            f"{r.name:<28} {len(r.drags):>2} {fmt(r.median('steps')):>5} {fmt(updates):>7} "
            f"{fmt(per_s, '.1f'):>6} {fmt(gap):>14} "
            f"{fmt(settled):>18} {fmt(settled / base_settled, '.2f'):>8}×  {r.error}"
        )
    load = os.getloadavg()
    print(f"\nmedians over the drags; load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--targets", default="/mean:mean_shift,/mean?d=768:mean_shift,/mean?d=4096:mean_shift"
    )
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--moves", type=int, default=90)
    parser.add_argument("--seconds", type=float, default=1.5)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    targets = [t.rsplit(":", 1) for t in args.targets.split(",") if t]
    with contextlib.ExitStack() as stack:
        _, triv_url, app_url, ctx = servers_and_chromium(stack, "bench_drag_", 1280, 720)
        trivial = [measure(open_tab(ctx, triv_url), "trivial page (before)", TRIVIAL_KEY, args)]
        rows = []
        for path, key in targets:
            tab = open_tab(ctx, app_url + path)
            rows.append(measure(tab, f"{path} {key}", key, args))
            print(f"{rows[-1].name}: {[asdict(d) for d in rows[-1].drags]} {rows[-1].error}", file=sys.stderr)
            tab.close()
        trivial.append(measure(open_tab(ctx, triv_url), "trivial page (after)", TRIVIAL_KEY, args))
    report(rows, trivial)
    if args.json:
        args.json.write_text(json.dumps([asdict(r) for r in [*trivial, *rows]], indent=1))


if __name__ == "__main__":
    main()
