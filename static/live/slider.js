// A live slider (ui.live.slider): a native range input that draws a frame of its payload on every move,
// sends the value on release, asks for frames when the student reaches for it, and keeps the thumb,
// the frames and the address consistent with what the server drew (docs/ARCHITECTURE.md, "The live
// controls' messages").

// Imports carry this module's own ?v= (ui/live/__init__.py): a tab never runs two versions' files.
const v = new URL(import.meta.url).search;
const [{live, askNow, queued, markWaiting, readoutOf}, asks, {addressWith, indexIn},
       {keep, indexOf, frameToDraw, staleAgainst, staleAgainstAll, framesState}, {drawChart}, {takeKey}] =
  await Promise.all(["state", "asks", "address", "frames", "chart", "keys"].map((name) => import(`./${name}.js${v}`)));

// Back or Forward: the server answers with the entry's values, which no thumb may wait past (a
// slider waits for the answer to its own last release, and would have kept its thumb there).
// The entry's value is also sent: the kept slider's copy in the browser may still hold the value it
// had before the last release (the server's answer redraws it), and then Streamlit, seeing no
// change, sends nothing, and that late answer put the released value back after the Back.
if (!live.popstateWatched) {  // once per tab, as the state it reads
  live.popstateWatched = true;
  addEventListener("popstate", backOrForward);
}

function backOrForward() {
  for (const s of live.sliders.values()) {
    const waited = s.sent !== null;
    sent(s, null);
    // only a slider of the page the entry is on (a Back to another page draws that page anew)
    if (!s.root.isConnected || !s.link || !s.values || s.path !== location.pathname) {
      // A release the Back or Forward cut short is not waited for any more: its thumb goes back to
      // the value the page shows (an answer that came during the release had left it there).
      if (waited && s.root.isConnected && s.values && !s.dragging) backToServed(s);
      continue;
    }
    const i = indexIn(location.href, s.link);
    if (i >= 0 && i !== s.index()) {
      s.input.value = String(i);
      // The entry's frame into the readouts and charts too: a key press's frame may be drawn there,
      // and the run that would redraw them can be cut short by the Back (its readouts then come
      // with the data the component had at load, which does not redraw it).
      s.movedTo = -1;
      s.draw(i, true);
      sent(s, i);
      s.released = i;
      s.send?.("value", released(s));
    }
  }
}

// A release the server has not answered yet (index), or none (null). Until the run that answers it
// has drawn the slider, its element says so: tests wait for that besides an idle app, which the app
// can be for a moment after a release, before the release's run starts.
function sent(s, index) {
  // Each release is numbered (one count per tab, which a page switch keeps: the sidebar's sliders
  // outlive their elements), and the server says the number of the release it drew: a run answering
  // an earlier release of the same value (0.2, 0.3, 0.2) is not taken for the answer to the last.
  const release = index === null ? null : (live.releases = (live.releases ?? 0) + 1);
  if (asks.markSent(s, index, performance.now(), location.pathname, release)) s.root.dataset.sent = "true";
  else delete s.root.dataset.sent;
  markWaiting();
}

// What a release sends: the value and its number (sent() gave it one).
const released = (s) => ({value: s.values[s.sent.index], release: s.sent.release});

// A slider waiting for the answer to its last release stops waiting once asks.WAIT_MS has passed with
// no newer answer (the release's own run may never come: a page link clicked in the same moment
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
  }, asks.giveUpAfter(mark, performance.now()));
}

// The thumb and the numbers back to the value the server drew last: the readouts and charts too,
// since the drag or key press drew its own value's frame there, and a thumb must never stand beside
// another value's numbers.
function backToServed(s) {
  s.catching = false;
  s.input.value = String(s.served);
  s.released = s.served;
  s.movedTo = -1;
  s.draw(s.index(), true);
}

// The slider's value in the address (address.js), replacing the entry as Streamlit's own slider does.
function writeAddress(s, i) {
  const href = addressWith(location.href, s.link, i);
  if (href !== location.href) history.replaceState(history.state, "", href);
}

// A slider's frame at the value the server drew must be what the page shows: after another control
// moved (a page control's rerun does not redraw the sidebar's sliders), its frames are the page at the
// old values. It then draws none, and asks for new ones when the student reaches for it (want(), below).
export function checkFresh(s) {
  if (!s.payload?.frames || !s.root.isConnected) return;
  const served = (key) => {
    const shown = readoutOf(key);
    return shown?.root.isConnected ? shown.server : undefined;
  };
  const frames = s.payload.frames;
  let off = staleAgainst(frames[s.served ?? s.index()], served);
  if (!off) s.catching = false;  // the page has caught up with the value the server drew
  else if (holding(s)) {
    // Runs of quick key presses overlap: a run's readouts can come before its slider, or after the
    // slider of the next run (an earlier press's numbers, under a later press's thumb). The frames are
    // still the page's if each readout the page shows is one of theirs.
    off = staleAgainstAll(frames, served);
    if (off) {  // no: the page changed under them, and the server's drawing is the truth
      s.catching = false;
      for (const r of frames[s.index()].readouts) {
        const readout = readoutOf(r.key);
        if (readout?.server && readout.shown !== readout.server) readout.show(JSON.parse(readout.server));
      }
    }
  }
  stale(s, off);
}

export function stale(s, on) {
  s.stale = on;
  if (s.asking === null) s.root.dataset.frames = framesState(s);
  if (on && s.reaching) s.want?.();  // under the pointer, focused, or in view on a touch device
}

