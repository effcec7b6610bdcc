"""Entity grounding: what is extracted, what is not, and how entities are found in sources."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from judges.checks.entities import EntityIndex, acronym_definitions, extract_entities
from judges.checks.fold import fold, fold_reference, key_words


def surfaces(text, **kw):
    return [e.surface for e in extract_entities(text, **kw)]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Ludacris sings the rap in Baby by Justin Bieber.", ["Justin Bieber"]),
        ("The deal was signed by Barack Obama in Paris.", ["Barack Obama"]),
        ("However, President Barack Obama spoke.", ["Barack Obama"]),  # opener and honorific trimmed
        ("He met Dr. Jane Goodall there.", ["Jane Goodall"]),
        ("It was bought by the Bank of America last year.", ["Bank of America"]),
        ("A portrait by Leonardo da Vinci hangs there.", ["Leonardo da Vinci"]),
        ("Shares of Johnson & Johnson rose.", ["Johnson & Johnson"]),
        ("The World Health Organization (WHO) met.", ["World Health Organization"]),  # (WHO) defines it
        ("The agency NASA and the firm IBM agreed.", ["NASA", "IBM"]),
        ("NASA launched it.", ["NASA"]),  # sentence-initial acronym still counts
        ("Buy an iPhone on eBay.", ["iPhone", "eBay"]),
        ("iPhone sales fell.", ["iPhone"]),  # sentence-initial camelCase still counts
        ("Hewlett-Packard makes printers.", ["Hewlett-Packard"]),  # sentence-initial hyphenated name
        ("She works at Acme Corp and Google LLC.", ["Acme Corp", "Google LLC"]),
        ("Shares of Apple Inc. fell.", ["Apple Inc"]),
        ("The U.S. Army is large.", ["U.S. Army"]),
        ("Prices in Zürich Airport shops are high.", ["Zürich Airport"]),
        ("It rained in New York. Then it snowed.", ["New York"]),
        ("Bieber's debut album sold well, said Justin Bieber's label.", ["Justin Bieber"]),
    ],
)
def test_extracted(text, expected):
    assert surfaces(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "Milira sings the song.",  # sentence-initial single word
        "The cat sat on the mat. However it left.",  # capitalised only by position
        "I think it works.",  # the pronoun
        "It happened in January and on Monday.",  # calendar words
        "Milira sings 'I Want to Go Outside in the Rain.'",  # quoted title
        'He said "Go Outside in the Rain" twice.',
        "Made of TiO2 during COVID-19 in the G20.",  # words with digits
        "See https://www.Example.org/Some/Path for more.",
        "It met in Paris.",  # single capitalised word: off unless single_words=True
        "It uses AI on TV.",  # two-letter acronyms: off unless single_words=True
    ],
)
def test_not_extracted(text):
    assert surfaces(text) == []


def test_single_words_option():
    assert surfaces("It met in Paris with the AI team.", single_words=True) == ["Paris", "AI"]
    # still not sentence-initial ones
    assert surfaces("Paris is big.", single_words=True) == []


def test_sentence_initial_word_counts_when_capitalised_elsewhere():
    assert surfaces("Milira sings.", single_words=True) == []
    assert surfaces("Milira sings.", single_words=True, context="The album Milira sold well.") == ["Milira"]
    assert surfaces("Milira sings. A song by Milira.", single_words=True) == ["Milira", "Milira"]


def test_kinds():
    kinds = {
        e.surface: e.kind
        for e in extract_entities(
            "He works at Initech Systems. Acme Corp hired NASA staff, founded by Larry Page, on eBay; Coca-Cola too."
        )
    }
    assert kinds == {
        "Initech Systems": "context",
        "Acme Corp": "company",
        "NASA": "acronym",
        "Larry Page": "context",
        "eBay": "camel",
        "Coca-Cola": "hyphenated",
    }


@pytest.mark.parametrize(
    "claim, source",
    [
        ("It opened in Zürich Airport.", "zurich airport opened"),  # accents and case
        ("It opened in Zurich Airport.", "ZÜRICH AIRPORT opened"),
        ("The firm Hewlett-Packard grew.", "Hewlett Packard grew"),
        ("Made by Acme Corp for years.", "Acme announced"),  # company suffix optional
        ("The U.S. Army grew.", "the US Army"),
        ("It is the European Union law.", "Europe Union"),  # one word extends the other by <= 2 letters
        ("Tell Justin Bieber now.", "Bieber's song"),  # partial: a distinctive word of the name
        ("The Americans Abroad club met.", "american abroad"),  # plural stem
        ("Its rival, the WHO, agreed.", "The World Health Organization (WHO) agreed"),
    ],
)
def test_found(claim, source):
    (entity,) = extract_entities(claim)
    assert EntityIndex(source).contains(entity)


@pytest.mark.parametrize(
    "claim, source",
    [
        ("Shares of Apple Inc. fell.", "Microsoft shares fell"),
        ("They met Barack Obama.", "Michelle met Joe Biden"),
        ("The agency NASA agreed.", "ESA agreed"),
        ("Prices at Stanford University rose.", "Ford prices rose"),  # whole words only
        ("She joined Samsung Electronics.", "Sam sung"),
    ],
)
def test_not_found(claim, source):
    (entity,) = extract_entities(claim)
    assert not EntityIndex(source).contains(entity)


def test_partial_matching_uses_distinctive_words_only():
    (entity,) = extract_entities("Said Maria Lopez.")
    assert entity.parts == ("maria", "lopez")  # not the sentence opener "Said"
    assert not EntityIndex("he said so").contains(entity)
    (bank,) = extract_entities("It sued the Bank of the West.")
    assert bank.parts == ("bank", "west")
    assert EntityIndex("the West").contains(bank)


def test_partial_matching_can_be_turned_off():
    (entity,) = extract_entities("Tell Justin Bieber now.")
    index = EntityIndex("Bieber's song")
    assert index.contains(entity, partial=True)
    assert not index.contains(entity, partial=False)


def test_fuzzy_matching_finds_misspellings_only_when_asked():
    (entity,) = extract_entities("They met Arnold Schwarzenegger.")
    index = EntityIndex("Arnold Schwarzeneger spoke")  # misspelt in the source
    assert index.contains(entity, partial=True)  # "arnold" alone suffices for partial matching
    assert not index.contains(entity, partial=False)
    assert index.contains(entity, partial=False, fuzzy=0.85)
    assert not index.contains(entity, partial=False, fuzzy=0.99)


def test_acronym_definitions():
    text = (
        "Static Timing Analysis (STA) helps; interrupt-on-change (IOC) pins; the International Court "
        "of Justice (ICJ) ruled; Fresh Frozen Plasma (FFPs) stored; a random thing (XYZ)."
    )
    assert acronym_definitions(text) == {
        "STA": "Static Timing Analysis",
        "IOC": "interrupt-on-change",
        "ICJ": "International Court of Justice",
        "FFP": "Fresh Frozen Plasma",
    }


def test_fold_and_key_words():
    assert fold("Zürich ÉCOLE Straße") == "zurich ecole strasse"
    assert key_words("Bieber's U.S. Americans") == ["bieber", "us", "american"]


@settings(max_examples=500, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.text(max_size=60),
            st.text(alphabet="AaEeZz .\u0301\u0308\u0327\u20dd\u0345éÉüÜßﬁ\u212a\u1e9e\u00b5ǅ", max_size=30),
        ),
        max_size=4,
    )
)
def test_fold_is_its_reference_whatever_was_folded_before(texts):
    """fold learns the combining characters as it meets them: any sequence of texts folds as
    the plain form folds each."""
    for text in texts:
        assert fold(text) == fold_reference(text)


@settings(max_examples=400, deadline=None)
@given(
    st.one_of(
        st.text(max_size=120),
        st.text(alphabet="AaBbCcÉéZz .,:;!?'\"’“”()-&\n0123456789@/IiOoSs", max_size=120),
    ),
    st.booleans(),
)
def test_extraction_never_crashes_and_spans_slice_the_text(text, single):
    previous_end = 0
    for e in extract_entities(text, single_words=single, context=text):
        assert 0 <= e.start < e.end <= len(text)
        assert text[e.start : e.end] == e.surface
        assert e.start >= previous_end
        previous_end = e.end
        assert e.keys and all(k == k.strip() for k in e.keys)
        EntityIndex(text).contains(e)  # and looking it up never fails


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="AaBbCcÉéZz .,'-&\n", max_size=80))
@example("AA.A.A.")  # found by CI: a dotted tail inside a word was closed up as if an abbreviation
@example("A-A.A.")
@example("x.A.B. and U.S. -U.S. (U.S.)")
def test_every_entity_is_found_in_its_own_text(text):
    index = EntityIndex(text)
    for e in extract_entities(text, single_words=True):
        assert index.contains(e, partial=False), e


# -- The fast word scan (_words, _capitalised_in) is exactly its reference.

WORDISH = st.one_of(
    st.text(max_size=80),
    st.lists(
        st.sampled_from(
            [
                "Dr.",
                "U.S.",
                "J.",
                "Inc.",
                "Apple",
                "apple",
                "Bieber's",
                "O'Brien",
                "rock’n’roll",
                "AT&T",
                "Hewlett-Packard",
                "iPhone",
                "İstanbul",
                "Zürich",
                " ",
                "  ",
                ". ",
                "! ",
                "?",
                ":",
                "\n",
                ",",
                "'",
                "’",
                "-",
                "&",
                "_",
                "3",
                "x1",
                "\u00a0",
                "“",
                "”",
                "é",
            ]
        ),
        max_size=25,
    ).map("".join),
)


@settings(max_examples=1500, deadline=None)
@given(WORDISH)
def test_fast_words_are_the_reference(text):
    from judges.checks import entities as E

    assert E._words(text) == E._words_reference(text)
    assert E._capitalised_in.__wrapped__(text) == E._capitalised_in_reference(text)


# -- The shortcut (_states_none) never changes what extract_entities finds.

OPENERS = st.sampled_from(["Apple", "Said", "The", "İstanbul", "Bieber's", "Dr", "Ⓐpple", "ǅemal", "x", "3"])
LOWER = st.lists(st.sampled_from(["apple", "said", "the", "of", "iphone", "é", "ı", "-", "’s", "’"]), max_size=6)
SENTENCE = st.one_of(
    WORDISH,
    st.tuples(st.sampled_from(["", " ", "“", "("]), OPENERS, LOWER, st.sampled_from(["", ".", "!", " (x)"])).map(
        lambda p: p[0] + " ".join([p[1], *p[2]]) + p[3]
    ),
)
CONTEXT = st.one_of(
    st.none(),
    st.just(""),
    WORDISH,
    st.tuples(OPENERS, OPENERS).map(lambda p: f"we met {p[0]} and {p[1]}'s friends. {p[0]} left."),
)


@settings(max_examples=1500, deadline=None)
@given(SENTENCE, CONTEXT, st.booleans())
def test_the_shortcut_finds_what_the_full_extraction_finds(text, context, single):
    from judges.checks import entities as E

    assert extract_entities(text, context=context, single_words=single) == E._extract_entities(text, context, single)
    if E._states_none(text, context):
        assert E._extract_entities(text, context, single) == []


@given(st.text(st.characters(max_codepoint=127)))
def test_the_shortcut_counts_an_ascii_texts_capitals_as_str_isupper_does(text):
    from judges.checks import entities as E

    dropped = text.encode("ascii").translate(None, E._ASCII_CAPITALS)
    assert len(text) - len(dropped) == sum(map(str.isupper, text))


def test_the_shortcut_is_taken_for_an_uncertain_opener_only():
    from judges.checks import entities as E

    assert E._states_none("Apple makes phones.", None)
    assert E._states_none("no capital here", "Apple")
    assert not E._states_none("Apple makes phones.", "We like Apple a lot.")  # capitalised mid-sentence
    assert not E._states_none("we like Apple.", None)  # not the first word
    assert not E._states_none("Apple and Google.", None)  # two capitals
    assert extract_entities("Apple makes phones.", context="We like Apple a lot.", single_words=True)


# -- has_phrase: the search from the first word's positions is the plain definition (every start).

_PHRASE_WORDS = st.sampled_from(
    ["bank", "banks", "banker", "bankers", "america", "americas", "obama", "barack", "lopez"]
)


def _has_phrase_reference(index: EntityIndex, key: str) -> bool:
    """The key's words at some start, each equal or tolerantly equal (tried at every start)."""
    if f" {key} " in index.phrase:
        return True
    variants = [index._variants(w) for w in key.split()]
    if not variants or not all(variants):
        return False
    words = index._words
    return any(
        all(words[start + i] in options for i, options in enumerate(variants))
        for start in range(len(words) - len(variants) + 1)
    )


