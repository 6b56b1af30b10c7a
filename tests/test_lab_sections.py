"""A sidebar move reruns only the page's lab sections, and that shows what a full run shows.

The sidebar's ε, γ, β, d and seed rerun only a page's lab sections (``ui.state.lab_section``,
keyed fragments) when nothing else on screen depends on them. The browser keeps every
other element of the page as the last full run drew it. So for each page with lab sections and each
of those controls, with AppTest's plain runs (``keyed_reruns``: no full run added, see
``tests/conftest.py``):

- the move reran exactly the page's lab sections;
- what the sections drew equals, element for element, what a full run at the new value draws there;
- outside them, the full run draws exactly what the browser kept (the page before the move), but
  for the moved control itself.

And where a section's rerun would leave something stale (a page without sections, the per-feature
table of another d, an input with a problem, a MiniLM token, a link's message on screen), the move
reruns the whole page.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from apptest_support import ok
from live_support import live_metrics
from streamlit.testing.v1 import AppTest

from ui import session
from ui.keys import LAB_QUIET
from ui.settings import AFFINE_MODES, SOURCES

pytestmark = pytest.mark.keyed_reruns

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "app.py")


def _pages_with_sections() -> list[str]:
    found = []
    for path in sorted((ROOT / "pages").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for f in tree.body:
            decorators = [ast.unparse(d) for d in getattr(f, "decorator_list", [])]
            if isinstance(f, ast.FunctionDef) and any("lab_section" in d for d in decorators):
                found.append(f"pages/{path.name}")
                break
    return found


PAGES = _pages_with_sections()
# (widget kind, key, a new value): every sidebar control whose move may rerun only the sections
MOVES = [
    ("select_slider", "eps", 0.01),
    ("slider", "gamma", 2.0),
    ("slider", "beta", -1.5),
    ("select_slider", "d", 16),
    ("number_input", "seed", 7),
]


Leaves = dict[str, tuple[str, bytes]]
# Fields that differ between two runs that show the same: a download's file (made on click) gets a
# new id every run, and a widget whose value the server pushes carries it (set_value, raw_value or value).
# The last two differ only outside the sections, where AppTest, unlike the browser, sent no state
# for the widgets the sections' rerun did not draw; the values themselves are in Session State.
NEW_EVERY_RUN = ("deferred_file_id",)
PUSHED_VALUE = ("set_value", "raw_value", "value")


def leaves(at: AppTest, ignore: tuple[str, ...] = NEW_EVERY_RUN) -> Leaves:
    """Every element of the last run's tree by its delta path, with its protobuf bytes."""
    out: Leaves = {}

    def walk(node: Any, path: str) -> None:
        children = getattr(node, "children", None)
        if isinstance(children, dict) and children:
            for k in sorted(children):
                walk(children[k], f"{path}/{k}")
        elif getattr(node, "proto", None) is not None:
            proto = type(node.proto)()
            proto.CopyFrom(node.proto)
            for name in ignore:
                if name in proto.DESCRIPTOR.fields_by_name:
                    proto.ClearField(name)
            if getattr(proto, "component_name", None) == "lab_live_slider":
                # A live slider sends its frames once, then their id alone: the id says what it shows.
                # The vector's bars send a feature's frames only when asked: their base says the rest.
                data = json.loads(proto.bytes)
                if data.get("payload") is not None:
                    data["payload"] = {"id": data["payload"]["id"]}
                elif "payloads" in data:
                    data["payloads"] = {"base": data["base"]}
                proto.bytes = json.dumps(data, sort_keys=True).encode()
            out[path] = (type(node).__name__, proto.SerializeToString())

    walk(at._tree, "")
    return out


def open_page(page: str, **state: Any) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    for key, value in state.items():
        at.session_state[key] = value
    ok(at.run())
    return ok(at.switch_page(page).run())


def move(at: AppTest, kind: str, key: str, value: Any) -> AppTest:
    return ok(getattr(at, kind)(key=key).set_value(value).run())


