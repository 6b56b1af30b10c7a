"""A class's results on the teacher's screen: the table per question and round, the CSV of every answer,
and a question's rounds side by side (``ui.class_teacher`` draws them).

``results_table``, ``results_csv`` and ``rounds_table`` are pure (no Streamlit): tests compare what
they make with the store's rows.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING

import streamlit as st

from classroom.model import AnswerRow, ClassError, QuestionResult, summarize
from ui import class_session as cs
from ui import session

if TYPE_CHECKING:
    import pandas as pd

CSV_COLUMNS = ("nickname", "question", "prompt", "round", "answer", "right", "time")
# A spreadsheet runs a cell that starts with one of these as a formula: a nickname is text, so it gets a
# "'" first (what a spreadsheet itself writes to keep such a cell text).
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _texts(results: Sequence[QuestionResult]) -> dict[str, tuple[str, ...]]:
    return {r.question: r.labels for r in results}


def answer_text(choice: int, labels: Sequence[str]) -> str:
    """An answer as the CSV writes it: the option's text when the question was described, else its index."""
    return labels[choice] if 0 <= choice < len(labels) else str(choice)


def as_text_cell(text: str) -> str:
    """``text`` as a spreadsheet keeps it text (never a formula)."""
    return "'" + text if text.startswith(_FORMULA_STARTS) else text


def iso_utc(at: float) -> str:
    """Seconds since the epoch as ISO 8601 in UTC, to the second ("2026-12-06T09:30:05Z")."""
    return datetime.fromtimestamp(at, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def results_csv(rows: Sequence[AnswerRow], results: Sequence[QuestionResult]) -> str:
    """The CSV of every answer: one row per student × question × round (:data:`CSV_COLUMNS`).

    ``rows`` and ``results`` are the store's ``answer_rows`` and ``results`` of one class. ``right`` is
    "yes", "no", or empty when the question has no right answer recorded.
    """
    labels = _texts(results)
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(CSV_COLUMNS)
    for row in rows:
        writer.writerow(
            (
                as_text_cell(row.nickname),
                row.question,
                row.prompt or "",
                row.round,
                answer_text(row.choice, labels.get(row.question, ())),
                "" if row.right is None else "yes" if row.right else "no",
                iso_utc(row.at),
            )
        )
    return out.getvalue()


def results_table(results: Sequence[QuestionResult]) -> pd.DataFrame:
    """One row per question and round: the round, how many answered, how many were right (empty when the
    question has no right answer recorded), and the question (its prompt, else its id)."""
    import pandas as pd  # only when the teacher opens the results

    rows = []
    for r in results:
        for n in range(1, r.round + 1):
            counts = r.rounds.get(n, {})
            right = None if r.right is None else counts.get(r.right, 0)
            rows.append((n, sum(counts.values()), right, r.prompt or r.question))
    # The numbers first: on a phone they stay in sight where the question's text is cut off
    table = pd.DataFrame(rows, columns=["round", "answered", "right", "question"])
    table["right"] = table["right"].astype("Int64")  # a missing right answer stays empty, not NaN
    return table


def rounds_table(options: Sequence[str], rounds: dict[int, dict[int, int]], last: int) -> pd.DataFrame:
    """A question's answers per option (rows) in each round 1 … ``last`` (columns), side by side."""
    import pandas as pd

    columns = {
        f"round {n}": [rounds.get(n, {}).get(i, 0) for i in range(len(options))] for n in range(1, last + 1)
    }
    return pd.DataFrame(columns, index=pd.Index(list(options), name="answer"))


def rounds_right(rounds: dict[int, dict[int, int]], last: int, answer: int) -> str:
    """How many were right in each round: "1 of 3 right in round 1 → 2 of 3 in round 2"."""
    parts = []
    for n in range(1, last + 1):
        counts = rounds.get(n, {})
        total = sum(counts.values())
        said = f"{counts.get(answer, 0)} of {total}" if total else "no answers"
        parts.append(f"{said} in round {n}")
    return "Right: " + " → ".join(parts)


def how_right(
    options: Sequence[str], rounds: dict[int, dict[int, int]], last: int, answer: int, revealed: bool
) -> None:
    """Under a question's bars, for the teacher: each round side by side and how many were right in each
    once there are several; else this round's right answers and most common wrong one, until revealed."""
    private = "" if revealed else " (only you see this until you reveal)."
    if last > 1:
        st.table(rounds_table(options, rounds, last))
        st.caption(rounds_right(rounds, last, answer) + private)
    elif (counts := rounds.get(last, {})) and not revealed:
        told = summarize(counts, answer)
        wrong = options[told.common_wrong] if told.common_wrong is not None else None
        st.caption(
            f"{told.right} of {told.answers} right"
            + (f"; most common wrong answer: {wrong}" if wrong is not None else "")
            + private
        )


def open_results() -> None:
    session.klass.results_open.set(True)


def _closed() -> None:
    session.klass.results_open.set(False)


@st.dialog("Results", width="large", on_dismiss=_closed)
def show_results(code: str, key: str) -> None:
    """Every question of the class with its rounds, and the CSV of every answer."""
    try:
        results = cs.store().results(code, key)
        rows = cs.store().answer_rows(code, key)
    except ClassError as exc:
        st.text(str(exc))
        return
    if not results:
        st.caption("No question yet: the results fill in as the class meets the lab's questions.")
        return
    st.caption(
        f"Class {code}: {len(rows)} answer{'s' if len(rows) != 1 else ''} to {len(results)} "
        f"question{'s' if len(results) != 1 else ''}. One row per question and round (Vote again starts "
        "a new round; the earlier ones are kept)."
    )
    small = st.column_config.NumberColumn(width="small")
    st.dataframe(
        results_table(results),
        hide_index=True,
        column_config={"round": small, "answered": small, "right": small},
    )
    st.download_button(
        "Download the answers (CSV)",
        results_csv(rows, results).encode("utf-8-sig"),  # the mark makes spreadsheets read it as UTF-8
        file_name=f"class-{code}-answers.csv",
        mime="text/csv",
        key="class_csv",
        on_click="ignore",  # the dialog stays open
        icon=":material/download:",
    )
    st.caption(
        "One row per student, question and round, with each student's nickname (hidden ones too) and "
        "the time in UTC. A removed student's answers are gone."
    )
