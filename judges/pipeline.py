"""The judging pipeline: load → resolve → tokenize/segment → align → measure → write.

Run files are read twice and never held whole: a first pass validates every record and collects
what the second pass needs (run and topic ids, documents to take from the corpus, the citation
count for the progress bar); the second pass judges reports in batches, so the alignment engine
sees thousands of (sentence, window) pairs at once. Every output is sorted and written atomically.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import platform
from collections import Counter, OrderedDict
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, NamedTuple, Optional

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import yaml

from judges import __version__
from judges.align import prefilter, support
from judges.align.backends import get_backend
from judges.align.passages import DocIndex
from judges.config import Workflow
from judges.errors import InputError
from judges.formats import tables, trec
from judges.formats.atomic import atomic_text
from judges.formats.corpus import read_corpus
from judges.formats.debuglog import DebugLog
from judges.formats.jsonl import discover
from judges.formats.runs import read_reports
from judges.formats.topics import read_topics
from judges.leaderboard import leaderboard_rows
from judges.measures import SentenceResult, evaluate
from judges.records import Citation, Document, Judgment, Report, Sentence, Topic
from judges.text.tokenize import Tokens, Vocabulary

AUTO_PARALLEL_CITATIONS = 20_000  # below this, starting worker processes costs more than it saves
BATCH_CITATIONS = 4096  # citations aligned per engine call
DOC_CACHE_TOKENS = 60_000_000  # tokenized documents kept for reuse across runs (~16 bytes/token)


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


@dataclass
class Summary:
    counts: Counter = field(default_factory=Counter)
    statuses: Counter = field(default_factory=Counter)
    runs: list[str] = field(default_factory=list)
    topics: int = 0
    files: dict[str, str] = field(default_factory=dict)  # output kind -> path


def doc_id_md5(text: str) -> str:
    return hashlib.md5(text.encode("utf-8")).hexdigest()


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


class _Problems:
    """Bad input records: fail on the first (``--on-error fail``) or skip, say so and count."""

    def __init__(self, on_error: str, log: DebugLog, summary: Summary, warn: Callable[[str], None]):
        self.on_error, self.log, self.summary, self.warn = on_error, log, summary, warn

    def __call__(self, error: InputError, what: str = "record") -> None:
        if self.on_error == "fail":
            raise error
        self.summary.counts[f"skipped_{what}s"] += 1
        self.log.event("INPUT_ERROR", path=error.path, line=error.line, field=error.field, problem=error.problem)
        self.warn(f"skipped {what}: {error.render()}")


def load_topics(paths: list[Path], problems: _Problems, max_topics: Optional[int]) -> dict[str, Topic]:
    topics: dict[str, Topic] = {}
    for path in discover(paths, "--rag-topics"):
        for line, value in read_topics(path):
            if isinstance(value, InputError):
                problems(value, "topic")
            elif value.topic_id in topics:
                problems(InputError(path, line, "request_id", f"duplicate topic id {value.topic_id!r}"), "topic")
            else:
                topics[value.topic_id] = value
    if not topics:
        raise InputError(", ".join(map(str, paths)), None, "--rag-topics", "no topics found")
    if max_topics is not None:
        topics = dict(list(topics.items())[:max_topics])
    return topics


@dataclass
class _Scan:
    """What the first pass over the run files learned."""

    files: list[Path]
    lines: dict[str, dict[int, str]]  # path -> line -> topic, for every report to judge
    runs: list[str]  # selected run ids, in order of first appearance
    answered: dict[str, set[str]]  # run -> topics it answered
    wanted_docs: dict[str, set[str]]  # topic -> cited ids without embedded text (look up in the corpus)
    citations: int  # judged citations, for the progress bar


def _wanted_by_topic(wanted: dict[tuple[str, str], set[str]], runs: set[str]) -> dict[str, set[str]]:
    by_topic: dict[str, set[str]] = {}
    for (run, topic), ids in wanted.items():
        if run in runs and ids:
            by_topic.setdefault(topic, set()).update(ids)
    return by_topic


class Judge:
    """One judging session over a set of run files."""

    def __init__(self, options: Options, warn: Callable[[str], None] = lambda msg: None):
        self.o = options
        self.wf = options.workflow
        self.warn = warn
        self.summary = Summary()
        self.backend = get_backend(options.backend or self.wf.alignment.backend)
        self.vocab = Vocabulary()
        self._doc_cache: OrderedDict[str, DocIndex] = OrderedDict()
        self._doc_cache_tokens = 0
        self.corpus: dict[str, Document] = {}

    # -- stage 1: load and validate ---------------------------------------------------------
    def scan(self, topics: dict[str, Topic], problems: _Problems) -> _Scan:
        files = discover(self.o.responses, "--rag-responses")
        if not files:
            raise InputError(", ".join(map(str, self.o.responses)), None, "--rag-responses", "no JSONL run files found")
        lines: dict[str, dict[int, tuple[str, str]]] = {}
        seen: dict[tuple[str, str], str] = {}
        run_order: list[str] = []
        answered: dict[str, set[str]] = {}
        wanted: dict[tuple[str, str], set[str]] = {}
        citations: Counter = Counter()
        counts = self.summary.counts
        for path in files:
            for line, rep in read_reports(path, self.o.dataset, self.wf.citations.max_per_sentence):
                if isinstance(rep, InputError):
                    problems(rep, "report")
                    continue
                key = (rep.run_id, rep.topic_id)
                if key in seen:
                    problems(
                        InputError(path, line, "topic_id", f"duplicate report for run {rep.run_id!r}, topic {rep.topic_id!r} (first at {seen[key]})"),
                        "report",
                    )
                    continue
                seen[key] = f"{path}:{line}"
                if rep.run_id not in answered:
                    run_order.append(rep.run_id)
                    answered[rep.run_id] = set()
                if rep.topic_id not in topics:
                    counts["reports_unknown_topic"] += 1
                    continue
                lines.setdefault(str(path), {})[line] = key
                answered[rep.run_id].add(rep.topic_id)
                docs = wanted.setdefault(key, set())
                for sent in rep.sentences:
                    citations[rep.run_id] += len(sent.citations)
                    for c in sent.citations:
                        if c.doc_id is not None and rep.documents.get(c.doc_id) is None:
                            docs.add(c.doc_id)
        runs = run_order if self.o.max_runs is None else run_order[: self.o.max_runs]
        counts["runs_not_selected"] = len(run_order) - len(runs)
        if counts["reports_unknown_topic"]:
            self.warn(f"{counts['reports_unknown_topic']} report(s) not judged: topic not in --rag-topics (or beyond --max-topics)")
        selected = set(runs)
        return _Scan(
            files=files,
            lines={p: {n: t for n, (r, t) in ls.items() if r in selected} for p, ls in lines.items()},
            runs=runs,
            answered={r: answered[r] for r in runs},
            wanted_docs=_wanted_by_topic(wanted, set(runs)),
            citations=sum(citations[r] for r in runs),
        )

    def check_missing_topics(self, topics: dict[str, Topic], scan: _Scan) -> None:
        if self.wf.leaderboard.on_missing != "error":
            return
        gaps = [(r, t) for r in scan.runs for t in topics if t not in scan.answered[r]]
        if gaps:
            shown = ", ".join(f"{r}/{t}" for r, t in gaps[:5]) + (" ..." if len(gaps) > 5 else "")
            raise InputError(
                self.o.workflow_path or "workflow", None, "leaderboard.on_missing",
                f"error: {len(gaps)} (run, topic) pair(s) without a report: {shown}",
            )

    # -- stage 2: resolve and prepare ---------------------------------------------------------
    def doc_index(self, text: str) -> DocIndex:
        cache = self._doc_cache
        di = cache.get(text)
        if di is not None:
            cache.move_to_end(text)
            return di
        di = DocIndex(text, self.vocab, self.wf.windows.sentences, self.wf.windows.stride)
        cache[text] = di
        self._doc_cache_tokens += di.n_tokens
        while self._doc_cache_tokens > DOC_CACHE_TOKENS and len(cache) > 1:
            _, old = cache.popitem(last=False)
            self._doc_cache_tokens -= old.n_tokens
        return di

    def resolve(self, report: Report, doc_id: str) -> tuple[Optional[Document], str, str]:
        """The cited document, where it came from, and (when missing) why."""
        embedded = report.documents.get(doc_id)
        if embedded is not None:
            return embedded, "embedded", ""
        found = self.corpus.get(doc_id)
        if found is not None:
            return found, "corpus", ""
        if doc_id in report.documents:
            return None, "none", f"document {doc_id!r} has no text"
        if self.o.corpus is None:
            return None, "none", f"document {doc_id!r} not in the report's documents (no --corpus given)"
        return None, "none", f"document {doc_id!r} in neither the report's documents nor the corpus"

    # -- stage 3: align and judge, batch by batch ---------------------------------------------
    def judge_batch(self, reports: list[Report], out: "_Outputs", log: DebugLog) -> int:
        """Judge every citation of ``reports`` with one prefilter call and one engine call."""
        texts: list[str] = []
        docs: list[DocIndex] = []
        doc_slot: dict[int, int] = {}
        items = []  # per citation: (report, sentence, citation, answer slot, doc slot or -1, source, reason)
        for rep in reports:
            for sent in rep.sentences:
                if not sent.citations:
                    continue
                a_slot = len(texts)
                texts.append(sent.text)
                for c in sent.citations:
                    if c.doc_id is None:
                        items.append((rep, sent, c, a_slot, -1, "none", c.problem))
                        continue
                    doc, source, reason = self.resolve(rep, c.doc_id)
                    if doc is None:
                        items.append((rep, sent, c, a_slot, -1, source, reason))
                        continue
                    di = self.doc_index(doc.text)
                    d = doc_slot.get(id(di))
                    if d is None:
                        d = doc_slot[id(di)] = len(docs)
                        docs.append(di)
                    items.append((rep, sent, c, a_slot, d, source, ""))

        answers = self.vocab.encode_many(texts)
        best, cands = self._align(answers, docs, items)
        for i, (rep, sent, c, a_slot, d, source, reason) in enumerate(items):
            if d < 0:
                j = support.missing(reason, source)
            else:
                j = support.judge(best[i], len(answers[a_slot]), docs[d], source, self.wf)
            if log.enabled:
                self._log_citation(log, rep, sent, c, None if d < 0 else docs[d], source, cands[i].tolist(), best[i], j)
            out.add(rep, sent, c, j)
        return len(items)

    def _align(self, answers: list[Tokens], docs: list[DocIndex], items: list) -> tuple[list, np.ndarray]:
        """Best alignment per citation (absolute document tokens) and the candidate windows."""
        n, k = len(items), self.wf.windows.candidates
        cit_a = np.array([it[3] for it in items], dtype=np.int64)
        cit_d = np.array([it[4] for it in items], dtype=np.int64)
        cands = np.full((n, k), -1, dtype=np.int64)
        best = np.zeros((n, 6), dtype=np.int64)
        lengths = np.array([len(a) for a in answers], dtype=np.int64)
        todo = np.nonzero((cit_d >= 0) & (lengths[cit_a] > 0))[0] if n else np.zeros(0, np.int64)
        if len(todo) == 0:
            return best.tolist(), cands
        a_offsets = np.zeros(len(answers) + 1, dtype=np.int64)
        np.cumsum(lengths, out=a_offsets[1:])
        a_tokens = np.concatenate([a.ids for a in answers])
        d_base = np.zeros(len(docs) + 1, dtype=np.int64)
        np.cumsum([d.n_tokens for d in docs], out=d_base[1:])
        d_tokens = np.concatenate([d.tokens.ids for d in docs])
        w_base = np.zeros(len(docs) + 1, dtype=np.int64)
        np.cumsum([len(d.windows) for d in docs], out=w_base[1:])
        win = np.concatenate([d.windows for d in docs])  # token ranges relative to each document
        win_doc = np.repeat(np.arange(len(docs)), np.diff(w_base))
        win_lo, win_hi = win[:, 0] + d_base[win_doc], win[:, 1] + d_base[win_doc]
        fast = self.backend.name == "numba"
        d_weights = np.concatenate([
            d.weights(fast) if len(d.windows) > k else np.zeros(d.n_tokens, np.int32) for d in docs
        ])
        cands[todo] = self.prefilter(
            a_tokens, a_offsets, cit_a[todo], d_tokens, d_weights, win_lo, win_hi,
            w_base[cit_d[todo]], w_base[cit_d[todo] + 1], k, len(self.vocab),
        )
        sub = cands[todo]
        rows, slots = np.nonzero(sub >= 0)
        owner = todo[rows]
        w_row = w_base[cit_d[owner]] + sub[rows, slots]
        al = self.wf.alignment
        res = self.backend.align_batch(
            a_tokens, a_offsets, cit_a[owner], d_tokens, win_lo[w_row], win_hi[w_row], al.match, al.mismatch, al.gap
        )
        # Best per citation: highest score, then smallest document end, then smallest answer end.
        rel = win[w_row, 0]
        b_end = res[:, 4] + rel
        order = np.lexsort((res[:, 2], b_end, -res[:, 0], owner))
        first = order[np.unique(owner[order], return_index=True)[1]]
        win_res = res[first]
        keep = win_res[:, 0] > 0
        chosen = owner[first][keep]
        best[chosen] = win_res[keep]
        best[chosen, 3] += rel[first][keep]
        best[chosen, 4] += rel[first][keep]
        return best.tolist(), cands

    def prefilter(self, *args) -> np.ndarray:
        """Candidate windows per citation (:mod:`judges.align.prefilter`), by the chosen engine."""
        if self.backend.name == "numba":
            return prefilter.candidates_batch(*args)
        (a_tokens, a_offsets, cit_a, d_tokens, d_weights, win_lo, win_hi, w0, w1, k, _) = args
        out = np.full((len(cit_a), k), -1, dtype=np.int64)
        for c in range(len(cit_a)):
            answer = a_tokens[a_offsets[cit_a[c]] : a_offsets[cit_a[c] + 1]]
            windows = np.stack([win_lo[w0[c] : w1[c]], win_hi[w0[c] : w1[c]]], axis=1)
            got = prefilter.candidates_reference(answer.tolist(), d_tokens, d_weights, windows, k)
            out[c, : len(got)] = got
        return out

    def _log_citation(self, log, rep, sent, c, di, source, cands, alignment, j: Judgment) -> None:
        common = dict(run_id=rep.run_id, topic_id=rep.topic_id, sentence_index=sent.index, citation_rank=c.rank)
        log.event(
            "CITATION_INPUT", **common, citation=c.raw, doc_id=c.doc_id, sentence=sent.text, doc_source=source,
            doc_chars=None if di is None else len(di.text),
            candidate_windows=None if di is None else [di.windows[w].tolist() for w in cands if w >= 0],
        )
        log.event(
            "CITATION_OUTPUT", **common, doc_id=c.doc_id, qrels_doc_id=doc_id_md5(f"{sent.text}_{c.citation_id}"),
            alignment=None if di is None else alignment, **j._asdict(),
        )


class _Outputs:
    """Accumulates judgments into qrels, doc qrels, per-report measures and assessment rows."""

    def __init__(self) -> None:
        self.qrels: dict[tuple[str, str], int] = {}
        self.doc_qrels: dict[tuple[str, str], int] = {}
        self.per_topic: dict[tuple[str, str], dict[str, float]] = {}
        self._columns: dict[str, list] = {name: [] for name in tables.ASSESSMENT_SCHEMA.names}
        self._batches: list[pa.RecordBatch] = []
        self._statuses: dict[tuple[str, str], dict[int, list[str]]] = {}  # report -> sentence -> statuses

    def add(self, rep: Report, sent, c, j: Judgment) -> None:
        qid = doc_id_md5(f"{sent.text}_{c.citation_id}")
        key = (rep.topic_id, qid)
        if self.qrels.get(key, -1) < j.grade:
            self.qrels[key] = j.grade
        if c.doc_id is not None:
            dkey = (rep.topic_id, c.doc_id)
            if self.doc_qrels.get(dkey, -1) < j.grade:
                self.doc_qrels[dkey] = j.grade
        cols = self._columns
        for name, value in (
            ("run_id", rep.run_id), ("topic_id", rep.topic_id), ("sentence_index", sent.index),
            ("citation_rank", c.rank), ("citation", c.raw), ("doc_id", c.doc_id), ("qrels_doc_id", qid),
            ("status", j.status), ("grade", j.grade), ("score", j.score), ("norm_score", j.norm_score),
            ("answer_coverage", j.answer_coverage), ("evidence_coverage", j.evidence_coverage),
            ("answer_tokens", j.answer_tokens), ("char_start", j.char_start), ("char_end", j.char_end),
            ("evidence", j.evidence), ("doc_source", j.doc_source), ("reason", j.reason),
            ("confidence", c.confidence), ("sentence", sent.text),
        ):
            cols[name].append(value)
        self._statuses.setdefault((rep.run_id, rep.topic_id), {}).setdefault(sent.index, []).append(j.status)

    def finish_report(self, rep: Report) -> None:
        key = (rep.run_id, rep.topic_id)
        statuses = self._statuses.pop(key, {})
        results = [SentenceResult(len(s.text.strip()), tuple(statuses.get(s.index, ()))) for s in rep.sentences]
        self.per_topic[key] = evaluate(results)

    def flush_rows(self) -> None:
        if self._columns["run_id"]:
            self._batches.append(pa.RecordBatch.from_pydict(self._columns, schema=tables.ASSESSMENT_SCHEMA))
            self._columns = {name: [] for name in tables.ASSESSMENT_SCHEMA.names}

    def assessments(self) -> pa.Table:
        self.flush_rows()
        return pa.Table.from_batches(self._batches, schema=tables.ASSESSMENT_SCHEMA)


class Part(NamedTuple):
    """What judging one group of topics produced (in one process)."""

    qrels: dict
    doc_qrels: dict
    per_topic: dict
    assessments: pa.Table
    counts: Counter


def judge_part(
    options: Options, scan: _Scan, corpus: dict[str, Document], topics: Optional[frozenset], log: DebugLog, progress
) -> Part:
    """Judge the selected runs' reports whose topic is in ``topics`` (``None``: all)."""
    judge = Judge(options)
    judge.corpus = corpus
    out = _Outputs()
    counts: Counter = Counter()
    pending: list[Report] = []
    pending_citations = 0

    def flush() -> None:
        nonlocal pending, pending_citations
        done = judge.judge_batch(pending, out, log)
        for rep in pending:
            out.finish_report(rep)
        out.flush_rows()
        progress(done)
        pending, pending_citations = [], 0

    for path in scan.files:
        mine = {n for n, t in scan.lines.get(str(path), {}).items() if topics is None or t in topics}
        if not mine:
            continue
        for _, rep in read_reports(path, options.dataset, options.workflow.citations.max_per_sentence, mine):
            counts["reports"] += 1
            counts["sentences"] += len(rep.sentences)
            counts["citations_beyond_limit"] += sum(s.dropped for s in rep.sentences)
            pending.append(rep)
            pending_citations += sum(len(s.citations) for s in rep.sentences)
            if pending_citations >= BATCH_CITATIONS:
                flush()
    flush()
    return Part(out.qrels, out.doc_qrels, out.per_topic, out.assessments(), counts)


