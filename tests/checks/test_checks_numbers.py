"""Numeric grounding: extraction, normalisation, matching tables and span invariants."""

from __future__ import annotations

import functools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from judges.checks import numbers as numbers_module
from judges.checks.numbers import NumberIndex, extract_numbers

# (claim, source): every number of the claim must be found in the source.
MATCH = [
    ("$1.5M", "1,500,000"),
    ("$1.5M", "1.5 million dollars"),
    ("1.5 million", "1500000"),
    ("1.5 million", "$1.5M"),
    ("15%", "15 percent"),
    ("15%", "15 per cent"),
    ("15 percent", "15%"),
    ("15%", "15-percent"),
    ("15 %", "15 percentage points"),
    ("3.2 billion", "3,200,000,000"),
    ("3.2bn", "3.2 billion"),
    ("2K", "2,000"),
    ("10k", "10,000 runners"),
    ("4.5 trillion", "4,500,000,000,000"),
    ("$2.3 million", "2.3 million US dollars"),
    ("USD 5", "$5"),
    ("5 dollars", "$5"),
    ("€20", "20 euros"),
    ("EUR 20", "€20"),
    ("20 EUR", "€20"),
    ("£7", "GBP 7"),
    ("$5", "5"),
    ("2019", "in 2019"),
    ("2019", "the 2019 season"),
    ("1990s", "in the 1990s"),
    ("1990's", "the 1990s"),
    ("19th century", "the 19th-century"),
    ("15", "fifteen"),
    ("25 players", "twenty-five players"),
    ("200,000", "two hundred thousand"),
    ("1 million", "a million"),
    ("12", "a dozen"),
    ("3", "three"),
    ("15%", "fifteen percent"),
    ("15%", "a rate of 0.15"),
    ("15%", "the probability is 0.15"),
    ("10%", "10-20%"),
    ("20%", "10-20%"),
    ("$10 million", "$10-20 million"),
    ("20 million", "between 10 and 20 million"),
    ("10 million", "between 10 and 20 million"),
    ("2020", "2019-20 season"),
    ("2020", "published 2020-03-15"),
    ("1,234.5", "1234.5"),
    (".5", "0.5"),
    ("42", "(42 km)"),
    ("5km", "5 kilometres"),
    ("1.5", "1.50"),
    ("pre-2020", "2020"),
    ("mid-1990s", "the 1990s"),
    ("12", "12%"),  # a bare claimed number may leave out the source's unit
    ("$1.5M", "$1.5 mn"),
    ("1,000", "one thousand"),
]

# (claim, source): the claim's (first) number must NOT be found in the source.
NO_MATCH = [
    ("12%", "15%"),
    ("2019", "2020"),
    ("1.5M", "15M"),
    ("1.5", "15"),
    ("$5", "$50"),
    ("15%", "0.15"),  # a bare decimal is not a fraction
    ("15%", "15"),  # a claimed percent needs a percent (or a fraction) in the source
    ("15%", "$15"),
    ("$5", "€5"),
    ("$5", "5%"),
    ("1.5 million", "1.5 billion"),
    ("2K", "2"),
    ("1,500", "1.5"),
    ("3.2 billion", "3.2 million"),
    ("10%", "10-fold"),
    ("15%", "fraction 1.5"),  # only decimals between 0 and 1 are fractions
    ("2021", "2012"),
    ("100", "1000"),
    ("7", "7.5"),
    ("19", "COVID-19"),  # part of a name in the source
    ("3", "[3]"),  # a citation marker in the source
    ("5", "Section 5"),
    ("1963", "63"),
    ("$5m", "5m tall"),
    ("10k", "10"),
]


@pytest.mark.parametrize("claim, source", MATCH)
def test_numbers_that_match(claim, source):
    numbers = extract_numbers(claim)
    assert numbers, f"nothing extracted from {claim!r}"
    index = NumberIndex.of_text(source)
    for n in numbers:
        assert index.contains(n), f"{n.describe()} not found in {source!r}: {extract_numbers(source, words=True)}"


