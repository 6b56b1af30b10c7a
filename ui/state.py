"""The shared sidebar: where the vector, γ, β and ε come from, for every page.

``app.py`` calls :func:`sidebar` on every run, before the page, so the controls
keep their values across page switches; pages read the result with
:func:`lab_input`. Sidebar widgets are bound to the URL (``bind="query-params"``),
so a link reproduces what the class sees. Streamlit matches a link's values as text,
so on a session's first run :func:`_read_link` reads them as numbers first
(``ui.links``), puts the canonical text in the URL, and :func:`_report_link` says
which value the lab uses for any it had to change.

Pages draw the input inside their lab sections (:func:`lab_section`, keyed fragments): a move of the sidebar's
ε, γ, β, d or seed then reruns only those sections, not ``app.py``, the sidebar and the page's text
(:func:`_rerun_lab_sections` says when it falls back to a full rerun).
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field, fields, replace
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, TypeVar, cast, overload

import numpy as np
import streamlit as st
from streamlit.errors import StreamlitAPIException

import layernorm as ln
from layernorm.data.activations import MiniLMRecording, load_minilm_recording
from ui import links
from ui.keys import ALL_PAGE_KEYS, PAGE_KEYS
from ui.shell import ensure_app_shell
from ui.text import LABEL_LIMIT, MESSAGE_LIMIT, plain

if TYPE_CHECKING:  # pandas is imported where a table is used: Home and most pages never need it
    import pandas as pd

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
EPS_HELP = "PyTorch's default is 1e-5; BERT/MiniLM use 1e-12, Keras 1e-3."
AFFINE_MODES = [
    "Same γ, β for every feature",
    "Per feature (edit on Scale & shift)",
    "Undo for this vector: γ = σ, β = μ",
    "MiniLM's learned γ, β",
]
DEFAULT_TEXT = "1, 2, 3, 4"
SHARE_LABEL = "Put these numbers in the link"  # the button under a table or a file's vector
# What a link cannot carry, said when a link chooses an input or γ/β mode that needs it (the link
# opens with the lab's starting values, never silently).
NOT_CARRIED = {
    SOURCES[2]: (
        "A link carries no table, so this is the lab's starting table (1, 2, 3, 4). To share a table's "
        f"numbers, press “{SHARE_LABEL}” under it: they become typed numbers, which a link carries."
    ),
    SOURCES[3]: (
        "A link carries no file: upload it here. To share a file's numbers, press "
        f"“{SHARE_LABEL}” after uploading: they become typed numbers, which a link carries."
    ),
    AFFINE_MODES[1]: (
        "A link carries no per-feature γ, β, so every feature starts at γ = 1, β = 0: edit them on "
        "Scale & shift."
    ),
}
URL_KEYS = ("src", "preset", "d", "seed", "eps", "gamma", "beta", "typed", "affine_mode")
TOKEN_KEYS = ("tok_sentence", "tok_index", "tok_site")  # options from the recording: read in _link_keys
# Characters of typed numbers a link may carry: far more than the longest vector the lab reads
# (ln.MAX_VALUES numbers), so a longer link is cut (and says so) only where it could not be valid.
MAX_TYPED = 200_000
GAMMA_BETA_SLIDER = (-3.0, 3.0, 0.05)  # min, max, step of the shared γ and β sliders
# The lab sections (lab_section) of the page's last finished full run, and of the run in progress
LAB_SECTIONS, _LAB_SECTIONS_NOW = "lab_sections", "_lab_sections_now"
# Whether the last full run drew any of a link's messages (they stay until the user's next action)
LINK_NEWS = "link_news_on_screen"
# The fragments the last run reran alone: lab sections, or LAB_QUIET (() after a full run)
LAB_RERUN = "lab_rerun"
# What each lab section read of the input on its last run ({key: frozenset of field names}, or None
# when that run did not finish), and the fragment a sidebar move reruns when no section read what it
# changed: it draws nothing.
LAB_READS, LAB_QUIET = "lab_reads", "lab_quiet"
# A rerun the browser asked for without the user acting (a live slider fetching its frames): it keeps
# a link's messages (end_link_news).
NOT_THE_USER = "_not_the_user"
# This full run's sidebar places for the live γ, β and ε (ui/live/sidebar.py draws them after the page)
LIVE_PLACES = "_live_places"
# The page's frame as a function of the sidebar's input (ui.live.sidebar.view), set by each run of it
LIVE_VIEW = "_live_view"
LIVE_RELEASED = "_live_released"  # {key: (value before, value after)} of each live release
SET_BY_APP = "_set_by_app"  # {widget key: (value before, value set)}: see _browser_caught_up
# How the lab spells each link value it rewrote ({key: [(values as typed, text or None)]}): ui.history
LINK_SPELLINGS = "link_spellings"
# The input's fields a keyed sidebar move can change (_moved_lab keeps the others as they are).
MOVABLE = frozenset({"x", "label", "gamma", "beta", "eps"})
_READING: ContextVar[set[str] | None] = ContextVar("lab_reading", default=None)


def eps_text(eps: float) -> str:
    """ε as its slider (and so the URL) writes it: ``1e-07``."""
    return f"{eps:.0e}"


# How a link's value is read, per key: the widget it feeds, with that widget's own options and range.
LINK_KEYS: dict[str, links.LinkKey] = {
    "src": links.LinkKey("input", links.Words(SOURCES, SOURCES[0], "inputs")),
    "preset": links.LinkKey("preset", links.Words(list(ln.PRESETS), next(iter(ln.PRESETS)), "presets")),
    "d": links.LinkKey("d", links.Choice(D_CHOICES, 8, lambda v: str(int(v)), "size")),
    "seed": links.LinkKey("seed", links.Range(0, 9999, 1, 0, "seed")),  # the Seed number_input
    "eps": links.LinkKey("ε", links.Choice(EPS_CHOICES, 1e-5, eps_text, "ε")),
    "gamma": links.LinkKey("γ", links.Range(*GAMMA_BETA_SLIDER, 1.0, "γ")),
    "beta": links.LinkKey("β", links.Range(*GAMMA_BETA_SLIDER, 0.0, "β")),
    "typed": links.LinkKey("numbers", links.Text(DEFAULT_TEXT, MAX_TYPED, "numbers")),
    "affine_mode": links.LinkKey(
        "γ and β", links.Words(AFFINE_MODES, AFFINE_MODES[0], "ways to set γ and β")
    ),
}


def _token_words(s: int) -> list[str]:
    """The Token selectbox's texts for sentence ``s`` (what the URL carries)."""
    rec = recording()
    return [f"{i}: {rec.tokens[s, i]}" for i in rec.real_token_indices(s).tolist()]


