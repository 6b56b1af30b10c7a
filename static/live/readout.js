// A live readout (a formula and a row of metrics, ui.live.readout): drawn from the server's frame at
// rest and from a slider's frame during a drag; and the KaTeX that typesets its formula.

// Imports carry this module's own ?v= (ui/live/__init__.py): a tab never runs two versions' files.
const v = new URL(import.meta.url).search;
const {live} = await import(`./state.js${v}`);

// KaTeX: st.latex typesets with rehype-katex, whose KaTeX (0.16) matches the styles in Streamlit's
// CSS; the separate katex module Streamlit also ships is another version (0.18), whose class names
// those styles do not know (subscripts sat on the baseline). rehype-katex's module exports only its
// rehype plugin, so a formula goes through the plugin as a one-element tree, and the tree it returns
// is written as HTML. Loaded once per tab; typeset formulas are kept by their TeX.
export function loadKatex(url) {
  // An absolute address: "/static/..." is against the server, not against this module.
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

// ---- the readout -------------------------------------------------------------------------------

export function buildReadout(root) {
  root.innerHTML = `
    <div class="lab-live-formula" data-testid="labLiveFormula" aria-live="off"></div>
    <div class="lab-live-metrics" data-testid="labLiveMetrics"></div>`;
  const r = {root, shown: null, showTex: null};
  r.serve = (readout) => {  // what the server drew: the frame a slider at rest must match
    const text = JSON.stringify(readout);
    const changed = text !== r.server;
    if (changed && r.server !== undefined) announce(readout);  // a release, a key, another control
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
    // Until KaTeX has loaded the formula is blank: "waiting" says so to whoever reads the page's text.
    if (readout.tex === null) delete box.dataset.typeset;
    else box.dataset.typeset = live.katex ? "typeset" : live.katexFailed ? "tex" : "waiting";
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
    const columns = Math.max(readout.metrics.length, 1);
    metrics.style.setProperty("--lab-columns", String(columns));
    metrics.style.setProperty("--lab-columns-narrow", String(Math.min(columns, 2)));
    drawMetrics(metrics, readout.metrics);
  };
  return r;
}

// ---- announcements -----------------------------------------------------------------------------

// What the server draws after a release or a key step (never a drag's frames) is said politely to a
// screen reader, in one hidden status region per tab: each readout's metrics, "μ 1.125, σ 0.5". A key
// held down commits a step after step; the region is written at most once a second, with the newest
// numbers of every readout that changed meanwhile.
const SAY_EVERY_MS = 1000;

export function spoken(readout) {
  return readout.metrics.map((m) => `${m.label} ${m.value}`).join(", ");
}

function announce(readout) {
  const text = spoken(readout);
  if (!text) return;
  const a = (live.announcer ??= {region: null, pending: new Map(), last: -Infinity, timer: null});
  if (!a.region?.isConnected) {
    a.region = document.createElement("div");
    a.region.setAttribute("role", "status");
    a.region.setAttribute("aria-live", "polite");
    a.region.dataset.testid = "labLiveAnnounce";
    a.region.className = "lab-live-announce";
    document.body.append(a.region);
  }
  a.pending.set(readout.key, text);
  if (a.timer !== null) return;
  a.timer = setTimeout(() => {
    a.timer = null;
    a.last = performance.now();
    a.region.textContent = [...a.pending.values()].join(". ");
    a.pending.clear();
  }, Math.max(0, a.last + SAY_EVERY_MS - performance.now()));
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
