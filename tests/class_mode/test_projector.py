"""The projector view (``/projector?class=CODE``): the join screen, a question's answers as the wall shows
them, the right option marked only once revealed, two rounds side by side, no name or key, bad addresses.

AppTest with the app's own store (the test process's SQLite file, ``tests/conftest.py``): each test
starts its own class and acts as teacher and students through the store, as their browsers would.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any

import pytest
from apptest_support import every_message, ok, open_page, page_text
from chart_specs import charts
from streamlit.testing.v1 import AppTest

from classroom.model import QuestionResult, share_text
from ui import charts_class
from ui import class_projector as cp
from ui import class_session as cs
from ui.text import WORD_JOINER, plain
from ui.theme import COLORS, GUIDE

PROJECTOR = "pages/19_projector.py"
MEAN_OPTIONS = ["Every entry grows by 5", "Nothing: it is unchanged", "It is multiplied by 5"]
PROMPT = "Every feature of a token gets +5 added. What happens to x − μ?"
SITE = "https://lab.school.example/"


@pytest.fixture(autouse=True)
def _public_address(monkeypatch: pytest.MonkeyPatch) -> None:
    """The lab's public address, as a classroom sets it: the join link and its QR point there."""
    monkeypatch.setenv("LAB_PUBLIC_URL", SITE)


def _class(students: int, names: tuple[str, ...] = ()) -> tuple[cs.Started, list[str]]:
    started = cs.store().start()
    seats = [cs.store().join(started.code, names[i] if i < len(names) else None) for i in range(students)]
    return started, seats


def _ask(started: cs.Started) -> None:
    """The teacher's screen describes Mean's question and opens it: it becomes the class's current one."""
    cs.store().describe(started.code, started.teacher_key, "mean_q", PROMPT, MEAN_OPTIONS, 1)
    cs.store().open_question(started.code, started.teacher_key, "mean_q")


def _answer(started: cs.Started, seats: list[str], choices: tuple[int, ...]) -> None:
    for seat, choice in zip(seats, choices, strict=False):
        cs.store().answer(started.code, seat, "mean_q", choice, options=3)


def _open(code: str) -> AppTest:
    return open_page(PROJECTOR, **{"class": code})


@dataclass
class Row:
    """An option's row of the wall's chart, as the browser gets it."""

    text: str = ""  # as shown: the ✓ and "(the answer)" of the right option included
    right: bool = False  # drawn as the answer
    bars: list[tuple[float, str, str]] = field(default_factory=list)  # (part of the longest, colour, text)


class _ChartReader(HTMLParser):
    """The rows of :func:`ui.charts_class.answers_html`'s HTML, its texts unescaped."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[Row] = []
        self._in: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        got = dict(attrs)
        classes = (got.get("class") or "").split()
        if "lab-answer-text" in classes:
            self.rows.append(Row(right="lab-right" in classes))
            self._in = "text"
        elif "lab-answer-bar" in classes:
            style = got.get("style") or ""
            part = re.search(r"\* ([0-9.]+)\)", style)
            colour = re.search(r"background: (#[0-9A-Fa-f]{6})", style)
            assert part is not None and colour is not None, style
            self.rows[-1].bars.append((float(part.group(1)), colour.group(1), ""))
        elif "lab-answer-count" in classes:
            self._in = "count"

    def handle_endtag(self, tag: str) -> None:
        if tag == "div" or self._in == "count":
            self._in = None

    def handle_data(self, data: str) -> None:
        row = self.rows[-1] if self.rows else None
        if row is not None and self._in == "text":
            row.text += data
        elif row is not None and self._in == "count":
            part, colour, text = row.bars[-1]
            row.bars[-1] = (part, colour, text + data)


def _chart_htmls(at: AppTest) -> list[str]:
    return [str(e.proto.body) for e in at.get("html") if e.proto.body.startswith('<div class="lab-answers">')]


def _chart_html(at: AppTest) -> str:
    (body,) = _chart_htmls(at)
    return body


def _rows(at: AppTest) -> list[Row]:
    reader = _ChartReader()
    reader.feed(_chart_html(at))
    return reader.rows


def _bars(at: AppTest) -> list[list[int]]:
    """Each round's counts, first round first, read from the texts beside the bars."""
    rows = _rows(at)
    counts = [[int(re.match(r"(?:round \d+: )?(\d+)", r.bars[j][2]).group(1)) for r in rows]  # type: ignore[union-attr]
              for j in range(len(rows[0].bars))]  # fmt: skip
    top = max(max(c) for c in counts)
    for j, round_counts in enumerate(counts):  # each bar as long as its count, the largest the longest
        assert [r.bars[j][0] for r in rows] == pytest.approx(
            [c / max(top, 1) for c in round_counts], abs=1e-4
        )
    return counts


