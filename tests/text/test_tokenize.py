import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from judges.text.symbols import CURRENCY_SYMBOLS
from judges.text.tokenize import Vocabulary, iter_tokens, normalize

# Compile (or load) the Numba kernels now, so no Hypothesis example pays for it.
Vocabulary().encode("warm up")


def tokens(text):
    return [t for t, _, _ in iter_tokens(text)]


def test_grammar_numbers_words_symbols():
    text = "Dr. Smith paid $3.2 billion (42%) for 1,250,000 fish; covid-19 isn't €15."
    assert tokens(text) == [
        "dr",
        "smith",
        "paid",
        "$",
        "3.2",
        "billion",
        "42",
        "%",
        "for",
        "1,250,000",
        "fish",
        "covid-19",
        "isn't",
        "€",
        "15",
    ]


def test_currency_symbols_are_unicode_category_sc():
    """The written-out set is what unicodedata says (tokenizer and number checks both use it)."""
    computed = "".join(chr(c) for c in range(0x110000) if unicodedata.category(chr(c)) == "Sc")
    if unicodedata.unidata_version == "14.0.0":
        assert CURRENCY_SYMBOLS == computed
    else:  # a later Unicode only adds symbols: the literal keeps tokens as they were
        assert set(CURRENCY_SYMBOLS) <= set(computed)
    assert tokens("5 ₹ 𞲰 ⃀") == ["5", "₹", "𞲰", "⃀"]


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


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=200))
def test_offsets_slice_original_text_for_arbitrary_unicode(text):
    last_end = 0
    for tok, start, end in iter_tokens(text):
        assert last_end <= start < end <= len(text)
        assert normalize(text[start:end]) == tok
        assert tok  # never empty
        last_end = end


@settings(deadline=None)
@given(st.text(alphabet="ab1,.-' %$", max_size=60))
def test_tokens_never_contain_spaces(text):
    for tok, start, end in iter_tokens(text):
        assert " " not in text[start:end]
        assert unicodedata.normalize("NFKC", text[start:end]).casefold() == tok


# ---------------------------------------------------------------------------------------------
# Exactness of the fast paths (Numba scan + hash table for ASCII texts) against the regex.

import itertools
import re

import numpy as np
import pytest

from judges.text import kernel as scan
from judges.text.tokenize import TOKEN_PATTERN, stand_in


def original_tokens(text):
    """The oracle: the module's readable regex tokenizer."""
    return list(iter_tokens(text))


def fast_tokens(text):
    """The Numba path's tokens (``Vocabulary.encode`` on a fresh vocabulary), as the oracle's tuples."""
    vocab = Vocabulary()
    got = vocab.encode(text)
    words = list(vocab._ids)
    return [(words[i], s, e) for i, s, e in zip(got.ids.tolist(), got.starts.tolist(), got.ends.tolist())]


def original_encode(ids, text):
    found = original_tokens(text)
    return (
        [ids.setdefault(tok, len(ids)) for tok, _, _ in found],
        [s for _, s, _ in found],
        [e for _, _, e in found],
    )


