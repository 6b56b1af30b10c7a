"""A visit that is not in a class never loads the database layer: SQLAlchemy (about 0.23 s to
import) waits until a class is used (``ui.class_session.store``), so a fresh server's first page does
not wait for it (benchmarks/README.md, "First visit")."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def app_imports() -> list[str]:
    """The modules app.py imports at its top."""
    tree = ast.parse((ROOT / "app.py").read_text(encoding="utf-8"))
    found: list[str] = []
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found += [f"{node.module}.{a.name}" if node.module == "ui" else node.module for a in node.names]
        elif isinstance(node, ast.Import):
            found += [a.name for a in node.names]
    return [m for m in found if m.startswith("ui")]


def loaded_after(modules: list[str]) -> set[str]:
    code = "import sys\n" + "".join(f"import {m}\n" for m in modules) + "print(' '.join(sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    return set(out.stdout.split())


def test_the_app_imports_no_database_layer() -> None:
    modules = app_imports()
    assert "ui.class_session" in modules and "ui.class_views" in modules  # the class panel is drawn
    loaded = loaded_after(modules)
    assert "sqlalchemy" not in loaded and "classroom.store" not in loaded


def test_the_check_sees_the_database_layer() -> None:
    assert {"sqlalchemy", "classroom.store"} <= loaded_after(["classroom.store"])


def test_the_first_step_of_every_run_imports_pandas_before_any_figure_is_built() -> None:
    """plotly reads pandas from sys.modules while it builds a trace: a pandas that another session's
    thread is importing at that moment is half there (``ui.plot.prepare_static``, which app.py calls
    before any page; its modules themselves do not import pandas: tests/test_imports.py)."""
    code = (
        "import sys\nfrom ui.plot import prepare_static\nassert 'pandas' not in sys.modules\n"
        "prepare_static()\nprint('pandas' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.split()[-1] == "True"
    app = (ROOT / "app.py").read_text(encoding="utf-8")
    assert app.index("prepare_static()") < app.index("nav.run()")
