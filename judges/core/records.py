"""Internal records passed between pipeline stages: plain, immutable, validated at the edges."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, NamedTuple, Optional


class Topic(NamedTuple):
    topic_id: str
    title: str
    text: str  # everything the topic says (title, problem statement, background), for logs
    id_key: str = "request_id"  # the field its id was read from (named in errors)


class Document(NamedTuple):
    doc_id: str
    text: str
    title: str = ""


class Citation(NamedTuple):
    """One citation of a sentence as the run wrote it, and what it resolves to.

    ``doc_id`` is the cited document id (``None`` when an index points outside ``references``);
    ``raw`` is the value as written (an index or a doc id) and ``confidence`` the RAGTIME weight.
    """

    rank: int
    raw: str
    doc_id: Optional[str]
    confidence: Optional[float] = None
    problem: Optional[str] = None  # why it cannot be resolved, known at load time

    @property
    def citation_id(self) -> str:
        """The id used in qrels doc ids: the document id, else the raw value."""
        return self.doc_id if self.doc_id is not None else self.raw


class Sentence(NamedTuple):
    index: int  # type: ignore[assignment]  # a field named as tuple.index: NamedTuple allows it, mypy does not
    text: str
    citations: tuple[Citation, ...]
    dropped: int = 0  # citations beyond citations.max_per_sentence, not judged


@dataclass(frozen=True, slots=True)
class Report:
    """One run's answer for one topic, in the shape shared by every track."""

    run_id: str
    topic_id: str
    team_id: str
    shape: str  # "rag" (answer + references), "responses" (RAGTIME/DRAGUN/kiddie), "sentences" (NeuCLIR)
    sentences: tuple[Sentence, ...]
    documents: Mapping[str, Optional[Document]]  # embedded documents; None = present without text (read only)
    path: str
    line: int
    offset: int = 0  # byte offset of the record's line in its (uncompressed) file; -(index + 1) in a JSON array


class Judgment(NamedTuple):
    """The verdict on one (sentence, citation) pair."""

    status: str  # supported | partial | unsupported | missing | cross_language
    grade: int  # 2 supported, 1 partial, 0 otherwise
    score: int  # raw Smith-Waterman score
    norm_score: float  # score / (match * answer tokens)
    answer_coverage: float  # matched tokens / answer tokens
    evidence_coverage: float  # matched tokens / evidence tokens
    answer_tokens: int
    char_start: int  # evidence span in the cited document's text
    char_end: int
    evidence: str
    doc_source: str  # embedded | corpus | none
    reason: str  # for missing: what could not be resolved; for a sentence without tokens: that
    support_status: str = ""  # the support judge's status, before LLM attestation and the grounding cap
    # The support model (judges.support), for resolvable citations judged by a probabilistic judge.
    p_any: Optional[float] = None  # P(at least partially supported)
    p_full: Optional[float] = None  # P(fully supported)
    features: tuple[float, ...] = ()  # the support features (judges.core.vocabulary.FEATURES)
    # LLM attestation (judges.attest), for citations the cascade sent; otherwise the defaults.
    llm_answer: Optional[str] = None  # YES | NO | unparsed | failed | guarded
    llm_p_yes: Optional[float] = None  # P(YES) from the answer token's log-probabilities
    llm_tokens_in: int = 0  # prompt tokens of the question (as the server counted them)
    llm_tokens_out: int = 0
    # Grounding checks (judges.engine.grounder), for resolvable citations.
    numbers_missing: tuple[str, ...] = ()  # the sentence's numbers the cited document does not state
    entities_missing: tuple[str, ...] = ()  # the sentence's entities the cited document does not state
    capped: bool = False  # status lowered to partial because of the two lists above (grounding.cap)
    human_label: Optional[str] = None  # an assessor's level (a status), final: from --labels (judges.formats.labels)
    weight: Optional[float] = None  # its weight in WEIGHTED_PRECISION, set last (judges.engine.weights)
    explanation: str = (
        ""  # the verdict in words: which threshold, probability, LLM answer or cap decided it (judges.engine.explain)
    )
    # Every place of the document the sentence draws on (judges.align.spans): character ranges in
    # document order, disjoint, (char_start, char_end) among them; empty when not aligned.
    evidence_spans: tuple[tuple[int, int], ...] = ()