def _link_keys(given: dict[str, list[str]]) -> dict[str, links.LinkKey]:
    """:data:`LINK_KEYS`, plus the real-token keys when the link has any (options from the data)."""
    if not any(k in given for k in TOKEN_KEYS):
        return LINK_KEYS
    rec = recording()
    sentences = [str(s) for s in rec.sentences]
    chosen = links.resolve("tok_sentence", given.get("tok_sentence", []), _TOKEN_SENTENCE(sentences))
    s = sentences.index(str(chosen.value)) if given.get("tok_sentence") else 0
    words = _token_words(s)
    sites = [rec.site_label(i) for i in range(rec.n_sites)]
    return LINK_KEYS | {
        "tok_sentence": _TOKEN_SENTENCE(sentences),
        "tok_index": links.LinkKey("token", links.Words(words, words[0], "tokens of that sentence")),
        "tok_site": links.LinkKey("site", links.Words(sites, sites[0], "LayerNorm sites")),
    }


def _TOKEN_SENTENCE(sentences: list[str]) -> links.LinkKey:
    return links.LinkKey("sentence", links.Words(sentences, sentences[0], "sentences"))


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

    def fingerprint(self) -> str:
        """A short text that changes whenever the numbers a page computes from do (a cache's key)."""
        h = hashlib.sha1()
        for a in (self.x, self.gamma, self.beta):
            h.update(np.ascontiguousarray(a, dtype="<f8").tobytes())
        h.update(repr((self.eps, self.affine_mode, self.source)).encode())
        return h.hexdigest()


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
        "Size d (features)",
        D_CHOICES,
        value=8,
        key="d",
        bind="query-params",
        persist_state="session",
        on_change=_rerun_lab_sections,
    )
    c1, c2 = st.columns([3, 2], vertical_alignment="bottom")
    seed = c1.number_input(
        "Seed",
        0,
        9999,
        step=1,
        key="seed",
        bind="query-params",
        persist_state="session",
        on_change=_rerun_lab_sections,
    )  # no value=: its default is min_value 0, and "New draw" sets it through session state
    c2.button(
        "New draw",
        key="reseed",
        help="New random numbers for the random presets (seed + 1; after 9999 comes 0)",
        on_click=lambda: st.session_state.update(seed=(int(st.session_state["seed"]) + 1) % 10000),
    )
    st.caption(ln.PRESETS[name])
    return _preset(name, int(d), int(seed))


def _preset(name: str, d: int, seed: int) -> tuple[np.ndarray, str]:
    """The preset vector and the label the pages show for it."""
    return ln.make_preset(name, d, seed), f"{name}, d = {d}, seed {seed}"


def _typed_input() -> tuple[np.ndarray, str]:
    text = st.text_area(
        "Numbers (commas, spaces or new lines)",
        value=DEFAULT_TEXT,
        key="typed",
        on_change=_browser_caught_up,
        args=("typed",),
        height=110,  # no max_chars: a browser would cut a long paste silently; the parser says what is wrong
        bind="query-params",
        persist_state="session",
        help="Brackets and scientific notation are fine: [1, -2.5, 3e-2]. Commas separate numbers, "
        "so write 1000, not 1,000, and one and a half as 1.5, not 1,5.",
    )
    x = ln.parse_vector_text(text)
    note = ln.typed_text_note(text, x.size)  # "1,5" is two numbers here: said
    if note:
        st.caption(plain(note, MESSAGE_LIMIT))
    return x, "typed vector"


def _table_input() -> tuple[np.ndarray, str]:
    # Text cells: the grid's own number editor rewrites what it cannot read (1e-8 became -18, −3 became
    # 3) before the app sees it, so the grid keeps the user's text and ln.parse_number reads every cell.
    import pandas as pd  # here, not at the top: a first page that shows no table never imports pandas

    seed = st.session_state.get("table_seed")
    cells = ["1", "2", "3", "4"] if seed is None else ln.table_text(seed["x"])
    if seed is None or list(seed["x"]) != cells or not seed.index.equals(pd.RangeIndex(len(cells))):
        # Text cells in rows 0..n-1: a kept table with numbers (older sessions) or with deleted rows
        # (its index would show up as an extra column) starts again from its cells.
        st.session_state["table_seed"] = pd.DataFrame({"x": pd.Series(cells, dtype=object)})
    # Room between the Input box and the grid: the grid's hover toolbar (add row, search, …) floats
    # 44 px above it and covered the Input box's arrow, so a click there added a row. A space, not
    # text: the toolbar would cover the end of a line of help (it did in presentation mode).
    st.space("medium")
    edited = st.data_editor(
        st.session_state["table_seed"],
        key="table",
        num_rows="dynamic",
        width="stretch",
        height=240,
        placeholder="",  # an empty cell looks empty (not "None"); the message names its row
        column_config={
            "x": st.column_config.TextColumn(
                "x", help="One feature per row: a number such as 2.5, −3, .01 or 1e-8"
            )
        },
    )
    st.caption("One feature per row; double-click a cell to edit it.")
    st.session_state["table_last"] = edited  # becomes the starting table if the user comes back
    x = ln.vector_from_table(edited["x"].tolist())
    _share_as_typed(x, "table")
    return x, "table"


