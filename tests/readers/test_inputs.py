"""Typed, edited and uploaded vectors, and the named presets."""

from __future__ import annotations

import io
import pickle
import re
from typing import Any

import numpy as np
import pandas as pd
import pytest

from layernorm import (
    MAX_VALUES,
    PRESETS,
    InputError,
    VectorFromFile,
    make_near_constant,
    make_preset,
    number_text,
    parse_number,
    parse_vector_text,
    read_csv_file,
    read_csv_vector,
    read_npy_vector,
    read_uploaded_file,
    read_uploaded_vector,
    table_text,
    typed_text_note,
    vector_from_table,
)

# --- parse_vector_text --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1, 2, 3", [1, 2, 3]),
        ("1 2   3", [1, 2, 3]),
        ("1\n2\n3\n", [1, 2, 3]),
        ("1\r\n2\r\n3", [1, 2, 3]),
        ("[1, 2, 3]", [1, 2, 3]),
        ("(1 2 3)", [1, 2, 3]),
        ("[[1, 2], [3]]", [1, 2, 3]),
        ("1; 2;3", [1, 2, 3]),
        ("1,,2 ,\t3", [1, 2, 3]),
        ("1e-3, 2.5E+4, -3e2", [1e-3, 2.5e4, -300]),
        ("\u22121.5, \u22122", [-1.5, -2]),  # typographic minus
        ("+3, +0.5", [3, 0.5]),
        ("-0.25", [-0.25]),
        ("1e150, -1e150", [1e150, -1e150]),
    ],
)
def test_parse_vector_text_accepts(text: str, expected: list[float]) -> None:
    got = parse_vector_text(text)
    assert got.dtype == np.float64 and got.ndim == 1
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("text", ["", "   ", "\n\n", "[ ]", ", ;"])
def test_parse_vector_text_empty(text: str) -> None:
    with pytest.raises(InputError, match="typed vector is empty"):
        parse_vector_text(text)


def test_parse_vector_text_word_names_token_item_and_line() -> None:
    with pytest.raises(InputError, match=re.escape("'abc' (item 3, line 1) is not a number")):
        parse_vector_text("1, 2, abc, 4")
    with pytest.raises(InputError, match=re.escape("'x7' (item 3, line 2) is not a number")):
        parse_vector_text("1 2\nx7 4")
    with pytest.raises(InputError, match=re.escape("'1.2.3' (item 1, line 1)")):
        parse_vector_text("1.2.3")
    assert issubclass(InputError, ValueError)


@pytest.mark.parametrize(
    ("text", "token", "item"),
    [("nan", "nan", 1), ("1, inf", "inf", 2), ("2 -inf", "-inf", 2), ("1\nNaN", "NaN", 2)],
)
def test_parse_vector_text_nan_inf(text: str, token: str, item: int) -> None:
    with pytest.raises(
        InputError, match=re.escape(f"'{token}' (item {item}, line") + ".*not a finite number"
    ):
        parse_vector_text(text)


def test_parse_vector_text_size_limit() -> None:
    assert MAX_VALUES == 4096
    ok = parse_vector_text(", ".join(["1.5"] * 4096))
    assert ok.shape == (4096,)
    with pytest.raises(InputError, match="has 4097 values; the lab handles at most 4096"):
        parse_vector_text(" ".join(["1"] * 4097))


@pytest.mark.parametrize("text", ["1e151", "1, -2e200", "1.0000001e150"])
def test_parse_vector_text_too_large(text: str) -> None:
    with pytest.raises(InputError, match=r"keep \|x\| below 1e\+150"):
        parse_vector_text(text)


# --- vector_from_table --------------------------------------------------------------------


def test_vector_from_table() -> None:
    np.testing.assert_array_equal(vector_from_table([1, 2.5, "3", np.float32(4)]), [1, 2.5, 3, 4])
    np.testing.assert_array_equal(vector_from_table(pd.Series([0.5, -1.0])), [0.5, -1.0])
    with pytest.raises(InputError, match="Row 3 of the table is empty: type a number into it"):
        vector_from_table([1.0, 2.0, None])
    with pytest.raises(InputError, match="Row 2 of the table is empty"):
        vector_from_table([1.0, float("nan"), 3.0])
    with pytest.raises(InputError, match="Row 2 of the table is empty"):
        vector_from_table(pd.Series([1.0, np.nan]))
    with pytest.raises(InputError, match="Row 2 of the table is empty"):
        vector_from_table(["1", "   "])
    with pytest.raises(InputError, match="Row 1 of the table is 'abc', which is not a number"):
        vector_from_table(["abc", 1.0])
    with pytest.raises(InputError, match="The table is empty"):
        vector_from_table([])
    with pytest.raises(InputError, match="Row 2 of the table is 'inf', which is not a finite number"):
        vector_from_table([1.0, float("inf")])
    with pytest.raises(InputError, match="Row 1 of the β column is 'nan', which is not a finite number"):
        vector_from_table(["nan"], "β column")
    with pytest.raises(InputError, match="has 4097 values"):
        vector_from_table([1.0] * 4097)


