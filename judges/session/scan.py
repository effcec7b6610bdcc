"""The first pass over topics and run files: validate everything, learn what judging needs.

A session parses each run file once (:class:`Reading`): this pass checks every record (bad ones
fail the run or, with ``--on-error skip``, are counted and logged), rejects duplicate reports,
picks the runs to judge, keeps the reports to judge (those of the selected runs on the topics
judged: ``Scan.parsed``), and records per line which report to judge, which documents to take
from the corpus, and how many citations there are (for the progress bar). The second pass,
:func:`reread`, gives the reports to judge again, topic by topic, from what the first kept; every
later stage (the nugget pairs, the bank made from the answers, the battles, the worker
processes: :func:`for_topics`) takes them from there and no file is opened again. Without
``--rag-topics`` the records read for the topics are handed to this pass (:class:`Reading`).

Topics and reports can also be handed over in memory (``Inputs.topic_records`` and
``Inputs.report_records``: records in the shapes the files hold, as the AutoJudge adapter has
them): they go through the same checks, named ``<topics>`` and ``<reports>`` with their position
(1-based) for a line.
"""

from __future__ import annotations

import contextlib
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import BinaryIO, Callable, Iterable, Iterator, Optional, Sequence

from judges.core.counts import (
    FILES_NOT_READ,
    REPORTS_BEYOND_MAX_TOPICS,
    REPORTS_UNKNOWN_TOPIC,
    RUNS_NOT_SELECTED,
    SKIPPED,
)
from judges.core.errors import InputError
from judges.formats import rag26
from judges.formats.debuglog import DebugLog
from judges.formats.jsonl import discover, seekable, value_problem
from judges.formats.runs import holds_reports, parse_report, read_report_at, read_reports
from judges.formats.topics import AS_TOPICS, TOPIC_SUFFIXES, holds_topics, parse_topic, read_topics
from judges.core.config import Workflow
from judges.session.spec import Inputs
from judges.core.records import Document, Report, Topic

TOPICS_IN_MEMORY = "<topics>"  # the name of Inputs.topic_records in messages (a record's position is its line)
REPORTS_IN_MEMORY = "<reports>"  # of Inputs.report_records (a record's index is its Report.offset)


class Problems:
    """Bad input records: fail on the first (``--on-error fail``) or skip, say so and count."""

    def __init__(self, on_error: str, log: DebugLog, counts: Counter, warn: Callable[[str], None]):
        self.on_error, self.log, self.counts, self.warn = on_error, log, counts, warn

    def __call__(self, error: InputError, what: str) -> None:
        """``what``: a kind of record in ``judges.core.counts.SKIPPED`` (topic, report, corpus line)."""
        if self.on_error == "fail":
            raise error
        self.counts[SKIPPED[what]] += 1
        self.log.event("INPUT_ERROR", path=error.path, line=error.line, field=error.field, problem=error.problem)
        self.warn(f"skipped {what}: {error.render()}")


def load_topics(
    paths: list[Path],
    problems: Problems,
    max_topics: Optional[int],
    runs: Iterable[Path] = (),
    left_out: Optional[set[str]] = None,
    held: Sequence[object] = (),
    held_reports: Sequence[object] = (),
    reading: Optional["Reading"] = None,
) -> dict[str, Topic]:
    """The topics of ``paths`` (``--rag-topics``) and ``held`` (topic records in memory) or, when
    there are none, those the ``runs`` and ``held_reports`` answer, in the order they first appear
    (with a warning: their titles are unknown); the first ``max_topics`` of them, the ids of the
    others added to ``left_out``. ``reading``: the session's, which keeps the records read for the
    topics for the first pass (:func:`scan_runs`)."""
    if not paths and not held:
        topics = _topics_of_runs(list(runs), held_reports, reading)
        if topics:  # none: the scan says why (no run file, or none with a report)
            problems.warn(
                f"no --rag-topics: judging the {len(topics)} topic(s) the run files answer; their titles are "
                "unknown (give --rag-topics to have them)"
            )
        return _first(topics, max_topics, left_out)
    topics = {}
    for path, line, value in _topic_records(paths, held):
        if isinstance(value, InputError):
            problems(value, "topic")
        elif value.topic_id in topics:
            problems(InputError(path, line, value.id_key, f"duplicate topic id {value.topic_id!r}"), "topic")
        else:
            topics[value.topic_id] = value
    if not topics:
        raise InputError(", ".join(map(str, paths)) or TOPICS_IN_MEMORY, None, "--rag-topics", "no topics found")
    return _first(topics, max_topics, left_out)


