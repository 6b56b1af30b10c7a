"""Number formatting for the pages: one style for every number on screen.

Two rules decide how many digits a number gets (docs/ARCHITECTURE.md, "Numbers on screen"):

- enough significant digits to tell it apart from the values it is compared with:
  :func:`digits_to_separate` picks them from the group (μ next to the x's it averages,
  σ² next to the ÷(d−1) value, a column of a table);
- rounding noise is not a value: a result that is 0 in exact arithmetic and only
  float64 rounding away from it reads "0 (to rounding)" (:func:`fmt_zero`).

Everything here is pure formatting: the numbers themselves come from ``layernorm``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from decimal import ROUND_CEILING, Decimal
from typing import Any

import numpy as np
from numpy.typing import ArrayLike


def fmt(value: float, digits: int = 4) -> str:
    """Format a number with ``digits`` significant digits; scientific when tiny or huge."""
    v = float(value)
    if not math.isfinite(v):
        return "∞" if v > 0 else ("−∞" if v < 0 else "NaN")
    if v == 0:
        return "0"
    if 1 <= abs(v) < 1e5:  # no e-notation below 1e5: 12345.6 -> "12346", 1234.5 -> "1234" or "1235"
        text = f"{v:.{max(digits - 1 - math.floor(math.log10(abs(v))), 0)}f}"
        text = text.rstrip("0").rstrip(".") if "." in text else text
    elif 1e-3 <= abs(v) < 1:
        text = f"{v:.{digits}g}"
    else:
        text = f"{v:.{digits - 1}e}"
    return text.replace("-", "−")


def fmt_bound(value: float, digits: int = 2) -> str:
    """An upper bound of ``value`` with ``digits`` significant digits: rounded up, never to nearest,
    so that "at most" or "within" beside it stays true (0.0344 -> "0.035", not "0.034")."""
    v = float(value)
    if not math.isfinite(v) or v <= 0:
        return fmt(v, digits)
    exponent = math.floor(math.log10(v)) - digits + 1
    up = Decimal(repr(v)).scaleb(-exponent).to_integral_value(rounding=ROUND_CEILING).scaleb(exponent)
    return fmt(float(up), digits)


MAX_DIGITS = 17  # enough for any two different float64 values to print differently
ROUNDING_UNIT = 2.0**-52  # float64's relative spacing just above 1 (machine epsilon)
ROUNDING_K = 64  # how many units of rounding a displayed sum or difference may carry
TO_ROUNDING = "to rounding"
ZERO_TO_ROUNDING = f"0 ({TO_ROUNDING})"


def delta_arrow(value: float) -> str:
    """``st.metric``'s ``delta_arrow`` for a delta written with :func:`fmt`: "down", "up" or "off".

    ``st.metric`` reads a text delta's direction from a leading ASCII "-", and :func:`fmt` writes the
    true minus sign "−": without this, c = −10 showed "↑ −10". Give it with every numeric text delta.
    """
    v = float(value)
    return "down" if v < 0 else "up" if v > 0 else "off"


def change_metric(change: float, digits: int = 4) -> dict[str, Any]:
    """``st.metric(label, value, **change_metric(c))``: a signed change ``c`` as a grey delta.

    The text is ``fmt(c, digits)`` and the arrow follows its sign (:func:`delta_arrow`); 0 has none.
    """
    return {"delta": fmt(change, digits), "delta_color": "off", "delta_arrow": delta_arrow(change)}


def _finite_floats(values: ArrayLike | Iterable[float]) -> np.ndarray:
    vals = np.asarray(list(values) if not isinstance(values, np.ndarray) else values, dtype=float).ravel()
    finite = vals[np.isfinite(vals)]
    if finite.size < 32:  # np.unique costs ~7 µs whatever the size; a live payload calls this ~2,000 times
        return np.array(sorted(set(finite.tolist())), dtype=float)
    return np.unique(finite)  # sorted; -0.0 and 0.0 are one value, as in a set


def _separated(
    vals: np.ndarray, refs: np.ndarray, digits: int, same_within: float, style: Callable[[float, int], str]
) -> bool:
    """Do values farther apart than ``same_within`` all print differently at ``digits``?"""
    spans: dict[str, tuple[float, float]] = {}
    for v in vals.tolist():
        text = style(v, digits)
        lo, hi = spans.get(text, (v, v))
        if max(hi, v) - min(lo, v) > same_within:
            return False
        spans[text] = (min(lo, v), max(hi, v))
    for r in refs.tolist():
        span = spans.get(style(r, digits))
        if span is not None and max(abs(r - span[0]), abs(r - span[1])) > same_within:
            return False
    return True


# Below this many values and references, formatting them all is cheaper than finding those that could
# print alike: μ against 8 x's took 58 µs with the search, 48 µs without; against 32 x's 78 and 99 µs.
_FILTER_FROM = 20


def digits_to_separate(
    values: ArrayLike | Iterable[float],
    at_least: int = 4,
    *,
    against: ArrayLike | Iterable[float] = (),
    same_within: float = 0.0,
    at_most: int = MAX_DIGITS,
    style: Callable[[float, int], str] | None = None,
) -> int:
    """The fewest significant digits (``at_least`` … ``at_most``) at which different values print differently.

    ``values`` are printed side by side (a formula, a table column, metrics that are compared);
    at the returned ``digits``, ``fmt(a, digits) != fmt(b, digits)`` for any two of them that
    differ. ``against`` are values shown nearby that these must not look like (μ against the
    x's it averages): each of ``values`` also prints differently from each of ``against`` it
    differs from, while ``against`` among themselves are not checked. Values within
    ``same_within`` of each other are the same number up to rounding (see
    :func:`rounding_noise`) and may print alike. NaN and ±∞ are ignored. ``style`` is the
    formatter ``(value, digits) -> text`` the digits are for (default :func:`fmt`; the LaTeX
    helpers round exactly like it). At 17 digits any two float64 values print differently.
    """
    show = style or fmt
    vals, refs = _finite_floats(values), _finite_floats(against)
    for digits in range(at_least, max(at_most, at_least) + 1):
        if show is fmt and digits >= 3 and vals.size + refs.size >= _FILTER_FROM:
            vals, refs = _could_look_alike(vals, refs, digits)
        if _separated(vals, refs, digits, same_within, show):
            return digits
    return max(at_most, at_least)


def _could_look_alike(vals: np.ndarray, refs: np.ndarray, digits: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``vals`` and ``refs`` (sorted) that :func:`fmt` could print alike at ``digits`` or more.

    Two numbers :func:`fmt` prints alike at ``digits`` both round to the number the text names, each
    by at most half a unit of its own last digit, and that unit is at most ``|x| · 10^(1 − digits)``:
    so ``|a − b| ≤ c · (|a| + |b|)`` with ``c = 10^(1 − digits) / 2``, and then ``b`` lies within
    ``2c|a| / (1 − c)`` of ``a``. ``c`` here is 20 times that, so no pair that could look alike is
    dropped. A value only enters :func:`_separated` through such a pair, so its answer is the same
    on what is kept (``tests/test_ui_text.py`` checks that against every value). At 4096 x's and one
    μ, μ's digits took ~2.5 ms, 14 format calls per x; most x's are now never formatted.
    """
    c = 10.0 ** (2 - digits)
    reach = 2 * c * np.abs(vals) / (1 - c)
    with np.errstate(over="ignore"):  # near ±1.8e308 a bound goes to ±∞: a wider window, still right
        lo, hi = vals - reach, vals + reach
    near_vals = np.searchsorted(vals, hi, "right") - np.searchsorted(vals, lo, "left") > 1
    first, past = np.searchsorted(refs, lo, "left"), np.searchsorted(refs, hi, "right")
    edges = np.zeros(refs.size + 1, dtype=np.int64)
    np.add.at(edges, first, 1)
    np.add.at(edges, past, -1)
    near_refs = np.cumsum(edges[:-1]) > 0
    return vals[near_vals | (past > first)], refs[near_refs]


def _significant(text: str) -> int:
    """How many significant digits a :func:`fmt` text shows ("1.5" has 2, "0.0740" 3, "1.500e−05" 4)."""
    mantissa = text.replace("−", "").split("e")[0].replace(".", "")
    return len(mantissa.lstrip("0")) or 1


# A number printed with this many significant digits or more reads as rounded ("1.732"); one that
# prints shorter ("1.5", "2", "0.74") reads as the whole value.
READS_ROUNDED = 4


def digits_not_to_look_exact(
    values: ArrayLike | Iterable[float],
    at_least: int = 4,
    *,
    same_within: float = 0.0,
    at_most: int = MAX_DIGITS,
    style: Callable[[float, int], str] | None = None,
) -> int:
    """The fewest significant digits (``at_least`` … ``at_most``) at which no value looks exact but is not.

    :func:`fmt` drops trailing zeros, so 1.4999700009 at 4 digits prints "1.5", which a reader takes
    for exactly 1.5. At the returned digits every text shorter than :data:`READS_ROUNDED`
    significant digits is its value to within ``same_within`` (rounding noise, :func:`rounding_noise`):
    1.49997 prints "1.49997", 1.5000000000000002 still "1.5". NaN and ±∞ are ignored. ``style`` is
    the formatter ``(value, digits) -> text`` (default :func:`fmt`). Combine with
    :func:`digits_to_separate`: ``digits_not_to_look_exact(vals, digits_to_separate(vals))``.
    """
    show = style or fmt
    vals = _finite_floats(values).tolist()
    for digits in range(at_least, max(at_most, at_least) + 1):
        if all(
            _significant(t) >= min(digits, READS_ROUNDED)
            or abs(float(t.replace("−", "-")) - v) <= same_within
            for v, t in ((v, show(v, digits)) for v in vals)
        ):
            return digits
    return max(at_most, at_least)


def fmt_shown(value: float, digits: int = 4) -> str:
    """One number as the lab writes it alone: ``digits`` significant digits, more where fewer would look
    exact when it is not (an r² of 0.99999 is never "1", 0.99998 is not "1")."""
    return fmt(value, digits_not_to_look_exact([value], digits))


def digits_to_add_up(
    rows: Iterable[tuple[float, float, float, float]], at_least: int = 4, *, at_most: int = MAX_DIGITS
) -> int:
    """The fewest significant digits at which ``a · b + c = r`` still holds for the numbers as printed.

    ``rows`` are ``(a, b, c, r)`` written out as arithmetic (``y = γ · x̂ + β``): at the returned
    digits, multiplying and adding the printed ``a``, ``b``, ``c`` gives a number that prints as the
    printed ``r`` (:func:`fmt`), so a reader who checks the sum finds it right. Rows with a
    non-finite number are skipped.
    """
    checked = [tuple(float(v) for v in row) for row in rows]
    checked = [row for row in checked if all(math.isfinite(v) for v in row)]

    def printed(v: float, digits: int) -> float:
        return float(fmt(v, digits).replace("−", "-"))

    for digits in range(at_least, max(at_most, at_least) + 1):
        if all(
            fmt(printed(a, digits) * printed(b, digits) + printed(c, digits), digits) == fmt(r, digits)
            for a, b, c, r in checked
        ):
            return digits
    return max(at_most, at_least)


def rounding_noise(scale: float | ArrayLike, k: float = ROUNDING_K) -> float:
    """``k · 2⁻⁵² · max|scale|``: how far float64 rounding can move a result built from numbers this size.

    ``scale`` is the magnitude of the numbers that produced the result (a number, or the
    numbers themselves: the largest absolute finite one is used) — e.g. ``x − μ`` for
    ``mean(x − μ)``, the outputs ``y`` for their mean. ``k`` counts the roundings allowed.
    """
    s = np.abs(np.asarray(scale, dtype=float))
    s = s[np.isfinite(s)]
    return float(k * ROUNDING_UNIT * (float(np.max(s)) if s.size else 0.0))


def is_rounding_zero(value: float, scale: float | ArrayLike, k: float = ROUNDING_K) -> bool:
    """True when ``value`` is not 0 but lies within :func:`rounding_noise` of it."""
    v = float(value)
    return v != 0 and abs(v) <= rounding_noise(scale, k)


def fmt_zero(value: float, scale: float | ArrayLike, digits: int = 4, *, k: float = ROUNDING_K) -> str:
    """Format a result that is 0 in exact arithmetic: "0 (to rounding)" while only rounding moved it.

    Use it for quantities such as ``mean(x − μ)``, the mean of x̂, an identity's two sides'
    difference: when ``0 < |value| <= k · 2⁻⁵² · max|scale|`` (:func:`rounding_noise`) the text is
    :data:`ZERO_TO_ROUNDING`; an exact 0 prints "0" and anything larger prints as
    ``fmt(value, digits)``, so a real deviation is never hidden.
    """
    return ZERO_TO_ROUNDING if is_rounding_zero(value, scale, k) else fmt(value, digits)


def zero_metric(
    value: float,
    scale: float | ArrayLike,
    digits: int = 4,
    *,
    help: str | None = None,
    k: float = ROUNDING_K,
) -> dict[str, Any]:
    """``st.metric(label, **zero_metric(...))`` for a result that is 0 in exact arithmetic.

    A metric column is too narrow for "0 (to rounding)", so while only rounding moved the value
    it reads "0" with a grey "to rounding" under it (no arrow) and the tiny value in the tooltip
    (``help`` first, then :func:`rounding_help`). An exact 0 reads "0"; a larger value reads
    ``fmt(value, digits)`` with ``help`` as the tooltip.
    """
    if is_rounding_zero(value, scale, k):
        note = rounding_help(value, scale, k)
        return {
            "value": "0",
            "delta": TO_ROUNDING,
            "delta_color": "off",
            "delta_arrow": "off",
            "help": f"{help} {note}" if help else note,
        }
    return {"value": fmt(value, digits), "help": help}


def rounding_help(value: float, scale: float | ArrayLike, k: float = ROUNDING_K) -> str:
    """A tooltip for :func:`fmt_zero`: the tiny value itself and the rounding bound it is under."""
    v = float(value)
    if v == 0:
        return "Exactly 0 here: no rounding left over."
    if is_rounding_zero(v, scale, k):
        return (
            f"0 in exact arithmetic; float64 rounding left {fmt(v)}, within the rounding bound "
            f"{fmt(rounding_noise(scale, k), 2)} for numbers of this size."
        )
    return (
        f"{fmt(v, MAX_DIGITS)}: larger than float64 rounding ({fmt(rounding_noise(scale, k), 2)}) explains."
    )


def fmt_g(value: float, digits: int) -> str:
    """What a printf ``%.<digits>g`` column (``st.column_config.NumberColumn``) shows, as a Python string.

    The browser prints ``String(Number(v.toPrecision(digits)))``: the value rounded to
    ``digits`` significant digits, then written in the shortest form.
    """
    return repr(float(f"{float(value):.{digits}g}"))


def column_format(
    values: ArrayLike | Iterable[float],
    at_least: int = 6,
    *,
    against: ArrayLike | Iterable[float] = (),
    same_within: float = 0.0,
) -> str:
    """A NumberColumn ``format`` (``"%.6g"``, ``"%.9g"`` …) that prints different values differently.

    ``against`` and ``same_within`` as in :func:`digits_to_separate` (a μ column against the x column).
    """
    digits = digits_to_separate(values, at_least, against=against, same_within=same_within, style=fmt_g)
    return f"%.{digits}g"


def tex_num(value: float, digits: int = 4) -> str:
    """A number for ``st.latex``: ``1.2 \\times 10^{-5}`` rather than ``1.2e-05``."""
    v = float(value)
    if v != 0 and math.isfinite(v) and not 1e-3 <= abs(v) < 1e5:
        mant, exp = f"{v:.{digits - 1}e}".split("e")
        mant = mant.rstrip("0").rstrip(".") if "." in mant else mant
        return rf"{mant} \times 10^{{{int(exp)}}}"
    return fmt(v, digits).replace("−", "-")


def tex_base(value: float, digits: int = 4) -> str:
    """:func:`tex_num` ready to carry an exponent: in brackets when negative or in ×10 form, so
    ``(-1)^2`` never reads as −1² and ``(1 \\times 10^{6})^2`` is not a double superscript."""
    text = tex_num(value, digits)
    return rf"\left({text}\right)" if float(value) < 0 or r"\times" in text else text


def tex_vector(values: Sequence[float] | np.ndarray, *, head: int = 3, digits: int = 3) -> str:
    """A vector for LaTeX: all of it when short, else the first and last ``head`` entries.

    ``digits`` is the least number of significant digits; more are used when needed so that
    the entries shown never look alike unless they are equal (:func:`digits_to_separate`).
    """
    vals = np.asarray(values, dtype=float).ravel()
    short = vals.size <= 2 * head + 1
    shown = vals if short else np.concatenate([vals[:head], vals[-head:]])
    n = digits_to_separate(shown, digits)
    if short:
        parts = [tex_num(v, n) for v in vals]
    else:
        parts = [tex_num(v, n) for v in vals[:head]] + [r"\ldots"] + [tex_num(v, n) for v in vals[-head:]]
    return r"\left[" + ",\\ ".join(parts) + r"\right]"


def tex_sum(values: Sequence[float] | np.ndarray, *, head: int = 4, digits: int = 3) -> str:
    r"""``x_1 + x_2 + ...`` for LaTeX with proper signs: ``1.2 - 0.5 + \ldots``.

    ``digits`` is the least number of significant digits; the terms shown get more when two of
    them would otherwise look alike.
    """
    vals = np.asarray(values, dtype=float).ravel()
    shown = vals[:head]
    digits = digits_to_separate(shown, digits)
    out = tex_num(shown[0], digits) if shown.size else "0"
    for v in shown[1:]:
        out += (" - " if v < 0 else " + ") + tex_num(abs(v), digits)
    return out + (r" + \ldots" if vals.size > head else "")


def tex_minus(value: float, digits: int = 4) -> str:
    """``- v`` for LaTeX, or ``+ |v|`` when v is negative (never ``- -0.5``)."""
    v = float(value)
    return ("+ " if v < 0 else "- ") + tex_num(abs(v), digits)


# --- text a user or a link controls -------------------------------------------------------------
#
# Streamlit renders the body of st.markdown, st.caption, st.info/warning/error/success, metric
# labels, radio options and help tooltips as Markdown, with its own extras (:red[...] colours,
# :material/...: icons, :smile: emoji, $...$ LaTeX, bare URLs turned into links). A value from the
# URL, a file name or a quoted cell must never become any of that. plain() makes such a value
# literal: CommonMark lets a backslash escape every ASCII punctuation character, and an invisible
# WORD JOINER (U+2060) breaks the patterns Streamlit's frontend looks for in text that is already
# parsed, where a backslash no longer helps (emoji and icon shortcodes, "https://", "www.", e-mail
# addresses, the -> <= -- arrows it typesets). Checked in Chromium: tests/e2e/test_links_browser.py.
# Long text that needs no Markdown at all can go to st.text, which never interprets it.

TEXT_LIMIT = 60  # characters of a user's value shown in a message; the rest is counted, not shown
LABEL_LIMIT = 100  # an input's name in a sentence or a chart title ("file results_….csv")
MESSAGE_LIMIT = 400  # an error message that quotes user text (the core cuts its quotes to 40)
WORD_JOINER = "\u2060"
_MARKDOWN_PUNCTUATION = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")  # CommonMark's escapable set
_ARROW_CHARS = frozenset("<>-=~")
_BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def _one_line_parts(text: object, limit: int) -> tuple[str, str]:
    """``(shown, suffix)``: the first ``limit`` characters on one line, and ``"… (N characters)"`` or ""."""
    raw = str(text)
    chars: list[str] = []
    for ch in raw:
        if ch in _BIDI_CONTROLS:
            continue
        blank = ch.isspace() or ord(ch) < 32 or 127 <= ord(ch) < 160
        if not (blank and chars and chars[-1] == " "):  # one space for a run: no indented code blocks
            chars.append(" " if blank else ch)
    one_line = "".join(chars)
    if len(one_line) <= limit:
        return one_line, ""
    return one_line[:limit], f"… ({len(raw):,} characters)"


def shorten(text: object, limit: int = TEXT_LIMIT) -> str:
    """``text`` on one line, cut to ``limit`` characters: ``"abc… (10,000 characters)"`` when longer.

    Each run of spaces, line breaks, tabs and other control characters becomes one space and
    bidirectional-override characters are dropped (they would reorder what is shown around
    them); the count in the suffix is the length of the original text.
    """
    return "".join(_one_line_parts(text, limit))


def plain(text: object, limit: int = TEXT_LIMIT) -> str:
    """User- or link-controlled ``text`` for a Markdown element, shown literally and shortened.

    The result goes into the body of ``st.warning``, ``st.caption``, ``st.markdown`` and the like
    and displays exactly the characters of :func:`shorten` ``(text, limit)``: no link, emphasis,
    code, heading, list, LaTeX, colour directive, icon, emoji, autolink, typographic arrow or HTML.
    Use it for every value a person or a shared link controls (URL values, file names, CSV cells,
    error messages that quote them), and only there: the escapes are noise in the app's own text.
    """
    shown, suffix = _one_line_parts(text, limit)
    out: list[str] = []
    prev = ""
    for ch in shown:
        if ch == "." or (ch in _ARROW_CHARS and prev in _ARROW_CHARS and prev):
            out.append(WORD_JOINER)  # "www." autolinks; "->", "<=", "--" typography
        out.append("\\" + ch if ch in _MARKDOWN_PUNCTUATION else ch)
        if ch in ":@":
            out.append(WORD_JOINER)  # ":smile:", ":material/x:", "https://", "a@b.org"
        prev = ch
    return "".join(out) + suffix


def plain_chart(text: object, limit: int = TEXT_LIMIT) -> str:
    """User- or link-controlled ``text`` for a Plotly title, label or hover text, shown literally.

    Plotly reads a subset of HTML in its strings (``<b>``, ``<br>``, ``<a href=...>``, entities
    such as ``&lt;``): escaping ``&``, ``<`` and ``>`` leaves only text. ``#`` is written as
    ``&#35;`` too: the browser turns Streamlit's colour placeholders (``#000001`` … ``#000040``)
    into theme colours wherever they appear in a figure, so a file named ``run#000012.csv`` would
    otherwise be shown as ``run#c7ebff.csv``. Shortened like :func:`plain`.
    """
    escaped = shorten(text, limit).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return escaped.replace("#", "&#35;")
