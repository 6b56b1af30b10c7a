"""The app fuzzer: one Hypothesis state machine driving one LayerNorm Lab session through AppTest.

A *case* is one generated user action (open a link, type text, edit the table, upload a file,
move a widget, switch page, ...) applied to the running app, followed by every check below.
Hypothesis chains cases into sessions, so a failure comes back as the shortest sequence of
actions that still breaks the app.

Checks after every run of the script (:meth:`LabSession._check`):

- no exception element, no traceback or Python exception name, no Python ``repr`` (``np.float64(…)``)
  anywhere on the page, no NaN in a metric or formula, no warning in Streamlit's log;
- the sidebar's accepted input (``st.session_state["lab_input"]``) is what the action asked for:
  the exact vector for a valid input; for an invalid one a problem, an error in the sidebar, a
  warning on the lesson pages, and *the last valid vector kept*;
- widget values are inside their ranges, and a valid value the action set actually took;
- γ, β and ε are what the sidebar's controls say;
- every statistic a lesson page shows (metrics, the worked formulas, the Full-formula table)
  equals the core's value on the accepted vector, within the precision the text shows;
- user text (a typed token, a table cell, a CSV cell, a file name, a link value) never reaches
  Markdown unescaped;
- on opening a link: valid values are used; unusable, repeated, unused and unknown keys are named
  in a message; the address the lab rewrites the link to opens the same settings without a warning.

Where AppTest differs from a browser the fuzzer acts like the browser (it resends the sidebar
grid's edits after a page switch) and never sends what a browser cannot (an upload with an
extension the uploader refuses, an option a select widget does not offer).
"""

from __future__ import annotations

import functools
import logging
import math
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from types import SimpleNamespace
from typing import Any, ClassVar

import numpy as np
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, rule
from live_support import live_tex, page_metric_elements
from streamlit.testing.v1 import AppTest

import layernorm as ln
from fuzz import oracle
from fuzz.strategies import (
    D_CHOICES,
    EPS_CHOICES,
    Accept,
    AffineEdit,
    Cell,
    CoreCrashed,
    Either,
    Expect,
    LinkParam,
    Reject,
    TableEdit,
    TypedCase,
    Upload,
    affine_edits,
    core_reads_upload,
    expect_from_cells,
    link_params,
    table_edits,
    typed_cases,
    upload_cases,
)
from ui.navigation import SECTIONS

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "app.py"
RUN_TIMEOUT = 120.0  # seconds for one script run; the heaviest page takes ~6 s on a cold cache

SOURCES = ["Preset", "Type numbers", "Edit a table", "Upload a file", "Real token (MiniLM)"]
AFFINE_MODES = [
    "Same γ, β for every feature",
    "Per feature (edit on Scale & shift)",
    "Undo for this vector: γ = σ, β = μ",
    "MiniLM's learned γ, β",
]
DEFAULT_VECTOR = (1.0, 2.0, 3.0, 4.0)
DEFAULT_TEXT = "1, 2, 3, 4"
TABLE_START = [Cell(str(int(v)), v) for v in DEFAULT_VECTOR]


def _page_files() -> dict[str, str]:
    """The pages of the app's navigation (a page file it does not list cannot be opened)."""
    listed = [entry.path for entries in SECTIONS.values() for entry in entries]
    return {Path(p).stem: p for p in listed if (ROOT / p).exists()}


PAGES = _page_files()
# Pages that show the sidebar's vector (they call lab_input()) and so must warn about a problem.
LESSON_PAGES = {stem for stem, path in PAGES.items() if "lab_input()" in (ROOT / path).read_text("utf-8")}
# Visits: the lesson pages (which check statistics) three times as often as the heavy own-data pages.
PAGE_CHOICES = [s for s in PAGES for _ in range(3 if s in LESSON_PAGES else 1)]


@cache
def recording() -> Any:
    return ln.load_minilm_recording()


# --- failures ----------------------------------------------------------------------------------------


class FuzzFailure(AssertionError):
    """A check failed. One subclass per kind, so Hypothesis reports different faults separately."""

    kind = "fuzz"


@cache
def failure_class(kind: str) -> type[FuzzFailure]:
    name = "Fuzz_" + "".join(c if c.isalnum() else "_" for c in kind)
    return type(name, (FuzzFailure,), {"kind": kind})


@dataclass
class Violation:
    kind: str
    message: str


@dataclass
class Stats:
    """Counts shared by every session of one fuzz run (the runner prints them)."""

    cases: int = 0
    failing_cases: int = 0
    sessions: int = 0
    kinds: Counter[str] = field(default_factory=Counter)
    started: float = field(default_factory=time.monotonic)
    counting: bool = True  # off while Hypothesis replays a failure to shrink it
    rule_time: Counter[str] = field(default_factory=Counter)
    rule_count: Counter[str] = field(default_factory=Counter)
    on_case: Callable[[Stats], None] | None = None


# --- the state machine -------------------------------------------------------------------------------


def _same(raw: str, value: Any) -> bool:
    """Does the link text ``raw`` name the widget value ``value``? (Case, spacing, minus sign aside.)"""
    if isinstance(value, str):
        return " ".join(raw.split()).casefold() == " ".join(value.split()).casefold()
    try:
        return math.isclose(float(raw.replace("\u2212", "-")), float(value), rel_tol=1e-9, abs_tol=1e-12)
    except (TypeError, ValueError):
        return False


LINK_WIDGETS = {  # widget kind and key of every setting a link carries
    ("selectbox", "src"): "src",
    ("selectbox", "preset"): "preset",
    ("select_slider", "d"): "d",
    ("number_input", "seed"): "seed",
    ("select_slider", "eps"): "eps",
    ("slider", "gamma"): "gamma",
    ("slider", "beta"): "beta",
}


