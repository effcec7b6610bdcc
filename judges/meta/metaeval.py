"""Meta-evaluation: how well does a judge's leaderboard reproduce the truth leaderboard?

For every judge leaderboard and every (truth measure, judge measure) pair, the runs are ranked on
both sides and the rankings correlated (:mod:`judges.meta.correlation`):

* by default a run's score is its ``all`` row;
* with ``topics`` (or ``recompute``) it is the mean of its per-topic rows over those topics (all
  topics on either side when ``recompute`` is given without ``topics``), on both sides alike;
* with ``truth_topics`` it is, on both sides, the mean over the topics the *truth* has a row for
  that run (runs judged by people on different topics, as in TREC 2024 RAG's support labels);
  a run's topics then need not be the same as another's. In the bootstrap a run none of whose
  topics was drawn keeps its mean over all of them.

Runs or topics present on one side only follow ``on_missing``: ``error`` stops with a one-line
:class:`~judges.core.errors.InputError`; ``warn`` says what is left out and goes on with what both sides
share; ``skip`` does the same silently. A topic is "missing" when some run shared by both sides
has no row for it on either side; it is then left out for every run, so both rankings always
average the same topics. Topics matter only when recomputing or bootstrapping: with rankings from
the ``all`` rows and no bootstrap, per-topic rows are not looked at. When the topics missing are
the truth's (it judged each run on its own topics), the message names ``--truth-topics``.

:func:`paired_scores` gives each shared run's score on both sides as it is ranked; the HTML
report's judge-against-truth plot and tau use it too (:mod:`judges.report.leaderboard`).

A per-topic correlation (``pearson_per_topic``: :mod:`judges.meta.correlation`) does not rank runs
by one score: within each topic it correlates the runs' values on that topic (the runs with a row
on both sides), then averages over the topics; its ``ranking`` is :data:`PER_TOPIC_RANKING` and its
``topics`` the topics that had a value. With ``topics`` only those topics are used.

Confidence intervals come from resampling the shared topics (:mod:`judges.meta.bootstrap`, BCa
intervals; the ``interval`` column says so): per resample, each run's score is its mean over the
drawn topics on both sides, and every correlation is recomputed; a per-topic correlation's
interval resamples the topics it averaged. The ``values`` table gives each leaderboard's per-run
scores with intervals from resampling that leaderboard's own topics. Leaderboards without
per-topic rows get no intervals.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, NamedTuple, Optional, Sequence

import numpy as np
import pandas as pd

from judges.core.errors import InputError
from judges.meta import bootstrap, correlation
from judges.formats.leaderboards import ALL, all_values, per_topic

ON_MISSING = ("error", "warn", "skip")
MIN_RUNS = 3
CORRELATION_COLUMNS = [
    "eval",
    "truth_measure",
    "eval_measure",
    "method",
    "value",
    "ci_low",
    "ci_high",
    "runs",
    "topics",
    "ranking",
    "interval",
]
PER_TOPIC_RANKING = "per topic, then the mean over topics"
VALUE_COLUMNS = ["leaderboard", "role", "measure", "run_id", "value", "ci_low", "ci_high", "topics"]


@dataclass(frozen=True)
class Leaderboard:
    label: str  # how outputs name it (the path as given on the command line)
    path: Path
    table: pd.DataFrame  # run_id, topic_id, measure, value (judges.formats.leaderboards)


@dataclass(frozen=True)
class MetaOptions:
    """What ``run_judge.py meta-evaluate`` is asked to compute (not a judging session: :mod:`judges.session.spec`)."""

    truth_measures: tuple[str, ...] = ()  # empty: every measure of the truth
    eval_measures: tuple[str, ...] = ()  # empty: every measure of each judge leaderboard
    methods: tuple[str, ...] = correlation.DEFAULT_METHODS
    topics: tuple[str, ...] = ()  # recompute from these topics' rows
    recompute: bool = False  # recompute from per-topic rows even without ``topics``
    truth_topics: bool = False  # each run: the mean over the topics the truth has for that run
    on_missing: str = "error"
    resamples: int = bootstrap.DEFAULT_RESAMPLES  # 0: no confidence intervals
    seed: int = bootstrap.DEFAULT_SEED
    confidence: float = bootstrap.DEFAULT_CONFIDENCE
    min_runs: int = MIN_RUNS

    def __post_init__(self):
        if self.on_missing not in ON_MISSING:
            raise ValueError(f"on_missing must be one of {ON_MISSING}, got {self.on_missing!r}")
        for m in self.methods:
            correlation.parse_method(m)

    @property
    def recomputing(self) -> bool:
        return self.recompute or bool(self.topics) or self.truth_topics


class Result(NamedTuple):
    correlations: pd.DataFrame  # CORRELATION_COLUMNS
    values: pd.DataFrame  # VALUE_COLUMNS


@dataclass
class _Policy:
    on_missing: str
    warn: Callable[[str], None]
    said: set = field(default_factory=set)

    def __call__(self, path: Path, fld: str, problem: str, hint: str = "") -> None:
        """``hint``: what else may be meant, said last (e.g. ``; ... --truth-topics ...``)."""
        if self.on_missing == "error":
            raise InputError(path, None, fld, problem + " (--on-missing warn or skip leaves them out)" + hint)
        if self.on_missing == "warn" and (path, fld, problem) not in self.said:
            self.said.add((path, fld, problem))
            self.warn(f"{path}: {fld}: {problem}; left out{hint}")


def _topic_means(a: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    """The statistic of topic resamples (``idx``: resamples x topics): each run's mean of ``a``
    (runs x topics) over each resample's topics (runs x resamples)."""
    return lambda idx: a[:, idx].mean(axis=2)


