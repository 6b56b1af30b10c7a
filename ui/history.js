// Browser history that Back can trust (ui/history.py says what and why). component.data: the
// lab's spellings of a link's values (ui.session.links.spellings).
export default function ({data}) {
  history.labSpellings = data || {};  // {key: [[values as typed, the lab's text or null]]}
  if (history.labKeepsPages) return;  // once per tab: the wrappers outlive every rerun
  history.labKeepsPages = true;
  const push = history.pushState.bind(history);
  const replace = history.replaceState.bind(history);
  // A Back or Forward changes the current entry before "popstate", where Streamlit reads the address.
  window.navigation?.addEventListener("currententrychange", (event) => {
    if (event.navigationType !== "traverse") return;
    const given = new URLSearchParams(location.search);
    const kept = new URLSearchParams();
    const respelled = new Set();
    for (const [k, v] of given) {
      if (respelled.has(k)) continue;
      const typed = JSON.stringify(given.getAll(k));
      const rule = (history.labSpellings[k] || []).find(([t]) => JSON.stringify(t) === typed);
      if (!rule) { kept.append(k, v); continue; }
      respelled.add(k);
      if (rule[1] !== null) kept.append(k, rule[1]);
    }
    if (respelled.size) {
      const q = kept.toString();
      replace(history.state, "", location.pathname + (q ? "?" + q : "") + location.hash);
    }
  });
  let before = null;  // {href, at}: this page's address before the server changed its query
  let popped = -1e9;  // when Back or Forward last moved through the history
  window.addEventListener("popstate", () => { popped = performance.now(); before = null; });
  history.pushState = function (state, unused, url) {
    const next = new URL(url ?? location.href, location.href);
    const now = performance.now();
    if (next.pathname === location.pathname) {
      // the server changed this page's query: no new place to go back to. A second change before
      // the next page's push (the new page writes a control of its own) keeps the first address.
      if (!(before && now - before.at < 2000 && new URL(before.href).pathname === next.pathname)) {
        before = {href: location.href, at: now};
      }
      return replace(state, unused, url);
    }
    if (now - popped < 1000) {  // the answer to a Back/Forward: no new place to go back to
      before = null;
      return replace(state, unused, url);
    }
    if (before && performance.now() - before.at < 2000) {
      replace(history.state, "", before.href);  // the old page keeps its whole address for Back
    }
    before = null;
    return push(state, unused, url);
  };
  history.replaceState = function (state, unused, url) {
    before = null;
    return replace(state, unused, url);
  };
}