def _notes(at: AppTest) -> list[str]:
    """The texts beside the bars, round by round, then the options' texts."""
    rows = _rows(at)
    return [r.bars[j][2] for j in range(len(rows[0].bars)) for r in rows] + [r.text for r in rows]


def _colours(at: AppTest) -> list[list[str]]:
    rows = _rows(at)
    return [[r.bars[j][1] for r in rows] for j in range(len(rows[0].bars))]


def _texts(at: AppTest) -> list[str]:
    """The wall's plain texts: the prompt, then the summary."""
    return [str(t.value) for t in at.text]


# --- the join screen ------------------------------------------------------------------------------


def test_the_join_screen_shows_the_code_its_link_and_qr_and_how_many_joined() -> None:
    started, _ = _class(1)
    at = _open(started.code)
    text = page_text(at)
    assert "Join the class" in text and started.code in text.splitlines()
    assert "1 student joined" in text
    assert [t.value for t in at.text] == [f"{SITE}?class={started.code}"]  # the link, as plain text
    assert len(at.get("image")) == 1  # its QR code
    assert not charts(at) and not at.warning  # a public address: no "only on this computer" warning
    cs.store().join(started.code, "Late")
    ok(at.run())  # the timer's next run
    assert "2 students joined" in page_text(at)


def test_a_loopback_address_is_said_on_the_join_screen(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LAB_PUBLIC_URL", "http://localhost:8501/")
    started, _ = _class(0)
    at = _open(started.code)
    assert "0 students joined" in page_text(at)
    assert "students cannot scan it" in at.warning[0].value


# --- a question on the wall -----------------------------------------------------------------------


def test_a_question_shows_its_text_state_counts_chart_and_summary() -> None:
    started, seats = _class(4)
    _ask(started)
    _answer(started, seats, (0, 1, 1))
    at = _open(started.code)
    md = [str(m.value) for m in at.markdown]
    assert "**Answers open** · 3 of 4 students answered" in md
    assert f"Join: **{started.code}**" in md  # late students can still join
    summary = f"3 of 4 students answered. Most chose “{MEAN_OPTIONS[1]}” (2, ≈ 67 %)."
    assert _texts(at) == [PROMPT, summary]  # as plain text, character for character
    assert _bars(at) == [[1, 2, 0]]
    texts = _notes(at)
    assert texts[:3] == ["1 · ≈ 33 %", "2 · ≈ 67 %", "0 · 0 %"]
    assert texts[3:] == MEAN_OPTIONS  # each option's text beside its bar
    assert "✓" not in _chart_html(at) and "answer is" not in summary

    _answer(started, seats[3:], (2,))  # a fourth answer: on the wall at the timer's next run
    ok(at.run())
    md = [str(m.value) for m in at.markdown]
    assert "**Answers open** · 4 of 4 students answered" in md
    assert _bars(at) == [[1, 2, 1]]
    # 2 of 4 is not "most": the largest group, said as such
    assert _texts(at)[1] == f"4 of 4 students answered. Chosen most: “{MEAN_OPTIONS[1]}” (2, 50 %)."


def test_the_longest_quiz_question_reaches_the_wall_whole() -> None:
    from layernorm.labs.quiz import make_quiz
    from ui.class_quiz import about

    longest = max((q for seed in range(50) for q in make_quiz(seed)), key=lambda q: len(about(q)))
    assert len(about(longest)) > 300  # what version 2's 300 characters cut
    started, _ = _class(1)
    cs.store().describe(started.code, started.teacher_key, "q", about(longest), list(longest.options), 0)
    cs.store().open_question(started.code, started.teacher_key, "q")
    assert _texts(_open(started.code))[0] == about(longest)


def test_what_the_teachers_screen_described_shows_as_its_characters_and_nothing_more() -> None:
    """Markdown, HTML, shortcodes, addresses and arrows show as typed, with nothing invisible inserted: a
    word joiner inside "F.batch_norm" kept the room from finding or copying what the wall says."""
    prompt = "F.batch_norm(x, **training**=<b>False</b>) :smile: www.example.org -> $x$ #1"
    options = ["<b>1</b> & **2**", "www.example.org :tada:", "a->b <= c"]
    started, seats = _class(2)
    cs.store().describe(started.code, started.teacher_key, "q", prompt, options, 2)
    cs.store().open_question(started.code, started.teacher_key, "q")
    for seat, choice in zip(seats, (0, 2), strict=True):
        cs.store().answer(started.code, seat, "q", choice, options=3)
    cs.store().reveal(started.code, started.teacher_key, "q")
    at = _open(started.code)
    said = (
        "2 of 2 students answered. Chosen most: “<b>1</b> & **2**” and “a->b <= c” (1 each, 50 % each). "
        "The answer is “a->b <= c”: 1 chose it (50 %)."
    )
    assert _texts(at) == [prompt, said]
    assert [r.text for r in _rows(at)] == [*options[:2], f"✓ {options[2]} (the answer)"]
    html = _chart_html(at)
    assert "<b>1</b>" not in html and "&lt;b&gt;1&lt;/b&gt;" in html  # escaped: no markup of the teacher's
    assert WORD_JOINER not in every_message(at)


def test_the_right_option_is_marked_only_once_the_answer_is_revealed() -> None:
    started, seats = _class(3)
    _ask(started)
    _answer(started, seats, (0, 1, 1))
    at = _open(started.code)
    assert "✓" not in _chart_html(at)
    cs.store().close_question(started.code, started.teacher_key, "mean_q")
    ok(at.run())
    assert "**Answers closed** · 3 of 3 students answered" in [str(m.value) for m in at.markdown]
    assert "✓" not in _chart_html(at) and "the answer" not in _chart_html(at)
    assert _colours(at) == [[COLORS["x"]] * 3]

    cs.store().reveal(started.code, started.teacher_key, "mean_q")
    ok(at.run())
    md = [str(m.value) for m in at.markdown]
    assert "**Answer revealed** · 3 of 3 students answered" in md
    rows = _rows(at)
    assert [r.text for r in rows] == [MEAN_OPTIONS[0], f"✓ {MEAN_OPTIONS[1]} (the answer)", MEAN_OPTIONS[2]]
    assert [r.right for r in rows] == [False, True, False]  # drawn bold
    assert _colours(at) == [[COLORS["x"], COLORS["x_hat"], COLORS["x"]]]
    assert _texts(at)[1] == (
        f"3 of 3 students answered. Most chose “{MEAN_OPTIONS[1]}” (2, ≈ 67 %). "
        f"The answer is “{MEAN_OPTIONS[1]}”: 2 chose it (≈ 67 %)."
    )


def test_a_second_round_is_drawn_beside_the_first() -> None:
    started, seats = _class(3)
    _ask(started)
    _answer(started, seats, (0, 1, 1))
    cs.store().vote_again(started.code, started.teacher_key, "mean_q")
    _answer(started, seats[1:], (1, 1))
    at = _open(started.code)
    md = [str(m.value) for m in at.markdown]
    assert "**Answers open · round 2** · 2 of 3 students answered" in md
    assert _bars(at) == [[1, 2, 0], [0, 2, 0]]  # round 1, then the current round
    assert _colours(at) == [[GUIDE] * 3, [COLORS["x"]] * 3]
    assert _notes(at)[:6] == [
        "round 1: 1 · ≈ 33 %",
        "round 1: 2 · ≈ 67 %",
        "round 1: 0 · 0 %",
        "round 2: 0 · 0 %",
        "round 2: 2 · 100 %",
        "round 2: 0 · 0 %",
    ]
    assert _texts(at)[1] == (
        f"2 of 3 students answered in round 2. All 2 answers are “{MEAN_OPTIONS[1]}”. "
        f"Round 1: 3 answers; most chose “{MEAN_OPTIONS[1]}” (2, ≈ 67 %)."
    )


# --- what is never on the wall --------------------------------------------------------------------


def test_no_nickname_seat_or_teacher_key_reaches_the_projector() -> None:
    names = ("Zoë Quark", "Mx Ninefold", "Pim-O")
    started, seats = _class(3, names)
    _ask(started)
    _answer(started, seats, (2, 1, 0))
    cs.store().reveal(started.code, started.teacher_key, "mean_q")
    for at in (_open(started.code), _open(started.code.lower())):
        everything = every_message(at)
        assert "3 of 3 students answered" in everything  # the walk does read what is drawn
        for secret in (*names, *seats, started.teacher_key):
            assert secret not in everything
        assert list(at.query_params) == ["class"]  # the code alone

    # The teacher's own link opened on the projector: the key leaves the address and the wall shows
    # no class panel (the teacher's panel holds the nicknames and the private link)
    at = open_page(PROJECTOR, **{"class": started.code, "teach": started.teacher_key})
    drawn = "\n".join([page_text(at), *_texts(at), _chart_html(at)])
    assert "3 of 3 students answered" in drawn
    for secret in (*names, *seats, started.teacher_key):
        assert secret not in drawn
    assert "teach" not in at.query_params and "you lead it" not in drawn


# --- addresses that name no class -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "said"),
    [
        (None, cp.NEEDS),
        ("", cp.NEEDS),
        ("ABC12", f"“{plain('ABC12')}” is not a class code. {cp.NEEDS}"),
        ("**K7QF2M**<b>", f"“{plain('**K7QF2M**<b>')}” is not a class code. {cp.NEEDS}"),
        ("ZZZZZZ", "There is no class ZZZZZZ (any more)."),
    ],
)
def test_an_address_without_a_class_says_what_it_needs(given: str | None, said: str) -> None:
    at = open_page(PROJECTOR, **({} if given is None else {"class": given}))
    assert [w.value for w in at.warning] == [said]
    assert not _chart_htmls(at) and not at.get("image")


