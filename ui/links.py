"""Reading a shared link's settings: values as numbers, matched within rounding, and said plainly.

Streamlit's ``bind="query-params"`` compares the URL's *text* with each option's text, so
``eps=1e-7`` (the slider prints ``1e-07``) or ``d=16.0`` is dropped, ``gamma=0.52`` is taken off
the slider's steps and ``d=16&d=768`` falls back to the default. ``ui.sidebar.sidebar`` therefore
reads the link itself on a session's first run, resolves every known key here, writes the
canonical text back into the URL before any widget exists and reruns, so each bound widget seeds
itself from text it understands (and a copied link carries that text).

Everything here is pure: the URL's values in, a :class:`Resolved` out. Notes are Markdown-safe
(every value from the link goes through :func:`ui.text.plain`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from layernorm.data.numbers import link_text as link_text
from ui.text import plain

REL_TOL = 1e-9  # "the same number within rounding": 1e-7 and 1e-07, 16 and 16.0, 0.5 and 0.5000000001


@dataclass(frozen=True)
class Choice:
    """A select_slider over numbers: only ``options`` exist; ``show`` is the widget's own text.

    A link's text equal to an option's shown text picks that option, even where the text rounds it
    (``f"{v:.3g}"``); any other number is matched within rounding, clamped or moved to the nearest.
    """

    options: Sequence[float]
    default: float
    show: Callable[[float], str]
    what: str  # one value in a sentence: "size", "ε"


@dataclass(frozen=True)
class Range:
    """A slider or number_input from ``lo`` to ``hi`` in steps of ``step`` (``step=1``: whole numbers)."""

    lo: float
    hi: float
    step: float
    default: float
    what: str  # one value in a sentence: "γ", "seed"


@dataclass(frozen=True)
class Words:
    """A selectbox over strings: exact match first, then one that differs only in case and spaces."""

    options: Sequence[str]
    default: str
    what: str  # "inputs", "presets"


@dataclass(frozen=True)
class Flag:
    """A checkbox or toggle: the URL says ``true`` or ``false`` (also read: 1/0, yes/no, on/off)."""

    default: bool
    what: str  # the control's name in a sentence


@dataclass(frozen=True)
class Text:
    """A text box: any text up to ``max_chars`` characters (longer link text is cut, and said)."""

    default: str
    max_chars: int
    what: str


@dataclass(frozen=True)
class LinkKey:
    """A setting a link may carry: what the page calls it (``"ε"``) and which widget holds it."""

    name: str
    widget: Choice | Range | Words | Flag | Text


@dataclass(frozen=True)
class Resolved:
    """What the lab makes of one key of a link."""

    value: float | str  # the value the widget gets
    text: str | None  # its URL text, or None for the default (no parameter: Streamlit drops defaults)
    note: str | None  # what to tell the user (Markdown-safe), or None: the link said exactly this


def url_number(value: float) -> str:
    """A number as Streamlit writes a bound slider's value into the URL: ``1.0 -> "1"``, ``0.5 -> "0.5"``."""
    v = float(value)
    return str(int(v)) if v == int(v) else repr(v)


_EXPONENT_SPACE = re.compile(r"(?<=[0-9.][eE]) (?=[0-9])")


def number(text: str) -> float | None:
    """The link's text as a number (``"007"``, ``"1E-07"``, ``" 16.0 "``, ``"−3"``), else None (NaN too).

    The one reading of a number for every key of a link, the sidebar's and the pages' own, and for
    the options' shown texts (``"−1"``, ``"1.00e+06"``) when a control decides it is over numbers.

    A number beyond float64's range (``1e999``) or an infinity (``inf``, ``-inf``) is kept as ±inf:
    it is a number above (below) every value a control offers, so the readers clamp it and say so.

    A "+" typed into an address reaches the app as a space (a query string's "+" is one), so an
    exponent's space is read as its "+": a hand-typed ``1e+08`` arrives as ``"1e 08"`` and is 1e8.
    """
    text = _EXPONENT_SPACE.sub("+", text)
    try:
        x = float(text.strip().replace("\u2212", "-"))
    except ValueError:
        return None
    return None if math.isnan(x) else x


def _same(x: float, y: float) -> bool:
    return math.isclose(x, y, rel_tol=REL_TOL, abs_tol=1e-300)


