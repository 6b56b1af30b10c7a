"""Every document the code cites is in the repository (a clone has nothing beside it)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CODE = [ROOT / "app.py", ROOT / "Makefile", ROOT / ".ci" / "run"]
for folder in ("layernorm", "ui", "pages", "tests", "scripts", "benchmarks", ".streamlit"):
    CODE += [p for p in (ROOT / folder).rglob("*") if p.suffix in {".py", ".js", ".css", ".toml", ".sh"}]
CITED = re.compile(r"[A-Za-z0-9_./-]*[A-Za-z0-9_-]\.md\b")


def _cited() -> list[tuple[str, str]]:
    found = []
    for path in CODE:
        if path.is_file():
            text = path.read_text(encoding="utf-8", errors="replace")
            found += [(str(path.relative_to(ROOT)), m.group()) for m in CITED.finditer(text)]
    return sorted(set(found))


@pytest.mark.parametrize(("where", "cited"), _cited())
def test_a_cited_document_exists_at_its_path(where: str, cited: str) -> None:
    if "/" in cited:  # a path from the repository's root
        assert (ROOT / cited).is_file(), f"{where} cites {cited}, which is not in the repository"
    else:  # a bare name (a path joined in code): some file of the repository has it
        named = [p for p in ROOT.rglob(cited) if ".venv" not in p.parts]
        assert named, f"{where} cites {cited}, which is not in the repository"


def test_the_code_cites_its_documents() -> None:
    cited = {c for _, c in _cited()}
    assert {"docs/ARCHITECTURE.md", "docs/TESTING.md", "tests/data/FRAMEWORKS.md"} <= cited
