import pytest
from hypothesis import given
from hypothesis import strategies as st

from judges.text.segment import passage_windows, split_sentences


def sentences(text):
    return [text[s:e] for s, e in split_sentences(text)]


def test_abbreviations_decimals_initials_urls_do_not_split():
    text = (
        "Dr. J. R. Smith measured 3.5 km of coast, i.e. approx. five miles. "
        "See https://example.org/a.b for data. The U.S. Navy agreed! Was it “true?” Yes."
    )
    assert sentences(text) == [
        "Dr. J. R. Smith measured 3.5 km of coast, i.e. approx. five miles.",
        "See https://example.org/a.b for data.",
        "The U.S. Navy agreed!",
        "Was it “true?”",
        "Yes.",
    ]


def test_blank_lines_split_and_whitespace_is_trimmed():
    assert sentences("  Title line\n\nBody text here.  Next one.\n") == ["Title line", "Body text here.", "Next one."]


def test_empty_text_has_no_sentences():
    assert split_sentences("") == [] and split_sentences("   \n ") == []


@given(st.text(alphabet='ab .!?\n"', max_size=80))
def test_spans_are_ordered_trimmed_and_in_bounds(text):
    last = 0
    for s, e in split_sentences(text):
        assert last <= s < e <= len(text)
        assert not text[s].isspace() and not text[e - 1].isspace()
        last = e
    # every non-space character is inside some sentence
    covered = set()
    for s, e in split_sentences(text):
        covered.update(range(s, e))
    assert all(i in covered for i, ch in enumerate(text) if not ch.isspace())


def test_windows_cover_every_sentence_and_overlap():
    assert passage_windows(3, 6, 3) == [(0, 3)]
    assert passage_windows(10, 4, 2) == [(0, 4), (2, 6), (4, 8), (6, 10)]
    assert passage_windows(11, 4, 2)[-1] == (7, 11)
    for n in range(1, 40):
        w = passage_windows(n, 6, 3)
        assert w[0][0] == 0 and w[-1][1] == n
        assert all(a < b for a, b in w)
        # any two adjacent sentences share a window
        assert all(any(a <= i and i + 2 <= b for a, b in w) for i in range(n - 1))


def test_windows_reject_bad_settings():
    with pytest.raises(ValueError):
        passage_windows(5, 0, 1)


# ---------------------------------------------------------------------------------------------
# Exactness of the Numba boundary scan against the regex implementation.

import re
import sys

from hypothesis import settings

from judges.text import kernel as scan
from judges.text.segment import split_sentences_reference

split_sentences("Warm up. The kernels compile now.")  # no Hypothesis example pays for it


def original_split(text):
    """The oracle: the module's readable regex implementation."""
    return split_sentences_reference(text)


def assert_exact(text):
    expected = original_split(text)
    got = split_sentences(text)
    assert got == expected
    assert all(type(s) is int and type(e) is int for s, e in got)
    assert split_sentences_reference(text) == expected


EXAMPLES = [
    "",
    ".",
    "..",
    "a.",
    ".a",
    "A. B",
    "a. b",
    "a. B",
    "Dr. Smith",
    "dr. smith",
    "DR. Smith",
    "e.g. This",
    "E.G. This",
    "Ph.D. Student",
    "U.S. Navy",
    "U.S.A. Navy",
    "J. R. Smith",
    "(J. Smith",
    "“J. Smith",
    "x. 1",
    "1. Two",
    "3.5 km. Next",
    "approx. Five",
    "approx.five",
    "Go... Now",
    "Go.. Now",
    "Really?! Yes",
    "Yes!. No",
    "Yes.! No",
    "He said “yes.” Then",
    "(see above.) Then",
    "[1.] Next",
    "end.\n\nNew",
    "a\n \t\nb",
    "a\n\n\nb",
    "a\n\t \n\n \nb",
    "a.\n\nb",
    "x.”\n",
    "Visit https://example.org/a.b for it. Ok.",
    "word. “Quoted",
    "word. ‘quoted",
    "word. (lower",
    "word. (Upper",
    "word. “",
    "word. ((",
    "word. ( x",
    "word.\u00a0Next",
    "word.\u2003next",
    "word.\u3000Next",
    "a" * 39 + ". Next",
    "a" * 40 + ". Next",
    "a" * 41 + ". Next",
    "x" * 38 + "e.g. This",
    "x" * 45 + " e.g. This",
    '"e.g. This',
    "'(Dr. Who",
    "Café. Next",
    "café. next",
    "É. Next",
    "ß. Next",
    "Ω. Next",
    "co\u212a. Next",
    "İnc. Next",
    "\u212a. X",
    "word. É",
    "word. é",
    "word. ǅ",
    "word. ª",
    "word. \u2170",
    "word.…",
    "wait…  What",
    "so… what",
    "Mr.\tSmith",
    "mr.\rsmith",
    "p. 5",
    "pp. 5-7.",
    "no. 5. Fig. 2 shows",
    "et al. Then",
    "Inc.",
    "\ud800. Next",
    "x\ud800. Next",
    "word. \udc00",
    "A.B. C",
    ".. A",
    "a ..b. C",
    "a.b.c. D",
]


