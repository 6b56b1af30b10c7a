"""AppTest for 'Precision': the offset slider and dtype radio, 1e8 in float16, d = 2, constant, ε ends."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from apptest_support import ok, open_with_sidebar, page_text
from apptest_support import type_numbers as _typed
from chart_specs import charts
from live_support import live_tex
from streamlit.testing.v1 import AppTest

import layernorm as ln
from layernorm.labs import fused as F
from layernorm.labs import precision as P
from ui import fused_view as fv
from ui.charts_numerics import fmt_error
from ui.text import fmt

PAGE = "pages/13_precision.py"


def _open() -> AppTest:
    return open_with_sidebar(PAGE, timeout=90)


def _live_tex(at: AppTest) -> str:
    """The offset's formula: a live readout (ui.live.precision), which the offset's drag redraws."""
    return next(t for t in live_tex(at) if "offset" in t)


def _table(at: AppTest) -> dict[str, dict[str, str]]:
    df = at.table[0].value
    return {str(i): {str(c): str(df.loc[i, c]) for c in df.columns} for i in df.index}


def _check_table(at: AppTest, x: np.ndarray, offset: float, eps: float) -> None:
    now = ln.precision_sweep(x, [offset], eps=eps)
    cells = _table(at)
    for dt in P.DTYPES:
        for m, name in (("one_pass", "one-pass"), ("two_pass", "two-pass"), ("welford", "Welford")):
            if now.status[dt][m][0] == "ok":
                assert cells[dt][name] == fmt_error(float(now.error[dt][m][0]))
            else:
                assert cells[dt][name].startswith("✕")
            assert cells[dt][name].strip().lower() not in ("nan", "inf", "")  # never a bare NaN


def test_defaults_render_chart_table_and_words() -> None:
    at = _open()
    assert len(charts(at)) == 1
    assert at.select_slider(key="prec_offset").value == 1e4
    _check_table(at, ln.make_preset("standard normal", 8, 0) + 1e4, 0.0, 1e-5)  # same rows as offset 1e4
    text = " ".join(m.value for m in at.markdown)
    assert "first fails at an offset of about" in text
    assert "NaN" not in " ".join(m.value for m in at.metric)


def test_the_40000_case_says_negative_variance_in_words() -> None:
    at = _typed(_open(), "40000, 40001, 40002, 40003")
    ok(at.select_slider(key="prec_offset").set_value(0.0).run())
    assert at.radio(key="prec_dtype").value == "float32"
    assert any("negative (−128)" in e.value for e in at.error)
    assert "= -128" in _live_tex(at).replace(" ", "").replace("=-128", "= -128") or "-128" in _live_tex(at)
    cells = _table(at)
    assert cells["float32"]["one-pass"] == "✕ σ² < 0, so NaN"
    assert cells["float64"]["two-pass"] == "0 (exact)"


@pytest.mark.parametrize("dtype", list(P.DTYPES))
def test_offset_1e8_in_every_dtype(dtype: str) -> None:
    at = _open()
    ok(at.select_slider(key="prec_offset").set_value(1e8).run())
    ok(at.radio(key="prec_dtype").set_value(dtype).run())
    assert at.select_slider(key="prec_offset").value == 1e8 and at.radio(key="prec_dtype").value == dtype
    x = ln.make_preset("standard normal", 8, 0)
    _check_table(at, x + 1e8, 0.0, 1e-5)
    if dtype == "float16":
        assert _table(at)["float16"]["input after rounding"] == "overflows to ∞"
        assert "undefined" in _live_tex(at)


def _verdict(at: AppTest) -> str:
    return next(m.value for m in at.markdown if "at this offset:" in m.value)


@pytest.mark.parametrize(
    ("dtype", "typed", "offset"),
    [
        ("bfloat16", "3e38, -3e38", 1e4),  # found in the browser: each overflow's reason was printed twice
        ("float16", "70000, 1", 0.0),
        ("float16", "1, 2, 3, 4", 1e8),
        ("float32", "40000, 40001, 40002, 40003", 0.0),  # negative variance: a number and its reason
        ("float16", "-60000, 60000", 0.0),  # Welford's step x − μ overflows; the others' squares do
        ("float16", "-60000, 60000, 60000", 0.0),  # two-pass: x − μ overflows before any square
    ],
)
def test_each_method_states_its_failure_once(dtype: str, typed: str, offset: float) -> None:
    at = _typed(_open(), typed)
    ok(at.select_slider(key="prec_offset").set_value(offset).run())
    ok(at.radio(key="prec_dtype").set_value(dtype).run())
    x = ln.parse_vector_text(typed) + offset
    sentence = _verdict(at)
    clauses = sentence.split(" at this offset: ", 1)[1].split(". Exact:", 1)[0].split("; ")
    runs = {m: ln.layer_norm_in_dtype(x, dtype=dtype, method=m, eps=1e-5) for m in P.METHODS}
    statuses = {m: str(r.status[0]) for m, r in runs.items()}
    no_var = {m for m, r in runs.items() if not np.isfinite(r.var[0])}  # no σ² to show, only the reason
    if len(set(statuses.values())) == 1 and no_var == set(P.METHODS):
        assert clauses == [f"every method: {P.STATUS_WORDS[statuses['welford']]}"]
    else:
        assert len(clauses) == 3
        for clause, (m, name) in zip(
            clauses, (("one_pass", "one-pass"), ("two_pass", "two-pass"), ("welford", "Welford")), strict=True
        ):
            status = statuses[m]
            assert clause.startswith(f"{name}: ")
            if status == "ok":
                assert clause.startswith(f"{name}: σ² = ") and "—" not in clause
            elif m in no_var:
                assert clause == f"{name}: {P.STATUS_WORDS[status]}"  # the reason once, no number
            else:
                assert clause.startswith(f"{name}: σ² = ") and clause.endswith(f" — {P.STATUS_WORDS[status]}")
                assert clause.count(P.STATUS_WORDS[status]) == 1
    assert any(s != "ok" for s in statuses.values())  # each case shows at least one failure
    assert len(_live_tex(at)) < 200  # one line that fits: the reasons are in the sentence


def test_rounded_input_with_an_exact_output_says_so_plainly() -> None:
    at = _typed(_open(), "3e38, -3e38")  # ±3e38 round alike in bfloat16: x̂ is still exactly ±1
    ok(at.select_slider(key="prec_offset").set_value(0.0).run())
    column = {dt: row["input after rounding"] for dt, row in _table(at).items()}
    now = ln.precision_sweep(ln.parse_vector_text("3e38, -3e38"), [0.0], eps=1e-5)
    for dt in P.DTYPES:
        changed, err = bool(now.input_changed[dt][0]), float(now.input_error[dt][0])
        if np.isnan(err):
            assert column[dt] == "overflows to ∞"
        elif not changed:
            assert column[dt] == "unchanged"
        elif err == 0:
            assert column[dt] == "changed, x̂ still exact"
        else:
            assert column[dt] == "changed: x̂ error " + fmt_error(err)
    assert column["bfloat16"] == "changed, x̂ still exact" and column["float64"] == "unchanged"


@pytest.mark.parametrize("text", ["3, 3, 3, 3", "1, 2", "250, 251, 252", "0.001, 0.002"])
@pytest.mark.parametrize("eps", [1e-12, 1.0])
def test_extreme_vectors_and_eps_ends(text: str, eps: float) -> None:
    at = _typed(_open(), text)
    ok(at.select_slider(key="eps").set_value(eps).run())
    x = ln.parse_vector_text(text)
    for offset in (0.0, 1e3):
        ok(at.select_slider(key="prec_offset").set_value(offset).run())
        _check_table(at, x + offset, 0.0, eps)
        assert len(charts(at)) == 1


def test_offset_survives_a_page_switch() -> None:
    at = _open()
    ok(at.select_slider(key="prec_offset").set_value(2e5).run())
    ok(at.switch_page("pages/0_home.py").run())
    ok(at.switch_page(PAGE).run())
    assert at.select_slider(key="prec_offset").value == 2e5


def test_figure_builders_draw_what_they_are_given() -> None:
    from ui import charts_numerics as cn

    sw = ln.precision_sweep([1.0, 2.0, 4.0], P.offset_grid(), eps=1e-5)
    words = {dt: {m: [P.STATUS_WORDS[s] for s in sw.status[dt][m]] for m in P.METHODS} for dt in P.DTYPES}
    fig = cn.precision_figure(sw.offsets, sw.error, words, sw.input_error, current_offset=1e4)
    assert fig.layout.xaxis.type == "log" and fig.layout.yaxis.type == "log"
    lines = [t for t in fig.data if t.mode == "lines"]
    assert len(lines) == 16  # 4 dtypes x (3 methods + input rounding)
    fails = [t for t in fig.data if t.mode == "markers"]
    assert all(np.all(np.asarray(t.y) == cn.FAIL_Y) for t in fails) and fails
    assert [s.x0 for s in fig.layout.shapes] == [1e4] * 4  # data value on a log axis
    one16 = next(t for t in lines if t.name.startswith("one-pass") and t.xaxis == "x")
    np.testing.assert_array_equal(one16.y, np.maximum(sw.error["float16"]["one_pass"], cn.ERROR_FLOOR))
    c = ln.compare_recipe([1, 0, 0, 0], ddof=1, eps_inside=False)
    rf = cn.recipe_figure(c.standard, c.variant, c.difference, variant_name="tutorial", title="t")
    assert [len(t.y) for t in rf.data] == [4, 4, 4]
    np.testing.assert_array_equal(rf.data[2].y, c.difference)


def _notices(at: AppTest) -> list[str]:
    box = next(m.value for m in at.markdown if m.value.startswith("**What to notice**"))
    return [line[2:] for line in box.splitlines() if line.startswith("- ")]


@pytest.mark.parametrize("typed", ["-60000, 60000", "-200, 200", "1, 2, 3, 4", "5, 5, 5, 5", "0.5, -1.25, 2"])
def test_what_to_notice_is_true_of_this_vectors_sweep(typed: str) -> None:
    """Found by a browser QA pass: with -60000, 60000 the box said Welford "survives until the input
    itself overflows" right under the sweep's own "Welford in float16 first fails at an offset of about 1"."""
    at = _typed(_open(), typed)
    sw = ln.precision_sweep(ln.parse_vector_text(typed), P.offset_grid(), eps=1e-5)
    points = _notices(at)
    wel16, two16 = sw.first_failure("float16", "welford"), sw.first_failure("float16", "two_pass")
    f16 = [p for p in points if p.startswith("float16 panel")]
    assert len(f16) <= 1
    if any("until the input itself overflows" in p for p in points):
        assert wel16 is not None and wel16[1] == "input_overflow"
    if f16 and "Welford breaks no later" in f16[0]:
        assert wel16 is not None and two16 is not None and wel16[0] <= two16[0]
        assert P.STATUS_WORDS[wel16[1]] in f16[0]
    one32 = sw.first_failure("float32", "one_pass")
    said = " ".join(points)
    assert ("float32: with this vector even the one-pass variance holds" in said) == (one32 is None)
    if "Slide the offset up" in said:
        assert one32 is not None and f"breaks from about {about(one32[0])} on" in said
    one64 = sw.first_failure("float64", "one_pass")
    assert ("float64 one-pass fails too" in said) == (one64 is not None)
    assert ("grey line leaves the floor" in said) == (sw.first_input_loss("bfloat16") is not None)


