"""The LLM is checked before its answers are used: a check sample of pairs the judge is sure of.

Beside the questions it plans, every LLM stage (citations, nugget pairs; online or through batch
files) asks a small **check sample**: ``attest.check_size`` pairs (default 20) the judge's model is
sure are fully supported (``P(full) >= 0.9``) and as many it is sure are not (``P(any) <= 0.1`` or
``P(full) <= 0.1``: :func:`judges.attest.degenerate.model_decision`), drawn at random with a fixed
seed (``attest.seed``) among the pairs without a human label that the plan did not choose
(:func:`draw`). Their answers are read as the same binary decision (YES, or FULL, is fully
supported) and compared with the model's (:func:`figures`):

* ``sensitivity``: the share of the sure-supported pairs the LLM says are supported;
* ``specificity``: the share of the sure-unsupported pairs it says are not;
* Cohen's ``kappa`` between the two, with a 95% interval (``kappa_low``, ``kappa_high``: kappa
  +- 1.96 standard errors, the large-sample error ``sqrt(p_o (1 - p_o) / n) / (1 - p_e)``).

**The rule.** The LLM passes when the interval's lower end is above 0: its agreement with the
sure cases is better than chance at 95%. With 20 pairs each way, an LLM that answers at random
passes 4% of the time (it must agree on about 26 of 40 by luck); one that agrees with the sure
cases 80% of the time passes 99% of the time, 75%: 95%, 70%: 81% (exact binomial sums over
:func:`figures`). It fails (``verdict: chance``) when the lower end is at or below 0, and it is
``unchecked`` when the sample was drawn but fewer than :data:`MIN_PER_SIDE` answers came back on
a side (the questions failed, were unparsed, or a batch import lacked them): nothing then says
its answers are better than chance. Failing and unchecked answers are **not used** by default,
like degenerate ones (:func:`judges.attest.degenerate.answers_used`: the pairs keep the model's
judgment; the summary says why); ``attest.check_use: always`` (or ``--use-degenerate-llm``)
uses them all the same. When the session has fewer than :data:`MIN_PER_SIDE` sure pairs of
either kind (a small session), no sample can be drawn: ``verdict: too_few``, the answers are used
as before, and the figures say so.

The check questions are asked through the same cache and batch files as the others (asked once,
never twice); their answers only measure, they never change a pair's status (unless the pair was
also planned). Their counts are integers per (answer, model decision), which worker processes add
up, so the verdict is the same for any number of workers.
"""

from __future__ import annotations

import math
from typing import Mapping, Optional, Sequence

import numpy as np

from judges.attest.degenerate import AFFIRMATIVE, FULL, NOT_FULL, model_decision

MIN_PER_SIDE = 5  # check answers of each side before the check is made
Z = 1.959964  # the 95% interval's half-width in standard errors
UNANSWERED = "unanswered"  # a check question with no parsed answer (failed, unparsed, guarded)


def draw(
    keys: Sequence[tuple],
    p_any: Sequence[Optional[float]],
    p_full: Sequence[Optional[float]],
    excluded: Sequence[bool],
    size: int,
    seed: int = 0,
) -> dict[tuple, str]:
    """The check sample: up to ``size`` pairs of each of the model's sure decisions (:data:`FULL`,
    :data:`NOT_FULL`) among those not ``excluded`` (labelled, planned), at random from ``seed``;
    by key, the model's decision. The pairs are put in key order first, so the sample depends
    only on the pairs, not on the order they came in."""
    if size <= 0:
        return {}
    order = sorted(range(len(keys)), key=lambda i: keys[i])
    sides: dict[str, list[tuple]] = {FULL: [], NOT_FULL: []}
    for i in order:
        if excluded[i]:
            continue
        a, f = p_any[i], p_full[i]
        decision = model_decision(None if a is None or a != a else a, None if f is None or f != f else f)
        if decision in sides:
            sides[decision].append(keys[i])
    rng = np.random.default_rng(abs(int(seed)) + 7919)
    out: dict[tuple, str] = {}
    for decision, found in sides.items():
        if len(found) < MIN_PER_SIDE:
            continue  # too few to check: none drawn (figures: too_few)
        for j in sorted(rng.choice(len(found), size=min(size, len(found)), replace=False).tolist()):
            out[found[j]] = decision
    return out


