"""Training, step by step: a link reproduces the settings and the step reached; the buttons step."""

from __future__ import annotations

import pytest
from apptest_support import ok, open_page, page_text
from streamlit.testing.v1 import AppTest

from layernorm.labs.stepping import MAX_STEPS, train_stepped
from ui.text import fmt

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
