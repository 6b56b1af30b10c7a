"""One owner of Session State: ``ui/session.py`` is the only product file that touches
``st.session_state``; every other module reads and writes the lab's entries through its typed
objects, and widget values through ``ui.session.widgets`` by declared keys."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from ui import session

ROOT = Path(__file__).resolve().parents[1]
OWNER = ROOT / "ui" / "session.py"


def product_files() -> list[Path]:
    files = [ROOT / "app.py", *sorted((ROOT / "ui").rglob("*.py")), *sorted((ROOT / "pages").glob("*.py"))]
    return [f for f in files if f != OWNER]


def session_state_uses(path: Path) -> list[int]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr == "session_state"]


def test_only_the_owner_touches_session_state() -> None:
    found = {
        str(f.relative_to(ROOT)): lines for f in product_files() if (lines := session_state_uses(f))
    }
    assert found == {}, f"st.session_state outside ui/session.py (use ui.session): {found}"


def test_the_rule_sees_a_use() -> None:
    """The reader finds the uses it must refuse (the owner has them)."""
    assert session_state_uses(OWNER)


def test_every_entry_key_is_declared_once() -> None:
    keys = session.declared_keys()
    assert len(keys) == len(set(keys))
    with pytest.raises(ValueError, match="declared twice"):
        session.Entry("lab_input", lambda: None, "a second owner")


@pytest.mark.parametrize("key", ["mean_shift", "gamma", "tok_index", "table", "mean_shift_live", "quiz_q3_1"])
def test_declared_widgets(key: str) -> None:
    assert session.declared_widget(key)


@pytest.mark.parametrize("key", ["gama", "lab_input", "quiz_seed", "_live", "quiz_", "steps_at_x"])
def test_undeclared_widgets_are_refused(key: str) -> None:
    assert not session.declared_widget(key)


def widget_key_literals(path: Path) -> set[str]:
    """The ``key="..."`` strings a file passes to calls (a widget's or container's key)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {
        kw.value.value
        for n in ast.walk(tree)
        if isinstance(n, ast.Call)
        for kw in n.keywords
        if kw.arg == "key" and isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, str)
    }


def test_no_widget_takes_an_entrys_key() -> None:
    """A button keyed as one of the lab's entries made the page fail (Streamlit: "st.session_state[...]
    is read-only"): the tour's *Show me the control* and the count of its presses were both tour_show."""
    taken = {k: str(f.relative_to(ROOT)) for f in product_files() for k in widget_key_literals(f)}
    assert {k: f for k, f in taken.items() if k in session._DECLARED} == {}
    assert "tour_show" in taken  # the reader finds literal keys
