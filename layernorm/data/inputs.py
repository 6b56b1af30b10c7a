"""Turning what a person types, edits or uploads into a vector, with messages they understand.

Every reader returns a 1-D float64 array or raises :class:`InputError` (a
``ValueError``) whose message says what was wrong, where, and what to do. Every
number, whether typed, written in a table cell or read from a CSV cell, goes
through the one parser :func:`layernorm.data.numbers.parse_number`, so a
spelling means the same number everywhere.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable

import numpy as np

from layernorm._checks import F64
from layernorm.data.numbers import (
    MIN_ABS,
    InputError,
    NumberRangeError,
    comma_advice,
    decimal_comma_hint,
    number_text,
    parse_number,
    quoted,
)

MAX_VALUES = 4096
MAX_ABS = 1e150  # squares of larger numbers leave float64's range
_SEPARATORS = re.compile(r"[,;\s\uff0c\uff1b]+")  # full-width comma and semicolon too
_BRACKETS = str.maketrans({c: " " for c in "[](){}\uff3b\uff3d\uff08\uff09\uff5b\uff5d"})
COLUMN_NAME = re.compile(r"[^\W\d][\w .()/-]*")  # a column name: starts with a letter or "_"


def finish_vector(values: list[float] | F64, source: str) -> F64:
    """A parsed vector as a 1-D float64 array, or InputError naming ``source`` (e.g. "typed numbers")
    when it is empty, longer than :data:`MAX_VALUES`, or holds NaN or infinity, a nonzero value
    smaller than :data:`MIN_ABS` in size, or one larger than :data:`MAX_ABS`."""
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


def _is_blank(cell: object) -> bool:
    """An empty table or CSV cell: None, a missing value (NaN placeholder) or only spaces."""
    if cell is None:
        return True
    if isinstance(cell, str):
        return not cell.strip()
    return isinstance(cell, float | np.floating) and math.isnan(cell)


_TYPED_ADVICE = "Separate numbers with commas or spaces, e.g. 1, 2.5, -3e-2."
_TABLE_ADVICE = "Write one number per cell, e.g. 2.5, -3 or 1e-8."


def _finite_number(cell: object, named: str, is_: str, advice: str) -> float:
    """:func:`parse_number` of one item of a vector, refusing NaN and infinity, with the messages
    the typed text and the table share: ``named`` opens the sentence that says why float64 would
    change the number, ``is_`` ("'x' (item 2, line 1) is") the ones that say it is not a (finite)
    number; ``advice`` (and, for a decimal written with a comma, how to write it) follows "not a number".
    """
    try:
        value = parse_number(cell)
    except NumberRangeError as exc:
        raise InputError(f"{named} {exc.reason}") from None
    except InputError:
        raise InputError(f"{is_} not a number. {advice}" + decimal_comma_hint(str(cell))) from None
    if not math.isfinite(value):
        raise InputError(f"{is_} not a finite number: NaN and infinity have no mean or variance.")
    return value


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
            item = f"'{quoted(token)}' (item {len(values) + 1}, line {line_no})"
            values.append(_finite_number(token, item, f"{item} is", _TYPED_ADVICE))
    return finish_vector(values, "typed vector")


# digits,digits with no space, not inside another number (2.5,3 and 1e-3,5 are plainly two numbers)
TIGHT_COMMA = re.compile(r"(?<![\d.eE])(?<![eE][+-])(\d{1,12}),(\d{1,12})(?![\d.eE])")


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
    tight = TIGHT_COMMA.search(text)
    if tight is None:
        return None
    a, b = tight.group(1), tight.group(2)
    return (
        f"Read as {d} numbers: a comma always separates numbers here, so {a},{b} is {a} and {b}. "
        + comma_advice(a, b)
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
        shown = quoted(str(cell).strip())
        values.append(
            _finite_number(
                cell,
                f"Row {row} of the {name}, '{shown}',",
                f"Row {row} of the {name} is '{shown}', which is",
                _TABLE_ADVICE,
            )
        )
    return finish_vector(values, name)


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
