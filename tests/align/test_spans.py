"""Multi-span evidence (:mod:`judges.align.spans`): exact offsets, in order, disjoint, the best
alignment's span among them; a sentence drawn from two distant places gets both; the table, the
debug log and the report (in a real headless Chromium) carry every span."""

from __future__ import annotations

import json

import pytest
from helpers import run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import judges
from judges.core.config import Workflow

PYTHON = Workflow.model_validate({"alignment": {"backend": "python"}})

# Content words, function words, a number, accents, an emoji (offsets in code points, not bytes).
WORDS = ["the", "of", "and", "in", "river", "stone", "paris", "1987", "café", "tower", "north", "bridge", "Ölberg"]
SEPARATORS = [" ", " ", ", ", ". ", "\n", " 😀 ", " — "]


@st.composite
def documents_and_sentences(draw):
    """A document of random words, and a sentence made of up to three runs of its words (any
    order) with other words between them."""
    n = draw(st.integers(1, 90))
    words = draw(st.lists(st.sampled_from(WORDS), min_size=n, max_size=n))
    seps = draw(st.lists(st.sampled_from(SEPARATORS), min_size=n, max_size=n))
    doc = "".join(w + s for w, s in zip(words, seps))
    sentence = []
    for start, length in draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(1, 14)), min_size=1, max_size=3)):
        sentence += words[start : start + length] + draw(st.lists(st.sampled_from(WORDS), max_size=2))
    return doc, " ".join(sentence)


def _cited(sentence: str, doc: str, workflow=None):
    checked = judges.check_answer([{"text": sentence, "citations": [0]}], [doc], workflow=workflow)
    return checked.sentences[0].citations[0]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents_and_sentences())
def test_spans_are_the_documents_characters_in_order_disjoint_and_hold_the_best_one(case):
    doc, sentence = case
    c = _cited(sentence, doc)
    spans = c.evidence_spans
    for start, end, text in spans:
        assert 0 <= start < end <= len(doc) and doc[start:end] == text
    assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:])), spans  # in document order, not overlapping
    if c.char_end > c.char_start:
        assert (c.char_start, c.char_end, c.evidence) in spans  # the best alignment's span is one of them
    else:
        assert spans == ()  # not aligned: no evidence
    # the Python reference backend finds the same spans (the spans call the backend's align_batch)
    assert _cited(sentence, doc, PYTHON).evidence_spans == spans


# -- a sentence drawn from two distant places of a long document ------------------------------------
FIRST = "The observatory was founded in 1887 by Maria Kessler."
SECOND = "Its telescope mirror measures eleven metres across."
SENTENCE = FIRST[:-1] + " and its telescope mirror measures eleven metres across."
FILLER = [f"Committee {n} reviewed budget {n} quietly before lunch." for n in range(40)]
DOC = " ".join(FILLER[:2] + [FIRST] + FILLER[2:30] + [SECOND] + FILLER[30:])  # 1,500 characters apart


def _span(text: str) -> tuple[int, int, str]:
    """``text`` without its full stop, where it is in DOC."""
    at = DOC.index(text)
    return at, at + len(text) - 1, text[:-1]


def test_two_halves_from_two_distant_places_give_two_spans_at_their_offsets():
    for workflow in (None, PYTHON):
        c = _cited(SENTENCE, DOC, workflow)
        assert c.evidence_spans == (_span(FIRST), _span(SECOND))
        assert (c.char_start, c.char_end) == _span(FIRST)[:2]  # the contiguous evidence: the longer half
        assert c.evidence == FIRST[:-1]


def test_one_place_or_function_words_only_give_one_span():
    assert _cited(FIRST, DOC).evidence_spans == (_span(FIRST),)
    # the rest shares only function words and a word of the filler with the document: no second span
    c = _cited(FIRST[:-1] + " and in the meantime it was of the committee.", DOC)
    assert c.evidence_spans == (_span(FIRST),)


# -- the CLI: the assessments table, the debug log and the report -----------------------------------
@pytest.fixture(scope="module")
def two_places(tmp_path_factory):
    root = tmp_path_factory.mktemp("spans")
    (root / "runs").mkdir()
    (root / "topics.jsonl").write_text(json.dumps({"id": "t1", "title": "The observatory"}) + "\n")
    (root / "corpus.jsonl").write_text(json.dumps({"doc_id": "obs", "title": "Observatory", "text": DOC}) + "\n")
    answer = [{"text": SENTENCE, "citations": [0]}, {"text": SECOND, "citations": [0]}]
    run = {"run_id": "r1", "topic_id": "t1", "references": ["obs"], "answer": answer}
    (root / "runs" / "r1.jsonl").write_text(json.dumps(run) + "\n")
    out = root / "out"
    result = run_cli(
        "--judge",
        "citation",
        "--rag-topics",
        root / "topics.jsonl",
        "--rag-responses",
        root / "runs",
        "--corpus",
        root / "corpus.jsonl",
        "--out-dir",
        out,
        "--name",
        "spans",
    )
    assert result.returncode == 0, result.stderr
    result = run_cli("report", out, "--resamples", "0")
    assert result.returncode == 0, result.stderr
    return out


def test_the_table_and_the_debug_log_hold_every_span(two_places):
    df = judges.read_assessments(two_places, "spans")
    spans = [[(s["char_start"], s["char_end"]) for s in row] for row in df["evidence_spans"]]
    assert spans == [[_span(FIRST)[:2], _span(SECOND)[:2]], [_span(SECOND)[:2]]]
    events = [json.loads(line) for line in (two_places / "spans.jsonl").read_text().splitlines()]
    logged = [e["evidence_spans"] for e in events if e["event"] == "CITATION_OUTPUT"]
    assert logged == [[{"char_start": a, "char_end": b} for a, b in row] for row in spans]


def test_the_report_highlights_every_span(two_places, browser):
    from selenium.webdriver.common.by import By

    browser.get((two_places / "spans.report" / "runs" / "r0" / "t0.html").as_uri())
    browser.find_element(By.CSS_SELECTOR, 'button[data-key="s0c0"]').click()
    for view in ("#passage", "#whole"):
        marks = browser.find_elements(By.CSS_SELECTOR, f"{view} mark")
        assert [m.get_property("textContent") for m in marks] == [FIRST[:-1], SECOND[:-1]], view
    assert browser.find_element(By.CSS_SELECTOR, "#passage mark#evidence").get_property("textContent") == FIRST[:-1]
    # in context: the text between the two places is cut, each place keeps its context
    passage = browser.find_element(By.ID, "passage").get_property("textContent")
    assert passage.count("…") == 2 and FILLER[16] not in passage and FILLER[1] in passage and FILLER[30] in passage
    a, b = _span(FIRST)[:2], _span(SECOND)[:2]
    assert f"evidence at characters {a[0]}–{a[1]}, {b[0]}–{b[1]}" in browser.find_element(By.ID, "panel").text
    browser.find_element(By.CSS_SELECTOR, 'button[data-key="s1c0"]').click()  # one place: one mark
    marks = browser.find_elements(By.CSS_SELECTOR, "#passage mark")
    assert [m.get_property("textContent") for m in marks] == [SECOND[:-1]]
    assert not [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