@settings(max_examples=1000, deadline=None)
@given(st.lists(_PHRASE_WORDS, max_size=14), st.lists(_PHRASE_WORDS, min_size=1, max_size=4))
def test_has_phrase_is_the_definition_at_every_start(source, key):
    index = EntityIndex(" ".join(source))
    assert index.has_phrase(" ".join(key)) == _has_phrase_reference(index, " ".join(key))


# -- key_words runs over every cited document: its fast forms are the plain regexes.


def _key_words_reference(text: str) -> list[str]:
    import re

    folded = fold(text)
    folded = re.sub(r"(?<!\w)(?<!\w[-'’&.])(?:[^\W\d_]\.){2,}", lambda m: m.group().replace(".", "") + " ", folded)
    folded = re.sub(r"(?<=\w)['’]s\b", "", folded)
    return [w[:-1] if len(w) > 3 and w[-1] == "s" and w[-2] != "s" else w for w in re.findall(r"\w+", folded)]


_KEY_PIECES = st.sampled_from(
    [
        "U.S.",
        "u.s",
        "A.B.C.",
        "x-U.S.",
        "AA.A.A.",
        "é.",
        ".",
        "..",
        " ",
        "\n",
        "'s",
        "’s",
        "s",
        "Bieber",
        "i.e.",
        "e",
        "5.",
        "_",
        "-",
        "&",
    ]
)


@settings(max_examples=2000, deadline=None)
@given(
    st.one_of(
        st.lists(_KEY_PIECES, max_size=10).map("".join),
        st.text(max_size=30),
        st.text(st.characters(max_codepoint=127), max_size=30),  # ASCII: words by translate and split
    )
)
def test_key_words_is_the_plain_regexes(text):
    assert key_words(text) == _key_words_reference(text)
