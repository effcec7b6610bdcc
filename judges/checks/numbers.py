"""Numeric grounding: the numbers a sentence states, normalised, and whether a source states them.

A mention is normalised to a :class:`Number`: its ``value`` (multipliers applied, so ``$1.5M``,
``1,500,000`` and ``1.5 million`` are all ``1500000.0``), its ``kind`` (``percent``, ``currency``,
``year`` or ``plain``), the currency ``unit`` when one is written, and its ``[start, end)`` span:
``text[start:end] == surface`` always (offsets point into the text as given).

What is read (English conventions only):

* digits with ``,`` thousands groups and one ``.`` decimal point: ``1,500,000``, ``3.25``, ``.5``;
* multipliers: ``thousand million billion trillion hundred dozen lakh crore`` (words, also
  hyphenated ``1.5-million``), ``bn``/``mn`` (spaced or attached), ``K``/``M``/``B`` and ``k``
  attached (``2K``, ``10k``); a lower-case attached ``m``/``b`` only after a currency
  (``$5m``), since ``5m`` alone is usually five metres;
* percentages: ``%``, ``percent``, ``per cent``, ``percentage point(s)``, ``pct``;
* currencies: any currency symbol before the number (``$``, ``€``, ``US$``), an ISO code before or
  after it (``USD 5``, ``5 EUR``) or a currency word after it (``5 dollars``, ``20 euros``);
  ``unit`` is the canonical symbol (``USD``/``dollars`` → ``$``);
* years: a plain integer from 1000 to 2100, and decades ``1990s``/``1990's`` (value 1990);
* ordinals ``19th`` (value 19, kind plain); a unit written after the digits is ignored
  (``5km`` is 5);
* ranges ``10-20``, ``10–20``, ``10 to 20``, ``between 10 and 20``: both ends are reported, and a
  scale, percent or currency written on one end applies to the other (``10-20%``,
  ``$10-20 million``); ``2019-20`` is read as 2019 and 2020;
* number words (``fifteen``, ``twenty-five``, ``two hundred thousand``, ``a million``,
  ``first``) only when ``words=True``. Sources are read with words, sentences without: in
  sentences ``one`` is mostly not a number (``one of``, ``no one``), but a digit claim should be
  found when the source spells it out.

What is not a claim (skipped, documented choices):

* citation markers ``[1]``, ``[1, 2]``, ``[3-5]``, ``[doc 2]`` and ``(1)``-style enumerators of one
  or two digits in parentheses;
* list markers ``1.``/``2)`` at the start of a line;
* numbers after ``section``, ``§``, ``chapter``, ``figure``/``fig.``, ``table``, ``appendix``,
  ``equation``/``eq.``, ``page``/``p.``/``pp.``, ``paragraph``/``para.``, ``footnote``,
  ``step``, ``part``, ``passage``, ``ID`` (document structure and identifiers, not facts);
* numbers inside names and identifiers: digits attached to letters (``H1N1``, ``MP3``, ``G20``,
  ``x86``) or after a hyphen to a word (``COVID-19``, ``F-16``), except after the prefixes in
  ``NUMERIC_PREFIXES`` (``pre-2020``, ``mid-1990s``, ``top-10`` are claims);
* times and ratios ``10:30``, ``3:1``; dates and fractions with slashes ``1/2``, ``01/02/2020``;
  ISO dates ``2020-01-15`` except their year (read as the year 2020); numbers with two or more
  dots (versions, section numbers, addresses: ``3.2.1``);
* URLs and e-mail addresses; signs (a ``-`` before a number is far more often a range or a
  compound than a minus, so ``-5`` reads as 5); two-digit decades (``'90s``: century unknown).

Matching (:class:`NumberIndex`): a source number matches a claimed one when the values are equal
(or within ``rel_tol``, relative) and the kinds are compatible:

* a claimed percent needs a source percent, or a source *fraction*: a decimal between 0 and 1
  written right after ``rate``, ``ratio``, ``fraction``, ``proportion``, ``share``,
  ``probability`` or ``likelihood`` (optionally followed by ``of``/``is``/``was``/``=``/``:``),
  so ``15%`` matches "a rate of 0.15" and nothing else written as 0.15. The same rule applies
  the other way: a claimed fraction matches a source percent;
* a claimed currency needs a source amount with the same currency or none (``$5`` matches ``5``
  and ``5 dollars``, not ``€5`` and not ``5%``);
* a claimed plain number or year matches any source number of that value, a percent or a
  currency amount included (the claim may leave out the unit the source writes).
"""

