"""The guided tour: one path through the lesson, one thing to do at each stop.

The stops are data (:data:`ui.tour_stops.STOPS`): each names its page, the control to use (its key,
whose ``.st-key-<key>`` element is outlined), what to look at and do, and a function that says, from
the page's state, what just happened once the student has done it (with the page's numbers).

- **The step is in the address** (``tour=7``): a hidden ``controls.number_input`` bound to the URL and
  kept for the session, drawn on every page (``app.py``), so a link, Back/Forward, a reload, the
  teacher's "send the class here" and paced mode all carry it. ``tour=0`` (no parameter) is no tour.
- **The card** is drawn at the top of the page's main area once the page has run (:func:`card`, into
  the place :func:`bar` kept before it): chapter, "Step n of N", the stop's words, what the student
  just did, and Back, Next (Finish on the last stop) and Leave the tour. It is not a modal: every
  control of the page stays usable. Back and Next open the stop's page as the menu's link does (the
  browser clicks it: the step and every control keep their values); a page opened from the menu
  mid-tour shows the card with a button to the stop.
- **Noticing an action**: the card is redrawn by every whole-app run. A control inside a page's
  fragment reruns only that fragment, so each fragment run asks :func:`after_fragment` whether the
  stop's state changed since the card was drawn, and reruns the app only then.
- **Focus and keys** (``ui/tour.js``): focus goes to the card's heading when the step changes,
  *Show me the control* scrolls the outlined control into view and focuses it, and Escape leaves the
  tour (not while a text field, list or menu has the focus). Leaving keeps the step:
  *Resume the tour* (sidebar, Home) returns to it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import streamlit as st

from ui import controls, fragments, session
from ui.settings import LabInput
from ui.tour_stops import STOPS, Look, Stop

KEY = "tour"  # the step in the address (ui.keys.PAGE_KEYS["app"]); 0: no tour
CARD = "tour_card"  # the card's container key (.st-key-tour_card)

# The hidden step control (a link's message about it stays visible), and the outline of the control a
# stop asks for. Vermillion (#D55E00) is 3.9:1 on white and 4.3:1 on the dark background: a 3 px
# outline is a visible non-text mark in both themes (WCAG 1.4.11 asks 3:1).
STYLE = (
    "<style>.st-key-tour_state .stElementContainer:has([data-testid='stNumberInput']) { display: none; }"
    f".st-key-{CARD} h3:focus-visible {{ outline: 2px solid currentColor; outline-offset: 2px; }}"
    "</style>"
)
TARGET_STYLE = (
    "<style>.st-key-{key} {{ outline: 3px solid #D55E00; outline-offset: 6px; border-radius: 0.5rem; "
    "box-shadow: 0 0 0 9px color-mix(in srgb, #D55E00 18%, transparent); }}</style>"
)


def step() -> int:
    """The tour's step (1 … N), or 0 when no tour runs."""
    v = session.widgets.get(KEY)
    return int(v) if isinstance(v, int | float) and 1 <= v <= len(STOPS) else 0


# --- moves (buttons' callbacks: they run before the script) ---------------------------------------


def _go(n: int) -> None:
    session.widgets.set(KEY, n)
    session.tour.go.set(True)
    session.tour.visit.set(session.tour.visit.get() + 1)  # the card's title takes the focus again


def _leave() -> None:
    session.tour.left_at.set(step())
    session.tour.at.set(0)
    session.widgets.set(KEY, 0)


def _start() -> None:
    left = session.tour.left_at.get()
    _go(left if 1 <= left <= len(STOPS) else 1)


def start_button(where: Any = st, *, key: str = "tour_start") -> None:
    """*Start the guided tour*, or *Resume the tour at step n* after Leave (the sidebar, Home)."""
    left = session.tour.left_at.get()
    label = f"Resume the tour at step {left}" if 1 <= left <= len(STOPS) else "Start the guided tour"
    where.button(label, key=key, on_click=_start, icon=":material/tour:", width="stretch")


# --- the run --------------------------------------------------------------------------------------


def bar(page: str) -> Any:
    """``app.py``, before the page: the step's control, a pending Back or Next's page switch, the
    sidebar's Start button, and the card's place at the top of the main area (returned)."""
    st.html(STYLE)
    with st.sidebar.container(key="tour_state"):  # not the main area: that is the page's controls' place
        controls.number_input("Tour step", 0, len(STOPS), 0, key=KEY, name="tour step (0: no tour)")
    n = step()
    if not n:
        start_button(st.sidebar)
    return st.container()


