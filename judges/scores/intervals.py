"""How far the leaderboard can be trusted: intervals for the values the track's assessors would
give, and the probability that they would order two runs as the judge does.

**Per citation.** The judge's weight ``w`` of a citation (the assessments' ``weight``) estimates
the TREC weight people would give it (none 0, partial 0.5, full 1). Its error is taken from the
support model's distribution over the three levels: none ``1 - P(any)``, partial ``P(any) -
P(full)``, full ``P(full)``; where the grounding cap rules full support out (the document lacks a
number or entity of the sentence, of a kind in ``grounding.cap``) full weighs as partial. When
the LLM answered, the distribution is first updated by Bayes' rule with the answer
(:func:`judges.attest.answers.likelihood`, ``attest.answer_error``), as :mod:`judges.engine.weights`
does. The independent error of ``w`` is its expected squared error under that distribution,
``Var(w) + (E[w] - w)^2``: ``Var(w)`` (:func:`judges.attest.plan.weight_variance`) for the default
expected weights, whose ``w`` is ``E[w]``; a weight the judge did not take from the distribution
(a status's weight: ``leaderboard.weights: status``, a guarded citation) adds its offset.
Conventions for the rest:

* a ``missing`` citation weighs 0 and people give it nothing: known, error 0;
* a citation without probabilities (``cross_language``; every citation of the ``alignment``
  judge) is unknown: none or full with probability 1/2 each (variance 0.25, the largest a weight
  in [0, 1] can have, as :mod:`judges.attest.plan` takes it; 0.5 about a weight of 0 or 1); with an LLM
  answer, the three levels are equally likely before it;
* a citation with an assessor's label (a ``human_label`` in the assessments) is known: error 0.

**Per run (WEIGHTED_PRECISION).** A run's ``all`` value is the mean over its ``T`` topics (topics
it did not answer count 0, as the leaderboard counts them) of each report's mean citation weight.
Its error against the assessors is

    Var(H_r - J_r) = V_ind + report_sd^2 x sum_t u_t^2 / T^2 + run_sd^2 x (sum_t u_t / T)^2

* ``V_ind = sum_t sum_i Var(w_i) / (n_t^2 T^2)``: the citations' independent errors (leverage
  ``1 / (n_t T)``);
* an error shared by the citations of one report (sd ``report_sd``) and one shared by all of a
  run's reports (sd ``run_sd``), which independence per citation misses: the support model is
  wrong about a topic's or a system's kind of answer as a whole. ``u_t`` is the share of report
  ``t``'s citations whose weight is uncertain (neither labelled nor missing; 0 for a report
  without citations), so a labelled or empty report shares no error and the run term is
  ``run_sd^2`` when every report of the run has unlabelled citations.

and a bias shared by every run's citations (sd ``regime_sd``, on ``(sum_t u_t / T)^2`` like the
run part): labels made another way than those the errors were learned on. THESE INTERVALS REST
ON ERRORS LEARNED ELSEWHERE, not on the session's topics, and say so (``made``).

``report_sd``, ``run_sd`` (and the mean bias, human minus judge per citation weight, recorded
but not applied; with ``line=True`` a line of the run's mean error in its judged value,
:meth:`Spreads.line`, measured in bench/intervals.py and not shipped; likewise a heteroscedastic
run term, :func:`fit_run_scale`) are fitted by
:func:`fit_spreads`, restricted maximum likelihood of the residuals human minus judge per labelled
report, with the judge's probabilities cross-validated
by topic, which also gives their one-sided 95% upper bounds and posterior predictive (a spread
learned from a few topics is not known to two digits); ``run_judge.py calibrate`` records them in
the model file (``intervals``) and the intervals take the posterior predictive. For the shipped
model, and a model file without them, the intervals take :data:`SHIPPED_SPREADS`
(``judges/scores/intervals.json``: the re-fit on rag24-support, with ``regime_sd``, an allowance not a
fit), :func:`session_spreads`.

**With labels** (:func:`label_draws`, :func:`labelled_estimate`): weighted precision's
``estimate`` per run combines the labels drawn for sure (known), a PPI correction from the labels
drawn at random with known inclusion probabilities (``plan-assessments``; an organiser's own
labels taken as a random sample) and the judge's error model, by their precisions; the shared
bias is learned from all drawn labels (:func:`regime_update`); ``low_labels``/``high_labels`` are
the labels alone. :func:`ppi_mean_ci` is ``ppi_py``'s PPI++ mean, tested against it. Measured in
bench/intervals.py and not shipped: the labels drawn for sure read through the error model, for
the shared bias (:func:`sure_bias`) and for a run's and its reports' errors
(:func:`shared_posterior`): narrower intervals on rag24-support's unseen topics, less coverage
where the runs' errors are another's.

**Intervals.** 95% normal intervals around the judge's value, clipped to the measure's range:
``low``/``high`` for the assessors' value on the same topics (judge error only), and
``low_topics``/``high_topics`` adding topic sampling (the variance of the run's per-topic values
over ``T``, ``T - 1`` degrees of freedom): the assessors' value on new topics of the same kind
(not estimable from one topic: NaN).

**Other measures.** ``CITATION_ACCURACY``, ``AVG_CITATIONS``, ``CITED_SENTENCES``,
``NUMERIC_GROUNDED``, ``ENTITY_GROUNDED`` and ``PLACEHOLDER_FREE`` do not depend on support
judgments: no judge error (``low = high = value``), topic sampling only. For the other support
measures the independent error is likewise the expected squared error of the judge's value
under the same per-citation levels, citations independent (exact under that independence):
``CITATION_SUPPORT`` per citation, ``P(full)`` where the judge did not say ``supported`` and
``1 - P(full)`` where it did; ``SENTENCE_SUPPORT`` per sentence, the same with ``P(some citation
of the sentence is full)``; ``GROUNDEDNESS`` the same, weighted by the sentence's characters;
``PERFECT_CITATIONS`` per report, with ``P(every citation is full)``; ``WEIGHTED_RECALL`` per
sentence, the variance of the best weight of its citations plus the offset of the judge's best
weight from its mean. (The variance of the people's value alone, without the threshold's offset,
covers too little: 40 of 45 runs for ``CITATION_SUPPORT`` in bench/intervals.py.)
APPROXIMATIONS: (1) the shared errors of these measures are weighted precision's, scaled by the
session's ratio of the measure's independent error to weighted precision's; (2) the number of
sentences and the characters of a report are recovered from its ``CITED_SENTENCES`` and
``GROUNDEDNESS`` values (exact, except the characters of a report with no supported sentence,
taken as its cited sentences' average length).

**Pairs.** For each pair of runs (``run_a`` ahead of ``run_b`` on the headline,
:data:`judges.core.measures.HEADLINE`, ``gap`` their difference), ``p_same_order = Phi(gap / sd)``,
``sd^2`` the sum of both runs' judge-error variances (their reports are different citations, so
the report parts add, and so do the run parts), and ``p_same_order_topics`` with the variance of
the per-topic differences over ``T`` added (paired: both runs are scored on the same topics).

``bench/intervals.py`` measures weighted precision's intervals and pairs against NIST's assessors
on rag24-support's unseen topics (the other measures' are not measured: rag24-support's labels
give only weighted precision per report).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Callable, NamedTuple, Optional, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from judges.core.measures import HEADLINE, MEASURE_NAMES, REGISTRY, VARIANCES, headline_of
from judges.attest.plan import weight_variance
from judges.core.vocabulary import LABEL_LEVEL, STATUS_GRADE

Z95 = 1.959963984540054  # the standard normal's 97.5% quantile
UNKNOWN = (0.5, 0.0, 0.5)  # levels of a citation without probabilities: none or full (weight variance 0.25)
NO_JUDGE_ERROR = frozenset(m.name for m in REGISTRY.values() if not m.judge_error)
#: the judge-error variances :func:`report_variances` computes (judges.core.measures.VARIANCES); the
#: nugget measures' come from :func:`nugget_report_variances`
MODELLED_VARIANCES = tuple(
    v for v in VARIANCES if v not in ("none", "unmodelled", "nugget_assignment", "battle_bootstrap")
)
#: the measures whose judge error :func:`report_variances` gives, in registry order
MODELLED = tuple(m.name for m in REGISTRY.values() if m.variance in MODELLED_VARIANCES)
# an assessor's label: a status name (the assessments' human_label) or a label file's word
LEVEL_OF_LABEL = {**LABEL_LEVEL, **STATUS_GRADE}
# grid of restricted maximum likelihood for the spreads
GRID_STEP = 0.0025
GRID_MAX = 0.5
#: the spreads the intervals assume without labels of the session's track (:func:`session_spreads`)
SHIPPED_SPREADS = Path(__file__).with_name("intervals.json")
REGIME_SD = float(json.loads(SHIPPED_SPREADS.read_text(encoding="utf-8"))["regime_sd"])
PROFILE_DROP = 1.3527717935  # chi2 with 1 degree of freedom, 90% quantile, halved: a one-sided 95% bound

INTERVAL_COLUMNS = (
    *("run_id", "measure", "value", "low", "high", "low_topics", "high_topics", "topics"),
    *("estimate", "made", "labels", "effective_labels", "low_labels", "high_labels"),
)
INTERVAL_SCHEMA = pa.schema(
    [("run_id", pa.string()), ("measure", pa.string())]
    + [(c, pa.float64()) for c in ("value", "low", "high", "low_topics", "high_topics")]
    + [("topics", pa.int32()), ("estimate", pa.float64()), ("made", pa.string()), ("labels", pa.int32())]
    + [(c, pa.float64()) for c in ("effective_labels", "low_labels", "high_labels")]
)
PAIR_COLUMNS = ("run_a", "run_b", "measure", "gap", "p_same_order", "p_same_order_topics")
PAIR_SCHEMA = pa.schema(
    [("run_a", pa.string()), ("run_b", pa.string()), ("measure", pa.string())]
    + [(c, pa.float64()) for c in ("gap", "p_same_order", "p_same_order_topics")]
)


class Spreads(NamedTuple):
    """The correlated parts of the judge's error (per citation weight): a report's and a run's."""

    report_sd: float = 0.0
    run_sd: float = 0.0
    bias: float = 0.0  # mean of human minus judge (at ``center``): applied only with a fitted line
    regime_sd: float = 0.0  # a bias shared by every run's citations: labels made another way
    source: str = ""  # the labelled data the spreads were learned on
    # the run's mean error as a line in its judged value x (fit_spreads(line=True)): bias + slope (x - center)
    slope: float = 0.0
    center: float = 0.0
    bias_sd: float = 0.0  # the line's standard errors; 0: no line fitted (the bias is not applied)
    slope_sd: float = 0.0

    @classmethod
    def of(cls, fitted: dict) -> "Spreads":
        return cls(float(fitted["report_sd"]), float(fitted["run_sd"]), float(fitted.get("bias", 0.0)))._replace(
            **cls.line_of(fitted)
        )

    @staticmethod
    def line_of(fitted: dict) -> dict:
        return {k: float(fitted[k]) for k in ("slope", "center", "bias_sd", "slope_sd") if k in fitted}

    def line(self, x: float) -> tuple[float, float]:
        """The mean of the judge's error per uncertain citation weight of a run whose reports' mean
        judged value is ``x``, and its variance (the line's uncertainty): ``(0, 0)`` without a line."""
        if self.bias_sd <= 0 and self.slope_sd <= 0:
            return 0.0, 0.0
        dx = x - self.center
        return self.bias + self.slope * dx, self.bias_sd**2 + self.slope_sd**2 * dx**2

    @classmethod
    def honest(cls, fitted: dict, regime_sd: float = 0.0, kind: str = "predictive") -> "Spreads":
        """The spreads carrying their own uncertainty (:func:`fit_spreads`: ``predictive`` or
        ``upper``), with a regime allowance."""
        return cls(
            float(fitted[f"report_sd_{kind}"]),
            float(fitted[f"run_sd_{kind}"]),
            float(fitted.get("bias", 0.0)),
            regime_sd,
        )._replace(**cls.line_of(fitted))