from __future__ import annotations

import bisect
import math
import re
from decimal import Decimal
from collections.abc import Iterable
from typing import NamedTuple

from judges.checks.fold import re_lower
from judges.text.symbols import CURRENCY_SYMBOLS

PERCENT, CURRENCY, YEAR, PLAIN = "percent", "currency", "year", "plain"


# Written currencies and their canonical symbol. Dollar variants (US$, A$, C$...) all become "$".
CURRENCY_NAMES = {
    "usd": "$",
    "us dollars": "$",
    "dollar": "$",
    "dollars": "$",
    "cad": "$",
    "aud": "$",
    "eur": "€",
    "euro": "€",
    "euros": "€",
    "gbp": "£",
    "pounds sterling": "£",
    "jpy": "¥",
    "yen": "¥",
    "cny": "¥",
    "rmb": "¥",
    "yuan": "¥",
    "renminbi": "¥",
    "inr": "₹",
    "rs": "₹",
    "rs.": "₹",
    "rupee": "₹",
    "rupees": "₹",
    "chf": "CHF",
}
SYMBOL_NAMES = {"＄": "$", "﹩": "$", "￡": "£", "￥": "¥"}

MULTIPLIERS = {
    "hundred": 100,
    "thousand": 10**3,
    "million": 10**6,
    "billion": 10**9,
    "trillion": 10**12,
    "dozen": 12,
    "lakh": 10**5,
    "crore": 10**7,
    "k": 10**3,
    "m": 10**6,
    "b": 10**9,
    "bn": 10**9,
    "mn": 10**6,
}

# A word before "-<digits>" that makes the number a claim rather than part of a name.
NUMERIC_PREFIXES = frozenset(
    "pre post mid early late top over under about around approx ca circa c since until till by "
    "from to up age aged ages".split()
)

UNITS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen"
).split()
TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()
ORDINALS = (
    "zeroth first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth "
    "thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth"
).split()
TENS_ORDINALS = "twentieth thirtieth fortieth fiftieth sixtieth seventieth eightieth ninetieth".split()
WORD_VALUES = {
    **{w: i for i, w in enumerate(UNITS)},
    **{w: 20 + 10 * i for i, w in enumerate(TENS)},
    **{w: i for i, w in enumerate(ORDINALS)},
    **{w: 20 + 10 * i for i, w in enumerate(TENS_ORDINALS)},
    "a": 1,
    "an": 1,
}

_WORD_INITIALS = "".join(sorted({w[0] for w in WORD_VALUES} | {w[0].upper() for w in WORD_VALUES}))
_PREFIXES = "|".join(sorted(NUMERIC_PREFIXES, key=len, reverse=True))
_WORD_MULTS = "hundred|thousand|million|billion|trillion|dozen|lakh|crore"
_ONE_TO_NINE = "|".join(UNITS[1:10] + ORDINALS[1:10])
_SMALL = "|".join(sorted(UNITS + ORDINALS + TENS_ORDINALS, key=len, reverse=True))

