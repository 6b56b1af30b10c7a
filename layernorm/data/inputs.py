"""Turning what a person types, edits or uploads into a vector, with messages they understand.

Every reader returns a 1-D float64 array or raises :class:`InputError` (a
``ValueError``) whose message says what was wrong, where, and what to do. Every
number, whether typed, written in a table cell or read from a CSV cell, goes
through the one parser :func:`parse_number`, so a spelling means the same
number everywhere.
"""

from __future__ import annotations

import csv
import io
import math
import re
import tokenize
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

import numpy as np

from layernorm._checks import F64

MAX_VALUES = 4096
MAX_ABS = 1e150  # squares of larger numbers leave float64's range
MIN_ABS = float(np.finfo(np.float64).tiny)  # 2.2e-308: below it (subnormal) float64 keeps fewer digits
_SEPARATORS = re.compile(r"[,;\s\uff0c\uff1b]+")  # full-width comma and semicolon too
_BRACKETS = str.maketrans({c: " " for c in "[](){}\uff3b\uff3d\uff08\uff09\uff5b\uff5d"})
# What people write in numbers that float() does not read: the typographic minus (−), en and em
# dashes, and the full-width forms of ASCII that East Asian input methods produce (１２, －３, ．５, ｅ).
# Not unicodedata.normalize("NFKC"): it also turns superscripts into digits, so "10²" would be read
# as 102, a silently different number. float() itself reads every script's decimal digits (١٢ = 12).
_NUMBER_SPELLINGS = str.maketrans(
    {"\u2212": "-", "\u2013": "-", "\u2014": "-", "\u3000": " "}
    | {chr(c): chr(c - 0xFEE0) for c in range(0xFF01, 0xFF5F)}
)
_INTEGER = re.compile(r"[+-]?\d[\d_]*")  # written as an integer: digits only (any script's)
_SHOWN_CHARS = 40  # a cell or token quoted in a message is cut to this many characters
_NAME = re.compile(r"[^\W\d][\w .()/-]*")  # a column name: starts with a letter or "_"


class InputError(ValueError):
    """The user's vector cannot be used; the message is written for them.

    A :class:`ValueError`, so callers that catch ``ValueError`` catch it too.

    Source: this project (teaching simulation).
    """


class NumberRangeError(InputError):
    """Text that spells a number float64 would silently change (out of range, or an inexact integer).

    ``reason`` completes a sentence whose subject is the text: "is too small for a float64, …".

    Source: this project.
    """

    def __init__(self, shown: str, reason: str) -> None:
        super().__init__(f"'{shown}' {reason}")
        self.reason = reason


def _finish(values: list[float] | F64, source: str) -> F64:
    """Check size and range of a parsed vector and return it as float64."""
    arr = np.asarray(values, dtype=np.float64).ravel()
    if arr.size == 0:
        raise InputError(f"The {source} is empty: enter at least one number.")
    if arr.size > MAX_VALUES:
        raise InputError(
            f"The {source} has {arr.size} values; the lab handles at most {MAX_VALUES} "
            "(BERT-base has 768, LLaMA-7B 4096)."
        )
    bad = np.flatnonzero(~np.isfinite(arr))
    if bad.size:
        raise InputError(
            f"Value {bad[0] + 1} of the {source} is {arr[bad[0]]}: NaN and infinity "
            "have no mean or variance. Use finite numbers."
        )
    small = np.flatnonzero((arr != 0) & (np.abs(arr) < MIN_ABS))
    if small.size:
        raise InputError(
            f"Value {small[0] + 1} of the {source} is {arr[small[0]]:.3g}: below float64's normal range "
            f"(about {MIN_ABS:.1e}), where numbers keep fewer digits and the sums shown would not add "
            "up. Use 0 or a size of at least 1e-300."
        )
    big = np.flatnonzero(np.abs(arr) > MAX_ABS)
    if big.size:
        raise InputError(
            f"Value {big[0] + 1} of the {source} is {arr[big[0]]:.3g}: keep |x| below "
            f"{MAX_ABS:.0e} so its square still fits in a float64."
        )
    return arr


