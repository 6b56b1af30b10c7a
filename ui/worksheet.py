"""Take a step page home: every step page (Mean, Variance, Standardize, Scale & shift, Full formula)
ends with :func:`offer`, two download buttons side by side: its numbers as a CSV and a printable
one-page worksheet (``ui.worksheet_files`` makes both, from the steps and the charts the page drew).

The files are made only when the user clicks (``st.download_button`` with a callable), because
the worksheet embeds plotly.js (about 4.8 MB) and would otherwise be rebuilt on every rerun.
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Callable, Sequence

import numpy as np
import plotly.graph_objects as go  # type: ignore[import-untyped]
import streamlit as st

import layernorm as ln
from layernorm import LayerNormSteps
from ui.settings import LabInput, note_everything
from ui.worksheet_files import STEP_PAGES, worksheet_csv, worksheet_html


def current_link() -> str:
    """The URL of the current view: the page's address and its query string (the bound widgets).

    Returns
    -------
    str
        ``st.context.url`` (scheme, host, page path) with ``?`` and the current
        ``st.query_params`` URL-encoded, every value of a repeated key kept. Without a browser
        (AppTest) the address is ``http://<Host header>/`` or, lacking that, empty, so the
        result may be only the query string (``""`` when there is none).
    """
    base = st.context.url
    if not base:
        host = st.context.headers.get("Host")
        base = f"http://{host}/" if host else ""
    note_everything()  # the link holds every control: a lab section that shows it reruns on any move
    pairs = [(k, v) for k in st.query_params for v in st.query_params.get_all(k)]
    query = urllib.parse.urlencode(pairs)
    return f"{base}?{query}" if query else base


def _view_notes(page: str, lab: LabInput, steps: LayerNormSteps) -> list[str]:
    notes = []
    if lab.problem:
        notes.append("The input in the sidebar has a problem, so this is the last valid input.")
    if steps.x.shape != lab.x.shape or not np.array_equal(steps.x, lab.x):
        notes.append("x is the sidebar's vector as changed by this page's controls (the link keeps them).")
    if STEP_PAGES[page].level >= 4:
        notes.append(f"γ and β: {lab.affine_mode}.")
    return notes


def offer(
    page_name: str,
    lab: LabInput,
    steps: LayerNormSteps,
    figures: Callable[[], Sequence[go.Figure]],
    *,
    feature: int = 0,
) -> None:
    """Two download buttons side by side: the numbers as a CSV and a printable worksheet (HTML).

    Both files are made only when clicked (a callable ``data``, run by Streamlit on its own
    thread), and a download does not rerun the page (``on_click="ignore"``). The link and the
    input's description are read now, on the script's thread.

    Parameters
    ----------
    page_name : {"mean", "variance", "standardize", "scale_shift", "full_formula"}
        Which step page (:data:`STEP_PAGES`); the widget keys are ``ws_csv_<page_name>`` and
        ``ws_html_<page_name>``, the files ``layernorm-<slug>-numbers.csv`` and
        ``layernorm-<slug>-worksheet.html``.
    lab : LabInput
        The sidebar's input (its label, γ/β mode and whether it had a problem).
    steps : LayerNormSteps
        The steps the page drew (one vector): every number in both files. A page before Scale & shift
        draws x̂ without γ and β; its files take ``lab``'s γ and β for the γ, β and y columns (the
        sidebar's, as on every later page), so the same link gives the same γ, β and y on every page.
    figures : callable returning plotly Figures
        The page's own charts, as it draws them (called only when the worksheet is clicked).
    feature : int
        0-based feature whose arithmetic the worksheet writes out (Standardize's ``i``).

    Raises
    ------
    KeyError
        ``page_name`` is not a step page.
    """
    spec = STEP_PAGES[page_name]
    if spec.level < 4:  # the page stops before y; its files still use the sidebar's γ and β, as y does
        steps = ln.layer_norm_steps(steps.x, lab.gamma, lab.beta, eps=steps.eps)
    link = current_link()
    notes = _view_notes(page_name, lab, steps)
    feature = min(max(int(feature), 0), steps.d - 1)

    def make_html() -> str:
        return worksheet_html(
            spec.title,
            steps,
            label=lab.label,
            link=link,
            figures=figures(),
            page=page_name,
            feature=feature,
            notes=notes,
        )

    row = st.container(horizontal=True, gap="small")
    row.download_button(
        "Download the numbers (CSV)",
        lambda: worksheet_csv(steps),
        file_name=f"layernorm-{spec.slug}-numbers.csv",
        mime="text/csv",
        key=f"ws_csv_{page_name}",
        on_click="ignore",
        icon=":material/table_view:",
        help="One row per feature: x, x − μ, (x − μ)², x̂, γ, β, y and the statistics, at full precision.",
    )
    row.download_button(
        "Printable worksheet (HTML)",
        make_html,
        file_name=f"layernorm-{spec.slug}-worksheet.html",
        mime="text/html",
        key=f"ws_html_{page_name}",
        on_click="ignore",
        icon=":material/print:",
        help="One page with the formula, the numbers, the charts and the link to this view. "
        "Open it and print (A4 or Letter); it works offline.",
    )
