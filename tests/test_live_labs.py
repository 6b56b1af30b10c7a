"""The live controls of the numerics labs (Precision's offset, Gradients' spread): every frame they hold
is what the page rendered for that value before it had a live control.

The expected texts are written here the way the pages wrote them (formula, metrics), from the core and
``ui.text``; the frames must equal them for every value offered, the released page must show its
value's frame, and a link must still open the value it names.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from apptest_support import open_page
from live_support import live_data, live_readouts
from streamlit.testing.v1 import AppTest

import layernorm as ln
from layernorm.labs import precision as P
from ui.live import precision as lp
from ui.text import digits_to_separate, tex_num


def ok(at: AppTest) -> AppTest:
    assert not at.exception, [e.value for e in at.exception]
    return at


# --- Precision: the offset ----------------------------------------------------------------------------

PREC = "pages/13_precision.py"
PREC_DIGITS = {"float16": 4, "bfloat16": 3, "float32": 9, "float64": 17}
PREC_INPUTS = {
    "default": ln.make_preset("standard normal", 8, 0),
    "40000 case": np.array([40000.0, 40001.0, 40002.0, 40003.0]),
    "constant d=8": ln.make_preset("constant", 8, 0),
    "normal d=768": ln.make_preset("standard normal", 768, 3),
}


def precision_tex(x: np.ndarray, eps: float, dtype: str, offset: float) -> str:
    """The formula Precision drew with st.latex for this offset and dtype (its own code, written out)."""
    shifted = x + offset
    one = ln.layer_norm_in_dtype(shifted, dtype=dtype, method="one_pass", eps=eps)
    exact_var = float(ln.variance(shifted))
    shown = [float(one.mean_sq[0]), float(one.mu_sq[0]), float(one.var[0]), exact_var]
    n = digits_to_separate(shown, PREC_DIGITS[dtype])
    if not np.isfinite(one.var[0]):
        one_tex = r"\text{undefined}"
    else:
        one_tex = rf"{tex_num(shown[0], n)} - {tex_num(shown[1], n)} = {tex_num(shown[2], n)}"
    text = "0" if offset == 0 else f"{offset:.0e}".replace("e+0", "e")
    return (
        rf"\text{{{dtype}, offset {text}:}}\quad \sigma^2_{{\text{{one-pass}}}} = {one_tex}"
        rf"\qquad \sigma^2_{{\text{{exact}}}} = {tex_num(exact_var, n)}"
    )


def test_precision_offers_the_offsets_the_select_slider_offered() -> None:
    assert lp.OFFSETS == [0.0, *(m * 10.0**k for k in range(8) for m in (1, 2, 5)), 1e8]
    assert [lp.offset_text(o) for o in (0.0, 1.0, 2e5, 1e8)] == ["0", "1e0", "2e5", "1e8"]


@pytest.mark.parametrize("dtype", list(P.DTYPES))
@pytest.mark.parametrize("name", list(PREC_INPUTS))
def test_every_precision_frame_is_the_formula_the_page_drew(name: str, dtype: str) -> None:
    x = PREC_INPUTS[name]
    sent = lp.frames.__wrapped__(x, 1e-5, dtype)  # type: ignore[attr-defined]  # without the cache
    assert sent["values"] == lp.OFFSETS
    assert sent["labels"] == [lp.offset_text(o) for o in lp.OFFSETS]  # as the select slider showed them
    for offset, f in zip(lp.OFFSETS, sent["frames"], strict=True):  # type: ignore[call-overload]
        (r,) = f["readouts"]
        assert r == {"key": lp.FORMULA, "tex": precision_tex(x, 1e-5, dtype, offset), "metrics": []}
        assert f["charts"] == []  # its chart marks the offset with a vertical line: drawn at rest only
    assert json.loads(json.dumps(sent)) == sent


def test_precision_frames_say_undefined_where_the_one_pass_variance_is() -> None:
    """float16 at an offset of 1e8: the input overflows, and the formula says so in one word."""
    sent = lp.frames.__wrapped__(PREC_INPUTS["default"], 1e-5, "float16")  # type: ignore[attr-defined]
    assert r"\text{undefined}" in sent["frames"][-1]["readouts"][0]["tex"]  # type: ignore[index]


@pytest.mark.parametrize(("offset", "dtype"), [(0.0, "float32"), (2e5, "float16"), (1e8, "bfloat16")])
def test_precision_page_shows_the_frame_of_its_offset(offset: float, dtype: str) -> None:
    at = open_page(PREC)
    ok(at.radio(key="prec_dtype").set_value(dtype).run())
    ok(at.select_slider(key="prec_offset").set_value(offset).run())
    (data,) = live_data(at)
    assert data["index"] == lp.OFFSETS.index(offset)
    assert data["link"] == {
        "key": "prec_offset",
        "urls": [lp.offset_text(o) for o in lp.OFFSETS],
        "default": "1e4",
    }
    (shown,) = live_readouts(at)
    x = at.session_state["lab_input"].x
    assert shown["tex"] == precision_tex(x, 1e-5, dtype, offset)
    assert sum("at this offset:" in m.value for m in at.markdown) == 1  # the sentences stay under it


@pytest.mark.parametrize(("link", "offset"), [("2e5", 2e5), ("1e+08", 1e8), ("0", 0.0), ("3e5", 2e5)])
def test_a_precision_link_opens_its_offset(link: str, offset: float) -> None:
    at = open_page(PREC, prec_offset=link, prec_dtype="float16")
    assert at.select_slider(key="prec_offset").value == offset
    (data,) = live_data(at)
    assert data["index"] == lp.OFFSETS.index(offset)
    (shown,) = live_readouts(at)
    assert shown["tex"] == precision_tex(at.session_state["lab_input"].x, 1e-5, "float16", offset)
