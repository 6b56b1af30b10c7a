"""The owner of Session State: every entry the lab keeps for a browser session, typed, one object per
concern. No other module of the lab touches ``st.session_state`` (``tests/test_session_owner.py``
reads every product file for that).

Two kinds of entries:

- **The lab's own bookkeeping** (:class:`Entry`): the resolved input, a link's report, the fragments'
  reruns, the live controls' frames, the class seat, each page's private state. Each is declared
  here once, with its type and what it holds when unset; an :class:`Entry` is read with ``get()``
  and written with ``set()``.
- **Widget values**, which Streamlit keeps under the widget's key: :data:`widgets`. A key read or
  written through it must be declared (a page control's URL key in ``ui.keys.PAGE_KEYS``, the
  sidebar's in ``ui.settings``, the others in :data:`WIDGET_KEYS` or as a :data:`WIDGET_FAMILIES`
  prefix or suffix); an undeclared key raises ``KeyError`` at once, so a typo never reads a default.

Pages set the sidebar's γ, β and their mode through :data:`sidebar` (its functions run as a button's
``on_click``, before the sidebar's widgets are drawn), never by writing those widgets themselves.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import streamlit as st

from ui.keys import ALL_PAGE_KEYS
from ui.settings import AFFINE_MODES, TOKEN_KEYS, URL_KEYS, LabInput

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

T = TypeVar("T")

_DECLARED: dict[str, str] = {}  # every entry's key -> the concern that declared it


class Entry(Generic[T]):
    """One Session State entry: its key, and a function giving what it holds when unset (a fresh
    value each time, so a default list or dict is never shared between sessions)."""

    def __init__(self, key: str, default: Callable[[], T], concern: str | None) -> None:
        """``concern`` None: a family's member (its family is declared instead)."""
        if concern is not None:
            if key in _DECLARED:
                raise ValueError(f"Session State key {key!r} declared twice ({_DECLARED[key]}, {concern})")
            _DECLARED[key] = concern
        self.key, self._default = key, default

    def get(self) -> T:
        """The value, or the default when unset (the default is not stored)."""
        if self.key in st.session_state:
            return st.session_state[self.key]  # type: ignore[no-any-return]
        return self._default()

    def set(self, value: T) -> None:
        st.session_state[self.key] = value

    def kept(self) -> T:
        """The value, storing the default first when unset: for a container the caller changes in place."""
        if self.key not in st.session_state:
            st.session_state[self.key] = self._default()
        return st.session_state[self.key]  # type: ignore[no-any-return]

    def pop(self) -> T:
        """The value (or the default), and the entry is unset."""
        return st.session_state.pop(self.key, None) if self.key in st.session_state else self._default()

    def present(self) -> bool:
        return self.key in st.session_state

    def clear(self) -> None:
        st.session_state.pop(self.key, None)


class Family(Generic[T]):
    """Entries made from a name (a question's key, a control's key): ``family(name)`` is its Entry."""

    def __init__(self, pattern: str, default: Callable[[], T], concern: str) -> None:
        if "{}" not in pattern:
            raise ValueError(f"a family's pattern needs a {{}}: {pattern!r}")
        if pattern in _DECLARED:
            raise ValueError(f"Session State family {pattern!r} declared twice ({_DECLARED[pattern]})")
        _DECLARED[pattern] = concern
        self.pattern, self._default = pattern, default
        self._made: dict[str, Entry[T]] = {}

    def __call__(self, name: str) -> Entry[T]:
        if name not in self._made:
            self._made[name] = Entry(self.pattern.format(name), self._default, None)
        return self._made[name]


def _none() -> None:
    return None


def _false() -> bool:
    return False


def _zero() -> int:
    return 0


# --- the lab's input ------------------------------------------------------------------------------
class _Input:
    """What the sidebar resolved, and what it keeps of the user's vector between runs and pages."""

    concern = "input"
    # The LabInput the sidebar resolved on the last full run (or a keyed move): what pages read
    lab: Entry[LabInput | None] = Entry("lab_input", _none, concern)
    # The last vector that read without a problem, and its label: shown while a new one has one
    last_good: Entry[tuple[np.ndarray, str] | None] = Entry("last_good", _none, concern)
    # The table the data grid starts from, and the user's last edits (kept while the grid is not drawn)
    table_seed: Entry[pd.DataFrame | None] = Entry("table_seed", _none, concern)
    table_last: Entry[pd.DataFrame | None] = Entry("table_last", _none, concern)
    # The last uploaded file's vector and name, and what reading it noted
    upload_last: Entry[tuple[np.ndarray, str] | None] = Entry("upload_last", _none, concern)
    upload_notes: Entry[tuple[str, ...]] = Entry("upload_notes", tuple, concern)
    # Per-feature γ, β tables by d (Scale & shift's editor)
    affine_tables: Entry[dict[int, pd.DataFrame]] = Entry("affine_tables", dict, concern)


