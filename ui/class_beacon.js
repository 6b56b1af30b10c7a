// A student's class beacon (ui/class_beacon.py says what and why). component.data: {url: the class's
// public file, version: the room's version the server drew last, every: ms between reads, fallback:
// ms after which a run is asked for anyway}. The trigger "seen" asks for a run of the class panel:
// a version (the file moved past data.version), "gone" (no file) or "tick" (the fallback).
// One reader per tab, kept across the panel's redraws; the last drawing's cleanup stops it.
const beacon = (globalThis.labBeacon ??= (() => {
  const b = {timer: 0, owner: null, asked: null, askedAt: -Infinity, drawnAt: 0, heldSince: null};
  const running = () =>
    document.querySelector('[data-testid="stApp"]')?.dataset.testScriptState === "running";

  async function look() {
    try {
      const answer = await fetch(`${b.url}?t=${Date.now()}`, {cache: "no-store"});
      if (answer.status === 404) return "gone";
      if (!answer.ok) return null;
      const version = (await answer.json())?.version;
      return Number.isInteger(version) ? version : null;
    } catch {
      return null;  // no network for a moment: the next read tries again
    }
  }

  function decide(seen) {
    const now = performance.now();
    if (typeof seen === "number" && seen <= b.version) b.asked = null;  // the server has drawn it
    let want = null;
    if (typeof seen === "number" && seen > b.version && (seen !== b.asked || now - b.askedAt > 5000)) {
      want = seen;  // again after 5 s: a run that never came (the connection dropped meanwhile)
    } else if (seen === "gone" && b.asked !== "gone") {
      want = "gone";  // once: the class was deleted, or its file was never written here
    } else if (now - Math.max(b.drawnAt, b.askedAt) > b.fallback) {
      want = "tick";
    }
    if (want === null) return;
    // The student's own run goes first (a click, a slider): at most 3 s, then the class's turn.
    if (running() && now - (b.heldSince ??= now) < 3000) return;
    b.heldSince = null;
    b.asked = want;
    b.askedAt = now;
    b.send("seen", want);
  }

  // One chain of reads at a time: starting or stopping makes a new generation, and a read of an
  // older one (still waiting for its answer) ends there.
  async function tick(gen) {
    b.timer = 0;
    // A tab out of sight reads nothing and asks nothing (a phone's browser in the background): it
    // reads again as it comes back (the visibilitychange listener below).
    if (document.visibilityState !== "hidden") {
      const seen = await look();
      if (gen !== b.gen || !b.owner) return;
      decide(seen);
    }
    // ±25 %: the students' reads spread out instead of meeting the server together
    b.timer = setTimeout(tick, b.every * (0.75 + 0.5 * Math.random()), gen);
  }

  b.gen = 0;
  b.stop = () => { clearTimeout(b.timer); b.timer = 0; b.gen += 1; };
  b.start = (delay) => {
    if (b.timer && delay === undefined) return;  // reading already
    b.stop();
    b.timer = setTimeout(tick, delay ?? b.every * Math.random(), b.gen);
  };
  // A phone's browser coming back to the front reads at once (its timers slept meanwhile).
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible" && b.owner) b.start(0);
  });
  return b;
})());

export default function ({data, setTriggerValue}) {
  const me = {};
  if (beacon.url !== data.url) Object.assign(beacon, {asked: null, askedAt: -Infinity});  // another class
  Object.assign(beacon, {
    url: data.url, version: data.version, every: data.every, fallback: data.fallback,
    send: setTriggerValue, owner: me, drawnAt: performance.now(),
  });
  beacon.start();
  return () => {
    if (beacon.owner !== me) return;  // a newer drawing owns the reader
    beacon.owner = null;
    beacon.stop();
  };
}
