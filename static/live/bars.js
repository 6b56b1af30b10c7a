// A feature of the vector itself, dragged (ui/live/vector.py, mode "bars"): a vertical range input
// over each bar of a chart of x.

// Imports carry this module's own ?v= (ui/live/__init__.py): a tab never runs two versions' files.
const v = new URL(import.meta.url).search;
const [{live, askNow, queued, markWaiting, readoutOf}, {keep}, {drawChart}, {stale, watchChart}, {takeKey}] =
  await Promise.all(["state", "frames", "chart", "slider", "keys"].map((name) => import(`./${name}.js${v}`)));

// Over each bar of a feature chart (bars at x = 1 … d) a native vertical range input spans the column,
// its ends at the grid's ends on the y axis: a press puts the value under the pointer, a drag follows
// it, Tab and the arrow keys work as on any slider. A feature's frames come when the student reaches
// for its bar (as a live slider's do; on a touch device, every bar in view: a finger lands without
// hovering first) and say what the whole page shows at each grid value.
const BAR_THUMB = 6;  // px: the grab handle's height (live.css); the input's ends reach past the axis by half
const TOUCH_TARGET = 24;  // px: a bar's column is at least this wide where the chart leaves room (WCAG 2.5.8)
// A touch device asks for the frames of every bar in view, in one ask, up to this many (a bar's frames
// are 60–110 kB): a longer vector's bars are asked for one by one, when touched.
const ASK_IN_VIEW = 16;

function placeBars(b) {
  const holder = document.querySelector(`.st-key-${b.data.chart}`);
  const plot = holder?.querySelector(".lab-chart");
  const full = plot?._fullLayout;
  if (!full?.xaxis || !full.yaxis) return false;
  if (!plot.labBarsWatched && plot.on) {  // Plotly draws the server's figure after a run: place again
    plot.labBarsWatched = true;
    plot.on("plotly_afterplot", () => { if (b.root.isConnected) placeBars(b); });
  }
  const xa = full.xaxis, ya = full.yaxis;
  if (ya.autorange) return false;
  if (!b.layer || !b.layer.isConnected || b.layer.parentElement !== holder) {
    b.layer?.remove();
    b.layer = document.createElement("div");
    b.layer.className = "lab-bars";
    holder.appendChild(b.layer);
    b.inputs = [];
  }
  const d = b.data.at.length;
  while (b.inputs.length > d) b.inputs.pop().remove();
  while (b.inputs.length < d) b.inputs.push(barInput(b, b.inputs.length));
  const from = plot.getBoundingClientRect(), to = holder.getBoundingClientRect();
  const [lo, hi] = b.data.span;
  const top = from.top - to.top + ya._offset + ya.c2p(hi) - BAR_THUMB / 2;
  const height = ya.c2p(lo) - ya.c2p(hi) + BAR_THUMB;
  const slot = d > 1 ? Math.abs(xa.c2p(2) - xa.c2p(1)) : xa._length / 2;
  const width = Math.max(Math.min(slot * 0.9, 80), Math.min(slot, TOUCH_TARGET), 6);
  b.inputs.forEach((input, i) => {
    input.max = String(b.data.count - 1);
    if (b.dragging !== i) {  // a dragged bar says its own value (frame(), below)
      input.value = String(b.data.at[i]);
      input.setAttribute("aria-valuetext", b.data.texts[i]);
    }
    input.style.left = `${from.left - to.left + xa._offset + xa.c2p(i + 1) - width / 2}px`;
    input.style.top = `${top}px`;
    input.style.width = `${width}px`;
    input.style.setProperty("--lab-bar-width", `${width}px`);
    input.style.height = `${height}px`;
    input.dataset.frames = framesOf(b, i);
  });
  return true;
}

const framesOf = (b, i) => b.have.has(i) ? "ready" : b.asking.has(i) ? "asked" : "missing";

