"""Multi-span evidence: where a cited sentence draws on two or more separate places of its document.

The best local alignment (:mod:`judges.align.reference`) is one contiguous span. A sentence
whose first half comes from one paragraph and second half from another gets, as its best
alignment, the larger half only. Here the parts of the sentence that alignment left out are
aligned again, in the same document, outside the spans already found:

1. A *gap* is a run of the sentence's tokens outside every span found so far (at first: the
   tokens before and after the best alignment's answer range, when that alignment scores at least
   ``MIN_SCORE``: a sentence that matches no better has no further span to find). A gap
   is aligned only when at least ``MIN_CONTENT`` of its content tokens
   (:func:`judges.support.lexicon.is_content`) occur in the pieces of step 2: the condition of
   step 3 on the whole gap and pieces, so skipping the others changes nothing but the time (the
   backend's ``content_found``: a Numba kernel beside its reference).
2. It is aligned against the citation's candidate windows (those the best alignment was sought
   in, merged where they overlap; a short document is one window) with the document tokens of the
   spans already found cut out, so a new span never overlaps an earlier one. Each piece is one pair
   of the backend's ``align_batch`` (the same kernel and the same Python reference as the best
   alignment); the best piece is chosen by the reference's rule 1, document ends counted from the
   document's start.
3. The result is kept when it scores at least ``MIN_SCORE``, matches at least ``MIN_MATCHES``
   tokens, and at least ``MIN_CONTENT`` content tokens of its answer range occur in its document
   range: a few function words in common ("of the") are no evidence.
4. A kept span splits its gap in two; the new gaps are tried in the next round (at most
   ``MAX_ROUNDS`` rounds, one ``align_batch`` call each, for the whole batch).

Every aligned citation (best score > 0) gets its spans, whatever status the support judge gives
it: a sentence supported by two places is exactly the one whose best alignment covers half of it,
which the judge then often calls partial or unsupported; the spans show what the rest matched.
They are evidence only: the status, probabilities and features stay those of the best alignment.

The work is done for the whole batch at once, in arrays (one ``content_found`` and one
``align_batch`` call per round); only the spans kept are handled one by one. The result, for the
citations with two or more spans, is a tuple of document token ranges ``(start, end)`` in
document order, disjoint, the best alignment's among them (every other aligned citation has its
best alignment's span alone); :func:`judges.align.support.aligned` turns them into character
offsets.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from judges.align import reference
from judges.align.packed import Packed

MIN_CONTENT = 3  # content tokens of a gap found in its pieces (of a further span: in its document range)
MIN_SCORE = 6  # a further span's alignment score (three matches in a row, at the default scoring)
MIN_MATCHES = 3  # its matched tokens
MAX_ROUNDS = 2  # rounds of aligning gaps (a round's kept spans make the next round's gaps)

TokenSpans = tuple[tuple[int, int], ...]  # document token ranges, relative to the document


def evidence_spans(
    backend,
    packed: Packed,
    content: np.ndarray,
    cit_a: Sequence[int] | np.ndarray,
    cit_d: Sequence[int] | np.ndarray,
    best: list | np.ndarray,
    ranges: np.ndarray,
    scoring: reference.Scoring = reference.Scoring(),
) -> dict[int, TokenSpans]:
    """The citations with two or more evidence spans, and their spans in document order.

    ``cit_a``, ``cit_d``: each citation's answer and document slot in ``packed`` (``-1``: not
    aligned); ``best``: its best alignment (document tokens relative to the document, as
    :meth:`judges.engine.judge.Judge._align` gives them); ``ranges``: its candidate windows, ``(n, k, 2)``
    (``-1`` padded); ``content``: per vocabulary id, 1 for a content token; ``scoring``: the alignment's.
    """
    best = np.asarray(best, dtype=np.int64).reshape(-1, 6)
    cit_a, cit_d = np.asarray(cit_a, dtype=np.int64), np.asarray(cit_d, dtype=np.int64)
    start = np.nonzero((best[:, 0] >= MIN_SCORE) & (cit_d >= 0))[0]
    n_tokens = np.diff(packed.a_offsets)[cit_a[start]]
    # the gaps before and after each best alignment: (citation, answer token range)
    gaps: tuple[np.ndarray, ...] = np.concatenate([start, start]), np.concatenate([0 * start, best[start, 2]])
    gaps += (np.concatenate([best[start, 1], n_tokens]),)
    used = [start, best[start, 3], best[start, 4]]  # every span found: citation, document token range
    extra: dict[int, list[tuple[int, int]]] = {}
    for _ in range(MAX_ROUNDS):
        wide = gaps[2] - gaps[1] >= MIN_CONTENT
        gaps = tuple(x[wide] for x in gaps)
        if not len(gaps[0]):
            break
        kept = _align_gaps(backend, packed, content, cit_a, cit_d, ranges, used, gaps, scoring)
        gaps = _keep(kept, gaps, used, extra)
    return {c: tuple(sorted([(int(best[c, 3]), int(best[c, 4])), *spans])) for c, spans in extra.items()}


def _align_gaps(backend, packed: Packed, content, cit_a, cit_d, ranges, used, gaps, scoring) -> list:
    """The gaps' spans worth keeping: ``(score, gap, answer range, document range)`` rows, one per
    gap at most (``MIN_SCORE``, ``MIN_MATCHES``, ``MIN_CONTENT``)."""
    g_c, g_lo, g_hi = gaps
    p_c, p_lo, p_hi = _pieces(ranges, np.unique(g_c), *used)
    first = np.searchsorted(p_c, g_c)
    owner, offset = _expand(np.searchsorted(p_c, g_c, side="right") - first)  # per (gap, piece) pair
    piece = first[owner] + offset
    a_lo = packed.a_offsets[cit_a[g_c]] + g_lo  # the gaps' tokens in packed.a_tokens
    d_at = packed.d_base[cit_d[p_c]]  # the pieces' documents in packed.d_tokens
    p_first = np.searchsorted(owner, np.arange(len(g_c) + 1))
    found = backend.content_found(
        packed.a_tokens, a_lo, a_lo + g_hi - g_lo, content, packed.d_tokens, p_first, d_at[piece] + p_lo[piece],
        d_at[piece] + p_hi[piece],
    )  # fmt: skip
    alive = found >= MIN_CONTENT
    if not alive.any():
        return []
    gi = np.nonzero(alive)[0]
    lengths = g_hi[gi] - g_lo[gi]
    s_offsets = np.concatenate([[0], np.cumsum(lengths)])
    at, step = _expand(lengths)
    sub = packed.a_tokens[a_lo[gi][at] + step]  # the alive gaps' tokens, one after the other
    pairs = alive[owner]
    pair_g, piece = (np.cumsum(alive) - 1)[owner[pairs]], piece[pairs]
    b_lo, rel = d_at[piece] + p_lo[piece], p_lo[piece]
    res = backend.align_batch(sub, s_offsets, pair_g, packed.d_tokens, b_lo, d_at[piece] + p_hi[piece], *scoring)
    # Best per gap: the reference's rule 1 across its pieces (document ends from the document's start).
    order = np.lexsort((*reversed(reference.end_cell_order(res[:, 0], res[:, 2], res[:, 4] + rel)), pair_g))
    top = order[np.unique(pair_g[order], return_index=True)[1]]
    top = top[(res[top, 0] >= MIN_SCORE) & (res[top, 5] >= MIN_MATCHES)]
    score, x0, x1, y0, y1 = (res[top, i] for i in range(5))
    g = pair_g[top]
    in_range = backend.content_found(
        sub, s_offsets[g] + x0, s_offsets[g] + x1, content, packed.d_tokens, np.arange(len(top) + 1),
        b_lo[top] + y0, b_lo[top] + y1,
    )  # fmt: skip
    ok = in_range >= MIN_CONTENT
    g = gi[g[ok]]
    a0, a1 = g_lo[g] + x0[ok], g_lo[g] + x1[ok]  # in the sentence
    b0, b1 = rel[top][ok] + y0[ok], rel[top][ok] + y1[ok]  # in the document
    return list(zip(*(x.tolist() for x in (score[ok], g, a0, a1, b0, b1))))


def _keep(kept: list, gaps, used: list, extra: dict) -> tuple:
    """Add the kept spans, best score first, to ``used`` and ``extra`` (a span that overlaps one kept
    in this round is not added: its gap is tried again, without that part of the document); the
    gaps to try next: the parts of each gap its span left out."""
    g_c, g_lo, g_hi = (x.tolist() for x in gaps)
    added: dict[int, list[tuple[int, int]]] = {}
    again: list[tuple[int, int, int]] = []
    for _, g, a0, a1, b0, b1 in sorted(kept, key=lambda k: -k[0]):
        c = g_c[g]
        if any(b0 < y1 and y0 < b1 for y0, y1 in added.get(c, ())):
            again.append((c, g_lo[g], g_hi[g]))
            continue
        added.setdefault(c, []).append((b0, b1))
        extra.setdefault(c, []).append((b0, b1))
        again += [(c, g_lo[g], a0), (c, a1, g_hi[g])]
    new = [(c, b0, b1) for c, spans in added.items() for b0, b1 in spans]
    for i, column in enumerate(zip(*new)):
        used[i] = np.concatenate([used[i], column])
    return tuple(np.array(x, dtype=np.int64) for x in zip(*again)) if again else (np.zeros(0, np.int64),) * 3


def _expand(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For groups of ``counts`` items: each item's group and its index within the group."""
    counts = np.asarray(counts, dtype=np.int64)
    group = np.repeat(np.arange(len(counts)), counts)
    return group, np.arange(len(group)) - np.repeat(np.cumsum(counts) - counts, counts)


