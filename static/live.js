// Live sliders and their readouts (ui/live/__init__.py): the entry a tab imports once, through the
// small loader ui/live/loader.js, as live.js?v=<hash of every file of static/live/>. component.data is
//   {mode: "slider", label, help, index, values, labels, katex, link: {key, urls, default},
//    payload: {id, values, labels, frames: [{readouts, charts}], arrays, ranges} or just {id} when
//    this browser has it already}
//   {mode: "readout", readout: {key, tex, metrics}, katex}
//   {mode: "bars", chart, trace, base, span, count, at, texts, katex, payload} (ui/live/vector.py)
// Every number shown comes from a frame the server made; the browser only picks the frame of the
// value the thumb shows. The messages both ways: docs/ARCHITECTURE.md, "The live controls' messages".
//
// static/live/: state.js (what a tab's live elements share), asks.js (when to ask for frames, what an
// answer means; no DOM), frames.js (which frame to draw; no DOM), address.js (the value in the
// address; no DOM), keys.js (PhET's large steps by key), readout.js (formula and metrics), chart.js
// (a chart moved to a frame), slider.js (the slider), bars.js (a vector's bars dragged).

// Imports carry this module's own ?v=: a tab never runs two versions' files. Every module is asked
// for here at once, so that all load in one round trip: a module's own imports of the others (the
// same addresses) then find them loading or loaded, instead of one round trip per level of imports.
const v = new URL(import.meta.url).search;
const load = (name) => import(`./live/${name}.js${v}`);
const [{live}, {buildReadout, loadKatex}, {mountSlider, checkFresh, redrawThumbs}, {mountBars}] =
  await Promise.all(["state", "readout", "slider", "bars", "asks", "frames", "address", "chart", "keys"].map(load));

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
    // The server's drawing, at a value a thumb has left (an earlier key press's run, a drag's asked
    // frames): the thumb's frame goes over it at once (slider.js).
    redrawThumbs();
    if (!ready) loadKatex(data.katex).then(() => r.show(r.current));  // the newest by then
    return () => { if (live.readouts.get(r.key) === r) live.readouts.delete(r.key); };
  }
  if (data.mode === "bars") return mountBars(root, data, setTriggerValue);
  root.classList.add("lab-live-slider");
  mountSlider(root, data, setTriggerValue);
  if (!ready) loadKatex(data.katex);
}