def _root(path: str) -> str:
    return "/".join(path.split("/")[:3])  # /0/<n>: a top-level block in the main area


def _blocks(rerun: set[str], full: set[str]) -> set[str]:
    """The blocks a fragments-only run redrew: for each element it drew, its largest enclosing block in
    the main area (``/0/<n>`` or deeper: a section nested in a fragment or a column) all of whose
    elements in a full run it drew too."""
    blocks = set()
    for path in rerun:
        parts = path.split("/")
        for depth in range(3, len(parts) + 1):
            block = "/".join(parts[:depth])
            if all(q in rerun for q in full if q == block or q.startswith(block + "/")):
                blocks.add(block)
                break
    return blocks


def _inside(path: str, blocks: set[str]) -> bool:
    return any(path == b or path.startswith(b + "/") for b in blocks)


def _own(entry: tuple[str, bytes], key: str) -> bool:
    """The moved control, or a live sidebar slider: a sidebar move reruns those with the sections
    (``ui.sidebar.rerun_lab_sections``), their frames being the page at the new values."""
    if b"lab_live_slider" in entry[1] and b'"mode": "slider"' in entry[1]:
        return True
    return entry[1].find(f"-{key}".encode()) >= 0 and entry[0] in {"Slider", "SelectSlider", "NumberInput"}


# Sections that show no sidebar input until a control asks for it: Precision's fused kernel runs a
# preset unless its example is "The sidebar's vector" (test_the_fused_kernel_on_the_sidebars_input_...).
NO_INPUT_BY_DEFAULT = ("prec_fused",)


def check_sections_rerun(page: str, kind: str, key: str, value: Any, **state: Any) -> None:
    at = open_page(page, **state)
    sections = at.session_state[session.sections.drawn.key]
    assert sections, f"{page} drew no lab section"
    before = leaves(at, NEW_EVERY_RUN + PUSHED_VALUE)
    reads = dict(at.session_state[session.sections.reads.key])
    move(at, kind, key, value)
    fragments = at.session_state[session.sections.rerun.key]
    assert fragments, "the move reran the whole page"
    reran = tuple(k for k in fragments if k != LAB_QUIET)  # LAB_QUIET draws nothing, an empty block
    assert set(reran) <= set(sections), reran
    if key in ("d", "seed"):  # a new x: every section that read it (all but Home's warning)
        read_x = tuple(k for k in sections if reads.get(k) is None or "x" in reads[k])
        assert reran == read_x, f"the move did not rerun the page's lab sections {read_x}: {reran}"
        expected = tuple(k for k in sections if k not in NO_INPUT_BY_DEFAULT or reads.get(k) != frozenset())
        assert read_x == expected or page == "pages/0_home.py", f"a section read no x: {reads}"
    # A widget's pushed value is left out: a section may write a control's own value back on the run
    # that changed d (Standardize's feature i: Streamlit restarts a slider whose range changed), which
    # a later full run, where d did not change, has no reason to push.
    rerun = {p: v for p, v in leaves(at, NEW_EVERY_RUN + PUSHED_VALUE).items() if p.startswith("/0/")}
    ok(at.run())  # a full run at the new value: what a fresh page shows
    assert at.session_state[session.sections.rerun.key] == ()
    full = full_outside = leaves(at, NEW_EVERY_RUN + PUSHED_VALUE)
    roots = _blocks(set(rerun), set(full))
    assert len(roots) == len(fragments), roots  # one block each: no section drew outside its own
    inside = {p: v for p, v in full.items() if _inside(p, roots)}
    assert set(inside) == set(rerun), sorted(set(inside) ^ set(rerun))
    stale = [p for p in inside if inside[p] != rerun[p]]
    assert stale == [], f"the sections' rerun drew other elements than a full run at {key} = {value}: {stale}"
    outside = {p: v for p, v in full_outside.items() if not _inside(p, roots) and not _own(v, key)}
    kept = {p: v for p, v in before.items() if not _inside(p, roots) and not _own(v, key)}
    changed = sorted(p for p in set(outside) | set(kept) if outside.get(p) != kept.get(p))
    assert changed == [], f"outside the sections a full run draws something new at {key} = {value}: {changed}"


