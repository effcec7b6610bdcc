"""One answer in, its sources out: the judge's judgment of a single answer, in memory.

For a RAG system checking its own draft, or a notebook cell looking at one report::

    import judges

    checked = judges.check_answer(
        "Revenue rose 12% to $1.5 million. The CEO resigned.",
        ["Q3 report: revenue rose 12% to $1.5 million, a record.", "The board met in May."],
    )
    for s in checked.sentences:
        print(s.start, s.end, s.status, [(c.source_id, c.status, c.evidence) for c in s.citations])
    checked.measures["WEIGHTED_PRECISION"], checked.groundedness

The citations and the nuggets are judged by the batch judge's own code, through the engine's one
entry point for every kind of pair (:func:`judges.engine.pairs.judge_pairs` on an in-memory report,
with the citation kind, and with ``nuggets=`` the nugget kind): the same statuses,
probabilities, weights, explanations and grounding checks as a judge run, so the two cannot drift.
With the answer's citations (a list of sentences as the tracks give them, or ``citations=``)
those are judged; without any, every source is tried
for every sentence and the ones found supporting it are kept, best first (:func:`discovered`:
``supported`` ones, else ``partial`` ones with ``P(full)`` at least :data:`PARTIAL_FLOOR`, never
one lacking a number the sentence states). A string answer is split into sentences with
character offsets into it.

No file is read or written; the kernels are loaded once per process (the first call takes about
a second more). Every call has a judge of its own (nothing is kept from one call to the next, so
calls from several threads do not share a judge).

With ``attest=`` (an LLM endpoint: a :class:`judges.attest.endpoint.Endpoint`, or a mapping of
``OPENAI_BASE_URL``, ``OPENAI_MODEL`` and ``OPENAI_API_KEY`` such as ``os.environ``), the batch
judge's attestation cascade runs on the answer (:class:`judges.attest.cascade.Attester`: the
same selection, guard, question, grade table and answer cache). Which citations are asked
follows the workflow's ``attest.mode``: ``all`` asks every resolvable one; ``uncertain`` asks
those with ``P(full)`` in ``attest.band``, or without a band those the batch judge's plan
(:func:`judges.attest.plan.attest_plan`) chooses over this one answer after a pass without the LLM
(``attest.count`` of them, else ``attest.budget`` of its citations); ``none`` (the default
workflow's) is taken as ``all``, since an endpoint was given to be asked. In discovery every
source is a citation of every sentence, so ``all`` asks sentences x sources questions. The
answers are cached in ``cache_dir`` (default ``$XDG_CACHE_HOME/citejudge``, else
``~/.cache/citejudge``): a second identical call asks nothing. A workflow that attests without
``attest=`` is refused, as the batch judge refuses one without an endpoint. The API key goes
only into the requests' ``Authorization`` header; the result's ``attestation`` holds the
figures the batch judge's summary gives (model, URL without credentials, calls, cache hits).
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Optional, Sequence, Union

from judges.core.config import Workflow
from judges.formats.debuglog import DebugLog
from judges.core.measures import MEASURES
from judges.core.records import Citation, Document, Judgment, Report, Sentence
from judges.engine.settings import Settings
from judges.text.segment import split_sentences
from judges.core.vocabulary import STATUS_RANK

if TYPE_CHECKING:
    from judges.attest.endpoint import Endpoint

FOUND = ("supported", "partial")  # what discovery keeps
#: Discovery keeps a ``partial`` source only when the support model's ``P(full)`` is at least this
#: (a source that merely touches the sentence is not shown as its support). Chosen on rag24-support
#: by ``bench/discovery.py``: the floor with the best mean of the two balanced accuracies (fully
#: supported; supported or partially) over the labelled pairs, each judged by a support model fitted
#: without its topic; floors chosen that way by nested cross-validation by topic fall in 0.30-0.42.
PARTIAL_FLOOR = 0.32
#: The measures of an answer whose citations were discovered (the others count every source tried).
SENTENCE_MEASURES = tuple(m.name for m in MEASURES if m.discovered)


@dataclass(frozen=True)
class CitedSource:
    """One source's judgment for one sentence."""

    source_id: str
    status: str  # supported | partial | unsupported | missing | cross_language
    p_full: Optional[float]  # the support model's P(fully supported)
    p_any: Optional[float]  # P(at least partially supported)
    weight: float  # its weight in WEIGHTED_PRECISION
    char_start: int  # the evidence span in the source's text
    char_end: int
    evidence: str  # the source's text[char_start:char_end]
    explanation: str  # the verdict in words
    numbers_missing: tuple[str, ...] = ()  # the sentence's numbers the source does not state
    entities_missing: tuple[str, ...] = ()  # the sentence's names the source does not state
    evidence_spans: tuple[tuple[int, int, str], ...] = ()  # every place it draws on: (char_start, char_end, text)
    llm_answer: Optional[str] = None  # attest=: YES | NO | unparsed | failed | guarded; None: not asked
    llm_p_yes: Optional[float] = None  # attest=: the LLM's P(YES) from its log-probabilities


