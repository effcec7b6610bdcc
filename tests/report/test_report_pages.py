"""The report's pure step (judges.report.pages): the judge's tables in, page data out; no file,
no template. Hand-made tables for the cases a track brings: a run that did not answer a topic,
cross-language citations with labels, documents the inputs did not give."""

from __future__ import annotations

import re

import pandas as pd
import pytest

from judges.core.records import Document
from judges.report import pages
from judges.report.leaderboard import board
from judges.core.vocabulary import STATUS_RANK, STATUSES

EN = Document("e1", "The Eiffel Tower is 330 metres tall and was finished in 1889 in Paris.", "Tower")
EN2 = Document("e2", "The Great Wall of China stretches across the northern frontier of the country.")
ZH = "埃菲尔铁塔高三百三十米，于一八八九年建成，位于巴黎战神广场。"


def cite(run, topic, sentence, rank, doc_id, status, text, **kw) -> dict:
    row = {
        "run_id": run, "topic_id": topic, "sentence_index": sentence, "citation_rank": rank,
        "citation": doc_id, "doc_id": doc_id, "status": status, "support_status": kw.pop("support", status),
        "score": 0, "norm_score": 0.0, "answer_coverage": 0.0, "evidence_coverage": 0.0,
        "char_start": 0, "char_end": 0, "evidence": "", "doc_source": "corpus", "reason": "",
        "p_any": None, "p_full": None, "llm_answer": None, "llm_p_yes": None, "numbers_missing": [],
        "entities_missing": [], "capped": False, "human_label": None, "explanation": f"{status}: because",
        "sentence": text, "f_norm_score": 0.0,
    }  # fmt: skip
    row.update(kw)
    return row


def leaderboard(pairs: dict[tuple[str, str], float]) -> pd.DataFrame:
    rows = [(r, t, "WEIGHTED_PRECISION", v) for (r, t), v in pairs.items()]
    for run in sorted({r for r, _ in pairs}):
        mine = [v for (r, _), v in pairs.items() if r == run]
        rows.append((run, "all", "WEIGHTED_PRECISION", sum(mine) / len(mine)))
    return pd.DataFrame(rows, columns=["run_id", "topic_id", "measure", "value"])


def tables(rows: list[dict], values: dict, answers: dict, **kw) -> pages.Tables:
    df = pd.DataFrame(rows)
    lb = leaderboard(values)
    return pages.Tables("t", df, lb, board(lb, resamples=0), answers, **kw)


@pytest.fixture
def missed_topic():
    """r2 did not answer t2: the judge's leaderboard has its zero row (leaderboard.on_missing)."""
    s = "The Eiffel Tower is 330 metres tall."
    rows = [cite(r, t, 0, 0, "e1", "supported", s) for r, t in (("r1", "t1"), ("r1", "t2"), ("r2", "t1"))]
    answers = {k: pages.Answer([(0, s)]) for k in (("r1", "t1"), ("r1", "t2"), ("r2", "t1"))}
    values = {("r1", "t1"): 1.0, ("r1", "t2"): 1.0, ("r2", "t1"): 1.0, ("r2", "t2"): 0.0}
    return tables(rows, values, answers, corpus={"e1": EN}, filled=frozenset({("r2", "t2")}))


def _hrefs(site: pages.Site) -> list[tuple[str, str]]:
    """(page, href) of every link the page data holds, relative to that page."""
    out = [("index.html", c.href) for row in site.index["table"].rows for c in row if c.href]
    out += [("index.html", h) for _, plot in site.index["plots"] for h in re.findall(r'href="([^"]+)"', plot)]
    for p in site.run_pages:
        out += [(f"runs/r{p.i}.html", c.href) for row in p.topics.rows for c in row if c.href]
        out += [(f"runs/r{p.i}.html", r["href"]) for r in p.rows]
    for p in site.topic_pages:
        out += [(f"topics/t{p.j}.html", c.href) for row in p.runs.rows for c in row if c.href]
    return out


def _resolve(page: str, href: str) -> str:
    parts = page.split("/")[:-1]
    for part in href.split("#")[0].split("/"):
        parts = parts[:-1] if part == ".." else parts + [part]
    return "/".join(parts)


def test_a_page_is_linked_only_where_it_is_written(missed_topic):
    site = pages.site(missed_topic)
    written = {f"runs/r{p.i}/t{p.j}.html" for p in site.answers}
    assert {(p.run, p.topic) for p in site.answers} == {("r1", "t1"), ("r1", "t2"), ("r2", "t1")}
    pages_too = {"index.html"} | {f"runs/r{p.i}.html" for p in site.run_pages}
    links = _hrefs(site)
    assert links and all(_resolve(page, h) in written | pages_too for page, h in links), links
    r2 = site.run_pages[site.runs.index("r2")]
    t2 = next(row for row in r2.topics.rows if row[0].text == "t2")
    assert t2[0].href is None and t2[0].notes == (("", "not answered (leaderboard.on_missing: default)"),)
    assert "r2 / t2: WEIGHTED_PRECISION 0.000 (not answered" in site.index["plots"][-1][1]


