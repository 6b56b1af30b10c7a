"""The shared sidebar: where the vector, γ, β and ε come from, for every page.

``app.py`` calls :func:`sidebar` on every run, before the page, so the controls
keep their values across page switches; pages read the result with
:func:`lab_input`. Sidebar widgets are bound to the URL (``bind="query-params"``),
so a link reproduces what the class sees; Streamlit drops invalid URL values and
:func:`_report_url_problems` says so in words.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import streamlit as st

import layernorm as ln
from layernorm.activations import MiniLMRecording, load_minilm_recording
from ui.page import ensure_app_shell

SOURCES = ["Preset", "Type numbers", "Edit a table", "Upload a file", "Real token (MiniLM)"]
D_CHOICES = [
    2,
    3,
    4,
    5,
    6,
    8,
    10,
    12,
    16,
    24,
    32,
    48,
    64,
    96,
    128,
    192,
    256,
    384,
    512,
    768,
    1024,
    2048,
    3072,
    4096,
]
EPS_CHOICES = [float(f"{m}e{k}") for k in range(-12, 0) for m in (1, 2, 5)] + [1.0]
AFFINE_MODES = [
    "Same γ, β for every feature",
    "Per feature (edit on Scale & shift)",
    "Undo the normalization: γ = σ, β = μ",
    "MiniLM's learned γ, β",
]
DEFAULT_TEXT = "1, 2, 3, 4"
URL_KEYS = ("src", "preset", "d", "seed", "eps", "gamma", "beta")


@dataclass(frozen=True)
class LabInput:
    """Everything a page needs: the vector and the parameters, all validated."""

    x: np.ndarray
    label: str
    source: str
    gamma: np.ndarray
    beta: np.ndarray
    eps: float
    affine_mode: str
    problem: str | None = None
    recorded_y: np.ndarray | None = None
    model_eps: float | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def d(self) -> int:
        return int(self.x.size)


@st.cache_resource(show_spinner="Loading MiniLM activations…")
def recording() -> MiniLMRecording:
    """The real MiniLM LayerNorm inputs/outputs shipped in ``assets/`` (loaded once per server)."""
    return load_minilm_recording()


def _fallback(problem: str) -> tuple[np.ndarray, str, str]:
    """The last good vector (or [1, 2, 3, 4]) when the current input has a problem."""
    last = st.session_state.get("last_good")
    if last is not None:
        return last[0], last[1] + " (last valid input)", problem
    return np.array([1.0, 2.0, 3.0, 4.0]), "[1, 2, 3, 4] (default)", problem


def _preset_input() -> tuple[np.ndarray, str]:
    name = st.selectbox(
        "Preset", list(ln.PRESETS), key="preset", bind="query-params", persist_state="session"
    )
    d = st.select_slider(
        "Size d (features)", D_CHOICES, value=8, key="d", bind="query-params", persist_state="session"
    )
    c1, c2 = st.columns([3, 2], vertical_alignment="bottom")
    seed = c1.number_input(
        "Seed", 0, 9999, value=0, step=1, key="seed", bind="query-params", persist_state="session"
    )
    c2.button(
        "New draw",
        key="reseed",
        help="Draw new random numbers (seed + 1; after 9999 comes 0)",
        on_click=lambda: st.session_state.update(seed=(int(st.session_state["seed"]) + 1) % 10000),
    )
    st.caption(ln.PRESETS[name])
    return ln.make_preset(name, int(d), int(seed)), f"{name}, d = {d}, seed {seed}"


def _typed_input() -> tuple[np.ndarray, str]:
    text = st.text_area(
        "Numbers (commas, spaces or new lines)",
        value=DEFAULT_TEXT,
        key="typed",
        height=110,
        persist_state="session",
        help="Brackets and scientific notation are fine: [1, -2.5, 3e-2]. Commas separate numbers, "
        "so write 1000, not 1,000.",
    )
    return ln.parse_vector_text(text), "typed vector"


def _table_input() -> tuple[np.ndarray, str]:
    if "table_seed" not in st.session_state:
        st.session_state["table_seed"] = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0]})
    edited = st.data_editor(
        st.session_state["table_seed"],
        key="table",
        num_rows="dynamic",
        width="stretch",
        height=240,
        column_config={"x": st.column_config.NumberColumn("x", help="One feature per row", format="%.6g")},
    )
    st.session_state["table_last"] = edited  # becomes the starting table if the user comes back
    return ln.vector_from_table(edited["x"].tolist()), "table"


def _upload_input() -> tuple[np.ndarray, str]:
    up = st.file_uploader(
        "A .csv (one row or column) or .npy vector", type=["csv", "txt", "npy"], key="upload"
    )
    if up is None:
        kept = st.session_state.get("upload_last")
        if kept is not None:  # the uploader forgets its file when hidden; the lab does not
            st.caption(f"Using **{kept[1]}**, uploaded earlier. Upload another file to replace it.")
            return kept[0], f"file {kept[1]}"
        raise ln.InputError("Choose a file: a .csv with one row or one column of numbers, or a .npy vector.")
    x = ln.read_uploaded_vector(up.name, up.getvalue())
    st.session_state["upload_last"] = (x, up.name)
    return x, f"file {up.name}"


def _token_input() -> tuple[np.ndarray, str, dict[str, object]]:
    rec = recording()
    s = st.selectbox(
        "Sentence",
        range(rec.n_sentences),
        format_func=lambda i: str(rec.sentences[i]),
        key="tok_sentence",
        persist_state="session",
    )
    real = rec.real_token_indices(int(s)).tolist()
    t = st.selectbox(
        "Token",
        real,
        format_func=lambda i: f"{i}: {rec.tokens[s, i]}",
        key="tok_index",
        persist_state="session",
    )
    if t not in real:  # a stale choice from another sentence
        t = real[0]
    site = st.selectbox(
        "LayerNorm site",
        range(rec.n_sites),
        format_func=rec.site_label,
        key="tok_site",
        persist_state="session",
    )
    st.caption(
        "Real hidden state of all-MiniLM-L6-v2 (d = 384) just before this LayerNorm. "
        "Note the one feature far larger than the rest: real transformers have such outlier dimensions."
    )
    extra = {
        "gamma": rec.gamma[site].astype(np.float64),
        "beta": rec.beta[site].astype(np.float64),
        "y": rec.outputs[site, s, t].astype(np.float64),
        "eps": float(rec.eps[site]),
    }
    label = f"'{rec.tokens[s, t]}' in sentence {s + 1}, {rec.site_label(site)}"
    return rec.token_vector(int(s), int(t), int(site)), label, extra


def _read_input(source: str) -> tuple[np.ndarray, str, str | None, dict[str, object]]:
    extra: dict[str, object] = {}
    if source != "Edit a table" and "table_last" in st.session_state:
        st.session_state["table_seed"] = st.session_state.pop("table_last")  # keep the user's edits
    try:
        if source == "Preset":
            x, label = _preset_input()
        elif source == "Type numbers":
            x, label = _typed_input()
        elif source == "Edit a table":
            x, label = _table_input()
        elif source == "Upload a file":
            x, label = _upload_input()
        else:
            x, label, extra = _token_input()
    except (ValueError, MemoryError) as exc:  # InputError, the core's ValueErrors; never a traceback
        st.error(str(exc), icon="⚠️")
        x, label, problem = _fallback(str(exc))
        return x, label, problem, {}
    st.session_state["last_good"] = (x, label)
    return x, label, None, extra


def affine_table(d: int) -> pd.DataFrame:
    """The per-feature γ, β table for vectors of size ``d`` (starts at γ = 1, β = 0; kept per d)."""
    tables = st.session_state.setdefault("affine_tables", {})
    if d not in tables:
        tables[d] = pd.DataFrame({"γ": [1.0] * d, "β": [0.0] * d})
    table: pd.DataFrame = tables[d]
    return table


def set_affine_table(d: int, table: pd.DataFrame) -> None:
    """Keep the user's valid per-feature γ, β for size ``d``."""
    st.session_state.setdefault("affine_tables", {})[d] = table


