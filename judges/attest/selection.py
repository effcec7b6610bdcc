"""Which citations ``attest.mode: uncertain`` sends to the LLM.

* :class:`Band` when the workflow gives ``attest.band``: a citation is sent when its ``P(full)``
  lies in ``[low, high)``, the same for every report (decided as each citation is judged);
* otherwise :class:`Planned`: the session's plan (:mod:`judges.attest.plan`), made after a first pass
  that judged every citation without the LLM, names the citations to send: exactly
  ``attest.count``, or ``attest.budget`` of the session's judgeable citations, those whose
  answer is expected to move the ranking most.

Both answer two questions about a judged citation: is it sent, and why (fields for the debug log
and the explanation). The plan depends only on the first pass's judgments, which every worker
process shares, so every process sends the same citations.
"""

from __future__ import annotations

from typing import NamedTuple, Optional, Union

from judges.attest.plan import Plan


class Band(NamedTuple):
    """``attest.band``: sends a citation whose ``P(full)`` lies in ``[low, high)``."""

    low: float
    high: float

    def sends(self, key: tuple, j) -> bool:
        return j.p_full is not None and self.low <= j.p_full < self.high

    def fields(self, key: tuple, j) -> Optional[dict]:
        return {"band": [self.low, self.high]} if j.p_full is not None else None


class Planned(NamedTuple):
    """The session's plan: sends the citations it chose."""

    plan: Plan

    def sends(self, key: tuple, j) -> bool:
        return self.plan.get(key) is not None

    def fields(self, key: tuple, j) -> Optional[dict]:
        chosen = self.plan.get(key)
        if chosen is None:
            return {"planned": False, "chosen": len(self.plan), "candidates": self.plan.candidates}
        return {
            "planned": True,
            "plan_rank": chosen.rank,
            "expected_gain": chosen.gain,
            "chosen": len(self.plan),
            "candidates": self.plan.candidates,
        }


Rule = Union[Band, Planned]


def rule(settings, plan: Optional[Plan] = None) -> Optional[Rule]:
    """What ``uncertain`` sends by (``settings``: the workflow's ``attest``): its band when given,
    else ``plan``; None for the other modes."""
    if settings.mode != "uncertain":
        return None
    if settings.band is not None:
        return Band(*settings.band)
    assert plan is not None, "uncertain without a band sends by the session's plan (judge_part, judge_nuggets)"
    return Planned(plan)
