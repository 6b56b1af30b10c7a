"""Exact outputs of the number formatting in ``ui/text.py`` (what every metric and formula shows)."""

from __future__ import annotations

import math
import re
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ui.text as text_module
from ui.text import (
    MAX_DIGITS,
    ROUNDING_UNIT,
    ZERO_TO_ROUNDING,
    _finite_floats,
    _separated,
    column_format,
    digits_not_to_look_exact,
    digits_to_separate,
    fmt,
    fmt_bound,
    fmt_g,
    fmt_zero,
    is_rounding_zero,
    rounding_help,
    rounding_noise,
    tex_base,
    tex_minus,
    tex_num,
    tex_sum,
    tex_vector,
    zero_metric,
)

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


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (2.0, "2"),
        (-1.0, r"\left(-1\right)"),  # QA: Invariances wrote −1² beside a positive ε/c²
        (-0.001, r"\left(-0.001\right)"),
        (1e6, r"\left(1 \times 10^{6}\right)"),  # QA: 10^{6}^2 is a KaTeX error (double superscript)
        (1e-6, r"\left(1 \times 10^{-6}\right)"),
    ],
)
def test_tex_base_is_bracketed_where_an_exponent_would_misread(value: float, expected: str) -> None:
    assert tex_base(value, 3) == expected


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
    big = tex_vector(np.arange(4096.0) / 1000)  # 4.093, 4.094, 4.095 never all read "4.09"
    assert big == r"\left[0,\ 0.001,\ 0.002,\ \ldots,\ 4.093,\ 4.094,\ 4.095\right]"


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


def test_tex_vector_and_tex_sum_take_more_digits_when_entries_would_look_alike() -> None:
    assert tex_vector([1.23441, 1.23444, 2.0]) == r"\left[1.23441,\ 1.23444,\ 2\right]"
    assert tex_vector([1.0, 1.0, 2.0]) == r"\left[1,\ 1,\ 2\right]"  # equal entries may look equal
    assert tex_sum([40000.0, 40000.25, 3.0]) == "40000 + 40000.2 + 3"  # apart, and right to 0.1
    assert tex_sum([1.2345, 1.2346], digits=3) == "1.234 + 1.235"  # 3 digits would give 1.23 twice
    # only the entries shown count: the hidden middle of a long vector does not add digits
    assert tex_vector([1.0, 2.0, 3.0, 3.0000001, 5.0, 6.0, 7.0, 8.0]) == (
        r"\left[1,\ 2,\ 3,\ \ldots,\ 6,\ 7,\ 8\right]"
    )


# ---------------------------------------------------------------------------- digits_not_to_look_exact


@pytest.mark.parametrize(
    ("value", "shown"),
    [(1.4999700006, "1.49997"), (-0.7399559134, "−0.73996"), (2 - 4e-12, "1.999999999996"),
     (1.5, "1.5"), (1.5000000000000002, "1.5"), (1.7320046, "1.732"), (2.5e-8, "2.500e−08")],
)  # fmt: skip
def test_digits_not_to_look_exact(value: float, shown: str) -> None:
    noise = rounding_noise(value)
    assert fmt(value, digits_not_to_look_exact([value], 4, same_within=noise)) == shown


# ---------------------------------------------------------------------------- digits_to_separate


def test_digits_to_separate_the_issue_example() -> None:
    x = [40000.0, 40001.0, 40002.0, 40003.0]
    assert fmt(40001.5) == "40002"  # 4 digits: μ looks like x₃
    digits = digits_to_separate([40001.5], against=x)
    assert digits == 6 and fmt(40001.5, digits) == "40001.5" and tex_num(40001.5, digits) == "40001.5"
    assert digits_to_separate([*x, 40001.5]) == 6


@pytest.mark.parametrize(
    ("values", "kwargs", "expected"),
    [
        ([1.0, 2.0, 3.0], {}, 4),  # already apart: the minimum
        ([1.0, 2.0], {"at_least": 6}, 6),
        ([0.12341, 0.12344], {}, 5),
        ([1.0, 1.0, 1.0], {}, 4),  # equal values may print alike
        ([1.0, np.nan, np.inf, -np.inf, 1.0000001], {}, 8),  # NaN and ±∞ are ignored
        ([0.1, 0.1 + 2**-55], {}, 17),  # neighbouring float64s need all 17
        ([0.1, 0.1 + 2**-55], {"same_within": 1e-15}, 4),  # ... unless they are the same to rounding
        ([1.0, 1.0 + 1e-9], {"at_most": 6}, 6),  # capped
        ([], {}, 4),
        ([0.0, -0.0], {}, 4),  # one value
        ([1e-7, 1.0001e-7], {}, 5),  # scientific range: 1.0000e−07 vs 1.0001e−07
        ([123456.0, 123457.0], {}, 6),  # above 1e5: 1.23456e+05 vs 1.23457e+05
    ],
)
def test_digits_to_separate(values: list[float], kwargs: dict[str, float], expected: int) -> None:
    assert digits_to_separate(values, **kwargs) == expected  # type: ignore[arg-type]


