"""The per-sentence primitive: which numbers and entities of one sentence its cited sources lack.

Made for a judge that checks many sentences against the same documents::

    doc = Source(document_text)                 # prepared once, indexed on first use
    claim = Claim(sentence, context=answer)     # extracted once, checked against any source
    numbers_missing, entities_missing = missing(claim, doc)

``missing`` also takes a plain sentence string and any source form of
:func:`judges.checks.sources.as_sources` (a string, a dict, a ``Document``..., prepared on the fly,
so a loop should prepare them itself), or a list of them: a number or entity is missing only when
none of them states it.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from judges.checks.entities import Entity, extract_entities
from judges.checks.numbers import Number, extract_numbers
from judges.checks.sources import as_sources


class Claim:
    """One sentence with its numbers and entities extracted on first use.

    ``context`` is the whole answer (see :func:`judges.checks.entities.extract_entities`);
    ``number_words`` and ``single_words`` are the extraction options of
    :func:`~judges.checks.numbers.extract_numbers` (``words``) and of ``extract_entities``.
    """

    __slots__ = ("text", "context", "number_words", "single_words", "_numbers", "_entities")

    def __init__(
        self, text: str, context: str | None = None, *, number_words: bool = False, single_words: bool = False
    ):
        self.text = text
        self.context = context
        self.number_words = number_words
        self.single_words = single_words
        self._numbers: list[Number] | None = None
        self._entities: list[Entity] | None = None

    @property
    def numbers(self) -> list[Number]:
        if self._numbers is None:
            self._numbers = extract_numbers(self.text, words=self.number_words)
        return self._numbers

    @property
    def entities(self) -> list[Entity]:
        if self._entities is None:
            self._entities = extract_entities(self.text, context=self.context, single_words=self.single_words)
        return self._entities

    def __repr__(self) -> str:
        return f"Claim({self.text!r})"


class Missing(NamedTuple):
    """Surfaces of the sentence's numbers and entities that no given source states."""

    numbers: list[str]
    entities: list[str]


def missing(
    sentence: str | Claim,
    sources: Any,
    *,
    rel_tol: float = 0.0,
    fuzzy: float | None = None,
    partial: bool = True,
) -> Missing:
    """``(numbers_missing, entities_missing)`` for one sentence against one or more sources.

    ``rel_tol`` is the numbers' relative tolerance; ``fuzzy`` and ``partial`` are the entity
    matching options of :meth:`judges.checks.entities.EntityIndex.contains`.
    """
    claim = sentence if isinstance(sentence, Claim) else Claim(sentence)
    prepared = as_sources(sources)
    numbers = [n.surface for n in claim.numbers if not any(src.numbers.contains(n, rel_tol) for src in prepared)]
    entities = [
        e.surface for e in claim.entities if not any(src.entities.contains(e, fuzzy, partial) for src in prepared)
    ]
    return Missing(numbers, entities)