# --- a link's reading -----------------------------------------------------------------------------
class _Links:
    """What the session's link said, and how the lab spelled what it rewrote (ui.linking, ui.history)."""

    concern = "links"
    checked_url: Entry[bool] = Entry("url_checked", _false, concern)  # the opening link has been read
    report: Entry[Any] = Entry("link_report", _none, concern)  # a LinkReport, until the user acts
    notes: Entry[dict[str, str]] = Entry("link_notes", dict, concern)  # {key: what was wrong with its value}
    checked: Entry[set[str]] = Entry("link_checked", set, concern)  # keys whose link value was checked
    elsewhere: Entry[dict[str, list[str]]] = Entry("link_elsewhere", dict, concern)  # other pages' values
    rerun: Entry[bool] = Entry("link_rerun", _false, concern)  # this rerun is the link's own
    # Whether the last full run drew any of a link's messages (they stay until the user's next action)
    news: Entry[bool] = Entry("link_news_on_screen", _false, concern)
    # How the lab spells each link value it rewrote ({key: [(values as typed, text or None)]})
    spellings: Entry[dict[str, list[tuple[list[str], str | None]]]] = Entry("link_spellings", dict, concern)
    # The option labels each choice showed last (a relabelled option keeps the user's choice)
    shown: Family[Any] = Family("_shown_{}", _none, concern)


# --- sections-only reruns -------------------------------------------------------------------------
class _Sections:
    """The lab sections (ui.state.lab_section) and the reruns of them alone (ui.fragments)."""

    concern = "sections"
    # The lab sections of the page's last finished full run, and of the run in progress
    drawn: Entry[tuple[str, ...]] = Entry("lab_sections", tuple, concern)
    drawing: Entry[list[str] | None] = Entry("_lab_sections_now", _none, concern)
    # The fragments the last run reran alone (() after a full run)
    rerun: Entry[tuple[str, ...]] = Entry("lab_rerun", tuple, concern)
    # What each section read of the input on its last run (None when that run did not finish)
    reads: Entry[dict[str, frozenset[str] | None]] = Entry("lab_reads", dict, concern)
    # This session's runs go through app.py (ui.shell): set by app.py on every full run
    in_app: Entry[bool] = Entry("_in_app", _false, concern)


# --- the live controls ----------------------------------------------------------------------------
class _Live:
    """The live sliders' and bars' bookkeeping (ui.live, ui.live.sidebar, ui.live.vector)."""

    concern = "live"
    # A rerun the browser asked for without the user acting (a live control fetching its frames):
    # it keeps a link's messages
    not_the_user: Entry[bool] = Entry("_not_the_user", _false, concern)
    # This full run's sidebar places for the live γ, β and ε (drawn after the page)
    places: Entry[dict[str, Any] | None] = Entry("_live_places", _none, concern)
    # {part: (frame, token)}: the page's frames as functions of the sidebar's input
    view: Entry[dict[str, Any] | None] = Entry("_live_view", _none, concern)
    page: Entry[str] = Entry("_live_page", str, concern)  # the url path the last full run drew
    # {key: (value before, value after)} of each live release
    released: Entry[dict[str, tuple[Any, Any]]] = Entry("_live_released", dict, concern)
    # {widget key: (value before, value set)}: values the app set that the browser may not have yet
    set_by_app: Entry[dict[str, tuple[Any, Any]]] = Entry("_set_by_app", dict, concern)
    input_sets: Entry[int] = Entry("_input_sets", int, concern)  # how many times the app set the input
    sent: Entry[dict[str, str]] = Entry("_live_sent", dict, concern)  # payload id each slider's browser has
    asked: Entry[set[str]] = Entry("_live_asked", set, concern)  # sliders whose browser asked for frames
    # {key: n}: the browser's number of the last release of each slider the server took (static/live)
    release_numbers: Entry[dict[str, int | None]] = Entry("_live_release_numbers", dict, concern)
    sidebar_drawn: Entry[tuple[str, ...]] = Entry("_live_sidebar_drawn", tuple, concern)
    # {component: features}: the bars whose frames the browser asked for
    bars_asked: Entry[dict[str, list[int]]] = Entry("_live_bars_asked", dict, concern)
    bars_set: Entry[bool] = Entry("_live_bars_set", _false, concern)  # a release set a new vector


