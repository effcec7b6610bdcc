"""Grounding checks inside the judge: the cap on citations, the assessment columns and the measures."""

import json

import pytest
from helpers import run_cli

import judges
from judges.core.config import GroundingSettings, Workflow
from judges.core.errors import InputError
from judges.core.config import load_workflow
from judges.engine.grounder import Grounder
from judges.core.measures import SentenceGrounding, SentenceResult, evaluate
from judges.core.records import Citation, Document, Judgment, Report, Sentence

DOC = Document("d1", "Acme Corp reported revenue of $1.5 million in 2019, up 12% on the year before.")


def report(*texts: str) -> Report:
    sentences = tuple(Sentence(i, t, (Citation(0, "d1", "d1"),)) for i, t in enumerate(texts))
    return Report("run", "t1", "", "responses", sentences, {"d1": DOC}, "<test>", 1)


def check(g: Grounder, rep: Report, sent: Sentence, doc: Document, j: Judgment) -> Judgment:
    """What the judge does per citation: record what the document lacks, then apply the cap."""
    numbers, entities = g.missing_in(rep, sent, doc)
    return g.cap(j._replace(numbers_missing=numbers, entities_missing=entities))


def supported() -> Judgment:
    return Judgment("supported", 2, 20, 1.0, 1.0, 1.0, 10, 0, 10, "", "embedded", "", "supported")


@pytest.mark.parametrize(
    "sentence, numbers, entities",
    [
        ("Acme Corp reported revenue of $1.5 million in 2019.", (), ()),
        ("Acme Corp reported revenue of 1,500,000 dollars in 2019.", (), ()),  # normalised
        ("Acme Corp reported revenue of $15 million in 2019.", ("$15 million",), ()),
        ("Acme Corp grew 15% in 2019.", ("15%",), ()),
        ("Acme Corp grew 12% in 2020.", ("2020",), ()),
        ("Globex Corporation reported revenue of $1.5 million in 2019.", (), ("Globex Corporation",)),
    ],
)
def test_check_records_what_the_document_lacks(sentence, numbers, entities):
    rep = report(sentence)
    j = check(Grounder(GroundingSettings()), rep, rep.sentences[0], DOC, supported())
    assert (j.numbers_missing, j.entities_missing) == (numbers, entities)
    assert j.capped == bool(numbers or entities)
    assert j.status == ("partial" if j.capped else "supported")
    assert j.grade == (1 if j.capped else 2)
    assert j.support_status == "supported"  # what the support judge said stays visible
    if j.capped:
        assert j.reason.startswith("capped at partial: the document lacks ")
        assert all(item in j.reason for item in numbers + entities)


def test_cap_policy_chooses_the_kinds_and_never_raises_a_status():
    rep = report("Globex Corporation grew 15% in 2019.")
    sent = rep.sentences[0]
    only_numbers = Grounder(GroundingSettings(cap=("numbers",)))
    j = check(only_numbers, rep, sent, DOC, supported())
    assert j.capped and j.reason == "capped at partial: the document lacks numbers 15%"
    never = Grounder(GroundingSettings(cap=()))
    j = check(never, rep, sent, DOC, supported())
    assert not j.capped and j.status == "supported"
    assert j.numbers_missing == ("15%",) and j.entities_missing == ("Globex Corporation",)  # still recorded
    low = supported()._replace(status="unsupported", grade=0)
    j = check(Grounder(GroundingSettings()), rep, sent, DOC, low)
    assert j.status == "unsupported" and not j.capped


def test_the_cap_leaves_missing_documents_alone():
    missing = Judgment("missing", 0, 0, 0.0, 0.0, 0.0, 0, 0, 0, "", "none", "not found", "missing")
    assert Grounder(GroundingSettings()).cap(missing) == missing


def test_report_grounding_uses_every_cited_document():
    other = Document("d2", "Globex Corporation was founded in 1989.")
    rep = report("Acme Corp and Globex Corporation were founded in 1989 and 1990.", "Lorem ipsum dolor.", "  ")
    facts = Grounder(GroundingSettings()).report(rep, [DOC, other])
    first = facts[0]
    assert (first.numbers, first.numbers_found) == (2, 1)  # 1990 is in neither document
    assert (first.entities, first.entities_found) == (2, 2)
    assert facts[1].placeholders == 1 and facts[1].numbers == 0
    assert 2 not in facts  # blank sentences are not measured


def test_grounding_measures():
    def result(**g):
        return SentenceResult(10, ("supported",), SentenceGrounding(**g))

    m = evaluate([result(numbers=3, numbers_found=2, entities=1, entities_found=0), result(numbers=1, numbers_found=1)])
    assert m["NUMERIC_GROUNDED"] == 0.75 and m["ENTITY_GROUNDED"] == 0.0 and m["PLACEHOLDER_FREE"] == 1.0
    m = evaluate([result(placeholders=2), result()])
    assert m["NUMERIC_GROUNDED"] == 1.0 and m["ENTITY_GROUNDED"] == 1.0  # nothing to check counts as grounded
    assert m["PLACEHOLDER_FREE"] == 0.0


