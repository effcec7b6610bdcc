"""Entity grounding: names a sentence states (found by patterns, no model) and whether a source has them.

Extraction works on words: ``\\w`` runs joined by ``-``, ``'``, ``&`` or ``.`` (``Hewlett-Packard``,
``AT&T``, ``O'Brien``, ``U.S.`` are one word each; a possessive ``'s`` is cut off). A *capitalised*
word starts with an upper-case letter or has inner capitals (``iPhone``). Rules, in order:

1. **Sequences.** Neighbouring capitalised words separated only by spaces (or `` & ``) form one
   candidate (``Justin Bieber``, ``Johnson & Johnson``); up to two lower-case ``CONNECTORS``
   (``of``, ``the``, ``de``, ``van``...) may join two capitalised words (``Bank of the West``,
   ``Leonardo da Vinci``). Other punctuation, a line break or a lower-case word ends a sequence;
   the ``.`` of an abbreviation does not (``Dr. Smith``, ``U.S. Army``).
2. **Trimming.** Words at either end that are capitalised by position or habit are removed:
   ``COMMON_WORDS`` (``The``, ``However``, ``In``, ``I``...; not when written as an acronym, so
   ``WHO`` and ``US`` stay) and, at the start, ``HONORIFICS`` (``President``, ``Dr``...), so
   ``However, President Barack Obama`` yields ``Barack Obama``.
3. **Sentence-initial words.** The first word of a sentence (of the text, or after ``.``, ``!``,
   ``?``, ``:`` or a line break, not counting the ``.`` of ``Dr.``, ``U.S.`` or an initial) is
   capitalised whatever it is, so it is evidence of a name only when it is an acronym (``NASA``),
   has inner capitals (``iPhone``, ``YouTube``), is a hyphenated pair of capitalised parts
   (``Coca-Cola``), or is written capitalised mid-sentence elsewhere in the text or in
   ``context`` (the rest of the answer). Otherwise such a word is *uncertain*: alone it is not an
   entity; tied to the next word by a connector it is dropped (``Shares of Apple Inc.`` yields
   ``Apple Inc``); leading a sequence it stays in the surface, but the entity is also found
   without it (``Justin Bieber sings`` is found where the source says ``Bieber``).
4. **Single words** count only when they are acronyms of three or more capitals (``NASA``,
   ``IBM``), have inner capitals, are hyphenated names, or follow a ``CONTEXT_CUES`` phrase
   (``works at``, ``founded by``, ``acquired by``...). A lone capitalised word (``Paris``,
   ``British``, ``Internet``, ``Act``) and a two-letter acronym (``AI``, ``TV``, ``US``) count only
   with ``single_words=True``: in running text they are too often title-cased common nouns,
   adjectives of nationality or places that frame a claim without being what it asserts. On the
   AttributionBench dev pairs, counting them raised the share of attributable pairs the cap fires
   on from 4.3% to 7.8% (``bench/checks_agreement.py``).
5. **Not entities:** words with digits (``TiO2``, ``COVID-19``, ``G20``: formulas and identifiers,
   left to the aligner), months and weekdays (``CALENDAR``), words in URLs and e-mail addresses,
   single letters, acronyms in parentheses (``(WHO)``: a definition of the words before it), and
   anything inside quotation marks (``"..."``, ``“...”``, ``'...'``: titles and quoted terms, whose
   capitals say nothing about names and which the aligner compares as text).
6. **Kinds** (for reports): ``company`` (ends in one of ``COMPANY_SUFFIXES``: ``Acme Corp``,
   ``Google LLC``; also found without the suffix), ``context`` (after a ``CONTEXT_CUES`` phrase),
   ``acronym``, ``camel``, ``hyphenated``, else ``name``.

Acronyms defined in the text or context as ``Expansion Words (EW)`` are also found through their
expansion (``WHO`` where the source says ``World Health Organization``).

Matching (:class:`EntityIndex`): both sides become :func:`judges.checks.fold.key_words` (accents
stripped, case folded, possessive ``'s`` dropped, dotted abbreviations closed, a plural ``s``
stemmed): ``Zürich`` = ``zurich``, ``U.S.`` = ``US``, ``Americans`` = ``American``. An entity is
found when

* its words occur consecutively in the source, each equal to a source word or differing from it
  only by up to two letters at the end (both at least four letters: ``Europe``/``European``,
  ``Germany``/``German``; ``Ford`` never matches inside ``Stanford``); or
* ``partial=True`` (the default) and one of its distinctive words (:func:`distinctive_words`:
  four letters or more, not a common word, honorific or suffix) occurs in the source: people are
  often named by surname alone (``LeBron James`` → ``James``), organisations by part of their
  name (``US Federal Reserve`` → ``Federal Reserve``). Without it the cap fired on 7.5% of the
  attributable AttributionBench pairs instead of 4.3%; or
* ``fuzzy=t`` (0 < t <= 1, off by default) and each of its words has a source word with
  :class:`difflib.SequenceMatcher` ratio >= ``t``, in any order (for misspellings; slower).
"""