def _find(at: AppTest, kind: str, key: str) -> Any | None:
    try:
        return getattr(at, kind)(key=key)
    except KeyError:
        return None


def _walk(block: Any) -> Iterable[Any]:
    """Every element (not container) inside ``block``."""
    from streamlit.testing.v1.element_tree import Block

    for node in block:  # a Block yields itself, then everything inside it
        if not isinstance(node, Block):
            yield node


def _case(action: Callable[..., None]) -> Callable[..., None]:
    """Make a rule one counted, timed case."""

    @functools.wraps(action)
    def run_case(self: LabSession, *args: Any, **kwargs: Any) -> None:
        self._rule, self._rule_start = action.__name__, time.monotonic()
        self.trace.append(
            f"{action.__name__}({', '.join(f'{k}={v!r}' for k, v in kwargs.items() if k != 'data')})"
        )
        try:
            action(self, *args, **kwargs)
        except BaseException as exc:
            where = (
                "".join(traceback.format_exception(exc)[-3:])[-600:]
                if not isinstance(exc, FuzzFailure)
                else ""
            )
            self.trace.append(f"  -> {type(exc).__name__}: {str(exc)[:300]} {where}")
            raise
        self._count_case()

    return run_case


class LabSession(RuleBasedStateMachine):
    """One browser session of the lab, driven by generated actions."""

    stats: ClassVar[Stats] = Stats()
    known_kinds: ClassVar[set[str]] = set()  # the runner's already-reported faults: counted, not raised
    traces: ClassVar[list[list[str]]] = []  # the last sessions' actions (diagnosing a flaky replay)

    def __init__(self) -> None:
        super().__init__()
        self.at: AppTest | None = None
        self.page = "0_home"
        self._rule, self._rule_start = "", time.monotonic()
        self.trace: list[str] = []  # what this session did, for diagnosing a flaky replay
        LabSession.traces.append(self.trace)
        del LabSession.traces[:-200]
        self._reset_model()

    def _reset_model(self) -> None:
        self.typed: TypedCase = TypedCase(DEFAULT_TEXT, Accept(DEFAULT_VECTOR))
        self.table_base: list[Cell] = list(TABLE_START)
        self.table_edit: TableEdit | None = None
        self.uploads: dict[tuple[str, bytes], Upload] = {}
        self.upload_kept: np.ndarray | None = None
        self.last_good: np.ndarray | None = None
        self.prev_source: str | None = None
        self.affine: dict[int, tuple[list[Cell], list[Cell]]] = {}  # per d: the γ and β cells kept
        self.user_strings: list[str] = []
        self.took: list[tuple[str, str, Any]] = []  # (kind, key, value) that must have taken

    # --- running the app ---

    def _run(self) -> None:
        assert self.at is not None
        self.at.run(timeout=RUN_TIMEOUT)

    def _open(self, link: tuple[LinkParam, ...]) -> None:
        if LabSession.stats.counting:
            LabSession.stats.sessions += 1
        self._reset_model()
        at = AppTest.from_file(str(APP), default_timeout=RUN_TIMEOUT)
        _share_components(at)
        for p in link:
            at.query_params[p.key] = list(p.raw) if isinstance(p.raw, tuple) else p.raw
            self.user_strings += [p.key, *([p.raw] if isinstance(p.raw, str) else p.raw)]
            if p.key == "typed":  # the link's typed numbers fill the text box (read as typed text)
                from ui.settings import MAX_TYPED

                text = p.raw[-1] if isinstance(p.raw, tuple) else p.raw
                self.typed = TypedCase(text[:MAX_TYPED], Either("typed numbers from a link"))
        self.at = at
        self.page = "0_home"
        self._run()
        self._check(link=link)
        v: list[Violation] = []
        self._check_canonical_link(v)
        self._report(v)

    def _check_canonical_link(self, v: list[Violation]) -> None:
        """The address the lab rewrote the link to must open the same settings, with nothing to say."""
        at = self.at
        assert at is not None
        canonical = {k: (list(x) if isinstance(x, list) else x) for k, x in at.query_params.items()}
        again = AppTest.from_file(str(APP), default_timeout=RUN_TIMEOUT)
        _share_components(again)
        for k, x in canonical.items():
            again.query_params[k] = x
        again.run(timeout=RUN_TIMEOUT)
        LOGS.drain()
        for kind, key in LINK_WIDGETS:
            w1, w2 = _find(at, kind, key), _find(again, kind, key)
            if (w1 is None) != (w2 is None) or (w1 is not None and w1.value != w2.value):
                v.append(
                    Violation(
                        "canonical link not stable",
                        f"{key}: {None if w1 is None else w1.value!r} here, "
                        f"{None if w2 is None else w2.value!r} from the rewritten link {canonical}",
                    )
                )
        if dict(again.query_params) != dict(at.query_params):
            v.append(Violation("canonical link not stable", f"{at.query_params} became {again.query_params}"))
        known = [k for k in canonical if k in set(LINK_WIDGETS.values())]
        # A warning means "your link has a problem"; an info (a key kept for another input) may repeat.
        texts = [str(e.value) for kind in ("warning", "error") for e in getattr(again, kind)]
        talk = [k for k in known if oracle.mentions(texts, k)]
        if talk:
            v.append(
                Violation("canonical link reported", f"the rewritten link {canonical} is reported: {talk}")
            )

    def _count_case(self) -> None:
        s = LabSession.stats
        if s.counting:
            s.cases += 1
            now = time.monotonic()
            s.rule_time[self._rule] += now - self._rule_start
            s.rule_count[self._rule] += 1
            if s.on_case is not None:
                s.on_case(s)

    def _widget(self, kind: str, key: str) -> Any | None:
        assert self.at is not None
        try:
            return getattr(self.at, kind)(key=key)
        except KeyError:
            return None

    def _source(self) -> str:
        w = self._widget("selectbox", "src")
        return str(w.value) if w is not None else "?"

    def _ensure_vector_page(self) -> None:
        """The sidebar's vector controls show on the lesson pages only: go to one first."""
        if self.page not in LESSON_PAGES:
            self._go("1_mean")

    def _ensure_source(self, source: str) -> None:
        self._ensure_vector_page()
        if self._source() != source:
            w = self._widget("selectbox", "src")
            assert w is not None, "the sidebar has no input selector"
            w.set_value(source)
            self._run()
            self._check()

    def _go(self, page: str) -> None:
        assert self.at is not None
        if self.page != page:
            self.at.switch_page(PAGES[page])
            self.page = page
            if self._source() == "Edit a table" and self.table_edit is not None:
                # A browser sends the sidebar grid's edits with every rerun, page switches included;
                # AppTest does not (it has no data_editor widget), so send them as the browser would.
                self.at.session_state["table"] = self.table_edit.state("x")
                if page not in LESSON_PAGES:  # the grid is hidden there: the app keeps the edited
                    # table as the grid's starting table, and later edits count from it
                    self.table_base = self.table_edit.apply(self.table_base)
                    self.table_edit = None
            self._run()
            self._check()

    # --- rules: one generated user action each ---

    @initialize(link=link_params())
    @_case
    def open_first_link(self, link: tuple[LinkParam, ...]) -> None:
        self._open(link)

    @rule(link=link_params())
    @_case
    def open_link(self, link: tuple[LinkParam, ...]) -> None:
        """A new session from a shared link."""
        self._open(link)

    @rule(page=st.sampled_from(PAGE_CHOICES))
    @_case
    def go_to(self, page: str) -> None:
        self._go(page)

    @rule(case=typed_cases)
    @_case
    def type_text(self, case: TypedCase) -> None:
        self._ensure_source("Type numbers")
        w = self._widget("text_area", "typed")
        assert w is not None
        self.typed = case
        self.user_strings += list(case.user_strings)
        w.input(case.text)
        self._run()
        self._check()

    @rule(data=st.data())
    @_case
    def edit_table(self, data: st.DataObject) -> None:
        self._ensure_source("Edit a table")
        edit = data.draw(table_edits(len(self.table_base)), label="edit")
        assert self.at is not None
        self.at.session_state["table"] = edit.state("x")
        self.table_edit = edit
        for c in edit.apply(self.table_base):
            if isinstance(c.raw, str):
                self.user_strings.append(c.raw)
        self._run()
        self._check()

    @rule(case=st.one_of(upload_cases, st.just(None)))
    @_case
    def upload(self, case: Upload | None) -> None:
        """Upload a file (or, for None, remove the uploaded file: the lab keeps the last one it read)."""
        self._ensure_source("Upload a file")
        w = self._widget("file_uploader", "upload")
        assert w is not None, "no file uploader"
        if case is None:
            w.clear()
            self._run()
            self._check()
            return
        self.uploads[(case.name, case.data)] = case
        self.user_strings += [case.name, *case.user_strings]
        w.set_value((case.name, case.data, "application/octet-stream"))
        self._run()
        self._check()

    @rule(data=st.data())
    @_case
    def preset_control(self, data: st.DataObject) -> None:
        """Choose a preset, its size d, its seed, or press New draw."""
        self._ensure_source("Preset")
        which = data.draw(st.sampled_from(["preset", "d", "seed", "reseed"]), label="control")
        if which == "preset":
            self._set(
                "selectbox",
                "preset",
                data.draw(st.sampled_from(list(ln.PRESETS)), label="preset"),
                valid=True,
            )
        elif which == "d":
            self._set("select_slider", "d", data.draw(st.sampled_from(D_CHOICES), label="d"), valid=True)
        elif which == "seed":
            seed = data.draw(
                st.one_of(st.integers(0, 9999), st.sampled_from([0, 9999, -1, 10000, 123456])), label="seed"
            )
            self._set("number_input", "seed", seed, valid=0 <= seed <= 9999)
        else:
            before = self._widget("number_input", "seed")
            old = int(before.value) if before is not None else 0
            btn = self._widget("button", "reseed")
            assert btn is not None
            btn.click()
            self.took.append(("number_input", "seed", (old + 1) % 10000))
            self._run()
            self._check()

    @rule(data=st.data())
    @_case
    def token_control(self, data: st.DataObject) -> None:
        self._ensure_source("Real token (MiniLM)")
        rec = recording()
        which = data.draw(st.sampled_from(["tok_sentence", "tok_index", "tok_site"]), label="which")
        if which == "tok_sentence":
            value: int = data.draw(st.integers(0, rec.n_sentences - 1), label="sentence")
        elif which == "tok_site":
            value = data.draw(st.integers(0, rec.n_sites - 1), label="site")
        else:
            s = self._widget("selectbox", "tok_sentence")
            real = rec.real_token_indices(int(s.value if s is not None else 0)).tolist()
            value = data.draw(st.sampled_from(real), label="token")
        self._set("selectbox", which, value, valid=True)

    @rule(data=st.data())
    @_case
    def change_parameter(self, data: st.DataObject) -> None:
        """Move one of the sidebar's parameters: the γ, β mode, ε, or the shared γ or β.

        (Named to sort first: Hypothesis favours the first rule, and this is a cheap, telling one.)
        """
        self._ensure_vector_page()
        which = data.draw(st.sampled_from(["affine_mode", "eps", "gamma", "beta"]), label="parameter")
        if which == "affine_mode":
            self._set(
                "radio", "affine_mode", data.draw(st.sampled_from(AFFINE_MODES), label="mode"), valid=True
            )
        elif which == "eps":
            self._set(
                "select_slider", "eps", data.draw(st.sampled_from(EPS_CHOICES), label="eps"), valid=True
            )
        else:
            g = data.draw(
                st.one_of(
                    st.integers(-60, 60).map(lambda k: round(k * 0.05, 2)),
                    st.floats(-3, 3, allow_nan=False),
                    st.sampled_from([-3.0, 3.0, -3.05, 3.5, 100.0]),
                ),
                label=which,
            )
            if self._widget("slider", which) is None:  # only shown for "Same γ, β for every feature"
                self._set("radio", "affine_mode", AFFINE_MODES[0], valid=True)
            self._set("slider", which, g, valid=-3 <= g <= 3)

    @rule(data=st.data())
    @_case
    def page_control(self, data: st.DataObject) -> None:
        """Move one of the current page's own widgets (or press one of its buttons)."""
        assert self.at is not None
        widgets = [w for w in _walk(self.at.main) if _settable(w)]
        if not widgets:
            return
        key = data.draw(
            st.sampled_from([x.key for x in widgets]), label="widget"
        )  # keys print; widgets do not
        w = next(x for x in widgets if x.key == key)
        value, valid = data.draw(widget_values(w), label=f"{w.type} {w.key}")
        self.trace.append(f"  widgets={[x.key for x in widgets]} chose {w.key}={value!r}")
        if w.type == "button":
            w.click()
            self._run()
            self._check()
        else:
            self._set(w.type, w.key, value, valid=valid, widget=w)

    @rule(data=st.data())
    @_case
    def edit_gamma_beta_table(self, data: st.DataObject) -> None:
        """Per-feature γ, β on the Scale & shift page."""
        self._go("4_scale_shift")
        if self._radio_value("affine_mode") != AFFINE_MODES[1]:
            btn = self._widget("button", "ss_table")
            assert btn is not None, "Scale & shift has no 'Edit γ, β per feature' button"
            btn.click()
            self._run()
            self._check()
        lab = self._lab()
        if lab is None or self._radio_value("affine_mode") != AFFINE_MODES[1]:
            return
        d = lab.d
        edit = data.draw(affine_edits(d), label="gamma/beta edit")
        assert self.at is not None
        self.at.session_state[f"ss_editor_{d}"] = edit.state()
        self._run()
        self._check(affine_edit=(d, edit))

    # --- helpers for rules ---

    def _radio_value(self, key: str) -> Any:
        w = self._widget("radio", key)
        return None if w is None else w.value

    def _set(self, kind: str, key: str, value: Any, *, valid: bool, widget: Any = None) -> None:
        w = widget if widget is not None else self._widget(kind, key)
        if w is None:
            return
        w.set_value(value)
        if valid:
            self.took.append((kind, key, value))
        self._run()
        self._check()

    def _lab(self) -> Any:
        assert self.at is not None
        try:
            return self.at.session_state["lab_input"]
        except KeyError:
            return None

    # --- the checks ---

    def _check(
        self, *, link: tuple[LinkParam, ...] | None = None, affine_edit: tuple[int, AffineEdit] | None = None
    ) -> None:
        at = self.at
        assert at is not None
        v: list[Violation] = []
        self._check_crashes(v)
        for line in LOGS.drain():
            v.append(Violation("streamlit logged a warning", line))
        took, self.took = self.took, []
        if self.page not in LESSON_PAGES:  # a page that makes its own data: no vector in the sidebar
            if not at.exception:
                self._check_widgets(v, took)
                shown = [
                    el.key
                    for kind in ("selectbox", "select_slider", "slider")
                    for el in getattr(at.sidebar, kind)
                ]
                if shown:
                    v.append(Violation("vector controls on an own-data page", f"{self.page} shows {shown}"))
                self._check_markdown(v)
                if link is not None:
                    self._check_link(v, link)
            self._report(v)
            return
        lab = self._lab()
        if at.exception or lab is None:
            # After a crash the page and lab_input are leftovers of an earlier run: the crash is the fault.
            if lab is None and not at.exception:
                v.append(Violation("lab_input missing", "the sidebar stored no lab_input"))
            self._report(v)
            return
        self._check_widgets(v, took)
        source = self._source()
        expect = self._expected_input(source, lab)
        self._check_input(v, lab, source, expect)
        # A valid table edit counts at once: the session's input takes it (ui.sidebar.set_affine_table),
        # so the parameters are checked against the table after the edit.
        override = self._check_affine_edit(v, lab, affine_edit)
        self._check_parameters(v, lab, source)
        self._check_statistics(v, lab, override)
        self._check_markdown(v)
        if link is not None:
            self._check_link(v, link)
        self.prev_source = source
        self._report(v)

    def _report(self, violations: list[Violation]) -> None:
        if not violations:
            return
        s = LabSession.stats
        if s.counting:
            s.failing_cases += 1
            s.kinds.update(x.kind for x in violations)
        new = [x for x in violations if x.kind not in LabSession.known_kinds]
        if new:
            s.counting = False  # what follows is Hypothesis replaying this failure to shrink it
            text = "\n".join(f"[{x.kind}] {x.message}" for x in violations)
            raise failure_class(new[0].kind)(f"on page {self.page}, source {self._source()}:\n{text}")

    def _check_crashes(self, v: list[Violation]) -> None:
        at = self.at
        assert at is not None
        for e in at.exception:
            trace = "\n".join(e.stack_trace[-6:])
            v.append(Violation(f"exception {e.proto.type or 'error'}", f"{e.value}\n{trace}"))
        for el in _walk(at._tree):
            if el.type in ("exception",):
                continue
            text = _text_of(el)
            if not text:
                continue
            hit = oracle.traceback_text(text, source_code=el.type in ("code",))
            if hit:
                v.append(Violation("traceback shown", f"{el.type} shows {hit!r}: {text[:300]!r}"))
            if el.type != "code":
                leak = oracle.python_repr(text)
                if leak:
                    v.append(Violation("Python repr shown", f"{el.type} shows {leak!r}: {text[:300]!r}"))
            if el.type in ("metric", "latex") and oracle.NAN.search(text):
                label = getattr(el, "label", "")
                v.append(
                    Violation(f"NaN shown ({el.type})", f"{label!r} shows {text[:200]!r} on {self.page}")
                )

    def _check_widgets(self, v: list[Violation], took: list[tuple[str, str, Any]]) -> None:
        checks: list[tuple[str, str, Callable[[Any], bool]]] = [
            ("selectbox", "src", lambda x: x in SOURCES),
            ("selectbox", "preset", lambda x: x in ln.PRESETS),
            ("select_slider", "d", lambda x: x in D_CHOICES),
            ("number_input", "seed", lambda x: isinstance(x, int) and 0 <= x <= 9999),
            ("radio", "affine_mode", lambda x: x in AFFINE_MODES),
            ("select_slider", "eps", lambda x: x in EPS_CHOICES),
            ("slider", "gamma", lambda x: -3 <= x <= 3),
            ("slider", "beta", lambda x: -3 <= x <= 3),
        ]
        for kind, key, ok in checks:
            w = self._widget(kind, key)
            if w is not None and not ok(w.value):
                v.append(Violation(f"widget {key} out of range", f"{key} = {w.value!r}"))
        for el in _walk(self.at.main):  # type: ignore[union-attr]
            why = _out_of_range(el)
            if why:
                v.append(Violation(f"widget {el.key} out of range", why))
        for kind, key, want in took:
            w = self._widget(kind, key)
            if w is None:
                continue
            got = w.value
            same = got == want or (
                isinstance(want, float)
                and isinstance(got, int | float)
                and math.isclose(got, want, abs_tol=1e-12)
            )
            if not same and kind in ("select_slider", "selectbox", "radio"):
                # the fuzzer rebuilds option values from their labels (3.16 for 3.1622776601683795):
                # the widget took the option if it shows the same label
                shown = _label(w, got)
                same = shown is not None and shown == _label(w, want)
            if not same:
                v.append(Violation(f"widget {key} ignored", f"set {key} to {want!r}, it shows {got!r}"))

    def _expected_input(self, source: str, lab: Any) -> Expect:
        at = self.at
        assert at is not None
        if source == "Preset":
            p, d, s = (
                self._widget(k, n)
                for k, n in (("selectbox", "preset"), ("select_slider", "d"), ("number_input", "seed"))
            )
            if p is None or d is None or s is None:
                return Either("preset controls missing")
            try:
                return Accept(tuple(ln.make_preset(p.value, int(d.value), int(s.value)).tolist()))
            except (ValueError, TypeError):
                return Either("preset controls out of range (reported separately)")
        if source == "Type numbers":
            w = self._widget("text_area", "typed")
            if w is not None and w.value != self.typed.text:  # reported as "typed text lost"
                return _core(lambda: ln.parse_vector_text(str(w.value)))
            return (
                self.typed.expect
                if not isinstance(self.typed.expect, Either)
                else _core(lambda: ln.parse_vector_text(self.typed.text))
            )
        if source == "Edit a table":
            rows = self.table_edit.apply(self.table_base) if self.table_edit else self.table_base
            return _resolve_cells(rows)
        if source == "Upload a file":
            w = self._widget("file_uploader", "upload")
            f = None if w is None else w.value
            if f is not None:
                case = self.uploads.get((f.name, f.getvalue()))
                if case is None:
                    return Either("a file the fuzzer did not upload")
                if isinstance(case.expect, Either):
                    try:
                        x = core_reads_upload(case.name, case.data)
                    except CoreCrashed as exc:  # the app's crash is reported by the exception check
                        return Either(f"the core's reader crashed: {exc}")
                    return Reject("the core refuses it") if x is None else Accept(tuple(x.tolist()))
                return case.expect
            if self.upload_kept is not None:
                return Accept(tuple(self.upload_kept.tolist()))
            return Reject("no file")
        if source == "Real token (MiniLM)":
            rec = recording()
            s, t, site = (self._widget("selectbox", k) for k in ("tok_sentence", "tok_index", "tok_site"))
            if s is None or t is None or site is None:
                return Either("token controls missing")
            real = rec.real_token_indices(int(s.value)).tolist()
            tok = int(t.value) if t.value in real else real[0]
            return Accept(tuple(rec.token_vector(int(s.value), tok, int(site.value)).tolist()))
        return Either(f"unknown source {source!r}")

    def _check_input(self, v: list[Violation], lab: Any, source: str, expect: Expect) -> None:
        at = self.at
        assert at is not None
        if source == "Type numbers":
            w = self._widget("text_area", "typed")
            if w is not None and w.value != self.typed.text:
                v.append(
                    Violation("typed text lost", f"the text box shows {w.value!r}, typed {self.typed.text!r}")
                )
        if self.prev_source == "Edit a table" and source != "Edit a table":
            # the app keeps the edited table as the starting table for when the user comes back
            self.table_base = self.table_edit.apply(self.table_base) if self.table_edit else self.table_base
            self.table_edit = None
        x = np.asarray(lab.x, dtype=float)
        if x.ndim != 1 or not 1 <= x.size <= ln.MAX_VALUES or not np.all(np.isfinite(x)):
            v.append(Violation("accepted vector not usable", f"lab.x has shape {x.shape}: {x[:5]}"))
        if lab.source != source:
            v.append(Violation("source mismatch", f"lab.source {lab.source!r}, selector {source!r}"))
        if isinstance(expect, Accept):
            want = expect.array()
            if lab.problem:
                v.append(Violation(f"valid {source} refused", f"{lab.problem!r} for {_vec(want)}"))
            elif not np.array_equal(x, want):
                v.append(Violation(f"wrong {source} vector", f"accepted {_vec(x)}, expected {_vec(want)}"))
        elif isinstance(expect, Reject):
            if not lab.problem:
                v.append(Violation(f"invalid {source} accepted", f"accepted {_vec(x)} although {expect.why}"))
            else:
                keep = self.last_good if self.last_good is not None else np.asarray(DEFAULT_VECTOR)
                if not np.array_equal(x, keep):
                    v.append(
                        Violation(
                            "last valid input not kept", f"shows {_vec(x)}, last valid was {_vec(keep)}"
                        )
                    )
                if not list(at.sidebar.error):
                    v.append(Violation("problem not shown in sidebar", f"problem {lab.problem!r}, no error"))
                if self.page in LESSON_PAGES and not (list(at.main.warning) or list(at.main.error)):
                    v.append(
                        Violation("problem not shown on page", f"problem {lab.problem!r} on {self.page}")
                    )
        if lab.problem is None:
            self.last_good = x.copy()
            if source == "Upload a file":
                self.upload_kept = x.copy()

    def _check_parameters(self, v: list[Violation], lab: Any, source: str) -> None:
        d = int(np.asarray(lab.x).size)
        g, b = np.asarray(lab.gamma, dtype=float), np.asarray(lab.beta, dtype=float)
        if g.shape != (d,) or b.shape != (d,) or not (np.all(np.isfinite(g)) and np.all(np.isfinite(b))):
            v.append(Violation("γ/β not usable", f"γ shape {g.shape}, β shape {b.shape}, d = {d}"))
            return
        eps_w = self._widget("select_slider", "eps")
        if eps_w is not None and float(lab.eps) != float(eps_w.value):
            v.append(Violation("ε mismatch", f"lab.eps {lab.eps!r}, slider {eps_w.value!r}"))
        mode = self._radio_value("affine_mode")
        if lab.affine_mode != mode:
            v.append(Violation("γ/β mode mismatch", f"lab {lab.affine_mode!r}, radio {mode!r}"))
            return
        if mode == AFFINE_MODES[0]:
            gw, bw = self._widget("slider", "gamma"), self._widget("slider", "beta")
            want_g = np.full(d, float(gw.value)) if gw is not None else g
            want_b = np.full(d, float(bw.value)) if bw is not None else b
        elif mode == AFFINE_MODES[1]:
            want_g, want_b = (_cells_vector(c) for c in self._affine_cells(d))
        elif mode == AFFINE_MODES[2]:
            s = ln.layer_norm_steps(lab.x, eps=lab.eps)
            want_g, want_b = np.full(d, float(s.sigma)), np.full(d, float(s.mu))
        elif source == "Real token (MiniLM)" and lab.problem is None:
            site = self._widget("selectbox", "tok_site")
            rec = recording()
            i = int(site.value) if site is not None else 0
            want_g, want_b = rec.gamma[i].astype(np.float64), rec.beta[i].astype(np.float64)
        elif source == "Real token (MiniLM)":
            return  # the kept vector comes from another input; γ, β fall back, nothing to pin down
        else:
            want_g, want_b = np.ones(d), np.zeros(d)
        if not (np.array_equal(g, want_g) and np.array_equal(b, want_b)):
            v.append(
                Violation(
                    f"γ/β wrong for {mode}",
                    f"γ {_vec(g)} β {_vec(b)}, expected γ {_vec(want_g)} β {_vec(want_b)}",
                )
            )

    def _affine_cells(self, d: int) -> tuple[list[Cell], list[Cell]]:
        return self.affine.get(d, ([Cell("1", 1.0)] * d, [Cell("0", 0.0)] * d))

    def _check_affine_edit(
        self, v: list[Violation], lab: Any, affine_edit: tuple[int, AffineEdit] | None
    ) -> tuple[np.ndarray, np.ndarray] | None:
        """After an edit of the per-feature table: valid cells are used (and kept), bad ones reported."""
        if affine_edit is None:
            return None
        d, edit = affine_edit
        g, b = (list(c) for c in self._affine_cells(d))
        target = g if edit.column == "γ" else b
        for i, cell in edit.edited.items():
            target[i] = cell
        expects = [_resolve_cells(col) for col in (g, b)]
        if all(isinstance(e, Accept) for e in expects):
            self.affine[d] = (g, b)
            return expects[0].array(), expects[1].array()  # type: ignore[union-attr]
        at = self.at
        assert at is not None
        if not any("γ/β" in e.value or "table" in e.value for e in at.main.error):
            v.append(Violation("bad γ/β cell not reported", f"edit {edit.edited} on {edit.column}, no error"))
        return None

    def _check_statistics(
        self, v: list[Violation], lab: Any, override: tuple[np.ndarray, np.ndarray] | None
    ) -> None:
        at = self.at
        assert at is not None
        g, b = override if override is not None else (None, None)
        expected = oracle.expected_statistics(self.page, at, lab, g, b)
        if not expected:
            return
        pending = list(expected)
        for m in page_metric_elements(at, at.main):  # st.metric and live readouts, in page order
            label = " ".join(str(m.label).split())
            stat = next((s for s in pending if s.label == label), None)
            if stat is None:
                v.append(
                    Violation(
                        f"no oracle for metric {label!r}",
                        f"page {self.page} shows {label!r} = {m.value!r}; add it to tests/fuzz/oracle.py",
                    )
                )
                continue
            pending.remove(stat)
            if stat.text is not None:
                if str(m.value) != stat.text:
                    v.append(Violation(f"metric {label!r}", f"shows {m.value!r}, expected {stat.text!r}"))
                continue
            why = oracle.shown_matches(str(m.value), float(stat.value), stat.noise)  # type: ignore[arg-type]
            if why:
                v.append(Violation(f"metric {label!r}", f"{label} {why} [x = {_vec(lab.x)}, ε = {lab.eps}]"))
            if stat.delta is not None and m.delta:
                why = oracle.shown_matches(str(m.delta), stat.delta)
                if why:
                    v.append(Violation(f"metric delta {label!r}", f"delta {why}"))
        for marker, value in oracle.expected_latex(self.page, at, lab):
            for el in [*(SimpleNamespace(value=t) for t in live_tex(at)), *at.main.latex]:
                if marker in el.value:
                    shown = oracle.latex_result(el.value)
                    if oracle.read_shown(shown) is not None:
                        why = oracle.shown_matches(shown, value, oracle.rounding(value))
                        if why:
                            v.append(Violation(f"formula on {self.page}", f"{marker}… = {why}"))
        if self.page == "3_standardize":
            why = oracle.latex_feature_check(at, lab)
            if why:
                v.append(Violation("worked feature on 3_standardize", why))
        if self.page == "5_full_formula":
            why = oracle.full_formula_table_check(at, lab)
            if why:
                v.append(Violation("full formula table", why))

    def _check_markdown(self, v: list[Violation]) -> None:
        at = self.at
        assert at is not None
        strings = [
            s
            for s in dict.fromkeys(self.user_strings)
            if isinstance(s, str) and len(s.strip()) >= 3 and any(c.isalnum() for c in s)
        ]
        if not strings:
            return
        for el in _walk(at._tree):
            if el.type not in ("markdown", "caption", "error", "warning", "info", "success", "toast"):
                continue
            md = str(el.value)
            for s in strings:
                for form in oracle.quoted_forms(s):
                    if oracle.markdown_exposed(md, form):
                        v.append(
                            Violation(
                                f"user text rendered as Markdown ({el.type})",
                                f"{form!r} appears unescaped in {md[:300]!r}",
                            )
                        )
                        break

    def _check_link(self, v: list[Violation], link: tuple[LinkParam, ...]) -> None:
        at = self.at
        assert at is not None
        texts = [str(e.value) for kind in ("warning", "info", "error") for e in getattr(at, kind)]
        kinds = {
            "src": "selectbox",
            "preset": "selectbox",
            "d": "select_slider",
            "seed": "number_input",
            "eps": "select_slider",
            "gamma": "slider",
            "beta": "slider",
        }
        for p in link:
            if p.kind == "page":
                continue  # a page's own key: checked (no crash, values in range) when that page opens
            if p.kind != "unknown" and self.page not in LESSON_PAGES:
                continue  # a sidebar key on a page that hides the vector: kept for the step pages
            if p.kind == "unknown":
                if not oracle.mentions(texts, p.key):
                    v.append(
                        Violation(
                            "unknown link key not reported", f"?{p.key}={p.raw} was ignored without a word"
                        )
                    )
                continue
            if p.kind == "repeated":
                differ = any(not _same(r, _number_or_text(p.raw[0])) for r in p.raw[1:])
                if differ and not oracle.mentions(texts, p.key):
                    v.append(
                        Violation(
                            "repeated link key not reported", f"{p.key} given {len(p.raw)} times: {p.raw}"
                        )
                    )
                continue
            assert isinstance(p.raw, str)
            w = self._widget(kinds[p.key], p.key)
            if w is None:
                if not oracle.mentions(texts, p.key):
                    v.append(
                        Violation(
                            "unused link key not reported", f"{p.key}={p.raw!r} does not apply, no message"
                        )
                    )
                continue
            if _same(p.raw, w.value):
                continue
            if p.kind == "valid":
                v.append(Violation("valid link value not used", f"{p.key}={p.raw!r} gave {w.value!r}"))
            elif not oracle.mentions(texts, p.key):
                v.append(
                    Violation(
                        "unusable link value not reported",
                        f"{p.key}={p.raw[:80]!r} gave {w.value!r}, no message",
                    )
                )


