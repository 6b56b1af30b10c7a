"""Charts drawn by ui.plot.show: updated in place on a rerun, and themed as st.plotly_chart themes them.

- A slider that changes a chart's data must leave the same plot element on the page (no remount,
  no blank frame) with the new data drawn in it.
- The same figure drawn by ``st.plotly_chart`` and by ``ui.plot.show`` must reach plotly.js as the
  same data, layout and template, in the light and the dark theme: this fails when
  ``static/chart_themes.json`` no longer matches Streamlit (run ``scripts/capture_chart_themes.py``).
- A theme change while the page is open redraws the charts in the new theme, without a rerun.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from e2e.support import CHART, RENDERED_CHART, WAIT_MS, Lab, Tabs, page_by_url
from scripts.browser import IDLE, streamlit_server

ROOT = Path(__file__).resolve().parents[2]
MARK = "() => { for (const gd of document.querySelectorAll('.js-plotly-plot')) gd.__labMark = true; }"
MARKED = "() => [...document.querySelectorAll('.js-plotly-plot')].map((gd) => gd.__labMark === true)"
# What the page's first chart draws: its bars' heights, as plotly.js holds them.
FIRST_BARS = f"() => Array.from(document.querySelector('{CHART}')._fullData[0].y)"


def test_a_slider_updates_the_charts_in_place(lab: Lab) -> None:
    mean = page_by_url("/mean")
    lab.open(mean)
    expect(lab.page.locator(CHART)).to_have_count(2)
    lab.page.wait_for_function(f"() => [...document.querySelectorAll('{CHART}')].every((p) => p._fullData)")
    lab.page.evaluate(MARK)
    before = lab.page.evaluate(FIRST_BARS)
    thumb = lab.slider("Add the same number c")
    thumb.focus()
    mu = lab.metric("μ (mean)").inner_text()
    thumb.press("ArrowRight")  # c = 0.1: every bar of x + c moves up by 0.1
    expect(lab.metric("μ (mean)")).not_to_have_text(mu, timeout=WAIT_MS)
    lab.wait_idle()
    lab.page.wait_for_function(f"(old) => ({FIRST_BARS})()[0] !== old[0]", arg=before)
    after = lab.page.evaluate(FIRST_BARS)
    assert after == pytest.approx([b + 0.1 for b in before], abs=1e-12)
    assert lab.page.evaluate(MARKED) == [True, True], "a chart was drawn anew instead of updated"
    lab.assert_clean()


@pytest.fixture
def light_mean(tabs: Tabs, server: str) -> Page:
    """A tab in the light theme (the system's setting, which Streamlit follows) on Mean, drawn."""
    tab = tabs.new()
    tab.emulate_media(color_scheme="light")
    Lab(tab, server).open(page_by_url("/mean"))
    return tab


def test_charts_follow_a_theme_change_without_a_rerun(light_mean: Page) -> None:
    tab = light_mean
    paper = f"() => document.querySelector('{CHART}')._fullLayout.paper_bgcolor"
    assert tab.evaluate(paper) == "#FFFFFF"
    tab.evaluate(MARK)
    tab.emulate_media(color_scheme="dark")  # the system's setting, which Streamlit follows
    tab.wait_for_function(f"() => ({paper})() === '#171614'")
    assert tab.locator(CHART).first.get_attribute("data-theme") == "dark"
    assert tab.evaluate(MARKED) == [True, True]
    ticks = tab.locator(f"{CHART} .xtick text").first.evaluate("e => getComputedStyle(e).fill")
    assert ticks == "rgb(250, 250, 250)"  # ui.theme.THEMES["dark"][INK]


READ_BOTH = """() => {
  const streamlit = document.querySelector('[data-testid="stPlotlyChart"] .js-plotly-plot');
  const inPlace = document.querySelector('[data-testid="labChart"]');
  const given = (gd) => {
    // Sizes are compared as drawn (a resize leaves autosize in gd.layout instead of the height).
    const sizes = ['width', 'height', 'autosize', 'template', 'uirevision'];
    const kept = Object.entries(gd.layout).filter(([k]) => !sizes.includes(k));
    const layout = Object.fromEntries(kept);
    const size = [gd._fullLayout.width, gd._fullLayout.height];
    return {data: gd.data, layout, template: gd.layout.template, paper: gd._fullLayout.paper_bgcolor, size};
  };
  return JSON.stringify({streamlit: given(streamlit), inPlace: given(inPlace)});
}"""


def _normal_title(layout: dict[str, Any]) -> dict[str, Any]:
    """Streamlit bolds a title once per render (twice in React's strict mode): compare its text."""
    title = dict(layout.get("title") or {})
    text = title.get("text", "")
    while text.startswith("<b>") and text.endswith("</b>"):
        text = text[3:-4]
    return {**layout, "title": {**title, "text": text}}


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_in_place_charts_get_the_theme_st_plotly_chart_gives(
    scheme: str, browser: BrowserContext, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copy(ROOT / "tests" / "e2e" / "apps" / "chart_twins.py", tmp_path / "chart_twins.py")
    (tmp_path / "static").symlink_to(ROOT / "static", target_is_directory=True)
    monkeypatch.setitem(os.environ, "LAB_ROOT", str(ROOT))
    with streamlit_server(tmp_path / "server.log", script=tmp_path / "chart_twins.py") as (_, url):
        tab = browser.new_page()
        tab.emulate_media(color_scheme=scheme)
        try:
            tab.goto(url)
            tab.locator(IDLE).wait_for()
            tab.locator('[data-testid="stPlotlyChart"] .main-svg').first.wait_for()
            tab.locator(RENDERED_CHART).first.wait_for()
            both = json.loads(tab.evaluate(READ_BOTH))
        finally:
            tab.close()
    streamlit, in_place = both["streamlit"], both["inPlace"]
    assert in_place["paper"] == streamlit["paper"] == {"light": "#FFFFFF", "dark": "#171614"}[scheme]
    assert in_place["template"] == streamlit["template"]
    assert in_place["size"] == streamlit["size"]
    assert in_place["data"] == streamlit["data"]
    assert _normal_title(in_place["layout"]) == _normal_title(streamlit["layout"])


def test_a_chart_whose_plotly_js_cannot_load_says_so(browser: BrowserContext, server: str) -> None:
    tab = browser.new_page()
    try:
        tab.route("**/app/static/plotly*.js*", lambda route: route.fulfill(status=404, body="gone"))
        tab.goto(server + "/mean")
        tab.locator(IDLE).wait_for()
        note = tab.locator(f"{CHART} .lab-chart-note").first
        expect(note).to_have_text(
            "This chart could not be drawn (plotly.js did not load). Reload the page to try again."
        )
        assert tab.locator(RENDERED_CHART).count() == 0
    finally:
        tab.close()


def test_a_chart_follows_its_column_when_the_sidebar_goes(lab: Lab) -> None:
    lab.open(page_by_url("/mean"))
    width = f"() => document.querySelector('{CHART}')._fullLayout.width"
    before = lab.page.evaluate(width)
    # The column widens without any window resize (as when the student closes the sidebar).
    lab.page.locator('[data-testid="stSidebar"]').evaluate("(sidebar) => { sidebar.style.display = 'none'; }")
    lab.page.wait_for_function(f"(old) => ({width})() > old + 100", arg=before)
    box = lab.page.locator(CHART).first.bounding_box()
    assert box is not None and abs(lab.page.evaluate(width) - box["width"]) <= 1


def _press_sidebar(lab: Lab, label_start: str) -> None:
    """One step right on a sidebar slider, and the run it starts is over."""
    thumb = lab.slider(label_start, in_sidebar=True)
    before = thumb.get_attribute("aria-valuetext")
    thumb.focus()
    # A live slider's thumb shows the value at once, before the run starts: an idle page then was the
    # page before the move. Wait for the run the press starts, and its end.
    with lab.a_run():
        thumb.press("ArrowRight")
    expect(thumb).not_to_have_attribute("aria-valuetext", before or "")


COUNT_DRAWS = """() => { for (const gd of document.querySelectorAll('.js-plotly-plot')) {
  gd.labDraws = 0; gd.on('plotly_react', () => { gd.labDraws += 1; }); } }"""
DRAWS = "() => [...document.querySelectorAll('.js-plotly-plot')].map((gd) => gd.labDraws)"


def test_a_rerun_that_leaves_a_chart_unchanged_does_not_redraw_it(lab: Lab) -> None:
    """γ does not touch Mean's charts (x and x − μ): moving it reruns the page but draws nothing.

    Streamlit calls the chart's script again only when its data changed, so this holds while each
    rerun sends the same figure text for the same numbers (no random ids, no timestamps)."""
    lab.open(page_by_url("/mean"))
    lab.page.evaluate(COUNT_DRAWS)
    _press_sidebar(lab, "γ (scale")
    lab.page.wait_for_timeout(300)  # two frames and then some: a redraw would have happened by now
    assert lab.page.evaluate(DRAWS) == [0, 0]
    thumb = lab.slider("Add the same number c")
    thumb.focus()
    thumb.press("ArrowRight")
    lab.page.wait_for_function(f"() => ({DRAWS})().every((n) => n > 0)")


def test_a_theme_change_keeps_the_student_s_zoom(light_mean: Page, server: str) -> None:
    tab = light_mean
    chart = f"document.querySelector('{CHART}')"
    tab.evaluate(f"() => Plotly.relayout({chart}, {{'xaxis.range': [2.5, 4.5]}})")
    tab.emulate_media(color_scheme="dark")
    tab.wait_for_function(f"() => {chart}._fullLayout.paper_bgcolor === '#171614'")
    assert tab.evaluate(f"() => {chart}._fullLayout.xaxis.range") == [2.5, 4.5]
    thumb = Lab(tab, server).slider("Add the same number c")
    thumb.focus()
    thumb.press("ArrowRight")  # new data: the chart shows all of it again
    tab.wait_for_function(f"() => {chart}._fullLayout.xaxis.range[0] < 1")


# Each chart's last drawn figure text, by its key (the st-key-<key> class of its element container).
DRAWN_SPECS = """() => Object.fromEntries([...document.querySelectorAll('.lab-chart')].map((plot) => [
  [...plot.closest('[class*="st-key-"]').classList].find((c) => c.startsWith('st-key-')),
  plot.labSpec ?? null]))"""
INVARIANCES = page_by_url("/invariances")
WAITING = "() => globalThis.labOffscreen.waiting() > 0"  # charts whose newest figure is not drawn yet


def _press_eps(lab: Lab) -> None:
    _press_sidebar(lab, "ε (inside the square root)")


def _fresh_specs(tabs: Tabs, url: str) -> dict[str, str]:
    """What every chart of ``url`` draws in another tab (a new session) that opens it: the reference
    for a late draw."""
    with tabs.one() as tab:
        tab.goto(url)
        tab.locator(RENDERED_CHART).first.wait_for()
        tab.locator(IDLE).wait_for()
        tab.wait_for_function(f"() => Object.values(({DRAWN_SPECS})()).every((s) => s !== null)")
        specs: dict[str, str] = tab.evaluate(DRAWN_SPECS)
        return specs


def test_a_chart_far_below_the_screen_is_drawn_when_it_comes_near(lab: Lab, tabs: Tabs) -> None:
    """An update of a chart more than half a screen away waits until it is scrolled near (ui/plot.py)."""
    lab.open(INVARIANCES)
    before = lab.page.evaluate(DRAWN_SPECS)
    assert len(before) == 5
    lab.page.evaluate("() => { globalThis.labOffscreen.quietMs = 1e9; }")  # only the scroll draws them
    _press_eps(lab)  # every chart's figure changes with ε
    lab.page.wait_for_function(WAITING)  # the far ones come last (the page's order)
    now = lab.page.evaluate(DRAWN_SPECS)
    far = [k for k in before if now[k] == before[k]]
    near = [k for k in before if now[k] != before[k]]
    assert far and near, (far, near)  # the top of the page is drawn at once, its far end waits
    last = lab.page.locator(f".{far[-1]}")
    assert last.bounding_box()["y"] > 1.5 * 1000  # type: ignore[index]  # the viewport is 1000 px high
    last.scroll_into_view_if_needed()
    lab.page.wait_for_function(f"(old) => ({DRAWN_SPECS})()['{far[-1]}'] !== old", arg=before[far[-1]])
    fresh = _fresh_specs(tabs, lab.page.url)
    assert lab.page.evaluate(DRAWN_SPECS)[far[-1]] == fresh[far[-1]]
    lab.assert_clean()


def test_waiting_charts_are_drawn_when_the_page_is_quiet(lab: Lab, tabs: Tabs) -> None:
    """Two seconds after the last update every chart shows its newest figure, scrolled to or not."""
    lab.open(INVARIANCES)
    _press_eps(lab)
    _press_eps(lab)
    fresh = _fresh_specs(tabs, lab.page.url)
    lab.page.wait_for_function(
        f"(want) => JSON.stringify(({DRAWN_SPECS})()) === JSON.stringify(want)", arg=fresh
    )
    assert lab.page.evaluate("window.scrollY") == 0
    lab.assert_clean()


def test_printing_draws_the_waiting_charts_first(lab: Lab, tabs: Tabs) -> None:
    lab.open(INVARIANCES)
    lab.page.evaluate("() => { globalThis.labOffscreen.quietMs = 1e9; }")
    _press_eps(lab)
    lab.page.wait_for_function(WAITING)
    printed = lab.page.evaluate(  # what the browser sends before it lays the page out for print
        f"() => {{ dispatchEvent(new Event('beforeprint')); return ({DRAWN_SPECS})(); }}"
    )
    assert printed == _fresh_specs(tabs, lab.page.url)


# Which Plotly drew each chart of the page: "flat" (the tab's globalThis.Plotly), "solid" (another
# one: the gl3d bundle's) and whether its layout has a 3-D scene.
WHO_DREW = """() => [...document.querySelectorAll('[data-testid="labChart"]')].filter((p) => p._fullLayout)
  .map((p) => [p.labPlotly === globalThis.Plotly ? "flat" : "solid", Boolean(p._fullLayout.scene)])"""


@pytest.mark.parametrize(("d", "solid"), [(3, True), (2, False)])
def test_3d_charts_load_their_own_plotly_js(lab: Lab, d: int, solid: bool) -> None:
    """Flat charts are drawn by plotly's cartesian bundle, 3-D ones by the gl3d bundle, loaded only
    when a 3-D chart is on the page (ui/plot.py); neither breaks the other."""
    lab.open(page_by_url("/invariances"), f"?geo_d={d}")
    lab.page.locator(f"{CHART} .main-svg").first.wait_for()
    lab.page.evaluate("() => { for (const p of document.querySelectorAll('[data-testid=labChart]')) "
                      "p.scrollIntoView(); }")  # fmt: skip
    lab.page.wait_for_function(
        "() => [...document.querySelectorAll('[data-testid=labChart]')].every((p) => p._fullLayout)"
    )
    drawn = lab.page.evaluate(WHO_DREW)
    assert ["flat", False] in drawn
    assert (["solid", True] in drawn) is solid
    assert all((who == "solid") == scene for who, scene in drawn), drawn
    scripts = lab.page.evaluate(
        "() => [...document.scripts].map((s) => s.src.split('?')[0].split('/').pop())"
    )
    assert ("plotly-gl3d.min.js" in scripts) is solid
    assert "plotly-cartesian.min.js" in scripts and "plotly.min.js" not in scripts
    lab.assert_clean()