INDEPENDENT = Spreads()


def session_spreads(model=None) -> Spreads:
    """The spreads the intervals assume: those ``calibrate`` recorded in ``model`` (a
    :class:`judges.support.model.SupportModel`) at their posterior predictive, else the shipped ones
    (:data:`SHIPPED_SPREADS`, re-fitted from the shipped model's data: a model file written before,
    the shipped model itself, or the alignment judge); with :data:`REGIME_SD` for labels made
    another way."""
    fitted = getattr(model, "intervals", None) or {}
    if "run_sd_predictive" in fitted:
        data = str((getattr(model, "training", None) or {}).get("data") or "the model's calibration labels")
        return Spreads.honest(fitted, REGIME_SD)._replace(source=data.split(":")[0])
    shipped = json.loads(SHIPPED_SPREADS.read_text(encoding="utf-8"))
    spreads = Spreads(float(shipped["report_sd"]), float(shipped["run_sd"]), float(shipped["bias"]), REGIME_SD)
    return spreads._replace(source=shipped["source"], **Spreads.line_of(shipped))


# -- per citation --------------------------------------------------------------------------------
def level_distribution(
    p_any,
    p_full,
    likelihood=None,
    has_probabilities=None,
    missing=None,
    label_level=None,
) -> np.ndarray:
    """Per citation, the probabilities of none, partial and full support people would give (rows
    of an ``(n, 3)`` array): the support model's (``p_any``, ``p_full``; ``likelihood`` of an
    LLM's answer under each level, rows of 1 where none, applied by Bayes' rule), :data:`UNKNOWN`
    where there are no probabilities (uniform before an answer), none for ``missing``, and the
    label's level where ``label_level >= 0``."""
    p_any = np.asarray(p_any, dtype=np.float64)
    n = len(p_any)
    has = np.ones(n, dtype=bool) if has_probabilities is None else np.asarray(has_probabilities, dtype=bool)
    safe_any = np.where(has, p_any, 0.0)
    safe_full = np.minimum(np.where(has, np.asarray(p_full, dtype=np.float64), 0.0), safe_any)
    q = np.stack([1.0 - safe_any, safe_any - safe_full, safe_full], axis=1)
    lik = np.ones((n, 3)) if likelihood is None else np.asarray(likelihood, dtype=np.float64)
    answered = np.any(lik != 1.0, axis=1)
    q[~has] = np.where(answered[~has, None], 1.0 / 3.0, np.array(UNKNOWN))
    posterior = q * lik
    total = posterior.sum(axis=1)
    q = np.where(total[:, None] > 0.0, posterior / np.where(total > 0.0, total, 1.0)[:, None], q)
    if missing is not None:
        q[np.asarray(missing, dtype=bool)] = (1.0, 0.0, 0.0)
    if label_level is not None:
        lv = np.asarray(label_level)
        known = lv >= 0
        q[known] = np.eye(3)[lv[known]]
    return q


