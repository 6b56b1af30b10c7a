"""Table cells and uploaded CSVs through AppTest: every spelling means what it means in the text box.

Regressions: the sidebar's "Edit a table" grid and the per-feature γ/β grid on Scale & shift were
NumberColumns, whose browser-side editor read ``1e-8`` as -18, ``−3`` as 3 and ``.01`` as 1 before
the app saw anything (tests/e2e/test_cells.py drives that editor). The cells are text now, read by
``ln.parse_number``; AppTest seeds the edits the grid would send (docs/TESTING.md). An uploaded
``−3\\n1\\n2`` lost its first row as a "header" without a word.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from apptest_support import ok
from live_support import live_metric_elements
from streamlit.testing.v1 import AppTest

import layernorm as ln
from ui.settings import AFFINE_MODES
from ui.text import MESSAGE_LIMIT, fmt, plain

APP = str(Path(__file__).resolve().parents[1] / "app.py")
MEAN, VAR, SS = "pages/1_mean.py", "pages/2_variance.py", "pages/4_scale_shift.py"
SEED = np.array([1.0, 2.0, 3.0, 4.0])  # the table's starting values


def open_at(page: str, source: str | None = None) -> AppTest:
    at = ok(AppTest.from_file(APP, default_timeout=60).run())
    ok(at.switch_page(page).run())
    if source is not None:
        ok(at.selectbox(key="src").set_value(source).run())
    return at


def metric(at: AppTest, label: str) -> str:
    shown = [*at.metric, *live_metric_elements(at)]  # Mean's metrics are its live slider's
    values = [m.value for m in shown if m.label == label]
    assert values, f"no metric {label!r}: {[m.label for m in shown]}"
    return values[0]


def mu_shown(x: list[float] | np.ndarray) -> str:
    """μ as the Mean page shows it: fmt of the core's mean (the vectors here never need more digits)."""
    return fmt(float(ln.mean(np.asarray(x, dtype=float))))


def edit_table(
    at: AppTest,
    edited: dict[int, str],
    added: list[dict[str, str]] | None = None,
    deleted: list[int] | None = None,
) -> AppTest:
    """What the sidebar grid sends after the user typed ``edited`` (row -> text) into column x."""
    at.session_state["table"] = {
        "edited_rows": {r: {"x": text} for r, text in edited.items()},
        "added_rows": added or [],
        "deleted_rows": deleted or [],
    }
    return ok(at.run())


def sidebar_errors(at: AppTest) -> list[str]:
    return [e.value for e in at.sidebar.error]


# --- the sidebar table --------------------------------------------------------------------------------

SPELLINGS = [("1e-8", 1e-8), ("\u22123", -3.0), (".01", 0.01), ("\uff11\uff12", 12.0), (" 2 ", 2.0)]


@pytest.mark.parametrize(("text", "value"), SPELLINGS)
def test_a_table_cell_means_what_the_text_box_means(text: str, value: float) -> None:
    at = open_at(MEAN, "Edit a table")
    assert metric(at, "μ (mean)") == mu_shown(SEED)
    edit_table(at, {0: text})
    expected = [value, 2.0, 3.0, 4.0]
    assert not sidebar_errors(at)
    assert metric(at, "μ (mean)") == mu_shown(expected)
    np.testing.assert_array_equal(at.session_state["lab_input"].x, expected)
    assert at.session_state["table_last"]["x"].iloc[0] == text  # the grid keeps the user's text
    ok(at.selectbox(key="src").set_value("Type numbers").run())  # the same text in the text box
    ok(at.text_area(key="typed").set_value(f"{text}, 2, 3, 4").run())
    np.testing.assert_array_equal(at.session_state["lab_input"].x, expected)


