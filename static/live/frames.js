// Which frame a live slider draws (frame choice), and the payloads of frames a tab keeps. No DOM here:
// tests/js/frames.test.js runs it in Node.
//
// A payload (ui/live/frames.py) is {id, values, labels, frames: [{readouts, charts}], arrays, ranges}:
// frames[i] is what the page shows at values[i]; arrays holds the charts' numbers as base64 float64.

// How many payloads a tab keeps decoded (one per input a student has had on a slider).
export const KEPT_PAYLOADS = 24;

// base64 of little-endian float64 values (NumPy's bytes, as ui/live/frames.py packs them).
export function decode(b64) {
  const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  return new Float64Array(bytes.buffer);
}

// The payload as `kept` (a Map of id to payload, shared by every mount of a slider in the tab) holds
// it, its arrays decoded once per input; the oldest one goes beyond KEPT_PAYLOADS.
export function keep(kept, payload) {
  if (!kept.has(payload.id)) {
    kept.set(payload.id, {...payload, decoded: payload.arrays.map(decode)});
    while (kept.size > KEPT_PAYLOADS) kept.delete(kept.keys().next().value);
  }
  return kept.get(payload.id);
}

// The value index a range input's text stands for, within 0 … count − 1.
export const indexOf = (text, count) => Math.min(Math.max(Math.round(Number(text)), 0), count - 1);

// The frame a move to index i draws, or null: at rest the server draws the readouts and the charts;
// during a drag each value's frame is drawn once (s.movedTo: the index drawn last, -1 for none), and
// none at all while the slider has no frames or only stale ones (the page at old values).
export function frameToDraw(s, i, moving) {
  if (!moving || !s.payload?.frames || s.stale || i === s.movedTo) return null;
  s.movedTo = i;
  return s.payload.frames[i];
}

// Whether `frame` (the slider's frame at its value) differs from what the page shows: `served(key)`
// is the server's last drawing of readout `key` as JSON text, or undefined where none is on the page.
// Another control's move leaves a slider's frames at the old values of that control.
export function staleAgainst(frame, served) {
  return frame.readouts.some((r) => {
    const shown = served(r.key);
    return Boolean(shown) && shown !== JSON.stringify(r);
  });
}

// Whether the page's readouts are the page at none of `frames`' values: each readout the page shows
// must be that readout in one of the frames, not necessarily all in the same one (runs of quick key
// presses overlap, and the page can show one run's readout beside an earlier run's).
export function staleAgainstAll(frames, served) {
  return (frames[0]?.readouts ?? []).some(({key}) => {
    const shown = served(key);
    return Boolean(shown) && !frames.some((f) => JSON.stringify(f.readouts.find((r) => r.key === key)) === shown);
  });
}

// What tests and benchmarks wait for (the element's data-frames): "ready" (a drag draws every value),
// "stale" (the frames are the page at old values), "missing" (none sent yet: a large payload waits to
// be asked for); "asked" is set by the ask itself (asks.js).
export const framesState = (s) => (!s.payload ? "missing" : s.stale ? "stale" : "ready");
