"""One judging session, start to end: check the inputs → first pass over the runs → read the cited
corpus documents → judge (here or in worker processes) → merge → write the outputs as one set.

1. :mod:`judges.session.scan` reads topics and makes a first, validating pass over the run files;
   :mod:`judges.formats.corpus` then reads only the corpus documents the runs cite;
2. :mod:`judges.engine.judge` judges the reports in batches, in this process or in worker processes
   (:mod:`judges.session.workers`), each worker owning whole topics;
3. the parts are merged (with the LLM attestation summary when the workflow attests) and
   :mod:`judges.session.writer` writes every output, sorted, into a staging directory that
   :mod:`judges.formats.outset` renames into place as one set, the debug log with it.

:func:`carry_out` runs steps 1 to 3 on a checked session (:func:`check`), step 3 only when the
session has outputs: without, its caller takes the judgments from the outcome (the AutoJudge
adapter, whose topics and reports come in memory, ``Inputs.report_records``). :func:`run` is
:func:`check` then :func:`carry_out`. :func:`questions` runs steps 1 and 2 only, in this process,
with the LLM's questions handed to an asker that records them (``attest export``,
:mod:`judges.attest.batch`); it writes no output (the answer cache is only read, though opening
it creates an empty one where there is none).
Topic shards judged apart (``--shard K/N``, ``--dask``) come back through :mod:`judges.session.shards`,
which writes their merge with this module's last stage (or, with attestation, hands it their
first pass: ``run(..., first_pass=...)``).

Nothing is created before the inputs are validated: the output targets are checked first, the
first pass keeps its debug-log events in memory, and only then is the out-dir created, locked
(one session per out-dir and name) and recovered from a session killed while committing.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections import Counter
from pathlib import Path
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, NamedTuple, Optional, Sequence

import pyarrow as pa
import pyarrow.compute as pc

from judges.version import __version__
from judges.attest.endpoint import Endpoint
from judges.core.config import Workflow
from judges.core.counts import CAPPED, CITATIONS, CORPUS_DOCUMENTS, HUMAN_LABELLED
from judges.core.errors import InputError
from judges.formats import docstore, outputset
from judges.formats.corpus import read_corpus
from judges.formats.debuglog import DebugLog
from judges.formats.outset import Interrupted, OutputSet, check_targets
from judges.engine.judge import Part
from judges.engine.pairs import CITATION_KIND, judge_pairs, kinds_of
from judges.attest.plan import Plan, attest_plan
from judges.core.process import return_freed_memory
from judges.core.records import Document
from judges.session.scan import (
    REPORTS_IN_MEMORY,
    Problems,
    Scan,
    check_missing_topics,
    check_resolvable,
    load_topics,
    reread,
    scan_runs,
)
from judges.session.spec import Inputs, Outputs, Summary
from judges.engine.settings import Settings
from judges.core.measures import MEASURE_NAMES, judge_headline
from judges.support.judges import is_probabilistic
from judges.core.vocabulary import STATUSES
from judges.session.workers import Workers
from judges.session.score import score
from judges.session.writer import PairOutputs, Tally, WriteSet, describe_inputs, output_targets, write_outputs

if TYPE_CHECKING:
    from judges.formats.nuggets import Nuggets
    from judges.formats.labels import LabelFiles

# Below this, worker processes cost more than they save on 2 cores: each pays about 1.5 s of
# imports and kernel loading, and the judging is about 0.2 ms per citation whatever the document
# length (bench/run.py: 23,685 citations of short segments take 4.6 s in one process and as long
# with two; 99,866 of long documents 18.3 s and 12.1 s).
AUTO_PARALLEL_CITATIONS = 50_000

__all__ = [
    "Inputs",
    "Judged",
    "Loaded",
    "Outcome",
    "Outputs",
    "Session",
    "Summary",
    "assessments",
    "carry_out",
    "check",
    "check_attestation",
    "input_files",
    "judge",
    "judge_other_kinds",
    "judge_pass",
    "load",
    "per_topic",
    "prepare",
    "questions",
    "read_labels",
    "run",
    "write",
]


def _quiet(msg: str) -> None:
    pass


def _no_progress(n: int, total: Optional[int] = None) -> None:
    pass


def prepare(workflow: Workflow) -> None:
    """Load (or, on a fresh install, compile) the workflow's Numba kernels now, by judging one tiny
    in-memory report: a caller can say so instead of looking hung."""
    if workflow.alignment.backend == "numba":
        from judges.engine.judge import warmup

        warmup(Settings(workflow=workflow))


# -- the records the stages hand on -----------------------------------------------------------------
@dataclass(frozen=True)
class Session:
    """A session's options, checked (:func:`check`): what it reads, writes (``outputs`` and
    ``outset`` None: nothing, as :func:`questions`), how it judges, and who is told."""

    inputs: Inputs
    outputs: Optional[Outputs]
    settings: Settings
    described: dict  # the inputs as recorded (judges.session.writer.describe_inputs)
    workers: int = 1  # wanted: 0 automatic, 1 this process, N worker processes
    strict_llm: bool = False  # a degenerate LLM is an error
    use_degenerate_llm: bool = False  # a degenerate LLM's answers are used all the same
    warn: Callable[[str], None] = _quiet
    progress: Callable = _no_progress
    outset: Optional[OutputSet] = None  # where the set is staged and committed
    stale_log: Optional[Path] = None  # --no-debug-log: the previous set's log, removed with it


class Loaded(NamedTuple):
    """What :func:`load` read: the topics, the first pass over the runs, the cited documents, the
    counts of reading them, the labels and nugget bank, and the worker processes started."""

    topics: dict
    scan: Scan
    corpus: dict  # doc id -> Document (emptied by workers that took their share)
    counts: Counter  # of reading the inputs (judges.core.counts); the session's counts from here on
    labels: Optional["LabelFiles"] = None  # --labels, as read
    nuggets: Optional["Nuggets"] = None  # --nuggets, as read
    workers: Optional[Workers] = None  # started (they overlap the first pass and the corpus read)


class Judged(NamedTuple):
    """What :func:`judge` produced: the citations' parts (disjoint topic groups), how many
    processes judged, the plan, whether a degenerate LLM's answers were left out, and the
    judgments of every other kind of pair the session was asked for, by kind
    (:func:`judges.engine.pairs.kinds_of`; ``{"nugget": NuggetResult}`` with ``--nuggets``)."""

    parts: list[Part]
    processes: str
    plan: Optional[Plan] = None
    degenerate_not_used: bool = False
    pairs: dict[str, PairOutputs] = {}
    warnings: tuple[str, ...] = ()  # lines for the summary
    support_refit: Optional[dict] = None  # --refit-support: what the re-fit did (config.yml labels.support_refit)
    answer_error: Optional[dict] = None  # attest.answer_error estimate: the citations' (ErrorEstimate.describe)


# -- 0. check ----------------------------------------------------------------------------------------
def check(
    inputs: Inputs,
    outputs: Optional[Outputs],
    settings: Settings,
    *,
    workers: int = 1,
    strict_llm: bool = False,
    use_degenerate_llm: bool = False,
    asks: bool = True,
    targets: Optional[dict] = None,
    outset: Optional[OutputSet] = None,
    hashed: Optional[dict] = None,
    warn: Callable[[str], None] = _quiet,
    progress: Optional[Callable] = None,
) -> Session:
    """Check what can be checked before anything is read (the attestation, the corpus path, the
    output targets against the inputs) and describe the inputs. ``asks``: the session asks the
    LLM; ``targets``: the files it writes (default the output set's, with the nugget pairs' with
    ``--nuggets``); ``outset``: the set they are staged in (default ``outputs``'s); ``hashed``:
    the inputs as described, with their sha256, by the topic shards a merge writes (the inputs
    are not read again: only the topic and run files are checked against the targets)."""
    check_attestation(settings, strict_llm=strict_llm, warn=warn, asks=asks)
    if hashed is None:
        if inputs.corpus is not None and not docstore.is_store(inputs.corpus):
            docstore.corpus_files(inputs.corpus)  # a file, or a directory of JSONL(.gz) files: else one error line
        described = describe_inputs(inputs)
    else:
        described = hashed
    stale_log = None
    if outputs is not None:
        if hashed is None:
            files = input_files(inputs, settings.workflow, described)
        else:
            files = [Path(d["path"]) for key in ("topics", "responses") for d in hashed[key]]
        if targets is None:
            kinds = [k.name for k in kinds_of(inputs.nuggets is not None, inputs.judge == "battle")]
            targets = output_targets(outputs, settings.workflow, kinds)
        check_targets(targets, files)
        log_path = outputs.log_path
        if log_path is None and outset is None:  # --no-debug-log
            stale_log = outputs.default_log
            if os.path.realpath(stale_log) in {os.path.realpath(p) for p in files}:
                stale_log = None
        if outset is None:
            outset = OutputSet(Path(outputs.out_dir), outputs.name, [log_path.parent] if log_path is not None else [])
    return Session(
        inputs=inputs,
        outputs=outputs,
        settings=settings,
        described=described,
        workers=workers,
        strict_llm=strict_llm,
        use_degenerate_llm=use_degenerate_llm,
        warn=warn,
        progress=progress or _no_progress,
        outset=outset,
        stale_log=stale_log,
    )


def check_attestation(
    settings: Settings,
    *,
    strict_llm: bool = False,
    warn: Callable[[str], None] = _quiet,
    asks: bool = True,
    how: str = "pass --use-env-llm or --llm-config",
) -> None:
    """Refuse, before anything is read, an attestation the session cannot carry out (one
    :class:`InputError`; ``asks``: the session asks the LLM, a topic shard only judges the first
    pass; ``how``: how the caller gives an endpoint). :func:`judges.check_answer` checks by it too."""
    attest, where = settings.workflow.attest, settings.workflow_path or "workflow"
    if attest.mode != "none" and settings.llm is None and asks:
        raise InputError(where, None, "attest.mode", f"{attest.mode!r} needs an LLM endpoint: {how}")
    if attest.mode == "uncertain" and not is_probabilistic(settings.workflow.support.judge):
        why = "uncertain needs support.judge: model (its probabilities); or use mode all"
        raise InputError(where, None, "attest.mode", why)
    if attest.mode == "none" and settings.llm is not None:
        warn("an LLM endpoint was given but the workflow's attest.mode is none: no LLM calls are made")
    if attest.mode == "none" and strict_llm:
        warn("--strict-llm: the workflow's attest.mode is none, so there is no LLM to check")


def input_files(inputs: Inputs, workflow: Workflow, described: dict) -> list[Path]:
    """Every file the session reads (no output may be one of them)."""
    files = [Path(p) for key in ("topics", "responses") for p in described[key]]
    if inputs.corpus is not None:  # a file, a docstore, or a directory of corpus files
        corpus = Path(inputs.corpus)
        files += [corpus] if corpus.is_file() else docstore.corpus_files(corpus)
    if inputs.workflow_path is not None:
        files.append(Path(inputs.workflow_path))
    if inputs.labels:
        from judges.formats.labels import label_paths

        files += label_paths(inputs.labels)
    if inputs.nuggets is not None:
        from judges.nuggets.made import is_auto

        if not is_auto(inputs.nuggets):  # auto: made from the runs, already listed
            files.append(Path(inputs.nuggets))
        if inputs.nugget_model.endswith(".json") or "/" in inputs.nugget_model:
            files.append(Path(inputs.nugget_model))
    model = Path(workflow.support.model)
    if model.suffix and model.is_file():  # a calibrated model file, not a built-in name
        files.append(model)
    return files


def session_start(session: Session, log: DebugLog, workers: Optional[int] = None) -> None:
    """The debug log's first event (``workers``: as recorded, default the session's)."""
    log.event(
        "session_start",
        version=__version__,
        backend=session.settings.workflow.alignment.backend,
        name=session.outputs.name if session.outputs is not None else None,
        workers=session.workers if workers is None else workers,
        workflow=session.settings.workflow.model_dump(),
        inputs=session.described,
    )


# -- 1. load and validate ----------------------------------------------------------------------------
def load(session: Session, stack: contextlib.ExitStack, log: DebugLog, *, start_workers: bool = True) -> Loaded:
    """Read the topics, make the first pass over the runs, read the cited corpus documents, the
    labels and the nugget bank, each checked; worker processes (``start_workers``) start on
    ``stack`` as soon as they are known to be wanted. Nothing is written."""
    inputs, workflow, warn = session.inputs, session.settings.workflow, session.warn
    counts: Counter = Counter()
    problems = Problems(inputs.on_error, log, counts, warn)
    left_out: set[str] = set()  # the topics --max-topics leaves out
    topics = load_topics(
        inputs.topics,
        problems,
        inputs.max_topics,
        inputs.responses,
        left_out,
        inputs.topic_records,
        inputs.report_records,
    )
    started: list[Workers] = []
    counted = _start_workers(session, stack, len(topics), started) if start_workers else None
    limit = workflow.citations.max_per_sentence
    scan = scan_runs(inputs, limit, topics, problems, counts, warn, counted, left_out)
    if not scan.runs:
        where = ", ".join([*map(str, inputs.responses), *[REPORTS_IN_MEMORY] * bool(inputs.report_records)])
        raise InputError(where, None, "--rag-responses", f"no report to judge in {len(scan.files)} run file(s)")
    check_missing_topics(inputs, workflow, topics, scan)
    corpus: dict[str, Document] = {}
    wanted = set().union(*scan.wanted_docs.values()) if scan.wanted_docs else set()
    if wanted and inputs.corpus is not None:
        corpus = read_corpus(inputs.corpus, wanted, lambda e: problems(e, "corpus line"))
        counts[CORPUS_DOCUMENTS] = sum(isinstance(d, Document) for d in corpus.values())
    check_resolvable(inputs, scan, corpus)
    labels = read_labels(inputs)
    nuggets = None
    if inputs.nuggets is not None:  # read (and validated) before anything is written
        from judges.engine.pairs import nugget_kind
        from judges.formats.nuggets import read_nuggets

        from judges.nuggets.made import is_auto

        if is_auto(inputs.nuggets):  # made from the answers (judges.nuggets.made), every run's
            nuggets = made_bank(loaded_scan=scan, inputs=inputs, topics=topics, limit=limit)
        else:
            nuggets = read_nuggets(inputs.nuggets)
            for warning in nuggets.warnings:
                session.warn(warning)
        nugget_kind().model(inputs.nugget_model)  # a bad model file: one error line now
        check_bank_topics(nuggets, scan)
        if labels is not None and labels.nuggets is not None:  # each names a nugget of its topic's bank
            from judges.formats.labels import check_nugget_labels

            check_nugget_labels(labels.nuggets, nuggets.banks, nuggets.path)
    return Loaded(topics, scan, corpus, counts, labels, nuggets, started[0] if started else None)


def made_bank(loaded_scan: Scan, inputs, topics: dict, limit) -> "Nuggets":
    """``--nuggets auto``: the banks made from the answers of the scan's runs
    (:func:`judges.nuggets.made.make_nuggets`), the topics' titles as queries."""
    from judges.nuggets.answers import answer_text
    from judges.nuggets.made import make_nuggets

    answers: dict[str, list[tuple[str, str]]] = {}
    for report in reread(loaded_scan, None, inputs.dataset, limit):
        if report is not None:
            answers.setdefault(report.topic_id, []).append((report.run_id, answer_text(report)))
    return make_nuggets(answers, {t: topic.title for t, topic in topics.items()})