def _share_as_typed(x: np.ndarray, what: str) -> None:
    """Offer a table's or a file's numbers as typed numbers: the one kind of vector a link carries."""
    st.button(
        SHARE_LABEL,
        key=f"share_{what}",
        on_click=use_typed,
        args=(", ".join(ln.number_text(v) for v in x),),
        icon=":material/link:",
        help=f"A link carries no {what}. This switches the input to “{SOURCES[1]}” with exactly these "
        "numbers, so the page's address (copy it) reproduces them.",
    )


def use_typed(text: str) -> None:
    """Make ``text`` the lab's input, as typed numbers (a callback: the next run draws it)."""
    state = st.session_state
    state[SET_BY_APP] = {"typed": (state.get("typed"), text), "src": (state.get("src"), SOURCES[1])}
    state["typed"] = text
    state["src"] = SOURCES[1]
    try:  # a text box not drawn yet this session writes its value into the URL only on a later run
        st.query_params["typed"] = text
    except StreamlitAPIException:  # drawn before: bound, and Streamlit writes the new value itself
        pass


def _browser_caught_up(key: str) -> None:
    """``on_change`` of the typed numbers and the Input select after :func:`use_typed` set them.

    The browser updates its copy of a widget the app set only once that run's elements arrive; a
    message sent before (a page link clicked just after a dragged bar's release) carries the value
    from before, and was taken as the student's: the new page showed the old vector while the text
    box showed the new one (7 of 7 scripted switches 0.03-0.15 s after a release). That value is put
    back; any other value is the student's, and ends the watch.
    """
    before, after = st.session_state.get(SET_BY_APP, {}).get(key, (None, None))
    if after is None:
        return
    if st.session_state.get(key) == before:
        st.session_state[key] = after
    else:
        st.session_state[SET_BY_APP].pop(key, None)


def _upload_input() -> tuple[np.ndarray, str]:
    up = st.file_uploader(
        "A .csv (one row or column) or .npy vector", type=["csv", "txt", "npy"], key="upload"
    )
    if up is None:
        kept = st.session_state.get("upload_last")
        if kept is not None:  # the uploader forgets its file when hidden; the lab does not
            st.caption(f"Using **{plain(kept[1])}**, uploaded earlier; upload another file to replace it.")
            for note in st.session_state.get("upload_notes", ()):
                st.caption(plain(note, MESSAGE_LIMIT))  # quotes the file's own text
            _share_as_typed(kept[0], "file")
            return kept[0], f"file {kept[1]}"
        raise ln.InputError("Choose a file: a .csv with one row or one column of numbers, or a .npy vector.")
    read = ln.read_uploaded_file(up.name, up.getvalue())
    st.session_state["upload_last"] = (read.x, up.name)
    st.session_state["upload_notes"] = read.notes
    for note in read.notes:
        st.caption(plain(note, MESSAGE_LIMIT))  # quotes the file's own text (a skipped header)
    _share_as_typed(read.x, "file")
    return read.x, f"file {up.name}"


def _token_input() -> tuple[np.ndarray, str, dict[str, object]]:
    rec = recording()
    s = st.selectbox(
        "Sentence",
        range(rec.n_sentences),
        format_func=lambda i: str(rec.sentences[i]),
        key="tok_sentence",
        bind="query-params",
        persist_state="session",
    )
    real = rec.real_token_indices(int(s)).tolist()
    if st.session_state.get("tok_index") not in real:  # a stale choice from another sentence
        st.session_state["tok_index"] = real[0]
    redraw_when_relabelled("tok_index", [f"{i}: {rec.tokens[s, i]}" for i in real])
    t = st.selectbox(
        "Token",
        real,
        format_func=lambda i: f"{i}: {rec.tokens[s, i]}",
        key="tok_index",
        bind="query-params",
        persist_state="session",
    )
    if t not in real:  # a stale choice from another sentence
        t = real[0]
    site = st.selectbox(
        "LayerNorm site",
        range(rec.n_sites),
        format_func=rec.site_label,
        key="tok_site",
        bind="query-params",
        persist_state="session",
    )
    st.caption(
        "Real hidden state of all-MiniLM-L6-v2 (d = 384) just before this LayerNorm. "
        "Its largest features are several times the typical size: real transformers have such outlier "
        "dimensions."
    )
    extra = {
        "gamma": rec.gamma[site].astype(np.float64),
        "beta": rec.beta[site].astype(np.float64),
        "y": rec.outputs[site, s, t].astype(np.float64),
        "eps": float(rec.eps[site]),
    }
    label = f"'{rec.tokens[s, t]}' in sentence {s + 1}, {rec.site_label(site)}"
    return rec.token_vector(int(s), int(t), int(site)), label, extra


def _keep_table_edits() -> None:
    """The grid is hidden: its last edited table becomes the table it starts from next time.

    The grid's pending edits (row numbers into the old table) are dropped with it, so they can
    never be applied a second time to the table that already holds them.
    """
    st.session_state["table_seed"] = st.session_state.pop("table_last")
    if "table" in st.session_state:
        del st.session_state["table"]


def _read_input(source: str) -> tuple[np.ndarray, str, str | None, dict[str, object]]:
    extra: dict[str, object] = {}
    if source != "Edit a table" and "table_last" in st.session_state:
        _keep_table_edits()
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
        st.error(plain(exc, MESSAGE_LIMIT), icon="⚠️")  # messages quote what the user typed
        x, label, problem = _fallback(str(exc))
        return x, label, problem, {}
    st.session_state["last_good"] = (x, label)
    return x, label, None, extra


