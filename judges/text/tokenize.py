"""Word tokenizer whose tokens keep ``[start, end)`` offsets into the ORIGINAL text.

A token is found in the original text and only then normalised (Unicode NFKC, then casefold,
curly apostrophes and Unicode hyphens folded to ASCII), so ``text[start:end]`` is always the
surface form of the token, whatever the normalisation does to lengths.

Token grammar, first alternative wins at each position:

* numbers with separators: ``1,250,000``, ``3.5``, ``2.000,50`` (digits joined by ``.`` or ``,``);
* words: letters and digits, with internal hyphens or apostrophes (``covid-19``, ``don't``);
* single symbols: ``%``, ``‰`` and every Unicode currency symbol (category ``Sc``).

Everything else (spaces, punctuation, underscores) separates tokens.

``TOKEN_PATTERN`` and :func:`iter_tokens` are the definition. Texts are scanned by a Numba
kernel (:mod:`judges.text.kernel`) that implements the same grammar on ASCII and maps tokens to
ids through a hash table. A text with other characters is scanned as its *stand-in*: the same
text with each non-ASCII character replaced by an ASCII one of the same class in the grammar
(``0`` for a decimal digit, ``a`` for another letter or digit, ``-`` for a Unicode hyphen or
apostrophe, ``$`` for a currency sign or ``‰``, a space for anything else). The grammar only
looks at these classes, so the stand-in has the same tokens at the same offsets; a token with a
non-ASCII character then takes its id from the vocabulary's dict (NFKC, casefold), not from the
table. The tests check that every path gives exactly the reference's tokens, offsets and ids.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from typing import Iterator, NamedTuple

import numpy as np

from judges.text.kernel import insert_ascii_tokens, lookup_ascii_tokens, new_table
from judges.text.symbols import CURRENCY_SYMBOLS

_JOINERS = "-\u2010\u2011'\u2019"  # hyphens and apostrophes that join the parts of a word
_SYMBOLS = "%\u2030" + CURRENCY_SYMBOLS  # single-character tokens

TOKEN_PATTERN = re.compile(
    r"\d+(?:[.,]\d+)+"
    rf"|[^\W_]+(?:[{re.escape(_JOINERS)}][^\W_]+)*"
    rf"|[{re.escape(_SYMBOLS)}]"
)
_FOLD = str.maketrans({"\u2019": "'", "\u2010": "-", "\u2011": "-"})


def normalize(surface: str) -> str:
    """The comparison form of one token: NFKC, casefold, ASCII apostrophe and hyphen."""
    if surface.isascii():
        return surface.lower()
    return unicodedata.normalize("NFKC", surface).casefold().translate(_FOLD)


def iter_tokens(text: str) -> Iterator[tuple[str, int, int]]:
    """Yield ``(normalised token, start, end)`` with offsets into ``text`` itself.

    The readable definition: :meth:`Vocabulary.encode` must agree with it exactly (the tests
    check this).
    """
    if text.isascii():
        # ASCII: NFKC is the identity and casefold is lower(), which keeps every offset.
        lowered = text.lower()
        for m in TOKEN_PATTERN.finditer(lowered):
            yield m.group(), m.start(), m.end()
        return
    for m in TOKEN_PATTERN.finditer(text):
        yield normalize(m.group()), m.start(), m.end()


_UNKNOWN = 255
# The stand-in byte of each code point of the Basic Multilingual Plane, filled as they are met.
_BMP_STAND_IN = np.full(0x10000, _UNKNOWN, dtype=np.uint8)
_BMP_STAND_IN[:128] = np.arange(128)


def _class_byte(cp: int) -> int:
    ch = chr(cp)
    if re.fullmatch(r"\d", ch):
        return ord("0")
    if re.fullmatch(r"[^\W_]", ch):
        return ord("a")
    if ch in _JOINERS:
        return ord("-")
    if ch in _SYMBOLS:
        return ord("$")
    return ord(" ")


def stand_in(text: str) -> tuple[np.ndarray, np.ndarray]:
    """``(bytes, wide)``: the ASCII stand-in of ``text`` (see the module doc), one byte per code
    point, and whether each code point is non-ASCII."""
    cp = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), np.uint32)
    out = _BMP_STAND_IN[np.minimum(cp, 0xFFFF)]
    astral = cp > 0xFFFF
    if astral.any():
        out[astral] = [_class_byte(c) for c in cp[astral].tolist()]
    unknown = out == _UNKNOWN
    if unknown.any():
        for c in np.unique(cp[unknown]).tolist():
            _BMP_STAND_IN[c] = _class_byte(c)
        out[unknown] = _BMP_STAND_IN[cp[unknown]]
    return out, cp >= 128


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
    so results do not depend on them. Ids are given in order of first occurrence
    (``dict.setdefault``); ASCII texts look their tokens up in a Numba hash table that caches
    the ASCII entries of the dict (:func:`judges.text.kernel.lookup_ascii_tokens`).
    """

    def __init__(self) -> None:
        self._ids: dict[str, int] = {}
        # the Numba table (see judges.text.kernel): slot records, byte arena, counts
        self._slots, self._arena, self._counts = new_table(1 << 12, 1 << 14)

    def __len__(self) -> int:
        return len(self._ids)

    def tokens_from(self, start: int) -> list[str]:
        """The normalised tokens with ids ``start, start + 1, ...`` (ids follow insertion order)."""
        return list(itertools.islice(self._ids, start, None))

    def encode(self, text: str) -> Tokens:
        """Tokens of ``text``; a token seen for the first time gets the next free id.

        Identical to :meth:`encode_reference` (the tests check this).
        """
        if text.isascii():
            buf, wide = np.frombuffer(text.encode("ascii"), np.uint8), None
        else:
            buf, wide = stand_in(text)
        starts, ends, token_ids, missed = lookup_ascii_tokens(buf, self._slots, self._arena)
        if wide is not None:
            before = np.zeros(len(wide) + 1, dtype=np.int32)
            np.cumsum(wide, out=before[1:])
            missed = self._resolve_wide(text, starts, ends, token_ids, missed, before[ends] > before[starts])
        elif len(missed):
            # Not in the table (new, or first met in a non-ASCII text): the dict decides, in
            # text order, so new tokens take ids in order of first occurrence.
            ids = self._ids
            for k, s, e in missed.tolist():
                token_ids[k] = ids.setdefault(text[s:e].lower(), len(ids))
        if len(missed):
            self._slots, self._arena = insert_ascii_tokens(
                buf, missed, token_ids, self._slots, self._arena, self._counts
            )
        return Tokens(token_ids, starts, ends)

    def _resolve_wide(self, text, starts, ends, token_ids, missed, is_wide) -> np.ndarray:
        """Ids of the tokens with a non-ASCII character (``is_wide``) and of the table's misses,
        from the dict in text order (so new tokens take ids in order of first occurrence);
        returns the misses that are ASCII tokens: the rows to insert into the table."""
        ids = self._ids
        ascii_missed = missed[~is_wide[missed[:, 0]]]
        todo = is_wide.copy()
        todo[ascii_missed[:, 0]] = True
        for k in np.flatnonzero(todo).tolist():
            token_ids[k] = ids.setdefault(normalize(text[starts[k] : ends[k]]), len(ids))
        return ascii_missed

    def encode_many(self, texts: list[str]) -> list[Tokens]:
        """``[self.encode(t) for t in texts]`` in one call (one kernel dispatch, not one per text).

        Exact because no token can contain or be joined across a newline: the texts are encoded
        as one newline-joined text and the tokens split back at the joins.
        """
        if not texts:
            return []
        joined = self.encode("\n".join(texts))
        text_starts = np.zeros(len(texts) + 1, dtype=np.int64)
        np.cumsum([len(t) + 1 for t in texts], out=text_starts[1:])
        cuts = np.searchsorted(joined.starts, text_starts)
        out = []
        for i in range(len(texts)):
            a, b = cuts[i], cuts[i + 1]
            shift = np.int32(text_starts[i])
            out.append(Tokens(joined.ids[a:b], joined.starts[a:b] - shift, joined.ends[a:b] - shift))
        return out

    def encode_reference(self, text: str) -> Tokens:
        """The readable :meth:`encode`, on :func:`iter_tokens`."""
        ids = self._ids
        found = list(iter_tokens(text))
        token_ids = [ids.setdefault(tok, len(ids)) for tok, _, _ in found]
        return Tokens(
            np.array(token_ids, dtype=np.int32),
            np.array([s for _, s, _ in found], dtype=np.int32),
            np.array([e for _, _, e in found], dtype=np.int32),
        )
