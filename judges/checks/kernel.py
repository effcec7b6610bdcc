"""Numba kernel for the grounding checks: where a number mention may start, in one pass.

:func:`number_starts` is exactly :func:`judges.checks.numbers._starts_reference` (the readable
reference, kept beside it and compared on arbitrary text by the tests): the ascending positions
where a match of ``numbers._PATTERN`` may start. The reference makes some fifty ``str.find``
sweeps and a Python step per hit; the kernel makes one sweep over the code points.

Texts are passed as ``np.uint32`` code points (``text.encode("utf-32-le", "surrogatepass")``),
so an array index is a Python ``str`` offset, with a parallel array of character classes
(``str.isalnum``/``isdecimal``/``isspace`` and currency symbol, computed by Python for the
distinct non-ASCII characters of the text) and the lowered text (``fold.re_lower``, same length).
"""

from __future__ import annotations

import numpy as np
from numba import njit

ALNUM, DECIMAL, LETTER, SPACE, SYMBOL = 1, 2, 4, 8, 16


def char_class(c: str, symbols: str) -> int:
    """The class bits of one character (what the reference asks of it)."""
    bits = 0
    if c.isalnum():
        bits |= ALNUM
        if not c.isdecimal():
            bits |= LETTER
    if c.isdecimal():
        bits |= DECIMAL
    if c.isspace():
        bits |= SPACE
    if c in symbols:
        bits |= SYMBOL
    return bits


PAIRS = 128 * 128  # needles are dispatched on their first two (ASCII) characters


def needle_table(needles: list[tuple[str, int]]):
    """The kernel's form of ``(needle, mode)`` pairs (ASCII, at least two characters each):
    their code points end to end, their offsets, their order sorted by first two characters,
    where each two-character key's run starts in that order, and their modes."""
    for w, _ in needles:
        if len(w) < 2 or not w.isascii():
            raise ValueError(f"needle {w!r}: the kernel needs at least two ASCII characters")

    def key(w: str) -> int:
        return ord(w[0]) * 128 + ord(w[1])

    order = sorted(range(len(needles)), key=lambda k: key(needles[k][0]))
    flat = np.array([ord(c) for w, _ in needles for c in w], dtype=np.uint32)
    offsets = np.zeros(len(needles) + 1, dtype=np.int64)
    np.cumsum([len(w) for w, _ in needles], out=offsets[1:])
    head = np.zeros(PAIRS + 1, dtype=np.int64)
    for w, _ in needles:
        head[key(w) + 1] += 1
    np.cumsum(head, out=head)
    mode = np.array([m for _, m in needles], dtype=np.uint8)
    return flat, offsets, np.array(order, dtype=np.int64), head, mode


@njit(cache=True)
def _mark_needles(hay, needles, offsets, order, head, mode, cls, text, marks):
    """Mark where the needles occur in ``hay`` (dispatched on their first two characters); for
    a multiplier word (mode 1), the two characters before its run of spaces and hyphens."""
    n = len(hay)
    for p in range(n - 1):
        c, d = hay[p], hay[p + 1]
        if c >= 128 or d >= 128:
            continue
        key = c * 128 + d
        for k in range(head[key], head[key + 1]):
            w = order[k]
            lo, hi = offsets[w], offsets[w + 1]
            if p + hi - lo > n:
                continue
            ok = True
            for j in range(2, hi - lo):
                if hay[p + j] != needles[lo + j]:
                    ok = False
                    break
            if not ok:
                continue
            if mode[w] == 0:
                marks[p] = 1
            else:
                i = p
                while i > 0 and ((cls[i - 1] & 8) != 0 or text[i - 1] == 45):
                    i -= 1
                if i - 1 >= 0:
                    marks[i - 1] = 1
                if i - 2 >= 0:
                    marks[i - 2] = 1


@njit(cache=True)
def number_starts(
    text,
    low,
    cls,
    case_needles,
    case_offsets,
    case_order,
    case_head,
    case_mode,
    low_needles,
    low_offsets,
    low_order,
    low_head,
    low_mode,
):
    """Ascending candidate start positions (see the module notes); ``text``, ``low``: uint32
    code points of the text and of its lowered form; ``cls``: class bits per position."""
    n = len(text)
    marks = np.zeros(n + 1, dtype=np.uint8)
    if n > 0:
        marks[0] = 1
    for p in range(n):
        c = text[p]
        if c == 10:  # list markers at line starts
            marks[p + 1] = 1
        b = cls[p]
        if (b & 2) != 0 or c == 91 or c == 40 or c == 46 or c == 39 or c == 64 or (b & 16) != 0:
            marks[p] = 1
            if c == 64:  # "@": where the e-mail address's run of [\w.+-] starts
                i = p
                while i > 0 and (
                    (cls[i - 1] & 1) != 0
                    or text[i - 1] == 46
                    or text[i - 1] == 43
                    or text[i - 1] == 45
                    or text[i - 1] == 95
                ):
                    i -= 1
                marks[i] = 1
            elif (b & 16) != 0:  # US$, A$, NZ$...
                if p >= 1:
                    marks[p - 1] = 1
                if p >= 2:
                    marks[p - 2] = 1
            elif (b & 2) != 0 and p > 0 and (cls[p - 1] & 2) == 0:  # H1N1, COVID-19
                i = p - 1 if text[p - 1] == 45 else p
                while i > 0 and (cls[i - 1] & 4) != 0:
                    i -= 1
                marks[i] = 1
    # currency codes in the text as written, words in the lowered text
    _mark_needles(text, case_needles, case_offsets, case_order, case_head, case_mode, cls, text, marks)
    _mark_needles(low, low_needles, low_offsets, low_order, low_head, low_mode, cls, text, marks)
    return np.nonzero(marks[:n])[0]
