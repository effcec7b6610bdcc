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

The stages live in modules of their own, each named for what it holds, and this one composes
them: the records they hand on (:mod:`judges.session.stages`), the reading
(:mod:`judges.session.loading`), the passes over the citations as records a policy returns
(:mod:`judges.session.passes`: re-fit, plan, estimate, main, fallback), the attestation steps
(:mod:`judges.session.attestation`), the other kinds of pair (:mod:`judges.session.kinds`) and
what the summary is built from (:mod:`judges.session.summary`).

Nothing is created before the inputs are validated: the output targets are checked first, the
first pass keeps its debug-log events in memory, and only then is the out-dir created, locked
(one session per out-dir and name) and recovered from a session killed while committing.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Callable, NamedTuple, Optional

from judges.core.config import Workflow
from judges.engine.judge import Part
from judges.engine.pairs import kinds_of
from judges.engine.settings import Settings
from judges.formats import outputset
from judges.formats.debuglog import DebugLog
from judges.formats.outset import OutputSet, check_targets
from judges.session.attestation import check_attestation, summarize_attestation
from judges.session.kinds import judge_other_kinds
from judges.session.loading import (
    AUTO_PARALLEL_CITATIONS,
    check_corpus_path,
    input_files,
    load,
    processes,
    read_labels,
)
from judges.session.passes import judge_pass, plan_passes, run_passes
from judges.session.options import RunOptions
from judges.session.score import score
from judges.session.spec import Inputs, Outputs, Summary
from judges.session.staging import Staged
from judges.session.stages import Judged, Loaded, Session, session_start
from judges.session.summary import (
    assessments,
    count_statuses,
    labels_in_effect,
    merged_measures,
    per_topic,
    questions_summary,
    written_summary,
)
from judges.session.writer import Tally, WriteSet, describe_inputs, output_targets, write_outputs

__all__ = [
    "AUTO_PARALLEL_CITATIONS",
    "Inputs",
    "Judged",
    "Loaded",
    "Outcome",
    "Outputs",
    "RunOptions",
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
    "session_start",
    "write",
]


def prepare(workflow: Workflow) -> None:
    """Load (or, on a fresh install, compile) the workflow's Numba kernels now, by judging one tiny
    in-memory report: a caller can say so instead of looking hung."""
    if workflow.alignment.backend == "numba":
        from judges.engine.judge import warmup

        warmup(Settings(workflow=workflow))


# -- 0. check ----------------------------------------------------------------------------------------
def check(
    inputs: Inputs,
    outputs: Optional[Outputs],
    settings: Settings,
    options: RunOptions = RunOptions(workers=1),
    *,
    asks: bool = True,
    targets: Optional[dict] = None,
    outset: Optional[OutputSet] = None,
    hashed: Optional[dict] = None,
) -> Session:
    """Check what can be checked before anything is read (the attestation, the corpus path, the
    output targets against the inputs) and describe the inputs. ``options``: how the session runs
    (its ``llm`` and ``cache_dir`` are the ``settings``' already); ``asks``: the session asks the
    LLM; ``targets``: the files it writes (default the output set's, with the nugget pairs' with
    ``--nuggets``); ``outset``: the set they are staged in (default ``outputs``'s); ``hashed``:
    the inputs as described, with their sha256, by the topic shards a merge writes (the inputs
    are not read again: only the topic and run files are checked against the targets)."""
    check_attestation(settings, strict_llm=options.strict_llm, warn=options.warn, asks=asks)
    if hashed is None:
        check_corpus_path(inputs)
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
        options=options,
        outset=outset,
        stale_log=stale_log,
    )


