"""The live controls of the numerics labs (Precision's offset, Gradients' spread): every frame they hold
is what the page rendered for that value before it had a live control.

The expected texts are written here the way the pages wrote them (formula, metrics), from the core and
``ui.text``; the frames must equal them for every value offered, the released page must show its
value's frame, and a link must still open the value it names.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest
from apptest_support import ok, open_page
from live_support import live_data, live_readouts
from streamlit.testing.v1 import AppTest

import layernorm as ln
from layernorm.labs import precision as P
from ui.links import link_text
from ui.live import Readout
from ui.live import estimators as le
from ui.live import gradients as lg
from ui.live import precision as lp
from ui.settings import EPS_CHOICES
from ui.text import (
    ROUNDING_K,
    ZERO_TO_ROUNDING,
    digits_not_to_look_exact,
    digits_to_separate,
    fmt,
    fmt_zero,
    rounding_help,
    rounding_noise,
    tex_minus,
    tex_num,
    tex_vector,
)
from ui.widgets import SPREADS as WIDGET_SPREADS


def slider(at: AppTest, key: str) -> dict[str, Any]:
    """The data of the page's live slider ``key`` (the sidebar may draw live sliders of its own)."""
    (data,) = [d for d in live_data(at) if d["link"]["key"] == key]
    return data


def readout(at: AppTest, key: str) -> dict[str, Any]:
    """What the live readout ``key`` shows now."""
    (shown,) = [r for r in live_readouts(at) if r["key"] == key]
    return shown


# --- Precision: the offset ----------------------------------------------------------------------------

PREC = "pages/13_precision.py"
PREC_DIGITS = {"float16": 4, "bfloat16": 3, "float32": 9, "float64": 17}
PREC_INPUTS = {
    "default": ln.make_preset("standard normal", 8, 0),
    "40000 case": np.array([40000.0, 40001.0, 40002.0, 40003.0]),
    "constant d=8": ln.make_preset("constant", 8, 0),
    "normal d=768": ln.make_preset("standard normal", 768, 3),
}


def precision_tex(x: np.ndarray, eps: float, dtype: str, offset: float) -> str:
    """The formula Precision drew with st.latex for this offset and dtype (its own code, written out)."""
    shifted = x + offset
    one = ln.layer_norm_in_dtype(shifted, dtype=dtype, method="one_pass", eps=eps)
    exact_var = float(ln.variance(shifted))
    shown = [float(one.mean_sq[0]), float(one.mu_sq[0]), float(one.var[0]), exact_var]
    n = digits_to_separate(shown, PREC_DIGITS[dtype])
    if not np.isfinite(one.var[0]):
        one_tex = r"\text{undefined}"
    else:
        one_tex = rf"{tex_num(shown[0], n)} - {tex_num(shown[1], n)} = {tex_num(shown[2], n)}"
    text = "0" if offset == 0 else f"{offset:.0e}".replace("e+0", "e")
    return (
        rf"\text{{{dtype}, offset {text}:}}\quad \sigma^2_{{\text{{one-pass}}}} = {one_tex}"
        rf"\qquad \sigma^2_{{\text{{exact}}}} = {tex_num(exact_var, n)}"
    )


def test_precision_offers_the_offsets_the_select_slider_offered() -> None:
    assert lp.OFFSETS == [0.0, *(m * 10.0**k for k in range(8) for m in (1, 2, 5)), 1e8]
    assert [lp.offset_text(o) for o in (0.0, 1.0, 2e5, 1e8)] == ["0", "1e0", "2e5", "1e8"]


@pytest.mark.parametrize("dtype", list(P.DTYPES))
@pytest.mark.parametrize("name", list(PREC_INPUTS))
def test_every_precision_frame_is_the_formula_the_page_drew(name: str, dtype: str) -> None:
    x = PREC_INPUTS[name]
    sent = lp.frames.__wrapped__(x, 1e-5, dtype)  # type: ignore[attr-defined]  # without the cache
    assert sent["values"] == lp.OFFSETS
    assert sent["labels"] == [lp.offset_text(o) for o in lp.OFFSETS]  # as the select slider showed them
    for offset, f in zip(lp.OFFSETS, sent["frames"], strict=True):  # type: ignore[call-overload]
        (r,) = f["readouts"]
        assert r == {"key": lp.FORMULA, "tex": precision_tex(x, 1e-5, dtype, offset), "metrics": []}
        assert f["charts"] == []  # its chart marks the offset with a vertical line: drawn at rest only
    assert json.loads(json.dumps(sent)) == sent


