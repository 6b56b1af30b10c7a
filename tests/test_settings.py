"""The lab's input as data (``ui.settings``), without Streamlit: one pure function makes every input.

The sidebar's full run, a keyed move of ε, γ, β, d or seed, a live slider's frame and a dragged bar's
release all call :func:`ui.settings.lab_from` on a copy of the input's settings; these tests pin what it
gives for each γ/β mode with exact values, and that the paths agree bit for bit.
"""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as hs

from ui.settings import (
    EPS_CHOICES,
    GAMMA_BETA_SLIDER,
    LEARNED,
    MOVABLE,
    PER_FEATURE,
    SAME,
    SOURCES,
    UNDO,
    Settings,
    Token,
    changed_fields,
    lab_at,
    lab_from,
    lab_typed,
    note_everything,
    noted,
    noting,
)

X = np.array([1.0, 2.0, 3.0, 4.0])  # μ = 2.5, σ² = 1.25


def settings(mode: str = SAME, **kw: object) -> Settings:
    base: dict[str, object] = {"x": X, "label": "typed vector", "source": SOURCES[1], "eps": 0.0}
    return Settings(**(base | {"affine_mode": mode} | kw))  # type: ignore[arg-type]


def test_importing_the_input_model_needs_no_streamlit() -> None:
    code = "import sys, ui.settings; sys.exit('streamlit' in sys.modules or 'plotly' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


def test_same_gamma_beta_for_every_feature_are_the_shared_sliders() -> None:
    lab = lab_from(settings(SAME, g=2.0, b=-0.5))
    assert lab.gamma.tolist() == [2.0] * 4 and lab.beta.tolist() == [-0.5] * 4
    assert lab.notes == [] and lab.recorded_y is None and lab.model_eps is None


def test_undo_is_sigma_and_mu_of_this_vector_whatever_eps() -> None:
    lab = lab_from(settings(UNDO, eps=0.25))  # σ = √1.25: without ε, as "γ = σ" says
    assert lab.gamma.tolist() == [np.sqrt(1.25)] * 4 and lab.beta.tolist() == [2.5] * 4
    assert lab_at(lab, eps=1.0).gamma.tolist() == [np.sqrt(1.25)] * 4
    dragged = lab_typed(lab, np.array([0.0, 0.0, 0.0, 8.0]))  # μ = 2, σ² = 12: Undo follows the vector
    assert dragged.gamma.tolist() == [np.sqrt(12.0)] * 4 and dragged.beta.tolist() == [2.0] * 4


def test_per_feature_uses_the_table_and_says_so() -> None:
    table = (np.array([1.0, 2.0, 3.0, 4.0]), np.array([0.0, 0.5, 0.0, -0.5]))
    lab = lab_from(settings(PER_FEATURE, per_feature=table))
    assert lab.gamma.tolist() == [1.0, 2.0, 3.0, 4.0] and lab.beta.tolist() == [0.0, 0.5, 0.0, -0.5]
    assert lab.notes == [
        "Per-feature γ, β for d = 4 (each d keeps its own table): edit them on Scale & shift."
    ]
    assert lab_at(lab, g=3.0).gamma.tolist() == [1.0, 2.0, 3.0, 4.0], "the shared slider does not act"
    with pytest.raises(ValueError, match="d = 4"):
        lab_from(settings(PER_FEATURE, per_feature=(np.ones(3), np.zeros(3))))


def test_learned_gamma_beta_need_a_real_token() -> None:
    token = Token(gamma=np.full(4, 0.5), beta=np.full(4, 0.25), y=np.arange(4.0), eps=1e-12)
    lab = lab_from(settings(LEARNED, source=SOURCES[4], token=token))
    assert lab.gamma.tolist() == [0.5] * 4 and lab.beta.tolist() == [0.25] * 4
    assert lab.recorded_y is not None and lab.recorded_y.tolist() == [0.0, 1.0, 2.0, 3.0]
    assert lab.model_eps == 1e-12 and lab.notes == []
    typed = lab_typed(lab, np.array([4.0, 3.0, 2.0, 1.0]))  # a dragged bar: no longer the token
    assert typed.source == SOURCES[1] and typed.recorded_y is None and typed.model_eps is None
    assert typed.gamma.tolist() == [1.0] * 4 and typed.beta.tolist() == [0.0] * 4
    assert typed.notes == ["MiniLM's learned γ, β need a real MiniLM token as input; using γ = 1, β = 0."]