from __future__ import annotations

import bisect
import difflib
import re
from functools import lru_cache
from typing import NamedTuple

from judges.checks.fold import fold, key_words

CONNECTORS = frozenset("of the de da di du del della der den van von la le y al bin ibn".split())
COMMON_WORDS = frozenset(
    """
    a an the this that these those it its he she they we i you his her their our my your me us them
    in on at by for with from to of as into onto upon over under about after before during since until
    and but or nor so yet if when while although though because unless whereas whether
    however moreover furthermore additionally also thus therefore hence overall finally lastly then
    first second third next there here some many most all each every both either neither no not none
    one other another such what which who whom whose where why how according based despite unlike like
    regarding including given instead meanwhile today yes several few more less much very only just
    even still already often sometimes usually generally typically currently recently ultimately
    similarly likewise consequently nevertheless nonetheless besides otherwise indeed certainly
    perhaps maybe ok please note see title text source sources reference references answer question
    summary conclusion introduction background example examples is are was were be been
    do does did can could should would will may might must has have had i'm i'll i've i'd
    """.split()
)
HONORIFICS = frozenset(
    """
    mr mrs ms miss dr prof professor sir dame lord lady king queen prince princess saint st president
    vice senator sen governor gov general gen judge justice pope rev reverend father sister brother
    mayor chancellor minister secretary captain capt lieutenant lt sergeant sgt colonel col chief
    deputy honorable honourable hon
    """.split()
)
COMPANY_SUFFIXES = frozenset("inc corp corporation llc ltd co plc llp gmbh ag sa nv bv".split())
CALENDAR = frozenset(
    """
    january february march april may june july august september october november december
    jan feb mar apr jun jul aug sep sept oct nov dec
    monday tuesday wednesday thursday friday saturday sunday
    """.split()
)
# Abbreviations whose final "." does not end a sentence (single capitals count too: initials).
ABBREVIATIONS = frozenset("mr mrs ms dr prof st jr sr inc corp co ltd vs etc no gen sen rep gov mt ft".split())
CONTEXT_CUES = re.compile(
    r"(?i)\b(?:(?:works?|worked|working)\s+(?:at|for)|employed\s+by|(?:co-?)?founded\s+by|founder\s+of|"
    r"ceo\s+of|acquired\s+by|owned\s+by|developed\s+by|created\s+by|made\s+by|subsidiary\s+of|joined)\s+$"
)

