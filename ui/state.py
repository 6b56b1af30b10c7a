"""The lab's input as pages read it: :func:`lab_input`, and :func:`lab_section` for the parts of a page
that draw it.

A lab section is a keyed fragment: a move of the sidebar's ε, γ, β, d or seed reruns only the page's
lab sections (``ui.sidebar.rerun_lab_sections``), and only those whose last run read what moved.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Concatenate, ParamSpec

import streamlit as st

from ui import session
from ui.fragments import page_fragment
from ui.keys import LAB_QUIET
from ui.settings import LabInput, noted, noting
from ui.shell import ensure_app_shell
from ui.sidebar import vector_controls
from ui.text import LABEL_LIMIT, plain

P = ParamSpec("P")


def _run_reading(key: str, body: Callable[..., None], lab: LabInput, *args: Any, **kwargs: Any) -> None:
    """Run a section's body on ``lab`` (and its other arguments) and keep, in Session State, what it read.

    What it read is None when the body stopped (an exception, ``st.stop``, a rerun).
    """
    reads = session.sections.reads.kept()
    reads[key] = None
    with noting() as reading:
        body(noted(lab), *args, **kwargs)
        reads[key] = frozenset(reading)


def lab_section(key: str) -> Callable[[Callable[Concatenate[LabInput, P], None]], Callable[P, None]]:
    """Decorator: a page section that draws the sidebar's input, a fragment the sidebar can rerun alone.

    ``@lab_section("inv_scale")`` over ``def section(lab: LabInput) -> None`` gives a function of no
    arguments that the page calls once, where the section goes. The section is an
    ``st.fragment(key=key)`` (made by :func:`page_fragment`): its own controls rerun it alone, and so
    do the sidebar's ε, γ, β, d and seed (``ui.sidebar.rerun_lab_sections``), since every run of it reads
    the input from Session State rather than from the arguments of the page's last full run. Each
    run records which of the input's :data:`MOVABLE` fields the body read (``ui.settings.noting``);
    a sidebar move that changes none of them leaves the section as it is. A body that depends on the
    sidebar in another way (the page's link) calls :func:`ui.settings.note_everything`. A page that draws its
    input anywhere outside its lab sections must use none (the sidebar then reruns the whole page):
    ``tests/test_page_fragments.py`` reads the pages for that. ``key`` is unique in the app.

    A body may take more arguments after ``lab`` (``def numbers(lab, c, b)``, called as
    ``numbers(c, b)``): the values of controls drawn outside it, typically in an enclosing
    :func:`page_fragment`. Then a sidebar move reruns the numbers alone, with the arguments of their
    last call (a fragment keeps them), and does not send the controls, headings and text around them
    again; a move of those controls reruns the enclosing fragment, and the section with it. Such a
    section must be drawn on every run of its page, whatever the controls say, so that the sidebar
    always finds it.
    """

    def wrap(body: Callable[Concatenate[LabInput, P], None]) -> Callable[P, None]:
        @page_fragment(key=key)
        def section(*args: P.args, **kwargs: P.kwargs) -> None:
            lab = session.lab.lab.get()
            _run_reading(key, body, lab if isinstance(lab, LabInput) else lab_input(), *args, **kwargs)

        def call(*args: P.args, **kwargs: P.kwargs) -> None:
            drawn = session.sections.drawing.get()
            if isinstance(drawn, list):
                drawn.append(key)
            section(*args, **kwargs)

        return call

    return wrap


def lab_sections_drawn() -> None:
    """End of a full run (``app.py``, after the page): the lab sections it drew can now be rerun alone."""
    drawn = session.sections.drawing.pop()
    session.sections.drawn.set(tuple(drawn) if drawn else ())
    if drawn:
        _quiet()


@page_fragment(key=LAB_QUIET)
def _quiet() -> None:
    """Draws nothing: a sidebar move that no lab section read reruns this alone (a rerun needs a key)."""


def lab_input() -> LabInput:
    """The input the sidebar resolved on this run (pages call this)."""
    ensure_app_shell()
    lab = session.lab.lab.get()
    if not isinstance(lab, LabInput):
        lab = vector_controls()
    if lab.problem:
        shown = plain(lab.label, LABEL_LIMIT)  # a file name or a token: never Markdown
        st.warning(f"Your input has a problem (see the sidebar), so the pages show: {shown}.", icon="⚠️")
    return lab