# --- read_csv_vector ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"x\n1\n2\n3\n", [1, 2, 3]),  # a column with a header line
        (b"1,2,3\n", [1, 2, 3]),  # a row
        (b"1, 2.5, -3e2\n", [1, 2.5, -300]),
        (b"a,b,c\n1,2,3\n", [1, 2, 3]),  # a row with a header line
        (b"1;2;3\n", [1, 2, 3]),  # semicolon-separated
        (b"1\t2\t3", [1, 2, 3]),
        (b"1,2,3\n\n\n", [1, 2, 3]),  # trailing blank lines
        (b"x\n\n1\n2\n", [1, 2]),  # blank line after the header
        (b"\xef\xbb\xbf1,2", [1, 2]),  # UTF-8 with BOM (Excel)
    ],
)
def test_read_csv_vector_accepts(data: bytes, expected: list[float]) -> None:
    got = read_csv_vector(data)
    assert got.dtype == np.float64
    np.testing.assert_array_equal(got, expected)


# Regression (fixed): single-column CSV without a header is mis-parsed. `read_csv_vector` calls
# pd.read_csv(sep=None, engine="python"), whose csv.Sniffer picks a *character of the data*
# (a digit or '.') as the delimiter when there is only one column, so values are silently
# lost or truncated:
#   b"1\n2\n3\n"            -> [2, 3]            (expected [1, 2, 3])
#   b"1.5\n2.5\n3.5\n"      -> [1, 2, 3]         (expected [1.5, 2.5, 3.5])
#   b"0.25\n-1.75\n3.125\n" -> [0.2, -1.7, 3.12] (expected [0.25, -1.75, 3.125])
#   b"1\n\n2\n\n3\n"        -> [2, 3]            (expected [1, 2, 3])
#   b"5" / b"5\n"           -> InputError "The file is empty" (expected [5])
#   b"10\n20\n30\n"         -> InputError "The file has empty cells" (expected [10, 20, 30])
#   b"value\n1.5\n2.5\n"    -> InputError "Cell 'alue' (row 1, column 2)" (expected [1.5, 2.5])
@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"1\n2\n3\n", [1, 2, 3]),
        (b"1.5\n2.5\n3.5\n", [1.5, 2.5, 3.5]),
        (b"0.25\n-1.75\n3.125\n", [0.25, -1.75, 3.125]),
        (b"1\n\n2\n\n3\n", [1, 2, 3]),  # blank lines
        (b"5", [5]),
        (b"10\n20\n30\n", [10, 20, 30]),
        (b"value\n1.5\n2.5\n", [1.5, 2.5]),
    ],
)
def test_read_csv_vector_single_column(data: bytes, expected: list[float]) -> None:
    np.testing.assert_array_equal(read_csv_vector(data), expected)


def test_read_csv_vector_rejects() -> None:
    with pytest.raises(InputError, match="holds a 2 × 3 array, but the lab needs one vector"):
        read_csv_vector(b"1,2,3\n4,5,6\n")
    with pytest.raises(InputError, match="one vector"):
        read_csv_vector(b"a,b\n1,2\n3,4\n")
    with pytest.raises(InputError, match=re.escape("Cell 'abc' (row 2, column 2) is not a number")):
        read_csv_vector(b"1,2,3\n4,abc,6\n")
    with pytest.raises(InputError, match=re.escape("Cell 'oops' (row 1, column 3) is not a number")):
        read_csv_vector(b"1,2,oops\n")
    with pytest.raises(InputError, match="not UTF-8"):
        read_csv_vector(b"\xff\xfe1\x002\x00")
    with pytest.raises(InputError, match="not UTF-8"):
        read_csv_vector("1;2;é".encode("latin-1"))
    for empty in (b"", b"   \n\n "):
        with pytest.raises(InputError, match="The uploaded file is empty"):
            read_csv_vector(empty)
    with pytest.raises(InputError, match=re.escape("The cell at row 2, column 3 is empty")):
        read_csv_vector(b"1,2,3\n4,5\n")
    with pytest.raises(
        InputError, match="Value 2 of the file is inf: NaN and infinity have no mean or variance"
    ):
        read_csv_vector(b"1,inf,3\n")
    with pytest.raises(InputError, match="has 4097 values"):
        read_csv_vector(",".join(["1"] * 4097).encode())


