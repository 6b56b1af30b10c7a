"""Every page keeps what its controls cannot change out of its fragments (read from the source).

A fragment reruns, and sends again, everything drawn inside it whenever one of its controls moves.
The lesson's notes (``page.notice``), the predict-then-reveal question and the code expander
(``page.show_source``) never depend on those controls, so no page may draw them inside an
``@st.fragment`` function (unless they are computed from the fragment's own values: Precision's notes
are checked against the input, in a lab section). ``tests/e2e/test_fragment_reruns.py`` checks on
a real server that a slider's rerun then carries none of them.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted((ROOT / "pages").glob("*.py"))
APP_SOURCES = sorted([ROOT / "app.py", *PAGES, *(ROOT / "ui").glob("*.py")])
STATIC = {"notice", "predict_then_reveal", "show_source"}


def _decorated(func: ast.FunctionDef, name: str) -> bool:
    for dec in func.decorator_list:
        target = dec.func if isinstance(dec, ast.Call) else dec
        if (isinstance(target, ast.Attribute) and target.attr == name) or (
            isinstance(target, ast.Name) and target.id == name
        ):
            return True
    return False


def _is_fragment(func: ast.FunctionDef) -> bool:
    """An ``st.fragment``, a ``ui.fragments.page_fragment`` or a ``ui.state.lab_section`` (keyed)."""
    return any(_decorated(func, name) for name in ("fragment", "page_fragment", "lab_section"))


def _local_names(func: ast.FunctionDef) -> set[str]:
    """The function's parameters and every name it assigns."""
    names = {a.arg for a in func.args.args + func.args.kwonlyargs}
    names |= {n.id for n in ast.walk(func) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    return names


def _static_calls_in_fragments(tree: ast.Module) -> list[str]:
    """``page.notice`` / ``predict_then_reveal`` / ``show_source`` calls inside a fragment that are static.

    A call is static when none of its arguments uses a name of the fragment (its parameters or its
    variables): the same notes on every run. A lab section's notes checked against the input
    (``page.notice(notices(sweep(lab.x, lab.eps)))`` on Precision) change with it, so they belong inside.
    """
    found = []
    for func in ast.walk(tree):
        if isinstance(func, ast.FunctionDef) and _is_fragment(func):
            local = _local_names(func)
            for node in ast.walk(func):
                if (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Attribute)
                    and isinstance(node.func.value, ast.Name)
                    and node.func.value.id == "page"
                    and node.func.attr in STATIC
                ):
                    args = [*node.args, *(k.value for k in node.keywords)]
                    used = {n.id for a in args for n in ast.walk(a) if isinstance(n, ast.Name)}
                    if not used & local:
                        found.append(f"{func.name}() line {node.lineno}: page.{node.func.attr}")
    return found


@pytest.mark.parametrize("path", PAGES, ids=[p.stem for p in PAGES])
def test_no_page_draws_its_notes_question_or_code_inside_a_fragment(path: Path) -> None:
    assert _static_calls_in_fragments(ast.parse(path.read_text(encoding="utf-8"))) == []


def test_the_check_finds_a_static_call_inside_a_fragment() -> None:
    source = (
        "@st.fragment\ndef body():\n    page.show_source(f)\n\n"
        "@st.fragment()\ndef other():\n    page.notice([])\n\ndef plain():\n    page.notice([])\n"
    )
    assert _static_calls_in_fragments(ast.parse(source)) == [
        "body() line 3: page.show_source",
        "other() line 7: page.notice",
    ]
    dynamic = "@lab_section('a')\ndef body(lab):\n    page.notice(notes(lab.x))\n    page.notice([str(P)])\n"
    assert _static_calls_in_fragments(ast.parse(dynamic)) == ["body() line 4: page.notice"]


def test_the_pages_checked_include_thirteen_with_fragments() -> None:
    trees = {p.stem: ast.parse(p.read_text(encoding="utf-8")) for p in PAGES}
    with_fragments = [
        name
        for name, tree in trees.items()
        if any(isinstance(f, ast.FunctionDef) and _is_fragment(f) for f in ast.walk(tree))
    ]
    assert len(with_fragments) >= 13, with_fragments


