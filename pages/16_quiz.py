"""Test yourself: a quiz on the misconceptions people really have about normalization."""

import secrets
import urllib.parse

import streamlit as st

from layernorm.labs.quiz import Question, make_quiz
from ui import class_quiz, class_teacher, class_views, page, session
from ui import class_session as cs
from ui.fragments import page_fragment, rerun_fragments
from ui.navigation import page_file

SCORE, END = "quiz_score", "quiz_end"  # the fragments every Check reruns


def _new_quiz() -> None:
    """Fresh numbers, a fresh order, no answers (the answers stay on the server)."""
    session.pages.quiz_seed.set(secrets.randbelow(2**31))
    session.pages.quiz_answers.set({})
    session.pages.quiz_round.set(session.pages.quiz_round.get() + 1)


def _answer(q: Question, radio_key: str, box: str) -> None:
    """Check: record the answer (in a class, into the class too), then rerun the question's box, the score
    and the closing line only."""
    choice = session.widgets.get(radio_key)
    if choice is not None:
        index = q.options.index(choice)
        # exploring alone, the student sees the answer now: that answer is final in the class too
        final = member is not None and class_views.exploring_alone()
        # in a class, an answer is the student's only once the class took it (the score counts no other)
        if member is None or class_views.record(
            class_quiz.qid(q), index, len(q.options), final=final, right=q.answer, prompt=class_quiz.about(q)
        ):
            session.pages.quiz_answers.kept()[q.key] = index
    if run is not None:  # the run's page has only the box
        rerun_fragments(box)
    else:
        rerun_fragments(SCORE, box, END)  # in page order


def _try_again() -> None:
    _new_quiz()
    st.rerun()  # a new quiz: every box changes (the button sits in the score's fragment)


if not session.pages.quiz_seed.present():
    _new_quiz()
member = cs.member()
if member is not None:  # a class answers one quiz: the same numbers and order on every screen
    seed = cs.quiz_seed(member.code)
    if session.pages.quiz_seed.get() != seed:
        session.pages.quiz_seed.set(seed)
        session.pages.quiz_answers.set({})
questions = make_quiz(int(session.pages.quiz_seed.get()))
round_no = session.pages.quiz_round.get()
following = member is not None and not member.teacher and not class_views.exploring_alone()
run = class_quiz.place(member, questions)  # the teacher runs the quiz question by question (None: not now)
if member is not None:
    class_quiz.sync_answers(member, questions)  # a student's answers are the class's: its score counts those

page.header(
    f"Test yourself · {len(questions)} misconceptions",
    "Each question is a mistake real people make about normalization — in code reviews, in tutorials, in "
    "papers. The numbers are drawn for you (in a class, once for the whole class) and every answer is computed "
    "by the lab's core, so each quiz is different. Commit to an answer first; the explanation and a link to "
    "the page that shows it appear only after you check (in a class, once your teacher reveals it).",
)


# A class answers at once: each question is a fragment, so choosing an answer reruns its box alone and
# Check reruns that box, the score and the closing line (a full rerun sent every question's box, about 70
# elements, on every click).
def _shown() -> list[Question]:
    """The questions whose answer this student sees: all; in a class, following, those revealed."""
    if not following or member is None:
        return list(questions)
    room = cs.store().room(member.code)
    revealed = room.revealed if room is not None else frozenset()
    return [q for q in questions if class_quiz.qid(q) in revealed]


def _right(shown: list[Question] | None = None) -> int:
    """Right answers so far (answers the class holds, in a class), of the questions ``shown``."""
    answers = session.pages.quiz_answers.get()
    return sum(q.check(answers[q.key]) for q in (_shown() if shown is None else shown) if q.key in answers)


@page_fragment(key=SCORE)
def score_section() -> None:
    answers = session.pages.quiz_answers.get()
    c1, c2, c3 = st.columns([1, 1, 2], vertical_alignment="bottom")
    c1.metric("score", f"{_right()} / {len(questions)}")
    c2.metric("answered", f"{len(answers)} / {len(questions)}")
    if member is None:  # a class keeps its one quiz
        c3.button(
            "Try again with new numbers", key="quiz_again", on_click=_try_again, icon=":material/refresh:"
        )
    st.progress(len(answers) / len(questions))


