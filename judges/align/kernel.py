"""Numba Smith-Waterman kernels: exactly :func:`judges.align.reference.smith_waterman`, fast.

Three layers:

* :func:`sw_pair` -- one answer against one document, linear memory, no traceback. Instead of
  keeping the full matrix it carries, for every cell of the current document column, the start
  of the path that the reference's traceback would follow from that cell and that path's match
  count (see "carrying" below).
* :func:`sw_batch` -- many pairs packed in flat arrays, ``prange`` over work items (groups of
  pairs). Pairs are scored 32 at a time in int16 SIMD lanes (one pair per lane, "inter-pair"
  vectorisation) by a score-only pass; the exact path of each lane's winning end cell is then
  recovered from a small window of the document that must contain it.
* :func:`align_batch` -- the public wrapper: dtype normalisation, validation; then :func:`align_packed`
  (what the backends call with arguments already checked): output allocation, threads.

Carrying (why no traceback is needed). In the reference, the predecessor of a cell on a path is
chosen from that cell's own neighbourhood only (diagonal, then up, then left, among the moves
that produce its value), so it does not depend on where the traceback started. Every cell with
``H > 0`` therefore has one well-defined path behind it, and its start and match count follow
from its predecessor's: a diagonal step from a cell with ``H == 0`` starts a new path there,
any other step inherits the predecessor's start (and the diagonal adds one match when the
tokens are equal). Cells with ``H == 0`` carry nothing: no path passes through them.

Score-only lanes + bounded recovery (the speed trick; ~10x over :func:`sw_pair` per core).
The carrying recurrence is branchy; the plain score recurrence is a handful of adds and maxes
that LLVM vectorises when the innermost loop runs over independent pairs.

* Pass 1 (:func:`_lane_scores`) keeps, per lane, only the best score ``s`` and the first
  document column ``b_end`` reaching it (strict ``>`` per column, columns in order: the
  reference's end-cell rule needs the smallest ``j`` first).
* Window. With ``D`` diagonal and ``L`` left steps on the winning path and ``gap < 0 < match``:
  ``s <= D*match + L*gap`` and ``D <= len(a)``, so ``L <= (len(a)*match - s) // -gap`` and the
  path lies in ``b[lo:b_end]`` with ``lo = b_end - len(a) - (len(a)*match - s) // -gap``.
* Restricting to that window is exact: dropping columns can only lower ``H`` (the recurrence is
  monotone), the winning path is still there so its cells keep their values, hence the end
  cell is still the first maximum (found as the first row of the window's last column holding
  ``s``) and every predecessor choice along the path -- which only asks "does this neighbour
  produce my value?" -- is unchanged.
* Pass 2 (:func:`_lane_matrix`) computes the full matrices of the 32 windows in lanes (a few
  percent of pass 1's cells) and :func:`_traceback` walks each one back exactly like the
  reference. Windows wider than ``_WINDOW_MAX`` (extreme scoring) or answers longer than
  ``_WINDOW_MAX_ROWS`` use :func:`sw_pair` on the window instead.

The lanes need ``match > 0``, ``mismatch < 0``, ``gap < 0``, non-negative token ids (checked on
the fly while gathering, at no extra pass over the documents) and scores that fit int16; any
pair outside that goes through :func:`sw_pair` on its whole document.
Padding (rows past a lane's answer, columns past its document) uses sentinel tokens that never
match, so padded cells are reached only by strictly negative moves from a real cell and can
never beat or tie the real maximum.
"""

from __future__ import annotations

import numpy as np
import numba
from numba import njit, prange
from numba.core import types
from numba.extending import intrinsic

from judges.align.packed import normalize_packed

#: Pairs scored together in one SIMD group (int16 lanes: 32 fill one 512-bit register).
LANES = 32

#: Largest score the int16 lanes may hold; a pair goes to the lanes only if
#: ``(len(a) + 1) * match`` stays below it (max score plus one more match step).
_I16_MAX = 32767

#: Padding tokens (lanes require real token ids >= 0): they never equal a real token or each other.
_A_PAD = -1
_B_PAD = -2

#: Scalar kernel works in int32 when every value it can meet stays below this.
_I32_SAFE = 1 << 30


# --------------------------------------------------------------------------------------------
# per pair: carrying kernel, linear memory
# --------------------------------------------------------------------------------------------


