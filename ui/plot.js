// A chart drawn by ui/plot.py's component: Plotly.react on the plot the element already has, in the
// page's theme, and put off while the chart is far from the screen (ui/plot.py says why).
// Runs in the browser on every rerun that draws the chart, and again when the theme changes.
// component.data: {spec: the figure as JSON text, height, url: where static files are served,
// version: of plotly and Streamlit, so that a browser never keeps an older copy from its cache,
// bundles: {flat, solid}: the plotly.js files for charts without and with 3-D traces (ui/plot.py)}.
// One per tab: the charts whose newest figure waits until they come near the screen (ui/plot.py).
globalThis.labOffscreen ??= (() => {
  const waiting = new Set();  // plot divs whose plot.labDraw() has not run yet
  const drawable = (plot) => plot.isConnected && plot.getBoundingClientRect().width > 0;
  const near = (plot) => {  // within half a screen of the window (a hidden tab's chart is not)
    const box = plot.getBoundingClientRect();
    const margin = 0.5 * innerHeight;
    return box.width > 0 && box.bottom > -margin && box.top < innerHeight + margin;
  };
  const draw = (plot) => { waiting.delete(plot); plot.labDraw(); };
  const drawWhere = (test) => { for (const plot of [...waiting]) if (test(plot)) draw(plot); };
  let framed = false;
  const check = () => {
    if (framed || !waiting.size) return;
    framed = true;
    requestAnimationFrame(() => { framed = false; drawWhere(near); });
  };
  // When the page has been quiet for two seconds, the rest are drawn too, one chart per idle moment,
  // so that a printout, a screenshot or a fast scroll never meets an old figure.
  let quiet = null;
  const drainOne = () => {
    for (const plot of waiting) if (!plot.isConnected) waiting.delete(plot);
    const next = [...waiting].find(drawable);
    if (!next) return;
    draw(next);
    requestIdleCallback(drainOne, {timeout: 2000});
  };
  document.addEventListener("scroll", check, {capture: true, passive: true});
  addEventListener("resize", check);
  addEventListener("beforeprint", () => drawWhere(drawable));
  matchMedia("print").addEventListener("change", (query) => { if (query.matches) drawWhere(drawable); });
  return {
    quietMs: 2000,
    wait(plot) {
      waiting.add(plot);
      clearTimeout(quiet);
      quiet = setTimeout(() => requestIdleCallback(drainOne, {timeout: 2000}), this.quietMs);
    },
    near, check, drawn: (plot) => waiting.delete(plot), waiting: () => waiting.size,
  };
})();

// Charts narrower than this are a phone's (a 390 px screen gives a chart about 358 px).
const NARROW = 560;
let pen = null;  // a canvas's 2-D context, once per tab: measures a title's words

// The title in lines at its spaces, each line as wide as fits the chart (measured in the title's bold
// font), and the top margin grown by the lines added. A title with markup other than <b>, <i>, <sub>
// and <sup> (a <br> of its own, a styled span) is left as it is.
function wrapTitle(layout, width) {
  const title = layout.title;
  if (!title || typeof title.text !== "string") return;
  const inner = title.text.replace(/^<b>/, "").replace(/<\/b>$/, "");
  if (/<(?!\/?(b|i|sub|sup)>)/i.test(inner)) return;
  const size = title.font?.size ?? layout.font?.size ?? 16;
  const family = title.font?.family ?? layout.font?.family ?? layout.template?.layout?.font?.family ?? "sans-serif";
  pen ??= document.createElement("canvas").getContext("2d");
  pen.font = `bold ${size}px ${family}`;
  const wide = (text) => pen.measureText(text.replace(/<[^>]*>/g, "")).width;
  const room = width - 16;
  const lines = [];
  let line = "";
  for (const word of inner.split(" ")) {
    const longer = line ? `${line} ${word}` : word;
    if (line && wide(longer) > room) {
      lines.push(line);
      line = word;
    } else line = longer;
  }
  lines.push(line);
  if (lines.length < 2) return;
  // Plotly sets a title of several lines 13 px higher than one of one line (measured: its top left the
  // chart at a 390 px phone): the pad takes it back down.
  const down = 14;
  layout.title = {...title, text: lines.map((l) => `<b>${l}</b>`).join("<br>"),
    pad: {...(title.pad ?? {}), t: (title.pad?.t ?? 0) + down}};
  const margin = layout.margin ?? {};
  layout.margin = {...margin, t: (margin.t ?? 70) + down + (lines.length - 1) * Math.ceil(size * 1.3)};
}

// A legend above the plot grows upwards into the top margin and may reach the title: the margin grows
// by what they overlap, once (the legend moves down with the plot's top).
function clearTitle(plot) {
  const title = plot.querySelector(".gtitle")?.getBoundingClientRect();
  const legend = plot.querySelector(".legend")?.getBoundingClientRect();
  if (!title || !legend || !title.height || !legend.height) return;
  const overlap = Math.ceil(title.bottom + 4 - legend.top);
  if (overlap <= 0 || legend.bottom < title.top) return;
  const drawn = plot._fullLayout;
  const t = drawn?._size?.t ?? drawn?.margin?.t ?? 70;  // as drawn, a legend's push included
  plot.labPlotly.relayout(plot, {"margin.t": t + overlap}).catch(() => null);
}

