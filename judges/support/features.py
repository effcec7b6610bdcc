"""Support features of a (sentence, cited document) pair: the specification and its reference.

Alignment's ``norm_score`` divides the best local alignment by every token of the sentence, so
a faithful paraphrase, or an answer entry of several sentences of which each is supported by a
different part of the document, scores low. These features describe what a person checks
instead: are the sentence's content words in the document (in any form), are its word pairs,
is every clause supported or only one.

Every feature is in ``[0, 1]`` except the last three, and depends only on the sentence and the
cited document (never on other citations, runs or documents), so a judgment does not change with
what is judged alongside it. Terms (:mod:`judges.support.lexicon`): a *stem* is the Snowball
stem of a token, a *content token* one that is not a stopword or a lone symbol.

* ``norm_score``, ``answer_coverage``: from the best alignment (:mod:`judges.align.support`);
* ``content_recall``: share of the sentence's content tokens (with repeats) whose stem occurs in
  the document; 0 when the sentence has no content token;
* ``bigram_recall``: share of the sentence's adjacent token pairs whose stem pair occurs
  adjacently in the document; 0 for a sentence of fewer than two tokens;
* ``clause_min_recall``, ``clause_max_recall``: ``content_recall`` of each clause with at least
  one content token, its minimum and maximum (0 and 0 when there is none). Clauses are cut by
  :data:`CLAUSE_BREAK`: sentence punctuation or ``;``/``:`` followed by a space, or a comma
  followed by a connective. A multi-sentence answer entry is supported only if every part is
  (the minimum); partly if some part is (the maximum);
* ``log_answer_tokens``: ``ln(1 + tokens of the sentence)``;
* ``numbers_missing``, ``entities_missing``: how many of the sentence's numbers and named
  entities the document does not state (:mod:`judges.engine.grounder`).

:func:`lexical_features_reference` is the readable definition of the four lexical features;
the Numba kernel (:func:`judges.support.kernel.lexical_features`) must agree with it exactly
(the tests check this).
"""

from __future__ import annotations

import re

import numpy as np


LEXICAL: tuple[str, ...] = ("content_recall", "bigram_recall", "clause_min_recall", "clause_max_recall")

CLAUSE_BREAK = re.compile(
    r"[.!?;:](?=\s)|,(?=\s+(?:and|but|which|while|whereas|although|though|because|so|yet)\b)", re.IGNORECASE
)


def clause_ids(texts: list[str], starts: list[np.ndarray]) -> np.ndarray:
    """The clause index (0, 1, ... within its text) of every token of ``texts``, concatenated
    (``starts``: each text's token start offsets). A token belongs to the clause after the last
    break that ends at or before its start. One regex pass over the texts joined by newlines:
    a break found at the end of one text lies after all of its tokens and before the next
    text's start, so it changes no index."""
    if not texts:
        return np.zeros(0, dtype=np.int32)
    joined = "\n".join(texts)
    breaks = np.array([m.end() for m in CLAUSE_BREAK.finditer(joined)], dtype=np.int64)
    text_starts = np.zeros(len(texts), dtype=np.int64)
    np.cumsum([len(t) + 1 for t in texts[:-1]], out=text_starts[1:])
    lengths = np.array([len(s) for s in starts], dtype=np.int64)
    token_starts = np.concatenate([np.asarray(s, dtype=np.int64) for s in starts]) + np.repeat(text_starts, lengths)
    before = np.repeat(np.searchsorted(breaks, text_starts, side="right"), lengths)
    return (np.searchsorted(breaks, token_starts, side="right") - before).astype(np.int32)


def _recall(stems: list[int], content: list[int], doc_stems: set) -> tuple[int, int]:
    found = total = 0
    for s, c in zip(stems, content):
        if c:
            total += 1
            found += s in doc_stems
    return found, total


def lexical_features_reference(answer_stems, answer_content, answer_clauses, doc_stems_seq) -> tuple[float, ...]:
    """The four lexical features (:data:`LEXICAL`) of one sentence against one document.

    ``answer_stems``/``answer_content``/``answer_clauses``: per sentence token, its stem id,
    content flag and clause index; ``doc_stems_seq``: the document's stem ids in order.
    """
    a = [int(x) for x in answer_stems]
    content = [int(x) for x in answer_content]
    clauses = [int(x) for x in answer_clauses]
    doc = [int(x) for x in doc_stems_seq]
    doc_set = set(doc)
    found, total = _recall(a, content, doc_set)
    content_recall = found / total if total else 0.0
    doc_pairs = set(zip(doc, doc[1:]))
    pairs = list(zip(a, a[1:]))
    bigram_recall = sum(p in doc_pairs for p in pairs) / len(pairs) if pairs else 0.0
    recalls = []
    for k in sorted(set(clauses)):
        idx = [i for i, c in enumerate(clauses) if c == k]
        f, t = _recall([a[i] for i in idx], [content[i] for i in idx], doc_set)
        if t:
            recalls.append(f / t)
    return (content_recall, bigram_recall, min(recalls, default=0.0), max(recalls, default=0.0))


def lexical_features_batch_reference(
    a_stems, a_content, a_clause, a_offsets, d_stems, d_base, cit_a, cit_d
) -> np.ndarray:
    """:func:`lexical_features_reference` over a packed batch (the layout of the Numba kernel):
    ``(n, 4)`` float64, zeros for citations with ``cit_d < 0``."""
    out = np.zeros((len(cit_a), len(LEXICAL)), dtype=np.float64)
    for c in range(len(cit_a)):
        d = int(cit_d[c])
        if d < 0:
            continue
        a0, a1 = a_offsets[cit_a[c]], a_offsets[cit_a[c] + 1]
        out[c] = lexical_features_reference(
            a_stems[a0:a1], a_content[a0:a1], a_clause[a0:a1], d_stems[d_base[d] : d_base[d + 1]]
        )
    return out
