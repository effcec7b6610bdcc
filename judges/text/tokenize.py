"""Word tokenizer whose tokens keep ``[start, end)`` offsets into the ORIGINAL text.

A token is found in the original text and only then normalised (Unicode NFKC, then casefold,
curly apostrophes and Unicode hyphens folded to ASCII), so ``text[start:end]`` is always the
surface form of the token, whatever the normalisation does to lengths.

Token grammar, first alternative wins at each position:

* numbers with separators: ``1,250,000``, ``3.5``, ``2.000,50`` (digits joined by ``.`` or ``,``);
* words: letters and digits, with internal hyphens or apostrophes (``covid-19``, ``don't``);
* single symbols: ``%``, ``‰`` and every Unicode currency symbol (category ``Sc``).

Everything else (spaces, punctuation, underscores) separates tokens.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Iterator, NamedTuple

import numpy as np

# Every currency symbol (all of Unicode category Sc lies below U+20000).
_CURRENCY = "".join(chr(c) for c in range(0x20000) if unicodedata.category(chr(c)) == "Sc")
_HYPHENS = "\\-\u2010\u2011"
_APOSTROPHES = "'\u2019"

TOKEN_PATTERN = re.compile(
    r"\d+(?:[.,]\d+)+"
    rf"|[^\W_]+(?:[{_HYPHENS}{_APOSTROPHES}][^\W_]+)*"
    rf"|[%\u2030{re.escape(_CURRENCY)}]"
)
_FOLD = str.maketrans({"\u2019": "'", "\u2010": "-", "\u2011": "-"})


def normalize(surface: str) -> str:
    """The comparison form of one token: NFKC, casefold, ASCII apostrophe and hyphen."""
    if surface.isascii():
        return surface.lower()
    return unicodedata.normalize("NFKC", surface).casefold().translate(_FOLD)


def iter_tokens(text: str) -> Iterator[tuple[str, int, int]]:
    """Yield ``(normalised token, start, end)`` with offsets into ``text`` itself."""
    if text.isascii():
        # ASCII: NFKC is the identity and casefold is lower(), which keeps every offset.
        lowered = text.lower()
        for m in TOKEN_PATTERN.finditer(lowered):
            yield m.group(), m.start(), m.end()
        return
    for m in TOKEN_PATTERN.finditer(text):
        yield normalize(m.group()), m.start(), m.end()


class Tokens(NamedTuple):
    """A text's tokens as parallel arrays: vocabulary ids and character offsets."""

    ids: np.ndarray  # int32
    starts: np.ndarray  # int32, start offset of each token in the original text
    ends: np.ndarray  # int32, end offset (exclusive)

    def __len__(self) -> int:
        return len(self.ids)


class Vocabulary:
    """Maps normalised tokens to dense int ids, shared by every text of one judging run.

    Ids depend on the order texts are encoded, but alignments only compare ids for equality,
    so results do not depend on them.
    """

    def __init__(self) -> None:
        self._ids: dict[str, int] = {}

    def __len__(self) -> int:
        return len(self._ids)

    def encode(self, text: str) -> Tokens:
        ids = self._ids
        found = list(iter_tokens(text))
        token_ids = [ids.setdefault(tok, len(ids)) for tok, _, _ in found]
        return Tokens(
            np.array(token_ids, dtype=np.int32),
            np.array([s for _, s, _ in found], dtype=np.int32),
            np.array([e for _, _, e in found], dtype=np.int32),
        )