# --- class mode -----------------------------------------------------------------------------------
class _Class:
    """This browser's place in a class (ui.class_session, ui.class_views)."""

    concern = "class"
    member: Entry[Any] = Entry("class_member", _none, concern)  # the Member this browser is, or None
    notice: Entry[str | None] = Entry("class_notice", _none, concern)  # a message for the class panel
    join_problem: Entry[str | None] = Entry("class_join_problem", _none, concern)  # why joining failed
    lead_seen: Entry[int | None] = Entry("class_lead_seen", _none, concern)  # the teacher's last lead seen
    following: Entry[bool] = Entry("class_following", _false, concern)  # this run follows: it waits its turn
    # The seat cookie as this session last set it ("<code>:<seat>", "" taken away); None: as sent
    seat_kept: Entry[str | None] = Entry("class_seat_kept", _none, concern)
    # The seat this session takes when it joins, drawn as the join form is drawn: two clicks on Join
    # whose runs overlap (each a thread of its own) ask the class for the same seat
    join_seat: Entry[str | None] = Entry("class_join_seat", _none, concern)
    # The room's version when this student's seat was last found in it (a removal moves the version)
    version_seen: Entry[int | None] = Entry("class_version_seen", _none, concern)
    paced_seen: Entry[bool] = Entry("class_paced_seen", _false, concern)  # the panel was drawn teacher-paced
    on_page: Entry[set[str]] = Entry("class_on_page", set, concern)  # the questions of the page shown
    # Each question's (round, state) as the page was last drawn with them (classroom.model.Question)
    questions_seen: Entry[dict[str, Any]] = Entry("class_questions_seen", dict, concern)
    # Why an answer was refused, and the question's (round, state) then: said while the question stays so
    refused: Family[tuple[str, Any] | None] = Family("class_refused_{}", _none, concern)
    # The teacher's screen: the questions described to the store, as (class, question), once a session
    described: Entry[set[tuple[str, str]]] = Entry("class_described", set, concern)
    # Why the teacher's last action was refused, and where to say it: (place, message)
    refused_here: Entry[tuple[str, str] | None] = Entry("class_refused_here", _none, concern)
    roster_open: Entry[bool] = Entry("class_roster_open", _false, concern)  # the students' list is open
    results_open: Entry[bool] = Entry("class_results_open", _false, concern)  # the results' dialog is open
    removing: Entry[str | None] = Entry("class_removing", _none, concern)  # the seat the teacher may remove


# --- pages' own state -----------------------------------------------------------------------------
class _Pages:
    """What a page keeps between its runs that is not a control's value."""

    concern = "pages"
    quiz_seed: Entry[int | None] = Entry("quiz_seed", _none, concern)
    quiz_answers: Entry[dict[str, int]] = Entry("quiz_answers", dict, concern)  # question key -> option
    quiz_round: Entry[int] = Entry("quiz_round", _zero, concern)
    tvi_history: Entry[list[Any]] = Entry("tvi_history", list, concern)  # TrainSteps, oldest first
    tvi_config: Entry[tuple[int, int] | None] = Entry("tvi_config", _none, concern)  # the history's (d, seed)
    tvi_request: Entry[str | None] = Entry("tvi_request", _none, concern)  # a button's request, for the run
    tvi_mates_draw: Entry[int] = Entry("tvi_mates_draw", _zero, concern)
    steps_playing: Entry[bool] = Entry("steps_playing", _false, concern)
    std_feature_d: Entry[int | None] = Entry("_std_feature_d", _none, concern)  # d when std_feature was set
    # The placement (pre/post-LN) last shown, shared by the pages that have one
    placement: Entry[str | None] = Entry("placement_shared", _none, concern)
    # Predict-then-check boxes: the student's guess (a widget) and whether the answer is shown
    shown: Family[bool] = Family("{}_shown", _false, concern)


# --- the guided tour (ui.tour) ---------------------------------------------------------------------
class _Tour:
    """Where the student is in the guided tour (the step itself is a widget: ``ui.tour.KEY``)."""

    concern = "tour"
    go: Entry[bool] = Entry("tour_go", _false, concern)  # Back, Next or Start asked for the stop's page
    visit: Entry[int] = Entry("tour_visit", _zero, concern)  # counts Back, Next, Go and Resume
    show: Entry[int] = Entry("tour_show_presses", _zero, concern)  # counts presses of "Show me the control"
    left_at: Entry[int] = Entry("tour_left_at", _zero, concern)  # the step Leave left (0: none)
    at: Entry[int] = Entry("tour_at", _zero, concern)  # the step the card was last drawn at
    arrived_on: Entry[str | None] = Entry("tour_arrived_on", _none, concern)  # the page it was drawn on
    arrived_x: Entry[bytes | None] = Entry("tour_arrived_x", _none, concern)  # the vector on arrival
    arrived: Entry[Any] = Entry("tour_arrived", _none, concern)  # the watched control's value on arrival
    # The card as last drawn: (step, what it said the student did)
    shown: Entry[tuple[int, str | None] | None] = Entry("tour_shown", _none, concern)


lab = _Input()
links = _Links()
sections = _Sections()
live = _Live()
klass = _Class()
pages = _Pages()
tour = _Tour()


