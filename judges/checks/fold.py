"""Comparison forms of text for the grounding checks: accents stripped, case folded, light stems.

``fold("Zürich")`` is ``"zurich"``: Unicode NFKD, combining marks removed, then ``casefold``.
Lengths may change, so folded text is only ever searched, never used for offsets; offsets always
point into the original text.

``key_words`` turns text into the word sequence entities are matched on: folded ``\\w+`` runs,
each lightly stemmed (:func:`stem`), with the ``s`` of a possessive (``Bieber's`` → ``bieber``)
dropped and dotted abbreviations closed up (``U.S.`` → ``us``). The same function is applied to both sides \
of a comparison, so a stem only has to be
consistent, not linguistically right.
"""

from __future__ import annotations

import re
import threading
import unicodedata

_WORD = re.compile(r"\w+")
# ASCII bytes with every non-word character (not [A-Za-z0-9_]) made a space: an ASCII text's \w+
# runs are then its split() (2.5x faster than findall over a cited document)
_ASCII_WORDS = bytes(c if chr(c).isalnum() or c == 95 else 32 for c in range(128)) + bytes(range(128, 256))
# a dotted abbreviation where the entity tokenizer starts a word (not inside ``AA.A.A.`` or ``x-U.S.``)
_DOTTED = re.compile(r"(?<!\w)(?<!\w[-'’&.])(?:[^\W\d_]\.){2,}")
_TWO_DOTS = re.compile(r"\..\.")  # in every _DOTTED match ("u.s."), and found fast: a "." leads it
# ``(?<=\w)['’]s\b`` with the look-behind after the quote, so that a search skips to the quotes
_POSSESSIVE = re.compile(r"['’](?<=\w['’])s\b")


def fold(text: str) -> str:
    """NFKD, combining marks removed, casefolded. ASCII text is only lower-cased.

    Exactly :func:`fold_reference`, with the marks removed by one regex substitution: a
    character class of the combining characters met so far, each non-ASCII character looked
    up once per process.
    """
    if text.isascii():
        return text.lower()
    decomposed = unicodedata.normalize("NFKD", text)
    unseen = set(_NON_ASCII.findall(decomposed)).difference(_SEEN)
    if unseen:
        _learn(unseen)
    if _marks is not None:
        decomposed = _marks.sub("", decomposed)
    return decomposed.casefold()


_NON_ASCII = re.compile(r"[^\x00-\x7f]")
_SEEN: set[str] = set()  # the non-ASCII characters fold has looked up
_MARK_CHARS: list[str] = []  # of those, the combining ones
_marks: re.Pattern | None = None  # a character class of _MARK_CHARS
_LEARNING = threading.Lock()


def _learn(chars: set[str]) -> None:
    """Add the combining ones of ``chars`` to the class, then mark ``chars`` seen (in that
    order, under a lock: a character is seen only once the class has it)."""
    global _marks
    with _LEARNING:
        new = sorted(c for c in chars.difference(_SEEN) if unicodedata.combining(c))
        if new:
            _MARK_CHARS.extend(new)
            _marks = re.compile("[" + "".join(re.escape(c) for c in _MARK_CHARS) + "]")
        _SEEN.update(chars)


def fold_reference(text: str) -> str:
    """The readable :func:`fold`."""
    if text.isascii():
        return text.lower()
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


# The only non-ASCII characters that Python's re matches to ASCII letters under (?i):
# İ ı (i), K Kelvin sign (k), ſ long s (s).
_RE_FOLDS = "\u0130\u0131\u212a\u017f"
_RE_FOLD = str.maketrans({"\u0130": "i", "\u0131": "i", "\u212a": "k", "\u017f": "s"})


def re_lower(text: str) -> str:
    """``text`` lower-cased so that where a case-insensitive regex matches ASCII letters, this has
    those letters in lower case: for cheap ``in`` tests that must never miss a regex match.
    (Lengths may change: not for offsets.)"""
    if not text.isascii() and any(c in text for c in _RE_FOLDS):
        text = text.translate(_RE_FOLD)
    return text.lower()


def stem(word: str) -> str:
    """Drop one plural ``s`` from words longer than three letters (not ``ss``): ``Americans`` → ``american``."""
    if len(word) > 3 and word[-1] == "s" and word[-2] != "s":
        return word[:-1]
    return word


def key_words(text: str) -> list[str]:
    """Folded, stemmed words of ``text``, possessive ``'s`` removed.

    Dotted abbreviations lose their dots first, so ``U.S.`` and ``US`` are both ``us``.
    """
    folded = fold(text)
    if _TWO_DOTS.search(folded):
        folded = _DOTTED.sub(lambda m: m.group().replace(".", "") + " ", folded)
    if "'" in folded or "’" in folded:
        folded = _POSSESSIVE.sub("", folded)
    if folded.isascii():
        words = folded.encode("ascii").translate(_ASCII_WORDS).decode("ascii").split()
    else:
        words = _WORD.findall(folded)
    # stem() inlined: this runs over every word of every cited document
    return [w[:-1] if len(w) > 3 and w[-1] == "s" and w[-2] != "s" else w for w in words]