# every opener stripped from the word before a dot, before initials and abbreviations
EXAMPLES += [f"{o}{w}. Next" for o in "\"'(\u2018\u201c[" for w in ("J", "Dr", "e.g", "x", "")]
# the word before a dot is read from at most 40 characters back
EXAMPLES += [f"x{o * k}{w}. Next" for o in "([" for k in range(34, 41) for w in ("J", "Dr", "i.e")]


@pytest.mark.parametrize("text", EXAMPLES)
def test_examples_match_the_regex(text):
    assert_exact(text)
    assert_exact(text + " " + text + "\n\n" + text.upper())


def test_whitespace_table_is_python_isspace_and_regex_space():
    chars = "".join(map(chr, range(sys.maxunicode + 1)))
    assert [m.start() for m in re.finditer(r"\s", chars)] == scan.WHITESPACE
    assert [c for c in range(sys.maxunicode + 1) if chr(c).isspace()] == scan.WHITESPACE
    kernel = [c for c in range(sys.maxunicode + 1) if scan._is_space(c)]
    assert kernel == scan.WHITESPACE


_WORDS = st.sampled_from(
    [
        "word",
        "Word",
        "the",
        "The",
        "x",
        "J",
        "R",
        "i",
        "Dr",
        "dr",
        "DR",
        "Mr",
        "mrs",
        "e.g",
        "E.G",
        "i.e",
        "U.S",
        "u.s.a",
        "Ph.D",
        "ph.d",
        "approx",
        "Approx",
        "etc",
        "al",
        "et",
        "p",
        "pp",
        "no",
        "No",
        "Fig",
        "vs",
        "3.5",
        "1",
        "42",
        "https://example.org/a.b",
        "www.x.com",
        "a.b",
        "Café",
        "É",
        "é",
        "ß",
        "Ω",
        "ω",
        "\u212a",
        "İ",
        "ǅ",
        "ª",
        "\u2170",
        "abcdefghijklmnopqrstuvwxyz0123456789ABCD",
    ]
)
_PUNCT = st.sampled_from([".", ".", ".", "..", "...", "…", "?", "!", "?!", "!.", ".!", ".?", ",", ";", ":"])
_QUOTES = st.sampled_from(['"', "'", "’", "”", ")", "]", "“", "‘", "(", "["])
_SPACE = st.sampled_from([" ", " ", " ", "  ", "\n", "\n\n", "\n \t\n", "\t", "\r\n", "\u00a0", "\u2003", ""])
_PIECE = st.one_of(_WORDS, _WORDS, _PUNCT, _QUOTES, _SPACE, _SPACE)


@settings(max_examples=2000, deadline=None)
@given(st.lists(_PIECE, max_size=40).map("".join))
def test_compositions_of_abbreviations_initials_quotes_and_urls_match_the_regex(text):
    assert_exact(text)


@settings(max_examples=1000, deadline=None)
@given(st.lists(st.tuples(_WORDS, st.lists(_PUNCT | _QUOTES, max_size=3), _SPACE), max_size=15))
def test_sentence_like_texts_match_the_regex(parts):
    assert_exact("".join(w + "".join(p) + s for w, p, s in parts))


@settings(max_examples=1000, deadline=None)
@given(st.text(alphabet="aZJ .!?…\n\t\"'’”)]“‘([eg", max_size=100))
def test_dense_punctuation_alphabet_matches_the_regex(text):
    assert_exact(text)


@settings(max_examples=500, deadline=None)
@given(st.text(st.characters(exclude_categories=()), max_size=150))
def test_arbitrary_unicode_matches_the_regex(text):
    assert_exact(text)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=150))
def test_arbitrary_ascii_matches_the_regex(text):
    assert_exact(text)
