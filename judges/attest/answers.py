"""Reading a model's reply: YES, NO or unparsed, and P(YES) from token log-probabilities.

Replies are read leniently in form and strictly in content: case, punctuation, dspy's field
markers and a leading "Answer:" do not matter (``Yes.``, ``NO, because ...``,
``[[ ## answer ## ]] YES``), but the reply must *start* with yes or no; anything else
(``Maybe``, ``The document says ...``, an empty reply) is ``None``, i.e. unparsed.
"""

from __future__ import annotations

import math
import re
from typing import Optional

_MARKER = re.compile(r"\[\[\s*##\s*\w+\s*##\s*\]\]")
_ANSWER = re.compile(
    r"""^[\s"'`*_(\[]*(?:(?:the\s+)?answer\s*(?:is|:)?\s*[:\-]?\s*[\s"'`*_(\[]*)?(yes|no)(?![a-z])""",
    re.IGNORECASE,
)


def parse_answer(text: Optional[str]) -> Optional[str]:
    """``"YES"``, ``"NO"`` or ``None`` (unparsed)."""
    if not text:
        return None
    m = _ANSWER.match(_MARKER.sub(" ", text))
    return m.group(1).upper() if m else None


def p_yes(logprobs: object) -> Optional[float]:
    """P(YES) at the first answer token, from an OpenAI-style ``choices[0].logprobs`` object.

    The probabilities of the top alternatives that read as yes and as no are summed and
    renormalised: P(YES) = p(yes) / (p(yes) + p(no)). ``None`` when the server sent no
    log-probabilities or no yes/no token was among them.
    """
    if not isinstance(logprobs, dict) or not isinstance(logprobs.get("content"), list):
        return None
    for position in logprobs["content"]:
        if not isinstance(position, dict):
            return None
        if _word(position.get("token")) not in ("yes", "no"):
            continue
        yes = no = 0.0
        alternatives = position.get("top_logprobs") or [position]
        for alt in alternatives:
            if not isinstance(alt, dict) or not isinstance(alt.get("logprob"), (int, float)):
                continue
            word = _word(alt.get("token"))
            if word == "yes":
                yes += math.exp(alt["logprob"])
            elif word == "no":
                no += math.exp(alt["logprob"])
        return round(yes / (yes + no), 6) if yes + no > 0 else None
    return None


def _word(token: object) -> str:
    return token.strip(" \t\n\"'`*_.:,").lower() if isinstance(token, str) else ""
