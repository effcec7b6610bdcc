"""The measure registry: every leaderboard measure, defined once, with its description.

A measure maps one report (a run's answer to one topic) to a number; the ``all`` row of a run is
the mean over topics. "Sentences" are the report's sentences with non-blank text; "citations" are
the judged citations (after ``citations.max_per_sentence``). Support weights follow the TREC 2024
RAG support assessment: supported 1, partial 0.5, unsupported and missing 0. A citation whose
status the support model decided weighs, by default (``leaderboard.weights: expected``), its
*expected* weight under the model's probabilities (:mod:`judges.engine.weights`): the leaderboard is
the judge's estimate of the human measure, and the expectation estimates a run's mean better
than the weights of thresholded statuses (bench/support_agreement.py).

``python -m judges.core.measures`` prints the Markdown table that the manual's measures page embeds (docs/hooks.py).
"""

from __future__ import annotations

import math
from typing import Callable, NamedTuple, Optional, Sequence

from judges.core.errors import InputError
from judges.core.vocabulary import WEIGHT


def expected_weight(p_any, p_full, likelihood=(1.0, 1.0, 1.0), full_weight=WEIGHT["supported"]):
    """The expected TREC support weight of a citation that is at least partially supported with
    probability ``p_any`` and fully with ``p_full`` (<= ``p_any``), after an observation of
    ``likelihood`` (its probability under none, partial and full support: Bayes' rule) and with
    full support weighing ``full_weight`` (``WEIGHT["partial"]`` where the grounding cap rules it
    out). Floats or NumPy arrays, element by element."""
    none, partial, full = (1 - p_any) * likelihood[0], (p_any - p_full) * likelihood[1], p_full * likelihood[2]
    return (WEIGHT["partial"] * partial + full_weight * full) / (none + partial + full)


class SentenceGrounding(NamedTuple):
    """A sentence's numbers and entities against every document its report cites, and its
    placeholder matches (:mod:`judges.engine.grounder`)."""

    numbers: int = 0
    numbers_found: int = 0
    entities: int = 0
    entities_found: int = 0
    placeholders: int = 0


NO_GROUNDING = SentenceGrounding()


class SentenceResult(NamedTuple):
    chars: int  # length of the sentence text
    statuses: tuple[str, ...]  # one status per judged citation, in citation order
    grounding: SentenceGrounding = NO_GROUNDING
    weights: tuple[float, ...] | None = None  # per citation (judges.engine.weights); None: the statuses' WEIGHT

    def citation_weights(self) -> tuple[float, ...]:
        return self.weights if self.weights is not None else tuple(WEIGHT[s] for s in self.statuses)


#: What a measure is an average of (the ``all`` row then averages over topics).
LEVELS = ("citation", "sentence", "answer", "nugget", "battle")
#: How :func:`judges.scores.intervals.report_variances` takes the judge's error of a report's value (the
#: per-report variance each measure names; ``none``: the value does not depend on the judge's
#: support decisions; ``unmodelled``: it does, but the intervals do not model it, and refuse it).
VARIANCES = {
    "none": "no judge error",
    "citation_weight": "per citation, the expected squared error of its weight",
    "citation_full": "per citation, the error of the judge's `supported` against P(full)",
    "report_full": "per report, the error of the judge's all-`supported` against P(every citation full)",
    "sentence_full": "per sentence, the error of the judge's some-`supported` against P(some citation full)",
    "sentence_best_weight": "per sentence, the expected squared error of the best weight of its citations",
    "chars_full": "as sentence_full, each sentence weighted by its characters",
    "nugget_assignment": "per answer, the expected squared error of its nuggets' values (nugget_report_variances)",
    "unmodelled": "the judge's error applies but the intervals do not model it",
    "battle_bootstrap": "the battle ranking's own interval, a bootstrap over topics (judges.scores.battles)",
}


class Measure(NamedTuple):
    """Every fact of one measure; none has a default, so a definition that leaves one out fails at
    import, and :func:`check` refuses facts that contradict each other."""

    name: str
    description: str
    level: str  # one of LEVELS: what the measure averages over
    judge_error: bool  # whether the judge's support decisions (and so its errors) move the value
    high: float  # the upper end of its range (the lower is 0); math.inf: unbounded
    variance: str  # one of VARIANCES: how the intervals take the judge's error
    discovered: bool  # whether it says something of an answer whose citations were discovered (every source cited)
    compute: Optional[Callable[[Sequence[SentenceResult]], float]]  # None: computed by another judge (nuggets)