def _affine(
    mode: str, x: np.ndarray, eps: float, extra: dict[str, object]
) -> tuple[np.ndarray, np.ndarray, list[str]]:
    d = x.size
    notes: list[str] = []
    if mode == AFFINE_MODES[3]:
        if "gamma" in extra:
            return np.asarray(extra["gamma"]), np.asarray(extra["beta"]), notes
        notes.append("MiniLM's learned γ, β need a real MiniLM token as input; using γ = 1, β = 0.")
        return np.ones(d), np.zeros(d), notes
    if mode == AFFINE_MODES[2]:
        steps = ln.layer_norm_steps(x, eps=eps)
        return np.full(d, float(steps.sigma)), np.full(d, float(steps.mu)), notes
    if mode == AFFINE_MODES[1]:
        table = affine_table(d)
        notes.append(
            f"Per-feature γ, β for d = {d} (each d keeps its own table): edit them on Scale & shift."
        )
        return table["γ"].to_numpy(float), table["β"].to_numpy(float), notes
    g = st.slider(
        "γ (scale, every feature)",
        -3.0,
        3.0,
        1.0,
        0.05,
        key="gamma",
        bind="query-params",
        persist_state="session",
    )
    b = st.slider(
        "β (shift, every feature)",
        -3.0,
        3.0,
        0.0,
        0.05,
        key="beta",
        bind="query-params",
        persist_state="session",
    )
    return np.full(d, float(g)), np.full(d, float(b)), notes


