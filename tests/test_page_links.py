"""Every page control's link value is validated: a tampered value is replaced and the page says by what.

The pages' own controls (``ui.keys.PAGE_KEYS``) follow the sidebar's link rules: numbers are read
as numbers and matched within rounding, anything else is clamped, moved to the nearest offered
value or replaced by the default, and a warning above the control says which value is used.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from ui.keys import PAGE_KEYS
from ui.navigation import HIDDEN, SECTIONS

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "app.py")
FILES = {p.stem.split("_", 1)[1]: f"pages/{p.name}" for p in (ROOT / "pages").glob("*.py")}
PAGES = [name for name in PAGE_KEYS if name in FILES]
TEXT_KEYS = {"ys_text1", "ys_text2"}  # any text is a sentence: nothing to refuse
# Pages whose controls are all labels or flags (no slider over numbers to clamp):
WORDS_ONLY = {"quiz", "inside_a_transformer", "estimators_and_eps", "scale_shift"}


def _open(page: str, params: dict[str, str]) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    for key, value in params.items():
        at.query_params[key] = value
    at.switch_page(FILES[page])
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_every_page_key_belongs_to_a_page_file() -> None:
    assert set(PAGE_KEYS) - set(FILES) == {"app"}  # "app": the presentation toggle, on every page


def test_every_page_file_is_in_the_navigation() -> None:
    """A page file missing from the menu is never opened by the app, so every page test of it fails
    with nothing to say why."""
    listed = {entry.path for entries in [*SECTIONS.values(), HIDDEN] for entry in entries}
    missing = sorted(set(FILES.values()) - listed)
    step = "README, 'Add a page', step 2"
    assert not missing, f"{missing}: add an Entry to SECTIONS in ui/navigation.py ({step})"


def test_no_page_key_is_bound_on_two_pages() -> None:
    """One URL-bound widget key on two pages was lost on Back (the shared placement radio): a value
    shown on two pages gets a key per page and is shared through Session State (ui.widgets)."""
    pages_of: dict[str, list[str]] = {}
    for page, keys in PAGE_KEYS.items():
        for key in keys:
            pages_of.setdefault(key, []).append(page)
    assert {k: v for k, v in pages_of.items() if len(v) > 1} == {}


@pytest.mark.parametrize("page", PAGES)
def test_tampered_values_of_every_control_are_replaced_and_said(page: str) -> None:
    keys = [k for k in PAGE_KEYS[page] if k not in TEXT_KEYS]
    at = _open(page, dict.fromkeys(keys, "zzz"))
    said = "\n".join(str(w.value) for w in at.warning)
    shown = [k for k in keys if k in at.session_state]  # controls this view draws (some are conditional)
    assert shown, page
    for key in shown:
        assert f"{key.replace('_', chr(92) + '_')}\\=zzz" in said or f"{key}=zzz" in said, (key, said)
        assert "the lab uses" in said


@pytest.mark.parametrize("page", PAGES)
def test_out_of_range_numbers_are_clamped_and_said(page: str) -> None:
    at = _open(page, dict.fromkeys(PAGE_KEYS[page], "1e9"))
    assert not at.exception
    for w in at.warning:
        if "1e9" in str(w.value):
            assert "the lab uses" in str(w.value)


@pytest.mark.parametrize("page", PAGES)
def test_numbers_beyond_float64_are_clamped_not_called_not_a_number(page: str) -> None:
    # 1e999 is a number float64 cannot hold (it reads as inf): a numeric control takes its largest
    # value and says so; a control over labels says the text is not one of them. A QA pass found
    # "is not a number" and the default instead.
    keys = [k for k in PAGE_KEYS[page] if k not in TEXT_KEYS]
    at = _open(page, dict.fromkeys(keys, "1e999"))
    sentences = [s for w in at.warning for s in str(w.value).split("\n\n")]
    shown = [k for k in keys if k in at.session_state]
    assert shown, page
    clamped = 0
    for key in shown:
        escaped = key.replace("_", chr(92) + "_")
        said = [s for s in sentences if f"{escaped}=1e999" in s or f"{key}=1e999" in s]
        if not said:  # a flag: "1e999" is neither true nor false, said with the key's own text
            said = [s for s in sentences if escaped in s or key in s]
        assert len(said) == 1, (key, sentences)
        assert "is not a number" not in said[0], said[0]
        clamped += "is above the largest" in said[0]
    assert clamped or page in WORDS_ONLY, (page, sentences)


@pytest.mark.parametrize(
    ("text", "value", "said"),
    [
        ("1e999", 10.0, "is above the largest learning rate offered, 10; the lab uses learning rate = 10."),
        ("10.0", 10.0, None),  # an offered value written another way
        ("0.00316", 10**-2.5, None),  # the slider's own (rounded) text picks its option
        (
            "0.004",
            10**-2.5,
            "is not one of the values offered; the lab uses the nearest, learning rate = 0.00316.",
        ),
    ],
)
def test_a_select_slider_over_rounded_numbers_reads_a_link_as_numbers(
    text: str, value: float, said: str | None
) -> None:
    # The learning rates 10**-2.5 … are shown as 0.00316 …: the texts round them, so the picker was
    # matched as words and lr_pick=1e999 or 10.0 fell back to the default (a QA pass).
    at = _open("learning_rate", {"lr_pick": text})
    assert at.session_state["lr_pick"] == pytest.approx(value, rel=1e-12)
    notes = [str(w.value) for w in at.warning if "lr\\_pick" in str(w.value) or "lr_pick" in str(w.value)]
    if said is None:
        assert notes == []
    else:
        assert len(notes) == 1 and said in notes[0], notes


def test_link_keys_of_controls_a_view_does_not_draw_are_said() -> None:
    # Which axis? stops when B·T·d is too large to build: b and i of the same link were left in the
    # address, unread and unsaid (a QA pass). They are said, then read once the controls appear.
    at = _open(
        "which_axis",
        {"axes_B": "1e999", "axes_T": "inf", "axes_d": "inf", "axes_b": "1e999", "axes_i": "inf"},
    )
    assert [i.value for i in at.sidebar.info] == [
        "The link's axes\\_b\\=1e999, axes\\_i\\=inf set controls of this page that were not shown when "
        "the link opened: they are read when they appear."
    ]
    at.select_slider(key="axes_d").set_value(64).run()  # small enough to build: b and i are drawn
    assert not at.exception
    said = "\n".join(str(w.value) for w in at.warning)
    assert "axes_b=1e999 is above the largest b offered, 63" in said
    assert at.number_input(key="axes_b").value == 63  # B = 64 sequences: b = 0 … 63
    assert not any("not shown when" in i.value for i in at.sidebar.info)  # the user acted: old news
