"""The shared sidebar: where the vector, γ, β and ε come from, for every page.

``app.py`` calls :func:`sidebar` on every run, before the page, so the controls keep their values
across page switches. It reads its widgets into one :class:`ui.settings.Settings` and makes the
input with :func:`ui.settings.lab_from`; pages read it with ``ui.state.lab_input``.

A move of ε, γ, β, d or seed reruns only the page's lab sections (:func:`rerun_lab_sections`), not
``app.py``, the sidebar and the page's text.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import streamlit as st

import layernorm as ln
from ui import session
from ui.inputs import browser_caught_up, input_sets_seen, keep_table_edits, preset, read_input
from ui.keys import LAB_QUIET
from ui.linking import LinkReport, read_link, report_link
from ui.settings import (
    AFFINE_MODES,
    EPS_CHOICES,
    EPS_HELP,
    GAMMA_BETA_SLIDER,
    PER_FEATURE,
    SAME,
    SOURCES,
    LabInput,
    Settings,
    changed_fields,
    eps_link,
    lab_from,
)

if TYPE_CHECKING:  # pandas is imported where a table is used: Home and most pages never need it
    import pandas as pd


def affine_table(d: int, *, as_text: bool = False) -> pd.DataFrame:
    """The per-feature γ, β for vectors of size ``d`` (starts at γ = 1, β = 0; kept per d).

    Kept as the text the user wrote in the editor on Scale & shift (``as_text=True`` gives it,
    one str per cell); by default its numbers, read by ``ln.parse_number`` (float columns).
    """
    import pandas as pd

    tables = session.lab.affine_tables.kept()
    if d not in tables:
        tables[d] = pd.DataFrame({"γ": ["1"] * d, "β": ["0"] * d}, dtype=object)
    table: pd.DataFrame = tables[d]
    if as_text:  # rows numbered 1..d, as the messages ("Row 4 of the β column") and x_i count them
        cells = {c: ln.table_text(table[c]) for c in ("γ", "β")}
        return pd.DataFrame(cells, index=pd.RangeIndex(1, d + 1), dtype=object)
    return pd.DataFrame({c: ln.vector_from_table(table[c], f"{c} column") for c in ("γ", "β")})


def _per_feature(mode: str, d: int) -> tuple[np.ndarray, np.ndarray] | None:
    """The per-feature table's γ, β for size ``d`` when ``mode`` uses them."""
    if mode != PER_FEATURE:
        return None
    table = affine_table(d)
    return table["γ"].to_numpy(float), table["β"].to_numpy(float)


def set_affine_table(d: int, table: pd.DataFrame) -> None:
    """Keep the user's per-feature γ, β for size ``d`` as written; InputError (nothing kept) if invalid.

    The input in Session State takes them at once when it uses this table: the edit reran only Scale
    & shift's lab section, and that section's next run (a later edit that is invalid, a sidebar move)
    must start from these values, not from those of the last full run.
    """
    gamma, beta = (ln.vector_from_table(table[c], f"{c} column") for c in ("γ", "β"))
    session.lab.affine_tables.kept()[d] = table[["γ", "β"]].copy()
    lab = session.lab.lab.get()
    if isinstance(lab, LabInput) and lab.affine_mode == PER_FEATURE and lab.d == d:
        session.lab.lab.set(lab_from(replace(lab.settings, per_feature=(gamma, beta))))


def kept_moved(key: str, on_change: Callable[..., None] | None = None, args: tuple[Any, ...] = ()) -> None:
    """``on_change`` of a live slider's hidden kept slider (``ui.live``).

    The browser updates its copy of the kept slider only once the run that answers a live release has
    ended; a message sent before that (a click on a page link or a button) carries the value from
    before the release. Taken as a move, it put the old value back, and on a page switch the sidebar's
    keyed lab-section rerun (``on_change``) ran the old page's fragment on the new page, which blanked
    the app (Streamlit: "Bad delta path index"; 6 of 12 page switches 0-0.15 s after a key press on ε,
    ``tests/e2e/test_live_sidebar.py``). Such a value is put back. A release in this same run sets the
    value itself; any other move of the kept slider (Back onto an address) goes on to ``on_change``.
    """
    if (session.widgets.get(f"{key}_live") or {}).get("value") is not None:
        return
    before, after = session.live.released.get().get(key, (None, None))
    if after is not None and session.widgets.get(key) == before:
        session.widgets.set(key, after)
        return
    if on_change is not None:
        on_change(*args)


