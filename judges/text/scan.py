"""Numba kernels for text preparation: the ASCII tokenizer and the sentence-boundary scanner.

Both kernels reproduce, exactly, regular expressions kept as the readable reference in
:mod:`judges.text.tokenize` and :mod:`judges.text.segment`; the tests compare them on
arbitrary input. Texts are passed as arrays of code points: ``np.uint8`` for ASCII texts
(``text.encode("ascii")``) and ``np.uint32`` otherwise (``text.encode("utf-32-le",
"surrogatepass")``), so an array index is always a Python ``str`` offset.
"""

from __future__ import annotations

import numpy as np
from numba import njit

# --------------------------------------------------------------------------------------------
# Tokenizer (ASCII texts only)
#
# The ASCII restriction of ``TOKEN_PATTERN``: in ASCII ``\d`` is ``[0-9]``, ``[^\W_]`` is
# ``[0-9A-Za-z]``, the joiners are ``-`` and ``'`` and the only symbols are ``%`` and ``$``.
# At each position the number alternative is tried first; it needs at least one ``[.,]\d+``
# group, and greedy repetition is its first (so its only) match. Otherwise the word
# alternative (greedy too), otherwise a symbol; the scan then resumes after the match.


@njit(cache=True, inline="always")
def _is_digit(c):
    return 48 <= c <= 57


@njit(cache=True, inline="always")
def _is_alnum(c):
    return (48 <= c <= 57) or (97 <= c <= 122) or (65 <= c <= 90)


@njit(cache=True, inline="always")
def _token_end(buf, i, n):
    """End of the token starting at ``buf[i]``, or -1 when no token starts there."""
    c = buf[i]
    if _is_digit(c):
        # \d+(?:[.,]\d+)+
        j = i + 1
        while j < n and _is_digit(buf[j]):
            j += 1
        if j + 1 < n and (buf[j] == 46 or buf[j] == 44) and _is_digit(buf[j + 1]):
            while j + 1 < n and (buf[j] == 46 or buf[j] == 44) and _is_digit(buf[j + 1]):
                j += 2
                while j < n and _is_digit(buf[j]):
                    j += 1
            return j
    if _is_alnum(c):
        # [^\W_]+(?:[-'][^\W_]+)*
        j = i + 1
        while j < n and _is_alnum(buf[j]):
            j += 1
        while j + 1 < n and (buf[j] == 45 or buf[j] == 39) and _is_alnum(buf[j + 1]):
            j += 2
            while j < n and _is_alnum(buf[j]):
                j += 1
        return j
    if c == 37 or c == 36:
        # [%$]
        return i + 1
    return -1


@njit(cache=True)
def scan_ascii_tokens(buf):
    """Token spans of an ASCII text and the lower-cased tokens joined by single spaces.

    Returns ``(starts, ends, joined)``: int32 offsets of every token and a uint8 buffer
    ``b"tok1 tok2 ..."`` (tokens never contain a space) to be split in Python at C speed.
    """
    n = buf.size
    starts = np.empty(n, np.int32)
    ends = np.empty(n, np.int32)
    joined = np.empty(2 * n, np.uint8)
    k = 0  # tokens found
    m = 0  # bytes written to joined
    i = 0
    while i < n:
        j = _token_end(buf, i, n)
        if j < 0:
            i += 1
            continue
        starts[k] = i
        ends[k] = j
        k += 1
        if m > 0:
            joined[m] = 32
            m += 1
        for p in range(i, j):
            b = buf[p]
            if 65 <= b <= 90:
                b += 32
            joined[m] = b
            m += 1
        i = j
    return starts[:k].copy(), ends[:k].copy(), joined[:m].copy()


# --------------------------------------------------------------------------------------------
# Token ids for ASCII texts
#
# An open-addressing hash table from lower-cased token bytes to vocabulary ids. It is only a
# cache of the vocabulary's dict: every entry is copied from the dict, whose entries never
# change, so a hit is exactly ``dict[token]``; misses are resolved in Python, in text order,
# with ``dict.setdefault`` and then inserted.
#
# Table arrays: ``slots`` (int32, power-of-two size, -1 = empty, else an entry number) and per
# entry ``ent_hash`` (uint64), ``ent_off`` (int64 offset into ``arena``), ``ent_len`` (int32),
# ``ent_id`` (int32); ``arena`` (uint8) holds the lower-cased bytes; ``counts`` (int64[2]) is
# ``[entries, arena bytes used]``.

_FNV_OFFSET = np.uint64(14695981039346656037)
_FNV_PRIME = np.uint64(1099511628211)


@njit(cache=True, inline="always")
def _lower(b):
    if 65 <= b <= 90:
        return b + 32
    return b


@njit(cache=True, inline="always")
def _hash_lowered(buf, s, e):
    h = _FNV_OFFSET
    for p in range(s, e):
        h = (h ^ np.uint64(_lower(buf[p]))) * _FNV_PRIME
    return h


