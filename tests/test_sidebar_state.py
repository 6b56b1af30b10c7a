"""The shared sidebar keeps what the user entered when they switch input source and back.

Regressions found by trying to break the app: a hidden widget loses its value in Streamlit, so
typed text, table edits, an uploaded file and the MiniLM choices used to reset silently.
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
from live_support import live_metric_elements
from streamlit.testing.v1 import AppTest

import layernorm as ln
from ui.navigation import HIDDEN, OWN_DATA_SECTIONS, SECTIONS
from ui.text import MESSAGE_LIMIT, plain

APP = str(Path(__file__).resolve().parents[1] / "app.py")
MEAN = "pages/1_mean.py"


def _open() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60).run()
    at.switch_page(MEAN).run()
    assert not at.exception
    return at


def _mu(at: AppTest) -> str:
    return next(m.value for m in [*at.metric, *live_metric_elements(at)] if m.label == "μ (mean)")


def _switch(at: AppTest, source: str) -> None:
    at.selectbox(key="src").set_value(source).run()
    assert not at.exception, [e.value for e in at.exception]


def test_typed_text_survives_a_source_switch() -> None:
    at = _open()
    _switch(at, "Type numbers")
    at.text_area(key="typed").input("7 8 9").run()
    assert _mu(at) == "8"
    _switch(at, "Preset")
    _switch(at, "Type numbers")
    assert at.text_area(key="typed").value == "7 8 9"
    assert _mu(at) == "8"


def _captions(at: AppTest) -> list[str]:
    return [str(c.value) for c in at.sidebar.caption]


def test_a_comma_between_digits_is_read_as_two_numbers_and_said() -> None:
    """Found in QA: "1,5" (one and a half, in much of the world) became x = [1, 5] without a word."""
    at = _open()
    _switch(at, "Type numbers")
    at.text_area(key="typed").input("1,5").run()
    assert _mu(at) == "3"  # the reading does not change: a comma separates numbers
    said = [c for c in _captions(at) if "comma" in c]
    assert said == [
        plain("Read as 2 numbers: a comma always separates numbers here, so 1,5 is 1 and 5. "
              "For a decimal, write a point: 1.5.", MESSAGE_LIMIT)
    ]  # fmt: skip
    at.text_area(key="typed").input("0,25 2,5 -3").run()
    assert [c for c in _captions(at) if "comma" in c] == [
        plain("Read as 5 numbers: a comma always separates numbers here, so 0,25 is 0 and 25. "
              "For a decimal, write a point: 0.25.", MESSAGE_LIMIT)
    ]  # fmt: skip
    at.text_area(key="typed").input("-1,5").run()
    assert next(c for c in _captions(at) if "comma" in c).startswith(plain("Read as 2 numbers"))
    # a space after the comma, or a side that is part of another number: nothing to say
    for text in ("1, 5", "1.5, 2", "[1 , 5]", "1e3,5", "1e-3,5", "2.5,3"):
        at.text_area(key="typed").input(text).run()
        assert not [c for c in _captions(at) if "comma" in c], text


def test_table_edits_survive_a_source_switch() -> None:
    at = _open()
    _switch(at, "Edit a table")
    at.session_state["table"] = {"edited_rows": {0: {"x": 100.0}}, "added_rows": [], "deleted_rows": []}
    at.run()
    assert _mu(at) == "27.25"  # (100 + 2 + 3 + 4) / 4
    _switch(at, "Preset")
    _switch(at, "Edit a table")
    assert _mu(at) == "27.25"


def test_minilm_choices_survive_a_source_switch() -> None:
    at = _open()
    _switch(at, "Real token (MiniLM)")
    at.selectbox(key="tok_sentence").set_value(3).run()
    at.selectbox(key="tok_site").set_value(5).run()
    _switch(at, "Preset")
    _switch(at, "Real token (MiniLM)")
    assert at.selectbox(key="tok_sentence").value == 3
    assert at.selectbox(key="tok_site").value == 5


def test_uploaded_vector_is_kept_when_the_uploader_is_hidden() -> None:
    # AppTest cannot upload through the widget; the kept vector is what the sidebar reuses.
    at = _open()
    buf = io.BytesIO()
    np.save(buf, np.array([2.0, 4.0, 9.0]))
    at.session_state["upload_last"] = (ln.read_uploaded_vector("v.npy", buf.getvalue()), "v.npy")
    _switch(at, "Upload a file")
    assert _mu(at) == "5"
    assert any(plain("v.npy") in c.value for c in at.sidebar.caption)  # a file name is never Markdown


def test_sidebar_says_when_a_page_makes_its_own_data() -> None:
    at = _open()
    own = "This page makes its own data"
    assert not any(own in c.value for c in at.sidebar.caption)
    at.select_slider(key="d").set_value(16).run()
    at.select_slider(key="eps").set_value(1e-3).run()
    for page in [e.path for section in OWN_DATA_SECTIONS for e in SECTIONS[section]]:
        at.switch_page(page).run()
        assert not at.exception
        assert any(own in c.value for c in at.sidebar.caption)
        # only what acts on this page: no vector, γ/β or ε controls
        assert not at.sidebar.selectbox and not at.sidebar.select_slider and not at.sidebar.slider
    at.switch_page("pages/1_mean.py").run()
    assert at.select_slider(key="d").value == 16 and at.select_slider(key="eps").value == 1e-3
    assert not any(own in c.value for c in at.sidebar.caption)


def test_per_feature_gamma_beta_survive_a_change_of_d() -> None:
    at = AppTest.from_file(APP, default_timeout=60).run()
    at.switch_page("pages/4_scale_shift.py").run()
    at.button(key="ss_table").click().run()
    at.session_state["ss_editor_8"] = {"edited_rows": {0: {"γ": 5.0}}, "added_rows": [], "deleted_rows": []}
    at.run()
    at.select_slider(key="d").set_value(4).run()
    assert not at.exception
    assert at.dataframe[0].value["γ"].tolist() == ["1"] * 4  # a fresh table (text cells) for d = 4
    at.select_slider(key="d").set_value(8).run()
    assert float(at.dataframe[0].value["γ"].tolist()[0]) == 5.0  # d = 8 kept its edit


def test_new_draw_wraps_after_the_last_seed() -> None:
    at = _open()
    at.number_input(key="seed").set_value(9999).run()
    at.button(key="reseed").click().run()
    assert not at.exception and at.number_input(key="seed").value == 0


def test_link_values_the_chosen_input_does_not_use_are_reported() -> None:
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params["src"] = "Type numbers"
    at.query_params["d"] = "7"
    at.run()
    assert not at.exception and at.selectbox(key="src").value == "Type numbers"
    assert any("`d`" in i.value and "not used by the chosen input" in i.value for i in at.sidebar.info)


def test_scale_shift_names_minilm_parameters_only_for_a_real_token() -> None:
    at = AppTest.from_file(APP, default_timeout=60).run()
    at.switch_page("pages/4_scale_shift.py").run()
    at.radio(key="affine_mode").set_value("MiniLM's learned γ, β").run()
    assert not at.exception
    assert not any("These are MiniLM" in i.value for i in at.main.info)
    at.selectbox(key="src").set_value("Real token (MiniLM)").run()
    assert any("These are MiniLM" in i.value for i in at.main.info)


def test_home_links_every_lesson_page() -> None:
    at = AppTest.from_file(APP, default_timeout=60).run()
    assert not at.exception
    hidden = {e.path for e in HIDDEN}  # pages no menu lists, opened by their own link (the projector view)
    files = [p for p in (Path(APP).parent / "pages").glob("*.py") if f"pages/{p.name}" not in hidden]
    pages = sorted(p.stem.split("_", 1)[1] for p in files if not p.name.startswith("0_"))  # url paths
    linked = {link.proto.page for link in at.get("page_link")}  # lesson links repeat some pages
    missing = [p for p in pages if p not in linked]
    assert not missing, f"Home links no page {missing}: give its Entry in ui/navigation.py a question"
    assert sorted(linked) == pages


def test_a_long_typed_vector_is_read_whole_not_cut() -> None:
    """Found by the fuzzer: a character limit on the text box kept the old text for a long paste
    (a browser would cut it silently); the parser reads every character and names what is wrong."""
    at = _open()
    _switch(at, "Type numbers")
    text = ", ".join(["1.2345678"] * 3000)  # 32,997 characters, 3000 numbers
    at.text_area(key="typed").input(text).run()
    assert not at.exception and at.text_area(key="typed").value == text
    assert _mu(at) == "1.235" or _mu(at).startswith("1.2345678")
    assert next(m.value for m in [*at.metric, *live_metric_elements(at)] if m.label.startswith("d")) == "3000"
