"""One line in words for every verdict: which threshold, probability, LLM answer, cap or missing
document decided it.

:func:`explain` reads only the final :class:`~judges.core.records.Judgment` and the settings that
produced it (the support judge's thresholds, the attestation policy), so it says exactly what the
pipeline did, e.g.::

    partial: P(full) 0.243 < supported threshold 0.25 and P(any) 0.71 >= partial threshold 0.4
    partial: P(full) 0.93 >= supported threshold 0.25 (supported), capped at partial: the document lacks numbers 2019
    supported: the LLM answered YES (P(YES) 0.91 >= 0.5); the support model said partial (...)
    missing: document 'd7' in neither the report's documents nor the corpus

A citation whose weight in WEIGHTED_PRECISION is not its status's (:mod:`judges.engine.weights`) says
so at the end: ``...; weighs 0.62 in WEIGHTED_PRECISION, its expected weight`` (``leaderboard.weights:
expected``).

:func:`decision` gives the same facts as named fields for the debug log.
"""

from __future__ import annotations

from typing import Optional

from judges.attest.answers import P_YES_SUPPORTED, yes_probability
from judges.core.vocabulary import WEIGHT
from judges.core.records import Judgment
from judges.core.vocabulary import LEVEL_STATUS

ALIGNMENT_FIELDS = ("score", "answer_token_start", "answer_token_end", "doc_token_start", "doc_token_end", "matches")


def num(x: float, other: Optional[float] = None) -> str:
    """``x`` with 3 significant digits, more when needed to tell it from ``other``."""
    for digits in (3, 4, 5, 6, 8):
        s = f"{x:.{digits}g}"
        if other is None or x == other or s != f"{other:.{digits}g}":
            return s
    return repr(x)


def compare(name: str, value: float, threshold_name: str, threshold: float) -> str:
    op = ">=" if value >= threshold else "<"
    return f"{name} {num(value, threshold)} {op} {threshold_name} {num(threshold, value)}"


def support_reason(j: Judgment, thresholds: dict) -> str:
    """Why the support judge said ``j.support_status`` (thresholds: :meth:`SupportJudge.thresholds`)."""
    if j.answer_tokens == 0:
        return "the sentence has no word tokens to align"
    status = j.support_status
    if thresholds.get("judge") == "model" and j.p_full is not None and j.p_any is not None:
        sup, part = thresholds["p_supported"], thresholds["p_partial"]
        full = compare("P(full)", j.p_full, "supported threshold", sup)
        if status == "supported":
            return full
        return f"{full} and {compare('P(any)', j.p_any, 'partial threshold', part)}"
    sup, part = thresholds.get("norm_supported"), thresholds.get("norm_partial")
    if sup is None or part is None:
        return f"the support judge said {status}"
    full = compare("norm_score", j.norm_score, "supported threshold", sup)
    if status == "supported":
        return full
    return f"{full} and {compare('norm_score', j.norm_score, 'partial threshold', part)}"


def _lacks(j: Judgment) -> str:
    parts = [
        f"{kind} {', '.join(items)}"
        for kind, items in (("numbers", j.numbers_missing), ("entities", j.entities_missing))
        if items
    ]
    return "; ".join(parts)


def _asked_because(j: Judgment, why: Optional[dict]) -> str:
    """Why an answered citation was sent: the session's rule (:mod:`judges.attest.selection`)."""
    if not why:
        return ""
    if "band" in why:
        if j.p_full is None:
            return ""
        low, high = why["band"]
        return f", asked because P(full) {num(j.p_full)} lies in attest.band [{num(low)}, {num(high)})"
    if why.get("planned"):
        return (
            f", asked because the session's plan ranked it {why['plan_rank']} of {why['candidates']} "
            f"by expected gain ({num(why['expected_gain'])}; {why['chosen']} asked)"
        )
    return ""


def _not_asked(why: Optional[dict]) -> str:
    """Why a citation the LLM could have answered was not asked (the session's plan)."""
    if not why or why.get("planned") is not False:
        return ""
    return f"; not asked: outside the session's plan ({why['chosen']} of {why['candidates']} citations asked)"


def explain(j: Judgment, thresholds: dict, on_unparsed: str = "judge", why: Optional[dict] = None) -> str:
    """The verdict of ``j`` in one line (see the module doc); ``why``: the session's reason for
    sending it to the LLM or not (:meth:`judges.attest.cascade.Attester.why`)."""
    if j.human_label is not None:
        if j.support_status == "missing":
            said = f"the judge could not resolve the cited document ({j.reason})"
        else:
            said = f"the support judge said {j.support_status} ({support_reason(j, thresholds)})"
        return f"{j.status}: human label {j.status} (--labels), final; {said}"
    if j.status == "missing":
        return f"missing: {j.reason or 'the cited document could not be resolved'}"
    support = support_reason(j, thresholds)
    said = f"the support judge said {j.support_status} ({support})"
    answer = j.llm_answer
    sent = _asked_because(j, why)
    if answer == "guarded":
        body = f"the sentence or its evidence addresses the judge, so it was not sent to the LLM (guarded); {said}"
    elif answer in ("YES", "NO"):
        p = yes_probability(answer, j.llm_p_yes)
        llm = (
            f"the LLM answered {answer} "
            f"(P(YES) {num(p, P_YES_SUPPORTED)} {'>=' if p >= P_YES_SUPPORTED else '<'} {P_YES_SUPPORTED})"
        )
        body = f"{llm}{sent}; {said}"
    elif answer in LEVEL_STATUS:
        p_full = f" (P(FULL) {num(j.llm_p_yes)})" if j.llm_p_yes is not None else ""
        body = (
            f"the LLM answered {answer}{p_full}, which decides the level (attest.question: support_level){sent}; {said}"
        )
    elif answer in ("unparsed", "failed"):
        what = "could not be read as one of the question's answers" if answer == "unparsed" else "never came (failed)"
        rule = "kept the support judge's status" if on_unparsed == "judge" else "judged unsupported"
        body = f"the LLM's reply {what}, so {rule} (attest.on_unparsed: {on_unparsed}); {said}"
    else:
        body = support + _not_asked(why)
    lacks = _lacks(j)
    if j.capped:
        body = f"{body}, which makes it supported, but capped at partial: the document lacks {lacks}"
    elif lacks:
        body = f"{body} (the document lacks {lacks})"
    if j.weight is not None and j.weight != WEIGHT[j.status]:
        given = " given the LLM's answer" if j.llm_answer is not None else ""
        body = f"{body}; weighs {num(j.weight)} in WEIGHTED_PRECISION, its expected weight{given}"
    return f"{j.status}: {body}"


def decision(
    thresholds: dict, why: Optional[dict] = None, j: Optional[Judgment] = None, attested: bool = False
) -> dict:
    """The rule behind the verdicts as named fields (for the debug log): the support judge and its
    thresholds, for a citation ``j`` sent to the LLM the P(YES) threshold, and why it was or was
    not sent (``why``: the session's rule, :meth:`judges.attest.cascade.Attester.why`)."""
    out: dict = {
        "support_judge": thresholds.get("judge"),
        "thresholds": {k: v for k, v in thresholds.items() if k != "judge"},
    }
    if attested:
        out["p_yes_supported"] = P_YES_SUPPORTED
    if why:
        out["selected_by"] = why
    if j is not None and j.human_label is not None:
        out["human_label"] = j.human_label
    return out
