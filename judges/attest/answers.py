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

    The answer token is the first whose text begins "yes" or "no" (tokenizers may split ``YES``
    into ``Y`` + ``ES``: a prefix counts). The probabilities of the top alternatives there that
    begin yes and that begin no are summed and renormalised: P(YES) = p(yes) / (p(yes) + p(no)).
    ``None`` when the server sent no log-probabilities or no such token was among them.
    """
    if not isinstance(logprobs, dict) or not isinstance(logprobs.get("content"), list):
        return None
    for position in logprobs["content"]:
        if not isinstance(position, dict):
            return None
        if _side(position.get("token")) is None:
            continue
        mass = {"yes": 0.0, "no": 0.0}
        for alt in position.get("top_logprobs") or [position]:
            if not isinstance(alt, dict) or not isinstance(alt.get("logprob"), (int, float)):
                continue
            side = _side(alt.get("token"))
            if side is not None:
                mass[side] += math.exp(alt["logprob"])
        total = mass["yes"] + mass["no"]
        return round(mass["yes"] / total, 6) if total > 0 else None
    return None


def _side(token: object) -> Optional[str]:
    """ "yes" or "no" when the token is the start of that word (``Y``, ``Ye``, ``YES``, ``n``, ``No``)."""
    word = token.strip(" \t\n\"'`*_.:,").lower() if isinstance(token, str) else ""
    if word and "yes".startswith(word):
        return "yes"
    if word and "no".startswith(word):
        return "no"
    return None
