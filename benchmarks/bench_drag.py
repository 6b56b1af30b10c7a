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

``--touch`` measures what a finger sees instead, on every live control by default (``--targets`` to
choose): each target is dragged by a finger in a phone-sized tab (390 × 844, Chromium's touch
emulation: ``has_touch``, ``is_mobile``, touches sent with CDP ``Input.dispatchTouchEvent``), and,
beside it, by a mouse in a 1280 × 720 tab. The hand scrolls the control into view (a sidebar control
on the phone: it opens the sidebar first), looks at it for ``--look-ms``, and presses at once, with no
hover before (the mouse comes from elsewhere and presses as soon as it reaches the thumb). Per drag,
counted on animation frames after the page's own frame callbacks (a ``ResizeObserver`` on a box the
probe resizes each frame):

- ``ready``: the control had its frames when the finger (or button) went down;
- ``passed``: the values the thumb stood at during the drag, other than the one it started on;
- ``shown``: of those, the values for which the page showed that value's frame while the thumb stood
  there (every readout and chart of the frame as the browser drew it from the server's frames);
- ``first ms``: from the finger (or button) going down to the first frame showing a moved value's
  numbers (``n/a``: none); ``thumb ms``: to the first frame in which the thumb had moved (a finger's
  first few pixels are Chromium's touch slop: the thumb waits for them).

``--rtt-ms`` hands each of the server's messages to the page that much later, as a classroom's Wi-Fi
would (the server is on loopback here).

    .venv/bin/python benchmarks/bench_drag.py --touch [--url http://127.0.0.1:8670] [--look-ms 500]
        [--rtt-ms 150] [--seconds 0.4 --moves 24]
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import os
import statistics
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]  # as tests/e2e does: `scripts.*` and `e2e.*`
from bench_browser import TRIVIAL_KEY, holder, servers_and_chromium  # noqa: E402
from e2e.support import RENDERED_CHART, live_ready  # noqa: E402
from playwright.sync_api import Browser, Page, ViewportSize, sync_playwright  # noqa: E402

from scripts.browser import CHROMIUM, CHROMIUM_ARGS, IDLE, streamlit_server  # noqa: E402

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


# --- --touch: the values a finger's drag shows -------------------------------------------------------

# Every live control: the pages' own sliders, a vector's bar on each page that draws one, and the
# sidebar's ε, γ and β (on Full formula, where each of them moves the numbers).
EVERY_LIVE = (
    "/mean:mean_shift,/mean:bar2,/variance:var_scale,/variance:var_offset,/variance:bar2,"
    "/standardize:std_feature,/standardize:std_spread,/standardize:bar2,/scale_shift:bar2,"
    "/full_formula:bar2,/full_formula:eps,/full_formula:gamma,/full_formula:beta,/precision:prec_offset,"
    "/invariances:inv_c,/invariances:inv_b,/invariances:geo_gamma1,/invariances:geo_beta1,"
    "/gradients:grad_spread"
)
SIDEBAR_KEYS = {"eps", "gamma", "beta"}
PHONE: ViewportSize = {"width": 390, "height": 844}

# Installed before a drag: on every animation frame, once the page's own frame callbacks have run
# (a ResizeObserver's callback comes after them and after layout, before paint), which value the
# thumb stands at and whether the page shows that value's frame: each readout's text as the browser
# last drew it (static/live/readout.js) and each chart as static/live/chart.js last moved it.
# window.__shownProbe.stop() returns [[time, value index, shown], ...].
SHOWN_PROBE_JS = """
(target) => {
  const live = globalThis.labLive;
  let bars = null, slider = null, feature = -1;
  if (target.startsWith("bar")) {
    feature = Number(target.slice(3)) - 1;
    for (const el of document.querySelectorAll(".lab-live")) {
      if (el.labBars?.inputs[feature]?.isConnected) bars = el.labBars;
    }
  } else {
    slider = document.querySelector(`.st-key-${target}_live .lab-live`)?.labLive ?? null;
  }
  const now = () => {
    if (bars) {
      const input = bars.inputs[feature];
      const k = Number(input.value);
      const p = bars.have.get(feature);
      return [k, p ? p.frames[k] : null, p];
    }
    const i = slider.index();
    const p = slider.payload && !slider.stale ? slider.payload : null;
    return [i, p ? p.frames[i] : null, p];
  };
  const said = (r) => live.readouts.get(r.key)?.shown === JSON.stringify(r);
  const drawn = (frame, p) => frame.readouts.every(said) && frame.charts.every((c) => {
      const plot = document.querySelector(`.st-key-${c.key} .lab-chart`);
      const d = plot?.labDrawn;
      return Boolean(d) && d[3] === p.decoded && JSON.stringify(d[0]) === JSON.stringify(c.traces)
        && JSON.stringify(d[2]) === JSON.stringify(c.lines);
    });
  const probe = {rows: [], stopped: false};
  const box = document.createElement("div");
  box.style.cssText = "position:fixed;left:0;top:0;height:1px;width:1px;visibility:hidden";
  document.body.append(box);
  const seen = new ResizeObserver(() => {
    if (probe.stopped) return;
    const [i, frame, p] = now();
    probe.rows.push([performance.now(), i, Boolean(frame) && drawn(frame, p)]);
  });
  seen.observe(box);
  let n = 0;
  const tick = () => {
    if (probe.stopped) return;
    box.style.width = `${1 + (++n % 2)}px`;
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
  probe.stop = () => { probe.stopped = true; seen.disconnect(); box.remove(); return probe.rows; };
  window.__shownProbe = probe;
}
"""


# --rtt-ms: the server's messages reach the page that much later, as over a classroom's Wi-Fi (the server
# is on loopback here): each one is handed to the page's listeners after a timer, in their order.
LATE_JS = """
(() => {
  const Native = window.WebSocket;
  const late = (f) => (e) => setTimeout(() => f(e), RTT);
  class Late extends Native {
    addEventListener(type, f, ...rest) {
      return super.addEventListener(type, type === "message" ? late(f) : f, ...rest);
    }
    set onmessage(f) { super.onmessage = f ? late(f) : f; }
    get onmessage() { return super.onmessage; }
  }
  window.WebSocket = Late;
})();
"""


@dataclass
class Shown:
    passed: int
    shown: int
    first_ms: float | None  # the first frame that showed a moved value's numbers
    thumb_ms: float | None  # the first frame in which the thumb had moved
    ready: bool = False  # the control had its frames when it was pressed


def reach(page: Page, target: str, touch: bool) -> tuple[float, float, float, float]:
    """Bring the control into view as a hand does; its path: (x0, y0, x1, y1)."""
    if target in SIDEBAR_KEYS and touch:  # a phone shows the sidebar when asked (the tab remembers)
        if page.locator('[data-testid="stSidebar"][data-collapsed="true"]').count():
            page.locator('[data-testid="stExpandSidebarButton"]').tap()
        page.locator('[data-testid="stSidebar"][data-collapsed="false"]').wait_for(timeout=WAIT_MS)
    if target.startswith("bar"):
        el = page.locator(f'.lab-bar-input[data-feature="{target.removeprefix("bar")}"]')
    else:
        el = page.locator(f".st-key-{target}_live input[type=range]")
    el.scroll_into_view_if_needed()
    # still for a frame (it asks once a frame): the sidebar has slid in, the scroll has ended
    page.wait_for_function(
        """(el) => { const r = el.getBoundingClientRect(), now = `${r.x} ${r.y}`, still = el.labWas === now;
             el.labWas = now; return still; }""",
        arg=el.element_handle(),
        timeout=WAIT_MS,
    )
    box = el.bounding_box()
    assert box is not None
    at = float(el.input_value()) / float(el.get_attribute("max") or 1)
    if target.startswith("bar"):
        thumb = 6  # px, live.css's handle: the input's ends reach past the axis by half of it
        y0 = box["y"] + thumb / 2 + (1 - at) * (box["height"] - thumb)
        span = 0.4 * (box["height"] - thumb)
        y1 = y0 - span if y0 - span >= box["y"] else y0 + span
        return box["x"] + box["width"] / 2, y0, box["x"] + box["width"] / 2, y1
    left, right = box["x"] + 7, box["x"] + box["width"] - 7  # the thumb's centre stays 7 px inside
    x0, y = left + at * (right - left), box["y"] + box["height"] / 2
    span = 0.4 * (right - left)
    return x0, y, (x0 + span if x0 + span <= right else x0 - span), y


def drag_shown(page: Page, target: str, touch: bool, args: argparse.Namespace) -> Shown:
    page.locator(IDLE).wait_for(timeout=WAIT_MS)
    x0, y0, x1, y1 = reach(page, target, touch)
    time.sleep(args.look_ms / 1000)  # the student looks, then presses: a benchmark paces the hand
    page.evaluate(SHOWN_PROBE_JS, target)
    control = (
        f'.lab-bar-input[data-feature="{target.removeprefix("bar")}"]'
        if target.startswith("bar")
        else f".st-key-{target}_live .lab-live"
    )
    ready = page.locator(control).get_attribute("data-frames") == "ready"
    if not touch:
        page.mouse.move(x0, y0)  # the pointer reaches the thumb and presses at once
    cdp = page.context.new_cdp_session(page) if touch else None

    def finger(kind: str, x: float, y: float) -> None:
        assert cdp is not None
        points = [] if kind == "touchEnd" else [{"x": x, "y": y}]
        cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})

    down = page.evaluate("performance.now()")
    if touch:
        finger("touchStart", x0, y0)
    else:
        page.mouse.down()
    start = time.perf_counter()
    for i in range(1, args.moves + 1):
        x, y = x0 + (x1 - x0) * i / args.moves, y0 + (y1 - y0) * i / args.moves
        finger("touchMove", x, y) if touch else page.mouse.move(x, y)
        wait = start + args.seconds * i / args.moves - time.perf_counter()
        if wait > 0:
            time.sleep(wait)
    up = page.evaluate("performance.now()")
    rows = page.evaluate("() => window.__shownProbe.stop()")
    finger("touchEnd", x1, y1) if touch else page.mouse.up()
    if cdp is not None:
        cdp.detach()
    during = [(t, i, ok) for t, i, ok in rows if down <= t <= up]
    if not during:
        return Shown(0, 0, None, None, ready)
    first = during[0][1]
    passed = {i for _, i, _ in during if i != first}
    shown = {i for _, i, ok in during if ok and i != first}
    firsts = [t - down for t, i, ok in during if ok and i != first]
    moved = [t - down for t, i, _ in during if i != first]
    return Shown(len(passed), len(shown), firsts[0] if firsts else None, moved[0] if moved else None, ready)


