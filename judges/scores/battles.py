"""The ranking from battles: Bradley-Terry with ties (Davidson, 1970), fitted from probabilistic
verdicts taken as fractional wins and ties, per topic and over all topics, with intervals.

Run ``i`` has strength ``b_i`` (centred: their mean is 0) and the ties a parameter ``nu``:

    P(i beats j) = e^{b_i} / D,  P(tie) = nu e^{(b_i + b_j)/2} / D,  P(j beats i) = e^{b_j} / D,

``D`` their sum. A battle (i, j) with verdict probabilities (p_i, p_tie, p_j) and weight ``w`` (the
inverse of its inclusion probability under a budget, :mod:`judges.engine.battle_design`; 1 for
every pair) adds ``w p_i`` wins of i, ``w p_tie`` ties and ``w p_j`` wins of j to the likelihood,
which :func:`fit` maximises (Newton's method, a small ridge on ``b`` so that a run that
wins every battle keeps a finite strength).

A run's score is its expected score against a run of mean strength (``b = 0``):
``(e^b + nu e^{b/2} / 2) / (e^b + 1 + nu e^{b/2})``, between 0 and 1, 0.5 for an average run
(:func:`expected_score`); ``BATTLE_SCORE`` on the leaderboard is it per topic (a fit per topic),
the ``all`` row the mean over topics. :func:`ranking` fits all topics at once and resamples topics
(bootstrap) for each run's score interval, its rank interval and the probability that one run
ranks above another.
"""

from __future__ import annotations

from typing import NamedTuple, Optional, Sequence

import numpy as np

RIDGE = 0.01  # on the strengths: a run winning every battle keeps a finite strength
BOOTSTRAP = 200  # topic resamples of the ranking's intervals
SEED = 20261207


class Outcomes(NamedTuple):
    """Battles as arrays: run indices ``i``, ``j``; fractional ``win_i``, ``tie``, ``win_j``
    (verdict probabilities times the battle's weight)."""

    i: np.ndarray
    j: np.ndarray
    win_i: np.ndarray
    tie: np.ndarray
    win_j: np.ndarray


def outcomes(rows: Sequence[tuple[int, int, float, float, float, float]]) -> Outcomes:
    """``rows``: (i, j, p_i, p_tie, p_j, weight) per battle."""
    a = np.asarray(rows, dtype=float).reshape(-1, 6)
    w = a[:, 5]
    return Outcomes(a[:, 0].astype(np.int64), a[:, 1].astype(np.int64), a[:, 2] * w, a[:, 3] * w, a[:, 4] * w)


def concat(parts: Sequence[Outcomes]) -> Outcomes:
    return Outcomes(*(np.concatenate([getattr(p, f) for p in parts]) for f in Outcomes._fields))


class Fit(NamedTuple):
    strength: np.ndarray  # per run, centred
    nu: float  # the tie parameter

    def scores(self) -> np.ndarray:
        return expected_score(self.strength, self.nu)


def expected_score(strength, nu: float):
    """Expected score (win 1, tie 1/2) against a run of strength 0."""
    b = np.asarray(strength, dtype=float)
    num = np.exp(b) + 0.5 * nu * np.exp(b / 2)
    return num / (np.exp(b) + 1.0 + nu * np.exp(b / 2))


def _nll(x: np.ndarray, n: int, o: Outcomes, ridge: float, hessian: bool = False):
    """The negative log-likelihood at ``x`` (strengths, then log nu), its gradient and, with
    ``hessian``, its Hessian (a softmax over (i wins, j wins, tie) with logits linear in ``x``)."""
    b, eta = x[:n], x[n]
    bi, bj = b[o.i], b[o.j]
    lt = eta + (bi + bj) / 2
    log_d = np.logaddexp(np.logaddexp(bi, bj), lt)
    total = o.win_i + o.tie + o.win_j
    value = -np.sum(o.win_i * bi + o.win_j * bj + o.tie * lt - total * log_d) + ridge / 2 * b @ b
    pi, pj, pt = np.exp(bi - log_d), np.exp(bj - log_d), np.exp(lt - log_d)
    gi = -(o.win_i + o.tie / 2) + total * (pi + pt / 2)
    gj = -(o.win_j + o.tie / 2) + total * (pj + pt / 2)
    grad = np.empty(n + 1)
    grad[:n] = np.bincount(o.i, gi, n) + np.bincount(o.j, gj, n) + ridge * b
    grad[n] = np.sum(-o.tie + total * pt)
    if not hessian:
        return value, grad
    p = np.stack([pi, pj, pt], axis=1)
    cov = total[:, None, None] * (p[:, :, None] * np.eye(3)[None] - p[:, :, None] * p[:, None, :])
    local = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.5, 0.5, 1.0]])  # logits of (i, j, tie) in (b_i, b_j, eta)
    h = np.einsum("ra,krs,sb->kab", local, cov, local)
    where = np.stack([o.i, o.j, np.full(len(o.i), n)], axis=1)
    big = np.zeros((n + 1, n + 1))
    for a in range(3):
        for c in range(3):
            np.add.at(big, (where[:, a], where[:, c]), h[:, a, c])
    big[np.arange(n), np.arange(n)] += ridge
    return value, grad, big


