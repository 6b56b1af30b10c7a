"""AppTest for 'Estimators and ε': every control, both built-in cases, extremes (d = 1, constant, ε ends)."""

from __future__ import annotations

import pytest
from apptest_support import at_both_eps_ends, ok, open_with_sidebar
from apptest_support import type_numbers as _typed
from chart_specs import charts
from live_support import live_metric_elements, live_tex
from streamlit.testing.v1 import AppTest

import layernorm as ln
from ui.text import digits_not_to_look_exact, digits_to_separate, fmt, rounding_noise

PAGE = "pages/12_estimators_and_eps.py"
TINY = [0.09484422, 0.16441762]


def _open() -> AppTest:
    return open_with_sidebar(PAGE)


def _metrics(at: AppTest) -> dict[str, str]:
    """Every metric the page shows: its ε-dependent ones are live readouts (ui.live.estimators)."""
    return {m.label: m.value for m in [*at.metric, *live_metric_elements(at)]}


def _first(at: AppTest, prefix: str) -> str:
    return next(v for k, v in _metrics(at).items() if k.startswith(prefix))


def test_defaults_render_with_both_charts_and_the_sidebar_vector() -> None:
    at = _open()
    assert len(charts(at)) == 2
    assert at.radio(key="est_vector").value == "sidebar"
    x = ln.make_preset("standard normal", 8, 0)
    c = ln.compare_recipe(x, ddof=0, eps_inside=True, eps=1e-5, standard_eps=1e-5)
    assert _first(at, "largest |difference|") == fmt(0.0, 3)
    assert _first(at, "x̂₁, standard").startswith(fmt(c.standard[0], 4)[:5])
    assert len(at.table) == 3  # the four recipes, the ε presets, the RMSNorm variants


def test_tutorial_button_loads_one_hot_with_d_minus_1_and_eps_outside() -> None:
    at = _open()
    ok(at.button(key="est_load_tutorial").click().run())
    assert at.radio(key="est_vector").value == "one_hot"
    assert at.radio(key="est_divisor").value == "d-1" and at.radio(key="est_place").value == "outside"
    assert _first(at, "x̂₁, standard") == "1.732"
    # 0.75 / (0.5 + 1e-5) = 1.4999700009: four digits would print "1.5", the exact value without ε
    assert _first(at, "x̂₁, yours") == "1.49997"
    c = ln.compare_recipe([1, 0, 0, 0], ddof=1, eps_inside=False, eps=1e-5, standard_eps=1e-5)
    assert _first(at, "largest |difference|") == fmt(c.max_abs_difference, 3) == "0.232"
    assert "= 1.49997" in live_tex(at)[0] and "0.25" in live_tex(at)[0]  # the recipe's formula
    # the sidebar's input is untouched
    assert at.selectbox(key="src").value == "Preset"


def test_keras_button_shows_0_74_instead_of_almost_1() -> None:
    at = _open()
    ok(at.button(key="est_load_keras").click().run())
    assert at.selectbox(key="est_eps").value == "Keras 3 LayerNormalization"
    assert _first(at, "x̂₁, yours") == "−0.73996"  # −0.7399559…, not the exact-looking −0.74
    assert _first(at, "x̂₁, standard") == "−0.99589"
    c = ln.compare_recipe(TINY, ddof=0, eps_inside=True, eps=1e-3, standard_eps=1e-5)
    assert _first(at, "largest |difference|") == fmt(c.max_abs_difference, 3)
    # switching ε back to PyTorch's removes the difference
    ok(at.selectbox(key="est_eps").set_value("PyTorch nn.LayerNorm").run())
    assert _first(at, "largest |difference|") == "0"