def _shown(text: str) -> str:
    """A user's text for a message, shortened: messages must stay readable whatever was typed."""
    return text if len(text) <= _SHOWN_CHARS else text[: _SHOWN_CHARS - 1] + "…"


def _is_blank(cell: object) -> bool:
    """An empty table or CSV cell: None, a missing value (NaN placeholder) or only spaces."""
    if cell is None:
        return True
    if isinstance(cell, str):
        return not cell.strip()
    return isinstance(cell, float | np.floating) and math.isnan(cell)


def parse_number(cell: object) -> float:
    """Read one number the way the lab reads every number a person writes.

    The single parser behind typed text (:func:`parse_vector_text`, per token),
    table cells (:func:`vector_from_table`) and CSV cells (:func:`read_csv_vector`).
    Text is read with Python's ``float`` syntax (``2``, ``-0.5``, ``.01``,
    ``1e-8``, ``2.5E+4``, ``+3``, ``1_000``) after surrounding spaces are
    dropped and these spellings are mapped to ASCII: the typographic minus
    (−, U+2212), en and em dashes as a minus, and full-width forms (``１２``,
    ``－３``, ``１．５``). Every script's decimal digits are read (``float`` does).

    Parameters
    ----------
    cell : str or real number
        One cell or token. An ``int``, ``float`` or NumPy real scalar is
        returned as a float unchanged (``bool`` is refused).

    Returns
    -------
    value : float
        Can be NaN or ±infinity when the text spells them (``nan``, ``inf``):
        callers report those with where they are (:class:`InputError` only
        covers text that is not a number at all).

    Raises
    ------
    InputError
        Empty or blank text, or text that is not one number (``1,5``, ``abc``,
        ``10²``); the message quotes the text, shortened to 40 characters.
    NumberRangeError
        (an :class:`InputError`) A number float64 would silently change: a literal that
        underflows to 0 (``1e-400``) or overflows to infinity (``1e309``), or an integer
        literal of more than 53 bits (``9007199254740993``); ``reason`` says which.

    Notes
    -----
    Source: this project. Not NFKC normalization, which would read ``10²`` as 102.
    """
    if isinstance(cell, bool) or not isinstance(cell, str | int | float | np.integer | np.floating):
        raise InputError(f"'{_shown(str(cell))}' is not a number.")
    if not isinstance(cell, str):
        return float(cell)
    text = cell.translate(_NUMBER_SPELLINGS).strip()
    if not text:
        raise InputError("The cell is empty.")
    try:
        value = float(text)
    except ValueError:
        raise InputError(f"'{_shown(cell.strip())}' is not a number.") from None
    _check_representable(text, value, cell.strip())
    return value


def _check_representable(text: str, value: float, shown: str) -> None:
    """Refuse text whose number float64 would silently change: out of range, or an inexact integer.

    ``1e309`` would become infinity and ``1e-400`` zero; an integer above 2**53 such as
    ``9007199254740993`` would become a neighbouring integer. Ordinary decimals (``0.1``) are rounded
    to the nearest float64, as everywhere, and pass.
    """
    try:
        exact = Decimal(text)
    except InvalidOperation:  # "inf", "nan" and the like: reported where they are used
        return
    if not exact.is_finite():
        return
    if math.isinf(value):
        raise NumberRangeError(
            _shown(shown), "is beyond float64's range (its largest number is about 1.8e308)."
        )
    if value == 0.0 and exact != 0:
        raise NumberRangeError(
            _shown(shown),
            f"is too small for a float64, which would read it as 0 (float64 holds sizes down to about "
            f"{MIN_ABS:.1e}).",
        )
    if _INTEGER.fullmatch(text) and Decimal(value) != exact:
        raise NumberRangeError(
            _shown(shown),
            f"is an integer of more than 53 bits that float64 cannot hold exactly: it would become "
            f"{_shown(str(int(value)))}. Subtract a common offset first (LayerNorm ignores it).",
        )