function barInput(b, i) {
  const input = document.createElement("input");
  input.type = "range";
  input.min = "0";
  input.step = "1";
  input.className = "lab-bar-input";
  input.dataset.feature = String(i + 1);
  input.setAttribute("aria-label", `Feature ${i + 1} of the vector (drag its bar, or use the arrow keys)`);
  const tip = () => b.layer.querySelector(".lab-bar-tip") ?? b.layer.appendChild(Object.assign(
    document.createElement("output"), {className: "lab-bar-tip", ariaHidden: "true"}));
  let dwell = null;
  const reach = (on, now) => {
    clearTimeout(dwell);
    if (on) {
      if (now) b.reach(i, true);
      else dwell = setTimeout(() => b.reach(i, true), 120);  // a pointer passing over the chart asks nothing
    } else if (b.dragging !== i && document.activeElement !== input) {
      b.reach(i, false);
    }
  };
  input.addEventListener("pointerenter", () => reach(true, false));
  input.addEventListener("pointerleave", () => reach(false));
  input.addEventListener("focus", () => reach(true, true));
  input.addEventListener("blur", () => reach(false));
  input.addEventListener("pointerdown", () => {
    b.dragging = i;
    b.movedTo = -1;
    document.documentElement.classList.add("lab-live-dragging");
    reach(true, true);
  });
  input.addEventListener("keydown", (e) => takeKey(e, input, b.data.count));
  input.labInView = (on) => {
    if (!input.isConnected || b.inputs[i] !== input) {  // an input placeBars has replaced
      live.inView.unobserve(input);
      return;
    }
    if (on) b.inView.add(i);
    else b.inView.delete(i);
    if (on && live.touch) b.ask();
  };
  live.inView.observe(input);
  let pending = null;
  const frame = () => {
    pending = null;
    const k = Number(input.value);
    const t = tip();
    const payload = b.have.get(i);
    t.textContent = payload ? payload.labels[k] : "";
    t.hidden = !payload;
    t.style.left = input.style.left;
    t.style.top = `${parseFloat(input.style.top) + (1 - k / (b.data.count - 1)) * (parseFloat(input.style.height) - BAR_THUMB)}px`;
    if (!payload || k === b.movedTo) return;
    b.movedTo = k;
    input.setAttribute("aria-valuetext", payload.labels[k]);
    const f = payload.frames[k];
    for (const r of f.readouts) readoutOf(r.key)?.show(r);
    for (const chart of f.charts) {
      drawChart(chart, payload.decoded);
      watchChart(chart.key);
    }
  };
  input.labFrame = frame;
  input.addEventListener("input", () => { pending ??= requestAnimationFrame(frame); });
  input.addEventListener("change", () => {
    if (pending !== null) { cancelAnimationFrame(pending); frame(); }
    b.dragging = -1;
    document.documentElement.classList.remove("lab-live-dragging");
    tip().hidden = true;
    live.barsSent = true;  // until the app's run answers (mountBars)
    markWaiting();
    for (const s of live.sliders.values()) stale(s, true);  // their frames are of the old vector
    const k = Number(input.value);
    b.send?.("set", {base: b.data.base, i, k, v: b.have.get(i)?.values[k] ?? null});
  });
  addEventListener("pointerup", () => {
    if (b.dragging === i) { b.dragging = -1; document.documentElement.classList.remove("lab-live-dragging"); }
  });
  b.layer.appendChild(input);
  return input;
}

// A feature's frames can reach past another chart's fixed axis (its range held the other controls'
// frames only): the axis grows once, when they come, so that no bar of a frame is cut off.
function widenAxes(ranges, own) {  // not the bars' own chart: its axis holds the grid already
  for (const [key, [lo, hi]] of Object.entries(ranges ?? {})) {
    if (key === own) continue;
    const plot = document.querySelector(`.st-key-${key} .lab-chart`);
    const ya = plot?._fullLayout?.yaxis;
    if (!ya || ya.autorange) continue;
    const [a, b] = ya.range;
    if (lo < a || hi > b) {
      plot.labDrawn = null;  // Plotly draws its own data again
      (plot.labPlotly ?? globalThis.Plotly)?.relayout(plot, {"yaxis.range": [Math.min(a, lo), Math.max(b, hi)]});
    }
  }
}

