"""Reference Smith-Waterman local alignment: the specification of what citejudge computes.

Plain Python, written to be read. The Numba kernels in :mod:`judges.align.kernel` must return
exactly the same tuple for every input; the equivalence tests compare whole tuples.

Scoring (linear gaps)::

    H[i][0] = H[0][j] = 0
    H[i][j] = max(0,
                  H[i-1][j-1] + (match if a[i-1] == b[j-1] else mismatch),   # diagonal
                  H[i-1][j]   + gap,                                         # up: answer token unaligned
                  H[i][j-1]   + gap)                                         # left: document token unaligned

``a`` is the answer (cited sentence) and ``b`` the document (or a passage window of it), both
sequences of integer token ids. Indices below are 0-based token positions, spans half-open.

Total tie-break order (what makes the result unique):

1. End cell: the highest ``H``; among equal scores the smallest document end ``j``, then the
   smallest answer end ``i`` (the first maximum met when scanning document positions outer,
   answer positions inner).
2. Path: walking back from the end cell, each cell's predecessor is chosen among the moves that
   produce its value in the order diagonal, up, left. The path starts where a diagonal step
   leaves a cell whose ``H`` is 0. A cell whose value is 0 is never on a path.
3. ``matches`` counts the diagonal steps on that path whose tokens are equal.

The result is ``Alignment(score, a_start, a_end, b_start, b_end, matches)``; when no cell scores
above 0 (including empty inputs) it is ``Alignment(0, 0, 0, 0, 0, 0)``.
"""

from __future__ import annotations

from typing import NamedTuple, Sequence

MATCH = 2
MISMATCH = -1
GAP = -1


class Scoring(NamedTuple):
    """The alignment's scores (``alignment.match``, ``.mismatch``, ``.gap``), in the order the backends take them."""

    match: int = MATCH
    mismatch: int = MISMATCH
    gap: int = GAP


class Alignment(NamedTuple):
    """Best local alignment of an answer against a document, as half-open token spans."""

    score: int
    a_start: int
    a_end: int
    b_start: int
    b_end: int
    matches: int


EMPTY = Alignment(0, 0, 0, 0, 0, 0)


def end_cell_order(score, a_end, b_end) -> tuple:
    """Rule 1 as sort keys, most significant first, smallest best: ``(-score, b_end, a_end)``.

    :func:`smith_waterman` meets the end cells in this order (document outer, answer inner, the
    first maximum kept); the judge picks the best of a citation's candidate windows by the same
    keys, with document ends counted from the document's start. Ints and numpy arrays alike.
    """
    return (-score, b_end, a_end)


def smith_waterman(
    a: Sequence[int],
    b: Sequence[int],
    match: int = MATCH,
    mismatch: int = MISMATCH,
    gap: int = GAP,
) -> Alignment:
    """Align answer tokens ``a`` against document tokens ``b`` (full matrix, traceback)."""
    if gap > 0:
        raise ValueError("gap must be <= 0 (a positive gap makes local alignment unbounded)")
    n, m = len(a), len(b)
    if n == 0 or m == 0:
        return EMPTY
    H = [[0] * (m + 1) for _ in range(n + 1)]
    best, best_i, best_j = 0, 0, 0
    # Document outer, answer inner: the first maximum met is the tie-break winner (rule 1).
    for j in range(1, m + 1):
        for i in range(1, n + 1):
            diag = H[i - 1][j - 1] + (match if a[i - 1] == b[j - 1] else mismatch)
            up = H[i - 1][j] + gap
            left = H[i][j - 1] + gap
            h = max(0, diag, up, left)
            H[i][j] = h
            if h > best:
                best, best_i, best_j = h, i, j
    if best == 0:
        return EMPTY

    # Trace back with the predecessor order diagonal, up, left (rule 2).
    i, j, matches = best_i, best_j, 0
    while True:
        h = H[i][j]
        equal = a[i - 1] == b[j - 1]
        if h == H[i - 1][j - 1] + (match if equal else mismatch):
            matches += equal
            i, j = i - 1, j - 1
            if H[i][j] == 0:
                break
        elif h == H[i - 1][j] + gap:
            i -= 1
        else:
            j -= 1
    return Alignment(best, i, best_i, j, best_j, matches)


def content_found(tokens: Sequence[int], ranges: Sequence[Sequence[int]], content: Sequence[int]) -> int:
    """How many of ``tokens`` carry content (``content[t]`` non-zero) and occur in one of the token
    sequences ``ranges`` (multi-span evidence, :mod:`judges.align.spans`: the content words of a
    part of the sentence found in the document ranges it may align to)."""
    present = {t for r in ranges for t in r}
    return sum(1 for t in tokens if content[t] and t in present)