@njit(cache=True, inline="always")
def _find(buf, s, e, h, slots, ent_hash, ent_off, ent_len, arena):
    """The slot holding token ``buf[s:e]`` (lower-cased), else the empty slot where it goes."""
    mask = slots.size - 1
    slot = np.int64(h & np.uint64(mask))
    length = e - s
    while True:
        ent = slots[slot]
        if ent < 0:
            return slot
        if ent_hash[ent] == h and ent_len[ent] == length:
            off = ent_off[ent]
            same = True
            for p in range(length):
                if arena[off + p] != _lower(buf[s + p]):
                    same = False
                    break
            if same:
                return slot
        slot = (slot + 1) & mask


@njit(cache=True)
def lookup_ascii_tokens(buf, slots, ent_hash, ent_off, ent_len, ent_id, arena):
    """Tokens of an ASCII text as ``(starts, ends, ids)``; ids are -1 where the table misses."""
    n = buf.size
    starts = np.empty(n, np.int32)
    ends = np.empty(n, np.int32)
    ids = np.empty(n, np.int32)
    k = 0
    i = 0
    while i < n:
        j = _token_end(buf, i, n)
        if j < 0:
            i += 1
            continue
        starts[k] = i
        ends[k] = j
        slot = _find(buf, i, j, _hash_lowered(buf, i, j), slots, ent_hash, ent_off, ent_len, arena)
        ent = slots[slot]
        ids[k] = ent_id[ent] if ent >= 0 else -1
        k += 1
        i = j
    return starts[:k].copy(), ends[:k].copy(), ids[:k].copy()


@njit(cache=True)
def _grown(a, size):
    out = np.empty(size, a.dtype)
    out[: a.size] = a
    return out


@njit(cache=True)
def insert_ascii_tokens(buf, starts, ends, ids, slots, ent_hash, ent_off, ent_len, ent_id, arena, counts):
    """Add tokens ``buf[starts[t]:ends[t]]`` with ids ``ids[t]`` (tokens already present are
    skipped); returns the table arrays, reallocated when they had to grow."""
    n_ent = counts[0]
    used = counts[1]
    need_ent = n_ent + starts.size
    if need_ent > ent_hash.size:
        size = max(need_ent, 2 * ent_hash.size)
        ent_hash = _grown(ent_hash, size)
        ent_off = _grown(ent_off, size)
        ent_len = _grown(ent_len, size)
        ent_id = _grown(ent_id, size)
    need_bytes = used + np.sum(ends - starts)
    if need_bytes > arena.size:
        arena = _grown(arena, max(need_bytes, 2 * arena.size))
    if 2 * need_ent > slots.size:  # keep the load factor at most 1/2
        size = slots.size
        while 2 * need_ent > size:
            size *= 2
        slots = np.full(size, -1, np.int32)
        mask = np.uint64(size - 1)
        for ent in range(n_ent):
            slot = np.int64(ent_hash[ent] & mask)
            while slots[slot] >= 0:
                slot = (slot + 1) & (size - 1)
            slots[slot] = ent
    for t in range(starts.size):
        s = starts[t]
        e = ends[t]
        h = _hash_lowered(buf, s, e)
        slot = _find(buf, s, e, h, slots, ent_hash, ent_off, ent_len, arena)
        if slots[slot] >= 0:
            continue
        for p in range(s, e):
            arena[used + p - s] = _lower(buf[p])
        ent_hash[n_ent] = h
        ent_off[n_ent] = used
        ent_len[n_ent] = e - s
        ent_id[n_ent] = ids[t]
        slots[slot] = n_ent
        n_ent += 1
        used += e - s
    counts[0] = n_ent
    counts[1] = used
    return slots, ent_hash, ent_off, ent_len, ent_id, arena


# --------------------------------------------------------------------------------------------
# Sentence boundaries
#
# ``_BOUNDARY`` = ``[.!?…]+["'’”)\]]*(?=\s|$)`` | ``\n[ \t]*\n``, and the decision of
# ``_is_boundary`` for each match. Decisions that need Unicode case or letter properties of a
# non-ASCII character (or the lower-casing of a non-ASCII word) are left UNDECIDED for the
# Python check.

BOUNDARY_NO = 0
BOUNDARY_YES = 1
BOUNDARY_UNDECIDED = 2

#: Every code point for which ``str.isspace()`` (and the regex ``\s``) is true; the tests check
#: this against all of Unicode.
WHITESPACE = (
    list(range(0x09, 0x0E)) + list(range(0x1C, 0x21)) + [0x85, 0xA0, 0x1680]
    + list(range(0x2000, 0x200B)) + [0x2028, 0x2029, 0x202F, 0x205F, 0x3000]
)


@njit(cache=True, inline="always")
def _is_space(c):
    if c <= 0x20:
        return (0x09 <= c <= 0x0D) or c >= 0x1C
    if c < 0x85:
        return False
    return (
        c == 0x85 or c == 0xA0 or c == 0x1680 or (0x2000 <= c <= 0x200A) or c == 0x2028
        or c == 0x2029 or c == 0x202F or c == 0x205F or c == 0x3000
    )


