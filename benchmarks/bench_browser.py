"""How quickly each page answers a control change in real Chromium, as a ratio to a trivial page.

Run from the repository root (a benchmark: it prints a table and asserts nothing)::

    .venv/bin/python benchmarks/bench_browser.py [--pages /mean,/depth_and_drift] [--repeats 7]
        [--warmups 2] [--max-controls-per-page K] [--controls KEY,KEY] [--sidebar all|eps|none]
        [--radios] [--skip-cold] [--list] [--json out.json]

Two fresh servers on loopback: ``streamlit run app.py`` (``scripts/browser.streamlit_server``) and
``streamlit run benchmarks/trivial_app.py`` (one slider, one 200-point Plotly line) started here with
the same flags, since the helper only serves app.py. One headless Debian Chromium drives both.

1. Cold load: a first tab on each fresh server; the time from navigation start to the first drawn
   Plotly chart (``performance.now()`` in the page), then the same for a second tab (warm).
2. Answer time of one control change: the slider's thumb is focused and gets ArrowRight/ArrowLeft
   alternately (so the value oscillates; the first press goes left at the top of the range). In the
   page a capturing ``keydown`` listener stamps ``performance.now()``. An init script taps the
   websocket and reads the top-level field numbers of each ForwardMsg: the run has begun at
   ``new_session`` and ended at ``script_finished`` (not FINISHED_EARLY_FOR_RERUN). The
   ``data-test-script-state`` attribute alone is not enough: React may render "running" and
   "notRunning" in one commit, and a short run then never changes it. After ``script_finished``,
   two animation frames, then further frames until the app shows the idle state (``IDLE``), every
   visible Plotly chart has its ``.main-svg``, and two frames in a row pass with no chart redraw
   started or running: the lab's charts are redrawn in place (``Plotly.react``, wrapped in the page
   to count the calls and their promises) by the components' effects after React's commit, and their
   old ``.main-svg`` is there all along. Until 2026-12-02 the benchmark did not wait for those redraws,
   so its ratios for controls that redraw charts were too low. A press after which no run begins within
   ``--rerun-wait-ms`` counts as "no rerun" and is left out of the statistics. ``--warmups``
   presses, then ``--repeats`` timed ones; the median and p95 per control.
3. Controls: every enabled slider / select_slider (ARIA role ``slider``) in ``stMain`` and in
   ``stSidebar`` (ε, γ, β and d on the pages that show the sidebar's vector), each named by its widget
   key (the ``st-key-<key>`` class of its element container); with ``--radios`` also every radio
   group (a click on the next option, then back). Each page is opened in a fresh session (a new
   ``goto``), so every page starts from its defaults.
4. The trivial page is measured the same way before and after the pages; ratios use the mean of its
   two medians (and of its two p95s). Targets: ≤ 1.25× median and ≤ 1.5× p95.
5. What each answer costs the browser, to tell a page's content from waiting: ``main ×`` is the tab's
   main-thread busy time per timed press (Chromium's ``Performance.getMetrics`` TaskDuration over the
   presses, divided by their number: scripts, style, layout, paint) over the trivial page's; ``sent``
   the elements the server sent per press (Delta messages, median); ``charts`` the lab charts
   redrawn per press (``Plotly.react`` calls, median; a chart out of sight waits and is not counted).
   The trivial page's one chart is drawn anew on every press (``st.plotly_chart``).

The machine has 2 cores shared with other jobs: the load average is printed with the results.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]  # as tests/e2e does: `scripts.*` and `e2e.*`
from e2e.support import CHART, EXCEPTION, PAGES, RENDERED_CHART, AppPage, Lab, ServerLog  # noqa: E402
from playwright.sync_api import BrowserContext, Locator, Page, sync_playwright  # noqa: E402
from playwright.sync_api import Error as PlaywrightError  # noqa: E402

from scripts.browser import CHROMIUM, CHROMIUM_ARGS, FIELDS, IDLE, WS_TAP_JS, streamlit_server  # noqa: E402

TRIVIAL_APP = ROOT / "benchmarks" / "trivial_app.py"
IN_PLACE_APP = ROOT / "benchmarks" / "trivial_in_place_app.py"  # --in-place: the same, updated in place
TRIVIAL_KEY = "k"
TARGET_MEDIAN = 1.25
TARGET_P95 = 1.5
WAIT_MS = 60_000

# Installed before each press; ``window.__benchResult`` resolves once the page has answered.
ARM_JS = """
(opts) => {
  const app = document.querySelector('[data-testid="stApp"]');
  const STATE = 'data-test-script-state';
  const state = () => app.getAttribute(STATE);
  const connected = () => app.getAttribute('data-test-connection-state') === 'CONNECTED';
  const chartsDrawn = () => Array.from(document.querySelectorAll(opts.chart))
    .filter((c) => c.getClientRects().length > 0)
    .every((c) => c.querySelector('.main-svg') !== null);
  const frame = () => new Promise((done) => requestAnimationFrame(() => done()));
  const r = {t0: null, rerunAt: null, idleAt: null, endAt: null, rerun: false, timedOut: false,
             runs: 0, earlyEnds: 0, deltas: 0, draws: 0, domStates: []};
  // The lab's charts redraw in place with Plotly.react (ui/plot.py), in the components' effects
  // after React's commit: wrapped once per tab, to count the redraws and to know when the last one
  // has finished (a chart's .main-svg is there all along, so it cannot tell).
  const plots = (globalThis.__benchPlots ??= {draws: 0, inFlight: 0});
  if (globalThis.Plotly && !globalThis.Plotly.__benchCounted) {
    const react = globalThis.Plotly.react;
    globalThis.Plotly.react = (...a) => {
      plots.draws += 1;
      plots.inFlight += 1;
      const done = () => { plots.inFlight -= 1; };
      const drawn = react(...a);
      Promise.resolve(drawn).then(done, done);
      return drawn;
    };
    globalThis.Plotly.__benchCounted = true;
  }
  const drawsBefore = () => plots.draws;
  let draws0 = 0;
  const taps = window.__wsTap ? window.__wsTap.listeners : null;
  window.__benchResult = new Promise((resolve) => {
    if (!taps) { resolve({error: 'WebSocket tap missing'}); return; }
    let settled = false;
    let noRerunTimer = null;
    let deadlineTimer = null;
    const obs = new MutationObserver((records) => {
      if (r.t0 === null) return;
      for (const rec of records) {
        if (rec.attributeName === STATE) {
          r.domStates.push([rec.oldValue, app.getAttribute(STATE), Math.round(performance.now() - r.t0)]);
        }
      }
    });
    const settle = async (rerun) => {
      if (settled) return;
      settled = true;
      taps.splice(taps.indexOf(listen), 1);
      clearTimeout(noRerunTimer);
      clearTimeout(deadlineTimer);
      r.rerun = rerun;
      r.idleAt = performance.now() - r.t0;
      await frame();
      await frame();
      // Settled: idle, every chart drawn, and two frames in a row with no chart redraw started or
      // still running (the components' effects call Plotly.react after the commit).
      let quiet = 0;
      let seen = plots.draws;
      while (quiet < 2) {
        if (performance.now() - r.t0 > opts.timeoutMs) { r.timedOut = true; break; }
        const calm = plots.inFlight === 0 && plots.draws === seen;
        seen = plots.draws;
        quiet = state() === 'notRunning' && connected() && chartsDrawn() && calm ? quiet + 1 : 0;
        if (quiet < 2) await frame();
      }
      r.endAt = performance.now() - r.t0;
      r.draws = drawsBefore() - draws0;
      obs.disconnect();
      resolve(r);
    };
    const listen = (fields, t) => {
      if (r.t0 === null || settled) return;
      for (const [f, v] of fields) {
        if (f === opts.delta) r.deltas += 1;
        else if (f === opts.newSession) {
          r.runs += 1;
          if (r.rerunAt === null) r.rerunAt = t - r.t0;
        } else if (f === opts.scriptFinished && r.rerunAt !== null) {
          if (v === opts.finishedEarly) r.earlyEnds += 1;  // a rerun follows
          else settle(true);
        }
      }
    };
    taps.push(listen);
    obs.observe(app, {attributes: true, attributeOldValue: true, attributeFilter: [STATE]});
    const start = () => {
      if (r.t0 !== null) return;
      r.t0 = performance.now();
      draws0 = drawsBefore();
      noRerunTimer = setTimeout(() => { if (r.rerunAt === null) settle(false); }, opts.rerunWaitMs);
      deadlineTimer = setTimeout(() => { r.timedOut = true; settle(r.rerunAt !== null); }, opts.timeoutMs);
    };
    window.addEventListener('keydown', start, {capture: true, once: true});
    window.addEventListener('pointerdown', start, {capture: true, once: true});
  });
}
"""
# The lab's charts (ui.plot.show) and the trivial page's st.plotly_chart.
TRIVIAL_CHART = '[data-testid="stPlotlyChart"]'
ANY_CHART = f"{CHART}, {TRIVIAL_CHART}"
ANY_RENDERED_CHART = f"{RENDERED_CHART}, {TRIVIAL_CHART} .main-svg"
ARM_OPTS = {
    "chart": ANY_CHART,
    "newSession": FIELDS["new_session"].number,
    "delta": FIELDS["delta"].number,
    "scriptFinished": FIELDS["script_finished"].number,
    "finishedEarly": FIELDS["script_finished"].enum_type.values_by_name["FINISHED_EARLY_FOR_RERUN"].number,
    "timeoutMs": WAIT_MS,
}

FIRST_CHART_JS = "(sel) => document.querySelector(sel) ? performance.now() : null"


# --- servers --------------------------------------------------------------------------------------


# --- measuring ------------------------------------------------------------------------------------


@dataclass
class Control:
    key: str
    where: str  # "main" | "sidebar"
    kind: str  # "slider" | "radio"


@dataclass
class Result:
    page: str
    key: str
    where: str
    kind: str
    times_ms: list[float] = field(default_factory=list)
    no_rerun: int = 0
    timed_out: int = 0
    run_begins_ms: list[float] = field(default_factory=list)  # keydown -> the server's new_session
    script_done_ms: list[float] = field(default_factory=list)  # keydown -> the server's script_finished
    runs: list[int] = field(default_factory=list)  # script runs per press (> 1: the page reran itself)
    deltas: list[int] = field(default_factory=list)  # elements (Delta messages) the server sent per press
    draws: list[int] = field(default_factory=list)  # Plotly.react calls per press (the lab's charts)
    main_ms: float = float("nan")  # the tab's main-thread busy time per timed press (Chromium's TaskDuration)
    error: str = ""

    @property
    def median(self) -> float:
        return statistics.median(self.times_ms) if self.times_ms else float("nan")

    @property
    def p95(self) -> float:
        return p95(self.times_ms)


def median_of(xs: list[int] | list[float]) -> float:
    return float(statistics.median(xs)) if xs else float("nan")


def p95(xs: list[float]) -> float:
    if not xs:
        return float("nan")
    if len(xs) == 1:
        return xs[0]
    return statistics.quantiles(xs, n=20, method="inclusive")[18]


def widget_key(loc: Locator) -> str | None:
    """The key of the widget around ``loc``: the ``st-key-<key>`` class of its nearest such ancestor."""
    holder = loc.locator('xpath=ancestor::*[contains(@class,"st-key-")][1]')
    if not holder.count():
        return None
    m = re.search(r"(?:^|\s)st-key-(\S+)", holder.first.get_attribute("class") or "")
    return m.group(1) if m else None


def holder(page: Page, key: str) -> Locator:
    return page.locator(f'[class~="st-key-{key}"]').first


def find_controls(page: Page, *, sidebar: str, radios: bool) -> list[Control]:
    """Enabled, visible sliders (and radio groups) of the main area and the sidebar, by widget key."""
    found: list[Control] = []
    seen: set[str] = set()
    scopes = [("main", page.locator('[data-testid="stMain"]'))]
    if sidebar != "none":
        scopes.append(("sidebar", page.locator('[data-testid="stSidebar"]')))
    for where, scope in scopes:
        kinds = [("slider", scope.get_by_role("slider"))]
        if radios:
            kinds.append(("radio", scope.locator('[data-testid="stRadio"]')))
        for kind, locs in kinds:
            for i in range(locs.count()):
                loc = locs.nth(i)
                if not loc.is_visible():
                    continue
                if kind == "slider" and loc.is_disabled():
                    continue
                if kind == "radio" and loc.locator("input[type=radio]:not([disabled])").count() < 2:
                    continue
                key = widget_key(loc)
                if key is None or key in seen:  # a range slider's second thumb has the same key
                    continue
                if where == "sidebar" and sidebar == "eps" and key != "eps":
                    continue
                seen.add(key)
                found.append(Control(key, where, kind))
    return found


class Presser:
    """Moves one control back and forth: a slider by arrow keys, a radio group between two options."""

    def __init__(self, page: Page, control: Control) -> None:
        self.page = page
        self.control = control
        self.n = 0
        self.first = "ArrowRight"
        self.radio_options: tuple[int, int] = (0, 1)
        box = holder(page, control.key)
        if control.kind == "slider":
            thumb = box.get_by_role("slider").first
            top = thumb.get_attribute("max") or thumb.get_attribute("aria-valuemax")
            with contextlib.suppress(TypeError, ValueError):
                if float(thumb.input_value()) >= float(top):  # type: ignore[arg-type]
                    self.first = "ArrowLeft"
        else:
            inputs = box.locator("input[type=radio]")
            checked = next((i for i in range(inputs.count()) if inputs.nth(i).is_checked()), 0)
            other = checked + 1 if checked + 1 < inputs.count() else checked - 1
            self.radio_options = (checked, other)

    def act(self) -> None:
        box = holder(self.page, self.control.key)
        if self.control.kind == "slider":
            second = "ArrowLeft" if self.first == "ArrowRight" else "ArrowRight"
            box.get_by_role("slider").first.press(self.first if self.n % 2 == 0 else second)
        else:
            target = self.radio_options[(self.n + 1) % 2]
            box.locator('label:has(input[type="radio"])').nth(target).click()
        self.n += 1


def answer_once(page: Page, presser: Presser, args: argparse.Namespace) -> dict[str, Any]:
    page.locator(IDLE).wait_for(timeout=WAIT_MS)
    page.evaluate(ARM_JS, ARM_OPTS | {"rerunWaitMs": args.rerun_wait_ms})
    presser.act()
    result: dict[str, Any] = page.evaluate("() => window.__benchResult")
    if "error" in result:
        raise RuntimeError(result["error"])
    return result


_CDP: dict[int, Any] = {}


def main_thread_s(page: Page) -> float:
    """Seconds the tab's main thread has been busy so far (CDP ``Performance.getMetrics`` TaskDuration).

    Everything the renderer's main thread did — the page's scripts (React, plotly.js, KaTeX), style,
    layout and paint — however long the answer waited for the server: the browser's share of an answer.
    """
    cdp = _CDP.get(id(page))
    if cdp is None:
        cdp = _CDP[id(page)] = page.context.new_cdp_session(page)
        cdp.send("Performance.enable")
    metrics = cdp.send("Performance.getMetrics")["metrics"]
    return float(next(m["value"] for m in metrics if m["name"] == "TaskDuration"))


def measure(page: Page, page_name: str, control: Control, args: argparse.Namespace) -> Result:
    res = Result(page_name, control.key, control.where, control.kind)
    try:
        page.bring_to_front()  # a background tab gets no animation frames and throttled timers
        if page.evaluate("document.visibilityState") != "visible":
            res.error = "tab not visible; "
        presser = Presser(page, control)
        warm = [answer_once(page, presser, args) for _ in range(args.warmups)]
        if warm and not any(w["rerun"] for w in warm) and len(warm) >= 2:
            res.no_rerun = len(warm)
            res.error += "no rerun in the warm-up presses: skipped"
            return res
        busy = main_thread_s(page)
        for _ in range(args.repeats):
            r = answer_once(page, presser, args)
            if r["timedOut"]:
                res.timed_out += 1
            elif not r["rerun"]:
                res.no_rerun += 1
            else:
                res.times_ms.append(float(r["endAt"]))
                res.run_begins_ms.append(float(r["rerunAt"]))
                res.script_done_ms.append(float(r["idleAt"]))
                res.runs.append(int(r["runs"]))
                res.deltas.append(int(r["deltas"]))
                res.draws.append(int(r["draws"]))
        res.main_ms = 1000.0 * (main_thread_s(page) - busy) / max(args.repeats, 1)
        if control.kind == "radio" and presser.n % 2:  # back to the option the page had
            answer_once(page, presser, args)
        page.locator(IDLE).wait_for(timeout=WAIT_MS)
        shown = page.locator(EXCEPTION).all_inner_texts()
        if shown:
            res.error += "exception on page: " + shown[0].splitlines()[0][:80]
    except (PlaywrightError, RuntimeError) as exc:
        res.error += f"{type(exc).__name__}: {str(exc).splitlines()[0][:100]}"
    return res


def first_chart_ms(ctx: BrowserContext, url: str) -> float:
    """Navigation start -> first drawn Plotly chart, in a new tab (the tab is closed afterwards)."""
    tab = ctx.new_page()
    try:
        tab.bring_to_front()
        tab.goto(url, wait_until="commit")
        handle = tab.wait_for_function(FIRST_CHART_JS, arg=ANY_RENDERED_CHART, polling="raf", timeout=WAIT_MS)
        ms = float(handle.json_value())
        tab.locator(IDLE).wait_for(timeout=WAIT_MS)
        return ms
    finally:
        tab.close()


def cold_loads(ctx: BrowserContext, trivial_url: str, app_url: str) -> dict[str, float]:
    """First tab on each fresh server (cold), then a second tab on each (warm)."""
    return {
        "trivial_cold": first_chart_ms(ctx, trivial_url),
        "app_cold": first_chart_ms(ctx, app_url),
        "trivial_warm": first_chart_ms(ctx, trivial_url),
        "app_warm": first_chart_ms(ctx, app_url),
    }


def page_controls(page: Page, args: argparse.Namespace) -> list[Control]:
    """The controls of the open page that the flags select."""
    controls = find_controls(page, sidebar=args.sidebar, radios=args.radios)
    if args.controls:
        only = {k.strip() for k in args.controls.split(",")}
        controls = [c for c in controls if c.key in only]
    if args.max_controls_per_page:
        controls = controls[: args.max_controls_per_page]
    return controls


def list_controls(ctx: BrowserContext, app_url: str, pages: list[AppPage], args: argparse.Namespace) -> None:
    """--list: the controls each page would be measured with; nothing is timed."""
    lab = Lab(ctx.new_page(), app_url)
    for app_page in pages:
        lab.open(app_page)
        found = page_controls(lab.page, args)
        print(f"{app_page.url:<24} " + (", ".join(f"{c.key} ({c.where} {c.kind})" for c in found) or "-"))


@contextlib.contextmanager
def in_place_server(tmp: Path) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """The in-place yardstick's server: the app in a folder of its own, beside the lab's ``static/``."""
    from ui import plot

    if not plot.prepare_static():
        raise RuntimeError(f"cannot put plotly.js in {plot.STATIC}")
    folder = tmp / "in_place"
    folder.mkdir(parents=True)
    shutil.copy(IN_PLACE_APP, folder / IN_PLACE_APP.name)
    (folder / "static").symlink_to(plot.STATIC, target_is_directory=True)
    os.environ["LAB_ROOT"] = str(ROOT)  # read by this server only: started now
    try:
        with streamlit_server(tmp / "in_place.log", script=folder / IN_PLACE_APP.name) as served:
            yield served
    finally:
        os.environ.pop("LAB_ROOT", None)


def servers_and_chromium(
    stack: contextlib.ExitStack[Any], prefix: str, width: int, height: int
) -> tuple[Path, str, str, BrowserContext]:
    """A temporary folder (named ``prefix…``), the trivial app's server and this app's, and a headless
    Chromium whose window is ``width`` × ``height`` and whose waits end after ``WAIT_MS``; each goes
    when ``stack`` closes. Returns the folder, both servers' URLs and the browser."""
    tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix=prefix)))
    _, triv_url = stack.enter_context(streamlit_server(tmp / "trivial.log", script=TRIVIAL_APP))
    _, app_url = stack.enter_context(streamlit_server(tmp / "app.log"))
    pw = stack.enter_context(sync_playwright())
    ctx = pw.chromium.launch_persistent_context(
        user_data_dir=tmp / "chromium-profile",
        executable_path=CHROMIUM,
        headless=True,
        args=CHROMIUM_ARGS,
        viewport={"width": width, "height": height},
    )
    stack.callback(ctx.close)
    ctx.set_default_timeout(WAIT_MS)
    return tmp, triv_url, app_url, ctx


