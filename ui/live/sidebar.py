"""The sidebar's ε, γ and β as live sliders: a drag shows the page at every value they offer.

The sidebar is drawn before the page, but its sliders' frames are the page's: each page that shows
numbers the sidebar changes says how, once per run, with :func:`view` (its frame as a function of the
input, the function it draws itself with). ``ui.sidebar`` keeps a place under each hidden kept slider;
:func:`draw` (``app.py``, after the page) fills it with a live slider whose frames are the page's view
at each value, the other controls as they are.

A release reruns the whole app, which draws the kept slider again: a keyed rerun of the page's lab
sections (what the sidebar's plain sliders did) leaves the browser's copy of the kept slider at its
old value, and the browser's next message took the value back (measured in
``tests/e2e/test_live_sidebar.py``). After a move of a page control (its fragment reruns alone), the
browser sees that a sidebar slider's frame for its value is not what the page shows any more and asks
for new frames, which reruns the app.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from ui import live, session
from ui.live import Frame
from ui.settings import (
    EPS_CHOICES,
    EPS_HELP,
    GAMMA_BETA_SLIDER,
    LabInput,
    eps_link,
    eps_text,
    lab_at,
    noted,
    noting,
)

LABELS = {
    "eps": "ε (inside the square root)",
    "gamma": "γ (scale, every feature)",
    "beta": "β (shift, every feature)",
}


def view(
    frame: Callable[[LabInput], Frame], token: object, lab: LabInput, part: str = "page"
) -> list[dict[str, object]]:
    """Say what the sidebar's sliders change on this page, and return their payloads (for
    ``live.show_chart``: a chart's axis holds every frame of every live control).

    ``frame(lab)`` is the page's frame for the input ``lab``, its own controls as they are now, which
    ``token`` names (any hashable value that changes when they do). A page whose sections each show
    numbers the sidebar changes calls this once per section, each with its own ``part``: the sidebar's
    frames hold every part's readouts and charts.

    The frames are made from the sidebar's input itself, not from a lab section's ``lab``: the sidebar's
    sliders rerun with every move of theirs, so a section must not count γ as read because of them
    (``ui.state.lab_section`` notes what its ``lab`` is asked for).
    """
    parts = dict(session.live.view.get() or {})
    parts[part] = (frame, token)
    session.live.view.set(parts)
    sidebar = session.lab.lab.get()
    untracked = sidebar if isinstance(sidebar, LabInput) else lab
    places = session.live.places.get()
    # The places exist during a full run only (draw() takes them): a section's own rerun finds the
    # sliders the last full run drew
    keys = list(places) if places else list(session.live.sidebar_drawn.get())
    return [_frames(key, untracked) for key in keys]


@functools.cache
def _values(key: str) -> tuple[tuple[float, ...], tuple[str, ...], tuple[str, ...], float]:
    """The values a sidebar slider offers, its labels, its URL texts and its default (made once: they
    were 4 % of a class's server CPU when made on every run)."""
    if key == "eps":
        choices = tuple(EPS_CHOICES)
        return choices, tuple(map(eps_text, choices)), tuple(map(eps_link, choices)), 1e-5
    lo, hi, step = GAMMA_BETA_SLIDER
    values = tuple(live.offered(lo, hi, step))
    return (
        values,
        tuple(live.slider_text(v) for v in values),
        tuple(f"{v:g}" for v in values),
        1.0 if key == "gamma" else 0.0,
    )


def _frames(key: str, lab: LabInput) -> dict[str, object]:
    values, labels, _, default = _values(key)
    parts: dict[str, tuple[Callable[[LabInput], Frame], object]] = session.live.view.get() or {}
    if not parts:  # the page shows nothing the sidebar changes: frames without readouts or charts
        return live.payload(values, lambda v: Frame(()), labels)
    token = tuple((part, t) for part, (_, t) in parts.items())

    def frame(at: LabInput) -> Frame:
        shown = [f(at) for f, _ in parts.values()]
        return Frame(tuple(r for f in shown for r in f.readouts), tuple(c for f in shown for c in f.charts))

    moved = {
        "eps": lambda v: lab_at(lab, eps=v),
        "gamma": lambda v: lab_at(lab, g=v),
        "beta": lambda v: lab_at(lab, b=v),
    }[key]

    def make() -> dict[str, object]:
        if key != "eps":  # γ or β: a view that reads neither is the same at every value of either
            with noting() as read:
                here = frame(noted(lab))
            if not read & {"gamma", "beta"}:
                return live.payload(values, lambda v: here, labels)
        return live.payload(values, lambda v: frame(moved(v)), labels)

    # A slider's frames replace its own value, so they do not depend on it: the input's fingerprint at
    # the default is the key, and a release of γ finds γ's frames made (only ε's and β's depend on γ).
    where = (session.live.page.get(), key, token, moved(default).fingerprint())
    return _shared_payload(where, make)


@live.frames_cache(max_entries=64)
def _shared_payload(where: tuple[object, ...], _make: Callable[[], dict[str, object]]) -> dict[str, object]:
    """The payload ``_make()`` gives for ``where`` (page, slider, the page's token, the input with that
    slider at its default), made once
    per process: every session that opens a page with the same input and controls (a class on the
    lesson's default vector) gets the same frames, and one page's frames of ε, γ and β are about 280
    of its views."""
    return _make()


def _slider(key: str) -> None:
    lab = session.lab.lab.get()
    if not isinstance(lab, LabInput):
        return
    values, labels, urls, default = _values(key)
    current = float(session.widgets.get(key, default))
    live._mount(
        LABELS[key],
        values,
        labels,
        urls,
        current,
        default,
        key=key,
        frames=lambda: _frames(key, lab),
        help=EPS_HELP if key == "eps" else None,
    )


def draw() -> None:
    """Fill the places the sidebar kept (``ui.sidebar``) with live sliders (``app.py``, after the page)."""
    places = session.live.places.pop() or {}
    for key, place in places.items():
        with place:
            _slider(key)
    session.live.sidebar_drawn.set(tuple(places))