# -- 2. judge ------------------------------------------------------------------------------------------
def judge(session: Session, loaded: Loaded, log: DebugLog, *, first_pass: Optional[list[Part]] = None) -> Judged:
    """Judge every report by the passes the session makes (:func:`judges.session.passes.plan_passes`:
    with a plan, a pass without the LLM, the plan, a pass asking it; a degenerate LLM's answers left
    out unless told otherwise), then the other kinds of pair (``--nuggets``, battles).
    ``first_pass``: the pass before a plan, judged already (by topic shards). Consumes
    ``loaded.corpus`` (emptied once the citations are judged)."""
    passes = plan_passes(session, loaded)
    done = run_passes(session, loaded, log, passes, first_pass)
    processes_line = processes(session, loaded, loaded.scan.citations)
    parts = done.parts
    assert parts is not None, "every session's passes end with the main pass"
    loaded.corpus.clear()  # the judged documents' memory, before the nugget stage and the outputs
    pairs, warnings = judge_other_kinds(session, loaded, log, parts)
    return Judged(parts, processes_line, done.plan, done.degenerate, pairs, warnings, done.support_refit, done.estimate)


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
    measures_of_reports, measures = merged_measures(judged, inputs.judge)
    files: dict[str, str] = {}
    for part in judged.parts:
        counts.update(part.counts)
    attest = summarize_attestation(session, counts, judged.degenerate_not_used, log, judged.answer_error)
    table = assessments(judged)
    statuses = count_statuses(table, counts)
    warnings = list(judged.warnings)
    labels = labels_in_effect(loaded, judged, table, counts, warnings)
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
    return written_summary(inputs, loaded, judged, written, statuses, files, attest, warnings, labels)


# -- the stages composed ------------------------------------------------------------------------------
def run(
    inputs: Inputs,
    outputs: Outputs,
    workflow: Workflow,
    options: RunOptions = RunOptions(),
    *,
    first_pass: Optional[list[Part]] = None,
) -> Summary:
    """Judge every report of ``inputs`` by ``workflow`` and write all ``outputs``; returns the
    summary. ``options``: how the session runs (:class:`judges.session.options.RunOptions`: the
    LLM endpoint attestation asks and its answer cache, default the out-dir; processes, 0:
    automatic; a degenerate LLM's answers, :mod:`judges.attest.degenerate`, are not used, the
    citations keep the support model's judgment and a warning says so, are an error with
    ``strict_llm``, used with ``use_degenerate_llm``; ``warn``, ``progress(n, total)``);
    ``first_pass``: the first pass before a plan, already judged (by topic shards, in one
    process's order: :func:`judges.session.shards.merge`)."""
    settings = inputs.settings(workflow, llm=options.llm, cache_dir=Path(options.cache_dir or outputs.out_dir))
    session = check(inputs, outputs, settings, options)
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
    log_path = session.outputs.log_path if session.outputs is not None else None
    with Staged(session.outset, log_path, stale_log=session.stale_log) as staged:
        log = staged.log
        session_start(session, log)
        loaded = load(session, staged, log)  # nothing is created before this passes
        if session.outset is None:  # nothing to write
            return Outcome(loaded, judge(session, loaded, log, first_pass=first_pass), None)
        staged.open_set()
        judged = judge(session, loaded, log, first_pass=first_pass)  # consumes the corpus
        staged.judged()
        summary = write(session, loaded, judged, log)
    return Outcome(loaded, judged, summary)


def questions(inputs: Inputs, workflow: Workflow, ask: Callable, options: RunOptions) -> Summary:
    """Judge ``inputs`` as :func:`run` does, in this process, up to the LLM: the questions the
    answer cache in ``options.cache_dir`` does not answer go to ``ask`` (an asker,
    :data:`judges.attest.client.Asker`), not to ``options.llm``, whose model names them. Nothing
    is written (``attest export``). Returns the summary: runs, topics, counts and plan."""
    assert options.llm is not None and options.cache_dir is not None, "questions: an LLM's model and its cache"
    settings = inputs.settings(workflow, llm=options.llm, cache_dir=options.cache_dir, ask=ask)
    session = check(inputs, None, settings, dataclasses.replace(options, workers=1))  # the asker records here
    loaded, judged, _ = carry_out(session)
    return questions_summary(loaded, judged, inputs.judge)