def assert_exact(text):
    assert fast_tokens(text) == original_tokens(text)
    # encode, on a fresh vocabulary and on one that already knows part of the tokens
    for seed in ("", text[: len(text) // 2], "x " + text[::-1]):
        fast, ref = Vocabulary(), {}
        fast.encode(seed)
        original_encode(ref, seed)
        got = fast.encode(text)
        want = original_encode(ref, text)
        assert got.ids.dtype == got.starts.dtype == got.ends.dtype == np.int32
        assert (got.ids.tolist(), got.starts.tolist(), got.ends.tolist()) == want
        assert list(fast._ids.items()) == list(ref.items())


TRICKY_ASCII = "aZ09.,-'_%$ \n\t"
EXAMPLES = [
    "",
    " ",
    "1,2.3",
    "1..2",
    "1.,2",
    "1,,2",
    "a-",
    "-a",
    "a--b",
    "a'b'c",
    "a''b",
    "9-a",
    "a-9",
    "1,",
    "1.",
    "a'",
    "'a",
    "$",
    "%%",
    "$1,000.50%",
    "1,2a",
    "a1,2",
    "12-ab",
    "1.2-ab",
    "_a_",
    "a_b",
    "1_2",
    "3.5.",
    "1,2,3,",
    "A-B-C-",
    "x-y'z",
    "1-2,3",
    "1,2-3",
    "9'a",
    "don't",
    "DON'T",
    "Covid-19",
    "1.2.3.4.5",
    "2.000,50",
    "1 ,2",
    "1, 2",
    "$$$",
    "%$%",
    "a%b$c",
    "-",
    "'",
    ",",
    ".",
    "a.b.c",
    "U.S.A.",
    "e.g.",
    "a-'b",
    "a'-b",
    "Z9Z",
    "007",
    "0.0",
    "00,00",
    "1.a",
    "a.1",
    "\x00a\x7f",
    "A\tB\nC",
]


@pytest.mark.parametrize("text", EXAMPLES)
def test_examples_match_the_regex(text):
    assert_exact(text)
    assert_exact(text + " " + text.upper() + text)


def test_kernel_assumptions_about_ascii_hold():
    """The kernel's ASCII character classes are those of TOKEN_PATTERN."""
    for c in map(chr, range(128)):
        assert bool(re.fullmatch(r"\d", c)) == c.isdigit()
        assert bool(re.fullmatch(r"[^\W_]", c)) == c.isalnum()
        word = TOKEN_PATTERN.fullmatch("a" + c + "a")
        assert bool(word) == (c.isalnum() or c in "-'")
        assert bool(TOKEN_PATTERN.fullmatch(c)) == (c.isalnum() or c in "%$")
        assert bool(TOKEN_PATTERN.fullmatch("1" + c + "1")) == (c.isalnum() or c in ".,-'")


def test_all_short_ascii_strings_exhaustively():
    for a, b in itertools.product(map(chr, range(128)), repeat=2):
        text = a + b
        assert fast_tokens(text) == original_tokens(text)


def test_all_strings_over_the_tricky_alphabet_exhaustively():
    alphabet = "aZ9.,-'$ _"
    for n in range(1, 6):
        for chars in itertools.product(alphabet, repeat=n):
            text = "".join(chars)
            assert fast_tokens(text) == original_tokens(text), text


@settings(max_examples=1000, deadline=None)
@given(st.text(alphabet=TRICKY_ASCII, max_size=80))
def test_dense_tricky_ascii_matches_the_regex(text):
    assert_exact(text)


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=120))
def test_arbitrary_ascii_matches_the_regex(text):
    assert_exact(text)


_PIECES = st.sampled_from(
    [
        "1",
        "12",
        "3",
        ",",
        ".",
        "-",
        "'",
        "a",
        "Z",
        "word",
        "Don",
        "t",
        "$",
        "%",
        "_",
        " ",
        "\n",
        "..",
        "--",
        "''",
        "x-y",
        "1,2",
        "3.5",
        "\t",
        "!",
        "(",
        ")",
    ]
)


@settings(max_examples=1000, deadline=None)
@given(st.lists(_PIECES, max_size=30).map("".join))
def test_token_like_compositions_match_the_regex(text):
    assert_exact(text)


@settings(max_examples=500, deadline=None)
@given(st.text(st.characters(exclude_categories=()), max_size=120))
def test_arbitrary_unicode_matches_the_regex(text):
    # every category, lone surrogates included; non-ASCII texts take the regex path
    assert_exact(text)


def test_a_non_ascii_character_stands_in_as_an_ascii_one_of_its_class():
    text = "é٣’\u2010€‰ ̀x"
    buf, wide = stand_in(text)
    assert buf.tobytes().decode() == "a0--$$  x" and wide.tolist() == [True] * 6 + [False, True, False]


@settings(max_examples=500, deadline=None)
@given(st.text(st.characters(exclude_categories=()), max_size=120))
def test_the_stand_in_has_the_texts_tokens_at_the_same_offsets(text):
    buf, _ = stand_in(text)
    spans = [m.span() for m in TOKEN_PATTERN.finditer(text)]
    assert [m.span() for m in TOKEN_PATTERN.finditer(buf.tobytes().decode("ascii"))] == spans