@pytest.mark.parametrize("page", PAGES)
@pytest.mark.parametrize(("kind", "key", "value"), MOVES, ids=[m[1] for m in MOVES])
def test_a_sidebar_move_reruns_the_sections_and_shows_what_a_full_run_shows(
    page: str, kind: str, key: str, value: Any
) -> None:
    check_sections_rerun(page, kind, key, value)


@pytest.mark.parametrize("page", PAGES)
@pytest.mark.parametrize(("kind", "key", "value"), [MOVES[0], MOVES[3]], ids=["eps", "d"])
def test_undo_mode_follows_a_new_vector_in_a_sections_rerun(
    page: str, kind: str, key: str, value: Any
) -> None:
    # γ = σ and β = μ of the vector: a new d draws a new vector, and the sections' rerun must
    # recompute them rather than keep the old vector's
    check_sections_rerun(page, kind, key, value, affine_mode=AFFINE_MODES[2])


@pytest.mark.parametrize(("kind", "key", "value"), [MOVES[0], MOVES[3]], ids=["eps", "d"])
def test_the_fused_kernel_on_the_sidebars_input_reruns_with_it(kind: str, key: str, value: Any) -> None:
    page = "pages/13_precision.py"
    check_sections_rerun(page, kind, key, value, fused_case="The sidebar's vector, γ, β and ε")


def test_typed_numbers_rerun_the_sections_on_eps() -> None:
    check_sections_rerun(
        "pages/14_invariances.py", "select_slider", "eps", 0.1, src=SOURCES[1], typed="3, 1, 4, 1, 5"
    )


def test_a_table_reruns_the_sections_on_eps_and_gamma() -> None:
    for kind, key, value in (MOVES[0], MOVES[1]):
        check_sections_rerun("pages/5_full_formula.py", kind, key, value, src=SOURCES[2])


def test_a_file_uploaded_earlier_reruns_the_sections_on_eps() -> None:
    kept = (np.array([3.0, -1.0, 2.5, 7.0, 0.5]), "five.csv")  # the uploader forgets it; the lab keeps it
    page = "pages/3_standardize.py"
    check_sections_rerun(page, "select_slider", "eps", 0.01, src=SOURCES[3], upload_last=kept)


def test_no_file_yet_reruns_whole() -> None:
    at = open_page("pages/1_mean.py", src=SOURCES[3])
    assert at.sidebar.error, "the sidebar asks for a file"
    whole_page_rerun(at, "select_slider", "eps", 0.01)


def test_the_sections_are_the_pages_own_after_a_page_switch() -> None:
    at = open_page("pages/14_invariances.py")
    ok(at.switch_page("pages/1_mean.py").run())
    assert at.session_state[session.sections.drawn.key] == ("mean_body",)
    move(at, "select_slider", "eps", 0.2)
    assert at.session_state[session.sections.rerun.key] == ("mean_body",)


def whole_page_rerun(at: AppTest, kind: str, key: str, value: Any) -> None:
    move(at, kind, key, value)
    assert at.session_state[session.sections.rerun.key] == ()
    assert at.sidebar and at.title, "a full run draws the sidebar and the page's title"


def test_another_d_with_per_feature_tables_reruns_whole() -> None:
    # the sidebar's note names the table's d ("Per-feature γ, β for d = 16"): the sidebar changes
    at = open_page("pages/1_mean.py", affine_mode=AFFINE_MODES[1])
    whole_page_rerun(at, "select_slider", "d", 16)
    assert any("d = 16" in c.value for c in at.sidebar.caption)
    move(at, "select_slider", "eps", 0.01)  # the same d: the sections alone
    assert at.session_state[session.sections.rerun.key] == ("mean_body",)


