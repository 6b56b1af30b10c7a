"""AppTest for "Which axis?" and "Training vs inference": every control, extreme values, no exceptions."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
import streamlit as st
from apptest_support import open_page, page_text
from chart_specs import charts
from streamlit.testing.v1 import AppTest

from layernorm.labs import batch_effects
from layernorm.labs import bn_frameworks as BF
from layernorm.labs import lenses as L
from layernorm.labs import running as R
from ui.text import TO_ROUNDING, digits_to_separate, fmt, rounding_noise

AXES, TVI = "pages/6_which_axis.py", "pages/7_train_vs_inference.py"


@pytest.fixture(autouse=True)
def _clear_caches() -> Iterator[None]:
    st.cache_data.clear()
    st.cache_resource.clear()
    yield


def _open(path: str) -> AppTest:
    at = AppTest.from_file("../app.py", default_timeout=60)
    at.run()
    assert not at.exception
    at.switch_page(path).run()
    assert not at.exception, at.exception
    return at


def _metric(at: AppTest, label_start: str) -> str:
    for m in at.metric:
        if m.label.startswith(label_start):
            return str(m.value)
    raise AssertionError(f"no metric {label_start!r}: {[m.label for m in at.metric]}")


# --- Which axis? ------------------------------------------------------------------------------


def test_which_axis_default_numbers_come_from_the_core() -> None:
    at = _open(AXES)
    x = L.random_batch(2, 4, 8, seed=0)
    table = at.dataframe[0].value
    assert list(table["lens"]) == list(L.LENSES)
    readings = [L.read_lens(x, (0, 0, 0), lens, groups=2) for lens in L.LENSES]
    x_hats = [r.x_hat for r in readings]
    digits = digits_to_separate(x_hats, same_within=rounding_noise([*x_hats, 1.0]))
    assert len(set(table["x̂ of your cell"])) == len(set(x_hats))  # different values never look alike
    for lens, r in zip(L.LENSES, readings, strict=True):
        row = table[table["lens"] == lens].iloc[0]
        assert row["x̂ of your cell"] == fmt(r.x_hat, digits)
        assert row["values pooled"] == r.group.n
    assert len(charts(at)) == 3  # heatmap, one-cell bars, counts


def test_which_axis_every_control_moves_the_numbers() -> None:
    at = _open(AXES)
    at.number_input(key="axes_B").set_value(3).run()
    at.number_input(key="axes_T").set_value(5).run()
    at.select_slider(key="axes_d").set_value(12).run()
    at.number_input(key="axes_seed").set_value(7).run()
    at.number_input(key="axes_b").set_value(2).run()
    at.number_input(key="axes_t").set_value(4).run()
    at.number_input(key="axes_i").set_value(11).run()
    at.number_input(key="axes_groups").set_value(3).run()
    at.radio(key="axes_lens").set_value("GroupNorm").run()
    assert not at.exception
    assert (at.number_input(key="axes_B").value, at.select_slider(key="axes_d").value) == (3, 12)
    assert at.number_input(key="axes_i").value == 11 and at.number_input(key="axes_groups").value == 3
    x = L.random_batch(3, 5, 12, seed=7)
    table = at.dataframe[0].value
    for lens in L.LENSES:
        r = L.read_lens(x, (2, 4, 11), lens, groups=3)
        row = table[table["lens"] == lens].iloc[0]
        assert row["x̂ of your cell"] == fmt(r.x_hat), lens
    assert any("features 8–11 (group 3 of 3) in sequence 2" in m.value for m in at.markdown)
    assert any("GroupNorm: your cell x[2, 4, 11]" in str(c.spec) for c in charts(at))


def test_which_axis_groups_not_dividing_d_is_a_message() -> None:
    at = _open(AXES)
    at.number_input(key="axes_groups").set_value(3).run()  # d = 8
    assert not at.exception
    assert any("G = 3 does not divide d = 8" in w.value for w in at.warning)
    row = at.dataframe[0].value.set_index("lens").loc["GroupNorm"]
    assert row["x̂ of your cell"] == "undefined"


def test_which_axis_one_token_batch_and_d_2() -> None:
    at = _open(AXES)
    at.selectbox(key="axes_preset").set_value("One token: 1 × 1 × 2").run()
    assert not at.exception
    assert (at.number_input(key="axes_B").value, at.number_input(key="axes_T").value) == (1, 1)
    assert at.select_slider(key="axes_d").value == 2
    row = at.dataframe[0].value.set_index("lens").loc["BatchNorm"]
    assert row["x̂ of your cell"] == "undefined"
    assert any("undefined for a batch of one token" in i.value for i in at.info)


def test_which_axis_title_counts_the_other_cells_and_gives_rmsnorm_no_mean() -> None:
    # 1 × 1 × 2: InstanceNorm's group is the cell alone (not "shares μ, σ² with 1 cells"); RMSNorm pools
    # the mean of x², no μ; LayerNorm's group of 2 is the cell and 1 other
    at = _open(AXES)
    at.selectbox(key="axes_preset").set_value("One token: 1 × 1 × 2").run()
    shown = {}
    for lens in ("LayerNorm", "InstanceNorm", "RMSNorm"):
        at.radio(key="axes_lens").set_value(lens).run()
        assert not at.exception
        shown[lens] = next(c.figure["layout"]["title"]["text"] for c in charts(at) if c.key == "axes_heatmap")
    assert shown["LayerNorm"].endswith("= 0.3104 shares μ, σ² with 1 other cell")
    assert shown["InstanceNorm"].endswith("= 0.3104 is the only cell its μ, σ² are computed from")
    assert shown["RMSNorm"].endswith("= 0.3104 shares its mean of x² with 1 other cell")


def test_which_axis_one_token_batch_does_not_say_batchnorm_estimates_from_it() -> None:
    at = _open(AXES)
    at.selectbox(key="axes_preset").set_value("One token: 1 × 1 × 2").run()
    assert not at.exception
    text = " ".join(m.value for m in at.markdown)
    assert "estimated* from the 1 tokens" not in text and "BatchNorm computes" not in text
    assert "from this batch's one token it cannot" in text


def test_which_axis_lesson_preset_counts_512_features() -> None:
    at = _open(AXES)
    at.selectbox(key="axes_preset").set_value("The lesson's example: d = 512 (4 × 16 × 512)").run()
    assert not at.exception
    text = " ".join(m.value for m in at.markdown)
    assert (
        "2 numbers per feature**, 1,024 in all" in text
        and "2 numbers per token** (μ and σ²), 128 in all" in text
    )


def test_which_axis_largest_and_d4096_stay_light() -> None:
    at = _open(AXES)
    at.selectbox(key="axes_preset").set_value("Largest: 64 × 128 × 768").run()
    assert not at.exception
    specs = [c.spec for c in charts(at)]
    assert len(specs[0]) < 3_000_000  # the heatmap is block-averaged, not 6.3M cells
    assert any("each pixel is the mean of a block of 32 tokens × 2 features" in c.value for c in at.caption)
    at.number_input(key="axes_B").set_value(16).run()
    at.select_slider(key="axes_d").set_value(4096).run()  # 16·128·4096 = 8.4M: at the limit
    assert not at.exception and not at.error
    at.number_input(key="axes_B").set_value(17).run()  # over the limit: a message
    assert not at.exception
    assert any("more than this lab builds" in e.value for e in at.error)


def test_which_axis_real_minilm_batch_shows_padding() -> None:
    at = _open(AXES)
    at.radio(key="axes_source").set_value("Real MiniLM batch (padded)").run()
    assert not at.exception
    assert _metric(at, "padding tokens") == "35 of 119"
    assert _metric(at, "largest LayerNorm change") == "0"
    assert float(_metric(at, "largest BatchNorm change")) > 0.1
    before = _metric(at, "largest BatchNorm change")
    at.selectbox(key="axes_site").set_value(6).run()
    assert not at.exception and _metric(at, "largest BatchNorm change") != before


# --- Training vs inference ------------------------------------------------------------------------


def test_training_steps_update_the_running_statistics() -> None:
    at = _open(TVI)
    assert _metric(at, "batches seen") == "0"
    at.button(key="tvi_next").click().run()
    assert not at.exception and _metric(at, "batches seen") == "1"
    pop = R.make_population(8, seed=0)
    step = R.train_step(R.initial_state(8), pop, 16, momentum=0.1, seed=0)
    assert _metric(at, "running variance, feature 0") == fmt(step.after.running_var[0])
    at.select_slider(key="tvi_auto_steps").set_value(10).run()
    at.button(key="tvi_auto").click().run()
    assert not at.exception and _metric(at, "batches seen") == "11"
    state = R.initial_state(8)
    for _ in range(11):
        state = R.train_step(state, pop, 16, momentum=0.1, seed=0).after
    assert _metric(at, "running mean, feature 0") == fmt(state.running_mean[0])
    at.button(key="tvi_reset").click().run()
    assert _metric(at, "batches seen") == "0"


def test_momentum_feature_seed_and_d_controls() -> None:
    at = _open(TVI)
    at.slider(key="tvi_momentum").set_value(0.5).run()
    at.select_slider(key="tvi_d").set_value(4).run()
    at.number_input(key="tvi_feature").set_value(3).run()
    at.number_input(key="tvi_seed").set_value(5).run()
    at.button(key="tvi_next").click().run()
    assert not at.exception
    assert at.slider(key="tvi_momentum").value == 0.5 and at.number_input(key="tvi_feature").value == 3
    assert any("momentum = 0.50" in c.value for c in at.caption)
    step = R.train_step(R.initial_state(4), R.make_population(4, seed=5), 16, momentum=0.5, seed=5)
    assert _metric(at, "running mean, feature 3") == fmt(step.after.running_mean[3])


def test_batch_of_one_explains_in_words() -> None:
    at = _open(TVI)
    at.slider(key="tvi_n").set_value(1).run()
    assert not at.exception and at.slider(key="tvi_n").value == 1
    said = [e.value for e in at.error if "A batch of one is undefined" in e.value]
    assert len(said) == 1  # once per page (a browser QA pass found the paragraph twice)
    assert any("No spread to show at n = 1" in i.value for i in at.info)
    assert at.button(key="tvi_next").disabled
    assert any("more than 1 value per channel" in c.value for c in at.caption)


def test_batch_of_256_and_noise_shrinks() -> None:
    at = _open(TVI)
    at.slider(key="tvi_n").set_value(2).run()
    small = float(_metric(at, "spread (std) of BatchNorm"))
    at.slider(key="tvi_n").set_value(256).run()
    assert not at.exception and at.slider(key="tvi_n").value == 256
    large = float(_metric(at, "spread (std) of BatchNorm"))
    assert large < small / 3
    assert _metric(at, "spread of LayerNorm") == "0"
    at.slider(key="tvi_redraws").set_value(50).run()
    spread = batch_effects.redraw_spread(R.make_population(8), 256, n_redraws=50, fixed_seed=0)
    assert _metric(at, "spread (std) of BatchNorm") == fmt(spread.bn_std[0])


def test_batch_of_two_notes_allow_outputs_near_0() -> None:
    # d = 64, seed 24, feature 20, 500 redraws: one batch-mate lands so close to the example that
    # BatchNorm's output is 0.00065, not "about ±1 whatever the values"
    at = _open(TVI)
    at.select_slider(key="tvi_d").set_value(64).run()
    at.number_input(key="tvi_seed").set_value(24).run()
    at.number_input(key="tvi_feature").set_value(20).run()
    at.slider(key="tvi_n").set_value(2).run()
    at.slider(key="tvi_redraws").set_value(500).run()
    assert not at.exception
    spread = batch_effects.redraw_spread(R.make_population(64, seed=24), 2, n_redraws=500, fixed_seed=24)
    assert np.min(np.abs(spread.bn_y[:, 20])) < 1e-3
    said = page_text(at)
    assert "whatever the" not in said and "always standardize to −1 and +1" not in said
    assert "unless a and b are within a few hundredths of each other" in said
    assert "unless the two values nearly coincide" in said


def test_batch_mates_and_mode_switch() -> None:
    at = _open(TVI)
    ln_before = _metric(at, "LayerNorm, feature 0")
    bn_before = _metric(at, "BatchNorm, feature 0")
    at.button(key="tvi_mates").click().run()
    assert not at.exception
    assert _metric(at, "LayerNorm, feature 0") == ln_before
    assert _metric(at, "BatchNorm, feature 0") != bn_before
    train_value = _metric(at, "BatchNorm (training)")
    at.segmented_control(key="tvi_mode").set_value("Inference").run()
    assert not at.exception
    pop = R.make_population(8)
    x0 = R.draw_batch(pop, 1, seed=(0, 0))
    bn_eval = (x0[0, 0] - 0.0) / np.sqrt(1.0 + 1e-5)
    _, bn_train, _ = batch_effects.batch_mates(pop, 16, fixed_seed=0, mates_seed=1)
    pair = (bn_train[0], bn_eval)  # the two modes' outputs, printed so that they never look alike
    digits = digits_to_separate(pair, same_within=rounding_noise(pair))
    assert _metric(at, "BatchNorm (inference)") == fmt(bn_eval, digits)
    assert _metric(at, "BatchNorm (inference)") != train_value


def test_distribution_shift_numbers() -> None:
    at = _open(TVI)
    at.select_slider(key="tvi_auto_steps").set_value(100).run()
    at.button(key="tvi_auto").click().run()
    at.slider(key="tvi_shift").set_value(5.0).run()
    at.slider(key="tvi_scale").set_value(4.0).run()
    assert not at.exception
    assert at.slider(key="tvi_shift").value == 5.0
    assert float(_metric(at, "BatchNorm output std")) > 2.5
    assert float(_metric(at, "LayerNorm output std")) == pytest.approx(1.0, abs=1e-3)
    ln_mean = next(m for m in at.metric if m.label == "LayerNorm output mean")
    assert ln_mean.value == "0" and ln_mean.delta in {"", TO_ROUNDING}  # 0 to rounding, and it says so


# --- Training vs inference: the frameworks' conventions and F.batch_norm's default ------------------


def _stored_column(at: AppTest) -> list[str]:
    return [str(v) for v in at.table[-1].value["stored running variance"]]


def _markdown(at: AppTest, start: str) -> str:
    return next(str(m.value) for m in at.markdown if str(m.value).startswith(start))


def test_full_batch_weight_stores_the_unbiased_variance_in_pytorch_and_the_biased_one_in_keras() -> None:
    """x = 1, 2, 3, 4 from running variance 1, the batch given full weight (PyTorch 2.13: 1.6666666)."""
    at = _open(TVI)
    assert at.slider(key="tvi_fw_momentum").value == 1.0
    assert at.selectbox(key="tvi_fw_batch").value == "1, 2, 3, 4"
    assert _metric(at, "running variance PyTorch stores") == "1.6667"
    assert (_metric(at, "batch variance ÷n"), _metric(at, "batch variance ÷(n−1)")) == ("1.25", "1.6667")
    assert _stored_column(at) == ["1.6667", "1.6667", "1.25", "1.25"]
    assert list(at.table[-1].value["momentum for the same weight"]) == ["1", "0", "0", "0"]
    said = _markdown(at, "PyTorch's momentum = 1 puts weight 1 on this batch")
    assert "so it stores 1.6667. At the same weight Keras 3 and Flax store 1.25" in said
    assert "momentum = 1 in PyTorch and momentum = 0 in TensorFlow fused, Keras 3 and Flax" in said
    at.segmented_control(key="tvi_framework").set_value("Keras 3").run()
    assert not at.exception
    assert _metric(at, "running variance Keras 3 stores") == "1"  # Keras' momentum 1 keeps the old value
    assert "puts no weight on the batch" in _markdown(at, "Keras 3's momentum = 1")
    at.slider(key="tvi_fw_momentum").set_value(0.0).run()
    assert _metric(at, "running variance Keras 3 stores") == "1.25"
    assert _stored_column(at) == ["1.6667", "1.6667", "1.25", "1.25"]


def test_the_frameworks_default_momenta_give_the_cores_numbers() -> None:
    at = open_page(TVI, tvi_framework="Flax", tvi_fw_momentum="0.99", tvi_fw_batch="2, 6")
    rows = BF.running_updates([[2.0], [6.0]], [0.0], [1.0], framework_name="Flax", momentum=0.99)
    assert rows["Flax"].new_running_var[0] == pytest.approx(0.99 + 0.01 * 4, rel=1e-15)
    assert rows["PyTorch"].new_running_var[0] == pytest.approx(0.99 + 0.01 * 8, rel=1e-13)
    assert _stored_column(at) == ["1.07", "1.07", "1.03", "1.03"]
    assert _metric(at, "running variance Flax stores") == "1.03"
    assert any("Flax's momentum weights the old value; its default is 0.99." in c.value for c in at.caption)


def test_f_batch_norm_without_training_leaves_the_running_statistics() -> None:
    """x = [[2], [6]], running mean 0, variance 1: x/√(1 + 1e-5) (torch float32: 1.99998999, 5.99996996)."""
    at = _open(TVI)
    assert at.radio(key="tvi_fn_call").value is False
    assert (_metric(at, "output for x = 2"), _metric(at, "output for x = 6")) == ("1.99999", "5.99997")
    assert (_metric(at, "running mean after"), _metric(at, "running variance after")) == ("0", "1")
    assert "**the running statistics did not move**: still 0 and 1" in _markdown(at, "Left out, `training`")
    at.radio(key="tvi_fn_call").set_value(True).run()
    assert not at.exception
    assert (_metric(at, "output for x = 2"), _metric(at, "output for x = 6")) == ("−0.99999875", "0.99999875")
    assert (_metric(at, "running mean after"), _metric(at, "running variance after")) == ("0.4", "1.7")
    said = _markdown(at, "With `training=True`")
    assert "mean 0 → 0.4, variance 1 → 1.7 (blending in the ÷(n−1) variance 8)" in said
    assert "own mean 4 and ÷n variance 4" in said


def test_f_batch_norm_call_opens_from_its_link() -> None:
    at = open_page(TVI, tvi_fn_call="F.batch_norm(x, rm, rv, training=True)")
    assert at.radio(key="tvi_fn_call").value is True and _metric(at, "running variance after") == "1.7"
