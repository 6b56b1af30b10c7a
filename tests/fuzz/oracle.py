"""What the fuzzer checks on a rendered page, independent of how the page formats its numbers.

Three kinds of checks live here, all pure functions over AppTest elements:

- :func:`read_shown` / :func:`shown_matches`: a number as the page shows it ("1.235", "−0.5",
  "4.913e−07", "1.2 × 10⁻⁵", "0 (to rounding)") compared with the core's value *within the
  precision the text shows*. The pages' formatting is being changed by other people; this
  never calls ``ui.text``, so it does not care how many digits a page chooses.
- :func:`expected_statistics`: for each lesson page (1–5), the statistics it must show, computed
  here from ``layernorm`` on the vector the sidebar accepted (``LabInput``) and the page's own
  widget values.
- :func:`markdown_exposed` and :func:`traceback_text`: user text that reaches Markdown
  unescaped, and tracebacks shown anywhere.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import numpy as np
from live_support import page_tex

import layernorm as ln

# --- numbers as shown ----------------------------------------------------------------------------

_SUPERSCRIPT = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺", "0123456789-+")
_MINUSES = str.maketrans({"\u2212": "-", "\u2013": "-", "\u2014": "-", "\u2012": "-"})
_NUMBER = re.compile(
    r"""^\s*(?P<sign>[-+]?)\s*
    (?P<int>\d[\d,\u2009\u202f\u00a0\u2007']*)?(?:\.(?P<frac>\d*))?
    (?:\s*(?:[eE](?P<exp>[-+]?\d+)
          |[×x·*]\s*10\s*\^?\s*\{?\s*(?P<exp2>[-+]?\d+)\s*\}?))?
    (?P<rest>.*)$""",
    re.VERBOSE | re.DOTALL,
)


@dataclass(frozen=True)
class Shown:
    """A number read back from page text.

    ``value`` is what the text says; ``half_unit`` is half a unit in its last shown digit
    (the text is right when the true value is within it); ``rounding_zero`` marks texts such as
    "0 (to rounding)": exactly zero in exact arithmetic, rounding noise in float64.
    """

    value: float
    half_unit: float
    rounding_zero: bool = False
    exact_zero: bool = False
    exact: Decimal = Decimal(0)  # the shown number exactly (value may overflow: "2e+308")


def read_shown(text: str) -> Shown | None:
    """Parse a number the way a reader of the page would; ``None`` if the text is not one."""
    t = str(text).translate(_MINUSES).strip()
    if t in {"∞", "+∞", "inf", "Infinity"}:
        return Shown(math.inf, 0.0, exact=Decimal("Infinity"))
    if t in {"-∞", "-inf", "-Infinity"}:
        return Shown(-math.inf, 0.0, exact=Decimal("-Infinity"))
    if t in {"NaN", "nan"}:
        return Shown(math.nan, 0.0, exact=Decimal("NaN"))
    t = t.replace("\\times", "×").replace("\\cdot", "·").replace("\\,", "").replace("\\ ", " ")
    t = re.sub(r"10\s*([⁻⁺]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+)", lambda m: "10^" + m.group(1).translate(_SUPERSCRIPT), t)
    m = _NUMBER.match(t)
    if m is None or (m.group("int") is None and not m.group("frac")):
        return None
    digits_int = re.sub(r"[^\d]", "", m.group("int") or "0")
    frac = m.group("frac") or ""
    exp = int(m.group("exp") or m.group("exp2") or 0)
    rest = m.group("rest").strip()
    exact = Decimal(f"{'-' if m.group('sign') == '-' else ''}{digits_int}.{frac or '0'}e{exp}")
    value = float(exact)
    half = float(Decimal("0.5") * Decimal(10) ** (exp - len(frac)))
    exact_zero = exact == 0
    if rest:
        if exact_zero and re.fullmatch(r"\(\s*(to|up to)\s+(float64\s+)?rounding\s*\)", rest):
            return Shown(0.0, 0.0, rounding_zero=True)
        return None
    return Shown(value, half, exact_zero=exact_zero, exact=exact)


def shown_matches(text: str, expected: float, noise: float = 0.0) -> str | None:
    """``None`` when ``text`` shows ``expected`` correctly, else a sentence saying why not.

    ``noise`` is the size of float64 rounding for this quantity (0 for a statistic that is
    never "zero up to rounding"): a shown 0, or "0 (to rounding)", is right when
    ``|expected| <= noise``. Any other number is right when it is within half a unit of its
    last shown digit of ``expected``.
    """
    shown = read_shown(text)
    e = float(expected)
    if shown is None:
        return f"shows {text!r}, which is not a number (expected {e!r})"
    if math.isnan(e) or shown.exact.is_nan():
        return None if math.isnan(e) and shown.exact.is_nan() else f"shows {text!r}, expected {e!r}"
    if math.isinf(e) or shown.exact.is_infinite():
        return None if e == shown.value and shown.exact.is_infinite() else f"shows {text!r}, expected {e!r}"
    if shown.rounding_zero or shown.exact_zero:
        if e == 0 or abs(e) <= noise:
            return None
        kind = "“0 up to rounding”" if shown.rounding_zero else "0"
        return f"shows {text!r} ({kind}) but the core gives {e!r} (rounding noise here is {noise:.3g})"
    # Exact decimal arithmetic: "2e+308" is a fine 1-digit rounding of 1.5e308 but no float.
    tol = Decimal(shown.half_unit) * Decimal("1.000000001") + Decimal(4 * math.ulp(e)) + Decimal(noise)
    if abs(shown.exact - Decimal(e)) <= tol:
        return None
    return f"shows {text!r} = {shown.value!r}, but the core gives {e!r} (allowed ±{float(tol):.3g})"


def latex_result(body: str) -> str:
    """The text after the last ``=`` of a LaTeX formula: the number a derivation ends with."""
    return body.rsplit("=", 1)[-1].strip() if "=" in body else ""


# --- what each lesson page must show -------------------------------------------------------------


@dataclass(frozen=True)
class Stat:
    """One statistic a page shows: its metric label and the core's value (or a fixed text)."""

    label: str
    value: float | None = None
    noise: float = 0.0
    text: str | None = None  # a word instead of a number ("overflow", "undefined (d = 1)")
    delta: float | None = None  # the metric's delta, when the page shows one


def rounding(*arrays: Any) -> float:
    """Generous float64 rounding noise for a result built from these numbers (1e-9 relative)."""
    biggest = 0.0
    for a in arrays:
        arr = np.abs(np.asarray(a, dtype=float))
        arr = arr[np.isfinite(arr)]
        if arr.size:
            biggest = max(biggest, float(arr.max()))
    return 1e-9 * biggest


def widget_value(at: Any, kind: str, key: str, default: Any) -> Any:
    """The value of the page's widget ``key`` (``default`` when the page has no such widget)."""
    try:
        return getattr(at, kind)(key=key).value
    except KeyError:
        return default


def _shared_pair_statistics(at: Any) -> list[Stat]:
    """Scale & shift's section of real tokens under the γ, β that undo one of them."""
    from layernorm.data.activations import load_minilm_recording
    from layernorm.labs.shared_affine import undo_for_token
    from ui.text import fmt

    rec = load_minilm_recording()
    sentence = int(widget_value(at, "selectbox", "ss_many_sentence", 0))
    site = int(widget_value(at, "selectbox", "ss_many_site", 2))
    positions = [int(t) for t in rec.real_token_indices(sentence)]
    token = int(widget_value(at, "selectbox", "ss_many_token", positions[0]))
    tokens = rec.sentence_tokens(sentence, site)
    r = undo_for_token(tokens, positions.index(token), eps=float(rec.eps[site]))
    return [
        Stat(f"token {token} · {rec.tokens[sentence, token]}: largest |y − x|", float(r.miss[r.k])),
        Stat("every other token: largest |y − x|", float(np.max(np.delete(r.miss, r.k)))),
        Stat("shared γ = σ, β = μ of the token", text=f"{fmt(r.gamma)}, {fmt(r.beta)}"),
    ]


def expected_statistics(page: str, at: Any, lab: Any, gamma: Any = None, beta: Any = None) -> list[Stat]:
    """The metrics lesson page ``page`` must show for the accepted input ``lab`` (a ``LabInput``).

    ``gamma`` and ``beta`` override ``lab``'s (the Scale & shift page's own per-feature table).
    Empty for pages without sidebar statistics.
    """
    from layernorm.variants import layer_norm_unbiased, variance_one_pass

    x0 = np.asarray(lab.x, dtype=float)
    d, eps = int(x0.size), float(lab.eps)
    if page == "1_mean":
        shift = float(widget_value(at, "slider", "mean_shift", 0.0))
        x = x0 + shift
        s = ln.layer_norm_steps(x, eps=eps)
        return [
            Stat("d (features)", d),
            Stat("μ (mean)", float(s.mu), delta=shift if shift else None),
            Stat("mean of x − μ", float(ln.mean(s.centered)), rounding(x, s.centered)),
        ]
    if page == "2_variance":
        x = x0 * float(widget_value(at, "select_slider", "var_scale", 1.0))
        s = ln.layer_norm_steps(x, eps=eps)
        out = [
            Stat("σ² (÷d, population)", float(s.var)),
            Stat("σ = √σ²", float(s.sigma)),
            Stat("÷(d−1) would give", float(ln.variance(x, ddof=1)))
            if d > 1
            else Stat("÷(d−1) would give", text="undefined (d = 1)"),
        ]
        if d > 1:
            right = ln.standardize(x, eps=eps)
            wrong = layer_norm_unbiased(x, eps=eps)
            out += [
                Stat("variance of x̂ with ÷d", float(ln.variance(right))),
                Stat("variance of x̂ with ÷(d−1)", float(ln.variance(wrong))),
                Stat("(d − 1)/d", (d - 1) / d),
            ]
        shifted = x + float(widget_value(at, "select_slider", "var_offset", 1e4))
        naive = float(variance_one_pass(shifted, dtype=np.float32))
        out.append(Stat("two-pass, float64 (this lab)", float(ln.variance(shifted))))
        one_pass = "one-pass E[x²] − μ² in float32"
        out.append(Stat(one_pass, naive) if math.isfinite(naive) else Stat(one_pass, text="overflow"))
        return out
    if page == "3_standardize":
        s = ln.layer_norm_steps(x0, eps=eps)
        spread = float(widget_value(at, "select_slider", "std_spread", 1e-3))
        near = ln.layer_norm_steps(3.0 + spread * ln.make_preset("standard normal", 8, seed=1), eps=eps)
        return [
            Stat("ε", eps),
            Stat("mean of x̂", float(ln.mean(s.x_hat)), rounding(s.x_hat, 1.0)),
            Stat("variance of x̂", float(ln.variance(s.x_hat))),
            Stat("σ² / (σ² + ε)", float(s.x_hat_var_expected)),
            Stat("σ² of this vector", float(near.var)),
            Stat("ε", eps),
            Stat("variance of x̂", float(ln.variance(near.x_hat))),
        ]
    if page == "4_scale_shift":
        g = lab.gamma if gamma is None else gamma
        b = lab.beta if beta is None else beta
        s = ln.layer_norm_steps(x0, g, b, eps=eps)
        return [
            Stat("mean of y", float(ln.mean(s.y)), rounding(s.y, np.asarray(b), np.asarray(g))),
            Stat("standard deviation of y", float(ln.std(s.y)), rounding(s.y)),
            Stat("largest |y − x|", ln.max_abs_diff(s.y, s.x), rounding(s.y, s.x)),
            *_shared_pair_statistics(at),
        ]
    if page == "5_full_formula":
        s = ln.layer_norm_steps(x0, lab.gamma, lab.beta, eps=eps)
        return [
            Stat("μ", float(s.mu)),
            Stat("σ²", float(s.var)),
            Stat("√(σ² + ε)", float(s.std)),
            Stat("d", d),
        ]
    return []


def expected_latex(page: str, at: Any, lab: Any) -> list[tuple[str, float]]:
    """(marker, value) pairs: a formula containing ``marker`` must end in ``= value``."""
    x0 = np.asarray(lab.x, dtype=float)
    if page == "1_mean":
        x = x0 + float(widget_value(at, "slider", "mean_shift", 0.0))
        return [(r"\mu = \frac{1}{d}", float(ln.mean(x)))]
    if page == "2_variance":
        x = x0 * float(widget_value(at, "select_slider", "var_scale", 1.0))
        return [(r"\sigma^2 = \frac{1}{d}", float(ln.variance(x)))]
    return []


def latex_feature_check(at: Any, lab: Any) -> str | None:
    r"""Standardize page: the worked feature ``\hat{x}_{i}`` must be a real feature and end in its x̂."""
    for value in page_tex(at):  # st.latex and the live readouts' formulas
        m = re.match(r"\s*\\hat\{x\}_\{(\d+)\}", value)
        if not m:
            continue
        i = int(m.group(1))
        if not 1 <= i <= lab.d:
            return f"the worked example shows feature i = {i}, but d = {lab.d}"
        want = float(ln.layer_norm_steps(lab.x, eps=lab.eps).x_hat[i - 1])
        why = shown_matches(latex_result(value), want, rounding(want, 1.0))
        return None if why is None else f"x̂_{i} in the worked example {why}"
    return None


def full_formula_table_check(at: Any, lab: Any) -> str | None:
    """Full formula page: every column of the table equals the core's intermediate."""
    frames = [df.value for df in at.main.dataframe]
    table = next((f for f in frames if hasattr(f, "columns") and "x̂" in f.columns and "y" in f.columns), None)
    if table is None:
        return None
    s = ln.layer_norm_steps(lab.x, lab.gamma, lab.beta, eps=lab.eps)
    want = {
        "x": s.x,
        "μ": np.full(lab.d, float(s.mu)),
        "x − μ": s.centered,
        "σ²": np.full(lab.d, float(s.var)),
        "√(σ² + ε)": np.full(lab.d, float(s.std)),
        "x̂": s.x_hat,
        "γ": s.gamma,
        "β": s.beta,
        "y": s.y,
    }
    if len(table) != lab.d:
        return f"the table has {len(table)} rows for d = {lab.d}"
    for col, values in want.items():
        if col not in table.columns:
            continue
        got = np.asarray(table[col], dtype=float)
        ref = np.broadcast_to(np.asarray(values, dtype=float), got.shape)
        scale = rounding(ref) * 1e-3  # 1e-12 relative to the column's size
        if not np.allclose(got, ref, rtol=1e-12, atol=scale, equal_nan=False):
            bad = int(np.flatnonzero(~np.isclose(got, ref, rtol=1e-12, atol=scale))[0])
            return f"table column {col!r}, row {bad + 1}: shows {got[bad]!r}, the core gives {ref[bad]!r}"
    return None


# --- text checks -----------------------------------------------------------------------------------

_TRACEBACK = re.compile(r"Traceback \(most recent call last\)|File \"[^\"]+\.py\", line \d+")
_EXCEPTION_NAME = re.compile(
    r"\b(?:Type|Value|Key|Index|Attribute|ZeroDivision|Overflow|Runtime|Assertion|Name|Lookup|"
    r"Unicode(?:Decode|Encode)?|NotImplemented|Recursion|Memory|StreamlitAPI)(?:Error|Exception)\b"
)


def traceback_text(text: str, *, source_code: bool = False) -> str | None:
    """The part of ``text`` that looks like a traceback or a Python exception name, if any."""
    m = _TRACEBACK.search(text)
    if m:
        return m.group(0)
    if not source_code:  # st.code blocks show the core's source, which raises ValueError on purpose
        m = _EXCEPTION_NAME.search(text)
        if m:
            return m.group(0)
    return None


_REPR = re.compile(r"\bnp\.(?:float|int|uint|bool|str)\w*\(|\barray\(\[|\bdtype=|<function |object at 0x")
NAN = re.compile(r"(?<![A-Za-z])nan(?![A-Za-z])", re.IGNORECASE)


def python_repr(text: str) -> str | None:
    """A piece of Python's ``repr`` in page text (``np.float64(1.5)``, ``array([...])``), if any."""
    m = _REPR.search(text)
    return m.group(0) if m else None


def _code_spans(md: str) -> list[tuple[int, int, int, int]]:
    """Inline code spans of ``md``: (fence start, contents start, contents end, end of closing fence)."""
    spans: list[tuple[int, int, int, int]] = []
    i, n = 0, len(md)
    while i < n:
        c = md[i]
        if c == "\\" and i + 1 < n:
            i += 2
            continue
        if c != "`":
            i += 1
            continue
        j = i
        while j < n and md[j] == "`":
            j += 1
        run = j - i
        k, close = j, -1
        while k < n:
            if md[k] == "`":
                m = k
                while m < n and md[m] == "`":
                    m += 1
                if m - k == run:
                    close = k
                    break
                k = m
            else:
                k += 1
        if close < 0:
            i = j  # an unmatched run of backticks is literal text
            continue
        spans.append((i, j, close, close + run))
        i = close + run
    return spans


# Characters that change what Markdown (as Streamlit renders it) shows: emphasis, code, links,
# images, HTML, LaTeX, strike-through, tables, Streamlit's :color[...] and :emoji: directives.
_ACTIVE = re.compile(
    r"[*`\\]"  # emphasis, code, a backslash that escapes the app's own next character
    r"|\]\s*[(\[]|^\s*\[[^\]]*\]:"  # links and images: [text](url), [text][ref], [ref]: url
    r"|<[A-Za-z/!?]|<\w+:"  # HTML and autolinks <http://...>
    r"|\$[^$]*\$|~~"  # LaTeX $...$ and strike-through
    r"|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])"  # _emphasis_ (an underscore inside a word is inert)
    r"|:[a-z][a-z0-9_-]*(?:\[|:)|:material/"  # Streamlit's :color[...] and :emoji: / icon shortcodes
    r"|https?://|www\.",  # bare URLs become links
    re.MULTILINE,
)


_INVISIBLE = {"\u2060", "\u200b"}  # word joiner, zero-width space: what messages insert to break autolinks
_ASCII_PUNCT = set("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")


def rendered(md: str) -> tuple[str, list[bool]]:
    """The characters Markdown source ``md`` shows, each with "is it literal?".

    Backslash escapes become their character (literal), code spans their contents (literal),
    invisible joiners (used to break autolinks) disappear; everything else is shown as written
    and may still act as Markdown (not literal).
    """
    opening = {s[0]: s for s in _code_spans(md)}
    out: list[str] = []
    literal: list[bool] = []
    i = 0
    while i < len(md):
        if i in opening:
            _, a, b, after = opening[i]
            out.extend(md[a:b])
            literal.extend([True] * (b - a))
            i = after
            continue
        c = md[i]
        if c == "\\" and i + 1 < len(md) and md[i + 1] in _ASCII_PUNCT:
            out.append(md[i + 1])
            literal.append(True)
            i += 2
            continue
        if c not in _INVISIBLE:
            out.append(c)
            literal.append(False)
        i += 1
    return "".join(out), literal


def markdown_exposed(md: str, user_text: str) -> bool:
    """Does ``user_text`` show in the Markdown ``md`` with some of its Markdown still active?

    Characters inside an intact code span or escaped with a backslash are shown literally;
    an occurrence is exposed when the characters that are *not* literal still form Markdown
    (emphasis, a link, HTML, LaTeX, a :directive[...]). A backtick in the user's text that closes
    the app's code span early counts as exposure too: the rest is then outside the span.
    """
    if not user_text or not _ACTIVE.search(user_text):
        return False
    text, literal = rendered(md)
    start = text.find(user_text)
    while start >= 0:
        effective = "".join("x" if literal[start + k] else ch for k, ch in enumerate(user_text))
        if _ACTIVE.search(effective):
            return True
        start = text.find(user_text, start + 1)
    # written into the source as it is, yet not shown as it is: Markdown changed it
    return user_text in md and user_text not in text


def quoted_forms(user_text: str, limit: int = 40) -> Iterator[str]:
    """The forms in which a message may quote ``user_text``: whole, stripped, and cut short."""
    seen: set[str] = set()
    for t in (user_text, user_text.strip(), user_text[: limit - 1], user_text.strip()[: limit - 1]):
        if len(t) >= 2 and t not in seen:
            seen.add(t)
            yield t


def mentions(texts: Sequence[str], key: str) -> bool:
    """Does any of the messages ``texts`` name the link parameter ``key``?

    Compared as shown (escapes and code spans resolved). A key of one or two characters must
    appear as ``key=…`` or in backticks; a longer one anywhere; a long one by its first 20 characters.
    """

    def norm(text: str) -> str:  # spacing and invisible joiners aside: NBSP, tab and space look alike
        return " ".join("".join(c for c in text if c not in _INVISIBLE).split())

    key = norm(key)
    for raw in texts:
        t = norm(rendered(raw)[0])
        if re.search(rf"(?<![\w]){re.escape(key)}\s*=", t) or f"`{key}`" in raw:
            return True
        if len(key) >= 3 and key[:20] in t:
            return True
    return False
