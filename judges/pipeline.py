"""The judging pipeline: load → resolve → tokenize/segment → align → measure → write.

1. :mod:`judges.scan` reads topics and makes a first, validating pass over the run files;
2. :mod:`judges.judge` judges the reports in batches, in this process or in worker processes
   (:mod:`judges.workers`), each worker owning whole topics;
3. :mod:`judges.outputs` merges the results and writes every output, sorted and atomically.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Callable

import pyarrow as pa
import pyarrow.compute as pc

from judges import __version__
from judges.align.backends import get_backend
from judges.errors import InputError
from judges.formats.corpus import read_corpus
from judges.formats.debuglog import DebugLog
from judges.judge import judge_part
from judges.options import Options, Summary
from judges.outputs import describe_inputs, write_outputs
from judges.records import Document
from judges.scan import Problems, check_missing_topics, load_topics, scan_runs
from judges.support.judges import is_probabilistic
from judges.workers import Workers

AUTO_PARALLEL_CITATIONS = 20_000  # below this, starting worker processes costs more than it saves

__all__ = ["Options", "Summary", "run"]


def run(options: Options, warn: Callable[[str], None] = lambda msg: None, progress=None) -> Summary:
    """Judge every report and write all outputs; returns the summary. ``progress(n)`` advances a bar."""
    progress = progress or (lambda n, total=None: None)
    summary = Summary()
    counts = summary.counts
    out_dir, name = Path(options.out_dir), options.name
    log_path = options.debug_log if options.debug_log is not None else out_dir / f"{name}.jsonl"
    backend = get_backend(options.backend or options.workflow.alignment.backend)
    attest = options.workflow.attest
    if attest.mode != "none" and options.llm is None:
        raise InputError(options.workflow_path or "workflow", None, "attest.mode",
                         f"{attest.mode!r} needs an LLM endpoint: pass --use-env-llm or --llm-config")
    if attest.mode == "uncertain" and not is_probabilistic(options.workflow.support.judge):
        raise InputError(options.workflow_path or "workflow", None, "attest.mode",
                         "uncertain needs support.judge: model (its probabilities); or use mode all")
    if attest.mode == "none" and options.llm is not None:
        warn("an LLM endpoint was given but the workflow's attest.mode is none: no LLM calls are made")
    out_dir.mkdir(parents=True, exist_ok=True)
    with contextlib.ExitStack() as stack:
        workers = None
        if options.workers > 1:  # started now, so their start-up overlaps the first pass
            workers = stack.enter_context(Workers(options, options.workers))
        log = stack.enter_context(DebugLog(log_path))
        problems = Problems(options.on_error, log, counts, warn)
        log.event("session_start", version=__version__, backend=backend.name, name=name, workers=options.workers,
                  workflow=options.workflow.model_dump(), inputs=describe_inputs(options))

        # 1. load and validate
        topics = load_topics(options.topics, problems, options.max_topics)
        summary.topics = len(topics)
        scan = scan_runs(options, topics, problems, counts, warn)
        summary.runs = list(scan.runs)
        check_missing_topics(options, topics, scan)
        corpus: dict[str, Document] = {}
        wanted = set().union(*scan.wanted_docs.values()) if scan.wanted_docs else set()
        if wanted and options.corpus is not None:
            corpus = read_corpus(options.corpus, wanted, lambda e: problems(e, "corpus line"))
            counts["corpus_documents"] = len(corpus)
        progress(0, total=scan.citations)

        # 2. judge
        if workers is None and options.workers == 0 and scan.citations >= AUTO_PARALLEL_CITATIONS:
            n = min(os.cpu_count() or 1, len(topics))
            if n > 1:
                workers = stack.enter_context(Workers(options, n))
        if workers is not None:
            parts = workers.judge(scan, corpus, topics, log, progress)  # consumes corpus
        else:
            parts = [judge_part(options, scan, corpus, None, log, progress)]
        del corpus

        # 3. merge (topic groups are disjoint) and write
        per_topic = {k: v for part in parts for k, v in part.per_topic.items()}
        for part in parts:
            counts.update(part.counts)
        if attest.mode != "none":
            from judges.attest.cascade import summarize as summarize_attestation

            summary.attest = summarize_attestation(counts, attest, options.llm)
            log.event("ATTEST_SUMMARY", **summary.attest)
        table = pa.concat_tables([p.assessments for p in parts])
        del parts
        for item in pc.value_counts(table.column("status")).to_pylist():
            summary.statuses[item["values"]] = item["counts"]
        counts["citations"] = table.num_rows
        counts["capped"] = int(pc.sum(table.column("capped")).as_py() or 0)
        write_outputs(options, summary, per_topic, table, scan, topics)
        log.event("summary", counts=dict(counts), statuses=dict(summary.statuses), files=summary.files)
    summary.files["debug_log"] = str(log_path)
    return summary
