"""What counts as the same word, and which words carry content, per vocabulary id.

The judge's tokens (:mod:`judges.text.tokenize`) are compared by exact normalised form for
alignment. The support features compare *stems* (Snowball English: PyStemmer's C build of the algorithm,
through ``snowballstemmer``, which falls back to its pure-Python copy of the same algorithm; no
data files); a token that does not start with a letter (a number) is its own stem
and count only *content* tokens: tokens that are not in :data:`STOPWORDS` and are not a lone
symbol (``%``, currency signs). Numbers are content and are their own stem.

A :class:`Lexicon` follows a :class:`~judges.text.tokenize.Vocabulary`: it stems each new
vocabulary entry once, so the cost grows with the vocabulary, not with the citations.
"""

from __future__ import annotations

import numpy as np
import snowballstemmer

from judges.text.tokenize import Vocabulary

# English function words (closed classes: articles, pronouns, auxiliaries, prepositions,
# conjunctions, common adverbs of degree). Written out here, no data download.
STOPWORDS = frozenset(
    """
a about above after again against all also am an and any are aren't as at be because been before
being below between both but by can can't cannot could couldn't did didn't do does doesn't doing
don't down during each either etc few for from further had hadn't has hasn't have haven't having he
he'd he'll he's her here here's hers herself him himself his how how's i i'd i'll i'm i've if in
into is isn't it it's its itself just let's may me might more most must mustn't my myself neither
no nor not now of off on once only or other ought our ours ourselves out over own same shall shan't
she she'd she'll she's should shouldn't so some such than that that's the their theirs them
themselves then there there's these they they'd they'll they're they've this those though through
thus to too under until up upon very was wasn't we we'd we'll we're we've were weren't what what's
when when's where where's whether which while who who's whom whose why why's will with within
without won't would wouldn't yet you you'd you'll you're you've your yours yourself yourselves
""".split()
)


class Lexicon:
    """Per vocabulary id: its stem class (int32) and whether it is a content token (uint8)."""

    def __init__(self) -> None:
        self._stemmer = snowballstemmer.stemmer("english")
        self._stem_ids: dict[str, int] = {}
        self._stem = np.zeros(0, dtype=np.int32)
        self._content = np.zeros(0, dtype=np.uint8)

    def update(self, vocab: Vocabulary) -> tuple[np.ndarray, np.ndarray]:
        """``(stem, content)`` arrays covering every id of ``vocab`` (new ids are stemmed now)."""
        known = len(self._stem)
        if len(vocab) > known:
            new = vocab.tokens_from(known)
            words = self._stemmer.stemWords([t for t in new if t[:1].isalpha()])  # one call: C speed with PyStemmer
            it = iter(words)
            stems = np.fromiter(
                (self._stem_ids.setdefault(next(it) if t[:1].isalpha() else t, len(self._stem_ids)) for t in new),
                dtype=np.int32,
                count=len(new),
            )
            content = np.fromiter((is_content(t) for t in new), dtype=np.uint8, count=len(new))
            self._stem = np.concatenate([self._stem, stems])
            self._content = np.concatenate([self._content, content])
        return self._stem, self._content

    @property
    def n_stems(self) -> int:
        return len(self._stem_ids)


def is_content(token: str) -> int:
    """1 for a content token: not a stopword and not a lone symbol."""
    return int(token not in STOPWORDS and (token[:1].isalnum()))
