"""Nugget measures of one answer, as TREC 2024 RAG's assessors score them (the definitions of
``rag24-nuggets``'s README, AutoNuggetizer's ``all_score``, ``strict_all_score``, ``vital_score``
and ``strict_vital_score``), and the combined ``NUGGET_F1``.

Their facts (description, level, bound, how the intervals treat them) are in the one registry,
:data:`judges.core.measures.REGISTRY`; the values are computed here. ``NUGGET_F1`` is Auto-ARGUE's F1 of
sentence precision and nugget recall, with TREC 2024 RAG's support precision as the precision.

A nugget's value is, by default, its *expected* value under the nugget model's probabilities
(``P(support) + 0.5 P(partial)``; strict: ``P(support)``), as the citation judge's expected
weights: the leaderboard is the judge's estimate of the assessors' mean. With ``expected=False``
the statuses' values.
"""

from __future__ import annotations

from typing import Sequence

from judges.core.measures import REGISTRY

#: the four measures over a topic's nuggets, in registry order
NUGGET_MEASURES = tuple(m.name for m in REGISTRY.values() if m.level == "nugget")
F1 = REGISTRY["NUGGET_F1"].name  # the combined measure (a KeyError at import if the registry lost it)
_VALUE = {"support": (1.0, 1.0), "partial_support": (0.5, 0.0), "not_support": (0.0, 0.0)}


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def answer_measures(judgments: Sequence, expected: bool = True) -> dict[str, float]:
    """The four nugget measures of one answer from its judgments (one per nugget of the topic;
    each with ``importance``, ``assignment``, ``p_support``, ``score``)."""
    if expected:
        graded = [(j.importance == "vital", j.score, j.p_support) for j in judgments]
    else:
        graded = [(j.importance == "vital", *_VALUE[j.assignment]) for j in judgments]
    return {
        "NUGGET_ALL": _mean([g for _, g, _ in graded]),
        "NUGGET_ALL_STRICT": _mean([s for _, _, s in graded]),
        "NUGGET_VITAL": _mean([g for v, g, _ in graded if v]),
        "NUGGET_VITAL_STRICT": _mean([s for v, _, s in graded if v]),
    }


def from_levels(levels: Sequence[int], vital: Sequence[bool]) -> dict[str, float]:
    """The four measures of assessors' levels (0 not, 1 partial, 2 support)."""
    full = [float(v == 2) for v in levels]
    graded = [v / 2 for v in levels]
    return {
        "NUGGET_ALL": _mean(graded),
        "NUGGET_ALL_STRICT": _mean(full),
        "NUGGET_VITAL": _mean([g for g, v in zip(graded, vital) if v]),
        "NUGGET_VITAL_STRICT": _mean([f for f, v in zip(full, vital) if v]),
    }


def f1(precision: float, recall: float) -> float:
    """The harmonic mean, 0 when both are 0."""
    return 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