# --- helpers -----------------------------------------------------------------------------------------

_COMPONENTS: list[Any] = []


def _share_components(at: AppTest) -> None:
    """Reuse one custom-component registry for every AppTest of the run.

    Each new AppTest scans every installed package for component manifests on its first run
    (about 1.3 s here, most of a new session's cost); the result never changes within a process.
    The attribute is AppTest's own cache of that scan; without it the fuzzer is just slower.
    """
    if not hasattr(at, "_bidi_component_manager"):
        return
    if _COMPONENTS:
        at._bidi_component_manager = _COMPONENTS[0]
    else:
        from streamlit.components.v2.component_manager import BidiComponentManager

        manager = BidiComponentManager()
        manager.discover_and_register_components(start_file_watching=False)
        _COMPONENTS.append(manager)
        at._bidi_component_manager = manager


def _number_or_text(raw: str) -> Any:
    try:
        return float(raw)
    except ValueError:
        return raw


def _resolve_cells(cells: list[Cell]) -> Expect:
    """What a column of cells must read as; a cell nobody promised anything about asks the core."""
    exp = expect_from_cells(cells)
    if isinstance(exp, Either):
        return _core(lambda: ln.vector_from_table([c.raw for c in cells]))
    return exp


def _cells_vector(cells: list[Cell]) -> np.ndarray:
    exp = _resolve_cells(cells)
    assert isinstance(exp, Accept), "only valid tables are kept"
    return exp.array()


