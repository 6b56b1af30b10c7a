"""The rules a page keeps, checked on every page file (a new page is found, never listed by hand).

Every control a student sets is in the page's link and kept for the session, so it is made by
``ui.controls`` (or ``ui.live``) and its key is listed in ``ui/keys.py``, or it is the sidebar's.
Three kinds of widget are deliberately left out of links: a student's answer to a question (the
predict-then-reveal guesses and the quiz's answers: a shared link must not answer for the class),
a preset picker that only sets the page's other controls, and class mode's own fields (``class_*``:
joining a class is one browser's act; the link carries only the class's code).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from apptest_support import open_page

from ui.keys import ALL_PAGE_KEYS
from ui.settings import URL_KEYS

ROOT = Path(__file__).resolve().parents[1]
FILES = sorted((ROOT / "pages").glob("*.py"), key=lambda p: int(p.stem.split("_")[0]))
KINDS = ("slider", "select_slider", "number_input", "selectbox", "radio", "checkbox", "toggle", "text_input")
PRESETS = {"axes_preset"}  # Which axis?: fills the page's shape and source controls, which are in the link


def _an_answer(key: str) -> bool:
    return key.endswith("_q_guess") or key.startswith(("quiz_", "class_"))


@pytest.mark.parametrize("file", FILES, ids=[f.stem for f in FILES])
def test_every_control_of_a_page_is_in_its_link(file: Path) -> None:
    at = open_page(f"pages/{file.name}")
    widgets = [w for kind in KINDS for w in getattr(at.main, kind)]
    keys = {w.key for w in widgets}
    unbound = sorted(
        str(w.key)
        for w in widgets
        if w.key in ALL_PAGE_KEYS and getattr(w.proto, "query_param_key", "") != w.key
    )
    assert not unbound, (
        f"{file.name}: {unbound} are listed in ui/keys.py but not bound to the link: make each with "
        "ui.controls (or ui.live), not a plain st widget (README, 'Add a page')."
    )
    unlisted = sorted(
        str(k)
        for k in keys
        if k not in ALL_PAGE_KEYS and k not in URL_KEYS and k not in PRESETS and not _an_answer(str(k))
    )
    assert not unlisted, (
        f"{file.name}: {unlisted} are not in any link. Make each with ui.controls (or ui.live) and list "
        "its key under the page in ui/keys.py (README, 'Add a page')."
    )


@pytest.mark.parametrize("file", ["pages/2_variance.py", "pages/15_gradients.py"])
def test_each_code_block_names_its_file_and_only_the_formulas_carry_its_note(file: str) -> None:
    """A student reads every block under the line above it: the formula's note above a function from
    another module would call that function "the formula, one step per line"."""
    at = open_page(file)
    at.session_state["show_code"] = True  # the student opens the box
    at.run()
    captions = [c.value for c in at.caption if c.value.startswith(("`layernorm/", "From `layernorm/"))]
    blocks = list(zip(captions, [c.value for c in at.code], strict=True))
    assert len(blocks) >= 2
    for caption, code in blocks:
        name = code.split("def ", 1)[1].split("(", 1)[0]
        formula = caption.startswith("`layernorm/formula.py`")
        assert formula == (f"formula.{name}" in {"formula.variance", "formula.layer_norm_backward"}), caption
        assert "one step per line" in caption if formula else caption.startswith("From `layernorm/")
