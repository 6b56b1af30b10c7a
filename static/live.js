// Live sliders and their readouts (ui/live/__init__.py). component.data is
//   {mode: "slider", label, index, katex, link: {key, urls, default}, payload: {id, values, labels,
//    frames: [{readouts, charts}], arrays, ranges} or just {id} when this browser has it already}
//   {mode: "readout", readout: {key, tex, metrics}, katex}
// Every number shown comes from a frame the server made; the browser only picks the frame of the
// value the thumb shows.

const live = (globalThis.labLive ??= (() => {
  // served: how many times a readout has shown new numbers from the server (a page's rerun)
  const state = {payloads: new Map(), readouts: new Map(), sliders: new Map(), leaving: 0, unsent: false,
                 served: 0};
  // A click on a link (a page of the app) starts a page switch: an ask sent in the next moments would
  // carry this page and could reach the server after the switch, which then drew this page again
  // under the new address. Asks wait (askNow), and a control the new page no longer has sends none.
  // A value sent in the same moment has not left yet (queued(), below): the click waits for it, so
  // that the switch comes after it and not the other way round.
  addEventListener("click", (e) => {
    const link = e.target instanceof Element ? e.target.closest("a[href]") : null;
    if (!link) return;
    state.leaving = performance.now();
    const here = link.origin === location.origin && !link.target;  // this tab's page switches
    if (state.unsent && here && !(e.ctrlKey || e.metaKey || e.shiftKey || e.altKey || e.button)) {
      e.preventDefault();
      e.stopImmediatePropagation();
      setTimeout(() => link.click(), 0);  // after Streamlit's own timer, set when the value was sent
    }
  }, true);
  // Back or Forward: the server answers with the entry's values, which no thumb may wait past (a
  // slider waits for the answer to its own last release, and would have kept its thumb there).
  // The entry's value is also sent: the kept slider's copy in the browser may still hold the value it
  // had before the last release (the server's answer redraws it), and then Streamlit, seeing no
  // change, sends nothing, and that late answer put the released value back after the Back.
  addEventListener("popstate", () => {
    for (const s of state.sliders.values()) {
      const waited = s.sent !== null;
      sent(s, null);
      // only a slider of the page the entry is on (a Back to another page draws that page anew)
      if (!s.root.isConnected || !s.link || !s.values || s.path !== location.pathname) {
        // A release the Back or Forward cut short is not waited for any more: its thumb goes back to
        // the value the page shows (an answer that came during the release had left it there).
        if (waited && s.root.isConnected && s.values && !s.dragging) backToServed(s);
        continue;
      }
      const text = new URL(location.href).searchParams.get(s.link.key) ?? s.link.default;
      const i = s.link.urls.indexOf(text);
      if (i >= 0 && i !== s.index()) {
        s.input.value = String(i);
        // The entry's frame into the readouts and charts too: a key press's frame may be drawn there,
        // and the run that would redraw them can be cut short by the Back (its readouts then come
        // with the data the component had at load, which does not redraw it).
        s.movedTo = -1;
        s.draw(i, true);
        sent(s, i);
        s.released = i;
        s.send?.("value", s.values[i]);
      }
    }
  });
  return state;
})());

// An ask for frames waits while a run is going and while a release is still unanswered: a message
// carries the browser's copies of the hidden kept sliders, and until the release's run redraws them
// they hold the value from before the release (an ask sent then took that old value back).
function askNow(app) {
  if (app?.dataset.testScriptState === "running") return false;
  if (live.leaving && performance.now() - live.leaving < 3000) return false;
  for (const s of live.sliders.values()) if (s.sent && s.root.isConnected) return false;
  return !live.barsSent;
}

// A release the server has not answered yet (index), or none (null). Until the run that answers it
// has drawn the slider, its element says so: tests wait for that besides an idle app, which the app
// can be for a moment after a release, before the release's run starts.
// A slider waiting for the answer to its last release stops waiting once the window above has passed
// with no newer answer (the release's own run may never come: a page link clicked in the same moment
// replaced it): the thumb, the frames and the address go back to what the server drew last, and the
// mark goes. The address too: it would otherwise hold a value the page does not show.
function giveUpWaiting(s) {
  const mark = s.sent;
  clearTimeout(s.waitTimer);
  s.waitTimer = setTimeout(() => {
    if (s.sent !== mark || s.dragging || !s.root.isConnected) return;  // a newer release speaks for itself
    sent(s, null);
    backToServed(s);
    if (s.path === location.pathname) writeAddress(s, s.served);
  }, Math.max(0, 5000 - (performance.now() - mark.at)) + 50);
}