# Each reader returns (value, problem, how): ``problem`` completes "The link's k=v ..." (None when
# the link's value is used as it is) and ``how`` says which value replaces it ("the nearest, ").
_Read = tuple[float | str, str | None, str]


def _read_choice(text: str, w: Choice) -> _Read:
    for option in w.options:  # the widget's own text ("0.00316" for 0.0031622…): exactly that option
        if text.strip() == w.show(option):
            return option, None, ""
    x = number(text)
    if x is None:
        return w.default, "is empty" if not text.strip() else "is not a number", "the default "
    for option in w.options:  # the number itself, or the number its shown text rounds it to
        shown = number(w.show(option))
        if _same(x, option) or (shown is not None and _same(x, shown)):
            return option, None, ""
    lo, hi = min(w.options), max(w.options)
    if x < lo:
        return lo, f"is below the smallest {w.what} offered, {w.show(lo)}", ""
    if x > hi:
        return hi, f"is above the largest {w.what} offered, {w.show(hi)}", ""
    positive = lo > 0  # sizes and ε grow geometrically: nearest on a log scale
    dist = (lambda o: abs(math.log(x / o))) if positive else (lambda o: abs(x - o))
    return min(w.options, key=dist), "is not one of the values offered", "the nearest, "


def _read_range(text: str, w: Range) -> _Read:
    x = number(text)
    if x is None:
        return w.default, "is empty" if not text.strip() else "is not a number", "the default "
    if x < w.lo and not _same(x, w.lo):
        return w.lo, f"is below the smallest {w.what} offered, {url_number(w.lo)}", ""
    if x > w.hi and not _same(x, w.hi):
        return w.hi, f"is above the largest {w.what} offered, {url_number(w.hi)}", ""
    steps = math.floor((x - w.lo) / w.step + 0.5)  # half-way rounds up, as on a ruler
    snapped = min(max(round(w.lo + steps * w.step, 10), w.lo), w.hi)  # round(): 0.1 + 0.2 noise
    if _same(x, snapped) or abs(x - snapped) <= REL_TOL * w.step:
        return snapped, None, ""
    if w.step == 1:
        return snapped, "is not a whole number", "the nearest, "
    return snapped, f"is not on the slider's steps of {url_number(w.step)}", "the nearest step, "


# Option texts the lab once showed, and what they are called now: a link written then still opens
# the view it meant. A label is renamed when it said something untrue (LLaMA uses RMSNorm; γ = σ,
# β = μ undoes the normalization for one vector, not for every token).
RENAMED = {
    "Undo the normalization: γ = σ, β = μ": "Undo for this vector: γ = σ, β = μ",
    "pre-LN: before the sublayer (GPT-2, LLaMA)": "pre-LN: before the sublayer (GPT-2)",
}


def _fold(text: str) -> str:
    return " ".join(text.split()).casefold()


def _read_words(text: str, w: Words) -> _Read:
    if text in w.options:
        return text, None, ""
    folded = _fold(text)
    for option in w.options:
        if _fold(option) == folded:
            return option, None, ""
    for old, now in RENAMED.items():
        if _fold(old) == folded and now in w.options:
            return now, None, ""
    return w.default, "is empty" if not text.strip() else f"is not one of the {w.what}", "the default "


_TRUE, _FALSE = ("true", "1", "yes", "on"), ("false", "0", "no", "off")


def _read_flag(text: str, w: Flag) -> _Read:
    word = text.strip().casefold()
    if word in _TRUE or word in _FALSE:
        return ("true" if word in _TRUE else "false"), None, ""
    return str(w.default).lower(), "is empty" if not word else "is neither true nor false", "the default "


def _read_text(text: str, w: Text) -> _Read:
    if len(text) <= w.max_chars:
        return text, None, ""
    return text[: w.max_chars], f"is longer than {w.max_chars} characters", "its first ones: "


def _read(text: str, w: Choice | Range | Words | Flag | Text) -> _Read:
    if isinstance(w, Flag):
        return _read_flag(text, w)
    if isinstance(w, Text):
        return _read_text(text, w)
    if isinstance(w, Choice):
        return _read_choice(text, w)
    if isinstance(w, Range):
        return _read_range(text, w)
    return _read_words(text, w)


