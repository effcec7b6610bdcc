"""Assessors' labels in rounds, through the CLI: plan-assessments chooses the citations, the
labelled file comes back as --labels, labelled citations are final and the next plan skips them."""

from __future__ import annotations

import json

import pandas as pd
import yaml
import pytest

from helpers import ROOT, cli_in_process, copy_judged, judge_cli, run_cli

import judges

SAMPLE = ("--rag-topics", ROOT / "datasets/rag25/topics.jsonl", "--rag-responses", ROOT / "runs/rag25")
CORPUS = ("--corpus", ROOT / "datasets/rag25/corpus.jsonl")


def test_plan_label_and_judge_again_in_rounds(judged_sample, tmp_path):
    copy_judged(judged_sample, tmp_path)  # SAMPLE and CORPUS judged as "a"
    result = run_cli("plan-assessments", tmp_path, "--name", "a", "--count", "4")
    assert result.returncode == 0, result.stderr
    assert "chose 4 of " in result.stdout
    lines = [json.loads(line) for line in (tmp_path / "a.assess-1.jsonl").read_text().splitlines()]
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
    result = judge_cli(*SAMPLE, *CORPUS, "--labels", labels, out=tmp_path, name="b")
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
    again = [json.loads(line) for line in (tmp_path / "b.assess-1.jsonl").read_text().splitlines()]
    chosen = {(x["run_id"], x["topic_id"], x["sentence_index"], x["doc_id"]) for x in again}
    assert len(again) == judgeable - 3 and not chosen & keys  # the next round: the unlabelled ones


def test_bad_label_files_and_options_are_one_line(judged_sample, tmp_path):
    copy_judged(judged_sample, tmp_path)  # SAMPLE and CORPUS judged as "a"
    per_sentence = tmp_path / "sentences.jsonl"
    per_sentence.write_text(json.dumps({"run_id": "r", "topic_id": "t", "sentence_index": 0, "label": "supported"}))
    result = cli_in_process(*SAMPLE, *CORPUS, "--out-dir", tmp_path, "--name", "x", "--labels", per_sentence)
    assert result.returncode == 2
    assert f"{per_sentence}: doc_id: --labels needs one label per citation" in result.stderr
    assert not (tmp_path / "x.qrels").exists()
    unknown = tmp_path / "unknown.jsonl"
    row = {"run_id": "nobody", "topic_id": "t", "sentence_index": 0, "doc_id": "d", "label": "supported"}
    unknown.write_text(json.dumps(row) + "\n")
    result = judge_cli(*SAMPLE, *CORPUS, "--labels", unknown, out=tmp_path, name="y")
    assert "0 of the 1 labels in" in result.stdout + result.stderr
    result = cli_in_process("plan-assessments", tmp_path, "--name", "a")
    assert result.returncode == 2 and "give either --budget or --count" in result.stderr
    result = cli_in_process("plan-assessments", tmp_path, "--name", "a", "--budget", "half")
    assert result.returncode == 2 and "'half' is not a share" in result.stderr
    result = cli_in_process("plan-assessments", tmp_path, "--name", "nothing", "--count", "3")
    assert result.returncode == 2 and "no nothing.assessments.parquet here" in result.stderr


def keys_of(lines):
    return {(x["run_id"], x["topic_id"], x["sentence_index"], x["doc_id"]) for x in lines}