def test_precision_frames_say_undefined_where_the_one_pass_variance_is() -> None:
    """float16 at an offset of 1e8: the input overflows, and the formula says so in one word."""
    sent = lp.frames.__wrapped__(PREC_INPUTS["default"], 1e-5, "float16")  # type: ignore[attr-defined]
    assert r"\text{undefined}" in sent["frames"][-1]["readouts"][0]["tex"]  # type: ignore[index]


@pytest.mark.parametrize(("offset", "dtype"), [(0.0, "float32"), (2e5, "float16"), (1e8, "bfloat16")])
def test_precision_page_shows_the_frame_of_its_offset(offset: float, dtype: str) -> None:
    at = open_page(PREC)
    ok(at.radio(key="prec_dtype").set_value(dtype).run())
    ok(at.select_slider(key="prec_offset").set_value(offset).run())
    data = slider(at, "prec_offset")
    assert data["index"] == lp.OFFSETS.index(offset)
    assert data["link"] == {
        "key": "prec_offset",
        "urls": [lp.offset_text(o) for o in lp.OFFSETS],
        "default": "1e4",
    }
    shown = readout(at, lp.FORMULA)
    x = at.session_state["lab_input"].x
    assert shown["tex"] == precision_tex(x, 1e-5, dtype, offset)
    assert sum("at this offset:" in m.value for m in at.markdown) == 1  # the sentences stay under it


@pytest.mark.parametrize(("link", "offset"), [("2e5", 2e5), ("1e+08", 1e8), ("0", 0.0), ("3e5", 2e5)])
def test_a_precision_link_opens_its_offset(link: str, offset: float) -> None:
    at = open_page(PREC, prec_offset=link, prec_dtype="float16")
    assert at.select_slider(key="prec_offset").value == offset
    data = slider(at, "prec_offset")
    assert data["index"] == lp.OFFSETS.index(offset)
    shown = readout(at, lp.FORMULA)
    assert shown["tex"] == precision_tex(at.session_state["lab_input"].x, 1e-5, "float16", offset)


# --- Gradients: the spread of the nearly constant vector ------------------------------------------------

GRAD = "pages/15_gradients.py"
SPREADS = [10.0**k for k in range(-8, 1)]


def gradients_metrics(eps: float, spread: float) -> list[dict[str, object]]:
    """The three metrics Gradients drew with st.metric under its ε curve (its own code, written out)."""
    now = ln.layer_norm_jacobian_norm_vs_eps(lg.near_constant(spread), np.array((eps, 0.0)))
    shown = [
        ("largest stretch at your ε", fmt(float(now.norm[0])), "‖J‖ of the nearly constant vector"),
        ("without ε (ε = 0)", fmt(float(now.norm[1])), "1/σ: what the gradient would be"),
        ("ceiling 1/√ε", fmt(float(now.ceiling[0])), None),
    ]
    return [
        {"label": a, "value": v, "delta": None, "arrow": "off", "help": h, "color": "gray"}
        for a, v, h in shown
    ]


def test_gradients_offers_the_spreads_the_select_slider_offered() -> None:
    assert WIDGET_SPREADS == SPREADS  # what the shared spread slider offers
    assert [lg.spread_text(s) for s in SPREADS] == [f"1e-0{k}" for k in range(8, 0, -1)] + ["1e+00"]


@pytest.mark.parametrize("eps", [1e-12, 1e-5, 1.0])
def test_every_gradients_frame_is_the_metrics_the_page_drew(eps: float) -> None:
    sent = lg.frames.__wrapped__(eps)  # type: ignore[attr-defined]  # without the cache
    assert sent["values"] == SPREADS
    assert sent["labels"] == [f"{s:.0e}" for s in SPREADS]  # as the select slider showed them
    seen = set()
    for spread, f in zip(SPREADS, sent["frames"], strict=True):  # type: ignore[call-overload]
        (r,) = f["readouts"]
        assert r == {"key": lg.METRICS, "tex": None, "metrics": gradients_metrics(eps, spread)}
        assert f["charts"] == []  # the ε curve's legend names the spread: drawn at rest only
        seen.add(r["metrics"][0]["value"])
    assert len(seen) > 1  # the spread moves the largest stretch
    assert json.loads(json.dumps(sent)) == sent


