"""Every private Streamlit or Plotly name the lab uses is listed in docs/ARCHITECTURE.md, and every
name listed there is still used.

A private name is one Streamlit or Plotly may change in any release without a word: a module Streamlit
does not document as public (``streamlit.runtime.*``, ``streamlit.elements.*``, ``streamlit.proto.*``),
a name that starts with ``_`` (``_plotly_utils``, ``fig._layout``, ``go.Figure(_validate=...)``), a
package's ``__file__`` used to reach its files, and in JavaScript any property that starts with ``_``
(plotly.js's ``_fullLayout``, d3's ``__data__``). An upgrade that breaks one of them breaks the lab
silently, so each one has a line in the doc's list saying where and why; the list is the record.

The scan reads Python with ``ast`` (imports, attributes, keyword arguments, ``getattr``-style strings)
and JavaScript with a regex, in ``static/`` and ``ui/`` ``*.js`` and in the Python strings that hold it. It
matches names, not files: a name may move between a Python string and ``static/``.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from pathlib import Path

from ui.plot import PARTIAL

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "ARCHITECTURE.md"
PYTHON = ("app.py", "pages", "ui", "layernorm", "classroom", "deploy", "scripts")
JS = ("static", "ui")
THIRD_PARTY = ("streamlit", "plotly", "_plotly_utils")
# Streamlit's documented modules (its API reference); every other streamlit.* module is internal.
PUBLIC_STREAMLIT = {"streamlit", "streamlit.components.v1", "streamlit.components.v2", "streamlit.testing.v1"}
# Plotly's documented modules; a module path with a part that starts with "_" is private anyway.
PUBLIC_PLOTLY = {
    "plotly",
    "plotly.graph_objects",
    "plotly.io",
    "plotly.subplots",
    "plotly.colors",
    "plotly.express",
}
# A property that starts with "_" after "." or "?." in JavaScript, also further along a chain
# (``plot._fullLayout?._size``: the second name was missed when the first match took the first).
JS_PRIVATE = re.compile(r"[\w$\])?]\.(_{1,2}[A-Za-z$][\w$]*)")
JS_OWN = re.compile(r"\.(_{1,2}[A-Za-z$][\w$]*)\s*=(?!=)")  # a property the lab's script sets itself
GETATTR = {"getattr", "hasattr", "setattr", "delattr"}
PRIVATE_IDENT = re.compile(r"_[A-Za-z]\w*")


def _private_module(module: str) -> bool:
    parts = module.split(".")
    if parts[0] not in THIRD_PARTY:
        return False
    if any(p.startswith("_") for p in parts):
        return True
    if parts[0] == "streamlit":
        return module not in PUBLIC_STREAMLIT
    return module not in PUBLIC_PLOTLY


def _tracked(module: str) -> bool:
    """Whether the attributes used on what ``module`` gives are listed one by one: not for Streamlit's
    protobuf messages (their fields are the wire format, which the import stands for)."""
    return not module.startswith("streamlit.proto")


def _dunder(name: str) -> bool:
    return name.startswith("__") and name.endswith("__")


def _python_files(root: Path) -> list[Path]:
    files: list[Path] = []
    for part in PYTHON:
        path = root / part
        files += [path] if path.is_file() else sorted(path.rglob("*.py"))
    return files


def _js_files(root: Path) -> list[Path]:
    """The lab's own JavaScript, in ``static/`` or beside the Python that mounts it (not plotly.js)."""
    found = [p for part in JS for p in sorted((root / part).rglob("*.js"))]
    copies = {"plotly.min.js", *(name for _, name in PARTIAL.values())}  # plotly.js's builds (ui/plot.py)
    return [p for p in found if p.name not in copies and "node_modules" not in p.parts]


def _own_names(trees: Iterable[ast.AST], files: Iterable[Path], scripts: Iterable[str]) -> set[str]:
    """Every name the lab defines itself: its private names are its own business."""
    own = {p.stem for p in files}
    for script in scripts:
        own |= set(JS_OWN.findall(script))
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                own.add(node.name)
            elif isinstance(node, ast.arg):
                own.add(node.arg)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                own.add(node.id)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                own.add(node.attr)
    return own


def _docstrings(tree: ast.AST) -> set[int]:
    return {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    }


