"""What a link says: its values read as numbers, the URL rewritten to the lab's spelling, and the
messages that say which values the lab changed or could not use.

Sidebar widgets are bound to the URL (``bind="query-params"``), so a link reproduces what the class
sees. Streamlit matches a link's values as text, so on a session's first run :func:`read_link` reads
them as numbers first (``ui.links``), puts the canonical text in the URL, and :func:`report_link`
says which value the lab uses for any it had to change. A page's own bound controls are read the
same way, by :func:`link_control`, right before each widget.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import streamlit as st
from streamlit.errors import StreamlitAPIException

from ui import links, session
from ui.keys import ALL_PAGE_KEYS, CLASS_LINK_KEYS, PAGE_KEYS
from ui.minilm import recording
from ui.settings import AFFINE_MODES, LINK_KEYS, NOT_CARRIED, SOURCES, TOKEN_KEYS


def _token_words(s: int) -> list[str]:
    """The Token selectbox's texts for sentence ``s`` (what the URL carries)."""
    rec = recording()
    return [f"{i}: {rec.tokens[s, i]}" for i in rec.real_token_indices(s).tolist()]


def link_keys(given: dict[str, list[str]]) -> dict[str, links.LinkKey]:
    """:data:`LINK_KEYS`, plus the real-token keys when the link has any (options from the data)."""
    if not any(k in given for k in TOKEN_KEYS):
        return LINK_KEYS
    rec = recording()
    sentences = [str(s) for s in rec.sentences]
    chosen = links.resolve("tok_sentence", given.get("tok_sentence", []), _token_sentence(sentences))
    s = sentences.index(str(chosen.value)) if given.get("tok_sentence") else 0
    words = _token_words(s)
    sites = [rec.site_label(i) for i in range(rec.n_sites)]
    return LINK_KEYS | {
        "tok_sentence": _token_sentence(sentences),
        "tok_index": links.LinkKey("token", links.Words(words, words[0], "tokens of that sentence")),
        "tok_site": links.LinkKey("site", links.Words(sites, sites[0], "LayerNorm sites")),
    }


def _token_sentence(sentences: list[str]) -> links.LinkKey:
    return links.LinkKey("sentence", links.Words(sentences, sentences[0], "sentences"))


@dataclass(frozen=True)
class LinkReport:
    """What the sidebar tells the user about the link a session started from (shown once)."""

    notes: tuple[str, ...] = ()  # values the lab had to change, each with the value it uses
    unused: tuple[str, ...] = ()  # known keys the chosen input does not use
    unknown: str | None = None  # keys that are no setting of the lab
    elsewhere: str | None = None  # keys of another page's controls (not used on this page)
    not_carried: tuple[str, ...] = ()  # what the chosen input needs that no link can carry