@pytest.mark.parametrize("spread", [1e-8, 1e-4, 1.0])
def test_gradients_page_shows_the_frame_of_its_spread(spread: float) -> None:
    at = open_page(GRAD)
    ok(at.select_slider(key="grad_spread").set_value(spread).run())
    data = slider(at, "grad_spread")
    assert data["index"] == SPREADS.index(spread)
    assert data["link"] == {
        "key": "grad_spread",
        "urls": [link_text(f"{s:.0e}") for s in SPREADS],
        "default": "1e-04",
    }
    shown = readout(at, lg.METRICS)
    assert shown["metrics"] == gradients_metrics(1e-5, spread)
    assert not [m for m in at.main.metric if m.label in ("largest stretch at your ε", "ceiling 1/√ε")]  # once


def test_the_sidebars_eps_sends_the_spreads_frames_of_the_new_eps() -> None:
    """The slider is in the section the sidebar's ε reruns: its frames follow ε, not only the metrics."""
    at = open_page(GRAD)
    ok(at.select_slider(key="grad_spread").set_value(1e-2).run())
    ok(at.select_slider(key="eps").set_value(1.0).run())
    data = slider(at, "grad_spread")
    assert data["index"] == SPREADS.index(1e-2)
    # the frames of ε = 1 (their id names their content; the section's rerun sent them, the full run
    # that AppTest adds after it sends the id alone)
    assert data["payload"]["id"] == lg.frames.__wrapped__(1.0)["id"]  # type: ignore[attr-defined]
    assert data["payload"]["id"] != lg.frames.__wrapped__(1e-5)["id"]  # type: ignore[attr-defined]
    shown = readout(at, lg.METRICS)
    assert shown["metrics"] == gradients_metrics(1.0, 1e-2)


@pytest.mark.parametrize(
    ("link", "spread"), [("1e-06", 1e-6), ("1e+00", 1.0), ("0.001", 1e-3), ("1e-8", 1e-8)]
)
def test_a_gradients_link_opens_its_spread(link: str, spread: float) -> None:
    at = open_page(GRAD, grad_spread=link, eps="1e-3")
    assert at.select_slider(key="grad_spread").value == spread
    data = slider(at, "grad_spread")
    assert data["index"] == SPREADS.index(spread)
    shown = readout(at, lg.METRICS)
    assert shown["metrics"] == gradients_metrics(1e-3, spread)


# --- Estimators and ε: the recipe's numbers at an ε ----------------------------------------------------

EST = "pages/12_estimators_and_eps.py"
EST_VECTORS = {
    "default": ln.make_preset("standard normal", 8, 0),
    "one-hot": np.array([1.0, 0.0, 0.0, 0.0]),
    "tiny pair": np.array([0.09484422, 0.16441762]),
    "constant": np.full(4, 3.0),
    "d = 1": np.array([2.5]),
}


# The recipe's denominator by (ddof, ε inside), as the formula writes it: in symbols, and as a template
# for its numbers (v: the variance, e: ε)
RECIPE_DENOMINATORS = {
    (0, True): (r"\sqrt{\sigma^2 + \varepsilon}", r"\sqrt{{{v} + {e}}}"),
    (1, True): (r"\sqrt{s^2 + \varepsilon}", r"\sqrt{{{v} + {e}}}"),
    (0, False): (r"\sqrt{\sigma^2} + \varepsilon", r"\sqrt{{{v}}} + {e}"),
    (1, False): (r"\sqrt{s^2} + \varepsilon", r"\sqrt{{{v}}} + {e}"),
}


def recipe_x_hat_1(x: np.ndarray, ddof: int, inside: bool, eps: float) -> float:
    """x̂₁ by the recipe, in NumPy rather than the core: (x₁ − μ) / √(var + ε), or / (√var + ε)."""
    var = np.var(x, ddof=ddof)
    return float((x[0] - np.mean(x)) / (np.sqrt(var + eps) if inside else np.sqrt(var) + eps))


