"""Grounding checks in the judge: numbers and entities a cited document must state, placeholders.

Alignment rewards overlapping words and is blind to the details that most often make a cited
sentence wrong: a changed number, a name the source never mentions. This stage runs the
deterministic checks of :mod:`judges.checks` (no model) on every judged citation and report:

* per citation: ``numbers_missing`` and ``entities_missing``, the surfaces of the sentence's
  numbers and entities that the cited document does not state (unresolvable citations are not
  checked). With ``grounding.cap`` (default: numbers and entities) a citation whose list for a
  capped kind is non-empty is at most ``partial``, however well it aligns or what an LLM said;
  the assessment shows it (``capped``, the ``reason``, and ``support_status``). The missing counts
  are also support features (:mod:`judges.support.features`);
* per sentence, for the report's measures: how many of its numbers and entities some document
  cited anywhere in the report states, and how many placeholder patterns it matches.

A :class:`Grounder` keeps each document's prepared :class:`~judges.checks.Source` for as long as
the judge keeps its aligned form (one topic), so a document is indexed once however often cited.
"""

from __future__ import annotations

from typing import Iterable

from judges.checks import Claim, Source, find_placeholders, missing
from judges.checks.placeholders import pattern_table
from judges.core.config import GroundingSettings
from judges.core.measures import SentenceGrounding
from judges.core.records import Document, Judgment, Report, Sentence
from judges.core.vocabulary import STATUS_GRADE


class Grounder:
    """Checks sentences against cited documents, preparing each document and sentence once."""

    def __init__(self, settings: GroundingSettings):
        self.s = settings
        self.patterns = pattern_table([(p.name, p.regex, p.category) for p in settings.placeholder_patterns])
        self._sources: dict[tuple[str, str], Source] = {}
        self._claims: dict[tuple[str, str, int], Claim] = {}  # (run, topic, sentence index)
        self._contexts: dict[tuple[str, str], str] = {}  # (run, topic) -> the whole answer

    def forget(self) -> None:
        """Drop prepared documents and sentences (between topics)."""
        self._sources.clear()
        self.forget_answers()

    def forget_answers(self) -> None:
        """Drop the prepared sentences, keyed by run and topic (between answers of one id)."""
        self._claims.clear()
        self._contexts.clear()

    def source(self, doc: Document) -> Source:
        key = (doc.text, doc.title)
        src = self._sources.get(key)
        if src is None:
            src = self._sources[key] = Source(doc.text, doc.title)
        return src

    def claim(self, rep: Report, sent: Sentence) -> Claim:
        key = (rep.run_id, rep.topic_id, sent.index)
        claim = self._claims.get(key)
        if claim is None:
            context = self._contexts.get(key[:2])
            if context is None:
                context = self._contexts[key[:2]] = " ".join(s.text for s in rep.sentences)
            claim = self._claims[key] = Claim(sent.text, context=context)
        return claim

    def _missing(self, claim: Claim, sources: list[Source]) -> tuple[tuple[str, ...], tuple[str, ...]]:
        if not (claim.numbers or claim.entities):  # most sentences: nothing to look up
            return (), ()
        found = missing(claim, sources, rel_tol=self.s.number_tolerance, fuzzy=self.s.entity_fuzzy)
        return tuple(found.numbers), tuple(found.entities)

    def missing_in(self, rep: Report, sent: Sentence, doc: Document) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """The sentence's numbers and entities that ``doc`` does not state."""
        return self._missing(self.claim(rep, sent), [self.source(doc)])

    def _lacking(self, j: Judgment) -> list[str]:
        """What ``j``'s document lacks of the kinds the policy caps (``grounding.cap``)."""
        if not (j.numbers_missing or j.entities_missing):
            return []
        return [
            f"{kind} {', '.join(items)}"
            for kind, items in (("numbers", j.numbers_missing), ("entities", j.entities_missing))
            if items and kind in self.s.cap
        ]

    def rules_out_full(self, j: Judgment) -> bool:
        """Whether the policy holds ``j`` at partial at most, whatever decides its status."""
        return bool(self._lacking(j))

    def cap(self, j: Judgment) -> Judgment:
        """``j`` lowered to ``partial`` when the policy caps a kind its document lacks."""
        lacking = self._lacking(j)
        if lacking and j.status == "supported":
            why = f"capped at partial: the document lacks {'; '.join(lacking)}"
            j = j._replace(
                status="partial",
                grade=STATUS_GRADE["partial"],
                capped=True,
                reason=f"{j.reason}; {why}" if j.reason else why,
            )
        return j

    def report(self, rep: Report, docs: Iterable[Document]) -> dict[int, SentenceGrounding]:
        """Per sentence index: its numbers and entities found in any of ``docs`` (the documents
        the report cites), and its placeholder matches."""
        sources = [self.source(d) for d in docs]
        out: dict[int, SentenceGrounding] = {}
        for sent in rep.sentences:
            if not sent.text.strip():
                continue
            claim = self.claim(rep, sent)
            numbers, entities = self._missing(claim, sources)
            out[sent.index] = SentenceGrounding(
                len(claim.numbers),
                len(claim.numbers) - len(numbers),
                len(claim.entities),
                len(claim.entities) - len(entities),
                len(find_placeholders(sent.text, patterns=self.patterns)),
            )
        return out
