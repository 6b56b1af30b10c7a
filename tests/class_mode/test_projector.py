"""The projector view (``/projector?class=CODE``): the join screen, a question's answers as the wall shows
them, the right option marked only once revealed, two rounds side by side, no name or key, bad addresses.

AppTest with the app's own store (the test process's SQLite file, ``tests/conftest.py``): each test
starts its own class and acts as teacher and students through the store, as their browsers would.
"""

from __future__ import annotations

from typing import Any

import pytest
from apptest_support import every_message, ok, open_page, page_text, plotly_array
from chart_specs import charts
from streamlit.testing.v1 import AppTest

from classroom.model import QuestionResult, share_text
from ui import charts_class
from ui import class_projector as cp
from ui import class_session as cs
from ui.text import plain
from ui.theme import COLORS

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


def _figure(at: AppTest) -> dict[str, Any]:
    (chart,) = charts(at)
    assert chart.key == "projector_answers"
    return chart.figure


def _bars(at: AppTest) -> list[list[int]]:
    return [[int(v) for v in plotly_array(t["x"])] for t in _figure(at)["data"]]


def _notes(at: AppTest) -> list[str]:
    return [a["text"] for a in _figure(at)["layout"]["annotations"]]


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
    assert plain(PROMPT, limit=2000) in md
    assert "**Answers open** · 3 of 4 students answered" in md
    assert f"Join: **{started.code}**" in md  # late students can still join
    summary = f"3 of 4 students answered. Most chose “{MEAN_OPTIONS[1]}” (2, ≈ 67 %)."
    assert plain(summary, limit=2000) in md
    assert _bars(at) == [[1, 2, 0]]
    texts = _notes(at)
    assert texts[:3] == ["1 · ≈ 33 %", "2 · ≈ 67 %", "0 · 0 %"]
    assert texts[3:] == MEAN_OPTIONS  # each option's text above its bar
    assert "✓" not in charts(at)[0].spec and "answer is" not in summary

    _answer(started, seats[3:], (2,))  # a fourth answer: on the wall at the timer's next run
    ok(at.run())
    md = [str(m.value) for m in at.markdown]
    assert "**Answers open** · 4 of 4 students answered" in md
    assert _bars(at) == [[1, 2, 1]]
    # 2 of 4 is not "most": the largest group, said as such
    summary = f"4 of 4 students answered. Chosen most: “{MEAN_OPTIONS[1]}” (2, 50 %)."
    assert plain(summary, limit=2000) in md


def test_the_longest_quiz_question_reaches_the_wall_whole() -> None:
    from layernorm.labs.quiz import make_quiz
    from ui.class_quiz import about

    longest = max((q for seed in range(50) for q in make_quiz(seed)), key=lambda q: len(about(q)))
    assert len(about(longest)) > 300  # what version 2's 300 characters cut
    started, _ = _class(1)
    cs.store().describe(started.code, started.teacher_key, "q", about(longest), list(longest.options), 0)
    cs.store().open_question(started.code, started.teacher_key, "q")
    md = [str(m.value) for m in _open(started.code).markdown]
    assert plain(about(longest), limit=2000) in md


def test_the_right_option_is_marked_only_once_the_answer_is_revealed() -> None:
    started, seats = _class(3)
    _ask(started)
    _answer(started, seats, (0, 1, 1))
    at = _open(started.code)
    assert "✓" not in charts(at)[0].spec
    cs.store().close_question(started.code, started.teacher_key, "mean_q")
    ok(at.run())
    assert "**Answers closed** · 3 of 3 students answered" in [str(m.value) for m in at.markdown]
    assert "✓" not in charts(at)[0].spec and "the answer" not in charts(at)[0].spec
    assert [t["marker"]["color"] for t in _figure(at)["data"]] == [[COLORS["x"]] * 3]

    cs.store().reveal(started.code, started.teacher_key, "mean_q")
    ok(at.run())
    md = [str(m.value) for m in at.markdown]
    assert "**Answer revealed** · 3 of 3 students answered" in md
    marked = f"<b>✓ {MEAN_OPTIONS[1]}</b><br><b>(the answer)</b>"  # wrapped: it fits a phone
    assert _notes(at)[3:] == [MEAN_OPTIONS[0], marked, MEAN_OPTIONS[2]]
    assert [t["marker"]["color"] for t in _figure(at)["data"]] == [
        [COLORS["x"], COLORS["x_hat"], COLORS["x"]]
    ]
    summary = (
        f"3 of 3 students answered. Most chose “{MEAN_OPTIONS[1]}” (2, ≈ 67 %). "
        f"The answer is “{MEAN_OPTIONS[1]}”: 2 chose it (≈ 67 %)."
    )
    assert plain(summary, limit=2000) in md


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
    assert _notes(at)[:6] == [
        "round 1: 1 · ≈ 33 %",
        "round 1: 2 · ≈ 67 %",
        "round 1: 0 · 0 %",
        "round 2: 0 · 0 %",
        "round 2: 2 · 100 %",
        "round 2: 0 · 0 %",
    ]
    summary = (
        f"2 of 3 students answered in round 2. All 2 answers are “{MEAN_OPTIONS[1]}”. "
        f"Round 1: 3 answers; most chose “{MEAN_OPTIONS[1]}” (2, ≈ 67 %)."
    )
    assert plain(summary, limit=2000) in md


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
    drawn = "\n".join([page_text(at), *(str(t.value) for t in at.text), *(c.spec for c in charts(at))])
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
    assert not charts(at) and not at.get("image")


def test_a_deleted_class_is_said_to_be_gone() -> None:
    started, seats = _class(1)
    _ask(started)
    _answer(started, seats, (1,))
    at = _open(started.code)
    cs.store().delete(started.code, started.teacher_key)
    ok(at.run())
    assert [w.value for w in at.warning] == [f"There is no class {started.code} (any more)."]
    assert not charts(at)


def test_an_ended_class_says_so_and_keeps_its_last_results() -> None:
    started, seats = _class(2)
    _ask(started)
    _answer(started, seats, (1, 0))
    cs.store().end(started.code, started.teacher_key)
    at = _open(started.code)
    assert [i.value for i in at.info] == [f"Class {started.code} has ended."]
    md = [str(m.value) for m in at.markdown]
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
        ((1, 1, 1), 3, {}, "3 of 3 students answered. Chosen most: “A”, “B” and “C” (1 each, ≈ 33 % each)."),
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
    figure = charts_class.answers_figure(shown.labels, shown.rounds, shown.right)
    assert [list(t.x) for t in figure.data] == [[]]


def test_the_projector_address_is_the_lab_address_with_the_code_only() -> None:
    assert cp.address("K7QF2M") == "https://lab.school.example/projector?class=K7QF2M"
