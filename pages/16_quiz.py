"""Test yourself: a quiz on the misconceptions people really have about normalization."""

import secrets
import urllib.parse

import streamlit as st

from layernorm.labs.quiz import Question, make_quiz
from ui import page

PAGE_FILES = {
    "/variance": "pages/2_variance.py",
    "/standardize": "pages/3_standardize.py",
    "/scale_shift": "pages/4_scale_shift.py",
    "/mean": "pages/1_mean.py",
    "/which_axis": "pages/6_which_axis.py",
    "/train_vs_inference": "pages/7_train_vs_inference.py",
    "/depth_and_drift": "pages/8_depth_and_drift.py",
    "/invariances": "pages/14_invariances.py",
}


def _new_quiz() -> None:
    """Fresh numbers, a fresh order, no answers (the answers stay on the server)."""
    st.session_state["quiz_seed"] = secrets.randbelow(2**31)
    st.session_state["quiz_answers"] = {}  # question key -> chosen option index
    st.session_state["quiz_round"] = st.session_state.get("quiz_round", 0) + 1


def _answer(q: Question, radio_key: str) -> None:
    choice = st.session_state.get(radio_key)
    if choice is not None:
        st.session_state["quiz_answers"][q.key] = q.options.index(choice)


if "quiz_seed" not in st.session_state:
    _new_quiz()
questions = make_quiz(int(st.session_state["quiz_seed"]))
answers: dict[str, int] = st.session_state["quiz_answers"]
round_no = int(st.session_state["quiz_round"])

page.header(
    "Test yourself · Fourteen misconceptions",
    "Each question is a mistake real people make about normalization — in code reviews, in tutorials, in "
    "papers. The numbers are drawn for you and every answer is computed by the lab's core, so the quiz is "
    "different each time. Commit to an answer first; the explanation and a link to the page that shows it "
    "appear only after you check.",
)

right = sum(q.check(answers[q.key]) for q in questions if q.key in answers)
c1, c2, c3 = st.columns([1, 1, 2], vertical_alignment="bottom")
c1.metric("score", f"{right} / {len(questions)}")
c2.metric("answered", f"{len(answers)} / {len(questions)}")
c3.button("Try again with new numbers", key="quiz_again", on_click=_new_quiz, icon=":material/refresh:")
st.progress(len(answers) / len(questions))

for n, q in enumerate(questions, start=1):
    with st.container(border=True, key=f"quiz_box_{n}"):
        st.markdown(f"**{n}. {q.topic}**")
        st.text(q.prompt)  # plain text: the numbers and symbols exactly as computed
        radio_key = f"quiz_{q.key}_{round_no}"
        done = q.key in answers
        st.radio(
            "Your answer", q.options, index=answers.get(q.key), key=radio_key,
            label_visibility="collapsed", disabled=done, persist_state="session",
        )  # fmt: skip
        if not done:
            st.button("Check", key=f"check_{q.key}_{round_no}", on_click=_answer, args=(q, radio_key))
            continue
        if q.check(answers[q.key]):
            st.success("Right. " + q.explanation, icon=":material/check_circle:")
        else:
            st.error(
                f"Not quite — the answer is: {q.options[q.answer]}. {q.explanation}", icon=":material/cancel:"
            )
        path, _, query = q.link.partition("?")
        st.page_link(
            PAGE_FILES.get(path, "pages/0_home.py"),
            label="Open the page that shows it",
            icon=":material/open_in_new:",
            query_params=dict(urllib.parse.parse_qsl(query)),
        )

if len(answers) == len(questions):
    if right == len(questions):
        st.balloons()
    st.info(
        f"You got {right} of {len(questions)}. Press *Try again* for new numbers and a new order.",
        icon=":material/school:",
    )