// During a drag a live chart's markers are drawn as one path, Plotly's own hidden (static/live/chart.js):
// before Plotly draws the chart again, its own markers come back and the stand-in goes, and the
// frame the drag drew last is no longer what the chart shows.
function ownMarkers(plot) {
  plot.labDrawn = null;
  for (const dots of plot.querySelectorAll("path.lab-dots")) dots.remove();
  for (const group of plot.querySelectorAll("g.points")) group.style.display = "";
}

function loadScript(src) {
  return new Promise((resolve, reject) => {
    const script = document.createElement("script");
    script.src = src;
    script.onload = resolve;
    script.onerror = () => reject(new Error("plotly.js did not load"));
    document.head.appendChild(script);
  });
}

// The flat charts' plotly.js (globalThis.Plotly, which static/live/ also uses) and the chart
// themes, once per tab; after a failure the next chart tries again.
function flatCharts(url, version, bundles) {
  globalThis.labChartReady ??= Promise.all([
    globalThis.Plotly ? null : loadScript(url + bundles.flat + "?v=" + version),
    fetch(url + "chart_themes.json?v=" + version).then((answer) => {
      if (!answer.ok) throw new Error("the chart theme did not load (" + answer.status + ")");
      return answer.json();
    }),
  ]).then(([, themes]) => themes);
  return globalThis.labChartReady;
}

// A trace type only the gl3d bundle draws, as the figure's JSON text names it.
const SOLID = /"type": ?"(scatter3d|surface|mesh3d|cone|streamtube|isosurface|volume)"/;

// The Plotly that draws this figure: the flat one, or for a 3-D figure the gl3d bundle's, loaded
// once per tab after the flat one. Each bundle sets globalThis.Plotly as it runs; the flat one is put
// back in the same task (a script's load event follows its run at once), so nothing else sees it.
// The Plotly that draws this figure if it is loaded already, else null.
function plotlyNow(spec, bundles) {
  if (!SOLID.test(spec) || bundles.solid === bundles.flat) return globalThis.Plotly;
  return globalThis.labSolid ?? null;
}

function plotlyFor(spec, url, version, bundles) {
  globalThis.labSolidPlotly ??= globalThis.labChartReady.then(() => {
    const flat = globalThis.Plotly;
    const back = () => {
      const solid = globalThis.Plotly;
      globalThis.Plotly = flat;
      globalThis.labSolid = solid;
      return solid;
    };
    return loadScript(url + bundles.solid + "?v=" + version).then(back, (error) => {
      back();
      globalThis.labSolidPlotly = undefined;
      throw error;
    });
  });
  return globalThis.labSolidPlotly;
}

// The chart in words (ui/chart_text.py): its name on the chart, the summary read with it, and the
// table of its numbers behind a disclosure under it (Tab, then Enter or Space, opens it).
function putWords(host, plot, words) {
  if (!words) return;
  let block = host.querySelector(":scope .lab-chart-words");
  if (!block) {
    block = document.createElement("div");
    block.className = "lab-chart-words";
    // The table scrolls inside its box when long: a keyboard reaches it (tabindex) to scroll it.
    block.innerHTML = '<p class="lab-chart-summary"></p><details><summary>The numbers (table)</summary>' +
      '<div class="lab-chart-table" tabindex="0"><table><caption></caption><thead><tr></tr></thead>' +
      "<tbody></tbody></table></div></details>";
    plot.after(block);
  }
  const id = (plot.id ||= "lab-chart-" + Math.random().toString(36).slice(2));
  const summary = block.querySelector(".lab-chart-summary");
  summary.id = id + "-summary";
  summary.textContent = words.summary;
  plot.setAttribute("role", "figure");
  plot.setAttribute("aria-label", words.name);
  plot.setAttribute("aria-describedby", summary.id);
  block.querySelector("details").hidden = !words.rows.length;  // a diagram: its words are the summary
  block.querySelector("caption").textContent = words.name + " (" + words.note + ")";
  const head = block.querySelector("thead tr");
  head.replaceChildren(...words.columns.map((c) => Object.assign(document.createElement("th"), {scope: "col", textContent: c})));
  const body = block.querySelector("tbody");
  body.replaceChildren(...words.rows.map((row) => {
    const tr = document.createElement("tr");
    row.forEach((cell, i) => tr.append(Object.assign(document.createElement(i ? "td" : "th"), {textContent: cell})));
    return tr;
  }));
}