# --- read_npy_vector ----------------------------------------------------------------------


def _npy(arr: Any, allow_pickle: bool = False) -> bytes:
    buf = io.BytesIO()
    np.save(buf, arr, allow_pickle=allow_pickle)
    return buf.getvalue()


def test_read_npy_vector_accepts() -> None:
    v32 = np.array([0.1, -2.5, 3.0], dtype=np.float32)
    got = read_npy_vector(_npy(v32))
    assert got.dtype == np.float64 and got.shape == (3,)
    np.testing.assert_array_equal(got, v32.astype(np.float64))
    np.testing.assert_array_equal(read_npy_vector(_npy(np.arange(4.0).reshape(1, 4))), [0, 1, 2, 3])
    np.testing.assert_array_equal(read_npy_vector(_npy(np.arange(4.0).reshape(4, 1))), [0, 1, 2, 3])
    np.testing.assert_array_equal(read_npy_vector(_npy(np.array([3, -1], dtype=np.int16))), [3, -1])
    np.testing.assert_array_equal(read_npy_vector(_npy(np.asfortranarray(np.ones((1, 2))))), [1, 1])
    np.testing.assert_array_equal(read_uploaded_vector("x.NPY", _npy(np.ones(2))), [1, 1])
    np.testing.assert_array_equal(read_uploaded_vector("x.csv", b"1,2"), [1, 2])
    np.testing.assert_array_equal(read_uploaded_vector("x.txt", b"1 2"), [1, 2])


def test_read_npy_vector_rejects_tables() -> None:
    with pytest.raises(InputError, match="holds a 3 × 4 array, but the lab needs one vector"):
        read_npy_vector(_npy(np.ones((3, 4))))
    with pytest.raises(InputError, match="one vector"):
        read_npy_vector(_npy(np.ones((1, 1, 3))))
    with pytest.raises(InputError, match="has 4097 values"):
        read_npy_vector(_npy(np.ones(4097)))
    with pytest.raises(InputError, match="NaN and infinity"):
        read_npy_vector(_npy(np.array([1.0, np.nan])))


PICKLE_LOADED: list[str] = []


def _record_unpickle() -> list[int]:
    PICKLE_LOADED.append("unpickled!")
    return [1]


class _Payload:
    def __reduce__(self) -> tuple[Any, tuple[()]]:
        return (_record_unpickle, ())