def test_cross_language_citations_with_labels():
    """Two cross-language citations in one sentence (the best-citation ranking), a label on one
    given to the judge (final: supported) and labels given to the report, per citation and per sentence."""
    rows = [
        cite("zh", "t1", 0, 0, "e1", "supported", ZH, support="cross_language", human_label="supported"),
        cite("zh", "t1", 0, 1, "e2", "cross_language", ZH),
        cite("zh", "t1", 1, 0, "e2", "cross_language", ZH),
    ]
    answers = {("zh", "t1"): pages.Answer([(0, ZH), (1, ZH)])}
    for level, key in (("citation", ("zh", "t1", 0, "e2")), ("sentence", ("zh", "t1", 1))):
        labels = pages.Labels(level, {key: "supported"})
        t = tables(rows, {("zh", "t1"): 0.3}, answers, corpus={"e1": EN, "e2": EN2}, labels=labels)
        site = pages.site(t)
        (page,) = site.answers
        first, second = page.data["sentences"]
        assert first["status"] == "supported" and second["status"] == "cross_language"
        cites = first["cites"] + second["cites"]
        assert [c["xlang"] for c in cites] == ["sentence in CJK script, document in Latin"] * 3
        assert cites[0]["human_label"] == "supported"
        labelled = [c for c in cites if "label" in c]
        assert labelled and all(c["disagree"] for c in labelled)  # cross_language stands for no support
        head = [h.text for h in site.index["table"].head]
        assert "cross-language" in head and "labelled" in head and "disagreements" in head
        counts = {h.text: c.text for h, c in zip(site.index["table"].head, site.index["table"].rows[0])}
        assert counts["cross-language"] == "3" and counts["labelled"] == "1"
        assert site.index["statuses"] == [(1, "supported"), (0, "partial"), (0, "unsupported"), (0, "missing"),
                                          (2, "cross_language")]  # fmt: skip


def test_a_sentence_takes_its_best_citation_by_the_vocabulary():
    rows = [cite("r", "t", 0, k, f"d{k}", s, "A sentence.") for k, s in enumerate(STATUSES)]
    site = pages.site(tables(rows, {("r", "t"): 0.0}, {("r", "t"): pages.Answer([(0, "A sentence.")])}))
    assert site.answers[0].data["sentences"][0]["status"] == max(STATUSES, key=STATUS_RANK.get) == "supported"
    topics = site.run_pages[0].topics
    assert [h.text for h in topics.head][-len(STATUSES) :] == list(STATUSES)
    assert [c.text for c in topics.rows[0][-len(STATUSES) :]] == ["1"] * len(STATUSES)


def test_documents_the_inputs_did_not_give_are_counted_and_said():
    from pathlib import Path

    rows = [cite("r", "t", 0, 0, "e1", "supported", "S."), cite("r", "t", 0, 1, "zz", "missing", "S.")]
    rows[1]["doc_id"] = None
    gone = [("--corpus", Path("/gone/corpus.jsonl"))]
    site = pages.site(tables(rows, {("r", "t"): 1.0}, {("r", "t"): pages.Answer([(0, "S.")])}, unavailable=gone))
    assert (site.not_found, site.cited) == (1, 1) and site.answers[0].not_found == 1
    (warning,) = site.warnings
    assert warning.startswith("the documents of 1 of 1 citations not found (not there: --corpus /gone/corpus.jsonl)")
    assert site.index["warnings"] == site.warnings
    # found in the corpus: no warning, the document goes to the topic's file with UTF-16 offsets
    doc = Document("e1", "😀 The Eiffel Tower.")
    rows[0].update(char_start=2, char_end=6)
    site = pages.site(tables(rows, {("r", "t"): 1.0}, {("r", "t"): pages.Answer([(0, "S.")])}, corpus={"e1": doc}))
    assert site.warnings == [] and site.not_found == 0
    c = site.answers[0].data["sentences"][0]["cites"][0]
    assert site.docs[0][c["doc"]]["text"] == doc.text and (c["a16"], c["b16"]) == (3, 7)


def test_an_answer_missing_from_the_run_files_is_rebuilt_from_the_assessments():
    rows = [cite("r", "t", 2, 0, "e1", "supported", "Third sentence.")]
    site = pages.site(tables(rows, {("r", "t"): 1.0}, {}, corpus={"e1": EN}))
    (page,) = site.answers
    assert not page.from_run_files and [s["text"] for s in page.data["sentences"]] == ["Third sentence."]
    assert any("1 reports not found in the run files" in w for w in site.warnings)


def test_cells_and_rank_headers():
    assert pages.ci(0.5, 0.25, 0.75, 0.3, 0.6) == pages.Cell(
        "0.500",
        "0.500000",
        notes=(("assessors", "assessors [0.300,\u00a00.600]"), ("topics", "with topic sampling [0.250,\u00a00.750]")),
    )
    assert pages.ci(0.5, 0.25, 0.75, bootstrap=True).notes == (("topics", "topic bootstrap [0.250,\u00a00.750]"),)
    assert pages.ci(float("nan")) == pages.Cell("—", "")
    assert pages.count(0, "x.html").href is None and pages.count(2, "x.html").href == "x.html"
    truth = pd.Series({"a": 0.2, "b": 0.9})
    assert pages.truth_ranks(truth) == {"b": 1, "a": 2}
    rows = [cite("a", "t", 0, 0, "e1", "supported", "S."), cite("b", "t", 0, 0, "e1", "unsupported", "S.")]
    lb = leaderboard({("a", "t"): 1.0, ("b", "t"): 0.0})
    truth_lb = pd.DataFrame([("a", "all", "H", 0.2), ("b", "all", "H", 0.9)], columns=lb.columns)
    t = pages.Tables("t", pd.DataFrame(rows), lb, board(lb, truth_lb, resamples=0), {})
    head = pages.site(t).index["table"].head
    assert [(h.text, h.first) for h in head[:4]] == [("#", "asc"), ("run", "asc"), ("truth: H", "desc"),
                                                     ("truth rank", "asc")]  # fmt: skip
