"""The lexical prefilter: which passage windows of a long document a citation is aligned against.

Specification (the readable reference functions below; the Numba versions must agree exactly):

* A token's weight in a document is its IDF over that document's windows,
  ``round(1000 * ln(1 + W / df))`` with ``W`` windows and ``df`` the number of windows that
  contain the token. Integer weights make every sum exact, so no summation order can change a
  candidate. IDF is computed within the document, so a judgment never depends on which other
  documents or runs are judged alongside it.
* A window's score for an answer is the sum of the weights of the distinct answer tokens it
  contains.
* The candidates are the ``k`` best windows: higher score first, then the earlier window. A
  document with at most ``k`` windows has all of them as candidates, in order.
"""

from __future__ import annotations

import numpy as np
from numba import njit

IDF_SCALE = 1000


# -- reference ---------------------------------------------------------------------------------
def window_df_reference(ids: np.ndarray, windows: np.ndarray) -> dict[int, int]:
    """How many windows contain each token id."""
    df: dict[int, int] = {}
    for lo, hi in windows.tolist():
        for t in set(ids[lo:hi].tolist()):
            df[t] = df.get(t, 0) + 1
    return df


def candidates_reference(answer_ids, doc_ids, weights, windows, k: int) -> list[int]:
    n_windows = len(windows)
    if n_windows <= k:
        return list(range(n_windows))
    answer = set(answer_ids)
    scores = []
    for lo, hi in windows.tolist():
        present = {t: int(weights[p]) for p in range(lo, hi) if (t := int(doc_ids[p])) in answer}
        scores.append(sum(present.values()))
    return sorted(range(n_windows), key=lambda w: (-scores[w], w))[:k]


# -- shared step: weights from document frequencies ---------------------------------------------
def idf_weights(ids: np.ndarray, windows: np.ndarray, fast: bool) -> np.ndarray:
    """Per token position, the weight of the token there (int16: 1000 * ln(1 + W) < 32768 for any
    document with fewer than 10**14 windows; sums are taken in int64)."""
    n_windows = len(windows)
    uniq, local = np.unique(ids, return_inverse=True)
    if fast:
        df = _window_df(local.astype(np.int64), windows, len(uniq))
    else:
        counts = window_df_reference(local, windows)
        df = np.array([counts.get(i, 0) for i in range(len(uniq))], dtype=np.int64)
    per_token = np.rint(IDF_SCALE * np.log1p(n_windows / np.maximum(df, 1))).astype(np.int16)
    return per_token[local]


@njit(cache=True)
def _window_df(local, windows, n_local):
    df = np.zeros(n_local, np.int64)
    last = np.full(n_local, -1, np.int64)
    for w in range(windows.shape[0]):
        for p in range(windows[w, 0], windows[w, 1]):
            t = local[p]
            if last[t] != w:
                last[t] = w
                df[t] += 1
    return df


# -- batch kernel ------------------------------------------------------------------------------
@njit(cache=True)
def candidates_batch(a_tokens, a_offsets, cit_a, d_tokens, d_weights, win_lo, win_hi, cit_w0, cit_w1, k, vocab_size):
    """Candidate windows of many citations at once.

    Citation ``c`` has answer ``a_tokens[a_offsets[cit_a[c]]:a_offsets[cit_a[c] + 1]]`` and its
    document's windows are rows ``cit_w0[c]:cit_w1[c]`` of ``win_lo``/``win_hi`` (positions in
    ``d_tokens``/``d_weights``). Returns ``(n, k)`` window indices relative to the document,
    best first, ``-1`` where the document has fewer than ``k`` windows.
    """
    n = cit_a.shape[0]
    out = np.full((n, k), -1, np.int64)
    mark = np.full(vocab_size, -1, np.int64)  # answer stamp per token id
    seen = np.full(vocab_size, -1, np.int64)  # (citation, window) stamp per token id
    stamp = 0
    best_s = np.empty(k, np.int64)
    for c in range(n):
        n_windows = cit_w1[c] - cit_w0[c]
        if n_windows <= k:
            for w in range(n_windows):
                out[c, w] = w
            continue
        for p in range(a_offsets[cit_a[c]], a_offsets[cit_a[c] + 1]):
            mark[a_tokens[p]] = c
        for i in range(k):
            best_s[i] = -1
        for w in range(n_windows):
            stamp += 1
            score = 0
            row = cit_w0[c] + w
            for p in range(win_lo[row], win_hi[row]):
                t = d_tokens[p]
                if mark[t] == c and seen[t] != stamp:
                    seen[t] = stamp
                    score += d_weights[p]
            # insert (score, w) into the top-k list: higher score first, earlier window on ties
            if score > best_s[k - 1]:
                i = k - 1
                while i > 0 and best_s[i - 1] < score:
                    best_s[i] = best_s[i - 1]
                    out[c, i] = out[c, i - 1]
                    i -= 1
                best_s[i] = score
                out[c, i] = w
    return out