def _look(page: str, n: int) -> Look:
    lab = session.lab.lab.get()
    lab = lab if isinstance(lab, LabInput) else None
    stop = STOPS[n - 1]
    kept = session.tour.arrived_x.get()
    resized = lab is not None and kept is not None and len(kept) != lab.x.nbytes  # d changed: start again
    if session.tour.at.get() != n or session.tour.arrived_on.get() != page or resized:
        # arrived at this stop (or at its page): what the page holds now is where the student starts
        session.tour.at.set(n)
        session.tour.arrived_on.set(page)
        session.tour.arrived_x.set(lab.x.tobytes() if lab is not None else None)
        session.tour.arrived.set(session.widgets.get(stop.watch) if stop.watch else None)
    return Look(page, lab, session.tour.arrived_x.get(), session.tour.arrived.get())


def _done(stop: Stop, look: Look) -> str | None:
    return stop.done(look) if stop.done is not None and look.page == stop.page else None


def card(place: Any, page: str) -> None:
    """``app.py``, after the page: the card for the tour's step, drawn into ``place``."""
    n = step()
    if not n:
        if session.tour.at.get():  # the tour ended without Leave (a teacher's lead, a link): resumable
            session.tour.left_at.set(session.tour.at.get())
        session.tour.at.set(0)
        session.tour.shown.set(None)
        return
    stop = STOPS[n - 1]
    # Back, Next or Go asked for the stop's page: the browser opens it as the menu's link does (the
    # bound controls keep their values; st.switch_page refuses an address with bound keys in it)
    going = session.tour.go.pop() and page != stop.page
    look = _look(page, n)
    done = _done(stop, look)
    if session.tour.shown.get() == (n, None) and done is not None:
        # the card may be out of sight above the control just used: a toast says it in view, briefly
        st.toast(f"Tour step {n} done: the card at the top of the page says what happened.", icon="✅")
    session.tour.shown.set((n, done))
    target = stop.outlined(look) if page == stop.page else None  # the key of the control outlined
    with place.container(key=CARD, border=True):
        st.caption(f"Guided tour · {stop.chapter} · step {n} of {len(STOPS)}")
        st.subheader(stop.title, anchor=False)
        if page != stop.page:
            st.markdown(f"This step is on **{stop.page_title}**.")
            st.button(
                f"Go to {stop.page_title}",
                key="tour_go_there",
                on_click=_go,
                args=(n,),
                icon=":material/arrow_forward:",
            )
        else:
            st.markdown(stop.say(look) if callable(stop.say) else stop.say)
            if done is not None:
                st.success(done, icon=":material/check_circle:")
            if target is not None:
                st.html(TARGET_STYLE.format(key=target))
                # the control is often screens below the card (2.3 screens on Standardize at 1280×720):
                # the button brings it into view and gives it the focus (ui/tour.js)
                st.button(
                    "Show me the control",
                    key="tour_show",
                    icon=":material/south:",
                    on_click=_show_control,
                )
        # one row at every width (columns stack on a phone: three full-width buttons made the card
        # taller than the first screen, and the outlined control fell below it)
        row = st.container(horizontal=True, wrap=False, key="tour_buttons")
        row.button(
            "Back",
            key="tour_back",
            icon=":material/arrow_back:",
            on_click=_go,
            args=(n - 1,),
            disabled=n == 1,
            width="stretch",
        )
        if n < len(STOPS):
            row.button(
                "Next",
                key="tour_next",
                on_click=_go,
                args=(n + 1,),
                icon=":material/arrow_forward:",
                width="stretch",
            )
        else:
            row.button(
                "Finish the tour",
                key="tour_finish",
                on_click=_finish,
                icon=":material/flag:",
                width="stretch",
            )
        row.button("Leave the tour", key="tour_leave", on_click=_leave, width="stretch")
        visit = f"{n}:{session.tour.visit.get()}"  # a new step, or the same one resumed: focus the title
        show = {"key": target, "presses": session.tour.show.get()} if target is not None else None
        _keys(data={"step": visit, "go": stop.page if going else None, "n": n, "show": show}, key="tour_keys")


def _show_control() -> None:
    session.tour.show.set(session.tour.show.get() + 1)  # ui/tour.js scrolls to the control on a new count


def _finish() -> None:
    session.tour.left_at.set(0)
    session.tour.at.set(0)
    session.widgets.set(KEY, 0)


def after_fragment() -> None:
    """A page fragment's run (``ui.fragments``): the whole app reruns when the stop's state moved since
    the card was drawn, so that the card says what the student just did."""
    n = step()
    shown = session.tour.shown.get()
    if not n or shown is None or shown[0] != n:
        return
    stop = STOPS[n - 1]
    lab = session.lab.lab.get()
    look = Look(
        session.live.page.get() or "",
        lab if isinstance(lab, LabInput) else None,
        session.tour.arrived_x.get(),
        session.tour.arrived.get(),
    )
    if _done(stop, look) != shown[1]:
        st.rerun(scope="app")


fragments.after_own_run.append(after_fragment)

_keys = st.components.v2.component(
    "lab_tour_keys",
    html="<style>.st-key-tour_keys { display: none; }</style>",
    js=Path(__file__).with_name("tour.js").read_text(encoding="utf-8"),
    isolate_styles=False,
)