def _core(read: Callable[[], np.ndarray]) -> Expect:
    """What the core's reader makes of an input nobody promised anything about."""
    try:
        return Accept(tuple(np.asarray(read(), dtype=float).tolist()))
    except ln.InputError as exc:
        return Reject(f"the core refuses it: {exc}")
    except Exception as exc:  # the app shows this crash too, and the exception check reports it
        return Either(f"the core's reader crashed: {type(exc).__name__}: {exc}")


def _vec(x: Any) -> str:
    a = np.asarray(x, dtype=float).ravel()
    body = ", ".join(repr(float(t)) for t in a[:6])
    return f"[{body}{', …' if a.size > 6 else ''}] (d = {a.size})"


TEXT_ELEMENTS = {
    "markdown",
    "caption",
    "text",
    "code",
    "latex",
    "error",
    "warning",
    "info",
    "success",
    "toast",
    "exception",
    "title",
    "header",
    "subheader",
    "metric",
}


def _text_of(el: Any) -> str:
    if getattr(el, "type", None) not in TEXT_ELEMENTS:
        return ""  # never el.value of a dataframe or chart: decoding them is slow
    try:
        value = el.value
    except Exception:
        return ""
    return value if isinstance(value, str) else ""


SETTABLE = {
    "slider",
    "select_slider",
    "number_input",
    "selectbox",
    "radio",
    "checkbox",
    "toggle",
    "button",
    "button_group",
}