@njit(cache=True, inline="always")
def _is_mark(c):  # [.!?…]
    return c == 46 or c == 33 or c == 63 or c == 0x2026


@njit(cache=True, inline="always")
def _is_closer(c):  # ["'’”)\]]
    return c == 34 or c == 39 or c == 0x2019 or c == 0x201D or c == 41 or c == 93


@njit(cache=True, inline="always")
def _is_opener(c):  # ["'‘“(\[], also the characters stripped from the word before a dot
    return c == 34 or c == 39 or c == 0x2018 or c == 0x201C or c == 40 or c == 91


@njit(cache=True)
def _dot_decision(cp, i, k, abbr, abbr_len):
    """``_is_boundary`` for a match ``cp[i:k]`` that starts with a single ``.``."""
    n = cp.size
    # _NEXT_WORD = \s*["'‘“(\[]*(\S), matched at k: the first non-space character after the
    # openers, or (by backtracking) the last opener when only space or the end follows them.
    p = k
    while p < n and _is_space(cp[p]):
        p += 1
    q = p
    while q < n and _is_opener(cp[q]):
        q += 1
    if q < n and not _is_space(cp[q]):
        ch = cp[q]
        if ch >= 128:
            return BOUNDARY_UNDECIDED  # str.islower() of a non-ASCII character
        if 97 <= ch <= 122:
            return BOUNDARY_NO
    # (an opener is never lower-case)
    # _WORD_BEFORE = (\S+?)\.+$ searched in text[max(0, i - 40):i + 1]. cp[i - 1] is not a dot
    # (else the match would have started there), so the word is the run of non-space
    # characters ending at i, cut at the window start.
    if i == 0 or _is_space(cp[i - 1]):
        return BOUNDARY_YES
    lo = max(0, i - 40)
    w = i - 1
    while w > lo and not _is_space(cp[w - 1]):
        w -= 1
    while w < i and _is_opener(cp[w]):  # .lstrip("\"'(‘“[")
        w += 1
    length = i - w
    for p in range(w, i):
        if cp[p] >= 128:
            return BOUNDARY_UNDECIDED  # Unicode isalpha() / lower()
    if length == 1:
        c = cp[w]
        if (97 <= c <= 122) or (65 <= c <= 90):
            return BOUNDARY_NO  # an initial
    if length > abbr.shape[1]:
        return BOUNDARY_YES
    for a in range(abbr.shape[0]):
        if abbr_len[a] != length:
            continue
        same = True
        for p in range(length):
            c = cp[w + p]
            if 65 <= c <= 90:
                c += 32
            if c != abbr[a, p]:
                same = False
                break
        if same:
            return BOUNDARY_NO
    return BOUNDARY_YES


@njit(cache=True)
def scan_boundaries(cp, abbr, abbr_len):
    """Every ``_BOUNDARY`` match as ``(starts, ends, decision)``, decisions as above."""
    n = cp.size
    starts = np.empty(n, np.int64)
    ends = np.empty(n, np.int64)
    decision = np.empty(n, np.int8)
    k = 0
    i = 0
    while i < n:
        c = cp[i]
        if _is_mark(c):
            j = i + 1
            while j < n and _is_mark(cp[j]):
                j += 1
            e = j
            while e < n and _is_closer(cp[e]):
                e += 1
            if e == n or _is_space(cp[e]):
                starts[k] = i
                ends[k] = e
                if c != 46 or (i + 1 < j and cp[i + 1] == 46):
                    decision[k] = BOUNDARY_YES
                else:
                    decision[k] = _dot_decision(cp, i, e, abbr, abbr_len)
                k += 1
            # On failure every later start inside the marks and closers fails the same way.
            i = e
            continue
        if c == 10:
            j = i + 1
            while j < n and (cp[j] == 32 or cp[j] == 9):
                j += 1
            if j < n and cp[j] == 10:
                starts[k] = i
                ends[k] = j + 1
                decision[k] = BOUNDARY_YES
                k += 1
                i = j + 1
                continue
        i += 1
    return starts[:k].copy(), ends[:k].copy(), decision[:k].copy()


@njit(cache=True)
def trimmed_spans(cp, cuts):
    """Pieces ``[0, cuts[0]), [cuts[0], cuts[1]), ..., [cuts[-1], n)`` trimmed of whitespace,
    empty pieces dropped, as an ``(m, 2)`` int64 array."""
    n = cp.size
    out = np.empty((cuts.size + 1, 2), np.int64)
    m = 0
    start = 0
    for t in range(cuts.size + 1):
        end = cuts[t] if t < cuts.size else n
        s = start
        e = end
        while s < e and _is_space(cp[s]):
            s += 1
        while e > s and _is_space(cp[e - 1]):
            e -= 1
        if s < e:
            out[m, 0] = s
            out[m, 1] = e
            m += 1
        start = end
    return out[:m].copy()