def _live_place(key: str) -> None:
    """Keep a place in the sidebar for the live slider of ``key`` (drawn after the page, which gives
    its frames: ui/live/sidebar.py)."""
    # A container, not st.empty: an empty element replaced by a block later in the run made the
    # browser mount the slider anew on every run (a drag under way lost its element).
    session.live.places.kept()[key] = st.container()


def _kept_slider(label: str, value: float, *, key: str, bind: Literal["query-params"]) -> float:
    """One shared γ or β slider, kept for the link (``bind``, with the URL key ``key`` written where it is
    called), and the place of the live slider drawn in its place to show it."""
    lo, hi, step = GAMMA_BETA_SLIDER
    with st.container(key=f"live_state_{key}"):
        v = st.slider(
            label,
            lo,
            hi,
            value,
            step,
            key=key,
            bind=bind,
            persist_state="session",
            on_change=kept_moved,
            args=(key, rerun_lab_sections),
        )
    _live_place(key)
    return float(v)


def _shared_sliders() -> tuple[float, float]:
    """The shared γ and β sliders (kept for the link; the live sliders drawn in their place show them)."""
    g = _kept_slider("γ (scale, every feature)", 1.0, key="gamma", bind="query-params")
    b = _kept_slider("β (shift, every feature)", 0.0, key="beta", bind="query-params")
    return g, b


def sidebar(
    *, own_data: bool = False, page: str = "", titles: Mapping[str, str] | None = None
) -> LabInput | None:
    """Draw the shared controls in the sidebar and return the validated input.

    ``page`` is the url path of the page being opened and ``titles`` every page's title by url path:
    a link that sets another page's control says so, by that page's title (``ui.linking.read_link``).

    ``own_data`` says the current page builds its own data: the sidebar then shows only what acts
    on that page (the link's messages and a line saying the vector is kept for the step pages) and
    returns None. Every vector control keeps its value meanwhile (``persist_state="session"``, and
    the table's last edits are kept), so the step pages find the vector as the student left it.
    """
    session.sections.drawn.set(())  # until this run finishes: a sidebar move reruns the whole page
    session.sections.rerun.set(())  # this run is a full one
    session.links.news.set(False)  # this run draws the link's messages, if it still has any
    session.sections.drawing.set([])
    session.live.places.set({})
    session.live.view.set(None)  # until the page says what the sidebar's sliders change
    session.live.page.set(page)
    if not session.links.checked_url.present():
        session.links.checked_url.set(True)
        read_link(page, titles)
    elif not (session.links.rerun.pop() | session.live.not_the_user.pop()):
        # the user acted (not a link's own rerun, nor the browser asking for a live slider's frames):
        # the link's news is old
        session.links.report.clear()
        session.links.notes.clear()
    report = session.links.report.get()
    if own_data:
        if session.lab.table_last.present():  # the grid is not drawn here: keep the user's edits
            keep_table_edits()
        with st.sidebar:
            st.caption(
                "This page makes its own data, so the vector controls are hidden here. "
                "Your vector, γ, β and ε are kept for the step-by-step pages."
            )
            if isinstance(report, LinkReport):
                report_link(report)
        return None
    lab = vector_controls()
    if isinstance(report, LinkReport):
        with st.sidebar:
            report_link(report)
    return lab


