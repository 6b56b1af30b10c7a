"""Training, step by step: a link reproduces the settings and the step reached; the buttons step."""

from __future__ import annotations

import pytest
from apptest_support import ok, open_page, page_text
from streamlit.testing.v1 import AppTest

from layernorm.labs.stepping import MAX_STEPS, output_drift, train_stepped
from ui.text import fmt, fmt_bound

PAGE = "pages/17_training_steps.py"
TITLES = {"none": "no normalization", "layernorm": "LayerNorm", "batchnorm": "BatchNorm"}


def losses(at: AppTest) -> dict[str, str]:
    return {m.label.removeprefix("loss, "): m.value for m in at.metric if m.label.startswith("loss, ")}


def expected(step: int, *, lr: float = 0.03, depth: int = 4, seed: int = 0) -> dict[str, str]:
    out = {}
    for norm, title in TITLES.items():
        run = train_stepped(norm, lr=lr, depth=depth, width=32, steps=MAX_STEPS, seed=seed)
        out[title] = "diverged" if 0 <= run.diverged_at <= step else fmt(float(run.loss[step]))
    return out


def button(at: AppTest, label: str) -> AppTest:
    return ok(next(b for b in at.button if b.label == label).click().run())


def test_a_link_reproduces_the_settings_and_the_step_reached() -> None:
    at = open_page(PAGE, steps_lr="0.1", steps_depth="3", steps_seed="7", steps_at="120")
    assert losses(at) == expected(120, lr=0.1, depth=3, seed=7)
    assert "from step 0 to step 120" in page_text(at)


def test_the_step_buttons_move_the_step_and_the_numbers() -> None:
    at = open_page(PAGE, steps_at="5")
    at = button(at, "+1 step")
    assert at.slider(key="steps_at").value == 6 and losses(at) == expected(6)
    at = button(at, "+10 steps")
    assert at.slider(key="steps_at").value == 16 and losses(at) == expected(16)
    at = button(at, "⟲ Back to step 0")
    assert at.slider(key="steps_at").value == 0 and losses(at) == expected(0)


def test_the_buttons_stop_at_the_last_step() -> None:
    at = open_page(PAGE, steps_at=str(MAX_STEPS - 3))
    at = button(at, "+10 steps")
    assert at.slider(key="steps_at").value == MAX_STEPS
    assert all(b.disabled for b in at.button if b.label in ("+1 step", "+10 steps", "▶ Play"))


def test_play_moves_on_each_run_and_pause_holds_the_step() -> None:
    at = open_page(PAGE, steps_at="20")
    at = button(at, "▶ Play")
    playing_at = at.slider(key="steps_at").value
    assert playing_at > 20 and losses(at) == expected(playing_at)
    at = button(at, "⏸ Pause")
    held = at.slider(key="steps_at").value
    at = ok(at.run())
    assert at.slider(key="steps_at").value == held
    assert any(b.label == "▶ Play" for b in at.button)


@pytest.mark.parametrize(
    "stat", ["std of each layer's output (what the next layer reads)", "mean of each layer's learned γ"]
)
def test_every_statistic_draws(stat: str) -> None:
    at = open_page(PAGE, steps_stat=stat, steps_at="30")
    assert not at.warning


def test_the_drift_sentence_says_what_the_run_shows() -> None:
    """The sentence under the statistics is computed from the three runs: the spread's change and how
    far γ and β moved. It never says γ and β set the output's statistics: in this run the spread moves
    by about 6 % while no γ leaves 1 by 3 %."""
    at = open_page(PAGE, steps_lr="0.001", steps_depth="8", steps_seed="0", steps_at="300")
    text = page_text(at)
    drift = output_drift(
        train_stepped("layernorm", lr=0.001, depth=8, width=32, steps=MAX_STEPS, seed=0), 300
    )
    assert drift is not None and drift.change is not None
    assert f"LayerNorm: {fmt(drift.start)} → {fmt(drift.end)} ({fmt(100 * drift.change, 3)}%)" in text
    assert f"LayerNorm's γ stayed within {fmt_bound(drift.gamma_off)} of 1" in text
    assert f"its |β| at most {fmt_bound(drift.beta_off)}" in text
    assert "set by its γ and β" not in text


def test_a_diverged_run_names_its_step_and_no_bound() -> None:
    at = open_page(PAGE, steps_lr="1.0", steps_depth="4", steps_seed="0", steps_at="300")
    text = page_text(at)
    runs = {n: train_stepped(n, lr=1.0, depth=4, width=32, steps=MAX_STEPS, seed=0) for n in TITLES}
    assert all(run.diverged_at >= 0 for run in runs.values())
    for norm, run in runs.items():
        if run.diverged_at >= 0:
            assert f"{TITLES[norm]}: diverged at step {run.diverged_at}" in text
            assert f"{TITLES[norm]}'s γ stayed" not in text
