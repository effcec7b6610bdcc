"""Judging citations, batch by batch: resolve → tokenize/segment → script check (cross-language
citations are not aligned) → prefilter → align → further evidence spans (:mod:`judges.align.spans`)
→ grounding checks (missing numbers and entities) → support features → support judge → LLM
attestation → grounding cap → explanation → assessment rows, debug-log events and each report's measures.

A :class:`Judge` keeps what is worth keeping across reports and runs of one process: the
vocabulary and the prepared (tokenized, windowed) documents. :func:`judge_part` streams the
reports of a set of topics through it, in batches of about ``BATCH_CITATIONS`` citations, so the
prefilter and the alignment engine each see thousands of citations per call.
"""

from __future__ import annotations

from collections import Counter, OrderedDict
from typing import TYPE_CHECKING, Iterable, NamedTuple, Optional

import numpy as np
import pyarrow as pa

from judges.align import reference, support
from judges.align.backends import get_backend
from judges.align.packed import CandidateQuery, Packed, WindowLanes
from judges.align.passages import DocIndex
from judges.align.spans import evidence_spans
from judges.core.counts import CITATIONS_BEYOND_LIMIT, REPORTS, SENTENCES
from judges.engine.explain import ALIGNMENT_FIELDS, decision, explain
from judges.formats.debuglog import DebugLog
from judges.formats.docstore import Unresolved
from judges.engine.grounder import Grounder
from judges.core.process import numba_without_scipy_blas
from judges.engine.settings import Settings
from judges.engine.assessments import Assessments, qrels_doc_id
from judges.core.records import Citation, Document, Judgment, Report, Sentence
from judges.support.features import LEXICAL, clause_ids
from judges.support.judges import get_judge
from judges.support.lexicon import Lexicon
from judges.text.script import NONE, script_name, scripts_of
from judges.text.tokenize import Tokens, Vocabulary
from judges.core.vocabulary import FEATURES, STATUS_GRADE
from judges.engine.weights import citation_weight

if TYPE_CHECKING:
    from judges.attest.cascade import Attester
    from judges.attest.plan import Plan

BATCH_CITATIONS = 4096  # citations aligned per engine call
SPAN_CITATIONS = 512  # a topic with fewer leaves its reports pending for the next topic's batch
ATTEST_BATCH_CITATIONS = 256  # with LLM attestation: the progress bar moves as answers arrive
DOC_CACHE_TOKENS = 60_000_000  # cap on prepared documents held within one topic (~14 bytes/token)


class Item(NamedTuple):
    """One citation of a batch, resolved."""

    report: Report
    sentence: Sentence
    citation: Citation
    answer: int  # the cited sentence's slot among the batch's texts
    doc: int  # the cited document's slot among the batch's documents; -1: missing (or not aligned)
    source: str  # where the document came from: embedded | corpus | none
    reason: str  # why it is missing ("" when it is not)

    @property
    def label_key(self) -> tuple:
        """The key of an assessor's label for it (:func:`judges.formats.labels.citation_statuses`)."""
        return self.report.run_id, self.report.topic_id, self.sentence.index, self.citation.doc_id


class Batch(NamedTuple):
    """The reports judged together, their cited sentences and documents, and their citations."""

    reports: list[Report]
    texts: list[str]  # the cited sentences
    docs: list[DocIndex]  # the cited documents, prepared
    items: list[Item]  # per citation
    resolved: list[Optional[Document]]  # per citation: the cited document (None: missing)
    cited: dict[int, dict[str, Document]]  # per report (by id()): the documents it cites, by id


def _differ(sentence_script: int, doc_script: int) -> bool:
    """Whether a sentence and its cited text are in different scripts (neither without one)."""
    return sentence_script != NONE and doc_script != NONE and sentence_script != doc_script