def vector_controls() -> LabInput:
    """The sidebar's vector and parameter controls, and the validated input they give."""
    with st.sidebar:
        st.subheader("Your vector")
        source = st.selectbox(
            "Input",
            SOURCES,
            key="src",
            bind="query-params",
            persist_state="session",
            on_change=browser_caught_up,
            args=("src",),
        )
        input_sets_seen()
        x, label, problem, token = read_input(source, rerun_lab_sections)
        st.subheader("Parameters")
        mode = st.radio(
            "γ and β", AFFINE_MODES, key="affine_mode", bind="query-params", persist_state="session"
        )
        with st.container(key="live_state_eps"):  # kept for the link; the live slider shows it
            eps = st.select_slider(
                "ε (inside the square root)",
                EPS_CHOICES,
                value=1e-5,
                key="eps",
                bind="query-params",
                persist_state="session",
                format_func=eps_link,
                help=EPS_HELP,
                on_change=kept_moved,
                args=("eps", rerun_lab_sections),
            )
        _live_place("eps")
        g, b = _shared_sliders() if mode == SAME else (1.0, 0.0)
        settings = Settings(
            x=x,
            label=label,
            source=source,
            eps=float(eps),
            affine_mode=mode,
            g=g,
            b=b,
            per_feature=_per_feature(mode, x.size),
            token=token,
            problem=problem,
        )
        lab = lab_from(settings)
        for note in lab.notes:
            st.caption(note)
    session.lab.lab.set(lab)
    return lab


def moved_lab(lab: LabInput) -> LabInput | None:
    """The input after a move of the sidebar's ε, γ, β, d or seed, when nothing else in the sidebar changes.

    None when the sidebar itself would show something new: its input has a problem (the sidebar
    shows it), the input is a MiniLM token, the notes under γ and β change (a per-feature table
    for another d), or the preset cannot be made.
    """
    state = session.sidebar.values()  # the controls as they stand; an unset one is missing (KeyError)
    if lab.problem is not None or lab.source not in SOURCES[:4] or state.get("src", lab.source) != lab.source:
        return None
    x, label = lab.x, lab.label
    if lab.source == SOURCES[0]:
        try:
            x, label = preset(str(state["preset"]), int(state["d"]), int(state["seed"]))
        except (KeyError, ValueError, MemoryError):
            return None
    moved = lab_from(
        replace(
            lab.settings,
            x=x,
            label=label,
            eps=float(state["eps"]),
            g=float(state.get("gamma", 1.0)),
            b=float(state.get("beta", 0.0)),
            per_feature=_per_feature(lab.affine_mode, x.size),
        )
    )
    if moved.notes != lab.notes:
        return None
    if lab.source == SOURCES[0]:
        session.lab.last_good.set((x, label))
    return moved


def rerun_lab_sections() -> None:
    """``on_change`` of the sidebar's ε, γ, β, d and seed: rerun only the page's lab sections.

    A full rerun sends the whole page again (95 elements on Invariances) and the browser redraws
    all of it; the page's own text, the sidebar and the navigation do not change with these
    controls. The keyed rerun happens only when it shows everything a full rerun would: the
    page's last full run finished and drew its input only inside its lab sections
    (``ui.state.lab_sections_drawn``), no link message is on screen (a full run clears them), and the
    sidebar shows nothing new (:func:`moved_lab`). Otherwise the callback returns and the whole
    page reruns. ``st.rerun(keys)`` from a callback is Streamlit 1.67's keyed fragment
    rerun; ``ui.session.sections.rerun`` records which sections it reran.
    """
    keys = session.sections.drawn.get()
    lab = session.lab.lab.get()
    session.sections.rerun.set(())
    if not keys or not isinstance(lab, LabInput) or session.links.report.get() or session.links.notes.get():
        return
    moved = moved_lab(lab)
    if moved is None:
        return
    session.lab.lab.set(moved)
    changed = changed_fields(lab, moved)
    reads = session.sections.reads.get()
    # A section whose last run read none of what changed would draw exactly what it shows: it stays.
    # (A section's own controls rerun it, and every run records what it read, so this holds for the
    # view it shows; a run that did not finish recorded None.)
    keys = tuple(k for k in keys if reads.get(k) is None or reads[k] & changed) or (LAB_QUIET,)
    session.sections.rerun.set(keys)
    st.rerun(list(keys))
