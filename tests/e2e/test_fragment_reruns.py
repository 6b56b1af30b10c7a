"""A page control's rerun sends only what the control can change (protocol level, a real server).

A page's own controls live in an ``st.fragment``: moving one reruns that fragment, and the server
sends its elements again. The lesson's notes, the predict-then-reveal question and the source code
never change with those controls, so they are drawn outside the fragment: the rerun must not carry
them (a class of students moving sliders would make the server build and send them every time).

Each test opens a page as the browser does (the websocket protocol of ``scripts/session_client.py``,
no Chromium), checks that the first run drew no source code (the code box is closed, and a closed box
sends none), opens the code box and checks that the code came, then moves the page's first slider that
lives in a fragment and checks what that rerun sent. Every page is tried: a page with no slider in a
fragment must have none outside one either (a move of it would rerun the page whole).
"""

from __future__ import annotations

import ast
import asyncio
import concurrent.futures
import re

import pytest
from playwright.sync_api import Locator, expect

from e2e.support import PAGES, ROOT, YS_RMS_ONE_SITE, Lab, page_by_url, query
from layernorm.labs.quiz import BUILDERS
from scripts.session_client import Control, Session, make_control, pick_control

SOURCE = "code:python"  # the code box's source code (scripts/session_client.py names it so)
FRAGMENTS = {"fragment", "page_fragment", "lab_section"}  # st.fragment, ui.fragments', ui.state's


def _a_button_beside(file: str, key: str) -> bool:
    """Whether the fragment that draws the control ``key`` also draws a button (Training vs inference's
    training buttons, Training, step by step's step buttons), in its own body or in a function of the
    page it calls: a move of the control then sends that button again, and rightly."""
    tree = ast.parse((ROOT / file).read_text(encoding="utf-8"))
    funcs = {f.name: f for f in tree.body if isinstance(f, ast.FunctionDef)}

    def is_fragment(f: ast.FunctionDef) -> bool:
        targets = [d.func if isinstance(d, ast.Call) else d for d in f.decorator_list]
        return any(getattr(t, "attr", getattr(t, "id", None)) in FRAGMENTS for t in targets)

    def drawn_by(name: str) -> list[ast.AST]:
        nodes, todo, seen = [], [name], set()
        while todo:
            if (name := todo.pop()) not in seen:
                seen.add(name)
                body = list(ast.walk(funcs[name]))
                nodes += body
                todo += [n.id for n in body if isinstance(n, ast.Name) and n.id in funcs]
        return nodes

    for name in [name for name, f in funcs.items() if is_fragment(f)]:
        nodes = drawn_by(name)
        if any(isinstance(n, ast.Constant) and n.value == key for n in nodes) and any(
            isinstance(n, ast.Call) and getattr(n.func, "attr", None) == "button" for n in nodes
        ):
            return True
    return False


async def _open_and_move(base: str, page: str) -> tuple[list[str], list[str], list[str], Control] | list[str]:
    """(element kinds of the first run, of the run that opened the code box, of the rerun after one
    move, the moved control); if no slider of the page is in a fragment, the kinds of the main area's
    sliders and number boxes drawn outside one (none, for a page whose controls all rerun it whole)."""
    s = Session(base, page)
    try:
        await s.connect()
        first = await s.load(120)
        assert first.finished and not first.exceptions, (page, first)
        control = pick_control(s.elements, in_fragment=True)
        if control is None:
            return [kind for path, kind, _, fragment in s.elements if path and path[0] == 0 and not fragment
                    and kind in ("slider", "number_input")]  # fmt: skip
        loaded = s.sent
        code_box = [(e, f) for e, f in s.expanders if e.label.startswith("The code behind these numbers")]
        assert len(code_box) == 1, (page, [e.label for e, _ in s.expanders])
        opened = await s.toggle(*code_box[0], True, 120)
        assert opened.finished and not opened.exceptions, (page, opened)
        with_code = s.sent
        s.control = control
        moved = await s.move(1, 120)
        assert moved.finished and not moved.exceptions, (page, moved)
        return loaded, with_code, s.sent, control
    finally:
        await s.close()


