"""Deterministic grounding checks for RAG answers: no model, milliseconds per answer.

For tests of a RAG system::

    from judges.checks import numeric_grounded, grounded, no_placeholders, cites_sources, CheckSuite

    result = numeric_grounded(answer, docs)       # docs: str, {"text": ...}, .text objects, or a list
    assert result.passed, result.explain()
    assert CheckSuite().run(answer, docs).passed

For a judge checking many sentences against the same documents (prepare each once)::

    from judges.checks import Claim, Source, missing

    doc = Source(text, title)
    numbers_missing, entities_missing = missing(Claim(sentence, context=answer), doc)

Modules: ``numbers`` (numeric extraction and matching), ``entities`` (pattern-based names),
``placeholders`` (pattern table), ``overlap`` (n-gram overlap), ``sources`` (prepared sources),
``grounding`` (the per-sentence primitive), ``answer`` (the four checks), ``suite``
(``CheckSuite``), ``result`` (``CheckResult``), ``fold`` (comparison forms of text).
"""

from judges.checks.answer import cites_sources, grounded, no_placeholders, numeric_grounded
from judges.checks.entities import Entity, extract_entities
from judges.checks.grounding import Claim, Missing, missing
from judges.checks.numbers import Number, extract_numbers
from judges.checks.overlap import Overlap, overlap
from judges.checks.placeholders import PATTERNS, Pattern, Placeholder, find_placeholders
from judges.checks.result import CheckResult, SuiteResult
from judges.checks.sources import Source, as_sources
from judges.checks.suite import CHECKS, CheckSuite

__all__ = [
    "CHECKS",
    "CheckResult",
    "CheckSuite",
    "Claim",
    "Entity",
    "Missing",
    "Number",
    "Overlap",
    "PATTERNS",
    "Pattern",
    "Placeholder",
    "Source",
    "SuiteResult",
    "as_sources",
    "cites_sources",
    "extract_entities",
    "extract_numbers",
    "find_placeholders",
    "grounded",
    "missing",
    "no_placeholders",
    "numeric_grounded",
    "overlap",
]