def warmup(options: Options) -> None:
    """Judge one tiny in-memory report so every Numba kernel is compiled (or loaded from cache)."""
    text = " ".join(f"Sentence number {i} says warm words." for i in range(4 * options.workflow.windows.sentences))
    doc = Document("warm", text)
    sentence = Sentence(0, "Sentence number 3 says warm words.", (Citation(0, "warm", "warm"),))
    report = Report("warm", "warm", "", "responses", (sentence,), {"warm": doc}, "<warmup>", 1)
    with DebugLog(None) as log:
        Judge(options).judge_batch([report], _Outputs(), log)


# -- worker processes ----------------------------------------------------------------------------
_progress_queue = None


def _init_worker(queue, options: Options) -> None:
    """Runs once in each worker as it starts: one Numba thread, kernels loaded before work arrives."""
    global _progress_queue
    _progress_queue = queue
    import numba

    numba.set_num_threads(1)  # one thread per process: the processes are the parallelism
    if (options.backend or options.workflow.alignment.backend) == "numba":
        warmup(options)


def _started() -> None:
    """An empty task: submitting one per worker makes the pool start them all now."""


def _worker(options: Options, scan: _Scan, corpus: dict, topics: frozenset, log_path: Optional[str]) -> Part:
    with DebugLog(Path(log_path) if log_path else None) as log:
        return judge_part(options, scan, corpus, topics, log, _progress_queue.put)


