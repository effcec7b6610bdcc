"""Fitting the spreads (:class:`judges.scores.spreads.Spreads`): restricted maximum likelihood of
the residuals human minus judge per labelled report (:func:`fit_spreads`), a line of a run's mean
error in its judged value, and a heteroscedastic run term (:func:`fit_run_scale`). ``run_judge.py
calibrate`` and the benches fit with them; a session only reads what they fitted.
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np

# grid of restricted maximum likelihood for the spreads
GRID_STEP = 0.0025
GRID_MAX = 0.5
PROFILE_DROP = 1.3527717935  # chi2 with 1 degree of freedom, 90% quantile, halved: a one-sided 95% bound


def report_residuals(run_ids, topic_ids, human, weight, variance) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per report (run, topic) of labelled citations: its run's index, the residual human minus
    judge of its mean weight, and the independent variance of the judge's mean; reports in
    (run, topic) order."""
    run_ids, topic_ids = np.asarray(run_ids).astype(str), np.asarray(topic_ids).astype(str)
    keys = np.char.add(np.char.add(run_ids, "\t"), topic_ids)  # ids hold no whitespace
    reports, inverse = np.unique(keys, return_inverse=True)
    n = np.bincount(inverse).astype(np.float64)
    d = (np.bincount(inverse, np.asarray(human, dtype=np.float64)) - np.bincount(inverse, weight)) / n
    s = np.bincount(inverse, np.asarray(variance, dtype=np.float64)) / n**2
    runs = np.array([k.split("\t", 1)[0] for k in reports])
    _, run_index = np.unique(runs, return_inverse=True)
    return run_index, d, s


def restricted_likelihood(run_index, d, s, report_sd, run_sd, x=None, run_scale=None) -> tuple:
    """Restricted log-likelihood (up to a constant) of the residuals ``d`` (reports of runs
    ``run_index``, independent variances ``s``) for every pair of ``report_sd`` x ``run_sd`` (a
    grid), and the mean bias at each (generalised least squares). Model: ``d = bias + run effect
    + report effect + independent error``, all normal. With ``x`` (one value per run, indexed by
    ``run_index``), the bias is a line in it, ``d = bias + slope x + ...``: the second array holds
    ``(bias, slope)`` at each pair on its last axis, and a third the line's information ``X'
    S^-1 X`` as ``(m00, m01, m11)``. With ``run_scale`` (one factor per run), run ``r``'s effect
    has variance ``run_sd^2 x run_scale[r]`` (a heteroscedastic run term, :func:`fit_run_scale`)."""
    report_sd, run_sd = np.asarray(report_sd, dtype=np.float64), np.asarray(run_sd, dtype=np.float64)
    runs = int(run_index.max()) + 1
    member = np.zeros((len(d), runs))
    member[np.arange(len(d)), run_index] = 1.0
    a = 1.0 / (s[None, :] + report_sd[:, None] ** 2)  # (G1, K)
    sa, sad, sadd = a @ member, (a * d) @ member, (a * d * d) @ member  # (G1, R)
    logdet_a = -np.log(a) @ member
    g = run_sd[None, :, None] ** 2  # (1, G2, 1)
    if run_scale is not None:  # (1, G2, R): each run's effect its own variance
        g = g * np.asarray(run_scale, dtype=np.float64)[None, None, :]
    sa, sad, sadd, logdet_a = sa[:, None, :], sad[:, None, :], sadd[:, None, :], logdet_a[:, None, :]
    denom = 1.0 + g * sa
    one = sa / denom  # 1' S^-1 1 per run
    oned = sad / denom  # 1' S^-1 d
    dd = sadd - g * sad**2 / denom  # d' S^-1 d
    logdet = logdet_a + np.log(denom)
    if x is None:
        total_one, total_oned = one.sum(axis=2), oned.sum(axis=2)
        bias = total_oned / total_one
        quad = dd.sum(axis=2) - 2 * bias * total_oned + bias**2 * total_one
        return -0.5 * (logdet.sum(axis=2) + quad + np.log(total_one)), bias
    xr = np.asarray(x, dtype=np.float64)
    # X' S^-1 X and X' S^-1 d for X = [1, x]: x is constant within a run
    m00, m01, m11 = one.sum(axis=2), (one * xr).sum(axis=2), (one * xr**2).sum(axis=2)
    v0, v1 = oned.sum(axis=2), (oned * xr).sum(axis=2)
    det = m00 * m11 - m01**2
    bias, slope = (m11 * v0 - m01 * v1) / det, (m00 * v1 - m01 * v0) / det
    quad = dd.sum(axis=2) - (bias * v0 + slope * v1)
    info = np.stack([m00, m01, m11], axis=-1)  # X' S^-1 X: the line's information
    return -0.5 * (logdet.sum(axis=2) + quad + np.log(det)), np.stack([bias, slope], axis=-1), info


