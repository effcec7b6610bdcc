"""Which citations ``attest.mode: uncertain`` sends to the LLM: a band of ``P(full)`` per report.

A citation is sent when its ``P(full)`` lies in its report's *band* ``[low, high)`` around the
support judge's ``supported`` threshold. The band is

* ``attest.band`` when the workflow gives one: the same for every report;
* otherwise found from ``attest.budget``, the share of the judged citations to send, estimated
  with the distribution of ``P(full)`` on the support model's training citations:

  - ``attest.leverage: false``: one band, ``h`` log-odds either side of the threshold, for every
    report; ``budget: 0.25`` asks about roughly the 25% least certain citations;
  - ``attest.leverage: true`` (the default): each report's band is widened by the *leverage*
    of its citations, the weight one citation has in its run's score on the leaderboard (a
    report's measure is a mean over its citations, a run's ``all`` value a mean over the
    topics it answered) relative to the average citation:

        leverage(run, topic) = N / (R x n(run, topic) x T(run))

    with ``N`` judged citations of ``R`` runs in the session, ``n`` the report's judged
    citations and ``T`` the topics the run answered (each run's leverages sum to ``N / R``;
    their mean over the citations is 1). The band of a report is ``ln(leverage) + s``
    log-odds either side of the threshold (empty where that is below 0), with one ``s`` for
    the session found so that the bands hold ``budget`` of the citations. A citation is sent
    when ``leverage x closeness >= exp(-s)``, ``closeness`` being ``exp(-|logit P(full) -
    logit threshold|)``: the budget goes first to uncertain citations that move their run's
    score most. (On rag24-support, with the simulated LLM of ``bench/attest_simulated.py``,
    this ranks the runs closer to the assessors than one band at the same budget.)

The bands depend only on the first pass over the runs (how many citations each report has)
and the model, never on other citations' judgments, so every worker process computes the same.
"""

from __future__ import annotations

import math
from typing import Optional

import numpy as np

from judges.config import AttestSettings

Band = tuple[float, float]
FULL_WIDTH = 40.0  # log-odds: a band this wide holds every P(full)
_STEPS = 100  # bisection steps (the result is rounded to 8 significant digits)


def leverage(report_citations: dict[tuple[str, str], int], answered: dict[str, set]) -> dict[tuple[str, str], float]:
    """The leverage of each report with citations (see the module doc)."""
    counted = {k: n for k, n in report_citations.items() if n > 0}
    if not counted:
        return {}
    total, runs = sum(counted.values()), len({run for run, _ in counted})
    return {
        (run, topic): total / (runs * n * max(len(answered.get(run, ())), 1)) for (run, topic), n in counted.items()
    }


def _solve(share, budget: float) -> float:
    """The ``s`` at which the increasing ``share(s)`` reaches ``budget`` (bisection)."""
    lo, hi = -2 * FULL_WIDTH, 2 * FULL_WIDTH
    for _ in range(_STEPS):
        mid = (lo + hi) / 2
        if share(mid) < budget:
            lo = mid
        else:
            hi = mid
    return hi


class Bands:
    """The band of ``P(full)`` of every report (``None``: every report has ``default``)."""

    def __init__(self, default: Band, per_report: Optional[dict[tuple[str, str], Band]] = None):
        self.default, self.per_report = default, per_report

    def of(self, run_id: str, topic_id: str) -> Band:
        if self.per_report is None:
            return self.default
        return self.per_report.get((run_id, topic_id), self.default)

    @classmethod
    def for_session(
        cls,
        settings: AttestSettings,
        support_judge,
        report_citations: dict[tuple[str, str], int],
        answered: dict[str, set],
    ) -> "Bands":
        """The bands of ``attest.mode: uncertain`` for the reports of a session."""
        if settings.band is not None:
            return cls(tuple(settings.band))
        budget = settings.budget
        empty = support_judge.band_at(0.0)
        if budget <= 0:
            return cls(empty)
        if budget >= 1:
            return cls(support_judge.band_at(FULL_WIDTH))
        if not settings.leverage:
            s = _solve(lambda h: float(support_judge.share_within(np.array([max(h, 0.0)]))[0]), budget)
            return cls(support_judge.band_at(max(s, 0.0)))
        lev = leverage(report_citations, answered)
        if not lev:
            return cls(empty)
        keys = sorted(lev)
        log_lev = np.array([math.log(lev[k]) for k in keys])
        weights = np.array([report_citations[k] for k in keys], dtype=np.float64)
        weights /= weights.sum()

        def share(s: float) -> float:
            return float(weights @ support_judge.share_within(np.maximum(log_lev + s, 0.0)))

        s = _solve(share, budget)
        widths = np.maximum(log_lev + s, 0.0)
        return cls(empty, {k: support_judge.band_at(float(min(w, FULL_WIDTH))) for k, w in zip(keys, widths)})
