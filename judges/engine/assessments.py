"""What the judge accumulates per judged citation: the assessment rows and each report's measures.

:class:`Assessments` collects, batch by batch, one row per judged citation (a tuple, the batch's
rows turned into an Arrow record batch at once) and, once a report's citations are all in, that report's measures. The
pipeline hands the resulting table and measures to :mod:`judges.session.writer`, which writes the output
set; nothing here writes a file. :func:`qrels_doc_id` is the key a citation gets in ``NAME.qrels``.
"""

from __future__ import annotations

import hashlib
from typing import Any, Sequence

import pyarrow as pa

from judges.formats import tables
from judges.core.measures import NO_GROUNDING, SentenceGrounding, SentenceResult, evaluate
from judges.core.vocabulary import WEIGHT
from judges.core.records import Judgment, Report
from judges.core.vocabulary import FEATURES


def qrels_doc_id(sentence_text: str, citation_id: str) -> str:
    """The qrels doc id of a (sentence, citation) pair: md5 of ``"<sentence>_<citation id>"``
    (the convention of the AutoJudge seed citation judge)."""
    return hashlib.md5(f"{sentence_text}_{citation_id}".encode("utf-8")).hexdigest()


# An assessment row's values that come from the report, the sentence and the citation (the rest
# are its Judgment's fields, and its weight as WEIGHTED_PRECISION counts it).
_CONTEXT = (
    "run_id",
    "topic_id",
    "sentence_index",
    "citation_rank",
    "citation",
    "doc_id",
    "qrels_doc_id",
    "confidence",
    "sentence",
    "weight",
)


class Assessments:
    """Accumulates judgments into assessment rows (tuples, turned into columns a batch at a time) and
    per-report measures."""

    def __init__(self) -> None:
        self.per_topic: dict[tuple[str, str], dict[str, float]] = {}
        self._rows: list[tuple] = []  # per judged citation: _CONTEXT's values, then its Judgment
        self._batches: list[pa.RecordBatch] = []
        # report -> sentence index -> its citations' statuses and weights
        self._citations: dict[tuple[str, str], dict[int, tuple[list[str], list[float]]]] = {}

    def add(self, rep: Report, sent, c, j: Judgment, qid: str) -> None:
        """One judged citation; ``qid`` is its qrels doc id (:func:`qrels_doc_id`)."""
        weight = WEIGHT[j.status] if j.weight is None else j.weight  # None: not weighed (judges.engine.weights)
        self._rows.append(
            (rep.run_id, rep.topic_id, sent.index, c.rank, c.raw, c.doc_id, qid, c.confidence, sent.text, weight, j)
        )
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
        """The rows added so far become one record batch: transposed into columns at once."""
        if not self._rows:
            return
        *context, judgments = zip(*self._rows)
        columns: dict[str, Sequence[Any]] = dict(zip(Judgment._fields, zip(*judgments)))
        columns.update(zip(_CONTEXT, context))  # the weight as counted, not the Judgment's (None: not weighed)
        features = columns.pop("features")
        for k, name in enumerate(FEATURES):
            columns[f"f_{name}"] = [f[k] if f else None for f in features]
        self._batches.append(pa.RecordBatch.from_pydict(columns, schema=tables.ASSESSMENT_SCHEMA))
        self._rows = []

    def table(self) -> pa.Table:
        self.flush_rows()
        return pa.Table.from_batches(self._batches, schema=tables.ASSESSMENT_SCHEMA)
