"""How pairs are judged (:class:`Settings`): the workflow and the little the engine needs from
outside it; what a worker process is handed."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Optional

from judges.attest.endpoint import Endpoint
from judges.core.config import Workflow

if TYPE_CHECKING:
    from judges.support.model import SupportModel


@dataclass(frozen=True)
class Settings:
    """How citations are judged: the workflow and the little it needs from outside it (what a
    worker process is handed)."""

    workflow: Workflow  # alignment.backend and attest.mode as the command line set them
    workflow_path: Optional[Path] = None  # a relative support.model is found beside the workflow file
    dataset: str = "auto"
    has_corpus: bool = False  # --corpus was given (only for the message about a missing document)
    llm: Optional[Endpoint] = None  # where attestation questions go (workflow attest.mode != none)
    cache_dir: Path = Path(".")  # the attestation answer cache
    ask: Optional[Callable] = None  # who answers uncached questions (judges.attest.client.Asker; None: the llm, online)
    support_model: Optional["SupportModel"] = None  # the workflow's model re-fitted on this track's --labels

    def without_llm(self) -> "Settings":
        """The same judgments, no LLM asked (the first pass before a plan)."""
        attest = self.workflow.attest.model_copy(update={"mode": "none"})
        return replace(self, workflow=self.workflow.model_copy(update={"attest": attest}))
