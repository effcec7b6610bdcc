"""Placeholder patterns: what is flagged, what is not, and adding patterns."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from judges.checks.fold import re_lower
from judges.checks.placeholders import PATTERNS, Pattern, PatternError, _may_match, find_placeholders, pattern_table


@pytest.mark.parametrize(
    "text, name, category",
    [
        ("The plaintiff, John Doe, sued.", "john_doe", "generic_name"),
        ("Jane Doe was listed.", "john_doe", "generic_name"),
        ("Ask Joe Bloggs.", "joe_bloggs", "generic_name"),
        ("Signed: Max Mustermann", "mustermann", "generic_name"),
        ("Acme Corp reported growth.", "acme", "placeholder_company"),
        ("Products from Acme sold out.", "acme", "placeholder_company"),
        ("TechCorp hired 50 people.", "techcorp", "placeholder_company"),
        ("ExampleCo was founded in 2001.", "exampleco", "placeholder_company"),
        ("Contoso opened an office.", "fictional_company", "placeholder_company"),
        ("XYZ Corporation expanded.", "xyz_company", "placeholder_company"),
        ("Company X outsold Company Y.", "company_x", "placeholder_company"),
        ("According to experts, it works.", "according_to_experts", "vague_attribution"),
        ("Experts say it is safe.", "experts_say", "vague_attribution"),
        ("A recent study found a link.", "a_recent_study", "vague_attribution"),
        ("Studies show that sleep helps.", "studies_show", "vague_attribution"),
        ("Research suggests otherwise.", "studies_show", "vague_attribution"),
        ("Some say the end is near.", "some_say", "vague_attribution"),
        ("It is widely believed that tea helps.", "it_is_said", "vague_attribution"),
        ("Lorem ipsum dolor sit amet.", "lorem_ipsum", "test_data"),
        ("Write to info@example.com today.", "example_domain", "test_data"),
        ("See example.org for details.", "example_domain", "test_data"),
        ("Mail test@test.com.", "test_email", "test_data"),
        ("Set foo to 3.", "foo_bar", "test_data"),
        ("Use foo/bar as the path.", "foo_bar", "test_data"),
        ("Call 555-0199 now.", "phone_555", "test_data"),
        ("Call (212) 555-0199 now.", "phone_555", "test_data"),
        ("Call 212-555-0199 now.", "phone_555", "test_data"),
        ("The code is XXXX.", "xxx", "test_data"),
        ("Phone XXX-XXXX.", "xxx", "test_data"),
        ("It costs $XX.XX.", "xxx", "test_data"),
        ("Growth was XX% last year.", "xxx", "test_data"),
        ("He lives at 123 Main Street.", "fake_address", "test_data"),
        ("Dear [Insert Name], thanks.", "insert_slot", "template"),
        ("Dear [your name], thanks.", "insert_slot", "template"),
        ("Hello {{name}}!", "braces_slot", "template"),
        ("Hello <your name>!", "angle_slot", "template"),
        ("TODO: add the figures.", "todo", "template"),
        ("Release date TBD.", "todo", "template"),
    ],
)
def test_flagged(text, name, category):
    hits = find_placeholders(text)
    assert [(h.name, h.category) for h in hits][:1] == [(name, category)], hits


@pytest.mark.parametrize(
    "text",
    [
        "She passed the bar exam.",  # "bar" alone is a word
        "They won Super Bowl XXX.",  # Roman numeral 30
        "A study by Harvard researchers found a link.",  # attributed
        "A recent study published in Nature found a link.",
        "John Doerr invested early.",  # a real name that starts like one
        "Call 555 people.",
        "For example, see the report.",
        "Jane Roe was the pseudonym in Roe v. Wade.",
        "The Acmeist poets wrote in Russian.",
        "Some people live there.",
        "An example domain is a domain used in docs.",
    ],
)
def test_not_flagged(text):
    assert find_placeholders(text) == []


def test_table_is_data():
    assert all(isinstance(p, Pattern) for p in PATTERNS)
    assert len({p.name for p in PATTERNS}) == len(PATTERNS)
    assert {p.category for p in PATTERNS} == {
        "generic_name",
        "placeholder_company",
        "vague_attribution",
        "test_data",
        "template",
    }


def test_extra_patterns_as_tuples_dicts_or_patterns():
    text = "Our partner Widget Works and Globex Prime."
    assert [h.name for h in find_placeholders(text)] == ["fictional_company"]  # Globex
    extra = [
        ("widget_works", r"\bWidget Works\b", "placeholder_company"),
        {"name": "prime", "regex": r"\bPrime\b", "category": "custom"},
        Pattern("partner", r"\bpartner\b", "custom"),
    ]
    hits = find_placeholders(text, extra=extra)
    assert [(h.name, h.surface) for h in hits] == [
        ("partner", "partner"),
        ("widget_works", "Widget Works"),
        ("fictional_company", "Globex"),
        ("prime", "Prime"),
    ]


def test_patterns_replace_and_categories_filter():
    text = "John Doe says lorem ipsum."
    assert [h.name for h in find_placeholders(text, categories=["test_data"])] == ["lorem_ipsum"]
    only = [Pattern("says", r"\bsays\b", "custom")]
    assert [h.name for h in find_placeholders(text, patterns=only)] == ["says"]


@pytest.mark.parametrize(
    "bad, message",
    [
        (("broken", r"(unclosed", "custom"), "'broken'"),
        (("too", "few"), "(name, regex, category)"),
        ({"name": "x", "regex": "x"}, "missing 'category'"),
        ({"name": "x", "regex": "x", "category": "c", "flags": "i"}, "unknown keys ['flags']"),
    ],
)
def test_bad_extra_patterns_fail_with_their_name(bad, message):
    with pytest.raises(PatternError) as err:
        pattern_table([bad])
    assert message in str(err.value)


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(max_size=100), st.text(alphabet="JohnDeAcmXx5- .[]{}<>@examplecomfoobarTOD", max_size=100)))
def test_spans_slice_the_text(text):
    for h in find_placeholders(text):
        assert text[h.start : h.end] == h.surface and h.end > h.start


@pytest.mark.parametrize("pattern", [p for p in PATTERNS if p.needles], ids=lambda p: p.name)
def test_every_match_contains_one_of_its_needles(pattern):
    """The needles only skip a regex on text it cannot match: whatever text the regex matches,
    generated from the regex itself, contains a needle."""
    compiled = re.compile(pattern.regex)

    @settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.from_regex(compiled))
    def check(text):
        for m in compiled.finditer(text):
            assert _may_match(pattern, re_lower(m.group())), (pattern.name, m.group())

    check()


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "John Doe",
                "ſtudies show",
                "STUDIES SHOW",
                "xx",
                "$X",
                "Acme",
                " ",
                "according to experts",
                "Tech Corp",
                "[insert name]",
                "İt is said that",
                "555-1234",
                "lorem ipsum",
                "K",
                "a",
            ]
        ),
        max_size=8,
    ).map(" ".join)
)
def test_needles_never_change_what_is_found(text):
    without = [p._replace(needles=()) for p in PATTERNS]
    assert find_placeholders(text) == find_placeholders(text, patterns=without)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(sorted({n for p in PATTERNS for n in p.needles} | {"x", " ", "İ", "ſ", "."})), max_size=6)
)
def test_the_needle_set_test_is_the_per_pattern_test(pieces):
    """find_placeholders looks each needle up once (_prepared); a pattern then runs exactly when
    _may_match says it may."""
    from judges.checks.placeholders import _prepared

    lowered = re_lower("".join(pieces))
    needles, entries = _prepared(PATTERNS)
    present = {n for n in needles if n in lowered}
    for p, _, its in entries:
        assert (not its or not its.isdisjoint(present)) == _may_match(p, lowered), p.name