def about(offset: float) -> str:
    """An offset of the sweep as the page writes an estimate: two significant digits."""
    rounded = float(f"{offset:.2g}")
    return f"{rounded:,.0f}" if 1e3 <= rounded < 1e5 else fmt(rounded, 2)


def test_what_to_notice_for_the_qa_vector_names_welfords_step() -> None:
    at = _typed(_open(), "-60000, 60000")
    assert (
        "float16 panel: here Welford breaks no later than two-pass (about 1: a step x − μ of the running "
        "mean overflows (μ becomes ∞)): its running mean avoids the big sum, but not this." in _notices(at)
    )


CHANNEL, D1 = "BatchNorm: a channel of equal values", "LayerNorm: one feature (d = 1), β = −1, ε = 0.1"
ROW = "A float32 row near 2·10⁸"
FUSED_EXACT, STEP_KERNEL = "fused · exact μ, σ² (float64)", "step by step · float32 Welford μ, σ²"


def _fused_tables(at: AppTest) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """The section's output table by column (its rows, the largest-error row last) and what b stores."""
    out = next(t.value for t in at.table if "exact y" in t.value.columns)
    stored = next(t.value for t in at.table if "b in float32" in t.value.index)
    return (
        {str(c): [str(v) for v in out[c]] for c in out.columns},
        {str(i): [str(v) for v in stored.loc[i]] for i in stored.index},
    )


