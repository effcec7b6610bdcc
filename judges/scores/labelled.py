"""With labels: prediction-powered inference (:func:`ppi_mean_ci`), the bias shared by every run
the session's labels show (:func:`regime_update`), a run's estimate from the judge and its labels
together (:func:`labelled_estimate`), and the session's labelled citations as it takes them, with
the probability each was drawn with (:func:`label_draws`). The model is described in
:mod:`judges.scores.intervals`.
"""

from __future__ import annotations

import math
from typing import NamedTuple, Optional, Sequence

import numpy as np
import pyarrow as pa

from judges.scores.levels import capped_levels, column, levels, weight_variances


def ppi_mean_ci(
    y,
    yhat,
    yhat_unlabeled,
    alpha: float = 0.05,
    lam: Optional[float] = None,
    w=None,
    w_unlabeled=None,
    finite: bool = False,
) -> tuple[float, float, float]:
    """The PPI++ estimate of a mean (Angelopoulos, Duchi and Zrnic 2023, arXiv 2311.01453) and its
    normal interval: ``(estimate, standard error, lam)``. ``y`` the labels, ``yhat`` the judge's
    values on the labelled items, ``yhat_unlabeled`` on the items the mean is over; ``w``,
    ``w_unlabeled`` weights (each normalised to its count: inverse inclusion probabilities times
    leverage give the Hajek estimator of a weighted mean); ``lam`` None tunes the power (clipped to
    [0, 1]; 1 is plain PPI, 0 the labels alone). With ``finite=False`` it is ``ppi_py.ppi_mean_ci``'s
    (the items a sample of a larger population: their mean carries sampling error); with
    ``finite=True`` the items are the whole population (a run's every citation, judged), so the
    judge's mean is known and only the rectifier ``y - lam yhat`` carries error, and ``lam`` is
    tuned for it alone (``Cov(y, yhat) / Var(yhat)`` of the weighted values)."""
    y, yhat = np.asarray(y, dtype=np.float64), np.asarray(yhat, dtype=np.float64)
    yhat_unlabeled = np.asarray(yhat_unlabeled, dtype=np.float64)
    n, big_n = len(y), len(yhat_unlabeled)
    w = np.ones(n) if w is None else np.asarray(w, dtype=np.float64) / np.sum(w) * n
    wu = (
        np.ones(big_n)
        if w_unlabeled is None
        else np.asarray(w_unlabeled, dtype=np.float64) / np.sum(w_unlabeled) * big_n
    )
    if lam is None:
        if finite:
            a, b = w * y, w * yhat
            var_b = float(np.var(b))
            lam = float(np.mean((a - a.mean()) * (b - b.mean())) / var_b) if var_b > 0 else 0.0
        else:
            first = float(np.mean(wu * yhat_unlabeled) + np.mean(w * (y - yhat)))
            grads, grads_hat = w * (y - first), w * (yhat - first)
            cov = 2.0 / n * float(np.sum((grads - grads.mean()) * (grads_hat - grads_hat.mean())))
            var_hat = float(np.var(np.concatenate([grads_hat, wu * (yhat_unlabeled - first)]), ddof=1))
            lam = cov / (2.0 * (1.0 + n / big_n) * var_hat) if var_hat > 0 else 0.0
        lam = float(np.clip(lam, 0.0, 1.0))
    estimate = float(np.mean(wu * lam * yhat_unlabeled) + np.mean(w * (y - lam * yhat)))
    imputed = 0.0 if finite else float(np.std(wu * lam * yhat_unlabeled)) ** 2 / big_n
    rectifier = float(np.std(w * (y - lam * yhat))) ** 2 / n
    return estimate, math.sqrt(imputed + rectifier), lam


class Estimate(NamedTuple):
    """A run's value for the assessors with labels: the estimate and its variance, and the same from
    the labels alone (NaN where too few)."""

    value: float
    variance: float
    labels_value: float
    labels_variance: float
    labels: int  # labelled citations of the run
    effective: float  # their effective number (Kish, of the inverse-probability weights of the drawn ones)


