"""Multi-span evidence: where a cited sentence draws on two or more separate places of its document.

The best local alignment (:mod:`judges.align.reference`) is one contiguous span. A sentence
whose first half comes from one paragraph and second half from another gets, as its best
alignment, the larger half only. Here the parts of the sentence that alignment left out are
aligned again, in the same document, outside the spans already found:

1. A *gap* is a run of the sentence's tokens outside every span found so far (at first: the
   tokens before and after the best alignment's answer range). A gap is aligned only when at least
   ``MIN_CONTENT`` of its content tokens (:func:`judges.support.lexicon.is_content`) occur in the
   document: the condition of step 3 on the whole gap and document, so skipping the others changes
   nothing but the time (most gaps of a sentence the document does not support are skipped here).
2. It is aligned against the citation's candidate windows (those the best alignment was sought
   in; a short document is one window) with the document tokens of the spans already found cut
   out, so a new span never overlaps an earlier one. Each piece is one pair of the backend's
   ``align_batch`` (the same kernel and the same Python reference as the best alignment); the best
   piece is chosen by the reference's rule 1, document ends counted from the document's start.
3. The result is kept when it scores at least ``MIN_SCORE``, matches at least ``MIN_MATCHES``
   tokens, and at least ``MIN_CONTENT`` content tokens of its answer range occur in its document
   range: a few function words in common ("of the") are no evidence.
4. A kept span splits its gap in two; the new gaps are tried in the next round (at most
   ``MAX_ROUNDS`` rounds, one ``align_batch`` call each, for the whole batch).

Every aligned citation (best score > 0) gets its spans, whatever status the support judge gives
it: a sentence supported by two places is exactly the one whose best alignment covers half of it,
which the judge then often calls partial or unsupported; the spans show what the rest matched.
They are evidence only: the status, probabilities and features stay those of the best alignment.

The result per citation is a tuple of document token ranges ``(start, end)`` in document order,
disjoint, the best alignment's among them; :func:`judges.align.support.aligned` turns them into
character offsets.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from judges.align import reference
from judges.align.packed import Packed

MIN_CONTENT = 3  # content tokens of a gap found in the document (in a further span: in its document range)
MIN_SCORE = 6  # a further span's alignment score (three matches in a row, at the default scoring)
MIN_MATCHES = 3  # its matched tokens
MAX_ROUNDS = 2  # rounds of aligning gaps (a round's kept spans make the next round's gaps)

Span = tuple[int, int, int, int]  # answer token range, document token range (relative to the document)
Gap = tuple[int, int, int]  # a citation, and a range of its sentence's tokens outside its spans


def evidence_spans(
    backend,
    packed: Packed,
    content: np.ndarray,
    cit_a: Sequence[int],
    cit_d: Sequence[int],
    best: list,
    ranges: np.ndarray,
    match: int = reference.MATCH,
    mismatch: int = reference.MISMATCH,
    gap: int = reference.GAP,
) -> list[tuple[tuple[int, int], ...]]:
    """Per citation, its evidence as document token ranges in document order (empty when not aligned).

    ``cit_a``, ``cit_d``: each citation's answer and document slot in ``packed`` (``-1``: not
    aligned); ``best``: its best alignment (document tokens relative to the document, as
    :meth:`judges.judge.Judge._align` gives them); ``ranges``: its candidate windows, ``(n, k, 2)``
    (``-1`` padded); ``content``: per vocabulary id, 1 for a content token.
    """
    a_offsets = packed.a_offsets
    found: dict[int, list[Span]] = {}  # per aligned citation: its spans, the best alignment's first
    todo: list[Gap] = []
    for c, (score, a0, a1, b0, b1, _) in enumerate(best):
        if score <= 0 or cit_d[c] < 0:
            continue
        found[c] = [(a0, a1, b0, b1)]
        if score >= MIN_SCORE:  # no part of the sentence scores more than the whole in the same windows
            todo += [(c, 0, a0), (c, a1, int(a_offsets[cit_a[c] + 1] - a_offsets[cit_a[c]]))]
    in_docs = _DocumentTokens(packed, len(content))
    scoring = (match, mismatch, gap)
    for _ in range(MAX_ROUNDS):
        todo = [g for g, n in zip(todo, in_docs.content_found(packed, content, cit_a, cit_d, todo)) if n >= MIN_CONTENT]
        if not todo:
            break
        todo = _keep(found, todo, _align_gaps(backend, packed, content, cit_a, cit_d, ranges, found, todo, scoring))
    out: list[tuple[tuple[int, int], ...]] = [()] * len(best)
    for c, spans in found.items():
        out[c] = tuple(sorted((b0, b1) for _, _, b0, b1 in spans))
    return out


class _DocumentTokens:
    """Which token ids each document of a packed batch holds (sorted keys ``document * n_ids + id``)."""

    def __init__(self, packed: Packed, n_ids: int):
        self.n_ids = n_ids
        doc_of = np.repeat(np.arange(len(packed.d_base) - 1, dtype=np.int64), np.diff(packed.d_base))
        self.keys = np.unique(doc_of * n_ids + packed.d_tokens)

    def content_found(self, packed: Packed, content, cit_a, cit_d, gaps: list[Gap]) -> np.ndarray:
        """Per gap: how many of its content tokens occur in its citation's document."""
        if not gaps or not len(self.keys):
            return np.zeros(len(gaps), dtype=np.int64)
        c, lo, hi = (np.array(x, dtype=np.int64) for x in zip(*gaps))
        lengths = hi - lo
        ends = np.cumsum(lengths)
        # every gap's token positions in packed.a_tokens, one after the other
        at = np.repeat(packed.a_offsets[np.asarray(cit_a, dtype=np.int64)[c]] + lo - (ends - lengths), lengths)
        tokens = packed.a_tokens[at + np.arange(ends[-1] if len(ends) else 0)]
        keys = np.repeat(np.asarray(cit_d, dtype=np.int64)[c], lengths) * self.n_ids + tokens
        hit = self.keys[np.minimum(np.searchsorted(self.keys, keys), len(self.keys) - 1)] == keys
        counted = np.concatenate([[0], np.cumsum(hit & (content[tokens] > 0))])
        return counted[ends] - counted[ends - lengths]


