"""Numba kernel of the lexical support features (:mod:`judges.support.features` is the
specification; :func:`judges.support.features.lexical_features_reference` the readable version
it must equal exactly).

Citations are visited grouped by document, so each document's stems are marked and its stem
pairs hashed once however many sentences cite it.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def _pair_table(d, lo, hi, n_stems):
    """Open-addressing hash set of the document's adjacent stem pairs (key s1 * n_stems + s2)."""
    size = 16
    while size < 2 * (hi - lo):
        size *= 2
    table = np.full(size, -1, dtype=np.int64)
    mask = size - 1
    for p in range(lo, hi - 1):
        key = np.int64(d[p]) * n_stems + d[p + 1]
        h = (key * np.int64(0x9E3779B1)) & mask
        while table[h] != -1 and table[h] != key:
            h = (h + 1) & mask
        table[h] = key
    return table


@njit(cache=True)
def _has_pair(table, key):
    mask = len(table) - 1
    h = (key * np.int64(0x9E3779B1)) & mask
    while table[h] != -1:
        if table[h] == key:
            return True
        h = (h + 1) & mask
    return False


@njit(cache=True)
def lexical_features(a_stems, a_content, a_clause, a_offsets, d_stems, d_base, cit_a, cit_d, order, n_stems):
    """``(n, 4)`` float64: content, bigram, clause-min and clause-max recall per citation.

    ``order`` lists the citations sorted by ``cit_d`` (stable); citations with ``cit_d < 0`` are
    left at zero.
    """
    n = len(cit_a)
    out = np.zeros((n, 4), dtype=np.float64)
    mark = np.zeros(n_stems, dtype=np.int64)
    table = np.full(16, -1, dtype=np.int64)
    current = -1
    for oi in range(n):
        c = order[oi]
        d = cit_d[c]
        if d < 0:
            continue
        lo, hi = d_base[d], d_base[d + 1]
        if d != current:
            current = d
            for p in range(lo, hi):
                mark[d_stems[p]] = d + 1
            table = _pair_table(d_stems, lo, hi, n_stems)
        a0, a1 = a_offsets[cit_a[c]], a_offsets[cit_a[c] + 1]
        found = 0
        total = 0
        pairs = 0
        pairs_found = 0
        cmin = 2.0
        cmax = -1.0
        k_found = 0
        k_total = 0
        for i in range(a0, a1):
            if a_content[i]:
                total += 1
                k_total += 1
                if mark[a_stems[i]] == d + 1:
                    found += 1
                    k_found += 1
            if i + 1 < a1:
                pairs += 1
                if _has_pair(table, np.int64(a_stems[i]) * n_stems + a_stems[i + 1]):
                    pairs_found += 1
            if i + 1 == a1 or a_clause[i + 1] != a_clause[i]:  # a clause ends here
                if k_total > 0:
                    r = k_found / k_total
                    cmin = min(cmin, r)
                    cmax = max(cmax, r)
                k_found = 0
                k_total = 0
        out[c, 0] = found / total if total > 0 else 0.0
        out[c, 1] = pairs_found / pairs if pairs > 0 else 0.0
        out[c, 2] = cmin if cmax >= 0 else 0.0
        out[c, 3] = cmax if cmax >= 0 else 0.0
    return out