_PATTERN = re.compile(
    rf"""
    (?P<marker>
        \[\s*\d+(?:\s*[-–,;]\s*\d+)*\s*\]                # citation markers [1] [1, 2] [3-5]
      | (?i:\[\s*(?:doc(?:ument)?|source|ref)\s*\d+\s*\])
      | \(\d{{1,2}}\)                                    # enumerators (1) (2)
    )
  | (?<![^\W\d_])                                      # the rest never starts inside a word
    (?:
    (?P<skip>
        \b(?i:https?://|www\.)\S+                        # URLs
      | (?<![\w.+-])[\w.+-]+@[\w-]+\.[\w.-]+              # e-mail addresses
      | (?m:^[ \t]*\d{{1,2}}[.)](?=\s))                   # list markers at the start of a line
      | \d+:\d+(?::\d+)?                                 # times and ratios
      | \d+/\d+(?:/\d+)?                                 # fractions and dates with slashes
      | (?P<isoyear>\d{{4}})-\d{{1,2}}-\d{{1,2}}(?!\d)     # ISO dates: only the year is read
      | \d+(?:\.\d+){{2,}}                               # versions, section numbers
      | '\d0s\b                                          # two-digit decades
    )
  | (?P<mention>
        (?P<cur>(?:US|A|C|NZ|HK|S)?\$\s?|[{CURRENCY_SYMBOLS}]\s?|(?:USD|EUR|GBP|JPY|CNY|RMB|INR|CHF|CAD|AUD|Rs\.?)\s?)?
        (?:
            (?<![^\W_])(?P<num>\d{{1,3}}(?:,\d{{3}})+(?:\.\d+)?(?!\d)|\d+(?:\.\d+)?|(?<![.])\.\d+)
          | \b(?=[{_WORD_INITIALS}])(?P<word>(?i:
                (?P<tens>{"|".join(TENS)})(?:[-\s](?P<tunit>{_ONE_TO_NINE}))?
              | {_SMALL}
              | an?(?=[\s-]+(?:{_WORD_MULTS})\b)
            ))\b
        )
        (?:
            (?P<ord>(?<=\d)(?:st|nd|rd|th)\b)
          | (?P<dec>(?<=\d)'?s\b)
          | (?P<mult>
                (?:[\s-]?(?i:{_WORD_MULTS})\b){{1,2}}
              | \s?(?i:bn|mn)\b
              | (?<=\d)[KMBkmb](?![^\W_])
            )?
            (?P<pct>\s?%|[\s-]?(?i:percent|per\s?cent|percentage\s+points?|pct)\b)?
            (?P<cursuf>\s(?:USD|EUR|GBP|JPY|CNY|RMB|INR|CHF|(?i:us\s+dollars|dollars?|euros?|pounds\s+sterling|yen|yuan|renminbi|rupees?))\b)?
        )
    )
  | (?<!\w)(?=[^\W\d_]+-?\d)(?P<ident>                 # letters then digits, scanned once
        [^\W\d_]+\d(?:\w|\.(?=\w))*                               # H1N1, MP3, G20, x86
      | (?!(?i:{_PREFIXES})-)[^\W\d_]+-\d(?:\w|\.(?=\w))*         # COVID-19, F-16; not pre-2020
    )
    )
    """,
    re.VERBOSE,
)

_STRUCTURE_WORDS = (
    "section", "§", "sec.", "chapter", "ch.", "figure", "fig.", "table", "appendix", "equation", "eq.",
    "page", "p.", "pp.", "paragraph", "para.", "footnote", "step", "part", "passage", "id",
)  # fmt: skip
_STRUCTURE = re.compile(
    r"(?i)(?:" + "|".join("§+" if w == "§" else r"\b" + re.escape(w) for w in _STRUCTURE_WORDS) + r")\s*$"
)


def _structure_before(window: str) -> bool:
    """Whether ``window`` (the text just before a number) ends with a structure word: the number
    is a section, page, step... number. ``_STRUCTURE.search(window)``, searched only where the
    ASCII window ends with such a word as written (in ASCII, the regex's case-insensitive
    letters are exactly those that lower-case alike, and its whitespace is what rstrip strips)."""
    if window.isascii() and not window.rstrip().lower().endswith(_STRUCTURE_WORDS):
        return False
    return _STRUCTURE.search(window) is not None


_FRACTION_CONTEXT = re.compile(
    r"(?i)\b(?:rate|ratio|fraction|proportion|share|probability|likelihood)"
    r"\s*(?:(?:of|is|was|were|equals?|equal\s+to)\s+|[=:]\s*)?$"
)
_DIGIT = re.compile(r"\d")
_SEPARATORS = re.compile(r"[\s-]+")
_RANGE_GAP = re.compile(r"(?i)\s*(?:[-–—]|to|through|and)\s*")
_YEAR_GAP = re.compile(r"\s*[-–—]\s*")


class Number(NamedTuple):
    """One number as stated: normalised ``value`` and ``kind``; ``text[start:end] == surface``."""

    value: float
    kind: str  # percent | currency | year | plain
    surface: str
    start: int
    end: int
    unit: str = ""  # canonical currency symbol, "" when none is written
    fraction: bool = False  # a decimal in rate/ratio context: also equals value*100 percent

    def describe(self) -> str:
        """``'$1.5M' (currency $ 1500000)``: the surface and what it was read as."""
        unit = f" {self.unit}" if self.unit else ""
        return f"{self.surface!r} ({self.kind}{unit} {_fmt(self.value)})"


def _fmt(value: float) -> str:
    return f"{value:.15g}"


class _Raw(NamedTuple):
    """A mention before range inheritance: value as a Decimal, scale and kind still separable."""

    base: Decimal
    scale: int
    percent: bool
    unit: str
    start: int
    end: int
    year_like: bool  # plain integer written with 4 digits
    digits: int  # number of integer digits as written (0 for words)
    decimal_point: bool
    decade: bool