def number_text(value: float) -> str:
    """The shortest text that :func:`parse_number` reads back as exactly ``value``.

    Parameters
    ----------
    value : float

    Returns
    -------
    text : str
        ``repr`` of the float without a trailing ``.0``: ``1.0 -> "1"``,
        ``1e-08 -> "1e-08"``, ``0.1 -> "0.1"``.

    Notes
    -----
    Used to put numbers into text table cells. Source: this project.
    """
    text = repr(float(value))
    return text[:-2] if text.endswith(".0") else text


def parse_vector_text(text: str) -> F64:
    """Read numbers separated by commas, semicolons, spaces or newlines.

    Brackets are ignored (``[1, 2, 3]`` and ``(1 2 3)`` work); every token is
    read by :func:`parse_number`, so scientific notation (``1e-3``, ``2.5E+4``),
    a leading dot (``.5``), the typographic minus (−) and full-width digits
    (``１２``) work.

    Parameters
    ----------
    text : str
        What the user typed or pasted.

    Returns
    -------
    x : (d,) ndarray of float64, 1 <= d <= 4096

    Raises
    ------
    InputError
        Empty text; a token that is not a number or that float64 would change (named,
        with its position and line); NaN or infinity; more than 4096 values; |x| above
        1e150; a subnormal value (nonzero, |x| below 2.2e-308).

    Notes
    -----
    Source: this project.
    """
    values: list[float] = []
    for line_no, line in enumerate(text.splitlines(), start=1):
        for token in _SEPARATORS.split(line.translate(_BRACKETS)):
            if not token:
                continue
            try:
                value = parse_number(token)
            except NumberRangeError as exc:
                raise InputError(
                    f"'{_shown(token)}' (item {len(values) + 1}, line {line_no}) {exc.reason}"
                ) from None
            except InputError:
                raise InputError(
                    f"'{_shown(token)}' (item {len(values) + 1}, line {line_no}) is not a number. "
                    "Separate numbers with commas or spaces, e.g. 1, 2.5, -3e-2."
                ) from None
            if not math.isfinite(value):
                raise InputError(
                    f"'{_shown(token)}' (item {len(values) + 1}, line {line_no}) is not a finite number: "
                    "NaN and infinity have no mean or variance."
                )
            values.append(value)
    return _finish(values, "typed vector")


# digits,digits with no space, not inside another number (2.5,3 and 1e-3,5 are plainly two numbers)
_TIGHT_COMMA = re.compile(r"(?<![\d.eE])(?<![eE][+-])(\d{1,12}),(\d{1,12})(?![\d.eE])")


_DECIMAL_COMMA = re.compile(r"\s*([+-]?)(\d{1,12}),(\d{1,12})\s*")  # after _NUMBER_SPELLINGS (− is -)


def _decimal_comma_hint(cell: str) -> str:
    """`` For a decimal, write a point: 1.5.`` when a cell is a decimal written with a comma, else ``""``."""
    found = _DECIMAL_COMMA.fullmatch(cell.translate(_NUMBER_SPELLINGS))
    if found is None:
        return ""
    sign, a, b = found.groups()
    return " " + _comma_advice(sign.replace("+", "") + a, b)


def _comma_advice(a: str, b: str) -> str:
    """How to write ``a,b`` as one number: a point for a decimal; with three digits after the comma it
    may be a thousands separator (``1,000``), so both readings are offered."""
    if len(b) == 3:
        return f"Write {a}{b} for one number (no thousands separator) or {a}.{b} for a decimal."
    return f"For a decimal, write a point: {a}.{b}."