def _open_fused(**query: str) -> AppTest:
    from apptest_support import open_page

    return open_page(PAGE, **query)


def test_the_fused_kernel_turns_a_channel_of_5e7_into_242_27734375() -> None:
    at = _open_fused()
    assert at.selectbox(key="fused_case").value == "channel" and at.select_slider(key="fused_v").value == 5e7
    out, stored = _fused_tables(at)
    assert out[FUSED_EXACT][:5] == ["242.27734375"] * 5 and out["exact y"][:5] == ["0"] * 5
    assert out["step by step · exact μ, σ² (float64)"][:5] == ["0"] * 5
    # exact statistics: 1/√(σ² + ε) in float64 (training mode); float32 Welford's: in float32 (LayerNorm)
    assert stored["1/√(σ² + ε) computed"] == ["in float64, rounded once", "in float32, step by step"]
    assert stored["1/√(σ² + ε) in float32"] == ["316.227753", "316.227783"]
    assert stored["b in float32"] == ["−15811387392", "−15811389440"]
    assert stored["float32 spacing at b"][0] == "1024"
    text = "\n".join(m.value for m in at.markdown)
    assert (
        "**The folded affine is to blame.**" in text
        and "it becomes −15811387392, off by 242.27734375" in text
    )
    ok(at.select_slider(key="fused_v").set_value(1e6).run())
    assert _fused_tables(at)[0][FUSED_EXACT][0] == "8.685546875"


