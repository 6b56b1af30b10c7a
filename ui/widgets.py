"""Controls shared by several pages (one definition, one meaning)."""

from __future__ import annotations

import contextlib
from typing import Any

import streamlit as st
from streamlit.errors import StreamlitAPIException
from streamlit.runtime.scriptrunner import get_script_run_ctx

from ui import controls, session
from ui.minilm import recording

PLACEMENT_NAMES = {
    "post": "post-LN: after the add (BERT)",
    "pre": "pre-LN: before the sublayer (GPT-2)",
}


DEFAULT_PLACEMENT = "post"  # the radio's first option, which Streamlit leaves out of the URL


def placement_control(label: str, *, key: str, disabled: bool = False, help: str | None = None) -> str:
    """Where LayerNorm sits in a residual block: one session-wide choice, shown on two pages.

    Each page has its own widget and URL key (``depth_placement``, ``tf_placement``): a widget key
    bound to the URL on two pages was lost on Back (the browser's entry for one page held the other
    page's parameters and Streamlit rewrote the address without the placement).

    The choice is shared through ``ui.session.pages.placement``, the placement the student last saw:

    - a click writes it in the widget's ``on_change`` (before the run);
    - a page reached from the sidebar takes it before its widget is drawn, and writes it into the
      URL too (a widget drawn for the first time leaves a value set in code out of the URL, and
      Back or Forward to that entry would restore the default);
    - the URL decides instead when it speaks for this page: a link's value (opened here, or
      carried from another page) and Back or Forward, which restore that entry's own view. The
      value shown is then the shared one (written after the widget). Radio, URL and page agree.
    """
    from ui import controls

    shared = session.pages.placement.get()
    if shared in PLACEMENT_NAMES and session.widgets.get(key) != shared and not _url_decides(key):
        session.widgets.set(key, shared)
        if shared != DEFAULT_PLACEMENT:
            with contextlib.suppress(StreamlitAPIException):  # bound already: Session State counts
                st.query_params[key] = PLACEMENT_NAMES[shared]
    choice = str(
        controls.choice(
            "radio",
            label,
            PLACEMENT_NAMES,
            key=key,
            name="placement",
            horizontal=True,
            disabled=disabled,
            help=help,
            on_change=_share_placement,
            args=(key,),
        )
        or DEFAULT_PLACEMENT
    )
    session.pages.placement.set(choice)
    return choice


def site_choice(label: str, *, key: str, index: int = 0, **kw: Any) -> int:
    """A selectbox of the MiniLM recording's LayerNorm sites, each shown by its label; the site chosen.

    ``kw`` goes to :func:`ui.controls.choice` (``where``, ``name``, ``help``).
    """
    rec = recording()
    sites = list(range(rec.n_sites))
    return int(
        controls.choice("selectbox", label, sites, index=index, format_func=rec.site_label, key=key, **kw)
    )


def sentence_choice(label: str, *, key: str, index: int = 0, **kw: Any) -> int:
    """A selectbox of the MiniLM recording's sentences, each shown by its text; the sentence chosen.

    ``kw`` goes to :func:`ui.controls.choice` (``where``, ``name``, ``help``).
    """
    rec = recording()
    return int(
        controls.choice(
            "selectbox",
            label,
            list(range(rec.n_sentences)),
            index=index,
            format_func=lambda b: str(rec.sentences[b]),
            key=key,
            **kw,
        )
    )


def _url_decides(key: str) -> bool:
    """Whether this run's URL sets the widget ``key``: a link for it, or Back/Forward to an entry.

    ``is_history_navigation`` is how Streamlit 1.67 tells a Back/Forward run (it then seeds every
    bound widget from the restored address, its default where the address has none);
    ``link_elsewhere`` holds a link's values for another page's controls (``ui.state``).
    """
    ctx = get_script_run_ctx()
    if ctx is not None and getattr(ctx, "is_history_navigation", False):
        return True
    return key in st.query_params or key in session.links.elsewhere.get()


def _share_placement(key: str) -> None:
    """``on_change``: a click is the shared choice before the run, so the sync never undoes it."""
    session.pages.placement.set(session.widgets.get(key))


# The nearly constant vector's spreads, 1e-8 … 1 (``ui.live.standardize.spread_slider``, on Standardize
# and Gradients)
SPREADS = [10.0**k for k in range(-8, 1)]