def _settable(w: Any) -> bool:
    if getattr(w, "type", None) not in SETTABLE or not getattr(w, "key", None):
        return False
    if getattr(w.proto, "disabled", False):
        return False
    if w.type in ("selectbox", "radio", "select_slider", "button_group"):
        return bool(option_values(w))
    if w.type == "slider":
        return not isinstance(w.value, list | tuple)
    return True


def _label(w: Any, value: Any) -> str | None:
    """A choice widget's label for ``value`` (its format_func), None if it cannot say."""
    try:
        return str(w.format_func(value))
    except Exception:
        return None


def option_values(w: Any) -> list[Any]:
    """The values behind a choice widget's option labels (what ``set_value`` needs)."""
    try:
        ff = w.format_func
    except Exception:
        ff = str
    options = list(w.options)
    candidates: list[Any] = list(range(len(options)))
    for o in options:
        for conv in (int, float):
            try:
                candidates.append(conv(o))
            except ValueError:
                pass
    owner = getattr(ff, "__self__", None)
    if isinstance(owner, dict):
        candidates += list(owner)
    candidates += options
    try:  # values of the widget's own type first: 0.2 rather than the label "0.2" (str when unset)
        kind = type(w.value) if w.value is not None else str
        candidates.sort(key=lambda c: not isinstance(c, kind))
    except Exception:
        pass
    found: dict[str, Any] = {}
    for c in candidates:
        try:
            label = str(ff(c))
        except Exception:
            continue
        if label in options and label not in found:
            found[label] = c
    return [found[o] for o in options if o in found]


