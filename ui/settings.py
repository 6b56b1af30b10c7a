"""The lab's input as data: what the sidebar's controls say (:class:`Settings`), and the one pure
function that turns them into what every page reads (:func:`lab_from` gives a :class:`LabInput`).

No Streamlit here. The sidebar (``ui.sidebar``) reads its widgets into a :class:`Settings`; a live
slider's frame (:func:`lab_at`), a dragged bar's release (:func:`lab_typed`) and a keyed move of the
sidebar (``ui.sidebar``) each change a copy of the input's settings and call :func:`lab_from` again,
so every path computes γ, β and the sidebar's notes the same way.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field, fields, replace
from typing import Any

import numpy as np

import layernorm as ln
from ui import links

SOURCES = ["Preset", "Type numbers", "Edit a table", "Upload a file", "Real token (MiniLM)"]
# fmt: off
D_CHOICES = [
    2, 3, 4, 5, 6, 8, 10, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 2048, 3072, 4096,
]
# fmt: on
EPS_CHOICES = [float(f"{m}e{k}") for k in range(-12, 0) for m in (1, 2, 5)] + [1.0]
EPS_HELP = "PyTorch's default is 1e-5; BERT/MiniLM use 1e-12, Keras 1e-3."
AFFINE_MODES = [
    "Same γ, β for every feature",
    "Per feature (edit on Scale & shift)",
    "Undo for this vector: γ = σ, β = μ",
    "MiniLM's learned γ, β",
]
SAME, PER_FEATURE, UNDO, LEARNED = AFFINE_MODES
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
    PER_FEATURE: (
        "A link carries no per-feature γ, β, so every feature starts at γ = 1, β = 0: edit them on "
        "Scale & shift."
    ),
}
URL_KEYS = ("src", "preset", "d", "seed", "eps", "gamma", "beta", "typed", "affine_mode")
TOKEN_KEYS = ("tok_sentence", "tok_index", "tok_site")  # options from the recording: ui.linking
# Characters of typed numbers a link may carry: far more than the longest vector the lab reads
# (ln.MAX_VALUES numbers), so a longer link is cut (and says so) only where it could not be valid.
MAX_TYPED = 200_000
GAMMA_BETA_SLIDER = (-3.0, 3.0, 0.05)  # min, max, step of the shared γ and β sliders
# The input's fields a keyed sidebar move can change (the lab sections note which ones they read).
MOVABLE = frozenset({"x", "label", "gamma", "beta", "eps"})


def eps_text(eps: float) -> str:
    """ε as its slider shows it: ``1e-07``, ``1e+00``."""
    return f"{eps:.0e}"


def eps_link(eps: float) -> str:
    """ε as the URL carries it (and its kept slider writes it): ``1e-07``, ``1e0``."""
    return links.link_text(eps_text(eps))


# How a link's value is read, per key: the widget it feeds, with that widget's own options and range.
LINK_KEYS: dict[str, links.LinkKey] = {
    "src": links.LinkKey("input", links.Words(SOURCES, SOURCES[0], "inputs")),
    "preset": links.LinkKey("preset", links.Words(list(ln.PRESETS), next(iter(ln.PRESETS)), "presets")),
    "d": links.LinkKey("d", links.Choice(D_CHOICES, 8, lambda v: str(int(v)), "size")),
    "seed": links.LinkKey("seed", links.Range(0, 9999, 1, 0, "seed")),  # the Seed number_input
    "eps": links.LinkKey("ε", links.Choice(EPS_CHOICES, 1e-5, eps_link, "ε")),
    "gamma": links.LinkKey("γ", links.Range(*GAMMA_BETA_SLIDER, 1.0, "γ")),
    "beta": links.LinkKey("β", links.Range(*GAMMA_BETA_SLIDER, 0.0, "β")),
    "typed": links.LinkKey("numbers", links.Text(DEFAULT_TEXT, MAX_TYPED, "numbers")),
    "affine_mode": links.LinkKey("γ and β", links.Words(AFFINE_MODES, SAME, "ways to set γ and β")),
}


@dataclass(frozen=True)
class Token:
    """A real MiniLM token's learned γ, β, its recorded output and its LayerNorm's ε."""

    gamma: np.ndarray
    beta: np.ndarray
    y: np.ndarray
    eps: float


@dataclass(frozen=True)
class Settings:
    """What the sidebar says: the vector its chosen input gives, and how γ, β and ε are set."""

    x: np.ndarray
    label: str
    source: str
    eps: float
    affine_mode: str
    g: float = 1.0  # the shared γ slider (used by the first γ/β mode only)
    b: float = 0.0  # the shared β slider
    per_feature: tuple[np.ndarray, np.ndarray] | None = None  # the table's γ, β for x's size
    token: Token | None = None  # when the input is a real MiniLM token
    problem: str | None = None  # the input's problem, when ``x`` is the last valid vector instead


@dataclass(frozen=True)
class LabInput:
    """Everything a page needs: the vector and the parameters, all validated (made by :func:`lab_from`).

    The settings it was made from, and what :func:`affine` made of them: γ, β and the sidebar's notes.
    Everything else is read from the settings.
    """

    settings: Settings = field(repr=False)
    gamma: np.ndarray
    beta: np.ndarray
    notes: list[str]

    @property
    def x(self) -> np.ndarray:
        return self.settings.x

    @property
    def label(self) -> str:
        return self.settings.label

    @property
    def source(self) -> str:
        return self.settings.source

    @property
    def eps(self) -> float:
        return self.settings.eps

    @property
    def affine_mode(self) -> str:
        return self.settings.affine_mode

    @property
    def problem(self) -> str | None:
        return self.settings.problem

    @property
    def recorded_y(self) -> np.ndarray | None:
        """A real token's output as MiniLM computed it (None for any other input)."""
        return None if self.settings.token is None else self.settings.token.y

    @property
    def model_eps(self) -> float | None:
        """A real token's LayerNorm ε in MiniLM (None for any other input)."""
        return None if self.settings.token is None else self.settings.token.eps

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