def test_rms_metrics_at_eps_1e_12_do_not_round_to_an_exact_looking_2() -> None:
    # RMSNorm on [1, 0, 0, 0] at ε = 1e-12 gives 2 − 4e-12: four digits would print "2", as if ε did nothing
    at = _open()
    ok(at.radio(key="est_vector").set_value("one_hot").run())
    ok(at.select_slider(key="eps").set_value(1e-12).run())
    assert _first(at, "RMSNorm₁, ε inside √") == "1.999999999996"
    assert _first(at, "RMSNorm₁, ε outside") == "1.999999999996"
    assert _first(at, "LayerNorm x̂₁") == "1.732050807564"


@pytest.mark.parametrize("preset", [p.name for p in ln.EPS_PRESETS])
def test_every_eps_preset_gives_the_core_numbers(preset: str) -> None:
    at = _open()
    ok(at.radio(key="est_vector").set_value("tiny_pair").run())
    ok(at.selectbox(key="est_eps").set_value(preset).run())
    eps = next(p.eps for p in ln.EPS_PRESETS if p.name == preset)
    c = ln.compare_recipe(TINY, ddof=0, eps_inside=True, eps=eps, standard_eps=1e-5)
    assert _first(at, "largest |difference|") == fmt(c.max_abs_difference, 3)
    rms = ln.compare_rms_placement(TINY, eps=eps)
    shown = _first(at, "RMSNorm₁, ε outside")
    assert float(shown.replace("−", "-")) == pytest.approx(rms.variant[0], rel=1e-3)


@pytest.mark.parametrize(
    ("divisor", "place"), [("d", "inside"), ("d", "outside"), ("d-1", "inside"), ("d-1", "outside")]
)
def test_each_recipe_toggle(divisor: str, place: str) -> None:
    at = _open()
    ok(at.radio(key="est_vector").set_value("one_hot").run())
    ok(at.radio(key="est_divisor").set_value(divisor).run())
    ok(at.radio(key="est_place").set_value(place).run())
    c = ln.compare_recipe([1, 0, 0, 0], ddof=int(divisor == "d-1"), eps_inside=place == "inside", eps=1e-5)
    pair = [c.standard[0], c.variant[0]]
    noise = rounding_noise(pair)  # as many digits as tell them apart and keep them from looking exact
    k = digits_not_to_look_exact(pair, digits_to_separate(pair, 4, same_within=noise), same_within=noise)
    assert _first(at, "x̂₁, yours") == fmt(c.variant[0], k)
    assert _first(at, "x̂₁, standard") == fmt(c.standard[0], k)


def test_d_equal_one_says_why_in_words() -> None:
    at = _typed(_open(), "5")
    ok(at.radio(key="est_divisor").set_value("d-1").run())
    assert any("at least 2 values" in e.value for e in at.error)
    assert "undefined for d = 1" in at.table[0].value.to_string()


@pytest.mark.parametrize("text", ["3, 3, 3, 3", "0, 0", "1e20, -1e20", "0.1, 0.1000001"])
def test_extreme_vectors_and_both_eps_ends(text: str) -> None:
    at = _typed(_open(), text)
    x = ln.parse_vector_text(text)
    for eps in at_both_eps_ends(at):
        for place in ("inside", "outside"):
            ok(at.radio(key="est_place").set_value(place).run())
            c = ln.compare_recipe(x, ddof=0, eps_inside=place == "inside", eps=eps, standard_eps=1e-5)
            assert _first(at, "largest |difference|") == fmt(c.max_abs_difference, 3)
            assert not any("NaN" in m for m in _metrics(at).values())


def test_page_controls_survive_a_page_switch() -> None:
    at = _open()
    ok(at.radio(key="est_place").set_value("outside").run())
    ok(at.switch_page("pages/0_home.py").run())
    ok(at.switch_page(PAGE).run())
    assert at.radio(key="est_place").value == "outside"


# --- RMSNorm variants: Keras' rms_scaling, the dtype's own ε, a square root too many -----------------

RMS_EXAMPLE = "est_rms_example"
TEN, ALTERNATING, PAIR = "ten", "alternating", "pair"