def _run(base: str, page: str) -> tuple[list[str], list[str], list[str], Control] | list[str]:
    """:func:`_open_and_move` on a thread of its own: Playwright's sync API (the browser tests of this
    process) keeps an event loop on the main thread, where ``asyncio.run`` may not start another."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(lambda: asyncio.run(_open_and_move(base, page))).result(timeout=300)


@pytest.mark.parametrize("page", [p.url for p in PAGES])
def test_a_page_controls_rerun_sends_no_notes_question_or_code(server: str, page: str) -> None:
    found = _run(server, page)
    if isinstance(found, list):  # no slider in a fragment, and then none outside one either
        assert not found, f"{page}: a move of its {found} reruns the whole page, notes and code with it"
        return
    loaded, with_code, rerun, moved = found
    control = moved.describe()
    assert SOURCE not in loaded, f"{page}: the closed code box sent its code: {loaded}"
    assert with_code.count(SOURCE) >= 1, f"{page}: opening the code box drew no code: {with_code}"
    # the code and, above the formula's code, the caption that says where the page's numbers come from
    box = f"{page}: opening the code box reran more than the box: {with_code}"
    assert set(with_code) <= {SOURCE, "markdown"}, box
    assert rerun, f"{page}: moving {control} sent nothing"
    assert SOURCE not in rerun, f"{page}: moving {control} sent the source code again: {rerun}"
    # a button drawn beside the control may come again; the question's, outside every fragment, never
    beside = moved.param is not None and _a_button_beside(page_by_url(page).file, moved.param)
    assert "button" not in rerun or beside, (page, control, rerun)
    # fewer elements than the whole page (a progress bar sends one delta per update: not counted)
    drawn = [[kind for kind in run if kind != "progress"] for run in (loaded, rerun)]
    assert len(drawn[1]) < len(drawn[0]), (page, drawn)


# --- the question box is a fragment of its own -----------------------------------------------------


def _question(lab: Lab) -> Locator:
    return lab.page.locator('[data-testid="stVerticalBlock"]').filter(has_text="Predict, then check").last


def test_answering_the_question_does_not_cut_short_an_auto_run(lab: Lab) -> None:
    """A full rerun (the box before it was a fragment) stopped Auto-run at the batch it had reached."""
    lab.open(page_by_url("/train_vs_inference"), query(tvi_auto_steps=200))
    lab.page.get_by_role("button", name="Auto-run 200").click()
    running = lab.page.get_by_text(re.compile(r"Training: batch \d+ of 200"))
    running.first.wait_for()
    _question(lab).get_by_text("LayerNorm", exact=True).click()  # while the batches run
    assert running.first.is_visible(), "the run ended before the answer was clicked: nothing was tested"
    expect(lab.metric("batches seen")).to_have_text("200", timeout=60_000)
    _question(lab).get_by_role("button", name="Reveal").click()
    expect(_question(lab).get_by_text("Right: LayerNorm.", exact=False)).to_be_visible()
    expect(lab.metric("batches seen")).to_have_text("200")
    lab.assert_clean()


# --- the code box: closed, it holds no code; a click opens it and reruns only the box ---------------


def test_opening_the_code_box_shows_the_code_and_keeps_the_page(lab: Lab) -> None:
    lab.open(page_by_url("/mean"))
    thumb = lab.slider("Add the same number c")
    before = lab.metric("μ (mean)").inner_text()
    thumb.focus()
    thumb.press("ArrowRight")
    expect(lab.metric("μ (mean)")).not_to_have_text(before)
    lab.wait_idle()
    moved = thumb.get_attribute("aria-valuetext")
    mu = lab.metric("μ (mean)").inner_text()
    code = lab.page.locator('[data-testid="stCode"]')
    expect(code).to_have_count(0)  # closed: nothing was sent, nothing highlighted
    lab.page.get_by_text("The code behind these numbers").click()
    expect(code.first).to_contain_text("def mean(")
    expect(code).to_have_count(1)  # layernorm/formula.py's mean, one step per line
    expect(lab.page.get_by_text("The formula as code, one step per line")).to_be_visible()
    assert thumb.get_attribute("aria-valuetext") == moved and lab.metric("μ (mean)").inner_text() == mu
    lab.page.get_by_text("The code behind these numbers").click()  # and closed again
    expect(code).to_have_count(0)
    lab.assert_clean()


# --- a section nested in a page's fragment reruns alone -------------------------------------------


async def _move_keyed(base: str, page: str, key: str, query: str = "") -> tuple[list[str], list[str]]:
    """(element kinds of the first run, of the rerun after one move of the slider or number input ``key``).

    The control may sit in a fragment (which it reruns) or in the page with an ``on_change`` that
    reruns named fragments (``ui.fragments.rerun_fragments``): either way, the rerun is what the move sent.
    """
    s = Session(base, page)
    s.query_string = query
    try:
        await s.connect()
        first = await s.load(120)
        assert first.finished and not first.exceptions, (page, first)
        loaded = s.sent
        found = [(k, el, f) for _, k, el, f in s.elements if k != "radio" and el.id.endswith(f"-{key}")]
        assert len(found) == 1, f"{page}: {len(found)} sliders or number inputs with the key {key}"
        kind, el, fragment_id = found[0]
        assert not el.disabled, f"{page}: {key} is disabled"
        if kind == "slider" and el.type == el.SELECT_SLIDER:
            kind = "select_slider"
        control = make_control(kind, el, fragment_id)
        assert control is not None, f"{page}: {key} cannot be moved"
        s.control = control
        moved = await s.move(1, 120)
        assert moved.finished and not moved.exceptions, (page, moved)
        return loaded, s.sent
    finally:
        await s.close()


def test_inspecting_another_layer_reruns_only_the_inspect_section(server: str) -> None:
    """Depth and drift: the layer picker reruns the histogram under it, not the simulation above it.

    The picker reads the simulated stack, which the simulation's own fragment computes and draws (a
    formula, four metrics, two charts). Before the inspect section was a fragment nested in it, each
    move of the picker sent all of that again.
    """
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        loaded, rerun = pool.submit(
            lambda: asyncio.run(_move_keyed(server, "/depth_and_drift", "depth_pick"))
        ).result(timeout=300)
    # the page as drawn: its three charts and three hidden components (ui/history.py, ui/formulas.py,
    # ui/a11y.py)
    assert loaded.count("bidi_component") == 6 and loaded.count("metric") == 4, loaded
    # the picker, the view and the inspected layer's chart; no formula (markdown), metric or other chart
    assert rerun == ["slider", "radio", "bidi_component"], f"more than the inspect section was sent: {rerun}"


@pytest.mark.parametrize("key", ["ys_one_site", "ys_eps"])
def test_a_change_to_the_layernorms_reruns_only_its_section(server: str, key: str) -> None:
    """Your sentence: the change's controls rerun section 2 (the changed forward pass, its chart and
    metrics), not the sentences' inputs or section 1's token, code, metrics and two charts (a full
    rerun sent those 32 elements again)."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        loaded, rerun = pool.submit(
            lambda: asyncio.run(_move_keyed(server, "/your_sentence", key, YS_RMS_ONE_SITE))
        ).result(timeout=300)
    assert {"text_input", "code"} <= set(loaded) and loaded.count("bidi_component") >= 3, loaded
    # (the protocol client sends the moved widget's state alone, so the rerun may show another change
    # than the link's; what it sent is what this checks)
    assert rerun.count("bidi_component") == 1, f"another chart than the change's was sent: {rerun}"
    assert rerun.count("heading") == 1, f"another section's heading was sent: {rerun}"
    assert not {"text_input", "code"} & set(rerun), f"the sentences or section 1 were sent: {rerun}"


