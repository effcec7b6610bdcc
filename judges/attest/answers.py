"""Reading a model's reply: one of the question's answers or unparsed, and the probability of
the affirmative answer from token log-probabilities.

The answers of each question (:data:`ANSWERS`, the first one affirmative): ``yes_no`` YES / NO;
``support_level`` FULL / PARTIAL / NONE (``no`` and ``partially`` are read as NONE and PARTIAL).
Replies are read leniently in form and strictly in content: case, punctuation, dspy's field
markers and a leading "Answer:" do not matter (``Yes.``, ``NO, because ...``,
``[[ ## answer ## ]] YES``, ``Partial support``), but the reply must *start* with an answer;
anything else (``Maybe``, ``The document says ...``, an empty reply) is ``None``, i.e. unparsed.

How often the answers are wrong (``attest.answer_error``) is either set or, with ``estimate``,
estimated from the answers themselves (:func:`estimate_error`).
"""

from __future__ import annotations

import json
import math
import re
from typing import NamedTuple, Optional, Sequence

import numpy as np

from judges.core.vocabulary import ANSWERS

P_YES_SUPPORTED = 0.5  # yes_no: P(YES) at or above which the LLM's answer makes a citation supported
_ALIASES = {"support_level": {"NO": "NONE", "PARTIALLY": "PARTIAL"}}
_LEVEL_INDEX = {"NONE": 0, "PARTIAL": 1, "FULL": 2}  # support_level: the answer's level (none, partial, full)


def yes_probability(answer: str, p_yes: Optional[float]) -> float:
    """``yes_no``: P(YES), from the log-probabilities when given, else 1 for YES, 0 for NO."""
    return p_yes if p_yes is not None else (1.0 if answer == "YES" else 0.0)


def affirms(answer: str, p_yes: Optional[float]) -> bool:
    """``yes_no``: whether the answer says the document fully supports the sentence: its
    :func:`yes_probability` is at least :data:`P_YES_SUPPORTED`."""
    return yes_probability(answer, p_yes) >= P_YES_SUPPORTED


def likelihood(answer: str, p_yes: Optional[float], error: float) -> Optional[tuple[float, float, float]]:
    """The probability of the LLM's ``answer`` if the citation were not, partially or fully
    supported, for an LLM whose answers are wrong with probability ``error``: ``yes_no`` (read as
    :func:`affirms` reads it) is right about full support with 1 - error; ``support_level`` names
    the right level with 1 - error and each other one with error / 2. ``None`` for anything else
    (unparsed, failed, guarded): the answer says nothing about support."""
    if answer in ANSWERS["yes_no"]:
        full = affirms(answer, p_yes)
        return (error, error, 1 - error) if full else (1 - error, 1 - error, error)
    if answer in _LEVEL_INDEX:
        if_none, if_partial, if_full = (1 - error if k == _LEVEL_INDEX[answer] else error / 2 for k in range(3))
        return if_none, if_partial, if_full
    return None


NO_OBSERVATION = (1.0, 1.0, 1.0)  # a likelihood that leaves the model's distribution as it is


def observation(
    answer: str, p_yes: Optional[float], error: float, replaced: bool
) -> Optional[tuple[float, float, float]]:
    """What the LLM's ``answer`` about a pair tells of its level (none, partial, full), the one rule
    both kinds of pair weigh it by: a parsed answer its :func:`likelihood` (the model's
    distribution updated by Bayes' rule); an unparsed or failed one whose pair kept the model's
    status (``attest.on_unparsed: judge``) :data:`NO_OBSERVATION`; ``None`` when the status the
    cascade decided is final, no probability: a guarded pair, or one ``on_unparsed`` ``replaced``."""
    found = likelihood(answer, p_yes, error)
    if found is not None:
        return found
    if answer == "guarded" or replaced:
        return None
    return NO_OBSERVATION


#: ``attest.answer_error: estimate``'s prior: as if PRIOR_ANSWERS answers had been seen, a share
#: ``prior`` (the configured centre, 0.1) of them wrong (a Beta(1 + 2, 1 + 18) density, mode 0.1).
PRIOR_ANSWERS = 20
_GRID = np.arange(1, 1001) / 2000  # 0.0005 .. 0.5: the interval's grid (the setting's range)