def test_an_input_with_a_problem_reruns_whole() -> None:
    at = open_page("pages/1_mean.py", src=SOURCES[1], typed="1, 2, x")
    assert at.sidebar.error, "the typed text has a problem"
    whole_page_rerun(at, "select_slider", "eps", 0.01)
    assert at.sidebar.error, "the sidebar still says what is wrong"


def test_a_minilm_token_reruns_whole() -> None:
    at = open_page("pages/14_invariances.py", src=SOURCES[4])
    whole_page_rerun(at, "select_slider", "eps", 0.01)


def test_a_links_message_on_screen_reruns_whole() -> None:
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params["eps"] = "0.0123"  # not a choice: the sidebar says which ε it uses
    ok(at.switch_page("pages/1_mean.py").run())
    assert at.session_state["link_report"], "the link's ε was noted"
    whole_page_rerun(at, "select_slider", "eps", 0.01)


# What a sidebar move reruns when a section does not read what the move changed: each section's run
# records which of the input's fields it read (ui.session.sections.reads), and a move reruns only the
# sections that read a changed field. The test above checks, for every page and move, that what
# stayed is what a full run draws; these pin down that the sections that need not run do not.
@pytest.mark.parametrize(
    ("page", "kind", "key", "value", "expected"),
    [
        ("pages/12_estimators_and_eps.py", "slider", "gamma", 2.0, ()),  # the recipes use γ = 1, β = 0
        ("pages/12_estimators_and_eps.py", "slider", "beta", -1.5, ()),
        ("pages/13_precision.py", "slider", "gamma", 2.0, ()),  # x̂ only
        ("pages/15_gradients.py", "slider", "beta", -1.5, ("grad_check",)),  # only the check's L reads β
        ("pages/15_gradients.py", "slider", "gamma", 2.0, ("grad_backward", "grad_check", "grad_jacobian")),
        ("pages/14_invariances.py", "slider", "gamma", 2.0, ("inv_scale",)),
        ("pages/1_mean.py", "slider", "gamma", 2.0, ("mean_body",)),  # its worksheet holds the link
        # Home shows a problem's warning (its input section reads no x) and the formula with the vector
        ("pages/0_home.py", "select_slider", "d", 16, ("home_formula",)),
        ("pages/0_home.py", "select_slider", "eps", 0.01, ("home_formula",)),
    ],
    ids=[
        "est-gamma",
        "est-beta",
        "prec-gamma",
        "grad-beta",
        "grad-gamma",
        "inv-gamma",
        "mean-gamma",
        "home-d",
        "home-eps",
    ],
)
def test_a_move_reruns_only_the_sections_that_read_what_it_changed(
    page: str, kind: str, key: str, value: Any, expected: tuple[str, ...]
) -> None:
    at = open_page(page)
    move(at, kind, key, value)
    assert at.session_state[session.sections.rerun.key] == (expected or (LAB_QUIET,))


def test_a_section_that_stopped_reading_eps_stays_when_eps_moves() -> None:
    """Estimators with a framework's ε reads no sidebar ε; back to the sidebar's, it reads it again."""
    at = open_page("pages/12_estimators_and_eps.py")
    ok(at.selectbox(key="est_eps").set_value("Keras 3 LayerNormalization").run())
    move(at, "select_slider", "eps", 0.01)
    assert at.session_state[session.sections.rerun.key] == (LAB_QUIET,)
    ok(at.run())
    shown = live_metrics(at)  # Estimators' metrics are live readouts (ui.live.estimators)
    ok(at.selectbox(key="est_eps").set_value("sidebar").run())  # now the sidebar's ε = 0.01 counts
    assert live_metrics(at) != shown
    move(at, "select_slider", "eps", 0.02)
    assert at.session_state[session.sections.rerun.key] == ("est_body",)