def _rms_table(at: AppTest) -> dict[str, dict[str, str]]:
    """The variants' table (the page's last), row by row: {variant: {column: text}}."""
    frame = at.table[-1].value
    assert list(frame.columns) == ["divides x by", "ε", "divisor", "scale factor", "output", "× RMSNorm's"]
    return {str(name): {str(k): str(v) for k, v in row.items()} for name, row in frame.iterrows()}


def _row(table: dict[str, dict[str, str]], start: str) -> dict[str, str]:
    return next(row for name, row in table.items() if name.startswith(start))


def _numbers(text: str) -> list[float]:
    return [float(v.replace("−", "-")) for v in text.removesuffix(", …").split(", ")]


def _sentence(at: AppTest) -> str:
    return next(m.value for m in at.markdown if m.value.startswith(("On these numbers", "x is all zeros")))


def test_rms_variants_on_the_sidebar_vector_are_the_core_s() -> None:
    at = _open()
    assert at.selectbox(key=RMS_EXAMPLE).value == "sidebar"
    assert at.segmented_control(key="est_rms_dtype").value == "bfloat16"
    x = ln.make_preset("standard normal", 8, 0)
    rows = ln.rms_variants(x, dtype="bfloat16")
    table = _rms_table(at)
    assert len(table) == 4
    for shown, row in zip(table.values(), rows, strict=True):
        assert _numbers(shown["output"]) == pytest.approx(row.output[:4], rel=1e-7)
        assert float(shown["scale factor"]) == pytest.approx(row.scale, rel=1e-6)
    sentence = _sentence(at)
    for row in rows[1:]:
        k = digits_to_separate([row.ratio, 1.0], 4, same_within=rounding_noise(1.0))
        assert f"gives {fmt(row.ratio, k)} × RMSNorm's output" in sentence
        assert f"largest |difference| {fmt(row.max_abs_difference, 3)}" in sentence


def test_keras_rms_scaling_scales_0_to_9_by_0_3481342_not_0_1873172() -> None:
    at = _open()
    ok(at.selectbox(key=RMS_EXAMPLE).set_value(TEN).run())
    table = _rms_table(at)
    assert _row(table, "Keras")["scale factor"] == "0.3481342"
    assert _row(table, "Keras")["divisor"] == "√(8.25 + ε) = 2.872455"
    assert _row(table, "RMSNorm (PyTorch")["scale factor"] == "0.1873172"  # ε = 2⁻²³ for bfloat16 input
    assert _row(table, "RMSNorm (PyTorch")["ε"] == "2⁻²³ = 1.1920929e−07"
    keras = "Keras 3 LayerNormalization(rms_scaling=True) gives 1.859 × RMSNorm's output (85.9% larger"
    assert keras in _sentence(at) and "mean is 0" not in _sentence(at)


@pytest.mark.parametrize(
    ("dtype", "torch_like", "own"),
    [
        ("bfloat16", "0.99997616", "0.49236596"),  # 0.05/√(0.0025 + 2⁻²³), 0.05/√(0.0025 + 2⁻⁷)
        ("float16", "0.99997616", "0.8479983"),  # float16's own ε is 2⁻¹⁰
        ("float32", "0.99997616", "0.99997616"),
        ("float64", "1", "1"),  # 1 − 4.4e−14: to 8 digits, 1
    ],
)
def test_the_dtype_whose_eps_is_used(dtype: str, torch_like: str, own: str) -> None:
    at = _open()
    ok(at.selectbox(key=RMS_EXAMPLE).set_value(ALTERNATING).run())
    ok(at.segmented_control(key="est_rms_dtype").set_value(dtype).run())
    table = _rms_table(at)
    assert _row(table, "RMSNorm (PyTorch")["output"].startswith(f"{torch_like}, −{torch_like}")
    own_row = _row(table, f"RMSNorm with {dtype}'s own machine ε")
    assert own_row["output"].startswith(f"{own}, −{own}")
    sentence = _sentence(at)
    if dtype == "bfloat16":
        assert own_row["ε"] == "2⁻⁷ = 0.0078125"
        half = "RMSNorm with bfloat16's own machine ε gives 0.4924 × RMSNorm's output (50.8% smaller"
        assert half in sentence
        assert "σ² is the mean square and only Keras' ε differs) gives 0.8452 ×" in sentence
    if dtype in ("float32", "float64"):
        assert f"RMSNorm with {dtype}'s own machine ε gives RMSNorm's output (to rounding)" in sentence