def read_lines(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def write_lines(path, lines):
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


def test_rounds_are_never_overwritten_and_the_next_plan_leaves_out_every_earlier_round(judged_sample, tmp_path):
    """Issue 42 item 1: a second plan once rewrote the file the assessors had filled (labels gone, exit 0)."""
    copy_judged(judged_sample, tmp_path)  # SAMPLE and CORPUS judged as "a"
    result = run_cli("plan-assessments", tmp_path, "--name", "a", "--count", "4")
    assert result.returncode == 0, result.stderr
    one = tmp_path / "a.assess-1.jsonl"
    assert "round 1: chose 4 of " in result.stdout and f"wrote {one}" in result.stdout
    lines = read_lines(one)
    for line in lines[:3]:  # the assessors fill the file in place; the fourth stays open
        line["label"] = "not_supported"
    write_lines(one, lines)
    filled = one.read_bytes()

    result = run_cli("plan-assessments", tmp_path, "--name", "a", "--count", "4")  # the README's next round
    assert result.returncode == 0, result.stderr
    assert one.read_bytes() == filled  # round one's labels are still there
    assert "left out the 4 citations of 1 earlier round file(s) (3 labelled, 1 not labelled yet)" in result.stdout
    assert "round 2: chose 4 of " in result.stdout
    second = read_lines(tmp_path / "a.assess-2.jsonl")
    assert len(second) == 4 and not keys_of(second) & keys_of(lines)  # asked once, labelled or not

    result = cli_in_process("plan-assessments", tmp_path, "--name", "a", "--count", "1", "--output", one)
    assert result.returncode == 2 and result.stderr.count("\n") == 1
    assert f"{one}: exists: plan-assessments never overwrites a round's file" in result.stderr
    assert one.read_bytes() == filled
    bad = dict(lines[0], label="suported")  # a typo in an earlier round: one line naming it, nothing written
    write_lines(one, [bad, *lines[1:]])
    result = cli_in_process("plan-assessments", tmp_path, "--name", "a", "--count", "1")
    assert result.returncode == 2 and result.stderr.startswith(f'error: {one}:1: label: unknown "suported"')
    assert not (tmp_path / "a.assess-3.jsonl").exists()


def test_labels_given_several_times_are_all_in_effect_and_a_conflict_is_one_error_line(judged_sample, tmp_path):
    """Issue 42 item 2: a second --labels once replaced the first, silently."""
    copy_judged(judged_sample, tmp_path)  # SAMPLE and CORPUS judged as "a"
    plan = tmp_path / "plan.jsonl"
    result = run_cli("plan-assessments", tmp_path, "--name", "a", "--count", "8", "--output", plan)
    assert result.returncode == 0, result.stderr
    lines = read_lines(plan)
    first, second = lines[:4], lines[4:]
    for line in first[:3]:
        line["label"] = "not_supported"
    for line, label in zip(second, ["supported", "partially", "supported", "not_supported"]):
        line["label"] = label
    one, two = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    write_lines(one, first)
    write_lines(two, second)
    folder = tmp_path / "folder"  # a directory given to --labels: a folder of label files
    folder.mkdir()
    (folder / "two.jsonl").write_bytes(two.read_bytes())
    result = judge_cli(
        *SAMPLE, *CORPUS, "--labels", one, "--labels", folder, "--labels", two, out=tmp_path, name="b"
    )  # two twice: counted once
    assert "7: their level is final" in result.stdout
    shown = " ".join(result.stdout.split())
    assert "3 labels, 1 lines not labelled yet" in shown and shown.count(": 4 labels") == 2
    a = judges.read_assessments(tmp_path, "b")
    done = a[a.human_label.notna()]
    assert set(zip(done.run_id, done.topic_id, done.sentence_index, done.doc_id)) == keys_of(first[:3] + second)
    config = yaml.safe_load((tmp_path / "b.config.yml").read_text())
    assert config["labels"]["in_effect"] == 7
    assert {(f["path"], f["labels"], f["not_labelled"]) for f in config["labels"]["files"]} == {
        (str(one), 3, 1),
        (str(two), 4, 0),
        (str(folder / "two.jsonl"), 4, 0),
    }
    assert len(config["inputs"]["labels"]) == 3

    other = dict(first[0], label="supported")  # one.jsonl says not_supported
    conflict = tmp_path / "conflict.jsonl"
    write_lines(conflict, [second[0], other])
    result = cli_in_process(
        *SAMPLE, *CORPUS, "--out-dir", tmp_path, "--name", "c", "--labels", one, "--labels", conflict
    )
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert f"{conflict}:2: label: supported for " in result.stderr
    assert f"labelled unsupported in {one} line 1: one citation labelled two ways" in result.stderr
    assert not list(tmp_path.glob("c.*"))