def check_bank_topics(nuggets: "Nuggets", scan: Scan) -> None:
    """A bank without a topic the runs answer (another track's, or the topics' ids written
    otherwise) is an error: every nugget measure would be 0. A bank of more topics than are judged
    is not (NIST's bank for a subset of its topics); fewer is a warning (:mod:`judges.engine.nuggets`)."""
    answered = set().union(*scan.answered.values())
    if answered and not answered & set(nuggets.banks):
        theirs, ours = sorted(nuggets.banks), sorted(answered)
        raise InputError(
            nuggets.path,
            None,
            "qid",
            f"no bank is of a topic the runs answer: its {len(theirs)} topics ({', '.join(theirs[:3])}"
            f"{', ...' if len(theirs) > 3 else ''}) are none of the {len(ours)} judged ({', '.join(ours[:3])}"
            f"{', ...' if len(ours) > 3 else ''}): another track's nugget bank?",
        )


def read_labels(inputs: Inputs) -> Optional["LabelFiles"]:
    """The ``--labels`` files as read (None without any; pandas only with labels)."""
    if not inputs.labels:
        return None
    from judges.formats.labels import read_label_files

    return read_label_files(inputs.labels)  # sources: each label's file and line


def _start_workers(
    session: Session, stack: contextlib.ExitStack, n_topics: int, started: list
) -> Optional[Callable[[int], None]]:
    """Workers start as early as they are known to be wanted, so that their start-up (imports,
    kernels) overlaps the first pass over the runs and the corpus read: with ``workers > 1``
    now, automatically (``workers == 0``) once the first pass has counted
    :data:`AUTO_PARALLEL_CITATIONS` citations (the callback returned for the first pass)."""
    wanted = session.workers

    def start(n: int) -> None:
        if not started and n > 1:
            started.append(stack.enter_context(Workers(session.settings, n)))

    if wanted > 1:
        n = min(wanted, n_topics)
        if n < wanted:
            session.warn(f"--workers {wanted}: {n_topics} topic(s) to share, so {n} worker process(es)")
        start(n)
        return None
    auto = min(os.cpu_count() or 1, n_topics) if wanted == 0 else 1  # processes, when it pays
    if auto <= 1:
        return None
    return lambda citations: start(auto) if citations >= AUTO_PARALLEL_CITATIONS else None


