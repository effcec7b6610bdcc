"""A session's first stage (:func:`judges.session.pipeline.load`): what it reads and checks
before anything is written. The topics, the first pass over the runs (:mod:`judges.session.scan`),
the cited corpus documents, the labels and the nugget bank; the worker processes start as soon as
they are known to be wanted (:func:`start_workers`), and :func:`processes` says how many judged."""

from __future__ import annotations

import contextlib
import os
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Optional

from judges.core.config import Workflow
from judges.core.counts import CORPUS_DOCUMENTS
from judges.core.errors import InputError
from judges.core.records import Document
from judges.formats import docstore
from judges.formats.corpus import read_corpus
from judges.formats.debuglog import DebugLog
from judges.formats.docstore import Unresolved
from judges.session.scan import (
    REPORTS_IN_MEMORY,
    Problems,
    Reading,
    Scan,
    check_missing_topics,
    check_resolvable,
    load_topics,
    reread,
    scan_runs,
)
from judges.session.spec import Inputs
from judges.session.stages import Loaded, Session
from judges.session.workers import Workers

if TYPE_CHECKING:
    from judges.formats.labels import LabelFiles
    from judges.formats.nuggets import Nuggets

# Below this, worker processes cost more than they save on 2 cores: each pays about 1.5 s of
# imports and kernel loading, and the judging is about 0.2 ms per citation whatever the document
# length (bench/run.py: 23,685 citations of short segments take 4.6 s in one process and as long
# with two; 99,866 of long documents 18.3 s and 12.1 s).
AUTO_PARALLEL_CITATIONS = 50_000


def check_corpus_path(inputs: Inputs) -> None:
    """The corpus is a docstore, a file, or a directory of JSONL(.gz) files: else one error line,
    before anything is read."""
    if inputs.corpus is not None and not docstore.is_store(inputs.corpus):
        docstore.corpus_files(inputs.corpus)


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


def load(session: Session, stack: contextlib.ExitStack, log: DebugLog, *, start_workers: bool = True) -> Loaded:
    """Read the topics, make the first pass over the runs, read the cited corpus documents, the
    labels and the nugget bank, each checked; worker processes (``start_workers``) start on
    ``stack`` as soon as they are known to be wanted. Nothing is written."""
    inputs, workflow, warn = session.inputs, session.settings.workflow, session.options.warn
    counts: Counter = Counter()
    problems = Problems(inputs.on_error, log, counts, warn)
    left_out: set[str] = set()  # the topics --max-topics leaves out
    limit = workflow.citations.max_per_sentence
    reading = Reading(inputs.dataset, limit, rules=inputs.judge == "battle")  # each run file parsed once
    topics = load_topics(
        inputs.topics,
        problems,
        inputs.max_topics,
        inputs.responses,
        left_out,
        inputs.topic_records,
        inputs.report_records,
        reading,
    )
    started: list[Workers] = []
    counted = _start_workers(session, stack, len(topics), started) if start_workers else None
    scan = scan_runs(inputs, limit, topics, problems, counts, warn, counted, left_out, reading)
    if not scan.runs:
        where = ", ".join([*map(str, inputs.responses), *[REPORTS_IN_MEMORY] * bool(inputs.report_records)])
        raise InputError(where, None, "--rag-responses", f"no report to judge in {len(scan.files)} run file(s)")
    check_missing_topics(inputs, workflow, topics, scan)
    corpus: dict[str, Document | Unresolved] = {}
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
                session.options.warn(warning)
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
    wanted = session.options.workers

    def start(n: int) -> None:
        if not started and n > 1:
            started.append(stack.enter_context(Workers(session.settings, n, session.options.progress)))

    if wanted > 1:
        n = min(wanted, n_topics)
        if n < wanted:
            session.options.warn(f"--workers {wanted}: {n_topics} topic(s) to share, so {n} worker process(es)")
        start(n)
        return None
    auto = min(os.cpu_count() or 1, n_topics) if wanted == 0 else 1  # processes, when it pays
    if auto <= 1:
        return None
    return lambda citations: start(auto) if citations >= AUTO_PARALLEL_CITATIONS else None


def processes(session: Session, loaded: Loaded, citations: int) -> str:
    """How many processes judged, and why (a line of the summary)."""
    workers, wanted = loaded.workers, session.options.workers
    chosen = f"{workers.n} worker processes" if workers is not None else "1 process"
    if wanted:
        return f"{chosen} (--workers {wanted})"
    if workers is not None:
        return f"{chosen} (automatic: {citations:,} citations >= {AUTO_PARALLEL_CITATIONS:,})"
    return f"{chosen} (automatic: {citations:,} citations < {AUTO_PARALLEL_CITATIONS:,})"
