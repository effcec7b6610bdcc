"""What one judging session was asked to do (from the CLI) and what it reports back."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from judges.attest.endpoint import Endpoint
from judges.config import Workflow


@dataclass
class Options:
    topics: list[Path]
    responses: list[Path]
    out_dir: Path
    name: str
    workflow: Workflow
    workflow_path: Optional[Path] = None
    corpus: Optional[Path] = None
    dataset: str = "auto"
    max_topics: Optional[int] = None
    max_runs: Optional[int] = None
    debug_log: Optional[Path] = None
    on_error: str = "fail"  # fail | skip
    leaderboard_formats: tuple[str, ...] = ("ir_measures",)
    backend: Optional[str] = None  # overrides workflow.alignment.backend
    workers: int = 1  # processes; topics are split between them (0: all cores for big jobs)
    llm: Optional[Endpoint] = None  # where attestation questions go (workflow attest.mode != none)
    strict_llm: bool = False  # a degenerate LLM judge is an error, not a warning (judges.attest.degenerate)
    cache_dir: Optional[Path] = None  # the attestation answer cache (default: out_dir)
    no_debug_log: bool = False  # write no debug log at all (--no-debug-log)
    allow_missing_text: bool = False  # judge even when no cited document has text (every citation 'missing')
    labels: Optional[Path] = None  # assessors' per-citation labels (--labels), final where given


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
