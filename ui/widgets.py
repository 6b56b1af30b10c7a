"""Controls shared by several pages (one definition, one meaning)."""

from __future__ import annotations

import contextlib

import numpy as np
import streamlit as st
from streamlit.errors import StreamlitAPIException

import layernorm as ln

PLACEMENT_NAMES = {
    "post": "post-LN: after the add (BERT)",
    "pre": "pre-LN: before the sublayer (GPT-2, LLaMA)",
}


SHARED_PLACEMENT = "placement_shared"  # plain Session State (no widget): the last placement chosen


def placement_control(label: str, *, key: str, disabled: bool = False, help: str | None = None) -> str:
    """Where LayerNorm sits in a residual block: one session-wide choice, shown on two pages.

    Each page has its own widget and URL key (``depth_placement``, ``tf_placement``): a widget key
    bound to the URL on two pages was lost on Back (the browser's entry for one page held the other
    page's parameters and Streamlit rewrote the address without the placement; a browser QA pass).
    The choice itself is shared through :data:`SHARED_PLACEMENT`: a page whose widget shows another
    value than the last one chosen anywhere takes that one before the widget is drawn. A click
    writes it in the widget's ``on_change`` (before the run, so the sync above never undoes it);
    a value the URL gave the widget (a link, Back or Forward) is written after the widget.
    """
    from ui import controls

    shared = st.session_state.get(SHARED_PLACEMENT)
    if shared in PLACEMENT_NAMES and st.session_state.get(key) != shared:
        st.session_state[key] = shared
        with contextlib.suppress(StreamlitAPIException):  # bound since an earlier run: the line above counts
            # A widget drawn for the first time takes a value set in code but leaves it out of the
            # URL, so Back or Forward to this entry would then restore the default.
            st.query_params[key] = PLACEMENT_NAMES[shared]
    choice = str(
        controls.choice(
            "radio",
            label,
            list(PLACEMENT_NAMES),
            format_func=PLACEMENT_NAMES.__getitem__,
            key=key,
            name="placement",
            horizontal=True,
            disabled=disabled,
            help=help,
            on_change=_share_placement,
            args=(key,),
        )
        or "post"
    )
    st.session_state[SHARED_PLACEMENT] = choice
    return choice


def _share_placement(key: str) -> None:
    st.session_state[SHARED_PLACEMENT] = st.session_state[key]


SPREADS = [10.0**k for k in range(-8, 1)]  # the nearly constant vector's spreads: 1e-8 … 1


def near_constant_control(
    key: str, default: float, *, d: int, mean: float, seed: int
) -> tuple[float, np.ndarray]:
    """The "Spread of the nearly constant vector" slider, and that vector (``ln.make_near_constant``).

    Returns ``(spread, x)``. Standardize and Gradients show ε taking over such a vector; each page
    keeps its own key and default spread.
    """
    from ui import controls

    spread = float(
        controls.select_slider(
            "Spread of the nearly constant vector",
            SPREADS,
            default,
            key=key,
            name="spread",
            format_func=lambda v: f"{v:.0e}",
        )
    )
    return spread, ln.make_near_constant(d, mean, spread, seed=seed)