_WORD = re.compile(r"(?:[^\W\d_]\.){2,}|\w+(?:[-'’&.]\w+)*")
_SKIP = re.compile(r"(?i:https?://|www\.)\S+|[\w.+-]+@[\w-]+\.[\w.-]+")
_QUOTED = re.compile(r"\"[^\"\n]*\"|“[^”\n]*”|„[^“”\n]*[“”]|«[^»\n]*»|(?<!\w)['‘](?:[^'’\n]|['’](?=\w))*['’](?!\w)")
_WORDS_AND_GAPS = re.compile(f"({_WORD.pattern})")  # split: [gap, word, gap, word, ..., gap] in one scan
_HARD_END = re.compile(r"[!?:\n]")
_DOTTED = re.compile(r"(?:[^\W\d_]\.){2,}")
_JOIN = re.compile(r"[ \t\u00a0]+(?:&[ \t\u00a0]+)?")
_POSSESSIVE = re.compile(r"(?:['’]s|['’])$")


def _surface(raw: str) -> str:
    """A word as matched without its possessive ending (``Bieber's`` → ``Bieber``)."""
    if "'" in raw or "’" in raw:
        cut = _POSSESSIVE.search(raw)
        if cut and cut.start() > 0:
            return raw[: cut.start()]
    return raw


_DEFINITION = re.compile(r"\(([A-Z][A-Za-z]*[A-Z]s?)\)")
_MIN_STEM, _MAX_TAIL = 4, 2  # tolerant word match: both >= 4 letters, one extends the other by <= 2


class Entity(NamedTuple):
    """One entity as stated; ``text[start:end] == surface``.

    ``keys`` are the key phrases it may be found by (any one suffices): the whole surface first,
    then shorter or expanded forms (without a company suffix, without an uncertain
    sentence-initial word, an acronym's expansion). ``parts`` are the distinctive words of a
    multi-word entity, any of which may stand for it alone (partial matching; see
    :func:`distinctive_words`).
    """

    surface: str
    start: int
    end: int
    kind: str  # name | acronym | camel | hyphenated | company | context
    keys: tuple[str, ...]
    parts: tuple[str, ...] = ()


class _Word(NamedTuple):
    text: str
    start: int
    end: int
    initial: bool  # sentence-initial position


def _is_acronym(word: str) -> bool:
    letters = [c for c in word if c.isalpha()]
    return len(letters) >= 2 and all(c.isupper() for c in letters)


def _is_camel(word: str) -> bool:
    """Inner capitals after a lower-case letter: iPhone, eBay, YouTube, McDonald."""
    return any(a.islower() and b.isupper() for a, b in zip(word, word[1:]))


def _is_hyphenated_name(word: str) -> bool:
    """Two or more capitalised parts joined by hyphens: Hewlett-Packard, Coca-Cola."""
    parts = word.split("-")
    return len(parts) > 1 and all(p[:1].isupper() for p in parts)


def _is_capitalised(word: str) -> bool:
    return word[0].isupper() or (not word.islower() and _is_camel(word))


def _is_abbreviation(word: str) -> bool:
    """Whether a ``.`` after ``word`` belongs to it: ``Dr``, ``Inc``, ``U.S.``, an initial ``J``."""
    return word.lower() in ABBREVIATIONS or _DOTTED.fullmatch(word) is not None or (len(word) == 1 and word.isupper())


def _blocked_spans(text: str) -> list[tuple[int, int]]:
    spans = []
    if "/" in text or "@" in text or "www" in text:
        spans += [m.span() for m in _SKIP.finditer(text)]
    if "'" in text or '"' in text or "’" in text or "“" in text or "„" in text or "«" in text:
        spans += [m.span() for m in _QUOTED.finditer(text)]
    return spans


def _words(text: str) -> list[_Word]:
    """All words with spans and sentence-initial flags; possessive endings cut off.

    Exactly :func:`_words_reference`, faster: the words and the gaps between them are found by
    one scan in C (a split keeping the words), offsets added up, no match object per word."""
    parts = _WORDS_AND_GAPS.split(text)
    words: list[_Word] = []
    append = words.append
    pos, prev = 0, ""
    for i in range(1, len(parts), 2):
        gap, raw = parts[i - 1], parts[i]
        start = pos + len(gap)
        pos = end = start + len(raw)
        surface = raw
        if "'" in raw or "’" in raw:
            surface = _surface(raw)
            end = start + len(surface)
        if gap == " " and i > 1:
            initial = False
        elif i == 1 or _HARD_END.search(gap):
            initial = True
        else:
            initial = "." in gap and not _is_abbreviation(prev)
        append(_Word(surface, start, end, initial))
        prev = raw
    return words