def typed_text_note(text: str, d: int) -> str | None:
    """The note a reader of :func:`parse_vector_text` needs about how ``text`` was read, or None.

    A comma always separates numbers, so ``1,5`` is two numbers, 1 and 5; in much of the world it
    is one and a half. When a comma sits between digits with no space (and neither side belongs to
    another number, as in ``2.5,3`` or ``1e-3,5``), the note says how the first such place was read
    and how to write a decimal (with three digits after the comma, as in ``1,000``, also how to
    write the one number a thousands separator meant).

    Parameters
    ----------
    text : str
        The text :func:`parse_vector_text` read.
    d : int
        How many numbers it read.

    Returns
    -------
    str or None
        One sentence quoting the digits from ``text``, or None when there is nothing to say.

    Raises
    ------
    Nothing: ``text`` is searched, not parsed again (call it after :func:`parse_vector_text`).

    Notes
    -----
    Source: this project.
    """
    tight = _TIGHT_COMMA.search(text)
    if tight is None:
        return None
    a, b = tight.group(1), tight.group(2)
    return (
        f"Read as {d} numbers: a comma always separates numbers here, so {a},{b} is {a} and {b}. "
        + _comma_advice(a, b)
    )


def vector_from_table(column: Iterable[object], name: str = "table") -> F64:
    """Read one column of an edited table (one row per feature).

    Every cell is read by :func:`parse_number`, so a text cell means what the
    same text typed into the text box means (``1e-8``, ``−3``, ``.01``, ``１２``).

    Parameters
    ----------
    column : iterable of str, numbers, None or NaN
        One cell per feature, in order: the text the user wrote, or a number.
        None, NaN and blank text are empty cells.
    name : str
        What the column is called in messages ("table", "γ column").

    Returns
    -------
    x : (d,) ndarray of float64

    Raises
    ------
    InputError
        An empty cell, a cell that is not a number or that float64 would change, NaN or
        infinity (its row is named and its text quoted), no rows, too many rows, |x| above
        1e150, a subnormal value.

    Notes
    -----
    Source: this project.
    """
    values: list[float] = []
    for row, cell in enumerate(column, start=1):
        if _is_blank(cell):
            raise InputError(f"Row {row} of the {name} is empty: type a number into it.")
        try:
            value = parse_number(cell)
        except NumberRangeError as exc:
            raise InputError(
                f"Row {row} of the {name}, '{_shown(str(cell).strip())}', {exc.reason}"
            ) from None
        except InputError:
            raise InputError(
                f"Row {row} of the {name} is '{_shown(str(cell).strip())}', which is not a number. "
                "Write one number per cell, e.g. 2.5, -3 or 1e-8." + _decimal_comma_hint(str(cell))
            ) from None
        if not math.isfinite(value):
            raise InputError(
                f"Row {row} of the {name} is '{_shown(str(cell).strip())}', which is not a finite number: "
                "NaN and infinity have no mean or variance."
            )
        values.append(value)
    return _finish(values, name)


def table_text(column: Iterable[object]) -> list[str | None]:
    """The cells of a table column as text, for a text-cell editor; numbers become :func:`number_text`.

    Parameters
    ----------
    column : iterable of str, numbers, None or NaN

    Returns
    -------
    cells : list of str or None
        Text is kept exactly as written, a number becomes its shortest exact
        text, an empty cell (None or NaN) becomes None.

    Raises
    ------
    InputError
        A cell that is neither text, a number nor empty.

    Notes
    -----
    Source: this project.
    """
    cells: list[str | None] = []
    for cell in column:
        if isinstance(cell, str):
            cells.append(cell)
        elif _is_blank(cell):
            cells.append(None)
        else:
            cells.append(number_text(parse_number(cell)))
    return cells


def _as_vector(arr: F64, shape: tuple[int, ...], source: str) -> F64:
    """Accept 1-D data, or 2-D data with a single row or a single column."""
    if arr.ndim == 2 and 1 in arr.shape:
        return arr.ravel()
    if arr.ndim == 0:
        raise InputError(f"The {source} holds a single number, but the lab needs a vector of numbers.")
    if arr.ndim != 1:
        dims = " × ".join(str(s) for s in shape)
        raise InputError(
            f"The {source} holds a {dims} array, but the lab needs one vector: "
            "one row or one column of numbers (one token's features)."
        )
    return arr


