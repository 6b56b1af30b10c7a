"""LayerNorm Lab: entry point. Run with `streamlit run app.py` (or `make run`)."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from ui import live
from ui.a11y import mend_markup
from ui.class_session import read_class_link
from ui.class_views import new_page_run as class_page_run
from ui.class_views import sidebar_panel as class_panel
from ui.class_views import turn as class_turn
from ui.formulas import fit_formulas
from ui.heap import freeze_imports
from ui.history import keep_pages_in_history
from ui.linking import say_unread_link_keys
from ui.live import sidebar as live_sidebar
from ui.navigation import HIDDEN, OWN_DATA_SECTIONS, SECTIONS, address
from ui.nodelay import send_without_delay
from ui.plot import prepare_static
from ui.presentation import presentation_toggle
from ui.shell import entered_app
from ui.sidebar import sidebar
from ui.state import lab_sections_drawn
from ui.tour import bar as tour_bar
from ui.tour import card as tour_card

st.set_page_config(page_title="LayerNorm Lab", page_icon="📐", layout="wide")
entered_app()  # this session runs inside the app: its pages need not rerun through it (ui/shell.py)
freeze_imports()  # once per server: imported modules leave Python's full collections (ui/heap.py)
send_without_delay()  # once per server: each message leaves at once, not after an ACK (ui/nodelay.py)
prepare_static()  # once per server: plotly.js into static/ for the charts (ui/plot.py)
live.hide_helpers()  # before any live slider's kept slider is drawn (ui/live)

HERE = Path(__file__).parent

with class_turn():  # a run that follows the teacher waits its turn (ui/class_views.py)
    pages = {
        section: [
            st.Page(path, title=title, icon=icon, default=path.endswith("0_home.py"))
            for path, title, icon, _ in entries
            if (HERE / path).exists()
        ]
        for section, entries in SECTIONS.items()
    }
    # Every lesson in sight: folded, the navigation hid seven pages (the quiz among them) behind "View more".
    # Pages the menu does not list, each opened by its link: views for the wall (a class's projector view)
    hidden = [
        st.Page(path, title=title, icon=icon, url_path=address(path).strip("/"), visibility="hidden")
        for path, title, icon, _ in HIDDEN
    ]
    walls = {p.url_path for p in hidden}
    listed = pages | {"Start": pages["Start"] + hidden}  # hidden pages in no section header of their own
    nav = st.navigation({k: v for k, v in listed.items() if v}, expanded=True)
    own_data = {p.url_path for section in OWN_DATA_SECTIONS for p in pages[section]} | walls
    titles = {p.url_path: p.title for section in pages.values() for p in section}
    read_class_link()  # this browser's class, from the address (ui/class_session.py)
    class_page_run()
    # the guided tour's step, and its card's place above the page (ui/tour.py); no tour on the wall. Before
    # the class panel: a teacher's lead carries the address with this run's step
    tour_place = tour_bar(nav.url_path) if nav.url_path not in walls else None
    if nav.url_path not in walls:  # a view for the wall: no class panel (names, the teacher's link)
        class_panel("/" + nav.url_path)  # in a class: the class panel, above the sidebar's settings
    sidebar(own_data=nav.url_path in own_data, page=nav.url_path, titles=titles)
    presentation_toggle()
    keep_pages_in_history()  # Back returns to the previous page with its values (ui/history.py)
    mend_markup()  # the menu's lists, keyboard-reachable scrolling, legible captions (ui/a11y.py)
    fit_formulas()  # a displayed formula wider than its column is drawn smaller (ui/formulas.py)
    nav.run()
    if tour_place is not None:
        tour_card(tour_place, nav.url_path)  # after the page: its words come from the page's state
    say_unread_link_keys(nav.url_path, where=st.sidebar)  # a link's keys for controls this view never drew
    live_sidebar.draw()  # the sidebar's live ε, γ, β: their frames are the page's, known now
    lab_sections_drawn()  # the page finished: the sidebar's ε, γ, β, d, seed may rerun its lab sections alone
