// Frame choice (static/live/frames.js): which frame a live slider draws, and the payloads a tab keeps.
import {test} from "node:test";
import assert from "node:assert/strict";

import {KEPT_PAYLOADS, decode, frameToDraw, framesState, indexOf, keep, staleAgainst, staleAgainstAll}
  from "../../static/live/frames.js";

const b64 = (numbers) => Buffer.from(new Float64Array(numbers).buffer).toString("base64");
const readout = (key, tex) => ({key, tex, metrics: []});
const payload = (id, n = 3) => ({
  id, values: [...Array(n).keys()], labels: [],
  frames: [...Array(n).keys()].map((i) => ({readouts: [readout("mean", `\\mu = ${i}`)], charts: []})),
  arrays: [b64([0.5, -2, 1e-300])],
});

test("arrays are float64 read from base64, bit for bit", () => {
  assert.deepEqual([...decode(b64([0.1, -2.5, 1e-300, 6e23]))], [0.1, -2.5, 1e-300, 6e23]);
});

test("a payload is decoded once and kept by id; the oldest goes past the limit", () => {
  const kept = new Map();
  const first = keep(kept, payload("a"));
  assert.deepEqual([...first.decoded[0]], [0.5, -2, 1e-300]);
  assert.equal(keep(kept, {id: "a"}), first);  // an id the tab has: what it kept
  for (let n = 0; n < KEPT_PAYLOADS; n++) keep(kept, payload(`p${n}`));
  assert.equal(kept.size, KEPT_PAYLOADS);
  assert.ok(!kept.has("a") && kept.has("p0") && kept.has(`p${KEPT_PAYLOADS - 1}`));
});

test("the thumb's text is an index within the slider's values", () => {
  assert.equal(indexOf("2", 5), 2);
  assert.equal(indexOf("2.6", 5), 3);
  assert.equal(indexOf("-1", 5), 0);
  assert.equal(indexOf("9", 5), 4);
});

test("a drag draws each value's frame once; at rest, nothing", () => {
  const s = {payload: payload("a"), stale: false, movedTo: -1};
  assert.equal(frameToDraw(s, 1, false), null);  // at rest the server draws
  assert.equal(frameToDraw(s, 1, true), s.payload.frames[1]);
  assert.equal(frameToDraw(s, 1, true), null);  // drawn already
  assert.equal(frameToDraw(s, 2, true), s.payload.frames[2]);
  assert.equal(frameToDraw(s, 1, true), s.payload.frames[1]);
  assert.equal(s.movedTo, 1);
});

test("no frame is drawn from stale frames or without any", () => {
  assert.equal(frameToDraw({payload: payload("a"), stale: true, movedTo: -1}, 1, true), null);
  assert.equal(frameToDraw({payload: {id: "a"}, stale: false, movedTo: -1}, 1, true), null);
  assert.equal(frameToDraw({payload: null, stale: false, movedTo: -1}, 1, true), null);
});

test("frames are stale when a readout the page shows differs from the frame's", () => {
  const frame = payload("a").frames[1];
  const page = (tex) => (key) => (key === "mean" ? JSON.stringify(readout("mean", tex)) : undefined);
  assert.equal(staleAgainst(frame, page("\\mu = 1")), false);
  assert.equal(staleAgainst(frame, page("\\mu = 2")), true);
  assert.equal(staleAgainst(frame, () => undefined), false);  // the readout is not on the page
});

test("while keys overlap their runs, each readout the page shows may be any frame's", () => {
  const frames = [0, 1, 2].map((v) => ({readouts: [readout("mean", `\\mu = ${v}`), readout("var", `\\sigma^2 = ${v}`)],
                                     charts: []}));
  const page = (mu, sigma) => (key) => JSON.stringify(key === "mean" ? readout("mean", `\\mu = ${mu}`)
    : readout("var", `\\sigma^2 = ${sigma}`));
  assert.equal(staleAgainstAll(frames, page(1, 1)), false);
  assert.equal(staleAgainstAll(frames, page(2, 0)), false);  // one run's μ beside an earlier run's σ²
  assert.equal(staleAgainstAll(frames, page(1, 7)), true);  // σ² of none of the values: the page moved on
  assert.equal(staleAgainstAll(frames, () => undefined), false);
});

test("what the element says of its frames", () => {
  assert.equal(framesState({payload: null}), "missing");
  assert.equal(framesState({payload: payload("a"), stale: true}), "stale");
  assert.equal(framesState({payload: payload("a"), stale: false}), "ready");
});
