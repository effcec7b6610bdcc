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


@given(st.text(alphabet="ab .!?\n\"", max_size=80))
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
