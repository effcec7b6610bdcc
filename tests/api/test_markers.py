"""Answer markers (:func:`judges.annotate`): golden strings per style, and a property: deleting the
markers gives back the answer exactly, whatever the answer and its judgment."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import cli_in_process, run_cli

import judges
from judges.api.answer import AnswerCheck, CheckedSentence, CitedSource
from judges.api.markers import source_numbers
from judges.core.vocabulary import MARKER_STYLES, STATUSES

#: What each style inserts (a sentence's markers, or the unsupported one), and nothing else matches
#: in the answers below (their characters hold no bracket, caret, asterisk, dagger or superscript).
MARKERS = {
    "brackets": r"(?:\[\d+\*?\])+|\[unsupported\]",
    "superscript": r"[⁰¹²³⁴⁵⁶⁷⁸⁹]+\*?(?:,[⁰¹²³⁴⁵⁶⁷⁸⁹]+\*?)*|†",
    "footnote": r"(?:\[\^\d+\*?\])+|\[\^unsupported\]",
}


def cited(source_id: str, status: str) -> CitedSource:
    return CitedSource(source_id, status, None, None, 0.0, 0, 0, "", "")


def check(answer: str, parts: list[tuple[str, list[CitedSource]]]) -> AnswerCheck:
    """A judgment of ``answer`` whose sentences are ``parts``' texts, found in it in order."""
    sentences, at = [], 0
    for i, (text, citations) in enumerate(parts):
        start = answer.index(text, at)
        at = start + len(text)
        sentences.append(CheckedSentence(i, text, start, at, tuple(citations)))
    return AnswerCheck(tuple(sentences), {})


ANSWER = "Revenue rose 12% to $1.5 million.  The CEO resigned in May.\nPenguins cannot fly. It rained. "
PARTS = [
    ("Revenue rose 12% to $1.5 million.", [cited("board", "partial"), cited("q3", "supported")]),
    ("The CEO resigned in May.", [cited("board", "supported"), cited("memo", "unsupported")]),
    ("Penguins cannot fly.", []),
    ("It rained.", [cited("memo", "missing")]),
]
GOLDEN = {
    "brackets": (
        "Revenue rose 12% to $1.5 million.[1*][2]  The CEO resigned in May.[1]\n"
        "Penguins cannot fly.[unsupported] It rained.[unsupported] "
    ),
    "superscript": (
        "Revenue rose 12% to $1.5 million.¹*,²  The CEO resigned in May.¹\nPenguins cannot fly.† It rained.† "
    ),
    "footnote": (
        "Revenue rose 12% to $1.5 million.[^1*][^2]  The CEO resigned in May.[^1]\n"
        "Penguins cannot fly.[^unsupported] It rained.[^unsupported] \n\n"
        "[^1]: board\n[^1*]: board (partial support)\n[^2]: q3\n[^unsupported]: no source given supports this sentence"
    ),
}


@pytest.mark.parametrize("style", MARKER_STYLES)
def test_each_style_marks_the_fixed_example_as_written(style):
    """Sources numbered by first appearance (board before q3, though q3 is the better source of the
    first sentence), a sentence's numbers in order, partial with an asterisk, unsupported,
    uncited and missing-only sentences flagged; whitespace kept."""
    result = check(ANSWER, PARTS)
    assert judges.annotate(ANSWER, result, style) == GOLDEN[style]
    assert source_numbers(result) == {"board": 1, "q3": 2}


@pytest.mark.parametrize("style", MARKER_STYLES)
def test_a_list_answer_is_annotated_as_its_sentences_joined_by_a_space(style):
    sentences = [text for text, _ in PARTS]
    answer = [{"text": t, "citations": []} for t in sentences[:2]] + sentences[2:]
    joined = " ".join(sentences)
    result = AnswerCheck(tuple(CheckedSentence(i, t, -1, -1, tuple(c)) for i, (t, c) in enumerate(PARTS)), {})
    assert judges.annotate(answer, result, style) == judges.annotate(joined, check(joined, PARTS), style)


def test_an_unknown_style_or_another_answers_result_is_refused():
    result = check(ANSWER, PARTS)
    with pytest.raises(ValueError, match="style 'wiki': one of brackets, superscript, footnote"):
        judges.annotate(ANSWER, result, "wiki")
    with pytest.raises(ValueError, match="sentence 0 is not the answer's characters 0:33"):
        judges.annotate("Another answer entirely, longer than the first one.", result)
    with pytest.raises(ValueError, match="its sentences are not the answer's"):
        judges.annotate(["Revenue rose 12%."], result)


