import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from judges.text.tokenize import Vocabulary, iter_tokens, normalize


def tokens(text):
    return [t for t, _, _ in iter_tokens(text)]


def test_grammar_numbers_words_symbols():
    text = "Dr. Smith paid $3.2 billion (42%) for 1,250,000 fish; covid-19 isn't €15."
    assert tokens(text) == [
        "dr", "smith", "paid", "$", "3.2", "billion", "42", "%", "for", "1,250,000", "fish",
        "covid-19", "isn't", "€", "15",
    ]


def test_normalisation_nfkc_casefold_and_apostrophes():
    assert tokens("ﬁsh STRASSE Straße don’t ２０２０ Ωμέγα") == ["fish", "strasse", "strasse", "don't", "2020", "ωμέγα"]


def test_offsets_point_into_original_text_even_when_normalisation_changes_length():
    text = "Die Straße – ﬁne ＡＢＣ"
    for tok, start, end in iter_tokens(text):
        assert normalize(text[start:end]) == tok


def test_vocabulary_shares_ids_across_texts():
    v = Vocabulary()
    a = v.encode("The cat sat.")
    b = v.encode("the CAT")
    assert a.ids[:2].tolist() == b.ids.tolist()
    assert a.starts.tolist() == [0, 4, 8] and a.ends.tolist() == [3, 7, 11]


@settings(max_examples=300)
@given(st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=200))
def test_offsets_slice_original_text_for_arbitrary_unicode(text):
    last_end = 0
    for tok, start, end in iter_tokens(text):
        assert last_end <= start < end <= len(text)
        assert normalize(text[start:end]) == tok
        assert tok  # never empty
        last_end = end


@given(st.text(alphabet="ab1,.-' %$", max_size=60))
def test_tokens_never_contain_spaces(text):
    for tok, start, end in iter_tokens(text):
        assert " " not in text[start:end]
        assert unicodedata.normalize("NFKC", text[start:end]).casefold() == tok