# -- 2. judge ------------------------------------------------------------------------------------------
def judge(session: Session, loaded: Loaded, log: DebugLog, *, first_pass: Optional[list[Part]] = None) -> Judged:
    """Judge every report (with a plan: a pass without the LLM, the plan, a pass asking it; a
    degenerate LLM's answers left out unless told otherwise), then the nugget stage (``--nuggets``).
    ``first_pass``: the pass before a plan, judged already (by topic shards). Consumes
    ``loaded.corpus`` (emptied once the citations are judged)."""
    settings, scan = session.settings, loaded.scan
    attest = settings.workflow.attest
    planning = attest.mode == "uncertain" and attest.band is None
    checking = attest.mode != "none" and attest.check_size > 0  # the check sample, drawn from a first pass
    refit = _refit_wanted(session, loaded)
    estimating = attest.mode != "none" and attest.answer_error == "estimate" and session.outset is not None
    session.progress(0, total=scan.citations * (1 + (planning or checking) + refit + estimating))
    processes = _processes(session, loaded, scan.citations)
    plan = None
    first, support_refit = first_pass, None
    if refit:
        first, settings, support_refit = _refit_support(session, loaded, first_pass)
    asking = None  # what the pass asking the LLM sends by: the plan, or the check sample alone
    if planning or checking:
        if first is None or not sum(p.assessments.num_rows for p in first):  # shards may leave it to the merge
            first = judge_pass(session, loaded, settings.without_llm(), DebugLog(None), keep_corpus=True)
        else:
            session.progress(scan.citations)
        asking = plan = _plan(first, settings.workflow, scan) if planning else None
        if plan is not None:
            log.event("PLAN", **plan.describe())
        if checking:
            from judges.attest.check import citation_sample

            sample = citation_sample(pa.concat_tables([p.assessments for p in first]), attest, plan)
            asking = (plan or Plan({}, 0, 0)).checking(sample)
    asks = attest.mode != "none" and session.outset is not None  # questions(): no output, no guard
    guard = asks and not (session.strict_llm or session.use_degenerate_llm)
    estimate = None
    if estimating:
        settings, estimate, asked = _estimated(session, loaded, settings, asking)
    parts = judge_pass(session, loaded, settings, log, plan=asking, keep_corpus=guard)  # consumes the corpus
    if estimate is not None:  # the questions as the first pass asked them (this one read the cache)
        parts = _with_attestation_counts(parts, asked)
    degenerate = False
    if guard:
        parts, degenerate = _unless_degenerate(session, loaded, settings, parts, first if planning else None)
    loaded.corpus.clear()  # the judged documents' memory, before the nugget stage and the outputs
    pairs, warnings = judge_other_kinds(session, loaded, log, parts)
    return Judged(parts, processes, plan, degenerate, pairs, warnings, support_refit, estimate)


