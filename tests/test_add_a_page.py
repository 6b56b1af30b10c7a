"""The README's "Add a page" is true: its example, added as the README says, keeps every page rule.

The test reads the README's section and follows its steps in a copy of the app: the example page
under the file name the README gives it, its ``Entry`` in the section the README names in
``ui/navigation.py``, its keys in ``ui/keys.py``. Then, in that copy and a pytest of its own, it
runs every test that loops over the pages, as written, for the new page (the tests parametrized by
page, and those that take every page at once). A README example that breaks a page rule (no code box,
a chart that ε changes outside its frames and outside ``live.at_rest``, a plain ``st`` widget, a
key not registered) fails here, with that test's own message.
"""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

from ui.navigation import HIDDEN

ROOT = Path(__file__).resolve().parents[1]
# What the copy leaves out: version control, environments, caches, the JavaScript tooling, and at the
# top, the class store's files and screenshots.
_SKIPPED = shutil.ignore_patterns(".git", ".venv*", "node_modules", "__pycache__", ".*_cache", ".hypothesis")


def _not_copied(folder: str, names: list[str]) -> set[str]:
    top = {"data", "screenshots"} if Path(folder) == ROOT else set()
    return set(_SKIPPED(folder, names)) | (top & set(names))


# Test files that loop over the pages (a new one is found by these, never listed here).
PAGE_LOOPS = re.compile(
    r'"pages"\)\.r?glob\(|\bSECTIONS\b|\bPAGE_KEYS\b|from e2e\.support import \(?[^)]*?\bPAGES\b'
)
# Tests that take every page at once, in one test: they run whole (their ids name no page).
EVERY_PAGE_AT_ONCE = (
    "tests/test_page_links.py::test_every_page_key_belongs_to_a_page_file",
    "tests/test_page_links.py::test_every_page_file_is_in_the_navigation",
    "tests/test_page_links.py::test_no_page_key_is_bound_on_two_pages",
    "tests/test_link_numbers.py::test_every_control_over_numbers_is_read_as_numbers",
    "tests/test_link_numbers.py::test_every_spelling_of_an_offered_value_picks_it_without_a_note",
    "tests/test_link_numbers.py::test_a_value_not_offered_picks_the_nearest_and_names_it",
    "tests/test_link_numbers.py::test_the_lab_writes_every_offered_number_in_ascii_that_reads_back",
    "tests/test_sidebar_state.py::test_home_links_every_lesson_page",
    "tests/test_plot.py::test_pages_draw_charts_only_through_show",
)
# The pytest plugin the copy's run loads: it keeps the tests whose parameters name the new page and
# the tests above, and deselects the rest.
PLUGIN = """
import os

PAGE = os.environ["NEW_PAGE"].split("|")  # its file, its file's stem, its name, its address
WHOLE = set(os.environ["EVERY_PAGE_AT_ONCE"].split("|"))


def _names_the_page(value):
    text = str(value)
    return text in PAGE[2:] or PAGE[1] in text


def pytest_collection_modifyitems(config, items):
    keep, drop = [], []
    for item in items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        chosen = item.nodeid in WHOLE or any(_names_the_page(v) for v in params.values())
        (keep if chosen else drop).append(item)
    config.hook.pytest_deselected(items=drop)
    items[:] = keep
"""


def _section() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    return readme.split("\n## Add a page\n", 1)[1].split("\n## ", 1)[0]


def _steps(section: str) -> dict[int, str]:
    """The section's numbered steps, by number (a step runs to the next step or the text after the list)."""
    found = re.split(r"^(\d)\. ", section.split("\n\nThe page tests", 1)[0], flags=re.MULTILINE)
    return {int(n): text for n, text in zip(found[1::2], found[2::2], strict=True)}


def _python_blocks(step: str) -> list[str]:
    return [
        textwrap.dedent(b) for b in re.findall(r"```python\n(.*?)^\s*```", step, re.DOTALL | re.MULTILINE)
    ]


def _insert_before_end(source: str, target: str, line: str, key: str | None = None) -> str:
    """``source`` with ``line`` added as the last item of the dict assigned to ``target`` (or of the list
    under ``key`` in that dict), where the README's step says to put it."""
    for node in ast.parse(source).body:
        if isinstance(node, ast.AnnAssign | ast.Assign):
            names = [node.target] if isinstance(node, ast.AnnAssign) else node.targets
            if any(isinstance(n, ast.Name) and n.id == target for n in names):
                assert isinstance(node.value, ast.Dict), target
                where: ast.expr = node.value
                if key is not None:
                    keys = [k.value for k in node.value.keys if isinstance(k, ast.Constant)]
                    assert key in keys, f"the README names the section {key!r}; SECTIONS has {keys}"
                    where = node.value.values[keys.index(key)]
                assert where.end_lineno is not None
                lines = source.splitlines(keepends=True)
                end = where.end_lineno - 1  # the line of the closing bracket
                return "".join([*lines[:end], line.rstrip() + "\n", *lines[end:]])
    raise AssertionError(f"no {target} in the file the README names")