def _scan_python(tree: ast.AST, own: set[str]) -> set[str]:
    found: set[str] = set()
    modules: dict[str, str] = {}  # local name -> third-party module it is bound to
    roots: dict[str, str] = {}  # local name -> the private name it is bound to (import or its call)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                local = alias.asname or alias.name.split(".")[0]
                if alias.name.split(".")[0] in THIRD_PARTY:
                    modules[local] = alias.name if alias.asname else local
                if _private_module(alias.name):
                    found.add(alias.name)
                    if _tracked(alias.name):
                        roots[local] = alias.name.rsplit(".", 1)[-1]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.split(".")[0] not in THIRD_PARTY:
                continue
            for alias in node.names:
                if _private_module(node.module) or alias.name.startswith("_"):
                    found.add(f"{node.module}.{alias.name}")
                    if _tracked(node.module):
                        roots[alias.asname or alias.name] = alias.name
    # A name bound to a private import, or to what calling one returns (ctx = get_script_run_ctx()).
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            value = node.value.func if isinstance(node.value, ast.Call) else node.value
            if isinstance(value, ast.Name) and value.id in roots and value.id != node.targets[0].id:
                call = "()" if isinstance(node.value, ast.Call) else ""
                roots[node.targets[0].id] = roots[value.id] + call
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            base, attr = node.value.id, node.attr
            if base in roots and not _dunder(attr):
                found.add(f"{roots[base]}.{attr}")
            elif base in modules and attr == "__file__":
                found.add(f"{modules[base]}.__file__")
            elif attr.startswith("_") and not _dunder(attr) and attr not in own:
                found.add(attr)
        elif isinstance(node, ast.Attribute) and node.attr.startswith("_") and not _dunder(node.attr):
            if node.attr not in own:
                found.add(node.attr)
        elif isinstance(node, ast.keyword) and node.arg and node.arg.startswith("_") and node.arg not in own:
            found.add(node.arg)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in GETATTR:
            if (
                len(node.args) >= 2
                and isinstance(node.args[1], ast.Constant)
                and isinstance(node.args[1].value, str)
            ):
                attr, target = node.args[1].value, node.args[0]
                if isinstance(target, ast.Name) and target.id in roots:
                    found.add(f"{roots[target.id]}.{attr}")
                elif PRIVATE_IDENT.fullmatch(attr) and attr not in own:
                    found.add(attr)
        elif isinstance(node, ast.For) and isinstance(node.iter, ast.Tuple | ast.List):
            # for attr in ("_grid_ref", ...): ... fig.__dict__[attr]
            for item in node.iter.elts:
                if isinstance(item, ast.Constant) and isinstance(item.value, str):
                    if PRIVATE_IDENT.fullmatch(item.value) and item.value not in own:
                        found.add(item.value)
    skip = _docstrings(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            found |= {n for n in _scan_js(node.value) if n not in own}
    return found


def _scan_js(text: str) -> set[str]:
    code = re.sub(r"^\s*//.*$", "", text, flags=re.MULTILINE)  # whole-line comments only
    return set(JS_PRIVATE.findall(code))


def used_private_names(root: Path = ROOT) -> dict[str, set[str]]:
    """{private name: the files that use it} for the product code under ``root``."""
    files = _python_files(root)
    trees = {p: ast.parse(p.read_text(encoding="utf-8"), filename=str(p)) for p in files}
    js = _js_files(root)
    scripts = [p.read_text(encoding="utf-8") for p in js] + [
        node.value
        for tree in trees.values()
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    ]
    own = _own_names(trees.values(), [*files, *js], scripts)
    used: dict[str, set[str]] = {}
    for path, tree in trees.items():
        for name in _scan_python(tree, own):
            used.setdefault(name, set()).add(str(path.relative_to(root)))
    for path in js:
        for name in _scan_js(path.read_text(encoding="utf-8")) - own:
            used.setdefault(name, set()).add(str(path.relative_to(root)))
    return used


def listed_private_names(doc: Path = DOC) -> set[str]:
    """The names in the first column of the private-name table of the doc's "Workarounds" section."""
    text = doc.read_text(encoding="utf-8")
    section = text.split("\n## Workarounds\n", 1)[1].split("\n## ", 1)[0]
    rows = section.split("| private name |", 1)[1].splitlines()[2:]
    names: set[str] = set()
    for row in rows:
        if not row.startswith("|"):
            break
        names |= set(re.findall(r"`([^`]+)`", row.split("|")[1]))
    return names


def test_every_private_name_used_is_listed() -> None:
    listed = listed_private_names()
    unlisted = {name: sorted(files) for name, files in used_private_names().items() if name not in listed}
    assert not unlisted, (
        "a private Streamlit/Plotly name is used but not listed in docs/ARCHITECTURE.md, 'Workarounds' "
        f"(add a row: where, and why no public name does the job): {unlisted}"
    )


def test_every_listed_private_name_is_still_used() -> None:
    stale = listed_private_names() - set(used_private_names())
    assert not stale, f"docs/ARCHITECTURE.md lists private names the code no longer uses: {sorted(stale)}"


def test_the_scan_finds_a_new_private_name(tmp_path: Path) -> None:
    """A scratch copy with one more private name of each kind: the scan reports each, unlisted."""
    for part in ("ui", "static"):
        (tmp_path / part).mkdir()
    (tmp_path / "ui" / "scratch.py").write_text(
        "import plotly.graph_objects as go\n"
        "import streamlit as st\n"
        "from streamlit.runtime.state import SessionStateProxy\n"
        "from streamlit.runtime.scriptrunner import get_script_run_ctx\n"
        "ctx = get_script_run_ctx()\n"
        "ctx.uploaded_file_mgr\n"
        "fig = go.Figure(_skip=True)\n"
        "fig._data_objs\n"
        "getattr(fig, '_grid_subplot_refs')\n"
        "import plotly.io as pio\nHERE = pio.__file__\n"
        "JS = 'plot._fullData.length'\n",
        encoding="utf-8",
    )
    (tmp_path / "static" / "scratch.js").write_text(
        "const ax = gd?._fullLayout.xaxis._m;\n", encoding="utf-8"
    )
    used = set(used_private_names(tmp_path))
    new = {
        "streamlit.runtime.state.SessionStateProxy",
        "get_script_run_ctx().uploaded_file_mgr",
        "_skip",
        "_data_objs",
        "_grid_subplot_refs",
        "plotly.io.__file__",
        "_fullData",
        "_m",
    }
    assert new <= used
    assert not new & listed_private_names()
