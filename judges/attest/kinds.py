"""The kinds of pair the engine's shared pieces judge, and what differs between them.

A citation is a pair (cited sentence, cited document); a nugget judgment is a pair (nugget,
answer). The attestation cascade (:class:`judges.attest.cascade.Attester`), its answer cache,
the degenerate check, the plan (:func:`judges.attest.plan.make_plan`), the labels
(:mod:`judges.formats.labels`) and the intervals (:mod:`judges.scores.intervals`) are handed a
:class:`PairKind` and do not otherwise know which kind they serve. A kind says

* ``name``: ``citation`` or ``nugget`` (debug-log events of nugget pairs carry ``kind``);
* ``key``: the fields that name one pair (a plan line's, a label's, the cascade's selection key);
* ``prompt``: the question asked of the LLM (a key of :data:`judges.attest.prompt.QUESTIONS`;
  ``None``: the workflow's ``attest.question``) and ``reading``: whose answers it reads (a key
  of :data:`judges.core.vocabulary.ANSWERS`; ``None``: the same);
* ``status``: the pair's status in its own words for each status the cascade decides in the
  citation's words (``supported``, ``partial``, ``unsupported``);
* ``measures``: the leaderboard measures its judgments feed.

The answer cache's key is the exact question asked, so the two kinds never share answers: their
prompts differ.
"""

from __future__ import annotations

from typing import NamedTuple, Optional

from judges.core.measures import BATTLE_SCORE, MEASURE_NAMES
from judges.nuggets.measures import F1, NUGGET_MEASURES


class PairKind(NamedTuple):
    name: str
    key: tuple[str, ...]
    prompt: Optional[str]
    reading: Optional[str]
    status: dict[str, str]
    measures: tuple[str, ...]

    def question(self, workflow_question: str) -> str:
        """The prompt asked (``workflow_question``: ``attest.question``)."""
        return self.prompt or workflow_question

    def decided(self) -> dict[str, str]:
        """The cascade's status (the citation's words) for each of the kind's own: ``status`` inverted."""
        return {own: word for word, own in self.status.items()}

    def answers(self, workflow_question: str) -> str:
        """Whose answers the replies are read as."""
        return self.reading or workflow_question


CITATION = PairKind(
    "citation",
    ("run_id", "topic_id", "sentence_index", "citation_rank"),
    None,
    None,
    {"supported": "supported", "partial": "partial", "unsupported": "unsupported"},
    MEASURE_NAMES,
)

NUGGET = PairKind(
    "nugget",
    ("run_id", "topic_id", "nugget_index"),
    "nugget_level",
    "support_level",
    {"supported": "support", "partial": "partial_support", "unsupported": "not_support"},
    (*NUGGET_MEASURES, F1),
)

#: A battle: two answers to one topic side by side (judges.engine.battles); its verdict is the
#: evidence's (no question asked of an LLM yet: ``prompt`` names the side-by-side question to come).
BATTLE = PairKind(
    "battle",
    ("topic_id", "run_a", "run_b"),
    "side_by_side",
    None,
    {"supported": "A", "partial": "tie", "unsupported": "B"},
    (BATTLE_SCORE,),
)
