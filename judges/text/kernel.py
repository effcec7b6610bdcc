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
# Tokenizer (ASCII texts, and other texts through their ASCII stand-in: judges.text.tokenize)
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


# --------------------------------------------------------------------------------------------
# Token ids for ASCII texts
#
# An open-addressing hash table (linear probing, load factor at most 1/2) from lower-cased
# token bytes to vocabulary ids. It is only a cache of the vocabulary's dict: every entry is
# copied from the dict, whose entries never change, so a hit is exactly ``dict[token]``; misses
# are resolved in Python, in text order, with ``dict.setdefault`` and then inserted.
#
# ``slots`` is an int32 array ``(capacity, 6)`` (capacity a power of two) of records
# ``[hash, id, offset, length, key_lo, key_hi]``, ``id == -1`` marking an empty slot; the
# lower-cased bytes of the entries are ``arena[offset:offset + length]``, and their first 8
# bytes, zero-padded, also make the little-endian 64-bit key ``key_hi:key_lo``, so most tokens
# compare without reading the arena; ``counts`` (int64[2]) is ``[entries, arena bytes used]``.

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_FNV_PRIME = np.uint64(1099511628211)
_ARENA_LIMIT = 2**31 - 1  # offsets are int32


@njit(cache=True, inline="always")
def _lower(b):
    if 65 <= b <= 90:
        return b + 32
    return b


@njit(cache=True, inline="always")
def _hash_key(buf, s, e):
    """``(hash, key_lo, key_hi)`` of the lower-cased token ``buf[s:e]``: its first 8 bytes as a
    little-endian 64-bit key (two int32 halves) and a non-negative int32 hash of the key, the
    length and (FNV-1a) any further bytes."""
    key = np.uint64(0)
    m = min(e, s + 8)
    for p in range(s, m):
        key |= np.uint64(_lower(buf[p])) << np.uint64(8 * (p - s))
    h = (key ^ np.uint64(e - s)) * _GOLDEN
    for p in range(m, e):
        h = (h ^ np.uint64(_lower(buf[p]))) * _FNV_PRIME
    return (
        np.int32(h >> np.uint64(33)),
        np.int32(np.int64(key & np.uint64(0xFFFFFFFF)) - (1 << 31)),
        np.int32(np.int64(key >> np.uint64(32)) - (1 << 31)),
    )


@njit(cache=True, inline="always")
def _find(buf, s, e, h, key_lo, key_hi, slots, arena):
    """The slot holding token ``buf[s:e]`` (lower-cased), else the empty slot where it goes."""
    mask = slots.shape[0] - 1
    slot = h & mask
    length = e - s
    while True:
        if slots[slot, 1] < 0:
            return slot
        if slots[slot, 0] == h and slots[slot, 3] == length and slots[slot, 4] == key_lo and slots[slot, 5] == key_hi:
            off = slots[slot, 2]
            same = True
            for p in range(8, length):
                if arena[off + p] != _lower(buf[s + p]):
                    same = False
                    break
            if same:
                return slot
        slot = (slot + 1) & mask


@njit(cache=True)
def new_table(capacity, arena_bytes):
    """An empty table: ``(slots, arena, counts)``; ``capacity`` must be a power of two."""
    return np.full((capacity, 6), -1, np.int32), np.empty(arena_bytes, np.uint8), np.zeros(2, np.int64)


@njit(cache=True)
def lookup_ascii_tokens(buf, slots, arena):
    """Tokens of an ASCII text as ``(starts, ends, ids, missed)``: ids are -1 where the table
    misses, and ``missed`` has one row ``[token number, start, end]`` per miss, in text order."""
    n = buf.size
    starts = np.empty(n, np.int32)
    ends = np.empty(n, np.int32)
    ids = np.empty(n, np.int32)
    missed = np.empty((n, 3), np.int64)
    k = 0
    misses = 0
    i = 0
    while i < n:
        j = _token_end(buf, i, n)
        if j < 0:
            i += 1
            continue
        starts[k] = i
        ends[k] = j
        h, key_lo, key_hi = _hash_key(buf, i, j)
        slot = _find(buf, i, j, h, key_lo, key_hi, slots, arena)
        ids[k] = slots[slot, 1]  # -1 when the slot is empty
        if ids[k] < 0:
            missed[misses, 0] = k
            missed[misses, 1] = i
            missed[misses, 2] = j
            misses += 1
        k += 1
        i = j
    return starts[:k].copy(), ends[:k].copy(), ids[:k].copy(), missed[:misses].copy()


