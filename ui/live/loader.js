// The live elements' code (ui/live/__init__.py): this loader, sent inline with every live element,
// imports static/live.js once per tab from the address component.data.code gives (with its version),
// and hands each element to it. Code given inline goes with every live element of every run.
let module = null, loading = null;
// component.data comes as the bytes of its JSON (ui/live/frames.py, wire): the frames' text is written
// once per process, not encoded again for every session that is sent them.
export default function (sent) {
  const component = {...sent, data: JSON.parse(new TextDecoder().decode(sent.data))};
  let cleanup = null, gone = false;
  const run = (m) => { if (!gone) cleanup = m.default(component); };
  if (module) run(module);
  else (loading ??= import(new URL(component.data.code, location.href).href).then((m) => (module = m)))
    .then(run, (error) => {
      loading = null;  // the next draw tries again
      console.error("static/live.js did not load", error);
      if (!gone) component.parentElement.querySelector(".lab-live").textContent =
        "This control could not be drawn (live.js did not load). Reload the page to try again.";
    });
  return () => { gone = true; if (typeof cleanup === "function") cleanup(); };
}
