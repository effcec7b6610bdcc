"""One engine for pairs (judges.engine.pairs): both kinds judged through the one entry point on the
bundled nugget sample, in this process, held to what each kind's own path gives; and the output
set's table naming the files a kind of pair writes."""

from __future__ import annotations

from collections import Counter

import pytest
from helpers import ROOT

from judges.core.config import Workflow
from judges.engine.judge import Part
from judges.engine.nuggets import NuggetResult
from judges.engine.pairs import CITATION_KIND, judge_pairs, kinds_of, nugget_kind
from judges.engine.settings import Settings
from judges.formats import outputset
from judges.formats.corpus import read_corpus
from judges.formats.debuglog import DebugLog
from judges.formats.nuggets import read_nuggets
from judges.formats.runs import read_reports
from judges.nuggets import features as F
from judges.nuggets.answers import answer_text
from judges.nuggets.check import check_nuggets
from judges.session.spec import Outputs
from judges.session.writer import output_targets
from judges.core.vocabulary import FEATURES

SAMPLE = ROOT / "datasets" / "rag24-nuggets-mini"


@pytest.fixture(scope="module")
def judged():
    """The sample's reports (topic by topic, a None after each) judged as both kinds of pair."""
    reports = [rep for run in sorted((SAMPLE / "runs").iterdir()) for _, rep in read_reports(run)]
    by_topic: dict[str, list] = {}
    for rep in reports:
        by_topic.setdefault(rep.topic_id, []).append(rep)
    stream = [r for topic in sorted(by_topic) for r in [*by_topic[topic], None]]
    wanted = {c.doc_id for rep in reports for s in rep.sentences for c in s.citations if c.doc_id}
    corpus = read_corpus(SAMPLE / "segments.jsonl", wanted, lambda e: None)
    settings = Settings(workflow=Workflow(), has_corpus=True)
    done: list[int] = []
    with DebugLog(None) as log:
        cited = judge_pairs(CITATION_KIND, settings, iter(stream), corpus, log, progress=done.append)
        warnings: list[str] = []
        bank = read_nuggets(SAMPLE / "nuggets.jsonl")
        answered = Counter(rep.run_id for rep in reports)
        nuggets = judge_pairs(nugget_kind(), None, iter(stream), bank, log, warn=warnings.append, answered=answered)
    return reports, cited, nuggets, bank, sum(done), warnings


def test_kinds_say_what_differs():
    assert CITATION_KIND.name == "citation" and CITATION_KIND.features == FEATURES
    assert nugget_kind().name == "nugget" and nugget_kind().features == F.FEATURES
    assert kinds_of(False) == (CITATION_KIND,) and kinds_of(True) == (CITATION_KIND, nugget_kind())
    assert nugget_kind().model("rag24").p_supported > 0  # the shipped nugget model, by its loader


def test_the_kind_carries_what_the_session_writes_of_it():
    """The session's nugget kind is the engine's with its outputs; no name->module table in the session."""
    from judges.session import nuggets as session_nuggets

    kind = session_nuggets.kind()
    assert kind.outputs is session_nuggets.outputs and CITATION_KIND.outputs is None
    assert kind._replace(outputs=None) == nugget_kind()
    written = kind.outputs(NuggetResult())
    assert written.kind.name == kind.name == "nugget"


def test_one_entry_point_judges_citations(judged):
    reports, cited, _, _, progressed, _ = judged
    citations = sum(len(s.citations) for rep in reports for s in rep.sentences)
    assert isinstance(cited, Part) and cited.assessments.num_rows == citations == progressed > 0
    assert set(cited.per_topic) == {(rep.run_id, rep.topic_id) for rep in reports}
    assert set(cited.assessments.column("status").to_pylist()) - {"missing"}  # the corpus resolved them


def test_one_entry_point_judges_nuggets_as_one_answer_does(judged):
    """Every answer's nugget judgments and measures through the engine's entry point equal the
    one-answer call's (judges.nuggets.check) on the same text and bank."""
    reports, _, nuggets, bank, _, warnings = judged
    assert isinstance(nuggets, NuggetResult) and warnings == []
    assert set(nuggets.judged) == {(rep.run_id, rep.topic_id) for rep in reports}
    for rep in reports:
        one = check_nuggets(answer_text(rep), bank.banks[rep.topic_id])
        got = nuggets.judged[(rep.run_id, rep.topic_id)]
        assert [j.assignment for j in got] == [j.assignment for j in one.judgments]
        assert [j.p_support for j in got] == [j.p_support for j in one.judgments]
        assert nuggets.measures[(rep.run_id, rep.topic_id)] == one.measures


def test_output_set_table_names_each_kinds_files(tmp_path):
    assert [f.kind for f in outputset.of_pair_kind("nugget")] == ["nuggets_jsonl", "nuggets_parquet", "nugget_bank"]
    assert outputset.of_pair_kind("citation") == ()  # the citations' files are the session's own
    outputs = Outputs(tmp_path, "N")
    plain = output_targets(outputs, Workflow())
    both = output_targets(outputs, Workflow(), [k.name for k in kinds_of(True)])
    assert set(both) - set(plain) == {"nuggets_jsonl", "nuggets_parquet", "nugget_bank"}
    assert both["nuggets_parquet"] == (tmp_path / "N.nuggets.parquet", "--out-dir")
