"""Source overlap: word n-grams an answer shares with the union of the sources it cites.

Words are folded ``\\w+`` runs (:func:`judges.checks.fold.fold`: accents stripped, case folded, no
stemming, no stop-word removal); an n-gram is ``n`` consecutive words (default 2). Two measures
over the *sets* of n-grams, ``A`` of the answer and ``S`` of all sources together:

* ``jaccard = |A ∩ S| / |A ∪ S|``: symmetric, so it also falls as the sources grow longer; a
  30-word answer citing a 1,000-word page scores at most about 0.03 even if copied verbatim;
* ``containment = |A ∩ S| / |A|``: the share of the answer's n-grams found in the sources, which
  does not depend on how much else the sources say.

:func:`judges.checks.cites_sources` thresholds one of them (``metric``), containment by default
for that reason. An answer too short to have an n-gram scores 0.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import NamedTuple

from judges.checks.fold import fold

_WORD = re.compile(r"\w+")


class Overlap(NamedTuple):
    jaccard: float
    containment: float
    shared: int  # |A ∩ S|
    answer_ngrams: int  # |A|
    source_ngrams: int  # |S|


def ngrams(text: str, n: int = 2) -> set[tuple[str, ...]]:
    """The set of word n-grams of ``text`` (folded words)."""
    if n < 1:
        raise ValueError(f"n must be at least 1, got {n}")
    words = _WORD.findall(fold(text))
    return {tuple(words[i : i + n]) for i in range(len(words) - n + 1)}


def overlap(answer: str, sources: Iterable[str], n: int = 2) -> Overlap:
    """Jaccard and containment of the answer's n-grams against the union of the sources'."""
    a = ngrams(answer, n)
    s: set[tuple[str, ...]] = set()
    for text in sources:
        s |= ngrams(text, n)
    shared = len(a & s)
    union = len(a | s)
    return Overlap(
        jaccard=shared / union if union else 0.0,
        containment=shared / len(a) if a else 0.0,
        shared=shared,
        answer_ngrams=len(a),
        source_ngrams=len(s),
    )
