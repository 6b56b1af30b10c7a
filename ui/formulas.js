// Displayed formulas fitted to their column (ui/formulas.py says what and why). component.data:
// {smallest: the smallest factor of KaTeX's size a line is drawn at}.
export default function ({data}) {
  if (globalThis.labFitFormulas) return;
  const SIZE = 1.21, SMALLEST = data.smallest;  // ui.formulas.SMALLEST
  const fit = (display) => {
    const katex = display.querySelector(":scope > .katex");
    if (!katex || !display.isConnected) return;
    katex.style.fontSize = "";
    const width = display.clientWidth;
    let factor = 1;
    // Not every part of a line scales with the font (rules, rounding to pixels): measure again.
    // (A line's box overhangs by a pixel or two at any size: that cuts nothing.)
    const over = () => width && display.scrollWidth > width + 4 && factor > SMALLEST;
    for (let tries = 0; tries < 4 && over(); tries++) {
      factor = Math.max(SMALLEST, factor * (width - 2) / display.scrollWidth);
      katex.style.fontSize = (SIZE * factor).toFixed(4) + "em";
    }
  };
  const waiting = new Set();
  let framed = false;
  const later = (display) => {
    waiting.add(display);
    if (framed) return;
    framed = true;
    requestAnimationFrame(() => {
      framed = false;
      const now = [...waiting];
      waiting.clear();
      for (const display of now) fit(display);
    });
  };
  // A column that changes width, and a formula whose width changes without a change of the page
  // (KaTeX's fonts arriving after the first layout make every line wider).
  const sizes = new ResizeObserver((entries) => {
    for (const entry of entries) later(entry.target.closest(".katex-display") ?? entry.target);
  });
  const watch = (root) => {
    const found = root.matches(".katex-display") ? [root] : [...root.querySelectorAll(".katex-display")];
    for (const display of found) {
      if (!display.labFit) {
        display.labFit = true;
        sizes.observe(display);
        const katex = display.querySelector(":scope > .katex");
        if (katex) sizes.observe(katex);
      }
      later(display);
    }
  };
  const changes = new MutationObserver((records) => {
    for (const record of records) {
      const node = record.target.nodeType === 1 ? record.target : record.target.parentElement;
      if (!node || node.closest(".js-plotly-plot")) continue;  // a chart's redraw holds no formula
      const display = node.closest(".katex-display");
      if (display) later(display);
      for (const added of record.addedNodes) if (added.nodeType === 1) watch(added);
    }
  });
  const main = document.querySelector('[data-testid="stMain"]') ?? document.body;
  changes.observe(main, {childList: true, subtree: true, characterData: true});
  watch(main);
  document.fonts?.addEventListener("loadingdone", () => watch(main));
  globalThis.labFitFormulas = {fit, SMALLEST};
}
