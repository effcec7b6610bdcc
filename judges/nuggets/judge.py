"""The nugget judgment: for every answer of a topic and every nugget of its bank, support /
partial / not, the probability of each, the answer spans that carry it and the verdict in words.

A nugget judgment is a pair (nugget, answer), as a citation is a pair (sentence, cited
document): the nugget is aligned to the answer with the citation judge's Smith-Waterman kernel
(:func:`judges.align.kernel.align_batch`, its scoring), over stem ids, all pairs of a topic in
one call; the features (:mod:`judges.nuggets.features`) go to the nugget model
(:mod:`judges.nuggets.model`), whose ``P(any)`` and ``P(full)`` give the three probabilities
(not ``1 - P(any)``, partial ``P(any) - P(full)``, support ``P(full)``) and, at its thresholds,
the status.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from judges.align.kernel import align_batch
from judges.align.packed import Packed
from judges.align.reference import GAP, MATCH, MISMATCH
from judges.checks import Claim
from judges.formats.nuggets import ASSIGNMENTS, NuggetBank
from judges.nuggets import features as F
from judges.nuggets.model import NuggetModel


@dataclass(frozen=True)
class NuggetJudgment:
    """The verdict on one (nugget, answer) pair."""

    run_id: str
    topic_id: str
    nugget_index: int
    nugget: str
    importance: str
    assignment: str  # support | partial_support | not_support (NIST's words)
    p_support: float
    p_partial: float
    p_not: float
    score: float  # the expected score: P(support) + 0.5 P(partial)
    spans: tuple[tuple[int, int], ...]  # character offsets into the answer text
    explanation: str
    features: tuple[float, ...]
    human: Optional[str] = None  # the assessors' assignment, when labels were given
    llm_answer: Optional[str] = None  # the LLM's answer (judges.engine.nuggets's cascade), when it was asked
    llm_p_yes: Optional[float] = None  # its P(FULL) from the log-probabilities, when the server gave them
    labelled: bool = False  # ``assignment`` is an assessor's (--labels): final, never asked, error 0
    # the judge's own (p_support, p_partial, p_not) where a label replaced them: the intervals' PPI compares the two
    model: Optional[tuple[float, float, float]] = None


def topic_features(encoder: F.Encoder, bank: NuggetBank, answers: list[str]) -> tuple[np.ndarray, list]:
    """The feature rows of every (answer, nugget) pair of a topic, answer-major, and per pair
    the extras the spans and the explanation need."""
    nuggets = encoder.encode([n.text for n in bank.nuggets])
    query = encoder.encode([bank.query])[0]
    texts = encoder.encode(answers, sentences=True)
    weights = F.bank_weights(nuggets, query)
    query_stems = set(query.stems[query.content.astype(bool)].tolist())
    aligned = _align(nuggets, texts)
    claims = [Claim(n.text) for n in bank.nuggets]  # numbers and entities extracted once per nugget
    prepared = [F.NuggetIndex(n, weights, query_stems) for n in nuggets]
    rows, extras = [], []
    k = 0
    for answer in texts:
        index = F.AnswerIndex(answer)
        for nugget, prep, claim in zip(nuggets, prepared, claims):
            lex = F.lexical(prep, index)
            numbers, entities = F.grounding(claim, index)
            score, lo, hi = aligned[k]
            k += 1
            values = {
                **{f: lex[f] for f in F.FEATURES if f in lex},
                "norm_score": score / (MATCH * max(len(nugget.stems), 1)),
                "numbers_missing": float(len(numbers)),
                "entities_missing": float(len(entities)),
            }
            rows.append([values[f] for f in F.FEATURES])
            spans = F.spans_of(answer, prep, lex["_masks"], lex["_counts"], lex["_best"])
            missing_words = [w for w, m in zip(_words(nugget, prep.stems), lex["_masks"]) if not m]
            extras.append((spans, numbers, entities, missing_words))
    return np.asarray(rows, dtype=np.float64).reshape(len(rows), len(F.FEATURES)), extras


def _words(nugget: F.Text, stems: list[int]) -> list[str]:
    """A surface word of the nugget for each content stem (for the explanation)."""
    first: dict[int, str] = {}
    for s, a, b in zip(nugget.stems.tolist(), nugget.tokens.starts.tolist(), nugget.tokens.ends.tolist()):
        first.setdefault(s, nugget.text[a:b])
    return [first[s] for s in stems]


def _align(nuggets: list[F.Text], answers: list[F.Text]) -> list[tuple[int, int, int]]:
    """(score, answer token start, end) of every (answer, nugget) pair, answer-major, in the
    engine's batch layout (:class:`judges.align.packed.Packed`) over stems."""
    packed = Packed.of_ids([n.stems for n in nuggets], [a.stems for a in answers])
    pair_a = np.tile(np.arange(len(nuggets), dtype=np.int64), len(answers))
    b_lo = np.repeat(packed.d_base[:-1], len(nuggets))
    b_hi = np.repeat(packed.d_base[1:], len(nuggets))
    out = align_batch(packed.a_tokens, packed.a_offsets, pair_a, packed.d_tokens, b_lo, b_hi, MATCH, MISMATCH, GAP)
    return [(int(r[0]), int(r[3]), int(r[4])) for r in out]


