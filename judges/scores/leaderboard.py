"""The leaderboard: per-topic measure rows plus one ``all`` row per run and measure.

Topics a run did not answer follow ``leaderboard.on_missing`` (the AutoJudge policies):
``default`` adds a row of zeros per missing topic, ``fix_aggregate`` adds no row but counts the
topic as zero in the ``all`` mean, ``error`` refuses (the pipeline checks this before judging).
"""

from __future__ import annotations

from typing import Optional, Sequence

from judges.core.measures import MEASURE_NAMES, headline_of


def leaderboard_rows(
    per_topic: dict[tuple[str, str], dict[str, float]],
    runs: list[str],
    topics: list[str],
    on_missing: str,
    measures: Sequence[str] = MEASURE_NAMES,
) -> list[tuple[str, str, str, float]]:
    """Per-topic rows then the ``all`` rows of each run, runs and topics sorted, measures in registry
    order (``measures``: these, in this order; the nugget judges add theirs)."""
    rows: list[tuple[str, str, str, float]] = []
    zero = dict.fromkeys(measures, 0.0)
    for run in sorted(runs):
        values: list[dict[str, float]] = []
        for topic in sorted(topics):
            v = per_topic.get((run, topic))
            if v is None:
                if on_missing == "error":  # checked before judging; kept for library callers
                    raise ValueError(f"run {run!r} has no report for topic {topic!r}")
                values.append(zero)
                if on_missing == "fix_aggregate":
                    continue
                v = zero
            else:
                values.append(v)
            rows.extend((run, topic, m, v[m]) for m in measures)
        for m in measures:
            rows.append((run, "all", m, sum(v[m] for v in values) / len(values) if values else 0.0))
    return rows


def top_runs(
    rows: list[tuple[str, str, str, float]], n: int = 5, headline: Optional[str] = None
) -> tuple[str, list[tuple[str, float]]]:
    """The headline measure (``headline``, the session's, when the rows have it) and the best ``n``
    runs by its ``all`` row (for the judge's summary); ``rows`` as :func:`leaderboard_rows` gives
    them (run, topic, measure, value)."""
    head = headline_of(sorted({m for _, _, m, _ in rows}), headline)
    best = sorted(((run, v) for run, topic, m, v in rows if topic == "all" and m == head), key=lambda x: (-x[1], x[0]))
    return head, best[:n]