def open_trivial(ctx: BrowserContext, url: str, chart: str = f"{TRIVIAL_CHART} .main-svg") -> Page:
    tab = ctx.new_page()
    tab.goto(url)
    tab.locator(chart).first.wait_for(timeout=WAIT_MS)
    tab.locator(IDLE).wait_for(timeout=WAIT_MS)
    return tab


# --- report ---------------------------------------------------------------------------------------


def fmt(x: float, spec: str = ".0f") -> str:
    return "n/a" if x != x else format(x, spec)


def report(
    results: list[Result],
    trivial: list[Result],
    in_place: list[Result],
    cold: dict[str, float],
    cold_page: str,
    loads: list[tuple[float, float, float]],
    wall_s: float,
    args: argparse.Namespace,
) -> dict[str, Any]:
    base_med = statistics.mean(t.median for t in trivial)
    base_p95 = statistics.mean(t.p95 for t in trivial)
    base_main = statistics.mean(t.main_ms for t in trivial)
    for label, t in zip(("before", "after"), trivial, strict=False):
        print(
            f"trivial page ({label} the pages): median {fmt(t.median)} ms, p95 {fmt(t.p95)} ms, "
            f"main thread {fmt(t.main_ms)} ms a press, {fmt(median_of(t.deltas), '.0f')} elements sent "
            f"(n = {len(t.times_ms)}, no rerun {t.no_rerun}){'  ' + t.error if t.error else ''}"
        )
    print(
        f"baseline (mean of the two): median {fmt(base_med, '.1f')} ms, p95 {fmt(base_p95, '.1f')} ms, "
        f"main thread {fmt(base_main, '.1f')} ms a press (its one chart is drawn anew every time)"
    )
    for label, t in zip(("before", "after"), in_place, strict=False):
        print(
            f"trivial app, chart updated in place ({label} the pages): median {fmt(t.median)} ms "
            f"({fmt(t.median / base_med, '.2f')}×), p95 {fmt(t.p95)} ms ({fmt(t.p95 / base_p95, '.2f')}×)"
            f"{'  ' + t.error if t.error else ''}"
        )
    print()

    def ratios(r: Result) -> tuple[float, float]:
        return r.median / base_med, r.p95 / base_p95

    measured = [r for r in results if r.times_ms]
    measured.sort(key=lambda r: (ratios(r)[0], ratios(r)[1]), reverse=True)
    failed = [r for r in results if not r.times_ms]
    head = (
        f"{'page':<24} {'control':<20} {'where':<7} {'n':>2} {'median ms':>9} {'p95 ms':>8} "
        f"{'median ×':>8} {'p95 ×':>6} {'main ×':>6} {'sent':>4} {'charts':>6}  notes"
    )
    print(head)
    print("-" * len(head))
    for r in measured:
        med_x, p95_x = ratios(r)
        notes = []
        if med_x > TARGET_MEDIAN or p95_x > TARGET_P95:
            notes.append("over target")
        if r.no_rerun:
            notes.append(f"{r.no_rerun} press(es) without rerun")
        if r.timed_out:
            notes.append(f"{r.timed_out} timed out")
        if r.runs and max(r.runs) > 1:
            notes.append(f"up to {max(r.runs)} script runs per press")
        if r.kind != "slider":
            notes.append(r.kind)
        if r.error:
            notes.append(r.error)
        print(
            f"{r.page:<24} {r.key:<20} {r.where:<7} {len(r.times_ms):>2} {fmt(r.median):>9} {fmt(r.p95):>8} "
            f"{fmt(med_x, '.2f'):>7}× {fmt(p95_x, '.2f'):>5}× {fmt(r.main_ms / base_main, '.2f'):>5}× "
            f"{fmt(median_of(r.deltas)):>4} {fmt(median_of(r.draws)):>6}  {'; '.join(notes)}"
        )
    for r in failed:
        print(f"{r.page:<24} {r.key:<20} {r.where:<7}  -- not measured: {r.error or 'no rerun in any press'}")

    nan = float("nan")
    app_cold, triv_cold = cold.get("app_cold", nan), cold.get("trivial_cold", nan)
    app_warm, triv_warm = cold.get("app_warm", nan), cold.get("trivial_warm", nan)
    cold_line = (
        f"cold first load of a fresh server (navigation -> first chart drawn): app {cold_page} "
        f"{fmt(app_cold)} ms vs trivial {fmt(triv_cold)} ms = {fmt(app_cold / triv_cold, '.2f')}×; "
        f"warm (second tab): {fmt(app_warm)} ms vs {fmt(triv_warm)} ms = {fmt(app_warm / triv_warm, '.2f')}×"
    )
    print()
    print(cold_line if cold else "cold first load: skipped (--skip-cold)")
    one_min = [load[0] for load in loads]
    end = os.getloadavg()
    print(
        f"load average (1 min) during the run: {min(one_min):.1f}–{max(one_min):.1f}, "
        f"mean {statistics.mean(one_min):.1f} over {len(one_min)} samples; run time {wall_s / 60:.1f} min "
        f"({len(measured)} controls measured, {len(failed)} not)"
    )
    if measured:
        w = measured[0]
        med_x, p95_x = ratios(w)
        worst = (
            f"worst: {w.page} {w.key} median {med_x:.2f}× p95 {p95_x:.2f}× "
            f"(targets ≤{TARGET_MEDIAN}× median, ≤{TARGET_P95}× p95)"
        )
    else:
        worst = "worst: nothing measured"
    print(f"{worst}; load average {end[0]:.1f} {end[1]:.1f} {end[2]:.1f}")
    return {
        "args": {k: v for k, v in vars(args).items() if k != "json"},
        "baseline_median_ms": base_med,
        "baseline_p95_ms": base_p95,
        "baseline_main_thread_ms": base_main,
        "trivial": [asdict(t) | {"median": t.median, "p95": t.p95} for t in trivial],
        "trivial_in_place": [asdict(t) | {"median": t.median, "p95": t.p95} for t in in_place],
        "controls": [
            asdict(r)
            | {"median": r.median, "p95": r.p95, "median_ratio": ratios(r)[0], "p95_ratio": ratios(r)[1]}
            for r in measured
        ]
        + [asdict(r) for r in failed],
        "cold_load_ms": cold | {"app_page": cold_page},
        "load_average_samples": loads,
        "run_time_s": wall_s,
    }