def _names(items: Iterable[str], limit: int = 5) -> str:
    ordered = sorted(items)
    shown = ", ".join(repr(x) for x in ordered[:limit])
    return shown + (f" and {len(ordered) - limit} more" if len(ordered) > limit else "")


def select_measures(lb: Leaderboard, chosen: Sequence[str], option: str) -> list[str]:
    have = sorted(lb.table["measure"].unique())
    if not chosen:
        return have
    unknown = [m for m in chosen if m not in have]
    if unknown:
        raise InputError(
            lb.path, None, option, f"{_names(unknown)} not in this leaderboard (it has {_names(have, 10)})"
        )
    return list(dict.fromkeys(chosen))


def _matrix(lb: Leaderboard, measure: str) -> pd.DataFrame:
    return per_topic(lb.table, measure)


def _scores(lb: Leaderboard, measure: str, opts: MetaOptions, topics: list[str]) -> pd.Series:
    """Each run's score: its ``all`` row, or its mean over ``topics`` when recomputing."""
    if not opts.recomputing:
        return all_values(lb.table, measure)
    m = _matrix(lb, measure).reindex(columns=topics)
    return m.dropna(how="all").mean(axis=1)


TRUTH_TOPICS_HINT = (
    "; if the truth judged each run on its own topics, --truth-topics ranks each run, on both sides, "
    "by its mean over the topics the truth has for it"
)


def _shared_topics(
    sides: list[tuple[Leaderboard, pd.DataFrame]],
    runs: list[str],
    opts: MetaOptions,
    policy: _Policy,
    measure_label: str,
    truth: Optional[Leaderboard] = None,
) -> list[str]:
    """Topics every shared run has a row for on every side; the rest go through the policy (naming
    ``--truth-topics`` when the side lacking them is ``truth``)."""
    if opts.topics:
        candidates = list(dict.fromkeys(opts.topics))
    else:
        candidates = sorted(set().union(*(set(m.columns) for _, m in sides)))
    keep = list(candidates)
    for lb, m in sides:
        m = m.reindex(index=runs, columns=candidates)
        lacking = [t for t in candidates if m[t].isna().any()]
        if lacking:
            hint = TRUTH_TOPICS_HINT if lb is truth and not opts.truth_topics else ""
            policy(
                lb.path,
                "topic_id",
                f"{measure_label}: {len(lacking)} topic(s) without a row for some run: {_names(lacking)}",
                hint,
            )
            keep = [t for t in keep if t not in lacking]
    return keep


