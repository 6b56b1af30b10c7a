// A live slider's large steps by key (static/live/keys.js): PhET's Shift+arrow and Page Up / Page Down.
import {test} from "node:test";
import assert from "node:assert/strict";

import {keyStep, largeStep} from "../../static/live/keys.js";

const key = (name, fields = {}) => ({key: name, shiftKey: false, ctrlKey: false, altKey: false, metaKey: false,
                                     ...fields});

test("a large step is a tenth of the values, at least one", () => {
  assert.equal(largeStep(201), 20);  // Mean's c: −10 … 10 in steps of 0.1
  assert.equal(largeStep(16), 2);  // Invariances' c
  assert.equal(largeStep(7), 1);  // Variance's a
  assert.equal(largeStep(2), 1);
});

test("Shift+arrow and the page keys move a large step, up or down, and stop at the ends", () => {
  assert.equal(keyStep(key("ArrowRight", {shiftKey: true}), 100, 201), 120);
  assert.equal(keyStep(key("ArrowUp", {shiftKey: true}), 100, 201), 120);
  assert.equal(keyStep(key("ArrowLeft", {shiftKey: true}), 100, 201), 80);
  assert.equal(keyStep(key("ArrowDown", {shiftKey: true}), 100, 201), 80);
  assert.equal(keyStep(key("PageUp"), 100, 201), 120);
  assert.equal(keyStep(key("PageDown"), 100, 201), 80);
  assert.equal(keyStep(key("PageUp", {shiftKey: true}), 100, 201), 120);
  assert.equal(keyStep(key("PageUp"), 195, 201), 200);
  assert.equal(keyStep(key("PageDown"), 5, 201), 0);
  assert.equal(keyStep(key("PageUp"), 200, 201), 200);  // at the end: nowhere to go
});

test("the browser keeps the plain arrows, Home, End and any key with Ctrl, Alt or Meta", () => {
  for (const name of ["ArrowRight", "ArrowLeft", "Home", "End", "Tab", "a"]) {
    assert.equal(keyStep(key(name), 100, 201), null, name);
  }
  for (const held of ["ctrlKey", "altKey", "metaKey"]) {
    assert.equal(keyStep(key("PageUp", {[held]: true}), 100, 201), null, held);
  }
  assert.equal(keyStep(key("PageUp"), 0, 1), null);  // one value: nothing to step
});
