"""Class mode's storage: rooms, answers, reveals and the teacher's lead, shared by every lab process.

The database is an embedded SQLite file by default (``data/classes.sqlite3`` beside ``app.py``,
created on first use). Set ``LAB_DATABASE_URL`` (``postgresql+psycopg://user@host/db``) when
several lab processes serve one class: they must share one database (``deploy/``).
"""

from __future__ import annotations

import os
from pathlib import Path

DATA_DIR = Path(__file__).resolve().parents[1] / "data"
DEFAULT_SQLITE = DATA_DIR / "classes.sqlite3"


def database_url() -> str:
    """``LAB_DATABASE_URL`` if set, else the SQLite file under ``data/`` (its folder made on first use)."""
    url = os.environ.get("LAB_DATABASE_URL", "").strip()
    if url:
        return url
    DATA_DIR.mkdir(exist_ok=True)
    return f"sqlite:///{DEFAULT_SQLITE}"
