"""Replay-only answering: every question from the answer cache, none asked.

:class:`Replay` is an asker (:data:`judges.attest.client.Asker`) for questions the cache does not
hold: it asks nothing and stops the session at the first one with one line naming the question
(the start of its prompt: the fact or sentence asked about, and its cache key), so that a run meant
to reproduce recorded answers never quietly goes online or judges without them.
"""

from __future__ import annotations

from pathlib import Path

from judges.core.errors import InputError

MAX_SHOWN = 160  # characters of the question named


class CacheMiss(InputError):
    """A question the replay-only cache has no answer to."""


class Replay:
    def __init__(self, cache_dir: Path | str):
        self.cache_dir = str(cache_dir)

    def __call__(self, requests, on_result) -> None:
        for request in requests[:1]:
            messages = request.body.get("messages") or [{}]
            text = " ".join(str(messages[-1].get("content", "")).split())
            shown = text if len(text) <= MAX_SHOWN else text[:MAX_SHOWN] + "..."
            raise CacheMiss(
                self.cache_dir,
                None,
                "replay_only",
                f"no cached answer to the question {shown!r} (cache key {request.key[:16]}); replay-only asks nothing",
            )