export default function (component) {
  const {spec, height, url, version, bundles, words} = component.data;
  const host = component.parentElement;
  const plot = host.querySelector(".lab-chart");
  const note = plot.querySelector(".lab-chart-note");
  plot.style.height = height + "px";
  putWords(host, plot, words);
  flatCharts(url, version, bundles);
  return globalThis.labChartReady.then((themes) => {
    plot.labDraw = () => drawFigure(themes);
    if (plot._fullLayout && !globalThis.labOffscreen.near(plot)) {
      globalThis.labOffscreen.wait(plot);  // drawn when it comes near the screen, or when all is quiet
      return;
    }
    globalThis.labOffscreen.drawn(plot);
    return plot.labDraw();
  }, (error) => {
    globalThis.labChartReady = undefined;  // the next rerun tries again
    const why = "This chart could not be drawn (" + error.message + "). Reload the page to try again.";
    console.error(why);
    for (const left of document.querySelectorAll(".lab-chart-note")) left.textContent = why;
  });

  // At once when its Plotly is loaded (a printout's "beforeprint" draws every waiting chart before
  // the page is laid out); a 3-D chart's first draw waits for the gl3d bundle.
  function drawFigure(themes) {
    const use = (plotly) => {
      if (plot.labPlotly && plot.labPlotly !== plotly) plot.labPlotly.purge(plot);  // 2-D <-> 3-D
      plot.labPlotly = plotly;
      return drawWith(plotly, themes);
    };
    const now = plotlyNow(spec, bundles);
    if (now) return use(now);
    return plotlyFor(spec, url, version, bundles).then(use, (error) => {
      const why = "This chart could not be drawn (" + error.message + "). Reload the page to try again.";
      console.error(why);
      if (note?.isConnected) note.textContent = why;
    });
  }

  function drawWith(plotly, themes) {
    const background = getComputedStyle(host).getPropertyValue("--st-background-color").trim();
    const rgb = (background.match(/[0-9a-f]{2}/gi) || ["ff", "ff", "ff"]).slice(0, 3);
    const dark = rgb.reduce((sum, c) => sum + parseInt(c, 16), 0) < 3 * 128;
    const theme = Object.values(themes).find(
      (t) => t.background.toUpperCase() === background.toUpperCase()
    ) ?? (dark ? themes.dark : themes.light);
    const figure = JSON.parse(spec.replace(/#0000[0-4][0-9]/g, (c) => theme.colors[c] ?? c));
    const layout = figure.layout ?? {};
    layout.template = theme.template;
    if (plot.labSpec === spec && plot.layout) {
      // The same figure in a new theme keeps the student's zoom or rotation (new data resets it).
      // Copied by hand: a uirevision that changes with the data made every update a full replot.
      for (const [name, was] of Object.entries(plot.layout)) {
        if (/^[xy]axis[0-9]*$/.test(name) && was) {
          layout[name] = {...(layout[name] ?? {}), range: was.range, autorange: was.autorange};
        } else if (/^scene[0-9]*$/.test(name) && was?.camera) {
          layout[name] = {...(layout[name] ?? {}), camera: was.camera};
        }
      }
    }
    plot.labSpec = spec;
    const title = typeof layout.title === "string" ? {text: layout.title} : layout.title;
    if (title && typeof title.text === "string" && !title.text.startsWith("<b>")) {
      layout.title = {...title, text: "<b>" + title.text + "</b>"};  // as st.plotly_chart shows it
    }
    if (note) note.remove();
    plot.dataset.theme = theme === themes.dark ? "dark" : "light";
    // A phone's chart: no toolbar (Plotly shows it always on a touch screen, over the title), and a
    // title broken into lines that fit (Plotly never wraps one: the end was cut).
    const narrow = plot.clientWidth > 0 && plot.clientWidth < NARROW;
    if (narrow) wrapTitle(layout, plot.clientWidth);
    plot.labWidth = Math.round(plot.clientWidth);  // the width drawn for: a phone's chart is redrawn when it changes
    const config = {displaylogo: false, responsive: true, ...(narrow ? {displayModeBar: false} : {})};
    ownMarkers(plot);
    return plotly.react(plot, figure.data ?? [], layout, config).then(() => {
      if (narrow) clearTitle(plot);
      if (plot.labResize) return;
      // The plot follows its column's width (the sidebar opening or closing, not only the window).
      // Only a new width redraws: a rerun that moves the page around must not replot every chart.
      plot.labResize = new ResizeObserver((entries) => {
        const width = Math.round(entries[0].contentRect.width);
        // A phone's chart is drawn again whole: its title's lines and toolbar depend on the width. This
        // compares with the width it was drawn for, not Plotly's: Plotly's own resize (responsive) may
        // have run first and taken the new width (in CI under load the toolbar then stayed).
        const wasPhone = plot.labWidth > 0 && plot.labWidth < NARROW;
        const phone = width > 0 && (width < NARROW || wasPhone) && width !== plot.labWidth;
        if (plot._fullLayout && phone) {
          ownMarkers(plot);
          plot.labDraw?.();
        } else if (width > 0 && plot._fullLayout && width !== plot._fullLayout.width) {
          ownMarkers(plot);
          plot.labPlotly.Plots.resize(plot).catch(() => null);
        }
        globalThis.labOffscreen.check();  // a tab or expander just opened: its charts may be waiting
      });
      plot.labResize.observe(host);
    });
  }
}