def test_digits_to_separate_against_only_checks_values_against_references() -> None:
    xs = [0.5, 0.50001, 3.0]  # the references look alike at 4 digits; that is not our business
    assert digits_to_separate([2.0], against=xs) == 4
    assert digits_to_separate([0.500004], against=xs) == 6  # 0.500004 vs 0.5 and 0.50001
    assert digits_to_separate([0.5], against=xs) == 5  # 0.5 itself is fine, but not 0.50001
    assert digits_to_separate([0.5 + 1e-17], against=[0.5], same_within=1e-15) == 4


def test_digits_to_separate_with_the_printf_style_of_a_table_column() -> None:
    assert fmt_g(40001.5, 6) == "40001.5" and fmt_g(40001.5, 4) == "40000.0"
    assert column_format([1.0000001, 1.0000002]) == "%.8g"
    assert column_format([1.0, 2.0]) == "%.6g"
    assert column_format([40001.5], against=[40001.0, 40002.0], at_least=4) == "%.6g"


finite = st.floats(allow_nan=False, allow_infinity=False, width=64)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(
            finite, finite.map(lambda v: v * 1e-300), st.sampled_from([1.0, 1.0 + 2**-52, 0.1, 40001.5])
        ),
        min_size=1,
        max_size=12,
    ),
    st.integers(1, 8),
)
def test_distinct_values_never_print_alike(values: list[float], at_least: int) -> None:
    digits = digits_to_separate(values, at_least)
    assert at_least <= digits <= 17
    texts = {v: fmt(v, digits) for v in set(values)}  # set(): 0.0 and -0.0 are one value
    assert len(set(texts.values())) == len(texts), texts
    assert len({tex_num(v, digits) for v in texts}) == len(texts)  # LaTeX rounds exactly like fmt
    g = digits_to_separate(values, at_least, style=fmt_g)
    assert len({fmt_g(v, g) for v in texts}) == len(texts)


@settings(max_examples=200, deadline=None)
@given(st.lists(finite, min_size=1, max_size=6), st.lists(finite, min_size=1, max_size=6))
def test_values_never_print_like_a_reference_they_differ_from(values: list[float], refs: list[float]) -> None:
    digits = digits_to_separate(values, against=refs)
    for v in values:
        for r in refs:
            if v != r:
                assert fmt(v, digits) != fmt(r, digits), (v, r, digits)


def _every_digit_tried(values: list[float], at_least: int, refs: list[float], same_within: float) -> int:
    """digits_to_separate as its docstring states it: every value and reference formatted at every digit."""
    vals, against = _finite_floats(values), _finite_floats(refs)
    for digits in range(at_least, MAX_DIGITS + 1):
        if _separated(vals, against, digits, same_within, fmt):
            return digits
    return MAX_DIGITS


# Numbers that print alike at a few digits and apart at more: a base, then small relative steps.
_near = st.builds(
    lambda base, steps: [base * (1 + k * 10.0**-e) for k, e in steps],
    st.one_of(
        finite.filter(lambda v: abs(v) < 1e300),
        st.sampled_from([0.0, 1.0, 0.99995, 99999.5, 1e5, 0.001, 0.0009995, -1.0, 40001.5, 1e-300]),
    ),
    st.lists(st.tuples(st.integers(-9, 9), st.integers(0, 17)), min_size=1, max_size=8),
)


@settings(max_examples=400, deadline=None)
@given(_near, _near, st.integers(1, 8), st.sampled_from([0.0, 1e-15, 1e-9, 1e-3]))
def test_leaving_out_values_that_cannot_look_alike_changes_no_answer(
    values: list[float], refs: list[float], at_least: int, same_within: float
) -> None:
    expected = _every_digit_tried(values, at_least, refs, same_within)
    expected_together = _every_digit_tried([*values, *refs], at_least, [], same_within)
    # the search for values that could look alike runs from _FILTER_FROM values on; here on every list
    for search_from in (text_module._FILTER_FROM, 0):
        with mock.patch.object(text_module, "_FILTER_FROM", search_from):
            assert digits_to_separate(values, at_least, against=refs, same_within=same_within) == expected
            assert (
                digits_to_separate([*values, *refs], at_least, same_within=same_within) == expected_together
            )


def _last_digit_unit(text: str) -> float:
    """The place value of the last digit ``text`` shows ("1.235e−05" -> 1e-8, "40001.5" -> 0.1)."""
    mantissa, _, exp = text.replace("−", "-").partition("e")
    decimals = len(mantissa.partition(".")[2])
    return 10.0 ** (int(exp or 0) - decimals)


@settings(max_examples=500, deadline=None)
@given(
    st.one_of(finite, finite.map(lambda v: v * 1e-300)).filter(lambda v: abs(v) < 1e307), st.integers(1, 17)
)
def test_fmt_reads_back_within_half_a_unit_of_its_last_digit(value: float, digits: int) -> None:
    # (below 1e307, so that rounding up, e.g. 1.5e308 -> "2e+308", still reads back as a float)
    text = fmt(value, digits)
    back = float(text.replace("−", "-"))
    assert abs(back - value) <= 0.5 * _last_digit_unit(text) * (1 + 1e-12) + 4 * math.ulp(value), (
        text,
        value,
    )
    # and it carries the requested precision: never more than half a unit of the digits-th digit off
    if value != 0:
        requested = 10.0 ** (math.floor(math.log10(abs(value))) - digits + 1)
        assert abs(back - value) <= 0.5 * requested * (1 + 1e-9) + 4 * math.ulp(value), (text, value)