def affine_table(d: int, *, as_text: bool = False) -> pd.DataFrame:
    """The per-feature γ, β for vectors of size ``d`` (starts at γ = 1, β = 0; kept per d).

    Kept as the text the user wrote in the editor on Scale & shift (``as_text=True`` gives it,
    one str per cell); by default its numbers, read by ``ln.parse_number`` (float columns).
    """
    import pandas as pd

    tables = st.session_state.setdefault("affine_tables", {})
    if d not in tables:
        tables[d] = pd.DataFrame({"γ": ["1"] * d, "β": ["0"] * d}, dtype=object)
    table: pd.DataFrame = tables[d]
    if as_text:  # rows numbered 1..d, as the messages ("Row 4 of the β column") and x_i count them
        cells = {c: ln.table_text(table[c]) for c in ("γ", "β")}
        return pd.DataFrame(cells, index=pd.RangeIndex(1, d + 1), dtype=object)
    return pd.DataFrame({c: ln.vector_from_table(table[c], f"{c} column") for c in ("γ", "β")})


def set_affine_table(d: int, table: pd.DataFrame) -> None:
    """Keep the user's per-feature γ, β for size ``d`` as written; InputError (nothing kept) if invalid.

    The input in Session State takes them at once when it uses this table: the edit reran only Scale
    & shift's lab section, and that section's next run (a later edit that is invalid, a sidebar move)
    must start from these values, not from those of the last full run.
    """
    gamma, beta = (ln.vector_from_table(table[c], f"{c} column") for c in ("γ", "β"))
    st.session_state.setdefault("affine_tables", {})[d] = table[["γ", "β"]].copy()
    lab = st.session_state.get("lab_input")
    if isinstance(lab, LabInput) and lab.affine_mode == AFFINE_MODES[1] and lab.d == d:
        st.session_state["lab_input"] = replace(lab, gamma=gamma, beta=beta)


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
    if (st.session_state.get(f"{key}_live") or {}).get("value") is not None:
        return
    before, after = st.session_state.get(LIVE_RELEASED, {}).get(key, (None, None))
    if after is not None and st.session_state.get(key) == before:
        st.session_state[key] = after
        return
    if on_change is not None:
        on_change(*args)


def _live_place(key: str) -> None:
    """Keep a place in the sidebar for the live slider of ``key`` (drawn after the page, which gives
    its frames: ui/live/sidebar.py)."""
    # A container, not st.empty: an empty element replaced by a block later in the run made the
    # browser mount the slider anew on every run (a drag under way lost its element).
    st.session_state.setdefault(LIVE_PLACES, {})[key] = st.container()


def _affine(
    mode: str, x: np.ndarray, eps: float, extra: dict[str, object]
) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Draw the shared γ and β sliders (when ``mode`` uses them) and return γ, β and the sidebar's notes."""
    g, b = 1.0, 0.0
    if mode == AFFINE_MODES[0]:
        lo, hi, step = GAMMA_BETA_SLIDER
        with st.container(key="live_state_gamma"):  # kept for the link; the live slider shows it
            g = st.slider(
                "γ (scale, every feature)",
                lo,
                hi,
                1.0,
                step,
                key="gamma",
                bind="query-params",
                persist_state="session",
                on_change=kept_moved,
                args=("gamma", _rerun_lab_sections),
            )
        _live_place("gamma")
        with st.container(key="live_state_beta"):
            b = st.slider(
                "β (shift, every feature)",
                lo,
                hi,
                0.0,
                step,
                key="beta",
                bind="query-params",
                persist_state="session",
                on_change=kept_moved,
                args=("beta", _rerun_lab_sections),
            )
        _live_place("beta")
    return _affine_values(mode, x, eps, extra, float(g), float(b))


def _affine_values(
    mode: str, x: np.ndarray, eps: float, extra: dict[str, object], g: float, b: float
) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """γ, β (each of ``x``'s size) and the sidebar's notes for γ/β mode ``mode``.

    ``g`` and ``b`` are the shared sliders' values (used by the first mode only); ``extra`` holds a
    MiniLM token's learned ``gamma`` and ``beta`` when the input is one.
    """
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
    return np.full(d, g), np.full(d, b), notes


def lab_at(
    lab: LabInput, *, eps: float | None = None, g: float | None = None, b: float | None = None
) -> LabInput:
    """``lab`` with the sidebar's ε, shared γ or shared β moved (what a live sidebar slider's frame shows).

    γ and β follow the γ/β mode as the sidebar makes them: the shared sliders' values, or σ and μ for
    "Undo" (which depend on ε); a per-feature table and a MiniLM token's learned values stay.
    """
    eps = lab.eps if eps is None else eps
    gamma, beta = lab.gamma, lab.beta
    if lab.affine_mode == AFFINE_MODES[0]:
        d = lab.x.size
        gamma = np.full(d, float(gamma[0]) if g is None else g)
        beta = np.full(d, float(beta[0]) if b is None else b)
    elif lab.affine_mode == AFFINE_MODES[2]:
        gamma, beta, _ = _affine_values(lab.affine_mode, lab.x, eps, {}, 1.0, 0.0)
    return replace(lab, eps=eps, gamma=gamma, beta=beta)


def lab_typed(lab: LabInput, x: np.ndarray) -> LabInput:
    """``lab`` once ``x`` is its typed input (what a dragged bar's release makes it): γ and β follow
    the γ/β mode as the sidebar makes them for ``x`` (σ and μ for "Undo"; a MiniLM token's learned
    values are gone with the token)."""
    gamma, beta, notes = _affine_values(
        lab.affine_mode, x, lab.eps, {}, float(lab.gamma[0]), float(lab.beta[0])
    )
    return replace(
        lab,
        x=x,
        label="typed vector",
        source=SOURCES[1],
        gamma=gamma,
        beta=beta,
        problem=None,
        recorded_y=None,
        model_eps=None,
        notes=notes,
    )


