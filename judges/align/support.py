"""From the best alignment of a cited sentence to its evidence and score components.

Score components (all in ``[0, 1]``):

* ``norm_score`` = score / (match x answer tokens): 1 when the whole sentence appears verbatim;
* ``answer_coverage`` = matched tokens / answer tokens: how much of the sentence the evidence covers;
* ``evidence_coverage`` = matched tokens / evidence tokens: how much of the evidence is matched.

The status is not decided here: the support judge (:mod:`judges.support.judges`) decides it from
these and the other support features. A citation whose document cannot be resolved is
``missing`` (grade 0) and never reaches a support judge.
"""

from __future__ import annotations

from typing import Optional

from judges.align.passages import DocIndex
from judges.core.records import Judgment

UNDECIDED = ""  # the status of an aligned citation before the support judge decides it


def aligned(
    alignment: tuple,
    n_answer: int,
    doc: DocIndex,
    doc_source: str,
    match: int,
    numbers_missing: tuple[str, ...] = (),
    entities_missing: tuple[str, ...] = (),
    token_spans: Optional[tuple[tuple[int, int], ...]] = None,
) -> Judgment:
    """The evidence span and score components of one citation (status still undecided), with what
    the grounding checks found the document lacks. ``token_spans``: its evidence as document token
    ranges in document order, the best alignment's among them (:mod:`judges.align.spans`; None:
    that one alone)."""
    score, _, _, b0, b1, matches = alignment
    if n_answer == 0:
        return _no_span(
            UNDECIDED,
            doc_source,
            "sentence has no tokens",
            numbers_missing=numbers_missing,
            entities_missing=entities_missing,
        )
    norm = score / (match * n_answer)
    answer_cov = matches / n_answer
    evidence_cov = matches / (b1 - b0) if b1 > b0 else 0.0
    if score > 0:
        char_start = int(doc.tokens.starts[b0])
        char_end = int(doc.tokens.ends[b1 - 1])
        spans = ((char_start, char_end),) if token_spans is None else _chars(doc, token_spans)
    else:
        char_start = char_end = 0
        spans = ()
    return Judgment(
        status=UNDECIDED,
        grade=0,
        score=int(score),
        norm_score=round(norm, 6),
        answer_coverage=round(answer_cov, 6),
        evidence_coverage=round(evidence_cov, 6),
        answer_tokens=n_answer,
        char_start=char_start,
        char_end=char_end,
        evidence=doc.text[char_start:char_end],
        doc_source=doc_source,
        reason="",
        numbers_missing=numbers_missing,
        entities_missing=entities_missing,
        evidence_spans=spans,
    )


def _chars(doc: DocIndex, token_spans: tuple[tuple[int, int], ...]) -> tuple[tuple[int, int], ...]:
    """Document token ranges as character ranges of its text."""
    return tuple((int(doc.tokens.starts[b0]), int(doc.tokens.ends[b1 - 1])) for b0, b1 in token_spans)


def _no_span(status: str, doc_source: str, reason: str, answer_tokens: int = 0, **rest) -> Judgment:
    """A judgment without an evidence span or score components (``rest``: further fields)."""
    return Judgment(
        status=status,
        grade=0,
        score=0,
        norm_score=0.0,
        answer_coverage=0.0,
        evidence_coverage=0.0,
        answer_tokens=answer_tokens,
        char_start=0,
        char_end=0,
        evidence="",
        doc_source=doc_source,
        reason=reason,
        **rest,
    )


def unread(status: str, doc_source: str, reason: str, answer_tokens: int = 0) -> Judgment:
    """A citation that was not aligned (``missing``, ``cross_language``): no span, no score."""
    return _no_span(status, doc_source, reason, answer_tokens, support_status=status)


def missing(reason: str, doc_source: str = "none") -> Judgment:
    return unread("missing", doc_source, reason)