async def _choose_first_answer(base: str) -> tuple[list[str], list[str]]:
    """(element kinds of the quiz's first run, of the rerun after choosing an answer in question 1)."""
    from streamlit.proto.WidgetStates_pb2 import WidgetState

    s = Session(base, "/quiz")
    try:
        await s.connect()
        first = await s.load(120)
        assert first.finished and not first.exceptions, first
        loaded = s.sent
        radios = [(el, f) for _, kind, el, f in s.elements if kind == "radio" and el.id.endswith("_1")]
        assert len(radios) == len(BUILDERS), [el.id for el, _ in radios]
        el, fragment_id = radios[0]
        assert fragment_id, "the question is not in a fragment"
        state = WidgetState(id=el.id, string_value=el.options[1])  # the shown text, as a browser sends
        chose = await s._run(s._rerun_msg(state, fragment_id=fragment_id), 120)
        assert chose.finished and not chose.exceptions, chose
        return loaded, s.sent
    finally:
        await s.close()


def test_choosing_a_quiz_answer_reruns_only_its_question(server: str) -> None:
    """A class answers at once: a choice reruns its question's box (a full rerun sent every box, about
    five elements each). Check, which also moves the score, is played in Chromium (test_quiz_browser.py)."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        loaded, rerun = pool.submit(lambda: asyncio.run(_choose_first_answer(server))).result(timeout=300)
    assert loaded.count("radio") >= len(BUILDERS) and "metric" in loaded, loaded
    assert rerun.count("radio") == 1 and "metric" not in rerun, f"more than the question's box: {rerun}"
    assert len(rerun) <= 5, rerun  # its title, prompt, choices and Check


def test_a_geometry_gamma_reruns_only_the_picture_of_y(server: str) -> None:
    """Invariances: γᵢ and βᵢ change only the picture of y = γ⊙x̂ + β and the readout under them, so
    they rerun that lab section alone: not the geometry section's formula, its radios and the pictures
    of x and x̂, nor the line above the sliders. The live sliders' frames read the input (your vector's
    y), so the six sliders sit in that section (ui.live): the six kept sliders and the six live ones,
    the readout, the picture and the text beside it (d = 3)."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        loaded, rerun = pool.submit(
            lambda: asyncio.run(_move_keyed(server, "/invariances", "geo_gamma1"))
        ).result(timeout=300)
    assert loaded.count("bidi_component") >= 5, loaded  # the scale section's two charts, the geometry's three
    assert rerun.count("slider") == 6 and rerun.count("bidi_component") == 8, rerun
    assert "heading" not in rerun and "radio" not in rerun and "latex" not in rerun, rerun
    assert len(rerun) == 15, f"more than the section of y was sent: {rerun}"