@njit(cache=True)
def insert_ascii_tokens(buf, missed, ids, slots, arena, counts):
    """Add the tokens ``buf[start:end]`` of the rows ``[k, start, end]`` of ``missed`` with ids
    ``ids[k]`` (tokens already present are skipped); returns ``(slots, arena)``, reallocated
    when they had to grow."""
    n_ent = counts[0]
    used = counts[1]
    need_ent = n_ent + missed.shape[0]
    need_bytes = used
    for t in range(missed.shape[0]):
        need_bytes += missed[t, 2] - missed[t, 1]
    if need_bytes > _ARENA_LIMIT:
        raise ValueError("token table arena full")
    if need_bytes > arena.size:
        grown = np.empty(max(need_bytes, 2 * arena.size), np.uint8)
        grown[:used] = arena[:used]
        arena = grown
    if 2 * need_ent > slots.shape[0]:
        size = slots.shape[0]
        while 2 * need_ent > size:
            size *= 2
        old = slots
        slots = np.full((size, 6), -1, np.int32)
        mask = size - 1
        for o in range(old.shape[0]):
            if old[o, 1] < 0:
                continue
            slot = old[o, 0] & mask
            while slots[slot, 1] >= 0:
                slot = (slot + 1) & mask
            for c in range(6):
                slots[slot, c] = old[o, c]
    for t in range(missed.shape[0]):
        s = missed[t, 1]
        e = missed[t, 2]
        h, key_lo, key_hi = _hash_key(buf, s, e)
        slot = _find(buf, s, e, h, key_lo, key_hi, slots, arena)
        if slots[slot, 1] >= 0:
            continue
        for p in range(s, e):
            arena[used + p - s] = _lower(buf[p])
        slots[slot, 0] = h
        slots[slot, 1] = ids[missed[t, 0]]
        slots[slot, 2] = used
        slots[slot, 3] = e - s
        slots[slot, 4] = key_lo
        slots[slot, 5] = key_hi
        n_ent += 1
        used += e - s
    counts[0] = n_ent
    counts[1] = used
    return slots, arena


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
    list(range(0x09, 0x0E))
    + list(range(0x1C, 0x21))
    + [0x85, 0xA0, 0x1680]
    + list(range(0x2000, 0x200B))
    + [0x2028, 0x2029, 0x202F, 0x205F, 0x3000]
)


@njit(cache=True)
def _is_space(c):
    if c <= 0x20:
        return (0x09 <= c <= 0x0D) or c >= 0x1C
    if c < 0x85:
        return False
    return (
        c == 0x85
        or c == 0xA0
        or c == 0x1680
        or (0x2000 <= c <= 0x200A)
        or c == 0x2028
        or c == 0x2029
        or c == 0x202F
        or c == 0x205F
        or c == 0x3000
    )


@njit(cache=True)
def _is_mark(c):  # [.!?…]
    return c == 46 or c == 33 or c == 63 or c == 0x2026


@njit(cache=True)
def _is_closer(c):  # ["'’”)\]]
    return c == 34 or c == 39 or c == 0x2019 or c == 0x201D or c == 41 or c == 93


@njit(cache=True)
def _is_opener(c):  # ["'‘“(\[], also the characters stripped from the word before a dot
    return c == 34 or c == 39 or c == 0x2018 or c == 0x201C or c == 40 or c == 91


@njit(cache=True)
def _dot_decision(cp, i, k, abbr, abbr_len):  # noqa: C901 (a Numba kernel: its loops stay explicit)
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
def sentence_spans(cp, abbr, abbr_len):
    """The whole split when the scan decides every boundary: ``(spans, undecided)`` with
    ``spans`` flat ``[s0, e0, s1, e1, ...]``; when ``undecided > 0`` spans is empty and the
    caller must resolve the boundaries itself."""
    starts, ends, decision = scan_boundaries(cp, abbr, abbr_len)
    undecided = 0
    for t in range(decision.size):
        if decision[t] == BOUNDARY_UNDECIDED:
            undecided += 1
    if undecided:
        return np.empty(0, np.int64), undecided
    return trimmed_spans(cp, ends[decision == BOUNDARY_YES]).ravel(), 0


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