def _refit_wanted(session: Session, loaded: Loaded) -> bool:
    """Whether ``--labels`` re-fit the support model to this track (:func:`_refit_support`)."""
    support = session.settings.workflow.support
    has_labels = loaded.labels is not None and bool(loaded.labels.statuses)
    return has_labels and session.inputs.refit_support and is_probabilistic(support.judge)


def _refit_support(
    session: Session, loaded: Loaded, first_pass: Optional[list[Part]]
) -> tuple[Optional[list[Part]], Settings, dict]:
    """Fit to the track at hand (:func:`judges.support.refit.refit_to_labels`): the session
    judged without the LLM (or the first pass given), the support model's intercepts re-fitted on
    its labelled citations. Returns the pass without the LLM when it still holds (the model left
    as it was; else None), the settings to judge by from then on, and what the re-fit did."""
    from dataclasses import replace

    from judges.support.refit import refit_to_labels
    from judges.formats.labels import citation_probabilities

    settings, first = session.settings, first_pass
    if first is None or not sum(p.assessments.num_rows for p in first):  # shards may leave it to the merge
        first = judge_pass(session, loaded, settings.without_llm(), DebugLog(None), keep_corpus=True)
    else:
        session.progress(loaded.scan.citations)
    probabilities: dict[tuple, float] = {}
    for labels in loaded.labels.files if loaded.labels is not None else ():
        for key, p in citation_probabilities(labels).items():  # a citation's label is its first file's
            probabilities.setdefault(key, p)
    model = CITATION_KIND.model(settings.workflow.support.model, settings.workflow_path)
    table = pa.concat_tables([p.assessments for p in first])
    refit, record = refit_to_labels(table, model, probabilities)
    if refit is None:
        return first, settings, record
    return None, replace(settings, support_model=refit), record


