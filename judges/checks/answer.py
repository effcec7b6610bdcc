"""The four answer-level checks, each returning a :class:`~judges.checks.result.CheckResult`.

Every option is keyword-only, so a misspelled option fails with its name (``TypeError``).

* :func:`numeric_grounded`: every number the answer states is in some source;
* :func:`grounded`: every entity the answer names is in some source;
* :func:`no_placeholders`: no placeholder text (generic names, "studies show", lorem ipsum...);
* :func:`cites_sources`: the answer shares enough word n-grams with its sources.

Sources are a string, a dict with ``text`` (and ``title``), an object with ``.text``, a
:class:`~judges.checks.sources.Source`, or a list of these (:func:`~judges.checks.sources.as_sources`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

from judges.checks.entities import extract_entities
from judges.checks.numbers import extract_numbers
from judges.checks.overlap import overlap
from judges.checks.placeholders import Pattern, find_placeholders
from judges.checks.result import CheckResult
from judges.checks.sources import Source, as_sources

METRICS = ("containment", "jaccard")


Item = TypeVar("Item")


def _first_source(sources: list[Source], has: Callable[[Source, Item], bool], item: Item) -> int | None:
    """Index of the first source that ``has`` ``item``, else None."""
    return next((i for i, src in enumerate(sources) if has(src, item)), None)


def _score(found: int, total: int) -> float:
    return found / total if total else 1.0


def _locate(name: str, items, sources: list[Source], has, row, what, nothing: str, options: dict) -> CheckResult:
    """Check ``name``: pass when every item is in a source. Its evidence: ``items`` split into matched rows (with
    the index of the first source that ``has`` them) and missing rows, the check's ``options`` and the number of
    sources; a reason per missing item (or ``nothing`` when there are no items)."""
    matched, missing, reasons = [], [], []
    for item in items:
        where = _first_source(sources, has, item)
        r = row(item)
        if where is None:
            missing.append(r)
            reasons.append(f"{what(item)} at {item.start}-{item.end} is in no source")
        else:
            matched.append({**r, "source": where})
    if not matched and not missing:
        reasons.append(nothing)
    return CheckResult(
        name=name,
        passed=not missing,
        score=_score(len(matched), len(matched) + len(missing)),
        reasons=reasons,
        evidence={"matched": matched, "missing": missing, **options, "sources": len(sources)},
    )


def numeric_grounded(answer: str, sources: Any, *, rel_tol: float = 0.0, number_words: bool = False) -> CheckResult:
    """Pass when every number in ``answer`` is stated by at least one source.

    ``rel_tol``: relative tolerance (0 = equal after normalisation). ``number_words``: also
    check numbers the answer writes as words (``fifteen``); sources are always read with words.
    See :mod:`judges.checks.numbers` for what counts as a number and when two are equal.
    """
    if rel_tol < 0:
        raise ValueError(f"rel_tol must be >= 0, got {rel_tol}")
    prepared = as_sources(sources)
    return _locate(
        "numeric_grounded",
        extract_numbers(answer, words=number_words),
        prepared,
        lambda s, n: s.numbers.contains(n, rel_tol),
        lambda n: {
            "surface": n.surface,
            "value": n.value,
            "kind": n.kind,
            "unit": n.unit,
            "start": n.start,
            "end": n.end,
        },
        lambda n: f"number {n.describe()}",
        "no numbers to check",
        {"rel_tol": rel_tol},
    )


def grounded(
    answer: str,
    sources: Any,
    *,
    fuzzy: float | None = None,
    partial: bool = True,
    single_words: bool = False,
) -> CheckResult:
    """Pass when every entity named in ``answer`` is found in at least one source.

    ``fuzzy``: difflib ratio threshold for misspelled names (off by default). ``partial``: a
    multi-word name is also found by one distinctive word (on by default). ``single_words``:
    also check lone capitalised words (off by default). See :mod:`judges.checks.entities`.
    """
    if fuzzy is not None and not 0.0 < fuzzy <= 1.0:
        raise ValueError(f"fuzzy must be in (0, 1] or None, got {fuzzy}")
    prepared = as_sources(sources)
    return _locate(
        "grounded",
        extract_entities(answer, context=answer, single_words=single_words),
        prepared,
        lambda s, e: s.entities.contains(e, fuzzy, partial),
        lambda e: {"surface": e.surface, "kind": e.kind, "start": e.start, "end": e.end},
        lambda e: f"entity {e.surface!r} ({e.kind})",
        "no entities to check",
        {"fuzzy": fuzzy, "partial": partial, "single_words": single_words},
    )


def no_placeholders(
    answer: str,
    *,
    extra: Iterable[Pattern | Sequence[str]] = (),
    patterns: Iterable[Pattern] | None = None,
    categories: Iterable[str] | None = None,
) -> CheckResult:
    """Pass when ``answer`` matches no placeholder pattern (score 1), else fail (score 0).

    ``extra`` adds ``(name, regex, category)`` patterns, ``patterns`` replaces the built-in
    table, ``categories`` keeps only some categories. See :mod:`judges.checks.placeholders`.
    """
    hits = find_placeholders(answer, extra=extra, patterns=patterns, categories=categories)
    return CheckResult(
        name="no_placeholders",
        passed=not hits,
        score=0.0 if hits else 1.0,
        reasons=[f"{h.category} {h.name}: {h.surface!r} at {h.start}-{h.end}" for h in hits],
        evidence={"found": [h._asdict() for h in hits]},
    )


def cites_sources(
    answer: str,
    sources: Any,
    *,
    threshold: float = 0.1,
    n: int = 2,
    metric: str = "containment",
) -> CheckResult:
    """Pass when the answer's word n-gram overlap with its sources is at least ``threshold``.

    ``metric`` is ``containment`` (share of the answer's n-grams found in the sources; the
    default, independent of source length) or ``jaccard``. See :mod:`judges.checks.overlap`.
    """
    if metric not in METRICS:
        raise ValueError(f"metric must be one of {METRICS}, got {metric!r}")
    if not 0.0 <= threshold <= 1.0:
        raise ValueError(f"threshold must be in [0, 1], got {threshold}")
    prepared = as_sources(sources)
    o = overlap(answer, [s.searchable for s in prepared], n)
    value = getattr(o, metric)
    reasons = []
    if value < threshold:
        reasons.append(
            f"{metric} of word {n}-grams is {value:.3f}, below {threshold:g} "
            f"({o.shared} of {o.answer_ngrams} answer {n}-grams in the sources)"
        )
    return CheckResult(
        name="cites_sources",
        passed=value >= threshold,
        score=value,
        reasons=reasons,
        evidence={**o._asdict(), "metric": metric, "threshold": threshold, "n": n, "sources": len(prepared)},
    )