def regime_update(
    judged, human, probability, regime_sd: float, sure: tuple[float, float] = (0.0, math.inf)
) -> tuple[float, float]:
    """The bias shared by every run (human minus judge per citation weight; prior mean 0, sd
    ``regime_sd``) after the session's labels: ``(its posterior mean, its posterior sd)``. The labels
    drawn at random (``judged``, ``human`` and the ``probability`` of each) give a design-based
    estimate, the Hajek mean residual (:func:`ppi_mean_ci`, ``lam = 1``, weights the inverse
    probabilities; from fewer than two, none); ``sure``: the model-based one of the labels drawn for
    sure, ``(mean, variance)`` (:func:`sure_bias`; variance ``inf``: none). The prior and the
    estimates are combined by their precisions."""
    judged, human = np.asarray(judged, dtype=np.float64), np.asarray(human, dtype=np.float64)
    probability = np.asarray(probability, dtype=np.float64)
    if regime_sd <= 0:
        return 0.0, regime_sd
    found = [sure] if 0 < sure[1] < math.inf else []
    if len(judged) >= 2:
        w = 1.0 / probability
        mean, se, _ = ppi_mean_ci(human, judged, judged, lam=1.0, w=w, w_unlabeled=w, finite=True)
        residual = mean - float(np.sum(w * judged) / np.sum(w))  # the mean residual
        if se <= 0:
            return residual, 0.0
        found.append((residual, se**2))
    mean, prior = 0.0, regime_sd**2
    for value, data in found:  # two normal estimates combined by their precisions
        mean, prior = (mean * data + value * prior) / (prior + data), prior * data / (prior + data)
    return mean, math.sqrt(prior)


def sure_bias(residual, within, report, run, report_sd, run_sd) -> tuple[float, float]:
    """The bias shared by every run as the labels drawn for sure show it, THROUGH THE ERROR MODEL
    (measured in bench/intervals.py, not shipped: :func:`judges.scores.trust.trust` learns the bias from the labels
    drawn at random alone; they were chosen, not drawn: only the model says what their residuals
    mean): each label's
    ``residual`` (human minus the judge's expected weight) has mean the bias and, beside its level
    variance ``within``, its report's (``report_sd``) and its run's (``run_sd``) shared errors
    (per label, or one number); the generalised least squares mean over them: ``(mean, variance)``,
    the variance at least the sandwich estimate clustered by run (runs whose errors vary more than
    the model says count as they vary); ``(0, inf)`` without a label the judge is unsure of
    (``within > 0``). ``report``: a key per
    label unique over the session's reports; ``run``: the run's."""
    residual, within = np.asarray(residual, dtype=np.float64), np.asarray(within, dtype=np.float64)
    keep = within > 0
    if not keep.any():
        return 0.0, math.inf
    a2 = np.broadcast_to(np.asarray(report_sd, dtype=np.float64) ** 2, within.shape)[keep]
    b = np.broadcast_to(np.asarray(run_sd, dtype=np.float64), within.shape)[keep]
    report, run = np.asarray(report)[keep], np.asarray(run)[keep]
    _, first, index = np.unique(report, return_index=True, return_inverse=True)
    inv = 1.0 / within[keep]
    s, m = np.bincount(index, inv), np.bincount(index, inv * residual[keep])
    a2, b = a2[first], b[first]
    # a report's covariance D + a^2 11' (Sherman-Morrison): 1'A^-1 1 and 1'A^-1 d
    s_, m_ = s / (1.0 + a2 * s), m / (1.0 + a2 * s)
    _, of_run = np.unique(run[first], return_inverse=True)

    def per_run(x):
        return np.bincount(of_run, x)

    # a run's: blocks of its reports plus rr' (r the run sd of each label's report)
    ss, bs, bbs, sm, bm = per_run(s_), per_run(b * s_), per_run(b * b * s_), per_run(m_), per_run(b * m_)
    one = ss - bs**2 / (1.0 + bbs)
    dot = sm - bs * bm / (1.0 + bbs)
    precision = float(np.sum(one))
    if precision <= 0:
        return 0.0, math.inf
    mean = float(np.sum(dot)) / precision
    # at least the variance the runs' own spread shows (clustered by run: a sandwich estimate), should
    # the runs' errors vary more than the error model says
    robust = float(np.sum((dot - one * mean) ** 2)) / precision**2 if len(one) >= 2 else 0.0
    return mean, max(1.0 / precision, robust)