@dataclass(frozen=True)
class VectorFromFile:
    """A vector read from an uploaded file, with what the reader did that the user should be told.

    Attributes
    ----------
    x : (d,) ndarray of float64
        The vector.
    notes : tuple of str
        Plain sentences such as "The first row (x) was read as a column name and
        skipped."; they quote the file's text, so show them as plain text.

    Notes
    -----
    Source: this project.
    """

    x: F64
    notes: tuple[str, ...] = ()


def _reads_as_number(cell: str) -> bool:
    try:
        parse_number(cell)
    except NumberRangeError:  # a number, just not one float64 holds: data, refused with its reason
        return True
    except InputError:
        return False
    return True


def _header_names(first_row: list[str]) -> list[str] | None:
    """The column names when a first CSV row is clearly a header, else None.

    Clearly a header: no cell is a number and every filled cell is a name
    (``x``, ``value``, ``feature_1``: it starts with a letter or ``_``).
    """
    names = [cell for cell in first_row if cell]
    if names and all(_NAME.fullmatch(n) and not _reads_as_number(n) for n in names):
        return names
    return None


def read_csv_file(data: bytes) -> VectorFromFile:
    """Read a vector from CSV (or plain text) bytes: one row or one column, with notes.

    Every cell is read by :func:`parse_number`, like typed text and table cells
    (``−3``, ``.5``, `` 1e-8 ``, ``１２``). The first row is data when its cells
    are numbers; it is skipped as column names, and a note says so, only when
    every filled cell in it is a name (``x``, ``value``, ``feature_1``). Any
    other first row is read as data, so a cell in it that is not a number is
    reported.

    Parameters
    ----------
    data : bytes
        File contents, UTF-8 (a byte-order mark is fine).

    Returns
    -------
    VectorFromFile
        ``x`` of shape (d,), float64, and ``notes`` (a skipped header row).

    Raises
    ------
    InputError
        Not UTF-8 text, empty, only a header row, a table with several rows
        *and* columns, an empty or non-numeric cell or one float64 would change (named by
        row and column), NaN/inf, too many values, |x| above 1e150, a subnormal value.

    Notes
    -----
    pandas' ``read_csv`` splits the file into cells (as text); the lab reads the
    numbers. The separator is a semicolon if the file has one (spreadsheets where a
    comma marks decimals write ``1,5;2,5``), else a comma, a tab, or white space. A
    decimal comma is never read as a decimal: such a cell, or a comma-separated file
    that a decimal comma broke apart, gets a message saying how to write it.
    Source: this project.
    """
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InputError("The file is not UTF-8 text. Upload a .csv of numbers or a .npy array.") from None
    if not text.strip():
        raise InputError("The uploaded file is empty.")
    # Pick the separator ourselves: pandas' sniffer mistakes digits for separators in one-column files.
    # A semicolon first: a file that has them separates with them (Excel where a comma marks decimals),
    # so "1,5;2,5" gives cells "1,5" and "2,5", refused with how to write them, never split at the comma.
    sep = next((c for c in (";", ",", "\t") if c in text), r"\s+")
    try:
        return _read_csv_cells(text, sep)
    except InputError as exc:
        tight = _TIGHT_COMMA.search(text) if sep == "," else None
        if tight is None or str(exc).startswith("Cell '") or "write a point" in str(exc):
            raise  # a cell that is no number, or already advised: the comma did not cause it
        a, b = tight.group(1), tight.group(2)  # a decimal comma in a comma-separated file: say it
        said = str(exc) if str(exc).endswith(".") else f"{exc}."
        raise InputError(
            f"{said} A comma separates the cells of this file, so {a},{b} is two cells. "
            + _comma_advice(a, b)
        ) from None


