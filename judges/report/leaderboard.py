"""The report's leaderboard: per run and measure the mean over its topics, the two 95% intervals of
``NAME.intervals.parquet`` (:mod:`judges.scores.intervals`: for the value the assessors would give on
these topics, the judge's error; and with topic sampling added, ``low_topics``/``high_topics``),
the probability that the assessors order each run above the next (``NAME.pairs.parquet``), and the
human truth beside it. An output set written before ``NAME.intervals`` has, in their place, an
interval from a bootstrap over the run's topics (:mod:`judges.meta.bootstrap`)."""

from __future__ import annotations

from typing import Callable, NamedTuple, Optional

import numpy as np
import pandas as pd

from judges.core.measures import MEASURE_NAMES, headline_of
from judges.nuggets.measures import F1, NUGGET_MEASURES
from judges.scores.basis import basis

ALL = "all"


class Board(NamedTuple):
    measures: list[str]
    runs: list[str]  # ranked by the headline, best first
    value: pd.DataFrame  # run x measure: the `all` row
    low: pd.DataFrame  # run x measure: 95% with topic sampling (intervals' low_topics; else a bootstrap)
    high: pd.DataFrame
    per_topic: pd.DataFrame  # run x topic: the headline
    truth: Optional[pd.Series]  # run -> the truth's `all` value of truth_measure
    truth_measure: Optional[str]
    headline: str
    assessors_low: Optional[pd.DataFrame] = None  # run x measure: the assessors' value, 95% (judges.scores.intervals)
    assessors_high: Optional[pd.DataFrame] = None
    next_p: Optional[dict] = None  # run -> P(the assessors order it above the next run of the ranking)
    bootstrap: bool = False  # low/high from a bootstrap over topics (no NAME.intervals), not from the intervals
    learned: tuple[str, str] = ("", "not on these topics")  # judges.scores.intervals.basis of the headline's made
    compared: Optional[str] = None  # the judge's measure set against the truth's (paired_measure)


HUMAN = "HUMAN_"  # a truth's measure HUMAN_X is the assessors' X (as NIST's nugget evaluation names them)


def paired_measure(truth_measure: str, measures: list[str], headline: str) -> str:
    """The judge's measure a truth measure is compared with: ``X`` for ``HUMAN_X`` (or ``X``
    itself) when the leaderboard has it, else the headline."""
    own = truth_measure[len(HUMAN) :] if truth_measure.startswith(HUMAN) else truth_measure
    return own if own in measures else headline


def board(
    lb: pd.DataFrame,
    truth: Optional[pd.DataFrame] = None,
    truth_measure: Optional[str] = None,
    resamples: int = 1000,
    seed: int = 0,
    intervals: Optional[pd.DataFrame] = None,
    pairs: Optional[pd.DataFrame] = None,
    headline: Optional[str] = None,
) -> Board:
    """The leaderboard table from the judge's long leaderboard (and a truth leaderboard, the
    intervals and the run pairs of :mod:`judges.scores.intervals`; without the intervals, a bootstrap of
    ``resamples`` over each run's topics stands in for the interval with topic sampling). ``headline``:
    the set's (``NAME.config.yml``), which ranks the runs when the leaderboard has it; the truth's
    measure is by default the headline's (``HUMAN_<headline>``) when the truth has it, else its first."""
    present = set(lb["measure"])
    known = (*MEASURE_NAMES, *NUGGET_MEASURES, F1)  # the nugget measures beside the citations', in their order
    measures = [m for m in known if m in present] + sorted(present - set(known))
    headline = headline_of(measures, headline)
    measures = [headline] + [m for m in measures if m != headline]  # the ranking measure first
    value = lb[lb["topic_id"] == ALL].pivot(index="run_id", columns="measure", values="value").reindex(columns=measures)
    topics = lb[lb["topic_id"] != ALL]
    has_intervals = intervals is not None and len(intervals) > 0

    def of_intervals(column: str) -> pd.DataFrame:
        assert intervals is not None
        table = intervals.pivot(index="run_id", columns="measure", values=column)
        return table.reindex(index=value.index, columns=measures)

    if has_intervals:  # the numbers of NAME.intervals.tsv, not another estimate of the same thing
        low, high = of_intervals("low_topics"), of_intervals("high_topics")
    else:
        low, high = _bootstrap(topics, value.index, measures, resamples, seed)
    per_topic = topics[topics["measure"] == headline].pivot(index="run_id", columns="topic_id", values="value")
    t = None
    if truth is not None and len(truth):
        held = sorted(set(truth["measure"]))
        truth_measure = truth_measure or (HUMAN + headline if HUMAN + headline in held else held[0])
        tr = truth[(truth["measure"] == truth_measure)]
        t = tr[tr["topic_id"] == ALL].set_index("run_id")["value"]
        if t.empty:  # no `all` rows: the mean over the run's topics
            t = tr.groupby("run_id")["value"].mean()
    order = value.assign(_v=value[headline].fillna(-np.inf)).sort_values(["_v"], ascending=False, kind="stable")
    runs = list(order.index)
    a_low = a_high = next_p = None
    learned = ("", "not on these topics")
    if has_intervals:
        a_low, a_high = of_intervals("low"), of_intervals("high")
    if intervals is not None and has_intervals and "made" in intervals.columns:
        head = intervals[intervals["measure"] == headline]
        if len(head):
            learned = basis(str(head["made"].iloc[0]), int(head["topics"].max()))
    if pairs is not None and (pairs["measure"] == headline).any():  # (the pairs cover the citation measures)
        rows = pairs[["run_a", "run_b", "measure", "p_same_order"]].itertuples(index=False)
        p = {(a, b): q for a, b, m, q in rows if m == headline}
        p |= {(b, a): q for (a, b), q in p.items()}
        next_p = {a: p[(a, b)] for a, b in zip(runs, runs[1:]) if (a, b) in p}
    return Board(
        measures,
        runs,
        value,
        low,
        high,
        per_topic,
        t,
        truth_measure if t is not None else None,
        headline,
        a_low,
        a_high,
        next_p,
        not has_intervals,
        learned,
        paired_measure(truth_measure, measures, headline) if t is not None and truth_measure else None,
    )


