"""Which battles: every pair of runs per topic, or a design under a budget.

With ``n`` runs a topic has ``n (n - 1) / 2`` pairs (990 for 45 runs); an assessor (or an LLM)
cannot judge them all. Under a budget of ``k`` opponents per run and topic, :func:`design` draws
about ``n k / 2`` pairs per topic, each with a known inclusion probability ``pi`` (Poisson
sampling), so that the Bradley-Terry fit weighs a drawn battle ``1 / pi`` and estimates what all
battles would give (Horvitz-Thompson). ``pi`` is proportional to how much the battle is worth
asking, with a floor so that every pair can be drawn:

    u = (1 - |P(A) - P(B)|) * exp(-|rank_A - rank_B| / n)   (the evidence's verdict probabilities)

the first factor: how uncertain the outcome is; the second: runs close in the evidence's ranking,
whose order a battle moves most. ``pi = min(1, c (u + FLOOR))``, ``c`` set so that the ``pi``
sum to the budget. The draw is seeded by the topic's id (CRC-32) and ``seed``: the same pairs
every run.
"""

from __future__ import annotations

import zlib
from typing import NamedTuple, Sequence

import numpy as np

FLOOR = 1.0  # every pair's worth is at least this (the most uncertain pair's is 1 + FLOOR): bench/battles.py
SEED = 20261207


class Drawn(NamedTuple):
    """The battles drawn for one topic: ``chosen``, indices into the candidate pairs; their probabilities."""

    chosen: np.ndarray
    probability: np.ndarray


def worth(p_a: np.ndarray, p_b: np.ndarray, rank_a: np.ndarray, rank_b: np.ndarray, n: int) -> np.ndarray:
    """How much each candidate battle is worth asking (see the module doc)."""
    return (1.0 - np.abs(p_a - p_b)) * np.exp(-np.abs(rank_a - rank_b) / max(n, 1))


def inclusion(u: np.ndarray, budget: float) -> np.ndarray:
    """Inclusion probabilities ``min(1, c (u + FLOOR))`` summing to ``budget`` (every pair at or
    above the number of pairs)."""
    u = np.asarray(u, dtype=float) + FLOOR
    if budget >= len(u):
        return np.ones(len(u))
    lo, hi = 0.0, budget / u.min()
    for _ in range(100):  # bisection on c: the sum is continuous and increasing in c
        c = (lo + hi) / 2
        if np.minimum(1.0, c * u).sum() < budget:
            lo = c
        else:
            hi = c
    return np.minimum(1.0, hi * u)


def design(
    topic: str,
    p_a: Sequence[float],
    p_b: Sequence[float],
    rank_a: Sequence[int],
    rank_b: Sequence[int],
    n_runs: int,
    opponents: float,
    seed: int = SEED,
) -> Drawn:
    """The battles of ``topic`` drawn under a budget of ``opponents`` per run (the candidates:
    every pair, with the evidence's verdict probabilities and the runs' ranks by the evidence)."""
    pa, pb = np.asarray(p_a, float), np.asarray(p_b, float)
    u = worth(pa, pb, np.asarray(rank_a, float), np.asarray(rank_b, float), n_runs)
    pi = inclusion(u, n_runs * opponents / 2)
    rng = np.random.default_rng([seed, zlib.crc32(topic.encode("utf-8"))])
    keep = rng.random(len(pi)) < pi
    return Drawn(np.flatnonzero(keep), pi[keep])