class _Workers:
    """Worker processes, started early so their imports and kernel loading overlap the first pass."""

    def __init__(self, options: Options, n: int):
        import concurrent.futures
        import multiprocessing

        ctx = multiprocessing.get_context("spawn")  # fork is unsafe once Numba's threads have started
        self.n, self.options, self.queue = n, replace(options, workers=n), ctx.Queue()
        self.pool = concurrent.futures.ProcessPoolExecutor(
            n, mp_context=ctx, initializer=_init_worker, initargs=(self.queue, self.options)
        )
        for _ in range(n):
            self.pool.submit(_started)

    def close(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)

    def judge(self, scan: _Scan, corpus: dict, topics: dict, log: DebugLog, progress) -> list[Part]:
        """Deal the topics round-robin to the workers; each tokenizes only its own documents."""
        import queue as queue_module
        import tempfile

        n, options = self.n, self.options
        groups = [frozenset(t for i, t in enumerate(sorted(topics)) if i % n == w) for w in range(n)]
        with tempfile.TemporaryDirectory(dir=options.out_dir, prefix=f".{options.name}.") as tmp:
            logs = [str(Path(tmp) / f"worker{w}.jsonl") if log.enabled else None for w in range(n)]
            futures = [
                self.pool.submit(
                    _worker, options, scan,
                    {d: corpus[d] for t in g for d in scan.wanted_docs.get(t, ()) if d in corpus}, g, logs[w],
                )
                for w, g in enumerate(groups)
            ]
            while not all(f.done() for f in futures):
                try:
                    progress(self.queue.get(timeout=0.2))
                except queue_module.Empty:
                    pass
            parts = [f.result() for f in futures]
            while True:
                try:
                    progress(self.queue.get_nowait())
                except queue_module.Empty:
                    break
            for path in logs:
                if path:
                    log.append_file(Path(path))
        return parts