@pytest.mark.parametrize("claim, source", NO_MATCH)
def test_numbers_that_do_not_match(claim, source):
    numbers = extract_numbers(claim)
    assert numbers, f"nothing extracted from {claim!r}"
    assert not NumberIndex.of_text(source).contains(numbers[0])


def test_tables_are_large_enough():
    assert len(MATCH) >= 40 and len(NO_MATCH) >= 20


@pytest.mark.parametrize(
    "text, expected",
    [
        ("$1.5M", [("$1.5M", 1_500_000.0, "currency", "$")]),
        ("US$5 and 5 USD", [("US$5", 5.0, "currency", "$"), ("5 USD", 5.0, "currency", "$")]),
        ("Rs. 500", [("Rs. 500", 500.0, "currency", "₹")]),
        ("15% of 1,500,000", [("15%", 15.0, "percent", ""), ("1,500,000", 1_500_000.0, "plain", "")]),
        ("in 2019", [("2019", 2019.0, "year", "")]),
        ("2,019 cars", [("2,019", 2019.0, "plain", "")]),
        ("10-20%", [("10", 10.0, "percent", ""), ("20%", 20.0, "percent", "")]),
        ("10–20", [("10", 10.0, "plain", ""), ("20", 20.0, "plain", "")]),
        ("10 to 20 million", [("10", 10e6, "plain", ""), ("20 million", 20e6, "plain", "")]),
        ("$10-20 million", [("$10", 10e6, "currency", "$"), ("20 million", 20e6, "currency", "$")]),
        ("rose 12% to $1.5 million", [("12%", 12.0, "percent", ""), ("$1.5 million", 1.5e6, "currency", "$")]),
        ("from £5 to $7 million", [("£5", 5.0, "currency", "£"), ("$7 million", 7e6, "currency", "$")]),
        ("2019-20", [("2019", 2019.0, "year", ""), ("20", 2020.0, "year", "")]),
        ("1999-00", [("1999", 1999.0, "year", ""), ("00", 2000.0, "year", "")]),
        ("a 5m wall", [("5", 5.0, "plain", "")]),
        ("3.2 bn", [("3.2 bn", 3.2e9, "plain", "")]),
        ("the 1.5-million mark", [("1.5-million", 1.5e6, "plain", "")]),
    ],
)
def test_extraction_table(text, expected):
    got = [(n.surface, n.value, n.kind, n.unit) for n in extract_numbers(text)]
    assert got == expected


@pytest.mark.parametrize(
    "text",
    [
        "As shown before [1].",
        "As shown before [1, 2] and [3-5].",
        "See [doc 2].",
        "Three reasons: (1) cost and (2) time.",
        "1. First item\n2) Second item",
        "See Section 3 and Table 2, page 5, Fig. 4, § 7, Chapter 9, Appendix 2.",
        "COVID-19, H1N1, MP3, G20 and x86 are names.",
        "Version 3.2.1 of the tool.",
        "Meet at 10:30 with a 3:1 ratio.",
        "Half is 1/2; the date 01/02/2020.",
        "Visit https://example.org/page/2019 or mail a1@b2.com.",
        "Back in the '90s.",
        "Passage ID 3 says so.",
        "No numbers at all here.",
    ],
)
def test_things_that_are_not_claims(text):
    assert extract_numbers(text) == []


def test_number_words_only_when_asked():
    text = "One of the fifteen members"
    assert extract_numbers(text) == []
    assert [(n.surface, n.value) for n in extract_numbers(text, words=True)] == [("One", 1.0), ("fifteen", 15.0)]


def test_a_alone_is_not_a_number():
    assert extract_numbers("a cat and an owl", words=True) == []
    assert [n.value for n in extract_numbers("a million cats", words=True)] == [1e6]


def test_fraction_rule_is_narrow():
    (n,) = extract_numbers("a rate of 0.15")
    assert n.fraction and n.kind == "plain" and n.value == 0.15
    assert not extract_numbers("0.15 metres")[0].fraction
    assert not extract_numbers("a rate of 1.5")[0].fraction  # not between 0 and 1
    # and the other way round: a claimed fraction matches a source percent
    assert NumberIndex.of_text("15%").contains(n)


