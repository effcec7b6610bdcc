"""Nugget features of a (nugget, answer) pair: does the answer contain the nugget's fact?

A person reading the answer looks for the nugget's words (in any form), in one place or spread
over two sentences, and checks its details: numbers, names, a negation. The features say the
same in numbers. Terms as in :mod:`judges.support.features`: a *stem* is the Snowball stem of a
token, a *content stem* one of a content token (:mod:`judges.support.lexicon`); a nugget's
content stems are counted once each. The *weight* of a stem is its inverse document frequency
within the topic's nugget bank, ``ln((N + 1) / df)`` over the ``N`` nuggets and the query (a
word every nugget of the topic repeats, the topic's subject, tells little), and a stem of the
query weighs a quarter of that (every answer repeats the query).

* ``sentence_recall``: the share of the nugget's content stems found in the answer sentence
  that holds most of them (the plain matcher's feature);
* ``weighted_recall``: the same share weighted, in the sentence of highest weighted share;
* ``pair_recall``: the weighted share found in the best two sentences together (a fact spread
  over two sentences);
* ``answer_recall``: the weighted share found anywhere in the answer;
* ``specific_recall``: the share of the nugget's content stems *not in the query* found in the
  best sentence (1 when every stem is in the query);
* ``missing_weight``: the summed weight of the content stems the answer lacks (rare words missing);
* ``bigram_recall``: the share of the nugget's adjacent stem pairs found adjacent in the answer;
* ``norm_score``: Smith-Waterman score of the nugget against the whole answer, over stem ids
  (the citation judge's kernel, :func:`judges.align.kernel.align_batch`, and scoring), divided
  by ``match x nugget tokens``;
* ``numbers_missing``, ``entities_missing``: how many numbers and named entities of the nugget
  the answer does not state (:func:`judges.checks.missing`, as for citations);
* ``negation_mismatch``: 1 when exactly one of the nugget and its best sentence says "not",
  "no", "never", "without" (or ``n't``);
* ``log_nugget_words``: ``ln(1 + content stems of the nugget)``.

Each depends only on the nugget, the topic's bank and the one answer: a judgment does not change
with the other runs judged beside it. The spans that carry a nugget (:func:`spans_of`) are the
aligned span, then each further sentence that adds content stems of the nugget not yet found.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from judges.checks import Claim, Source, missing
from judges.support.lexicon import Lexicon
from judges.text.segment import split_sentences
from judges.text.tokenize import Tokens, Vocabulary

FEATURES: tuple[str, ...] = (
    "sentence_recall",
    "weighted_recall",
    "pair_recall",
    "answer_recall",
    "specific_recall",
    "missing_weight",
    "bigram_recall",
    "norm_score",
    "numbers_missing",
    "entities_missing",
    "negation_mismatch",
    "log_nugget_words",
)
QUERY_DISCOUNT = 0.25
NEGATION = frozenset({"not", "no", "never", "without", "none", "nor", "cannot"})
_NEGATION_RE = re.compile(r"\b(?:not|no|never|without|none|nor|cannot)\b|n't\b", re.IGNORECASE)


@dataclass
class Text:
    """A text's tokens with their stems and content flags, and its sentences as token ranges."""

    text: str
    tokens: Tokens
    stems: np.ndarray  # stem id per token
    content: np.ndarray  # 1 per content token
    sentences: list[tuple[int, int]]  # token index ranges [lo, hi)
    sentence_chars: list[tuple[int, int]]  # character spans of the sentences


class Encoder:
    """Tokens and stems of nuggets and answers, in one vocabulary (as the citation judge's)."""

    def __init__(self) -> None:
        self.vocab = Vocabulary()
        self.lexicon = Lexicon()

    def encode(self, texts: list[str], sentences: bool = False) -> list[Text]:
        toks = self.vocab.encode_many(texts)
        stem, content = self.lexicon.update(self.vocab)
        out = []
        for text, t in zip(texts, toks):
            chars = split_sentences(text) if sentences else [(0, len(text))]
            ranges = [
                (int(np.searchsorted(t.starts, s)), int(np.searchsorted(t.starts, e))) for s, e in chars
            ]  # a token belongs to the sentence it starts in
            out.append(Text(text, t, stem[t.ids], content[t.ids], ranges, chars))
        return out


def _content_stems(t: Text) -> list[int]:
    return list(dict.fromkeys(int(s) for s, c in zip(t.stems, t.content) if c))