def estimators_expected(x: np.ndarray, ddof: int, inside: bool, eps: float, name: str) -> dict[str, object]:
    """The formula and metrics Estimators and ε drew with st.latex, st.metric: x̂₁ computed here in NumPy,
    the formula's symbols written out (``RECIPE_DENOMINATORS``), the other metrics from the core."""
    cmp = ln.compare_recipe(x, ddof=ddof, eps_inside=inside, eps=eps, standard_eps=ln.DEFAULT_EPS)
    mu, spread = float(np.mean(x)), float(np.var(x, ddof=ddof))
    val = [float(x[0]), recipe_x_hat_1(x, 0, True, ln.DEFAULT_EPS), recipe_x_hat_1(x, ddof, inside, eps)]
    noise = rounding_noise(val[1:])
    k = digits_not_to_look_exact(
        val[1:], digits_to_separate(val[1:], 4, same_within=noise), same_within=noise
    )
    sym, den = RECIPE_DENOMINATORS[(ddof, inside)]
    numerator = f"{tex_num(val[0], 4)} {tex_minus(mu, 4)}"
    numbers = den.format(v=tex_num(spread, 4), e=tex_num(eps, 3))
    tex = (
        rf"\hat x_1 = \frac{{x_1 - \mu}}{{{sym}}} = \frac{{{numerator}}}{{{numbers}}}"
        rf" = {tex_num(val[2], k)} \quad\text{{(standard, }}\varepsilon = 10^{{-5}}\text{{: }} "
        rf"{tex_num(val[1], k)}\text{{)}}"
    )
    sd = digits_to_separate([cmp.standard_std, cmp.variant_std], 4, same_within=rounding_noise(1.0))
    rms = ln.compare_rms_placement(x, eps=eps)
    layer = ln.compare_recipe(x, ddof=0, eps_inside=True, eps=eps).standard
    firsts, rms_noise = [rms.standard[0], rms.variant[0], layer[0]], rounding_noise(rms.standard)
    rk = digits_not_to_look_exact(
        firsts, digits_to_separate(firsts, 4, same_within=rms_noise), same_within=rms_noise
    )
    return {
        "tex": tex,
        "metrics": [
            ("x̂₁, standard", fmt(val[1], k), "÷d, ε = 1e-5 inside the root (PyTorch, the paper)"),
            ("x̂₁, yours", fmt(val[2], k), f"Your recipe: {name}"),
            ("largest |difference|", fmt(cmp.max_abs_difference, 3), None),
            (
                "spread (std) of x̂: standard → yours",
                f"{fmt(cmp.standard_std, sd)} → {fmt(cmp.variant_std, sd)}",
                None,
            ),
        ],
        "rms": [
            ("LayerNorm x̂₁", fmt(float(layer[0]), rk), None),
            ("RMSNorm₁, ε inside √", fmt(float(rms.standard[0]), rk), None),
            ("RMSNorm₁, ε outside", fmt(float(rms.variant[0]), rk), None),
        ],
    }


def _shown(r: Readout) -> list[tuple[str, str, str | None]]:
    assert all(m.delta is None and m.arrow == "off" for m in r.metrics)
    return [(m.label, m.value, m.help) for m in r.metrics]


@pytest.mark.parametrize("eps", [1e-12, 1e-5, 1e-3, 1.0])
@pytest.mark.parametrize(("ddof", "inside"), [(0, True), (1, True), (0, False), (1, False)])
@pytest.mark.parametrize("name", list(EST_VECTORS))
def test_every_estimators_frame_is_what_the_page_drew(name: str, ddof: int, inside: bool, eps: float) -> None:
    x = EST_VECTORS[name]
    if ddof and x.size == 1:
        pytest.skip("÷(d−1) is undefined for d = 1: the page falls back to ÷d and says so")
    recipe = f"÷{'(d−1)' if ddof else 'd'}, ε {'inside' if inside else 'outside'}, ε = {eps:.3g}"
    f = le.frame(x, ddof=ddof, inside=inside, eps=eps, variant_name=recipe)
    want = estimators_expected(x, ddof, inside, eps, recipe)
    assert [r.key for r in f.readouts] == [le.FORMULA, le.METRICS, le.RMS] and not f.charts
    assert f.readout(le.FORMULA).tex == want["tex"] and not f.readout(le.FORMULA).metrics
    assert f.readout(le.METRICS).tex is None and _shown(f.readout(le.METRICS)) == want["metrics"]
    assert f.readout(le.RMS).tex is None and _shown(f.readout(le.RMS)) == want["rms"]