def _topic_means(x: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    """The statistic of topic resamples (``idx``: resamples x topics) of ``x`` (topics x measures):
    each measure's mean over each resample's topics, NaN skipped (measures x resamples)."""
    return lambda idx: np.nanmean(x[idx], axis=1).T


def _bootstrap(topics: pd.DataFrame, runs, measures: list[str], resamples: int, seed: int):
    """run x measure: a 95% interval from a bootstrap over each run's topics (output sets without
    ``NAME.intervals``)."""
    from judges.meta.bootstrap import topic_intervals  # scipy (0.3 s): only here

    low = pd.DataFrame(np.nan, index=runs, columns=measures)
    high = low.copy()
    for run, g in topics.groupby("run_id", sort=True):
        m = g.pivot(index="topic_id", columns="measure", values="value").reindex(columns=measures)
        x = m.to_numpy(dtype=np.float64)
        iv = topic_intervals(len(x), _topic_means(x), len(measures), resamples=resamples, seed=seed)
        low.loc[run], high.loc[run] = iv.low, iv.high
    return low, high


class Against(NamedTuple):
    """The judge against the truth, run by run, as ``meta-evaluate`` pairs them
    (:func:`judges.meta.metaeval.paired_scores`): with per-topic truth rows as ``--truth-topics``
    does, each run on both sides its mean over the topics the truth has for that run."""

    truth: pd.Series  # run -> the truth's score
    judged: pd.Series  # run -> the judge's headline, over the same topics
    tau: float  # Kendall's tau-b of the two, as meta-evaluate computes it
    truth_topics: bool  # False: the truth has no per-topic rows, so the `all` rows are paired
    measure: str = ""  # the judge's measure compared (Board.compared)


def against_truth(board: Board, lb: pd.DataFrame, truth: pd.DataFrame, paths: tuple, warn) -> Optional[Against]:
    """``None`` without a truth, or with fewer than two runs to pair (said through ``warn``).
    ``paths``: the truth's and the judge's leaderboard files (named in warnings)."""
    if board.truth is None or board.truth_measure is None:  # (board() gives both or neither)
        return None
    from judges.core.errors import InputError
    from judges.meta import correlation, metaeval

    judged = board.compared or board.headline
    per_topic = bool(((truth["measure"] == board.truth_measure) & (truth["topic_id"] != ALL)).any())
    opts = metaeval.MetaOptions(
        methods=("kendall",), truth_topics=per_topic, on_missing="warn", resamples=0, min_runs=2
    )
    truth_side, judged_side = (metaeval.Leaderboard(str(path), path, table) for path, table in zip(paths, (truth, lb)))
    try:
        p = metaeval.paired_scores(truth_side, judged_side, board.truth_measure, judged, opts, warn)
    except InputError as e:
        warn(f"judge against truth: {e.render()}")
        return None
    tau = float(correlation.correlate(p.truth, p.judged, "kendall"))
    return Against(pd.Series(p.truth, index=p.runs), pd.Series(p.judged, index=p.runs), tau, per_topic, judged)
