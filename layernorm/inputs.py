"""Turning what a person types, edits or uploads into a vector, with messages they understand.

Every reader returns a 1-D float64 array or raises :class:`InputError` (a
``ValueError``) whose message says what was wrong, where, and what to do.
"""

from __future__ import annotations

import csv
import io
import math
import re
from collections.abc import Iterable

import numpy as np
import pandas as pd

from layernorm._checks import F64

MAX_VALUES = 4096
MAX_ABS = 1e150  # squares of larger numbers leave float64's range
_SEPARATORS = re.compile(r"[,;\s]+")
_BRACKETS = str.maketrans({c: " " for c in "[](){}"})
_MINUS_SIGNS = str.maketrans({"\u2212": "-", "\u2013": "-", "\u2014": "-"})


class InputError(ValueError):
    """The user's vector cannot be used; the message is written for them.

    A :class:`ValueError`, so callers that catch ``ValueError`` catch it too.

    Source: this project (teaching simulation).
    """


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
    big = np.flatnonzero(np.abs(arr) > MAX_ABS)
    if big.size:
        raise InputError(
            f"Value {big[0] + 1} of the {source} is {arr[big[0]]:.3g}: keep |x| below "
            f"{MAX_ABS:.0e} so its square still fits in a float64."
        )
    return arr


def parse_vector_text(text: str) -> F64:
    """Read numbers separated by commas, semicolons, spaces or newlines.

    Brackets are ignored (``[1, 2, 3]`` and ``(1 2 3)`` work), scientific
    notation is accepted (``1e-3``, ``2.5E+4``) and a typographic minus sign
    (−) counts as ``-``.

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
        Empty text; a token that is not a number (named, with its position and
        line); NaN or infinity; more than 4096 values; |x| above 1e150.

    Notes
    -----
    Source: this project.
    """
    values: list[float] = []
    for line_no, line in enumerate(text.translate(_MINUS_SIGNS).splitlines(), start=1):
        for token in _SEPARATORS.split(line.translate(_BRACKETS)):
            if not token:
                continue
            try:
                value = float(token)
            except ValueError:
                raise InputError(
                    f"'{token}' (item {len(values) + 1}, line {line_no}) is not a number. "
                    "Separate numbers with commas or spaces, e.g. 1, 2.5, -3e-2."
                ) from None
            if not math.isfinite(value):
                raise InputError(
                    f"'{token}' (item {len(values) + 1}, line {line_no}) is not a finite number: "
                    "NaN and infinity have no mean or variance."
                )
            values.append(value)
    return _finish(values, "typed vector")


def vector_from_table(column: Iterable[object]) -> F64:
    """Read the value column of an edited table (one row per feature).

    Parameters
    ----------
    column : iterable of numbers, None or NaN
        One cell per feature, in order.

    Returns
    -------
    x : (d,) ndarray of float64

    Raises
    ------
    InputError
        An empty or non-numeric cell (its row is named), no rows, too many rows,
        infinity or |x| above 1e150.

    Notes
    -----
    Source: this project.
    """
    values: list[float] = []
    for row, cell in enumerate(column, start=1):
        try:
            value = float(cell)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            raise InputError(f"Row {row} of the table is '{cell}', which is not a number.") from None
        if math.isnan(value):
            raise InputError(
                f"Row {row} of the table is empty or not a number: fill it in or delete the row."
            )
        values.append(value)
    return _finish(values, "table")


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


def read_csv_vector(data: bytes) -> F64:
    """Read a vector from CSV (or plain text) bytes: one row or one column.

    A first line of column names is skipped when the rest is numeric.

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
        Not UTF-8 text, empty, a table with several rows *and* columns, a
        non-numeric cell (named), NaN/inf, too many values.

    Notes
    -----
    Parsing is pandas' ``read_csv``. Source: this project.
    """
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InputError("The file is not UTF-8 text. Upload a .csv of numbers or a .npy array.") from None
    if not text.strip():
        raise InputError("The uploaded file is empty.")
    # Pick the separator ourselves: pandas' sniffer mistakes digits for separators in one-column files.
    sep = next((c for c in (",", ";", "\t") if c in text), r"\s+")
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
    numeric = cells.apply(pd.to_numeric, errors="coerce")
    first_is_header = numeric.iloc[0].isna().all() and (cells.iloc[0] != "").any()
    if len(cells) > 1 and first_is_header:
        cells, numeric = cells.iloc[1:], numeric.iloc[1:]  # a line of column names
    for (r, c), cell in np.ndenumerate(cells.to_numpy()):
        where = f"row {cells.index[r] + 1}, column {c + 1}"
        if cell == "":
            raise InputError(f"The cell at {where} is empty: every cell must hold a number.")
        if np.isnan(numeric.iat[r, c]) and cell.lower() != "nan":
            raise InputError(f"Cell '{cell}' ({where}) is not a number.")
    arr = numeric.to_numpy(dtype=np.float64)
    return _finish(_as_vector(arr, arr.shape, "file"), "file")


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
        array, NaN/inf, too many values.

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
    except (ValueError, SyntaxError, OSError, EOFError):
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
    return _finish(_as_vector(arr.astype(np.float64), arr.shape, "file"), "file")


def read_uploaded_vector(name: str, data: bytes) -> F64:
    """Dispatch an upload on its extension: ``.npy`` to NumPy, anything else to CSV.

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
        See :func:`read_npy_vector` and :func:`read_csv_vector`.

    Notes
    -----
    Source: this project.
    """
    if name.lower().endswith(".npy"):
        return read_npy_vector(data)
    if name.lower().endswith(".npz"):
        raise InputError("Upload a single .npy array or a .csv file, not an .npz archive.")
    return read_csv_vector(data)