def _topic_records(paths: list[Path], held: Sequence[object]) -> Iterator[tuple[object, int, Topic | InputError]]:
    """``(path, line, topic or error)`` of the topic files, then of the records in memory."""
    for path in discover(paths, "--rag-topics", suffixes=TOPIC_SUFFIXES):
        if holds_reports(path):
            raise InputError(path, None, "--rag-topics", f"its records are a run's reports, not topics ({AS_TOPICS})")
        for line, value in read_topics(path):
            yield path, line, value
    for i, record in enumerate(held):
        try:
            yield (
                TOPICS_IN_MEMORY,
                i + 1,
                parse_topic(_checked(record, TOPICS_IN_MEMORY, i + 1), TOPICS_IN_MEMORY, i + 1),
            )
        except InputError as e:
            yield TOPICS_IN_MEMORY, i + 1, e


def _checked(record: object, where: str, line: int) -> object:
    """A record in memory, held to what a file's line is held to (no lone surrogate, no deep nesting)."""
    problem = value_problem(record)
    if problem is not None:
        raise InputError(where, line, problem[0] or None, problem[1])
    return record


def held_report(
    records: Sequence[object], index: int, dataset: str = "auto", max_citations: Optional[int] = None
) -> Report | InputError:
    """Report ``index`` of the records in memory (``Inputs.report_records``), as a run file's line is read."""
    try:
        record = _checked(records[index], REPORTS_IN_MEMORY, index + 1)
        return parse_report(record, REPORTS_IN_MEMORY, index + 1, dataset, max_citations, index)
    except InputError as e:
        return e


def _first(topics: dict[str, Topic], max_topics: Optional[int], left_out: Optional[set[str]]) -> dict[str, Topic]:
    if max_topics is None:
        return topics
    kept = dict(list(topics.items())[:max_topics])
    if left_out is not None:
        left_out.update(t for t in topics if t not in kept)
    return kept


def _topics_of_runs(
    runs: list[Path], held: Sequence[object] = (), reading: Optional["Reading"] = None
) -> dict[str, Topic]:
    """Every topic id the run files (and the reports ``held`` in memory) answer, as a topic
    without a title; bad records are left to the scan, which reports them (``reading`` keeps
    them for it)."""
    topics: dict[str, Topic] = {}
    read = Reading() if reading is None else reading
    for _, _, rep in read.records(run_files(runs)[0] if runs else [], held, keep=reading is not None):
        if isinstance(rep, Report) and rep.topic_id not in topics:
            topics[rep.topic_id] = Topic(rep.topic_id, "", "", "topic_id")
    return topics


class Reading:
    """How a session reads its run files, each once: :meth:`records` parses them as ``dataset``
    with ``max_citations`` (``citations.max_per_sentence``), or gives the records a first read kept
    (``keep``: the topics taken from the runs) to the next, the scan. With ``rules`` (``--judge
    battle``) the RAG 2026 rules each JSON Lines record breaks (:func:`judges.formats.rag26.check_record`:
    what a report does not keep) are noted by ``(path, line)``, those it breaks only."""

    def __init__(self, dataset: str = "auto", max_citations: Optional[int] = None, rules: bool = False):
        self.dataset, self.max_citations = dataset, max_citations
        self.rules: Optional[dict[tuple[str, int], Counter]] = {} if rules else None
        self._kept: Optional[list[tuple[object, int, Report | InputError]]] = None

    def records(
        self, files: list[Path], held: Sequence[object], keep: bool = False
    ) -> Iterator[tuple[object, int, Report | InputError]]:
        """``(path, line, report or error)`` of the run files, then of the reports in memory."""
        if self._kept is not None:  # read for the topics already: handed on, not kept again
            given, self._kept = self._kept, None
            yield from given
            return
        kept: Optional[list] = [] if keep else None
        for record in self._parse(files, held):
            if kept is not None:
                kept.append(record)
            yield record
        self._kept = kept

    def _parse(self, files: list[Path], held: Sequence[object]) -> Iterator[tuple[object, int, Report | InputError]]:
        for path in files:
            seen = None if self.rules is None else self._noting(str(path))
            for line, rep in read_reports(path, self.dataset, self.max_citations, seen=seen):
                yield path, line, rep
        for i in range(len(held)):
            yield REPORTS_IN_MEMORY, i + 1, held_report(held, i, self.dataset, self.max_citations)

    def _noting(self, path: str) -> Callable[[int, object], None]:
        rules = self.rules
        assert rules is not None, "noted only when wanted"

        def note(line: int, value: object) -> None:
            broken = rag26.check_record(value)
            if broken:
                rules[(path, line)] = broken

        return note