def _ci(intervals: bootstrap.Intervals, i: int) -> tuple[float, float]:
    return float(intervals.low[i]), float(intervals.high[i])


class Paired(NamedTuple):
    """Each run's score on both sides of one measure pair, as the runs are ranked and correlated."""

    runs: list[str]
    truth: np.ndarray  # the truth's score of each run
    judged: np.ndarray  # the judge's
    topics: Optional[int]  # topics averaged over (None: the ``all`` rows)
    ranking: str  # how a run's score is made (the correlations table's ``ranking``)
    resample: Optional[Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]]  # drawn topics -> both sides' scores
    resample_topics: int  # topics the bootstrap draws from (0: no intervals)


def paired_scores(
    truth: Leaderboard,
    judged: Leaderboard,
    truth_measure: str,
    eval_measure: str,
    opts: MetaOptions,
    warn: Callable[[str], None] = lambda m: None,
    policy: Optional[_Policy] = None,
) -> Paired:
    """The runs both sides share and their scores, by the options' ranking (see the module doc):
    what :func:`correlate_pair` correlates, and what the HTML report plots against the truth."""
    policy = policy if policy is not None else _Policy(opts.on_missing, warn)
    label = f"{truth_measure} vs {eval_measure}"
    mt, me = _matrix(truth, truth_measure), _matrix(judged, eval_measure)
    if opts.recomputing:
        for lb, m, meas in ((truth, mt, truth_measure), (judged, me, eval_measure)):
            if m.empty:
                raise InputError(lb.path, None, "topic_id", f"{meas}: no per-topic rows to recompute the ranking from")
    # runs
    if opts.recomputing:
        runs_t = set(mt.index[mt.notna().any(axis=1)])
        runs_e = set(me.index[me.notna().any(axis=1)])
    else:
        runs_t, runs_e = (
            set(all_values(truth.table, truth_measure).index),
            set(all_values(judged.table, eval_measure).index),
        )
    if runs_t - runs_e:
        policy(
            judged.path,
            "run_id",
            f"{label}: {len(runs_t - runs_e)} truth run(s) not in this leaderboard: {_names(runs_t - runs_e)}",
        )
    if runs_e - runs_t:
        policy(
            judged.path, "run_id", f"{label}: {len(runs_e - runs_t)} run(s) not in the truth: {_names(runs_e - runs_t)}"
        )
    runs = sorted(runs_t & runs_e)
    if len(runs) < opts.min_runs:
        raise InputError(
            judged.path,
            None,
            "run_id",
            f"{label}: {len(runs)} run(s) shared with the truth; correlations need at least {opts.min_runs}",
        )

    if opts.truth_topics:
        return _truth_topic_scores(judged, mt, me, runs, policy, label)

    # topics: for recomputing, and for the bootstrap
    topics: list[str] = []
    if not (mt.empty or me.empty) and (opts.recomputing or opts.resamples > 0):
        topics = _shared_topics([(truth, mt), (judged, me)], runs, opts, policy, label, truth)
        if opts.recomputing and not topics:
            gaps = mt.reindex(index=runs).isna().to_numpy().any()  # the truth judged runs on different topics
            raise InputError(
                judged.path,
                None,
                "topic_id",
                f"{label}: no topic left that every shared run has on both sides" + (TRUTH_TOPICS_HINT if gaps else ""),
            )
    truth_scores = _scores(truth, truth_measure, opts, topics).reindex(runs).to_numpy()
    judged_scores = _scores(judged, eval_measure, opts, topics).reindex(runs).to_numpy()
    a = mt.reindex(index=runs, columns=topics).to_numpy()
    b = me.reindex(index=runs, columns=topics).to_numpy()

    def resample(idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:  # idx: resamples x topics
        return a[:, idx].mean(axis=2).T, b[:, idx].mean(axis=2).T  # resamples x runs

    ranking = f"mean over {len(topics)} topics" if opts.recomputing else ALL
    return Paired(runs, truth_scores, judged_scores, len(topics) if topics else None, ranking, resample, len(topics))


def correlate_pair(
    truth: Leaderboard, judged: Leaderboard, truth_measure: str, eval_measure: str, opts: MetaOptions, policy: _Policy
) -> list[dict]:
    """Rows of the correlations table for one measure pair."""
    p = paired_scores(truth, judged, truth_measure, eval_measure, opts, policy=policy)
    ranked = [m for m in opts.methods if not correlation.is_per_topic(m)]
    point = [correlation.correlate(p.truth, p.judged, m) for m in ranked]
    resample = p.resample
    if ranked and resample is not None and p.resample_topics > 0 and opts.resamples > 0:

        def stat(idx: np.ndarray) -> np.ndarray:  # idx: resamples x topics
            ta, tb = resample(idx)
            return np.stack([correlation.correlate_rows(ta, tb, m) for m in ranked])

        iv = bootstrap.topic_intervals(p.resample_topics, stat, len(ranked), opts.resamples, opts.seed, opts.confidence)
    else:
        iv = bootstrap.Intervals.none(len(ranked))
    rows = {
        m: _row(judged, truth_measure, eval_measure, m, point[i], _ci(iv, i), len(p.runs), p.topics, p.ranking)
        for i, m in enumerate(ranked)
    }
    for m in opts.methods:
        if correlation.is_per_topic(m):
            rows[m] = _per_topic_row(truth, judged, truth_measure, eval_measure, m, p.runs, opts)
    return [rows[m] for m in opts.methods]


def _row(judged, truth_measure, eval_measure, method, value, ci, runs, n_topics, ranking) -> dict:
    """One row of the correlations table."""
    return dict(
        eval=judged.label,
        truth_measure=truth_measure,
        eval_measure=eval_measure,
        method=method,
        value=value,
        ci_low=ci[0],
        ci_high=ci[1],
        runs=runs,
        topics=n_topics,
        ranking=ranking,
        interval=bootstrap.METHOD if not np.isnan(ci[0]) else "",
    )


def _per_topic_row(truth, judged, truth_measure, eval_measure, method, runs, opts) -> dict:
    """The row of a per-topic correlation: the mean over topics of the correlation within each,
    over the shared runs with a row on both sides; its interval from resampling those topics."""
    mt, me = _matrix(truth, truth_measure), _matrix(judged, eval_measure)
    topics = list(dict.fromkeys(opts.topics)) or sorted(set(mt.columns) | set(me.columns))
    a = mt.reindex(index=runs, columns=topics).to_numpy(dtype=np.float64)
    b = me.reindex(index=runs, columns=topics).to_numpy(dtype=np.float64)
    per = correlation.per_topic_values(a, b, method)
    per = per[~np.isnan(per)]
    value = float(per.mean()) if len(per) else float("nan")
    ci = (float("nan"), float("nan"))
    if len(per) > 1 and opts.resamples > 0:
        iv = bootstrap.topic_intervals(
            len(per), lambda idx: per[idx].mean(axis=1)[None, :], 1, opts.resamples, opts.seed, opts.confidence
        )
        ci = _ci(iv, 0)
    return _row(judged, truth_measure, eval_measure, method, value, ci, len(runs), len(per), PER_TOPIC_RANKING)


TRUTH_TOPICS_RANKING = "mean over the truth's topics of each run"


def _truth_topic_scores(judged, mt, me, runs, policy, label) -> Paired:
    """:func:`paired_scores` when each run is averaged over the topics the truth has for it."""
    topics = sorted(mt.columns)
    a = mt.reindex(index=runs, columns=topics).to_numpy(dtype=np.float64)
    b = me.reindex(index=runs, columns=topics).to_numpy(dtype=np.float64)
    have = ~np.isnan(a)
    lacking = have & np.isnan(b)
    if lacking.any():
        r, t = np.argwhere(lacking)[0]
        policy(
            judged.path,
            "topic_id",
            f"{label}: {int(lacking.sum())} (run, topic) pair(s) of the truth without a row here, "
            f"e.g. run {runs[r]!r} topic {topics[t]!r}",
        )
        have &= ~lacking
    if not have.any(axis=1).all():
        keep = have.any(axis=1)
        runs = [r for r, k in zip(runs, keep) if k]
        a, b, have = a[keep], b[keep], have[keep]
    w = have.astype(np.float64)
    a0, b0 = np.where(have, a, 0.0), np.where(have, b, 0.0)
    counts = w.sum(axis=1)
    truth_scores, judged_scores = a0.sum(axis=1) / counts, b0.sum(axis=1) / counts

    def resample(idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:  # idx: resamples x topics
        n = w[:, idx].sum(axis=2)  # runs x resamples
        ta = np.where(n > 0, a0[:, idx].sum(axis=2) / np.maximum(n, 1), truth_scores[:, None]).T
        tb = np.where(n > 0, b0[:, idx].sum(axis=2) / np.maximum(n, 1), judged_scores[:, None]).T
        return ta, tb

    boot = len(topics) if len(topics) > 1 else 0
    return Paired(runs, truth_scores, judged_scores, len(topics), TRUTH_TOPICS_RANKING, resample, boot)


def leaderboard_values(
    lb: Leaderboard, role: str, measures: list[str], opts: MetaOptions, policy: _Policy
) -> list[dict]:
    """Rows of the values table: each run's score per measure, with its interval."""
    rows = []

    def add(measure: str, run: str, value: float, ci: tuple[float, float], topics: Optional[int]) -> None:
        rows.append(
            dict(
                leaderboard=lb.label,
                role=role,
                measure=measure,
                run_id=run,
                value=value,
                ci_low=ci[0],
                ci_high=ci[1],
                topics=topics,
            )
        )

    for measure in measures:
        m = _matrix(lb, measure)
        runs = sorted(m.index[m.notna().any(axis=1)]) if opts.recomputing else list(all_values(lb.table, measure).index)
        topics: list[str] = []
        if opts.truth_topics:  # topics differ by run: each run's mean over its own rows, no interval
            for run in runs:
                row = m.loc[run].dropna()
                add(measure, run, float(row.mean()), (float("nan"), float("nan")), int(len(row)))
            continue
        if not m.empty and runs and (opts.recomputing or opts.resamples > 0):
            topics = _shared_topics([(lb, m)], runs, opts, policy, measure, lb if role == "truth" else None)
        scores = _scores(lb, measure, opts, topics).reindex(runs)
        if topics and opts.resamples > 0:
            a = m.reindex(index=runs, columns=topics).to_numpy()
            iv = bootstrap.topic_intervals(
                len(topics),
                _topic_means(a),
                len(runs),
                opts.resamples,
                opts.seed,
                opts.confidence,
            )
        else:
            iv = bootstrap.Intervals.none(len(runs))
        for i, run in enumerate(runs):
            add(measure, run, float(scores.iloc[i]), _ci(iv, i), len(topics) if topics else None)
    return rows


def meta_evaluate(
    truth: Leaderboard, judged: Sequence[Leaderboard], opts: MetaOptions, warn: Callable[[str], None] = lambda m: None
) -> Result:
    """Correlate every judge leaderboard with the truth; see the module docstring."""
    policy = _Policy(opts.on_missing, warn)
    truth_measures = select_measures(truth, opts.truth_measures, "--truth-measure")
    corr_rows: list[dict] = []
    value_rows = leaderboard_values(truth, "truth", truth_measures, opts, policy)
    for lb in (truth, *judged):
        if opts.resamples > 0 and not (lb.table["topic_id"] != ALL).any():
            warn(f"{lb.path}: no per-topic rows, so no confidence intervals")
    for lb in judged:
        eval_measures = select_measures(lb, opts.eval_measures, "--eval-measure")
        for tm in truth_measures:
            for em in eval_measures:
                corr_rows.extend(correlate_pair(truth, lb, tm, em, opts, policy))
        value_rows.extend(leaderboard_values(lb, "eval", eval_measures, opts, policy))
    corr = pd.DataFrame(corr_rows, columns=CORRELATION_COLUMNS).astype({"runs": "Int64", "topics": "Int64"})
    values = pd.DataFrame(value_rows, columns=VALUE_COLUMNS).astype({"topics": "Int64"})
    return Result(corr, values)