def shared_posterior(u, report_sd, run_sd, s, m, topics: int) -> tuple[np.ndarray, float, float]:
    """A run's shared errors (one per report, sd ``report_sd``, and the run's, sd ``run_sd``; per
    report, or one number) after its labels drawn for sure, THROUGH THE ERROR MODEL (measured in
    bench/intervals.py, not shipped): report ``t``'s
    labels the judge was unsure of give ``s_t`` (the sum of their inverse level variances) and
    ``m_t`` (of their residuals, less the shared bias, over their level variances), a measurement
    ``m_t / s_t`` of the report's and the run's errors with variance ``1 / s_t``. Returns each
    report's error expected after them (per citation weight), and the variance of the run value's
    shared part, ``sum_t u_t (report_t + run) / T`` (``u`` the reports' shares of uncertain
    citations), after and before (:func:`judge_variance`'s report and run parts)."""
    u = np.asarray(u, dtype=np.float64)
    k = len(u)
    a = np.broadcast_to(np.asarray(report_sd, dtype=np.float64), u.shape)
    b = np.broadcast_to(np.asarray(run_sd, dtype=np.float64), u.shape)
    s, m = np.asarray(s, dtype=np.float64), np.asarray(m, dtype=np.float64)
    if topics <= 0 or k == 0:
        return np.zeros(k), 0.0, 0.0
    prior = np.append(a**2, 1.0)  # the reports' errors, and the run's in units of b
    c = np.append(u, float(np.sum(u * b))) / topics
    before = float(np.sum(c**2 * prior))
    seen = np.flatnonzero(s > 0)
    if len(seen) == 0:
        return np.zeros(k), before, before
    h = np.zeros((len(seen), k + 1))
    h[np.arange(len(seen)), seen] = 1.0
    h[:, k] = b[seen]
    ph = prior[:, None] * h.T  # P H'
    gain = np.linalg.solve(h @ ph + np.diag(1.0 / s[seen]), ph.T).T  # P H' (H P H' + N)^-1
    mean = gain @ (m[seen] / s[seen])
    cov = np.diag(prior) - gain @ ph.T
    return mean[:k] + b * mean[k], float(c @ cov @ c), before


def labelled_estimate(
    lev, judged, human, labelled, probability, model_variance: float, residual_variance, shift=0.0
) -> Estimate:
    """A run's value for the assessors from the judge's values ``judged`` on every citation (``lev``
    their leverages) and the labels ``human`` where ``labelled``, drawn with inclusion
    ``probability``. Citations drawn for sure (probability 1) are known: their label replaces the
    judge's value. The rest of the run is estimated twice: by the judge (``model_variance``: the
    judge-error variance of that rest, :func:`judge_variance` on its citations) and by PPI from the
    labels drawn at random among it (:func:`ppi_mean_ci`, finite population, weights leverage over
    inclusion probability; power-tuned from 10 drawn labels on), its variance at least what the
    model expects of so few labels (``residual_variance``: the expected squared residual of each
    citation about its run's mean residual); the two are combined by their precisions. ``shift``:
    the bias shared by every run the session's labels found (:func:`regime_update`) and the line of the run's
    mean error (:meth:`judges.scores.spreads.Spreads.line`), one number or one per citation, added to the
    judge's values. The labels
    alone: the same PPI with ``lam = 0`` (the Hajek estimate from the drawn labels, the sure ones
    exact), NaN from fewer than two drawn labels."""
    lev, judged = np.asarray(lev, dtype=np.float64), np.asarray(judged, dtype=np.float64)
    human, labelled = np.asarray(human, dtype=np.float64), np.asarray(labelled, dtype=bool)
    probability = np.asarray(probability, dtype=np.float64)
    residual_variance = np.broadcast_to(np.asarray(residual_variance, dtype=np.float64), lev.shape)
    sure = labelled & (probability >= 1.0)
    drawn = labelled & ~sure
    rest = ~sure
    known = float(np.sum(lev[sure] * human[sure]))
    mass = float(np.sum(lev[rest]))
    shift = np.broadcast_to(np.asarray(shift, dtype=np.float64), lev.shape)
    judge_value = known + float(np.sum(lev[rest] * (judged[rest] + shift[rest])))
    value, variance = judge_value, model_variance
    labels_value, labels_variance = float("nan"), float("nan")
    effective = float(sure.sum())
    k = int(drawn.sum())
    if mass <= 0:
        return Estimate(known, 0.0, known, 0.0, int(labelled.sum()), effective)
    if k >= 1:
        w = lev[drawn] / probability[drawn]
        share = w / w.sum()
        lam = None if k >= 10 else 1.0
        mean, se, _ = ppi_mean_ci(
            human[drawn], judged[drawn], judged[rest], lam=lam, w=w, w_unlabeled=lev[rest], finite=True
        )
        anticipated = float(np.sum(share**2 * residual_variance[drawn]))
        design = mass**2 * max(se**2, anticipated)
        design_value = known + mass * mean
        if model_variance > 0:
            precision = 1.0 / model_variance + 1.0 / design
            value = (judge_value / model_variance + design_value / design) / precision
            variance = 1.0 / precision
        effective += float(w.sum() ** 2 / np.sum(w**2))
        if k >= 2:
            alone, se_alone, _ = ppi_mean_ci(
                human[drawn], judged[drawn], judged[rest], lam=0.0, w=w, w_unlabeled=lev[rest], finite=True
            )
            labels_value, labels_variance = known + mass * alone, (mass * se_alone) ** 2
    return Estimate(value, variance, labels_value, labels_variance, int(labelled.sum()), effective)