def _same(raw: str, value: object) -> bool:
    """Does the URL text ``raw`` describe the widget's ``value``?"""
    if isinstance(value, str):
        return raw == value
    try:
        return abs(float(raw) - float(value)) <= 1e-9 * max(1.0, abs(float(value)))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return False


def _report_url_problems(raw: dict[str, list[str]]) -> None:
    """Tell the user which link parameters were unusable, repeated, or not used by this input."""
    bad = [
        f"`{k}={v[-1]}`"
        for k, v in raw.items()
        if k in URL_KEYS and k in st.session_state and len(v) == 1 and not _same(v[-1], st.session_state[k])
    ]
    repeated = [f"`{k}`" for k, v in raw.items() if k in URL_KEYS and len(v) > 1]
    unused = [f"`{k}`" for k, v in raw.items() if k in URL_KEYS and k not in st.session_state]
    if repeated:
        st.warning(
            f"The link gives {', '.join(repeated)} more than once; the lab used one of them.", icon="🔗"
        )
    if unused:
        st.info(
            f"The link's {', '.join(unused)} do not apply to the chosen input and were ignored.", icon="🔗"
        )
    if bad:
        st.warning(
            f"The link asked for {', '.join(bad)}, which the lab can't use (unknown or out of range); "
            "it uses the default for those instead.",
            icon="🔗",
        )


def sidebar(*, own_data: bool = False) -> LabInput:
    """Draw the shared controls in the sidebar and return the validated input.

    ``own_data`` says the current page builds its own tensors, so the sidebar says the vector
    chosen here is for the step-by-step pages (it stays as it is meanwhile).
    """
    first_run = "url_checked" not in st.session_state
    raw_params = {k: st.query_params.get_all(k) for k in st.query_params} if first_run else {}
    st.session_state["url_checked"] = True
    with st.sidebar:
        st.subheader("Your vector")
        if own_data:
            st.caption("This page makes its own data; the vector below feeds the step-by-step pages.")
        source = st.selectbox("Input", SOURCES, key="src", bind="query-params")
        x, label, problem, extra = _read_input(source)
        st.subheader("Parameters")
        mode = st.radio("γ and β", AFFINE_MODES, key="affine_mode", persist_state="session")
        eps = st.select_slider(
            "ε (inside the square root)",
            EPS_CHOICES,
            value=1e-5,
            key="eps",
            bind="query-params",
            format_func=lambda v: f"{v:.0e}",
            help="PyTorch's default is 1e-5; BERT/MiniLM use 1e-12, Keras 1e-3.",
        )
        gamma, beta, notes = _affine(mode, x, float(eps), extra)
        for note in notes:
            st.caption(note)
    lab = LabInput(
        x=x,
        label=label,
        source=source,
        gamma=gamma,
        beta=beta,
        eps=float(eps),
        affine_mode=mode,
        problem=problem,
        recorded_y=extra.get("y"),  # type: ignore[arg-type]
        model_eps=extra.get("eps"),
        notes=notes,  # type: ignore[arg-type]
    )
    st.session_state["lab_input"] = lab
    if raw_params:
        with st.sidebar:
            _report_url_problems(raw_params)
    return lab


def lab_input() -> LabInput:
    """The input the sidebar resolved on this run (pages call this)."""
    ensure_app_shell()
    lab = st.session_state.get("lab_input")
    if not isinstance(lab, LabInput):
        lab = sidebar()
    if lab.problem:
        st.warning(f"Your input has a problem (see the sidebar), so the pages show: {lab.label}.", icon="⚠️")
    return lab