@dataclass(frozen=True)
class CheckedSentence:
    """One sentence of the answer: its span in the answer and its sources, best first."""

    index: int
    text: str
    start: int  # character offsets into the answer string (-1 when the answer was given as a list)
    end: int
    citations: tuple[CitedSource, ...]
    # discovery, no source kept: why, from the closest source tried (its verdict; "" otherwise)
    reason: str = ""

    @property
    def status(self) -> str:
        """Its best source's status; ``uncited`` when none (discovery: none found)."""
        return self.citations[0].status if self.citations else "uncited"


@dataclass(frozen=True)
class AnswerCheck:
    """The judgment of one answer: its sentences and the leaderboard's measures of it."""

    sentences: tuple[CheckedSentence, ...]
    measures: dict[str, float]  # the leaderboard's measures of this answer (discovery: SENTENCE_MEASURES)
    attestation: Optional[dict] = None  # attest=: the figures of judges.attest.cascade.summarize
    nuggets: Optional[tuple] = None  # nuggets=: a judges.nuggets.judge.NuggetJudgment per nugget, the bank's order

    @property
    def groundedness(self) -> float:
        """Character-weighted share of the answer in sentences with a supported source."""
        return self.measures["GROUNDEDNESS"]

    @property
    def unsupported_sentences(self) -> tuple[CheckedSentence, ...]:
        """Sentences with text and no supported or partial source (possible hallucinations)."""
        return tuple(s for s in self.sentences if s.text.strip() and s.status not in FOUND)


class InputProblem(ValueError):
    """A sentence or source :func:`check_answer` cannot take: ``where`` is ``"answer"`` or
    ``"sources"``, ``index`` its position there, ``first`` the position of the source first given
    the same id (a duplicate), ``problem`` in words; ``str()`` is ``where[index]: problem``. The
    command line names the file and line of that position."""

    def __init__(self, where: str, index: int, problem: str, first: Optional[int] = None):
        self.where, self.index, self.problem, self.first = where, index, problem, first
        super().__init__(f"{where}[{index}]: {problem}")


SourceLike = Union[str, dict, tuple, Any]
#: A source's fields that are its judgment's (the others: its id, weight and evidence spans' text).
_OWN = ("weight", "evidence_spans")
_SAME = tuple(f.name for f in fields(CitedSource) if f.name in Judgment._fields and f.name not in _OWN)