def shown_rows(
    browser: Browser, app_url: str, targets: list[list[str]], touch: bool, args: argparse.Namespace
) -> list[Any]:
    """Each target in a tab of a fresh browser context: a tab of the same context would open with the
    sidebar as the last one left it (Streamlit remembers it), over a phone's page."""
    rows = []
    for path, key in targets:
        if touch:
            ctx = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True, device_scale_factor=2)
        else:
            ctx = browser.new_context(viewport={"width": 1280, "height": 720})
        ctx.set_default_timeout(WAIT_MS)
        if args.rtt_ms:
            ctx.add_init_script(LATE_JS.replace("RTT", str(args.rtt_ms)))
        try:
            got: Shown | str = drag_shown(open_tab(ctx, app_url + path), key, touch, args)
        except Exception as exc:  # a benchmark reports what failed and goes on
            got = f"{type(exc).__name__}: {str(exc).splitlines()[0][:80]}"
        print(f"{'touch' if touch else 'mouse'} {path} {key}: {got}", file=sys.stderr)
        rows.append(got)
        ctx.close()
    return rows


def touch_table(args: argparse.Namespace) -> None:
    targets = [t.rsplit(":", 1) for t in (args.targets or EVERY_LIVE).split(",") if t]
    with contextlib.ExitStack() as stack:
        if args.url:
            app_url = args.url.rstrip("/")
        else:
            tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="bench_touch_")))
            _, app_url = stack.enter_context(streamlit_server(tmp / "app.log"))
        pw = stack.enter_context(sync_playwright())
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        stack.callback(browser.close)
        touch = shown_rows(browser, app_url, targets, True, args)
        mouse = shown_rows(browser, app_url, targets, False, args)

    def cells(r: Shown | str) -> str:
        if isinstance(r, str):
            return f"{r[:41]:<41}"
        pct = 100 * r.shown / r.passed if r.passed else float("nan")
        ready = "yes" if r.ready else "no"
        return (
            f"{ready:>5} {r.passed:>6} {r.shown:>5} {fmt(pct):>3}% {fmt(r.first_ms):>8} {fmt(r.thumb_ms):>8}"
        )

    print(
        f"\na drag of 40 % of the control over {args.seconds} s ({args.moves} moves), pressed "
        f"{args.look_ms:.0f} ms after the control came into view; the server's messages {args.rtt_ms} ms late"
    )
    head = f"{'control':<28} | {'touch, 390 × 844':^41} | {'mouse, 1280 × 720':^41}"
    sub = f"{'':<28} | " + " | ".join(
        [f"{'ready':>5} {'passed':>6} {'shown':>5} {'%':>4} {'first ms':>8} {'thumb ms':>8}"] * 2
    )
    print(head)
    print(sub)
    print("-" * len(sub))
    for (path, key), t, m in zip(targets, touch, mouse, strict=True):
        print(f"{path + ' ' + key:<28} | {cells(t)} | {cells(m)}")
    load = os.getloadavg()
    print(f"\none drag each; load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--targets", default="/mean:mean_shift,/mean?d=768:mean_shift,/mean?d=4096:mean_shift"
    )
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--moves", type=int, default=90)
    parser.add_argument("--seconds", type=float, default=1.5)
    parser.add_argument("--json", type=Path)
    parser.add_argument(
        "--touch", action="store_true", help="the values a finger's drag shows (every live control)"
    )
    parser.add_argument("--look-ms", type=float, default=500.0, help="--touch: from in view to the press")
    parser.add_argument("--url", help="--touch: a running app's address instead of a fresh server")
    parser.add_argument(
        "--rtt-ms", type=int, default=0, help="--touch: the server's messages this much later"
    )
    args = parser.parse_args()
    if args.touch:
        if "--targets" not in sys.argv:
            args.targets = None
        touch_table(args)
        return
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
