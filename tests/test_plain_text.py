"""Text a user or a link controls is shown as plain text, shortened: never Markdown or HTML.

``/mean?preset=%60%20%5Bclick%5D(https%3A%2F%2Fexample.com)%20%60`` used to put a clickable link
into the sidebar's warning (a backtick in the value closed the app's code span). Streamlit renders
alerts, captions, markdown, metric labels and radio options as Markdown with its own extras
(:red[...], :material/...:, :smile:, $...$, bare URLs as links); Plotly reads HTML in titles.

The unit tests pin what ``ui.text.plain`` guarantees to a Markdown renderer, including the
patterns Streamlit's frontend matches in text it has already parsed (there a backslash no longer
helps; the invisible U+2060 does). The AppTests feed a hostile value to every place that quotes
user text and read the element's raw body. tests/e2e/test_links_browser.py checks the rendering
in Chromium.
"""

from __future__ import annotations

import io
import json
import re
import string
from pathlib import Path

import numpy as np
import pytest
from chart_specs import charts
from hypothesis import given
from hypothesis import strategies as hst
from streamlit.testing.v1 import AppTest

import layernorm as ln
from ui.text import LABEL_LIMIT, MESSAGE_LIMIT, WORD_JOINER, plain, plain_chart, shorten

APP = str(Path(__file__).resolve().parents[1] / "app.py")
MEAN, SCALE_SHIFT, TRAIN = "pages/1_mean.py", "pages/4_scale_shift.py", "pages/7_train_vs_inference.py"
PUNCT = set(string.punctuation)

HOSTILE = [
    "` [click](https://example.com) `",  # the issue's example: a backtick closes the app's code span
    "**bold** _em_",
    "$x^2$",
    ":red[x] :blue-background[y] :green-badge[z]",
    "<b>x</b> <img src=x onerror=alert(1)>",
    ":material/home: :smile: :streamlit:",
    "https://example.com www.example.com a@b.org",
    "# heading\n- item\n1. item\n> quote",
    "a -> b <= c -- d",
    "&amp; &#58; \\*",
    "![img](https://example.com/x.png) <https://e.com>",
]
LONG = "x" * 10_000


# --- what plain() guarantees -----------------------------------------------------------------------


def shown(md: str) -> str:
    """What a CommonMark renderer displays for plain() output: escapes resolved, U+2060 invisible."""
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", md).replace(WORD_JOINER, "")


def text_node(md: str) -> str:
    """The parsed text node: escapes resolved, the invisible U+2060 still there (it splits patterns)."""
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", md)


def unescaped_punctuation(md: str) -> list[str]:
    """ASCII punctuation characters that no backslash escapes (each could start Markdown)."""
    out, i = [], 0
    while i < len(md):
        if md[i] == "\\" and i + 1 < len(md) and md[i + 1] in PUNCT:
            i += 2
            continue
        if md[i] in PUNCT:
            out.append(md[i])
        i += 1
    return out


# Patterns Streamlit 1.67's frontend (StreamlitMarkdown) matches, on the source or the text node.
FRONTEND_PATTERNS = {
    "emoji shortcode (source)": (lambda md: md, r":(?!material\/|streamlit:)[\w+-][\w_+-]*:"),
    "material icon (source)": (lambda md: md, r":material/"),
    "emoji/icon shortcode (text)": (text_node, r":[\w+-][\w_+/-]*:"),
    "URL autolink": (text_node, r"(?i)https?://|www\."),
    "e-mail autolink": (text_node, r"[-.\w+]+@[-\w]+(\.[-\w]+)+"),
    "typographic arrow": (text_node, r"(^|\s)(<->|->|<-|--|>=|<=|~=)(\s|$)"),
    "colour directive": (text_node, r":[a-z][a-z0-9-]*\["),
}


def assert_plain(md: str, original: str, limit: int) -> None:
    """``md`` shows exactly ``shorten(original, limit)`` and nothing in it can act as Markdown."""
    assert shown(md) == shorten(original, limit)
    cut = shorten(original, limit) != shorten(original, len(original) + 1)
    body = md.rsplit("… (", 1)[0] if cut else md  # the suffix "… (N characters)" is the app's text
    assert unescaped_punctuation(body) == []
    for name, (view, pattern) in FRONTEND_PATTERNS.items():
        assert not re.search(pattern, view(md)), (name, md)


@pytest.mark.parametrize("text", HOSTILE)
def test_plain_shows_hostile_text_literally(text: str) -> None:
    assert_plain(plain(text, 200), text, 200)


def test_the_issues_example_is_fully_escaped() -> None:
    assert plain("` [click](https://example.com) `") == (
        "\\` \\[click\\]\\(https\\:\u2060\\/\\/example\u2060\\.com\\) \\`"
    )


@given(hst.text(max_size=200))
def test_plain_shows_any_text_literally(text: str) -> None:
    assert_plain(plain(text, 80), text, 80)


def test_long_text_is_shortened_and_counted() -> None:
    assert shorten(LONG) == "x" * 60 + "… (10,000 characters)"
    assert plain(LONG) == "x" * 60 + "… (10,000 characters)"
    assert len(plain(LONG, MESSAGE_LIMIT)) < MESSAGE_LIMIT + 30


def test_one_line_and_no_reordering_characters() -> None:
    assert shorten("a\n\n    b\tc\r\nd") == "a b c d"  # no paragraphs, no indented code block
    assert shorten("abc\u202edef\u2066") == "abcdef"  # right-to-left overrides would reorder the message


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("<b>x</b>", "&lt;b&gt;x&lt;/b&gt;"),
        ('<a href="https://e.com">x</a>', '&lt;a href="https://e.com"&gt;x&lt;/a&gt;'),
        ("&lt; & <br>", "&amp;lt; &amp; &lt;br&gt;"),
        ("run#000012.csv", "run&#35;000012.csv"),  # not a colour placeholder for the browser
        (LONG, "x" * 60 + "… (10,000 characters)"),
    ],
)
def test_plain_chart_escapes_plotly_html(text: str, expected: str) -> None:
    assert plain_chart(text) == expected