def read_link(page: str = "", titles: Mapping[str, str] | None = None) -> LinkReport:
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
    keys = link_keys(given)
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
    session.links.elsewhere.set(elsewhere)  # read by link_control on the page that has them
    report = LinkReport(
        # Every changed value is said, used now or not: one not used yet (γ under per-feature γ, β)
        # would otherwise be clamped in silence when the student switches to what uses it.
        notes=tuple(r.note for r in resolved.values() if r.note),
        unused=tuple(k for k in resolved if k not in applies),
        unknown=links.unknown_keys_note(
            {
                k: v
                for k, v in given.items()
                if k not in keys and k not in ALL_PAGE_KEYS and k not in CLASS_LINK_KEYS
            }
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
    session.links.report.set(report)
    for k, r in resolved.items():
        remember_spelling(k, given[k], r.text)
    if canonical != given:
        st.query_params.from_dict(canonical)  # no widget is bound yet on a session's first run
        rerun_for_link()
    return report


def remember_spelling(key: str, typed: list[str], text: str | None) -> None:
    """Keep how the lab spells a link's value it rewrote (``inv_c=-1e-3`` is ``inv_c=-0.001``), for Back.

    On a session's first run Streamlit writes the lab's spelling as a new history entry, so the link
    as typed stays one entry back; on Back or Forward Streamlit seeds each bound widget from the
    entry's text alone, without the lab's rules. ``ui.history`` gives such an entry these
    spellings before Streamlit reads it. ``text`` None: the lab drops the key (its default).
    """
    if typed == ([text] if text is not None else []):
        return
    rules = session.links.spellings.kept()
    if (typed, text) not in rules.setdefault(key, []):
        rules[key].append((typed, text))


def rerun_for_link() -> None:
    """Rerun so bound widgets seed from the canonical URL; the link's messages survive this rerun."""
    session.links.rerun.set(True)
    st.rerun()


def report_link(report: LinkReport) -> None:
    """Say which link values the lab changed (and to what), which it ignored, which it does not know."""
    if report.notes or report.unused or report.not_carried or report.elsewhere or report.unknown:
        session.links.news.set(True)
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


def redraw_when_relabelled(key: str, labels: list[str]) -> None:
    """Make a choice widget show its option's new text when the texts changed (call before the widget).

    A selectbox over positions whose texts come from data (``"3: sat"``, the tokens of the chosen
    sentence) keeps its value when the data changes, but Streamlit 1.67's browser side keeps
    showing the old text, writes it to the URL, and on the next rerun sends that text back; it
    matches no option any more, so the widget falls back to its default: the page showed token
    3's old text, then silently jumped to token 0 (found in the browser; Streamlit pull request
    13788). Setting the widget's value through Session State makes the browser redraw it. The
    texts shown last are kept per key (``ui.session.links.shown``).
    """
    seen = session.links.shown(key)
    before = seen.get()
    seen.set(labels)
    if before is not None and before != labels:
        session.widgets.touch(key)


def link_control(
    key: str,
    widget: links.Choice | links.Range | links.Words | links.Flag | links.Text,
    name: str | None = None,
    where: Any = st,
) -> None:
    """Read a page's own URL-bound control from the link: call it right before the widget.

    The sidebar's keys are read by :func:`read_link`; a page that binds its own widget
    (``bind="query-params"``) describes it here in one line, with the widget's own options or
    range and the name the page gives it, e.g.
    ``link_control("geo_gamma1", links.Range(-3, 3, 0.05, 1.0, "γ₁"), "γ₁")`` (for a radio,
    selectbox or select_slider with ``format_func``: ``links.Words`` over the *formatted*
    texts, which is what the URL carries). The first time this session meets ``key`` it resolves the link's
    value like the sidebar's, writes the canonical text into the URL and reruns, so the widget
    seeds itself from it; a warning above the widget says which value is used until the
    user's next action. Needs ``ui.sidebar.sidebar`` to run first (``app.py`` does).
    """
    notes = session.links.notes.kept()
    checked = session.links.checked.kept()
    values = st.query_params.get_all(key) if key not in checked else []
    # The session's link was opened on another page: its value for this control counts here, once.
    carried = session.links.elsewhere.get().pop(key, []) if key not in checked else []
    checked.add(key)
    in_address, values = bool(values), values or carried
    if values:
        resolved = links.resolve(key, values, links.LinkKey(name or key, widget))
        if resolved.note:
            notes[key] = resolved.note
        if in_address:  # a history entry with this text exists and may be revisited
            remember_spelling(key, values, resolved.text)
        if ([resolved.text] if resolved.text is not None else []) != st.query_params.get_all(key):
            try:
                if resolved.text is None:
                    del st.query_params[key]
                else:
                    st.query_params[key] = resolved.text
            except StreamlitAPIException:  # the widget is bound already: its own value counts now
                notes.pop(key, None)
                return
            rerun_for_link()  # before the widget exists: it seeds itself from the canonical text
    if key in notes:  # shown until the user's next action, like the sidebar's link messages
        where.warning(notes[key], icon=":material/link:")  # right above the control (its column)
        session.links.news.set(True)


def say_unread_link_keys(page: str, where: Any = st) -> None:
    """After a page's full run from a link: say which of ``page``'s link keys no control read.

    :func:`link_control` reads a key when its control is drawn; a view that stops early (a tensor
    too large to build) or does not show a control (γ₃ with d = 2) would otherwise leave the link's
    value unread and unsaid. Said with the link's other news, until the user's next action.
    """

    if not isinstance(session.links.report.get(), LinkReport):  # no fresh link: nothing to say
        return
    checked = session.links.checked.get()
    given = {k: st.query_params.get_all(k) for k in PAGE_KEYS.get(page, ()) if k not in checked}
    note = links.unread_keys_note({k: v for k, v in given.items() if v})
    if note:
        where.info(note, icon=":material/link:")
        session.links.news.set(True)
