"""Rank correlations between a truth ranking of runs and a judge's ranking of the same runs.

Every function takes two aligned vectors: ``truth[k]`` and ``judged[k]`` score the same run.
Larger is better on both sides. A result is NaN when it is undefined (fewer than two runs, or a
constant side), never a warning.

* ``kendall``: Kendall's tau-b (ties on either side shrink the denominator), from SciPy;
* ``spearman``, ``pearson``: from SciPy;
* ``tau_ap``: AP rank correlation (Yilmaz, Aslam and Robertson, SIGIR 2008), which weighs swaps
  near the top of the judge's ranking more than swaps near the bottom. No standard library has
  it, so it is written out in :func:`tau_ap`;
* ``kendall@k``: Kendall's tau-b over the ``k`` runs the truth ranks highest (ties at the cut
  go to the earlier position, so callers pass runs in a fixed order: the meta-evaluation sorts
  them by run id).
"""

from __future__ import annotations

import re
import warnings

import numpy as np
from scipy import stats

BASE_METHODS = ("kendall", "spearman", "pearson", "tau_ap")
DEFAULT_METHODS = ("kendall", "spearman", "pearson", "tau_ap", "kendall@10")
_AT_K = re.compile(r"^kendall@([2-9]|[1-9][0-9]+)$")


def parse_method(name: str) -> tuple[str, int | None]:
    """``"kendall@5"`` -> ``("kendall", 5)``; ``"tau_ap"`` -> ``("tau_ap", None)``; else ValueError."""
    if name in BASE_METHODS:
        return name, None
    m = _AT_K.match(name)
    if m:
        return "kendall", int(m.group(1))
    raise ValueError(f"unknown correlation {name!r}; known: {', '.join(BASE_METHODS)}, kendall@K (K >= 2)")


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


_BASE = {"kendall": kendall, "spearman": spearman, "pearson": pearson, "tau_ap": tau_ap}


def correlate(truth, judged, method: str) -> float:
    """One correlation by name (:data:`BASE_METHODS` or ``kendall@K``)."""
    base, k = parse_method(method)
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


def tau_ap_rows(truth, judged) -> np.ndarray:
    """:func:`tau_ap` of every row pair."""
    t, j = _pair(truth, judged, 2)
    above = j[:, None, :] > j[:, :, None]  # [b, i, k]: the judge puts run k above run i
    pairs = (above & (t[:, None, :] != t[:, :, None])).sum(axis=2)
    correct = (above & (t[:, None, :] > t[:, :, None])).sum(axis=2)
    used = pairs > 0
    share = np.divide(correct, pairs, out=np.zeros(pairs.shape), where=used)
    n_used = used.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n_used > 0, 2.0 * share.sum(axis=1) / n_used - 1.0, np.nan)


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
    return np.array([correlate(a, b, method) for a, b in zip(t, j)])  # Kendall: SciPy has no batch form
