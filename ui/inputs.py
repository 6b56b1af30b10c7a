"""The sidebar's five inputs (a preset, typed numbers, a table, a file, a real MiniLM token): each
draws its widgets and gives the vector it reads, or a clear message and the last valid vector.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np
import streamlit as st
from streamlit.errors import StreamlitAPIException

import layernorm as ln
from ui import session
from ui.linking import redraw_when_relabelled
from ui.minilm import recording
from ui.settings import D_CHOICES, DEFAULT_TEXT, SHARE_LABEL, SOURCES, Token
from ui.text import MESSAGE_LIMIT, plain


def _fallback(problem: str) -> tuple[np.ndarray, str, str]:
    """The last good vector (or [1, 2, 3, 4]) when the current input has a problem."""
    last = session.lab.last_good.get()
    if last is not None:
        return last[0], last[1] + " (last valid input)", problem
    return np.array([1.0, 2.0, 3.0, 4.0]), "[1, 2, 3, 4] (default)", problem


def _preset_input(on_move: Callable[[], None]) -> tuple[np.ndarray, str]:
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
        on_change=on_move,
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
        on_change=on_move,
    )  # no value=: its default is min_value 0, and "New draw" sets it through session state
    c2.button(
        "New draw",
        key="reseed",
        help="New random numbers for the random presets (seed + 1; after 9999 comes 0)",
        on_click=_next_seed,
    )
    st.caption(ln.PRESETS[name])
    return preset(name, int(d), int(seed))


def _next_seed() -> None:
    """``on_click`` of New draw: the seed's next value (after 9999 comes 0)."""
    session.widgets.set("seed", (int(session.widgets.get("seed")) + 1) % 10000)


@functools.lru_cache(maxsize=64)
def preset(name: str, d: int, seed: int) -> tuple[np.ndarray, str]:
    """The preset vector (read-only: made once per process for every session that draws it, as a
    whole class does) and the label the pages show for it."""
    x = ln.make_preset(name, d, seed)
    x.flags.writeable = False
    return x, f"{name}, d = {d}, seed {seed}"


