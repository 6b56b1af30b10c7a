"""The parts every quiz question is made of: :class:`Question`, and the helpers that shuffle its
options, write its numbers and build the link that opens the lesson page in the state that shows it.

Source: this project.
"""

from __future__ import annotations

import urllib.parse
from dataclasses import dataclass

import numpy as np


def g(v: float) -> str:
    """A number for a question's text: 4 significant digits, a real minus sign."""
    text = f"{float(v):.4g}"
    return "0" if text in ("0", "-0") else text.replace("-", "−")


def vec(values: np.ndarray) -> str:
    return "[" + ", ".join(g(v) for v in values) + "]"


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
    return {"src": "Type numbers", "typed": ", ".join(repr(float(v)) for v in x)}


def not_constant(rng: np.random.Generator, lo: int, hi: int, size: int = 4) -> np.ndarray:
    """``size`` whole numbers from ``lo`` to ``hi - 1`` as floats, drawn again while they are all equal
    (a constant vector has no spread to normalize)."""
    x = rng.integers(lo, hi, size=size).astype(float)
    while np.ptp(x) == 0:
        x = rng.integers(lo, hi, size=size).astype(float)
    return x