def progress(r: Result) -> str:
    """One line per control while the run goes on (stderr)."""

    def med(xs: list[float]) -> float:
        return statistics.median(xs) if xs else float("nan")

    return (
        f"{r.page:<24} {r.key:<20} median {fmt(r.median):>6} ms p95 {fmt(r.p95):>6} ms "
        f"(run begins +{fmt(med(r.run_begins_ms))} ms, script done +{fmt(med(r.script_done_ms))} ms"
        f"{', runs per press ' + str(sorted(set(r.runs))) if r.runs and max(r.runs) > 1 else ''})"
        f"{'  no rerun ×' + str(r.no_rerun) if r.no_rerun else ''}{'  ' + r.error if r.error else ''}"
    )


# --- main -----------------------------------------------------------------------------------------


def default_pages() -> list[AppPage]:
    """Every page in the app's navigation (ui/navigation.py) except the home page and the quiz."""
    return [p for p in PAGES if p.section and p.url != "/" and p.section != "Test yourself"]


def parse_args() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pages", help="comma-separated URL paths, e.g. /mean,/depth_and_drift (default: all "
                    "but home and the quiz)")  # fmt: skip
    ap.add_argument("--repeats", type=int, default=7, help="timed presses per control (default 7)")
    ap.add_argument("--warmups", type=int, default=2, help="untimed presses first (default 2)")
    ap.add_argument("--max-controls-per-page", type=int, default=0, help="first K controls (default all)")
    ap.add_argument("--controls", help="comma-separated widget keys: measure only these (and the trivial k)")
    ap.add_argument(
        "--sidebar", choices=["all", "eps", "none"], default="all", help="sidebar sliders (default all)"
    )
    ap.add_argument("--radios", action="store_true", help="also radio groups (click the next option)")
    ap.add_argument("--rerun-wait-ms", type=float, default=1500.0, help="no rerun begun by then: no rerun")
    ap.add_argument("--skip-cold", action="store_true", help="skip the cold/warm first-load comparison")
    ap.add_argument(
        "--in-place",
        action="store_true",
        help="also time the trivial app with its chart updated in place (trivial_in_place_app.py)",
    )
    ap.add_argument("--list", action="store_true", help="only list each page's controls; time nothing")
    ap.add_argument(
        "--first-visit",
        type=int,
        default=0,
        metavar="N",
        help="only the cold/warm first loads, N rounds of fresh servers and Chromium; print their medians",
    )
    ap.add_argument("--json", type=Path, help="write all numbers to this file")
    return ap.parse_args()


