"""From the best alignment of a cited sentence to a support judgment.

Score components (all in ``[0, 1]``):

* ``norm_score`` = score / (match x answer tokens): 1 when the whole sentence appears verbatim;
* ``answer_coverage`` = matched tokens / answer tokens: how much of the sentence the evidence covers;
* ``evidence_coverage`` = matched tokens / evidence tokens: how much of the evidence is matched.

Status from ``norm_score``: ``supported`` at or above ``support.supported``, ``partial`` at or
above ``support.partial``, else ``unsupported``; a citation whose document cannot be resolved is
``missing``. Grades: supported 2, partial 1, unsupported and missing 0.
"""

from __future__ import annotations

from judges.align.passages import DocIndex
from judges.config import Workflow
from judges.records import STATUS_GRADE, Judgment


def judge(alignment: tuple, n_answer: int, doc: DocIndex, doc_source: str, workflow: Workflow) -> Judgment:
    score, _, _, b0, b1, matches = alignment
    if n_answer == 0:
        return Judgment("unsupported", 0, 0, 0.0, 0.0, 0.0, 0, 0, 0, "", doc_source, "sentence has no tokens", "unsupported")
    norm = score / (workflow.alignment.match * n_answer)
    answer_cov = matches / n_answer
    evidence_cov = matches / (b1 - b0) if b1 > b0 else 0.0
    if score > 0:
        char_start = int(doc.tokens.starts[b0])
        char_end = int(doc.tokens.ends[b1 - 1])
    else:
        char_start = char_end = 0
    thresholds = workflow.support
    if norm >= thresholds.supported:
        status = "supported"
    elif norm >= thresholds.partial:
        status = "partial"
    else:
        status = "unsupported"
    return Judgment(
        status,
        STATUS_GRADE[status],
        int(score),
        round(norm, 6),
        round(answer_cov, 6),
        round(evidence_cov, 6),
        n_answer,
        char_start,
        char_end,
        doc.text[char_start:char_end],
        doc_source,
        "",  # the status follows from norm_score and the workflow's thresholds
        status,
    )


def missing(reason: str, doc_source: str = "none") -> Judgment:
    return Judgment("missing", 0, 0, 0.0, 0.0, 0.0, 0, 0, 0, "", doc_source, reason, "missing")
