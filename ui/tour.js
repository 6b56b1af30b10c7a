// The guided tour's card (ui/tour.py): focus goes to its heading when the step changes, and Escape
// leaves the tour. Once per tab for the key; each mount compares the step with the tab's last.

const CARD = ".st-key-tour_card";
// Escape belongs to these while they have the focus (a text field clears, a list or menu closes)
const OWNS_ESCAPE = "input:not([type=range]):not([type=radio]):not([type=checkbox]), textarea, select, " +
  "[role=listbox], [role=combobox], [role=menu], [role=dialog], [data-baseweb=popover]";

function leaveOnEscape(e) {
  if (e.key !== "Escape" || e.defaultPrevented) return;
  if (document.activeElement?.closest(OWNS_ESCAPE)) return;
  // an open menu, dialog or tooltip closes first
  if (document.querySelector("[data-baseweb=popover], [role=dialog], [role=tooltip]")) return;
  document.querySelector(`${CARD} .st-key-tour_leave button`)?.click();
}

function focusHeading(tries) {
  const heading = document.querySelector(`${CARD} h3`);
  if (!heading) {
    if (tries > 0) requestAnimationFrame(() => focusHeading(tries - 1));
    return;
  }
  heading.tabIndex = -1;
  heading.focus({preventScroll: true});
  heading.scrollIntoView({block: "nearest"});
}

// The menu's link to page `go` (its address without the slash; "" is Home), clicked as a student
// clicks it: Streamlit then opens the page with every control's kept value.
// It waits until the hidden step control shows the new step: the click sends the browser's copy of
// every control, and an older copy took the step back (the new page opened on the stop before).
function open(go, step, tries = 120) {
  const held = document.querySelector(".st-key-tour_state input")?.value;
  if (held !== String(step) && tries > 0) {
    requestAnimationFrame(() => open(go, step, tries - 1));
    return;
  }
  const links = document.querySelectorAll("[data-testid='stSidebarNav'] a[href]");
  const link = [...links].find((a) => new URL(a.href).pathname.split("/").pop() === go);
  link?.click();
}

// What Show me focuses in the outlined element, the first found in this order
const FOCUS_ORDER = [".lab-bar-input", "input[type=range]", "[role=slider]", "input:not([type=hidden])",
  "[role=combobox]", "textarea", "[role=figure]", "button:not(.modebar-btn)"];

// "Show me the control": the outlined element in the middle of the screen, its first control focused
// (a keyboard user lands on it; a phone user sees it without hunting down the page).
function showTarget(key, tries) {
  const target = document.querySelector(`.st-key-${CSS.escape(key)}`);
  if (!target) {
    if (tries > 0) requestAnimationFrame(() => showTarget(key, tries - 1));
    return;
  }
  target.scrollIntoView({block: "center"});
  // The control the stop is about, before anything else in the element: a chart's bars before its
  // toolbar (the toolbar's download button came first in the page and took the focus); a chart with
  // nothing to move takes the focus itself.
  const control = FOCUS_ORDER.map((s) => target.querySelector(s)).find((e) => e !== null);
  const focused = control ?? target;
  if (focused.tabIndex < 0) focused.tabIndex = -1;  // a chart's figure: focusable by script, not by Tab
  focused.focus({preventScroll: true});
}

export default function ({data}) {
  const tour = (globalThis.labTour ??= {step: null});
  if (data?.go !== null && data?.go !== undefined) {
    open(data.go, data.n);
    return;
  }
  if (!tour.keys) {
    tour.keys = true;
    document.addEventListener("keydown", leaveOnEscape);
  }
  const step = data?.step ?? null;
  if (step !== null && step !== tour.step) focusHeading(30);
  tour.step = step;
  // {key, presses}: a press since this tab last drew the card (the session counts the presses; a new
  // step or a reload shows nothing by itself)
  const presses = data?.show?.presses ?? null;
  if (presses !== null && (tour.presses ?? null) !== null && presses > tour.presses) showTarget(data.show.key, 30);
  tour.presses = presses;
}