def fit_spreads(
    run_ids, topic_ids, human, weight, variance, step: float = GRID_STEP, line: bool = False, run_scale=None
) -> dict:
    """``report_sd``, ``run_sd`` and the mean ``bias`` (human minus judge) of the judge's error,
    fitted by restricted maximum likelihood (a grid of ``step`` up to :data:`GRID_MAX`, so the same
    data give the same figures) to the residuals human minus judge per report, from labelled
    citations: ``human`` their weights by the labels (0 / 0.5 / 1), ``weight`` the judge's (from
    probabilities of a model that did not see their topic: cross-validated by topic),
    ``variance`` each weight's independent variance (:func:`weight_variances`).

    With ``line``, the run's part of the error has a mean that is a line in the run's judged value
    (``x``: the mean over its labelled reports of the judge's mean weight): ``bias + slope (x -
    center)``, ``center`` the runs' mean ``x``. An expected weight is right on average per citation,
    yet a run the judge rates low tends to be rated lower still by people, and a high one higher
    (the judge's run values are compressed); ``run_sd`` is then the spread about that line, and
    ``bias_sd``, ``slope_sd`` the line's standard errors (generalised least squares at the fit).
    ``run_scale``: one factor per run (in sorted run order) of its effect's variance, ``run_sd`` the
    spread at factor 1 (:func:`fit_run_scale`)."""
    run_index, d, s = report_residuals(run_ids, topic_ids, human, weight, variance)
    grid = np.round(np.arange(0.0, GRID_MAX + step / 2, step), 10)
    extra: dict = {}
    if line:
        x = run_values(run_ids, topic_ids, weight)
        center = float(np.mean(x))
        loglik, coef, info = restricted_likelihood(run_index, d, s, grid, grid, x - center, run_scale)
        bias = coef[..., 0]
    else:
        loglik, bias = restricted_likelihood(run_index, d, s, grid, grid, run_scale=run_scale)
    i, j = np.unravel_index(int(np.argmax(loglik)), loglik.shape)
    if line:
        m00, m01, m11 = info[i, j]
        det = m00 * m11 - m01**2
        extra = {
            "slope": round(float(coef[i, j, 1]), 4),
            "center": round(center, 4),
            "bias_sd": round(math.sqrt(m11 / det), 4),
            "slope_sd": round(math.sqrt(m00 / det), 4),
        }
    # one-sided 95% upper bounds from the profile likelihood: the largest spread whose profile is
    # within chi2_1(0.90) / 2 of the maximum (a spread fitted on a few topics is not known to two digits)
    drop = float(loglik.max()) - PROFILE_DROP
    post = np.exp(loglik - loglik.max())
    post /= post.sum()
    return {
        "report_sd": float(grid[i]),
        "run_sd": float(grid[j]),
        "report_sd_upper": float(grid[np.flatnonzero(loglik.max(axis=1) >= drop).max()]),
        "run_sd_upper": float(grid[np.flatnonzero(loglik.max(axis=0) >= drop).max()]),
        # the posterior predictive: sqrt of the spreads' squares averaged over the likelihood (flat prior on the grid)
        "report_sd_predictive": round(float(np.sqrt(np.sum(post.sum(axis=1) * grid**2))), 4),
        "run_sd_predictive": round(float(np.sqrt(np.sum(post.sum(axis=0) * grid**2))), 4),
        "bias": round(float(bias[i, j]), 4),
        **extra,
        "reports": int(len(d)),
        "runs": int(run_index.max()) + 1,
        "mean_independent_sd": round(float(np.sqrt(np.mean(s))), 4),
    }