@njit(cache=True)
def _sw_carry(a, b, match, mismatch, gap, zero):
    """Carrying kernel. ``zero`` (np.int32 or np.int64) sets the storage type of the score
    column: int32 is faster and used whenever it cannot overflow. Arithmetic is int64.
    Returns ``(score, a_start, a_end, b_start, b_end, matches)``."""
    n = a.shape[0]
    m = b.shape[0]
    z = np.int64(0)
    if n == 0 or m == 0:
        return 0, 0, 0, 0, 0, 0
    # One document column at a time (j outer, i inner, as the reference scans).
    # H[i]: score of cell (i, j); S[i]: its path start packed as a_start * (m + 1) + b_start;
    # M[i]: its path's match count. Before row i is updated they still hold column j - 1.
    H = np.full(n + 1, zero)
    S = np.zeros(n + 1, np.int64)
    M = np.zeros(n + 1, np.int64)
    stride = np.int64(m + 1)
    best = z
    best_i = 0
    best_j = 0
    best_s = np.int64(0)
    best_m = np.int64(0)
    for j in range(1, m + 1):
        bt = b[j - 1]
        # (dh, ds, dm): cell (i-1, j-1), the diagonal predecessor; (uh, us, um): cell (i-1, j),
        # the up predecessor. Row 0 is all zeros.
        dh = z
        ds = np.int64(0)
        dm = np.int64(0)
        uh = z
        us = np.int64(0)
        um = np.int64(0)
        for i in range(1, n + 1):
            lh = H[i]  # cell (i, j-1), the left predecessor
            ls = S[i]
            lm = M[i]
            eq = a[i - 1] == bt
            d = dh + (match if eq else mismatch)
            u = uh + gap
            left = lh + gap
            h = max(d, u, left)
            if h <= 0:
                h = z
                s = np.int64(0)
                mt = np.int64(0)
            elif d == h:  # diagonal preferred
                if dh == 0:  # new path from the zero cell (i-1, j-1)
                    s = (i - 1) * stride + (j - 1)
                    mt = np.int64(0)
                else:
                    s = ds
                    mt = dm
                if eq:
                    mt += 1
            elif u == h:  # then up
                s = us
                mt = um
            else:  # then left
                s = ls
                mt = lm
            H[i] = h
            S[i] = s
            M[i] = mt
            if h > best:  # strictly: the first maximum in (j, i) order wins
                best = h
                best_i = i
                best_j = j
                best_s = s
                best_m = mt
            dh = lh
            ds = ls
            dm = lm
            uh = h
            us = s
            um = mt
    if best == 0:
        return 0, 0, 0, 0, 0, 0
    return int(best), int(best_s // stride), best_i, int(best_s % stride), best_j, int(best_m)


@njit(cache=True)
def _fits_int32(n, m, match, mismatch, gap):
    """True when every intermediate of the scalar kernel fits int32 (|H| <= min(n, m) * P)."""
    big = max(abs(match), abs(mismatch), abs(gap))
    if big >= _I32_SAFE:
        return False
    p = max(match, mismatch, 0)
    return p == 0 or min(n, m) <= (_I32_SAFE - big) // p


@njit(cache=True)
def sw_pair(a, b, match, mismatch, gap):
    """Best local alignment of int token arrays ``a`` (answer) and ``b`` (document).

    Returns ``(score, a_start, a_end, b_start, b_end, matches)`` exactly as
    :func:`judges.align.reference.smith_waterman` (requires ``gap <= 0``, which the reference
    needs too). Linear memory: O(len(a)) whatever ``len(b)``.
    """
    if _fits_int32(a.shape[0], b.shape[0], match, mismatch, gap):
        return _sw_carry(a, b, np.int64(match), np.int64(mismatch), np.int64(gap), np.int32(0))
    return _sw_carry(a, b, np.int64(match), np.int64(mismatch), np.int64(gap), np.int64(0))


# --------------------------------------------------------------------------------------------
# many pairs: int16 lanes, score only
# --------------------------------------------------------------------------------------------


@intrinsic
def _add_i16(typingctx, x, y):
    """int16 + int16 -> int16 (Numba would widen to int64, which stops 32-lane vectorisation).
    Callers guarantee no overflow."""
    if x != types.int16 or y != types.int16:
        return None

    def codegen(context, builder, signature, args):
        return builder.add(args[0], args[1])

    return types.int16(types.int16, types.int16), codegen


@njit(cache=True)
def _lane_scores(AT, b_tokens, start, length, ncols, ma, mi, g, best, best_j):
    """Pass 1, score only, ``LANES`` pairs at once.

    ``AT[i, l]`` is answer token ``i`` of lane ``l``; lane ``l``'s document is
    ``b_tokens[start[l]:start[l] + length[l]]``, padded to ``ncols`` (even) columns. Writes each
    lane's best score into ``best`` and the first document end ``j`` (1-based) reaching it into
    ``best_j``. ``ma``, ``mi``, ``g`` are int16. Returns the smallest real document token met
    (negative: the padding sentinels were not safe, results invalid).

    The loop over lanes is innermost with no dependence between lanes, so LLVM turns it into a
    few int16 vector instructions per row (AVX-512: one register). Details that matter,
    measured on 30-40-token answers against 300-3000-token documents:

    * Two document columns per pass over the rows: cell (i, j+1) takes its diagonal from the
      old ``up`` of column j and its left from cell (i, j) still in a register, so twice the
      work per row for the same loop overhead and store-to-load latency (~1.7x).
    * The running per-lane values live in rows of one small ``state`` array, read and written
      at the same index, never in two rows of ``H``: LLVM's runtime alias check between rows of
      one array is hoisted out of the row loop, fails, and runs the scalar loop (~15x slower).
    * ``ma``/``mi``/``g`` arrive as int16 arguments: narrowed inside from int64, LLVM selects
      between the int64 values and narrows every lane afterwards.
    """
    nrows = AT.shape[0]
    z = np.int16(0)
    H = np.zeros((nrows, LANES), np.int16)  # H[i - 1]: row i of the last finished column
    bcols = np.empty((2, LANES), np.int32)  # document tokens of columns j and j+1, per lane
    b0 = bcols[0]
    b1 = bcols[1]
    state = np.zeros((5, LANES), np.int16)
    dg = state[0]  # H(i-1, j-1)
    up0 = state[1]  # H(i-1, j)
    up1 = state[2]  # H(i-1, j+1)
    cm0 = state[3]  # max of column j so far
    cm1 = state[4]  # max of column j+1 so far
    low = np.zeros(LANES, np.int32)  # smallest real document token seen, per lane
    for l in range(LANES):
        best[l] = z
        best_j[l] = 0
    for j in range(0, ncols, 2):
        # Gathered here rather than transposed up front: the loads overlap the arithmetic.
        for l in range(LANES):
            t0 = b_tokens[start[l] + j] if j < length[l] else 0
            t1 = b_tokens[start[l] + j + 1] if j + 1 < length[l] else 0
            low[l] = min(low[l], t0, t1)
            b0[l] = t0 if j < length[l] else _B_PAD
            b1[l] = t1 if j + 1 < length[l] else _B_PAD
        for l in range(LANES):
            dg[l] = z
            up0[l] = z
            up1[l] = z
            cm0[l] = z
            cm1[l] = z
        for i in range(nrows):
            at = AT[i]
            hr = H[i]
            for l in range(LANES):
                left = hr[l]
                u0 = up0[l]
                x = at[l]
                h0 = max(max(_add_i16(dg[l], ma if x == b0[l] else mi), _add_i16(u0, g)), max(_add_i16(left, g), z))
                h1 = max(max(_add_i16(u0, ma if x == b1[l] else mi), _add_i16(up1[l], g)), max(_add_i16(h0, g), z))
                dg[l] = left
                up0[l] = h0
                up1[l] = h1
                hr[l] = h1
                cm0[l] = max(cm0[l], h0)
                cm1[l] = max(cm1[l], h1)
        for l in range(LANES):
            # Strictly greater, column j before j+1: the first column reaching the maximum.
            if cm0[l] > best[l]:
                best[l] = cm0[l]
                best_j[l] = j + 1
            if cm1[l] > best[l]:
                best[l] = cm1[l]
                best_j[l] = j + 2
    return low.min()


@njit(cache=True)
def _lane_matrix(AT, b_tokens, start, length, ncols, ma, mi, g, Hm):
    """Pass 2: the full matrix ``Hm[j, i, l]`` (row/column 0 stay 0) of ``LANES`` small
    windows ``b_tokens[start[l]:start[l] + length[l]]``, for the traceback. Same recurrence and
    same alias-check care as pass 1."""
    nrows = AT.shape[0]
    z = np.int16(0)
    state = np.zeros((2, LANES), np.int16)
    dg = state[0]
    up = state[1]
    bt = np.empty(LANES, np.int32)
    for j in range(1, ncols + 1):
        for l in range(LANES):
            bt[l] = b_tokens[start[l] + j - 1] if j - 1 < length[l] else _B_PAD
        for l in range(LANES):
            dg[l] = z
            up[l] = z
        for i in range(1, nrows + 1):
            at = AT[i - 1]
            prev = Hm[j - 1, i]
            cur = Hm[j, i]
            for l in range(LANES):
                left = prev[l]
                h = max(
                    max(_add_i16(dg[l], ma if at[l] == bt[l] else mi), _add_i16(up[l], g)), max(_add_i16(left, g), z)
                )
                dg[l] = left
                up[l] = h
                cur[l] = h


@njit(cache=True)
def _traceback(Hm, l, a, b, score, match, mismatch, gap):
    """The reference's traceback on lane ``l`` of a pass-2 matrix whose last column is the
    winning end column. Returns ``(a_start, a_end, b_start, matches)`` or ``a_end == -1`` if
    the matrix does not hold the expected path (never expected; the caller then falls back)."""
    w = b.shape[0]
    # End cell: the first row of the end column reaching the score.
    end_i = -1
    for i in range(1, a.shape[0] + 1):
        if Hm[w, i, l] == score:
            end_i = i
            break
    if end_i < 0:
        return 0, -1, 0, 0
    i = end_i
    j = w
    matches = 0
    while True:
        if i == 0 or j == 0:
            return 0, -1, 0, 0
        h = np.int64(Hm[j, i, l])
        eq = a[i - 1] == b[j - 1]
        if h == np.int64(Hm[j - 1, i - 1, l]) + (match if eq else mismatch):
            if eq:
                matches += 1
            i -= 1
            j -= 1
            if Hm[j, i, l] == 0:
                break
        elif h == np.int64(Hm[j, i - 1, l]) + gap:
            i -= 1
        else:
            j -= 1
    return i, end_i, j, matches


#: Pass 2 takes windows of at most this many document tokens and answers of at most this many
#: tokens (its matrices stay under ~8 MB); other lanes are recovered by :func:`sw_pair` on the
#: window instead.
_WINDOW_MAX = 512
_WINDOW_MAX_ROWS = 256


@njit(cache=True)
def _align_group(a_tokens, a_offsets, pair_a, b_tokens, b_lo, b_hi, idx, match, mismatch, gap, out):  # noqa: C901 (a Numba kernel: its loops stay explicit)
    """Pairs ``idx`` (at most ``LANES``) through pass 1, then exact recovery of each path."""
    nl = idx.shape[0]
    nrows = 0
    ncols = 0
    start = np.zeros(LANES, np.int64)  # unused lanes: empty documents
    length = np.zeros(LANES, np.int64)
    for l in range(nl):
        k = idx[l]
        p = pair_a[k]
        nrows = max(nrows, a_offsets[p + 1] - a_offsets[p])
        start[l] = b_lo[k]
        length[l] = b_hi[k] - b_lo[k]
        ncols = max(ncols, length[l])
    ncols += ncols % 2  # pass 1 takes columns two at a time
    # Answers in lane-major layout, padded with a never-matching sentinel.
    AT = np.full((nrows, LANES), _A_PAD, np.int32)
    low = 0
    for l in range(nl):
        p = pair_a[idx[l]]
        a0 = a_offsets[p]
        for i in range(a_offsets[p + 1] - a0):
            AT[i, l] = a_tokens[a0 + i]
            low = min(low, a_tokens[a0 + i])
    ma = np.int16(match)
    mi = np.int16(mismatch)
    g = np.int16(gap)
    best = np.zeros(LANES, np.int16)
    best_j = np.zeros(LANES, np.int64)
    if low >= 0:
        low = _lane_scores(AT, b_tokens, start, length, ncols, ma, mi, g, best, best_j)
    if low < 0:  # negative token ids: the sentinels could match; do these pairs one by one
        for l in range(nl):
            k = idx[l]
            p = pair_a[k]
            r = sw_pair(a_tokens[a_offsets[p] : a_offsets[p + 1]], b_tokens[b_lo[k] : b_hi[k]], match, mismatch, gap)
            for t in range(6):
                out[k, t] = r[t]
        return

    # Recovery window of each lane: the winning path lies in b[lo:best_j] (module docstring).
    lo = np.zeros(LANES, np.int64)
    width = np.zeros(LANES, np.int64)  # 0: nothing left to do for this lane
    wmax = 0
    nrows2 = 0
    for l in range(nl):
        k = idx[l]
        s = np.int64(best[l])
        if s == 0:
            for t in range(6):
                out[k, t] = 0
            continue
        p = pair_a[k]
        n = a_offsets[p + 1] - a_offsets[p]
        lo[l] = max(np.int64(0), best_j[l] - (n + (n * match - s) // (-gap)))
        w = best_j[l] - lo[l]
        if w > _WINDOW_MAX or n > _WINDOW_MAX_ROWS:
            a = a_tokens[a_offsets[p] : a_offsets[p + 1]]
            r = sw_pair(a, b_tokens[b_lo[k] + lo[l] : b_lo[k] + best_j[l]], match, mismatch, gap)
            out[k, 0] = r[0]
            out[k, 1] = r[1]
            out[k, 2] = r[2]
            out[k, 3] = r[3] + lo[l]
            out[k, 4] = r[4] + lo[l]
            out[k, 5] = r[5]
        else:
            width[l] = w
            wmax = max(wmax, w)
            nrows2 = max(nrows2, n)
    if wmax == 0:
        return
    # Pass 2 on the windows (same answers: the first rows of AT), full matrix, then traceback.
    for l in range(LANES):
        start[l] += lo[l]
    Hm = np.zeros((wmax + 1, nrows2 + 1, LANES), np.int16)
    _lane_matrix(AT[:nrows2], b_tokens, start, width, wmax, ma, mi, g, Hm)
    for l in range(nl):
        if width[l] == 0:
            continue
        k = idx[l]
        p = pair_a[k]
        a = a_tokens[a_offsets[p] : a_offsets[p + 1]]
        b0 = b_lo[k] + lo[l]
        b = b_tokens[b0 : b0 + width[l]]
        s = np.int64(best[l])
        a_start, a_end, b_start, matches = _traceback(Hm, l, a, b, s, match, mismatch, gap)
        if a_end < 0:  # cannot happen if the window argument holds; stay exact regardless
            r = sw_pair(a, b_tokens[b_lo[k] : b_hi[k]], match, mismatch, gap)
            for t in range(6):
                out[k, t] = r[t]
            continue
        out[k, 0] = s
        out[k, 1] = a_start
        out[k, 2] = a_end
        out[k, 3] = b_start + lo[l]
        out[k, 4] = best_j[l]
        out[k, 5] = matches


@njit(cache=True)
def _sort_desc_stable(items, key):
    """``items`` sorted by ``key[item]`` descending, ties kept in input order. A plain
    bottom-up merge sort: compiles in a fraction of the time of ``np.argsort``."""
    n = items.shape[0]
    src = items.copy()
    dst = np.empty(n, np.int64)
    width = 1
    while width < n:
        for lo in range(0, n, 2 * width):
            mid = min(n, lo + width)
            hi = min(n, lo + 2 * width)
            i = lo
            j = mid
            for t in range(lo, hi):
                # take from the left run unless the right one is strictly larger (stability)
                if i < mid and (j >= hi or key[src[i]] >= key[src[j]]):
                    dst[t] = src[i]
                    i += 1
                else:
                    dst[t] = src[j]
                    j += 1
        src, dst = dst, src
        width *= 2
    return src


@njit(cache=True)
def _group_order(lane_pairs, n_of, m_of):
    """Order lane pairs so that consecutive ``LANES`` form groups with little padding.

    A group costs ``LANES * max(len(a)) * max(len(b))`` cell updates. Sort by document length
    (longest first), then inside consecutive chunks of ``c * LANES`` pairs by answer length;
    keep the chunk size ``c`` in 1, 2, 4, ..., 16 with the lowest total cost (ties: smallest).
    """
    order = _sort_desc_stable(lane_pairs, m_of)
    npairs = order.shape[0]
    best_cost = -1.0
    best_order = order
    c = 1
    while c <= 16:
        step = c * LANES
        cand = np.empty(npairs, np.int64)
        for s0 in range(0, npairs, step):
            s1 = min(npairs, s0 + step)
            cand[s0:s1] = _sort_desc_stable(order[s0:s1], n_of)
        cost = 0.0
        for g0 in range(0, npairs, LANES):
            nmax = 0
            mmax = 0
            for t in range(g0, min(npairs, g0 + LANES)):
                nmax = max(nmax, n_of[cand[t]])
                mmax = max(mmax, m_of[cand[t]])
            cost += float(nmax) * float(mmax)
        if best_cost < 0 or cost < best_cost:
            best_cost = cost
            best_order = cand
        if step >= npairs:
            break
        c *= 2
    return best_order


@njit(cache=True)
def _bit_reversed_order(n):
    """0..n-1 in bit-reversed order (van der Corput), e.g. n=6: 0 4 2 1 5 3."""
    bits = 0
    while (1 << bits) < n:
        bits += 1
    perm = np.empty(n, np.int64)
    q = 0
    for x in range(1 << bits):
        r = 0
        for t in range(bits):
            r |= ((x >> t) & 1) << (bits - 1 - t)
        if r < n:
            perm[q] = r
            q += 1
    return perm


@njit(cache=True)
def _plan(a_offsets, pair_a, b_lo, b_hi, match, mismatch, gap, out):
    """Write empty pairs' rows; return ``(grouped, ngroups, scalar_pairs, perm)``: lane pairs
    in group order, scalar pairs, and the order in which to run the work items."""
    npairs = pair_a.shape[0]
    lanes_ok = match > 0 and mismatch < 0 and gap < 0 and mismatch >= -_I16_MAX and gap >= -_I16_MAX
    n_of = np.empty(npairs, np.int64)
    m_of = np.empty(npairs, np.int64)
    lane_pairs = np.empty(npairs, np.int64)
    scalar_pairs = np.empty(npairs, np.int64)
    nlane = 0
    nscalar = 0
    for k in range(npairs):
        p = pair_a[k]
        n = a_offsets[p + 1] - a_offsets[p]
        m = b_hi[k] - b_lo[k]
        n_of[k] = n
        m_of[k] = m
        if n == 0 or m == 0:
            for t in range(6):
                out[k, t] = 0
        elif lanes_ok and (n + 1) * match <= _I16_MAX:
            lane_pairs[nlane] = k
            nlane += 1
        else:
            scalar_pairs[nscalar] = k
            nscalar += 1
    grouped = _group_order(lane_pairs[:nlane], n_of, m_of)
    ngroups = (nlane + LANES - 1) // LANES
    # Work items (lane groups, then scalar pairs) in bit-reversed order: prange hands each
    # thread one contiguous block of iterations, and a contiguous block of a bit-reversed
    # sequence samples the whole cost range evenly. Only the split between threads depends on
    # this; each item's result does not.
    perm = _bit_reversed_order(ngroups + nscalar)
    return grouped, ngroups, scalar_pairs[:nscalar], perm


@njit(cache=True, parallel=True)
def sw_batch(a_tokens, a_offsets, pair_a, b_tokens, b_lo, b_hi, match, mismatch, gap, out):
    """Align pair ``k`` = answer ``pair_a[k]`` x ``b_tokens[b_lo[k]:b_hi[k]]`` into ``out[k]``.

    Document spans in ``out`` are relative to ``b_lo[k]``. Each ``out`` row is written by one
    work item that depends only on its inputs, so the result never depends on thread timing.
    """
    grouped, ngroups, scalar_pairs, perm = _plan(a_offsets, pair_a, b_lo, b_hi, match, mismatch, gap, out)
    nlane = grouped.shape[0]
    for q in prange(perm.shape[0]):
        g = perm[q]
        if g < ngroups:
            idx = grouped[g * LANES : min(nlane, (g + 1) * LANES)]
            _align_group(a_tokens, a_offsets, pair_a, b_tokens, b_lo, b_hi, idx, match, mismatch, gap, out)
        else:
            k = scalar_pairs[g - ngroups]
            p = pair_a[k]
            r = sw_pair(a_tokens[a_offsets[p] : a_offsets[p + 1]], b_tokens[b_lo[k] : b_hi[k]], match, mismatch, gap)
            for c in range(6):
                out[k, c] = r[c]


# --------------------------------------------------------------------------------------------
# public wrapper
# --------------------------------------------------------------------------------------------


def _cells(a_offsets, pair_a, b_lo, b_hi) -> int:
    """The dynamic-programming cells of a batch: answer tokens x window tokens, summed over pairs."""
    return int(((a_offsets[pair_a + 1] - a_offsets[pair_a]) * (b_hi - b_lo)).sum())


SMALL_BATCH_PAIRS = 64  # fewer pairs than this are aligned on the calling thread alone
SMALL_BATCH_CELLS = 1 << 21  # and fewer cells than this (about 2 ms on one core: a busy pool takes longer to wake)


def align_batch(a_tokens, a_offsets, pair_a, b_tokens, b_lo, b_hi, match=2, mismatch=-1, gap=-1):
    """Align many (answer, document window) pairs; returns an ``(n, 6)`` int64 array of
    ``(score, a_start, a_end, b_start, b_end, matches)`` rows, spans relative to the window.

    ``a_tokens[a_offsets[q]:a_offsets[q + 1]]`` is answer ``q``; pair ``k`` aligns answer
    ``pair_a[k]`` with ``b_tokens[b_lo[k]:b_hi[k]]``. Token arrays are made int32, the rest int64
    and the scores int64 scalars, so every caller hits one compiled specialisation. Raises
    ``ValueError`` on inconsistent input (see :func:`judges.align.packed.normalize_packed`).
    Runs on the current Numba thread count (one thread for fewer than ``SMALL_BATCH_PAIRS``
    pairs or ``SMALL_BATCH_CELLS`` cells, e.g. the further evidence spans' short parts of sentences);
    leaves it as it was.
    """
    return align_packed(*normalize_packed(a_tokens, a_offsets, pair_a, b_tokens, b_lo, b_hi, match, mismatch, gap))


def align_packed(a_tokens, a_offsets, pair_a, b_tokens, b_lo, b_hi, match, mismatch, gap):
    """:func:`align_batch` of arguments :func:`judges.align.packed.normalize_packed` has checked and converted."""
    out = np.empty((pair_a.shape[0], 6), dtype=np.int64)
    if out.shape[0]:
        threads = numba.get_num_threads()
        if threads > 1 and (
            out.shape[0] < SMALL_BATCH_PAIRS or _cells(a_offsets, pair_a, b_lo, b_hi) < SMALL_BATCH_CELLS
        ):
            numba.set_num_threads(1)  # small work stays on this thread: waking the pool costs more
        try:
            sw_batch(
                a_tokens,
                a_offsets,
                pair_a,
                b_tokens,
                b_lo,
                b_hi,
                np.int64(match),
                np.int64(mismatch),
                np.int64(gap),
                out,
            )
        finally:
            if numba.get_num_threads() != threads:
                numba.set_num_threads(threads)
    return out


# ---------------------------------------------------------------------------------------------
# The lexical prefilter (specification: judges.align.prefilter)


@njit(cache=True)
def window_df(local, windows, n_local):
    df = np.zeros(n_local, np.int64)
    last = np.full(n_local, -1, np.int64)
    for w in range(windows.shape[0]):
        for p in range(windows[w, 0], windows[w, 1]):
            t = local[p]
            if last[t] != w:
                last[t] = w
                df[t] += 1
    return df


@njit(cache=True)
def candidates_batch(a_tokens, a_offsets, cit_a, d_tokens, d_weights, win_lo, win_hi, cit_w0, cit_w1, k, vocab_size):  # noqa: C901 (a Numba kernel: its loops stay explicit)
    """Candidate windows of many citations at once.

    Citation ``c`` has answer ``a_tokens[a_offsets[cit_a[c]]:a_offsets[cit_a[c] + 1]]`` and its
    document's windows are rows ``cit_w0[c]:cit_w1[c]`` of ``win_lo``/``win_hi`` (positions in
    ``d_tokens``/``d_weights``). Returns ``(n, k)`` window indices relative to the document,
    best first, ``-1`` where the document has fewer than ``k`` windows.

    The citations of one document are scored together: its windows are read once into lists of
    the windows each distinct token occurs in, and a citation's scores are then the sums over
    its distinct answer tokens' lists (a token weighs the same wherever it stands in a document).
    """
    n = cit_a.shape[0]
    out = np.full((n, k), -1, np.int64)
    order = np.argsort(cit_w0, kind="mergesort")
    # Per token id (int32: filled once per call, and a track's vocabulary can pass a million):
    doc_of = np.full(vocab_size, -1, np.int32)  # the document (its first window row) it was met in
    local = np.empty(vocab_size, np.int32)  # its index among that document's distinct tokens
    seen = np.full(vocab_size, -1, np.int32)  # the last window (stamp) it was counted in
    mark = np.full(vocab_size, -1, np.int32)  # the last citation that counted it
    best_s = np.empty(k, np.int64)
    stamp = 0
    g = 0
    while g < n:
        w0 = cit_w0[order[g]]
        n_windows = cit_w1[order[g]] - w0
        h = g
        while h < n and cit_w0[order[h]] == w0:
            h += 1
        if n_windows <= k:
            for i in range(g, h):
                for w in range(n_windows):
                    out[order[i], w] = w
            g = h
            continue
        # the document's distinct tokens, their weights, and the windows each occurs in
        span = 0
        for w in range(n_windows):
            span += win_hi[w0 + w] - win_lo[w0 + w]
        counts = np.zeros(span + 1, np.int64)
        weight = np.zeros(span + 1, np.int64)
        pair_token = np.empty(span, np.int64)  # (distinct token, window) pairs, in window order
        pair_window = np.empty(span, np.int64)
        n_local = 0
        n_pairs = 0
        for w in range(n_windows):
            stamp += 1
            for p in range(win_lo[w0 + w], win_hi[w0 + w]):
                t = d_tokens[p]
                if seen[t] != stamp:
                    seen[t] = stamp
                    if doc_of[t] != w0:
                        doc_of[t] = w0
                        local[t] = n_local
                        weight[n_local] = d_weights[p]
                        n_local += 1
                    counts[local[t] + 1] += 1
                    pair_token[n_pairs] = local[t]
                    pair_window[n_pairs] = w
                    n_pairs += 1
        heads = np.cumsum(counts[: n_local + 1])  # token q's windows: lists[heads[q]:heads[q + 1]]
        lists = np.empty(n_pairs, np.int64)
        fill = heads[:n_local].copy()
        for r in range(n_pairs):
            q = pair_token[r]
            lists[fill[q]] = pair_window[r]
            fill[q] += 1
        scores = np.zeros(n_windows, np.int64)
        for i in range(g, h):
            c = order[i]
            scores[:] = 0
            for p in range(a_offsets[cit_a[c]], a_offsets[cit_a[c] + 1]):
                t = a_tokens[p]
                if mark[t] != c and doc_of[t] == w0:
                    mark[t] = c
                    q = local[t]
                    for r in range(heads[q], heads[q + 1]):
                        scores[lists[r]] += weight[q]
            for j in range(k):
                best_s[j] = -1
            for w in range(n_windows):
                score = scores[w]
                # insert (score, w) into the top-k list: higher score first, earlier window on ties
                if score > best_s[k - 1]:
                    j = k - 1
                    while j > 0 and best_s[j - 1] < score:
                        best_s[j] = best_s[j - 1]
                        out[c, j] = out[c, j - 1]
                        j -= 1
                    best_s[j] = score
                    out[c, j] = w
        g = h
    return out


# ---------------------------------------------------------------------------------------------
# Multi-span evidence (specification: judges.align.reference.content_found)


@njit(cache=True)
def content_found(a_tokens, g_lo, g_hi, content, d_tokens, p_first, p_lo, p_hi, n_ids):
    """Per group ``g``: how many tokens of ``a_tokens[g_lo[g]:g_hi[g]]`` carry content (``content``
    per token id) and occur in one of its document ranges ``d_tokens[p_lo[p]:p_hi[p]]``, ``p`` in
    ``p_first[g]:p_first[g + 1]``. A stamp per token id marks the tokens of the group's ranges."""
    n = g_lo.shape[0]
    out = np.zeros(n, np.int64)
    stamp = np.full(n_ids, -1, np.int64)
    for g in range(n):
        for p in range(p_first[g], p_first[g + 1]):
            for j in range(p_lo[p], p_hi[p]):
                stamp[d_tokens[j]] = g
        found = 0
        for i in range(g_lo[g], g_hi[g]):
            t = a_tokens[i]
            if content[t] != 0 and stamp[t] == g:
                found += 1
        out[g] = found
    return out
