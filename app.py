"""LayerNorm Lab: entry point. Run with `streamlit run app.py` (or `make run`)."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from ui.formulas import fit_formulas
from ui.heap import freeze_imports
from ui.history import keep_pages_in_history
from ui.linking import say_unread_link_keys
from ui.live import sidebar as live_sidebar
from ui.plot import prepare_static
from ui.presentation import presentation_toggle
from ui.sidebar import sidebar
from ui.state import lab_sections_drawn

st.set_page_config(page_title="LayerNorm Lab", page_icon="📐", layout="wide")
freeze_imports()  # once per server: imported modules leave Python's full collections (ui/heap.py)
prepare_static()  # once per server: the installed plotly.js into static/ for the charts (ui/plot.py)

HERE = Path(__file__).parent
SECTIONS: dict[str, list[tuple[str, str, str]]] = {
    "Start": [("pages/0_home.py", "Home", ":material/home:")],
    "The formula, step by step": [
        ("pages/1_mean.py", "1 · Mean", ":material/vertical_align_center:"),
        ("pages/2_variance.py", "2 · Variance", ":material/open_in_full:"),
        ("pages/3_standardize.py", "3 · Standardize", ":material/tune:"),
        ("pages/4_scale_shift.py", "4 · Scale & shift", ":material/straighten:"),
        ("pages/5_full_formula.py", "5 · The full formula", ":material/functions:"),
    ],
    "Layer versus batch": [
        ("pages/6_which_axis.py", "Which axis?", ":material/grid_on:"),
        ("pages/7_train_vs_inference.py", "Training vs inference", ":material/model_training:"),
    ],
    "Why normalize": [
        ("pages/8_depth_and_drift.py", "Depth and drift", ":material/stacked_line_chart:"),
        ("pages/9_learning_rate.py", "Learning rate", ":material/speed:"),
        ("pages/10_inside_a_transformer.py", "Inside a real transformer", ":material/memory:"),
        ("pages/11_your_sentence.py", "Your sentence, live", ":material/edit_note:"),
    ],
    "Under the hood": [
        ("pages/12_estimators_and_eps.py", "Estimators and ε", ":material/rule:"),
        ("pages/13_precision.py", "Precision", ":material/decimal_increase:"),
        ("pages/14_invariances.py", "Invariances and geometry", ":material/3d_rotation:"),
        ("pages/15_gradients.py", "Gradients through LayerNorm", ":material/trending_down:"),
    ],
    "Test yourself": [("pages/16_quiz.py", "Misconception quiz", ":material/quiz:")],
}

# Sections whose pages make their own data: the sidebar shows only what acts on them (not the vector).
OWN_DATA_SECTIONS = ("Layer versus batch", "Why normalize", "Test yourself")

pages = {
    section: [
        st.Page(path, title=title, icon=icon, default=path.endswith("0_home.py"))
        for path, title, icon in entries
        if (HERE / path).exists()
    ]
    for section, entries in SECTIONS.items()
}
# Every lesson in sight: folded, the navigation hid seven pages (the quiz among them) behind "View more".
nav = st.navigation({k: v for k, v in pages.items() if v}, expanded=True)
own_data = {p.url_path for section in OWN_DATA_SECTIONS for p in pages[section]}
titles = {p.url_path: p.title for section in pages.values() for p in section}
sidebar(own_data=nav.url_path in own_data, page=nav.url_path, titles=titles)
presentation_toggle()
keep_pages_in_history()  # Back returns to the previous page with its values (ui/history.py)
fit_formulas()  # a displayed formula wider than its column is drawn smaller (ui/formulas.py)
nav.run()
say_unread_link_keys(nav.url_path, where=st.sidebar)  # a link's keys for controls this view never drew
live_sidebar.draw()  # the sidebar's live ε, γ, β: their frames are the page's, known now
lab_sections_drawn()  # the page finished: the sidebar's ε, γ, β, d, seed may rerun its lab sections alone