def run_values(run_ids, topic_ids, weight) -> np.ndarray:
    """Per run (sorted): the mean over its reports of the judge's mean weight (``x``)."""
    run_ids, topic_ids = np.asarray(run_ids).astype(str), np.asarray(topic_ids).astype(str)
    keys = np.char.add(np.char.add(run_ids, "\t"), topic_ids)
    reports, inverse = np.unique(keys, return_inverse=True)
    judged = np.bincount(inverse, np.asarray(weight, dtype=np.float64)) / np.bincount(inverse)
    _, run_index = np.unique([k.split("\t", 1)[0] for k in reports], return_inverse=True)
    return np.bincount(run_index, judged) / np.bincount(run_index)


#: the run-level covariates of :func:`fit_run_scale`, functions of the run's judged value ``x``
RUN_COVARIATES: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "value": lambda x: x,  # runs the judge rates low or high
    "spread": lambda x: x * (1.0 - x),  # runs of middling value (most uncertain citations)
}
GAMMAS = np.round(np.arange(-2.0, 2.0 + 1e-9, 0.25), 2)


def run_scale(fitted: dict, x) -> np.ndarray:
    """The factor of the run effect's variance for runs of judged value ``x`` under a
    :func:`fit_run_scale` fit: ``exp(gamma (c(x) - center) / scale)``."""
    z = (RUN_COVARIATES[fitted["covariate"]](np.asarray(x, dtype=np.float64)) - fitted["z_center"]) / fitted["z_scale"]
    return np.exp(fitted["gamma"] * z)


def fit_run_scale(
    run_ids, topic_ids, human, weight, variance, covariate: str = "value", step: float = GRID_STEP
) -> dict:
    """A heteroscedastic run term: the run effect's variance ``run_sd^2 exp(gamma z)``, ``z`` the
    standardised covariate (:data:`RUN_COVARIATES`) of the run's judged value, so that runs whose
    errors are small can get narrower intervals. ``gamma`` by profile restricted likelihood over
    :data:`GAMMAS` (the rest as :func:`fit_spreads`); returns :func:`fit_spreads`' figures at it, with
    ``gamma``, ``z_center``, ``z_scale``, ``covariate`` and ``gain`` (the log-likelihood gained
    over ``gamma = 0``: under 1.92, no evidence at 5% for a covariate)."""
    run_index, d, s = report_residuals(run_ids, topic_ids, human, weight, variance)
    c = RUN_COVARIATES[covariate](run_values(run_ids, topic_ids, weight))
    center, scale = float(np.mean(c)), float(np.std(c)) or 1.0
    grid = np.round(np.arange(0.0, GRID_MAX + step / 2, step), 10)
    best = {
        float(g): float(
            restricted_likelihood(run_index, d, s, grid, grid, run_scale=np.exp(g * (c - center) / scale))[0].max()
        )
        for g in GAMMAS
    }
    gamma = max(best, key=lambda g: (best[g], -abs(g)))
    fitted = fit_spreads(
        run_ids, topic_ids, human, weight, variance, step, run_scale=np.exp(gamma * (c - center) / scale)
    )
    return {
        **fitted,
        "covariate": covariate,
        "gamma": gamma,
        "z_center": center,
        "z_scale": scale,
        "gain": round(best[gamma] - best[0.0], 4),
    }