def test_one_feature_with_gamma_1e12_gives_0_instead_of_minus_1() -> None:
    at = _open_fused(fused_case=D1)
    out, stored = _fused_tables(at)
    assert out["exact y"][0] == "−1" and out[FUSED_EXACT][0] == "0" and out[STEP_KERNEL][0] == "−1"
    assert stored["b in float32"][0] == "−3162277675008"
    assert stored["β − μ·s before rounding"][0] == "−3162277675009"
    ok(at.select_slider(key="fused_gamma").set_value(1.0).run())  # b ≈ −4.16: the −1 survives
    assert "Neither goes wrong" in "\n".join(m.value for m in at.markdown)


def test_the_row_near_2e8_shows_pytorchs_answer_and_blames_both_parts() -> None:
    at = _open_fused(fused_case=ROW)
    out, stored = _fused_tables(at)
    assert out[STEP_KERNEL][:4] == ["−1", "−2", "0", "1"]  # PyTorch 2.13's F.layer_norm
    assert out[FUSED_EXACT][:4] == ["−0.351945043", "−1.24637222", "0.542482138", "1.43690932"]
    assert stored["μ"] == ["200000024", "200000032"] and stored["σ²"] == ["320", "256"]
    assert "**Both go wrong.**" in "\n".join(m.value for m in at.markdown)


def test_the_sidebars_vector_is_run_and_one_beyond_float32_is_refused() -> None:
    at = _typed(_open(), "50000000, 50000000, 50000000")
    ok(at.selectbox(key="fused_case").set_value("sidebar").run())
    assert _fused_tables(at)[0][FUSED_EXACT][:3] == ["242.27734375"] * 3
    at = _typed(at, "1e39, 2")
    assert any("cannot be run in float32" in str(i.value) for i in at.info)


def test_a_row_whose_welford_statistics_overflow_says_so_instead_of_all_within_rounding() -> None:
    """1e30, −1e30, 5: float32 holds each value, but Welford's squared steps overflow float32."""
    at = _typed(_open(), "1e30, -1e30, 5")
    ok(at.selectbox(key="fused_case").set_value("sidebar").run())
    text = "\n".join(m.value for m in at.markdown)
    assert "Neither goes wrong here" not in text
    assert "Neither form goes wrong with exact statistics" in text and "its two columns are empty" in text


EVAL = "eval"  # as a link carries it: fused_mode=eval
TORCH = json.loads((Path(__file__).parent / "data" / "fused_torch_2_13.json").read_text())["records"]


def _recorded(kernel: str, x: list[float]) -> list[float]:
    """PyTorch 2.13's output on this CPU's build (fused multiply-adds) for BatchNorm1d on channel ``x``."""
    return next(
        r["y"]
        for r in TORCH
        if (r["kernel"], r["module"], r["capability"], r["x"], r["beta"])
        == (kernel, "BatchNorm1d", "AVX512", x, 0.0)
    )