def test_a_problem_is_kept_with_the_last_valid_vector_and_a_release_clears_it() -> None:
    lab = lab_from(settings(problem="Row 2 is empty"))
    assert lab.problem == "Row 2 is empty"
    assert lab_typed(lab, X).problem is None


def test_changed_fields_names_what_a_move_changed_bit_for_bit() -> None:
    lab = lab_from(settings(SAME))
    assert changed_fields(lab, lab_at(lab, g=1.0)) == frozenset()
    assert changed_fields(lab, lab_at(lab, g=2.0)) == {"gamma"}
    assert changed_fields(lab, lab_at(lab, eps=1e-5)) == {"eps"}
    undo = lab_from(settings(UNDO))
    assert changed_fields(undo, lab_at(undo, eps=1.0)) == {"eps"}
    assert changed_fields(undo, lab_typed(undo, X + 1.0)) == {"x", "beta"}


lo, hi, step = GAMMA_BETA_SLIDER
slider = hs.integers(0, round((hi - lo) / step)).map(lambda k: round(lo + k * step, 2))


@given(
    x=hs.lists(hs.integers(-1000, 1000).map(lambda k: k / 8), min_size=2, max_size=12),
    mode=hs.sampled_from([SAME, UNDO, PER_FEATURE]),
    eps=hs.sampled_from(EPS_CHOICES),
    eps2=hs.sampled_from(EPS_CHOICES),
    g=slider,
    b=slider,
)
def test_a_live_frame_is_the_input_the_sidebar_makes_at_those_values(
    x: list[float], mode: str, eps: float, eps2: float, g: float, b: float
) -> None:
    """A live slider's frame (lab_at) equals a full run's input at the thumb's values, bit for bit,
    and moving back gives the input it started from."""
    v = np.array(x)
    table = (np.linspace(-1.0, 1.0, v.size), np.linspace(0.0, 2.0, v.size))
    s = settings(mode, x=v, eps=eps, per_feature=table if mode == PER_FEATURE else None)
    lab = lab_from(s)
    frame = lab_at(lab, eps=eps2, g=g, b=b)
    full = lab_from(replace(s, eps=eps2, g=g, b=b))
    for f in ("x", "gamma", "beta"):
        assert getattr(frame, f).tobytes() == getattr(full, f).tobytes()
    assert (frame.eps, frame.notes) == (full.eps, full.notes)
    back = lab_at(frame, eps=eps, g=s.g, b=s.b)
    assert changed_fields(lab, back) == frozenset() and back.notes == lab.notes


def test_a_noted_input_tells_which_movable_fields_were_read() -> None:
    lab = noted(lab_from(settings(SAME, g=2.0, b=-0.5)))
    with noting() as read:
        assert lab.d == 4 and lab.gamma[0] == 2.0  # lab.d reads x
    assert read == {"x", "gamma"}
    with noting() as read:
        note_everything()
    assert read == MOVABLE
    assert lab.beta[0] == -0.5  # outside noting(), nothing to note: it is a LabInput like any other
    assert changed_fields(lab, lab_from(settings(SAME, g=2.0, b=-0.5))) == frozenset()


def test_a_noting_block_inside_another_keeps_its_reads_to_itself() -> None:
    """A lab section's body makes the sidebar's γ and β frames (ui.live.sidebar), which read γ and β in a
    block of their own: the section must not count them as read, or every γ move would rerun it; what
    the section reads before and after that block still counts."""
    lab = noted(lab_from(settings(SAME, g=2.0, b=-0.5)))
    with noting() as section:
        assert lab.eps >= 0
        with noting() as frames:
            assert lab.gamma[0] == 2.0 and lab.beta[0] == -0.5
        assert lab.d == 4
    assert frames == {"gamma", "beta"}
    assert section == {"eps", "x"}