// b.have: each feature's frames (by feature index); b.asking: the features asked for, not yet answered;
// b.askSent: that ask has left; b.reached: the features the student reaches for (pointer, focus, a
// press); b.inView: the bars in view.
export function mountBars(root, data, setTriggerValue) {
  const b = (root.labBars ??= {root, layer: null, inputs: [], have: new Map(), asking: new Set(), askSent: false,
                                waiting: false, reached: new Set(), inView: new Set(), dragging: -1, movedTo: -1});
  if (b.data?.base !== data.base) { b.have.clear(); b.asking.clear(); b.askSent = false; }
  live.barsSent = false;
  markWaiting();
  b.data = data;
  b.send = queued(setTriggerValue);
  live.bars.set(data.chart, b);
  for (const p of data.payloads ?? []) {
    if (p.base !== data.base) continue;
    b.have.set(p.feature, keep(live.payloads, p));
    widenAxes(p.ranges, data.chart);
  }
  if (b.askSent) {  // answered (or the run went another way: what is still missing is asked again)
    b.askSent = false;
    b.asking.clear();
  }
  // The same rule as a live slider's (slider.js, want): frames are asked for only while the student
  // reaches for a bar, or on a touch device while it is in view; one ask at a time, for every feature
  // wanted then, when askNow allows.
  b.wanted = () => {
    const want = new Set(b.reached);
    if (live.touch && b.inView.size <= ASK_IN_VIEW) for (const i of b.inView) want.add(i);
    return [...want].filter((i) => i < b.data.at.length && !b.have.has(i)).sort((x, y) => x - y);
  };
  b.reach = (i, on) => {
    if (on) b.reached.add(i);
    else b.reached.delete(i);
    if (on) b.ask();
    else if (!b.askSent && b.asking.delete(i) && b.inputs[i]) b.inputs[i].dataset.frames = framesOf(b, i);
  };
  b.ask = () => {
    if (b.askSent || b.waiting) return;
    const first = b.wanted();
    if (!first.length) return;
    b.waiting = true;
    for (const i of first) {
      b.asking.add(i);
      if (b.inputs[i]) b.inputs[i].dataset.frames = "asked";
    }
    const base = b.data.base;
    const app = document.querySelector('[data-testid="stApp"]');
    const when = () => {
      if (!root.isConnected) { b.waiting = false; return; }
      if (b.data.base !== base) {  // a run drew another vector meanwhile: its bars are asked for
        b.waiting = false;
        b.ask();
        return;
      }
      if (!askNow(app)) { requestAnimationFrame(when); return; }
      b.waiting = false;
      const features = b.wanted();  // the student may have left a bar, or reached another, meanwhile
      b.asking = new Set(features);
      for (const [i, input] of b.inputs.entries()) input.dataset.frames = framesOf(b, i);
      if (!features.length) return;
      b.askSent = true;
      b.send("feature", {base, i: features});
    };
    requestAnimationFrame(when);
  };
  // A frame that arrives during a drag is drawn at once, at the thumb's value (and says it): the drag's
  // next move may be far off, or never come. After a run's own drawing, too (slider.js, redrawThumbs).
  b.showThumb = () => {
    const i = b.dragging;
    if (i < 0 || !b.have.has(i) || !root.isConnected) return;
    b.movedTo = -1;
    b.inputs[i]?.labFrame?.();
  };
  let tries = 0;
  const place = () => {
    if (!placeBars(b)) {
      if (root.isConnected && ++tries < 600) requestAnimationFrame(place);
      return;
    }
    // A new input under a pointer that stays on its bar (or a focus that stays) fires no new enter
    // event: that bar is reached for still, so its frames are asked for now.
    b.reached = new Set(b.inputs.flatMap((el, i) => el.matches(":hover") || el === document.activeElement
      || i === b.dragging ? [i] : []));
    b.ask();
    b.showThumb();
  };
  place();
  if (!b.resizeWatched) {
    b.resizeWatched = true;
    addEventListener("resize", () => { if (root.isConnected) placeBars(b); });
  }
  if (!live.touch && !b.touchWatched) {  // a first touch on a device whose primary pointer is fine
    b.touchWatched = true;
    live.onTouch.add(() => { if (root.isConnected) b.ask(); });
  }
  return () => { if (!root.isConnected) b.layer?.remove(); };
}