def run(options: Options, warn: Callable[[str], None] = lambda msg: None, progress=None) -> Summary:
    """Judge every report and write all outputs; returns the summary. ``progress(n)`` advances a bar."""
    progress = progress or (lambda n, total=None: None)
    summary = Summary()
    counts = summary.counts
    out_dir, name = Path(options.out_dir), options.name
    log_path = options.debug_log if options.debug_log is not None else out_dir / f"{name}.jsonl"
    backend = get_backend(options.backend or options.workflow.alignment.backend)
    out_dir.mkdir(parents=True, exist_ok=True)
    with contextlib.ExitStack() as stack:
        workers = None
        if options.workers > 1:
            workers = _Workers(options, options.workers)
            stack.callback(workers.close)
        log = stack.enter_context(DebugLog(log_path))
        problems = _Problems(options.on_error, log, summary, warn)
        log.event("session_start", version=__version__, backend=backend.name, name=name, workers=options.workers,
                  workflow=options.workflow.model_dump(), inputs=_inputs(options))
        topics = load_topics(options.topics, problems, options.max_topics)
        summary.topics = len(topics)
        scanner = Judge(options, warn)
        scan = scanner.scan(topics, problems)
        counts.update(scanner.summary.counts)
        summary.runs = list(scan.runs)
        scanner.check_missing_topics(topics, scan)
        corpus: dict[str, Document] = {}
        wanted = set().union(*scan.wanted_docs.values()) if scan.wanted_docs else set()
        if wanted and options.corpus is not None:
            corpus = read_corpus(options.corpus, wanted, lambda e: problems(e, "corpus line"))
            counts["corpus_documents"] = len(corpus)
        progress(0, total=scan.citations)

        if workers is None and options.workers == 0 and scan.citations >= AUTO_PARALLEL_CITATIONS and len(topics) > 1:
            n = min(os.cpu_count() or 1, len(topics))
            if n > 1:
                workers = _Workers(options, n)
                stack.callback(workers.close)
        if workers is not None:
            parts = workers.judge(scan, corpus, topics, log, progress)
        else:
            parts = [judge_part(options, scan, corpus, None, log, progress)]
        del corpus
        out = _Outputs()
        for part in parts:  # topic groups are disjoint: plain unions
            out.qrels.update(part.qrels)
            out.doc_qrels.update(part.doc_qrels)
            out.per_topic.update(part.per_topic)
            counts.update(part.counts)
        table = pa.concat_tables([p.assessments for p in parts]).sort_by(tables.ASSESSMENT_SORT)
        for item in pc.value_counts(table.column("status")).to_pylist():
            summary.statuses[item["values"]] = item["counts"]
        counts["citations"] = table.num_rows
        _write_outputs(options, summary, out, table, scan, topics)
        log.event("summary", counts=dict(counts), statuses=dict(summary.statuses), files=summary.files)
    summary.files["debug_log"] = str(log_path)
    return summary


