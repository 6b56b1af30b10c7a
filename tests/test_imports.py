"""A fresh server's first page waits for every import it makes: pandas (~0.3-0.5 s) only when needed.

pandas is imported where a table or a CSV is read or written (ui.state's grid and CSV reader,
layernorm.data.files' CSV reader, ui.worksheet_files' CSV download), not when a module is imported.
"""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_python(code: str, timeout: float = 120) -> str:
    """Run ``code`` in a fresh interpreter from the repository root; its stdout (fails on an error)."""
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=timeout
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


IMPORT_ALL = """
import importlib, pkgutil, sys
import ui, layernorm
for pkg in (ui, layernorm):
    for info in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + "."):
        importlib.import_module(info.name)
        if "pandas" in sys.modules:
            print("pandas imported by", info.name)
            sys.exit(1)
print("imported", len([m for m in sys.modules if m.startswith(("ui.", "layernorm"))]), "modules")
"""


def test_no_module_of_the_app_imports_pandas_when_imported() -> None:
    assert "imported" in run_python(IMPORT_ALL)


def test_the_worksheet_csv_still_imports_pandas_when_asked() -> None:
    """The lazy import is a real import: building a CSV works in a process that had no pandas."""
    code = (
        "import sys, numpy as np, layernorm as ln, ui.worksheet_files as w\n"
        "assert 'pandas' not in sys.modules\n"
        "s = ln.layer_norm_steps(np.array([1.0, 2.0, 4.0]), eps=1e-5)\n"
        "data = w.worksheet_csv(s)\n"
        "assert 'pandas' in sys.modules\n"
        "print(data.decode('utf-8-sig').splitlines()[0])\n"
    )
    assert run_python(code).startswith("i,x,")


def test_the_app_freezes_its_imports_once() -> None:
    """After the first run the imported modules are in the permanent generation, and only once."""
    code = (
        "import gc\n"
        "from streamlit.testing.v1 import AppTest\n"
        "assert gc.get_freeze_count() == 0\n"
        "at = AppTest.from_file('app.py', default_timeout=120).run()\n"
        "first = gc.get_freeze_count()\n"
        "at.run()\n"
        "assert not at.exception, at.exception\n"
        "print(first, gc.get_freeze_count())\n"
    )
    first, again = (int(n) for n in run_python(code, timeout=180).split()[-2:])
    assert first > 10_000  # numpy, plotly, streamlit, the lab: tens of thousands of objects
    assert again <= first  # the second run froze nothing more (frozen objects freed by refcount leave it)
