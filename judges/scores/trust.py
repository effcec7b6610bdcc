"""The session's intervals and pairs (:func:`trust`): per run and measure the judge's value, its
95% intervals for the assessors' value (judge error; with topic sampling) and, on the headline,
the estimate with labels; per pair of runs the probability that the assessors order them as the
judge does. The model is described in :mod:`judges.scores.intervals`.
"""

from __future__ import annotations

from typing import NamedTuple, Optional, Sequence

import numpy as np

from judges.core.measures import HEADLINE, MEASURE_NAMES, REGISTRY, headline_of
from judges.scores.basis import learned_on
from judges.scores.labelled import Draws, labelled_estimate, regime_update
from judges.scores.spreads import Spreads, interval, judge_variance, p_same_order, regime_part, topic_variance
from judges.scores.variances import NO_JUDGE_ERROR

NAN = float("nan")


class Trust(NamedTuple):
    """A session's intervals (rows of :data:`judges.formats.intervals.INTERVAL_COLUMNS`) and pairs
    (:data:`judges.formats.intervals.PAIR_COLUMNS`)."""

    intervals: list[tuple]
    pairs: list[tuple]


class Headline(NamedTuple):
    """A run on the headline, for its pairs: its estimate, the variance of its interval, the share
    of its value the judge still gives and the variance without the regime part."""

    estimate: float
    variance: float
    share: float
    pair_variance: float


class Labelled(NamedTuple):
    """The headline's row of a run with labels, and the run for its pairs."""

    estimate: float
    variance: float
    labels: int
    effective: float
    labels_interval: tuple[float, float]
    made: str
    head: Headline


def shared_scales(reports: dict, support: Sequence[str]) -> dict[str, float]:
    """Each support measure's shared part: weighted precision's, scaled by the session's ratio of
    the measure's independent variance to weighted precision's."""
    totals = {m: sum(v[m] for _, v in reports.values() if m in v) for m in support}
    base = totals.get(HEADLINE, 0.0)
    scale = {m: (totals[m] / base if base > 0 else 1.0) for m in support}
    scale[HEADLINE] = 1.0
    return scale


def refuse_unmodelled(measures: Sequence[str], reports: dict) -> list[str]:
    """The support measures among ``measures``; a ValueError naming those a report lacks the
    variance of (it would count the judge's error as 0)."""
    support = [m for m in measures if m not in NO_JUDGE_ERROR]
    unmodelled = [m for m in support if any(m not in variances for _, variances in reports.values())]
    if unmodelled:
        raise ValueError(f"no model of the judge's error of {', '.join(unmodelled)} in these reports")
    return support


def learned_regime(draws: Optional[Draws], spreads: Spreads) -> tuple[float, Spreads]:
    """The bias shared by every run, learned from the labels drawn at random, and the spreads with
    its posterior sd as ``regime_sd`` (``(0, spreads)`` without labels)."""
    if draws is None:
        return 0.0, spreads
    drawn = [(f[1][d], f[2][d], f[4][d]) for f in draws.rows.values() for d in [f[3] & (f[4] < 1.0)]]
    judged, human, probability = (np.concatenate(c) if drawn else np.zeros(0) for c in zip(*drawn))
    shift, regime_sd = regime_update(judged, human, probability, spreads.regime_sd)
    return shift, spreads._replace(regime_sd=regime_sd)


def with_labels(
    found: tuple,
    rest: list,
    t: int,
    m: str,
    learned: Spreads,
    moved: float,
    x_run: Optional[float],
    made: str,
    how: str,
) -> Labelled:
    """The headline's estimate of a run with labels (``found``: its :class:`Draws` row; ``rest``:
    its reports' variances with the labels drawn at random unknown), :func:`labelled_estimate`'s;
    ``learned``: the spreads with the regime the labels taught (:func:`learned_regime`: only its
    ``regime_sd`` differs from the session's); ``moved``: the shift of the judged values the
    labels taught plus the run's line of error at ``x_run``; ``made``: what the model's part rests
    on."""
    rest_u = [k[0] for k in rest]
    model_var = judge_variance([k[1].get(m, 0.0) for k in rest], rest_u, t, learned, x=x_run)
    no_regime = model_var - regime_part(rest_u, t, learned)
    within = found[5] + learned.report_sd**2
    lev, judged, human, labelled, probability = found[:5]
    moved = moved * (found[5] > 0)  # on the citations the judge is unsure of
    est = labelled_estimate(lev, judged, human, labelled, probability, model_var, within, moved)
    labels_iv = interval(est.labels_value, est.labels_variance, 0.0, REGISTRY[m].high)
    made = f"{made} and {est.labels} labels, {how}" if est.labels else f"{made}, with the session's labels"
    share = sum(rest_u) / t if t else 0.0
    pair = labelled_estimate(lev, judged, human, labelled, probability, no_regime, within, moved)
    head = Headline(pair.value, est.variance, share, pair.variance)
    return Labelled(est.value, est.variance, est.labels, est.effective, labels_iv, made, head)


