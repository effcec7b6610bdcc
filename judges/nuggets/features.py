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
with the other runs judged beside it. The spans that carry a nugget (:func:`spans_of`) are where
the answer states it: in the best sentence, the words from its first to its last word of the
nugget, then the same in each further sentence that adds content stems of the nugget not yet
found.
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
    """An answer prepared once for all the nuggets of its topic: per stem, the sentences that
    hold it (a bit per sentence)."""

    def __init__(self, answer: Text):
        self.text = answer
        self.n_sentences = len(answer.sentences)
        where: dict[int, int] = {}
        stems = answer.stems.tolist()
        for i, (lo, hi) in enumerate(answer.sentences):
            for st in set(stems[lo:hi]):
                where[st] = where.get(st, 0) | (1 << i)
        self.where = where
        self.all_stems = set(stems)
        self.bigrams = _bigrams(answer.stems)
        self.source = Source(answer.text)
        self.negated = [bool(_NEGATION_RE.search(answer.text[s:e])) for s, e in answer.sentence_chars]


class NuggetIndex:
    """A nugget prepared once for all the answers of its topic."""

    def __init__(self, nugget: Text, weights: dict[int, float], query_stems: set[int]):
        self.text = nugget
        self.stems = _content_stems(nugget)
        self.w = [weights.get(st, 0.0) for st in self.stems]
        self.total = sum(self.w) or 1.0
        self.specific = [k for k, st in enumerate(self.stems) if st not in query_stems]
        self.bigrams = _bigrams(nugget.stems)
        self.negated = bool(_NEGATION_RE.search(nugget.text))


def lexical(nugget: NuggetIndex, answer: AnswerIndex) -> dict:
    """The lexical features of one pair, with the best sentence and, per content stem of the
    nugget, the sentences that hold it (``_masks``, a bit per sentence)."""
    stems, w, total = nugget.stems, nugget.w, nugget.total
    masks = [answer.where.get(st, 0) for st in stems]
    n_sent = answer.n_sentences

    def weight_in(bits: int) -> float:
        return sum(wk for wk, m in zip(w, masks) if m & bits) / total

    counts = [sum(1 for m in masks if m >> i & 1) for i in range(n_sent)]
    weighted = [weight_in(1 << i) for i in range(n_sent)]
    best = max(range(n_sent), key=lambda i: (weighted[i] + 1e-9 * counts[i], -i)) if n_sent else 0
    if n_sent and stems and nugget.specific:
        spec = sum(1 for k in nugget.specific if masks[k] >> best & 1) / len(nugget.specific)
    else:
        spec = 1.0 if stems else 0.0
    pair = max((weight_in((1 << best) | (1 << j)) for j in range(n_sent)), default=0.0)
    anywhere = [st in answer.all_stems for st in stems]
    negation_answer = answer.negated[best] if answer.negated else False
    return {
        "sentence_recall": max(counts) / len(stems) if stems and n_sent else 0.0,
        "weighted_recall": weighted[best] if n_sent else 0.0,
        "pair_recall": pair,
        "answer_recall": sum(wk for wk, a in zip(w, anywhere) if a) / total if stems else 0.0,
        "specific_recall": spec,
        "missing_weight": sum((wk for wk, a in zip(w, anywhere) if not a), 0.0),
        "bigram_recall": len(nugget.bigrams & answer.bigrams) / len(nugget.bigrams) if nugget.bigrams else 0.0,
        "negation_mismatch": float(nugget.negated != negation_answer),
        "log_nugget_words": math.log1p(len(stems)),
        "_best": best,
        "_masks": masks,
        "_counts": counts,
    }


def grounding(nugget: Claim, answer: AnswerIndex) -> tuple[list[str], list[str]]:
    """The nugget's numbers and entities (a :class:`~judges.checks.Claim`, prepared once per
    nugget) the answer does not state."""
    m = missing(nugget, answer.source)
    numbers, entities = m
    return list(numbers), list(entities)


def spans_of(
    answer: Text, nugget: NuggetIndex, masks: list[int], counts: list[int], best: int
) -> list[tuple[int, int]]:
    """Character spans of the answer that carry the nugget (``masks``, ``counts`` and ``best`` as
    :func:`lexical` gives them): the sentences holding its words, the best sentence first (the one
    of highest weighted share, where the rare words of the nugget are, not its topic's subject),
    then, greedily, each sentence adding content stems of the nugget not in the query and not yet
    covered (by how many it holds: a sentence that only repeats the query's words states nothing
    of the nugget); in each, the span runs from the first token whose stem is one of the
    nugget's content stems to the last. Disjoint and in text order; none when no sentence holds
    a word of the nugget.

    Not the Smith-Waterman alignment of the nugget against the whole answer (its
    ``norm_score``): its best local match is often the few words every nugget of a topic shares
    (the query's subject, "the telephone"), wherever they stand."""
    spans: list[tuple[int, int]] = []
    wanted = set(nugget.stems)
    specific = set(nugget.specific)
    covered = [False] * len(masks)
    order = sorted(range(len(counts)), key=lambda i: (i != best, -counts[i], i))
    for i in order:
        holds = [bool(m >> i & 1) for m in masks]
        adds = [k for k, (h, c) in enumerate(zip(holds, covered)) if h and not c]
        if not adds or (i != best and not specific.intersection(adds)):
            continue
        covered = [h or c for h, c in zip(holds, covered)]
        lo, hi = answer.sentences[i]
        hits = [k for k in range(lo, hi) if int(answer.stems[k]) in wanted and answer.content[k]]
        if hits:
            spans.append((int(answer.tokens.starts[hits[0]]), int(answer.tokens.ends[hits[-1]])))
    return sorted(spans)
