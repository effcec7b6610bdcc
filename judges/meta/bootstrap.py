"""Confidence intervals by resampling topics (SciPy's bootstrap, seeded, so reruns are identical).

A statistic is any function of a vector of topic positions (drawn with replacement from
``0..n_topics-1``) that returns a vector of numbers: a run's mean over the drawn topics, or a
correlation between two rankings recomputed on them. SciPy draws the resamples; the interval is
the percentile interval of the bootstrap distribution, with resamples where a statistic is
undefined (NaN: e.g. every run tied on the drawn topics) left out of that statistic's interval.
"""

from __future__ import annotations

import warnings
from typing import Callable, NamedTuple

import numpy as np
from scipy import stats

DEFAULT_RESAMPLES = 1000
DEFAULT_SEED = 0
DEFAULT_CONFIDENCE = 0.95
BATCH = 250  # resamples computed at a time (bounds memory: runs x BATCH x topics floats)


class Intervals(NamedTuple):
    low: np.ndarray
    high: np.ndarray
    undefined: np.ndarray  # resamples in which the statistic was NaN

    @classmethod
    def none(cls, k: int) -> "Intervals":
        """No intervals (no bootstrap) for ``k`` statistics: NaN bounds."""
        nan = np.full(k, np.nan)
        return cls(nan, nan, np.zeros(k, dtype=np.int64))


def topic_intervals(
    n_topics: int,
    statistic: Callable[[np.ndarray], np.ndarray],
    n_statistics: int,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = DEFAULT_CONFIDENCE,
) -> Intervals:
    """Percentile intervals of ``statistic`` over topic resamples.

    ``statistic(idx)`` gets a (resamples x n_topics) matrix of topic positions, one resample per
    row, and returns an (n_statistics x resamples) matrix. All NaN when there are fewer than two
    topics or no resamples.
    """
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    nan = np.full(n_statistics, np.nan)
    if n_topics < 2 or resamples < 1 or n_statistics == 0:
        return Intervals(nan, nan.copy(), np.zeros(n_statistics, dtype=np.int64))

    def stat(sample: np.ndarray, axis: int = -1) -> np.ndarray:
        idx = np.asarray(sample, dtype=np.intp)
        if idx.ndim == 1:  # SciPy may probe with a single resample
            return np.asarray(statistic(idx[None, :]), dtype=np.float64)[:, 0]
        return np.asarray(statistic(idx), dtype=np.float64)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", stats.DegenerateDataWarning)
        result = stats.bootstrap(
            (np.arange(n_topics),),
            stat,
            vectorized=True,
            batch=BATCH,
            n_resamples=resamples,
            method="percentile",
            confidence_level=confidence,
            rng=np.random.default_rng(seed),
        )
    dist = np.asarray(result.bootstrap_distribution, dtype=np.float64).reshape(n_statistics, -1)
    alpha = (1.0 - confidence) / 2.0
    undefined = np.isnan(dist).sum(axis=1)
    low, high = np.full(n_statistics, np.nan), np.full(n_statistics, np.nan)
    ok = undefined < dist.shape[1]
    if ok.any():
        low[ok] = np.nanquantile(dist[ok], alpha, axis=1)
        high[ok] = np.nanquantile(dist[ok], 1.0 - alpha, axis=1)
    return Intervals(low, high, undefined)
