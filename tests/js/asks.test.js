// The ask/answer state machine (static/live/asks.js): when a live slider asks for frames, and what a
// run's answer means for a release that waits.
import {test} from "node:test";
import assert from "node:assert/strict";

import * as asks from "../../static/live/asks.js";

const idle = {running: false, leaving: 0, now: 10_000, releasing: false, barsSent: false};
const slider = (fields = {}) => ({id: "p1", payload: null, stale: false, send: () => {}, asking: null,
                                  sentAsk: undefined, sentAskAt: undefined, sent: null, served: 0, ...fields});

test("an ask leaves only when no run, page switch, release or bar release is under way", () => {
  assert.equal(asks.mayAsk(idle), true);
  assert.equal(asks.mayAsk({...idle, running: true}), false);
  assert.equal(asks.mayAsk({...idle, leaving: idle.now - asks.LEAVING_MS + 1}), false);
  assert.equal(asks.mayAsk({...idle, leaving: idle.now - asks.LEAVING_MS}), true);
  assert.equal(asks.mayAsk({...idle, releasing: true}), false);
  assert.equal(asks.mayAsk({...idle, barsSent: true}), false);
});

test("a reach asks for missing or stale frames, once per id and server drawing", () => {
  assert.equal(asks.shouldAsk(slider(), 0), true);
  assert.equal(asks.shouldAsk(slider({payload: {}}), 0), false);  // fresh frames
  assert.equal(asks.shouldAsk(slider({payload: {}, stale: true}), 0), true);
  assert.equal(asks.shouldAsk(slider({send: null}), 0), false);  // not mounted yet
  assert.equal(asks.shouldAsk(slider({asking: "p1"}), 0), false);  // being asked for
  assert.equal(asks.shouldAsk(slider({sentAsk: "p1", sentAskAt: 4}), 4), false);  // asked, no run since
  assert.equal(asks.shouldAsk(slider({sentAsk: "p1", sentAskAt: 4}), 5), true);  // a run since
  assert.equal(asks.shouldAsk(slider({sentAsk: "p0", sentAskAt: 4}), 4), true);  // a new id
});

test("an ask waits for its moment, then is sent once and answered by a mount", () => {
  const s = slider({asking: "p1"});
  assert.equal(asks.askTurn(s, "p1", false, 3), "wait");
  assert.equal(asks.askTurn(s, "p1", true, 3), "send");
  assert.deepEqual([s.sentAsk, s.sentAskAt, s.asking], ["p1", 3, "p1"]);
  assert.equal(asks.withdraw(s), false);  // sent: leaving the slider does not take it back
  asks.answered(s);
  assert.equal(s.asking, null);
  assert.equal(asks.shouldAsk(s, 3), false);  // the answer left it stale: not asked again
});

test("an ask the run it waited for made moot is not sent", () => {
  const s = slider({asking: "p1", payload: {}});
  assert.equal(asks.askTurn(s, "p1", true, 3), "fresh");
  assert.equal(s.asking, null);
  assert.equal(s.sentAsk, undefined);
  assert.equal(asks.askTurn(slider({asking: "p2"}), "p1", true, 3), "dropped");
});

test("leaving the slider before the ask left drops it; a mount for a new id does too", () => {
  const s = slider({asking: "p1"});
  assert.equal(asks.withdraw(s), true);
  assert.equal(s.asking, null);
  const t = slider({id: "p2", asking: "p1"});
  asks.answered(t);
  assert.equal(t.asking, null);
  const u = slider({asking: "p1"});  // the same id, not sent yet: still asking
  asks.answered(u);
  assert.equal(u.asking, "p1");
});

test("a release marks the slider waiting unless it is the value the server drew", () => {
  const s = slider({served: 2});
  assert.equal(asks.markSent(s, 4, 100, "/mean"), true);
  assert.deepEqual(s.sent, {index: 4, at: 100, path: "/mean", release: null});
  assert.equal(asks.markSent(s, 2, 100, "/mean"), false);
  assert.equal(asks.markSent(s, null, 100, "/mean"), false);
  assert.equal(s.sent, null);
});

test("a run answering the release, or none pending, is followed", () => {
  const s = slider();
  asks.markSent(s, 4, 100, "/mean");
  assert.equal(asks.servedAt(s, 4, 200, "/mean"), "follow");
  assert.equal(s.served, 4);
  assert.equal(asks.servedAt(slider(), 1, 200, "/mean"), "follow");
});

test("a run answering an earlier value does not pull the thumb back, until the wait is over", () => {
  const s = slider();
  asks.markSent(s, 4, 100, "/mean");
  assert.equal(asks.servedAt(s, 3, 100 + asks.WAIT_MS - 1, "/mean"), "wait");
  assert.equal(s.served, 3);
  assert.equal(asks.servedAt(s, 3, 100 + asks.WAIT_MS, "/mean"), "follow");
});

test("a run of an earlier release of the same value is not the answer to the last (0.2, 0.3, 0.2)", () => {
  const s = slider();
  asks.markSent(s, 2, 100, "/mean", 7);  // the student is back at 0.2: release 7
  assert.equal(asks.servedAt(s, 2, 150, "/mean", 5), "wait");  // release 5 drew 0.2 too: not the answer
  assert.equal(asks.servedAt(s, 3, 200, "/mean", 6), "wait");
  assert.equal(asks.servedAt(s, 2, 250, "/mean", 7), "follow");
  assert.equal(asks.servedAt(slider(), 2, 250, "/mean", 7), "follow");  // nothing waits
});

test("where the server has no release number, the value drawn decides", () => {
  const s = slider();
  asks.markSent(s, 4, 100, "/mean", 3);
  assert.equal(asks.servedAt(s, 3, 200, "/mean", null), "wait");
  assert.equal(asks.servedAt(s, 4, 200, "/mean", null), "follow");
});

test("a release sent from the page just left is sent again from this one, once", () => {
  const s = slider();
  asks.markSent(s, 4, 100, "/mean");
  assert.equal(asks.servedAt(s, 3, 200, "/variance"), "resend");
  assert.equal(asks.servedAt(s, 3, 300, "/variance"), "wait");
});

test("a waiting release gives up once the wait has passed since it left", () => {
  const sent = {index: 4, at: 1000};
  assert.equal(asks.giveUpAfter(sent, 1000), asks.WAIT_MS + 50);
  assert.equal(asks.giveUpAfter(sent, 1000 + asks.WAIT_MS - 200), 250);
  assert.equal(asks.giveUpAfter(sent, 1000 + 2 * asks.WAIT_MS), 50);
});
