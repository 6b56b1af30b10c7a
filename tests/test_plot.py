"""ui.plot: the figure on the wire, the plotly.js copy, the fallback, and that pages use show()."""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import plotly
import plotly.graph_objects as go
import pytest
from chart_specs import charts
from streamlit import config
from streamlit.testing.v1 import AppTest

from ui import live, plot, theme

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "app.py")


def _figure() -> go.Figure:
    fig = go.Figure(
        go.Bar(x=np.arange(1, 5), y=np.array([0.1, -2.5, 3.0, 1e-300]), marker={"color": theme.INK})
    )
    fig.update_layout(title="t", height=321, xaxis={"tickvals": np.array([1, 2, 3, 4])})
    return fig


def test_figure_json_has_no_template_and_keeps_every_value_bit_for_bit() -> None:
    fig = _figure()
    spec = json.loads(plot.figure_json(fig))
    assert "template" not in spec["layout"]  # the browser has it (static/chart_themes.json)
    assert set(spec) == {"data", "layout"}
    y = spec["data"][0]["y"]
    assert y["dtype"] == "f8"  # a typed array, as Figure.to_dict() writes it
    np.testing.assert_array_equal(np.frombuffer(base64.b64decode(y["bdata"]), "f8"), [0.1, -2.5, 3.0, 1e-300])
    assert spec["data"][0]["marker"]["color"] == theme.INK  # the placeholder, for the browser to fill
    assert spec["layout"]["height"] == 321 and spec["layout"]["title"]["text"] == "t"


def test_show_gives_the_browser_the_figure_height_or_streamlit_s_default() -> None:
    script = """
import plotly.graph_objects as go
from ui import plot
plot.show(go.Figure(layout={"height": 321}), key="tall")
plot.show(go.Figure(), key="default")
"""
    at = AppTest.from_string(script, default_timeout=30).run()
    assert not at.exception
    assert [(c.key, c.height) for c in charts(at)] == [("tall", 321), ("default", plot.DEFAULT_HEIGHT)]


def test_figure_json_leaves_the_figure_unchanged() -> None:
    """Figures may be cached and drawn again: encoding one must not turn its arrays into dicts."""
    fig = _figure()
    before = fig.to_json()
    plot.figure_json(fig)
    plot.figure_json(fig)
    assert fig.to_json() == before
    assert isinstance(fig.layout.xaxis.tickvals, tuple | np.ndarray | list)