def check(measure: Measure) -> Measure:
    """``measure`` when its facts hold together, else a ValueError naming it and the fact."""
    problems = []
    if not measure.name or measure.name != measure.name.upper():
        problems.append("name: upper-case, not empty")
    if not measure.description.endswith("."):
        problems.append("description: a sentence ending in '.'")
    if measure.level not in LEVELS:
        problems.append(f"level: one of {', '.join(LEVELS)}")
    if not isinstance(measure.judge_error, bool) or not isinstance(measure.discovered, bool):
        problems.append("judge_error, discovered: True or False")
    if not (isinstance(measure.high, (int, float)) and measure.high > 0):
        problems.append("high: a number above 0 (math.inf: unbounded)")
    if measure.variance not in VARIANCES:
        problems.append(f"variance: one of {', '.join(VARIANCES)}")
    elif (measure.variance == "none") == measure.judge_error:
        problems.append("variance: 'none' exactly when the judge's error does not apply")
    if problems:
        raise ValueError(f"measure {measure.name!r}: " + "; ".join(problems))
    return measure


def _ratio(num: float, den: float) -> float:
    return num / den if den else 0.0


def _statuses(report: Sequence[SentenceResult]) -> list[str]:
    return [s for sent in report for s in sent.statuses]


def _sentences(report: Sequence[SentenceResult]) -> list[SentenceResult]:
    return [s for s in report if s.chars > 0]


def _supported(sent: SentenceResult) -> bool:
    return "supported" in sent.statuses


def citation_accuracy(report):
    st = _statuses(report)
    return _ratio(sum(s != "missing" for s in st), len(st))


def citation_support(report):
    st = _statuses(report)
    return _ratio(st.count("supported"), len(st))


def avg_citations(report):
    return float(len(_statuses(report)))


def perfect_citations(report):
    st = _statuses(report)
    return 1.0 if st and all(s == "supported" for s in st) else 0.0


def sentence_support(report):
    sents = _sentences(report)
    return _ratio(sum(_supported(s) for s in sents), len(sents))


def weighted_precision(report):
    weights = [w for sent in report for w in sent.citation_weights()]
    return _ratio(sum(weights), len(weights))


def weighted_recall(report):
    sents = _sentences(report)
    return _ratio(sum(max(sent.citation_weights(), default=0.0) for sent in sents), len(sents))


def cited_sentences(report):
    sents = _sentences(report)
    return _ratio(sum(bool(s.statuses) for s in sents), len(sents))


def groundedness(report):
    sents = _sentences(report)
    return _ratio(sum(s.chars for s in sents if _supported(s)), sum(s.chars for s in sents))


def _grounded_share(report, total: str, found: str) -> float:
    n = sum(getattr(s.grounding, total) for s in report)
    return sum(getattr(s.grounding, found) for s in report) / n if n else 1.0


def numeric_grounded(report):
    return _grounded_share(report, "numbers", "numbers_found")


def entity_grounded(report):
    return _grounded_share(report, "entities", "entities_found")


def placeholder_free(report):
    return 0.0 if any(s.grounding.placeholders for s in report) else 1.0