def weight_variances(q: np.ndarray, full_ruled_out) -> np.ndarray:
    """``Var(w)`` of each citation's TREC weight under its levels ``q`` (:func:`level_distribution`),
    full weighing 0.5 where ``full_ruled_out`` (:func:`judges.attest.plan.weight_variance`)."""
    return np.maximum(weight_variance(q[:, 1] + q[:, 2], q[:, 2], np.asarray(full_ruled_out, dtype=bool)), 0.0)


def capped_levels(q: np.ndarray, full_ruled_out) -> np.ndarray:
    """``q`` with full support moved to partial where the grounding cap rules it out."""
    out = q.copy()
    ruled = np.asarray(full_ruled_out, dtype=bool)
    out[ruled, 1] += out[ruled, 2]
    out[ruled, 2] = 0.0
    return out


# -- per run -------------------------------------------------------------------------------------
def judge_variance(
    report_var, u, topics: int, spreads: Spreads, scale: float = 1.0, x: Optional[float] = None
) -> float:
    """The judge-error variance of a run's ``all`` value: ``report_var`` the independent variances
    of its reports' values (one per report it has; topics without one add 0), ``u`` their shares
    of uncertain citations, ``topics`` the ``T`` its mean is over; the shared parts times ``scale``
    (1 for weighted precision); ``x`` the run's judged value for the line's uncertainty
    (:meth:`Spreads.line`; None: none)."""
    report_var, u = np.asarray(report_var, dtype=np.float64), np.asarray(u, dtype=np.float64)
    if topics <= 0:
        return 0.0
    line_var = spreads.line(x)[1] if x is not None else 0.0
    shared = (
        spreads.report_sd**2 * float(np.sum(u**2))
        + (spreads.run_sd**2 + spreads.regime_sd**2 + line_var) * float(np.sum(u)) ** 2
    )
    return (float(np.sum(report_var)) + scale * shared) / topics**2


def regime_part(u, topics: int, spreads: Spreads, scale: float = 1.0) -> float:
    """The part of :func:`judge_variance` a bias shared by every run adds (``regime_sd``): the same
    for runs judged alike, so it moves no pair of them."""
    return scale * spreads.regime_sd**2 * (float(np.sum(u)) / topics) ** 2 if topics > 0 else 0.0


def topic_variance(values: Sequence[float]) -> float:
    """Variance of the mean of per-topic ``values`` over topics of the same kind: NaN from one topic."""
    x = np.asarray(values, dtype=np.float64)
    return float(np.var(x, ddof=1)) / len(x) if len(x) >= 2 else float("nan")


def interval(value: float, variance: float, low: float = 0.0, high: float = 1.0) -> tuple[float, float]:
    """The 95% normal interval around ``value``, clipped to ``[low, high]`` (NaN variance: NaN)."""
    if variance != variance:
        return float("nan"), float("nan")
    half = Z95 * math.sqrt(max(variance, 0.0))
    return max(low, min(high, value - half)), max(low, min(high, value + half))


def p_same_order(gap: float, variance: float) -> float:
    """``Phi(gap / sd)``: the probability that people order two runs as a judge ``gap`` apart does."""
    if variance != variance:
        return float("nan")
    if variance <= 0.0:
        return 1.0 if gap > 0 else 0.5
    return 0.5 * math.erfc(-gap / math.sqrt(2.0 * variance))


# -- fitting the spreads -------------------------------------------------------------------------
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