def check_answer(
    answer: Union[str, Sequence[Union[str, dict]]],
    sources: Iterable[SourceLike],
    citations: Optional[Sequence[Sequence[Union[str, int]]]] = None,
    workflow: Optional[Workflow] = None,
    attest: Union["Endpoint", Mapping[str, Any], None] = None,
    cache_dir: Union[str, Path, None] = None,
    nuggets: Any = None,
) -> AnswerCheck:
    """Judge one answer against its sources (see the module doc).

    ``answer``: a string, or a list of sentences (strings, or dicts with ``text`` and
    ``citations``: source ids or indexes into ``sources``). ``sources``: strings, dicts with
    ``text`` (and ``id``/``doc_id``, ``title``), ``(id, text)`` pairs or objects with ``.text``;
    their ids are ``"0"``, ``"1"``, ... when not given. ``citations``: per sentence, the sources it
    cites (ids or indexes); given neither here nor in ``answer``, every source is tried.
    ``workflow``: the judge's settings (default: the defaults of ``workflows/citation.yml``).
    ``attest``: an LLM endpoint to attest with, ``cache_dir``: its answer cache (see the module doc).
    ``nuggets``: a topic's nuggets (:func:`judges.nuggets.check.bank_of`), judged in the answer by
    the session's nugget kind through the engine's entry point (:func:`_judge_nuggets`; with
    ``attest=`` the LLM is asked about them as a session asks): ``nuggets`` gets the judgments,
    ``measures`` the NUGGET_* values, ``attestation["nuggets"]`` the nugget questions' figures.
    """
    docs = _documents(sources)
    spans = _sentences(answer)
    if not any(text.strip() for text, _, _ in spans):
        raise InputProblem("answer", 0, "no sentences: the answer is empty")
    if not docs and nuggets is None:  # nuggets alone need no sources
        raise InputProblem("sources", 0, "no sources: nothing to judge the answer against")
    given = citations if citations is not None else _given_citations(answer)
    if given is not None and len(given) != len(spans):
        raise ValueError(f"citations: {len(given)} lists for {len(spans)} sentences")
    discover = given is None or not any(given)
    ids = list(docs)
    sentences = []
    for i, (text, _, _) in enumerate(spans):
        cited = ids if discover or given is None else [_source_id(c, ids, i) for c in given[i]]
        sentences.append(Sentence(i, text, tuple(Citation(r, str(d), d) for r, d in enumerate(cited))))
    report = Report("answer", "answer", "", "responses", tuple(sentences), docs, "<answer>", 1)
    llm = None if attest is None else _endpoint(attest)
    workflow = _attesting(workflow or Workflow(), llm)
    judged, measures, attestation = _judge(report, workflow, llm, cache_dir)
    if discover:  # every source was cited: only the sentence-level measures say something of the answer
        measures = {m: v for m, v in measures.items() if m in SENTENCE_MEASURES}
    by_sentence: dict[int, list[CitedSource]] = {}
    for index, source in judged:
        by_sentence.setdefault(index, []).append(source)
    out = []
    for i, (text, start, end) in enumerate(spans):
        tried = by_sentence.get(i, [])
        found = discovered(tried) if discover else tried
        reason = _not_found(tried) if discover and not found else ""
        out.append(CheckedSentence(i, text, start, end, tuple(found), reason))
    if nuggets is None:
        return AnswerCheck(tuple(out), measures, attestation)
    said: Union[str, list[str]] = answer if isinstance(answer, str) else [s.text for s in out]
    judgments, nugget_measures, asked = _judge_nuggets(said, nuggets, workflow, llm, cache_dir)
    if "WEIGHTED_PRECISION" in measures:  # its citations were judged: NUGGET_F1 beside, as --judge argue's
        from judges.nuggets.measures import F1, f1

        nugget_measures[F1] = f1(measures["WEIGHTED_PRECISION"], nugget_measures["NUGGET_ALL"])
    if attestation is not None and asked:  # as the batch judge's summary: the nugget pairs' figures beside
        attestation = {**attestation, "nuggets": asked}
    return AnswerCheck(tuple(out), {**measures, **nugget_measures}, attestation, judgments)


def discovered(tried: Sequence[CitedSource], partial_floor: float = PARTIAL_FLOOR) -> list[CitedSource]:
    """The sources discovery keeps for a sentence among the ``tried`` ones, best first: those
    judged ``supported`` or ``partial`` that state every number of the sentence (one that lacks a
    number the sentence states does not support it, whatever else it shares); a ``partial`` one only
    when its ``P(full)`` is at least ``partial_floor`` (a support judge without probabilities: any)
    and no kept source fully supports the sentence (a reader is pointed to the full support, not to
    every source that touches the topic). ``partial_floor=0`` is the rule before the floor."""
    kept = [c for c in tried if c.status in FOUND and not c.numbers_missing and not _below_floor(c, partial_floor)]
    if any(c.status == "supported" for c in kept):
        kept = [c for c in kept if c.status == "supported"]
    return sorted(kept, key=lambda c: (-STATUS_RANK[c.status], -(c.p_full or 0.0), c.source_id))


def _below_floor(c: CitedSource, partial_floor: float) -> bool:
    return c.status == "partial" and c.p_full is not None and c.p_full < partial_floor


def _not_found(tried: list[CitedSource]) -> str:
    """Why discovery kept no source for a sentence: the closest source tried (highest status, then
    ``P(full)``) and its verdict; one judged ``supported`` or ``partial`` was left out for lacking a
    number the sentence states, or (``partial``) for a ``P(full)`` under :data:`PARTIAL_FLOOR`."""
    if not tried:
        return "no source to try"
    near = max(tried, key=lambda c: (STATUS_RANK[c.status], c.p_full or 0.0))
    said = f"closest source {near.source_id!r}: {near.explanation}"
    if near.status in FOUND and near.numbers_missing:
        return f"{said}; left out: it lacks a number the sentence states"
    if near.status in FOUND:
        return f"{said}; left out: partial with P(full) {near.p_full:.3f} < discovery's floor {PARTIAL_FLOOR}"
    return said


