"""What the judge accumulates per judged citation: the assessment rows and each report's measures.

:class:`Assessments` collects, batch by batch, one row per judged citation (columnar, flushed to
Arrow record batches) and, once a report's citations are all in, that report's measures. The
pipeline hands the resulting table and measures to :mod:`judges.writer`, which writes the output
set; nothing here writes a file. :func:`qrels_doc_id` is the key a citation gets in ``NAME.qrels``.
"""

from __future__ import annotations

import hashlib

import pyarrow as pa

from judges.formats import tables
from judges.measures import NO_GROUNDING, WEIGHT, SentenceGrounding, SentenceResult, evaluate
from judges.records import Judgment, Report
from judges.support.features import FEATURES


def qrels_doc_id(sentence_text: str, citation_id: str) -> str:
    """The qrels doc id of a (sentence, citation) pair: md5 of ``"<sentence>_<citation id>"``
    (the convention of the AutoJudge seed citation judge)."""
    return hashlib.md5(f"{sentence_text}_{citation_id}".encode("utf-8")).hexdigest()


class Assessments:
    """Accumulates judgments into assessment rows (columnar) and per-report measures."""

    def __init__(self) -> None:
        self.per_topic: dict[tuple[str, str], dict[str, float]] = {}
        self._columns: dict[str, list] = {name: [] for name in tables.ASSESSMENT_SCHEMA.names}
        self._batches: list[pa.RecordBatch] = []
        # report -> sentence index -> its citations' statuses and weights
        self._citations: dict[tuple[str, str], dict[int, tuple[list[str], list[float]]]] = {}

    def add(self, rep: Report, sent, c, j: Judgment, qid: str) -> None:
        """One judged citation; ``qid`` is its qrels doc id (:func:`qrels_doc_id`)."""
        cols = self._columns
        weight = WEIGHT[j.status] if j.weight is None else j.weight  # None: not weighed (judges.weights)
        for name, value in (
            ("run_id", rep.run_id),
            ("topic_id", rep.topic_id),
            ("sentence_index", sent.index),
            ("citation_rank", c.rank),
            ("citation", c.raw),
            ("doc_id", c.doc_id),
            ("qrels_doc_id", qid),
            ("status", j.status),
            ("grade", j.grade),
            ("weight", weight),
            ("score", j.score),
            ("norm_score", j.norm_score),
            ("answer_coverage", j.answer_coverage),
            ("evidence_coverage", j.evidence_coverage),
            ("answer_tokens", j.answer_tokens),
            ("char_start", j.char_start),
            ("char_end", j.char_end),
            ("evidence", j.evidence),
            ("doc_source", j.doc_source),
            ("reason", j.reason),
            ("confidence", c.confidence),
            ("sentence", sent.text),
            ("support_status", j.support_status),
            ("p_any", j.p_any),
            ("p_full", j.p_full),
            ("llm_answer", j.llm_answer),
            ("llm_p_yes", j.llm_p_yes),
            ("llm_tokens_in", j.llm_tokens_in),
            ("llm_tokens_out", j.llm_tokens_out),
            ("numbers_missing", list(j.numbers_missing)),
            ("entities_missing", list(j.entities_missing)),
            ("capped", j.capped),
            ("explanation", j.explanation),
        ):
            cols[name].append(value)
        for k, name in enumerate(FEATURES):
            cols[f"f_{name}"].append(j.features[k] if j.features else None)
        statuses, weights = self._citations.setdefault((rep.run_id, rep.topic_id), {}).setdefault(sent.index, ([], []))
        statuses.append(j.status)
        weights.append(weight)

    def finish_report(self, rep: Report, grounding: dict[int, SentenceGrounding]) -> None:
        """The report's measures, once all its citations are added; ``grounding`` per sentence index."""
        key = (rep.run_id, rep.topic_id)
        citations = self._citations.pop(key, {})
        none = ((), ())
        results = []
        for s in rep.sentences:
            statuses, weights = citations.get(s.index, none)
            results.append(
                SentenceResult(
                    len(s.text.strip()), tuple(statuses), grounding.get(s.index, NO_GROUNDING), tuple(weights)
                )
            )
        self.per_topic[key] = evaluate(results)

    def flush_rows(self) -> None:
        if self._columns["run_id"]:
            self._batches.append(pa.RecordBatch.from_pydict(self._columns, schema=tables.ASSESSMENT_SCHEMA))
            self._columns = {name: [] for name in tables.ASSESSMENT_SCHEMA.names}

    def table(self) -> pa.Table:
        self.flush_rows()
        return pa.Table.from_batches(self._batches, schema=tables.ASSESSMENT_SCHEMA)
