// A live chart during a drag: the bars, points and lines Plotly drew, moved to a frame's numbers (or
// the chart redrawn by Plotly when its axes change). The chart itself is ui/plot.py's component.

// Plotly redraws a chart in 10-100 ms (more at d = 4096): too slow for a frame. The chart's y axis is
// fixed over every frame (ui.live.show_chart), so during a drag the bars, the line-and-marker traces
// and the labelled lines are moved in the SVG Plotly drew; on release the server's figure, built from
// the same frame, is drawn by Plotly itself. A chart whose axis is not fixed is redrawn by Plotly.
export function drawChart(chart, arrays) {
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
  // The Plotly that drew this plot (ui/plot.js): a 3-D chart's is not the tab's globalThis.Plotly.
  (plot.labPlotly ?? globalThis.Plotly)?.react(plot, data, layout);
}