@dataclass(frozen=True)
class LinkReport:
    """What the sidebar tells the user about the link a session started from (shown once)."""

    notes: tuple[str, ...] = ()  # values the lab had to change, each with the value it uses
    unused: tuple[str, ...] = ()  # known keys the chosen input does not use
    unknown: str | None = None  # keys that are no setting of the lab
    elsewhere: str | None = None  # keys of another page's controls (not used on this page)
    not_carried: tuple[str, ...] = ()  # what the chosen input needs that no link can carry


def _read_link(page: str = "", titles: Mapping[str, str] | None = None) -> LinkReport:
    """Resolve the link's settings on a session's first run, before any widget exists.

    Every known key is read by ``ui.links.resolve`` (numbers as numbers, within rounding); when
    the URL's text is not the canonical text of the value the lab uses, the URL is rewritten and
    the script reruns, so each bound widget seeds itself from the canonical text. Keys the chosen
    input does not use are resolved too (they count once the user switches to it) but only noted.
    A key of another page's control (not of ``page``, the url path of the page opened) is named
    with the page it belongs to (``titles``: url path to title), left in the URL like an unknown key,
    and kept in the session: :func:`link_control` uses it when the student opens that page.
    """

    given = {k: st.query_params.get_all(k) for k in st.query_params}
    keys = _link_keys(given)
    resolved = {k: links.resolve(k, v, keys[k]) for k, v in given.items() if k in keys}
    source = resolved["src"].value if "src" in resolved else SOURCES[0]
    applies = {"src", "eps", "affine_mode"} | {
        SOURCES[0]: {"preset", "d", "seed"},
        SOURCES[1]: {"typed"},
        SOURCES[4]: set(TOKEN_KEYS),
    }.get(str(source), set())
    mode = resolved["affine_mode"].value if "affine_mode" in resolved else AFFINE_MODES[0]
    if mode == AFFINE_MODES[0]:
        applies |= {"gamma", "beta"}
    not_carried = tuple(note for note in (NOT_CARRIED.get(str(source)), NOT_CARRIED.get(str(mode))) if note)
    elsewhere = {
        k: v
        for k, v in given.items()
        if k not in keys and k in ALL_PAGE_KEYS and k not in PAGE_KEYS.get(page, ()) + PAGE_KEYS["app"]
    }
    st.session_state["link_elsewhere"] = elsewhere  # read by link_control on the page that has them
    report = LinkReport(
        # Every changed value is said, used now or not: one not used yet (γ under per-feature γ, β)
        # would otherwise be clamped in silence when the student switches to what uses it.
        notes=tuple(r.note for r in resolved.values() if r.note),
        unused=tuple(k for k in resolved if k not in applies),
        unknown=links.unknown_keys_note(
            {k: v for k, v in given.items() if k not in keys and k not in ALL_PAGE_KEYS}
        ),
        elsewhere=links.other_pages_keys_note(
            elsewhere,
            {
                k: [(titles or {}).get(p, p.replace("_", " ")) for p, ks in PAGE_KEYS.items() if k in ks]
                for k in elsewhere
            },
        ),
        not_carried=not_carried,
    )
    canonical = {  # in the link's order; unknown keys stay as they are
        k: v if k not in resolved else [resolved[k].text]
        for k, v in given.items()
        if k not in resolved or resolved[k].text is not None
    }
    st.session_state["link_report"] = report
    for k, r in resolved.items():
        _remember_spelling(k, given[k], r.text)
    if canonical != given:
        st.query_params.from_dict(canonical)  # no widget is bound yet on a session's first run
        _rerun_for_link()
    return report


def _remember_spelling(key: str, typed: list[str], text: str | None) -> None:
    """Keep how the lab spells a link's value it rewrote (``inv_c=-1`` is ``inv_c=−1``), for the browser.

    On a session's first run Streamlit writes the lab's spelling as a new history entry, so the link
    as typed stays one entry back; on Back or Forward Streamlit seeds each bound widget from the
    entry's text alone, without the lab's rules. ``ui.history`` gives such an entry these
    spellings before Streamlit reads it. ``text`` None: the lab drops the key (its default).
    """
    if typed == ([text] if text is not None else []):
        return
    rules: dict[str, list[tuple[list[str], str | None]]] = st.session_state.setdefault(LINK_SPELLINGS, {})
    if (typed, text) not in rules.setdefault(key, []):
        rules[key].append((typed, text))


def _rerun_for_link() -> None:
    """Rerun so bound widgets seed from the canonical URL; the link's messages survive this rerun."""
    st.session_state["link_rerun"] = True
    st.rerun()


def _report_link(report: LinkReport) -> None:
    """Say which link values the lab changed (and to what), which it ignored, which it does not know."""
    if report.notes or report.unused or report.not_carried or report.elsewhere or report.unknown:
        st.session_state[LINK_NEWS] = True
    if report.notes:
        st.warning("\n\n".join(report.notes), icon=":material/link:")
    if report.unused:
        keys = ", ".join(f"`{k}`" for k in report.unused)  # the lab's own key names: safe as code
        one = len(report.unused) == 1
        st.info(
            f"The link's {keys} {'is' if one else 'are'} not used by the chosen input and γ, β setting "
            f"(kept for when you switch to a setting that uses {'it' if one else 'them'}).",
            icon=":material/link:",
        )
    for note in report.not_carried:
        st.info(note, icon=":material/link:")
    if report.elsewhere:
        st.info(report.elsewhere, icon=":material/link:")
    if report.unknown:
        st.info(report.unknown, icon=":material/link:")


def _fragment_only_run() -> bool:
    """Is this run a fragment's own rerun (a control inside an ``st.fragment`` moved), not a full run?

    Such a run starts from the user's action (the lab's fragments have no timers, and a link's rerun
    is a full one), but it skips ``app.py`` and so :func:`sidebar`, where a full run clears the
    link's messages.
    """
    from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

    ctx = get_script_run_ctx(suppress_warning=True)
    return bool(ctx is not None and ctx.fragment_ids_this_run)