def test_workflow_placeholder_patterns_extend_the_table(tmp_path):
    wf = Workflow.model_validate(
        {"grounding": {"placeholder_patterns": [{"name": "acme_widget", "regex": r"\bFrobnitz\b"}]}}
    )
    rep = report("Frobnitz sells widgets.")
    assert Grounder(wf.grounding).report(rep, [DOC])[0].placeholders == 1
    assert Grounder(GroundingSettings()).report(rep, [DOC])[0].placeholders == 0
    bad = tmp_path / "bad.yml"
    bad.write_text("grounding:\n  placeholder_patterns:\n    - {name: broken, regex: '(unclosed'}\n")
    with pytest.raises(InputError, match="grounding.placeholder_patterns.0: .*broken"):
        load_workflow(bad)
    bad.write_text("grounding:\n  cap: [numbers, dates]\n")
    with pytest.raises(InputError, match="grounding.cap.1"):
        load_workflow(bad)


def _judge(tmp_path, workflow: str):
    doc = {"text": "The plant of Bayer Pharma employs 1,200 people in Leipzig and opened in 2004 after a long delay."}
    sentences = [
        {"text": "The plant of Bayer Pharma employs 1,200 people in Leipzig and opened in 2004.", "citations": ["d"]},
        {"text": "The plant of Bayer Pharma employs 1,500 people in Leipzig and opened in 2004.", "citations": ["d"]},
        {"text": "The plant of Merck KGaA employs 1,200 people in Leipzig and opened in 2004.", "citations": ["d"]},
    ]
    run = {"metadata": {"run_id": "r", "topic_id": "t1"}, "responses": sentences, "documents": {"d": doc}}
    (tmp_path / "runs").mkdir(exist_ok=True)
    (tmp_path / "runs" / "r.jsonl").write_text(json.dumps(run) + "\n")
    (tmp_path / "topics.jsonl").write_text(json.dumps({"topic_id": "t1", "title": "plant"}) + "\n")
    wf = tmp_path / "wf.yml"
    wf.write_text(workflow)
    out = tmp_path / ("out-" + str(abs(hash(workflow))))
    result = run_cli(
        "--rag-topics",
        tmp_path / "topics.jsonl",
        "--rag-responses",
        tmp_path / "runs",
        "--workflow",
        wf,
        "--out-dir",
        out,
        "--name",
        "g",
        "--backend",
        "python",
    )
    assert result.returncode == 0, result.stderr
    return judges.read_assessments(out, "g"), judges.read_leaderboard(out, "g"), out


def test_cli_caps_a_changed_number_or_name_and_reports_it(tmp_path):
    df, lb, out = _judge(tmp_path, "judge: citation\nsupport:\n  judge: alignment\n")
    df = df.set_index("sentence_index")
    assert list(df.support_status) == ["supported"] * 3  # alignment alone cannot tell them apart
    assert list(df.status) == ["supported", "partial", "partial"]
    assert list(df.capped) == [False, True, True]
    assert [list(x) for x in df.numbers_missing] == [[], ["1,500"], []]
    assert [list(x) for x in df.entities_missing] == [[], [], ["Merck KGaA"]]
    assert (out / "g.qrels").read_text().count(" 1\n") == 2  # capped citations have grade 1
    value = lb.set_index(["topic_id", "measure"]).value
    assert value["t1", "NUMERIC_GROUNDED"] == pytest.approx(5 / 6)  # 1,500 is not in the cited document
    assert value["t1", "ENTITY_GROUNDED"] == pytest.approx(2 / 3)
    assert value["t1", "PLACEHOLDER_FREE"] == 1.0
    events = [json.loads(line) for line in (out / "g.jsonl").read_text().splitlines()]
    outputs = [e for e in events if e["event"] == "CITATION_OUTPUT"]
    assert [e["numbers_missing"] for e in outputs] == [[], ["1,500"], []]
    assert [e["capped"] for e in outputs] == [False, True, True]
    assert "capped: 2\n" in (out / "g.config.yml").read_text()  # counts, also printed in the summary


def test_cli_without_the_cap_keeps_the_support_judges_status(tmp_path):
    df, lb, _ = _judge(tmp_path, "grounding:\n  cap: []\nsupport:\n  judge: alignment\n")
    assert list(df.status) == ["supported"] * 3 and not df.capped.any()
    assert [list(x) for x in df.numbers_missing] == [[], ["1,500"], []]  # still recorded
