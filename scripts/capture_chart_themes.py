"""Write ``static/chart_themes.json``: Streamlit's Plotly chart theme as the browser resolves it.

``st.plotly_chart`` sends a figure whose colours are placeholders (``#000001`` … ``#000040``) and
whose template is the app's (``ui.theme``); the browser replaces each placeholder with a colour of
the active theme and merges Streamlit's chart styling (fonts, grid, margins) into the template. The
app's in-place charts (``ui/plot.py``) draw with plotly.js directly, so they need that result: this
script opens ``scripts/chart_theme_probe.py`` in Chromium, in the light and in the dark theme, and
records for each the theme's background, what every placeholder became, and the resolved template.

Run it again after upgrading Streamlit or changing the template in ``ui/theme.py``;
``tests/e2e/test_in_place_charts.py`` fails while the file is out of date::

    .venv/bin/python scripts/capture_chart_themes.py
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from scripts.browser import CHROMIUM, CHROMIUM_ARGS, IDLE, streamlit_server  # noqa: E402

OUT = ROOT / "static" / "chart_themes.json"
READ = """() => {
  const gd = document.querySelector('[data-testid="stPlotlyChart"] .js-plotly-plot');
  const placeholders = Array.from({length: 40}, (_, i) => '#0000' + String(i + 1).padStart(2, '0'));
  const colors = Object.fromEntries(placeholders.map((p, i) => [p, gd.data[0].marker.color[i]]));
  const background = getComputedStyle(document.querySelector('[data-testid="stApp"]')).backgroundColor;
  return {colors, template: gd.layout.template, paper: gd.layout.template.layout.paper_bgcolor, background};
}"""


def capture() -> dict[str, Any]:
    """``{"light": {...}, "dark": {...}}``: each with ``background``, ``colors`` and ``template``."""
    themes: dict[str, Any] = {}
    with (
        tempfile.TemporaryDirectory() as tmp,
        streamlit_server(Path(tmp) / "server.log", script=ROOT / "scripts" / "chart_theme_probe.py") as (
            _,
            url,
        ),
        sync_playwright() as p,
    ):
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for scheme in ("light", "dark"):
            page = browser.new_page(color_scheme=scheme)
            page.goto(url)
            page.wait_for_selector(IDLE)
            page.wait_for_selector('[data-testid="stPlotlyChart"] .main-svg')
            got = page.evaluate(READ)
            themes[scheme] = {
                "background": got["paper"],
                "colors": got["colors"],
                "template": got["template"],
            }
            page.close()
        browser.close()
    return themes


if __name__ == "__main__":
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text(json.dumps(capture(), indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}")