def _follow_the_readme(app: Path) -> tuple[str, list[str]]:
    """Add the README's example page to the copy ``app`` as its steps say: (its file, its keys)."""
    steps = _steps(_section())
    page_code = _python_blocks(steps[1])[0]
    file = re.search(r"`(pages/(\d+)_(\w+)\.py)`", steps[1])
    assert file, "step 1 names no example file pages/<N>_<name>.py"
    path, number, name = file.group(1), int(file.group(2)), file.group(3)
    hidden = {e.path for e in HIDDEN}  # pages no menu lists (the projector view) take no lesson's number
    lessons = [p for p in (ROOT / "pages").glob("*.py") if f"pages/{p.name}" not in hidden]
    numbers = {int(p.stem.split("_")[0]): p.name for p in lessons}
    assert number not in numbers, f"the README's {path} takes {number}, which pages/{numbers[number]} has"
    assert number == max(numbers) + 1, f"the README's {path}: the next free number is {max(numbers) + 1}"
    (app / path).write_text(page_code, encoding="utf-8")

    nav = _python_blocks(steps[2])[0]
    section = re.match(r'"([^"]+)": \[', nav)
    entry = re.search(r"^\s*(Entry\(.*?\)),?\s*$", nav, re.DOTALL | re.MULTILINE)
    assert section and entry, f"step 2's block names no section and Entry: {nav}"
    assert re.match(rf'Entry\(\s*"{path}",', entry.group(1)), "step 2's Entry is not the example's file"
    navigation = app / "ui" / "navigation.py"
    text = navigation.read_text(encoding="utf-8")
    navigation.write_text(_insert_before_end(text, "SECTIONS", entry.group(1) + ",", section.group(1)))

    keys = re.search(r'`"(\w+)": (\([^`]*\)),?`', steps[3])
    assert keys and keys.group(1) == name, f"step 3 registers no keys under {name!r}"
    registry = app / "ui" / "keys.py"
    text = registry.read_text(encoding="utf-8")
    registry.write_text(_insert_before_end(text, "PAGE_KEYS", f'"{name}": {keys.group(2)},'))
    return path, list(ast.literal_eval(keys.group(2)))


def _page_test_files(app: Path) -> list[str]:
    return sorted(
        str(p.relative_to(app))
        for p in (app / "tests").rglob("test_*.py")
        if "fuzz" not in p.parts
        and p.name != Path(__file__).name
        and PAGE_LOOPS.search(p.read_text(encoding="utf-8"))
    )


def test_the_readmes_example_page_passes_every_page_test(tmp_path: Path) -> None:
    app = tmp_path / "app"
    shutil.copytree(ROOT, app, ignore=_not_copied, symlinks=True)
    path, keys = _follow_the_readme(app)
    (app / "_new_page_only.py").write_text(PLUGIN, encoding="utf-8")
    stem = Path(path).stem
    name = stem.split("_", 1)[1]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "PYTHONPATH"))}
    env |= {"NEW_PAGE": f"{path}|{stem}|{name}|/{name}", "EVERY_PAGE_AT_ONCE": "|".join(EVERY_PAGE_AT_ONCE)}
    files = _page_test_files(app)
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "_new_page_only", "-m",
         "not browser", "-rA", *files],
        cwd=app, env=env, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    out = run.stdout + run.stderr
    assert run.returncode == 0, f"the README's example ({path}) fails a page test:\n{out[-6000:]}"
    passed = set(re.findall(r"^PASSED (\S+)", out, re.MULTILINE))
    assert set(EVERY_PAGE_AT_ONCE) <= passed, set(EVERY_PAGE_AT_ONCE) - passed
    # The page's own runs of the tests parametrized by page: a selection that found none checked nothing.
    mine = {n.split("::")[0] for n in passed if re.search(rf"[\[/-](?:{re.escape(stem)}|{name})[].-]", n)}
    for loop in (
        "tests/test_page_rules.py",
        "tests/test_page_links.py",
        "tests/test_page_fragments.py",
        "tests/test_live_follow.py",
        "tests/test_lab_sections.py",
        "tests/e2e/test_fragment_reruns.py",
    ):
        assert loop in mine, f"{loop} ran no test for {path}: {sorted(mine)}"
    assert keys, "the example registers no control: no link rule was tried on it"