def test_read_npy_vector_never_unpickles(monkeypatch: pytest.MonkeyPatch) -> None:
    data = _npy(np.array([_Payload(), 1.0], dtype=object), allow_pickle=True)
    assert b"_record_unpickle" in data  # the payload really is in the file

    def forbidden(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("pickle was used to load an upload")

    monkeypatch.setattr(pickle, "load", forbidden)
    monkeypatch.setattr(pickle, "loads", forbidden)
    monkeypatch.setattr(pickle, "Unpickler", forbidden)
    for call in (lambda: read_npy_vector(data), lambda: read_uploaded_vector("evil.npy", data)):
        with pytest.raises(InputError, match="never unpickles"):
            call()
    assert PICKLE_LOADED == []


@pytest.mark.parametrize(
    ("arr", "dtype_text"),
    [(np.array([1 + 2j, 3]), "complex128"), (np.array(["1", "2"]), "<U1"), (np.array([b"ab"]), "|S2")],
)
def test_read_npy_vector_refuses_non_real_dtypes(arr: Any, dtype_text: str) -> None:
    with pytest.raises(InputError, match=re.escape(f"dtype {dtype_text}; the lab needs numbers")):
        read_npy_vector(_npy(arr))


def test_npz_rejected() -> None:
    buf = io.BytesIO()
    np.savez(buf, x=np.ones(3))
    with pytest.raises(InputError, match=r"not an \.npz archive"):
        read_uploaded_vector("x.npz", buf.getvalue())
    with pytest.raises(InputError, match=r"not an \.npz archive"):
        read_uploaded_vector("X.NPZ", buf.getvalue())
    with pytest.raises(InputError, match=r"not an \.npz archive"):
        read_npy_vector(buf.getvalue())  # misnamed upload: content sniffed


@pytest.mark.parametrize("data", [b"", b"\x93NUMPY", b"\x93NUMPY\x01\x00garbage", _npy(np.ones(8))[:-9]])
def test_read_npy_vector_truncated(data: bytes) -> None:
    with pytest.raises(InputError, match=r"not a valid \.npy array"):
        read_npy_vector(data)


def test_read_npy_vector_garbage_bytes() -> None:
    # Regression (fixed): bytes that are not a .npy at all (no b"\x93NUMPY" magic) make
    # np.load(allow_pickle=False)
    # raise "Cannot load file containing pickled data", and read_npy_vector reports
    # "This .npy holds Python objects; the lab never unpickles uploads." — a wrong diagnosis for
    # a random/garbage upload (e.g. a renamed .png). Expected: "The file is not a valid .npy array."
    # (check the magic prefix before calling np.load).
    with pytest.raises(InputError, match=r"not a valid \.npy array"):
        read_npy_vector(b"this is not a numpy file at all")


# --- presets ------------------------------------------------------------------------------

RANDOM_PRESETS = ["standard normal", "shifted (mean 2.5)", "scaled (σ = 10)", "one large outlier"]


def test_preset_names() -> None:
    assert set(PRESETS) == {*RANDOM_PRESETS, "constant", "one-hot [1, 0, 0, 0]"}
    assert all(isinstance(v, str) and v for v in PRESETS.values())


@pytest.mark.parametrize("name", list(PRESETS))
@pytest.mark.parametrize("d", [1, 2, 4, 768, 4096])
def test_preset_shape_and_determinism(name: str, d: int) -> None:
    a = make_preset(name, d, seed=7)
    b = make_preset(name, d, seed=7)
    assert a.shape == (d,) and a.dtype == np.float64
    assert np.all(np.isfinite(a))
    np.testing.assert_array_equal(a, b)
    a[0] = 123.0  # a fresh array each call: mutating one does not change the next
    np.testing.assert_array_equal(make_preset(name, d, seed=7), b)
    if name in RANDOM_PRESETS and not (name == "one large outlier" and d == 1):
        assert not np.array_equal(make_preset(name, d, seed=8), b)  # the seed matters
    else:  # constant, one-hot, and the d = 1 outlier ([40.0]) do not depend on the seed
        np.testing.assert_array_equal(make_preset(name, d, seed=8), b)
    assert make_preset(name, d).shape == (d,)  # default seed


def test_preset_documented_properties() -> None:
    z = make_preset("standard normal", 4096)
    assert abs(z.mean()) < 0.1 and abs(z.std() - 1) < 0.1
    s = make_preset("shifted (mean 2.5)", 4096)
    assert abs(s.mean() - 2.5) < 0.1
    np.testing.assert_allclose(s - 2.5, z, rtol=0, atol=1e-15)
    sc = make_preset("scaled (σ = 10)", 4096)
    assert abs(sc.std() - 10) < 0.5
    np.testing.assert_allclose(sc, 10 * z, rtol=1e-15)
    for d in (1, 4, 100):
        np.testing.assert_array_equal(make_preset("constant", d), np.full(d, 3.0))
        o = make_preset("one large outlier", d)
        assert o[d // 3] == 40.0 and np.count_nonzero(o == 40.0) == 1
        assert np.max(np.abs(np.delete(o, d // 3)), initial=0.0) < 10
    np.testing.assert_array_equal(make_preset("one-hot [1, 0, 0, 0]", 4), [1.0, 0.0, 0.0, 0.0])
    np.testing.assert_array_equal(make_preset("one-hot [1, 0, 0, 0]", 6), [1.0, 0, 0, 0, 0, 0])
    np.testing.assert_array_equal(make_preset("one-hot [1, 0, 0, 0]", 1), [1.0])


def test_preset_errors() -> None:
    with pytest.raises(ValueError, match="unknown preset 'gaussian'"):
        make_preset("gaussian", 4)
    for d in (0, -1, 4097):
        with pytest.raises(ValueError, match=f"d must be between 1 and 4096, got {d}"):
            make_preset("standard normal", d)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"1,,3\n", "The cell at row 1, column 2 is empty"),  # one row: an empty cell is not a column to drop
        (b"1;NA;3\n", "Cell 'NA' (row 1, column 2) is not a number"),
        (b"1,nan,3\n", "Value 2 of the file is nan"),
        (b"x,y,z\n1,,3\n", "The cell at row 2, column 2 is empty"),  # a header, then a hole
    ],
)
def test_read_csv_vector_never_drops_cells(data: bytes, message: str) -> None:
    # Regression: dropna(axis=1) used to turn b"1,,3" into [1, 3] without a word.
    with pytest.raises(InputError, match=re.escape(message)):
        read_csv_vector(data)


def test_read_csv_vector_trailing_separator_is_not_a_value() -> None:
    np.testing.assert_array_equal(read_csv_vector(b"1,2,3,\n"), [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(read_csv_vector(b"x,y,z\n1,2,3\n"), [1.0, 2.0, 3.0])


def test_read_npy_vector_checks_the_header_before_allocating() -> None:
    # Regression: a 145-byte file claiming shape (1e11,) made np.load try to allocate 745 GiB
    # (MemoryError, a full-page traceback). The header is read first now.
    header = b"{'descr': '<f8', 'fortran_order': False, 'shape': (100000000000,), }".ljust(118) + b"\n"
    data = b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header + b"\0" * 16
    with pytest.raises(InputError, match="has 100000000000 values"):
        read_uploaded_vector("x.npy", data)


def test_read_npy_vector_zero_d_names_the_problem() -> None:
    buf = io.BytesIO()
    np.save(buf, np.array(3.0))
    with pytest.raises(InputError, match="holds a single number"):
        read_npy_vector(buf.getvalue())


# --- one number parser for typed text, table cells and CSV cells ----------------------------------
# Regression: the table's grid parsed cells itself (1e-8 -> -18, "−3" -> 3, ".01" -> 1) and
# read_csv_vector used pd.to_numeric, which does not read "−3", so an upload "−3\n1\n2" lost its
# first row as a "header" without a word ([1, 2]). Every spelling the text box accepts now means the
# same number in a table cell and a CSV cell; on the old code the table and CSV cases below fail
# ("−3" in a table cell and full-width digits in a CSV were refused, "−3\n1\n2" became [1, 2]).

SPELLINGS = [
    ("1e-8", 1e-08),
    ("\u22123", -3.0),  # typographic minus
    ("\u20133", -3.0),  # en dash
    (".01", 0.01),
    ("\uff11\uff12", 12.0),  # full-width digits
    ("\uff0d\uff13\uff0e\uff15", -3.5),  # full-width minus and dot
    (" 2 ", 2.0),
    ("\u30002\u3000", 2.0),  # ideographic spaces
    ("2.5E+4", 25000.0),
    ("+3", 3.0),
    ("\u0661\u0662", 12.0),  # Arabic-Indic digits: float() reads them
]
NOT_NUMBERS = ["abc", "1,5", "1 000", "10\u00b2", "1.2.3", "--3", "0x10", "\u00bd"]  # 10² is not 102


@pytest.mark.parametrize(("text", "value"), SPELLINGS)
def test_parse_number_spellings(text: str, value: float) -> None:
    assert parse_number(text) == value
    assert type(parse_number(text)) is float


@pytest.mark.parametrize(("text", "value"), SPELLINGS)
def test_every_spelling_means_the_same_number_everywhere(text: str, value: float) -> None:
    np.testing.assert_array_equal(parse_vector_text(text), [value])
    np.testing.assert_array_equal(vector_from_table(["1", text]), [1.0, value])
    np.testing.assert_array_equal(read_csv_vector(f"1\n{text}\n".encode()), [1.0, value])
    np.testing.assert_array_equal(read_csv_vector(f"{text}\n1\n".encode()), [value, 1.0])  # first row
    np.testing.assert_array_equal(read_csv_vector(f"{text},1\n".encode()), [value, 1.0])


@pytest.mark.parametrize("text", NOT_NUMBERS)
def test_not_a_number_is_refused_everywhere(text: str) -> None:
    with pytest.raises(InputError, match=re.escape(f"'{text}' is not a number.")):
        parse_number(text)
    with pytest.raises(InputError, match=re.escape(f"Row 2 of the table is '{text}', which is not a number")):
        vector_from_table(["1", text])
    if "," not in text and " " not in text:  # a separator in a CSV or the text box splits the cell
        with pytest.raises(InputError, match=re.escape(f"'{text}' (item 2, line 1) is not a number")):
            parse_vector_text(f"1 {text}")
        with pytest.raises(InputError, match=re.escape(f"Cell '{text}' (row 2, column 1) is not a number")):
            read_csv_vector(f"1\n{text}\n".encode())


def test_parse_number_edges() -> None:
    for blank in ("", "   ", "\u3000"):
        with pytest.raises(InputError, match="The cell is empty"):
            parse_number(blank)
    assert parse_number(3) == 3.0 and parse_number(np.float32(0.5)) == 0.5
    assert np.isnan(parse_number("nan")) and parse_number("-inf") == -np.inf  # the caller says where
    for bad in (True, None, [1.0]):
        with pytest.raises(InputError, match="is not a number"):
            parse_number(bad)
    long = "x" * 100
    with pytest.raises(InputError) as info:
        parse_number(long)
    assert "x" * 39 + "…'" in str(info.value) and "x" * 40 not in str(info.value)  # shortened


@pytest.mark.parametrize("value", [1.0, -3.0, 0.1, 1e-8, 1 / 3, 2.5e300, -0.0, 123456789.0])
def test_number_text_round_trips(value: float) -> None:
    text = number_text(value)
    assert parse_number(text) == value and not text.endswith(".0")
    assert table_text([value, None, float("nan"), "\u22123"]) == [text, None, None, "\u22123"]


def test_table_keeps_the_users_text_and_names_the_row() -> None:
    column = ["1e-8", "\u22123", ".01", "\uff11\uff12", " 2 "]
    np.testing.assert_array_equal(vector_from_table(column), [1e-08, -3.0, 0.01, 12.0, 2.0])
    with pytest.raises(InputError, match=re.escape("Row 3 of the table is 'abc', which is not a number")):
        vector_from_table(["1", "2", "abc"])


# --- CSV: the first row is data unless it is clearly a header ---------------------------------------


@pytest.mark.parametrize(
    ("data", "values", "notes"),
    [
        ("\u22123\n1\n2\n", [-3, 1, 2], ()),  # was [1, 2]: "−3" looked like a header
        (".5\n 1e-8 \n\uff11\uff12\n", [0.5, 1e-8, 12], ()),
        ("x\n1\n2\n", [1, 2], ("The first row (x) was read as a column name and skipped.",)),
        ("value\n\u22121\n", [-1], ("The first row (value) was read as a column name and skipped.",)),
        (
            "feature_1,feature_2\n1,2\n",
            [1, 2],
            ("The first row (feature_1, feature_2) was read as column names and skipped.",),
        ),
        ("\u22121,\u22122,3\n", [-1, -2, 3], ()),  # one row, every cell through the same parser
        ("1;2;3", [1, 2, 3], ()),
    ],
)
def test_read_csv_file_notes(data: str, values: list[float], notes: tuple[str, ...]) -> None:
    got = read_csv_file(data.encode())
    assert isinstance(got, VectorFromFile)
    np.testing.assert_array_equal(got.x, values)
    assert got.notes == notes
    np.testing.assert_array_equal(read_csv_vector(data.encode()), values)  # the old entry point
    up = read_uploaded_file("v.csv", data.encode())
    assert up.notes == notes
    np.testing.assert_array_equal(read_uploaded_vector("v.csv", data.encode()), values)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"1,abc\n", "Cell 'abc' (row 1, column 2) is not a number."),  # a first row that is neither
        (b"1abc\n1\n2\n", "Cell '1abc' (row 1, column 1) is not a number."),
        (b"x,1\n1,2\n", "Cell 'x' (row 1, column 1) is not a number."),
        (b"x\n", "The file holds only column names (x) and no numbers."),
        (b"a,b\n", "The file holds only column names (a, b) and no numbers."),
        ("\u22123\nabc\n".encode(), "Cell 'abc' (row 2, column 1) is not a number."),
    ],
)
def test_read_csv_file_reports_a_first_row_that_is_neither(data: bytes, message: str) -> None:
    with pytest.raises(InputError, match=re.escape(message)):
        read_csv_file(data)


def test_npy_upload_has_no_notes() -> None:
    got = read_uploaded_file("v.npy", _npy(np.array([1.0, -2.0])))
    np.testing.assert_array_equal(got.x, [1.0, -2.0])
    assert got.notes == ()


def test_a_header_that_breaks_numpys_parser_is_refused_in_words() -> None:
    """Found by the fuzzer: a NUL inside the shape made NumPy's header parser raise TokenError."""
    header = b"{'descr': '<f8', 'fortran_order': False, 'shape': (1,\x00, }" + b" " * 60 + b"\n"
    data = b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header + b"\x00" * 8
    with pytest.raises(InputError, match=r"not a valid \.npy"):
        read_uploaded_vector("v.npy", data)


def test_a_huge_csv_is_refused_before_it_is_parsed() -> None:
    """Found by the fuzzer: 50,000 values on one line took 20 s to parse before being refused.

    The cells are counted before pandas splits them, so the message names the count.
    """
    cases = {
        ",".join(["1"] * 50_000): "about 50,000 values",
        " ".join(["1"] * 500_000): "about 500,000 values",
        "\n".join(["1,2,3"] * 5_000): "5,000 rows × 3 columns",
    }
    for text, says in cases.items():
        with pytest.raises(InputError, match=says):
            read_uploaded_vector("big.csv", text.encode())


# --- numbers float64 would silently change: refused, with the reason, from every source ----------------

CHANGED_BY_FLOAT64 = [
    ("1e-400", "too small for a float64"),  # underflows to 0
    ("-3E-999", "too small for a float64"),
    ("1e309", "beyond float64's range"),  # overflows to infinity
    ("9007199254740993", "more than 53 bits"),  # 2**53 + 1 becomes 2**53
    ("5e-324", "below float64's normal range"),  # subnormal: fewer digits, sums that do not add up
    ("-1e-310", "below float64's normal range"),
]


@pytest.mark.parametrize(("token", "reason"), CHANGED_BY_FLOAT64)
def test_a_number_float64_would_change_is_refused_from_every_source(token: str, reason: str) -> None:
    with pytest.raises(InputError, match=reason):
        parse_vector_text(f"1, {token}, 2")
    with pytest.raises(InputError, match=reason):
        vector_from_table(["1", token, "2"])
    with pytest.raises(InputError, match=reason):
        read_csv_vector(f"x\n1\n{token}\n2\n".encode())
    with pytest.raises(InputError, match=reason):  # a first row that is such a number is data, not a header
        read_csv_vector(f"{token}\n1\n2\n".encode())


@pytest.mark.parametrize(
    "text", ["9007199254740992, 1", "1e150, 2", "2.2250738585072014e-308, 1", "0e-999, 1", "1e16"]
)
def test_numbers_float64_holds_as_written_are_read(text: str) -> None:
    assert parse_vector_text(text)[0] == float(text.split(",")[0])


@pytest.mark.parametrize(
    ("arr", "ok"),
    [
        (np.array([2**53 + 1, 2**53, 2**53 + 3, 2**53], dtype=np.int64), False),  # σ² 1.5 would read as 3
        (np.array([2**64 - 1, 1], dtype=np.uint64), False),
        (np.array([-(2**63), 0], dtype=np.int64), True),  # a power of two: exact
        (np.array([2**53, -(2**53)], dtype=np.int64), True),
        (np.array([5e-324, 1.0]), False),
    ],
)
def test_npy_values_float64_would_change_are_refused(arr: np.ndarray, ok: bool) -> None:
    if ok:
        np.testing.assert_array_equal(read_npy_vector(_npy(arr)), arr.astype(np.float64))
    else:
        with pytest.raises(InputError, match=r"53 bits|normal range"):
            read_npy_vector(_npy(arr))


def test_make_near_constant_is_mean_plus_spread_times_the_standard_normal_preset() -> None:
    z = make_preset("standard normal", 8, seed=1)
    x = make_near_constant(8, 3.0, 1e-3, seed=1)
    assert np.array_equal(x, 3.0 + 1e-3 * z)  # the same bits the two pages computed by hand before
    assert np.array_equal(make_near_constant(5, 2.0, 0.0), np.full(5, 2.0))
    with pytest.raises(ValueError, match="d must be between 1 and 4096"):
        make_near_constant(0, 3.0, 1e-3)


@pytest.mark.parametrize(
    ("text", "d", "said"),
    [
        ("1,5", 2, "so 1,5 is 1 and 5. For a decimal, write a point: 1.5."),
        ("0,25 2,5 -3", 5, "so 0,25 is 0 and 25. For a decimal, write a point: 0.25."),
        ("-1,5", 2, "so 1,5 is 1 and 5."),
        # Three digits after the comma may be a thousands separator: both readings, never "1.000" alone
        ("1,000", 2, "so 1,000 is 1 and 000. Write 1000 for one number (no thousands separator) or 1.000"),
    ],
)
def test_typed_text_note_says_how_a_comma_between_digits_was_read(text: str, d: int, said: str) -> None:
    note = typed_text_note(text, d)
    assert note is not None and note.startswith(f"Read as {d} numbers: a comma always separates numbers")
    assert said in note
    assert parse_vector_text(text).size == d  # the note describes the parser's own reading


@pytest.mark.parametrize("text", ["1, 5", "1.5, 2", "[1 , 5]", "1e3,5", "1e-3,5", "2.5,3", "1 2 3"])
def test_typed_text_note_is_silent_when_nothing_is_ambiguous(text: str) -> None:
    assert typed_text_note(text, parse_vector_text(text).size) is None


@pytest.mark.parametrize(
    ("cell", "hint"),
    [
        ("1,5", "1.5"),
        (" -3,25 ", "-3.25"),
        ("\u22121,5", "-1.5"),  # the typographic minus
        ("+2,0", "2.0"),
        ("\uff11,\uff15", "1.5"),  # full-width digits, read as everywhere
    ],
)
def test_a_decimal_comma_in_a_cell_is_refused_with_how_to_write_it(cell: str, hint: str) -> None:
    # A cell holds one number, so "1,5" is neither 15 nor two numbers: refused, and the message says
    # how to write one and a half (a QA pass found the table's message had no such hint).
    how = f"For a decimal, write a point: {hint}."
    with pytest.raises(
        InputError,
        match=re.escape(f"which is not a number. Write one number per cell, e.g. 2.5, -3 or 1e-8. {how}"),
    ):
        vector_from_table(["1", cell])
    with pytest.raises(InputError, match=re.escape(f"(row 2, column 1) is not a number. {how}")):
        read_csv_vector(f'1\n"{cell}"\n'.encode())  # quoted: a comma inside a CSV cell


def test_a_thousands_comma_in_a_cell_gets_both_readings() -> None:
    # A QA pass typed 1,000 into the table and was told to write 1.000 (which is one).
    with pytest.raises(InputError) as info:
        vector_from_table(["1,000"])
    assert str(info.value).endswith(
        "Write 1000 for one number (no thousands separator) or 1.000 for a decimal."
    )


@pytest.mark.parametrize("cell", ["1,5,6", "a,b", "1.5,2", "1e3,5", "abc"])
def test_cells_that_are_no_decimal_comma_get_no_hint(cell: str) -> None:
    with pytest.raises(InputError) as info:
        vector_from_table(["1", cell])
    assert "write a point" not in str(info.value)


@pytest.mark.parametrize(
    ("data", "said"),
    [
        # Excel where a comma marks decimals writes semicolons between cells: they separate here
        (b"1,5;2,5;3,5", "Cell '1,5' (row 1, column 1) is not a number. For a decimal, write a point: 1.5."),
        (b"1;2,5;3\n", "Cell '2,5' (row 1, column 2) is not a number. For a decimal, write a point: 2.5."),
        # comma-separated files that fail because of a decimal comma say what the comma did
        (
            b"1,5\n2\n3\n",
            "is empty: every cell must hold a number. A comma separates the cells of this "
            "file, so 1,5 is two cells. For a decimal, write a point: 1.5.",
        ),
        (b"x\n1,5\n2,25\n3\n", "saw 2. A comma separates the cells of this file, so 1,5 is two cells."),
        (b"1,5\n2,5\n3,5\n", "one row or one column of numbers (one token's features). A comma separates"),
        (b"1,000\n2\n", "so 1,000 is two cells. Write 1000 for one number (no thousands separator) or 1.000"),
    ],
)
def test_a_decimal_comma_in_a_csv_is_said(data: bytes, said: str) -> None:
    # A QA pass uploaded "1,5;2,5;3,5" (Excel in a comma-decimal locale) and was told
    # "Cell '5;2' is not a number"; ragged comma files gave no hint at all.
    with pytest.raises(InputError) as info:
        read_csv_file(data)
    assert said in str(info.value)


def test_a_plain_comma_separated_file_gets_no_comma_advice() -> None:
    np.testing.assert_array_equal(read_csv_file(b"1,2,3\n").x, [1.0, 2.0, 3.0])
    with pytest.raises(InputError) as info:
        read_csv_file(b"1,2,abc\n")
    assert "A comma separates" not in str(info.value)  # the comma did not cause this one
