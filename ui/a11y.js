// What the lab adds to Streamlit's markup for assistive technology (ui/a11y.py says what and why),
// once per tab, kept true as the page changes.
const SCROLLERS = ".katex-display, .lab-live-formula, [data-testid='stTable'] > div";

// The pages' menu: Streamlit puts each section (its header and its items) in a <div> inside the <ul>,
// so the <ul> holds no <li> of its own and no <li> has a list for a parent. Each section becomes the
// list of its items, named by its header; the <ul> itself is only a container.
function mendMenu() {
  for (const ul of document.querySelectorAll("[data-testid='stSidebarNavItems']")) {
    const sections = [...ul.children].filter((c) => c.tagName === "DIV");
    if (!sections.length) continue;  // items straight in the list: nothing to mend
    if (ul.getAttribute("role") !== "none") ul.setAttribute("role", "none");
    for (const section of sections) {
      if (section.getAttribute("role") !== "list") section.setAttribute("role", "list");
      const name = section.querySelector(":scope > [data-testid='stNavSectionHeader']")?.textContent.trim();
      if (name && section.getAttribute("aria-label") !== name) section.setAttribute("aria-label", name);
    }
  }
}

// A formula or table wider than its column scrolls sideways: a keyboard reaches it (Tab, then the
// arrow keys scroll it), as a mouse or a finger does. Once it fits again it leaves the tab order.
function mendScrollers() {
  for (const el of document.querySelectorAll(SCROLLERS)) {
    const scrolls = el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX !== "visible";
    if (scrolls && !el.hasAttribute("tabindex")) {
      el.tabIndex = 0;
      el.dataset.labScrolls = "";
    } else if (!scrolls && "labScrolls" in el.dataset) {
      el.removeAttribute("tabindex");
      delete el.dataset.labScrolls;
    }
  }
}

// A disabled widget's label is drawn faded, as Streamlit draws the widget: text of an inactive
// control, which WCAG's contrast rule exempts. Streamlit marks the inputs disabled but not the label
// beside them, so assistive technology (and axe) read the faded label as active text: it is marked
// disabled with its control.
function mendDisabledLabels() {
  for (const label of document.querySelectorAll("[data-testid='stWidgetLabel']")) {
    const widget = label.parentElement;
    const off = Boolean(widget?.querySelector("input:disabled, [aria-disabled='true']:not([data-testid='stWidgetLabel'])"));
    if (off !== (label.getAttribute("aria-disabled") === "true")) {
      if (off) label.setAttribute("aria-disabled", "true");
      else label.removeAttribute("aria-disabled");
    }
  }
}

export default function () {
  if (globalThis.labA11y) return;
  globalThis.labA11y = true;
  let framed = false;
  const later = () => {
    if (framed) return;
    framed = true;
    requestAnimationFrame(() => {
      framed = false;
      mendMenu();
      mendScrollers();
      mendDisabledLabels();
    });
  };
  // A widget turns disabled by an attribute, not a new element. The observer does not watch
  // aria-disabled, which this script sets: no loop.
  new MutationObserver(later).observe(document.body, {
    childList: true, subtree: true, attributes: true, attributeFilter: ["disabled"],
  });
  addEventListener("resize", later);
  later();
}