_UNICODE_PIECES = st.sampled_from(["é", "’", "\u2010", "\u2011", "€", "２", "ﬁ", "ß", "İ", "\u212a", "‰", "٣", "Ω"])


@settings(max_examples=500, deadline=None)
@given(st.lists(st.one_of(_PIECES, _UNICODE_PIECES), max_size=30).map("".join))
def test_mixed_ascii_and_unicode_match_the_regex(text):
    assert_exact(text)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.one_of(_PIECES, _PIECES, _UNICODE_PIECES), max_size=20).map("".join), max_size=8))
def test_vocabulary_over_a_sequence_of_texts_matches_the_regex(texts):
    """ASCII and non-ASCII texts share one vocabulary; ids come in first-seen order."""
    fast, ref = Vocabulary(), {}
    for text in texts:
        got = fast.encode(text)
        assert (got.ids.tolist(), got.starts.tolist(), got.ends.tolist()) == original_encode(ref, text)
    assert list(fast._ids.items()) == list(ref.items())
    assert len(fast) == len(ref)


def test_vocabulary_table_grows_and_keeps_every_id():
    rng = np.random.default_rng(7)
    fast, ref = Vocabulary(), {}
    letters = np.array(list("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"))
    for _ in range(30):
        words = ["".join(rng.choice(letters, rng.integers(1, 12))) for _ in range(2000)]
        words.append("q" * int(rng.integers(1, 30000)))  # longer than the initial byte arena
        text = " ".join(words) + (" ünïcode " + words[0] if rng.random() < 0.3 else "")
        got = fast.encode(text)
        assert (got.ids.tolist(), got.starts.tolist(), got.ends.tolist()) == original_encode(ref, text)
    assert list(fast._ids.items()) == list(ref.items())
    assert fast._counts[0] > 2048 and len(fast._slots) >= 2 * fast._counts[0] and len(fast._arena) > 1 << 14


def test_token_first_seen_in_unicode_text_keeps_its_id_in_ascii_text():
    v = Vocabulary()
    a = v.encode("Ünïcode cafe CAFE")
    b = v.encode("cafe ascii")
    assert b.ids[0] == a.ids[1] == a.ids[2] and b.ids[1] == 2 and len(v) == 3


def test_table_compares_the_bytes_past_the_key_when_hashes_collide():
    buf = np.frombuffer(b"abcdefghzz abcdefghxy", np.uint8)
    h, lo, hi = scan._hash_key(buf, 0, 10)
    assert (h, lo, hi) != scan._hash_key(buf, 11, 21)
    slots = np.full((4, 6), -1, np.int32)
    arena = np.frombuffer(b"abcdefghxy", np.uint8).copy()
    home = h & 3
    slots[home] = [h, 7, 0, 10, lo, hi]  # same hash, length and key, different tail
    slot = scan._find(buf, 0, 10, h, lo, hi, slots, arena)
    assert slot == (home + 1) & 3 and slots[slot, 1] == -1
    arena[8:] = np.frombuffer(b"zz", np.uint8)
    assert scan._find(buf, 0, 10, h, lo, hi, slots, arena) == home
    # upper case is lowered before hashing and comparing
    upper = np.frombuffer(b"ABCDEFGHZZ", np.uint8)
    assert scan._hash_key(upper, 0, 10) == (h, lo, hi)
    assert scan._find(upper, 0, 10, h, lo, hi, slots, arena) == home


@given(st.lists(st.text(alphabet=st.sampled_from(list("aZ9.,-'$% _\n\tß’€é")), max_size=30), max_size=8))
def test_encode_many_equals_encoding_each_text(texts):
    one, many = Vocabulary(), Vocabulary()
    expected = [one.encode(t) for t in texts]
    got = many.encode_many(texts)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert g.ids.tolist() == e.ids.tolist()
        assert g.starts.tolist() == e.starts.tolist() and g.ends.tolist() == e.ends.tolist()