_C, _S, _A, _N, _B, _INF = "citation", "sentence", "answer", "nugget", "battle", math.inf
# fmt: off
# each: name, description, level, judge_error, high, variance, discovered, compute (see Measure)
#: Every measure of every judge, in leaderboard order: the citation judge's, then the nugget judge's.
REGISTRY: dict[str, Measure] = {
    m.name: check(m)
    for m in (
        Measure(
            "CITATION_ACCURACY",
            "Share of citations that resolve to a document with text (index in range, id known, text present).",
            _C, False, 1.0, "none", False, citation_accuracy,
        ),
        Measure(
            "CITATION_SUPPORT", "Share of citations judged `supported`.",
            _C, True, 1.0, "citation_full", False, citation_support,
        ),
        Measure(
            "AVG_CITATIONS", "Number of judged citations in the report (the `all` row averages over topics).",
            _A, False, _INF, "none", False, avg_citations,
        ),
        Measure(
            "PERFECT_CITATIONS",
            "1 if the report has citations and every one is `supported`, else 0 (`all`: share of such topics).",
            _A, True, 1.0, "report_full", False, perfect_citations,
        ),
        Measure(
            "SENTENCE_SUPPORT",
            "ALCE citation recall: share of sentences with at least one `supported` citation "
            "(uncited sentences count 0).",
            _S, True, 1.0, "sentence_full", True, sentence_support,
        ),
        Measure(
            "WEIGHTED_PRECISION",
            "TREC 2024 RAG support precision: mean weight over citations (supported 1, partial 0.5, else 0; "
            "by default a status the support model decided weighs its expected weight, see `leaderboard.weights`).",
            _C, True, 1.0, "citation_weight", False, weighted_precision,
        ),
        Measure(
            "WEIGHTED_RECALL",
            "TREC 2024 RAG support recall: mean over sentences of the best weight of its citations (uncited 0; "
            "weights as in WEIGHTED_PRECISION).",
            _S, True, 1.0, "sentence_best_weight", True, weighted_recall,
        ),
        Measure(
            "CITED_SENTENCES", "Share of sentences with at least one citation.",
            _S, False, 1.0, "none", False, cited_sentences,
        ),
        Measure(
            "GROUNDEDNESS",
            "Character-weighted share of the answer in sentences with a `supported` citation.",
            _S, True, 1.0, "chars_full", True, groundedness,
        ),
        Measure(
            "NUMERIC_GROUNDED",
            "Share of the answer's numbers (after normalisation: `$1.5M` = `1,500,000`) "
            "stated by a document the report cites; 1 when the answer states no number.",
            _A, False, 1.0, "none", True, numeric_grounded,
        ),
        Measure(
            "ENTITY_GROUNDED",
            "Share of the answer's named entities (pattern-based: names, acronyms, brands, companies) "
            "found in a document the report cites; 1 when it names none.",
            _A, False, 1.0, "none", True, entity_grounded,
        ),
        Measure(
            "PLACEHOLDER_FREE",
            '1 if no sentence matches a placeholder pattern (John Doe, TechCorp, "studies show", '
            "lorem ipsum, `[insert name]`...), else 0.",
            _A, False, 1.0, "none", True, placeholder_free,
        ),
        # the nugget judge's (judges.nuggets.measures computes them)
        Measure(
            "NUGGET_ALL", "Mean over the topic's nuggets of support 1, partial 0.5, not 0.",
            _N, True, 1.0, "nugget_assignment", False, None,
        ),
        Measure(
            "NUGGET_ALL_STRICT", "NUGGET_ALL with partial support 0.",
            _N, True, 1.0, "nugget_assignment", False, None,
        ),
        Measure(
            "NUGGET_VITAL", "NUGGET_ALL over the topic's vital nuggets only (0 when it has none).",
            _N, True, 1.0, "nugget_assignment", False, None,
        ),
        Measure(
            "NUGGET_VITAL_STRICT", "NUGGET_ALL_STRICT over the topic's vital nuggets only (0 when it has none).",
            _N, True, 1.0, "nugget_assignment", False, None,
        ),
        Measure(
            "NUGGET_F1", "Harmonic mean of the answer's WEIGHTED_PRECISION and NUGGET_ALL (0 when both are 0).",
            _A, True, 1.0, "nugget_assignment", False, None,
        ),
        # the battle judge's (--judge battle; judges.scores.battles computes it)
        Measure(
            "BATTLE_SCORE",
            "Bradley-Terry with ties (Davidson) over the topic's battles, the verdicts from the evidence: the "
            "expected score (win 1, tie 0.5) against a run of mean strength (0.5: an average run).",
            _B, True, 1.0, "battle_bootstrap", False, None,
        ),
    )
}
# fmt: on
BATTLE_SCORE = REGISTRY["BATTLE_SCORE"].name
#: The citation judge's measures (:func:`evaluate` computes them), in leaderboard order.
MEASURES: tuple[Measure, ...] = tuple(m for m in REGISTRY.values() if m.compute is not None)
MEASURE_NAMES: tuple[str, ...] = tuple(m.name for m in MEASURES)
_COMPUTE = {m.name: m.compute for m in REGISTRY.values() if m.compute is not None}
HEADLINE = "WEIGHTED_PRECISION"  # the measure runs are ranked by (TREC 2024 RAG support precision)


#: The measure each judge (``--judge``) ranks runs by: support precision, nugget recall, their F1.
JUDGE_HEADLINES = {"citation": HEADLINE, "nugget": "NUGGET_ALL", "argue": "NUGGET_F1"}
if not set(JUDGE_HEADLINES.values()) <= set(REGISTRY):
    raise ValueError("a judge's headline is not in the measure registry")


def judge_headline(judge: str, chosen: Optional[str] = None) -> str:
    """The measure a session of ``judge`` ranks runs by: ``chosen`` (``--headline``), which must be
    a measure of the registry, else the judge's own (:data:`JUDGE_HEADLINES`)."""
    if chosen is None:
        return JUDGE_HEADLINES.get(judge, HEADLINE)
    if chosen not in REGISTRY:
        raise InputError(
            "--headline", None, None, f"{chosen!r} is not a measure; expected one of {', '.join(REGISTRY)}"
        )
    return chosen


def headline_of(measures: Sequence[str], preferred: Optional[str] = None) -> str:
    """The ranking measure among ``measures``: ``preferred`` (a session's headline) when present, else
    :data:`HEADLINE` when present, else the first."""
    if preferred is not None and preferred in measures:
        return preferred
    return HEADLINE if HEADLINE in measures else measures[0]


def evaluate(report: Sequence[SentenceResult]) -> dict[str, float]:
    """All measures of one report, in registry order."""
    return {name: compute(report) for name, compute in _COMPUTE.items()}


def markdown_table() -> str:
    rows = ["| measure | definition |", "|---|---|"]
    rows += [f"| `{m.name}` | {m.description} |" for m in MEASURES]
    return "\n".join(rows)


if __name__ == "__main__":
    print(markdown_table())
