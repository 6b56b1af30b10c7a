"""Presentation mode shows every page whole on a 1280×720 projector: its intro, its prose, its numbers.

The intro (the paragraph under a page's title) was cut at three lines until the pointer rested on
it; in front of a class nobody hovers, so the rest of it was never read. On every page, with
``present=true`` and the pointer away from the text, each paragraph of the intro must show all its
lines (no line clamp, nothing scrolled out of its box), and so must every other paragraph of prose.
Presentation mode's larger metric values were also cut with an ellipsis ("2.070e−0…" on Invariances,
"0 (to roun…" on Gradients): no metric value or label, control label or formula may be cut.
"""

from __future__ import annotations

from typing import Any

import pytest

from e2e.support import PAGES, AppPage, Lab, nothing_cut, page_by_url

pytestmark = pytest.mark.browser

PROJECTOR = {"width": 1280, "height": 720}

# Each paragraph: the intro's (the first Markdown after the page's h1) and every other visible one of
# the main area, with what cuts it if anything does.
PARAGRAPHS_JS = """() => {
  const main = document.querySelector('[data-testid="stMain"]');
  const h1 = main.querySelector('h1');
  const blocks = [...main.querySelectorAll('[data-testid="stMarkdownContainer"]')];
  const intro = blocks.find(m => !m.contains(h1) && !!h1 &&
                                 (h1.compareDocumentPosition(m) & Node.DOCUMENT_POSITION_FOLLOWING));
  return blocks.flatMap(m => [...m.querySelectorAll(':scope > p')].map(p => {
    const cs = getComputedStyle(p);
    return {intro: m === intro, text: p.innerText.slice(0, 70), shown: p.getClientRects().length > 0,
            scroll: p.scrollHeight, client: p.clientHeight,
            clamp: String(cs.webkitLineClamp), lineClamp: String(cs.lineClamp ?? 'none')};
  }));
}"""


def _cut(p: dict[str, Any]) -> bool:
    clamped = p["clamp"] not in ("none", "") or p["lineClamp"] not in ("none", "")
    return clamped or p["scroll"] > p["client"] + 1


@pytest.mark.parametrize("app_page", PAGES, ids=[p.url for p in PAGES])
def test_every_intro_number_and_formula_is_shown_whole_in_presentation_mode(
    lab: Lab, app_page: AppPage
) -> None:
    lab.page.set_viewport_size(PROJECTOR)
    lab.open(app_page, "?present=true")
    lab.page.mouse.move(1, 1)  # the pointer rests on no paragraph: a hover must not be what shows it
    paragraphs = [p for p in lab.page.evaluate(PARAGRAPHS_JS) if p["shown"]]
    intro = [p for p in paragraphs if p["intro"]]
    assert intro and all(len(p["text"]) > 20 for p in intro), paragraphs[:3]
    assert [p for p in intro if _cut(p)] == []
    assert [p for p in paragraphs if _cut(p)] == []
    assert nothing_cut(lab) == []
    lab.assert_clean()


def test_a_caption_that_qualifies_a_claim_is_shown_in_presentation_mode(lab: Lab) -> None:
    """Captions carry the conditions of the page's claims ("Here ε/(σ² + ε) = 0.9998 … ε is not ≪ σ²
    here"): hidden as small print on a projector, the class read the claim without its condition."""
    lab.page.set_viewport_size(PROJECTOR)
    query = "?present=true&src=Type+numbers&typed=2,2.001&eps=1e-03&gamma=-1.5&grad_kind=All+ones"
    lab.open(page_by_url("/gradients"), query)
    caption = lab.page.locator('[data-testid="stCaptionContainer"]', has_text="Here ε/(σ² + ε) =")
    caption.first.wait_for(state="visible")
    assert "ε is not ≪ σ² here" in caption.first.inner_text()
    lab.assert_clean()


def test_the_sidebars_section_names_are_not_cut_in_presentation_mode(lab: Lab) -> None:
    """At 20 px the sidebar read "The formula, step by st…" (browser QA)."""
    lab.page.set_viewport_size(PROJECTOR)
    lab.open(page_by_url("/scale_shift"), "?present=true")
    names = lab.page.evaluate(
        """() => [...document.querySelectorAll('[data-testid="stNavSectionHeader"] p')].map(p => {
             const text = document.createRange();  // the whole text's box, drawn or clipped
             text.selectNodeContents(p);
             const shown = p.closest('[data-testid="stNavSectionHeader"] > span').getBoundingClientRect();
             return [p.innerText, text.getBoundingClientRect().right <= shown.right + 1];
           })"""
    )
    assert ["The formula, step by step", True] in names
    assert [n for n in names if not n[1]] == []