def _currency(raw: str | None) -> str:
    if not raw:
        return ""
    key = " ".join(raw.split()).lower()
    if key in CURRENCY_NAMES:
        return CURRENCY_NAMES[key]
    key = key.replace(" ", "")
    if key.endswith("$"):
        return "$"
    return SYMBOL_NAMES.get(key, key.upper() if key.isalpha() else key)


def _word_value(m: re.Match) -> int:
    if m.group("tens"):
        value = WORD_VALUES[m.group("tens").lower()]
        if m.group("tunit"):
            value += WORD_VALUES[m.group("tunit").lower()]
        return value
    return WORD_VALUES[m.group("word").lower()]


# -- Finding the matches of _PATTERN fast --------------------------------------------------------
# Python's re tries the long pattern at every character, and that is nearly all the cost of reading
# a document. _matches tries it only where a match can start (a superset, listed by _starts from
# cheap scans), which gives exactly the matches of _PATTERN.finditer (the reference, compared on
# arbitrary and real text by the tests): after a match, finditer resumes at its end, and at every
# position that is not a start the pattern fails anyway.

_START_CHARS = re.compile(rf"[\d\[(.'@{CURRENCY_SYMBOLS}]")  # digits, markers, decimals, decades, e-mail, currency
_CURRENCY_CODES = ("USD", "EUR", "GBP", "JPY", "CNY", "RMB", "INR", "CHF", "CAD", "AUD", "Rs")
_MULTIPLIER_WORDS = tuple(w for w in MULTIPLIERS if len(w) > 2)
_ALL_WORDS = set(UNITS + TENS + ORDINALS + TENS_ORDINALS)
# Number words to look for: those no other one starts with (a hit of "six" also starts "sixteen").
_NUMBER_WORDS = tuple(sorted(w for w in _ALL_WORDS if not any(w != v and w.startswith(v) for v in _ALL_WORDS)))
_EMAIL_CHARS = frozenset(".+-_")


def _find_all(haystack: str, needle: str, out: list[int], shift: int = 0) -> None:
    i = haystack.find(needle)
    while i >= 0:
        out.append(i + shift)
        i = haystack.find(needle, i + 1)


def _is_letter(c: str) -> bool:
    """``[^\\W\\d_]`` of the pattern: a word character that is neither a decimal digit nor ``_``."""
    return c.isalnum() and not c.isdecimal()


def _starts_reference(text: str) -> list[int] | None:
    """Ascending positions where a match of ``_PATTERN`` may start; ``None``: try everywhere.
    (The readable reference of :func:`_starts`, which gives exactly this with a Numba kernel.)"""
    lowered = re_lower(text)
    if len(lowered) != len(text):
        return None
    starts = [0]
    _find_all(text, "\n", starts, 1)  # list markers at line starts
    for m in _START_CHARS.finditer(text):
        p, c = m.start(), m.group()
        starts.append(p)
        if c == "@":  # an e-mail address starts where its run of [\w.+-] does
            i = p
            while i > 0 and (text[i - 1].isalnum() or text[i - 1] in _EMAIL_CHARS):
                i -= 1
            starts.append(i)
        elif c in CURRENCY_SYMBOLS:  # US$, A$, NZ$...
            starts += [p - 1, p - 2]
        elif c.isdecimal() and p > 0 and not text[p - 1].isdecimal():  # H1N1, COVID-19
            i = p - 1 if text[p - 1] == "-" else p
            while i > 0 and _is_letter(text[i - 1]):
                i -= 1
            starts.append(i)
    for code in _CURRENCY_CODES:
        _find_all(text, code, starts)
    for url in ("http", "www."):
        _find_all(lowered, url, starts)
    for word in _NUMBER_WORDS:
        _find_all(lowered, word, starts)
    for word in _MULTIPLIER_WORDS:  # "a million", "an eighth" is a number word already
        at: list[int] = []
        _find_all(lowered, word, at)
        for q in at:
            i = q
            while i > 0 and (text[i - 1].isspace() or text[i - 1] == "-"):
                i -= 1
            starts += [i - 1, i - 2]
    return sorted({p for p in starts if 0 <= p < len(text)})


_KERNEL = None  # (number_starts, its needle tables), loaded on first use: importing Numba is slow