# --- widget values --------------------------------------------------------------------------------
# Widgets outside the links' keys (ui.keys.PAGE_KEYS, ui.settings' URL and token keys)
WIDGET_KEYS = frozenset(
    {"table", "upload", "reseed", "axes_preset", "class_join_code", "class_join_name", "class_follow"}
    | {"class_beacon"}  # a student's class beacon (ui.class_beacon): its trigger says what the browser read
    | {"class_paced", "class_keep_days"}  # the teacher's pacing toggle and days the answers are kept
    | {"input_sets"}  # the browser's copy of how many times the app set the input (ui.inputs.input_sets_seen)
)
# Widget keys made from a name: "{}_live" a live slider's component, "{}_guess" a prediction box,
# "quiz_{}" a quiz question's radio, "{}_bars" a chart's draggable bars (ui.live.vector), "class_name_{}"
# the teacher's new nickname for the student at that place of the roster
WIDGET_FAMILIES = ("{}_live", "{}_guess", "quiz_{}", "{}_bars", "class_name_{}")


_SIDEBAR_KEYS = frozenset(URL_KEYS) | frozenset(TOKEN_KEYS)


def declared_widget(key: str) -> bool:
    """Whether ``key`` is a declared widget key (never one of the lab's own entries)."""
    if key in _DECLARED:
        return False
    if key in ALL_PAGE_KEYS or key in WIDGET_KEYS or key in _SIDEBAR_KEYS:
        return True
    for family in WIDGET_FAMILIES:
        head, tail = family.split("{}")
        if key.startswith(head) and key.endswith(tail) and len(key) > len(head) + len(tail):
            return True
    return False


class _Widgets:
    """Widget values by their declared key."""

    @staticmethod
    def _checked(key: str) -> str:
        if not declared_widget(key):
            raise KeyError(f"{key!r} is not a declared widget key (ui.session.WIDGET_KEYS, ui.keys)")
        return key

    def get(self, key: str, default: Any = None) -> Any:
        return st.session_state.get(self._checked(key), default)

    def set(self, key: str, value: Any) -> None:
        st.session_state[self._checked(key)] = value

    def update(self, **values: Any) -> None:
        for key, value in values.items():
            self.set(key, value)

    def has(self, key: str) -> bool:
        return self._checked(key) in st.session_state

    def clear(self, key: str) -> None:
        st.session_state.pop(self._checked(key), None)

    def touch(self, key: str) -> None:
        """Write a widget's value back to itself: Streamlit then keeps it when the widget's options
        or range change, instead of resetting it."""
        if self.has(key):
            st.session_state[key] = st.session_state[key]


widgets = _Widgets()


def widget_in_run(key: str) -> Any:
    """A widget's value in the session whose script run this thread serves, read from the run's context
    (also from a thread that is not the script's: a chart built for a download). KeyError when unset
    or outside any session, without Streamlit's warning."""
    from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

    ctx = get_script_run_ctx(suppress_warning=True)
    if ctx is None:
        raise KeyError(key)
    return ctx.session_state[_Widgets._checked(key)]


# --- the sidebar's values, as pages set them ------------------------------------------------------
class _Sidebar:
    """What a page may set of the sidebar's controls. Call from a button's ``on_click`` (the sidebar
    is drawn after it), never mid-run."""

    @staticmethod
    def set_affine_mode(mode: str) -> None:
        """γ, β's mode (one of ``ui.settings.AFFINE_MODES``)."""
        st.session_state["affine_mode"] = mode

    @staticmethod
    def reset_affine() -> None:
        """The same γ = 1, β = 0 for every feature: LayerNorm without its scale and shift."""
        st.session_state.update(affine_mode=AFFINE_MODES[0], gamma=1.0, beta=0.0)

    @staticmethod
    def values() -> dict[str, Any]:
        """The sidebar's widget values as they stand (for a page that reads the raw controls)."""
        return {k: st.session_state[k] for k in _SIDEBAR_KEYS if k in st.session_state}


sidebar = _Sidebar()


def declared_keys() -> dict[str, str]:
    """Every declared entry's key and its concern (families by pattern), for tests and docs."""
    return dict(_DECLARED)


def replace_address(ctx: Any, values: dict[str, list[str]]) -> None:
    """Make the address's query exactly ``values`` and send it to the browser, in the session state of
    the run ``ctx`` (``ui.class_session.open_view``: a follower opens the teacher's view as a link
    opens). Private Streamlit names: docs/ARCHITECTURE.md, Workarounds (``open_view``)."""
    with ctx.session_state.query_params() as qp:
        qp.clear_with_no_forward_msg(preserve_embed=True)
        for k, vs in values.items():
            qp.set_with_no_forward_msg(k, vs[0] if len(vs) == 1 else vs)
        qp._send_query_param_msg()