def run_files(responses: list[Path]) -> tuple[list[Path], list[Path], list[Path]]:
    """The run files of ``--rag-responses``; the files of its directories not read (not a run
    file's name); and the files skipped because their records are topics, not reports."""
    not_read: list[Path] = []
    files = discover(responses, "--rag-responses", not_read)
    topics = [path for path in files if holds_topics(path)]
    return [path for path in files if path not in topics], not_read, topics


@dataclass
class Scan:
    """What the first pass over the run files learned."""

    files: list[Path]
    reports: dict[str, list[tuple[str, int, int]]]  # topic -> (path, line, byte offset) of each report to judge
    runs: list[str]  # selected run ids, in order of first appearance
    answered: dict[str, set[str]]  # run -> topics it answered
    wanted_docs: dict[str, set[str]]  # topic -> cited ids without embedded text (look up in the corpus)
    citations: int  # judged citations, for the progress bar
    report_citations: dict[tuple[str, str], int]  # (run, topic) -> judged citations of the report
    coverage: dict[str, Counter] = field(default_factory=dict)  # run -> sentences, cited_sentences, citations, embedded
    without_text: Counter = field(
        default_factory=Counter
    )  # cited id without embedded text -> its citations (selected runs)
    held: Sequence[object] = ()  # the reports given in memory (Inputs.report_records)
    # The reports to judge as this pass parsed them, by (path, offset) as in ``reports``, and how
    # (dataset, max citations): reread gives them (None: it reads the files again, as a scan
    # rebuilt from a shard's state has none).
    parsed: Optional[dict[tuple[str, int], Report]] = None
    parsed_as: tuple[str, Optional[int]] = ("auto", None)
    # The RAG 2026 rules broken by each JSON Lines record, by (path, line) (Reading.rules; None: not noted)
    rules: Optional[dict[tuple[str, int], Counter]] = None


def _wanted_by_topic(wanted: dict[tuple[str, str], set[str]], runs: set[str]) -> dict[str, set[str]]:
    by_topic: dict[str, set[str]] = {}
    for (run, topic), ids in wanted.items():
        if run in runs and ids:
            by_topic.setdefault(topic, set()).update(ids)
    return by_topic


def _total(counters: Iterable[Optional[Counter]]) -> Counter:
    """The counters added up, in one Counter (``sum`` would copy the total at every step)."""
    total: Counter = Counter()
    for c in counters:
        if c:
            total.update(c)
    return total


def _by_topic(located: list[tuple[str, str, str, int, int]], runs: set[str]) -> dict[str, list[tuple[str, int, int]]]:
    by_topic: dict[str, list[tuple[str, int, int]]] = {}
    for run, topic, path, line, offset in located:
        if run in runs:
            by_topic.setdefault(topic, []).append((path, line, offset))
    return by_topic


def _read_files(responses: list[Path], counts: Counter, warn) -> list[Path]:
    """The run files to read; the others found in the run directories are named in warnings."""
    files, not_read, topic_files = run_files(responses)
    for path in topic_files:
        warn(f"{path}: not read as a run file: its records are topics, not reports (give it as --rag-topics)")
    if not_read or topic_files:
        counts[FILES_NOT_READ] = len(not_read) + len(topic_files)
    if not_read:
        shown = ", ".join(q.as_posix() for q in sorted(not_read)[:10]) + (
            f" and {len(not_read) - 10} more" if len(not_read) > 10 else ""
        )
        warn(
            f"{len(not_read)} file(s) in the run directories "
            f"not read (not .jsonl/.json/.ndjson[.gz] nor extension-less): {shown}"
        )
    if not files:
        raise InputError(", ".join(map(str, responses)), None, "--rag-responses", "no JSONL run files found")
    return files


