"""A page's own controls: remembered across page switches and carried by the page's link.

Every lesson-page widget that changes what a student sees is made here, one call per widget, so
each one is (1) kept for the whole browser session (``persist_state="session"``: leave the page,
come back, the value is still there), (2) bound to the URL (``bind="query-params"``: the key is
the URL parameter, so "copy link" reproduces the view), and (3) read from a link as a number
within rounding, clamped to the widget's range with a message that says which value is used
(:func:`ui.linking.link_control`, the rules of ``ui.links``).

Keys are listed in :data:`ui.keys.PAGE_KEYS`, so the sidebar knows a link's page keys from keys that
mean nothing (which it reports). A key that is not listed is a programming error and raises.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

import streamlit as st

from ui import links, session
from ui.keys import ALL_PAGE_KEYS
from ui.linking import link_control, redraw_when_relabelled

T = TypeVar("T")


_BOUND: dict[str, Any] = {"bind": "query-params", "persist_state": "session"}


def _check(key: str) -> None:
    if key not in ALL_PAGE_KEYS:
        raise KeyError(f"{key!r} is not in ui.keys.PAGE_KEYS: add it there, under its page")


def _keep_in(key: str, lo: float, hi: float) -> None:
    """A remembered value outside a range that just changed (d got smaller) moves to the nearest end."""
    v = session.widgets.get(key)
    if isinstance(v, (int, float)) and not isinstance(v, bool) and not lo <= v <= hi:
        session.widgets.set(key, type(v)(min(max(v, lo), hi)))


def _keep_option(key: str, options: Sequence[Any]) -> None:
    """A remembered option that the widget no longer offers (a shorter sentence) gives way to the first."""
    if session.widgets.has(key) and session.widgets.get(key) not in options and options:
        session.widgets.set(key, options[0])


def _link_range(key: str, lo: float, hi: float, step: float, value: float, what: str, where: Any) -> None:
    """A number control's key checked, its remembered value kept in range, and its link described."""
    _check(key)
    _keep_in(key, lo, hi)
    link_control(key, links.Range(lo, hi, step, value, what), what, where)


def _link_options(
    key: str,
    options: Sequence[T],
    value: T,
    format_func: Callable[[T], str] | None,
    what: str,
    words: str,
    where: Any,
) -> dict[str, Any]:
    """An options control's key checked, its remembered option kept offered, its link described;
    returns the ``format_func`` argument to pass on (none when the options show as themselves).

    Streamlit writes the shown text of a bound option into the URL, so numbers shown as numbers are
    shown as a link carries them (:func:`ui.links.link_text`: ``-10``, ``1e-08``, ``1e5``)."""
    _check(key)
    _keep_option(key, options)
    show = format_func or str
    if options and all(_numeric_text(o, show(o)) for o in options):
        show = format_func = _as_link_text(show)
    redraw_when_relabelled(key, [show(o) for o in options])
    link_control(key, option_spec(options, value, show, what, words), what, where)
    return {"format_func": format_func} if format_func else {}


def slider(
    label: str,
    lo: float,
    hi: float,
    value: float,
    step: float,
    *,
    key: str,
    where: Any = st,
    name: str | None = None,
    **kw: Any,
) -> Any:
    """``st.slider`` over numbers, remembered and in the link (``links.Range``)."""
    _link_range(key, lo, hi, step, value, name or label, where)
    return where.slider(label, lo, hi, value, step, key=key, **_BOUND, **kw)


def number_input(
    label: str,
    lo: int,
    hi: int,
    value: int,
    *,
    key: str,
    where: Any = st,
    name: str | None = None,
    **kw: Any,
) -> int:
    """``st.number_input`` over whole numbers ``lo … hi``, remembered and in the link."""
    _link_range(key, lo, hi, 1, value, name or label, where)
    return int(where.number_input(label, lo, hi, value, 1, key=key, **_BOUND, **kw))


def select_slider(
    label: str,
    options: Sequence[T],
    value: T,
    *,
    key: str,
    where: Any = st,
    format_func: Callable[[T], str] | None = None,
    name: str | None = None,
    **kw: Any,
) -> T:
    """``st.select_slider``: numeric options are matched as numbers, others by their shown text."""
    extra = _link_options(key, options, value, format_func, name or label, "values offered", where)
    result: T = where.select_slider(label, list(options), value=value, key=key, **_BOUND, **extra, **kw)
    return result