@pytest.fixture
def static(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """ui.plot's static folder moved to ``tmp_path/static`` (with a theme file beside plotly.js), and
    its node_modules to an empty ``tmp_path/node_modules``."""
    folder = tmp_path / "static"
    folder.mkdir()
    (folder / "chart_themes.json").write_text("{}")
    monkeypatch.setattr(plot, "STATIC", folder)
    monkeypatch.setattr(plot, "PLOTLY_JS", folder / "plotly.min.js")
    monkeypatch.setattr(plot, "THEMES", folder / "chart_themes.json")
    monkeypatch.setattr(plot, "NODE_MODULES", tmp_path / "node_modules")
    plot.prepare_static.cache_clear()
    yield folder
    plot.prepare_static.cache_clear()


FULL = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"


def fake_partial(static: Path, version: str) -> None:
    """Partial bundles in the fixture's node_modules whose first comment names ``version``."""
    for package, name in plot.PARTIAL.values():
        folder = static.parent / "node_modules" / package
        folder.mkdir(parents=True)
        (folder / name).write_text(
            f"/**\n* plotly.js ({package} - minified) v{version}\n*/\nwindow.Plotly = {{}};\n"
        )


def test_prepare_static_copies_the_installed_plotly_js(static: Path) -> None:
    (static / "plotly.min.js").write_text("an older copy")
    assert plot.prepare_static() == {"flat": "plotly.min.js", "solid": "plotly.min.js"}
    assert (static / "plotly.min.js").read_bytes() == FULL.read_bytes()
    assert not list(static.glob(".plotly-*"))  # no temporary file left behind
    assert (static / "plotly.min.js").stat().st_mode & 0o777 == 0o644  # any server may read it
    assert (static / "plotly.min.js").stat().st_mtime == plot.LAST_MODIFIED  # kept by a second tab
    assert plot.prepare_static()  # once per process


def test_partial_bundles_at_plotlys_version_are_used(static: Path) -> None:
    fake_partial(static, plotly.offline.get_plotlyjs_version())
    assert plot.prepare_static() == {"flat": "plotly-cartesian.min.js", "solid": "plotly-gl3d.min.js"}
    for _, name in plot.PARTIAL.values():
        assert (static / name).read_text().startswith("/**\n* plotly.js (")
        assert (static / name).stat().st_mtime == plot.LAST_MODIFIED
    assert not (static / "plotly.min.js").exists()


def test_partial_bundles_of_another_version_are_not(static: Path, caplog: pytest.LogCaptureFixture) -> None:
    fake_partial(static, "3.0.0")
    assert plot.prepare_static() == {"flat": "plotly.min.js", "solid": "plotly.min.js"}
    assert "run `npm ci`" in caplog.text  # the server's log says why the first visit is slower


@pytest.mark.parametrize(
    ("head", "version"),
    [
        ("/**\n* plotly.js (cartesian - minified) v4.1.1\n* Copyright", "4.1.1"),
        ("/**\n* plotly.js v4.1.1\n* Copyright", "4.1.1"),
        ("/** some other library v1.0 */", None),
    ],
)
def test_bundle_version(tmp_path: Path, head: str, version: str | None) -> None:
    (tmp_path / "b.js").write_text(head)
    assert plot.bundle_version(tmp_path / "b.js") == version
    assert plot.bundle_version(tmp_path / "missing.js") is None


def test_package_json_pins_plotlys_own_plotly_js() -> None:
    """The partial bundles npm installs are the plotly.js that the installed plotly builds figures for:
    upgrading one without the other would silently fall back to the full bundle."""
    deps = json.loads((plot.ROOT / "package.json").read_text())["dependencies"]
    assert {deps[package] for package, _ in plot.PARTIAL.values()} == {plotly.offline.get_plotlyjs_version()}


def test_prepare_static_says_no_when_it_cannot_write(static: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    not_a_folder = static / "taken"
    not_a_folder.write_text("a file where the folder should be")
    monkeypatch.setattr(plot, "STATIC", not_a_folder)  # writing into it fails, as a read-only folder does
    assert plot.prepare_static() is None
    assert not (static / "plotly.min.js").exists()


def test_prepare_static_says_no_without_the_theme_file(static: Path) -> None:
    (static / "chart_themes.json").unlink()
    assert plot.prepare_static() is None
    assert not (static / "plotly.min.js").exists()


def test_a_page_draws_in_place_charts_with_their_keys() -> None:
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    at.switch_page("pages/1_mean.py").run()
    assert not at.exception
    drawn = charts(at)
    assert [c.key for c in drawn] == ["mean_chart_x", "mean_chart_centered"]
    assert [c.height for c in drawn] == [c.figure["layout"]["height"] for c in drawn]
    assert not at.get("plotly_chart")


def test_without_plotly_js_a_page_falls_back_to_st_plotly_chart(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(plot, "prepare_static", lambda: None)
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    at.switch_page("pages/1_mean.py").run()
    assert not at.exception
    assert len(at.get("plotly_chart")) == 2 and not charts(at)


def test_the_theme_file_has_both_themes_and_every_placeholder() -> None:
    themes = json.loads((ROOT / "static" / "chart_themes.json").read_text(encoding="utf-8"))
    assert set(themes) == {"light", "dark"}
    for name, t in themes.items():
        assert set(t["colors"]) == {f"#0000{i:02d}" for i in range(1, 41)}
        # What ui.theme says the browser draws for its placeholders (tests/test_theme.py measures
        # contrast on those values).
        for placeholder, color in theme.THEMES[name].items():
            drawn = t["colors"][placeholder]
            rgb = [int(v) for v in re.findall(r"\d+", drawn)[:3]] if drawn.startswith("rgb") else None
            assert (rgb == [int(color[i : i + 2], 16) for i in (1, 3, 5)]) if rgb else drawn.upper() == color
        assert t["template"]["layout"]["paper_bgcolor"].upper() == t["background"].upper()


def test_pages_draw_charts_only_through_show() -> None:
    """st.plotly_chart remounts its chart on every rerun that changes the data (ui/plot.py)."""
    offenders = [
        f"{path.name}:{n}"
        for path in sorted((ROOT / "pages").glob("*.py"))
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if re.search(r"\.plotly_chart\(", line)
    ]
    assert not offenders, offenders


@pytest.mark.parametrize(("base", "prefix"), [("", ""), ("lab", "/lab"), ("/class/lab/", "/class/lab")])
def test_the_browser_finds_the_labs_scripts_under_the_servers_base_path(base: str, prefix: str) -> None:
    """Behind a proxy that serves the lab under a path (``server.baseUrlPath``), the in-place charts'
    and live readouts' scripts are asked for under it too."""
    before = config.get_option("server.baseUrlPath")
    config.set_option("server.baseUrlPath", base)
    try:
        assert plot.static_url() == prefix + "/app/static/"
        assert re.fullmatch(re.escape(prefix) + r"/static/js/rehype-katex\.[\w-]+\.js", live._katex_url())
    finally:
        config.set_option("server.baseUrlPath", before)