def _words_reference(text: str) -> list[_Word]:
    """All words with spans and sentence-initial flags; possessive endings cut off (the
    readable reference of :func:`_words`)."""
    words: list[_Word] = []
    prev_end, prev_word = 0, ""
    for m in _WORD.finditer(text):
        start, end = m.span()
        surface = m.group()
        if "'" in surface or "’" in surface:
            cut = _POSSESSIVE.search(surface)
            if cut and cut.start() > 0:
                end, surface = start + cut.start(), surface[: cut.start()]
        gap = text[prev_end:start]
        if gap == " " and words:  # the common case, decided without a regex
            initial = False
        elif not words or _HARD_END.search(gap):
            initial = True
        else:  # a full stop ends a sentence unless it belongs to an abbreviation
            initial = "." in gap and not _is_abbreviation(prev_word)
        words.append(_Word(surface, start, end, initial))
        prev_end, prev_word = m.end(), m.group()
    return words


def _sequences(text: str, words: list[_Word]) -> list[list[_Word]]:
    """Runs of capitalised words joined by spaces (or ``&``) or by connectors (rule 1)."""
    runs: list[list[_Word]] = []
    current: list[_Word] = []
    pending: list[_Word] = []  # connectors waiting for the next capitalised word
    for w in words:
        capitalised = _is_capitalised(w.text)
        last = pending[-1] if pending else (current[-1] if current else None)
        gap = text[last.end : w.start] if last is not None else ""
        adjacent = last is not None and (
            _JOIN.fullmatch(gap) is not None
            or (gap[:1] == "." and _JOIN.fullmatch(gap[1:]) is not None and _is_abbreviation(last.text))
        )
        if current and adjacent and capitalised:
            current += pending
            current.append(w)
            pending = []
        elif current and adjacent and w.text in CONNECTORS and len(pending) < 2:
            pending.append(w)
        else:
            if current:
                runs.append(current)
            current, pending = ([w] if capitalised else []), []
    if current:
        runs.append(current)
    return runs


def _is_common(word: str) -> bool:
    """A word capitalised by position or habit, not by being a name (``The``, ``However``, ``of``)."""
    return (word.lower() in COMMON_WORDS and not _is_acronym(word)) or word in CONNECTORS


def _trim(run: list[_Word]) -> list[_Word]:
    """Rule 2: drop common words at both ends and honorifics at the start."""
    i, j = 0, len(run)
    while i < j and (_is_common(run[i].text) or (run[i].text.lower() in HONORIFICS and j - i > 1)):
        i += 1
    while j > i and _is_common(run[j - 1].text):
        j -= 1
    return run[i:j]


def _kind(text: str, run: list[_Word]) -> str:
    if len(run) > 1 and run[-1].text.lower() in COMPANY_SUFFIXES:
        return "company"
    if CONTEXT_CUES.search(text, max(0, run[0].start - 30), run[0].start):
        return "context"
    if len(run) == 1:
        word = run[0].text
        if _is_acronym(word):
            return "acronym"
        if _is_camel(word):
            return "camel"
        if "-" in word:
            return "hyphenated"
    return "name"


def _self_evident(word: str) -> bool:
    """A word that is a name wherever it stands (rule 3)."""
    return _is_acronym(word) or _is_camel(word) or _is_hyphenated_name(word)


def _capitalised_mid_sentence(words: list[_Word]) -> set[str]:
    return {fold(w.text) for w in words if not w.initial and w.text[:1].isupper()}


