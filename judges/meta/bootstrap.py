"""Confidence intervals by resampling topics (SciPy's bootstrap, seeded, so reruns are identical).

A statistic is any function of a vector of topic positions (drawn with replacement from
``0..n_topics-1``) that returns a vector of numbers: a run's mean over the drawn topics, or a
correlation between two rankings recomputed on them. SciPy draws the resamples; the interval is
the BCa interval (bias-corrected and accelerated, Efron 1987) of the bootstrap distribution, with
resamples where a statistic is undefined (NaN: e.g. every run tied on the drawn topics) left out
of that statistic's interval.

Why BCa, not the percentile interval: a correlation recomputed on a topic resample is, on
average, lower than on the topics themselves (a resample repeats topics, so its run means are
noisier and the rankings agree less), so the percentile interval sits below its estimate, often
ending just above it. BCa moves the interval by the share of resamples below the estimate (the
bias correction) and by the statistic's skew, from its jackknife over topics (the acceleration).
It is SciPy's ``bootstrap(method="BCa")``, written out here to leave undefined resamples out per
statistic and to give each of many statistics its own interval from one set of resamples (tested
equal to SciPy's).
"""

from __future__ import annotations

import warnings
from typing import Callable, NamedTuple

import numpy as np
from scipy import special, stats

METHOD = "BCa"  # what the outputs call the intervals (the correlations table's ``interval``)
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
    """BCa intervals of ``statistic`` over topic resamples.

    ``statistic(idx)`` gets a (resamples x k) matrix of topic positions, one resample per row
    (k = n_topics for the bootstrap, n_topics - 1 for the jackknife), and returns an
    (n_statistics x resamples) matrix. All NaN when there are fewer than two topics or no
    resamples.
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
    topics = np.arange(n_topics)
    theta = stat(topics[None, :]).reshape(n_statistics)
    jack = stat(np.stack([np.delete(topics, i) for i in range(n_topics)])).reshape(n_statistics, n_topics)
    low, high = bca(theta, dist, jack, confidence)
    return Intervals(low, high, np.isnan(dist).sum(axis=1))


def bca(theta: np.ndarray, dist: np.ndarray, jack: np.ndarray, confidence: float) -> tuple[np.ndarray, np.ndarray]:
    """BCa bounds of each statistic: ``theta`` its estimate (k), ``dist`` its bootstrap
    distribution (k x resamples), ``jack`` its leave-one-topic-out values (k x topics). NaN
    resamples and jackknife values are left out; NaN bounds when the estimate or every resample is
    NaN. As SciPy's ``bootstrap(method="BCa")``: the bias correction ``z0`` is the normal quantile
    of the share of resamples below the estimate (ties counting half), the acceleration the
    jackknife's skewness over 6; the bounds are the distribution's quantiles at
    ``Phi(z0 + (z0 + z) / (1 - a (z0 + z)))`` for ``z`` the normal quantiles of the two tails.
    A constant distribution (every resample equal) gives that value for both bounds; an estimate
    above (or below) every resample has no finite bias correction and gets NaN bounds (SciPy's
    would be the extreme resample on both sides, an interval without its estimate)."""
    k = len(theta)
    low, high = np.full(k, np.nan), np.full(k, np.nan)
    alpha = (1.0 - confidence) / 2.0
    for s in range(k):
        b = dist[s][~np.isnan(dist[s])]
        if np.isnan(theta[s]) or not len(b):
            continue
        if np.ptp(b) == 0:
            low[s] = high[s] = b[0]
            continue
        share = (np.sum(b < theta[s]) + np.sum(b <= theta[s])) / (2.0 * len(b))
        if share in (0.0, 1.0):  # the estimate beyond every resample: no bias correction, so no interval
            continue
        z0 = special.ndtri(share)
        j = jack[s][~np.isnan(jack[s])]
        d = j.mean() - j if len(j) else np.zeros(1)
        den = 6.0 * np.sum(d**2) ** 1.5
        a = np.sum(d**3) / den if den > 0 else 0.0
        with np.errstate(invalid="ignore", divide="ignore"):
            q = [special.ndtr(z0 + (z0 + z) / (1 - a * (z0 + z))) for z in special.ndtri([alpha, 1.0 - alpha])]
        q = [0.0 if np.isnan(x) and z0 < 0 else 1.0 if np.isnan(x) else x for x in q]  # 1 - a (z0 + z) = 0
        low[s], high[s] = np.quantile(b, q[0]), np.quantile(b, q[1])
    return low, high