class Draws(NamedTuple):
    """The session's labelled citations as :func:`labelled_estimate` takes them, per run: arrays
    over its citations (``lev``, ``judged``, ``human``, ``labelled``, ``probability``,
    ``within``), and how the labels were drawn (``how``)."""

    rows: dict  # run -> (lev, judged, human, labelled, probability, within)
    random_labels: np.ndarray  # rows (sorted) whose label was drawn at random: unknown to the error model
    how: str
    labels: int


def label_draws(table: pa.Table, order, probabilities: dict, cap: Sequence[str], answer_error: float, topics: int):
    """The labelled citations of ``table`` (assessments in ``order``; a ``human_label`` from
    ``--labels``) with the probability each was drawn with (``probabilities``: key (run, topic,
    sentence index, doc id) -> probability, :func:`judges.formats.labels.citation_probabilities`).
    Labels without one (an organiser's own) are taken as drawn at random: each with the share of
    such labels among the citations not labelled for sure. None without labels."""
    n = table.num_rows
    if n == 0 or "human_label" not in table.column_names:
        return None
    lv = levels(table, order, cap, answer_error)
    labelled = lv.label_level >= 0
    if not labelled.any():
        return None
    docs = column(table, "doc_id", order).to_pylist()
    runs, topic_ids = lv.run.to_pylist(), lv.topic.to_pylist()
    keys = zip(runs, topic_ids, lv.sentence_index.tolist(), docs)
    probability = np.array([probabilities.get(k, np.nan) if lab else 0.0 for k, lab in zip(keys, labelled)])
    sure = labelled & (probability >= 1.0)
    probability, how = drawn_probabilities(probability, labelled, ~lv.missing & ~sure)
    drawn = labelled & ~sure
    free = capped_levels(lv.free, lv.capped)
    judged = np.where(lv.missing, 0.0, 0.5 * free[:, 1] + free[:, 2])
    human = np.where(labelled, np.array([0.0, 0.5, 1.0])[np.maximum(lv.label_level, 0)], 0.0)
    within = np.where(lv.missing, 0.0, weight_variances(free, np.zeros(n, dtype=bool)))
    run_arr = np.array(runs, dtype=object)
    report_keys = np.char.add(np.char.add(np.array(runs, dtype=str), "\t"), np.array(topic_ids, dtype=str))
    _, inverse, sizes = np.unique(report_keys, return_inverse=True, return_counts=True)
    lev = 1.0 / (sizes[inverse].astype(np.float64) * max(topics, 1))
    out = {}
    for run in sorted(set(runs)):
        m = run_arr == run
        out[run] = (lev[m], judged[m], human[m], labelled[m], np.where(labelled[m], probability[m], 0.0), within[m])
    return Draws(out, drawn, how, int(labelled.sum()))


def drawn_probabilities(
    probability: np.ndarray, labelled: np.ndarray, candidates: np.ndarray
) -> tuple[np.ndarray, str]:
    """The inclusion probabilities of the labelled pairs (``probability``: the plan's, NaN where a
    label came without one: an organiser's own, taken as drawn at random, each with the share of
    such labels among the ``candidates``, the pairs not labelled for sure) and how the labels were drawn."""
    probability = np.array(probability, dtype=np.float64)
    organisers = labelled & np.isnan(probability)
    if organisers.any():
        probability[organisers] = organisers.sum() / max(int(np.sum(candidates)), 1)
    if organisers[labelled].all():
        how = "taken as drawn at random (no inclusion probabilities)"
    elif organisers.any():
        how = f"{int(organisers.sum())} taken as drawn at random (no inclusion probabilities), the rest as planned"
    else:
        how = "drawn as planned"
    return probability, how