def test_one_square_root_too_many_on_3_4() -> None:
    at = _open()
    ok(at.selectbox(key=RMS_EXAMPLE).set_value(PAIR).run())
    ok(at.segmented_control(key="est_rms_dtype").set_value("float64").run())  # ε = 2⁻⁵²: RMSNorm to 8 digits
    table = _rms_table(at)
    assert _numbers(_row(table, "x / √(RMS(x) + ε)")["output"]) == pytest.approx([1.59549, 2.12732], abs=5e-6)
    assert _row(table, "RMSNorm (PyTorch")["output"] == "0.84852814, 1.1313708"
    assert "a square root too many gives 1.88 × RMSNorm's output (88% larger" in _sentence(at)


def test_rms_variants_of_zeros_and_of_a_constant_vector() -> None:
    at = _typed(_open(), "0, 0, 0")
    assert _sentence(at) == "x is all zeros: every variant outputs zeros, whatever its scale factor."
    at = _typed(at, "3, 3")  # Keras' formula: σ² = 0, only ε = 1e-3 left under the root
    assert _row(_rms_table(at), "Keras")["output"] == fmt(3 / 1e-3**0.5, 8) + ", " + fmt(3 / 1e-3**0.5, 8)


def test_zeros_in_float32_do_not_say_the_scale_factors_differ() -> None:
    # float32's own ε is PyTorch's default ε: three of the four rows divide by the same √ε
    at = _typed(_open(), "0 0 0 0")
    ok(at.segmented_control(key="est_rms_dtype").set_value("float32").run())
    scales = [row["scale factor"] for row in _rms_table(at).values()]
    assert scales == ["2896.309", "31.62278", "2896.309", "2896.309"]
    assert "only their scale factors differ" not in _sentence(at)


def test_a_mean_that_is_not_0_is_not_called_0() -> None:
    # mean 2.5e−08: too small to move σ² off the mean square in float64, but not 0
    at = _typed(_open(), "1 -1 1 -0.9999999")
    assert float(ln.mean([1, -1, 1, -0.9999999])) == pytest.approx(2.5e-8, rel=1e-6)
    sentence = _sentence(at)
    assert "x's mean is 0" not in sentence
    assert (
        "(x's mean, 2.500e−08, is too small to move σ² off the mean square in float64: only Keras' ε"
        in sentence
    )


def test_the_divisors_are_not_printed_as_the_root_of_what_is_under_it() -> None:
    # x = ±1: mean(x²) = RMS = 1, and √(1 + 2⁻²³) = 1.0000000596, which seven digits print as 1
    at = _typed(_open(), "1 -1 1 -1")
    table = _rms_table(at)
    assert _row(table, "RMSNorm (PyTorch")["divisor"] == "√(1 + ε) = 1.0000001"
    assert _row(table, "x / √(RMS(x) + ε)")["divisor"] == "√(1 + ε) = 1.0000001"
    assert _row(table, "Keras")["divisor"] == "√(1 + ε) = 1.0004999"  # √1.001, to the column's digits


def test_the_tutorial_notice_gives_the_core_s_numbers() -> None:
    # ÷(d−1), ε = 1e-5 outside on [1, 0, 0, 0]: 0.75/(0.5 + 1e-5) = 1.49997, not 1.5
    at = _open()
    notice = next(m.value for m in at.markdown if "Load the tutorial case" in m.value)
    assert "the tutorial recipe 1.49997 (1.5 but for ε)" in notice