def judge_other_kinds(
    session: Session, loaded: Loaded, log: DebugLog, parts: Sequence[Part] = ()
) -> tuple[dict[str, PairOutputs], tuple[str, ...]]:
    """The pairs of every kind beyond the citations that the session was asked for (``--nuggets``:
    :func:`judges.session.nuggets.kind`): every answer of the scan against its topic's nuggets,
    its events logged; by kind, what is written of them (:class:`judges.session.writer.PairOutputs`);
    and the summary's warnings."""
    from judges.session import nuggets

    inputs, settings = session.inputs, session.settings
    warnings: list[str] = []
    judged: dict[str, PairOutputs] = {}
    for kind in (nuggets.kind(),) if loaded.nuggets is not None else ():  # the citations are judge_pass's
        reports = reread(loaded.scan, None, inputs.dataset, settings.workflow.citations.max_per_sentence)
        result = judge_pairs(
            kind,
            settings,  # the nugget pairs' cascade: attest, llm, cache, asker
            reports,
            loaded.nuggets,
            log,
            warn=warnings.append,
            answered={run: len(topics) for run, topics in loaded.scan.answered.items()},
            model_spec=inputs.nugget_model,
            strict_llm=session.strict_llm,
            use_degenerate_llm=session.use_degenerate_llm,
            assigned=None if loaded.labels is None else loaded.labels.nuggets,  # nugget assignments in effect
        )
        assert kind.outputs is not None, "a kind beyond the citations carries what the session writes of it"
        judged[kind.name] = kind.outputs(result)
    if inputs.judge == "battle":  # last: its verdicts read the other kinds' measures (judges.session.battles)
        from judges.session import battles

        judged[battles.BATTLE.name] = battles.judge_stage(settings, inputs, loaded, parts, log, warnings.append)
    return judged, tuple(warnings)


def judge_pass(
    session: Session,
    loaded: Loaded,
    settings: Settings,
    log: DebugLog,
    *,
    topics: Optional[frozenset] = None,
    plan: Optional[Plan] = None,
    keep_corpus: bool = False,
    placed: bool = False,
) -> list[Part]:
    """One pass over the reports of ``topics`` (None: all) by ``settings``: in the worker
    processes when started (every topic), else in this process (``placed``: as
    :func:`judges.engine.judge.judge_part`)."""
    labels = loaded.labels.statuses if loaded.labels is not None else None
    if loaded.workers is not None:  # their files go to the output set's staging directory (none: the temp dir)
        stage = session.outset.stage_dir if session.outset is not None else Path(tempfile.gettempdir())
        return loaded.workers.judge(
            settings, loaded.scan, loaded.corpus, loaded.topics, log, session.progress, stage, plan, labels, keep_corpus
        )
    reports = reread(loaded.scan, topics, settings.dataset, settings.workflow.citations.max_per_sentence)
    return [
        judge_pairs(
            CITATION_KIND,
            settings,
            reports,
            loaded.corpus,
            log,
            progress=session.progress,
            plan=plan,
            labels=labels,
            placed=placed,
        )
    ]


