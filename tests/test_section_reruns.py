"""Pages of several fragments: a control reruns only the sections that read it.

Training vs inference has five sections, Learning rate two. The controls that several sections read
rerun those from their callbacks (``ui.fragments.rerun_fragments``); the browser keeps the others. For
each such control, with AppTest's plain runs (``keyed_reruns``), as ``tests/test_lab_sections.py``
does for the sidebar:

- the move reran exactly the sections that read it;
- what they drew equals, element for element, what a full run draws there;
- outside them, a full run draws exactly what the page showed before, but for the moved control.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest
from test_lab_sections import NEW_EVERY_RUN, PUSHED_VALUE, _blocks, _inside, _root, leaves, ok, open_page

from ui import session

pytestmark = pytest.mark.keyed_reruns
RERUN = session.sections.rerun.key  # the fragments the last run reran alone

PAGE, LR, INV = "pages/7_train_vs_inference.py", "pages/9_learning_rate.py", "pages/14_invariances.py"
ALL = ("tvi_train", "tvi_switch", "tvi_noise", "tvi_mates_section", "tvi_shift_section")
PER_FEATURE = ALL[:4]  # not the shift test, which uses every feature of its own examples
WITH_STATE = ("tvi_train", "tvi_switch", "tvi_shift_section")


def _widget(kind: str, key: str, value: Any) -> Callable[[AppTest], Any]:
    return lambda at: getattr(at, kind)(key=key).set_value(value)


def _click(key: str) -> Callable[[AppTest], Any]:
    return lambda at: at.button(key=key).click()


LR_BOTH = ("lr_map_section", "lr_curves_section")
CASES = [
    ("n", _widget("slider", "tvi_n", 8), "tvi_n", PER_FEATURE),
    ("d", _widget("select_slider", "tvi_d", 16), "tvi_d", ALL),
    ("feature", _widget("number_input", "tvi_feature", 3), "tvi_feature", PER_FEATURE),
    ("seed", _widget("number_input", "tvi_seed", 5), "tvi_seed", ALL),
    ("next batch", _click("tvi_next"), "tvi_next", WITH_STATE),
    ("batch-mates", _click("tvi_mates"), "tvi_mates", ("tvi_switch", "tvi_mates_section")),
]
LR_CASES = [
    ("lr-gain", _widget("select_slider", "lr_gain", 1.0), "lr_gain", LR_BOTH),
    ("lr-depth", _widget("slider", "lr_depth", 4), "lr_depth", LR_BOTH),
    ("lr-width", _widget("select_slider", "lr_width", 16), "lr_width", LR_BOTH),
    ("lr-steps", _widget("select_slider", "lr_steps", 100), "lr_steps", LR_BOTH),
    ("lr-seeds", _widget("slider", "lr_seeds", 2), "lr_seeds", LR_BOTH),
]

# Invariances: c and b rerun section 1 (their live sliders, its numbers and its curve), the view the
# pictures, γᵢ and βᵢ the picture of y alone; the radios, headings and text stay as they are.
INV_CASES = [
    ("inv-c", _widget("select_slider", "inv_c", -1.0), "inv_c", ("inv_scale",)),
    ("inv-b", _widget("slider", "inv_b", -2.5), "inv_b", ("inv_scale",)),
    ("geo-view", _widget("radio", "geo_view", "Along (1, 1, 1)"), "geo_view", ("inv_geometry", "inv_y")),
    ("geo-gamma1", _widget("slider", "geo_gamma1", -0.5), "geo_gamma1", ("inv_y",)),
    ("geo-beta3", _widget("slider", "geo_beta3", 1.2), "geo_beta3", ("inv_y",)),
]

# Gradients: the upstream gradient's seed and k rerun the backward numbers and the gradient check, its
# kind also its own controls (which it enables), the spread the ε curve; the headings and text stay.
GRAD = "pages/15_gradients.py"
GRAD_CASES = [
    (
        "grad-kind",
        _widget("radio", "grad_kind", "One-hot"),
        "grad_kind",
        ("grad_upstream", "grad_backward", "grad_check"),
    ),
    ("grad-seed", _widget("number_input", "grad_seed", 4), "grad_seed", ("grad_backward", "grad_check")),
    ("grad-spread", _widget("select_slider", "grad_spread", 1e-2), "grad_spread", ("grad_eps",)),
]


@pytest.mark.parametrize(
    ("page", "act", "key", "expected"),
    [(PAGE, *c[1:]) for c in CASES]
    + [(LR, *c[1:]) for c in LR_CASES]
    + [(INV, *c[1:]) for c in INV_CASES]
    + [(GRAD, *c[1:]) for c in GRAD_CASES],
    ids=[c[0] for c in CASES + LR_CASES + INV_CASES + GRAD_CASES],
)
def test_a_control_reruns_the_sections_that_read_it_and_shows_what_a_full_run_shows(
    page: str, act: Callable[[AppTest], Any], key: str, expected: tuple[str, ...]
) -> None:
    at = open_page(page, lr_steps=50, lr_seeds=1) if page == LR else open_page(page)
    if page == PAGE:
        ok(at.button(key="tvi_next").click().run())  # a batch trained: the running statistics show
        ok(at.run())
    before = leaves(at, NEW_EVERY_RUN + PUSHED_VALUE)
    ok(act(at).run())
    assert at.session_state[RERUN] == expected
    rerun = {p: v for p, v in leaves(at).items() if p.startswith("/0/")}
    ok(at.run())  # a full run: what a fresh page shows
    full, full_outside = leaves(at), leaves(at, NEW_EVERY_RUN + PUSHED_VALUE)
    roots = _blocks(set(rerun), set(full))
    assert len(roots) == len(expected), roots
    inside = {p: v for p, v in full.items() if _inside(p, roots)}
    assert set(inside) == set(rerun), sorted(set(inside) ^ set(rerun))
    stale = [p for p in inside if inside[p] != rerun[p]]
    assert stale == [], f"the sections' rerun drew other elements than a full run: {stale}"
    mine = f"-{key}".encode()

    def compared(p: str, v: tuple[str, bytes]) -> bool:
        """Outside the sections, but for the moved control and the sidebar's live sliders: a page
        control's move changes their frames when the page's view of the sidebar reads it (Gradients'
        g and spread), and the browser asks for the new ones (ui.live.sidebar)."""
        sidebar_live = p.startswith("/1/") and b"lab_live_slider" in v[1] and b'"mode": "slider"' in v[1]
        return not _inside(p, roots) and mine not in v[1] and not sidebar_live

    outside = {p: v for p, v in full_outside.items() if compared(p, v)}
    kept = {p: v for p, v in before.items() if compared(p, v)}
    changed = sorted(p for p in set(outside) | set(kept) if outside.get(p) != kept.get(p))
    assert changed == [], f"outside the sections a full run draws something new: {changed}"


def test_auto_run_reruns_the_sections_with_the_running_statistics() -> None:
    """Its progress bar leaves an empty slot in the training section, so no element-by-element check."""
    at = open_page(PAGE)
    ok(at.button(key="tvi_auto").click().run())
    assert at.session_state[RERUN] == WITH_STATE
    ok(at.run())
    assert at.metric[0].value == "50"  # batches seen


def test_momentum_changes_only_the_training_section() -> None:
    """m acts on the next batch: moved alone, only its own section's text changes (its fragment reruns)."""
    at = open_page(PAGE)
    ok(at.button(key="tvi_next").click().run())
    ok(at.run())
    before = leaves(at, NEW_EVERY_RUN + PUSHED_VALUE)
    ok(at.slider(key="tvi_momentum").set_value(0.5).run())
    assert at.session_state[RERUN] == ()  # no keyed rerun: the browser reruns the slider's fragment
    after = leaves(at, NEW_EVERY_RUN + PUSHED_VALUE)
    changed = {_root(p) for p in set(before) | set(after) if before.get(p) != after.get(p)}
    assert len(changed) == 1, changed  # the training section, where the slider and its caption are