def default_cache_dir() -> Path:
    """Where ``attest=``'s answers are cached by default: ``$XDG_CACHE_HOME/citejudge``, else
    ``~/.cache/citejudge``."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "citejudge"


def _endpoint(attest) -> "Endpoint":
    from judges.attest.endpoint import Endpoint, from_mapping
    from judges.core.errors import InputError

    if isinstance(attest, Endpoint):
        return attest
    if not isinstance(attest, Mapping):
        raise ValueError("attest: an Endpoint, or a mapping of OPENAI_BASE_URL, OPENAI_MODEL and OPENAI_API_KEY")
    try:
        return from_mapping(attest, "attest")
    except InputError as e:
        raise ValueError(e.render()) from None


def _attesting(workflow: Workflow, llm: Optional["Endpoint"]) -> Workflow:
    """The workflow to judge by: ``attest.mode: none`` becomes ``all`` when an endpoint is given;
    a mode the call cannot carry out is refused by the batch judge's checks
    (:func:`judges.session.pipeline.check_attestation`), as a ValueError (see the module doc)."""
    from judges.core.errors import InputError
    from judges.session.pipeline import check_attestation

    if llm is not None and workflow.attest.mode == "none":
        workflow = workflow.model_copy(update={"attest": workflow.attest.model_copy(update={"mode": "all"})})
    try:
        check_attestation(Settings(workflow=workflow, llm=llm), how="pass attest=")
    except InputError as e:
        raise ValueError(f"workflow {e.field} {e.problem}") from None
    return workflow


#: A judged citation: its sentence index and judgment.
JudgedCitation = tuple[int, CitedSource]


def _judge(
    report: Report, workflow: Workflow, llm: Optional["Endpoint"], cache_dir: Union[str, Path, None]
) -> tuple[list[JudgedCitation], dict[str, float], Optional[dict]]:
    """The judged citations and measures of ``report``, judged by the batch judge's code (the
    engine's entry point, :func:`judges.engine.pairs.judge_pairs`, with the citation kind), and the
    attestation's figures (None without ``llm``)."""
    settings = Settings(workflow=workflow)
    if llm is None:
        part = _judge_pass(settings, report)
        return _judged(part.assessments, report.documents), part.per_topic[(report.run_id, report.topic_id)], None
    from judges.attest.cascade import summarize
    from judges.attest.plan import Plan

    attest, asking = workflow.attest, None
    planning = attest.mode == "uncertain" and attest.band is None
    if planning or attest.check_size > 0:  # as the batch judge: plan and check sample after a pass without it
        from judges.attest.check import citation_sample
        from judges.attest.plan import attest_plan

        first = _judge_pass(settings.without_llm(), report).assessments
        plan = attest_plan(first, {report.run_id: 1}, workflow) if planning else None
        asking = (plan or Plan({}, 0, 0)).checking(citation_sample(first, attest, plan))
    cache = Path(cache_dir or default_cache_dir())
    part = _judge_pass(replace(settings, llm=llm, cache_dir=cache), report, asking)
    figures = summarize(Counter(part.counts), attest, llm)
    return _judged(part.assessments, report.documents), part.per_topic[(report.run_id, report.topic_id)], figures


def _judge_pass(settings: Settings, report: Report, plan=None):
    """``report`` judged through the engine's entry point (a judge of its own, cheap to build once
    the kernels are loaded; the sources are the report's own documents): a
    :class:`judges.engine.judge.Part`. ``plan``: what the LLM is asked by (the batch judge's)."""
    from judges.engine.pairs import CITATION_KIND, judge_pairs

    with DebugLog(None) as log:
        return judge_pairs(CITATION_KIND, settings, [report, None], {}, log, progress=lambda done: None, plan=plan)


def _judged(table, docs: Mapping[str, Optional[Document]]) -> list[JudgedCitation]:
    """The judged citations of an assessment table (:data:`judges.formats.tables.ASSESSMENT_SCHEMA`,
    the batch judge's rows), each as a :class:`CitedSource` of ``docs``."""
    rows = table.select(["sentence_index", "doc_id", "weight", *_SAME, "evidence_spans"]).to_pylist()
    out = []
    for r in rows:
        doc = docs.get(r["doc_id"])
        text = doc.text if doc is not None and r["evidence_spans"] else ""  # no spans: not aligned (or not among docs)
        spans = tuple(
            (s["char_start"], s["char_end"], text[s["char_start"] : s["char_end"]]) for s in r["evidence_spans"] or ()
        )
        same: dict[str, Any] = {f: tuple(r[f] or ()) if f.endswith("_missing") else r[f] for f in _SAME}
        out.append(
            (r["sentence_index"], CitedSource(source_id=r["doc_id"], weight=r["weight"], evidence_spans=spans, **same))
        )
    return out


