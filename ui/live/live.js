// A live slider (ui/live/__init__.py). component.data: {label, value, katex: URL of Streamlit's own
// KaTeX module, payload: {id, values, frames, arrays}}. Every number shown comes from a frame the
// server made; the browser only picks the frame of the value the thumb shows.

const decode = (b64) => {
  const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  return new Float64Array(bytes.buffer);
};

function build(root) {
  // The test ids are those of st.slider and st.metric: what reads "the slider" or "the μ metric" of
  // a page (tests/e2e) finds this one.
  root.innerHTML = `
    <div data-testid="stSlider"><label class="lab-live-label"></label>
    <div class="lab-live-track">
      <output class="lab-live-value" aria-hidden="true"></output>
      <input type="range" class="lab-live-input">
      <div class="lab-live-ends" aria-hidden="true"><span></span><span></span></div>
    </div></div>
    <div class="lab-live-formula" data-testid="labLiveFormula" aria-live="off"></div>
    <div class="lab-live-metrics" data-testid="labLiveMetrics"></div>`;
  const input = root.querySelector("input");
  input.id = "lab-live-" + Math.random().toString(36).slice(2);
  root.querySelector("label").htmlFor = input.id;
  const s = {root, input, payload: null, arrays: [], tex: new Map(), katex: null, dragging: false,
             shown: -1, pending: null, send: null, sent: null, link: null};

  s.index = () => {  // the frame of the offered value nearest the thumb
    const v = Number(input.value);
    let best = 0;
    s.payload.values.forEach((o, n) => { if (Math.abs(o - v) < Math.abs(s.payload.values[best] - v)) best = n; });
    return best;
  };
  s.draw = (i, charts) => {
    if (!s.payload || i === s.shown) return;
    s.shown = i;
    const f = s.payload.frames[i];
    root.dataset.value = String(s.payload.values[i]);
    input.setAttribute("aria-valuetext", f.value);
    const out = root.querySelector(".lab-live-value");
    out.textContent = f.value;
    input.style.setProperty("--lab-fill", `${(100 * i) / (s.payload.values.length - 1)}%`);
    out.style.left = `calc(${(100 * i) / (s.payload.values.length - 1)}% + ${7 - (14 * i) / (s.payload.values.length - 1)}px)`;
    drawFormula(s, i);
    drawMetrics(root.querySelector(".lab-live-metrics"), f.metrics);
    if (charts) for (const chart of f.charts) drawChart(s, chart);  // at rest the server draws them
  };
  const frame = () => {
    s.pending = null;
    s.draw(s.index(), true);
  };
  input.addEventListener("input", () => { s.pending ??= requestAnimationFrame(frame); });
  input.addEventListener("pointerdown", () => { s.dragging = true; });
  const release = () => {
    s.dragging = false;
    if (s.pending !== null) { cancelAnimationFrame(s.pending); frame(); }
    const value = s.payload.values[s.index()];
    // The address first, as Streamlit's own slider writes it for a bound widget the student moved
    // (replaceState; the default leaves it out): the server then sees a query that already holds
    // the value, and ui/history.py keeps this address when the student switches pages and comes Back.
    const address = new URL(location.href);
    if (value === s.link.default) address.searchParams.delete(s.link.key);
    else address.searchParams.set(s.link.key, String(value));
    if (address.href !== location.href) history.replaceState(history.state, "", address.href);
    s.sent = {value, at: performance.now()};
    if (s.send) s.send("value", value);
  };
  input.addEventListener("change", release);  // mouse or touch release, and each arrow key
  addEventListener("pointerup", () => { s.dragging = false; });
  return s;
}