def test_a_cell_that_is_not_a_number_is_named_and_the_last_vector_kept() -> None:
    at = open_at(MEAN, "Edit a table")
    edit_table(at, {0: "\u22123"})
    good = [-3.0, 2.0, 3.0, 4.0]
    edit_table(at, {0: "\u22123", 2: "1,5"})  # a decimal comma is not silently 15 or 1.5
    assert sidebar_errors(at) == [
        plain(
            "Row 3 of the table is '1,5', which is not a number. "
            "Write one number per cell, e.g. 2.5, -3 or 1e-8. For a decimal, write a point: 1.5.",
            MESSAGE_LIMIT,
        )
    ]
    assert metric(at, "μ (mean)") == mu_shown(good)
    assert list(at.session_state["table_last"]["x"]) == ["\u22123", "2", "1,5", "4"]  # still there to fix
    edit_table(at, {0: "\u22123", 2: "1.5"})
    assert not sidebar_errors(at) and metric(at, "μ (mean)") == mu_shown([-3.0, 2.0, 1.5, 4.0])


def test_added_deleted_and_empty_rows() -> None:
    at = open_at(MEAN, "Edit a table")
    edit_table(at, {}, added=[{"x": "\u22123"}], deleted=[1])
    assert not sidebar_errors(at)
    assert metric(at, "d (features)") == "4"
    assert metric(at, "μ (mean)") == mu_shown([1.0, 3.0, 4.0, -3.0])
    edit_table(at, {}, added=[{"x": "\u22123"}, {}])  # a row added but not filled in yet
    assert sidebar_errors(at) == [plain("Row 6 of the table is empty: type a number into it.", MESSAGE_LIMIT)]
    assert metric(at, "μ (mean)") == mu_shown([1.0, 3.0, 4.0, -3.0])  # the last valid vector
    edit_table(at, {1: "   "})  # a cell emptied by hand
    assert sidebar_errors(at) == [plain("Row 2 of the table is empty: type a number into it.", MESSAGE_LIMIT)]


def test_text_edits_survive_a_source_switch_and_a_page_switch() -> None:
    at = open_at(MEAN, "Edit a table")
    edit_table(at, {0: "1e-8", 1: "\u22123"}, added=[{"x": ".01"}])
    expected = [1e-8, -3.0, 3.0, 4.0, 0.01]
    assert metric(at, "μ (mean)") == mu_shown(expected)
    ok(at.selectbox(key="src").set_value("Preset").run())
    ok(at.selectbox(key="src").set_value("Edit a table").run())
    assert list(at.session_state["table_seed"]["x"]) == ["1e-8", "\u22123", "3", "4", ".01"]  # as typed
    assert metric(at, "μ (mean)") == mu_shown(expected)
    ok(at.switch_page(VAR).run())
    ok(at.switch_page(MEAN).run())
    assert metric(at, "μ (mean)") == mu_shown(expected)
    np.testing.assert_array_equal(at.session_state["lab_input"].x, expected)


def test_a_table_of_numbers_from_before_becomes_text() -> None:
    at = ok(AppTest.from_file(APP, default_timeout=60).run())
    at.session_state["table_seed"] = pd.DataFrame({"x": [1.0, 0.1, 1e-8]})  # a session from older code
    ok(at.switch_page(MEAN).run())
    ok(at.selectbox(key="src").set_value("Edit a table").run())
    assert list(at.session_state["table_seed"]["x"]) == ["1", "0.1", "1e-08"]
    np.testing.assert_array_equal(at.session_state["lab_input"].x, [1.0, 0.1, 1e-8])


# --- the per-feature γ/β table on Scale & shift ----------------------------------------------------------


def edit_affine(at: AppTest, d: int, edited: dict[int, dict[str, object]]) -> AppTest:
    at.session_state[f"ss_editor_{d}"] = {"edited_rows": edited, "added_rows": [], "deleted_rows": []}
    return ok(at.run())


