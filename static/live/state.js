// What every live element of a tab shares (globalThis.labLive, made once per tab), the page-link
// click that holds back asks and values, and the rule for when an ask may leave.

// Imports carry this module's own ?v= (ui/live/__init__.py): a tab never runs two versions' files.
const v = new URL(import.meta.url).search;
const {mayAsk} = await import(`./asks.js${v}`);

// served: how many times a readout has shown new numbers from the server (a page's rerun); bars: each
// chart's dragged bars (bars.js), by chart key
export const live = (globalThis.labLive ??= (() => {
  const state = {payloads: new Map(), readouts: new Map(), sliders: new Map(), bars: new Map(), leaving: 0,
                 unsent: false, served: 0};
  // A finger has no hover: on a touch device a live control's frames are asked for while it is in view
  // (inView: slider.js, bars.js), so that they are there when a finger lands. A touch device: its
  // primary pointer is coarse, or a finger has touched the page.
  state.touch = matchMedia("(pointer: coarse)").matches;
  state.onTouch = new Set();  // what asks for the frames of the controls in view, once touch is known
  addEventListener("touchstart", () => {
    if (state.touch) return;
    state.touch = true;
    for (const f of state.onTouch) f();
    state.onTouch.clear();
  }, {capture: true, passive: true});
  state.inView = new IntersectionObserver((entries) => {
    for (const e of entries) e.target.labInView?.(e.isIntersecting);
  });
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
  return state;
})());

// Whether an ask for frames may leave now (asks.js, mayAsk): `app` is Streamlit's stApp element.
export function askNow(app) {
  let releasing = false;
  for (const s of live.sliders.values()) if (s.sent && s.root.isConnected) releasing = true;
  return mayAsk({running: app?.dataset.testScriptState === "running", leaving: live.leaving,
                 now: performance.now(), releasing, barsSent: live.barsSent});
}

// Whether the student's numbers wait for the server: a release or a key's value sent and not yet drawn
// (a slider's data-sent, a bar's release). Meanwhile what no frame holds (ui.live.at_rest) is still the
// value before, and is dimmed as during a drag (live.css).
export function markWaiting() {
  let waiting = Boolean(live.barsSent);
  for (const s of live.sliders.values()) if (s.root.isConnected && s.root.dataset.sent) waiting = true;
  document.documentElement.classList.toggle("lab-live-waiting", waiting);
}

// Streamlit sends a component's value on a timer (setTimeout 0), with the page the browser is on when
// the timer fires: a page link clicked before that sent the switch first, and the value then came
// with the old page, which Streamlit drew again under the new address. Until the timer has fired,
// live.unsent says a value waits (the click listener above).
export function queued(setTriggerValue) {
  return (event, value) => {
    setTriggerValue(event, value);
    live.unsent = true;
    setTimeout(() => { live.unsent = false; }, 0);
  };
}

// The readout drawn under `key`: the one its component last mounted, or, while that one is not on the
// page, the one the page shows. Streamlit runs a component's cleanup (which drops it from
// live.readouts) and its next call with new data apart, and a key press between them drew its frame
// nowhere: the page kept an earlier press's numbers beside the thumb (1 key sequence in 20 to 40).
export function readoutOf(key) {
  const r = live.readouts.get(key);
  if (r?.root.isConnected) return r;
  return document.querySelector(`.st-key-live_readout_${CSS.escape(key)} .lab-live`)?.labReadout ?? r;
}
