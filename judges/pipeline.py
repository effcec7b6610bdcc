"""One judging session, start to end: check the inputs → first pass over the runs → read the cited
corpus documents → judge (here or in worker processes) → merge → write the outputs as one set.

1. :mod:`judges.runscan` reads topics and makes a first, validating pass over the run files;
   :mod:`judges.formats.corpus` then reads only the corpus documents the runs cite;
2. :mod:`judges.judge` judges the reports in batches, in this process or in worker processes
   (:mod:`judges.workers`), each worker owning whole topics;
3. the parts are merged (with the LLM attestation summary when the workflow attests) and
   :mod:`judges.writer` writes every output, sorted, into a staging directory that
   :mod:`judges.formats.outset` renames into place as one set, the debug log with it.

Nothing is created before the inputs are validated: the output targets are checked first, the
first pass keeps its debug-log events in memory, and only then is the out-dir created, locked
(one session per out-dir and name) and recovered from a session killed while committing.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import replace
from pathlib import Path
from typing import Callable, Optional

import pyarrow as pa
import pyarrow.compute as pc

from judges import __version__
from judges.align.backends import get_backend
from judges.counts import CAPPED, CITATIONS, CORPUS_DOCUMENTS, HUMAN_LABELLED
from judges.errors import InputError
from judges.formats import docstore
from judges.formats.corpus import read_corpus
from judges.formats.debuglog import DebugLog
from judges.formats.outset import Interrupted, OutputSet, check_targets
from judges.judge import Part, judge_part
from judges.plan import Plan, plan_session
from judges.options import Options, Summary
from judges.process import return_freed_memory
from judges.writer import describe_inputs, output_targets, write_outputs
from judges.records import Document
from judges.runscan import Problems, check_missing_topics, check_resolvable, load_topics, scan_runs
from judges.support.judges import is_probabilistic
from judges.workers import Workers

# Below this, worker processes cost more than they save on 2 cores: each pays about 1.5 s of
# imports and kernel loading, and the judging is about 0.2 ms per citation whatever the document
# length (bench/run.py: 23,685 citations of short segments take 4.6 s in one process and as long
# with two; 99,866 of long documents 18.3 s and 12.1 s).
AUTO_PARALLEL_CITATIONS = 50_000

__all__ = ["Options", "Summary", "run"]


def run(options: Options, warn: Callable[[str], None] = lambda msg: None, progress=None) -> Summary:
    """Judge every report and write all outputs; returns the summary. ``progress(n)`` advances a bar."""
    progress = progress or (lambda n, total=None: None)
    summary = Summary()
    out_dir, name = Path(options.out_dir), options.name
    if options.no_debug_log:
        log_path = None
    else:
        log_path = Path(options.debug_log) if options.debug_log is not None else out_dir / f"{name}.jsonl"
    backend = get_backend(options.backend or options.workflow.alignment.backend)
    attest = options.workflow.attest
    if attest.mode != "none" and options.llm is None:
        raise InputError(
            options.workflow_path or "workflow",
            None,
            "attest.mode",
            f"{attest.mode!r} needs an LLM endpoint: pass --use-env-llm or --llm-config",
        )
    if attest.mode != "none":
        try:  # the attester's question is a dspy signature: fail before judging, not after
            import dspy  # noqa: F401
        except ImportError:
            raise InputError(
                options.workflow_path or "workflow",
                None,
                "attest.mode",
                f"{attest.mode!r} needs dspy, which is not installed: pip install 'citejudge[attest]'",
            ) from None
    if attest.mode == "uncertain" and not is_probabilistic(options.workflow.support.judge):
        raise InputError(
            options.workflow_path or "workflow",
            None,
            "attest.mode",
            "uncertain needs support.judge: model (its probabilities); or use mode all",
        )
    if attest.mode == "none" and options.llm is not None:
        warn("an LLM endpoint was given but the workflow's attest.mode is none: no LLM calls are made")
    if attest.mode == "none" and options.strict_llm:
        warn("--strict-llm: the workflow's attest.mode is none, so there is no LLM to check")
    if options.corpus is not None and not docstore.is_store(options.corpus):
        docstore.corpus_files(options.corpus)  # a file, or a directory of JSONL(.gz) files: else one error line
    inputs = describe_inputs(options)
    input_files = _input_files(options, inputs)
    check_targets(output_targets(options, log_path), input_files)
    stale_log = out_dir / f"{name}.jsonl" if log_path is None else None  # --no-debug-log: the previous set's log
    if stale_log is not None and os.path.realpath(stale_log) in {os.path.realpath(p) for p in input_files}:
        stale_log = None
    outset = OutputSet(out_dir, name, [log_path.parent] if log_path is not None else [])
    try:
        _run(options, summary, outset, log_path, stale_log, backend, inputs, warn, progress)
    except KeyboardInterrupt as e:
        raise Interrupted(outset.committed, getattr(e, "signum", 2)) from None
    if log_path is not None:
        summary.files["debug_log"] = str(log_path)
    return summary


def _without_llm(options: Options) -> Options:
    """``options`` for a first pass: the same judgments, no LLM asked."""
    wf = options.workflow
    return replace(options, workflow=wf.model_copy(update={"attest": wf.attest.model_copy(update={"mode": "none"})}))


def _plan(parts: list[Part], options: Options, scan) -> Plan:
    """The session's plan from the first pass's parts (:func:`judges.plan.plan_session`)."""
    attest = options.workflow.attest
    table = pa.concat_tables([p.assessments for p in parts])
    answered = {run: len(topics) for run, topics in scan.answered.items()}
    budget = None if attest.count is not None else attest.budget
    return plan_session(table, answered, options.workflow.grounding.cap, budget, attest.count, attest.plan_order)


def _input_files(options: Options, inputs: dict) -> list[Path]:
    files = [Path(p) for key in ("topics", "responses") for p in inputs[key]]
    if options.corpus is not None:  # a file, a docstore, or a directory of corpus files
        corpus = Path(options.corpus)
        files += [corpus] if corpus.is_file() else docstore.corpus_files(corpus)
    if options.workflow_path is not None:
        files.append(Path(options.workflow_path))
    if options.labels is not None:
        files.append(Path(options.labels))
    model = Path(options.workflow.support.model)
    if model.suffix and model.is_file():  # a calibrated model file, not a built-in name
        files.append(model)
    return files


def _processes(options: Options, workers: Optional[Workers], citations: int) -> str:
    """How many processes judged, and why (a line of the summary)."""
    chosen = f"{workers.n} worker processes" if workers is not None else "1 process"
    if options.workers:
        return f"{chosen} (--workers {options.workers})"
    if workers is not None:
        return f"{chosen} (automatic: {citations:,} citations >= {AUTO_PARALLEL_CITATIONS:,})"
    return f"{chosen} (automatic: {citations:,} citations < {AUTO_PARALLEL_CITATIONS:,})"


def _run(  # noqa: C901 (to split: issue 32)
    options: Options, summary: Summary, outset: OutputSet, log_path, stale_log, backend, inputs, warn, progress
) -> None:
    counts = summary.counts
    attest = options.workflow.attest
    with contextlib.ExitStack() as stack:
        log = DebugLog.deferred() if log_path is not None else DebugLog(None)
        stack.callback(log.close)
        problems = Problems(options.on_error, log, counts, warn)
        log.event(
            "session_start",
            version=__version__,
            backend=backend.name,
            name=options.name,
            workers=options.workers,
            workflow=options.workflow.model_dump(),
            inputs=inputs,
        )

        # 1. load and validate (nothing is created before this passes)
        topics = load_topics(options.topics, problems, options.max_topics, options.responses)
        summary.topics = len(topics)
        # Workers start as early as they are known to be wanted, so that their start-up (imports,
        # kernels) overlaps the first pass over the runs and the corpus read: with --workers N
        # now, automatically once the first pass has counted AUTO_PARALLEL_CITATIONS citations.
        workers = None

        def start_workers(n: int) -> None:
            nonlocal workers
            if workers is None and n > 1:
                workers = stack.enter_context(Workers(options, n))

        auto = min(os.cpu_count() or 1, len(topics)) if options.workers == 0 else 1  # processes, when it pays

        def counted(citations: int) -> None:
            if citations >= AUTO_PARALLEL_CITATIONS:
                start_workers(auto)

        if options.workers > 1:
            n = min(options.workers, len(topics))
            if n < options.workers:
                warn(f"--workers {options.workers}: {len(topics)} topic(s) to share, so {n} worker process(es)")
            start_workers(n)
        scan = scan_runs(options, topics, problems, counts, warn, counted if auto > 1 else None)
        summary.runs = list(scan.runs)
        if not scan.runs:
            raise InputError(
                ", ".join(map(str, options.responses)),
                None,
                "--rag-responses",
                f"no report to judge in {len(scan.files)} run file(s)",
            )
        check_missing_topics(options, topics, scan)
        corpus: dict[str, Document] = {}
        wanted = set().union(*scan.wanted_docs.values()) if scan.wanted_docs else set()
        if wanted and options.corpus is not None:
            corpus = read_corpus(options.corpus, wanted, lambda e: problems(e, "corpus line"))
            counts[CORPUS_DOCUMENTS] = sum(isinstance(d, Document) for d in corpus.values())
        check_resolvable(options, scan, corpus)
        labels = None
        if options.labels is not None:  # pandas: only with labels
            from judges.meta.labels import citation_statuses, read_labels

            labels = citation_statuses(read_labels(options.labels))
        stack.enter_context(outset)  # creates and locks the out-dir, recovers, makes the staging directory
        if log_path is not None:
            log.start(outset.stage(log_path))
        elif stale_log is not None:  # --no-debug-log: the previous set's log goes with it
            outset.remove(stale_log)
        planning = attest.mode == "uncertain" and attest.band is None
        progress(0, total=scan.citations * (2 if planning else 1))

        def judge(opts: Options, docs: dict, log: DebugLog, plan=None, keep_corpus: bool = False) -> list[Part]:
            if workers is not None:
                return workers.judge(
                    scan, docs, topics, log, progress, outset.stage_dir, plan, labels, keep_corpus, opts
                )
            return [judge_part(opts, scan, docs, None, log, progress, plan, labels)]

        # 2. judge (with a plan: judge without the LLM, plan over the session, then judge asking it)
        summary.processes = _processes(options, workers, scan.citations)
        plan = None
        if planning:
            plan = _plan(judge(_without_llm(options), corpus, DebugLog(None), keep_corpus=True), options, scan)
            summary.plan = plan
            log.event("PLAN", **plan.describe())
        parts = judge(options, corpus, log, plan)  # consumes corpus
        del corpus
        log.sync_soon()  # the judged citations' events go to disk while the outputs are written
        return_freed_memory()  # the judged documents' memory, before the outputs are built

        # 3. merge (topic groups are disjoint) and write
        per_topic = {k: v for part in parts for k, v in part.per_topic.items()}
        for part in parts:
            counts.update(part.counts)
        if attest.mode != "none":
            from judges.attest.cascade import summarize as summarize_attestation

            summary.attest = summarize_attestation(counts, attest, options.llm)
            log.event("ATTEST_SUMMARY", **summary.attest)
            if options.strict_llm and summary.attest["degenerate"]:  # before anything is written or replaced
                problem = summary.attest["degenerate"]["message"] + " (no output replaced)"
                raise InputError("--strict-llm", None, None, problem)
        table = pa.concat_tables([p.assessments for p in parts])
        del parts
        for item in pc.value_counts(table.column("status")).to_pylist():
            summary.statuses[item["values"]] = item["counts"]
        counts[CITATIONS] = table.num_rows
        counts[CAPPED] = int(pc.sum(table.column("capped")).as_py() or 0)
        if labels:
            counts[HUMAN_LABELLED] = labelled = int(pc.sum(pc.is_valid(table.column("human_label"))).as_py() or 0)
            if labelled < len(labels):
                summary.warnings.append(
                    f"{len(labels) - labelled} of the {len(labels)} labels in {options.labels} match no judged "
                    "citation (run_id, topic_id, sentence_index, doc_id)"
                )
        write_outputs(options, summary, per_topic, table, scan, topics, place=outset.stage)
        log.event("summary", counts=dict(counts), statuses=dict(summary.statuses), files=summary.files)
        log.close()
        outset.commit()
