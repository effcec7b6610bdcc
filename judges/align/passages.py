"""A cited document prepared for alignment: tokens, passage windows, and the lexical prefilter.

Long documents are cut into overlapping windows of whole sentences
(:func:`judges.text.segment.passage_windows`); each citation is aligned only against the
``candidates`` windows with the highest IDF-weighted token overlap with the cited sentence.
IDF is computed over the windows of the same document, so a judgment never depends on which
other documents or runs are judged alongside it.

Candidate order, total: higher prefilter score first, then the earlier window. Every backend
gets the same candidates, so backends differ only in how they align.
"""

from __future__ import annotations

import numpy as np

from judges.text.segment import passage_windows, split_sentences
from judges.text.tokenize import Tokens, Vocabulary


class DocIndex:
    """Tokens of one document text and its windows as token ranges ``[lo, hi)``."""

    __slots__ = ("text", "tokens", "windows", "_win_tokens", "_win_of", "_idf")

    def __init__(self, text: str, vocab: Vocabulary, window_sentences: int, window_stride: int):
        self.text = text
        self.tokens: Tokens = vocab.encode(text)
        n = len(self.tokens)
        sentences = split_sentences(text)
        sentence_starts = np.array([s for s, _ in sentences], dtype=np.int64)
        bounds = np.append(np.searchsorted(self.tokens.starts, sentence_starts), n)
        bounds[0] = 0
        ranges = passage_windows(len(sentences), window_sentences, window_stride)
        self.windows = np.array([(bounds[a], bounds[b]) for a, b in ranges], dtype=np.int64).reshape(-1, 2)
        self._win_tokens = None  # prefilter data, built on first use (only long documents need it)

    def _build_prefilter(self) -> None:
        ids = self.tokens.ids
        per_window = [np.unique(ids[lo:hi]) for lo, hi in self.windows]
        self._win_tokens = np.concatenate(per_window) if per_window else np.zeros(0, np.int32)
        self._win_of = np.repeat(np.arange(len(per_window)), [len(w) for w in per_window])
        uniq, df = np.unique(self._win_tokens, return_counts=True)
        idf = np.log1p(len(per_window) / df)
        self._idf = idf[np.searchsorted(uniq, self._win_tokens)]

    def candidates(self, answer_ids: np.ndarray, k: int) -> np.ndarray:
        """Indices of the windows to align ``answer_ids`` against, best first."""
        n_windows = len(self.windows)
        if n_windows <= k:
            return np.arange(n_windows)
        scores = self.prefilter_scores(answer_ids)
        order = np.lexsort((np.arange(n_windows), -scores))
        return order[:k]

    def prefilter_scores(self, answer_ids: np.ndarray) -> np.ndarray:
        """The prefilter score of every window (for the debug log)."""
        if self._win_tokens is None:
            self._build_prefilter()
        hit = np.isin(self._win_tokens, answer_ids)
        return np.bincount(self._win_of[hit], weights=self._idf[hit], minlength=len(self.windows))

    @property
    def n_tokens(self) -> int:
        return len(self.tokens)