def test_gamma_beta_cells_mean_what_the_text_box_means() -> None:
    at = open_at(SS, "Type numbers")  # x = 1, 2, 3, 4
    ok(at.button(key="ss_table").click().run())
    assert at.radio(key="affine_mode").value == AFFINE_MODES[1]
    editor = at.dataframe[0].value
    assert list(editor.index) == [1, 2, 3, 4]  # rows numbered as the messages count them
    assert list(editor["γ"]) == ["1"] * 4 and list(editor["β"]) == ["0"] * 4
    as_text: dict[int, dict[str, object]] = {
        0: {"γ": "\u22123"},
        1: {"β": "1e-8"},
        2: {"γ": ".01", "β": "\uff11\uff12"},
        3: {"β": " 2 "},
    }
    edit_affine(at, 4, as_text)
    gamma, beta = np.array([-3.0, 1, 0.01, 1]), np.array([0, 1e-8, 12.0, 2.0])
    assert not at.main.error
    shown = metric(at, "mean of y")

    # the same γ, β given as numbers (what the grid's own editor would send) show the same numbers
    numbers: dict[int, dict[str, object]] = {
        r: {c: ln.parse_number(v) for c, v in row.items()} for r, row in as_text.items()
    }
    other = open_at(SS, "Type numbers")
    ok(other.button(key="ss_table").click().run())
    edit_affine(other, 4, numbers)
    assert metric(other, "mean of y") == shown
    y = ln.layer_norm_steps(np.array([1.0, 2, 3, 4]), gamma, beta, eps=1e-5).y
    assert shown == fmt(float(ln.mean(y)))  # no y prints like this mean, so fmt's 4 digits

    ok(at.run())  # the sidebar reads the kept table on the next run: float arrays for every page
    lab = at.session_state["lab_input"]
    assert lab.gamma.dtype == np.float64 and lab.beta.dtype == np.float64
    np.testing.assert_array_equal(lab.gamma, gamma)
    np.testing.assert_array_equal(lab.beta, beta)
    assert at.session_state["affine_tables"][4]["γ"].tolist() == ["\u22123", "1", ".01", "1"]  # as written


def test_gamma_beta_cell_that_is_not_a_number() -> None:
    at = open_at(SS, "Type numbers")
    ok(at.button(key="ss_table").click().run())
    edit_affine(at, 4, {0: {"γ": "\u22123"}})
    good = metric(at, "mean of y")
    edit_affine(at, 4, {0: {"γ": "\u22123"}, 3: {"β": "2,5"}})
    (err,) = [e.value for e in at.main.error]
    assert err.startswith("γ/β table: " + plain("Row 4 of the β column is '2,5', which is not a number."))
    assert metric(at, "mean of y") == good  # the last valid values
    ok(at.run())
    np.testing.assert_array_equal(at.session_state["lab_input"].gamma, [-3.0, 1, 1, 1])
    np.testing.assert_array_equal(at.session_state["lab_input"].beta, [0.0, 0, 0, 0])


# --- uploads --------------------------------------------------------------------------------------------


def upload(at: AppTest, name: str, data: bytes) -> AppTest:
    return ok(at.file_uploader(key="upload").upload(name, data, "text/csv").run())


def captions(at: AppTest) -> list[str]:
    return [c.value for c in at.sidebar.caption]


@pytest.mark.parametrize(
    ("data", "values"),
    [
        ("\u22123\n1\n2\n", [-3.0, 1.0, 2.0]),  # was [1, 2]: "−3" looked like a header
        (".5\n 1e-8 \n\uff11\uff12\n", [0.5, 1e-8, 12.0]),
        ("\u22121,\u22122,3\n", [-1.0, -2.0, 3.0]),
    ],
)
def test_upload_reads_every_cell_like_the_text_box(data: str, values: list[float]) -> None:
    at = open_at(MEAN, "Upload a file")
    upload(at, "v.csv", data.encode())
    assert not sidebar_errors(at)
    assert metric(at, "μ (mean)") == mu_shown(values)
    assert not any("first row" in c for c in captions(at))