def test_eval_mode_is_a_link_away_and_its_column_is_pytorchs_for_every_value() -> None:
    """BatchNorm in eval mode on a constant channel, running variance 0: 1/√(0 + ε) in float32, so other
    numbers than training mode's (−279.84375 for 5e7, where training gives 242.27734375)."""
    at = _open_fused(fused_mode=EVAL)
    assert at.radio(key="fused_mode").value == "eval"
    out, stored = _fused_tables(at)
    assert out[FUSED_EXACT][:5] == ["−279.84375"] * 5 and out["exact y"][:5] == ["0"] * 5
    assert stored["1/√(σ² + ε) computed"][0] == "in float32, step by step"
    assert stored["1/√(σ² + ε) in float32"][0] == "316.227783"
    note = next(c.value for c in at.caption if "eval mode computes" in c.value)
    assert "in float32, 316.227783 (training mode computes it in float64: 316.227753)" in note
    for v in F.CHANNEL_VALUES:
        ok(at.select_slider(key="fused_v").set_value(v).run())
        for mode in ("eval", "train"):
            ok(at.radio(key="fused_mode").set_value(mode).run())
            kernel = "batch_norm_eval" if mode == "eval" else "batch_norm"
            want = [fv.num(y) for y in _recorded(kernel, [v] * 5)]
            assert _fused_tables(at)[0][FUSED_EXACT][:5] == want, (v, mode)
    assert _open_fused().radio(key="fused_mode").value == "train"  # without a link: training mode


def test_a_row_around_100000008_from_the_sidebar_shows_pytorchs_layer_norm_and_says_it_is_a_model() -> None:
    """The issue's row: the float32 Welford column was one float32 unit off PyTorch's output."""
    at = _typed(_open(), "100000000, 100000008, 100000016, 100000024")
    ok(at.selectbox(key="fused_case").set_value("sidebar").run())
    want = next(
        r
        for r in TORCH
        if r["kernel"] == "layer_norm"
        and r["capability"] == "AVX512"
        and r.get("x") == [100000000.0, 100000008.0, 100000016.0, 100000024.0]
        and r["gamma"] == 1.0
    )
    assert _fused_tables(at)[0][STEP_KERNEL][:4] == [fv.num(y) for y in want["y"]]
    assert _fused_tables(at)[0][STEP_KERNEL][0] == "−1.78885436"  # the old model gave −1.78885424
    text = "\n".join(c.value for c in at.caption)
    assert "column is a model of PyTorch 2.13's CPU F.layer_norm" in text and "reproduce" not in text


@pytest.mark.parametrize("typed", ["1e30, -1e30, 5", "0.5, -1.25, 2, 7, 1, 1, 2, 3, 4", "3, 3, 3"])
def test_the_sidebar_notes_kernel_column_is_the_kernel_models_output(typed: str) -> None:
    """Wherever the float32 Welford columns show numbers, the step column is layernorm.labs.torch_kernels'
    LayerNorm; where they are empty the note prints that model's output instead."""
    from layernorm.labs import torch_kernels as K

    at = _typed(_open(), typed)
    ok(at.selectbox(key="fused_case").set_value("sidebar").run())
    x = ln.parse_vector_text(typed)
    kernel = K.layer_norm_kernel(x, eps=1e-5)
    column = _fused_tables(at)[0][STEP_KERNEL]
    note = next(c.value for c in at.caption if "is a model of PyTorch" in c.value)
    if column[0] == "—":
        assert "no usable statistics" in note and f"returns y = [{fv.num(kernel.y[0])}" in note
    else:
        shown = min(x.size, fv.SHOWN)
        assert column[:shown] == [fv.num(y) for y in kernel.y[:shown]]


def test_every_note_of_the_fused_section_names_the_cpu_it_was_measured_on() -> None:
    for case in (CHANNEL, D1, ROW):
        at = _open_fused(fused_case=case)
        note = next(c.value for c in at.caption if "PyTorch 2.13" in c.value)
        assert note.startswith(fv.CPU) and "reproduce" not in note, case
    text = page_text(_open_fused())
    assert "measured on 2,000 random rows" not in text