def _unless_degenerate(
    session: Session, loaded: Loaded, settings: Settings, parts: list[Part], first
) -> tuple[list[Part], bool]:
    """``parts``, or when the LLM's answers look degenerate (:mod:`judges.attest.degenerate`) the
    same judged without them (``first``, the first pass, or judged again): the support model's
    judgment, with the attestation's counts (what was asked, answered and paid) of ``parts``;
    and whether they were left out."""
    from judges.attest.cascade import summarize
    from judges.attest.degenerate import answers_used

    assert settings.llm is not None, "check_attestation: an attesting session has an endpoint"
    counts: Counter = Counter()
    for part in parts:
        counts.update(part.counts)
    figures = summarize(Counter(counts), settings.workflow.attest, settings.llm)
    if answers_used(figures, strict=session.strict_llm, used=session.use_degenerate_llm):
        return parts, False
    model = first
    if model is None:
        model = judge_pass(session, loaded, settings.without_llm(), DebugLog(None))
    return _with_attestation_counts(model, counts), True  # ATTEST_SUMMARY and config.yml say so (used: false)


def _with_attestation_counts(parts: list[Part], counts: Counter) -> list[Part]:
    """``parts`` with the attestation counts (what was asked, answered and paid) of ``counts`` instead of theirs."""
    from judges.core.counts import ATTESTATION_PREFIXES

    asked = Counter({k: v for k, v in counts.items() if k.startswith(ATTESTATION_PREFIXES)})
    out = []
    for i, part in enumerate(parts):
        kept = Counter({k: v for k, v in part.counts.items() if not k.startswith(ATTESTATION_PREFIXES)})
        out.append(part._replace(counts=kept + asked if i == 0 else kept))
    return out


def _estimated(session: Session, loaded: Loaded, settings: Settings, plan: Optional[Plan]):
    """``attest.answer_error: estimate`` for the citations: a pass asking the LLM (at the prior's
    value, logged nowhere), the error rate estimated from its answers
    (:func:`judges.engine.weights.answered_error`); the settings to judge by (that rate: the next
    pass reads the answers from the cache), the estimate (as reported) and the pass's counts."""
    from dataclasses import replace

    from judges.engine.weights import answered_error

    attest = settings.workflow.attest
    first = judge_pass(session, loaded, settings, DebugLog(None), plan=plan, keep_corpus=True)
    found = answered_error(pa.concat_tables([p.assessments for p in first]), attest.assumed_error)
    counts: Counter = Counter()
    for part in first:
        counts.update(part.counts)
    fixed = attest.model_copy(update={"answer_error": found.value})
    return replace(settings, workflow=settings.workflow.model_copy(update={"attest": fixed})), found.describe(), counts


def _plan(parts: list[Part], workflow: Workflow, scan: Scan) -> Plan:
    """The session's plan from the first pass's parts (:func:`judges.attest.plan.attest_plan`)."""
    table = pa.concat_tables([p.assessments for p in parts])
    return attest_plan(table, {run: len(topics) for run, topics in scan.answered.items()}, workflow)


def _processes(session: Session, loaded: Loaded, citations: int) -> str:
    """How many processes judged, and why (a line of the summary)."""
    workers, wanted = loaded.workers, session.workers
    chosen = f"{workers.n} worker processes" if workers is not None else "1 process"
    if wanted:
        return f"{chosen} (--workers {wanted})"
    if workers is not None:
        return f"{chosen} (automatic: {citations:,} citations >= {AUTO_PARALLEL_CITATIONS:,})"
    return f"{chosen} (automatic: {citations:,} citations < {AUTO_PARALLEL_CITATIONS:,})"


