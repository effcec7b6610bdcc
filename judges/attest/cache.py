"""The persistent answer cache: every question is asked of an LLM at most once.

A question's key is the SHA-256 of the model name, the exact chat messages and the sampling
parameters (not the server's URL, so a mirror of the same model shares answers). Answers are
stored in SQLite (WAL mode) and committed one by one as they arrive, so a run killed at any
point (Ctrl-C, ``kill -9``) keeps every answer it received, and worker processes can share one
file. Failed requests are not stored: a later run asks again.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import sqlite3
import time
from pathlib import Path
from typing import NamedTuple, Optional

FILE_NAME = "attest-cache.sqlite3"
BUSY_TIMEOUT_S = 60.0  # how long a process waits for another that holds the cache

_SCHEMA = """
CREATE TABLE IF NOT EXISTS answers (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    reply TEXT NOT NULL,
    p_yes REAL,
    tokens_in INTEGER NOT NULL,
    tokens_out INTEGER NOT NULL
)
"""


class Answer(NamedTuple):
    reply: str  # the model's text, as received
    p_yes: Optional[float]
    tokens_in: int
    tokens_out: int


def question_key(model: str, messages: list[dict], params: dict) -> str:
    blob = json.dumps({"model": model, "messages": messages, "params": params}, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class AnswerCache:
    def __init__(self, directory: Path):
        directory.mkdir(parents=True, exist_ok=True)
        self.path = directory / FILE_NAME
        self._db = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
        self._wal()
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute(_SCHEMA)

    def _wal(self) -> None:
        """Switch the file to WAL mode (kept in the file). Processes opening a new cache at once
        (``--workers N``) race for the switch, and SQLite reports the loser busy at once,
        without waiting: retry until the busy timeout."""
        deadline = time.monotonic() + BUSY_TIMEOUT_S
        while True:
            try:
                self._db.execute("PRAGMA journal_mode=WAL")
                return
            except sqlite3.OperationalError as e:
                if "locked" not in str(e) or time.monotonic() > deadline:
                    raise
                time.sleep(0.01)

    def get_many(self, keys: list[str]) -> dict[str, Answer]:
        found: dict[str, Answer] = {}
        for start in range(0, len(keys), 500):
            chunk = keys[start : start + 500]
            rows = self._db.execute(
                "SELECT key, reply, p_yes, tokens_in, tokens_out FROM answers "
                f"WHERE key IN ({','.join('?' * len(chunk))})",
                chunk,
            )
            for key, *values in rows:
                found[key] = Answer(*values)
        return found

    def put(self, key: str, model: str, answer: Answer) -> None:
        self._db.execute(
            "INSERT OR IGNORE INTO answers (key, model, reply, p_yes, tokens_in, tokens_out) VALUES (?, ?, ?, ?, ?, ?)",
            (key, model, *answer),
        )

    def put_all(self, items: list[tuple[str, str, Answer]]) -> None:
        """Store every (key, model, answer) of ``items`` in one transaction: all of them, or, if
        anything fails or interrupts it (a full disk, Ctrl-C), none (the cache as it was)."""
        self._db.execute("BEGIN IMMEDIATE")
        try:
            for key, model, answer in items:
                self.put(key, model, answer)
        except BaseException:
            if self._db.in_transaction:  # SQLite rolls back by itself after some errors (a full disk)
                with contextlib.suppress(sqlite3.Error):
                    self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    def __len__(self) -> int:
        return self._db.execute("SELECT COUNT(*) FROM answers").fetchone()[0]

    def close(self) -> None:
        self._db.close()
