"""The measure registry: every leaderboard measure, defined once, with its description.

A measure maps one report (a run's answer to one topic) to a number; the ``all`` row of a run is
the mean over topics. "Sentences" are the report's sentences with non-blank text; "citations" are
the judged citations (after ``citations.max_per_sentence``). Support weights follow the TREC 2024
RAG support assessment: supported 1, partial 0.5, unsupported and missing 0. A citation whose
status the support model decided weighs, by default (``leaderboard.weights: expected``), its
*expected* weight under the model's probabilities (:mod:`judges.weights`): the leaderboard is
the judge's estimate of the human measure, and the expectation estimates a run's mean better
than the weights of thresholded statuses (bench/support_agreement.py).

``python -m judges.measures`` prints the Markdown table that the README embeds.
"""

from __future__ import annotations

from typing import Callable, NamedTuple, Sequence

from judges.vocabulary import WEIGHT


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
    placeholder matches (:mod:`judges.grounder`)."""

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
    weights: tuple[float, ...] | None = None  # per citation (judges.weights); None: the statuses' WEIGHT

    def citation_weights(self) -> tuple[float, ...]:
        return self.weights if self.weights is not None else tuple(WEIGHT[s] for s in self.statuses)


class Measure(NamedTuple):
    name: str
    description: str
    compute: Callable[[Sequence[SentenceResult]], float]


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


MEASURES: tuple[Measure, ...] = (
    Measure(
        "CITATION_ACCURACY",
        "Share of citations that resolve to a document with text (index in range, id known, text present).",
        citation_accuracy,
    ),
    Measure("CITATION_SUPPORT", "Share of citations judged `supported`.", citation_support),
    Measure(
        "AVG_CITATIONS", "Number of judged citations in the report (the `all` row averages over topics).", avg_citations
    ),
    Measure(
        "PERFECT_CITATIONS",
        "1 if the report has citations and every one is `supported`, else 0 (`all`: share of such topics).",
        perfect_citations,
    ),
    Measure(
        "SENTENCE_SUPPORT",
        "ALCE citation recall: share of sentences with at least one `supported` citation (uncited sentences count 0).",
        sentence_support,
    ),
    Measure(
        "WEIGHTED_PRECISION",
        "TREC 2024 RAG support precision: mean weight over citations (supported 1, partial 0.5, else 0; "
        "by default a status the support model decided weighs its expected weight, see `leaderboard.weights`).",
        weighted_precision,
    ),
    Measure(
        "WEIGHTED_RECALL",
        "TREC 2024 RAG support recall: mean over sentences of the best weight of its citations (uncited 0; "
        "weights as in WEIGHTED_PRECISION).",
        weighted_recall,
    ),
    Measure("CITED_SENTENCES", "Share of sentences with at least one citation.", cited_sentences),
    Measure(
        "GROUNDEDNESS",
        "Character-weighted share of the answer in sentences with a `supported` citation.",
        groundedness,
    ),
    Measure(
        "NUMERIC_GROUNDED",
        "Share of the answer's numbers (after normalisation: `$1.5M` = `1,500,000`) "
        "stated by a document the report cites; 1 when the answer states no number.",
        numeric_grounded,
    ),
    Measure(
        "ENTITY_GROUNDED",
        "Share of the answer's named entities (pattern-based: names, acronyms, brands, companies) "
        "found in a document the report cites; 1 when it names none.",
        entity_grounded,
    ),
    Measure(
        "PLACEHOLDER_FREE",
        '1 if no sentence matches a placeholder pattern (John Doe, TechCorp, "studies show", '
        "lorem ipsum, `[insert name]`...), else 0.",
        placeholder_free,
    ),
)

MEASURE_NAMES: tuple[str, ...] = tuple(m.name for m in MEASURES)
HEADLINE = "WEIGHTED_PRECISION"  # the measure runs are ranked by (TREC 2024 RAG support precision)


def headline_of(measures: Sequence[str]) -> str:
    """The ranking measure among ``measures``: :data:`HEADLINE` when present, else the first."""
    return HEADLINE if HEADLINE in measures else measures[0]


def evaluate(report: Sequence[SentenceResult]) -> dict[str, float]:
    """All measures of one report, in registry order."""
    return {m.name: m.compute(report) for m in MEASURES}


def markdown_table() -> str:
    rows = ["| measure | definition |", "|---|---|"]
    rows += [f"| `{m.name}` | {m.description} |" for m in MEASURES]
    return "\n".join(rows)


if __name__ == "__main__":
    print(markdown_table())