class Judge:
    """Resolves, prepares and aligns citations, batch by batch, in one process."""

    def __init__(
        self,
        settings: Settings,
        corpus: Optional[dict[str, Document | Unresolved]] = None,
        labels: Optional[dict[tuple, str]] = None,
        attester: Optional["Attester"] = None,
        placed: bool = False,
    ):
        """``corpus``: the cited documents by id; ``labels``: assessors' levels, final;
        ``attester``: asks the LLM (the workflow attests); ``placed``: keep each report's log end
        (:attr:`log_ends`)."""
        self.settings = settings
        self.wf = settings.workflow
        self.backend = get_backend(self.wf.alignment.backend)
        self.vocab = Vocabulary()
        self._doc_cache: OrderedDict[str, DocIndex] = OrderedDict()
        self._doc_cache_tokens = 0
        self.corpus: dict[str, Document | Unresolved] = corpus if corpus is not None else {}
        self.grounder = Grounder(self.wf.grounding)
        self.lexicon = Lexicon()
        self.support_judge = get_judge(self.wf.support, settings.workflow_path, settings.support_model)
        self.attester = attester
        self.labels: dict[tuple, str] = labels or {}  # (run, topic, sentence index, doc id) -> status
        self.log_ends: Optional[dict[tuple[str, int], int]] = {} if placed else None  # (path, offset) -> log end

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

    def forget_documents(self) -> None:
        """Drop the prepared documents (between topics, whose documents rarely overlap)."""
        self._doc_cache.clear()
        self._doc_cache_tokens = 0
        self.grounder.forget()

    def resolve(self, report: Report, doc_id: str) -> tuple[Optional[Document], str, str]:
        """The cited document, where it came from, and (when missing) why."""
        embedded = report.documents.get(doc_id)
        if embedded is not None:
            return embedded, "embedded", ""
        found = self.corpus.get(doc_id)
        if isinstance(found, Document):
            return found, "corpus", ""
        if found is not None:  # a docstore's Unresolved: e.g. an MS MARCO offset out of range
            return None, "none", f"document {doc_id!r} not where the corpus index points: {found.reason}"
        if doc_id in report.documents:
            return None, "none", f"document {doc_id!r} has no text"
        if not self.settings.has_corpus:
            return None, "none", f"document {doc_id!r} not in the report's documents (no --corpus given)"
        return None, "none", f"document {doc_id!r} in neither the report's documents nor the corpus"

    # -- stage 3: align and judge, batch by batch ---------------------------------------------
    def judge_batch(self, reports: list[Report], out: Assessments, log: DebugLog) -> int:
        """Judge every citation of ``reports`` with one prefilter call and one engine call, and
        finish the reports (their measures)."""
        batch = self._collect(reports)
        answers = self.vocab.encode_many(batch.texts)
        packed = Packed.of(answers, batch.docs)
        # Sentence and cited text in different scripts: not aligned, recorded as cross_language.
        scripts = scripts_of(batch.texts), scripts_of([di.text for di in batch.docs])
        cross = [it.doc >= 0 and _differ(scripts[0][it.answer], scripts[1][it.doc]) for it in batch.items]
        aligned = [it._replace(doc=-1) if x else it for it, x in zip(batch.items, cross)] if any(cross) else batch.items
        best, ranges = self._align(packed, batch.docs, aligned)
        _, content = self.lexicon.update(self.vocab)
        al = self.wf.alignment
        cit_a, cit_d = [it.answer for it in aligned], [it.doc for it in aligned]
        scoring = reference.Scoring(al.match, al.mismatch, al.gap)
        spans = evidence_spans(self.backend, packed, content, cit_a, cit_d, best, ranges, scoring)
        judgments = self._aligned(batch, answers, scripts, cross, best, spans)
        judgments = self._decide(packed, batch.texts, answers, aligned, judgments)
        if self.labels:
            judgments = [labelled(j, self.labels.get(it.label_key)) for j, it in zip(judgments, batch.items)]
        if self.attester is not None:
            judgments = self._attest(batch, judgments, ranges)
        self._finish(batch, judgments, best, ranges, out, log)
        return len(batch.items)

    def _collect(self, reports: list[Report]) -> "Batch":
        """The batch's cited sentences and documents, each citation resolved."""
        batch = Batch(reports, [], [], [], [], {})
        doc_slot: dict[int, int] = {}
        for rep in reports:
            rep_docs: dict[str, Document] = {}
            batch.cited[id(rep)] = rep_docs
            for sent in rep.sentences:
                if not sent.citations:
                    continue
                a_slot = len(batch.texts)
                batch.texts.append(sent.text)
                for c in sent.citations:
                    if c.doc_id is None:
                        assert c.problem is not None, "a citation without a document id says why (formats.runs)"
                        batch.items.append(Item(rep, sent, c, a_slot, -1, "none", c.problem))
                        batch.resolved.append(None)
                        continue
                    doc, source, reason = self.resolve(rep, c.doc_id)
                    batch.resolved.append(doc)
                    if doc is None:
                        batch.items.append(Item(rep, sent, c, a_slot, -1, source, reason))
                        continue
                    rep_docs.setdefault(c.doc_id, doc)
                    di = self.doc_index(doc.text)
                    d = doc_slot.get(id(di))
                    if d is None:
                        d = doc_slot[id(di)] = len(batch.docs)
                        batch.docs.append(di)
                    batch.items.append(Item(rep, sent, c, a_slot, d, source, ""))
        return batch

    def _aligned(
        self, batch: "Batch", answers: list[Tokens], scripts, cross: list[bool], best: list, spans: dict
    ) -> list[Judgment]:
        """Each citation's judgment from its alignment, evidence spans (document token ranges, for
        those with two or more) and grounding checks (missing and cross-language ones as such),
        before the support judge."""
        match, out = self.wf.alignment.match, []
        for i, it in enumerate(batch.items):
            n_tokens = len(answers[it.answer])
            if it.doc < 0:
                out.append(support.missing(it.reason, it.source))
                continue
            doc_id, resolved = it.citation.doc_id, batch.resolved[i]
            assert doc_id is not None and resolved is not None, "a citation given a document slot was resolved"
            if cross[i]:
                sentence_script, doc_script = script_name(scripts[0][it.answer]), script_name(scripts[1][it.doc])
                out.append(cross_language(sentence_script, doc_script, doc_id, it.source, n_tokens))
            else:
                numbers, entities = self.grounder.missing_in(it.report, it.sentence, resolved)
                doc = batch.docs[it.doc]
                out.append(support.aligned(best[i], n_tokens, doc, it.source, match, numbers, entities, spans.get(i)))
        return out

    def _attest(self, batch: "Batch", judgments: list[Judgment], ranges: np.ndarray) -> list[Judgment]:
        """The LLM attestation cascade over the batch (:class:`judges.attest.cascade.Attester`)."""
        from judges.attest.cascade import Case

        cases = []
        for i, it in enumerate(batch.items):
            rep, sent, c = it.report, it.sentence, it.citation
            window = None if it.doc < 0 or ranges[i, 0, 1] < 0 else tuple(ranges[i, 0].tolist())
            ids = dict(run_id=rep.run_id, topic_id=rep.topic_id, sentence_index=sent.index, citation_rank=c.rank)
            ids["doc_id"] = c.doc_id
            cases.append(Case(sent.text, None if it.doc < 0 else batch.docs[it.doc], judgments[i], window, ids))
        assert self.attester is not None, "judge_batch attests only with an attester"
        return self.attester.attest(cases)

    def _finish(self, batch: "Batch", judgments: list[Judgment], best: list, ranges, out: Assessments, log) -> None:
        """The grounding cap, weight and explanation of each citation, its assessment row and
        debug-log events, then each report's measures."""
        thresholds = self.support_judge.thresholds()
        on_unparsed = self.wf.attest.on_unparsed
        expected_weights = self.wf.leaderboard.weights == "expected"
        windows = ranges.tolist() if log.enabled else []
        answer_error = self.wf.attest.assumed_error  # estimate: the session re-judges at its estimate
        items, ends = batch.items, self.log_ends
        for i, it in enumerate(items):
            rep, sent, c, j = it.report, it.sentence, it.citation, judgments[i]
            why = None
            if self.attester is not None:
                why = self.attester.why((rep.run_id, rep.topic_id, sent.index, c.rank), j)
            if j.human_label is None:
                j = self.grounder.cap(j)
            j = j._replace(weight=citation_weight(j, expected_weights, answer_error, self.grounder.rules_out_full(j)))
            j = j._replace(explanation=explain(j, thresholds, on_unparsed, why))
            qid = qrels_doc_id(sent.text, c.citation_id)
            if log.enabled:
                di = None if it.doc < 0 else batch.docs[it.doc]
                rule = decision(thresholds, why, j, j.llm_answer is not None)
                self._log_citation(log, it, di, windows[i], best[i], j, qid, rule)
                if ends is not None and (i + 1 == len(items) or items[i + 1].report is not rep):
                    ends[rep.path, rep.offset] = log.tell()  # the report's last event
            out.add(rep, sent, c, j, qid)
        for rep in batch.reports:
            out.finish_report(rep, self.grounder.report(rep, batch.cited[id(rep)].values()))

    def _decide(
        self, packed: Packed, texts: list[str], answers: list[Tokens], items: list[Item], judgments: list
    ) -> list:
        """Support features of every resolvable citation, and the support judge's status."""
        todo = [i for i, it in enumerate(items) if it.doc >= 0]
        if not todo:
            return judgments
        stem, content = self.lexicon.update(self.vocab)
        cit_a = np.array([items[i].answer for i in todo], dtype=np.int64)
        cit_d = np.array([items[i].doc for i in todo], dtype=np.int64)
        lexical = self.backend.lexical_features(
            stem[packed.a_tokens],
            content[packed.a_tokens],
            clause_ids(texts, [a.starts for a in answers]),
            packed.a_offsets,
            stem[packed.d_tokens],
            packed.d_base,
            cit_a,
            cit_d,
            self.lexicon.n_stems,
        )
        x = np.zeros((len(todo), len(FEATURES)), dtype=np.float64)
        for col, values in (
            ("norm_score", [judgments[i].norm_score for i in todo]),
            ("answer_coverage", [judgments[i].answer_coverage for i in todo]),
            ("log_answer_tokens", np.log1p([judgments[i].answer_tokens for i in todo])),
            ("numbers_missing", [len(judgments[i].numbers_missing) for i in todo]),
            ("entities_missing", [len(judgments[i].entities_missing) for i in todo]),
        ):
            x[:, FEATURES.index(col)] = values
        for k, name in enumerate(LEXICAL):
            x[:, FEATURES.index(name)] = lexical[:, k]
        x = np.round(x, 6)
        decided = self.support_judge.decide(x)
        out = list(judgments)
        rows = zip(todo, decided.status.tolist(), decided.p_any.tolist(), decided.p_full.tolist(), x.tolist())
        for i, status, p_any, p_full, features in rows:
            j = judgments[i]
            if j.answer_tokens == 0:  # a sentence without words: unsupported with certainty, weight 0
                status, p_any, p_full = "unsupported", 0.0, 0.0
            out[i] = j._replace(
                status=status,
                grade=STATUS_GRADE[status],
                support_status=status,
                p_any=None if p_any != p_any else p_any,
                p_full=None if p_full != p_full else p_full,
                features=tuple(features),
            )
        return out

    def _align(self, packed: Packed, docs: list[DocIndex], items: list[Item]) -> tuple[list, np.ndarray]:
        """Best alignment per citation (absolute document tokens), and its candidate windows as
        ``(n, k, 2)`` token ranges of its document, in slot order (``-1, -1``: slot unused)."""
        n, k = len(items), self.wf.windows.candidates
        cit_a = np.array([it.answer for it in items], dtype=np.int64)
        cit_d = np.array([it.doc for it in items], dtype=np.int64)
        ranges = np.full((n, k, 2), -1, dtype=np.int64)
        best = np.zeros((n, 6), dtype=np.int64)
        lengths = np.diff(packed.a_offsets)
        todo = np.nonzero((cit_d >= 0) & (lengths[cit_a] > 0))[0] if n else np.zeros(0, np.int64)
        if len(todo) == 0:
            return best.tolist(), ranges
        a_tokens, a_offsets, d_tokens, d_base = packed
        w_base = np.zeros(len(docs) + 1, dtype=np.int64)
        np.cumsum([len(d.windows) for d in docs], out=w_base[1:])
        win = np.concatenate([d.windows for d in docs])  # token ranges relative to each document
        win_doc = np.repeat(np.arange(len(docs)), np.diff(w_base))
        win_lo, win_hi = win[:, 0] + d_base[win_doc], win[:, 1] + d_base[win_doc]
        d_weights = np.concatenate(
            [d.weights(self.backend.window_df) if len(d.windows) > k else np.zeros(d.n_tokens, np.int16) for d in docs]
        )
        query = CandidateQuery(a_tokens, a_offsets, cit_a[todo], w_base[cit_d[todo]], w_base[cit_d[todo] + 1])
        lanes = WindowLanes(d_tokens, d_weights, win_lo, win_hi)
        sub = self.backend.candidates(query, lanes, k, len(self.vocab))  # per citation: its windows in its document
        rows, slots = np.nonzero(sub >= 0)
        owner = todo[rows]
        w_row = w_base[cit_d[owner]] + sub[rows, slots]
        ranges[owner, slots] = win[w_row]
        al = self.wf.alignment
        res = self.backend.align_batch(
            a_tokens, a_offsets, cit_a[owner], d_tokens, win_lo[w_row], win_hi[w_row], al.match, al.mismatch, al.gap
        )
        # Best per citation: the reference's rule 1 across its windows (np.lexsort: last key first).
        rel = win[w_row, 0]
        order = np.lexsort((*reversed(reference.end_cell_order(res[:, 0], res[:, 2], res[:, 4] + rel)), owner))
        first = order[np.unique(owner[order], return_index=True)[1]]
        win_res = res[first]
        keep = win_res[:, 0] > 0
        chosen = owner[first][keep]
        best[chosen] = win_res[keep]
        best[chosen, 3] += rel[first][keep]
        best[chosen, 4] += rel[first][keep]
        return best.tolist(), ranges

    def _log_citation(
        self, log, it: Item, di: Optional[DocIndex], windows, alignment, j: Judgment, qid: str, rule: dict
    ) -> None:
        """Two events with named fields: the candidate windows and best alignment as token ranges,
        the features by name, and the rule (support judge, thresholds) behind the explanation.
        (Dict literals: this runs for every citation.)"""
        rep, sent, c = it.report, it.sentence, it.citation
        log.record(
            "CITATION_INPUT",
            {
                "run_id": rep.run_id,
                "topic_id": rep.topic_id,
                "sentence_index": sent.index,
                "citation_rank": c.rank,
                "citation": c.raw,
                "doc_id": c.doc_id,
                "sentence": sent.text,
                "doc_source": it.source,
                "doc_chars": None if di is None else len(di.text),
                "candidate_windows": None
                if di is None
                else [{"doc_token_start": start, "doc_token_end": end} for start, end in windows if end >= 0],
            },
        )
        out = {
            "run_id": rep.run_id,
            "topic_id": rep.topic_id,
            "sentence_index": sent.index,
            "citation_rank": c.rank,
            "doc_id": c.doc_id,
            "qrels_doc_id": qid,
            "alignment": None if di is None else dict(zip(ALIGNMENT_FIELDS, alignment)),
        }
        out.update(zip(Judgment._fields, j))  # the judgment's fields, in order
        out["features"] = dict(zip(FEATURES, j.features)) if j.features else None  # in its place, by name
        out["evidence_spans"] = [{"char_start": a, "char_end": b} for a, b in j.evidence_spans]  # as in the table
        out["decision"] = rule
        log.record("CITATION_OUTPUT", out)


