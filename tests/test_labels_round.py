"""Assessors' labels in rounds, through the CLI: plan-assessments chooses the citations, the
labelled file comes back as --labels, labelled citations are final and the next plan skips them."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from conftest import ROOT, run_cli

import judges

SAMPLE = ("--rag-topics", ROOT / "datasets/rag25/topics.jsonl", "--rag-responses", ROOT / "runs/rag25")
CORPUS = ("--corpus", ROOT / "datasets/rag25/corpus.jsonl")


def judge(out, name, *extra):
    result = run_cli(*SAMPLE, *CORPUS, "--out-dir", out, "--name", name, *extra)
    assert result.returncode == 0, result.stderr
    return result


def test_plan_label_and_judge_again_in_rounds(tmp_path):
    judge(tmp_path, "a")
    result = run_cli("plan-assessments", tmp_path, "--name", "a", "--count", "4")
    assert result.returncode == 0, result.stderr
    assert "chose 4 of " in result.stdout
    lines = [json.loads(line) for line in (tmp_path / "a.assess.jsonl").read_text().splitlines()]
    assert [line["rank"] for line in lines] == [1, 2, 3, 4] and all(line["label"] is None for line in lines)
    gains = [line["expected_gain"] for line in lines]
    assert gains == sorted(gains, reverse=True)
    for line in lines:  # the evidence and the window are the document's characters at their offsets
        text, ev, win = line["document"]["text"], line["evidence"], line["window"]
        assert text[ev["char_start"] : ev["char_end"]] == ev["text"]
        assert text[win["char_start"] : win["char_end"]] == win["text"]
        assert win["char_start"] <= ev["char_start"] <= ev["char_end"] <= win["char_end"]
    first = pd.read_parquet(tmp_path / "a.assessments.parquet")
    judgeable = int((first.status != "missing").sum())
    assert f"chose 4 of {judgeable} " in result.stdout

    for line in lines[:3]:  # the assessor labels three; the fourth stays open
        line["label"] = "not_supported"
    labels = tmp_path / "labels.jsonl"
    labels.write_text("".join(json.dumps(line) + "\n" for line in lines))
    result = judge(tmp_path, "b", "--labels", labels)
    assert "human labels" in result.stdout and "3: their level is final" in result.stdout
    a = judges.read_assessments(tmp_path, "b")
    done = a[a.human_label.notna()]
    keys = {(x["run_id"], x["topic_id"], x["sentence_index"], x["doc_id"]) for x in lines[:3]}
    assert set(zip(done.run_id, done.topic_id, done.sentence_index, done.doc_id)) == keys
    assert (done.status == "unsupported").all() and (done.weight == 0).all() and (done.grade == 0).all()
    assert all(e.startswith("unsupported: human label unsupported (--labels), final;") for e in done.explanation)
    qrels = pd.read_csv(tmp_path / "b.qrels", sep=" ", names=["topic_id", "q0", "doc_id", "grade"], dtype=str)
    assert set(qrels.set_index("doc_id").loc[list(done.qrels_doc_id), "grade"]) == {"0"}
    rest = a[a.human_label.isna()].set_index(["run_id", "topic_id", "sentence_index", "citation_rank"])
    before = first.set_index(["run_id", "topic_id", "sentence_index", "citation_rank"]).loc[rest.index]
    assert (rest.weight == before.weight).all() and (rest.status == before.status).all()
    lb = judges.read_leaderboard(tmp_path, "b")
    wp = lb[(lb.measure == "WEIGHTED_PRECISION") & (lb.topic_id != "all")].set_index(["run_id", "topic_id"]).value
    mean = a.groupby(["run_id", "topic_id"]).weight.mean()
    assert wp.reindex(mean.index).to_numpy() == pytest.approx(mean.to_numpy())

    result = run_cli("plan-assessments", tmp_path, "--name", "b", "--budget", "100%")
    assert result.returncode == 0, result.stderr
    again = [json.loads(line) for line in (tmp_path / "b.assess.jsonl").read_text().splitlines()]
    chosen = {(x["run_id"], x["topic_id"], x["sentence_index"], x["doc_id"]) for x in again}
    assert len(again) == judgeable - 3 and not chosen & keys  # the next round: the unlabelled ones


def test_bad_label_files_and_options_are_one_line(tmp_path):
    judge(tmp_path, "a")
    per_sentence = tmp_path / "sentences.jsonl"
    per_sentence.write_text(json.dumps({"run_id": "r", "topic_id": "t", "sentence_index": 0, "label": "supported"}))
    result = run_cli(*SAMPLE, *CORPUS, "--out-dir", tmp_path, "--name", "x", "--labels", per_sentence)
    assert result.returncode == 2
    assert f"{per_sentence}: doc_id: --labels needs one label per citation" in result.stderr
    assert not (tmp_path / "x.qrels").exists()
    unknown = tmp_path / "unknown.jsonl"
    row = {"run_id": "nobody", "topic_id": "t", "sentence_index": 0, "doc_id": "d", "label": "supported"}
    unknown.write_text(json.dumps(row) + "\n")
    result = judge(tmp_path, "y", "--labels", unknown)
    assert "1 of the 1 labels in" in result.stdout + result.stderr
    result = run_cli("plan-assessments", tmp_path, "--name", "a")
    assert result.returncode == 2 and "give either --budget or --count" in result.stderr
    result = run_cli("plan-assessments", tmp_path, "--name", "a", "--budget", "half")
    assert result.returncode == 2 and "'half' is not a share" in result.stderr
    result = run_cli("plan-assessments", tmp_path, "--name", "nothing", "--count", "3")
    assert result.returncode == 2 and "no nothing.assessments.parquet here" in result.stderr
