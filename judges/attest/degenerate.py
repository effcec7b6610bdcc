"""Is the LLM judge degenerate? Two checks on a session's parsed answers.

An LLM that answers every question the same way, or that contradicts the clear cases, says
nothing about support, and its answers would still move the leaderboard. A session flags its LLM
(``degenerate`` under ``attest:`` in ``NAME.config.yml``, a warning in the summary, an error with
``--strict-llm``) by the first of these rules that holds:

1. **Constant** (``constant``): at least :data:`MIN_ANSWERS` (20) parsed answers, all the same
   (all YES, all NO; with ``attest.question: support_level`` all FULL, all PARTIAL or all NONE).
   Twenty, because a sensible judge on a mixed set of citations gives both answers well before
   then: one that answers YES with probability 0.8 gives twenty YES in a row 1.2% of the time
   (0.8 ** 20), and one at 0.5 one time in a million. The minimum keeps a session of a handful
   of questions, where all YES happens by itself, from being flagged.
2. **No better than chance** (``below_chance``): among the parsed answers to citations where the
   support model is confident, Cohen's kappa between the LLM's answer and the model's decision
   is at most 0. Confident means ``P(full) >= 0.9`` (the model says fully supported) or
   ``P(any) <= 0.1`` or ``P(full) <= 0.1`` (it says not fully supported); the LLM's answer is
   read as the same binary decision: YES (as ``P(YES) >= 0.5`` reads it, when the server gives
   log-probabilities) or FULL is fully supported; NO, PARTIAL and NONE are not. The test is made
   only with at least :data:`MIN_CONFIDENT` (20) such citations and :data:`MIN_PER_SIDE` (5) of
   each of the model's two decisions (with one side only, any judge's kappa is 0 or undefined).
   At that size a judge that agrees with the model's clear cases 80% of the time gets a kappa at
   or below 0 in under 1% of sessions (70% of the time: under 5%), while one that ignores the
   citation (kappa 0 on average) is flagged in about half.

After both, the **check sample** (:mod:`judges.attest.check`, ``chance`` or ``unchecked``):
the LLM's answers on pairs the judge is sure of, asked beside the planned questions, no better
than chance (the 95% interval of Cohen's kappa reaches 0), or too few of them answered. Its
answers are then not used either, unless ``attest.check_use: always`` (``forced``) or
``--use-degenerate-llm``. Answers not used change no status: ``changed`` is then 0 and
``changed_unused`` says how many they would have changed.

With ``attest.mode: uncertain`` the citations sent are mostly those the model is unsure of, so
the second test often has too few confident citations and is not made (``confident`` in the
figures says how many there were); the first still is. Unparsed, failed and guarded questions
count in neither. Both tests read only integer counts of (answer, model decision) pairs, which
worker processes add up (:func:`judges.attest.cascade.summarize` reads them), so the verdict is
the same for any number of workers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from judges.attest.answers import affirms
from judges.core.errors import InputError

MIN_ANSWERS = 20  # parsed answers before all-the-same is a verdict
MIN_CONFIDENT = 20  # confident citations before the agreement test is made
MIN_PER_SIDE = 5  # ... of each of the model's two decisions
CONFIDENT_FULL = 0.9  # P(full) at or above which the model is sure of full support
CONFIDENT_NOT_FULL = 0.1  # P(any) or P(full) at or below which it is sure there is none

FULL, NOT_FULL, UNSURE = "full", "not_full", "unsure"  # the model's decision
AFFIRMATIVE = ("YES", "FULL")  # answers that say fully supported


def model_decision(p_any: Optional[float], p_full: Optional[float]) -> str:
    """The support model's confident decision on a citation: :data:`FULL`, :data:`NOT_FULL` or
    :data:`UNSURE` (also when the support judge gives no probabilities)."""
    if p_full is None:
        return UNSURE
    if p_full >= CONFIDENT_FULL:
        return FULL
    if p_full <= CONFIDENT_NOT_FULL or (p_any is not None and p_any <= CONFIDENT_NOT_FULL):
        return NOT_FULL
    return UNSURE


def answer_of(parsed: str, p_yes: Optional[float], question: str) -> str:
    """The answer as the status reads it: ``yes_no`` YES or NO by :func:`affirms` (P(YES) when
    given), ``support_level`` the level named."""
    if question == "yes_no":
        return "YES" if affirms(parsed, p_yes) else "NO"
    return parsed


def figures(tally: dict[tuple[str, str], int], checked: Optional[dict] = None, settings=None) -> dict:
    """What ``summarize`` reports: ``answers`` (parsed answers by answer), ``confident`` (those to
    citations the model is sure of), ``kappa`` (Cohen's kappa with the model's confident decisions,
    ``None`` when too few to test) and ``degenerate`` (:func:`check`).

    ``tally``: parsed answers by (answer, model decision), as :func:`answer_of` and
    :func:`model_decision` give them (:func:`judges.core.counts.answer_tally`); ``checked``: the
    check sample's figures (:func:`judges.attest.check.figures`), reported as ``check``: a check
    no better than chance, or unchecked, is the third rule (after ``constant`` and
    ``below_chance``); ``settings`` (``attest``): its ``check_use: always`` marks it ``forced``."""
    order = {a: i for i, a in enumerate(("YES", "NO", "FULL", "PARTIAL", "NONE"))}
    answers: dict[str, int] = {}
    for (answer, _), n in sorted(tally.items(), key=lambda kv: (order.get(kv[0][0], len(order)), kv[0])):
        answers[answer] = answers.get(answer, 0) + n
    agreement = _agreement(tally)
    found = check(tally)
    if checked is not None and found is None and checked.get("verdict") in ("chance", "unchecked"):
        found = {"reason": checked["verdict"], "message": checked["message"]}
        if settings is not None and settings.check_use == "always":
            found["forced"] = "attest.check_use: always"
    out = {
        "answers": answers,
        "confident": agreement["confident"],
        "kappa": agreement.get("kappa"),
        "degenerate": found,
    }
    if checked is not None:
        out["check"] = checked
    return out


@dataclass(frozen=True)
class DegeneratePolicy:
    """What is done with a degenerate LLM's answers (:func:`answers_used`): an error with ``strict``
    (``--strict-llm``), used all the same with ``used`` (``--use-degenerate-llm``), else not used."""

    strict: bool = False
    used: bool = False


def answers_used(figures: dict, *, strict: bool, used: bool, pairs: str = "") -> bool:
    """The one degenerate-answer policy of every kind of pair: whether the LLM's answers are used
    (``figures``: :func:`judges.attest.cascade.summarize`'s). Yes, unless they look degenerate; then
    ``--strict-llm`` (``strict``) is an error before anything is replaced (``pairs``: which pairs,
    for the message), else ``used`` (``--use-degenerate-llm``, or the answers were kept) says,
    and ``figures`` record it (``degenerate.used``: ``NAME.config.yml``, the summary)."""
    found = figures.get("degenerate")
    if not found:
        return True
    used = used or bool(found.get("forced"))
    found["used"] = used
    if strict and not found.get("forced"):
        raise InputError("--strict-llm", None, None, f"{found['message']} ({pairs}no output replaced)")
    if not used and figures.get("changed"):  # only answers used change a status
        found["changed_unused"] = figures["changed"]
        figures["changed"] = 0
    return used


def check(tally: dict[tuple[str, str], int]) -> Optional[dict]:
    """``None``, or why the answers look degenerate (the rule that holds first, see the module doc):
    ``reason`` (``constant`` or ``below_chance``), its figures and a one-line ``message``."""
    by_answer: dict[str, int] = {}
    for (answer, _), n in tally.items():
        if n:
            by_answer[answer] = by_answer.get(answer, 0) + n
    total = sum(by_answer.values())
    if total >= MIN_ANSWERS and len(by_answer) == 1:
        (answer,) = by_answer
        return {
            "reason": "constant",
            "answer": answer,
            "answers": total,
            "message": f"the LLM answered {answer} to all {total} questions: its answers look degenerate",
        }
    a = _agreement(tally)
    if a.get("kappa") is None or a["kappa"] > 0:
        return None
    return {
        "reason": "below_chance",
        **a,
        "message": (
            f"the LLM agreed with the support model's confident decisions on {a['agreed']} of {a['confident']} "
            f"citations ({a['model_full']} fully supported, {a['model_not_full']} not), no better than chance "
            f"(Cohen's kappa {a['kappa']:.3f} <= 0): its answers look degenerate"
        ),
    }


def _agreement(tally: dict[tuple[str, str], int]) -> dict:
    """The LLM against the model's confident decisions: ``confident`` citations and, when there are
    enough of them on both sides, ``agreed``, ``model_full``, ``model_not_full`` and ``kappa``
    (rounded to 4 digits)."""
    n = [[0, 0], [0, 0]]  # [the LLM says fully supported][the model does], over confident citations
    for (answer, decision), k in tally.items():
        if decision != UNSURE:
            n[answer in AFFIRMATIVE][decision == FULL] += k
    confident = n[0][0] + n[0][1] + n[1][0] + n[1][1]
    model_full, model_not = n[0][1] + n[1][1], n[0][0] + n[1][0]
    if confident < MIN_CONFIDENT or min(model_full, model_not) < MIN_PER_SIDE:
        return {"confident": confident}
    agreed, llm_full = n[1][1] + n[0][0], n[1][0] + n[1][1]
    chance = (llm_full * model_full + (confident - llm_full) * model_not) / confident**2  # < 1: both sides occur
    kappa = (agreed / confident - chance) / (1 - chance)
    return {
        "confident": confident,
        "agreed": agreed,
        "model_full": model_full,
        "model_not_full": model_not,
        "kappa": round(kappa, 4) + 0.0,  # + 0.0: no -0.0
    }
