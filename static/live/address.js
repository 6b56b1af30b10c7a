// A live slider's value in the page's address (path writing), as Streamlit's own slider writes a
// bound widget the student moved: the value's URL text under the slider's key, and no key at all for
// the default. No DOM here: tests/js/address.test.js runs it in Node.
//
// `link` is what the server sends for a slider (ui/live/__init__.py): {key, urls, default}, where
// urls[i] is the URL text of the slider's i-th value and default is the default's URL text.

// The address `href` with the slider's i-th value in it; every other parameter stays as it was.
export function addressWith(href, link, i) {
  const address = new URL(href);
  const text = link.urls[i];
  if (text === link.default) address.searchParams.delete(link.key);
  else address.searchParams.set(link.key, text);
  return address.href;
}

// Which of the slider's values the address `href` gives it (no parameter: the default), or -1 when
// its text is none of the slider's (Back onto a hand-typed link: the server's answer then decides).
export function indexIn(href, link) {
  const text = new URL(href).searchParams.get(link.key) ?? link.default;
  return link.urls.indexOf(text);
}
