"""The LLM's side-by-side question: which of two answers to a topic is better, or a tie.

Asked only of the battles the evidence cannot decide (:func:`undecided`), and in **both orders**:
once with answer A shown first, once with B first. A verdict that flips with the order (FIRST
both times, or SECOND both times) is a tie (:func:`combine`), so that a judge's preference for the
first (or second) answer shown cancels out instead of deciding battles.

Each answer is shown sentence by sentence with the evidence of its citations: for each citation
the judge's status and the span of the cited document that the judge aligned (``Evidence
shown``); the assessor's identity of the runs is never shown. The questions go through the same
pieces as the other LLM questions (:mod:`judges.attest`): the answer cache (the question's key is
the exact request), any asker (:func:`judges.attest.client.ask_all` online, or
:class:`judges.attest.batch.Recorder` for batch files), a cost cap (``max_cost``: no question is
asked whose estimated cost would take the total over it), and a degenerate guard
(:func:`position_bias`): a judge that picks the first answer shown (or the second) in at least
:data:`POSITION_SHARE` of at least :data:`MIN_ANSWERS` parsed answers is flagged and its verdicts
are not used.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Callable, NamedTuple, Optional, Sequence, Union

from judges.attest.cache import Answer, AnswerCache, question_key
from judges.attest.client import Asker, Failure, Request
from judges.core.counts import SIDE_CACHE_HITS, SIDE_CALLS, SIDE_FAILED, SIDE_OVER_COST
from judges.core.vocabulary import SIDE_BY_SIDE

ANSWERS = SIDE_BY_SIDE
MIN_ANSWERS = 20  # parsed answers before a position preference is a verdict (as judges.attest.degenerate)
POSITION_SHARE = 0.9  # share of parsed answers naming the same position that flags the judge
UNDECIDED = 0.6  # the evidence's most probable verdict below this: the battle is asked
CHARS_PER_TOKEN = 4.0

SYSTEM = (
    "You compare two answers to the same question, written by two anonymous systems. Each answer is "
    "shown sentence by sentence; under a sentence, each citation shows what an automatic judge found in "
    "the cited document. Prefer the answer that is better supported by its citations and covers more of "
    "what the question asks. Order and length alone are no reason. Reply with one word: FIRST, SECOND or TIE."
)


class Shown(NamedTuple):
    """One answer as the LLM sees it: per sentence its text and, per citation, (status, evidence)."""

    sentences: tuple[tuple[str, tuple[tuple[str, str], ...]], ...]


def render(answer: Shown) -> str:
    lines = []
    for k, (text, citations) in enumerate(answer.sentences, start=1):
        lines.append(f"{k}. {text}")
        for status, evidence in citations:
            lines.append(f"   - citation ({status}): {evidence}" if evidence else f"   - citation ({status})")
    return "\n".join(lines) if lines else "(empty answer)"


def messages(question: str, first: Shown, second: Shown) -> list[dict[str, str]]:
    """The chat messages asking which of ``first`` and ``second`` (in the order shown) is better."""
    user = (
        f"Question:\n{question}\n\nFIRST answer:\n{render(first)}\n\nSECOND answer:\n{render(second)}\n\n"
        "Which answer is better? Reply FIRST, SECOND or TIE."
    )
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]


def parse(reply: str) -> Optional[str]:
    """FIRST, SECOND or TIE: the first of them the reply names as a word, else ``None``."""
    found = re.search(r"\b(FIRST|SECOND|TIE)\b", reply.upper())
    return found.group(1) if found else None


def combine(a_first: Optional[str], b_first: Optional[str]) -> Optional[str]:
    """The battle's verdict (``A``, ``B``, ``tie``) from the answer with A shown first and the
    answer with B shown first; ``None`` when either is missing (unparsed, failed, not asked). The
    two must name the same answer; a verdict that flips with the order, or a TIE, is a tie."""
    if a_first is None or b_first is None:
        return None
    one = {"FIRST": "A", "SECOND": "B", "TIE": "tie"}[a_first]
    two = {"FIRST": "B", "SECOND": "A", "TIE": "tie"}[b_first]
    return one if one == two else "tie"


def undecided(p_a: float, p_tie: float, p_b: float, threshold: float = UNDECIDED) -> bool:
    """Whether the evidence cannot decide the battle: its most probable verdict is below ``threshold``."""
    return max(p_a, p_tie, p_b) < threshold


class Battle(NamedTuple):
    """A battle to ask about: its id (any hashable), the topic's question, answers A and B."""

    id: object
    question: str
    a: Shown
    b: Shown


