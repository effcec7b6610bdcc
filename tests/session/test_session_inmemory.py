"""A session's topics and reports handed over in memory (``Inputs.topic_records`` and
``Inputs.report_records``, issue 40): judged by the same stages as files, the same outputs; a bad
record named by its position; no file written without outputs; the summary built once."""

import dataclasses
import json
import tempfile
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from helpers import ROOT
import yaml

from judges.core.config import AlignmentSettings, Workflow
from judges.engine.settings import Settings
from judges.core.errors import InputError
from judges.session import pipeline
from judges.session.recorded import recorded_session

RUNS = sorted((ROOT / "runs" / "rag25").glob("*.jsonl"))
TOPICS = ROOT / "datasets" / "rag25" / "topics.jsonl"
CORPUS = ROOT / "datasets" / "rag25" / "corpus.jsonl"
WORKFLOW = Workflow(alignment=AlignmentSettings(backend="python"))
# the outputs that do not name their inputs (config.yml and the debug log do)
SAME = ("qrels", "doc.qrels", "leaderboard.txt", "coverage.tsv", "intervals.tsv", "pairs.tsv")


def lines(path: Path) -> list:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def in_memory(**more) -> pipeline.Inputs:
    reports = [record for path in RUNS for record in lines(path)]
    return pipeline.Inputs(
        topics=[], responses=[], corpus=CORPUS, topic_records=lines(TOPICS), report_records=reports, **more
    )


def settings() -> Settings:
    return Settings(workflow=WORKFLOW, has_corpus=True)


@pytest.fixture(scope="module")
def sessions(tmp_path_factory):
    """The bundled rag25 sample judged from its files and from memory (each written), and from
    memory without outputs, with every temporary directory made while it ran counted."""
    made: list = []
    real = tempfile.mkdtemp
    mp = pytest.MonkeyPatch()
    mp.setattr(tempfile, "mkdtemp", lambda *a, **k: made.append(a or k) or real(*a, **k))
    try:
        out = tmp_path_factory.mktemp("sessions")
        files = pipeline.Inputs(topics=[TOPICS], responses=list(RUNS), corpus=CORPUS)
        by_files = pipeline.run(files, pipeline.Outputs(out / "files", "s"), WORKFLOW)
        memory = pipeline.run(in_memory(), pipeline.Outputs(out / "memory", "s"), WORKFLOW)
        unwritten = pipeline.carry_out(pipeline.check(in_memory(), None, settings()))
    finally:
        mp.undo()
    return out, by_files, memory, unwritten, made


def test_reports_in_memory_give_the_outputs_of_their_files(sessions):
    out, by_files, memory, _, _ = sessions
    for suffix in SAME:
        assert (out / "memory" / f"s.{suffix}").read_bytes() == (out / "files" / f"s.{suffix}").read_bytes(), suffix
    assert pq.read_table(out / "memory" / "s.assessments.parquet").equals(
        pq.read_table(out / "files" / "s.assessments.parquet")
    )
    assert memory.counts == by_files.counts and memory.statuses == by_files.statuses
    assert memory.runs == by_files.runs and memory.coverage == by_files.coverage and memory.filled == by_files.filled


def test_config_records_the_inputs_in_memory_by_their_hash(sessions):
    out, *_ = sessions
    recorded = yaml.safe_load((out / "memory" / "s.config.yml").read_text())["inputs"]
    assert recorded["topics"] == [] and recorded["responses"] == []
    assert recorded["in_memory"] == {
        "topics": len(lines(TOPICS)),
        "reports": sum(len(lines(p)) for p in RUNS),
        "sha256": in_memory().records_sha256(),
    }
    assert "in_memory" not in yaml.safe_load((out / "files" / "s.config.yml").read_text())["inputs"]
    with pytest.raises(InputError, match="inputs.in_memory: judged from topics and reports handed over in memory"):
        recorded_session(out / "memory", "s")  # nothing to read again (attest resume, ...)


def test_a_session_without_outputs_writes_nothing_and_hands_its_judgments_back(sessions):
    out, _, _, unwritten, made = sessions
    assert made == []  # no temporary directory: neither for the inputs nor for outputs
    assert unwritten.summary is None
    table = pipeline.assessments(unwritten.judged)
    assert pq.read_table(out / "memory" / "s.assessments.parquet").num_rows == table.num_rows > 0
    per_topic = pipeline.per_topic(unwritten.judged)
    assert set(per_topic) == {(r, t) for r, topics in unwritten.loaded.scan.answered.items() for t in topics}


def test_the_summary_is_built_once_and_frozen(sessions):
    _, by_files, *_ = sessions
    with pytest.raises(dataclasses.FrozenInstanceError):
        by_files.files = {}
    # what the writer wrote is in it from the start: every file, the debug log last
    assert list(by_files.files)[-1] == "debug_log" and {"qrels", "coverage", "config"} <= set(by_files.files)
    assert all(Path(p).exists() for p in by_files.files.values())


def test_a_bad_record_in_memory_is_named_by_its_position(tmp_path):
    inputs = in_memory()
    bad = dict(inputs.report_records[1], metadata={"topic_id": "x"})  # no run_id
    inputs = dataclasses.replace(inputs, report_records=(inputs.report_records[0], bad, *inputs.report_records[2:]))
    with pytest.raises(InputError) as e:
        pipeline.run(inputs, pipeline.Outputs(tmp_path / "out", "s"), WORKFLOW)
    assert e.value.render() == "<reports>:2: metadata.run_id: missing"
    assert not (tmp_path / "out").exists()  # nothing written
    topics = dataclasses.replace(in_memory(), topic_records=({"title": "no id"},))
    with pytest.raises(InputError, match=r"^<topics>:1: request_id: missing"):
        pipeline.carry_out(pipeline.check(topics, None, settings()))
