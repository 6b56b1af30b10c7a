"""Presentation mode and the dark theme in a real browser, on a 1280×720 projector.

(a) ``present=true`` in a link turns the sidebar toggle on: body text, metric values and chart
fonts are larger than without it, the code expander is folded away, every other control stays
visible and keyboard-reachable, and the mode stays on across a page switch. (b) With the system
in dark mode Streamlit draws the dark theme, and every text of every chart reads at WCAG AA
(4.5:1) against what is behind it; screenshots land in ``$SHOTS_DIR`` (default /tmp/shots) for
a person to look at.

Every test here also fails on a warning or traceback in the server's log (``conftest.py``).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from playwright.sync_api import Locator, expect

from e2e.support import CHART, PAGES, RENDERED_CHART, AppPage, Lab, nothing_cut, page_by_url
from ui.presentation import LABEL
from ui.theme import BACKGROUND, INK, THEMES, contrast

pytestmark = pytest.mark.browser

PROJECTOR = {"width": 1280, "height": 720}
MEAN, VARIANCE = page_by_url("/mean"), page_by_url("/variance")
SHOWN = [page_by_url(u) for u in ("/mean", "/variance", "/which_axis", "/depth_and_drift")]
CODE = "The code behind these numbers"
SHOTS = Path(os.environ.get("SHOTS_DIR", "/tmp/shots"))

# Every focusable control of the page's main area that a person can see, by what it is called.
CONTROLS_JS = (
    '() => [...document.querySelectorAll(\'[data-testid="stMain"] :is(input, button, select, textarea, '
    'summary, a[href], [tabindex]:not([tabindex="-1"]))\')]'
    """
  .filter(e => !e.disabled && e.closest('[data-testid="labChart"]') === null)
  .filter(e => { const box = (e.closest('label') || e).getBoundingClientRect();
                 return box.width > 0 && box.height > 0 && getComputedStyle(e).visibility !== 'hidden'; })
  .map(e => { const box = e.closest('[data-testid="stExpander"]');
               const name = (e.getAttribute('aria-label') || e.innerText || e.value || e.tagName).trim();
               const code = box && box.innerText.includes('The code behind');
               return (code ? 'code: ' : '') + name.slice(0, 60); })"""
)

# Each chart text's colour and, when it sits on its own box (a block of the diagram, a label's
# background), that box's colour; otherwise the chart's own background.
TEXTS_JS = """() => {
  const rgb = s => (s.match(/[\\d.]+/g) || []).map(Number);
  const out = [];
  for (const chart of document.querySelectorAll('[data-testid="labChart"]')) {
    const paper = getComputedStyle(chart.querySelector('.main-svg')).backgroundColor;
    for (const t of chart.querySelectorAll('.main-svg text')) {
      if (!t.textContent.trim() || t.closest('.hoverlayer') || t.getClientRects().length === 0) continue;
      const cs = getComputedStyle(t);
      let behind = paper;
      const note = t.closest('.annotation');
      const box = note && note.querySelector('rect.bg');
      if (box) {  // Plotly draws a transparent label box as fill + fill-opacity 0
        const bs = getComputedStyle(box), fill = rgb(bs.fill);
        if (fill.length >= 3 && (fill[3] ?? 1) * Number(bs.fillOpacity) > 0) behind = bs.fill;
      }
      out.push({text: t.textContent.slice(0, 40), fill: cs.fill, opacity: Number(cs.opacity) *
                Number(cs.fillOpacity), behind, heatmap: !!t.closest('.hm, .heatmaplayer')});
    }
  }
  return out; }"""


def _projector(lab: Lab) -> None:
    lab.page.set_viewport_size(PROJECTOR)


def _px(locator: Locator) -> float:
    return float(locator.evaluate("e => parseFloat(getComputedStyle(e).fontSize)"))


def _sizes(lab: Lab) -> dict[str, float]:
    main = lab.page.locator('[data-testid="stMain"]')
    return {
        "body": _px(main.locator('[data-testid="stMarkdownContainer"] p').first),
        "metric": _px(main.locator('[data-testid="stMetricValue"]').first),
        "chart title": _px(lab.page.locator(f"{CHART} .gtitle").first),
        "chart ticks": _px(lab.page.locator(f"{CHART} .xtick text").first),
    }


def _toggle(lab: Lab) -> Locator:
    return lab.sidebar.get_by_role("switch", name=LABEL)


def _hex(css: str) -> tuple[str, float]:
    """``rgb(r, g, b)`` or ``rgba(r, g, b, a)`` as ``("#RRGGBB", a)``."""
    nums = [float(v) for v in re.findall(r"[\d.]+", css)]
    return "#" + "".join(f"{round(v):02X}" for v in nums[:3]), nums[3] if len(nums) > 3 else 1.0


def _over(fg: str, alpha: float, bg: str) -> str:
    """``fg`` drawn with opacity ``alpha`` over ``bg``, as the eye sees it."""
    mix = [alpha * int(fg[i : i + 2], 16) + (1 - alpha) * int(bg[i : i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(v):02X}" for v in mix)


def _shoot(lab: Lab, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    lab.page.screenshot(path=SHOTS / f"{name}.png")
    charts = lab.page.locator(CHART)
    for i in range(charts.count()):
        charts.nth(i).scroll_into_view_if_needed()
        charts.nth(i).screenshot(path=SHOTS / f"{name}_chart{i}.png")


# --- (a) presentation mode ------------------------------------------------------------------------------


def test_present_link_enlarges_text_folds_code_and_stays_on_across_pages(lab: Lab) -> None:
    _projector(lab)
    lab.open(MEAN)
    normal = _sizes(lab)
    expect(_toggle(lab)).not_to_be_checked()
    expect(lab.page.get_by_text(CODE)).to_be_visible()
    controls = set(lab.page.evaluate(CONTROLS_JS))
    assert any(c.startswith("code: ") for c in controls)  # the expander's summary, and what is in it

    lab.open(MEAN, "?present=true")
    expect(_toggle(lab)).to_be_checked()
    big = _sizes(lab)
    for what, size in normal.items():
        assert big[what] > size * 1.2, f"{what}: {size} px without, {big[what]} px with presentation mode"
    assert big["chart ticks"] >= 19 and big["body"] >= 20
    expect(lab.page.get_by_text(CODE)).to_be_hidden()
    # Nothing else goes: every control a student could reach is still there (and focusable).
    assert set(lab.page.evaluate(CONTROLS_JS)) == {c for c in controls if not c.startswith("code: ")}
    lab.assert_clean()

    lab.nav_to(VARIANCE)
    expect(_toggle(lab)).to_be_checked()
    assert "present=true" in lab.page.url
    assert _sizes(lab)["metric"] == pytest.approx(big["metric"])
    expect(lab.page.get_by_text(CODE)).to_be_hidden()
    lab.assert_clean()


def test_presentation_mode_turns_off_from_the_keyboard(lab: Lab) -> None:
    _projector(lab)
    lab.open(VARIANCE, "?present=true")
    big = _sizes(lab)["body"]
    switch = _toggle(lab)
    switch.focus()
    lab.page.keyboard.press("Space")
    expect(switch).not_to_be_checked()
    lab.wait_idle()
    expect(lab.page.get_by_text(CODE)).to_be_visible()
    assert _sizes(lab)["body"] < big
    lab.assert_clean()


# --- (b) the dark theme, and text contrast on every chart -------------------------------------------------


@pytest.mark.parametrize(
    ("scheme", "present"), [("dark", True), ("light", False)], ids=["dark-presentation", "light"]
)
@pytest.mark.parametrize("app_page", SHOWN, ids=[p.url for p in SHOWN])
def test_chart_text_reads_at_4_5_to_1_in_the_systems_theme(
    lab: Lab, app_page: AppPage, scheme: str, present: bool
) -> None:
    _projector(lab)
    lab.page.emulate_media(color_scheme=scheme)
    lab.open(app_page, "?present=true" if present else "")
    page_bg, _ = _hex(
        lab.page.locator('[data-testid="stApp"]').evaluate("e => getComputedStyle(e).backgroundColor")
    )
    assert (contrast(page_bg, "#000000") < 2) == (scheme == "dark"), (
        f"{scheme} system, page background {page_bg}"
    )
    lab.page.locator(RENDERED_CHART).first.wait_for()
    papers = lab.page.evaluate(
        "() => [...document.querySelectorAll('[data-testid=\"labChart\"] .main-svg')]"
        ".map(s => getComputedStyle(s).backgroundColor).filter(c => c !== 'rgba(0, 0, 0, 0)')"
    )
    assert papers and {_hex(p)[0] for p in papers} == {page_bg}, "charts do not follow the page's theme"
    # ui.theme's placeholders become what ui.theme.THEMES says (tests/test_theme.py relies on it)
    assert page_bg == THEMES[scheme][BACKGROUND]
    ink = lab.page.locator(f"{CHART} .xtick text").first.evaluate("e => getComputedStyle(e).fill")
    assert _hex(ink)[0] == THEMES[scheme][INK]
    _shoot(lab, f"{scheme}{'_present' if present else ''}_{app_page.url.strip('/')}")
    texts = lab.page.evaluate(TEXTS_JS)
    assert texts, "no chart text found"
    low = []
    for t in texts:
        behind, _ = _hex(t["behind"])
        fill, alpha = _hex(t["fill"])
        seen = _over(fill, alpha * t["opacity"], behind)
        if t["heatmap"]:
            continue  # on a cell of its own colour; these pages have none
        if contrast(seen, behind) < 4.5:
            low.append(f"{t['text']!r}: {seen} on {behind} = {contrast(seen, behind):.2f}:1")
    assert not low, "chart text below 4.5:1:\n" + "\n".join(low)
    lab.assert_clean()


def test_every_page_renders_and_cuts_nothing_at_1024x768(lab: Lab) -> None:
    """Every page the app lists opens with no exception box or JavaScript error and draws its charts.

    Found in sweeps of every page: at 1024×768 with the sidebar open, values were cut with an
    ellipsis ("0.99996…" on Standardize), so were metric labels ("LayerNorm moved…") and control
    labels ("Undo for this vector: γ = σ, β…"), and eight displayed formulas ran past the column
    (Precision's float32 line lost its result). Values now shrink to their column, values and labels
    wrap at spaces, and formulas are drawn smaller. (On a 1280×720 projector in presentation mode,
    tests/e2e/test_presentation_intros.py checks the same on every page.)"""
    lab.page.set_viewport_size({"width": 1024, "height": 768})
    shown = 0
    for app_page in PAGES:
        assert app_page.section, f"{app_page.file} exists but app.py's navigation does not list it"
        lab.open(app_page)  # its title shown, a chart drawn if it has charts, the run over
        lab.assert_clean()
        shown += lab.page.locator('[data-testid="stMetricValue"]').count()
        assert nothing_cut(lab) == [], app_page.url
    assert shown > 40  # the sweep saw the metrics it is about


CUT_LINKS_JS = """() => [
  ...document.querySelectorAll('[data-testid=stMain] [data-testid=stPageLink-NavLink]')]
  .filter(a => [a, ...a.querySelectorAll('*')].some(e => e.scrollWidth > e.clientWidth + 1))
  .map(a => a.innerText)"""


@pytest.mark.parametrize("query", ["", "?present=true"])
def test_no_lesson_link_is_cut_on_a_projector(lab: Lab, query: str) -> None:
    """Found by a newcomer: Streamlit cut Home's long link labels at the column's edge, mid-word and with
    no ellipsis ("Which axis? — LayerNorm, BatchNorm and friends on one t"). They wrap now."""
    _projector(lab)
    lab.open(page_by_url("/"), query)  # its lesson links drawn, every one
    assert lab.page.evaluate(CUT_LINKS_JS) == []
    lab.assert_clean()
