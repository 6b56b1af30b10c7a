// Path writing (static/live/address.js): a live slider's value in the page's address.
import {test} from "node:test";
import assert from "node:assert/strict";

import {addressWith, indexIn} from "../../static/live/address.js";

const link = {key: "mean_shift", urls: ["-1", "0", "0.5", "2"], default: "0"};

test("a value other than the default goes under the slider's key, the rest of the query kept", () => {
  assert.equal(addressWith("http://lab/mean?d=8", link, 3), "http://lab/mean?d=8&mean_shift=2");
  assert.equal(addressWith("http://lab/mean?mean_shift=2&d=8", link, 2), "http://lab/mean?mean_shift=0.5&d=8");
});

test("the default leaves the key out, as Streamlit's slider writes it", () => {
  assert.equal(addressWith("http://lab/mean?d=8&mean_shift=2", link, 1), "http://lab/mean?d=8");
  assert.equal(addressWith("http://lab/mean", link, 1), "http://lab/mean");
});

test("the URL text is written as the server spells it, escaped where it must be", () => {
  const eps = {key: "eps", urls: ["1e-05", "0.001"], default: "0.001"};
  assert.equal(addressWith("http://lab/full?x=1+2", eps, 0), "http://lab/full?x=1+2&eps=1e-05");
  const texts = {key: "c", urls: ["−1", "a&b"], default: "−1"};
  assert.equal(new URL(addressWith("http://lab/p", texts, 1)).searchParams.get("c"), "a&b");
});

test("an address's value is read back as the slider's index", () => {
  assert.equal(indexIn("http://lab/mean?mean_shift=0.5", link), 2);
  assert.equal(indexIn("http://lab/mean", link), 1);  // no key: the default
  assert.equal(indexIn("http://lab/mean?mean_shift=0.25", link), -1);  // none of the slider's texts
  for (let i = 0; i < link.urls.length; i++) assert.equal(indexIn(addressWith("http://lab/mean", link, i), link), i);
});
