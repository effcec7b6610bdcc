"""How a session runs (:class:`RunOptions`): the LLM it asks and where its answers are cached,
how many processes judge, what it does with a degenerate LLM, and who is told (warnings, the
progress bar). Built once by the caller (the command line, the AutoJudge adapter) and handed
down unchanged: :func:`judges.session.pipeline.run`, :func:`judges.session.cluster.run`,
:func:`judges.session.shards.merge` and :func:`judges.session.shards.judge_shard` take it, and
the checked :class:`judges.session.stages.Session` holds it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

from judges.attest.endpoint import Endpoint


def quiet(msg: str) -> None:
    """No one is told (a session's default ``warn``)."""


def no_progress(n: int, total: Optional[int] = None) -> None:
    """No bar advances (a session's default ``progress``)."""


@dataclass(frozen=True)
class RunOptions:
    """How a session runs, whatever it reads and writes."""

    llm: Optional[Endpoint] = None  # the endpoint attestation asks (--use-env-llm, --llm-config)
    cache_dir: Optional[Path] = None  # the LLM's answer cache (None: the out-dir)
    workers: int = 0  # processes: 0 automatic, 1 this process, N worker processes
    strict_llm: bool = False  # a degenerate LLM (judges.attest.degenerate) is an error
    use_degenerate_llm: bool = False  # a degenerate LLM's answers are used all the same
    warn: Callable[[str], None] = quiet  # told each warning, one line
    progress: Callable = no_progress  # progress(n, total=None): n more citations judged (total: of them all)

    @property
    def model(self) -> Optional[str]:
        """The LLM's model (None: no LLM), as a topic shard records it for its merge."""
        return None if self.llm is None else self.llm.model