def _read_csv_cells(text: str, sep: str) -> VectorFromFile:
    """:func:`read_csv_file` once the text is decoded and its separator ``sep`` chosen."""
    # Count the cells before pandas splits them: a file of 50,000 values is refused in milliseconds
    # (one spare row or column for the names a first line may hold).
    lines = [line for line in text.splitlines() if line.strip()]
    widest = max(len(line.split()) if sep == r"\s+" else line.count(sep) + 1 for line in lines)
    if min(len(lines), widest) > 1 and (len(lines) - 1) * (widest - 1) > MAX_VALUES:
        raise InputError(
            f"The file holds a table of {len(lines):,} rows × {widest:,} columns; the lab needs one vector: "
            "one row or one column of numbers (one token's features)."
        )
    if max(len(lines), widest) > MAX_VALUES + 1:
        raise InputError(
            f"The file has about {max(len(lines), widest):,} values; the lab handles at most {MAX_VALUES} "
            "(BERT-base has 768, LLaMA-7B 4096)."
        )
    import pandas as pd  # here, not at import time: only an uploaded CSV needs it (~0.5 s to import)

    try:
        frame = pd.read_csv(
            io.StringIO(text),
            header=None,
            sep=sep,
            engine="python",
            dtype=str,
            skip_blank_lines=True,
            keep_default_na=False,
            na_filter=False,
        )
    except (pd.errors.ParserError, ValueError, csv.Error) as exc:
        raise InputError(f"The file could not be read as CSV: {exc}") from None
    cells = frame.fillna("").map(lambda c: str(c).strip())  # "" marks an empty cell
    while cells.shape[1] > 1 and (cells.iloc[:, -1] == "").all():
        cells = cells.iloc[:, :-1]  # a trailing separator at the end of every line
    notes: list[str] = []
    names = _header_names(cells.iloc[0].tolist())
    if names is not None:
        shown = _shown(", ".join(names))
        if len(cells) == 1:
            raise InputError(f"The file holds only column names ({shown}) and no numbers.")
        cells = cells.iloc[1:]
        what = "a column name" if len(names) == 1 else "column names"
        notes.append(f"The first row ({shown}) was read as {what} and skipped.")
    values = np.empty(cells.shape, dtype=np.float64)
    for (r, c), cell in np.ndenumerate(cells.to_numpy()):
        where = f"row {cells.index[r] + 1}, column {c + 1}"
        if cell == "":
            raise InputError(f"The cell at {where} is empty: every cell must hold a number.")
        try:
            values[r, c] = parse_number(cell)
        except NumberRangeError as exc:
            raise InputError(f"Cell '{_shown(cell)}' ({where}) {exc.reason}") from None
        except InputError:
            raise InputError(
                f"Cell '{_shown(cell)}' ({where}) is not a number." + _decimal_comma_hint(cell)
            ) from None
    return VectorFromFile(_finish(_as_vector(values, values.shape, "file"), "file"), tuple(notes))


def read_csv_vector(data: bytes) -> F64:
    """Read a vector from CSV (or plain text) bytes: :func:`read_csv_file` without its notes.

    Parameters
    ----------
    data : bytes
        File contents, UTF-8.

    Returns
    -------
    x : (d,) ndarray of float64

    Raises
    ------
    InputError
        See :func:`read_csv_file`.

    Notes
    -----
    Prefer :func:`read_csv_file` where a person sees the result: it says when
    a first row was skipped. Source: this project.
    """
    return read_csv_file(data).x


