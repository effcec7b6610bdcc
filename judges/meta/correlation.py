"""Rank correlations between a truth ranking of runs and a judge's ranking of the same runs.

Every function takes two aligned vectors: ``truth[k]`` and ``judged[k]`` score the same run.
Larger is better on both sides. A result is NaN when it is undefined (fewer than two runs, or a
constant side), never a warning.

* ``kendall``: Kendall's tau-b (ties on either side shrink the denominator), from SciPy;
* ``spearman``, ``pearson``: from SciPy;
* ``tau_ap``: AP rank correlation (Yilmaz, Aslam and Robertson, SIGIR 2008), which weighs swaps
  near the top of the judge's ranking more than swaps near the bottom. No standard library has
  it, so it is written out in :func:`tau_ap`;
* ``tau_ap_b``: the symmetric AP correlation the TREC AutoJudge track reports: the mean of the
  AP correlation taken with each ranking as the one whose top is weighted, ties treated as in
  the track's evaluation code (:func:`tau_ap_b`);
* ``kendall@k``: Kendall's tau-b over the ``k`` runs the truth ranks highest (ties at the cut
  go to the earlier position, so callers pass runs in a fixed order: the meta-evaluation sorts
  them by run id);
* ``pearson_per_topic`` (also ``kendall_per_topic``, ``spearman_per_topic``): within each topic,
  the correlation over the runs of their values on that topic, then the mean over topics (how
  TREC RAG4Reports ranks judges; the AutoJudge evaluation code's ``*_per_topic``). It needs
  per-topic rows, not rankings: :func:`per_topic_values` gives each topic's value.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
from scipy import stats

BASE_METHODS = ("kendall", "spearman", "pearson", "tau_ap", "tau_ap_b")
PER_TOPIC_METHODS = ("pearson_per_topic", "kendall_per_topic", "spearman_per_topic")
DEFAULT_METHODS = ("kendall", "spearman", "pearson", "tau_ap", "tau_ap_b", "kendall@10", "pearson_per_topic")
PER_TOPIC_MIN_RUNS = 3  # a topic with fewer runs (on both sides) has no per-topic correlation
_AT_K = re.compile(r"^kendall@([2-9]|[1-9][0-9]+)$")


def parse_method(name: str) -> tuple[str, int | None]:
    """``"kendall@5"`` -> ``("kendall", 5)``; ``"tau_ap"`` -> ``("tau_ap", None)``; else ValueError."""
    if name in BASE_METHODS or name in PER_TOPIC_METHODS:
        return name, None
    m = _AT_K.match(name)
    if m:
        return "kendall", int(m.group(1))
    known = ", ".join((*BASE_METHODS, *PER_TOPIC_METHODS))
    raise ValueError(f"unknown correlation {name!r}; known: {known}, kendall@K (K >= 2)")


def is_per_topic(name: str) -> bool:
    """A correlation within each topic, averaged over topics (not one of two rankings)."""
    return name in PER_TOPIC_METHODS


def _pair(truth, judged, ndim: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Both as float arrays of ``ndim`` dimensions (1: one ranking each; 2: one per row) and one shape."""
    t = np.asarray(truth, dtype=np.float64)
    j = np.asarray(judged, dtype=np.float64)
    if t.shape != j.shape or t.ndim != ndim:
        what = "vectors of one length" if ndim == 1 else "matrices of one shape"
        raise ValueError(f"truth and judged must be {what}, got {t.shape} and {j.shape}")
    return t, j


def _defined(t: np.ndarray, j: np.ndarray) -> bool:
    return len(t) >= 2 and np.ptp(t) > 0 and np.ptp(j) > 0


def _scipy(fn, t: np.ndarray, j: np.ndarray) -> float:
    if not _defined(t, j):
        return float("nan")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(fn(t, j).statistic)


def kendall(truth, judged) -> float:
    """Kendall's tau-b."""
    t, j = _pair(truth, judged)
    # the p-value method does not change the statistic; "asymptotic" skips the exact p-value's
    # cost (its variance formula needs three runs)
    method = "asymptotic" if len(t) > 2 else "auto"
    return _scipy(lambda a, b: stats.kendalltau(a, b, variant="b", method=method), t, j)


def spearman(truth, judged) -> float:
    t, j = _pair(truth, judged)
    return _scipy(stats.spearmanr, t, j)