@st.composite
def widget_values(draw: st.DrawFn, w: Any) -> tuple[Any, bool]:
    """A value for widget ``w`` and whether it is a value the widget offers (so it must take)."""
    t = w.type
    if t == "button":
        return None, False
    if t in ("checkbox", "toggle"):
        return draw(st.booleans()), True
    if t in ("selectbox", "radio", "select_slider", "button_group"):
        return draw(st.sampled_from(option_values(w))), True
    lo, hi = float(w.proto.min), float(w.proto.max)
    is_int = isinstance(w.value, int) and not isinstance(w.value, bool)
    step = float(w.step) if getattr(w, "step", None) else 1.0
    if is_int:
        inside = st.integers(int(lo), int(hi))
        outside = st.sampled_from([int(lo) - 1, int(hi) + 1, int(hi) * 10 + 7])
        value = draw(st.one_of(inside, inside, st.sampled_from([int(lo), int(hi)]), outside))
        return value, lo <= value <= hi
    n = max(round((hi - lo) / step), 0)
    on_grid = st.integers(0, n).map(lambda k: round(lo + k * step, 10))
    off_grid = st.floats(lo, hi, allow_nan=False)
    outside = st.sampled_from([lo - step, hi + step, hi * 10 + 1])
    value = draw(st.one_of(on_grid, on_grid, off_grid, st.sampled_from([lo, hi]), outside))
    return value, lo <= value <= hi