def _judge_nuggets(
    answer: Union[str, list[str]],
    nuggets: Any,
    workflow: Workflow,
    llm: Optional["Endpoint"],
    cache_dir: Union[str, Path, None],
    model: str = "rag24",
) -> tuple[tuple, dict[str, float], dict]:
    """The nugget judgments of one answer (the bank's order), its nugget measures and the nugget
    pairs' attestation figures (empty without ``llm``), judged by the batch session's nugget kind
    through the engine's one entry point (:func:`judges.engine.pairs.judge_pairs` with
    :func:`judges.engine.pairs.nugget_kind`): the same judge, the same cascade over the pairs
    (question, cache, check sample, degenerate policy) as a session of this one answer.
    ``answer``: the string the spans' offsets are into, or the sentences the session joins."""
    from judges.engine.pairs import judge_pairs, nugget_kind
    from judges.formats.nuggets import Nuggets
    from judges.nuggets.check import bank_of

    bank = bank_of(nuggets)
    # the session's answer text is its sentences, each stripped, joined by a space: a string answer is
    # one sentence, its leading white space added back to the spans' offsets
    lead = len(answer) - len(answer.lstrip()) if isinstance(answer, str) else 0
    sentences = (answer,) if isinstance(answer, str) else answer
    report = Report(
        "answer",
        bank.qid,
        "",
        "responses",
        tuple(Sentence(i, t, ()) for i, t in enumerate(sentences)),
        {},
        "<answer>",
        1,
    )
    evidence = Nuggets("<nuggets>", {bank.qid: bank})
    settings = Settings(workflow=workflow, llm=llm, cache_dir=Path(cache_dir or default_cache_dir()))
    with DebugLog(None) as log:
        result = judge_pairs(
            nugget_kind(), settings, [report, None], evidence, log, warn=lambda said: None,
            answered={report.run_id: 1}, model_spec=model,
        )  # fmt: skip
    key = (report.run_id, report.topic_id)
    judged = tuple(result.judged.get(key, ()))  # an empty bank: no judgment, its measures 0
    if lead:
        from dataclasses import replace

        judged = tuple(replace(j, spans=tuple((a + lead, b + lead) for a, b in j.spans)) for j in judged)
    return judged, dict(result.measures[key]), result.attest


def _sentences(answer) -> list[tuple[str, int, int]]:
    """(text, start, end) per sentence; offsets -1 for an answer given as a list."""
    if isinstance(answer, str):
        return [(answer[a:b], a, b) for a, b in split_sentences(answer)]
    out = []
    for i, item in enumerate(answer):
        text = item.get("text") if isinstance(item, dict) else item
        if not isinstance(text, str):
            raise InputProblem("answer", i, "a sentence must be a string or a dict with text")
        out.append((text, -1, -1))
    return out


def _given_citations(answer) -> Optional[list[list]]:
    if isinstance(answer, str) or not any(isinstance(item, dict) for item in answer):
        return None
    return [list(item.get("citations") or ()) if isinstance(item, dict) else [] for item in answer]


def _source_id(cited: Union[str, int], ids: list[str], sentence: int) -> str:
    """A citation's source id: an index into the sources, or an id (one that names no source is
    judged ``missing``, as the batch judge judges a document it cannot find)."""
    if isinstance(cited, int) and not isinstance(cited, bool):
        if not 0 <= cited < len(ids):
            raise InputProblem("answer", sentence, f"citation {cited} is not an index of the {len(ids)} sources")
        return ids[cited]
    return str(cited)


def _documents(sources: Iterable[SourceLike]) -> dict[str, Document]:
    docs: dict[str, Document] = {}
    first: dict[str, int] = {}
    text: object  # a source's text: checked to be a string below
    for i, s in enumerate(sources):
        if isinstance(s, str):
            doc_id, text, title = str(i), s, ""
        elif isinstance(s, tuple) and len(s) == 2:
            doc_id, text, title = str(s[0]), s[1], ""
        elif isinstance(s, dict):
            doc_id = str(s.get("id", s.get("doc_id", s.get("docid", i))))
            text, title = s.get("text", s.get("segment")), str(s.get("title") or "")
        elif hasattr(s, "text"):
            doc_id, text, title = str(getattr(s, "doc_id", i)), s.text, str(getattr(s, "title", "") or "")
        else:
            raise InputProblem("sources", i, "a string, a dict with text, an (id, text) pair or an object with .text")
        if not isinstance(text, str):
            raise InputProblem("sources", i, "its text is not a string")
        if doc_id in docs:
            raise InputProblem("sources", i, f"id {doc_id!r} given twice", first[doc_id])
        docs[doc_id] = Document(doc_id, text, title)
        first[doc_id] = i
    return docs