def pearson(truth, judged) -> float:
    t, j = _pair(truth, judged)
    return _scipy(stats.pearsonr, t, j)


def tau_ap(truth, judged) -> float:
    """AP rank correlation of the judge's ranking against the truth (Yilmaz et al. 2008).

    Walk the judge's ranking from the top; at each run, take the share of the runs the judge put
    above it that the truth also puts above it; tau_ap = 2 * mean(share) - 1. Without ties this
    is the paper's ``2/(N-1) * sum_{i=2..N} C(i)/(i-1) - 1``. It is asymmetric: the judge's list
    supplies the positions, the truth the verdicts.

    Ties, which the paper does not treat:

    * tied in the judge's ranking: a run is compared only with the runs strictly above its tie
      group (the treatment of Urbano and Marrero, ICTIR 2017, for ties in the estimated list);
      the top tie group has nothing above it and is left out of the mean;
    * tied in the truth: the truth does not order the pair, so it counts in neither the share's
      numerator nor its denominator (as tau-b leaves such pairs out); a run whose every pair is
      left out does not enter the mean.

    NaN when no run has a pair to judge (fewer than two runs, a constant side).
    """
    t, j = _pair(truth, judged)
    if len(t) < 2:
        return float("nan")
    above = j[None, :] > j[:, None]  # [i, k]: the judge puts run k above run i
    ordered = t[None, :] != t[:, None]  # the truth orders runs i and k
    pairs = (above & ordered).sum(axis=1)
    correct = (above & (t[None, :] > t[:, None])).sum(axis=1)
    used = pairs > 0
    if not used.any():
        return float("nan")
    return float(2.0 * np.mean(correct[used] / pairs[used]) - 1.0)


def _tau_ap_ties(verdicts: np.ndarray, positions: np.ndarray) -> float:
    """One direction of :func:`tau_ap_b`: ``positions``' ranking weighted at its top, ``verdicts``'
    ranking saying which of its pairs are right (larger is better on both)."""
    above = positions[None, :] > positions[:, None]  # [i, k]: run k strictly above run i by position
    n_above = above.sum(axis=1)
    right = (above & (verdicts[None, :] > verdicts[:, None])).sum(axis=1)
    used = n_above > 0  # the top tie group has nothing above it
    if not used.any():
        return float("nan")
    return float(2.0 * np.mean(right[used] / n_above[used]) - 1.0)


def tau_ap_b(truth, judged) -> float:
    """Symmetric AP correlation with ties, as the TREC AutoJudge track computes it.

    Definition: trec-auto-judge/auto-judge-evaluate, ``src/autojudge_evaluate/pyircore.py``
    (``tauap_b``, from eldrin/pyircore, itself after Urbano and Marrero's tau_AP_b, ICTIR 2017),
    called by ``evaluation.py``'s ``tauap_b`` for the ``tauap_b`` correlation: the mean of
    ``tauap_b_ties(x, y)`` and ``tauap_b_ties(y, x)``. In one direction, for each run not in the
    top tie group of the ranking weighted at its top, take the runs strictly above its tie group
    there and the share of them the other ranking puts strictly above it (a pair the other
    ranking ties counts as not right); the AP correlation is ``2 * mean(share) - 1``. Symmetric in
    its arguments; equal to :func:`tau_ap` in both directions when neither side has ties.

    One difference: where the track's code prints a warning and returns 0.0 for a direction
    whose every run is tied, this is NaN (as every correlation here is when a side is constant).
    """
    t, j = _pair(truth, judged)
    if not _defined(t, j):
        return float("nan")
    return 0.5 * (_tau_ap_ties(t, j) + _tau_ap_ties(j, t))


def top_k(truth, k: int) -> np.ndarray:
    """Positions of the ``k`` highest truth values, ties going to the earlier position."""
    t = np.asarray(truth, dtype=np.float64)
    order = np.lexsort((np.arange(len(t)), -t))  # by value descending, then position
    return np.sort(order[:k])


def kendall_at_k(truth, judged, k: int) -> float:
    """Kendall's tau-b over the ``k`` runs with the highest truth values."""
    t, j = _pair(truth, judged)
    keep = top_k(t, k)
    return kendall(t[keep], j[keep])


_BASE = {"kendall": kendall, "spearman": spearman, "pearson": pearson, "tau_ap": tau_ap, "tau_ap_b": tau_ap_b}


