"""The correlated parts of the judge's error (:class:`Spreads`: a report's, a run's, a bias shared
by every run), the spreads a session assumes (:func:`session_spreads`), and how they add up to the
judge-error variance of a run's value (:func:`judge_variance`), its interval and the probability
that two runs are ordered alike. The model is described in :mod:`judges.scores.intervals`; the
spreads are fitted in :mod:`judges.scores.reml`.
"""

from __future__ import annotations

import math
from typing import NamedTuple, Optional, Sequence

import numpy as np

from judges.formats.intervals import read_spreads

Z95 = 1.959963984540054  # the standard normal's 97.5% quantile
#: a bias shared by every run's citations, for labels made another way (an allowance, not a fit)
REGIME_SD = float(read_spreads()["regime_sd"])


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
    topics: tuple[str, ...] = ()  # the ids of the topics ``source`` has (empty: not recorded)

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
        """The spreads carrying their own uncertainty (:func:`judges.scores.reml.fit_spreads`: ``predictive`` or
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
    (:data:`judges.formats.intervals.SHIPPED_SPREADS`, re-fitted from the shipped model's data: a
    model file written before, the shipped model itself, or the alignment judge); with :data:`REGIME_SD` for labels made
    another way."""
    fitted = getattr(model, "intervals", None) or {}
    if "run_sd_predictive" in fitted:
        training = getattr(model, "training", None) or {}
        data = str(training.get("data") or "the model's calibration labels")
        topics = tuple(str(t) for t in training.get("topic_ids", ()))
        return Spreads.honest(fitted, REGIME_SD)._replace(source=data.split(":")[0], topics=topics)
    shipped = read_spreads()
    spreads = Spreads(float(shipped["report_sd"]), float(shipped["run_sd"]), float(shipped["bias"]), REGIME_SD)
    topics = tuple(str(t) for t in shipped.get("topic_ids", ()))
    return spreads._replace(source=shipped["source"], topics=topics, **Spreads.line_of(shipped))


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
