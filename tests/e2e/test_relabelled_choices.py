"""A choice whose option texts come from data shows the new text when the data changes, in Chromium.

A token picker is a selectbox over positions shown as ``"3: sat"``. When the sentence changed,
Streamlit's browser side kept showing (and writing to the URL) the old token's text while the page
computed with the new sentence's token 3; on the next rerun it sent that old text back, which
matched nothing, and the picker silently jumped to token 0. Only a browser shows it: AppTest reads
the server's value, which was right until the jump. ``ui.linking.redraw_when_relabelled`` fixes it.
"""

from __future__ import annotations

import re
import urllib.parse

import pytest
from playwright.sync_api import expect

from e2e.support import REAL_TOKEN, RENDERED_CHART, Lab, page_by_url, query
from ui.minilm import recording

pytestmark = pytest.mark.browser


def _choose(lab: Lab, box_name: str, option: str, *, in_sidebar: bool = False) -> None:
    scope = lab.sidebar if in_sidebar else lab.page.locator('[data-testid="stMain"]')
    scope.get_by_role("combobox", name=box_name).click()
    # Typing filters the list: near the window's bottom (a sidebar whose page list was expanded by
    # "View more" in an earlier test) the dropdown draws only the options that fit.
    lab.page.keyboard.type(option)
    lab.page.get_by_role("option", name=option, exact=True).click()
    lab.wait_idle()


def _url_value(lab: Lab, key: str) -> str:
    return urllib.parse.parse_qs(urllib.parse.urlsplit(lab.page.url).query).get(key, [""])[0]


def test_the_sidebar_token_follows_a_new_sentence(lab: Lab) -> None:
    rec = recording()
    token = {s: f"3: {rec.tokens[s, 3]}" for s in (1, 2)}  # "3: the", "3: sat"
    lab.open(page_by_url("/mean"), query(src=REAL_TOKEN, tok_sentence=str(rec.sentences[1])))
    _choose(lab, "Token", token[1], in_sidebar=True)
    box = lab.sidebar.get_by_role("combobox", name="Token")
    expect(box).to_have_value(token[1])
    for s in (2, 1, 2):  # more than once: the old text came back on the rerun after
        _choose(lab, "Sentence", str(rec.sentences[s]), in_sidebar=True)
        expect(box).to_have_value(token[s])
        assert _url_value(lab, "tok_index") == token[s]
        word = token[s].split(": ", 1)[1]
        expect(lab.page.locator(RENDERED_CHART).get_by_text(re.compile(rf"\b{word}\b")).first).to_be_visible()
    lab.assert_clean()


def test_your_sentence_token_picker_follows_the_typed_sentence(lab: Lab) -> None:
    lab.open(page_by_url("/your_sentence"))
    main = lab.page.locator('[data-testid="stMain"]')
    _choose(lab, "Token", "3: ##ization")  # the default sentence: [CLS] layer normal ##ization …
    token_box = main.get_by_role("combobox", name="Token")
    sentence_box = main.get_by_role("combobox", name="Sentence")
    typed = main.get_by_label("Your sentence", exact=True)
    typed_texts = [("Hello there friend.", "friend"), ("Cats are nice and soft.", "nice"), ("Hi.", "[SEP]")]
    for text, third in typed_texts:
        typed.fill(text)
        typed.press("Enter")
        expect(sentence_box).to_have_value(f"1: {text}")
        shown = f"3: {third}"  # "Hi." has 4 pieces: [CLS] hi . [SEP], so position 3 is still there
        expect(token_box).to_have_value(shown)
        lab.wait_idle()
        assert _url_value(lab, "ys_token") == shown
        expect(token_box).to_have_value(shown)  # and it stays after the rerun that follows
    lab.assert_clean()
