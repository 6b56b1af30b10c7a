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
IDLE_SECONDS = 3 * 60 * 60  # a class nobody touched for three hours ends, and its answers go


class ClassError(ValueError):
    """Something a user asked of a class that cannot be done; the message is for the user."""


@dataclass(frozen=True)
class Started:
    """A new class: its public code and the teacher's secret key (shown to the teacher only)."""

    code: str
    teacher_key: str


@dataclass(frozen=True)
class Room:
    """What every member of a class may know of it."""

    code: str
    students: int
    lead_page: str | None  # where the teacher last sent the room (a page's url path), if anywhere
    lead_query: str | None
    lead_version: int  # grows each time the teacher sends the room somewhere
    revealed: frozenset[str]  # questions the teacher has revealed


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
    if any(unicodedata.category(ch).startswith("C") for ch in name):
        raise ClassError("A nickname is plain text: letters, digits, spaces and punctuation.")
    if len(name) > NICKNAME_MAX:
        raise ClassError(f"A nickname has at most {NICKNAME_MAX} characters (this one has {len(name)}).")
    return name


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
