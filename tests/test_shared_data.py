"""Real data written by others (../shared/data), judged through the CLI; skipped when absent."""

import json

import ir_measures
import pandas as pd
import pytest
from helpers import cli_in_process, run_cli, shared, track

import judges


@pytest.mark.shared
def test_kiddie_four_runs(tmp_path):
    kiddie = shared("kiddie")
    result = run_cli(
        "--judge",
        "citation",
        "--rag-topics",
        kiddie / "topics" / "kiddie-topics.jsonl",
        "--rag-responses",
        kiddie / "runs" / "repgen",
        "--out-dir",
        tmp_path,
        "--name",
        "kiddie",
    )
    assert result.returncode == 0, result.stderr
    assert "citations judged         113" in result.stdout  # the README of kiddie counts 113 citations
    lb = judges.read_leaderboard(tmp_path, "kiddie")
    assert sorted(lb.run_id.unique()) == ["run1", "run2", "run3", "run4"]
    assert set(lb.topic_id) == {"leaf", "cloud", "bee", "earthworms", "hibernation", "all"}
    accuracy = lb[(lb.topic_id == "all") & (lb.measure == "CITATION_ACCURACY")]
    assert accuracy.value.tolist() == [1.0] * 4  # every cited id is embedded in `documents`
    assert len(list(ir_measures.read_trec_qrels(str(tmp_path / "kiddie.qrels")))) > 0


@pytest.mark.shared
@pytest.mark.parametrize("backend", ["python", "numba"])
def test_kiddie_backends_agree(tmp_path, backend):
    kiddie = shared("kiddie")
    result = run_cli(
        "--rag-topics",
        kiddie / "topics" / "kiddie-topics.jsonl",
        "--rag-responses",
        kiddie / "runs",
        "--out-dir",
        tmp_path / backend,
        "--name",
        "k",
        "--backend",
        backend,
    )
    assert result.returncode == 0, result.stderr
    other = tmp_path / ("numba" if backend == "python" else "python")
    if other.exists():
        for name in ("k.qrels", "k.doc.qrels", "k.leaderboard.txt", "k.assessments.parquet"):
            assert (tmp_path / backend / name).read_bytes() == (other / name).read_bytes(), name


@pytest.mark.shared
def test_spot_check_with_corpus_file(tmp_path):
    spot = shared("spot-check", "spot-check-dataset")
    result = run_cli(
        *track(spot, topics="queries.jsonl", corpus="corpus.jsonl.gz"),
        "--out-dir",
        tmp_path,
        "--name",
        "spot",
    )
    assert result.returncode == 0, result.stderr
    df = judges.read_assessments(tmp_path, "spot")
    assert sorted(df.run_id) == ["my_best_run_01", "my_best_run_02", "my_best_run_02_citations"]
    assert set(df.doc_source) == {"corpus"} and set(df.doc_id) == {"224", "279"}
    assert (df.confidence.dropna() == 0.7).all()  # the ragtime-style run's dict citation
    qrels = pd.DataFrame(ir_measures.read_trec_qrels(str(tmp_path / "spot.doc.qrels")))
    assert sorted(qrels.doc_id) == ["224", "279"]


@pytest.mark.shared
def test_spot_check_fully_local_references_that_never_match(tmp_path):
    runs = shared("spot-check", "spot-check-fully-local", "runs")
    topics = tmp_path / "topics.jsonl"
    topics.write_text(json.dumps({"request_id": "101", "title": "Sky is blue."}) + "\n")
    corpus = shared("spot-check", "example-irds-corpus", "corpus.jsonl.gz")
    result = cli_in_process(
        "--rag-topics", topics, "--rag-responses", runs, "--corpus", corpus, "--out-dir", tmp_path, "--name", "local"
    )
    assert result.returncode == 2 and "none of the 3 cited document ids" in result.stderr  # said, not silently zero
    result = run_cli(
        "--rag-topics",
        topics,
        "--rag-responses",
        runs,
        "--corpus",
        corpus,
        "--out-dir",
        tmp_path,
        "--name",
        "local",
        "--allow-missing-text",
    )
    assert result.returncode == 0, result.stderr
    df = judges.read_assessments(tmp_path, "local")
    assert len(df) == 8 and set(df.status) == {"missing"}  # no cited id has text anywhere
    assert df.reason.str.contains("in neither the report's documents nor the corpus").all()