@pytest.mark.parametrize(
    ("vector", "divisor", "place", "eps_choice"),
    [("sidebar", "d", "inside", "sidebar"), ("one_hot", "d-1", "outside", "PyTorch nn.LayerNorm"),
     ("tiny_pair", "d", "inside", "Keras 3 LayerNormalization")],
)  # fmt: skip
def test_estimators_page_shows_the_frame_of_its_choices(
    vector: str, divisor: str, place: str, eps_choice: str
) -> None:
    at = open_page(EST)
    ok(at.radio(key="est_vector").set_value(vector).run())
    ok(at.radio(key="est_divisor").set_value(divisor).run())
    ok(at.radio(key="est_place").set_value(place).run())
    ok(at.selectbox(key="est_eps").set_value(eps_choice).run())
    x = {
        "sidebar": EST_VECTORS["default"],
        "one_hot": EST_VECTORS["one-hot"],
        "tiny_pair": EST_VECTORS["tiny pair"],
    }
    eps = {p.name: p.eps for p in ln.EPS_PRESETS}.get(eps_choice, 1e-5)
    ddof = 1 if divisor == "d-1" else 0
    recipe = f"÷{'(d−1)' if ddof else 'd'}, ε {place}, ε = {f'{eps:.3g}'.replace('-', '−')}"
    want = estimators_expected(x[vector], ddof, place == "inside", eps, recipe)
    readouts = {r["key"]: r for r in live_readouts(at) if r["key"] in (le.FORMULA, le.METRICS, le.RMS)}
    assert list(readouts) == [le.FORMULA, le.METRICS, le.RMS]  # in page order, where st.latex/st.metric were
    assert readouts[le.FORMULA]["tex"] == want["tex"]
    for key, metrics in ((le.METRICS, want["metrics"]), (le.RMS, want["rms"])):
        assert [(m["label"], m["value"], m["help"]) for m in readouts[key]["metrics"]] == metrics
    assert not at.main.metric and not at.main.latex  # each drawn once


# --- The sidebar's live ε, γ, β on these pages (ui.live.sidebar.view) ---------------------------------


def sidebar_frames(at: AppTest, key: str = "eps") -> list[dict[str, Any]]:
    """The frames the sidebar's live slider ``key`` holds, one per value it offers, for the page as it is
    (a full run: after a page control's move the browser asks for them, and a full run sends them)."""
    data = slider(at, key)
    if "frames" not in data["payload"]:
        at.session_state["_live_asked"] = {key}  # what the component's "missing" trigger records
        ok(at.run())
        data = slider(at, key)
    return data["payload"]["frames"]