def _input_outside_lab_sections(tree: ast.Module) -> list[str]:
    """Where a page with lab sections reads the sidebar's input outside them (module level).

    A sidebar move reruns only the lab sections (``ui.state.lab_section``), so anything else that
    shows the input would keep showing the old one. Allowed: functions (a lab section or a helper it
    calls gets the input as an argument) and a bare ``lab_input()`` statement (the input's warning).
    """
    if not any(isinstance(f, ast.FunctionDef) and _decorated(f, "lab_section") for f in tree.body):
        return []
    found = []
    for stmt in tree.body:
        if isinstance(stmt, (ast.FunctionDef, ast.Import, ast.ImportFrom)):
            continue
        if isinstance(stmt, ast.Expr) and ast.unparse(stmt.value) == "lab_input()":
            continue
        for node in ast.walk(stmt):
            named = (isinstance(node, ast.Name) and node.id in {"lab", "lab_input"}) or (
                isinstance(node, ast.Constant) and node.value == "lab_input"
            )
            if named:
                found.append(f"line {stmt.lineno}: {ast.unparse(stmt)[:60]}")
                break
    return found


@pytest.mark.parametrize("path", PAGES, ids=[p.stem for p in PAGES])
def test_a_page_with_lab_sections_reads_its_input_only_inside_them(path: Path) -> None:
    assert _input_outside_lab_sections(ast.parse(path.read_text(encoding="utf-8"))) == []


def test_the_check_finds_the_input_read_outside_the_lab_sections() -> None:
    source = (
        "lab_input()\n@lab_section('a')\ndef body(lab):\n    st.write(lab.x)\n\nbody()\n"
        "lab = lab_input()\nst.write(lab.eps)\nx = st.session_state['lab_input']\n"
    )
    assert _input_outside_lab_sections(ast.parse(source)) == [
        "line 7: lab = lab_input()",
        "line 8: st.write(lab.eps)",
        "line 9: x = st.session_state['lab_input']",
    ]
    assert _input_outside_lab_sections(ast.parse(source.replace("@lab_section('a')", "@st.fragment"))) == []


def test_nine_or_more_pages_have_lab_sections() -> None:
    trees = {p.stem: ast.parse(p.read_text(encoding="utf-8")) for p in PAGES}
    with_sections = [
        name
        for name, tree in trees.items()
        if any(isinstance(f, ast.FunctionDef) and _decorated(f, "lab_section") for f in tree.body)
    ]
    assert len(with_sections) >= 9, with_sections


def _fragment_uses(path: Path) -> list[str]:
    """Where a module uses ``st.fragment`` itself (a decorator or a call), not ``ui.fragments.page_fragment``.

    A fragment's own rerun is the user's action, so it must take a link's messages off the page
    (``ui.fragments.end_link_news``); ``page_fragment`` does that on every run of every fragment. A
    fragment made with ``st.fragment`` directly would leave the messages in other sections on
    screen, next to values they no longer describe (stop 25's browser QA). ``page_fragment`` is the
    one place allowed to call it.
    """
    tree = ast.parse(path.read_text(encoding="utf-8"))
    inside = {
        id(n)
        for f in ast.walk(tree)
        if isinstance(f, ast.FunctionDef) and f.name == "page_fragment"
        for n in ast.walk(f)
    }
    uses = [
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.Attribute) and n.attr == "fragment" and id(n) not in inside
    ]
    return [f"line {n.lineno}: {ast.unparse(n)}" for n in sorted(uses, key=lambda n: n.lineno)]


@pytest.mark.parametrize("path", APP_SOURCES, ids=[p.stem for p in APP_SOURCES])
def test_every_fragment_is_made_by_page_fragment(path: Path) -> None:
    assert _fragment_uses(path) == []


def test_the_check_finds_st_fragment_used_directly(tmp_path: Path) -> None:
    source = tmp_path / "page.py"
    source.write_text(
        "@st.fragment\ndef a():\n    pass\n\n@st.fragment(key='k')\ndef b():\n    pass\n\n"
        "def c():\n    @page_fragment\n    def d():\n        pass\n    st.fragment(d)()\n\n"
        "def page_fragment(func):\n    return st.fragment(func)\n",
        encoding="utf-8",
    )
    assert _fragment_uses(source) == ["line 1: st.fragment", "line 5: st.fragment", "line 13: st.fragment"]


def test_page_fragment_is_used_by_the_pages_and_the_lab_sections() -> None:
    uses = {
        p.stem
        for p in APP_SOURCES
        for f in ast.walk(ast.parse(p.read_text(encoding="utf-8")))
        if isinstance(f, ast.FunctionDef) and _decorated(f, "page_fragment")
    }
    assert {"state", "page", "16_quiz", "7_train_vs_inference", "14_invariances"} <= uses, uses