class ErrorEstimate(NamedTuple):
    """:func:`estimate_error`'s result: the estimate, its 90% interval, the answers it rests on."""

    value: float
    low: float
    high: float
    answers: int

    def describe(self) -> dict:
        """As the summary, ``config.yml`` and the debug log give it."""
        return {
            "setting": "estimate",
            "estimate": self.value,
            "low": self.low,
            "high": self.high,
            "answers": self.answers,
        }


def estimate_error(
    levels: Sequence[Sequence[float]], answers: Sequence[tuple[str, Optional[float]]], prior: float
) -> ErrorEstimate:
    """The LLM's error rate from its answers against the model's probabilities: the maximum of
    ``prod_i sum_level P_i(level) * likelihood(answer_i | level, e)`` (:func:`likelihood`, the one
    the update uses) times a weak Beta prior with its mode at ``prior`` worth
    :data:`PRIOR_ANSWERS` answers, over e in (0, 0.5]; and the 5% and 95% points of that
    posterior (on a grid of 0.0005). ``levels``: per pair P(none), P(partial), P(full);
    ``answers``: per pair the answer and its P(YES) (``yes_no``); pairs whose answer says nothing
    (unparsed, failed, guarded) do not count. Each pair's likelihood is linear in e, so it is
    kept as two numbers. With no answer, the prior alone: its mode ``prior``.
    Deterministic: the same pairs in the same order give the same figures."""
    a: list[float] = []
    b: list[float] = []
    for probs, (answer, p) in zip(levels, answers):
        at0, at1 = likelihood(answer, p, 0.0), likelihood(answer, p, 1.0)
        if at0 is None or at1 is None:
            continue
        l0 = sum(q * x for q, x in zip(probs, at0))
        a.append(l0)
        b.append(sum(q * x for q, x in zip(probs, at1)) - l0)
    wrong, right = prior * PRIOR_ANSWERS, (1 - prior) * PRIOR_ANSWERS
    av, bv = np.array(a, dtype=np.float64), np.array(b, dtype=np.float64)

    def slope(e: float) -> float:  # the log posterior's derivative: decreasing (a sum of concave terms)
        return float(np.sum(bv / (av + bv * e))) + wrong / e - right / (1 - e)

    lo, hi = 1e-9, 0.5
    if slope(hi) >= 0:
        value = hi
    else:
        for _ in range(60):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if slope(mid) > 0 else (lo, mid)
        value = (lo + hi) / 2
    log_post = wrong * np.log(_GRID) + right * np.log1p(-_GRID)
    with np.errstate(divide="ignore"):
        for start in range(0, len(av), 2048):
            log_post += np.log(av[start : start + 2048, None] + bv[start : start + 2048, None] * _GRID).sum(axis=0)
    mass = np.exp(log_post - log_post.max())
    cdf = np.cumsum(mass) / mass.sum()
    low, high = _GRID[int(np.searchsorted(cdf, 0.05))], _GRID[min(int(np.searchsorted(cdf, 0.95)), len(_GRID) - 1)]
    return ErrorEstimate(round(value, 4), float(low), float(high), len(a))


_MARKER = re.compile(r"\[\[\s*##\s*\w+\s*##\s*\]\]")


def _answer_pattern(words: list[str]) -> re.Pattern:
    return re.compile(
        r"""^[\s"'`*_(\[]*(?:(?:the\s+)?answer\s*(?:is|:)?\s*[:\-]?\s*[\s"'`*_(\[]*)?("""
        + "|".join(sorted(words, key=len, reverse=True))
        + r")(?![a-z])",
        re.IGNORECASE,
    )


_PATTERNS = {q: _answer_pattern([*words, *_ALIASES.get(q, {})]) for q, words in ANSWERS.items()}