def redraw_when_relabelled(key: str, labels: list[str]) -> None:
    """Make a choice widget show its option's new text when the texts changed (call before the widget).

    A selectbox over positions whose texts come from data (``"3: sat"``, the tokens of the chosen
    sentence) keeps its value when the data changes, but Streamlit 1.67's browser side keeps
    showing the old text, writes it to the URL, and on the next rerun sends that text back; it
    matches no option any more, so the widget falls back to its default: the page showed token
    3's old text, then silently jumped to token 0 (found in the browser; Streamlit pull request
    13788). Setting the widget's value through Session State makes the browser redraw it. The
    texts shown last are kept per key under ``_shown_<key>``.
    """
    seen = f"_shown_{key}"
    before = st.session_state.get(seen)
    st.session_state[seen] = labels
    if before is not None and before != labels and key in st.session_state:
        st.session_state[key] = st.session_state[key]


def link_control(
    key: str,
    widget: links.Choice | links.Range | links.Words | links.Flag | links.Text,
    name: str | None = None,
    where: Any = st,
) -> None:
    """Read a page's own URL-bound control from the link: call it right before the widget.

    The sidebar's keys are read by :func:`_read_link`; a page that binds its own widget
    (``bind="query-params"``) describes it here in one line, with the widget's own options or
    range and the name the page gives it, e.g.
    ``link_control("geo_gamma1", links.Range(-3, 3, 0.05, 1.0, "γ₁"), "γ₁")`` (for a radio,
    selectbox or select_slider with ``format_func``: ``links.Words`` over the *formatted*
    texts, which is what the URL carries). The first time this session meets ``key`` it resolves the link's
    value like the sidebar's, writes the canonical text into the URL and reruns, so the widget
    seeds itself from it; a warning above the widget says which value is used until the
    user's next action. Needs :func:`sidebar` to run first (``app.py`` does).
    """
    notes: dict[str, str] = st.session_state.setdefault("link_notes", {})
    checked: set[str] = st.session_state.setdefault("link_checked", set())
    values = st.query_params.get_all(key) if key not in checked else []
    # The session's link was opened on another page: its value for this control counts here, once.
    carried = st.session_state.get("link_elsewhere", {}).pop(key, []) if key not in checked else []
    checked.add(key)
    in_address, values = bool(values), values or carried
    if values:
        resolved = links.resolve(key, values, links.LinkKey(name or key, widget))
        if resolved.note:
            notes[key] = resolved.note
        if in_address:  # a history entry with this text exists and may be revisited
            _remember_spelling(key, values, resolved.text)
        if ([resolved.text] if resolved.text is not None else []) != st.query_params.get_all(key):
            try:
                if resolved.text is None:
                    del st.query_params[key]
                else:
                    st.query_params[key] = resolved.text
            except StreamlitAPIException:  # the widget is bound already: its own value counts now
                notes.pop(key, None)
                return
            _rerun_for_link()  # before the widget exists: it seeds itself from the canonical text
    if key in notes:  # shown until the user's next action, like the sidebar's link messages
        where.warning(notes[key], icon=":material/link:")  # right above the control (its column)
        st.session_state[LINK_NEWS] = True


def end_link_news() -> None:
    """In a fragment's own rerun (the user acted): take a link's messages off the whole page.

    A link's messages stay until the user's next action. A full run clears them (:func:`sidebar`),
    but a fragment's rerun redraws only its own section: a message in another section or in the
    sidebar stayed on screen (a browser QA pass: Training vs inference's n note after a move of the
    redraws, Learning rate's init-scale note after a move of the curves' learning rate). So the
    first action after a run that drew any reruns the whole app instead, without them; later
    actions rerun their fragment alone. Every fragment of the app calls this first on each run
    (:func:`page_fragment`, which :func:`lab_section` uses too). A full run: nothing.
    """
    state = st.session_state
    if state.pop(NOT_THE_USER, False) or not _fragment_only_run():
        return
    state.get("link_notes", {}).clear()
    if state.pop(LINK_NEWS, False):
        state.pop("link_report", None)
        st.rerun(scope="app")


F = TypeVar("F", bound=Callable[..., Any])
P = ParamSpec("P")


@overload
def page_fragment(func: F, *, key: str | None = None) -> F: ...
@overload
def page_fragment(func: None = None, *, key: str | None = None) -> Callable[[F], F]: ...
def page_fragment(func: F | None = None, *, key: str | None = None) -> F | Callable[[F], F]:
    """Decorator: ``st.fragment`` for a page's section, whose own reruns take a link's messages away.

    Use it wherever a page (or a ``ui`` helper) would write ``@st.fragment`` or
    ``@st.fragment(key=...)``; ``tests/test_page_fragments.py`` checks that nothing else uses
    ``st.fragment``. Every run of the section first calls :func:`end_link_news`: a fragment's own
    rerun is the user's action (a slider, a radio, a button, an answer), whichever of its widgets it
    was, so a link's messages elsewhere on the page go with it. Calling it only from
    :func:`link_control` left that to fragments whose reruns happen to draw one.

    Parameters
    ----------
    func : callable, optional
        The section; called like the function it decorates (a fragment keeps its arguments for
        its own reruns).
    key : str, optional
        A keyed fragment (Streamlit 1.67's ``st.fragment(key=...)``), which ``st.rerun([key])``
        and :func:`rerun_fragments` can rerun by name. Unique in the app.

    Returns
    -------
    callable
        The fragment, or a decorator when ``func`` is omitted.

    Source: ``st.fragment`` (Streamlit 1.67); the fault it closes was found in the browser
    (stop 25's link messages).
    """

    def wrap(body: F) -> F:
        drawn_on: dict[str, str | None] = {}

        @functools.wraps(body)
        def section(*args: Any, **kwargs: Any) -> Any:
            from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

            ctx = get_script_run_ctx(suppress_warning=True)
            here = ctx.page_script_hash if ctx is not None else None
            if _fragment_only_run():
                # A rerun of this section asked for by its page, arriving after a switch to another
                # page (a component's message sent just before a page link's): Streamlit would run it
                # on the new page, whose tree has no place for it ("Bad delta path index"; the app
                # went blank). The new page is drawn whole instead.
                if drawn_on.get("page") not in (None, here):
                    st.rerun(scope="app")
            else:
                drawn_on["page"] = here
            end_link_news()
            return body(*args, **kwargs)

        return cast(F, st.fragment(section, key=key))

    return wrap if func is None else wrap(func)