// The thumb and the numbers back to the value the server drew last: the readouts and charts too,
// since the drag or key press drew its own value's frame there, and a thumb must never stand beside
// another value's numbers.
function backToServed(s) {
  s.input.value = String(s.served);
  s.released = s.served;
  s.movedTo = -1;
  s.draw(s.index(), true);
}

// The slider's value in the address, as Streamlit's own slider writes it for a bound widget the
// student moved (replaceState; the default leaves it out).
function writeAddress(s, i) {
  const address = new URL(location.href);
  const text = s.link.urls[i];
  if (text === s.link.default) address.searchParams.delete(s.link.key);
  else address.searchParams.set(s.link.key, text);
  if (address.href !== location.href) history.replaceState(history.state, "", address.href);
}

function sent(s, index) {
  s.sent = index === null ? null : {index, at: performance.now(), path: location.pathname};
  if (index === null || index === s.served) delete s.root.dataset.sent;
  else s.root.dataset.sent = "true";
}

// A slider's frame for its value must be what the page shows: after another control moved (a page
// control's rerun does not redraw the sidebar's sliders), its frames are the page at the old values.
// It then draws none, and asks for new ones when the student reaches for it (want(), below).
function checkFresh(s) {
  if (!s.payload?.frames || s.dragging || !s.root.isConnected) return;
  const frame = s.payload.frames[s.index()];
  for (const r of frame.readouts) {
    const shown = live.readouts.get(r.key);
    if (shown?.server && shown.root.isConnected && shown.server !== JSON.stringify(r)) {
      stale(s, true);
      return;
    }
  }
  stale(s, false);
}

function stale(s, on) {
  s.stale = on;
  if (s.asking === null) s.root.dataset.frames = framesState(s);
}

// What tests and benchmarks wait for: "ready" (a drag draws every value), "stale" (the frames are the
// page at old values), "missing" (none sent yet: a large payload waits to be asked for), "asked".
const framesState = (s) => (!s.payload ? "missing" : s.stale ? "stale" : "ready");

const decode = (b64) => {
  const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  return new Float64Array(bytes.buffer);
};

function keep(payload) {  // decoded once per input, for every mount of a slider in this tab
  if (!live.payloads.has(payload.id)) {
    live.payloads.set(payload.id, {...payload, decoded: payload.arrays.map(decode)});
    while (live.payloads.size > 24) live.payloads.delete(live.payloads.keys().next().value);
  }
  return live.payloads.get(payload.id);
}

// KaTeX: st.latex typesets with rehype-katex, whose KaTeX (0.16) matches the styles in Streamlit's
// CSS; the separate katex module Streamlit also ships is another version (0.18), whose class names
// those styles do not know (subscripts sat on the baseline). rehype-katex's module exports only its
// rehype plugin, so a formula goes through the plugin as a one-element tree, and the tree it returns
// is written as HTML. Loaded once per tab; typeset formulas are kept by their TeX.
function loadKatex(url) {
  // An absolute address: this script runs from a blob, against which "/static/..." means nothing.
  live.katexReady ??= import(new URL(url, location.href).href).then(
    (m) => { live.katex = katexOf(m.default); },
    (error) => { console.error("formulas are shown as TeX: KaTeX did not load", error); live.katexFailed = true; });
  return live.katexReady;
}

function katexOf(rehypeKatex) {
  const transform = rehypeKatex({});
  const typeset = new Map();
  return {render(tex) {
    let html = typeset.get(tex);
    if (html === undefined) {
      const tree = {type: "root", children: [{type: "element", tagName: "div",
        properties: {className: ["math-display"]}, children: [{type: "text", value: tex}]}]};
      transform(tree, {message() {}});
      html = tree.children.map(hastToHtml).join("");
      if (typeset.size > 4000) typeset.clear();
      typeset.set(tex, html);
    }
    return html;
  }};
}

