"""What one judging session reads (:class:`Inputs`), writes (:class:`Outputs`) and reports back
(:class:`Summary`); how it judges is the engine's :class:`judges.engine.settings.Settings`. The CLI
and the library build the first two; the session builds the summary, once, when it is done."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Optional

from judges.engine.settings import Settings
from judges.formats import outputset

if TYPE_CHECKING:
    from judges.attest.plan import Plan
    from judges.core.config import Workflow


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
    allow_few_topics: bool = False  # judge though under half of the reports are of a topic given (--allow-few-topics)
    nuggets: Optional[Path] = None  # a nugget bank file (--nuggets; judges.formats.nuggets)
    judge: str = (
        "citation"  # citation | nugget (nuggets only on the leaderboard) | argue (both, and NUGGET_F1) | battle
    )
    battle_opponents: Optional[float] = None  # --judge battle: opponents per run and topic (None: every pair)
    nugget_model: str = "rag24"  # the nugget model: built in, or a file written by calibrate-nuggets
    headline: Optional[str] = None  # the measure runs are ranked by (--headline; None: the judge's own)
    refit_support: bool = False  # --labels re-fit the support model's intercepts to this track (--refit-support)
    # In memory, besides (or instead of) the files: records in the shapes a topics file and a run
    # file hold (JSON objects as dicts), read by the same checks (judges.session.scan).
    topic_records: tuple = ()
    report_records: tuple = ()

    def __post_init__(self):
        labels = self.labels
        if labels is None or isinstance(labels, (str, Path)):  # one file (as before several), or none
            labels = () if labels is None else (labels,)
        object.__setattr__(self, "labels", tuple(Path(p) for p in labels))
        object.__setattr__(self, "topic_records", tuple(self.topic_records))
        object.__setattr__(self, "report_records", tuple(self.report_records))

    def settings(self, workflow: "Workflow", **more) -> Settings:
        """The engine's :class:`judges.engine.settings.Settings` for these inputs under ``workflow``
        (``more``: the LLM, its cache and asker)."""
        return Settings(
            workflow=workflow,
            workflow_path=self.workflow_path,
            dataset=self.dataset,
            has_corpus=self.corpus is not None,
            **more,
        )

    def records_sha256(self) -> str:
        """The SHA-256 of the records in memory (topics, then reports), each as one canonical JSON
        line: what identifies them, as a file's hash does (no file is written)."""
        h = hashlib.sha256()
        for records in (self.topic_records, self.report_records):
            h.update(b"%d\n" % len(records))
            for record in records:
                h.update(
                    json.dumps(record, ensure_ascii=False, sort_keys=True, default=str).encode("utf-8", "surrogatepass")
                )
                h.update(b"\n")
        return h.hexdigest()


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
class Summary:
    """What a session did, built once when it is done (:func:`judges.session.pipeline.write`,
    :func:`judges.session.pipeline.questions`, a shard's part)."""

    counts: Counter = field(default_factory=Counter)  # keys declared in judges.core.counts
    statuses: Counter = field(default_factory=Counter)
    runs: list[str] = field(default_factory=list)
    topics: int = 0
    files: dict[str, str] = field(default_factory=dict)  # output kind -> path
    attest: dict = field(default_factory=dict)  # LLM attestation figures (judges.attest.cascade.summarize)
    coverage: list = field(default_factory=list)  # per-run coverage rows (judges.session.coverage)
    filled: list = field(default_factory=list)  # (run, topic) pairs without a report, filled by leaderboard.on_missing
    warnings: list = field(default_factory=list)  # lines for the summary (e.g. much missing document text)
    processes: str = ""  # how many processes judged, and why
    plan: Optional[Plan] = None  # the session's plan, when attest.mode uncertain planned
    degenerate_not_used: bool = False  # the LLM's answers looked degenerate: the citations kept the model's judgment
    labels: dict = field(default_factory=dict)  # --labels: labels in effect, and per file (path, labels, not labelled)
    judge: str = "citation"  # the session's --judge (the summary shows its pairs' figures)
    headline: str = ""  # the measure runs are ranked by (judges.core.measures.judge_headline)
