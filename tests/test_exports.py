"""Every step page's downloads hold what the page uses for the same link, in every γ/β mode.

With ``?gamma=1.5&beta=-0.5`` the CSV of Mean, Variance and Standardize wrote γ = 1, β = 0 and y = x̂
(those pages draw x̂ without γ and β), while the sidebar, Scale & shift and the Full formula use
γ = 1.5, β = −0.5. Each step page × input source × γ/β mode is opened through AppTest; the CSV the
page's button would make is read back and compared with ``==`` to the core's steps for the page's
x and the sidebar's γ, β and ε, and the worksheet must print the core's formula lines for them.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import pytest
from apptest_support import APP, STEP_FILES
from live_support import page_metrics
from streamlit.testing.v1 import AppTest

import layernorm as ln
from ui import worksheet_files as ws
from ui import worksheet_math as wm
from ui.minilm import recording
from ui.settings import AFFINE_MODES, LabInput
from ui.text import fmt

TOKEN_SITE = 3
TABLE_GAMMA = ["2", "−0.5", "1e-3", "3", "1", "0.25", "-4", "1.5"]  # the sidebar's starting d = 8
TABLE_BETA = ["-1", "0", "2.5", "−3", "1e2", "0.125", "7", "-0.75"]
# name: (link, γ/β mode, expected γ and β from the core or the recording, given the page's x)
Expect = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]
CASES: dict[str, tuple[dict[str, str], str, Expect]] = {
    "random, shared": (
        {"gamma": "1.5", "beta": "-0.5"},
        AFFINE_MODES[0],
        lambda x: (np.full(x.size, 1.5), np.full(x.size, -0.5)),
    ),
    "typed, shared": (
        {"src": "Type numbers", "typed": "3, -1, 4, 1e3, 5", "gamma": "-2", "beta": "2.5", "eps": "1e-03"},
        AFFINE_MODES[0],
        lambda x: (np.full(x.size, -2.0), np.full(x.size, 2.5)),
    ),
    "preset, undo": (
        {"preset": "one large outlier", "d": "12", "affine_mode": AFFINE_MODES[2]},
        AFFINE_MODES[2],
        lambda x: (
            np.full(x.size, float(ln.layer_norm_steps(x, eps=1e-5).sigma)),
            np.full(x.size, float(ln.layer_norm_steps(x, eps=1e-5).mu)),
        ),
    ),
    "random, per-feature table": (
        {"affine_mode": AFFINE_MODES[1]},
        AFFINE_MODES[1],
        lambda x: (
            np.array([ln.parse_number(v) for v in TABLE_GAMMA]),
            np.array([ln.parse_number(v) for v in TABLE_BETA]),
        ),
    ),
    "MiniLM token, learned": (
        {"src": "Real token (MiniLM)", "affine_mode": AFFINE_MODES[3]},
        AFFINE_MODES[3],
        lambda x: (
            recording().gamma[TOKEN_SITE].astype(np.float64),
            recording().beta[TOKEN_SITE].astype(np.float64),
        ),
    ),
}


def _open(page: str, case: str) -> AppTest:
    link, _, _ = CASES[case]
    at = AppTest.from_file(APP, default_timeout=120)
    for k, v in link.items():
        at.query_params[k] = v
    if "MiniLM" in case:
        at.query_params["tok_site"] = recording().site_label(TOKEN_SITE)
    if "table" in case:  # the table a user edited on Scale & shift earlier in the session
        at.session_state["affine_tables"] = {
            8: pd.DataFrame({"γ": TABLE_GAMMA, "β": TABLE_BETA}, dtype=object)
        }
    at.run()
    at.switch_page(STEP_FILES[page]).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("page", list(STEP_FILES))
def test_each_download_holds_the_pages_gamma_beta_and_y(
    page: str, case: str, deferred: dict[str, Callable[[], Any]]
) -> None:
    at = _open(page, case)
    lab = at.session_state["lab_input"]
    assert isinstance(lab, LabInput) and lab.affine_mode == CASES[case][1]
    x = lab.x  # every page control at its start: the page's x is the sidebar's
    gamma, beta = CASES[case][2](x)
    assert np.array_equal(lab.gamma, gamma) and np.array_equal(lab.beta, beta)  # what the sidebar uses
    expected = ln.layer_norm_steps(x, gamma, beta, eps=lab.eps)

    slug = ws.STEP_PAGES[page].slug
    table = pd.read_csv(io.BytesIO(deferred[f"layernorm-{slug}-numbers.csv"]()), encoding="utf-8-sig")
    columns = {"x": x, "x̂": expected.x_hat, "γ": gamma, "β": beta, "y": expected.y}
    for name, values in columns.items():
        assert np.array_equal(table[name].to_numpy(), values), (name, table[name].to_numpy()[:3], values[:3])

    doc = deferred[f"layernorm-{slug}-worksheet.html"]()
    for _, line in wm.formula_lines(ws.STEP_PAGES[page].level, expected, 0):
        assert line in doc, line
    # the page's own charts, as it draws them (no second copy of them for paper)
    charts = {"mean": 2, "variance": 1, "standardize": 2, "scale_shift": 2, "full_formula": 1}[page]
    assert doc.count("Plotly.newPlot(") == charts
    if page == "mean":
        assert "The input (" in doc and "plus c, and its mean" in doc  # the page's title, not another
    if page == "scale_shift":  # and the page's own numbers come from the same y
        shown = dict(page_metrics(at))  # st.metric and the live readouts' metrics
        assert shown["standard deviation of y"] == fmt(float(ln.std(expected.y)))
