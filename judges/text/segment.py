"""Sentence segmentation of documents and passage windows over long documents.

Sentences are ``(start, end)`` character spans into the original text, trimmed of surrounding
whitespace. A boundary is a run of ``.``, ``!``, ``?`` or ``…`` (optionally followed by closing
quotes or brackets) followed by whitespace, or a blank line. A ``.`` boundary is rejected when:

* the word before it is a known abbreviation (``Dr.``, ``e.g.``, ``U.S.``, ``approx.``, ...);
* the word before it is a single letter (an initial: ``J. R. Smith``);
* the next word starts with a lower-case letter (``approx. five``).

Decimals (``3.5``) and URLs (``example.org/a.b``) never split because their dots are not
followed by whitespace.
"""

from __future__ import annotations

import re

import numpy as np

from judges.text.kernel import (
    BOUNDARY_NO,
    BOUNDARY_UNDECIDED,
    BOUNDARY_YES,
    scan_boundaries,
    sentence_spans,
    trimmed_spans,
)

ABBREVIATIONS = frozenset(
    """
    mr mrs ms dr prof sr jr st mt ft vs etc e.g i.e cf al fig figs eq eqs no nos vol vols
    p pp ed eds approx ca est inc ltd co corp dept univ gov gen col lt sgt capt rev hon
    jan feb mar apr jun jul aug sep sept oct nov dec mon tue wed thu fri sat sun
    u.s u.k u.n e.u a.m p.m ph.d m.d b.a m.a b.sc m.sc d.c n.y l.a
    """.split()
)

# ABBREVIATIONS as a padded byte table for the scan kernel.
_ABBR_LIST = sorted(ABBREVIATIONS)
_ABBR = np.zeros((len(_ABBR_LIST), max(map(len, _ABBR_LIST))), np.uint8)
for _row, _abbr in enumerate(_ABBR_LIST):
    _ABBR[_row, : len(_abbr)] = np.frombuffer(_abbr.encode("ascii"), np.uint8)
_ABBR_LEN = np.array([len(a) for a in _ABBR_LIST], np.int64)
del _row, _abbr

_BOUNDARY = re.compile(r"[.!?\u2026]+[\"'\u2019\u201d)\]]*(?=\s|$)|\n[ \t]*\n")
_WORD_BEFORE = re.compile(r"(\S+?)\.+$")
_NEXT_WORD = re.compile(r"\s*[\"'\u2018\u201c(\[]*(\S)")


def _is_boundary(text: str, m: re.Match) -> bool:
    """The reference decision for one ``_BOUNDARY`` match."""
    return _decide(text, m.start(), m.end())


def _decide(text: str, start: int, end: int) -> bool:
    """Whether the ``_BOUNDARY`` match ``text[start:end]`` ends a sentence."""
    mark = text[start:end]
    if mark.startswith("\n"):
        return True
    if not mark.startswith(".") or mark.startswith(".."):
        return True
    nxt = _NEXT_WORD.match(text, end)
    if nxt and nxt.group(1).islower():
        return False
    before = _WORD_BEFORE.search(text, max(0, start - 40), start + 1)
    if before is None:
        return True
    word = before.group(1).lstrip("\"'(\u2018\u201c[")
    if len(word) == 1 and word.isalpha():
        return False  # an initial
    return word.lower() not in ABBREVIATIONS


def split_sentences(text: str) -> list[tuple[int, int]]:
    """Split ``text`` into sentence spans ``(start, end)``; empty pieces are dropped.

    A Numba scan (:mod:`judges.text.kernel`) finds every ``_BOUNDARY`` match and decides it;
    the few decisions that need Unicode letter properties are made by :func:`_decide`.
    Identical to :func:`split_sentences_reference`, which the tests check.
    """
    if text.isascii():
        cp = np.frombuffer(text.encode("ascii"), np.uint8)
    else:
        cp = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), np.uint32)
    flat, undecided = sentence_spans(cp, _ABBR, _ABBR_LEN)
    if undecided:
        starts, ends, decision = scan_boundaries(cp, _ABBR, _ABBR_LEN)
        for i in np.flatnonzero(decision == BOUNDARY_UNDECIDED).tolist():
            decision[i] = BOUNDARY_YES if _decide(text, int(starts[i]), int(ends[i])) else BOUNDARY_NO
        flat = trimmed_spans(cp, ends[decision == BOUNDARY_YES]).ravel()
    it = iter(flat.tolist())
    return list(zip(it, it))


def split_sentences_reference(text: str) -> list[tuple[int, int]]:
    """The readable regex implementation of :func:`split_sentences`."""
    spans: list[tuple[int, int]] = []
    start = 0
    for m in _BOUNDARY.finditer(text):
        if _is_boundary(text, m):
            _append_trimmed(text, start, m.end(), spans)
            start = m.end()
    _append_trimmed(text, start, len(text), spans)
    return spans


def _append_trimmed(text: str, start: int, end: int, spans: list[tuple[int, int]]) -> None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if start < end:
        spans.append((start, end))


def passage_windows(n_sentences: int, size: int, stride: int) -> list[tuple[int, int]]:
    """Windows of ``size`` consecutive sentences every ``stride`` sentences, as sentence ranges.

    The last window always ends at the last sentence, so every sentence is covered; with
    ``stride < size`` neighbouring windows overlap and any ``size - stride + 1`` adjacent
    sentences share a window (so an answer that fuses two adjacent sentences aligns whole).
    A document of at most ``size`` sentences is one window.
    """
    if size < 1 or stride < 1:
        raise ValueError("window size and stride must be >= 1")
    if n_sentences <= size:
        return [(0, n_sentences)]
    windows = [(s, s + size) for s in range(0, n_sentences - size + 1, stride)]
    if windows[-1][1] < n_sentences:
        windows.append((n_sentences - size, n_sentences))
    return windows