def citation_sample(table, attest, planned=None) -> dict[tuple, str]:
    """The check sample over a session's first-pass assessments (``table``:
    :data:`judges.formats.tables.ASSESSMENT_SCHEMA`), ``attest``: the workflow's (``check_size``,
    ``seed``); labelled and missing citations, and those ``planned`` (a plan), are never drawn."""
    from judges.attest.plan import KEY

    keys = list(zip(*(table[c].to_pylist() for c in KEY)))
    status = table["status"].to_pylist()
    labelled = table["human_label"].is_valid().to_pylist()
    excluded = [
        lab or st == "missing" or (planned is not None and planned.get(k) is not None)
        for k, st, lab in zip(keys, status, labelled)
    ]
    p_any, p_full = table["p_any"].to_pylist(), table["p_full"].to_pylist()
    return draw(keys, p_any, p_full, excluded, attest.check_size, attest.seed)


def figures(tally: Mapping[tuple[str, str], int], size: int) -> dict:
    """The check's figures from ``tally``, check answers by (answer, model decision) (answer
    :data:`UNANSWERED` for none): ``drawn`` (pairs asked, by side), ``answered``, ``sensitivity``,
    ``specificity``, ``agreement``, ``kappa`` and its interval, ``verdict`` (``passed``,
    ``chance``, ``unchecked``, ``too_few``, ``off``) and ``message``."""
    n = [[0, 0], [0, 0]]  # [the LLM says fully supported][the model does]
    drawn = {FULL: 0, NOT_FULL: 0}
    for (answer, decision), k in tally.items():
        if decision not in drawn:
            continue
        drawn[decision] += k
        if answer != UNANSWERED:
            n[answer in AFFIRMATIVE][decision == FULL] += k
    full, not_full = n[0][1] + n[1][1], n[0][0] + n[1][0]
    out: dict = {"size": size, "drawn": {"supported": drawn[FULL], "not_supported": drawn[NOT_FULL]}}
    out["answered"] = {"supported": full, "not_supported": not_full}
    if size <= 0:
        return {**out, "verdict": "off", "message": "attest.check_size is 0: the LLM is not checked"}
    if min(drawn.values()) < MIN_PER_SIDE:
        return {
            **out,
            "verdict": "too_few",
            "message": (
                f"the LLM could not be checked: fewer than {MIN_PER_SIDE} pairs the judge is sure of on a side "
                f"({drawn[FULL]} sure supported, {drawn[NOT_FULL]} sure not)"
            ),
        }
    if min(full, not_full) < MIN_PER_SIDE:
        return {
            **out,
            "verdict": "unchecked",
            "message": (
                f"the LLM is unchecked: it answered {full} of the {drawn[FULL]} check questions on pairs the judge "
                f"is sure are supported and {not_full} of the {drawn[NOT_FULL]} it is sure are not "
                f"(fewer than {MIN_PER_SIDE} on a side): nothing says its answers are better than chance"
            ),
        }
    total = full + not_full
    agreed = n[1][1] + n[0][0]
    llm_full = n[1][0] + n[1][1]
    p_o = agreed / total
    p_e = (llm_full * full + (total - llm_full) * not_full) / total**2
    kappa = (p_o - p_e) / (1 - p_e)
    se = math.sqrt(max(p_o * (1 - p_o), 0.0) / total) / (1 - p_e)
    low, high = kappa - Z * se, kappa + Z * se
    out |= {
        "sensitivity": round(n[1][1] / full, 4),
        "specificity": round(n[0][0] / not_full, 4),
        "agreement": round(p_o, 4),
        "kappa": round(kappa, 4) + 0.0,
        "kappa_low": round(max(low, -1.0), 4) + 0.0,
        "kappa_high": round(min(high, 1.0), 4) + 0.0,
    }
    said = (
        f"on {total} check pairs the judge is sure of, the LLM's sensitivity is {out['sensitivity']:.2f}, "
        f"specificity {out['specificity']:.2f}, Cohen's kappa {out['kappa']:.3f} "
        f"(95% interval {out['kappa_low']:.3f} to {out['kappa_high']:.3f})"
    )
    if low > 0:
        return {**out, "verdict": "passed", "message": f"{said}: better than chance"}
    return {
        **out,
        "verdict": "chance",
        "message": f"{said}: no better than chance (the interval reaches 0)",
    }


def failed(check: dict) -> bool:
    """Whether the check says the answers are not to be used (``chance`` or ``unchecked``)."""
    return check.get("verdict") in ("chance", "unchecked")
