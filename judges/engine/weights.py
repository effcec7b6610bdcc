"""A citation's weight in WEIGHTED_PRECISION and WEIGHTED_RECALL (workflow ``leaderboard.weights``).

The leaderboard is the judge's estimate of the measure people would give. With ``status`` every
citation weighs the TREC weight of its status (supported 1, partial 0.5, otherwise 0), as its
qrels grade says. With ``expected`` (the default) a citation the support model gave probabilities
weighs its *expected* TREC weight (:func:`judges.core.measures.expected_weight`) under the model's
distribution over the three levels people give: none ``1 - P(any)``, partial
``P(any) - P(full)``, full ``P(full)``. When the LLM answered, that distribution is first
updated by Bayes' rule with the answer, taken to be wrong with probability
``attest.answer_error`` (:func:`judges.attest.answers.likelihood`; with ``estimate`` the rate
:func:`answered_error` estimates from the session's answers): a YES, or the level an LLM
names, moves the weight toward that level's, as far as the model did not already expect it, and
a NO divides the remaining mass between partial and none as the model does. Where the grounding
cap holds the citation at partial (its document lacks a number or entity of the sentence, of a
kind in ``grounding.cap``), full support is ruled out and weighs as partial, whatever the status.

A citation an assessor labelled (``--labels``) weighs its label's weight: the label is final.
Everything else weighs its status's weight: missing and cross-language citations, citations the
alignment judge decided (no probabilities), guarded ones, and an unparsed or failed answer that
``attest.on_unparsed: unsupported`` replaced (with ``judge`` the model's status stands, and so
does its expected weight). The status itself, and so the qrels, the status counts and the other
measures, does not depend on this setting.
"""

from __future__ import annotations

import pyarrow as pa

from judges.attest.answers import NO_OBSERVATION, ErrorEstimate, estimate_error, observation
from judges.core.measures import expected_weight
from judges.core.vocabulary import WEIGHT
from judges.core.records import Judgment


def citation_weight(j: Judgment, expected: bool, answer_error: float, full_ruled_out: bool = False) -> float:
    """``j``'s weight (see the module doc); ``expected``: ``leaderboard.weights == "expected"``;
    ``full_ruled_out``: the grounding cap holds ``j`` at partial
    (:meth:`judges.engine.grounder.Grounder.rules_out_full`)."""
    if not expected or j.human_label is not None or j.p_any is None or j.p_full is None:
        return WEIGHT[j.status]
    observed = NO_OBSERVATION
    if j.llm_answer is not None:
        replaced = not (j.status == j.support_status or j.capped)  # by on_unparsed: unsupported
        answered = observation(j.llm_answer, j.llm_p_yes, answer_error, replaced)
        if answered is None:  # guarded, or replaced: the status is final
            return WEIGHT[j.status]
        observed = answered
    p_full = min(j.p_full, j.p_any)
    none, partial, full = (1 - j.p_any) * observed[0], (j.p_any - p_full) * observed[1], p_full * observed[2]
    if none + partial + full <= 0.0:  # with answer_error 0, the answer names a level the model ruled out
        return WEIGHT[j.status]
    full_weight = WEIGHT["partial"] if full_ruled_out else WEIGHT["supported"]
    return float(expected_weight(j.p_any, p_full, observed, full_weight))


def answered_error(table: pa.Table, prior: float) -> ErrorEstimate:
    """``attest.answer_error: estimate`` for the citations: the LLM's error rate estimated
    (:func:`judges.attest.answers.estimate_error`) from the answers of the assessment rows
    ``table`` against the support model's distributions, over the citations an answer updates:
    the model gave probabilities and no assessor's label is final."""
    rows = table.select(["p_any", "p_full", "llm_answer", "llm_p_yes", "human_label"]).to_pylist()
    levels, answers = [], []
    for r in rows:
        if r["llm_answer"] is None or r["human_label"] is not None or r["p_any"] is None or r["p_full"] is None:
            continue
        p_full = min(r["p_full"], r["p_any"])
        levels.append((1 - r["p_any"], r["p_any"] - p_full, p_full))
        answers.append((r["llm_answer"], r["llm_p_yes"]))
    return estimate_error(levels, answers, prior)