def say_unread_link_keys(page: str, where: Any = st) -> None:
    """After a page's full run from a link: say which of ``page``'s link keys no control read.

    :func:`link_control` reads a key when its control is drawn; a view that stops early (a tensor
    too large to build) or does not show a control (γ₃ with d = 2) would otherwise leave the link's
    value unread and unsaid. Said with the link's other news, until the user's next action.
    """

    if not isinstance(st.session_state.get("link_report"), LinkReport):  # no fresh link: nothing to say
        return
    checked: set[str] = st.session_state.get("link_checked", set())
    given = {k: st.query_params.get_all(k) for k in PAGE_KEYS.get(page, ()) if k not in checked}
    note = links.unread_keys_note({k: v for k, v in given.items() if v})
    if note:
        where.info(note, icon=":material/link:")
        st.session_state[LINK_NEWS] = True


def sidebar(
    *, own_data: bool = False, page: str = "", titles: Mapping[str, str] | None = None
) -> LabInput | None:
    """Draw the shared controls in the sidebar and return the validated input.

    ``page`` is the url path of the page being opened and ``titles`` every page's title by url path:
    a link that sets another page's control says so, by that page's title (see :func:`_read_link`).

    ``own_data`` says the current page builds its own data: the sidebar then shows only what acts
    on that page (the link's messages and a line saying the vector is kept for the step pages) and
    returns None. Every vector control keeps its value meanwhile (``persist_state="session"``, and
    the table's last edits are kept), so the step pages find the vector as the student left it.
    """
    st.session_state[LAB_SECTIONS] = ()  # until this run finishes: a sidebar move reruns the whole page
    st.session_state[LAB_RERUN] = ()  # this run is a full one
    st.session_state[LINK_NEWS] = False  # this run draws the link's messages, if it still has any
    st.session_state[_LAB_SECTIONS_NOW] = []
    st.session_state[LIVE_PLACES] = {}
    st.session_state[LIVE_VIEW] = None  # until the page says what the sidebar's sliders change
    if "url_checked" not in st.session_state:
        st.session_state["url_checked"] = True
        _read_link(page, titles)
    elif not (st.session_state.pop("link_rerun", False) | st.session_state.pop(NOT_THE_USER, False)):
        # the user acted (not a link's own rerun, nor the browser asking for a live slider's frames):
        # the link's news is old
        st.session_state.pop("link_report", None)
        st.session_state.pop("link_notes", None)
    report = st.session_state.get("link_report")
    if own_data:
        if "table_last" in st.session_state:  # the grid is not drawn here: keep the user's edits
            _keep_table_edits()
        with st.sidebar:
            st.caption(
                "This page makes its own data, so the vector controls are hidden here. "
                "Your vector, γ, β and ε are kept for the step-by-step pages."
            )
            if isinstance(report, LinkReport):
                _report_link(report)
        return None
    lab = _vector_controls()
    if isinstance(report, LinkReport):
        with st.sidebar:
            _report_link(report)
    return lab


def _vector_controls() -> LabInput:
    """The sidebar's vector and parameter controls, and the validated input they give."""
    with st.sidebar:
        st.subheader("Your vector")
        source = st.selectbox(
            "Input",
            SOURCES,
            key="src",
            bind="query-params",
            persist_state="session",
            on_change=_browser_caught_up,
            args=("src",),
        )
        x, label, problem, extra = _read_input(source)
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
                format_func=eps_text,
                help=EPS_HELP,
                on_change=kept_moved,
                args=("eps", _rerun_lab_sections),
            )
        _live_place("eps")
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
    return lab


def _moved_lab(lab: LabInput) -> LabInput | None:
    """The input after a move of the sidebar's ε, γ, β, d or seed, when nothing else in the sidebar changes.

    None when the sidebar itself would show something new: its input has a problem (the sidebar
    shows it), the input is a MiniLM token, the notes under γ and β change (a per-feature table
    for another d), or the preset cannot be made.
    """
    state = st.session_state
    if lab.problem is not None or lab.source not in SOURCES[:4] or state.get("src", lab.source) != lab.source:
        return None
    x, label = lab.x, lab.label
    if lab.source == SOURCES[0]:
        try:
            x, label = _preset(str(state["preset"]), int(state["d"]), int(state["seed"]))
        except (KeyError, ValueError, MemoryError):
            return None
    eps = float(state["eps"])
    g, b = float(state.get("gamma", 1.0)), float(state.get("beta", 0.0))
    gamma, beta, notes = _affine_values(lab.affine_mode, x, eps, {}, g, b)
    if notes != lab.notes:
        return None
    if lab.source == SOURCES[0]:
        state["last_good"] = (x, label)
    return replace(lab, x=x, label=label, gamma=gamma, beta=beta, eps=eps)