@lru_cache(maxsize=4096)
def _capitalised_in(context: str) -> frozenset[str]:
    """Words capitalised mid-sentence in ``context`` (cached: a judge passes one answer as the
    context of each of its sentences, which would otherwise be re-read once per sentence; it
    asks again for a batch's uncited sentences, after up to a batch of other reports)."""
    parts = _WORDS_AND_GAPS.split(context)  # gap, word, gap, word, ..., gap
    out = set()
    for i in range(3, len(parts), 2):  # the non-initial words of _words(context) starting with a capital
        raw = parts[i]
        if not raw[0].isupper():
            continue
        gap = parts[i - 1]
        if gap != " " and (_HARD_END.search(gap) or ("." in gap and not _is_abbreviation(parts[i - 2]))):
            continue
        out.add(fold(_surface(raw)))
    return frozenset(out)


def _capitalised_in_reference(context: str) -> frozenset[str]:
    return frozenset(_capitalised_mid_sentence(_words_reference(context)))


def acronym_definitions(text: str) -> dict[str, str]:
    """``{"WHO": "World Health Organization"}`` for each ``Expansion Words (EW)`` in ``text``.

    The expansion is the run of words right before the parenthesis whose initials spell the
    acronym, skipping connectors (``of``, ``and``, ``the``); case is ignored.
    """
    found: dict[str, str] = {}
    for m in _DEFINITION.finditer(text):
        written = m.group(1)
        acronym = written[:-1] if written.endswith("s") and written[-2].isupper() else written  # FFPs
        letters = [c.lower() for c in acronym if c.isupper()]
        before = re.findall(r"[^\W\d_][\w-]*", text[max(0, m.start() - 200) : m.start()])
        picked: list[str] = []
        k = len(letters)
        for word in reversed(before):
            if k == 0:
                break
            if word.lower() in ("of", "and", "the", "for", "on", "in", "to") and picked:
                picked.append(word)
                continue
            parts = word.split("-")
            if len(parts) > 1 and [p[:1].lower() for p in parts] == letters[k - len(parts) : k]:
                k -= len(parts)
            elif word[0].lower() == letters[k - 1]:
                k -= 1
            else:
                break
            picked.append(word)
        if k == 0 and picked:
            found[acronym] = " ".join(reversed(picked))
    return found


def _counts_alone(word: _Word, text: str, single_words: bool) -> bool:
    """Whether a one-word candidate is an entity (rule 4)."""
    if _is_acronym(word.text):
        return sum(c.isupper() for c in word.text) >= 3 or single_words
    if _is_camel(word.text) or _is_hyphenated_name(word.text):
        return True
    return single_words or CONTEXT_CUES.search(text, max(0, word.start - 30), word.start) is not None


def extract_entities(text: str, *, context: str | None = None, single_words: bool = False) -> list[Entity]:
    """The entities ``text`` states, in order (rules in the module notes).

    ``context`` is more text by the same author (the whole answer when ``text`` is one of its
    sentences): it decides sentence-initial words (rule 3) and supplies acronym definitions.
    ``single_words=True`` also reports lone capitalised words and two-letter acronyms (rule 4).
    """
    if _states_none(text, context):
        return []
    return _extract_entities(text, context, single_words)


_ASCII_CAPITALS = bytes(range(65, 91))  # A-Z


def _states_none(text: str, context: str | None) -> bool:
    """A shortcut, exact: ``True`` only where :func:`_extract_entities` finds nothing, because
    no word is capitalised but perhaps the first, an uncertain sentence opener (rule 3) that
    ``context`` never capitalises mid-sentence. (Two sentences in five of real answers have at most one capital.)

    With no upper-case character no word is capitalised (rule 1 needs one). With exactly one, at
    the start of the first word, that word is a run of its own, and it is not self-evident (an
    acronym, camel-case or hyphenated name needs a second capital): it is kept only when a
    capital elsewhere makes it certain, and the sentence has no other capital.
    """
    if text.isascii():  # str.isupper on an ASCII character: A-Z
        capitals = len(text) - len(text.encode("ascii").translate(None, _ASCII_CAPITALS))
    else:
        capitals = sum(map(str.isupper, text))
    if capitals != 1:
        return capitals == 0
    m = _WORD.search(text)
    if m is None:
        return True
    first = m.group()
    if not first[0].isupper():
        return False
    if context is None:
        return True
    return fold(_surface(first)) not in _capitalised_in(context)