// st.latex typesets with rehype-katex, whose KaTeX (0.16) matches the styles in Streamlit's CSS; the
// separate katex module Streamlit also ships is another version (0.18), whose class names those styles
// do not know (subscripts sat on the baseline). rehype-katex's module exports only its rehype plugin, so
// a formula goes through the plugin as a one-element tree, and the tree it returns is written as HTML.
function katexOf(rehypeKatex) {
  const transform = rehypeKatex({});
  return {renderToString(tex) {
    const tree = {type: "root", children: [{type: "element", tagName: "div",
      properties: {className: ["math-display"]}, children: [{type: "text", value: tex}]}]};
    transform(tree, {message() {}});
    return tree.children.map(hastToHtml).join("");
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

function drawFormula(s, i) {
  const box = s.root.querySelector(".lab-live-formula");
  const tex = s.payload.frames[i].tex;
  if (!s.katex) {  // KaTeX is a moment away (first page of a session): no flash of raw TeX
    box.textContent = s.katexFailed ? tex : "";
    return;
  }
  let html = s.tex.get(tex);
  if (html === undefined) {
    html = s.katex.renderToString(tex, {displayMode: true, throwOnError: false});
    s.tex.set(tex, html);
  }
  box.innerHTML = html;
}

function drawMetrics(box, metrics) {
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

function drawChart(s, chart) {
  // The chart's own plot (ui.plot.show, in the document): its traces' y and its labelled lines.
  const plot = document.querySelector(`.st-key-${chart.key} .lab-chart`);
  if (!plot || !plot._fullLayout || !globalThis.Plotly || !plot.data) return;
  const data = plot.data.map((trace, n) =>
    n < chart.traces.length ? {...trace, y: s.arrays[chart.traces[n]]} : trace);
  const layout = {...plot.layout};
  const lines = (layout.shapes ?? []).filter((shape) => shape.type === "line");
  layout.shapes = (layout.shapes ?? []).map((shape) => {
    const n = lines.indexOf(shape);
    return n >= 0 && n < chart.lines.length ? {...shape, y0: chart.lines[n][0], y1: chart.lines[n][0]} : shape;
  });
  layout.annotations = (layout.annotations ?? []).map((note, n) =>
    n < chart.lines.length ? {...note, y: chart.lines[n][0], text: chart.lines[n][1]} : note);
  globalThis.Plotly.react(plot, data, layout);
}

export default function (component) {
  const {data, parentElement, setTriggerValue} = component;
  const root = parentElement.querySelector(".lab-live");
  const s = (root.labLive ??= build(root));
  s.send = setTriggerValue;
  const {payload, value, label} = data;
  s.link = data.link;
  root.querySelector(".lab-live-label").textContent = label;
  if (!s.payload || s.payload.id !== payload.id) {
    s.payload = payload;
    s.arrays = payload.arrays.map(decode);
    s.tex.clear();
    s.shown = -1;
    const ends = root.querySelectorAll(".lab-live-ends span");
    ends[0].textContent = payload.frames[0].value;
    ends[1].textContent = payload.frames[payload.frames.length - 1].value;
    const values = payload.values;
    s.input.min = String(values[0]);
    s.input.max = String(values[values.length - 1]);
    s.input.step = String(values.length > 1 ? (values[values.length - 1] - values[0]) / (values.length - 1) : 1);
  }
  // A run that answers an earlier key press must not pull the thumb back from where the student has
  // moved it since: the thumb follows the server again once it answers the value sent last.
  const waiting = s.sent && s.sent.value !== value && performance.now() - s.sent.at < 5000;
  if (!waiting) s.sent = null;
  if (!s.dragging && !waiting) {
    s.input.value = String(value);
  }
  // An absolute address: this script runs from a blob, against which "/static/..." means nothing.
  s.katexReady ??= import(new URL(data.katex, location.href).href).then(
    (m) => { s.katex = katexOf(m.default); s.shown = -1; s.draw(s.index(), false); },
    (error) => {
      console.error("the formula is shown as TeX: KaTeX did not load", error);
      s.katexFailed = true;
      s.shown = -1;
      s.draw(s.index(), false);
    });
  s.draw(s.index(), false);
}