def labelled(j: Judgment, status: Optional[str]) -> Judgment:
    """``j`` with an assessor's level (``status``; None: no label), which is final."""
    if status is None:
        return j
    return j._replace(status=status, grade=STATUS_GRADE[status], human_label=status)


def cross_language(sentence_script: str, doc_script: str, doc_id: str, source: str, answer_tokens: int) -> Judgment:
    """A citation whose sentence and document are in different scripts: no alignment is tried."""
    reason = (
        f"cross-language: sentence in {sentence_script} script, document {doc_id!r} in {doc_script}: not aligned "
        "(give a translated --corpus, or attest with an LLM)"
    )
    return support.unread("cross_language", source, reason, answer_tokens)


class Part(NamedTuple):
    """What judging one group of topics produced (in one process)."""

    per_topic: dict
    assessments: pa.Table
    counts: Counter
    # With ``judge_part(..., placed=True)``: per report judged, in order, its (path, offset), its
    # assessment rows and the debug log's length after its events, -1 when it logged none
    # (judges.session.shards puts parts back in one process's order by them).
    placed: Optional[list[tuple[str, int, int, int]]] = None


def judge_part(
    settings: Settings,
    reports: Iterable[Optional[Report]],
    corpus: dict[str, Document | Unresolved],
    log: DebugLog,
    progress,
    plan: Optional["Plan"] = None,
    labels: Optional[dict[tuple, str]] = None,
    placed: bool = False,
) -> Part:
    """Judge ``reports``, topic by topic: a ``None`` among them ends a topic (the run scan's second
    pass, :func:`judges.session.scan.reread`, hands them so), so only one topic's documents are
    prepared at a time: memory does not grow with the number
    of runs, and no document is tokenized twice. ``plan``: the session's plan, which ``attest.mode:
    uncertain`` sends by (None with ``uncertain``: this is the first pass, without the LLM);
    ``labels``: assessors' levels, final (:func:`judges.formats.labels.citation_statuses`);
    ``placed``: say where each report's rows and events are (:attr:`Part.placed`).
    """
    order: Optional[list[tuple[str, int, int]]] = [] if placed else None  # (path, offset, rows) per report
    out = Assessments()
    counts: Counter = Counter()
    batch_size = BATCH_CITATIONS
    attest = settings.workflow.attest
    attester = None
    if attest.mode == "all" or (attest.mode == "uncertain" and (plan is not None or attest.band is not None)):
        batch_size = ATTEST_BATCH_CITATIONS
        from judges.attest.cascade import Attester  # the LLM client is imported only when attesting
        from judges.attest.selection import rule

        selection, check_sample = rule(attest, plan), None if plan is None else plan.check
        assert settings.llm is not None, "check_attestation refuses to attest without an endpoint"
        attester = Attester(
            attest, settings.llm, settings.cache_dir, log, counts, selection, settings.ask, check_sample=check_sample
        )
    judge = Judge(settings, corpus, labels, attester, placed)
    pending: list[Report] = []
    pending_citations = 0

    def add(rep: Report) -> None:
        nonlocal pending_citations
        counts[REPORTS] += 1
        counts[SENTENCES] += len(rep.sentences)
        counts[CITATIONS_BEYOND_LIMIT] += sum(s.dropped for s in rep.sentences)
        pending.append(rep)
        n = sum(len(s.citations) for s in rep.sentences)
        pending_citations += n
        if order is not None:
            order.append((rep.path, rep.offset, n))
        if pending_citations >= batch_size:
            flush()

    def flush() -> None:
        nonlocal pending, pending_citations
        if pending:
            done = judge.judge_batch(pending, out, log)
            out.flush_rows()
            progress(done)
        pending, pending_citations = [], 0

    for report in reports:
        if report is not None:
            add(report)
            continue
        if pending_citations >= SPAN_CITATIONS:  # a topic ends here
            flush()  # small topics share a batch: one engine call (and thread pool) for many
        if not pending:
            judge.forget_documents()  # the next topic cites other documents
    flush()
    if attester is not None:
        attester.close()
    return Part(out.per_topic, out.table(), counts, None if order is None else _placed(order, judge.log_ends))


def _placed(order: list[tuple[str, int, int]], log_ends: Optional[dict]) -> list[tuple[str, int, int, int]]:
    """Each report's (path, offset, rows, log end); -1: it logged nothing (no citation)."""
    ends = log_ends or {}  # a Judge made with placed=True keeps them
    return [(path, offset, rows, ends.get((path, offset), -1)) for path, offset, rows in order]


def warmup(settings: Settings) -> None:
    """Judge one tiny in-memory report so every Numba kernel is compiled (or loaded from cache)."""
    numba_without_scipy_blas()
    text = " ".join(f"Sentence number {i} says warm words." for i in range(4 * settings.workflow.windows.sentences))
    doc = Document("warm", text)
    # two places of the document: the further evidence spans' kernels are loaded too
    said = "Sentence number 3 says warm words and sentence number 11 says warm words."
    sentence = Sentence(0, said, (Citation(0, "warm", "warm"),))
    report = Report("warm", "warm", "", "responses", (sentence,), {"warm": doc}, "<warmup>", 1)
    with DebugLog(None) as log:
        Judge(settings).judge_batch([report], Assessments(), log)
