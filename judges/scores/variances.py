"""The judge's independent error of a report's value, per measure (:func:`report_variances`): one
function per way of taking it (:data:`judges.core.measures.VARIANCES`), registered under that name
in :data:`VARIANCE_OF`. Every measure of the registry whose value the judge's support decisions move
names one; a measure whose variance has no function here (nor in
:data:`judges.scores.nugget_intervals.NUGGET_VARIANCE_OF`) fails at import, not in a session.
"""

from __future__ import annotations

from typing import Callable, NamedTuple, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from judges.core.measures import REGISTRY, VARIANCES
from judges.scores.levels import capped_levels, column, levels, weight_variances

#: the measures whose value does not depend on the judge's support decisions
NO_JUDGE_ERROR = frozenset(m.name for m in REGISTRY.values() if not m.judge_error)
#: the variances the nugget judgments give (judges.scores.nugget_intervals), not the citations
NUGGET_VARIANCE = "nugget_assignment"
#: the variances other modules give, not the citations': the nugget judgments'
#: (judges.scores.nugget_intervals) and the battle ranking's bootstrap (judges.scores.battles)
ELSEWHERE = (NUGGET_VARIANCE, "battle_bootstrap")


class ReportSums(NamedTuple):
    """One report's sums over its citations and sentences that its measures' variances take."""

    citations: float  # judged citations
    sentences: float  # non-blank sentences (recovered from CITED_SENTENCES)
    chars: float  # characters of its non-blank sentences (recovered from GROUNDEDNESS)
    support: float  # sum over citations of the error of `supported` against P(full)
    perfect: float  # the error of all-`supported` against P(every citation full)
    some: float  # sum over sentences of the error of some-`supported` against P(some citation full)
    some_chars: float  # the same, each weighted by its characters squared
    weight: float  # sum over citations of the expected squared error of the weight
    best: float  # sum over sentences of the expected squared error of the best weight


def citation_full(r: ReportSums) -> float:
    return r.support / r.citations**2


def report_full(r: ReportSums) -> float:
    return r.perfect


def sentence_full(r: ReportSums) -> float:
    return r.some / r.sentences**2 if r.sentences else 0.0


def citation_weight(r: ReportSums) -> float:
    return r.weight / r.citations**2


def sentence_best_weight(r: ReportSums) -> float:
    return r.best / r.sentences**2 if r.sentences else 0.0


def chars_full(r: ReportSums) -> float:
    return r.some_chars / r.chars**2 if r.chars else 0.0


#: variance name (judges.core.measures.VARIANCES) -> its function of a report's sums
VARIANCE_OF: dict[str, Callable[[ReportSums], float]] = {
    "citation_full": citation_full,
    "report_full": report_full,
    "sentence_full": sentence_full,
    "citation_weight": citation_weight,
    "sentence_best_weight": sentence_best_weight,
    "chars_full": chars_full,
}


def check_registry() -> tuple[str, ...]:
    """The citation measures whose judge error :func:`report_variances` gives, in registry order;
    an ImportError naming every judged measure whose variance has no function here."""
    lacking = [
        f"{m.name} ({m.variance})"
        for m in REGISTRY.values()
        if m.judge_error and m.variance not in ELSEWHERE and m.variance not in VARIANCE_OF
    ]
    if lacking:
        raise ImportError(
            f"no model of the judge's error of {', '.join(lacking)} (judges.scores.variances.VARIANCE_OF)"
        )
    return tuple(m.name for m in REGISTRY.values() if m.variance in VARIANCE_OF)


#: the measures whose judge error :func:`report_variances` gives, in registry order
MODELLED = check_registry()
#: their variances' names
MODELLED_VARIANCES = tuple(v for v in VARIANCES if v in VARIANCE_OF)


def report_variances(
    table: pa.Table, order, per_topic: dict, cap: Sequence[str], answer_error: float, random_labels=None
) -> dict:
    """Per report ``(run, topic)`` of ``table`` (assessments; ``order`` the indices that sort it by
    run, topic, sentence and citation, or None when it is sorted): ``(u, {measure: independent
    error variance of its value})`` for the support measures: the expected squared error of the
    judge's value under the citations' levels, taken independent (the variance where the judge's
    value is the expectation, as for the default weights). ``random_labels``: labels drawn at
    random, not taken as known (:func:`judges.scores.levels.levels`)."""
    n = table.num_rows
    if n == 0:
        return {}
    lv = levels(table, order, cap, answer_error, random_labels)
    run, topic, sentence_index, status, weight = lv.run, lv.topic, lv.sentence_index, lv.status, lv.weight
    q, ruled, uncertain = lv.q, lv.ruled, lv.uncertain
    mean_weight = 0.5 * q[:, 1] + np.where(ruled, 0.5, 1.0) * q[:, 2]
    if random_labels is not None:  # the judge's value there is its own, not the label's
        weight = np.where(np.asarray(random_labels, dtype=bool), mean_weight, weight)
    v_weight = np.where(uncertain, weight_variances(q, ruled) + (mean_weight - weight) ** 2, 0.0)
    qc = capped_levels(q, ruled)
    full = qc[:, 2]  # P(people say full)
    judged_full = pc.equal(status, "supported").to_numpy(zero_copy_only=False)
    v_support = binary_error(full, judged_full)
    chars = pc.utf8_length(pc.utf8_trim_whitespace(column(table, "sentence", order))).to_numpy(zero_copy_only=False)

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
    v_some = binary_error(p_best_full, judged_some)
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
    v_perfect = binary_error(all_full, np.logical_and.reduceat(judged_full, r_start))
    u = np.add.reduceat(uncertain.astype(np.float64), r_start) / n_cit

    runs, topics = run.take(pa.array(r_start)).to_pylist(), topic.take(pa.array(r_start)).to_pylist()
    out = {}
    for k, key in enumerate(zip(runs, topics)):
        v = per_topic.get(key, {})
        sentences = recovered(cited_sentences[k], v.get("CITED_SENTENCES", 0.0))
        if v.get("GROUNDEDNESS", 0.0) > 0:
            total_chars = supported_chars[k] / v["GROUNDEDNESS"]
        else:  # no supported sentence: the uncited sentences taken as long as the cited ones
            total_chars = cited_chars[k] * sentences / cited_sentences[k] if cited_sentences[k] else 0.0
        sums = ReportSums(
            n_cit[k],
            sentences,
            total_chars,
            sum_support[k],
            v_perfect[k],
            sum_some[k],
            sum_some_chars[k],
            sum_weight[k],
            sum_best[k],
        )
        out[key] = (float(u[k]), {m: VARIANCE_OF[REGISTRY[m].variance](sums) for m in MODELLED})
    return out


def binary_error(p: np.ndarray, judged: np.ndarray) -> np.ndarray:
    """``E[(X - j)^2]`` for ``X`` Bernoulli(``p``) and the judge's 0/1 ``judged``."""
    return np.where(judged, 1.0 - p, p)


def recovered(cited: float, share: float) -> float:
    """The number of non-blank sentences of a report with ``cited`` cited ones, a ``share`` of them."""
    return float(round(cited / share)) if share > 0 else 0.0
