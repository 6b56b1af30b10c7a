// A live slider's keys (and a vector's bar's), by PhET's conventions: an arrow moves one value, Shift+arrow
// and Page Up / Page Down a tenth of the values, Home and End to the ends. The browser's range input does
// the arrows, Home and End itself; Shift+arrow and the page keys are ours, so that both large steps are
// one size (Chromium's Page Up moves a tenth of the range, rounded to the step, and Shift+arrow one step).
// No DOM in keyStep: tests/js/keys.test.js runs it in Node.

const LARGE = {ArrowRight: 1, ArrowUp: 1, ArrowLeft: -1, ArrowDown: -1};
const PAGE = {PageUp: 1, PageDown: -1};

// A tenth of a control's `count` values, at least one.
export const largeStep = (count) => Math.max(1, Math.round((count - 1) / 10));

// The index key event `e` moves a control of `count` values at `index` to, or null where the browser's
// own handling stands (a plain arrow, Home, End, any key with Ctrl, Alt or Meta, other keys).
export function keyStep(e, index, count) {
  if (e.ctrlKey || e.altKey || e.metaKey || count < 2) return null;
  const way = PAGE[e.key] ?? (e.shiftKey ? LARGE[e.key] : undefined);
  if (way === undefined) return null;
  return Math.min(Math.max(index + way * largeStep(count), 0), count - 1);
}

// Handle a keydown on range input `input` of `count` values: a large step is taken as the browser takes
// a step, an "input" then a "change" event (the control draws the value's frame and commits it).
export function takeKey(e, input, count) {
  const index = Number(input.value);
  const to = keyStep(e, index, count);
  if (to === null) return;
  e.preventDefault();
  if (to === index) return;
  input.value = String(to);
  input.dispatchEvent(new Event("input", {bubbles: true}));
  input.dispatchEvent(new Event("change", {bubbles: true}));
}