def test_a_deleted_class_is_said_to_be_gone() -> None:
    started, seats = _class(1)
    _ask(started)
    _answer(started, seats, (1,))
    at = _open(started.code)
    cs.store().delete(started.code, started.teacher_key)
    ok(at.run())
    assert [w.value for w in at.warning] == [f"There is no class {started.code} (any more)."]
    assert not _texts(at) and not _chart_htmls(at)


def test_an_ended_class_says_so_and_keeps_its_last_results() -> None:
    started, seats = _class(2)
    _ask(started)
    _answer(started, seats, (1, 0))
    cs.store().end(started.code, started.teacher_key)
    at = _open(started.code)
    md = [str(m.value) for m in at.markdown]
    assert "**Class ended**" in md and not at.info  # beside the status: the wall keeps the question's room
    assert "**Answers closed** · 2 of 2 students answered" in md  # the question was open: no more answers
    assert _bars(at) == [[1, 1, 0]]
    assert not any(m.startswith("Join:") for m in md)  # an ended class takes no students


def test_an_ended_class_without_a_question_shows_no_join_screen() -> None:
    started, _ = _class(2)
    cs.store().end(started.code, started.teacher_key)
    at = _open(started.code)
    assert [i.value for i in at.info] == [f"Class {started.code} has ended."]
    assert "Join the class" not in page_text(at) and not at.get("image")