def test_a_scale_reruns_its_section_not_the_heading_or_the_geometry(server: str) -> None:
    """Invariances: c reruns section 1 alone. Its live sliders' frames depend on the sidebar's input,
    so the sliders sit in that lab section with everything c and b change (ui.live): the two kept
    sliders and the two live ones, the formula, the four readouts, the outputs chart, the texts, the
    curve and its caption (a note for c ≤ 0); not the heading above it nor the geometry section below."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        loaded, rerun = pool.submit(lambda: asyncio.run(_move_keyed(server, "/invariances", "inv_c"))).result(
            timeout=300
        )
    assert "heading" in loaded and loaded.count("slider") >= 8, loaded
    # the kept sliders; the live sliders, 4 readouts and the 2 charts
    assert rerun.count("slider") == 2 and rerun.count("bidi_component") == 8, rerun
    assert "heading" not in rerun and "radio" not in rerun, f"more than section 1 was sent: {rerun}"
    assert len(rerun) <= 16, rerun  # and the formula, a note for c ≤ 0, the three texts


def test_another_feature_reruns_only_its_arithmetic(server: str) -> None:
    """Gradients: the feature i picked changes two lines of arithmetic, not the gradient's vector, the
    terms' chart, the identities' metrics or the upstream gradient's controls (12 of the 14 it sent)."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        loaded, rerun = pool.submit(
            lambda: asyncio.run(_move_keyed(server, "/gradients", "grad_feature"))
        ).result(timeout=300)
    assert loaded.count("metric") >= 3, loaded
    assert rerun == ["number_input", "markdown", "markdown"], f"more than its arithmetic was sent: {rerun}"
