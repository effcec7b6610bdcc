"""The packed batch layout every alignment backend takes: a batch's answers and documents as
flat token-id arrays with offsets (:class:`Packed`, built by :mod:`judges.engine.judge`), the
prefilter's citations and document windows in that layout (:class:`CandidateQuery`,
:class:`WindowLanes`), and the checking and converting of the packed arguments
(:func:`normalize_packed`).

A leaf module (numpy only): :mod:`judges.align.backends` and the Numba kernels in
:mod:`judges.align.kernel` both import it, so neither needs the other.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

if TYPE_CHECKING:
    from judges.align.passages import DocIndex
    from judges.text.tokenize import Tokens


class Packed(NamedTuple):
    """A batch's answers and documents as flat token-id arrays with offsets (the engines' layout)."""

    a_tokens: np.ndarray  # answer q is a_tokens[a_offsets[q]:a_offsets[q + 1]]
    a_offsets: np.ndarray
    d_tokens: np.ndarray  # document d is d_tokens[d_base[d]:d_base[d + 1]]
    d_base: np.ndarray

    @classmethod
    def of(cls, answers: list[Tokens], docs: list[DocIndex]) -> "Packed":
        """Cited sentences and their documents (a citation pair's claim and evidence)."""
        return cls.of_ids([a.ids for a in answers], [d.tokens.ids for d in docs])

    @classmethod
    def of_ids(cls, answers: list[np.ndarray], docs: list[np.ndarray]) -> "Packed":
        """Claims and evidence texts of any kind of pair as token-id (or stem-id) arrays."""
        a_offsets = np.zeros(len(answers) + 1, dtype=np.int64)
        np.cumsum([len(a) for a in answers], out=a_offsets[1:])
        d_base = np.zeros(len(docs) + 1, dtype=np.int64)
        np.cumsum([len(d) for d in docs], out=d_base[1:])
        a_tokens = np.concatenate(answers) if answers else np.zeros(0, np.int32)
        d_tokens = np.concatenate(docs) if docs else np.zeros(0, np.int32)
        return cls(a_tokens, a_offsets, d_tokens, d_base)


@dataclass(frozen=True)
class CandidateQuery:
    """The citations whose candidate windows the prefilter picks (:meth:`judges.align.backends.Backend.candidates`)."""

    a_tokens: np.ndarray  # answer q is a_tokens[a_offsets[q]:a_offsets[q + 1]] (Packed's)
    a_offsets: np.ndarray
    cit_a: np.ndarray  # citation c's answer
    cit_w0: np.ndarray  # its document's windows: rows cit_w0[c]:cit_w1[c] of the lanes
    cit_w1: np.ndarray


@dataclass(frozen=True)
class WindowLanes:
    """The passage windows of a batch's documents, one after the other, and the tokens they cover."""

    d_tokens: np.ndarray  # the documents' tokens (Packed's)
    d_weights: np.ndarray  # per token position: the token's weight in its document (prefilter.idf_weights)
    win_lo: np.ndarray  # window w is d_tokens[win_lo[w]:win_hi[w]]
    win_hi: np.ndarray


def normalize_packed(a_tokens, a_offsets, pair_a, b_tokens, b_lo, b_hi, match, mismatch, gap):
    """Validate and convert packed batch arguments (shared by every backend).

    Token arrays become contiguous int32, offsets/indices/bounds contiguous int64, scoring
    parameters Python ints. Raises ``ValueError`` on inconsistent shapes, out-of-range indices,
    ``gap > 0`` (the reference's traceback is undefined there) or ``|parameter| >= 2**30``.
    """
    a_tokens = np.ascontiguousarray(a_tokens, dtype=np.int32)
    b_tokens = np.ascontiguousarray(b_tokens, dtype=np.int32)
    a_offsets = np.ascontiguousarray(a_offsets, dtype=np.int64)
    pair_a = np.ascontiguousarray(pair_a, dtype=np.int64)
    b_lo = np.ascontiguousarray(b_lo, dtype=np.int64)
    b_hi = np.ascontiguousarray(b_hi, dtype=np.int64)
    for name, arr in (
        ("a_tokens", a_tokens),
        ("a_offsets", a_offsets),
        ("pair_a", pair_a),
        ("b_tokens", b_tokens),
        ("b_lo", b_lo),
        ("b_hi", b_hi),
    ):
        if arr.ndim != 1:
            raise ValueError(f"{name} must be 1-D, got shape {arr.shape}")
    n = pair_a.shape[0]
    if b_lo.shape[0] != n or b_hi.shape[0] != n:
        raise ValueError(f"pair_a, b_lo and b_hi must have the same length, got {n}, {b_lo.shape[0]}, {b_hi.shape[0]}")
    if a_offsets.shape[0] == 0:
        raise ValueError("a_offsets must have len(answers) + 1 >= 1 entries")
    n_answers = a_offsets.shape[0] - 1
    if a_offsets[0] < 0 or a_offsets[-1] > a_tokens.shape[0] or np.any(np.diff(a_offsets) < 0):
        raise ValueError("a_offsets must be non-decreasing within [0, len(a_tokens)]")
    if n:
        if pair_a.min() < 0 or pair_a.max() >= n_answers:
            raise ValueError(f"pair_a must index answers 0..{n_answers - 1}")
        if b_lo.min() < 0 or b_hi.max() > b_tokens.shape[0] or np.any(b_hi < b_lo):
            raise ValueError("need 0 <= b_lo[k] <= b_hi[k] <= len(b_tokens) for every pair")
    match, mismatch, gap = int(match), int(mismatch), int(gap)
    if gap > 0:
        raise ValueError(f"gap must be <= 0, got {gap}")
    for name, v in (("match", match), ("mismatch", mismatch), ("gap", gap)):
        if abs(v) >= 1 << 30:
            raise ValueError(f"|{name}| must be < 2**30, got {v}")
    return a_tokens, a_offsets, pair_a, b_tokens, b_lo, b_hi, match, mismatch, gap