# --- the numbers in words (no Streamlit) ----------------------------------------------------------


@pytest.mark.parametrize(
    ("n", "total", "said"),
    [
        (1, 2, "50 %"),
        (0, 5, "0 %"),
        (3, 3, "100 %"),
        (1, 3, "≈ 33 %"),
        (2, 3, "≈ 67 %"),
        (1, 8, "≈ 13 %"),  # 12.5: half up
        (1, 1000, "< 1 %"),
        (5, 1000, "≈ 1 %"),
        (995, 1000, "> 99 %"),
        (999, 1000, "> 99 %"),
    ],
)
def test_a_share_never_looks_more_exact_than_it_is(n: int, total: int, said: str) -> None:
    assert share_text(n, total) == said


ABC = ("A", "B", "C")


@pytest.mark.parametrize(
    ("counts", "students", "kw", "said"),
    [
        ((0, 0, 0), 20, {}, "0 of 20 students answered."),
        ((0, 0, 0), 1, {}, "0 of 1 student answered."),
        ((0, 0, 0), 0, {}, "0 of 0 students answered."),
        ((0, 1, 0), 5, {}, "1 of 5 students answered. The one answer is “B”."),
        ((2, 2, 1), 5, {}, "5 of 5 students answered. Chosen most: “A” and “B” (2 each, 40 % each)."),
        ((1, 1, 1), 3, {}, "3 of 3 students answered. All 3 options tie (1 each, ≈ 33 % each)."),
        ((3, 2, 1), 6, {}, "6 of 6 students answered. Chosen most: “A” (3, 50 %)."),
        ((0, 0, 0), 2, {"right": 1}, "0 of 2 students answered. The answer is “B”."),
        ((3, 0, 0), 3, {"right": 1}, "3 of 3 students answered. All 3 answers are “A”. "
                                      "The answer is “B”: nobody chose it."),
        (
            (0, 0, 1),
            4,
            {"round_": 3, "first": (0, 0, 0)},
            "1 of 4 students answered in round 3. The one answer is “C”. In round 1 nobody answered.",
        ),
        (
            (0, 0, 0),
            4,
            {"round_": 2, "first": (0, 1, 0)},
            "0 of 4 students answered in round 2. Round 1: 1 answer; the one answer is “B”.",
        ),
    ],
)  # fmt: skip
def test_the_summary_says_what_the_chart_shows_for_any_counts(
    counts: tuple[int, ...], students: int, kw: dict[str, Any], said: str
) -> None:
    assert cp.summary(ABC, counts, students, **kw) == said


