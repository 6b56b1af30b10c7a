"""What a class is, without a database: its codes, nicknames, rooms and summaries (no SQLAlchemy, so
a visit that is not in a class never loads the database layer; ``classroom.store`` keeps them).
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

# No I, O, 0 or 1: a code is read off a projector and typed by thirty people.
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 6
NICKNAME_MAX = 24
QUESTION_MAX = 64
PROMPT_MAX = 600  # the lab's longest question (a quiz prompt with its topic) is about 400
# The longest view's link the teacher's lead carries: a follower's address holds it, and a reload of that
# address must pass HAProxy's 16 kB request buffer (deploy/) with the browser's headers beside it
LEAD_QUERY_MAX = 8000
IDLE_SECONDS = 3 * 60 * 60  # a class nobody touched for three hours stops taking answers (kept)
KEEP_DAYS = 30  # a class's answers are deleted this many days after it stopped, unless the teacher says
KEEP_DAYS_MAX = 365
# A question's states: open (answers taken), closed (none taken, nothing shown), revealed (answer shown)
OPEN, CLOSED, REVEALED = "open", "closed", "revealed"
QUESTION_STATES = (OPEN, CLOSED, REVEALED)
# Format characters a nickname may hold: zero-width joiner and non-joiner (emoji sequences such as
# 🏳️‍🌈, and Persian or Indic words) and the tag characters of subdivision flags (🏴󠁧󠁢󠁳󠁣󠁴󠁿).
_JOINERS = {"\u200c", "\u200d"} | {chr(c) for c in range(0xE0020, 0xE0080)}


class ClassError(ValueError):
    """Something a user asked of a class that cannot be done; the message is for the user."""


@dataclass(frozen=True)
class Started:
    """A new class: its public code and the teacher's secret key (shown to the teacher only)."""

    code: str
    teacher_key: str


@dataclass(frozen=True)
class Question:
    """Where one question of a class stands: its round (1, then 2 after "vote again", ...) and state."""

    round: int
    state: str  # OPEN, CLOSED or REVEALED


@dataclass(frozen=True)
class Given:
    """A seat's answer to a question in the question's current round, as the class holds it."""

    choice: int
    final: bool  # the student saw the answer when giving it: it cannot change in this round


@dataclass(frozen=True)
class Room:
    """What every member of a class may know of it."""

    code: str
    students: int
    lead_page: str | None  # where the teacher last sent the room (a page's url path), if anywhere
    lead_query: str | None
    lead_version: int  # grows each time the teacher sends the room somewhere
    revealed: frozenset[str]  # questions whose answer is shown
    questions: dict[str, Question]  # every question the class has met, by its id
    paced: bool = False  # the teacher keeps every student on the teacher's page
    closed: bool = False  # the class takes no more answers (ended, or idle); its results are kept
    current: str | None = None  # the question the teacher last acted on (the projector shows it)
    version: int = 0  # grows with every change a member's screen must follow


@dataclass(frozen=True)
class Seat:
    """One student of a class as the teacher's roster shows it."""

    seat: str
    nickname: str | None
    hidden: bool  # the teacher hid the nickname: shown to no one but the teacher, marked hidden
    answers: int  # answers given (every round)


@dataclass(frozen=True)
class QuestionResult:
    """One question's answers after class: {round: {choice: how many}}, and what the lab knows of it."""

    question: str
    prompt: str | None
    options: int | None
    right: int | None  # the right choice's index, when the question has one
    state: str
    rounds: dict[int, dict[int, int]]
    labels: tuple[str, ...] = ()  # the options' texts, when the teacher's screen has described it
    round: int = 1  # the current round


@dataclass(frozen=True)
class AnswerRow:
    """One student's answer to one question in one round, as the CSV export writes it."""

    nickname: str  # "(no nickname)" when the student gave none; the teacher sees hidden ones
    question: str
    prompt: str | None
    round: int
    choice: int
    right: bool | None  # None when the question has no right answer recorded
    at: float  # seconds since the epoch


def normal_code(text: str) -> str | None:
    """A typed room code in its stored spelling ("ab c-123" -> "ABC123"), or None if it cannot be one."""
    code = "".join(ch for ch in text.upper() if not ch.isspace() and ch != "-")
    if len(code) != CODE_LENGTH or any(ch not in CODE_ALPHABET for ch in code):
        return None
    return code


def clean_nickname(text: str | None) -> str | None:
    """A nickname as stored: trimmed, control characters refused, at most :data:`NICKNAME_MAX` characters.

    Raises ``ClassError`` for one that cannot be kept as typed. It is shown as plain text wherever
    it is shown.
    """
    if text is None or not text.strip():
        return None
    name = " ".join(text.split())
    for ch in name:
        if unicodedata.category(ch).startswith("C") and ch not in _JOINERS:
            raise ClassError(
                f"A nickname is plain text: it cannot hold U+{ord(ch):04X} ({_char_name(ch)}), "
                "an invisible control or format character."
            )
    if len(name) > NICKNAME_MAX:
        several = any(ord(ch) > 0xFFFF or ch in _JOINERS or unicodedata.category(ch) == "Mn" for ch in name)
        raise ClassError(
            f"A nickname has at most {NICKNAME_MAX} characters (this one has {len(name)}"
            + ("; an emoji or an accent can count as several" if several else "")
            + ")."
        )
    return name


def _char_name(ch: str) -> str:
    return unicodedata.name(ch, "").lower() or "a control character"


def clean_prompt(text: str | None) -> str | None:
    """A question's prompt as stored for the results: one line of plain text, at most :data:`PROMPT_MAX`
    characters (longer ones are cut with "…")."""
    if not text:
        return None
    visible = "".join(" " if unicodedata.category(ch).startswith("C") else ch for ch in text)
    line = " ".join(visible.split())
    return line if len(line) <= PROMPT_MAX else line[: PROMPT_MAX - 1] + "…"


@dataclass(frozen=True)
class Summary:
    """One question's answers as the teacher reads them."""

    answers: int
    right: int
    common_wrong: int | None  # the wrong choice most answered (the lowest of a tie), None if no wrong answer


def summarize(counts: dict[int, int], answer: int) -> Summary:
    """:class:`Summary` of ``counts`` ({choice: how many}) for a question whose right choice is ``answer``."""
    wrong = {i: n for i, n in counts.items() if i != answer and n > 0}
    common = min(wrong, key=lambda i: (-wrong[i], i)) if wrong else None
    return Summary(sum(counts.values()), counts.get(answer, 0), common)


# --- what a class's numbers say (the projector, the quiz's summary, the results) -------------------


def students_text(n: int) -> str:
    return f"{n} student" if n == 1 else f"{n} students"


def share_text(n: int, total: int) -> str:
    """``n`` of ``total`` (> 0) in percent, never looking more exact than it is: "50 %", "≈ 58 %",
    "< 1 %" for a share that rounds to 0 but is not, "> 99 %" for one that rounds to 100 but is not."""
    if (100 * n) % total == 0:
        return f"{100 * n // total} %"
    rounded = (200 * n + total) // (2 * total)  # half up
    if rounded == 0:
        return "< 1 %"
    if rounded == 100:
        return "> 99 %"
    return f"≈ {rounded} %"


def mean_text(total: int, students: int) -> str:
    """``total`` / ``students`` (> 0): exact when it is a whole number, else "≈" and one decimal."""
    return str(total // students) if total % students == 0 else f"≈ {total / students:.1f}"