def first_visits(rounds: int, page_url: str) -> dict[str, list[float]]:
    """``rounds`` rounds, each on two fresh servers and a fresh Chromium: the four loads of
    ``cold_loads`` (the app at ``page_url``)."""
    runs: dict[str, list[float]] = {}
    for n in range(rounds):
        with contextlib.ExitStack() as stack:
            _, triv_url, app_url, ctx = servers_and_chromium(stack, "bench_first_visit_", 1400, 1000)
            for name, ms in cold_loads(ctx, triv_url, app_url + page_url).items():
                runs.setdefault(name, []).append(ms)
        print(f"round {n + 1}: " + ", ".join(f"{k} {v[-1]:.0f} ms" for k, v in runs.items()), file=sys.stderr)
    return runs


def print_first_visits(runs: dict[str, list[float]], page_url: str) -> None:
    med = {k: statistics.median(v) for k, v in runs.items()}
    cold, warm = med["app_cold"] / med["trivial_cold"], med["app_warm"] / med["trivial_warm"]
    print(
        f"first visit, median of {len(runs['app_cold'])} rounds (navigation -> first chart drawn), "
        f"app {page_url}: cold {med['app_cold']:.0f} ms vs trivial {med['trivial_cold']:.0f} ms = "
        f"{cold:.2f}× (target ≤ 1.5×); warm (second tab) {med['app_warm']:.0f} ms "
        f"vs {med['trivial_warm']:.0f} ms = {warm:.2f}× (target ≤ 1.25×); "
        f"load average {os.getloadavg()[0]:.1f}"
    )