@pytest.mark.parametrize(
    "act",
    [
        _widget("segmented_control", "tvi_framework", "Keras 3"),
        _widget("selectbox", "tvi_fw_batch", "2, 6"),
        _widget("slider", "tvi_fw_momentum", 0.5),
        _widget("radio", "tvi_fn_call", True),
    ],
    ids=["framework", "framework-batch", "framework-momentum", "functional-call"],
)
def test_sections_6_and_7_controls_change_only_their_own_section(act: Callable[[AppTest], Any]) -> None:
    """Sections 6 and 7 read nothing of the others' settings, and nothing else reads their controls."""
    at = open_page(PAGE)
    before = leaves(at, NEW_EVERY_RUN + PUSHED_VALUE)
    ok(act(at).run())
    assert at.session_state[RERUN] == ()  # no keyed rerun: the browser reruns the control's fragment
    after = leaves(at, NEW_EVERY_RUN + PUSHED_VALUE)
    changed = {_root(p) for p in set(before) | set(after) if before.get(p) != after.get(p)}
    assert len(changed) == 1, changed


def test_the_loss_curves_learning_rate_changes_only_its_section() -> None:
    at = open_page(LR, lr_steps=50, lr_seeds=1)
    before = leaves(at, NEW_EVERY_RUN + PUSHED_VALUE)
    ok(at.select_slider(key="lr_pick").set_value(0.1).run())
    assert at.session_state[RERUN] == ()  # no keyed rerun: the browser reruns the slider's fragment
    after = leaves(at, NEW_EVERY_RUN + PUSHED_VALUE)
    changed = {_root(p) for p in set(before) | set(after) if before.get(p) != after.get(p)}
    assert len(changed) == 1, changed  # the curves' section