def read_npy_vector(data: bytes) -> F64:
    """Read a vector from ``.npy`` bytes without ever unpickling.

    Parameters
    ----------
    data : bytes
        A NumPy ``.npy`` file.

    Returns
    -------
    x : (d,) ndarray of float64

    Raises
    ------
    InputError
        Not a ``.npy`` file, an object/pickled array (refused:
        ``allow_pickle=False``), non-numeric dtype, a true 2-D (or higher)
        array, NaN/inf, too many values, |x| above 1e150, a subnormal value, or
        an int64/uint64 value of more than 53 bits (float64 would round it).

    Notes
    -----
    Source: NumPy ``np.load(..., allow_pickle=False)``.
    """
    if data.startswith(b"PK\x03\x04"):
        raise InputError("Upload a single .npy array, not an .npz archive.")
    if not data.startswith(b"\x93NUMPY"):
        raise InputError("The file is not a valid .npy array (it lacks NumPy's header).")
    try:  # read the header first: a crafted shape must not make np.load allocate gigabytes
        stream = io.BytesIO(data)
        version = np.lib.format.read_magic(stream)
        read_header = (
            np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
        )
        shape = read_header(stream)[0]
    except (ValueError, SyntaxError, OSError, EOFError, tokenize.TokenError):  # a crafted header
        raise InputError("The file is not a valid .npy array (its header cannot be read).") from None
    if math.prod(shape) > MAX_VALUES:
        raise InputError(
            f"The .npy array has {math.prod(shape)} values (shape {shape}); "
            f"the lab handles one vector of at most {MAX_VALUES} values."
        )
    try:
        arr = np.load(io.BytesIO(data), allow_pickle=False)
    except ValueError as exc:
        if "pickle" in str(exc).lower():
            raise InputError(
                "This .npy holds Python objects; the lab never unpickles uploads. "
                "Save a numeric array instead (np.save('x.npy', np.asarray(x, dtype=float)))."
            ) from None
        raise InputError("The file is not a valid .npy array.") from None
    except (OSError, EOFError):
        raise InputError("The file is not a valid .npy array.") from None
    if not isinstance(arr, np.ndarray):
        raise InputError("Upload a single .npy array, not an .npz archive.")
    if arr.dtype.kind not in "biuf":
        raise InputError(f"The array has dtype {arr.dtype}; the lab needs numbers (int or float).")
    if arr.dtype.kind in "iu" and arr.dtype.itemsize == 8:  # int64/uint64 beyond 2**53 would be rounded
        flat = arr.ravel()
        outside = flat > 2**53 if arr.dtype.kind == "u" else (flat > 2**53) | (flat < -(2**53))
        inexact = [i for i in np.flatnonzero(outside) if int(float(int(flat[i]))) != int(flat[i])]
        if inexact:
            v = int(flat[inexact[0]])
            raise InputError(
                f"Value {inexact[0] + 1} of the file is {v}, an integer of more than 53 bits that float64 "
                f"cannot hold exactly (it would become {int(float(v))}). Subtract a common offset before "
                "saving (LayerNorm ignores it), or save floats."
            )
    return _finish(_as_vector(arr.astype(np.float64), arr.shape, "file"), "file")


def read_uploaded_file(name: str, data: bytes) -> VectorFromFile:
    """Dispatch an upload on its extension: ``.npy`` to NumPy, anything else to CSV.

    Parameters
    ----------
    name : str
        The file name (only its extension is used).
    data : bytes
        The file contents.

    Returns
    -------
    VectorFromFile
        The vector and the notes for the user (a ``.npy`` has none).

    Raises
    ------
    InputError
        See :func:`read_npy_vector` and :func:`read_csv_file`.

    Notes
    -----
    Source: this project.
    """
    if name.lower().endswith(".npy"):
        return VectorFromFile(read_npy_vector(data))
    if name.lower().endswith(".npz"):
        raise InputError("Upload a single .npy array or a .csv file, not an .npz archive.")
    return read_csv_file(data)


def read_uploaded_vector(name: str, data: bytes) -> F64:
    """:func:`read_uploaded_file` without its notes.

    Parameters
    ----------
    name : str
        The file name (only its extension is used).
    data : bytes
        The file contents.

    Returns
    -------
    x : (d,) ndarray of float64

    Raises
    ------
    InputError
        See :func:`read_npy_vector` and :func:`read_csv_file`.

    Notes
    -----
    Source: this project.
    """
    return read_uploaded_file(name, data).x