def scan_runs(
    inputs: Inputs,
    max_per_sentence: Optional[int],
    topics: dict[str, Topic],
    problems: Problems,
    counts: Counter,
    warn,
    counted: Optional[Callable[[int], None]] = None,
    left_out: Iterable[str] = (),
    reading: Optional[Reading] = None,
) -> Scan:
    """The first pass: validate every report, keep those to judge, and learn what the second
    pass needs. ``reading``: the session's (:class:`Reading`; default: parse as ``inputs.dataset``
    with ``max_per_sentence``).

    ``counted(n)`` is told, after each report that adds citations to judge, how many there are
    so far: never more than the final ``Scan.citations`` (runs beyond ``--max-runs`` are not
    counted), so a decision it allows holds for the whole scan. ``left_out``: the topics
    ``--max-topics`` leaves out (their reports are counted apart from those of unknown topics).
    """
    left_out = frozenset(left_out)
    held = inputs.report_records
    reading = Reading(inputs.dataset, max_per_sentence) if reading is None else reading
    parsed: dict[tuple[str, int], Report] = {}
    files = _read_files(inputs.responses, counts, warn) if inputs.responses or not held else []
    located: list[tuple[str, str, str, int, int]] = []  # (run, topic, path, line, offset)
    seen: dict[tuple[str, str], str] = {}
    run_order: list[str] = []
    answered: dict[str, set[str]] = {}
    wanted: dict[tuple[str, str], set[str]] = {}
    citations: Counter = Counter()
    report_citations: dict[tuple[str, str], int] = {}
    coverage: dict[str, Counter] = {}
    without_text: dict[str, Counter] = {}
    so_far = 0  # citations met so far of the selected runs
    selected: set[str] = set()  # the selected runs: the first --max-runs to appear
    for path, line, rep in reading.records(files, held):
        if isinstance(rep, InputError):
            problems(rep, "report")
            continue
        key = (rep.run_id, rep.topic_id)
        if key in seen:
            problems(
                InputError(
                    path,
                    line,
                    "topic_id",
                    f"duplicate report for run {rep.run_id!r}, topic {rep.topic_id!r} (first at {seen[key]})",
                ),
                "report",
            )
            continue
        seen[key] = f"{path}:{line}"
        if rep.run_id not in answered:
            run_order.append(rep.run_id)
            if inputs.max_runs is None or len(run_order) <= inputs.max_runs:
                selected.add(rep.run_id)
            answered[rep.run_id] = set()
        if rep.topic_id not in topics:
            counts[REPORTS_BEYOND_MAX_TOPICS if rep.topic_id in left_out else REPORTS_UNKNOWN_TOPIC] += 1
            continue
        located.append((rep.run_id, rep.topic_id, str(path), line, rep.offset))
        if rep.run_id in selected:  # to judge: kept for the stages that follow
            parsed[(str(path), rep.offset)] = rep
        answered[rep.run_id].add(rep.topic_id)
        docs = wanted.setdefault(key, set())
        cov = coverage.setdefault(rep.run_id, Counter())
        unresolved = without_text.setdefault(rep.run_id, Counter())
        sentences = rep.sentences
        cov["sentences"] += len(sentences)
        n = report_citations[key] = sum(len(sent.citations) for sent in sentences)
        if sentences:
            citations[rep.run_id] += n
            if counted is not None and n and rep.run_id in selected:
                so_far += n
                counted(so_far)
            cov["cited_sentences"] += sum(1 for sent in sentences if sent.citations)
            cov["citations"] += n
        ids = [c.doc_id for sent in sentences for c in sent.citations if c.doc_id is not None]
        if rep.documents:  # cited ids whose text the report embeds are not looked up
            without = [d for d in ids if rep.documents.get(d) is None]
            if len(without) < len(ids):
                cov["embedded"] += len(ids) - len(without)
            ids = without
        docs.update(ids)
        unresolved.update(ids)
    runs = [r for r in run_order if r in selected]
    counts[RUNS_NOT_SELECTED] = len(run_order) - len(runs)
    if counts[REPORTS_UNKNOWN_TOPIC]:
        check_topics_match(inputs, len(located) + counts[REPORTS_BEYOND_MAX_TOPICS], counts[REPORTS_UNKNOWN_TOPIC])
        warn(f"{counts[REPORTS_UNKNOWN_TOPIC]} report(s) not judged: topic not in --rag-topics")
    return Scan(
        files=files,
        reports=_by_topic(located, selected),
        runs=runs,
        answered={r: answered[r] for r in runs},
        wanted_docs=_wanted_by_topic(wanted, selected),
        citations=sum(citations[r] for r in runs),
        report_citations={k: n for k, n in report_citations.items() if k[0] in selected},
        coverage={r: coverage.get(r, Counter()) for r in runs},
        without_text=_total(without_text.get(r) for r in runs),
        held=held,
        parsed=parsed,
        parsed_as=(reading.dataset, reading.max_citations),
        rules=reading.rules,
    )


