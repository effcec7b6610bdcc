"""Which citations ``attest.mode: uncertain`` sends to the LLM: a rule per report.

The rule is

* :class:`Band` when the workflow gives ``attest.band``: a citation is sent when its ``P(full)``
  lies in ``[low, high)``, the same for every report;
* otherwise :class:`Cutoff`, found from ``attest.budget``, the share of the judged citations to
  send. A citation is sent when

      leverage(run, topic) x expected error >= cutoff

  - the *expected error* of its status is how far the weight the status gives it on the
    leaderboard (1, 0.5, 0) lies, on average, from the weight of the level people would give,
    if the support model's ``P(any)`` and ``P(full)`` are right
    (:func:`judges.support.model.expected_error`): near 0 where the model is sure, up to 0.5
    and more where it is torn between levels;
  - the *leverage* of a report is the weight one of its citations has in its run's score (a
    report's measure is a mean over its citations, a run's ``all`` value a mean over the topics
    it answered) relative to the average citation:

        leverage(run, topic) = N / (R x n(run, topic) x T(run))

    with ``N`` judged citations of ``R`` runs in the session, ``n`` the report's judged
    citations and ``T`` the topics the run answered (each run's leverages sum to ``N / R``;
    their mean over the citations is 1). With ``attest.leverage: false`` it is 1 everywhere;
  - their product is the error the citation is expected to put in its run's score, so the
    budget goes to the citations where an answer is expected to move the leaderboard most;
  - one ``cutoff`` for the session, found so that the rule holds ``budget`` of the citations,
    estimated with the distribution of the expected error on the support model's training
    citations (at the model's own thresholds).

  On rag24-support, with a simulated LLM that answers from the assessors' labels with a chosen
  error rate (``bench/support_agreement.py``, unseen topics), this ranks the runs closer to the
  assessors than the band of ``P(full)`` around the ``supported`` threshold at the same budget.

The rules depend only on the first pass over the runs (how many citations each report has)
and the model, never on other citations' judgments, so every worker process computes the same.
"""

from __future__ import annotations

import math
from typing import NamedTuple, Optional, Union

import numpy as np

from judges.config import AttestSettings
from judges.records import STATUS_GRADE
from judges.support.model import expected_error

_STEPS = 100  # bisection steps
_RANGE = 80.0  # the cutoff is searched as exp(-s) for s in [-_RANGE, _RANGE]


def _rounded(x: float) -> float:
    return float(f"{x:.8g}")


class Band(NamedTuple):
    """``attest.band``: sends a citation whose ``P(full)`` lies in ``[low, high)``."""

    low: float
    high: float

    def sends(self, j) -> bool:
        return j.p_full is not None and self.low <= j.p_full < self.high

    def fields(self, j) -> dict:
        return {"band": [self.low, self.high]}


class Cutoff(NamedTuple):
    """``attest.budget``: sends a citation when ``leverage x`` its status's expected error is at
    least ``cutoff`` (see the module doc)."""

    cutoff: float
    leverage: float = 1.0

    def sends(self, j) -> bool:
        return j.p_full is not None and self.leverage * error_of(j) >= self.cutoff

    def fields(self, j) -> dict:
        return {"expected_error": _rounded(error_of(j)), "leverage": _rounded(self.leverage), "cutoff": self.cutoff}


Rule = Union[Band, Cutoff]


def error_of(j) -> float:
    """The expected error of the support judge's status of ``j`` (a judgment with ``p_any``,
    ``p_full`` and ``support_status``)."""
    return float(expected_error(j.p_any, j.p_full, np.int64(STATUS_GRADE.get(j.support_status, 0))))


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
    lo, hi = -_RANGE, _RANGE
    for _ in range(_STEPS):
        mid = (lo + hi) / 2
        if share(mid) < budget:
            lo = mid
        else:
            hi = mid
    return hi


class Selection:
    """The rule of every report (``per_report`` None: every report has ``default``)."""

    def __init__(self, default: Rule, per_report: Optional[dict[tuple[str, str], Rule]] = None):
        self.default, self.per_report = default, per_report

    def of(self, run_id: str, topic_id: str) -> Rule:
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
    ) -> "Selection":
        """The rules of ``attest.mode: uncertain`` for the reports of a session."""
        if settings.band is not None:
            return cls(Band(*settings.band))
        budget = settings.budget
        if budget <= 0:
            return cls(Cutoff(math.inf))
        if budget >= 1:
            return cls(Cutoff(0.0))
        lev = leverage(report_citations, answered) if settings.leverage else {}
        if not lev:
            s = _solve(lambda s: float(support_judge.share_at_least(np.array([math.exp(-s)]))[0]), budget)
            return cls(Cutoff(_rounded(math.exp(-s))))
        keys = sorted(lev)
        levs = np.array([lev[k] for k in keys])
        weights = np.array([report_citations[k] for k in keys], dtype=np.float64)
        weights /= weights.sum()
        s = _solve(lambda s: float(weights @ support_judge.share_at_least(math.exp(-s) / levs)), budget)
        cutoff = _rounded(math.exp(-s))
        return cls(Cutoff(cutoff), {k: Cutoff(cutoff, _rounded(lev[k])) for k in keys})