def _write_outputs(options: Options, summary: Summary, out: _Outputs, table: pa.Table, scan: _Scan, topics) -> None:
    out_dir, name = Path(options.out_dir), options.name
    files = summary.files
    qrels_path = out_dir / f"{name}.qrels"
    summary.counts["qrels_rows"] = trec.write_qrels(qrels_path, ((t, d, g) for (t, d), g in out.qrels.items()))
    files["qrels"] = str(qrels_path)
    doc_qrels_path = out_dir / f"{name}.doc.qrels"
    summary.counts["doc_qrels_rows"] = trec.write_qrels(doc_qrels_path, ((t, d, g) for (t, d), g in out.doc_qrels.items()))
    files["doc_qrels"] = str(doc_qrels_path)

    rows = leaderboard_rows(out.per_topic, scan.runs, list(topics), options.workflow.leaderboard.on_missing)
    for fmt in options.leaderboard_formats:
        path = out_dir / f"{name}.{trec.LEADERBOARD_SUFFIX[fmt]}"
        trec.write_leaderboard(path, rows, fmt)
        files[f"leaderboard_{fmt}"] = str(path)
    lb_table = pa.Table.from_pylist(
        [dict(run_id=r, topic_id=t, measure=m, value=float(v)) for r, t, m, v in rows], schema=tables.LEADERBOARD_SCHEMA
    )
    tables.write_table(out_dir / f"{name}.leaderboard.parquet", lb_table)
    files["leaderboard_parquet"] = str(out_dir / f"{name}.leaderboard.parquet")
    tables.write_table(out_dir / f"{name}.assessments.parquet", table)
    files["assessments_parquet"] = str(out_dir / f"{name}.assessments.parquet")

    config_path = out_dir / f"{name}.config.yml"
    config = {
        "name": name,
        "judge": "citation",
        "workflow": options.workflow.model_dump(),
        "backend": options.backend or options.workflow.alignment.backend,
        "dataset": options.dataset,
        "on_error": options.on_error,
        "versions": {"citejudge": __version__, "python": platform.python_version(), **_versions()},
        "inputs": _inputs(options, with_hashes=True),
        "runs": sorted(scan.runs),
        "topics": len(topics),
        "counts": {k: int(v) for k, v in sorted(summary.counts.items())},
        "statuses": {k: int(summary.statuses[k]) for k in ("supported", "partial", "unsupported", "missing")},
    }
    with atomic_text(config_path) as f:
        yaml.safe_dump(config, f, sort_keys=False, allow_unicode=True)
    files["config"] = str(config_path)


def _versions() -> dict[str, str]:
    import numba
    import pyarrow

    return {"numpy": np.__version__, "numba": numba.__version__, "pyarrow": pyarrow.__version__}


def _inputs(options: Options, with_hashes: bool = False) -> dict:
    def describe(paths: list[Path], option: str) -> list:
        files = discover(paths, option)
        if not with_hashes:
            return [p.as_posix() for p in files]
        return [{"path": p.as_posix(), "sha256": file_sha256(p)} for p in files]

    inputs = {"topics": describe(options.topics, "--rag-topics"), "responses": describe(options.responses, "--rag-responses")}
    if options.corpus is not None:
        inputs["corpus"] = describe([options.corpus], "--corpus")[0]
    if options.workflow_path is not None:
        inputs["workflow"] = describe([options.workflow_path], "--workflow")[0]
    return inputs
