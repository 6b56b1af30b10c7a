"""The pages' fragments: sections that rerun alone when their own controls move.

:func:`page_fragment` is ``st.fragment`` plus one rule (a fragment's own rerun is the user's action,
so a link's messages elsewhere on the page go); :func:`rerun_fragments` reruns named fragments from a
widget's callback (Streamlit's keyed rerun).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar, cast, overload

import streamlit as st

from ui import session


def fragment_only_run() -> bool:
    """Is this run a fragment's own rerun (a control inside an ``st.fragment`` moved), not a full run?

    Such a run starts from the user's action (a link's rerun is a full one, and the one timed
    fragment, Training step by step's, runs only while the user's Play lasts), but it skips
    ``app.py`` and so ``ui.sidebar.sidebar``, where a full run clears the link's messages. Streamlit
    has no public way to ask this, hence its run context (a private Streamlit name, listed with the
    others in docs/ARCHITECTURE.md, "Workarounds").
    """
    from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

    ctx = get_script_run_ctx(suppress_warning=True)
    return bool(ctx is not None and ctx.fragment_ids_this_run)


def end_link_news() -> None:
    """In a fragment's own rerun (the user acted): take a link's messages off the whole page.

    A link's messages stay until the user's next action. A full run clears them (``ui.sidebar.sidebar``),
    but a fragment's rerun redraws only its own section: a message in another section or in the
    sidebar would stay on screen (Training vs inference's n note after a move of the redraws). So the
    first action after a run that drew any reruns the whole app instead, without them; later
    actions rerun their fragment alone. Every fragment of the app calls this first on each run
    (:func:`page_fragment`, which ``ui.state.lab_section`` uses too). A full run: nothing.
    """
    if session.live.not_the_user.pop() or not fragment_only_run():
        return
    session.links.notes.get().clear()
    if session.links.news.pop():
        session.links.report.clear()
        st.rerun(scope="app")


F = TypeVar("F", bound=Callable[..., Any])

# Called after each of a page section's own reruns by the user: the guided tour's card (ui.tour adds
# its check) must say what the student just did, and a section's rerun does not redraw it.
after_own_run: list[Callable[[], None]] = []


@overload
def page_fragment(
    func: F, *, key: str | None = None, run_every: float | None = None, by_user: bool = True
) -> F: ...
@overload
def page_fragment(
    func: None = None, *, key: str | None = None, run_every: float | None = None, by_user: bool = True
) -> Callable[[F], F]: ...
def page_fragment(
    func: F | None = None, *, key: str | None = None, run_every: float | None = None, by_user: bool = True
) -> F | Callable[[F], F]:
    """Decorator: ``st.fragment`` for a page's section, whose own reruns take a link's messages away.

    Use it wherever a page (or a ``ui`` helper) would write ``@st.fragment`` or
    ``@st.fragment(key=...)``; ``tests/test_page_fragments.py`` checks that nothing else uses
    ``st.fragment``. Every run of the section first calls :func:`end_link_news`: a fragment's own
    rerun is the user's action (a slider, a radio, a button, an answer), whichever of its widgets it
    was, so a link's messages elsewhere on the page go with it.

    Parameters
    ----------
    func : callable, optional
        The section; called like the function it decorates (a fragment keeps its arguments for
        its own reruns).
    key : str, optional
        A keyed fragment (Streamlit 1.67's ``st.fragment(key=...)``), which ``st.rerun([key])``
        and :func:`rerun_fragments` can rerun by name. Unique in the app.
    run_every : float, optional
        Seconds between the section's own timed reruns (``st.fragment(run_every=...)``): a Play
        button's animation, started by the user, so its reruns count as the user's action too.
    by_user : bool, default True
        False for a section whose timed reruns are not the user's doing (class mode's polling of
        the class): they leave a link's messages where they are.

    Returns
    -------
    callable
        The fragment, or a decorator when ``func`` is omitted.
    """

    def wrap(body: F) -> F:
        drawn_on: dict[str, str | None] = {}

        @functools.wraps(body)
        def section(*args: Any, **kwargs: Any) -> Any:
            from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

            ctx = get_script_run_ctx(suppress_warning=True)
            here = ctx.page_script_hash if ctx is not None else None
            if fragment_only_run():
                # A rerun of this section asked for by its page, arriving after a switch to another
                # page (a component's message sent just before a page link's): Streamlit would run it
                # on the new page, whose tree has no place for it ("Bad delta path index"; the app
                # went blank). The new page is drawn whole instead.
                if drawn_on.get("page") not in (None, here):
                    st.rerun(scope="app")
            else:
                drawn_on["page"] = here
            if by_user:
                end_link_news()
            result = body(*args, **kwargs)
            if by_user and fragment_only_run():
                for after in after_own_run:
                    after()
            return result

        return cast(F, st.fragment(section, key=key, run_every=run_every))

    return wrap if func is None else wrap(func)


def rerun_fragments(*keys: str) -> None:
    """Widget callback: rerun only the named fragments (in page order), not the one the widget is in.

    For a control whose value several of a page's fragments read (``on_change=rerun_fragments,
    args=(...)``): Streamlit 1.67's keyed rerun from a callback, which replaces the interaction's
    default rerun of the widget's own fragment. ``ui.session.sections.rerun`` records the keys, as
    for the sidebar's moves (``tests/conftest.py`` reads it).
    """
    session.sections.rerun.set(keys)
    st.rerun(list(keys))