def test_relative_tolerance():
    (claim,) = extract_numbers("about 1.5 million")
    index = NumberIndex.of_text("1,523,000 people")
    assert not index.contains(claim)
    assert index.contains(claim, rel_tol=0.02)
    assert not index.contains(claim, rel_tol=0.01)
    (pct,) = extract_numbers("15%")
    assert NumberIndex.of_text("15.2%").contains(pct, rel_tol=0.02)
    assert not NumberIndex.of_text("15.2").contains(pct, rel_tol=0.02)  # kinds still apply


def test_source_index_keeps_range_ends_as_written():
    # Read with number words, "5" is the start of a range (5 million); read without, a bare 5.
    (claim,) = extract_numbers("5 to one million")
    assert claim.value == 5.0
    index = NumberIndex.of_text("5 to one million")
    assert index.contains(claim)
    assert index.contains(extract_numbers("5 million")[0])


def test_relative_tolerance_agrees_with_isclose_at_the_edge():
    # isclose(100, 111, rel_tol=0.1) holds because the tolerance scales with the larger value.
    (claim,) = extract_numbers("100 cars")
    assert NumberIndex.of_text("111 cars").contains(claim, rel_tol=0.1)
    assert not NumberIndex.of_text("112 cars").contains(claim, rel_tol=0.1)


def test_values_are_exact_for_decimal_multipliers():
    # 3.2 * 1e9 and 0.15 * 100 are not exact in binary floating point; Decimal scaling is.
    assert extract_numbers("3.2 billion")[0].value == 3_200_000_000.0
    assert extract_numbers("4.35 million")[0].value == 4_350_000.0


def test_describe_names_surface_kind_and_value():
    assert extract_numbers("$1.5M")[0].describe() == "'$1.5M' (currency $ 1500000)"


NUMBERISH = st.text(alphabet="0123456789.,%$€£-–— kKmMbBnNst'[]()/:x§aeiouyrfwhvl\nUSDEURpcn", max_size=60)


@settings(max_examples=400, deadline=None)
@given(st.one_of(st.text(max_size=80), NUMBERISH), st.booleans())
def test_extraction_never_crashes_and_spans_slice_the_text(text, words):
    numbers = extract_numbers(text, words=words)
    previous_end = 0
    for n in numbers:
        assert 0 <= n.start < n.end <= len(text)
        assert text[n.start : n.end] == n.surface
        assert n.start >= previous_end  # in order, never overlapping
        previous_end = n.end
        assert n.kind in ("percent", "currency", "year", "plain")
        assert n.value >= 0 and n.value == n.value  # no negatives, no NaN
    NumberIndex(numbers)  # indexing never fails either


@settings(max_examples=200, deadline=None)
@given(NUMBERISH)
def test_every_number_is_found_in_its_own_text(text):
    index = NumberIndex.of_text(text)
    for n in extract_numbers(text):
        assert index.contains(n), n


# -- The fast scanner (_matches: the pattern tried only where a match may start) is exactly the
# reference (_PATTERN.finditer, tried everywhere).

PIECES = st.sampled_from(
    [
        "five",
        "Twenty-one",
        "a million",
        "an eighth",
        "hundred",
        "fifteen",
        "first",
        "percent",
        "USD",
        "Rs.",
        "US$",
        "NZ$",
        "€",
        "http://x.org/5",
        "www.a1.com",
        "e.g@x1.com",
        "COVID-19",
        "H1N1",
        "pre-2020",
        "2020-01-15",
        "1990s",
        "'90s",
        "[1, 2]",
        "(3)",
        "\n2. ",
        "10:30",
        "1/2",
        "3.2.1",
        "İ",
        "ı",
        "K",
        "ſix",
        "²",
        "٣",
        "_",
        "-",
        " ",
        ". ",
    ]
)
SCANNED = st.one_of(
    st.text(max_size=80),
    NUMBERISH,
    st.lists(st.one_of(PIECES, NUMBERISH), max_size=12).map("".join),
)


