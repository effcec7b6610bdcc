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

from judges.align.passages import DocIndex
from judges.records import Judgment

UNDECIDED = ""  # the status of an aligned citation before the support judge decides it


def aligned(
    alignment: tuple,
    n_answer: int,
    doc: DocIndex,
    doc_source: str,
    match: int,
    numbers_missing: tuple[str, ...] = (),
    entities_missing: tuple[str, ...] = (),
) -> Judgment:
    """The evidence span and score components of one citation (status still undecided), with what
    the grounding checks found the document lacks."""
    score, _, _, b0, b1, matches = alignment
    if n_answer == 0:
        return Judgment(
            UNDECIDED,
            0,
            0,
            0.0,
            0.0,
            0.0,
            0,
            0,
            0,
            "",
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
    else:
        char_start = char_end = 0
    return Judgment(
        UNDECIDED,
        0,
        int(score),
        round(norm, 6),
        round(answer_cov, 6),
        round(evidence_cov, 6),
        n_answer,
        char_start,
        char_end,
        doc.text[char_start:char_end],
        doc_source,
        "",
        numbers_missing=numbers_missing,
        entities_missing=entities_missing,
    )


def missing(reason: str, doc_source: str = "none") -> Judgment:
    return Judgment("missing", 0, 0, 0.0, 0.0, 0.0, 0, 0, 0, "", doc_source, reason, "missing")
