// The ask/answer state machine of a live slider: when the browser may ask the server for frames, and
// what a run's answer means for a release still waiting. No DOM here: the functions read and set
// plain fields of a slider's state `s`, and tests/js/asks.test.js runs them in Node. The messages
// themselves are in docs/ARCHITECTURE.md, "The live controls' messages".
//
// The fields: s.id (the payload id the server drew last), s.payload (its frames, or null), s.stale
// (they are the page at old values), s.send (how a message goes; null before the first mount),
// s.asking (the id whose frames are being asked for, or null), s.sentAsk and s.sentAskAt (the id last
// asked for, and the count of server readouts then), s.sent (the release the server has not answered:
// {index, at, path, release, again}, or null), s.served (the index the server drew last).

// A release waits this long for the run that answers it, then the slider goes back to the server's.
export const WAIT_MS = 5000;
// After a click on a page link, asks wait this long: the page switch goes first.
export const LEAVING_MS = 3000;

// Whether an ask may leave now. It waits while a run is going and while a release is still
// unanswered: a message carries the browser's copies of the hidden kept sliders, and until the
// release's run redraws them they hold the value from before the release (an ask sent then took that
// old value back). It waits after a click on a page link (`leaving`: when, or 0), and after a bar's
// release until the run that answers it (`barsSent`).
export function mayAsk({running, leaving, now, releasing, barsSent}) {
  if (running) return false;
  if (leaving && now - leaving < LEAVING_MS) return false;
  if (releasing) return false;
  return !barsSent;
}

// Whether the student's reach for the slider starts an ask: only when its frames are missing or
// stale and none is being asked for, and once per payload id while the page stays as it is (`served`:
// how many times a readout has shown new numbers from the server). An answer that leaves the frames
// stale is not asked again, but a rerun since can have made them stale, and the next answer is new.
export function shouldAsk(s, served) {
  if (!s.send || (s.payload && !s.stale) || s.asking !== null) return false;
  return !(s.sentAsk === s.id && s.sentAskAt === served);
}

// An ask for id `id`, tried on each animation frame once started (s.asking = id) while `free`
// (mayAsk) says whether a message may leave: "dropped" (a mount answered it, or another id is asked
// for), "wait", "fresh" (the run it waited for brought good frames: nothing to ask) or "send" (the
// ask goes now; s.sentAsk notes it).
export function askTurn(s, id, free, served) {
  if (s.asking !== id) return "dropped";
  if (!free) return "wait";
  if (s.payload && !s.stale) {
    s.asking = null;
    return "fresh";
  }
  s.sentAsk = id;
  s.sentAskAt = served;
  return "send";
}

// The student left the slider before its ask was sent: the ask is dropped (true when it was).
export function withdraw(s) {
  if (s.asking === null || s.sentAsk === s.asking) return false;
  s.asking = null;
  return true;
}

// A mount (a run of the server) answers the ask that was sent, or makes one for an older id moot.
export function answered(s) {
  if (s.asking !== null && (s.sentAsk === s.asking || s.asking !== s.id)) s.asking = null;
}

// The release of index `index` leaves now (or null: nothing waits any more). True when the slider
// shows it waits (its element's data-sent): a release of the value the server drew waits for nothing.
export function markSent(s, index, now, path, release = null) {
  s.sent = index === null ? null : {index, at: now, path, release};
  return index !== null && index !== s.served;
}

// A run drew the slider at `index`: "follow" (the thumb takes the server's value, nothing waits),
// "wait" (it answers an earlier value than the release sent last, less than WAIT_MS ago: the thumb
// stays where the student put it) or "resend" (as "wait", but the release left from another page: a
// page link clicked in the moment of a release, whose run came first and drew the old value. The
// release is sent again, once, from this page).
export function servedAt(s, index, now, path, release = null) {
  // The run answers the waiting release when it drew that release (the server says its number), or,
  // where neither has a number, when it drew its value.
  const answers = s.sent && (s.sent.release !== null && release !== null
    ? release === s.sent.release
    : s.sent.index === index);
  const waiting = Boolean(s.sent) && !answers && now - s.sent.at < WAIT_MS;
  s.served = index;
  if (!waiting) return "follow";
  if (s.sent.path !== path && !s.sent.again) {
    s.sent.again = true;
    return "resend";
  }
  return "wait";
}

// How long a waiting release `sent` still waits for its run (ms), once WAIT_MS has passed since it
// left, and a little more: the release's run may never come (a page link clicked in the same moment).
export const giveUpAfter = (sent, now) => Math.max(0, WAIT_MS - (now - sent.at)) + 50;