def _as_link_text(show: Callable[[T], str]) -> Callable[[T], str]:
    return lambda o: links.link_text(show(o))


def option_spec(
    options: Sequence[T], value: T, show: Callable[[T], str], what: str, words: str
) -> links.Choice | links.Words:
    """How a link's value picks one of ``options``: as a number when every option is a number shown as
    one (``"−1"``, ``"1.00e+06"``), else by its shown text (``words`` names them in a message).

    Numbers are read by the links' one parser (:func:`ui.links.number`), so ``-1``, ``−1``, ``-1.0``
    and ``-1e0`` all pick the option shown "−1"; a number not offered moves to the nearest, and is said.
    """
    texts = [show(o) for o in options]
    numeric = all(_numeric_text(o, t) for o, t in zip(options, texts, strict=True))
    if numeric and len(set(texts)) == len(texts):  # numbers, told apart by their shown text
        numbers = [float(o) for o in options]  # type: ignore[arg-type]  # checked just above
        return links.Choice(numbers, float(value), lambda v: show(_match(options, v)), what)  # type: ignore[arg-type]
    return links.Words(texts, show(value), words)


def _numeric_text(option: Any, text: str) -> bool:
    """Whether ``option`` is a number shown as a number (``1e-03``, ``0.1``, ``0.00316`` for 10**-2.5).

    Such options are read from a link as numbers: an out-of-range value is clamped, an in-between one
    moved to the nearest (:class:`ui.links.Choice`), the shown text itself picks its option.
    """
    if not isinstance(option, (int, float)) or isinstance(option, bool):
        return False
    shown = links.number(text)  # None for a label such as "Layer 1 · after attention": matched as words
    return shown is not None and math.isclose(shown, float(option), rel_tol=1e-2)  # the text may round it


def _match(options: Sequence[Any], v: float) -> Any:
    """The option equal to ``v`` (``Choice`` works in floats; the widget formats its own type)."""
    return next((o for o in options if float(o) == v), v)


def choice(
    kind: str,
    label: str,
    options: Sequence[T] | Mapping[T, str],
    *,
    key: str,
    index: int = 0,
    where: Any = st,
    format_func: Callable[[T], str] | None = None,
    name: str | None = None,
    **kw: Any,
) -> T:
    """A ``selectbox``, ``radio`` or ``segmented_control`` (``kind``): the link carries the shown text
    (read as a number when the options are numbers shown as numbers, as in :func:`select_slider`).

    ``options`` may map each option to the text it is shown as: the pages keep their choices in such
    tables (``{"relu": "ReLU", "gelu": "GELU"}``).
    """
    if isinstance(options, Mapping):
        format_func = format_func or options.__getitem__
        options = list(options)
    extra = _link_options(key, options, options[index], format_func, name or label, "choices", where)
    if kind == "segmented_control":
        # required: a click on the chosen segment would otherwise deselect it, and the bound link
        # then showed another option than the one the page went on using
        result = where.segmented_control(
            label, list(options), default=options[index], key=key, required=True, **_BOUND, **extra, **kw
        )
        chosen: T = options[index] if result is None else result
        return chosen
    widget = getattr(where, kind)
    picked: T = widget(label, list(options), index=index, key=key, **_BOUND, **extra, **kw)
    return picked


def flag(
    kind: str, label: str, value: bool, *, key: str, where: Any = st, name: str | None = None, **kw: Any
) -> bool:
    """A ``checkbox`` or ``toggle`` (``kind``): the link says true or false."""
    _check(key)
    link_control(key, links.Flag(value, name or label), name or label, where)
    return bool(getattr(where, kind)(label, value=value, key=key, **_BOUND, **kw))


def text(
    kind: str,
    label: str,
    value: str,
    *,
    key: str,
    max_chars: int,
    where: Any = st,
    name: str | None = None,
    **kw: Any,
) -> str:
    """A ``text_input`` or ``text_area`` (``kind``): the link carries the text, at most ``max_chars``."""
    _check(key)
    link_control(key, links.Text(value, max_chars, name or label), name or label, where)
    widget = getattr(where, kind)
    return str(widget(label, value, max_chars=max_chars, key=key, **_BOUND, **kw))