// A drag, a release or key press whose run has not come, or whose run has come but not yet all the
// readouts it draws (s.catching): the thumb stands where the server has not drawn (all of the page),
// and every run meanwhile (an answer to an earlier key press, the frames asked for during a drag) draws
// the server's readouts and charts at another value.
const holding = (s) => s.dragging || Boolean(s.sent) || Boolean(s.catching);

// The thumb's own frame over what the server drew, while holding and its frames are the page's: at once
// when frames arrive during a drag, and after each readout or chart an older key press's run redraws, so
// that no frame shows numbers for another value than the thumb's.
function showThumb(s) {
  if (!holding(s) || !s.values || !s.payload?.frames || s.stale || !s.root.isConnected) return;
  s.movedTo = -1;
  s.draw(s.index(), true);
}

// After the server drew a readout or a chart (static/live.js, the charts' afterplot): every thumb that
// holds draws its frame again, a vector's dragged bar too (bars.js).
export function redrawThumbs() {
  for (const s of live.sliders.values()) showThumb(s);
  for (const b of live.bars.values()) b.showThumb?.();
}

// Plotly draws a run's figure after the run's readouts, and asynchronously: the thumb's chart is drawn
// again after it (once per chart element).
export function watchChart(key) {
  const plot = document.querySelector(`.st-key-${key} .lab-chart`);
  if (!plot?.on || plot.labThumbWatched) return;
  plot.labThumbWatched = true;
  plot.on("plotly_afterplot", redrawThumbs);
}

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

  s.index = () => indexOf(input.value, s.values.length);
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
    const f = frameToDraw(s, i, moving);
    if (!f) return;
    for (const r of f.readouts) readoutOf(r.key)?.show(r);
    for (const chart of f.charts) {
      drawChart(chart, s.payload.decoded);
      watchChart(chart.key);
    }
  };
  const frame = () => {
    s.pending = null;
    s.draw(s.index(), true);
  };
  input.addEventListener("input", () => { s.pending ??= requestAnimationFrame(frame); });
  input.addEventListener("keydown", (e) => { if (s.values) takeKey(e, input, s.values.length); });
  const dragging = (on) => {
    s.dragging = on;
    document.documentElement.classList.toggle("lab-live-dragging", on);  // live.css dims ui.live.at_rest
  };
  // Frames are asked for only while the student reaches for this slider (pointer over it, focus, a
  // press; on a touch device, while it is in view: a finger has no hover, and lands at once), never on
  // a timer: a message the browser sends by itself can arrive after a click elsewhere (a page link, a
  // button) and take that click's place in the server's queue. When an ask may leave, and how often:
  // asks.js.
  s.want = () => {
    if (!asks.shouldAsk(s, live.served)) return;
    const id = (s.asking = s.id);
    root.dataset.frames = "asked";
    const app = document.querySelector('[data-testid="stApp"]');
    const when = () => {
      if (!root.isConnected) return;
      const turn = asks.askTurn(s, id, askNow(app), live.served);
      if (turn === "wait") requestAnimationFrame(when);
      else if (turn === "fresh") root.dataset.frames = framesState(s);
      else if (turn === "send") s.send("missing", id);
    };
    requestAnimationFrame(when);
  };
  let over = false, inView = false;
  const reach = () => {
    s.reaching = over || s.dragging || document.activeElement === input || (live.touch && inView);
    if (s.reaching) s.want();
    else if (asks.withdraw(s)) root.dataset.frames = framesState(s);  // it left before the ask was sent
  };
  root.addEventListener("pointerenter", () => { over = true; reach(); });
  root.addEventListener("pointerleave", () => { over = false; reach(); });
  input.addEventListener("focus", reach);
  input.addEventListener("blur", reach);
  input.addEventListener("pointerdown", () => { dragging(true); reach(); });
  root.labInView = (on) => {
    if (!root.isConnected) live.inView.unobserve(root);  // a page left behind
    inView = on;
    reach();
  };
  live.inView.observe(root);
  if (!live.touch) live.onTouch.add(() => { if (root.isConnected) reach(); });
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
    if (s.send) s.send("value", released(s));
  };
  input.addEventListener("change", release);  // mouse or touch release, and each arrow key
  addEventListener("pointerup", () => { if (s.dragging) dragging(false); });
  return s;
}

export function mountSlider(root, data, setTriggerValue) {
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
  const payload = data.payload.frames ? keep(live.payloads, data.payload) : live.payloads.get(data.payload.id);
  s.payload = payload ?? null;
  asks.answered(s);
  s.stale = false;  // checkFresh below tells if the server's frames are not the page's either
  root.dataset.frames = s.asking === null ? framesState(s) : "asked";
  // A run that answers an earlier key press must not pull the thumb back from where the student has
  // moved it since: the thumb follows the server again once it answers the value sent last.
  const held = Boolean(s.sent);
  const turn = asks.servedAt(s, data.index, performance.now(), location.pathname, data.release ?? null);
  if (turn === "follow") {
    s.catching = held;  // until the page shows the server's drawing of this value (checkFresh)
    sent(s, null);
  }
  else {
    if (turn === "resend") s.send("value", released(s));
    giveUpWaiting(s);
  }
  if (!s.dragging && turn === "follow") {
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
  if (s.reaching && (!s.payload || s.stale)) s.want();  // still under the pointer, focused or in view
  showThumb(s);
}