def resolve(key: str, values: Sequence[str], spec: LinkKey) -> Resolved:
    """The value a link's ``key`` (all its ``values``, in order; the last one counts) gives the lab.

    A value equal to an offered one within rounding is used silently; anything else is clamped,
    moved to the nearest step or option, or replaced by the default, and the note says which
    value the lab uses instead. A key given more than once uses the last value, and says so.
    """
    last = values[-1] if values else ""
    w = spec.widget
    value, problem, how = _read(last, w)
    if isinstance(w, Flag):
        shown = f"{spec.name} {'on' if value == 'true' else 'off'}"
        text = None if value == str(w.default).lower() else str(value)
    elif isinstance(w, Text):
        shown = f"{spec.name} “{plain(str(value))}”"
        text = None if value == w.default else str(value)
    elif isinstance(w, Words):  # options can quote user text (a token of a typed sentence)
        shown = f"{spec.name} “{plain(str(value))}”"
        text = None if value == w.default else str(value)
    else:
        as_text = w.show if isinstance(w, Choice) else url_number
        shown = f"{spec.name} = {as_text(float(value))}"
        text = None if _same(float(value), w.default) else as_text(float(value))
    # A key given twice is news unless every copy says exactly the same value (d=16&d=16.0).
    repeated = len(values) > 1 and any(_read(v, w) != (value, None, "") for v in values)
    if repeated:
        given = plain("&".join(f"{key}={v}" for v in values))
        times = "twice" if len(values) == 2 else f"{len(values)} times"
        if problem is None:
            note = f"{given}: the link gives {key} {times}; the lab uses {shown} (the last)."
        else:
            note = (
                f"{given}: the link gives {key} {times}; the last, {plain(last)}, {problem}, "
                f"so the lab uses {how}{shown}."
            )
    elif problem is not None:
        note = f"The link's {key}={plain(last)} {problem}; the lab uses {how}{shown}."
    else:
        note = None
    return Resolved(value=value, text=text, note=note)


def _listed(given: dict[str, list[str]], show: int, owners: dict[str, list[str]] | None = None) -> str:
    """``k=v`` for the first ``show`` keys of ``given``, as plain text; with ``owners``, each key's pages."""
    pairs = [plain(f"{k}={v[-1] if v else ''}", 40) for k, v in list(given.items())[:show]]
    if owners is not None:
        pages = [plain(" or ".join(owners.get(k, [])), 80) for k in list(given)[:show]]
        pairs = [f"{pair} ({where})" for pair, where in zip(pairs, pages, strict=True)]
    more = f" and {len(given) - show} more" if len(given) > show else ""
    return ", ".join(pairs) + more


def unread_keys_note(given: dict[str, list[str]], *, show: int = 5) -> str | None:
    """One sentence for the link's keys of this page's controls that this view does not draw now.

    A page that stops early (a tensor too large to build, d = 2 on Invariances) never reaches some of
    its controls; their link values are read, clamped and said when the controls appear.
    """
    if not given:
        return None
    one = len(given) == 1
    # "when the link opened": the note stays in the sidebar while a fragment redraws the page, also
    # after a control it names has appeared there (and been read), so it must stay true then too.
    return (
        f"The link's {_listed(given, show)} {'sets a control' if one else 'set controls'} of this page "
        f"that {'was' if one else 'were'} not shown when the link opened: {'it is' if one else 'they are'} "
        f"read when {'it appears' if one else 'they appear'}."
    )


def other_pages_keys_note(
    given: dict[str, list[str]], owners: dict[str, list[str]], *, show: int = 5
) -> str | None:
    """One sentence for the link's keys that set a control of another page (used when it is opened).

    ``owners`` maps each key to the titles of the pages that have the control, e.g.
    ``{"depth_layers": ["Depth and drift"]}``; keys and values are shown as plain text.
    """
    if not given:
        return None
    if len(given) == 1:
        return (
            f"The link's {_listed(given, show, owners)} sets a control of another page: it is not used on "
            "this one, and it is used when you open that page."
        )
    return (
        f"The link's {_listed(given, show, owners)} set controls of other pages: they are not used on "
        "this one, and each is used when you open its page."
    )


def unknown_keys_note(given: dict[str, list[str]], *, show: int = 5) -> str | None:
    """One sentence for the link's keys that are no setting of the lab (they are ignored, not removed)."""
    if not given:
        return None
    if len(given) == 1:
        return f"The link's {_listed(given, show)} is not a setting of this lab and was ignored."
    return f"The link's {_listed(given, show)} are not settings of this lab and were ignored."