def correlate(truth, judged, method: str) -> float:
    """One correlation of two rankings by name (:data:`BASE_METHODS` or ``kendall@K``)."""
    base, k = parse_method(method)
    if is_per_topic(base):
        raise ValueError(f"{method} needs per-topic values: per_topic_values")
    if k is not None:
        return kendall_at_k(truth, judged, k)
    return _BASE[base](truth, judged)


# ---------------------------------------------------------------------------------------------
# Many rankings at once (the bootstrap): row b of ``truth`` and ``judged`` is one pair of
# rankings. Equal, row by row, to :func:`correlate` (tested); only faster.
# ---------------------------------------------------------------------------------------------
def _pearson_rows(t: np.ndarray, j: np.ndarray) -> np.ndarray:
    out = np.full(t.shape[0], np.nan)
    if t.shape[1] < 2:
        return out
    ok = (np.ptp(t, axis=1) > 0) & (np.ptp(j, axis=1) > 0)
    if ok.any():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out[ok] = stats.pearsonr(t[ok], j[ok], axis=1).statistic
    return out


def _tau_ap_of_shares(correct: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """Per row: ``2 * mean - 1`` of the shares ``correct / pairs`` over the runs with a pair (NaN: none)."""
    used = pairs > 0
    share = np.divide(correct, pairs, out=np.zeros(pairs.shape), where=used)
    n_used = used.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n_used > 0, 2.0 * share.sum(axis=1) / n_used - 1.0, np.nan)


def _tau_ap_ties_rows(verdicts: np.ndarray, positions: np.ndarray) -> np.ndarray:
    above = positions[:, None, :] > positions[:, :, None]  # [b, i, k]
    n_above = above.sum(axis=2)
    right = (above & (verdicts[:, None, :] > verdicts[:, :, None])).sum(axis=2)
    return _tau_ap_of_shares(right, n_above)


def tau_ap_b_rows(truth, judged) -> np.ndarray:
    """:func:`tau_ap_b` of every row pair."""
    t, j = _pair(truth, judged, 2)
    out = 0.5 * (_tau_ap_ties_rows(t, j) + _tau_ap_ties_rows(j, t))
    defined = (np.ptp(t, axis=1) > 0) & (np.ptp(j, axis=1) > 0) if t.shape[1] >= 2 else np.zeros(len(t), bool)
    return np.where(defined, out, np.nan)


def per_topic_values(truth, judged, method: str) -> np.ndarray:
    """Each topic's correlation for a ``*_per_topic`` method: ``truth`` and ``judged`` are (runs x
    topics) matrices, NaN where a side has no row; a topic's value is the correlation over the runs
    with a value on both sides, NaN when fewer than :data:`PER_TOPIC_MIN_RUNS` or a side constant
    (such a topic is left out of the mean, as in the AutoJudge evaluation code)."""
    t, j = _pair(truth, judged, 2)
    fn = _BASE[method[: -len("_per_topic")]]
    out = np.full(t.shape[1], np.nan)
    for k in range(t.shape[1]):
        both = ~(np.isnan(t[:, k]) | np.isnan(j[:, k]))
        if both.sum() >= PER_TOPIC_MIN_RUNS:
            out[k] = fn(t[both, k], j[both, k])
    return out


def tau_ap_rows(truth, judged) -> np.ndarray:
    """:func:`tau_ap` of every row pair."""
    t, j = _pair(truth, judged, 2)
    above = j[:, None, :] > j[:, :, None]  # [b, i, k]: the judge puts run k above run i
    pairs = (above & (t[:, None, :] != t[:, :, None])).sum(axis=2)
    correct = (above & (t[:, None, :] > t[:, :, None])).sum(axis=2)
    return _tau_ap_of_shares(correct, pairs)


def correlate_rows(truth, judged, method: str) -> np.ndarray:
    """:func:`correlate` of every row pair of two (rankings x runs) matrices."""
    t, j = _pair(truth, judged, 2)
    base, _ = parse_method(method)
    if base == "pearson":
        return _pearson_rows(t, j)
    if base == "spearman":
        return _pearson_rows(stats.rankdata(t, axis=1), stats.rankdata(j, axis=1))
    if base == "tau_ap":
        return tau_ap_rows(t, j)
    if base == "tau_ap_b":
        return tau_ap_b_rows(t, j)
    return np.array([correlate(a, b, method) for a, b in zip(t, j)])  # Kendall: SciPy has no batch form
