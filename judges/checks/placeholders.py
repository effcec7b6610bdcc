"""Placeholders: text a generator left unfilled or made up generically, found by a pattern table.

``PATTERNS`` is data: one :class:`Pattern` (name, regular expression, category) per line. Callers
add their own with ``extra=`` (pattern objects or plain ``(name, regex, category)`` tuples, as a
workflow file would give them); every regular expression is compiled once and checked when it is
added, so a bad one fails with its name.

Categories:

* ``generic_name``: stand-in people (John Doe, Jane Doe, Joe Bloggs, Max Mustermann);
* ``placeholder_company``: stand-in companies (Acme, TechCorp, ExampleCo, Contoso, Initech...);
* ``vague_attribution``: claims credited to no one ("according to experts", "a recent study",
  "studies show", "some say");
* ``test_data``: lorem ipsum, example.com addresses, foo/bar, 555 phone numbers, XXX;
* ``template``: unfilled slots ("[insert name]", ``{{name}}``, ``<company>``), TODO/FIXME/TBD.

Deliberate omissions: ``bar`` alone (a normal word: only ``foo``, ``foobar`` and ``foo/bar``
count); a lone upper-case ``XXX`` (also the Roman numeral 30, ``Super Bowl XXX``: only ``XXXX``
and longer, lower-case ``xxx``, masks such as ``XXX-XXXX``, ``$XX.XX`` and ``XX%`` count);
``Jane Roe`` (a real legal pseudonym, Roe v. Wade).
"""

from __future__ import annotations

import re
from functools import lru_cache
from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple

from judges.checks.fold import re_lower


class Pattern(NamedTuple):
    """A placeholder pattern. ``needles``: lower-case strings one of which every match contains
    (its text lower-cased as ``(?i)`` reads it, see :func:`judges.checks.fold.re_lower`), so the
    regex is skipped on text that has none of them; empty: always run the regex."""

    name: str
    regex: str
    category: str
    needles: tuple[str, ...] = ()


class Placeholder(NamedTuple):
    """One match: ``text[start:end] == surface``."""

    name: str
    category: str
    surface: str
    start: int
    end: int


PATTERNS: tuple[Pattern, ...] = (
    # generic_name
    Pattern("john_doe", r"\b(?:John|Jane|Baby|Richard) Doe\b", "generic_name", ("doe",)),
    Pattern("joe_bloggs", r"\bJo(?:e|sephine) Bloggs\b", "generic_name", ("bloggs",)),
    Pattern("mustermann", r"\b(?:Max|Erika) Mustermann\b", "generic_name", ("mustermann",)),
    Pattern("john_q_public", r"\bJohn Q\.? Public\b", "generic_name", ("public",)),
    Pattern("joe_schmoe", r"\bJoe Sch?mo(?:e|e?s)\b", "generic_name", ("schmo", "scmo")),
    # placeholder_company
    Pattern("acme", r"\bAcme\b(?:\s+(?:Corp(?:oration)?|Inc|Co|Ltd|LLC)\b\.?)?", "placeholder_company", ("acme",)),
    Pattern("techcorp", r"\bTech ?Corp\b", "placeholder_company", ("tech",)),
    Pattern("exampleco", r"\bExample ?(?:Co|Corp|Inc|Company|Ltd)\b", "placeholder_company", ("example",)),
    Pattern(
        "fictional_company",
        r"\b(?:Contoso|Fabrikam|Initech|Globex|Widget ?Co|Northwind Traders)\b",
        "placeholder_company",
        ("contoso", "fabrikam", "initech", "globex", "widget", "northwind"),
    ),
    Pattern(
        "xyz_company", r"\b(?:XYZ|ABC) (?:Corp(?:oration)?|Company|Inc|Ltd)\b", "placeholder_company", ("xyz", "abc")
    ),
    Pattern("company_x", r"\bCompany [XYZ]\b", "placeholder_company", ("company",)),
    # vague_attribution
    Pattern(
        "according_to_experts",
        r"(?i)\baccording to (?:some |many |leading )?(?:experts|scientists|researchers|studies|sources)\b",
        "vague_attribution",
        ("according to",),
    ),
    Pattern(
        "experts_say",
        r"(?i)\b(?:experts|scientists|researchers) (?:say|agree|believe|suggest|claim)\b",
        "vague_attribution",
        ("experts", "scientists", "researchers"),
    ),
    Pattern(
        "a_recent_study",
        r"(?i)\b(?:a|one) (?:recent |new )?(?:study|survey|report)\b(?! (?:by|from|published|in|of) [A-Z])",
        "vague_attribution",
        ("study", "survey", "report"),
    ),
    Pattern(
        "studies_show",
        r"(?i)\b(?:studies|research|surveys) (?:have )?(?:show|shown|shows|suggest|suggests|found|indicates?)\b",
        "vague_attribution",
        ("studies", "research", "surveys"),
    ),
    Pattern(
        "some_say",
        r"(?i)\b(?:some|many) (?:people )?(?:say|believe|argue|claim)\b",
        "vague_attribution",
        ("some", "many"),
    ),
    Pattern(
        "it_is_said",
        r"(?i)\bit is (?:widely |often |commonly )?(?:said|believed|claimed|reported) that\b",
        "vague_attribution",
        ("it is",),
    ),
    # test_data
    Pattern("lorem_ipsum", r"(?i)\blorem ipsum\b", "test_data", ("lorem",)),
    Pattern("example_domain", r"(?i)\b(?:[\w.+-]+@)?example\.(?:com|org|net)\b", "test_data", ("example.",)),
    Pattern("test_email", r"(?i)\b[\w.+-]+@test\.com\b", "test_data", ("@test.com",)),
    Pattern("foo_bar", r"\bfoo\s*/\s*bar\b|\bfoo(?:bar|baz)?\b", "test_data", ("foo",)),
    Pattern("phone_555", r"\(?\b555\)?[-. ]\d{4}\b|\b\d{3}[-. ]555[-. ]\d{4}\b", "test_data", ("555",)),
    Pattern(
        "xxx", r"\b(?:X{4,}|x{3,})\b|\bX{2,}(?:[-.]X{2,})+\b|\$X+(?:[.,]X+)?\b|\bX{2,}%", "test_data", ("xx", "$x")
    ),
    Pattern("fake_address", r"\b123 (?:Main|Fake|Elm|Any) (?:St(?:reet)?|Ave(?:nue)?|Road)\b", "test_data", ("123 ",)),
    # template
    Pattern(
        "insert_slot",
        r"(?i)\[(?:insert|enter|add|your|placeholder|name of|company|date|todo)[^\]\n]*\]",
        "template",
        ("[",),
    ),
    Pattern("braces_slot", r"\{\{[^{}\n]*\}\}", "template", ("{{",)),
    Pattern("angle_slot", r"(?i)<(?:insert|your|name|company|placeholder)[^<>\n]*>", "template", ("<",)),
    Pattern("todo", r"\b(?:TODO|FIXME|TKTK|TBD)\b", "template", ("todo", "fixme", "tktk", "tbd")),
)