# -- 3. merge (topic groups are disjoint) and write -----------------------------------------------------
def write(
    session: Session, loaded: Loaded, judged: Judged, log: DebugLog, *, hashed_inputs: Optional[dict] = None
) -> Summary:
    """Merge the parts and write the output set into the session's staging directory, the debug
    log's last event with it, and commit it; the summary. ``hashed_inputs``: the inputs with their
    sha256, when known already (a merge of shards)."""
    inputs, outputs, outset = session.inputs, session.outputs, session.outset
    assert outputs is not None and outset is not None, "write: a session with outputs (check)"
    counts, scan = loaded.counts, loaded.scan
    parts = judged.parts
    measures_of_reports = per_topic(judged)
    measures: Optional[tuple[str, ...]] = None
    files: dict[str, str] = {}
    for kind in judged.pairs.values():  # the other kinds of pair: their measures beside the citations'
        kind.merge_measures(measures_of_reports, inputs.judge)
        measures = kind.measures_of(inputs.judge, measures or MEASURE_NAMES)
    for part in parts:
        counts.update(part.counts)
    attest = _summarize_attestation(session, counts, judged.degenerate_not_used, log, judged.answer_error)
    table = assessments(judged)
    del parts
    counted = {item["values"]: item["counts"] for item in pc.value_counts(table.column("status")).to_pylist()}
    statuses: Counter = Counter()
    for status in STATUSES:  # in the vocabulary's order, whatever the rows' order
        if status in counted:
            statuses[status] = counted[status]
    counts[CITATIONS] = table.num_rows
    counts[CAPPED] = int(pc.sum(table.column("capped")).as_py() or 0)
    warnings = list(judged.warnings)
    labels = _labels_in_effect(loaded.labels, table, counts, warnings)
    unused = loaded.labels.nuggets if loaded.labels is not None and not judged.pairs else None
    if unused is not None and unused.levels:  # an assessor's work, not dropped without a word
        warnings.append(
            f"the {len(unused.levels)} nugget labels in {', '.join(f['path'] for f in unused.files)} are not used: "
            "no nugget pair is judged (--nuggets with --judge nugget or argue)"
        )
    if loaded.labels is not None and loaded.labels.battles is not None and "battle" not in judged.pairs:
        from judges.session.battles import unused_labels

        warnings.append(unused_labels(loaded.labels.battles))
    if judged.support_refit is not None:  # fit to the track at hand (--refit-support)
        labels["support_refit"] = judged.support_refit
    for kind in judged.pairs.values():  # their questions and labels, beside the citations'
        kind.summarize(attest, labels, counts)
    workflow, kinds = session.settings.workflow, tuple(judged.pairs.values())
    scores = score(inputs, workflow, loaded, measures_of_reports, table, measures, kinds, attest)
    bank = next((k.provenance for k in judged.pairs.values() if k.provenance), None)
    tally = Tally(counts, statuses, judged.plan, labels, attest, bank)
    given = WriteSet(
        inputs, outputs, workflow, tally, table, scan, loaded.topics, scores, outset.stage, hashed_inputs, kinds
    )
    written = write_outputs(given)
    files.update(written.files)
    for stale in outputset.of_set():  # a file of the previous set this one lacks (nugget files, plan) goes with it
        if stale.kind not in files and stale.kind != "debug_log":  # the log: stale_log's
            outset.remove(outputset.path(outputs.out_dir, outputs.name, stale.kind))
    log.event("summary", counts=dict(written.counts), statuses=dict(statuses), files=files)
    log.close()
    outset.commit()
    if outputs.log_path is not None:
        files["debug_log"] = str(outputs.log_path)
    return Summary(
        counts=written.counts,
        statuses=statuses,
        runs=list(scan.runs),
        topics=len(loaded.topics),
        files=files,
        attest=attest,
        coverage=written.coverage,
        filled=written.filled,
        warnings=warnings + written.warnings,
        processes=judged.processes,
        plan=judged.plan,
        degenerate_not_used=judged.degenerate_not_used,
        labels=labels,
        judge=inputs.judge,
        headline=judge_headline(inputs.judge, inputs.headline),
    )


def per_topic(judged: Judged) -> dict:
    """Each judged report's measures, ``(run, topic) -> {measure: value}``, over the parts (the
    nugget stage's are merged in by :func:`write`)."""
    return {k: v for part in judged.parts for k, v in part.per_topic.items()}


def assessments(judged: Judged) -> pa.Table:
    """The judged citations of every part, one table (:data:`judges.formats.tables.ASSESSMENT_SCHEMA`)."""
    return pa.concat_tables([p.assessments for p in judged.parts])


def _summarize_attestation(
    session: Session, counts: Counter, not_used: bool, log: DebugLog, answer_error: Optional[dict] = None
) -> dict:
    """The attestation's figures (:func:`judges.attest.cascade.summarize`; none without it), with
    the error rate estimated from the answers (``answer_error``, ``attest.answer_error: estimate``),
    logged; with ``--strict-llm`` a degenerate LLM is an error here, before anything is replaced."""
    settings = session.settings
    attest = settings.workflow.attest
    if attest.mode == "none":
        return {}
    from judges.attest.cascade import summarize
    from judges.attest.degenerate import answers_used

    assert settings.llm is not None, "check_attestation: an attesting session has an endpoint"
    figures = summarize(counts, attest, settings.llm)
    answers_used(figures, strict=session.strict_llm, used=not not_used)  # before anything is written or replaced
    if answer_error is not None:
        figures["answer_error"] = answer_error
    log.event("ATTEST_SUMMARY", **figures)
    return figures


def _labels_in_effect(found: Optional["LabelFiles"], table: pa.Table, counts: Counter, warnings: list) -> dict:
    """The summary's ``labels`` (``--labels``: those in effect, and per file), counted over the
    judged citations; a warning for labels that match none."""
    if found is None:
        return {}
    labels: dict[str, Any] = {"in_effect": len(found.statuses), "files": found.counts()}
    if not found.statuses:
        return labels
    labelled = int(pc.sum(pc.is_valid(table.column("human_label"))).as_py() or 0)
    counts[HUMAN_LABELLED] = labelled
    labels["in_effect"] = labelled
    if labelled < len(found.statuses):
        where = ", ".join(str(f["path"]) for f in labels["files"])
        warnings.append(
            f"{labelled} of the {len(found.statuses)} labels in {where} apply to a judged citation; "
            f"{len(found.statuses) - labelled} match none (run_id, topic_id, sentence_index, doc_id)"
            + (": labels of other runs or topics?" if not labelled else "")
        )
    return labels