def by_key(frame: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {r["key"]: r for r in frame["readouts"]}


@pytest.mark.parametrize("dtype", list(P.DTYPES))
def test_precisions_formula_does_not_depend_on_eps(dtype: str) -> None:
    """E[x²], μ² and σ² are computed before ε is added: the sidebar's ε needs no frames of the formula
    (what ε changes, the table's errors and the sweep's sentences, is dimmed during its drag)."""
    x = PREC_INPUTS["default"]
    for offset in (0.0, 1e4, 1e8):
        assert len({lp.frame(x, eps, dtype, offset).readout(lp.FORMULA).tex for eps in EPS_CHOICES}) == 1


def test_the_sidebars_eps_holds_estimators_numbers_while_its_eps_is_the_sidebars() -> None:
    at = open_page(EST)
    x = EST_VECTORS["default"]
    for eps, f in zip(EPS_CHOICES, sidebar_frames(at), strict=True):
        name = f"÷d, ε inside, ε = {f'{eps:.3g}'.replace('-', '−')}"
        want = estimators_expected(x, 0, True, eps, name)
        shown = by_key(f)
        assert list(shown) == [le.FORMULA, le.METRICS, le.RMS]
        assert shown[le.FORMULA]["tex"] == want["tex"]
        for key, metrics in ((le.METRICS, want["metrics"]), (le.RMS, want["rms"])):
            assert [(m["label"], m["value"], m["help"]) for m in shown[key]["metrics"]] == metrics
    ok(at.selectbox(key="est_eps").set_value("Keras 3 LayerNormalization").run())
    ok(at.run())
    keras = {json.dumps(f) for f in sidebar_frames(at)}
    assert len(keras) == 1  # Keras' own ε: the sidebar's changes nothing
    want = estimators_expected(x, 0, True, 1e-3, "÷d, ε inside, ε = 0.001")
    assert by_key(json.loads(keras.pop()))[le.FORMULA]["tex"] == want["tex"]


def backward_expected(x: np.ndarray, gamma: np.ndarray, dy: np.ndarray, eps: float) -> dict[str, object]:
    """∂L/∂x and its identities as Gradients drew them with st.latex and st.metric (its own code)."""
    terms = ln.layer_norm_backward_terms(x, gamma, dy, eps=eps)
    k_round = ROUNDING_K + x.size
    dot, exact = terms.dx_dot_x_hat, terms.dx_dot_x_hat_expected
    alike = terms.dx_dot_x_hat_gap <= rounding_noise(terms.magnitude, k_round)

    def shown(v: float, n: int) -> str:
        text = fmt_zero(v, terms.magnitude, n, k=k_round)
        return "0" if text == ZERO_TO_ROUNDING else text

    if alike:
        dot_digits = next((n for n in range(4, 0, -1) if shown(dot, n) == shown(exact, n)), 1)
    else:
        dot_digits = digits_to_separate([dot, exact], 4)
    same = (
        f"It equals the formula's value up to float64 rounding, so both are shown to the {dot_digits} "
        "significant digits they share. "
        if alike and dot_digits < 4
        else ""
    )
    return {
        "tex": rf"\frac{{\partial L}}{{\partial x}} = {tex_vector(terms.dx, digits=4)}",
        "metrics": [
            (
                "Σᵢ ∂L/∂xᵢ",
                fmt_zero(terms.dx_sum, terms.magnitude, k=k_round),
                "Zero in exact arithmetic for every γ and ε: adding a constant to x never changes y. "
                + rounding_help(terms.dx_sum, terms.magnitude, k_round),
            ),
            (
                "∂L/∂x · x̂",
                fmt_zero(dot, terms.magnitude, dot_digits, k=k_round),
                "Growing x along x̂ only rescales it, which LayerNorm forgets — up to ε. "
                + same
                + rounding_help(dot, terms.magnitude, k_round),
            ),
            (
                "ε/σ̂³ · (g⊙γ)·x̂  (exact value)",
                fmt_zero(exact, terms.magnitude, dot_digits, k=k_round),
                "What ∂L/∂x · x̂ is in exact arithmetic (here computed in float64 from the formula): 0 when "
                "(g⊙γ)·x̂ = 0, and otherwise not 0, since ε > 0.",
            ),
        ],
    }


def _readout_as(shown: dict[str, Any]) -> list[tuple[str, str, str | None]]:
    return [(m["label"], m["value"], m["help"]) for m in shown["metrics"]]


def test_the_page_shows_gradients_backward_numbers_as_before() -> None:
    at = open_page(GRAD, eps="1e-12")
    x, dy = EST_VECTORS["default"], np.random.default_rng([15, 0]).standard_normal(8)
    want = backward_expected(x, np.ones(8), dy, 1e-12)
    assert readout(at, lg.DX)["tex"] == want["tex"]
    assert _readout_as(readout(at, lg.IDENTITIES)) == want["metrics"]
    keys = [r["key"] for r in live_readouts(at)]
    assert keys == [lg.DX, lg.IDENTITIES, lg.METRICS]  # where st.latex and st.metric were, in page order
    assert not [m for m in at.main.metric if m.label in ("Σᵢ ∂L/∂xᵢ", "∂L/∂x · x̂")]  # drawn once


@pytest.mark.parametrize("key", ["eps", "gamma"])
def test_the_sidebars_sliders_hold_gradients_numbers_at_every_value(key: str) -> None:
    at = open_page(GRAD, grad_kind="One-hot", grad_k="3", grad_spread="1e-02")
    x, dy = EST_VECTORS["default"], np.eye(8)[2]
    values = EPS_CHOICES if key == "eps" else [float(v) for v in slider(at, "gamma")["values"]]
    frames = sidebar_frames(at, key)
    assert len(frames) == len(values)
    for v, f in zip(values, frames, strict=True):
        eps, gamma = (v, 1.0) if key == "eps" else (1e-5, v)
        want = backward_expected(x, np.full(8, gamma), dy, eps)
        shown = by_key(f)
        assert list(shown) == [lg.DX, lg.IDENTITIES, lg.METRICS]
        assert shown[lg.DX]["tex"] == want["tex"], v
        assert _readout_as(shown[lg.IDENTITIES]) == want["metrics"], v
        assert shown[lg.METRICS]["metrics"] == gradients_metrics(eps, 1e-2), v
