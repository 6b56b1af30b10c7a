"""Controls shared by several pages (one definition, one widget key, one meaning)."""

from __future__ import annotations

import streamlit as st

PLACEMENT_NAMES = {
    "post": "post-LN: after the add (BERT)",
    "pre": "pre-LN: before the sublayer (GPT-2, LLaMA)",
}


def placement_control(label: str, *, disabled: bool = False, help: str | None = None) -> str:
    """Where LayerNorm sits in a residual block; the same session-wide choice on every page that shows it."""
    choice = st.radio(
        label,
        list(PLACEMENT_NAMES),
        format_func=PLACEMENT_NAMES.get,
        key="ln_placement",
        horizontal=True,
        persist_state="session",
        disabled=disabled,
        help=help,
    )
    return str(choice or "post")
