"""Invariances' line ε/c² = … as KaTeX draws it, for the offered values of c a browser QA pass broke.

c in ×10 form was followed by ^2 (KaTeX's "Double superscript", the source shown in red), and a
negative c was squared without brackets (−1² reads −1, beside a positive result).
"""

from __future__ import annotations

import re

import pytest

from e2e.support import Lab, page_by_url

pytestmark = pytest.mark.browser

INVARIANCES = page_by_url("/invariances")
KATEX_ERROR = '[data-testid="stMain"] .katex-error'


def _c_line(lab: Lab) -> str:
    """The LaTeX source of the line under the Invariances formula that starts with c = …"""
    annotations = lab.page.locator('[data-testid="stMain"] .katex-mathml annotation').all_text_contents()
    lines = [a for a in annotations if a.startswith("c = ")]
    assert len(lines) == 1, f"expected one 'c = …' line, found {lines}"
    return lines[0]


@pytest.mark.parametrize("c", ["1e6", "1e-4", "1e-6"])
def test_invariances_numbers_line_renders_for_c_in_scientific_form(lab: Lab, c: str) -> None:
    """inv_c=1e6 (offered, and written by the app's own links): KaTeX 'Double superscript' today,
    because 1 \\times 10^{6} is followed by ^2; the class sees the raw LaTeX in red."""
    lab.open(INVARIANCES, f"?inv_c={c}")
    errors = lab.page.locator(KATEX_ERROR).all()
    titles = [e.get_attribute("title") for e in errors]
    assert not errors, f"/invariances?inv_c={c} shows raw LaTeX: {titles}"
    lab.assert_clean()


@pytest.mark.parametrize("c", ["-1", "-0.001", "-100"])
def test_invariances_squares_a_negative_c_as_a_whole(lab: Lab, c: str) -> None:
    """ε/c² with c = −1 is written '/ -1^2', which reads −(1²) = −1, beside a positive result."""
    lab.open(INVARIANCES, f"?inv_c={c}")
    line = _c_line(lab)
    assert not re.search(r"/ *-[0-9.]+\^", line), f"c = {c}: a negative c is squared without brackets: {line}"