def _reading_order(
    scan: Scan, topics: Optional[frozenset]
) -> tuple[list[Optional[tuple[str, int, int]]], dict[str, dict[int, int]], dict[str, set[int]]]:
    """What :func:`reread` reads, in its order: the reports read by offset, topic by topic (``None``
    after each topic); the lines (line -> offset) of each gzip run file; the items of each JSON
    array run file."""
    by_offset: list[Optional[tuple[str, int, int]]] = []
    streamed: dict[str, dict[int, int]] = {}
    arrays: dict[str, set[int]] = {}  # JSON array run files: the indices of the records to judge
    for topic in sorted(t for t in scan.reports if topics is None or t in topics):
        for path, line, offset in scan.reports[topic]:
            if path == REPORTS_IN_MEMORY:  # parsed again from the scan, in the topic's turn
                by_offset.append((path, line, offset))
            elif offset < 0:
                arrays.setdefault(path, set()).add(-offset - 1)
            elif not seekable(path):
                streamed.setdefault(path, {})[line] = offset
            else:
                by_offset.append((path, line, offset))
        by_offset.append(None)
    return by_offset, streamed, arrays


def reread(
    scan: Scan, topics: Optional[frozenset], dataset: str, max_citations: Optional[int]
) -> Iterator[Optional[Report]]:
    """The second pass: the reports to judge on ``topics`` (``None``: all) again, with ``None``
    after the last report of each topic read by offset.

    Reports are read topic by topic, by byte offset, so that a consumer prepares one topic's
    documents at a time; those of gzip run files (which cannot seek) and of JSON-array run files
    come last, file by file, each file streamed in one read. :func:`reading_ranks` gives this
    order for all topics. The reports the first pass kept are given as it parsed them (when parsed
    as ``dataset`` with ``max_citations``): no file is read again.
    """
    if scan.parsed is not None and scan.parsed_as == (dataset, max_citations):
        yield from _kept(scan, topics)
        return
    by_offset, streamed, arrays = _reading_order(scan, topics)
    with contextlib.ExitStack() as stack:
        files: dict[str, BinaryIO] = {}
        for located in by_offset:
            if located is None:
                yield None
                continue
            path, line, offset = located
            if path == REPORTS_IN_MEMORY:
                report = held_report(scan.held, offset, dataset, max_citations)
                assert isinstance(report, Report), "the first pass checked it"
                yield report
                continue
            if path not in files:
                files[path] = stack.enter_context(open(path, "rb"))
            yield read_report_at(files[path], path, line, offset, dataset, max_citations)
    for path in sorted(streamed):
        for _, report in read_reports(Path(path), dataset, max_citations, streamed[path]):
            if isinstance(report, InputError):  # as read_report_at: the file changed since the first pass
                raise report
            yield report
    for path in sorted(arrays):
        for _, report in read_reports(Path(path), dataset, max_citations, items=arrays[path]):
            if isinstance(report, InputError):
                raise report
            yield report


def _kept(scan: Scan, topics: Optional[frozenset]) -> Iterator[Optional[Report]]:
    """:func:`reread`'s reports in its order, from those the first pass kept."""
    parsed = scan.parsed
    assert parsed is not None, "the first pass kept them"
    by_offset, streamed, arrays = _reading_order(scan, topics)
    for located in by_offset:
        yield None if located is None else parsed[(located[0], located[2])]
    for path in sorted(streamed):
        for _, offset in sorted(streamed[path].items()):
            yield parsed[(path, offset)]
    for path in sorted(arrays):
        for index in sorted(arrays[path]):
            yield parsed[(path, -(index + 1))]