# --- every place that quotes user text -------------------------------------------------------------


def _ok(at: AppTest) -> AppTest:
    assert not at.exception, [e.value for e in at.exception]
    return at


def _open(page: str | None = None, **params: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    for key, value in params.items():
        at.query_params[key] = value
    _ok(at.run())
    if page:
        _ok(at.switch_page(page).run())
    return at


def _active(text: str) -> bool:
    return any(c in PUNCT for c in text)


@pytest.mark.parametrize("value", HOSTILE)
def test_link_values_are_quoted_as_plain_text(value: str) -> None:
    at = _open(preset=value)
    (warning,) = [w.value for w in at.sidebar.warning]
    assert warning == (
        f"The link's preset={plain(value)} is not one of the presets; "
        "the lab uses the default preset “standard normal”."
    )
    assert value not in warning


def test_a_10000_character_link_value_gives_a_short_message() -> None:
    at = _open(preset=LONG, d=["8", LONG])
    (warning,) = [w.value for w in at.sidebar.warning]
    assert len(warning) < 500
    assert "x" * 60 + "… (10,000 characters)" in warning
    assert "x" * 61 not in warning


@pytest.mark.parametrize("key", ["` [click](https://example.com) `", ":red[k]", LONG])
def test_unknown_link_keys_are_quoted_as_plain_text(key: str) -> None:
    at = _open(**{key: "1"})
    assert [i.value for i in at.sidebar.info] == [
        f"The link's {plain(key + '=1', 40)} is not a setting of this lab and was ignored."
    ]


def _type(at: AppTest, text: str) -> None:
    at.selectbox(key="src").set_value("Type numbers").run()
    _ok(at.text_area(key="typed").input(text).run())


@pytest.mark.parametrize("token", [*HOSTILE[:6], LONG])
def test_typed_text_quoted_in_the_error_is_plain(token: str) -> None:
    at = _open(MEAN)
    _type(at, f"1, 2, {token}")
    with pytest.raises(ln.InputError) as raised:
        ln.parse_vector_text(f"1, 2, {token}")
    (error,) = [e.value for e in at.sidebar.error]
    assert error == plain(raised.value, MESSAGE_LIMIT)
    assert len(error) < MESSAGE_LIMIT + 200
    assert unescaped_punctuation(error.rsplit("… (", 1)[0]) == []


def _kept_upload(at: AppTest, name: str) -> None:
    """Put a vector "uploaded earlier" under ``name`` (AppTest cannot drive the uploader)."""
    buf = io.BytesIO()
    np.save(buf, np.array([2.0, 4.0, 9.0]))
    at.session_state["upload_last"] = (ln.read_uploaded_vector("v.npy", buf.getvalue()), name)
    _ok(at.selectbox(key="src").set_value("Upload a file").run())


@pytest.mark.parametrize("name", [*HOSTILE, LONG + ".csv"])
def test_file_name_in_the_sidebar_caption_is_plain(name: str) -> None:
    at = _open(MEAN)
    _kept_upload(at, name)
    captions = [c.value for c in at.sidebar.caption if c.value.startswith("Using ")]
    assert captions == [f"Using **{plain(name)}**, uploaded earlier; upload another file to replace it."]
    assert len(captions[0]) < 200


@pytest.mark.parametrize("name", ["<b>x</b> [a](https://e.com) **b** $x$.csv", LONG + ".csv"])
def test_file_name_in_the_chart_title_and_page_warning_is_plain(name: str) -> None:
    at = _open(MEAN)
    _kept_upload(at, name)
    figure = json.loads(charts(at)[0].spec)
    title = figure["layout"]["title"]["text"]
    assert title == f"The input ({plain_chart('file ' + name, LABEL_LIMIT)}) plus c, and its mean"
    assert "<" not in title and len(title) < 200

    del at.session_state["upload_last"]  # no file any more: the pages fall back to the last valid input
    _ok(at.run())
    (warning,) = [w.value for w in at.main.warning]
    label = f"file {name} (last valid input)"
    assert (
        warning
        == f"Your input has a problem (see the sidebar), so the pages show: {plain(label, LABEL_LIMIT)}."
    )
    assert len(warning) < 300


@pytest.mark.parametrize("cell", ["[x](https://e.com) **b**", ":red[r] $y$ <i>"])
def test_table_cells_quoted_in_the_scale_shift_error_are_plain(cell: str) -> None:
    at = _open(SCALE_SHIFT)
    _ok(at.button(key="ss_table").click().run())
    at.session_state["ss_editor_8"] = {"edited_rows": {3: {"β": cell}}, "added_rows": [], "deleted_rows": []}
    _ok(at.run())
    (error,) = [e.value for e in at.main.error]
    assert error.startswith("γ/β table: ") and error.endswith(" The last valid values are used meanwhile.")
    core_message = error.removeprefix("γ/β table: ").removesuffix(
        " The last valid values are used meanwhile."
    )
    assert plain(cell) in core_message and cell not in error
    assert unescaped_punctuation(core_message) == []


def test_the_cores_message_on_train_vs_inference_is_plain() -> None:
    at = _open(TRAIN)
    _ok(at.slider(key="tvi_n").set_value(1).run())
    (caption,) = [c.value for c in at.main.caption if c.value.startswith("The core's message: ")]
    message = caption.removeprefix("The core's message: ")
    assert message and unescaped_punctuation(message) == []
    assert _active(shown(message))  # it did quote punctuation, escaped