# -- the stages composed ------------------------------------------------------------------------------
def run(
    inputs: Inputs,
    outputs: Outputs,
    workflow: Workflow,
    *,
    llm: Optional[Endpoint] = None,
    cache_dir: Optional[Path] = None,
    workers: int = 0,
    strict_llm: bool = False,
    use_degenerate_llm: bool = False,
    warn: Callable[[str], None] = _quiet,
    progress=None,
    first_pass: Optional[list[Part]] = None,
) -> Summary:
    """Judge every report of ``inputs`` by ``workflow`` and write all ``outputs``; returns the
    summary. ``llm``: the endpoint attestation asks; ``cache_dir``: its answer cache (default the
    out-dir); ``workers``: processes (0: automatic); a degenerate LLM's answers
    (:mod:`judges.attest.degenerate`) are not used (the citations keep the support model's
    judgment, a warning says so), are an error with ``strict_llm``, used with ``use_degenerate_llm``;
    ``progress(n)`` advances a bar; ``first_pass``: the first pass before a plan, already judged
    (by topic shards, in one process's order: :func:`judges.session.shards.merge`)."""
    settings = inputs.settings(workflow, llm=llm, cache_dir=Path(cache_dir or outputs.out_dir))
    session = check(
        inputs,
        outputs,
        settings,
        workers=workers,
        strict_llm=strict_llm,
        use_degenerate_llm=use_degenerate_llm,
        warn=warn,
        progress=progress,
    )
    summary = carry_out(session, first_pass=first_pass).summary
    assert summary is not None  # check: a session with outputs has its set
    return summary


class Outcome(NamedTuple):
    """What :func:`carry_out` did: what it read, what it judged, and the summary of the set it
    wrote (None: the session has no outputs, and wrote nothing)."""

    loaded: Loaded
    judged: Judged
    summary: Optional[Summary]


def carry_out(session: Session, *, first_pass: Optional[list[Part]] = None) -> Outcome:
    """The stages after :func:`check`, in order: :func:`load`, :func:`judge` and, when the session
    has outputs, :func:`write` (the out-dir created and locked only once the inputs are read, the
    debug log staged with the set). A session without outputs writes nothing: its caller takes
    the judgments from the outcome (:func:`assessments`, :func:`per_topic`). ``first_pass``: as
    :func:`judge`'s."""
    outset = session.outset
    log_path = session.outputs.log_path if session.outputs is not None else None
    try:
        with contextlib.ExitStack() as stack:
            log = DebugLog.deferred() if log_path is not None else DebugLog(None)
            stack.push(log.ended)
            session_start(session, log)
            loaded = load(session, stack, log)  # nothing is created before this passes
            if outset is None:  # nothing to write
                return Outcome(loaded, judge(session, loaded, log, first_pass=first_pass), None)
            stack.enter_context(outset)  # creates and locks the out-dir, recovers, makes the staging directory
            if log_path is not None:
                log.start(outset.stage(log_path))
            elif session.stale_log is not None:  # --no-debug-log: the previous set's log goes with it
                outset.remove(session.stale_log)
            judged = judge(session, loaded, log, first_pass=first_pass)  # consumes the corpus
            if outset.durable:
                log.sync_soon()  # the judged citations' events go to disk while the outputs are written
            return_freed_memory()  # the judged documents' memory, before the outputs are built
            summary = write(session, loaded, judged, log)
    except KeyboardInterrupt as e:
        if outset is None:
            raise
        raise Interrupted(outset.committed, getattr(e, "signum", 2)) from None
    return Outcome(loaded, judged, summary)


def questions(
    inputs: Inputs,
    workflow: Workflow,
    ask: Callable,
    *,
    llm: Endpoint,
    cache_dir: Path,
    warn: Callable[[str], None] = _quiet,
    progress=None,
) -> Summary:
    """Judge ``inputs`` as :func:`run` does, in this process, up to the LLM: the questions the
    answer cache in ``cache_dir`` does not answer go to ``ask`` (an asker,
    :data:`judges.attest.client.Asker`), not to ``llm``, whose model names them. Nothing is
    written (``attest export``). Returns the summary: runs, topics, counts and plan."""
    settings = inputs.settings(workflow, llm=llm, cache_dir=cache_dir, ask=ask)
    session = check(inputs, None, settings, warn=warn, progress=progress)
    loaded, judged, _ = carry_out(session)
    counts = loaded.counts
    for part in judged.parts:
        counts.update(part.counts)
    labels = {"in_effect": len(loaded.labels.statuses), "files": loaded.labels.counts()} if loaded.labels else {}
    attest: dict = {}
    measures = per_topic(judged)
    for kind in judged.pairs.values():  # the other kinds' questions too (--nuggets; the battles' side by side)
        kind.merge_measures(measures, inputs.judge)
        kind.summarize(attest, {}, counts)
    return Summary(
        counts=counts,
        attest=attest,
        runs=list(loaded.scan.runs),
        topics=len(loaded.topics),
        processes=judged.processes,
        plan=judged.plan,
        labels=labels,
    )
