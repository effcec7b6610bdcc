"""A cited document prepared for alignment: tokens with offsets and its passage windows.

Long documents are cut into overlapping windows of whole sentences
(:func:`judges.text.segment.passage_windows`); a citation is aligned only against the windows
the lexical prefilter (:mod:`judges.align.prefilter`) picks. Windows are token ranges
``[lo, hi)``; a document of at most ``windows.sentences`` sentences is one window.
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from judges.align.prefilter import idf_weights
from judges.text.segment import passage_windows, split_sentences
from judges.text.tokenize import Tokens, Vocabulary


class DocIndex:
    """Tokens of one document text, its sentences, its windows, and (for long documents) token weights.

    ``sentences``: ``(n, 2)`` int64 character spans of :func:`judges.text.segment.split_sentences`,
    the one split of the document (windows here, the LLM's evidence in :mod:`judges.attest.cascade`).
    """

    __slots__ = ("text", "tokens", "sentences", "windows", "_weights")

    def __init__(self, text: str, vocab: Vocabulary, window_sentences: int, window_stride: int):
        self.text = text
        self.tokens: Tokens = vocab.encode(text)
        self.sentences = np.array(split_sentences(text), dtype=np.int64).reshape(-1, 2)
        bounds = np.append(np.searchsorted(self.tokens.starts, self.sentences[:, 0]), len(self.tokens))
        bounds[0] = 0
        ranges = passage_windows(len(self.sentences), window_sentences, window_stride)
        self.windows = np.array([(bounds[a], bounds[b]) for a, b in ranges], dtype=np.int64).reshape(-1, 2)
        self._weights: Optional[np.ndarray] = None

    def weights(self, window_df) -> np.ndarray:
        """IDF weight of the token at each position (computed once, on first use; ``window_df``
        is the backend's document-frequency counter)."""
        if self._weights is None:
            self._weights = idf_weights(self.tokens.ids, self.windows, window_df)
        return self._weights

    @property
    def n_tokens(self) -> int:
        return len(self.tokens)