class PatternError(ValueError):
    """A placeholder pattern that cannot be used; the message names it."""


def as_pattern(item: Pattern | Mapping[str, str] | Sequence[str]) -> Pattern:
    """A :class:`Pattern` from a Pattern or a ``(name, regex, category)`` sequence."""
    if isinstance(item, Pattern):
        return item
    if isinstance(item, dict):
        unknown = set(item) - {"name", "regex", "category"}
        if unknown:
            raise PatternError(f"placeholder pattern: unknown keys {sorted(unknown)}")
        try:
            return Pattern(item["name"], item["regex"], item["category"])
        except KeyError as err:
            raise PatternError(f"placeholder pattern {item.get('name', '?')!r}: missing {err.args[0]!r}") from None
    if not isinstance(item, (tuple, list)) or len(item) != 3 or not all(isinstance(x, str) for x in item):
        raise PatternError(f"placeholder pattern must be (name, regex, category) strings, got {item!r}")
    return Pattern(*item)


@lru_cache(maxsize=256)
def _compile(pattern: Pattern) -> re.Pattern:
    try:
        return re.compile(pattern.regex)
    except re.error as err:
        raise PatternError(f"placeholder pattern {pattern.name!r}: {err}") from None


def pattern_table(
    extra: Iterable[Pattern | Mapping[str, str] | Sequence[str]] = (), *, base: Iterable[Pattern] = PATTERNS
) -> tuple[Pattern, ...]:
    """``base`` plus ``extra``, each compiled once (so a bad regex fails here, by name)."""
    table = tuple(base) + tuple(as_pattern(p) for p in extra)
    for p in table:
        _compile(p)
    return table


def _may_match(pattern: Pattern, lowered: str) -> bool:
    """The needle test of one pattern (the reference of :func:`_prepared`'s set test)."""
    return not pattern.needles or any(n in lowered for n in pattern.needles)


@lru_cache(maxsize=16)
def _prepared(table: tuple[Pattern, ...]) -> tuple[tuple[str, ...], tuple[tuple[Pattern, re.Pattern, frozenset], ...]]:
    """Every needle of ``table`` once, and each pattern with its regex and needle set: a text's
    needles are looked up once, not once per pattern (:func:`_may_match` gives the same)."""
    needles = tuple(sorted({n for p in table for n in p.needles}))
    return needles, tuple((p, _compile(p), frozenset(p.needles)) for p in table)


def find_placeholders(
    text: str,
    *,
    extra: Iterable[Pattern | Sequence[str]] = (),
    patterns: Iterable[Pattern] | None = None,
    categories: Iterable[str] | None = None,
) -> list[Placeholder]:
    """Every match of every pattern in ``text``, sorted by position.

    ``patterns`` replaces the built-in table, ``extra`` adds to it, ``categories`` keeps only
    patterns of those categories.
    """
    base = PATTERNS if patterns is None else patterns
    table = base if not extra and isinstance(base, tuple) else pattern_table(extra, base=base)
    needles, entries = _prepared(table)
    wanted = None if categories is None else frozenset(categories)
    found = []
    lowered = re_lower(text)
    present = {n for n in needles if n in lowered}
    for p, regex, its in entries:
        if (wanted is not None and p.category not in wanted) or (its and its.isdisjoint(present)):
            continue
        for m in regex.finditer(text):
            if m.end() > m.start():
                found.append(Placeholder(p.name, p.category, m.group(), m.start(), m.end()))
    found.sort(key=lambda h: (h.start, h.end, h.name))
    return found
