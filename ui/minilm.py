"""The real MiniLM recording every page shares (loaded once per server process)."""

from __future__ import annotations

import streamlit as st

from layernorm.data.activations import MiniLMRecording, load_minilm_recording


@st.cache_resource(show_spinner="Loading MiniLM activations…")
def recording() -> MiniLMRecording:
    """The real MiniLM LayerNorm inputs/outputs shipped in ``assets/``."""
    return load_minilm_recording()