# -- labels drawn with known probabilities: prediction-powered inference -----------------------------
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
    (measured in bench/intervals.py, not shipped: :func:`trust` learns the bias from the labels
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
    mean error (:meth:`Spreads.line`), one number or one per citation, added to the
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
    lv = _levels(table, order, cap, answer_error)
    labelled = lv.label_level >= 0
    if not labelled.any():
        return None
    docs = _column(table, "doc_id", order).to_pylist()
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


# -- the session's intervals and pairs -----------------------------------------------------------
class Trust(NamedTuple):
    """A session's intervals (rows of :data:`INTERVAL_COLUMNS`) and pairs (:data:`PAIR_COLUMNS`)."""

    intervals: list[tuple]
    pairs: list[tuple]


def _likelihoods(answers: list, p_yes: list, error: float) -> np.ndarray:
    from judges.attest.answers import likelihood

    out = np.ones((len(answers), 3))
    for i, (a, p) in enumerate(zip(answers, p_yes)):
        if a is not None:
            lik = likelihood(a, p, error)
            if lik is not None:
                out[i] = lik
    return out


def _column(table: pa.Table, name: str, order) -> pa.Array:
    column = table.column(name) if order is None else pc.take(table.column(name), order)
    return column.combine_chunks()


class _Levels(NamedTuple):
    run: pa.Array
    topic: pa.Array
    sentence_index: np.ndarray
    status: pa.Array
    weight: np.ndarray
    missing: np.ndarray
    q: np.ndarray  # levels people would give, the label's where it is known
    free: np.ndarray  # levels without any label (the judge's view)
    ruled: np.ndarray  # full ruled out by the grounding cap (where not known)
    uncertain: np.ndarray  # neither missing nor known
    label_level: np.ndarray  # the label's level, -1 where none
    capped: np.ndarray  # full ruled out by the grounding cap (every citation)


def _levels(table: pa.Table, order, cap: Sequence[str], answer_error: float, random_labels=None) -> _Levels:
    """Per citation of ``table`` in ``order``: the levels people would give, and what is known;
    ``random_labels`` (rows in order) marks labels drawn at random, which the judge's error model
    does not take as known (:func:`labelled_estimate` uses them)."""
    n = table.num_rows
    run = _column(table, "run_id", order)
    topic = _column(table, "topic_id", order)
    sentence_index = _column(table, "sentence_index", order).to_numpy(zero_copy_only=False)
    status = _column(table, "status", order)
    weight = pc.fill_null(_column(table, "weight", order), 0.0).to_numpy(zero_copy_only=False)
    missing = pc.equal(status, "missing").to_numpy(zero_copy_only=False)
    p_any_col, p_full_col = _column(table, "p_any", order), _column(table, "p_full", order)
    has = (pc.is_valid(p_any_col).to_numpy(zero_copy_only=False)) & pc.is_valid(p_full_col).to_numpy(
        zero_copy_only=False
    )
    p_any = pc.fill_null(p_any_col, 0.0).to_numpy(zero_copy_only=False)
    p_full = pc.fill_null(p_full_col, 0.0).to_numpy(zero_copy_only=False)
    ruled = np.zeros(n, dtype=bool)
    for kind in cap:
        lengths = pc.fill_null(pc.list_value_length(_column(table, f"{kind}_missing", order)), 0)
        ruled |= lengths.to_numpy(zero_copy_only=False) > 0
    answers = _column(table, "llm_answer", order)
    lik = None
    if answers.null_count < n:
        lik = _likelihoods(answers.to_pylist(), _column(table, "llm_p_yes", order).to_pylist(), answer_error)
    label_level = np.full(n, -1)
    if "human_label" in table.column_names:
        labels = _column(table, "human_label", order)
        if labels.null_count < n:
            label_level = np.array([LEVEL_OF_LABEL.get(v, -1) if v is not None else -1 for v in labels.to_pylist()])
    known = label_level.copy()
    if random_labels is not None:
        known[np.asarray(random_labels, dtype=bool)] = -1
    free = level_distribution(p_any, p_full, lik, has, missing)
    q = level_distribution(p_any, p_full, lik, has, missing, known)
    uncertain = ~missing & (known < 0)
    return _Levels(
        run, topic, sentence_index, status, weight, missing, q, free, ruled & uncertain, uncertain, label_level, ruled
    )


def report_variances(
    table: pa.Table, order, per_topic: dict, cap: Sequence[str], answer_error: float, random_labels=None
) -> dict:
    """Per report ``(run, topic)`` of ``table`` (assessments; ``order`` the indices that sort it by
    run, topic, sentence and citation, or None when it is sorted): ``(u, {measure: independent
    error variance of its value})`` for the support measures: the expected squared error of the
    judge's value under the citations' levels, taken independent (the variance where the judge's
    value is the expectation, as for the default weights). ``random_labels``: labels drawn at
    random, not taken as known (:func:`_levels`)."""
    n = table.num_rows
    if n == 0:
        return {}
    lv = _levels(table, order, cap, answer_error, random_labels)
    run, topic, sentence_index, status, weight = lv.run, lv.topic, lv.sentence_index, lv.status, lv.weight
    q, ruled, uncertain = lv.q, lv.ruled, lv.uncertain
    mean_weight = 0.5 * q[:, 1] + np.where(ruled, 0.5, 1.0) * q[:, 2]
    if random_labels is not None:  # the judge's value there is its own, not the label's
        weight = np.where(np.asarray(random_labels, dtype=bool), mean_weight, weight)
    v_weight = np.where(uncertain, weight_variances(q, ruled) + (mean_weight - weight) ** 2, 0.0)
    qc = capped_levels(q, ruled)
    full = qc[:, 2]  # P(people say full)
    judged_full = pc.equal(status, "supported").to_numpy(zero_copy_only=False)
    v_support = _binary_error(full, judged_full)
    chars = pc.utf8_length(pc.utf8_trim_whitespace(_column(table, "sentence", order))).to_numpy(zero_copy_only=False)

    # boundaries of reports and sentences (the rows are sorted by run, topic, sentence, citation)
    new_report = np.ones(n, dtype=bool)
    if n > 1:
        new_report[1:] = pc.or_(pc.not_equal(run[1:], run[:-1]), pc.not_equal(topic[1:], topic[:-1])).to_numpy(
            zero_copy_only=False
        )
    new_sentence = new_report.copy()
    new_sentence[1:] |= sentence_index[1:] != sentence_index[:-1]
    r_start, s_start = np.flatnonzero(new_report), np.flatnonzero(new_sentence)
    report_of_sentence = np.searchsorted(r_start, s_start, side="right") - 1
    n_cit = np.diff(np.append(r_start, n)).astype(np.float64)

    # per sentence: P(no citation full), P(every citation none), the best weight's variance
    no_full = np.multiply.reduceat(1.0 - full, s_start)
    all_none = np.multiply.reduceat(qc[:, 0], s_start)
    p_best_full = 1.0 - no_full
    p_best_half = np.clip(1.0 - p_best_full - all_none, 0.0, 1.0)
    mean_best = 0.5 * p_best_half + p_best_full
    judged_best = np.maximum.reduceat(weight, s_start)
    v_best = np.maximum(0.25 * p_best_half + p_best_full - mean_best**2, 0.0) + (mean_best - judged_best) ** 2
    judged_some = np.logical_or.reduceat(judged_full, s_start)
    v_some = _binary_error(p_best_full, judged_some)
    s_chars = chars[s_start].astype(np.float64)
    nonblank = s_chars > 0
    s_supported = judged_some & nonblank

    def per_report(values, weights=None) -> np.ndarray:
        return np.bincount(report_of_sentence, values if weights is None else values * weights, minlength=len(r_start))

    cited_sentences = per_report(nonblank.astype(np.float64))
    cited_chars = per_report(s_chars * nonblank)
    supported_chars = per_report(s_chars * s_supported)
    sum_best, sum_some = per_report(v_best * nonblank), per_report(v_some * nonblank)
    sum_some_chars = per_report(v_some * nonblank, s_chars**2)
    sum_weight = np.add.reduceat(v_weight, r_start)
    sum_support = np.add.reduceat(v_support, r_start)
    all_full = np.multiply.reduceat(full, r_start)
    v_perfect = _binary_error(all_full, np.logical_and.reduceat(judged_full, r_start))
    u = np.add.reduceat(uncertain.astype(np.float64), r_start) / n_cit

    runs, topics = run.take(pa.array(r_start)).to_pylist(), topic.take(pa.array(r_start)).to_pylist()
    out = {}
    for k, key in enumerate(zip(runs, topics)):
        v = per_topic.get(key, {})
        sentences = _recovered(cited_sentences[k], v.get("CITED_SENTENCES", 0.0))
        if v.get("GROUNDEDNESS", 0.0) > 0:
            total_chars = supported_chars[k] / v["GROUNDEDNESS"]
        else:  # no supported sentence: the uncited sentences taken as long as the cited ones
            total_chars = cited_chars[k] * sentences / cited_sentences[k] if cited_sentences[k] else 0.0
        by_variance = {  # judges.core.measures.VARIANCES
            "citation_full": sum_support[k] / n_cit[k] ** 2,
            "report_full": v_perfect[k],
            "sentence_full": sum_some[k] / sentences**2 if sentences else 0.0,
            "citation_weight": sum_weight[k] / n_cit[k] ** 2,
            "sentence_best_weight": sum_best[k] / sentences**2 if sentences else 0.0,
            "chars_full": sum_some_chars[k] / total_chars**2 if total_chars else 0.0,
        }
        out[key] = (float(u[k]), {m: by_variance[REGISTRY[m].variance] for m in MODELLED})
    return out


def _binary_error(p: np.ndarray, judged: np.ndarray) -> np.ndarray:
    """``E[(X - j)^2]`` for ``X`` Bernoulli(``p``) and the judge's 0/1 ``judged``."""
    return np.where(judged, 1.0 - p, p)


def _recovered(cited: float, share: float) -> float:
    """The number of non-blank sentences of a report with ``cited`` cited ones, a ``share`` of them."""
    return float(round(cited / share)) if share > 0 else 0.0


def trust(
    per_topic: dict,
    runs: Sequence[str],
    topics: Sequence[str],
    reports: dict,
    spreads: Spreads,
    measures: Sequence[str] = MEASURE_NAMES,
    draws: Optional[Draws] = None,
    rest_reports: Optional[dict] = None,
    headline: str = HEADLINE,
) -> Trust:
    """The intervals of every run and measure and the pairs on the headline, from the reports'
    values (``per_topic``: (run, topic) -> measures; a topic a run did not answer counts 0) and
    :func:`report_variances`. With labels (``draws``, :func:`label_draws`; ``rest_reports``:
    :func:`report_variances` with the labels drawn at random unknown), the estimate and interval
    of ``headline`` (weighted precision; a nugget measure in :func:`nugget_trust`) are
    :func:`labelled_estimate`'s, and so are its pairs."""
    runs, topics = sorted(runs), sorted(topics)
    t = len(topics)
    unmodelled = [m for m in measures if REGISTRY[m].variance == "unmodelled"]
    if unmodelled:
        raise ValueError(f"no model of the judge's error of {', '.join(unmodelled)} (judges.core.measures.REGISTRY)")
    support = [m for m in measures if m not in NO_JUDGE_ERROR]
    unmodelled = [m for m in support if any(m not in variances for _, variances in reports.values())]
    if unmodelled:  # a report without the measure's variance would count the judge's error as 0
        raise ValueError(f"no model of the judge's error of {', '.join(unmodelled)} in these reports")
    # each support measure's shared part: weighted precision's, scaled by the session's variance ratio
    totals = {m: sum(v[m] for _, v in reports.values() if m in v) for m in support}
    base = totals.get(HEADLINE, 0.0)
    scale = {m: (totals[m] / base if base > 0 else 1.0) for m in support}
    scale[HEADLINE] = 1.0
    values: dict[str, dict[str, list[float]]] = {}
    # per run on the headline: (estimate, variance, share the judge still gives, variance without the regime part)
    head_of: dict[str, tuple[float, float, float, float]] = {}
    rows = []
    nan = float("nan")
    shift, learned = 0.0, spreads
    model_only = f"model (errors learned on {spreads.source})" if spreads.source else "model"
    if draws is not None:  # the bias shared by every run, learned from the labels drawn at random
        drawn = [(f[1][d], f[2][d], f[4][d]) for f in draws.rows.values() for d in [f[3] & (f[4] < 1.0)]]
        judged, human, probability = (np.concatenate(c) if drawn else np.zeros(0) for c in zip(*drawn))
        shift, regime_sd = regime_update(judged, human, probability, spreads.regime_sd)
        learned = spreads._replace(regime_sd=regime_sd)
    for run in runs:
        per = [per_topic.get((run, topic)) for topic in topics]
        values[run] = {m: [v[m] if v is not None else 0.0 for v in per] for m in measures}
        known = [reports[(run, topic)] for topic in topics if (run, topic) in reports]
        u = [k[0] for k in known]
        # the run's judged value over its reports with citations: where the line of its error is read
        in_run = [per_topic.get((run, topic), {}).get(headline) for topic in topics if (run, topic) in reports]
        run_values = [v for v in in_run if v is not None]
        x_run = float(np.mean(run_values)) if run_values else None
        line_mean = spreads.line(x_run)[0] if x_run is not None else 0.0
        for m in measures:
            x = values[run][m]
            value = sum(x) / t if t else 0.0
            var = 0.0
            if m not in NO_JUDGE_ERROR:
                var = judge_variance([k[1][m] for k in known], u, t, spreads, scale.get(m, 1.0))
            high = REGISTRY[m].high
            made = "no judge error" if m in NO_JUDGE_ERROR else model_only
            estimate, n_labels, effective, labels_iv = value, 0, 0.0, (nan, nan)
            if m == headline:
                share = sum(u) / t if t else 0.0
                var = judge_variance([k[1].get(m, 0.0) for k in known], u, t, spreads, x=x_run)
                estimate = value + share * line_mean
                pair_var = var - regime_part(u, t, spreads)
                found: Any = draws.rows.get(run) if draws is not None else None
                if draws is not None and found is not None:
                    rest_of = rest_reports or {}
                    rest = [rest_of[(run, topic)] for topic in topics if (run, topic) in rest_of]
                    rest_u = [k[0] for k in rest]
                    model_var = judge_variance([k[1].get(m, 0.0) for k in rest], rest_u, t, learned, x=x_run)
                    no_regime = model_var - regime_part(rest_u, t, learned)
                    within = found[5] + spreads.report_sd**2
                    lev, judged, human, labelled, probability = found[:5]
                    moved = (shift + line_mean) * (found[5] > 0)  # on the citations the judge is unsure of
                    est = labelled_estimate(lev, judged, human, labelled, probability, model_var, within, moved)
                    estimate, var, n_labels, effective = est.value, est.variance, est.labels, est.effective
                    labels_iv = interval(est.labels_value, est.labels_variance, 0.0, high)
                    made = f"{model_only} and {n_labels} labels, {draws.how}"
                    made = made if n_labels else f"{model_only}, with the session's labels"
                    share = sum(rest_u) / t if t else 0.0
                    pair = labelled_estimate(lev, judged, human, labelled, probability, no_regime, within, moved)
                    head_of[run] = (pair.value, var, share, pair.variance)
                else:
                    head_of[run] = (estimate, var, share, pair_var)
            low_, high_ = interval(estimate, var, 0.0, high)
            low_t, high_t = interval(estimate, var + topic_variance(x), 0.0, high)
            rows.append((run, m, value, low_, high_, low_t, high_t, t, estimate, made, n_labels, effective, *labels_iv))
    head = headline_of(list(measures))
    x = np.array([values[run][head] for run in runs], dtype=np.float64).reshape(len(runs), t)
    cov = np.cov(x, ddof=1).reshape(len(runs), len(runs)) / t if t >= 2 else np.full((len(runs),) * 2, np.nan)
    if head != headline:  # another headline (weighted precision not asked for): the model's variance
        head_of = {}
        for r, m, v, *_ in rows:
            if m == head:
                u = [reports[(r, topic)][0] for topic in topics if (r, topic) in reports]
                known = [reports[(r, topic)][1].get(m, 0.0) for topic in topics if (r, topic) in reports]
                var = judge_variance(known, u, t, spreads, scale.get(m, 1.0)) if m not in NO_JUDGE_ERROR else 0.0
                part = regime_part(u, t, spreads, scale.get(m, 1.0)) if m not in NO_JUDGE_ERROR else 0.0
                head_of[r] = (v, var, sum(u) / t if t and part else 0.0, var - part)
    pairs = []
    regime = learned.regime_sd**2
    for i, a in enumerate(runs):
        for j in range(i + 1, len(runs)):
            b = runs[j]
            first, second = (a, b) if head_of[a][0] >= head_of[b][0] else (b, a)  # ties: in name order
            gap = head_of[first][0] - head_of[second][0]
            # a bias shared by every run moves a pair only by the runs' different shares of judged citations
            var = head_of[a][3] + head_of[b][3] + regime * (head_of[a][2] - head_of[b][2]) ** 2
            topic_var = max(cov[i, i] + cov[j, j] - 2.0 * cov[i, j], 0.0) if t >= 2 else float("nan")
            pairs.append((first, second, head, gap, p_same_order(gap, var), p_same_order(gap, var + topic_var)))
    pairs.sort(key=lambda p: (p[2], p[0], p[1]))
    return Trust(rows, pairs)


# -- files -----------------------------------------------------------------------------------------
def _fmt(v) -> str:
    if isinstance(v, (int, np.integer)):
        return str(v)
    from judges.formats.trec import format_value

    return format_value(v)


def write_tsv(path: Path, columns: Sequence[str], rows: list[tuple]) -> None:
    from judges.formats.atomic import atomic_text

    with atomic_text(path) as f:
        f.write("\t".join(columns) + "\n")
        for row in rows:
            f.write("\t".join(v if isinstance(v, str) else _fmt(v) for v in row) + "\n")


def write_parquet(path: Path, schema: pa.Schema, rows: list[tuple]) -> None:
    from judges.formats.tables import write_table

    columns = list(zip(*rows)) if rows else [[] for _ in schema]
    write_table(path, pa.table([list(c) for c in columns], schema=schema))


def write_trust(found: Trust, out_dir: Path, name: str, place: Callable[[Path], Path] = lambda p: p) -> dict:
    """Write ``NAME.intervals.tsv``/``.parquet`` and ``NAME.pairs.tsv``/``.parquet``; returns kind -> path."""
    from judges.formats import outputset

    files = {}
    for kind, columns, schema, rows in (
        ("intervals", INTERVAL_COLUMNS, INTERVAL_SCHEMA, found.intervals),
        ("pairs", PAIR_COLUMNS, PAIR_SCHEMA, found.pairs),
    ):
        tsv, parquet = outputset.path(out_dir, name, kind), outputset.path(out_dir, name, f"{kind}_parquet")
        write_tsv(place(tsv), columns, rows)
        write_parquet(place(parquet), schema, rows)
        files[kind], files[f"{kind}_parquet"] = str(tsv), str(parquet)
    return files


def read_intervals(path: str | Path, name: Optional[str] = None):
    """The intervals (:data:`INTERVAL_COLUMNS`) as a pandas DataFrame (``path``: file or output dir)."""
    from judges.formats.tables import output_file, read_table

    return read_table(output_file(path, name, "intervals_parquet"), required=INTERVAL_COLUMNS).to_pandas()


def read_pairs(path: str | Path, name: Optional[str] = None):
    """The run pairs (:data:`PAIR_COLUMNS`) as a pandas DataFrame (``path``: file or output dir)."""
    from judges.formats.tables import output_file, read_table

    return read_table(output_file(path, name, "pairs_parquet"), required=PAIR_COLUMNS).to_pandas()


def inseparable(pairs: list[tuple], ranking: list[str], level: float = 0.95) -> list[tuple[str, str, float]]:
    """Adjacent runs of ``ranking`` (best first) whose ``p_same_order`` is below ``level``."""
    p = {(a, b): q for a, b, _, _, q, _ in pairs}
    out = []
    for a, b in zip(ranking, ranking[1:]):
        q = p.get((a, b), p.get((b, a)))
        if q is not None and q < level:
            out.append((a, b, q))
    return out


# -- nugget measures (judges.attest.kinds.NUGGET): the same intervals and pairs over nugget pairs ---------
#: the nugget judge's correlated errors per measure, learned on rag24-nuggets (bench/nugget_intervals.py --write)
NUGGET_SPREADS = Path(__file__).with_name("nugget_intervals.json")
NUGGET_ALL, NUGGET_F1 = "NUGGET_ALL", "NUGGET_F1"
NUGGET_STRICT = {"NUGGET_ALL": False, "NUGGET_ALL_STRICT": True, "NUGGET_VITAL": False, "NUGGET_VITAL_STRICT": True}


def nugget_spreads() -> dict[str, Spreads]:
    """Per nugget measure the spreads its intervals assume (:data:`NUGGET_SPREADS`: the posterior
    predictive fitted on rag24-nuggets, with its regime term, :func:`fit_regime`)."""
    shipped = json.loads(NUGGET_SPREADS.read_text(encoding="utf-8"))
    return {
        m: Spreads.honest(f, float(f["regime_sd"]))._replace(source=shipped["source"])
        for m, f in shipped["measures"].items()
    }


def fit_regime(run_ids, topic_ids, human, judged, variance, kind: str = "point") -> float:
    """The regime term of a nugget measure (sd of a bias shared by every run: labels made another
    way), fitted from the data's own heterogeneity: each topic's pairs were assessed by one
    assessor, so the spread between topics of the mean residual human minus judge is how far one
    way of labelling lies from another. :func:`fit_spreads` with the topic in place of the run
    (restricted maximum likelihood; answers within a topic as its reports): the topics' sd at its
    maximum (``point``), its posterior predictive (``predictive``) or its one-sided 95% upper bound (``upper``)."""
    fitted = fit_spreads(topic_ids, run_ids, human, judged, variance)
    return float(fitted[{"point": "run_sd", "predictive": "run_sd_predictive", "upper": "run_sd_upper"}[kind]])


def nugget_pair_variances(p_support, p_partial, p_not, judged_all=None, judged_strict=None, known=None):
    """Per nugget pair the expected squared error of the judge's value against the assessors' under
    the pair's levels (not ``p_not``, partial ``p_partial``, support ``p_support``): for the graded
    measures (support 1, partial 0.5) and the strict ones (support 1). The judge's values default
    to the expectations (the nugget measures' default), where the error is the variance. ``known``:
    pairs whose level is an assessor's (error 0)."""
    s, p = np.asarray(p_support, dtype=np.float64), np.asarray(p_partial, dtype=np.float64)
    mean_all, mean_strict = s + 0.5 * p, s
    j_all = mean_all if judged_all is None else np.asarray(judged_all, dtype=np.float64)
    j_strict = mean_strict if judged_strict is None else np.asarray(judged_strict, dtype=np.float64)
    v_all = np.maximum(s + 0.25 * p - mean_all**2, 0.0) + (mean_all - j_all) ** 2
    v_strict = np.maximum(s - s**2, 0.0) + (mean_strict - j_strict) ** 2
    if known is not None:
        k = np.asarray(known, dtype=bool)
        v_all, v_strict = np.where(k, 0.0, v_all), np.where(k, 0.0, v_strict)
    return v_all, v_strict


def nugget_levels(j) -> tuple[float, float, float]:
    """The judge's own ``(p_support, p_partial, p_not)`` of a nugget judgment ``j``: the model's where an
    assessor's label replaced them (:attr:`judges.nuggets.judge.NuggetJudgment.model`)."""
    return j.model if j.labelled and j.model is not None else (j.p_support, j.p_partial, j.p_not)


def nugget_report_variances(
    judged: dict,
    citation_reports: Optional[dict] = None,
    per_topic=None,
    known: Optional[Callable] = None,
    drawn: Optional[Callable] = None,
) -> dict:
    """Per answer ``(run, topic)`` of ``judged`` (its nugget judgments, each with ``importance``,
    ``p_support``, ``p_partial``, ``p_not``; ``known(j)``: whether an assessor's assignment is in
    effect for ``j``, error 0): ``(u, {measure: independent error variance})`` for the four nugget
    measures, ``u`` the share of pairs not labelled, as :func:`report_variances` gives them for the support measures.
    ``drawn(j)``: labels drawn at random, not taken as known (the judge's own levels,
    :func:`nugget_levels`: :func:`labelled_estimate` uses them, as :func:`report_variances`'s ``random_labels``).
    With ``citation_reports`` (:func:`report_variances`) and ``per_topic`` (the answers' values)
    also ``NUGGET_F1``'s, by the delta method from NUGGET_ALL's and WEIGHTED_PRECISION's."""
    out = {}
    for key, rows in judged.items():
        if not rows:
            continue
        random = np.array([bool(drawn(j)) if drawn is not None else False for j in rows], dtype=bool)
        labelled = np.array([bool(known(j)) if known is not None else False for j in rows], dtype=bool) & ~random
        levels = np.array(
            [nugget_levels(j) if r else (j.p_support, j.p_partial, j.p_not) for j, r in zip(rows, random)]
        )
        v_all, v_strict = nugget_pair_variances(levels[:, 0], levels[:, 1], levels[:, 2], known=labelled)
        vital = np.array([j.importance == "vital" for j in rows], dtype=bool)
        n, nv = len(rows), int(vital.sum())
        var = {
            "NUGGET_ALL": float(v_all.sum()) / n**2,
            "NUGGET_ALL_STRICT": float(v_strict.sum()) / n**2,
            "NUGGET_VITAL": float(v_all[vital].sum()) / nv**2 if nv else 0.0,
            "NUGGET_VITAL_STRICT": float(v_strict[vital].sum()) / nv**2 if nv else 0.0,
        }
        if citation_reports is not None and per_topic is not None:
            values = per_topic.get(key, {})
            precision, recall = values.get("WEIGHTED_PRECISION", 0.0), values.get(NUGGET_ALL, 0.0)
            d_p, d_r = f1_gradient(precision, recall)
            v_p = citation_reports.get(key, (0.0, {}))[1].get("WEIGHTED_PRECISION", 0.0)
            var[NUGGET_F1] = d_r**2 * var["NUGGET_ALL"] + d_p**2 * v_p
        out[key] = (1.0 - float(labelled.mean()), var)
    return out


NUGGET_LEVEL = {"not_support": 0, "partial_support": 1, "support": 2}  # NIST's assignments, by level


class NuggetDraws(NamedTuple):
    """A session's labelled nugget pairs as :func:`labelled_estimate` takes them: per nugget
    measure a :class:`Draws` (over the pairs the measure counts), and the pairs whose label was
    drawn at random (keys (run, topic, nugget index): unknown to the error model)."""

    measures: dict  # measure -> Draws
    random: frozenset


def nugget_draws(judged: dict, probabilities: dict, topics: int) -> Optional[NuggetDraws]:
    """The labelled nugget pairs of ``judged`` ((run, topic) -> judgments; ``labelled`` ones carry an
    assessor's assignment and the judge's own levels, :func:`nugget_levels`) with the probability
    each was drawn with (``probabilities``: (run, topic, nugget index) -> probability, from
    ``plan-assessments --nuggets`` lines; labels without one, an organiser's own or NIST's
    assignment files, as :func:`drawn_probabilities` takes them), per nugget measure as
    :func:`label_draws` gives them for weighted precision: a pair's leverage is ``1 / (n T)``, ``n``
    the answer's nuggets the measure counts (its vital ones for the vital measures), the judge's
    value its expected value (graded: support 1, partial 0.5; strict: support 1), the human's the
    label's. None without labelled pairs."""
    rows = [j for key in sorted(judged) for j in judged[key]]
    labelled = np.array([j.labelled for j in rows], dtype=bool)
    if not labelled.any():
        return None
    keys = [(j.run_id, j.topic_id, j.nugget_index) for j in rows]
    probability = np.array([probabilities.get(k, np.nan) if lab else 0.0 for k, lab in zip(keys, labelled)])
    planned_sure = labelled & (probability >= 1.0)
    probability, how = drawn_probabilities(probability, labelled, ~planned_sure)
    random = labelled & (probability < 1.0)
    own = np.array([nugget_levels(j) for j in rows], dtype=np.float64)
    level = np.array([NUGGET_LEVEL.get(j.assignment, 0) if j.labelled else 0 for j in rows])
    v_all, v_strict = nugget_pair_variances(own[:, 0], own[:, 1], own[:, 2])
    vital = np.array([j.importance == "vital" for j in rows], dtype=bool)
    run_arr = np.array([k[0] for k in keys], dtype=object)
    answer = np.char.add(
        np.char.add(np.array([k[0] for k in keys], dtype=str), "\t"), np.array([k[1] for k in keys], dtype=str)
    )
    out = {}
    for m, strict in NUGGET_STRICT.items():
        sel = vital if "VITAL" in m else np.ones(len(rows), dtype=bool)
        if not (labelled & sel).any():
            continue
        _, inverse, sizes = np.unique(answer[sel], return_inverse=True, return_counts=True)
        lev = 1.0 / (sizes[inverse].astype(np.float64) * max(topics, 1))
        judged_value = own[sel, 0] if strict else own[sel, 0] + 0.5 * own[sel, 1]
        human = (level[sel] == 2).astype(np.float64) if strict else level[sel] / 2.0
        within = (v_strict if strict else v_all)[sel]
        lab, prob, runs = labelled[sel], np.where(labelled[sel], probability[sel], 0.0), run_arr[sel]
        per_run = {}
        for run in sorted(set(runs.tolist())):
            r = runs == run
            per_run[run] = (lev[r], judged_value[r], np.where(lab[r], human[r], 0.0), lab[r], prob[r], within[r])
        out[m] = Draws(per_run, random[sel], how, int(lab.sum()))
    return NuggetDraws(out, frozenset(k for k, r in zip(keys, random) if r))


def f1_gradient(precision: float, recall: float) -> tuple[float, float]:
    """``(dF1/dP, dF1/dR)`` of ``F1 = 2PR / (P + R)`` (0 where both are 0)."""
    total = precision + recall
    if total <= 0:
        return 0.0, 0.0
    return 2 * recall**2 / total**2, 2 * precision**2 / total**2


def nugget_trust(
    per_topic: dict,
    runs: Sequence[str],
    topics: Sequence[str],
    reports: dict,
    measures: Sequence[str],
    spreads: Optional[dict[str, Spreads]] = None,
    draws: Optional[NuggetDraws] = None,
    rest_reports: Optional[dict] = None,
    citation_spreads: Optional[Spreads] = None,
) -> Trust:
    """The intervals of every run on each nugget measure of ``measures`` and its run pairs
    (:func:`trust`, one measure at a time, each with its own spreads: :func:`nugget_spreads`).
    ``NUGGET_F1`` takes NUGGET_ALL's spreads scaled by the answers' mean ``dF1/dR`` and weighted
    precision's (``citation_spreads``, default :func:`session_spreads`'s) scaled by their mean
    ``dF1/dP``, added in quadrature (the delta method: the two judges' shared errors taken
    independent of each other). With labelled
    nugget pairs (``draws``, :func:`nugget_draws`; ``rest_reports``: :func:`nugget_report_variances`
    with the labels drawn at random unknown) each nugget measure's estimate, interval and pairs are
    :func:`labelled_estimate`'s, as weighted precision's are with citation labels."""
    spreads = nugget_spreads() if spreads is None else spreads
    rows, pairs = [], []
    for m in measures:
        if m == NUGGET_F1:
            grads = [f1_gradient(v.get("WEIGHTED_PRECISION", 0.0), v.get(NUGGET_ALL, 0.0)) for v in per_topic.values()]
            c_p, c_r = (float(np.mean([g[i] for g in grads])) for i in (0, 1)) if grads else (0.0, 1.0)
            a, w = spreads[NUGGET_ALL], session_spreads() if citation_spreads is None else citation_spreads
            s = a._replace(
                report_sd=math.hypot(c_r * a.report_sd, c_p * w.report_sd),
                run_sd=math.hypot(c_r * a.run_sd, c_p * w.run_sd),
                regime_sd=math.hypot(c_r * a.regime_sd, c_p * w.regime_sd),
            )
        elif m in spreads:
            s = spreads[m]
        else:
            continue
        drawn = draws.measures.get(m) if draws is not None else None
        found = trust(per_topic, runs, topics, reports, s, (m,), drawn, rest_reports if drawn else None, headline=m)
        rows += found.intervals
        pairs += found.pairs
    return Trust(rows, pairs)