def _kernel():
    global _KERNEL
    if _KERNEL is None:
        import numpy as np

        from judges.checks.kernel import char_class, needle_table, number_starts

        case = needle_table([(code, 0) for code in _CURRENCY_CODES])
        low = needle_table([(w, 0) for w in ("http", "www.", *_NUMBER_WORDS)] + [(w, 1) for w in _MULTIPLIER_WORDS])
        ascii_classes = np.array([char_class(chr(c), CURRENCY_SYMBOLS) for c in range(128)], dtype=np.uint8)
        _KERNEL = (number_starts, case, low, ascii_classes, char_class)
    return _KERNEL


def _starts(text: str) -> list[int] | None:
    """Exactly :func:`_starts_reference`, in one pass of a Numba kernel."""
    lowered = re_lower(text)
    if len(lowered) != len(text):
        return None
    import numpy as np

    kernel, case, low, ascii_classes, char_class = _kernel()
    cp = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    if text.isascii():
        cls = ascii_classes[cp]
        lcp = np.frombuffer(lowered.encode("ascii"), dtype=np.uint8).astype(np.uint32)
    else:
        cls = ascii_classes[np.minimum(cp, 127)]
        wide = cp >= 128
        distinct, inverse = np.unique(cp[wide], return_inverse=True)
        cls[wide] = np.array([char_class(chr(c), CURRENCY_SYMBOLS) for c in distinct.tolist()], dtype=np.uint8)[inverse]
        lcp = np.frombuffer(lowered.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    return kernel(cp, lcp, cls, *case, *low).tolist()


def _matches(text: str):
    """The matches of ``_PATTERN.finditer(text)``, found by trying only :func:`_starts`."""
    starts = _starts(text)
    if starts is None:
        yield from _PATTERN.finditer(text)
        return
    end = 0
    for p in starts:
        if p >= end:
            m = _PATTERN.match(text, p)
            if m is not None:
                yield m
                end = m.end()


def _raw_mentions(text: str, words: bool) -> list[_Raw]:
    found: list[_Raw] = []
    for m in _matches(text):
        if m.group("isoyear") is not None:
            found.append(
                _Raw(
                    Decimal(m.group("isoyear")),
                    1,
                    False,
                    "",
                    m.start("isoyear"),
                    m.end("isoyear"),
                    True,
                    4,
                    False,
                    False,
                )
            )
            continue
        if m.group("mention") is None:
            continue  # skipped: marker, identifier, date, URL...
        num, word, mult = m.group("num"), m.group("word"), m.group("mult")
        if word is not None and not words:
            continue
        if m.group("dec") and (num is None or len(num) != 4):
            continue
        unit = _currency(m.group("cur")) or _currency(m.group("cursuf"))
        end, scale = m.end(), 1
        if mult and mult in ("m", "b") and not unit:
            end, mult = m.start("mult"), None  # "5m" without a currency: metres, not millions
        elif mult:
            for part in _SEPARATORS.split(mult.lower()):
                if part:
                    scale *= MULTIPLIERS[part]
        if word is not None and word.lower() in ("a", "an") and not mult:
            continue
        start = m.start("cur") if m.group("cur") else m.start("num" if num is not None else "word")
        if not m.group("cur") and _structure_before(text[max(0, start - 16) : start]):
            continue
        found.append(
            _Raw(
                base=Decimal(num.replace(",", "")) if num is not None else Decimal(_word_value(m)),
                scale=scale,
                percent=m.group("pct") is not None,
                unit=unit,
                start=start,
                end=end,
                year_like=num is not None and num.isdigit() and len(num) == 4,
                digits=len(num.split(".")[0].replace(",", "")) if num is not None else 0,
                decimal_point=num is not None and "." in num,
                decade=m.group("dec") is not None,
            )
        )
    return found


def _inherit(text: str, raws: list[_Raw]) -> list[_Raw]:
    """Apply range rules between neighbours: shared scale, percent and currency; 2019-20."""
    out = list(raws)
    for i in range(len(out) - 1):
        a, b = out[i], out[i + 1]
        gap = text[a.end : b.start]
        if not _RANGE_GAP.fullmatch(gap):
            continue
        if gap.strip().lower() == "and" and not text[max(0, a.start - 12) : a.start].rstrip().lower().endswith(
            "between"
        ):
            continue
        if (
            a.year_like
            and a.scale == 1
            and b.digits == 2
            and b.scale == 1
            and not b.percent
            and not b.decimal_point
            and _YEAR_GAP.fullmatch(gap)
        ):
            century = int(a.base) // 100 * 100
            full = century + int(b.base)
            if full <= int(a.base):
                full += 100
            out[i + 1] = b._replace(base=Decimal(full), year_like=True, digits=4)
            continue
        if (a.percent and b.unit) or (a.unit and (b.percent or (b.unit and b.unit != a.unit))):
            continue  # ends of different kinds: "rose 12% to $1.5 million" is no range
        if a.scale == 1 and b.scale > 1:
            a = a._replace(scale=b.scale)
        if b.percent and not a.percent and not a.unit:
            a = a._replace(percent=True)
        if b.unit and not a.unit and not a.percent:
            a = a._replace(unit=b.unit)
        if a.unit and not b.unit and not b.percent:
            b = b._replace(unit=a.unit)
        out[i], out[i + 1] = a, b
    return out


def _numbers(text: str, raws: list[_Raw]) -> list[Number]:
    numbers = []
    for r in raws:
        value = float(r.base * r.scale)
        if r.percent:
            kind = PERCENT
        elif r.unit:
            kind = CURRENCY
        elif (r.year_like or r.decade) and r.scale == 1 and 1000 <= value <= 2100:
            kind = YEAR
        else:
            kind = PLAIN
        fraction = (
            kind == PLAIN
            and r.decimal_point
            and 0 < value < 1
            and _FRACTION_CONTEXT.search(text[max(0, r.start - 40) : r.start]) is not None
        )
        numbers.append(Number(value, kind, text[r.start : r.end], r.start, r.end, r.unit, fraction))
    return numbers


def extract_numbers(text: str, *, words: bool = False) -> list[Number]:
    """The numbers ``text`` states, in order. ``words=True`` also reads number words."""
    if not words and _DIGIT.search(text) is None:
        return []
    return _numbers(text, _inherit(text, _raw_mentions(text, words)))


class NumberIndex:
    """The numbers of one source, ready for repeated look-ups (exact: sets; tolerant: bisect)."""

    __slots__ = ("amounts", "percents", "_sorted_amounts", "_sorted_percents")

    def __init__(self, numbers: Iterable[Number]):
        amounts: dict[float, set[str]] = {}
        percents: set[float] = set()
        for n in numbers:
            if n.kind == PERCENT:
                percents.add(n.value)
                continue
            amounts.setdefault(n.value, set()).add(n.unit)
            if n.fraction:
                percents.add(float(Decimal(repr(n.value)) * 100))
        self.amounts = {v: frozenset(u) for v, u in amounts.items()}
        self.percents = frozenset(percents)
        self._sorted_amounts: list[float] | None = None
        self._sorted_percents: list[float] | None = None

    @classmethod
    def of_text(cls, text: str) -> NumberIndex:
        """A source's index: number words read, and each range end both with and without the
        range rules (``5 to one million`` states 5 million, but a claim read without number
        words sees a bare 5 there, and must find it)."""
        raws = _raw_mentions(text, True)
        inherited = _inherit(text, raws)  # the same mentions, those in ranges changed
        changed = [raw for raw, now in zip(raws, inherited) if raw != now]  # the index is a set: once is enough
        return cls(_numbers(text, inherited) + _numbers(text, changed))

    def _close(self, value: float, pool: str, rel_tol: float) -> list[float]:
        if rel_tol <= 0:
            values = self.percents if pool == PERCENT else self.amounts
            return [value] if value in values else []
        if pool == PERCENT:
            if self._sorted_percents is None:
                self._sorted_percents = sorted(self.percents)
            ordered = self._sorted_percents
        else:
            if self._sorted_amounts is None:
                self._sorted_amounts = sorted(self.amounts)
            ordered = self._sorted_amounts
        # math.isclose scales the tolerance by the larger of the two values: widen the window to match
        spread = abs(value) * rel_tol / (1.0 - rel_tol) if rel_tol < 1.0 else math.inf
        lo = bisect.bisect_left(ordered, value - spread)
        hi = bisect.bisect_right(ordered, value + spread)
        return [v for v in ordered[lo:hi] if math.isclose(v, value, rel_tol=rel_tol)]

    def contains(self, number: Number, rel_tol: float = 0.0) -> bool:
        """Whether this source states ``number`` (see the module notes for kinds and units)."""
        if number.kind == PERCENT:
            return bool(self._close(number.value, PERCENT, rel_tol))
        if number.fraction and self._close(float(Decimal(repr(number.value)) * 100), PERCENT, rel_tol):
            return True
        for value in self._close(number.value, "amount", rel_tol):
            units = self.amounts[value]
            if not number.unit or number.unit in units or "" in units:
                return True
        if not number.unit and self._close(number.value, PERCENT, rel_tol):
            return True  # a bare claimed number may drop the unit the source writes
        return False