def question_box(n: int, q: Question, *, live: bool = False) -> None:
    """Question ``n``'s box; ``live``: the only box drawn (a run), so the teacher's box polls the class."""
    box = f"quiz_q{n}"
    poll = class_views.poll_every() if live else None

    def reveal_text(_: int | None) -> None:
        st.info(f"The answer: {q.options[q.answer]}. {q.explanation}", icon=":material/visibility:")

    @page_fragment(key=box, run_every=poll, by_user=poll is None)
    def draw() -> None:
        answers = session.pages.quiz_answers.kept()
        with st.container(border=True, key=f"quiz_box_{n}"):
            st.markdown(f"**{n}. {q.topic}**")
            st.text(q.prompt)  # plain text: the numbers and symbols exactly as computed
            seen = class_views.room_view(
                class_quiz.qid(q), q.options, q.answer, reveal_text, live=live, prompt=class_quiz.about(q),
                changeable=False,
            )  # fmt: skip
            if member is not None and member.teacher:
                return
            radio_key = f"quiz_{q.key}_{round_no}"
            if seen.student:  # the box shows what the class holds for this seat, each round afresh
                if seen.state.round > 1:
                    radio_key += f"_r{seen.state.round}"
                if seen.held is not None:
                    answers[q.key] = seen.held.choice
                else:
                    answers.pop(q.key, None)
                if seen.held is not None or not seen.takes:  # nothing of another round or refused shows
                    session.widgets.set(radio_key, None if seen.held is None else q.options[seen.held.choice])
            done = q.key in answers or (seen.student and not seen.takes)
            st.radio(
                "Your answer", q.options, index=None if seen.student else answers.get(q.key), key=radio_key,
                label_visibility="collapsed", disabled=done, persist_state="session",
            )  # fmt: skip
            if not done:
                st.button("Check", key=f"check_{radio_key.removeprefix('quiz_')}", on_click=_answer,
                          args=(q, radio_key, box))  # fmt: skip
                return
            if not seen.show:  # in a class, until the teacher reveals it
                return
            if q.key not in answers:
                if not seen.revealed:
                    return  # exploring alone a question closed before this student answered it
                st.info(
                    f"No answer of yours is in: the answer is {q.options[q.answer]}. {q.explanation}",
                    icon=":material/visibility:",
                )
            elif q.check(answers[q.key]):
                st.success("Right. " + q.explanation, icon=":material/check_circle:")
            else:
                st.error(
                    f"Not quite — the answer is: {q.options[q.answer]}. {q.explanation}",
                    icon=":material/cancel:",
                )
            path, _, query = q.link.partition("?")
            st.page_link(
                page_file(path),
                label="Open the page that shows it",
                icon=":material/open_in_new:",
                query_params=dict(urllib.parse.parse_qsl(query)),
            )

    draw()


@page_fragment(key=END)
def end_section() -> None:
    answers = session.pages.quiz_answers.get()
    n = len(questions)
    if len(answers) < n:
        return
    shown = _shown()
    right = _right(shown)
    if right == n:
        st.balloons()
    if member is None:
        said = f"You got {right} of {n}. Press *Try again* for new numbers and a new order."
    elif len(shown) == n:
        said = f"You got {right} of {n}."
    elif not shown:
        said = f"You have answered all {n}: your score grows as your teacher reveals their answers."
    else:
        said = (
            f"You have answered all {n}. Your teacher has revealed {len(shown)} of them so far, and you got "
            f"{right} of those right."
        )
    st.info(said, icon=":material/school:")


if member is not None and run is not None and run.summary:
    class_quiz.summary(member, questions, run.at)
elif member is not None and run is not None:  # only the question the class is on
    class_quiz.run_bar(member, questions, run.at)
    question_box(run.at + 1, questions[run.at], live=True)
else:
    if member is not None and member.teacher:
        class_quiz.start_bar(questions)
    score_section()
    class_teacher.quiz_summary(
        [(f"quiz_{q.key}", f"{n}. {q.topic}", q.options, q.answer) for n, q in enumerate(questions, 1)]
    )
    for n, q in enumerate(questions, start=1):
        question_box(n, q)
    end_section()