def test_upload_says_when_it_skips_a_header_row() -> None:
    at = open_at(MEAN, "Upload a file")
    upload(at, "v.csv", b"x\n1\n2\n")
    note = plain("The first row (x) was read as a column name and skipped.", MESSAGE_LIMIT)
    assert note in captions(at)
    assert metric(at, "μ (mean)") == mu_shown([1.0, 2.0])
    ok(at.selectbox(key="src").set_value("Preset").run())  # the uploader forgets its file when hidden
    ok(at.selectbox(key="src").set_value("Upload a file").run())
    assert note in captions(at)  # the lab does not, nor what it said about it
    assert metric(at, "μ (mean)") == mu_shown([1.0, 2.0])


def test_upload_markdown_in_a_header_stays_text() -> None:
    at = open_at(MEAN, "Upload a file")
    upload(at, "v.csv", b"__init__\n1\n2\n")
    note = "The first row (__init__) was read as a column name and skipped."  # not a bold "init"
    assert plain(note, MESSAGE_LIMIT) in captions(at)


def test_upload_first_row_that_is_neither_is_reported() -> None:
    at = open_at(MEAN, "Upload a file")
    upload(at, "v.csv", b"1,abc\n")
    assert sidebar_errors(at) == [plain("Cell 'abc' (row 1, column 2) is not a number.", MESSAGE_LIMIT)]


# --- a table's or a file's numbers into the link ------------------------------------------------


def _share(at: AppTest, key: str) -> AppTest:
    (button,) = [b for b in at.sidebar.button if b.key == key]
    assert button.label == "Put these numbers in the link"
    return ok(button.click().run())


def test_a_table_goes_into_the_link_as_typed_numbers() -> None:
    # A link carries no table; the button makes the same numbers typed numbers, which it carries.
    at = open_at(MEAN, "Edit a table")
    edit_table(at, {0: "1e-8", 1: "\u22123"}, added=[{"x": "0.1"}])
    expected = [1e-8, -3.0, 3.0, 4.0, 0.1]
    _share(at, "share_table")
    assert at.selectbox(key="src").value == "Type numbers"
    assert at.text_area(key="typed").value == "1e-08, -3, 3, 4, 0.1"
    np.testing.assert_array_equal(at.session_state["lab_input"].x, expected)  # bit for bit
    assert at.query_params["src"] == "Type numbers" and at.query_params["typed"] == "1e-08, -3, 3, 4, 0.1"
    assert metric(at, "μ (mean)") == mu_shown(expected)


def test_a_file_goes_into_the_link_as_typed_numbers_exactly() -> None:
    at = open_at(MEAN, "Upload a file")
    upload(at, "v.csv", b"0.1\n0.2\n0.30000000000000004\n1e-300\n")
    _share(at, "share_file")
    x = at.session_state["lab_input"].x
    np.testing.assert_array_equal(x, [0.1, 0.2, 0.30000000000000004, 1e-300])
    assert at.query_params["typed"] == "0.1, 0.2, 0.30000000000000004, 1e-300"


def test_a_table_with_a_bad_cell_offers_no_link() -> None:
    at = open_at(MEAN, "Edit a table")
    edit_table(at, {0: "abc"})
    assert not [b for b in at.sidebar.button if b.key == "share_table"]  # nothing valid to share


def test_sharing_after_typing_earlier_replaces_the_typed_numbers_in_the_link() -> None:
    at = open_at(MEAN, "Type numbers")
    ok(at.text_area(key="typed").set_value("7, 8").run())
    ok(at.selectbox(key="src").set_value("Edit a table").run())
    edit_table(at, {0: "5"})
    _share(at, "share_table")
    assert at.text_area(key="typed").value == "5, 2, 3, 4"
    assert at.query_params["typed"] == "5, 2, 3, 4" and at.query_params["src"] == "Type numbers"
    np.testing.assert_array_equal(at.session_state["lab_input"].x, [5.0, 2.0, 3.0, 4.0])
