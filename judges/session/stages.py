"""The records a session's stages hand on (:mod:`judges.session.pipeline`): the checked
:class:`Session`, what :func:`~judges.session.pipeline.load` read (:class:`Loaded`) and what
:func:`~judges.session.pipeline.judge` produced (:class:`Judged`); and the debug log's first
event (:func:`session_start`)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, NamedTuple, Optional

from judges.attest.kinds import PairKind
from judges.attest.plan import Plan
from judges.engine.judge import Part
from judges.engine.settings import Settings
from judges.formats.debuglog import DebugLog
from judges.formats.outset import OutputSet
from judges.session.options import RunOptions
from judges.session.scan import Scan
from judges.session.spec import Inputs, Outputs
from judges.session.workers import Workers
from judges.version import __version__

if TYPE_CHECKING:
    from judges.formats.labels import LabelFiles
    from judges.formats.nuggets import Nuggets


@dataclass(frozen=True)
class Session:
    """A session's options, checked (:func:`judges.session.pipeline.check`): what it reads, writes
    (``outputs`` and ``outset`` None: nothing, as :func:`judges.session.pipeline.questions`), how it
    judges, and how it runs (``options``: as its caller built them)."""

    inputs: Inputs
    outputs: Optional[Outputs]
    settings: Settings
    described: dict  # the inputs as recorded (judges.session.writer.describe_inputs)
    options: RunOptions = RunOptions(workers=1)  # how it runs: processes, the LLM's policy, who is told
    outset: Optional[OutputSet] = None  # where the set is staged and committed
    stale_log: Optional[Path] = None  # --no-debug-log: the previous set's log, removed with it


class Loaded(NamedTuple):
    """What :func:`judges.session.pipeline.load` read: the topics, the first pass over the runs,
    the cited documents, the counts of reading them, the labels and nugget bank, and the worker
    processes started."""

    topics: dict
    scan: Scan
    corpus: dict  # doc id -> Document (emptied by workers that took their share)
    counts: Counter  # of reading the inputs (judges.core.counts); the session's counts from here on
    labels: Optional["LabelFiles"] = None  # --labels, as read
    nuggets: Optional["Nuggets"] = None  # --nuggets, as read
    workers: Optional[Workers] = None  # started (they overlap the first pass and the corpus read)


class Judged(NamedTuple):
    """What :func:`judges.session.pipeline.judge` produced: the citations' parts (disjoint topic
    groups), how many processes judged, the plan, whether a degenerate LLM's answers were left out,
    and the judgments of every other kind of pair the session was asked for, by kind
    (:func:`judges.engine.pairs.kinds_of`; ``{"nugget": NuggetResult}`` with ``--nuggets``)."""

    parts: list[Part]
    processes: str
    plan: Optional[Plan] = None
    degenerate_not_used: bool = False
    pairs: dict[str, PairOutputs] = {}
    warnings: tuple[str, ...] = ()  # lines for the summary
    support_refit: Optional[dict] = None  # --refit-support: what the re-fit did (config.yml labels.support_refit)
    answer_error: Optional[dict] = None  # attest.answer_error estimate: the citations' (ErrorEstimate.describe)


def session_start(session: Session, log: DebugLog, workers: Optional[int] = None) -> None:
    """The debug log's first event (``workers``: as recorded, default the session's)."""
    log.event(
        "session_start",
        version=__version__,
        backend=session.settings.workflow.alignment.backend,
        name=session.outputs.name if session.outputs is not None else None,
        workers=session.options.workers if workers is None else workers,
        workflow=session.settings.workflow.model_dump(),
        inputs=session.described,
    )


class PairOutputs(NamedTuple):
    """What the session writes of one kind of pair beyond the citations (:mod:`judges.engine.pairs`),
    each a function over the kind's judgments (:func:`judges.session.nuggets.outputs`), so that
    neither :func:`judges.session.pipeline.write` nor :func:`write_outputs` knows which kind it is:

    * ``merge_measures(per_topic, judge)``: its measures into the session's per-topic measures;
    * ``measures_of(judge, measures)``: the leaderboard's measures for ``--judge`` ``judge``;
    * ``summarize(attest, labels, counts)``: its questions, labels in effect and judgments, into the summary's;
    * ``write(out_dir, name, place)``: its files of the output set
      (:func:`judges.formats.outputset.of_pair_kind`), their paths by file kind;
    * ``trust(per_topic, runs, topics, reports, measures, label_files, citation_spreads)``: the
      intervals and run pairs of its measures among ``measures`` (:class:`judges.scores.intervals.Trust`),
      with the session's labels (``--labels``) and weighted precision's spreads."""

    kind: PairKind
    merge_measures: Callable[[dict, str], None]
    measures_of: Callable[[str, tuple[str, ...]], tuple[str, ...]]
    summarize: Callable[..., None]
    write: Callable[[Path, str, Callable[[Path], Path]], dict[str, str]]
    trust: Callable[..., Any]
    provenance: Optional[dict] = None  # of what the pairs were judged by (the nugget bank: path, sha256, source)