def test_three_or_more_options_tied_are_counted_not_quoted() -> None:
    """Four long options tied in two rounds, each quoted, made a summary of ten lines: below the wall."""
    said = cp.summary(("A", "B", "C", "D"), (2, 2, 2, 1), 7, right=3, round_=2, first=(1, 1, 1, 1))
    assert said == (
        "7 of 7 students answered in round 2. 3 options tie for the most (2 each, ≈ 29 % each). "
        "The answer is “D”: 1 chose it (≈ 14 %). Round 1: 4 answers; all 4 options tie (1 each, 25 % each)."
    )


def test_a_long_option_is_quoted_cut_at_a_space_and_unlike_every_other() -> None:
    same = "It normalizes with the running statistics ([1.99999, 5.99997])"
    labels = (f"{same} and leaves them at 0 and 1", f"{same} and updates them", "short", "x" * 70)
    quoted = cp.quotes(labels)
    assert len(set(quoted)) == len(labels)  # told apart, though their first 63 characters are the same
    assert quoted[2] == "“short”"
    for text, q in zip(labels, quoted, strict=True):
        shown = q.strip("“”")
        assert shown == text or (shown.endswith("…") and text.startswith(shown[:-1]))
    assert quoted[0].endswith(" and leaves…”") or quoted[0] == f"“{labels[0]}”"  # cut at a space
    assert quoted[3] == f"“{'x' * cp.LABEL_IN_SENTENCE}…”"  # no space to cut at: cut at the limit


def test_a_question_the_teacher_did_not_describe_names_its_options_by_number() -> None:
    result = QuestionResult("q", None, 3, 0, "revealed", {1: {2: 4}, 2: {4: 1}}, (), 2)
    shown = cp.board(result, 6)
    assert shown.labels == ("Option 1", "Option 2", "Option 3", "Option 4", "Option 5")  # answers seen: 5
    assert shown.prompt == "The question on the teacher's screen"
    assert shown.state == "Answer revealed · round 2"
    assert shown.right == 0
    assert shown.rounds[0][0] == (0, 0, 4, 0, 0) and shown.rounds[1][0] == (0, 0, 0, 0, 1)


def test_a_question_of_no_known_options_draws_an_empty_chart_and_a_true_sentence() -> None:
    shown = cp.board(QuestionResult("q", "P?", None, None, "closed", {}, (), 1), 3)
    assert (shown.labels, shown.state, shown.summary) == ((), "Answers closed", "0 of 3 students answered.")
    assert (
        charts_class.answers_html(shown.labels, shown.rounds, shown.right)
        == '<div class="lab-answers"></div>'
    )


def test_the_projector_address_is_the_lab_address_with_the_code_only() -> None:
    assert cp.address("K7QF2M") == "https://lab.school.example/projector?class=K7QF2M"
