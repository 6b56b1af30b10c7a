"""The real MiniLM recording and model every page shares (loaded once per server process)."""

from __future__ import annotations

import streamlit as st

from layernorm.data.activations import MiniLMRecording, load_minilm_recording
from layernorm.data.weights import load_minilm_weights, load_tokenizer
from layernorm.labs.recent_norms import SiteDyT, fit_sites


@st.cache_resource(show_spinner="Loading MiniLM activations…")
def recording() -> MiniLMRecording:
    """The real MiniLM LayerNorm inputs/outputs shipped in ``assets/``."""
    return load_minilm_recording()


@st.cache_resource(show_spinner="Loading all-MiniLM-L6-v2 (91 MB, once for every student)…")
def model() -> tuple[object, object]:
    """Weights and tokenizer, loaded once per server and shared read-only by every session."""
    return load_minilm_weights(), load_tokenizer()


@st.cache_resource(show_spinner="Fitting DyT to each of the 13 LayerNorms…")
def dyt_sites() -> tuple[SiteDyT, ...]:
    """DyT fitted to each recorded LayerNorm (γ and β per feature), over the 7 recorded sentences."""
    rec = recording()
    return fit_sites(rec.inputs, rec.outputs, rec.attention_mask)