def _keep(found: dict[int, list[Span]], gaps: list[Gap], aligned: list) -> list[Gap]:
    """Add each gap's kept span to its citation's spans, best score first (a span that overlaps one
    kept in this round is not added: its gap is tried again, without that part of the document);
    the gaps to try next: the parts of each gap its span left out."""
    order = sorted(range(len(gaps)), key=lambda g: -aligned[g][0] if aligned[g] is not None else 0)
    added: dict[int, list[tuple[int, int]]] = {}
    again: list[Gap] = []
    for g in order:
        if aligned[g] is None:
            continue
        (c, lo, hi), (_, span) = gaps[g], aligned[g]
        b0, b1 = span[2], span[3]
        if any(b0 < y1 and y0 < b1 for y0, y1 in added.get(c, ())):
            again.append(gaps[g])
            continue
        added.setdefault(c, []).append((b0, b1))
        found[c].append(span)
        again += [(c, lo, span[0]), (c, span[1], hi)]
    return again


def _pieces(windows: np.ndarray, used: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The token ranges of ``windows`` (rows ``lo, hi``; ``-1``: none) outside the ranges ``used``."""
    used = sorted(used)
    out = []
    for lo, hi in windows.tolist():
        if hi < 0:
            continue
        start = lo
        for u0, u1 in used:
            if u1 <= start:
                continue
            if u0 >= hi:
                break
            if u0 > start:
                out.append((start, u0))
            start = u1
            if start >= hi:
                break
        if start < hi:
            out.append((start, hi))
    return out


def _align_gaps(backend, packed: Packed, content, cit_a, cit_d, ranges, found, gaps: list[Gap], scoring) -> list:
    """Per gap: ``(score, span)`` of its best alignment in its citation's windows outside the spans
    found, when it is kept (``MIN_SCORE``, ``MIN_MATCHES``, ``MIN_CONTENT``), else None."""
    a_tokens, a_offsets, d_tokens, d_base = packed
    sub, owner, pieces = [], [], []
    for g, (c, lo, hi) in enumerate(gaps):
        base = a_offsets[cit_a[c]]
        sub.append(a_tokens[base + lo : base + hi])
        got = _pieces(ranges[c], [(b0, b1) for _, _, b0, b1 in found[c]])
        owner += [g] * len(got)
        pieces += got
    out: list = [None] * len(gaps)
    if not pieces:
        return out
    s_offsets = np.zeros(len(sub) + 1, dtype=np.int64)
    np.cumsum([len(x) for x in sub], out=s_offsets[1:])
    owner = np.array(owner, dtype=np.int64)
    rel = np.array(pieces, dtype=np.int64)  # document token ranges relative to each document
    shift = d_base[np.asarray(cit_d, dtype=np.int64)[[gaps[g][0] for g in owner.tolist()]]]
    res = backend.align_batch(
        np.concatenate(sub), s_offsets, owner, d_tokens, rel[:, 0] + shift, rel[:, 1] + shift, *scoring
    )
    # Best per gap: the reference's rule 1 across its pieces (document ends from the document's start).
    order = np.lexsort((*reversed(reference.end_cell_order(res[:, 0], res[:, 2], res[:, 4] + rel[:, 0])), owner))
    first = order[np.unique(owner[order], return_index=True)[1]]
    for k in first.tolist():
        score, x0, x1, y0, y1, matches = res[k].tolist()
        if score < MIN_SCORE or matches < MIN_MATCHES:
            continue
        g = int(owner[k])
        b = int(shift[k] + rel[k, 0])  # the piece's start in the packed document tokens
        in_range = set(d_tokens[b + y0 : b + y1].tolist())
        if sum(1 for t in sub[g][x0:x1].tolist() if content[t] and t in in_range) < MIN_CONTENT:
            continue
        c, lo, _ = gaps[g]
        out[g] = (score, (lo + x0, lo + x1, int(rel[k, 0]) + y0, int(rel[k, 0]) + y1))
    return out