const HAST_NAMES = {className: "class", ariaHidden: "aria-hidden"};
const escapeHtml = (text) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
  .replace(/"/g, "&quot;");

function hastToHtml(node) {
  if (node.type === "text") return escapeHtml(node.value);
  if (node.type !== "element") return "";
  let attributes = "";
  for (const [name, value] of Object.entries(node.properties || {})) {
    if (value === false || value === null || value === undefined) continue;
    const text = Array.isArray(value) ? value.join(" ") : value === true ? "" : String(value);
    attributes += ` ${HAST_NAMES[name] ?? name}="${escapeHtml(text)}"`;
  }
  const inside = (node.children || []).map(hastToHtml).join("");
  return `<${node.tagName}${attributes}>${inside}</${node.tagName}>`;
}

// ---- readouts: a formula and a row of metrics -------------------------------------------------

function buildReadout(root) {
  root.innerHTML = `
    <div class="lab-live-formula" data-testid="labLiveFormula" aria-live="off"></div>
    <div class="lab-live-metrics" data-testid="labLiveMetrics"></div>`;
  const r = {root, shown: null, showTex: null};
  r.serve = (readout) => {  // what the server drew: the frame a slider at rest must match
    const text = JSON.stringify(readout);
    const changed = text !== r.server;
    r.server = text;
    r.show(readout);
    return changed;
  };
  r.show = (readout) => {
    r.current = readout;
    const text = JSON.stringify(readout);
    if (text === r.shown && (r.showTex === "typeset" || !live.katex)) return;
    r.shown = text;
    const box = root.querySelector(".lab-live-formula");
    box.hidden = readout.tex === null;
    if (readout.tex !== null) {
      if (live.katex) {
        box.innerHTML = live.katex.render(readout.tex);
        r.showTex = "typeset";
        // Fit the line to its column now (ui.formulas), not a frame later: a drag's every frame is new.
        const display = box.querySelector(".katex-display");
        if (display) globalThis.labFitFormulas?.fit(display);
      }
      else { box.textContent = live.katexFailed ? readout.tex : ""; r.showTex = "waiting"; }
    }
    const metrics = root.querySelector(".lab-live-metrics");
    metrics.hidden = !readout.metrics.length;
    metrics.style.setProperty("--lab-columns", String(Math.max(readout.metrics.length, 1)));
    drawMetrics(metrics, readout.metrics);
  };
  return r;
}

function drawMetrics(box, metrics) {
  while (box.children.length > metrics.length) box.lastChild.remove();
  while (box.children.length < metrics.length) {
    const m = document.createElement("div");
    m.className = "lab-live-metric";
    m.dataset.testid = "stMetric";
    m.innerHTML = '<div class="lab-live-metric-label" data-testid="stMetricLabel"></div>' +
      '<div class="lab-live-metric-value" data-testid="stMetricValue"></div>' +
      '<div class="lab-live-metric-delta" data-testid="stMetricDelta"></div>';
    box.appendChild(m);
  }
  metrics.forEach((metric, n) => {
    const m = box.children[n];
    m.title = metric.help ?? "";
    m.children[0].textContent = metric.label;
    m.children[1].textContent = metric.value;
    const delta = m.children[2];
    delta.textContent = metric.delta ?? "";
    delta.dataset.color = metric.color ?? "gray";
    const way = {up: "Up", down: "Down"}[metric.arrow];
    if (way && metric.delta !== null) delta.prepend(arrowIcon(way));
  });
}

function arrowIcon(way) {  // st.metric's delta arrow: up or down, in the delta's colour
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("aria-hidden", "true");
  svg.dataset.testid = "stMetricDeltaIcon-" + way;
  svg.classList.add("lab-live-arrow");
  const path = document.createElementNS("http://www.w3.org/2000/svg", "path");
  path.setAttribute("d", way === "Up" ? "M12 4l-7 7h5v9h4v-9h5z" : "M12 20l7-7h-5V4h-4v9H5z");
  path.setAttribute("fill", "currentColor");
  svg.appendChild(path);
  return svg;
}

// ---- charts: move the drawn bars, points and lines ------------------------------------------------

// Plotly redraws a chart in 10-100 ms (more at d = 4096): too slow for a frame. The chart's y axis is
// fixed over every frame (ui.live.show_chart), so during a drag the bars, the line-and-marker traces
// and the labelled lines are moved in the SVG Plotly drew; on release the server's figure, built from
// the same frame, is drawn by Plotly itself. A chart whose axis is not fixed is redrawn by Plotly.
function drawChart(chart, arrays) {
  const plot = document.querySelector(`.st-key-${chart.key} .lab-chart`);
  if (!plot || !plot._fullLayout || !plot.data) return;
  // A frame that shows this chart as it is drawn changes nothing (the sidebar's γ on Variance: the
  // squared deviations do not depend on it). Plotly drawing the server's figure forgets it (ui/plot.py).
  const drawn = [chart.traces, [chart.xs, chart.zs, chart.axes], chart.lines, arrays];
  const same = plot.labDrawn && drawn.every((part, n) => n === 3 ? part === plot.labDrawn[3]
    : JSON.stringify(part) === JSON.stringify(plot.labDrawn[n]));
  if (same) return;
  plot.labDrawn = drawn;
  const ya = plot._fullLayout.yaxis;
  const redraw = chart.axes?.length || plot._fullLayout.scene || !ya || ya.autorange;
  if (redraw || !moveChart(plot, ya, chart, arrays)) reactChart(plot, chart, arrays);
}

function moveChart(plot, ya, chart, arrays) {
  const px = (v) => ya.c2p(v);
  for (const g of plot.querySelectorAll("g.trace")) {
    const trace = g.__data__?.[0]?.trace;
    if (!trace || trace.index >= chart.traces.length) continue;
    const y = arrays[chart.traces[trace.index]];
    if (trace.type === "bar") {
      const base = px(0);
      for (const point of g.querySelectorAll("g.point")) {
        const i = point.__data__?.i;
        const path = point.querySelector("path");
        if (i === undefined || !path) return false;
        const m = /^M([-\d.e]+),[-\d.e]+V[-\d.e]+H([-\d.e]+)V[-\d.e]+Z$/.exec(path.getAttribute("d") ?? "");
        if (!m) return false;
        const top = Number.isFinite(y[i]) ? px(y[i]) : base;
        setPath(path, `M${m[1]},${pixel(base)}V${pixel(top)}H${m[2]}V${pixel(base)}Z`);
      }
    } else if (trace.type === "scatter") {
      const cd = g.__data__;
      const xa = plot._fullLayout.xaxis;
      const xs = chart.xs?.[trace.index];
      if (xs !== undefined && xs !== null && xa.autorange) return false;  // x moves: its axis must be fixed
      const x = xs === undefined || xs === null ? (p) => xa.c2p(p.x) : (p) => xa.c2p(arrays[xs][p.i]);
      const line = g.querySelector("path.js-line");
      if (line) setPath(line, "M" + cd.map((p) => `${pixel(x(p))},${pixel(px(y[p.i]))}`).join("L"));
      if (!moveMarkers(g, cd, (p) => pixel(x(p)), (p) => pixel(px(y[p.i])))) return false;
    } else {
      return false;
    }
  }
  // The labelled lines: the first chart.lines.length line shapes and annotations (ui.theme.hline).
  const full = plot._fullLayout;
  const lineShapes = (full.shapes ?? []).map((s, k) => [s, k]).filter(([s]) => s.type === "line");
  chart.lines.forEach(([value, label], n) => {
    const [shape, k] = lineShapes[n] ?? [];
    if (!shape) return;
    for (const path of plot.querySelectorAll(`.shapelayer path[data-index="${k}"]`)) {
      const nums = (path.getAttribute("d") ?? "").match(/[-\d.e]+/g)?.map(Number) ?? [];
      const y0 = ya._offset + px(value);
      if (nums.length >= 3) path.setAttribute("d", `M${nums[0]},${y0}H${nums.length > 3 ? nums[2] : nums[2]}`);
    }
    const note = plot.querySelector(`g.annotation[data-index="${n}"]`);
    const drawn = full.annotations?.[n];
    if (note && drawn) {
      note.setAttribute("transform", `translate(0,${px(value) - px(drawn.y)})`);
      const text = note.querySelector("text.annotation-text");
      if (text && text.textContent !== label) text.textContent = label;
    }
  });
  return true;
}

// A chart's coordinates to a hundredth of a pixel: a shape that did not move keeps its exact path, and
// the browser restyles only what changed (Chromium restyles an SVG path whose "d" is set, even to the
// same shape written with other digits).
const pixel = (v) => Math.round(v * 100) / 100;

function setPath(path, d) {
  if (path.getAttribute("d") !== d) path.setAttribute("d", d);
}

// Plotly draws each marker as its own path, placed by a transform: moving 768 of them restyles 768
// elements a frame (about 60% of a frame at d = 768, measured by benchmarks/bench_drag.py). During a
// drag, round markers of one colour are drawn as one path instead (Plotly's are hidden); the
// released figure, drawn by Plotly, brings its own back. Markers of another shape or of several
// colours move one by one.
function moveMarkers(g, cd, x, y) {
  const group = g.querySelector("g.points");
  const points = group ? group.querySelectorAll("path.point") : [];
  if (!points.length) return true;
  let dots = g.querySelector(":scope > path.lab-dots");
  if (!dots && group.dataset.labDots !== "no") {
    const first = points[0];
    const r = /^M([\d.]+),0A\1,\1 0 1,1 0,-\1A\1,\1 0 0,1 \1,0Z$/.exec(first.getAttribute("d") ?? "")?.[1];
    const look = first.getAttribute("style") ?? "";
    const alike = r !== undefined && [...points].every((p) => p.getAttribute("d") === first.getAttribute("d")
      && (p.getAttribute("style") ?? "") === look);
    if (!alike) {
      group.dataset.labDots = "no";
    } else {
      dots = document.createElementNS("http://www.w3.org/2000/svg", "path");
      dots.setAttribute("class", "lab-dots");
      dots.setAttribute("style", look);
      dots.dataset.r = r;
      group.after(dots);
      group.style.display = "none";
    }
  }
  if (dots) {
    const r = Number(dots.dataset.r);
    setPath(dots, cd.map((p) => `M${pixel(x(p) + r)},${y(p)}a${r},${r} 0 1,1 ${-2 * r},0a${r},${r} 0 1,1 ${2 * r},0`)
      .join(""));
    return true;
  }
  for (const point of points) {
    const p = point.__data__;
    const moved = point.transform.baseVal;  // the translate Plotly set, changed in place
    if (!p || p.i === undefined || moved.numberOfItems !== 1) return false;
    moved.getItem(0).setTranslate(x(p), y(p));
  }
  return true;
}

function reactChart(plot, chart, arrays) {
  const data = plot.data.map((trace, n) => {
    if (n >= chart.traces.length) return trace;
    const xs = chart.xs?.[n], zs = chart.zs?.[n];
    return {...trace, y: arrays[chart.traces[n]], ...(xs === undefined || xs === null ? {} : {x: arrays[xs]}),
            ...(zs === undefined || zs === null ? {} : {z: arrays[zs]})};
  });
  const layout = {...plot.layout};
  for (const [name, lo, hi] of chart.axes ?? []) {  // "xaxis2", or "scene.zaxis" in a 3-D scene
    const path = name.split(".");
    let holder = layout;
    for (const part of path.slice(0, -1)) holder = holder[part] = {...(holder[part] ?? {})};
    const last = path[path.length - 1];
    holder[last] = {...(holder[last] ?? {}), range: [lo, hi], autorange: false};
  }
  const lines = (layout.shapes ?? []).filter((shape) => shape.type === "line");
  layout.shapes = (layout.shapes ?? []).map((shape) => {
    const n = lines.indexOf(shape);
    return n >= 0 && n < chart.lines.length ? {...shape, y0: chart.lines[n][0], y1: chart.lines[n][0]} : shape;
  });
  layout.annotations = (layout.annotations ?? []).map((note, n) =>
    n < chart.lines.length ? {...note, y: chart.lines[n][0], text: chart.lines[n][1]} : note);
  globalThis.Plotly?.react(plot, data, layout);
}

// ---- the slider ------------------------------------------------------------------------------------

function buildSlider(root) {
  // The test id is st.slider's: what reads "the slider" of a page (tests/e2e) finds this one.
  root.innerHTML = `
    <div data-testid="stSlider"><label class="lab-live-label"></label>
    <div class="lab-live-track">
      <output class="lab-live-value" aria-hidden="true"></output>
      <input type="range" class="lab-live-input" min="0" step="1">
      <div class="lab-live-ends" aria-hidden="true"><span></span><span></span></div>
    </div></div>`;
  const input = root.querySelector("input");
  input.id = "lab-live-" + Math.random().toString(36).slice(2);
  root.querySelector("label").htmlFor = input.id;
  const s = {root, input, payload: null, dragging: false, shown: -1, pending: null, send: null,
             sent: null, link: null, asking: null, reaching: false};

  s.index = () => Math.min(Math.max(Math.round(Number(input.value)), 0), s.values.length - 1);
  s.draw = (i, moving) => {
    if (!s.values) return;
    const last = s.values.length - 1;
    if (i !== s.shown) {
      s.shown = i;
      root.dataset.value = String(s.values[i]);
      input.setAttribute("aria-valuetext", s.labels[i]);
      const out = root.querySelector(".lab-live-value");
      out.textContent = s.labels[i];
      const at = last > 0 ? i / last : 0.5;
      input.style.setProperty("--lab-fill", `${100 * at}%`);
      out.style.left = `calc(${100 * at}% + ${7 - 14 * at}px)`;
    }
    // At rest the server draws the readouts and the charts; during a drag, each value's frame once.
    if (!moving || !s.payload?.frames || s.stale || i === s.movedTo) return;
    s.movedTo = i;
    const f = s.payload.frames[i];
    for (const r of f.readouts) live.readouts.get(r.key)?.show(r);
    for (const chart of f.charts) drawChart(chart, s.payload.decoded);
  };
  const frame = () => {
    s.pending = null;
    s.draw(s.index(), true);
  };
  input.addEventListener("input", () => { s.pending ??= requestAnimationFrame(frame); });
  const dragging = (on) => {
    s.dragging = on;
    document.documentElement.classList.toggle("lab-live-dragging", on);  // live.css dims ui.live.at_rest
  };
  // Frames are asked for only while the student reaches for this slider (pointer over it, focus, a
  // press), never on a timer or after a run: a message the browser sends by itself can arrive after a
  // click elsewhere (a page link, a button) and take that click's place in the server's queue.
  // The ask waits until no run is going, since a message sent during one carries the kept sliders'
  // browser copies, which a release may not have updated yet (that took a released value back).
  // Once per payload id while the page stays as it is: an answer that leaves the frames stale is not
  // asked again, but a rerun since (a page control's section alone, which keeps this slider's id) can
  // have made them stale, and the next answer is then new.
  s.want = () => {
    if (!s.send || (s.payload && !s.stale) || s.asking !== null) return;
    if (s.sentAsk === s.id && s.sentAskAt === live.served) return;
    const id = (s.asking = s.id);
    root.dataset.frames = "asked";
    const app = document.querySelector('[data-testid="stApp"]');
    const when = () => {
      if (s.asking !== id || !root.isConnected) return;
      if (!askNow(app)) requestAnimationFrame(when);
      else if (s.payload && !s.stale) {  // the run it waited for drew the readouts its frames hold
        s.asking = null;
        root.dataset.frames = framesState(s);
      } else {
        s.sentAsk = id;
        s.sentAskAt = live.served;
        s.send("missing", id);
      }
    };
    requestAnimationFrame(when);
  };
  const reach = (on) => {
    s.reaching = on || s.dragging || document.activeElement === input;
    if (s.reaching) s.want();
    else if (s.asking !== null && s.sentAsk !== s.asking) {  // it left before the ask was sent
      s.asking = null;
      root.dataset.frames = framesState(s);
    }
  };
  root.addEventListener("pointerenter", () => reach(true));
  root.addEventListener("pointerleave", () => reach(false));
  input.addEventListener("focus", () => reach(true));
  input.addEventListener("blur", () => reach(false));
  input.addEventListener("pointerdown", () => { dragging(true); reach(true); });
  const release = () => {
    dragging(false);
    if (!s.values) return;
    if (s.pending !== null) { cancelAnimationFrame(s.pending); frame(); }
    const i = s.index();
    // The address first: the server then sees a query that already holds the value, and
    // ui/history.py keeps this address when the student switches pages and comes Back.
    writeAddress(s, i);
    sent(s, i);
    if (s.sent) giveUpWaiting(s);  // in case no run answers it at all
    if (i !== s.released) for (const other of live.sliders.values()) if (other !== s) stale(other, true);
    s.released = i;
    if (s.send) s.send("value", s.values[i]);
  };
  input.addEventListener("change", release);  // mouse or touch release, and each arrow key
  addEventListener("pointerup", () => { if (s.dragging) dragging(false); });
  return s;
}

// Streamlit sends a component's value on a timer (setTimeout 0), with the page the browser is on when
// the timer fires: a page link clicked before that sent the switch first, and the value then came
// with the old page, which Streamlit drew again under the new address. Until the timer has fired,
// live.unsent says a value waits (the click listener above).
function queued(setTriggerValue) {
  return (event, value) => {
    setTriggerValue(event, value);
    live.unsent = true;
    setTimeout(() => { live.unsent = false; }, 0);
  };
}

function mountSlider(root, data, setTriggerValue) {
  const s = (root.labLive ??= buildSlider(root));
  s.send = queued(setTriggerValue);
  s.id = data.payload.id;
  s.link = data.link;
  s.path = location.pathname;
  live.sliders.set(data.link.key, s);
  const label = root.querySelector(".lab-live-label");
  label.textContent = data.label;
  if (data.help) label.title = data.help;
  if (s.values?.length !== data.values.length || s.labels.some((t, n) => t !== data.labels[n])) {
    s.values = data.values;
    s.labels = data.labels;
    s.shown = -1;
    const ends = root.querySelectorAll(".lab-live-ends span");
    ends[0].textContent = data.labels[0];
    ends[1].textContent = data.labels[data.labels.length - 1];
    s.input.max = String(data.values.length - 1);
  }
  s.movedTo = -1;  // the server drew this run's view: a drag draws from its first value on
  const payload = data.payload.frames ? keep(data.payload) : live.payloads.get(data.payload.id);
  s.payload = payload ?? null;
  if (s.asking !== null && (s.sentAsk === s.asking || s.asking !== s.id)) s.asking = null;  // answered
  s.stale = false;  // checkFresh below tells if the server's frames are not the page's either
  root.dataset.frames = s.asking === null ? framesState(s) : "asked";
  // A run that answers an earlier key press must not pull the thumb back from where the student has
  // moved it since: the thumb follows the server again once it answers the value sent last.
  const waiting = s.sent && s.sent.index !== data.index && performance.now() - s.sent.at < 5000;
  s.served = data.index;
  if (!waiting) sent(s, null);
  else if (s.sent.path !== location.pathname && !s.sent.again) {
    // A page link clicked in the moment of a release: the new page's run can come before the
    // release's and replace it, and drew the old value. The release is sent again, from this page.
    s.sent.again = true;
    s.send("value", s.values[s.sent.index]);
    giveUpWaiting(s);
  } else giveUpWaiting(s);
  if (!s.dragging && !waiting) {
    s.input.value = String(data.index);
    s.released = data.index;
    // The address says what the page shows: Forward at once after a key press left it holding the
    // released value (Streamlit wrote the bound slider's copy into the new page's address) while the
    // run drew the entry's.
    writeAddress(s, data.index);
  }
  s.draw(s.index(), false);
  checkFresh(s);
  // a release that changed no readout redraws none to check the others against: this run is the check
  for (const other of live.sliders.values()) if (other !== s) checkFresh(other);
  if (s.reaching && (!s.payload || s.stale)) s.want();  // still under the pointer or focused
}

// ---- bars: drag a feature of the vector itself (ui/live/vector.py) ------------------------------------

// Over each bar of a feature chart (bars at x = 1 … d) a native vertical range input spans the column,
// its ends at the grid's ends on the y axis: a press puts the value under the pointer, a drag follows
// it, Tab and the arrow keys work as on any slider. A feature's frames come when the student reaches
// for its bar (as a live slider's do) and say what the whole page shows at each grid value.
const BAR_THUMB = 6;  // px: the grab handle's height (live.css); the input's ends reach past the axis by half

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
  const width = Math.max(Math.min(slot * 0.9, 80), 6);
  b.inputs.forEach((input, i) => {
    input.max = String(b.data.count - 1);
    if (b.dragging !== i) input.value = String(b.data.at[i]);
    input.setAttribute("aria-valuetext", b.data.texts[i]);
    input.style.left = `${from.left - to.left + xa._offset + xa.c2p(i + 1) - width / 2}px`;
    input.style.top = `${top}px`;
    input.style.width = `${width}px`;
    input.style.setProperty("--lab-bar-width", `${width}px`);
    input.style.height = `${height}px`;
    input.dataset.frames = b.have.has(i) ? "ready" : b.asking === i ? "asked" : "missing";
  });
  return true;
}

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
      if (now) b.want(i);
      else dwell = setTimeout(() => b.want(i), 120);  // a pointer passing over the chart asks nothing
    } else if (b.asking === i && !b.askSent && b.dragging !== i) {
      b.asking = null;
      input.dataset.frames = "missing";
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
    const f = payload.frames[k];
    for (const r of f.readouts) live.readouts.get(r.key)?.show(r);
    for (const chart of f.charts) drawChart(chart, payload.decoded);
  };
  input.addEventListener("input", () => { pending ??= requestAnimationFrame(frame); });
  input.addEventListener("change", () => {
    if (pending !== null) { cancelAnimationFrame(pending); frame(); }
    b.dragging = -1;
    document.documentElement.classList.remove("lab-live-dragging");
    tip().hidden = true;
    for (const s of live.sliders.values()) stale(s, true);  // their frames are of the old vector
    live.barsSent = true;  // until the app's run answers (mountBars)
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
      globalThis.Plotly?.relayout(plot, {"yaxis.range": [Math.min(a, lo), Math.max(b, hi)]});
    }
  }
}