def main() -> None:
    args = parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # run the finally blocks on kill
    if args.first_visit:
        charted = next(p.url for p in default_pages() if p.charts)
        page_url = args.pages.split(",")[0].strip() if args.pages else charted
        runs = first_visits(args.first_visit, page_url)
        print_first_visits(runs, page_url)
        if args.json:
            args.json.write_text(json.dumps({"first_visit_ms": runs, "app_page": page_url}, indent=1))
        return
    if args.pages:
        wanted = [u.strip() if u.strip().startswith("/") else "/" + u.strip() for u in args.pages.split(",")]
        by_url = {p.url: p for p in PAGES if p.section}
        unknown = [u for u in wanted if u not in by_url]
        if unknown:
            sys.exit(f"unknown page(s) {unknown}; pages: {sorted(by_url)}")
        pages = [by_url[u] for u in wanted]
    else:
        pages = default_pages()

    t_start = time.monotonic()

    def log(msg: str) -> None:
        print(f"[{time.monotonic() - t_start:5.0f} s] {msg}", file=sys.stderr, flush=True)

    loads: list[tuple[float, float, float]] = [os.getloadavg()]
    results: list[Result] = []
    trivial: list[Result] = []
    in_place: list[Result] = []
    cold: dict[str, float] = {}
    oddities: list[str] = []
    with contextlib.ExitStack() as stack:
        tmp, triv_url, app_url, ctx = servers_and_chromium(stack, "bench_browser_", 1400, 1000)
        if args.in_place:
            _, in_place_url = stack.enter_context(in_place_server(tmp))
        log("servers up, Chromium started")
        ctx.add_init_script(WS_TAP_JS)  # every tab of both apps, before their own scripts

        first = next((p for p in pages if p.charts), pages[0])
        if args.list:
            list_controls(ctx, app_url, pages, args)
            return
        if not args.skip_cold:
            cold = cold_loads(ctx, triv_url, app_url + first.url)
            log(f"loads (ms): {cold}")

        triv_tab = open_trivial(ctx, triv_url)
        trivial_control = Control(TRIVIAL_KEY, "main", "slider")
        trivial.append(measure(triv_tab, "(trivial)", trivial_control, args))
        log(progress(trivial[0]))
        if args.in_place:
            in_place_tab = open_trivial(ctx, in_place_url, ".js-plotly-plot .main-svg")
            in_place.append(measure(in_place_tab, "(in place)", trivial_control, args))
            log(progress(in_place[0]))

        tab = ctx.new_page()
        lab = Lab(tab, app_url)
        server_log = ServerLog(tmp / "app.log")
        for app_page in pages:
            t_page = time.monotonic()
            server_log.mark()
            try:
                lab.open(app_page)
            except (PlaywrightError, AssertionError) as exc:
                results.append(Result(app_page.url, "(page)", "", "", error=f"did not open: {exc}"[:120]))
                log(f"{app_page.url}: did not open: {exc}")
                continue
            controls = page_controls(tab, args)
            if not controls:
                log(f"{app_page.url}: no controls")
            for control in controls:
                r = measure(tab, app_page.url, control, args)
                results.append(r)
                log(progress(r))
            if lab.page_errors:
                log(f"{app_page.url}: JavaScript errors: {lab.page_errors}")
                oddities.append(f"{app_page.url}: JavaScript errors: {lab.page_errors}"[:300])
                lab.page_errors.clear()
            for problem in server_log.problems():
                log(f"{app_page.url}: the server logged:\n{problem}")
                oddities.append(f"{app_page.url}: server log: {problem.splitlines()[0]}"[:300])
            loads.append(os.getloadavg())
            took = time.monotonic() - t_page
            log(f"{app_page.url}: {len(controls)} controls in {took:.0f} s; load average {loads[-1][0]:.1f}")

        trivial.append(measure(triv_tab, "(trivial)", trivial_control, args))
        log(progress(trivial[1]))
        if args.in_place:
            in_place.append(measure(in_place_tab, "(in place)", trivial_control, args))
            log(progress(in_place[1]))
        loads.append(os.getloadavg())

    summary = report(results, trivial, in_place, cold, first.url, loads, time.monotonic() - t_start, args)
    for line in oddities:
        print(f"note: {line}")
    summary["notes"] = oddities
    if args.json:
        args.json.write_text(json.dumps(summary, indent=2, default=str) + "\n", encoding="utf-8")
        print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