def _pieces(ranges: np.ndarray, cits: np.ndarray, u_c, u_lo, u_hi) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The pieces of citations ``cits`` (sorted): their candidate windows (``ranges``), merged where
    they overlap, less the spans ``used`` (citation ``u_c``, document token range ``u_lo:u_hi``), as
    ``(citation, lo, hi)`` arrays sorted by citation and position.

    Every citation gets its own stretch of one line (``citation * big + token``), where the pieces
    are the stretches inside a window and outside every used span: a sweep over the boundaries.
    """
    windows = ranges[cits].reshape(-1, 2)
    w_c = np.repeat(cits, ranges.shape[1])
    real = windows[:, 1] > windows[:, 0]  # (-1, -1): no window
    big = int(ranges[..., 1].max(initial=0)) + 1
    wl, wh = w_c[real] * big + windows[real, 0], w_c[real] * big + windows[real, 1]
    order = np.argsort(wl, kind="stable")
    wl, wh = wl[order], wh[order]
    reach = np.maximum.accumulate(wh)
    first = np.nonzero(np.concatenate([[True], wl[1:] > reach[:-1]]))[0]  # a window that starts a merged one
    wl, wh = wl[first], np.maximum.reduceat(wh, first)
    mine = np.isin(u_c, cits)
    ul, uh = u_c[mine] * big + u_lo[mine], u_c[mine] * big + u_hi[mine]
    points, at = np.unique(np.concatenate([wl, wh, ul, uh]), return_inverse=True)
    n_w, n_u = len(wl), len(ul)
    in_window = np.cumsum(np.bincount(at, np.repeat([1, -1, 0], [n_w, n_w, 2 * n_u]), len(points)))
    in_used = np.cumsum(np.bincount(at, np.repeat([0, 1, -1], [2 * n_w, n_u, n_u]), len(points)))
    seg = np.nonzero((in_window[:-1] > 0.5) & (in_used[:-1] < 0.5))[0]
    lo, hi = points[seg], points[seg + 1]
    c = lo // big
    return c, lo - c * big, hi - c * big