function mountBars(root, data, setTriggerValue) {
  const b = (root.labBars ??= {root, layer: null, inputs: [], have: new Map(), asking: null,
                                askSent: false, dragging: -1, movedTo: -1});
  if (b.data?.base !== data.base) { b.have.clear(); b.asking = null; }
  live.barsSent = false;
  b.data = data;
  b.send = queued(setTriggerValue);
  const p = data.payload;
  if (p && p.base === data.base) {
    b.have.set(p.feature, keep(p));
    if (b.asking === p.feature) b.asking = null;
    widenAxes(p.ranges, data.chart);
  }
  if (b.askSent && b.asking !== null) b.asking = null;  // answered (or the run went another way)
  b.askSent = false;
  // The same rule as a live slider's (want, above): asked only while the student reaches for a bar.
  b.want = (i) => {
    if (b.have.has(i) || b.asking !== null) return;
    b.asking = i;
    if (b.inputs[i]) b.inputs[i].dataset.frames = "asked";
    const base = b.data.base;
    const app = document.querySelector('[data-testid="stApp"]');
    const when = () => {
      if (b.asking !== i || b.data.base !== base || !root.isConnected) return;
      if (!askNow(app)) requestAnimationFrame(when);
      else { b.askSent = true; b.send("feature", {base, i}); }
    };
    requestAnimationFrame(when);
  };
  let tries = 0;
  const place = () => {
    if (!placeBars(b)) {
      if (root.isConnected && ++tries < 600) requestAnimationFrame(place);
      return;
    }
    // A new input under a pointer that stays on its bar (or a focus that stays) fires no new enter
    // event: that bar is reached for still, so its frames are asked for now.
    const i = b.inputs.findIndex((el) => el.matches(":hover") || el === document.activeElement);
    if (i >= 0) b.want(i);
  };
  place();
  if (!b.resizeWatched) {
    b.resizeWatched = true;
    addEventListener("resize", () => { if (root.isConnected) placeBars(b); });
  }
  return () => { if (!root.isConnected) b.layer?.remove(); };
}

export default function (component) {
  const {data, parentElement, setTriggerValue} = component;
  const root = parentElement.querySelector(".lab-live");
  const ready = live.katex || live.katexFailed;
  if (data.mode === "readout") {
    const r = (root.labReadout ??= buildReadout(root));
    r.key = data.readout.key;
    live.readouts.set(r.key, r);
    // A redraw with the same numbers (React renders a component again) tells nothing new.
    if (r.serve(data.readout)) {
      live.served += 1;
      for (const s of live.sliders.values()) checkFresh(s);
    }
    if (!ready) loadKatex(data.katex).then(() => r.show(r.current));  // the newest by then
    return () => { if (live.readouts.get(r.key) === r) live.readouts.delete(r.key); };
  }
  if (data.mode === "bars") return mountBars(root, data, setTriggerValue);
  root.classList.add("lab-live-slider");
  mountSlider(root, data, setTriggerValue);
  if (!ready) loadKatex(data.katex);
}
