"""The page pattern shared by every lesson page.

Order on a page: :func:`header` (title and the idea), the formula, controls,
the core call, charts, :func:`notice` and :func:`predict_then_reveal`, and last
:func:`show_source` with the code that computed the numbers.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Sequence
from typing import Any

import streamlit as st

from ui import class_session as cs
from ui import class_views, session
from ui.fragments import page_fragment
from ui.shell import ensure_app_shell

# Streamlit 1.67 cuts a long st.page_link label at its column's edge, mid-word: its ellipsis is set on
# a span whose text sits in a nested <p>, so none shows ("Which axis? — LayerNorm, BatchNorm and" on
# Home in a 1100-pixel window). Labels in the main area wrap instead; the sidebar's navigation is
# Streamlit's own and keeps its one line.
_LINK = '[data-testid="stMain"] [data-testid="stPageLink-NavLink"]'
_MD = '[data-testid="stMarkdownContainer"]'
PAGE_LINKS_WRAP = (
    f"<style>{_LINK} span:has(> {_MD}), {_LINK} {_MD}, {_LINK} p "
    "{ white-space: normal; overflow: visible; line-height: 1.4; }</style>"
)


def wrap_page_links() -> None:
    """Let the page's ``st.page_link`` labels wrap onto a second line rather than be cut off.

    Draws one ``<style>`` element (no room on the page); call it once on a page with long link labels.
    """
    st.html(PAGE_LINKS_WRAP)


def header(title: str, idea: str) -> None:
    """Title and the page's idea in one short paragraph."""
    ensure_app_shell()
    st.title(title)
    st.markdown(idea)


def notice(points: Sequence[str]) -> None:
    """The "what to notice" box: a few observations a student should check on the chart."""
    with st.container(border=True):
        st.markdown("**What to notice**\n\n" + "\n".join(f"- {p}" for p in points))


def predict_then_reveal(
    key: str, question: str, options: Sequence[str], answer: int, explanation: str
) -> None:
    """Ask the student to commit to a prediction, then reveal the answer and why.

    The box is a fragment of its own: choosing an answer or revealing it reruns the box only.
    A full rerun would also cut short whatever the page is running (a learning-rate sweep,
    an auto-run of training batches): a fragment's rerun waits for it instead.
    """

    def result(choice: int | None, *, theirs: bool = True) -> None:
        """The verdict on option ``choice``; ``theirs`` False: the teacher's screen (no answer to judge)."""
        if choice == answer:
            st.success(f"Right: {options[answer]}. {explanation}")
        elif choice is not None:
            st.warning(f"Not quite: the answer is {options[answer]}. {explanation}")
        elif theirs:  # a student in a class whose answer the class does not hold
            st.info(f"No answer of yours is in: the answer is {options[answer]}. {explanation}")
        else:
            st.info(f"The answer: {options[answer]}. {explanation}")

    def guess_key() -> str:
        """The prediction's widget: a new one for each round of the question in a class (after *Vote
        again* a student answers afresh; the old round's choice would look like an answer given)."""
        round_no = class_views.round_of(key)
        return f"{key}_guess" if round_no <= 1 else f"{key}_r{round_no}_guess"

    def commit(*, final: bool = False) -> None:
        chosen = session.widgets.get(guess_key())
        if chosen is not None:
            choice = list(options).index(chosen)
            class_views.record(key, choice, len(options), final=final, right=answer, prompt=question)

    def reveal_alone() -> None:
        session.pages.shown(key).set(True)
        commit(final=True)  # in a class: the answer seen with the answer in sight stays the one that counts

    # In a class the box also reruns on its own, polling the class (the teacher's tallies, the reveal).
    @page_fragment(run_every=class_views.poll_every(), by_user=class_views.poll_every() is None)
    def box() -> None:
        with st.container(border=True):
            st.markdown(f"**Predict, then check.** {question}")
            seen = class_views.room_view(
                key, options, answer, lambda _: result(None, theirs=False), prompt=question
            )
            member = cs.member()
            if member is not None and member.teacher:
                return
            held = seen.held.choice if seen.held is not None else None
            if seen.student:  # the class's answer for this seat, never a choice it refused
                session.widgets.set(guess_key(), None if held is None else options[held])
            # the answer in sight: revealed to the class, or seen alone (in this session, or final)
            final = seen.held is not None and seen.held.final
            answered = seen.revealed or session.pages.shown(key).get() or final
            choice = st.radio(
                "Your prediction",
                list(options),
                index=None,
                key=guess_key(),
                label_visibility="collapsed",
                persist_state="session",  # a student's answer is theirs: kept across pages, never in the link
                on_change=commit,
                disabled=seen.student and (answered or not seen.takes),
            )
            if not seen.student:  # no class: the student's own check
                st.button("Reveal", key=f"{key}_reveal", disabled=choice is None, on_click=reveal_alone)
                if session.pages.shown(key).get() and choice is not None:
                    result(options.index(choice))
                return
            if class_views.exploring_alone() and not answered:
                st.button(  # an answer the class holds, while it takes it: seeing the answer makes it final
                    "Reveal",
                    key=f"{key}_reveal",
                    on_click=reveal_alone,
                    disabled=held is None or not seen.takes,
                )
            if seen.show and answered:
                result(held)  # what the class holds for this seat, whatever the radio showed before

    box()


FORMULA_NOTE = (
    "The formula as code, one step per line. The numbers on this page come "
    "from the tested core (`layernorm/core.py`): the same steps with exactly rounded sums, which stay "
    "right where these plain lines lose digits (a mean a billion times the spread or more, or values "
    "whose squares leave float64's range). Tests check that both agree on ordinary vectors."
)


def code_caption(func: Callable[..., Any]) -> str:
    """The line above a code block: the file it is from, and for the formula's plain code, how it
    relates to the numbers on screen."""
    where = f"`{func.__module__.replace('.', '/')}.py`"
    return f"{where}: {FORMULA_NOTE}" if func.__module__ == "layernorm.formula" else f"From {where}."


@functools.lru_cache(maxsize=256)
def _source(func: Callable[..., Any]) -> str:
    """``inspect.getsource(func)``, read once per function object (it reads and tokenizes the file)."""
    return inspect.getsource(func)


def show_source(*funcs: Callable[..., Any]) -> None:
    """An expander with the source of the core functions that computed this page's numbers.

    The code is sent only while the expander is open (``on_change="rerun"`` tells the server):
    highlighting it took the browser about 150 ms of every page load, for a box few students open.
    The box is a fragment, so opening or closing it reruns the box only. Its open state is the
    expander's widget value (key ``show_code``).
    """

    @page_fragment  # in the box's own rerun the student acted: a link's messages elsewhere go
    def box() -> None:
        with st.container(key="code_expander"):  # presentation mode folds it away (ui/presentation.py)
            shown = st.expander(
                "The code behind these numbers (from `layernorm/`)",
                key="show_code",
                on_change="rerun",
            )
            with shown:
                if shown.open:
                    for func in funcs:
                        st.caption(code_caption(func))  # each block says which file it is from
                        st.code(_source(func), language="python")

    box()