def other_headline(rows: list, head: str, topics: list, reports: dict, spreads: Spreads, scale: dict) -> dict:
    """Per run on ``head``, another headline than weighted precision (not asked for): the model's variance."""
    head_of = {}
    t = len(topics)
    for r, m, v, *_ in rows:
        if m == head:
            u = [reports[(r, topic)][0] for topic in topics if (r, topic) in reports]
            known = [reports[(r, topic)][1].get(m, 0.0) for topic in topics if (r, topic) in reports]
            var = judge_variance(known, u, t, spreads, scale.get(m, 1.0)) if m not in NO_JUDGE_ERROR else 0.0
            part = regime_part(u, t, spreads, scale.get(m, 1.0)) if m not in NO_JUDGE_ERROR else 0.0
            head_of[r] = Headline(v, var, sum(u) / t if t and part else 0.0, var - part)
    return head_of


def run_pairs(runs: list, head: str, head_of: dict, x: np.ndarray, regime_sd: float) -> list[tuple]:
    """Every pair of ``runs`` on ``head`` (``x``: runs x topics of its values), sorted."""
    t = x.shape[1]
    cov = np.cov(x, ddof=1).reshape(len(runs), len(runs)) / t if t >= 2 else np.full((len(runs),) * 2, np.nan)
    pairs = []
    regime = regime_sd**2
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
    return pairs


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
    :func:`judges.scores.variances.report_variances`. With labels (``draws``,
    :func:`judges.scores.labelled.label_draws`; ``rest_reports``: the reports' variances with the
    labels drawn at random unknown), the estimate and interval of ``headline`` (weighted
    precision; a nugget measure in :func:`judges.scores.nugget_intervals.nugget_trust`) are
    :func:`labelled_estimate`'s, and so are its pairs."""
    runs, topics = sorted(runs), sorted(topics)
    t = len(topics)
    scale = shared_scales(reports, refuse_unmodelled(measures, reports))
    values: dict[str, dict[str, list[float]]] = {}
    head_of: dict[str, Headline] = {}
    rows = []
    shift, learned = learned_regime(draws, spreads)
    model_only = learned_on(spreads.source, spreads.topics, topics)
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
            made = "no judge error" if m in NO_JUDGE_ERROR else model_only
            estimate, n_labels, effective, labels_iv = value, 0, 0.0, (NAN, NAN)
            if m == headline:
                share = sum(u) / t if t else 0.0
                var = judge_variance([k[1].get(m, 0.0) for k in known], u, t, spreads, x=x_run)
                estimate = value + share * line_mean
                found = draws.rows.get(run) if draws is not None else None
                if draws is not None and found is not None:
                    rest_of = rest_reports or {}
                    rest = [rest_of[(run, topic)] for topic in topics if (run, topic) in rest_of]
                    moved = shift + line_mean
                    lab = with_labels(found, rest, t, m, learned, moved, x_run, model_only, draws.how)
                    estimate, var, n_labels, effective, labels_iv, made = lab[:6]
                    head_of[run] = lab.head
                else:
                    head_of[run] = Headline(estimate, var, share, var - regime_part(u, t, spreads))
            low_, high_ = interval(estimate, var, 0.0, REGISTRY[m].high)
            low_t, high_t = interval(estimate, var + topic_variance(x), 0.0, REGISTRY[m].high)
            rows.append((run, m, value, low_, high_, low_t, high_t, t, estimate, made, n_labels, effective, *labels_iv))
    head = headline_of(list(measures))
    on_head = np.array([values[run][head] for run in runs], dtype=np.float64).reshape(len(runs), t)
    if head != headline:
        head_of = other_headline(rows, head, topics, reports, spreads, scale)
    return Trust(rows, run_pairs(runs, head, head_of, on_head, learned.regime_sd))


def inseparable(pairs: list[tuple], ranking: list[str], level: float = 0.95) -> list[tuple[str, str, float]]:
    """Adjacent runs of ``ranking`` (best first) whose ``p_same_order`` is below ``level``."""
    p = {(a, b): q for a, b, _, _, q, _ in pairs}
    out = []
    for a, b in zip(ranking, ranking[1:]):
        q = p.get((a, b), p.get((b, a)))
        if q is not None and q < level:
            out.append((a, b, q))
    return out