def _typed_input() -> tuple[np.ndarray, str]:
    text = st.text_area(
        "Numbers (commas, spaces or new lines)",
        value=DEFAULT_TEXT,
        key="typed",
        on_change=browser_caught_up,
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

    seed = session.lab.table_seed.get()
    cells = ["1", "2", "3", "4"] if seed is None else ln.table_text(seed["x"])
    if seed is None or list(seed["x"]) != cells or not seed.index.equals(pd.RangeIndex(len(cells))):
        # Text cells in rows 0..n-1: a kept table with numbers (older sessions) or with deleted rows
        # (its index would show up as an extra column) starts again from its cells.
        session.lab.table_seed.set(pd.DataFrame({"x": pd.Series(cells, dtype=object)}))
    # Room between the Input box and the grid: the grid's hover toolbar (add row, search, …) floats
    # 44 px above it and covered the Input box's arrow, so a click there added a row. A space, not
    # text: the toolbar would cover the end of a line of help (it did in presentation mode).
    st.space("medium")
    edited = st.data_editor(
        session.lab.table_seed.get(),
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
    session.lab.table_last.set(edited)  # becomes the starting table if the user comes back
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


INPUT_SETS_KEY = "input_sets"


def use_typed(text: str) -> None:
    """Make ``text`` the lab's input, as typed numbers (a callback: the next run draws it)."""
    widgets = session.widgets
    session.live.input_sets.set(session.live.input_sets.get() + 1)
    session.live.set_by_app.set(
        {"typed": (widgets.get("typed"), text), "src": (widgets.get("src"), SOURCES[1])}
    )
    widgets.update(typed=text, src=SOURCES[1])
    try:  # a text box not drawn yet this session writes its value into the URL only on a later run
        st.query_params["typed"] = text
    except StreamlitAPIException:  # drawn before: bound, and Streamlit writes the new value itself
        pass


def input_sets_seen() -> None:
    """A hidden control holding how many times the app set the input (:func:`use_typed`), drawn beside
    the Input box on every run: each message from the browser carries its copy, so a message sent
    before the browser drew the latest set is known by its smaller number."""
    with st.container(key="input_sets_box"):
        st.html("<style>.st-key-input_sets_box { display: none; }</style>")
        sets = session.live.input_sets.get()
        if session.widgets.get(INPUT_SETS_KEY) != sets:
            session.widgets.set(INPUT_SETS_KEY, sets)
        st.number_input("Input sets", min_value=0, key=INPUT_SETS_KEY, label_visibility="collapsed")


def browser_caught_up(key: str) -> None:
    """``on_change`` of the typed numbers and the Input select after :func:`use_typed` set them.

    The browser updates its copy of a widget the app set only once that run's elements arrive; a
    message sent before (a page link clicked just after a dragged bar's release) carries the value
    from before, and was taken as the student's: the new page showed the old vector while the text
    box showed the new one (7 of 7 scripted switches 0.03-0.15 s after a release; later, under load).
    Such a message carries an older count of the app's sets (:func:`input_sets_seen`): its value is
    put back. A message from a browser that has drawn the set is the student's, whatever its value
    (choosing Preset again after a bar's drag), and ends the watch.
    """
    set_by_app = session.live.set_by_app.get()
    before, after = set_by_app.get(key, (None, None))
    if after is None:
        return
    seen = session.widgets.get(INPUT_SETS_KEY)
    stale = seen is not None and seen < session.live.input_sets.get()
    if stale and session.widgets.get(key) == before:
        session.widgets.set(key, after)
    else:
        set_by_app.pop(key, None)


def _upload_input() -> tuple[np.ndarray, str]:
    up = st.file_uploader(
        "A .csv (one row or column) or .npy vector", type=["csv", "txt", "npy"], key="upload"
    )
    if up is None:
        kept = session.lab.upload_last.get()
        if kept is not None:  # the uploader forgets its file when hidden; the lab does not
            st.caption(f"Using **{plain(kept[1])}**, uploaded earlier; upload another file to replace it.")
            for note in session.lab.upload_notes.get():
                st.caption(plain(note, MESSAGE_LIMIT))  # quotes the file's own text
            _share_as_typed(kept[0], "file")
            return kept[0], f"file {kept[1]}"
        raise ln.InputError("Choose a file: a .csv with one row or one column of numbers, or a .npy vector.")
    read = ln.read_uploaded_file(up.name, up.getvalue())
    session.lab.upload_last.set((read.x, up.name))
    session.lab.upload_notes.set(read.notes)
    for note in read.notes:
        st.caption(plain(note, MESSAGE_LIMIT))  # quotes the file's own text (a skipped header)
    _share_as_typed(read.x, "file")
    return read.x, f"file {up.name}"


def _token_input() -> tuple[np.ndarray, str, Token]:
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
    if session.widgets.get("tok_index") not in real:  # a stale choice from another sentence
        session.widgets.set("tok_index", real[0])
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
    token = Token(
        gamma=rec.gamma[site].astype(np.float64),
        beta=rec.beta[site].astype(np.float64),
        y=rec.outputs[site, s, t].astype(np.float64),
        eps=float(rec.eps[site]),
    )
    label = f"'{rec.tokens[s, t]}' in sentence {s + 1}, {rec.site_label(site)}"
    return rec.token_vector(int(s), int(t), int(site)), label, token


def keep_table_edits() -> None:
    """The grid is hidden: its last edited table becomes the table it starts from next time.

    The grid's pending edits (row numbers into the old table) are dropped with it, so they can
    never be applied a second time to the table that already holds them.
    """
    session.lab.table_seed.set(session.lab.table_last.pop())
    session.widgets.clear("table")


def read_input(source: str, on_move: Callable[[], None]) -> tuple[np.ndarray, str, str | None, Token | None]:
    """The chosen input's vector and label, its problem (then the vector is the last valid one), and a
    real token's learned values; ``on_move`` is the callback of the preset's size and seed."""
    token: Token | None = None
    if source != "Edit a table" and session.lab.table_last.present():
        keep_table_edits()
    try:
        if source == "Preset":
            x, label = _preset_input(on_move)
        elif source == "Type numbers":
            x, label = _typed_input()
        elif source == "Edit a table":
            x, label = _table_input()
        elif source == "Upload a file":
            x, label = _upload_input()
        else:
            x, label, token = _token_input()
    except (ValueError, MemoryError) as exc:  # InputError, the core's ValueErrors; never a traceback
        st.error(plain(exc, MESSAGE_LIMIT), icon="⚠️")  # messages quote what the user typed
        x, label, problem = _fallback(str(exc))
        return x, label, problem, None
    session.lab.last_good.set((x, label))
    return x, label, None, token
