"""A page control's link value is a number read as the sidebar reads one, whatever its spelling.

Invariances' c options are shown with the true minus sign ("−1"): the options were taken for words,
so ``inv_c=-1`` (and -100, -0.001, 1e6) fell back to the default c = 2 with a note saying −1 was not
offered. Every numeric page control (``ui.keys.PAGE_KEYS``) is recorded as the pages draw it, and
each offered value, in every spelling below, must pick exactly that value without a note; a value
that is not offered picks the nearest one, and the note names it.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from apptest_support import open_page

import layernorm as ln
import ui.controls as controls
import ui.keys as keys
from ui import links

ROOT = Path(__file__).resolve().parents[1]
FILES = {p.stem.split("_", 1)[1]: f"pages/{p.name}" for p in (ROOT / "pages").glob("*.py")}
# Views that draw controls the default view does not.
MORE_VIEWS = {
    "which_axis": {"axes_source": "Real MiniLM batch (padded)"},
    "gradients": {"grad_kind": "One-hot"},
    "precision": {"fused_case": "LayerNorm: one feature (d = 1), β = −1, ε = 0.1"},
}
# The controls over numbers, by how the link reads them (a slider or box: Range; a choice: Choice).
NUMERIC_CHOICES = {
    "var_scale", "var_offset", "std_spread", "axes_d", "tvi_d", "tvi_auto_steps", "depth_width",
    "lr_gain", "lr_width", "lr_steps", "lr_pick", "ys_eps", "prec_offset", "inv_c", "geo_d", "grad_spread",
    "grad_check_h", "steps_lr", "fused_v", "fused_x", "fused_gamma", "now_alpha", "now_qk_layer",
    "now_qk_head", "now_qk_scale",
}  # fmt: skip
MINUS = "\u2212"

Spec = tuple[links.Choice | links.Range, str]


@pytest.fixture(scope="module")
def numeric_specs() -> Iterator[dict[str, Spec]]:
    """Each page control over numbers, as the page hands it to the link reader (run every page once)."""
    seen: dict[str, Any] = {}
    original = controls.link_control

    def spy(key: str, widget: Any, name: str | None = None, where: Any = None) -> None:
        seen[key] = (widget, name or key)
        original(key, widget, name, *([where] if where is not None else []))

    controls.link_control = spy  # type: ignore[assignment]
    try:
        for page in keys.PAGE_KEYS:
            if page in FILES:
                for params in ({}, MORE_VIEWS.get(page)):
                    if params is not None:
                        open_page(FILES[page], **params)
    finally:
        controls.link_control = original  # type: ignore[assignment]
    assert set(seen) == keys.ALL_PAGE_KEYS  # every control was drawn and recorded
    yield {k: v for k, v in seen.items() if isinstance(v[0], (links.Choice, links.Range))}


def spellings(value: float) -> list[str]:
    """Ways a person writes ``value``: ASCII or true minus, exponents of every form, trailing zeros,
    a plus sign, spaces around."""
    exact = Decimal(repr(value))
    mantissa, exponent = f"{exact.normalize():e}".split("e")
    positional = format(exact, "f")
    forms = {
        repr(value),
        f"{value:g}",
        f"{value:e}",
        f"{value:.2e}",
        f"{value:E}",
        f"{mantissa}e{int(exponent)}",  # 1e6, -1e-3
        f"{mantissa}E{int(exponent)}",
        positional + ("000" if "." in positional else ".000"),  # trailing zeros
    }
    exact_forms = sorted(f for f in forms if float(f) == value)  # 1.02e+03 is not 1024: a rounding
    out: list[str] = []
    for form, minus, spaces in itertools.product(exact_forms, ("-", MINUS), (False, True)):
        text = form.replace("-", minus)
        if value >= 0 and minus == "-":
            text = "+" + text if spaces else text
        out.append(f" {text} " if spaces else text)
    return out


def _offered(spec: links.Choice | links.Range) -> list[float]:
    if isinstance(spec, links.Choice):
        return [float(o) for o in spec.options]
    k = round((spec.hi - spec.lo) / spec.step)
    return sorted(
        {spec.lo, spec.hi, spec.default, *(round(spec.lo + spec.step * j, 10) for j in (1, k // 3, k - 1))}
    )


def _shown(spec: links.Choice | links.Range, value: float) -> str:
    return spec.show(value) if isinstance(spec, links.Choice) else links.url_number(value)


def test_every_control_over_numbers_is_read_as_numbers(numeric_specs: dict[str, Spec]) -> None:
    choices = {k for k, (spec, _) in numeric_specs.items() if isinstance(spec, links.Choice)}
    assert choices == NUMERIC_CHOICES


def test_every_spelling_of_an_offered_value_picks_it_without_a_note(numeric_specs: dict[str, Spec]) -> None:
    failures = []
    for key, (spec, name) in sorted(numeric_specs.items()):
        for value in _offered(spec):
            # the exact value, and the number its shown text rounds it to ("0.00316" for 10**-2.5)
            numbers = {value, ln.parse_number(_shown(spec, value))}
            for text in (t for n in sorted(numbers) for t in spellings(n)):
                got = links.resolve(key, [text], links.LinkKey(name, spec))
                if abs(float(got.value) - value) > 1e-12 * max(abs(value), 1e-300) or got.note is not None:
                    failures.append((key, text, got.value, value, got.note))
    assert failures == []


def test_a_value_not_offered_picks_the_nearest_and_names_it(numeric_specs: dict[str, Spec]) -> None:
    failures = []
    for key, (spec, name) in sorted(numeric_specs.items()):
        offered = _offered(spec)
        cases: list[tuple[float, float]] = [(offered[0] - (abs(offered[0]) + 1), offered[0])]
        cases.append((offered[-1] + (abs(offered[-1]) + 1), offered[-1]))
        if isinstance(spec, links.Choice):  # 1 % of the way to the next option, from either side
            for a, b in itertools.pairwise(offered):
                cases += [(a + 0.01 * (b - a), a), (b - 0.01 * (b - a), b)]
        else:  # 0.3 of a step off the step
            cases += [(v + 0.3 * spec.step, v) for v in offered[:-1]]
        for x, nearest in cases:
            for text in (repr(x), repr(x).replace("-", MINUS), f"{x:.6e}"):
                got = links.resolve(key, [text], links.LinkKey(name, spec))
                said = f"the lab uses {'' if nearest in (offered[0], offered[-1]) else 'the nearest'}"
                ok = float(got.value) == nearest and got.note is not None
                ok = ok and f"{name} = {_shown(spec, nearest)}." in got.note and "default" not in got.note
                if not ok or said not in (got.note or ""):
                    failures.append((key, text, got.value, nearest, got.note))
    assert failures == []


@pytest.mark.parametrize(
    ("text", "c"),
    [
        ("-1", -1.0),
        (f"{MINUS}1", -1.0),
        ("-100", -100.0),
        ("-0.001", -0.001),
        ("1e6", 1e6),
        ("1.00e+06", 1e6),
    ],
)
def test_a_typed_link_to_invariances_teaches_the_c_it_gives(text: str, c: float) -> None:
    at = open_page(FILES["invariances"], src="Type numbers", typed="1,2,4,8", inv_c=text, inv_b="3")
    assert (at.session_state["inv_c"], at.session_state["inv_b"]) == (c, 3.0)
    assert [w.value for w in at.warning if "inv" in str(w.value)] == []


def test_a_c_not_offered_takes_the_nearest_and_says_which() -> None:
    at = open_page(FILES["invariances"], src="Type numbers", typed="1,2,4,8", inv_c="7")
    assert at.session_state["inv_c"] == 10.0
    notes = [str(w.value) for w in at.warning if "inv" in str(w.value)]
    assert notes == ["The link's inv_c=7 is not one of the values offered; the lab uses the nearest, c = 10."]


def test_the_lab_writes_every_offered_number_in_ascii_that_reads_back(numeric_specs: dict[str, Spec]) -> None:
    """The text a link carries for an offered value (what Streamlit writes into the address, and what the
    lab rewrites a hand-typed link to) is ASCII with no "+": a pasted link showed ``inv_c=%E2%88%9210``
    for c = −10, and ``1e%2B05`` for 1e+05. Read back, it picks the same value."""
    failures = []
    for key, (spec, name) in sorted(numeric_specs.items()):
        for value in _offered(spec):
            text = _shown(spec, value)
            got = links.resolve(key, [text], links.LinkKey(name, spec))
            if not text.isascii() or "+" in text or " " in text or float(got.value) != value or got.note:
                failures.append((key, value, text))
    assert failures == []


@pytest.mark.parametrize("page", sorted(FILES))
def test_every_bound_choice_shows_its_numbers_as_the_link_carries_them(page: str) -> None:
    """Streamlit writes a bound select slider's shown option into the URL: numeric options must be
    shown in the link's ASCII (the live sliders show their own labels; their kept slider is this one)."""
    at = open_page(FILES[page], **MORE_VIEWS.get(page, {}))
    for el in at.get("select_slider"):
        if el.proto.query_param_key and all(links.number(t) is not None for t in el.proto.options):
            assert all(t.isascii() and "+" not in t for t in el.proto.options), (
                el.proto.query_param_key,
                el.proto.options,
            )


def test_a_hand_typed_plus_in_an_exponent_reads_as_typed(numeric_specs: dict[str, Spec]) -> None:
    """A "+" typed into an address reaches the app as a space (``var_offset=1e+08`` arrives as
    ``"1e 08"``): it was "not a number", and the note quoted "1e 08", which nobody typed."""
    failures = []
    for key, (spec, name) in sorted(numeric_specs.items()):
        for value in _offered(spec):
            typed = f"{value:e}"  # 1.000000e+08
            if "+" in typed and float(typed) == value:
                text = typed.replace("+", " ")
                got = links.resolve(key, [text], links.LinkKey(name, spec))
                if float(got.value) != value or got.note is not None:
                    failures.append((key, text, got.value, got.note))
    assert failures == []