def affine(s: Settings) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """γ, β (each of ``x``'s size) and the sidebar's notes under them, for the settings' γ/β mode."""
    d = s.x.size
    if s.affine_mode == LEARNED:
        if s.token is not None:
            return s.token.gamma, s.token.beta, []
        note = "MiniLM's learned γ, β need a real MiniLM token as input; using γ = 1, β = 0."
        return np.ones(d), np.zeros(d), [note]
    if s.affine_mode == UNDO:
        steps = ln.layer_norm_steps(s.x, eps=s.eps)
        return np.full(d, float(steps.sigma)), np.full(d, float(steps.mu)), []
    if s.affine_mode == PER_FEATURE:
        if s.per_feature is None or any(v.size != d for v in s.per_feature):
            raise ValueError(f"per-feature γ, β for d = {d} are missing")
        note = f"Per-feature γ, β for d = {d} (each d keeps its own table): edit them on Scale & shift."
        return s.per_feature[0], s.per_feature[1], [note]
    return np.full(d, s.g), np.full(d, s.b), []


def lab_from(s: Settings) -> LabInput:
    """The input every page reads, from what the sidebar says: the one way a :class:`LabInput` is made."""
    gamma, beta, notes = affine(s)
    return LabInput(settings=s, gamma=gamma, beta=beta, notes=notes)


def lab_at(
    lab: LabInput, *, eps: float | None = None, g: float | None = None, b: float | None = None
) -> LabInput:
    """``lab`` with the sidebar's ε, shared γ or shared β moved (what a live sidebar slider's frame shows).

    γ and β follow the γ/β mode: the shared sliders' values; "Undo" (this vector's σ and μ), a
    per-feature table and a MiniLM token's learned values stay.
    """
    s = lab.settings
    return lab_from(
        replace(s, eps=s.eps if eps is None else eps, g=s.g if g is None else g, b=s.b if b is None else b)
    )


def lab_typed(lab: LabInput, x: np.ndarray) -> LabInput:
    """``lab`` once ``x`` (of the same size) is its typed input, as a dragged bar's release makes it: γ and β
    follow the γ/β mode for ``x`` (σ and μ for "Undo"; a MiniLM token's learned values go with the token)."""
    return lab_from(
        replace(lab.settings, x=x, label="typed vector", source=SOURCES[1], token=None, problem=None)
    )


def changed_fields(old: LabInput, new: LabInput) -> frozenset[str]:
    """The fields of :data:`MOVABLE` whose values differ between ``old`` and ``new`` (arrays bit for bit)."""

    def same(a: object, b: object) -> bool:
        if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
            a, b = np.asarray(a), np.asarray(b)
            return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()
        return a == b

    return frozenset(f for f in MOVABLE if not same(getattr(old, f), getattr(new, f)))


_READING: ContextVar[set[str] | None] = ContextVar("lab_reading", default=None)


class NotedInput(LabInput):
    """A :class:`LabInput` in every way (``replace``, ``isinstance``) that notes which of :data:`MOVABLE`
    it is asked for, inside :func:`noting` (``lab.d`` reads ``x``)."""

    def __getattribute__(self, name: str) -> Any:
        if name in MOVABLE:
            reading = _READING.get()
            if reading is not None:
                reading.add(name)
        return super().__getattribute__(name)


def noted(lab: LabInput) -> NotedInput:
    """``lab`` as a :class:`NotedInput`."""
    return NotedInput(**{f.name: getattr(lab, f.name) for f in fields(LabInput)})


@contextlib.contextmanager
def noting() -> Iterator[set[str]]:
    """The fields of :data:`MOVABLE` a :class:`NotedInput` is asked for while the block runs."""
    reading: set[str] = set()
    token = _READING.set(reading)
    try:
        yield reading
    finally:
        _READING.reset(token)


def note_everything() -> None:
    """Note every field of :data:`MOVABLE` as read (code that depends on the input in another way)."""
    reading = _READING.get()
    if reading is not None:
        reading.update(MOVABLE)