def judge_topic(
    encoder: F.Encoder,
    bank: NuggetBank,
    answers: list[tuple[str, str]],
    model: NuggetModel,
    labels: Optional[dict] = None,
) -> list[list[NuggetJudgment]]:
    """Judge every nugget of ``bank`` in each ``(run_id, answer text)``; per answer, its
    judgments in the bank's order. ``labels``: ``{(run_id, topic_id): levels}``, shown beside."""
    if not bank.nuggets or not answers:
        return [[] for _ in answers]
    x, extras = topic_features(encoder, bank, [text for _, text in answers])
    p_any, p_full = model.probabilities(x)
    levels = model.levels(p_any, p_full)
    out: list[list[NuggetJudgment]] = []
    k = 0
    for run_id, _ in answers:
        human = (labels or {}).get((run_id, bank.qid))
        judged = []
        for i, n in enumerate(bank.nuggets):
            spans, numbers, entities, missing_words = extras[k]
            full, anyp = float(p_full[k]), float(p_any[k])
            status = ASSIGNMENTS[int(levels[k])]
            judged.append(
                NuggetJudgment(
                    run_id,
                    bank.qid,
                    i,
                    n.text,
                    n.importance,
                    status,
                    full,
                    anyp - full,
                    1.0 - anyp,
                    full + 0.5 * (anyp - full),
                    tuple(spans),
                    explain(status, full, anyp, x[k], missing_words, numbers, entities, model),
                    tuple(float(v) for v in x[k]),
                    None if human is None or i >= len(human) else ASSIGNMENTS[human[i]],
                )
            )
            k += 1
        out.append(judged)
    return out


def explain(status, p_full, p_any, row, missing_words, numbers, entities, model: NuggetModel) -> str:
    """The verdict in words: the probabilities against the thresholds, and what is missing."""
    feats = dict(zip(F.FEATURES, row))
    if status == "support":
        why = f"P(support) {p_full:.3f} >= {model.p_supported:.3f}"
    elif status == "partial_support":
        why = f"P(support) {p_full:.3f} < {model.p_supported:.3f}, P(any) {p_any:.3f} >= {model.p_partial:.3f}"
    else:
        why = f"P(any) {p_any:.3f} < {model.p_partial:.3f}"
    parts = [f"{status}: {why}", f"{feats['sentence_recall']:.0%} of its words in one sentence"]
    if missing_words:
        parts.append("answer lacks " + ", ".join(repr(w) for w in missing_words[:5]))
    if numbers:
        parts.append("numbers missing " + ", ".join(numbers[:3]))
    if entities:
        parts.append("entities missing " + ", ".join(entities[:3]))
    if feats["negation_mismatch"]:
        parts.append("negation differs")
    return "; ".join(parts)