class Asked(NamedTuple):
    """What the LLM said of one battle: the answers with A first and with B first (``None``:
    unparsed, failed or not asked: the cost cap), the verdict (:func:`combine`), and whether each
    came from the cache."""

    a_first: Optional[str]
    b_first: Optional[str]
    verdict: Optional[str]
    cached: int


def position_bias(asked: Sequence[Asked]) -> dict:
    """The degenerate guard's figures: parsed answers, the share naming the first answer shown and
    the second, and ``flagged`` (a position named in at least :data:`POSITION_SHARE` of at least
    :data:`MIN_ANSWERS` answers: the judge reads the order, not the answers)."""
    named = Counter(x for a in asked for x in (a.a_first, a.b_first) if x is not None)
    total = sum(named.values())
    first = named["FIRST"] / total if total else 0.0
    second = named["SECOND"] / total if total else 0.0
    flagged = total >= MIN_ANSWERS and max(first, second) >= POSITION_SHARE
    return {"answers": total, "first": round(first, 4), "second": round(second, 4), "flagged": flagged}


class SideBySide:
    """Asks the side-by-side question of battles, both orders, through the cache and ``ask``."""

    def __init__(
        self,
        model: str,
        cache_dir: Path,
        ask: Asker,
        *,
        max_tokens: int = 8,
        seed: int = 0,
        max_cost: Optional[float] = None,
        price_per_1k_input: float = 0.0,
        price_per_1k_output: float = 0.0,
    ):
        self.model, self.ask = model, ask
        self.cache = AnswerCache(Path(cache_dir))
        self.params = {"temperature": 0, "max_tokens": max_tokens, "seed": seed}
        self.max_cost = max_cost
        self.price_in, self.price_out = price_per_1k_input / 1000, price_per_1k_output / 1000
        self.counts: Counter = Counter()

    def close(self) -> None:
        self.cache.close()

    def cost(self, msgs: list[dict]) -> float:
        """The estimated cost of one question: its characters at :data:`CHARS_PER_TOKEN`, the
        reply at ``max_tokens``."""
        chars = sum(len(m["content"]) for m in msgs)
        return chars / CHARS_PER_TOKEN * self.price_in + self.params["max_tokens"] * self.price_out

    def decide(
        self, battles: Sequence[Battle], on_key: Optional[Callable[[str, object, bool], None]] = None
    ) -> list[Asked]:
        """Each battle's :class:`Asked`; ``on_key(key, battle id, a_first)`` is told every
        question's cache key before it is asked (a stand-in answers by it)."""
        questions = []  # (battle index, A first?, key, messages)
        for i, battle in enumerate(battles):
            for a_first in (True, False):
                first, second = (battle.a, battle.b) if a_first else (battle.b, battle.a)
                msgs = messages(battle.question, first, second)
                key = question_key(self.model, msgs, self.params)
                questions.append((i, a_first, key, msgs))
                if on_key is not None:
                    on_key(key, battle.id, a_first)
        answers: dict[str, Union[Answer, Failure]] = dict(self.cache.get_many(sorted({q[2] for q in questions})))
        cached = set(answers)
        spent, requests, asked = 0.0, [], set()
        for _, _, key, msgs in questions:
            if key in answers or key in asked:
                continue
            cost = self.cost(msgs)
            if self.max_cost is not None and spent + cost > self.max_cost:
                self.counts[SIDE_OVER_COST] += 1
                continue
            spent += cost
            asked.add(key)
            requests.append(Request(key, {"model": self.model, "messages": msgs, **self.params}, ANSWERS))

        def on_result(request: Request, result: Union[Answer, Failure]) -> None:
            answers[request.key] = result
            if isinstance(result, Answer):
                self.cache.put(request.key, self.model, result)
                self.counts[SIDE_CALLS] += 1
            else:
                self.counts[SIDE_FAILED] += 1

        if requests:
            self.ask(requests, on_result=on_result)
        read: dict[tuple[int, bool], Optional[str]] = {}
        hits: Counter = Counter()
        for i, a_first, key, _ in questions:
            result = answers.get(key)
            read[(i, a_first)] = parse(result.reply) if isinstance(result, Answer) else None
            hits[i] += key in cached
        self.counts[SIDE_CACHE_HITS] += sum(hits.values())
        out = []
        for i in range(len(battles)):
            a, b = read[(i, True)], read[(i, False)]
            out.append(Asked(a, b, combine(a, b), hits[i]))
        return out
