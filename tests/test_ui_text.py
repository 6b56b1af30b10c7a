"""Exact outputs of the number formatting in ``ui/text.py`` (what every metric and formula shows)."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from ui.text import fmt, tex_minus, tex_num, tex_sum, tex_vector

# ---------------------------------------------------------------------------- fmt


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (0.0, "0"),
        (-0.0, "0"),
        (2.0, "2"),
        (0.5, "0.5"),
        (1.23456, "1.235"),
        (-1.23456, "−1.235"),  # U+2212 minus, not a hyphen
        (0.001, "0.001"),  # lower edge of the plain range
        (9.99e-4, "9.990e−04"),  # just below it: scientific, typographic minus in the exponent
        (1e-5, "1.000e−05"),
        (-2.5e-7, "−2.500e−07"),
        (1234.5, "1234"),
        (12345.6, "12346"),  # plain up to 1e5, never "1.235e+04"
        (-40001.5, "−40002"),
        (99999.0, "99999"),
        (1e5, "1.000e+05"),
        (123456.0, "1.235e+05"),
        (-3.2e12, "−3.200e+12"),
        (np.float32(0.1), "0.1"),  # numpy scalars are accepted
        (np.float64(-7.0), "−7"),
    ],
)
def test_fmt_four_significant_digits(value: float, expected: str) -> None:
    assert fmt(value) == expected


@pytest.mark.parametrize(
    ("value", "digits", "expected"),
    [
        (1 / 3, 6, "0.333333"),
        (0.999968, 6, "0.999968"),
        (-1.23456, 6, "−1.23456"),
        (1e-5, 6, "1.00000e−05"),
        (1.23456, 2, "1.2"),
    ],
)
def test_fmt_digits(value: float, digits: int, expected: str) -> None:
    assert fmt(value, digits) == expected


@pytest.mark.parametrize(
    ("value", "expected"), [(math.inf, "∞"), (-math.inf, "−∞"), (math.nan, "NaN"), (np.nan, "NaN")]
)
def test_fmt_non_finite(value: float, expected: str) -> None:
    assert fmt(value) == expected


def test_fmt_never_uses_a_hyphen_minus() -> None:
    for v in [-1e-300, -1e-9, -0.5, -3.0, -1234.0, -1e8, -1e300]:
        text = fmt(v)
        assert "-" not in text and text.startswith("−"), (v, text)


# ---------------------------------------------------------------------------- tex_num


@pytest.mark.parametrize(
    ("value", "digits", "expected"),
    [
        (0.0, 4, "0"),
        (-0.0, 4, "0"),
        (2.0, 4, "2"),
        (1.23456, 4, "1.235"),
        (-1.23456, 4, "-1.235"),  # LaTeX gets an ASCII minus (it typesets its own −)
        (-1.23456, 3, "-1.23"),
        (0.001, 4, "0.001"),
        (9.99e-4, 4, r"9.99 \times 10^{-4}"),  # trailing zeros of the mantissa dropped
        (1.2e-5, 4, r"1.2 \times 10^{-5}"),
        (1e-5, 4, r"1 \times 10^{-5}"),  # "1.000" -> "1"
        (-2.5e-7, 4, r"-2.5 \times 10^{-7}"),
        (1234.5, 3, "1234"),
        (12345.6, 4, "12346"),
        (-40001.5, 3, "-40002"),
        (1e5, 4, r"1 \times 10^{5}"),
        (123456.0, 4, r"1.235 \times 10^{5}"),
        (123456.0, 3, r"1.23 \times 10^{5}"),
        (-3.2e12, 4, r"-3.2 \times 10^{12}"),
        (1e-12, 4, r"1 \times 10^{-12}"),
    ],
)
def test_tex_num(value: float, digits: int, expected: str) -> None:
    assert tex_num(value, digits) == expected


@pytest.mark.parametrize(("value", "expected"), [(math.inf, "∞"), (-math.inf, "-∞"), (math.nan, "NaN")])
def test_tex_num_non_finite(value: float, expected: str) -> None:
    assert tex_num(value) == expected


def _tex_value(text: str) -> float:
    """Read back a number written by tex_num: plain, or ``m \\times 10^{k}``."""
    m = re.fullmatch(r"(-?[0-9.]+)(?: \\times 10\^\{(-?\d+)\})?", text)
    assert m is not None, f"not a LaTeX number: {text!r}"
    return float(m.group(1)) * 10.0 ** int(m.group(2) or 0)


@pytest.mark.parametrize(
    ("value", "digits"),
    [
        (1234.5, 3),  # tex_vector/tex_sum use 3 digits: any |x| in [1e3, 1e5)
        (9999.4, 3),
        (-54321.0, 3),
        (12345.6, 4),  # metrics-style 4 digits: any |x| in [1e4, 1e5)
        (99999.0, 4),
        (-40001.5, 4),
    ],
)
def test_tex_num_never_emits_e_notation(value: float, digits: int) -> None:
    # Regression: tex_num used to pass fmt's "%g" text through for 1e3 <= |v| < 1e5 (3 digits) or
    # 1e4 <= |v| < 1e5 (4 digits), so st.latex showed "1.23e+03" with an italic e.
    text = tex_num(value, digits)
    assert "e" not in text, text
    assert _tex_value(text) == pytest.approx(value, rel=10.0 ** (1 - digits))


# ---------------------------------------------------------------------------- tex_vector


def test_tex_vector_short_shows_every_entry() -> None:
    assert tex_vector([1.0, -2.5, 3.0]) == r"\left[1,\ -2.5,\ 3\right]"


def test_tex_vector_seven_entries_is_still_complete() -> None:
    assert tex_vector(np.arange(1.0, 8.0)) == r"\left[1,\ 2,\ 3,\ 4,\ 5,\ 6,\ 7\right]"


def test_tex_vector_long_uses_an_ellipsis() -> None:
    assert tex_vector(np.arange(1.0, 9.0)) == r"\left[1,\ 2,\ 3,\ \ldots,\ 6,\ 7,\ 8\right]"
    big = tex_vector(np.arange(4096.0) / 1000)
    assert big == r"\left[0,\ 0.001,\ 0.002,\ \ldots,\ 4.09,\ 4.09,\ 4.09\right]"


def test_tex_vector_head_and_digits() -> None:
    assert tex_vector([1.23456, 2.0, 3.0, 4.0, 5.0], head=1) == r"\left[1.23,\ \ldots,\ 5\right]"
    assert tex_vector([1.23456], digits=5) == r"\left[1.2346\right]"


def test_tex_vector_small_numbers_and_2d_input() -> None:
    assert tex_vector([[1e-6, -0.5]]) == r"\left[1 \times 10^{-6},\ -0.5\right]"


def test_tex_vector_empty() -> None:
    assert tex_vector([]) == r"\left[\right]"


# ---------------------------------------------------------------------------- tex_sum


def test_tex_sum_signs() -> None:
    assert tex_sum([1.0, -2.0, 3.0]) == "1 - 2 + 3"


def test_tex_sum_first_term_negative_and_long() -> None:
    assert tex_sum([-1.0, 0.5, -1e-5, 4.0, 5.0]) == r"-1 + 0.5 - 1 \times 10^{-5} + 4 + \ldots"


def test_tex_sum_exactly_head_terms_has_no_ellipsis() -> None:
    assert tex_sum([1.0, 2.0, 3.0, 4.0]) == "1 + 2 + 3 + 4"
    assert tex_sum([1.0, 2.0, 3.0], head=2) == r"1 + 2 + \ldots"


def test_tex_sum_never_writes_plus_minus() -> None:
    text = tex_sum([0.25, -0.75, -2.5, -1e-7, 9.0])
    assert text == r"0.25 - 0.75 - 2.5 - 1 \times 10^{-7} + \ldots"
    assert "+ -" not in text and "- -" not in text


def test_tex_sum_empty_is_zero() -> None:
    assert tex_sum([]) == "0"


@pytest.mark.parametrize(("value", "expected"), [(0.352, "- 0.352"), (-0.5, "+ 0.5"), (0.0, "- 0")])
def test_tex_minus_never_writes_a_double_sign(value: float, expected: str) -> None:
    assert tex_minus(value) == expected