def bank_weights(nuggets: list[Text], query: Text) -> dict[int, float]:
    """Each content stem of the bank's nuggets: its weight (see the module doc)."""
    n = len(nuggets) + 1
    df: dict[int, int] = {}
    for t in (*nuggets, query):
        for s in _content_stems(t):
            df[s] = df.get(s, 0) + 1
    in_query = set(_content_stems(query))
    return {s: math.log((n + 1) / d) * (QUERY_DISCOUNT if s in in_query else 1.0) for s, d in df.items()}


def _bigrams(stems: np.ndarray) -> set[tuple[int, int]]:
    return set(zip(stems[:-1].tolist(), stems[1:].tolist()))


class AnswerIndex:
    """An answer prepared once for all the nuggets of its topic."""

    def __init__(self, answer: Text):
        self.text = answer
        self.sentence_stems = [set(answer.stems[lo:hi].tolist()) for lo, hi in answer.sentences]
        self.all_stems = set(answer.stems.tolist())
        self.bigrams = _bigrams(answer.stems)
        self.source = Source(answer.text)
        self.negated = [bool(_NEGATION_RE.search(answer.text[s:e])) for s, e in answer.sentence_chars]


def lexical(nugget: Text, answer: AnswerIndex, weights: dict[int, float], query_stems: set[int]) -> dict:
    """The lexical features of one pair, with the best sentence and the sentences found."""
    stems = _content_stems(nugget)
    w = np.array([weights.get(s, 0.0) for s in stems]) if stems else np.zeros(0)
    total = float(w.sum()) or 1.0
    found = np.array([[s in sent for s in stems] for sent in answer.sentence_stems], dtype=bool).reshape(
        len(answer.sentence_stems), len(stems)
    )
    n = max(len(stems), 1)
    counts = found.sum(axis=1) if len(found) else np.zeros(1)
    weighted = (found @ w) / total if len(found) else np.zeros(1)
    best = int(np.argmax(weighted + 1e-9 * counts)) if len(found) else 0
    specific = [i for i, s in enumerate(stems) if s not in query_stems]
    if len(found) and len(found[0]) and specific:
        spec = float(found[best, specific].mean())
    else:
        spec = 1.0 if stems else 0.0
    pair = float(weighted[best]) if len(found) else 0.0
    if len(found) > 1:
        union = found | found[best]
        pair = float(((union @ w) / total).max())
    anywhere = np.array([s in answer.all_stems for s in stems], dtype=bool)
    nug_bigrams = _bigrams(nugget.stems)
    negation_nugget = bool(_NEGATION_RE.search(nugget.text))
    negation_answer = answer.negated[best] if answer.negated else False
    return {
        "sentence_recall": float(counts.max() / n) if stems and len(found) else 0.0,
        "weighted_recall": float(weighted[best]) if len(found) else 0.0,
        "pair_recall": pair,
        "answer_recall": float((anywhere @ w) / total) if stems else 0.0,
        "specific_recall": spec,
        "missing_weight": float(w[~anywhere].sum()) if stems else 0.0,
        "bigram_recall": len(nug_bigrams & answer.bigrams) / len(nug_bigrams) if nug_bigrams else 0.0,
        "negation_mismatch": float(negation_nugget != negation_answer),
        "log_nugget_words": math.log1p(len(stems)),
        "_best": best,
        "_found": found,
        "_stems": stems,
    }


def grounding(nugget: Claim, answer: AnswerIndex) -> tuple[list[str], list[str]]:
    """The nugget's numbers and entities (a :class:`~judges.checks.Claim`, prepared once per
    nugget) the answer does not state."""
    m = missing(nugget, answer.source)
    numbers, entities = m
    return list(numbers), list(entities)


def spans_of(answer: Text, aligned: tuple[int, int], found: np.ndarray, best: int) -> list[tuple[int, int]]:
    """Character spans of the answer that carry the nugget: the aligned span (tokens
    ``aligned``), then, greedily, each sentence adding content stems not yet covered (the best
    sentence first). Disjoint and in text order."""
    spans: list[tuple[int, int]] = []
    lo, hi = aligned
    if hi > lo:
        spans.append((int(answer.tokens.starts[lo]), int(answer.tokens.ends[hi - 1])))
    if found.size:
        covered = np.zeros(found.shape[1], dtype=bool)
        order = [best] + [i for i in np.argsort(-found.sum(axis=1), kind="stable").tolist() if i != best]
        for i in order:
            adds = found[i] & ~covered
            if not adds.any():
                continue
            covered |= found[i]
            s, e = answer.sentence_chars[i]
            if not any(a < e and s < b for a, b in spans):
                spans.append((s, e))
    return sorted(spans)