def _spans(matches):
    return [(m.span(), m.lastgroup) for m in matches]


@settings(max_examples=1500, deadline=None)
@given(SCANNED)
def test_the_fast_scanner_finds_exactly_the_reference_matches(text):
    assert _spans(numbers_module._matches(text)) == _spans(numbers_module._PATTERN.finditer(text))


@functools.cache
def real_texts() -> tuple[str, ...]:
    """Real text to scan: every line of the bundled corpora and runs (and the corpora's texts), and two
    WiCE files of ../shared/data when present."""
    import glob
    import json

    from helpers import ROOT, SHARED

    files = sorted(
        glob.glob(str(ROOT / "datasets" / "*" / "corpus.jsonl")) + glob.glob(str(ROOT / "runs" / "*" / "*.jsonl"))
    )
    files += sorted(glob.glob(str(SHARED / "wice" / "**" / "*.jsonl"), recursive=True))[:2]
    texts = [line for path in files for line in open(path, encoding="utf-8")]
    texts += [json.loads(t).get("text", "") for t in texts if t.startswith('{"doc_id"')]
    assert texts
    return tuple(texts)


def test_the_fast_scanner_on_real_documents():
    for text in real_texts():
        assert _spans(numbers_module._matches(text)) == _spans(numbers_module._PATTERN.finditer(text))


# -- The Numba candidate scanner (judges.checks.kernel) is exactly the Python reference.


@settings(max_examples=1500, deadline=None)
@given(st.one_of(SCANNED, st.lists(st.one_of(PIECES, NUMBERISH, st.text(max_size=6)), max_size=30).map(" ".join)))
def test_the_start_kernel_is_exactly_the_reference(text):
    assert numbers_module._starts(text) == numbers_module._starts_reference(text)


def test_the_start_kernel_on_real_documents():
    for text in real_texts():
        assert numbers_module._starts(text) == numbers_module._starts_reference(text)


@settings(max_examples=1000, deadline=None)
@given(
    st.one_of(
        SCANNED,
        st.lists(st.sampled_from(["5", " to ", "one million", "2019-20", "%", "$3", "-", "bn"]), max_size=8).map(
            "".join
        ),
    )
)
def test_a_source_index_is_every_mention_read_with_and_without_the_range_rules(text):
    """``NumberIndex.of_text`` reads only the mentions the range rules change twice: its index
    equals the one of both readings in full (the reference)."""
    raws = numbers_module._raw_mentions(text, True)
    reference = NumberIndex(
        numbers_module._numbers(text, numbers_module._inherit(text, raws)) + numbers_module._numbers(text, raws)
    )
    index = NumberIndex.of_text(text)
    assert (index.amounts, index.percents) == (reference.amounts, reference.percents)


def test_the_kernel_refuses_needles_it_cannot_dispatch():
    from judges.checks.kernel import needle_table

    with pytest.raises(ValueError, match="at least two ASCII"):
        needle_table([("a", 0)])
    with pytest.raises(ValueError, match="at least two ASCII"):
        needle_table([("€uro", 0)])


_WINDOW_PIECES = st.sampled_from(
    list(numbers_module._STRUCTURE_WORDS)
    + [
        "SECTION",
        "Fig.",
        "P.",
        "Id",
        "ſtep",
        "ıd",
        "§§",
        " ",
        "  ",
        "\n",
        "\t",
        "\x1c",
        "\u2003",
        "x",
        "_",
        "-",
        "(",
        "5",
    ]
)


@settings(max_examples=2000, deadline=None)
@given(st.one_of(st.lists(_WINDOW_PIECES, max_size=6).map("".join), st.text(max_size=16)))
def test_the_structure_test_is_the_regex_search(window):
    window = window[-16:]  # the window is the 16 characters before a number
    assert numbers_module._structure_before(window) == (numbers_module._STRUCTURE.search(window) is not None)