def for_topics(scan: Scan, topics: Iterable[str]) -> Scan:
    """The scan with the kept reports of ``topics`` only (what a worker process is sent)."""
    if scan.parsed is None:
        return scan
    keys = [(path, offset) for t in topics for path, _, offset in scan.reports.get(t, ())]
    return replace(scan, parsed={key: scan.parsed[key] for key in keys})


def reading_ranks(scan: Scan) -> dict[tuple[str, int], int]:
    """Each report's place in the order :func:`reread` gives all topics' reports, by its
    ``(path, offset)``: the reports of a subset of the topics keep this order, so parts judged
    apart (:mod:`judges.session.shards`) are put back in one process's order by it."""
    by_offset, streamed, arrays = _reading_order(scan, None)
    keys = [(path, offset) for path, _, offset in filter(None, by_offset)]
    for path in sorted(streamed):
        keys += [(path, offset) for _, offset in sorted(streamed[path].items())]
    for path in sorted(arrays):
        keys += [(path, -(index + 1)) for index in sorted(arrays[path])]
    return {key: rank for rank, key in enumerate(keys)}


def check_topics_match(inputs: Inputs, matched: int, unknown: int) -> None:
    """Refuse topics that are not the runs': none of the reports of a topic given (another track's
    topics, last year's) is always an error; under half of them is one unless ``--allow-few-topics``
    (a subset of the topics judged on purpose). Reports of topics ``--max-topics`` leaves out count
    as matched."""
    total = matched + unknown
    if 2 * matched >= total or (matched and inputs.allow_few_topics):
        return
    where = ", ".join([*map(str, inputs.topics), *[TOPICS_IN_MEMORY] * bool(inputs.topic_records)])
    if not matched:
        raise InputError(
            where,
            None,
            "--rag-topics",
            f"none of the {total} reports is of one of these topics: are they the runs' track and year? "
            "(without --rag-topics the topics the runs answer are judged)",
        )
    raise InputError(
        where,
        None,
        "--rag-topics",
        f"only {matched} of the {total} reports are of one of these topics ({unknown} would not be judged): "
        "are they the runs' topics? Give --allow-few-topics to judge these topics only",
    )


def check_resolvable(inputs: Inputs, scan: Scan, corpus: dict) -> None:
    """Stop when not one citation can be resolved to a document text (runs without embedded
    documents and no, or the wrong, ``--corpus``), unless ``--allow-missing-text``."""
    if not scan.citations or inputs.allow_missing_text:
        return
    embedded = sum(c["embedded"] for c in scan.coverage.values())
    if embedded or any(isinstance(corpus.get(d), Document) for d in scan.without_text):
        return
    hint = "or --allow-missing-text to judge anyway (every citation 'missing')"
    if inputs.corpus is None:
        raise InputError(
            "--corpus",
            None,
            None,
            (
                f"none of the {scan.citations} citations can be resolved to a document text: the runs embed no cited "
                f"document and no --corpus was given; pass --corpus with the collection the runs cite (JSONL with "
                f"doc_id|docid|id and text), {hint}"
            ),
        )
    example = ", ".join(repr(d) for d in sorted(scan.without_text)[:3])
    raise InputError(
        inputs.corpus,
        None,
        "--corpus",
        (
            f"none of the {len(scan.without_text)} cited document ids ({example}, ...) is in this corpus "
            f"({scan.citations} citations, none resolvable): is it the collection the runs cite? "
            f"{hint[0].upper()}{hint[1:]}"
        ),
    )


def check_missing_topics(inputs: Inputs, workflow: Workflow, topics: dict[str, Topic], scan: Scan) -> None:
    """``leaderboard.on_missing: error``: refuse before judging when a run skipped a topic."""
    if workflow.leaderboard.on_missing != "error":
        return
    gaps = [(r, t) for r in scan.runs for t in topics if t not in scan.answered[r]]
    if gaps:
        shown = ", ".join(f"{r}/{t}" for r, t in gaps[:5]) + (" ..." if len(gaps) > 5 else "")
        raise InputError(
            inputs.workflow_path or "workflow",
            None,
            "leaderboard.on_missing",
            f"error: {len(gaps)} (run, topic) pair(s) without a report: {shown}",
        )