def test_a_real_judgment_is_annotated_at_its_sentence_ends():
    answer = "Revenue rose 12% to $1.5 million.   The CEO resigned in May. Penguins cannot fly.\n"
    sources = [("q3", "Q3 report: revenue rose 12% to $1.5 million, a record."), ("board", "The CEO resigned in May.")]
    result = judges.check_answer(answer, sources)
    assert judges.annotate(answer, result) == (
        "Revenue rose 12% to $1.5 million.[1]   The CEO resigned in May.[2] Penguins cannot fly.[unsupported]\n"
    )


def strip(annotated: str, style: str) -> str:
    if style == "footnote" and "[^" in annotated:
        annotated, notes = annotated.rsplit("\n\n", 1)
        labels = set(re.findall(r"\[\^(?:\d+\*?|unsupported)\]", annotated))
        assert [line.split(": ", 1)[0] for line in notes.split("\n")] == sorted(labels, key=_label_order)
    return re.sub(MARKERS[style], "", annotated)


def _label_order(label: str) -> tuple:
    inner = label[2:-1]
    return (1, 0, False) if inner == "unsupported" else (0, int(inner.rstrip("*")), inner.endswith("*"))


SUPERSCRIPT_THEN_COMMA = r"[⁰¹²³⁴⁵⁶⁷⁸⁹]\*?,[⁰¹²³⁴⁵⁶⁷⁸⁹]"
TEXT = st.text(alphabet="abcXYZ 0123456789.,;:!?'\"()-\n\t", max_size=30)
CITATIONS = st.lists(st.tuples(st.sampled_from("abcdefghijkl"), st.sampled_from(STATUSES)), max_size=4)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(TEXT, TEXT, CITATIONS), max_size=14), TEXT)
def test_deleting_the_markers_gives_back_the_answer(pieces, tail):
    """Any answer (sentences with whitespace or none between them, blank ones, trailing text) and
    any judgment of it (any statuses, sources cited twice, more than nine sources)."""
    answer, parts = "", []
    for gap, text, citations in pieces:
        answer += gap
        parts.append((text, [cited(source_id, status) for source_id, status in citations]))
        answer += text
    answer += tail
    result = check(answer, parts)
    for style in MARKER_STYLES:
        annotated = judges.annotate(answer, result, style)
        back = strip(annotated, style)
        if back != answer:  # only '¹,¹': a marker, the answer's own comma (an empty sentence before it), a
            # marker reads as one marker list '¹,²', ambiguous in this style by design; the rest comes back
            assert style == "superscript" and re.search(SUPERSCRIPT_THEN_COMMA, annotated), (style, annotated)
            assert back.replace(",", "") == answer.replace(",", "")
        if style != "superscript":  # (two empty sentences at one offset run superscripts together)
            numbers = [int(n) for n in re.findall(r"\[\^?(\d+)\*?\]", annotated.rsplit("\n\n[^", 1)[0])]
            first = list(dict.fromkeys(numbers))
            assert first == list(range(1, len(source_numbers(result)) + 1))  # numbered by first appearance


@settings(max_examples=25, deadline=None)
@given(
    st.lists(
        st.sampled_from(["Revenue rose 12%.", "It rained.", "Dr. Smith agreed!", "Why?", " ", "\n"]), max_size=6
    ).filter(
        lambda parts: any(p.strip() for p in parts)  # an answer without a sentence is refused (test_input_validation)
    )
)
def test_deleting_the_markers_gives_back_a_judged_answer(parts):
    answer = " ".join(parts)
    result = judges.check_answer(answer, ["Revenue rose 12% while it rained.", "Dr. Smith agreed."])
    for style in MARKER_STYLES:
        assert strip(judges.annotate(answer, result, style), style) == answer


def test_the_check_answer_command_prints_the_annotated_answer(tmp_path):
    (tmp_path / "q3.txt").write_text("Q3 report: revenue rose 12% to $1.5 million, a record.")
    answer = tmp_path / "answer.txt"
    answer.write_text("Revenue rose 12% to $1.5 million. Penguins cannot fly.")
    args = ["check-answer", "--answer", answer, "--sources", tmp_path / "q3.txt"]
    result = run_cli(*args, "--markers", "footnote")
    assert result.returncode == 0, result.stderr
    assert result.stdout == (
        "Revenue rose 12% to $1.5 million.[^1] Penguins cannot fly.[^unsupported]\n\n"
        "[^1]: q3.txt\n[^unsupported]: no source given supports this sentence\n"
    )
    as_json = run_cli(*args, "--markers", "brackets", "--json")
    assert as_json.returncode == 0, as_json.stderr
    got = json.loads(as_json.stdout)
    assert got["annotated"] == "Revenue rose 12% to $1.5 million.[1] Penguins cannot fly.[unsupported]"
    assert got["sentences"][0]["citations"][0]["source_id"] == "q3.txt"
    bad = cli_in_process(*args, "--markers", "wiki")
    assert bad.returncode == 2 and "'wiki' is not one of 'brackets', 'superscript', 'footnote'" in bad.stderr