def aggregate(n: int, o: Outcomes) -> Outcomes:
    """The same likelihood with one row per pair of runs (``i < j``): the battles of every topic summed."""
    swap = o.i > o.j
    i, j = np.where(swap, o.j, o.i), np.where(swap, o.i, o.j)
    wi, wj = np.where(swap, o.win_j, o.win_i), np.where(swap, o.win_i, o.win_j)
    keys, inverse = np.unique(i * n + j, return_inverse=True)
    m = len(keys)
    return Outcomes(
        keys // n, keys % n, np.bincount(inverse, wi, m), np.bincount(inverse, o.tie, m), np.bincount(inverse, wj, m)
    )


def fit(n: int, o: Outcomes, ridge: float = RIDGE, start: Optional[Fit] = None) -> Fit:
    """The Davidson model of ``n`` runs fitted to the battles ``o`` (see the module doc) by
    Newton's method with a backtracking line search (the likelihood is concave, the ridge makes it
    strictly so); ``start``: a fit to start from (a bootstrap's resamples start from the whole's)."""
    if n == 0:
        return Fit(np.zeros(0), 1.0)
    if len(o.i) == 0 or not np.any(o.win_i + o.tie + o.win_j > 0):
        return Fit(np.zeros(n), 1.0)
    o = aggregate(n, o)
    x = np.zeros(n + 1) if start is None else np.r_[start.strength, np.log(max(start.nu, 1e-6))]
    if not np.any(o.tie > 0):  # no tie at all: nu -> 0; held small
        x[n] = -10.0
    value, grad, hess = _nll(x, n, o, ridge, hessian=True)
    for _ in range(100):
        step = np.linalg.solve(hess, grad)
        if not np.any(o.tie > 0):
            step[n] = 0.0
        t = 1.0
        while True:
            new = x - t * step
            new_value, new_grad, new_hess = _nll(new, n, o, ridge, hessian=True)
            if new_value <= value + 1e-4 * t * -(grad @ step) or t < 1e-8:
                break
            t /= 2
        done = abs(value - new_value) < 1e-10 * max(1.0, abs(value))
        x, value, grad, hess = new, new_value, new_grad, new_hess
        if done or np.max(np.abs(grad)) < 1e-8:
            break
    b = x[:n] - x[:n].mean()
    return Fit(b, float(np.exp(x[n])))


class Ranking(NamedTuple):
    """The ranking over all topics: per run its score (:func:`expected_score`), the score's 95%
    interval and rank interval over topic resamples, and P(run a ranks above run b)."""

    runs: list[str]
    score: np.ndarray
    low: np.ndarray
    high: np.ndarray
    rank: np.ndarray  # 1 = best
    rank_low: np.ndarray
    rank_high: np.ndarray
    above: np.ndarray  # above[a, b] = P(a ranks above b) over the resamples
    nu: float


def _ranks(scores: np.ndarray) -> np.ndarray:
    """Rank 1 = highest score; ties broken by index (the runs' sorted order)."""
    order = np.lexsort((np.arange(len(scores)), -scores))
    ranks = np.empty(len(scores), dtype=np.int64)
    ranks[order] = np.arange(1, len(scores) + 1)
    return ranks


def ranking(
    runs: Sequence[str], by_topic: dict[str, Outcomes], bootstrap: int = BOOTSTRAP, seed: int = SEED
) -> Ranking:
    """Fit all topics' battles at once (``by_topic``: their outcomes, run indices into ``runs``)
    and resample topics with replacement ``bootstrap`` times (``seed``: the same figures every run)."""
    n = len(runs)
    topics = sorted(by_topic)
    whole = fit(n, concat([by_topic[t] for t in topics])) if topics else Fit(np.zeros(n), 1.0)
    score = whole.scores()
    rng = np.random.default_rng(seed)
    samples = np.empty((bootstrap, n))
    ranks = np.empty((bootstrap, n), dtype=np.int64)
    for k in range(bootstrap if topics else 0):
        drawn = rng.integers(0, len(topics), len(topics))
        f = fit(n, concat([by_topic[topics[d]] for d in drawn]), start=whole)
        samples[k] = f.scores()
        ranks[k] = _ranks(samples[k])
    if topics and bootstrap:
        low, high = np.quantile(samples, 0.025, axis=0), np.quantile(samples, 0.975, axis=0)
        rank_low = np.floor(np.quantile(ranks, 0.025, axis=0)).astype(np.int64)
        rank_high = np.ceil(np.quantile(ranks, 0.975, axis=0)).astype(np.int64)
        above = (samples[:, :, None] > samples[:, None, :]).mean(axis=0)
    else:
        low = high = score
        rank_low = rank_high = _ranks(score)
        above = (score[:, None] > score[None, :]).astype(float)
    return Ranking(list(runs), score, low, high, _ranks(score), rank_low, rank_high, above, whole.nu)