def parse_answer(text: Optional[str], question: str = "yes_no") -> Optional[str]:
    """One of ``ANSWERS[question]`` (``"YES"``, ``"NO"``; ``"FULL"``, ...) or ``None`` (unparsed)."""
    if not text:
        return None
    m = _PATTERNS[question].match(_MARKER.sub(" ", text))
    if not m:
        return None
    word = m.group(1).upper()
    return _ALIASES.get(question, {}).get(word, word)


class UnreadableLogprobs(ValueError):
    """Log-probabilities that cannot be read; ``field`` names where (e.g.
    ``logprobs.content[0].top_logprobs[1].logprob``)."""

    def __init__(self, field: str, problem: str):
        super().__init__(f"{field}: {problem}")
        self.field, self.problem = field, problem


LOGPROB_SLACK = 1e-3  # a log-probability above 0 by at most this is a rounding error (read as 0)


def _logprob(value: object, field: str) -> float:
    """A log-probability: a number at most 0 or -inf (:data:`LOGPROB_SLACK` above 0 is read as 0)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise UnreadableLogprobs(field, f"{json.dumps(value)[:40]} is not a log-probability (not a number)")
    if not math.isfinite(value) and value != -math.inf:
        raise UnreadableLogprobs(field, f"{value!r} is not a log-probability")
    if value > LOGPROB_SLACK:
        raise UnreadableLogprobs(field, f"{value!r} is not a log-probability (above 0)")
    return min(float(value), 0.0)


def p_yes(logprobs: object, answers: tuple[str, ...] = ANSWERS["yes_no"]) -> Optional[float]:
    """P(YES) (or, for other ``answers``, of the first, affirmative one: P(FULL)) at the first
    answer token, from an OpenAI-style ``choices[0].logprobs`` object.

    The answer token is the first whose text begins one of the answers (tokenizers may split
    ``YES`` into ``Y`` + ``ES``: a prefix counts, when it is the prefix of one answer only). The
    probabilities of the top alternatives there are summed per answer they begin and
    renormalised: P(YES) = p(yes) / (p(yes) + p(no)).
    ``None`` when the server sent no log-probabilities or no such token was among them.
    :class:`UnreadableLogprobs` (naming the field) when a number there is no log-probability
    (above 0, NaN, +inf, or no number at all) or its ``top_logprobs`` is not a list; an absent or
    null one is passed over.
    """
    if not isinstance(logprobs, dict) or not isinstance(logprobs.get("content"), list):
        return None
    for n, position in enumerate(logprobs["content"]):
        if not isinstance(position, dict):
            return None
        if _side(position.get("token"), answers) is None:
            continue
        where = f"logprobs.content[{n}]"
        if position.get("logprob") is not None:  # read or not (its alternatives' stand in), a number
            _logprob(position["logprob"], f"{where}.logprob")
        top = position.get("top_logprobs")
        if top is not None and not isinstance(top, list):
            raise UnreadableLogprobs(f"{where}.top_logprobs", f"{type(top).__name__} {top!r:.40} is not a list")
        mass = dict.fromkeys(answers, 0.0)
        alternatives = [(f"{where}.top_logprobs[{k}]", alt) for k, alt in enumerate(top)] if top else []
        for field, alt in alternatives or [(where, position)]:
            if not isinstance(alt, dict):
                raise UnreadableLogprobs(field, f"{json.dumps(alt)[:40]} is not an object {{token, logprob}}")
            side, value = _side(alt.get("token"), answers), alt.get("logprob")
            if side is not None and value is not None:  # absent: no mass
                mass[side] += math.exp(_logprob(value, f"{field}.logprob"))
        total = sum(mass.values())
        return round(mass[answers[0]] / total, 6) if total > 0 else None
    return None


def _side(token: object, answers: tuple[str, ...]) -> Optional[str]:
    """The answer the token is the start of (``Y``, ``Ye``, ``YES``, ``n``, ``No``), if exactly one."""
    word = token.strip(" \t\n\"'`*_.:,").lower() if isinstance(token, str) else ""
    if not word:
        return None
    sides = [a for a in answers if a.lower().startswith(word)]
    return sides[0] if len(sides) == 1 else None