def _extract_entities(text: str, context: str | None, single_words: bool) -> list[Entity]:
    """:func:`extract_entities` without the shortcut (its reference)."""
    words = _words(text)
    if not words:
        return []
    blocked = _blocked_spans(text)
    seen = _Seen(words, text, context)
    entities: list[Entity] = []
    for run in _sequences(text, words):
        run, uncertain = _opening(_trim(run), seen)
        if not run or (uncertain and len(run) == 1) or _not_a_name(run, text, blocked, single_words):
            continue
        entity = _entity(text, run, uncertain, seen)
        if entity is not None:
            entities.append(entity)
    return entities


class _Seen:
    """What an answer says elsewhere, worked out when first asked: the words it capitalises
    mid-sentence (with its context's capitalised words) and the acronyms it defines."""

    def __init__(self, words: list, text: str, context: str | None):
        self.words, self.text, self.context = words, text, context
        self._capitalised: set[str] | None = None
        self._definitions: dict[str, str] | None = None

    def capitalised(self) -> set[str]:
        if self._capitalised is None:
            self._capitalised = _capitalised_mid_sentence(self.words)
            if self.context:
                self._capitalised |= _capitalised_in(self.context)
        return self._capitalised

    def definitions(self) -> dict[str, str]:
        if self._definitions is None:
            self._definitions = acronym_definitions(self.text + ("\n" + self.context if self.context else ""))
        return self._definitions


def _opening(run: list, seen: _Seen) -> tuple[list, bool]:
    """``run`` and whether its first word is an uncertain part of the name (a capitalised sentence
    opener the answer does not capitalise elsewhere); an opener tied on by a connector ("Shares of
    Apple Inc.") is dropped."""
    if not run:
        return run, False
    uncertain = run[0].initial and not _self_evident(run[0].text)
    if uncertain:
        uncertain = fold(run[0].text) not in seen.capitalised()
    if uncertain and len(run) > 1 and run[1].text in CONNECTORS:
        return _trim(run[1:]), False
    return run, uncertain


def _not_a_name(run: list, text: str, blocked: list, single_words: bool) -> bool:
    """Inside a URL or quotation marks, a number or a date, or a single word that does not count alone."""
    start, end = run[0].start, run[-1].end
    if any(a <= start < b or a < end <= b for a, b in blocked):
        return True
    if any(c.isdigit() for w in run for c in w.text) or all(fold(w.text) in CALENDAR for w in run):
        return True
    return len(run) == 1 and (
        len(run[0].text) < 2
        or not _counts_alone(run[0], text, single_words)
        or (text[start - 1 : start] == "(" and text[end : end + 1] == ")")
    )


def _entity(text: str, run: list, uncertain: bool, seen: _Seen) -> Entity | None:
    """The entity ``run`` names, with the keys it may be found under (None: no key words)."""
    start, end = run[0].start, run[-1].end
    surface = text[start:end]
    full = key_words(surface)
    if not full:
        return None
    keys = [" ".join(full)]
    kind = _kind(text, run)
    if kind == "company":
        keys.append(" ".join(key_words(text[start : run[-2].end])))
    certain = key_words(text[run[1].start : end]) if uncertain else full
    if uncertain and not (kind == "company" and len(run) == 2):
        keys.append(" ".join(certain))
    if kind == "acronym":
        definitions = seen.definitions()
        if surface in definitions:
            keys.append(" ".join(key_words(definitions[surface])))
    parts = tuple(distinctive_words(certain)) if len(run) > 1 else ()
    return Entity(surface, start, end, kind, tuple(k for k in keys if k), parts)


