"""Answer markers: the answer with each sentence's supporting sources named after it.

:func:`annotate` takes an answer and its judgment (the result of :func:`judges.check_answer`)
and returns the answer's text with a marker at the end of each sentence: after its final
punctuation, before the whitespace that follows (``...million.[1] The CEO...``). Nothing of the
answer is changed or removed: deleting the markers (and the footnote lines) gives it back.

Sources are numbered 1, 2, ... in order of first appearance in the answer (within a sentence, in
the result's order: best first when discovered, as cited otherwise); a sentence lists its
sources' numbers in increasing order (:func:`source_numbers`). A source is named after a
sentence when the judge found it ``supported`` or ``partial`` for that sentence; a partial one
carries an asterisk (it supports part of the sentence; TREC counts it at half weight). A
sentence with text and no such source (``result.unsupported_sentences``: none found, none cited,
or none the judge could read or found supporting) gets the unsupported marker:

=============== =========== ========= ============== ===================
style           supported   partial   several        unsupported
=============== =========== ========= ============== ===================
``brackets``    ``[1]``     ``[2*]``  ``[1][2*]``    ``[unsupported]``
``superscript`` ``¹``       ``²*``    ``¹,²*``       ``†``
``footnote``    ``[^1]``    ``[^2*]`` ``[^1][^2*]``  ``[^unsupported]``
=============== =========== ========= ============== ===================

``footnote`` is Markdown's footnotes: after the answer come a blank line and one line per label
used, in number order (``[^1]: q3``, ``[^2*]: board (partial support)``, then
``[^unsupported]: no source given supports this sentence``). The asterisk sits inside the
marker, where Markdown cannot take it for emphasis.

An answer given as a list of sentences is annotated as one string: its sentences joined by one
space. The output depends only on the answer, the result and the style.
"""

from __future__ import annotations

from typing import Sequence, Union

from judges.api.answer import FOUND, AnswerCheck, CheckedSentence
from judges.core.vocabulary import MARKER_STYLES

PARTIAL_MARK = "*"
SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")
UNSUPPORTED = {"brackets": "[unsupported]", "superscript": "†", "footnote": "[^unsupported]"}
SEPARATOR = {"brackets": "", "superscript": ",", "footnote": ""}
UNSUPPORTED_NOTE = "no source given supports this sentence"


def annotate(answer: Union[str, Sequence[Union[str, dict]]], result: AnswerCheck, style: str = "brackets") -> str:
    """``answer`` with markers naming each sentence's supporting sources (see the module doc).

    ``answer``: the string or list of sentences given to :func:`judges.check_answer`; ``result``:
    what it returned; ``style``: one of :data:`judges.core.vocabulary.MARKER_STYLES`.
    """
    if style not in MARKER_STYLES:
        raise ValueError(f"style {style!r}: one of {', '.join(MARKER_STYLES)}")
    text, ends = _text_and_ends(answer, result)
    numbers = source_numbers(result)
    unsupported = {s.index for s in result.unsupported_sentences}
    pieces, at, used, flagged = [], 0, set(), False
    for s, end in zip(result.sentences, ends):
        labels = _labels(s, numbers)
        if labels:
            marker = SEPARATOR[style].join(_marker(n, partial, style) for n, partial in labels)
            used.update(labels)
        elif s.index in unsupported:
            marker, flagged = UNSUPPORTED[style], True
        else:
            continue
        pieces += [text[at:end], marker]
        at = end
    pieces.append(text[at:])
    out = "".join(pieces)
    if style == "footnote" and (used or flagged):
        ids = {n: source_id for source_id, n in numbers.items()}
        notes = [
            f"{_marker(n, partial, style)}: {ids[n]}" + " (partial support)" * partial for n, partial in sorted(used)
        ]
        notes += [f"{UNSUPPORTED[style]}: {UNSUPPORTED_NOTE}"] * flagged
        out += "\n\n" + "\n".join(notes)
    return out


def source_numbers(result: AnswerCheck) -> dict[str, int]:
    """The number of each source named in ``result``: 1, 2, ... in order of first appearance."""
    numbers: dict[str, int] = {}
    for s in result.sentences:
        for c in s.citations:
            if c.status in FOUND:
                numbers.setdefault(c.source_id, len(numbers) + 1)
    return numbers


def _labels(s: CheckedSentence, numbers: dict[str, int]) -> list[tuple[int, bool]]:
    """The sentence's sources as (number, partial), in number order; a source cited twice is
    partial only when no citation of it is supported."""
    partial: dict[int, bool] = {}
    for c in s.citations:
        if c.status in FOUND:
            n = numbers[c.source_id]
            partial[n] = partial.get(n, True) and c.status == "partial"
    return sorted(partial.items())


def _marker(n: int, partial: bool, style: str) -> str:
    mark = PARTIAL_MARK if partial else ""
    if style == "superscript":
        return str(n).translate(SUPERSCRIPT) + mark
    return f"[^{n}{mark}]" if style == "footnote" else f"[{n}{mark}]"


def _text_and_ends(answer, result: AnswerCheck) -> tuple[str, list[int]]:
    """The answer as one string and, per sentence, the offset its marker goes at (the end of its
    text without trailing whitespace)."""
    sentences = result.sentences
    if isinstance(answer, str):
        for s in sentences:
            if s.start < 0 or answer[s.start : s.end] != s.text:
                raise ValueError(
                    f"result: sentence {s.index} is not the answer's characters {s.start}:{s.end} "
                    "(annotate the result of check_answer on this answer)"
                )
        return answer, [s.start + len(s.text.rstrip()) for s in sentences]
    texts = [s.text for s in sentences]
    if [item.get("text") if isinstance(item, dict) else item for item in answer] != texts:
        raise ValueError("result: its sentences are not the answer's (annotate the result of check_answer on it)")
    ends, at = [], 0
    for t in texts:
        ends.append(at + len(t.rstrip()))
        at += len(t) + 1
    return " ".join(texts), ends
