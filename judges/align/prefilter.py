"""The lexical prefilter: which passage windows of a long document a citation is aligned against.

Specification (the readable reference functions below; the Numba versions in
:mod:`judges.align.kernel` must agree exactly):

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


def window_df_reference_counts(local: np.ndarray, windows: np.ndarray, n_local: int) -> np.ndarray:
    """:func:`window_df_reference` as an array over local token ids ``0..n_local-1``."""
    counts = window_df_reference(local, windows)
    return np.array([counts.get(i, 0) for i in range(n_local)], dtype=np.int64)


# -- shared step: weights from document frequencies ---------------------------------------------
def idf_weights(ids: np.ndarray, windows: np.ndarray, window_df) -> np.ndarray:
    """Per token position, the weight of the token there (int16: 1000 * ln(1 + W) < 32768 for any
    document with fewer than 10**14 windows; sums are taken in int64).

    ``window_df(local_ids, windows, n_local)`` counts the windows containing each token: the
    backend's (:meth:`judges.align.backends.Backend.window_df`), so both give the same integers.
    """
    n_windows = len(windows)
    uniq, local = np.unique(ids, return_inverse=True)
    df = window_df(local.astype(np.int64), windows, len(uniq))
    per_token = np.rint(IDF_SCALE * np.log1p(n_windows / np.maximum(df, 1))).astype(np.int16)
    return per_token[local]