def _rerun_lab_sections() -> None:
    """``on_change`` of the sidebar's ε, γ, β, d and seed: rerun only the page's :func:`lab_section` parts.

    A full rerun sends the whole page again (95 elements on Invariances) and the browser redraws
    all of it; the page's own text, the sidebar and the navigation do not change with these
    controls. The keyed rerun happens only when it shows everything a full rerun would: the
    page's last full run finished and drew its input only inside its lab sections
    (:func:`lab_sections_drawn`), no link message is on screen (a full run clears them), and the
    sidebar shows nothing new (:func:`_moved_lab`). Otherwise the callback returns and the whole
    page reruns, as before. ``st.rerun(keys)`` from a callback is Streamlit 1.67's keyed fragment
    rerun; Session State's ``LAB_RERUN`` entry records which sections it reran.
    """
    state = st.session_state
    keys = state.get(LAB_SECTIONS)
    lab = state.get("lab_input")
    state[LAB_RERUN] = ()
    if not keys or not isinstance(lab, LabInput) or state.get("link_report") or state.get("link_notes"):
        return
    moved = _moved_lab(lab)
    if moved is None:
        return
    state["lab_input"] = moved
    changed = _changed_fields(lab, moved)
    reads = state.get(LAB_READS, {})
    # A section whose last run read none of what changed would draw exactly what it shows: it stays.
    # (A section's own controls rerun it, and every run records what it read, so this holds for the
    # view it shows; a run that did not finish recorded None.)
    keys = tuple(k for k in keys if reads.get(k) is None or reads[k] & changed) or (LAB_QUIET,)
    state[LAB_RERUN] = keys
    st.rerun(list(keys))


def rerun_fragments(*keys: str) -> None:
    """Widget callback: rerun only the named fragments (in page order), not the one the widget is in.

    For a control whose value several of a page's fragments read (``on_change=rerun_fragments,
    args=(...)``): Streamlit 1.67's keyed rerun from a callback, which replaces the interaction's
    default rerun of the widget's own fragment. Session State's ``LAB_RERUN`` records the keys, as
    for the sidebar's moves (``tests/conftest.py`` reads it).
    """
    st.session_state[LAB_RERUN] = keys
    st.rerun(list(keys))


def _changed_fields(old: LabInput, new: LabInput) -> frozenset[str]:
    """The fields of :data:`MOVABLE` whose values differ between ``old`` and ``new`` (arrays bit for bit)."""

    def same(a: object, b: object) -> bool:
        if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
            a, b = np.asarray(a), np.asarray(b)
            return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()
        return a == b

    return frozenset(f for f in MOVABLE if not same(getattr(old, f), getattr(new, f)))


class _SectionInput(LabInput):
    """The input as a lab section's body gets it: it notes which of :data:`MOVABLE` the body reads.

    A :class:`LabInput` in every way (``replace``, ``isinstance``); ``lab.d`` reads ``x``.
    """

    def __getattribute__(self, name: str) -> Any:
        if name in MOVABLE:
            reading = _READING.get()
            if reading is not None:
                reading.add(name)
        return super().__getattribute__(name)


def reads_everything() -> None:
    """Say that the lab section running now depends on the whole sidebar (e.g. it shows the page's link).

    Outside a lab section's run it does nothing.
    """
    reading = _READING.get()
    if reading is not None:
        reading.update(MOVABLE)


def _run_reading(key: str, body: Callable[..., None], lab: LabInput, *args: Any, **kwargs: Any) -> None:
    """Run a section's body on ``lab`` (and its other arguments) and keep, in Session State, what it read.

    What it read is None when the body stopped (an exception, ``st.stop``, a rerun).
    """
    reads: dict[str, frozenset[str] | None] = st.session_state.setdefault(LAB_READS, {})
    reading: set[str] = set()
    token = _READING.set(reading)
    reads[key] = None
    try:
        body(_SectionInput(**{f.name: getattr(lab, f.name) for f in fields(LabInput)}), *args, **kwargs)
        reads[key] = frozenset(reading)
    finally:
        _READING.reset(token)


def lab_section(key: str) -> Callable[[Callable[Concatenate[LabInput, P], None]], Callable[P, None]]:
    """Decorator: a page section that draws the sidebar's input, a fragment the sidebar can rerun alone.

    ``@lab_section("inv_scale")`` over ``def section(lab: LabInput) -> None`` gives a function of no
    arguments that the page calls once, where the section goes. The section is an
    ``st.fragment(key=key)`` (made by :func:`page_fragment`): its own controls rerun it alone, and so
    do the sidebar's ε, γ, β, d and seed (:func:`_rerun_lab_sections`), since every run of it reads
    the input from Session State rather than from the arguments of the page's last full run. Each
    run records which of the input's :data:`MOVABLE` fields the body read (:class:`_SectionInput`);
    a sidebar move that changes none of them leaves the section as it is. A body that depends on the
    sidebar in another way (the page's link) calls :func:`reads_everything`. A page that draws its
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
            lab = st.session_state.get("lab_input")
            _run_reading(key, body, lab if isinstance(lab, LabInput) else lab_input(), *args, **kwargs)

        def call(*args: P.args, **kwargs: P.kwargs) -> None:
            drawn = st.session_state.get(_LAB_SECTIONS_NOW)
            if isinstance(drawn, list):
                drawn.append(key)
            section(*args, **kwargs)

        return call

    return wrap


def lab_sections_drawn() -> None:
    """End of a full run (``app.py``, after the page): the lab sections it drew can now be rerun alone."""
    drawn = st.session_state.pop(_LAB_SECTIONS_NOW, None)
    st.session_state[LAB_SECTIONS] = tuple(drawn) if drawn else ()
    if drawn:
        _quiet()


@page_fragment(key=LAB_QUIET)
def _quiet() -> None:
    """Draws nothing: a sidebar move that no lab section read reruns this alone (a rerun needs a key)."""


def lab_input() -> LabInput:
    """The input the sidebar resolved on this run (pages call this)."""
    ensure_app_shell()
    lab = st.session_state.get("lab_input")
    if not isinstance(lab, LabInput):
        lab = _vector_controls()
    if lab.problem:
        shown = plain(lab.label, LABEL_LIMIT)  # a file name or a token: never Markdown
        st.warning(f"Your input has a problem (see the sidebar), so the pages show: {shown}.", icon="⚠️")
    return lab
