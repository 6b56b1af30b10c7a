"""Reading a vector from an uploaded file (a CSV of one row or one column, or a .npy array), with
messages a person understands; every CSV cell goes through :func:`layernorm.data.numbers.parse_number`.
"""

from __future__ import annotations

import csv
import io
import math
import tokenize
from dataclasses import dataclass

import numpy as np

from layernorm._checks import F64
from layernorm.data.inputs import COLUMN_NAME, MAX_VALUES, TIGHT_COMMA, finish_vector
from layernorm.data.numbers import (
    InputError,
    NumberRangeError,
    comma_advice,
    decimal_comma_hint,
    parse_number,
    quoted,
)


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
    if names and all(COLUMN_NAME.fullmatch(n) and not _reads_as_number(n) for n in names):
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
        tight = TIGHT_COMMA.search(text) if sep == "," else None
        if tight is None or str(exc).startswith("Cell '") or "write a point" in str(exc):
            raise  # a cell that is no number, or already advised: the comma did not cause it
        a, b = tight.group(1), tight.group(2)  # a decimal comma in a comma-separated file: say it
        said = str(exc) if str(exc).endswith(".") else f"{exc}."
        raise InputError(
            f"{said} A comma separates the cells of this file, so {a},{b} is two cells. " + comma_advice(a, b)
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
        shown = quoted(", ".join(names))
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
            raise InputError(f"Cell '{quoted(cell)}' ({where}) {exc.reason}") from None
        except InputError:
            raise InputError(
                f"Cell '{quoted(cell)}' ({where}) is not a number." + decimal_comma_hint(cell)
            ) from None
    return VectorFromFile(finish_vector(_as_vector(values, values.shape, "file"), "file"), tuple(notes))


def read_csv_vector(data: bytes) -> F64:
    """The vector ``x`` of :func:`read_csv_file`, without its notes (same argument, errors and source).

    Prefer :func:`read_csv_file` where a person sees the result: it says when a first row was skipped.
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
    return finish_vector(_as_vector(arr.astype(np.float64), arr.shape, "file"), "file")


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
    """The vector ``x`` of :func:`read_uploaded_file`, without its notes (same arguments, errors and
    source)."""
    return read_uploaded_file(name, data).x