# ---------------------------------------------------------------------------- fmt_zero


@pytest.mark.parametrize(
    ("value", "scale", "expected"),
    [
        (3.469e-18, 2.5, ZERO_TO_ROUNDING),  # Training vs inference: LayerNorm output mean
        (-1.1e-16, [0.5, -1.5], ZERO_TO_ROUNDING),  # the largest |scale| counts
        (0.0, 1.0, "0"),  # an exact zero is simply 0
        (-0.0, 1.0, "0"),
        (1e-10, 1.0, "1.000e−10"),  # more than rounding: the value itself
        (2e-14, 1.0, "2.000e−14"),  # 64·2⁻⁵² ≈ 1.4e−14
        (1e-14, 1.0, ZERO_TO_ROUNDING),
        (1e-14, 1e-3, "1.000e−14"),  # small numbers have small rounding
        (0.25, 0.5, "0.25"),
        (1e-18, 0.0, "1.000e−18"),  # nothing to round: not zero
        (1e-18, [np.nan, np.inf], "1.000e−18"),
        (np.nan, 1.0, "NaN"),
    ],
)
def test_fmt_zero(value: float, scale: float | list[float], expected: str) -> None:
    assert fmt_zero(value, scale) == expected


def test_fmt_zero_threshold_is_k_units_of_rounding_of_the_scale() -> None:
    bound = 64 * ROUNDING_UNIT * 3.0
    assert rounding_noise(3.0) == bound == rounding_noise(np.array([[1.0], [-3.0]]))
    assert is_rounding_zero(bound, 3.0) and not is_rounding_zero(bound * (1 + 1e-12), 3.0)
    assert fmt_zero(bound * 2, 3.0, k=128) == ZERO_TO_ROUNDING
    assert fmt_zero(-0.123456, 1.0, 6) == "−0.123456"  # digits apply to real values


def test_rounding_help_shows_the_tiny_value() -> None:
    assert "3.469e−18" in rounding_help(3.469e-18, 2.5)
    assert rounding_help(0.0, 1.0).startswith("Exactly 0")
    assert "larger than float64 rounding" in rounding_help(0.5, 1.0)


def test_zero_metric_reads_0_with_a_grey_note_while_only_rounding_is_left() -> None:
    tiny = zero_metric(3.469e-18, 2.5, help="Mean of 1024 outputs.")
    assert (tiny["value"], tiny["delta"], tiny["delta_color"], tiny["delta_arrow"]) == (
        "0",
        "to rounding",
        "off",
        "off",
    )
    assert (
        tiny["help"].startswith("Mean of 1024 outputs. 0 in exact arithmetic") and "3.469e−18" in tiny["help"]
    )
    assert zero_metric(0.0, 2.5) == {"value": "0", "help": None}  # exact: no note
    assert zero_metric(-0.0123456, 2.5, 6, help="h") == {
        "value": "−0.0123456",
        "help": "h",
    }  # real: the value


def test_delta_arrow_follows_the_sign_fmt_writes_as_a_true_minus() -> None:
    from ui.text import delta_arrow, fmt

    assert fmt(-10.0).startswith("−")  # U+2212: st.metric would read "−10" as positive
    assert [delta_arrow(v) for v in (-10.0, -1e-300, 0.0, -0.0, 2.5)] == ["down", "down", "off", "off", "up"]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(st.floats(), st.sampled_from([0.0, -0.0, 1.0, math.inf, -math.inf, math.nan])), max_size=40
    )
)
def test_the_finite_values_are_each_once_and_sorted_at_any_size(values: list[float]) -> None:
    finite = np.array([v for v in values if math.isfinite(v)], dtype=float)
    assert _finite_floats(values).tolist() == np.unique(finite).tolist()


@given(st.floats(min_value=1e-300, max_value=1e300), st.integers(1, 6))
@settings(max_examples=300)
def test_fmt_bound_is_the_least_upper_bound_with_its_digits(value: float, digits: int) -> None:
    """A bound beside "at most" or "within" is never below the value, and one step down in its last
    digit would be."""
    shown = float(fmt_bound(value, digits).replace("−", "-"))
    assert shown >= value
    last = 10.0 ** (math.floor(math.log10(shown)) - digits + 1)
    assert shown - last < value * (1 + 1e-12)


def test_fmt_bound_rounds_up_where_fmt_rounds_down() -> None:
    assert (fmt(0.0344, 2), fmt_bound(0.0344)) == ("0.034", "0.035")
    assert fmt_bound(0.0995) == "0.1" and fmt_bound(0.02) == "0.02" and fmt_bound(0.0) == "0"
