"""Reading one number the way the lab reads every number a person writes, and the errors that say why not.

:func:`parse_number` is the one parser behind typed text, table cells and CSV cells
(:mod:`layernorm.data.inputs`, :mod:`layernorm.data.files`), so a spelling means the same number
everywhere; :func:`number_text` writes a number back as text it reads exactly. A cell that is a
decimal written with a comma gets advice on how to write it (:func:`decimal_comma_hint`).
Every message quotes the person's text, shortened (:func:`quoted`).
"""

from __future__ import annotations

import math
import re
from decimal import Decimal, InvalidOperation

import numpy as np

MIN_ABS = float(np.finfo(np.float64).tiny)  # 2.2e-308: below it (subnormal) float64 keeps fewer digits

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
_DECIMAL_COMMA = re.compile(r"\s*([+-]?)(\d{1,12}),(\d{1,12})\s*")  # after _NUMBER_SPELLINGS (− is -)


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


def quoted(text: str) -> str:
    """A user's text for a message, shortened: messages must stay readable whatever was typed."""
    return text if len(text) <= _SHOWN_CHARS else text[: _SHOWN_CHARS - 1] + "…"


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
        raise InputError(f"'{quoted(str(cell))}' is not a number.")
    if not isinstance(cell, str):
        return float(cell)
    text = cell.translate(_NUMBER_SPELLINGS).strip()
    if not text:
        raise InputError("The cell is empty.")
    try:
        value = float(text)
    except ValueError:
        raise InputError(f"'{quoted(cell.strip())}' is not a number.") from None
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
            quoted(shown), "is beyond float64's range (its largest number is about 1.8e308)."
        )
    if value == 0.0 and exact != 0:
        raise NumberRangeError(
            quoted(shown),
            f"is too small for a float64, which would read it as 0 (float64 holds sizes down to about "
            f"{MIN_ABS:.1e}).",
        )
    if _INTEGER.fullmatch(text) and Decimal(value) != exact:
        raise NumberRangeError(
            quoted(shown),
            f"is an integer of more than 53 bits that float64 cannot hold exactly: it would become "
            f"{quoted(str(int(value)))}. Subtract a common offset first (LayerNorm ignores it).",
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


def link_text(shown: str) -> str:
    """A number's shown text as a link carries it: ASCII, with no "+" (a query string reads "+" as a
    space, so a browser writes it "%2B").

    Parameters
    ----------
    shown : str
        A number as a page shows it: ``"−10"``, ``"1.00e−06"``, ``"1e+05"``.

    Returns
    -------
    text : str
        ``"-10"``, ``"1.00e-06"``, ``"1e5"``: :func:`parse_number` reads it back to the same value.

    Notes
    -----
    The one spelling for every number the lab writes into an address (the pages' bound controls and
    the quiz's links). Source: this project.
    """
    return shown.replace("\u2212", "-").replace("e+0", "e").replace("e+", "e")


def decimal_comma_hint(cell: str) -> str:
    """`` For a decimal, write a point: 1.5.`` when a cell is a decimal written with a comma, else ``""``."""
    found = _DECIMAL_COMMA.fullmatch(cell.translate(_NUMBER_SPELLINGS))
    if found is None:
        return ""
    sign, a, b = found.groups()
    return " " + comma_advice(sign.replace("+", "") + a, b)


def comma_advice(a: str, b: str) -> str:
    """How to write ``a,b`` as one number: a point for a decimal; with three digits after the comma it
    may be a thousands separator (``1,000``), so both readings are offered."""
    if len(b) == 3:
        return f"Write {a}{b} for one number (no thousands separator) or {a}.{b} for a decimal."
    return f"For a decimal, write a point: {a}.{b}."