def _out_of_range(el: Any) -> str | None:
    t = getattr(el, "type", None)
    try:
        if t == "slider" and not isinstance(el.value, list | tuple):
            lo, hi = float(el.proto.min), float(el.proto.max)
            if not lo - 1e-9 <= float(el.value) <= hi + 1e-9:
                return f"slider {el.key} = {el.value!r} outside [{lo}, {hi}]"
        if t == "number_input" and el.value is not None:
            if el.proto.has_min and float(el.value) < el.proto.min:
                return f"number_input {el.key} = {el.value!r} below {el.proto.min}"
            if el.proto.has_max and float(el.value) > el.proto.max:
                return f"number_input {el.key} = {el.value!r} above {el.proto.max}"
    except (TypeError, ValueError):
        return f"{t} {getattr(el, 'key', '?')} holds {getattr(el, 'value', '?')!r}"
    return None


class LogCapture(logging.Handler):
    """Collects what Streamlit logs during the runs: a warning in the server log is a fault too."""

    IGNORED = (
        "missing ScriptRunContext",  # AppTest runs scripts in bare mode
        "Uncaught app execution",  # the exception element reports it
        "No runtime found",  # st.cache_data.clear() outside a server
    )

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        if not any(s in record.getMessage() for s in self.IGNORED):
            self.records.append(record)

    def drain(self) -> list[str]:
        self.attach()
        out = [f"{r.name}: {r.getMessage()[:400]}" for r in self.records]
        self.records.clear()
        return out

    def attach(self) -> None:
        """Listen on every Streamlit logger (they do not propagate) and mute their console output."""
        from streamlit import logger as st_logger

        for log in list(st_logger._loggers.values()):
            if self not in log.handlers:
                log.addHandler(self)
            console = getattr(log, "streamlit_console_handler", None)
            if console is not None:
                console.setLevel(logging.CRITICAL + 1)


LOGS = LogCapture()


def quiet_streamlit() -> None:
    """Route Streamlit's log to :data:`LOGS` (checked after every run) instead of the terminal."""
    LOGS.attach()
