"""The nugget measures' intervals and pairs (:data:`judges.attest.kinds.NUGGET`): the judge's
error per nugget pair (:func:`nugget_pair_variances`), per answer and measure
(:func:`nugget_report_variances`: one function per measure, :data:`NUGGET_VARIANCE_OF`, checked
against the registry at import), the labelled pairs (:func:`nugget_draws`) and the session's rows
(:func:`nugget_trust`: :func:`judges.scores.trust.trust` one measure at a time, each with its own
spreads, :func:`nugget_spreads`).
"""

from __future__ import annotations

import math
from typing import Callable, NamedTuple, Optional, Sequence

import numpy as np

from judges.core.measures import REGISTRY
from judges.formats.intervals import NUGGET_SPREADS, read_spreads
from judges.scores.labelled import Draws, drawn_probabilities
from judges.scores.reml import fit_spreads
from judges.scores.spreads import Spreads, session_spreads
from judges.scores.trust import Trust, trust
from judges.scores.variances import NUGGET_VARIANCE

NUGGET_ALL, NUGGET_F1 = "NUGGET_ALL", "NUGGET_F1"
NUGGET_STRICT = {"NUGGET_ALL": False, "NUGGET_ALL_STRICT": True, "NUGGET_VITAL": False, "NUGGET_VITAL_STRICT": True}


def nugget_spreads() -> dict[str, Spreads]:
    """Per nugget measure the spreads its intervals assume (:data:`NUGGET_SPREADS`: the posterior
    predictive fitted on rag24-nuggets, with its regime term, :func:`fit_regime`)."""
    shipped = read_spreads(NUGGET_SPREADS)
    return {
        m: Spreads.honest(f, float(f["regime_sd"]))._replace(
            source=shipped["source"], topics=tuple(str(t) for t in shipped.get("topic_ids", ()))
        )
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


class NuggetSums(NamedTuple):
    """One answer's per-pair errors that its nugget measures' variances take."""

    all: np.ndarray  # per pair, the graded measures' expected squared error
    strict: np.ndarray  # the strict measures'
    vital: np.ndarray  # whether the pair's nugget is vital
    n: int  # the answer's nuggets
    nv: int  # its vital ones
    f1: Optional[tuple[float, float, float]]  # (dF1/dP, dF1/dR, WEIGHTED_PRECISION's variance); None: not known


def nugget_all(s: NuggetSums) -> float:
    return float(s.all.sum()) / s.n**2


def nugget_all_strict(s: NuggetSums) -> float:
    return float(s.strict.sum()) / s.n**2


def nugget_vital(s: NuggetSums) -> float:
    return float(s.all[s.vital].sum()) / s.nv**2 if s.nv else 0.0


def nugget_vital_strict(s: NuggetSums) -> float:
    return float(s.strict[s.vital].sum()) / s.nv**2 if s.nv else 0.0


def nugget_f1(s: NuggetSums) -> Optional[float]:
    """By the delta method from NUGGET_ALL's and WEIGHTED_PRECISION's; None without the latter."""
    if s.f1 is None:
        return None
    d_p, d_r, v_p = s.f1
    return d_r**2 * nugget_all(s) + d_p**2 * v_p


#: nugget measure -> its variance's function of an answer's per-pair errors (in leaderboard order)
NUGGET_VARIANCE_OF: dict[str, Callable[[NuggetSums], Optional[float]]] = {
    "NUGGET_ALL": nugget_all,
    "NUGGET_ALL_STRICT": nugget_all_strict,
    "NUGGET_VITAL": nugget_vital,
    "NUGGET_VITAL_STRICT": nugget_vital_strict,
    NUGGET_F1: nugget_f1,
}
_LACKING = [m.name for m in REGISTRY.values() if m.variance == NUGGET_VARIANCE and m.name not in NUGGET_VARIANCE_OF]
if _LACKING:
    raise ImportError(
        f"no model of the judge's error of {', '.join(_LACKING)} (judges.scores.nugget_intervals.NUGGET_VARIANCE_OF)"
    )


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
        f1 = None
        if citation_reports is not None and per_topic is not None:
            values = per_topic.get(key, {})
            precision, recall = values.get("WEIGHTED_PRECISION", 0.0), values.get(NUGGET_ALL, 0.0)
            v_p = citation_reports.get(key, (0.0, {}))[1].get("WEIGHTED_PRECISION", 0.0)
            f1 = (*f1_gradient(precision, recall), v_p)
        sums = NuggetSums(v_all, v_strict, vital, len(rows), int(vital.sum()), f1)
        var = {m: v for m, of in NUGGET_VARIANCE_OF.items() for v in [of(sums)] if v is not None}
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
