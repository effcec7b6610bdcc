"""What one judging session reads (:class:`Inputs`), writes (:class:`Outputs`), how it judges
(:class:`Settings`), and what it reports back (:class:`Summary`). The CLI and the library build
the first three; each part of the engine takes only the record it needs."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Optional

from judges.attest.endpoint import Endpoint
from judges.config import Workflow
from judges.formats import outputset

if TYPE_CHECKING:
    from judges.support.model import SupportModel


@dataclass(frozen=True)
class Inputs:
    """What a session reads: the inputs the CLI (or a library caller) names."""

    topics: list[Path]  # files or directories (empty: the topics are taken from the runs)
    responses: list[Path]  # run files or directories
    corpus: Optional[Path] = None  # a JSONL(.gz) file, a directory of them, or a docstore
    workflow_path: Optional[Path] = None  # the workflow file the workflow was read from (for messages)
    labels: tuple[Path, ...] = ()  # assessors' per-citation label files or folders (--labels; one path or several)
    dataset: str = "auto"  # the track shape to expect
    max_topics: Optional[int] = None
    max_runs: Optional[int] = None
    on_error: str = "fail"  # fail | skip
    allow_missing_text: bool = False  # judge even when no cited document has text (every citation 'missing')
    nuggets: Optional[Path] = None  # a nugget bank file (--nuggets; judges.formats.nuggets)
    judge: str = "citation"  # citation | nugget (nuggets only on the leaderboard) | argue (both, and NUGGET_F1)
    nugget_model: str = "rag24"  # the nugget model: built in, or a file written by calibrate-nuggets
    refit_support: bool = False  # --labels re-fit the support model's intercepts to this track (--refit-support)

    def __post_init__(self):
        labels = self.labels
        if labels is None or isinstance(labels, (str, Path)):  # one file (as before several), or none
            labels = () if labels is None else (labels,)
        object.__setattr__(self, "labels", tuple(Path(p) for p in labels))


@dataclass(frozen=True)
class Outputs:
    """What a session writes, and where."""

    out_dir: Path
    name: str
    debug_log: Optional[Path] = None  # None: OUT_DIR/NAME.jsonl (default_log)
    no_debug_log: bool = False  # write no debug log at all (--no-debug-log)
    leaderboard_formats: tuple[str, ...] = ("ir_measures",)

    @property
    def log_path(self) -> Optional[Path]:
        """Where the debug log goes (None: none is written)."""
        if self.no_debug_log:
            return None
        return Path(self.debug_log) if self.debug_log is not None else self.default_log

    @property
    def default_log(self) -> Path:
        """Where the debug log goes without ``--debug-log``."""
        return outputset.path(self.out_dir, self.name, "debug_log")


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


@dataclass
class Summary:
    counts: Counter = field(default_factory=Counter)  # keys declared in judges.counts
    statuses: Counter = field(default_factory=Counter)
    runs: list[str] = field(default_factory=list)
    topics: int = 0
    files: dict[str, str] = field(default_factory=dict)  # output kind -> path
    attest: dict = field(default_factory=dict)  # LLM attestation figures (judges.attest.cascade.summarize)
    coverage: list = field(default_factory=list)  # per-run coverage rows (judges.coverage)
    filled: list = field(default_factory=list)  # (run, topic) pairs without a report, filled by leaderboard.on_missing
    warnings: list = field(default_factory=list)  # lines for the summary (e.g. much missing document text)
    processes: str = ""  # how many processes judged, and why
    plan: Optional[object] = None  # the session's plan (judges.plan.Plan), when attest.mode uncertain planned
    degenerate_not_used: bool = False  # the LLM's answers looked degenerate: the citations kept the model's judgment
    labels: dict = field(default_factory=dict)  # --labels: labels in effect, and per file (path, labels, not labelled)
