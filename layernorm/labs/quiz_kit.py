"""The parts every quiz question is made of: :class:`Question`, and the helpers that shuffle its
options, write its numbers and build the link that opens the lesson page in the state that shows it.

Source: this project.
"""

from __future__ import annotations

import urllib.parse
from dataclasses import dataclass

import numpy as np

from layernorm.data.numbers import link_text, number_text

SHORT_DIGITS = 4  # the significant digits a question's number starts with
ROUNDING_ULPS = 64  # float64 roundings a computed value may carry and still read as its short text


def _significant(text: str) -> int:
    """How many significant digits a ``%g`` text shows (``"1.25"``: 3, ``"2e-05"``: 1)."""
    mantissa = text.lstrip("-").split("e")[0].replace(".", "")
    return len(mantissa.lstrip("0")) or 1


def _looks_exact(text: str, digits: int) -> bool:
    """Would a reader take ``text`` for the whole value? Yes when rounding dropped its last digits
    (fewer significant digits than asked for: "2" for 1.99999) or when it is a whole number (no
    decimal point, no exponent: "4846" for 4845.55)."""
    return _significant(text) < digits or not ("." in text or "e" in text)


def g(v: float) -> str:
    """A number for a question's text, with a real minus sign.

    A whole number below 10⁶ is written in full ("40007", "−128"). Anything else gets four
    significant digits, unless the text would look exact while the value is not: then digits are
    added until it does not ("1.99999", not "2"; "4845.5", not "4846"). A value within float64
    rounding of its short text is that text ("2.7" for 0.9·2 + 0.1·9, whose float64 result is
    2.7000000000000002): rounding noise is not a value. NaN and infinities read "NaN", "∞", "−∞".
    """
    value = float(v)
    if not np.isfinite(value):
        return "NaN" if np.isnan(value) else ("∞" if value > 0 else "−∞")
    if value == round(value) and abs(value) < 1e6:
        text = str(int(value))
    else:
        digits = SHORT_DIGITS
        text = f"{value:.{digits}g}"
        noise = ROUNDING_ULPS * 2.0**-52 * abs(value)
        while abs(float(text) - value) > noise and _looks_exact(text, digits) and digits < 17:
            digits += 1
            text = f"{value:.{digits}g}"
    return "0" if text in ("0", "-0") else text.replace("-", "−")


def full(v: float) -> str:
    """A number every digit of which is its value: the shortest text that reads back as ``v``
    (1600240128, not 1.6e+09, for a float32 square whose last digits are the lesson)."""
    text = number_text(v)
    return "0" if text == "-0" else text.replace("-", "−")


def vec(values: np.ndarray) -> str:
    return "[" + ", ".join(g(v) for v in values) + "]"


def vec_exact(values: np.ndarray) -> str:
    """A question's input vector, every digit of which is its value (6543.21, never "6543.2"): the
    numbers a student would type in to check the answer."""
    return "[" + ", ".join(full(v) for v in values) + "]"


@dataclass(frozen=True)
class Question:
    """One multiple-choice question.

    Attributes
    ----------
    key : str
        Stable identifier of the misconception (the same across seeds).
    topic : str
        A few words on what it tests.
    prompt : str
        The question, with its live numbers.
    options : tuple of str
        The choices, in this seed's shuffled order; all distinct.
    answer : int
        Index of the right option in ``options``.
    explanation : str
        One paragraph: why, with the numbers.
    link : str
        Path and query of the lesson page that shows it (``"/variance?..."``).

    Notes
    -----
    Source: this project.
    """

    key: str
    topic: str
    prompt: str
    options: tuple[str, ...]
    answer: int
    explanation: str
    link: str

    def check(self, choice: int) -> bool:
        """Is option ``choice`` (0-based) the right one? ``IndexError`` if it is not an option."""
        if not 0 <= choice < len(self.options):
            raise IndexError(f"option {choice} does not exist; there are {len(self.options)}")
        return choice == self.answer


class RepeatedOptions(ValueError):
    """Two options of a drawn question read the same; :func:`layernorm.labs.quiz.make_quiz` draws again."""


def ask(
    rng: np.random.Generator,
    key: str,
    topic: str,
    prompt: str,
    right: str,
    wrong: list[str],
    why: str,
    link: str,
) -> Question:
    """Shuffle ``right`` among ``wrong`` (all must differ) into a :class:`Question`."""
    options = [right, *wrong]
    if len(set(options)) != len(options):
        raise RepeatedOptions(f"question {key!r} has repeated options: {options}")
    order = rng.permutation(len(options))
    shuffled = tuple(options[i] for i in order)
    return Question(key, topic, prompt, shuffled, int(np.flatnonzero(order == 0)[0]), why, link)


def link(path: str, **params: str) -> str:
    """``path?query``: the lesson page with the settings that show the answer (its controls' URL keys)."""
    return f"{path}?{urllib.parse.urlencode(params)}" if params else path


def typed(x: np.ndarray) -> dict[str, str]:
    """Link settings that put the vector ``x`` into the sidebar as typed numbers."""
    return {"src": "Type numbers", "typed": ", ".join(link_text(repr(float(v))) for v in x)}


def not_constant(rng: np.random.Generator, lo: int, hi: int, size: int = 4) -> np.ndarray:
    """``size`` whole numbers from ``lo`` to ``hi - 1`` as floats, drawn again while they are all equal
    (a constant vector has no spread to normalize)."""
    x = rng.integers(lo, hi, size=size).astype(float)
    while np.ptp(x) == 0:
        x = rng.integers(lo, hi, size=size).astype(float)
    return x