def distinctive_words(words: list[str]) -> list[str]:
    """The key words of a multi-word name that may stand for it alone (partial matching).

    At least four letters and not a common word, connector, honorific or company suffix:
    ``barack obama`` → ``barack``, ``obama``; ``bank of america`` → ``bank``, ``america``. An
    uncertain sentence-initial word is never one (``Said Maria Lopez`` → ``maria``, ``lopez``).
    """
    return [
        w
        for w in words
        if len(w) >= _MIN_STEM and w not in COMMON_WORDS and w not in HONORIFICS and w not in COMPANY_SUFFIXES
    ]


class EntityIndex:
    """One source's key words, ready for repeated entity look-ups."""

    __slots__ = ("phrase", "_words", "_distinct", "_positions", "_vocabulary")

    def __init__(self, text: str):
        words = key_words(text)
        self.phrase = " " + " ".join(words) + " "  # for the fast exact search
        self._words = words
        self._distinct: set[str] | None = None
        self._positions: dict[str, list[int]] | None = None
        self._vocabulary: list[str] | None = None

    @property
    def positions(self) -> dict[str, list[int]]:
        """Word -> its indexes in the source (built on the first look-up the phrase cannot answer)."""
        if self._positions is None:
            positions: dict[str, list[int]] = {}
            for i, w in enumerate(self._words):
                positions.setdefault(w, []).append(i)
            self._positions = positions
        return self._positions

    @property
    def distinct(self) -> set[str]:
        if self._distinct is None:
            self._distinct = set(self._words)
        return self._distinct

    @property
    def vocabulary(self) -> list[str]:
        """Distinct words, sorted, for prefix and fuzzy search."""
        if self._vocabulary is None:
            self._vocabulary = sorted(self.distinct)
        return self._vocabulary

    def _variants(self, word: str) -> list[str]:
        """Source words equal to ``word`` or extending it, or it them, by at most two letters
        (both at least four letters long)."""
        distinct = self.distinct
        out = [word] if word in distinct else []
        if len(word) < _MIN_STEM:
            return out
        for k in range(1, _MAX_TAIL + 1):  # source word shorter
            shorter = word[:-k]
            if len(shorter) >= _MIN_STEM and shorter in distinct:
                out.append(shorter)
        ordered = self.vocabulary
        i = bisect.bisect_right(ordered, word)  # source word longer: same prefix, sorted after it
        while i < len(ordered) and ordered[i].startswith(word):
            if len(ordered[i]) - len(word) <= _MAX_TAIL:
                out.append(ordered[i])
            i += 1
        return out

    def has_phrase(self, key: str) -> bool:
        """Whether the key's words occur consecutively in the source (each equal or tolerantly equal)."""
        if f" {key} " in self.phrase:
            return True
        variants = [self._variants(w) for w in key.split()]
        if not variants or not all(variants):
            return False
        if len(variants) == 1:
            return True  # one word with a variant in the source (positions not needed)
        words, following = self._words, [set(options) for options in variants[1:]]
        last = len(words) - len(following)  # a start must leave room for the following words
        return any(
            p < last and all(words[p + offset] in options for offset, options in enumerate(following, 1))
            for v in variants[0]
            for p in self.positions[v]
        )

    def contains(self, entity: Entity, fuzzy: float | None = None, partial: bool = True) -> bool:
        """Whether the source states ``entity`` (see the module notes for keys, partial, fuzzy)."""
        if any(self.has_phrase(k) for k in entity.keys):
            return True
        if partial and any(self.has_phrase(w) for w in entity.parts):
            return True
        if fuzzy is not None:
            return all(
                self._variants(w) or difflib.get_close_matches(w, self.vocabulary, n=1, cutoff=fuzzy)
                for w in entity.keys[0].split()
            )
        return False
