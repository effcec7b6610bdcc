"""Inputs that would judge too little or the wrong thing are refused before anything is written:
topics of another track, few of the runs' topics (unless ``--allow-few-topics``), a run file
given as topics; through every judge and the shard path."""

from __future__ import annotations

import json
import re
import shutil
from collections import Counter
from pathlib import Path

import pytest
import yaml
from helpers import ROOT, cli_in_process, run_cli, shared, track

MINI = ROOT / "datasets" / "rag24-mini"
NUGGETS = ROOT / "datasets" / "rag24-nuggets-mini"
RAG25 = ROOT / "datasets" / "rag25" / "topics.jsonl"


def _previous_set(out):
    """A previous output set in ``out``: what a refused session must leave as it is."""
    out.mkdir()
    files = {"x.leaderboard.txt": "good\tall\tWEIGHTED_PRECISION\t0.8\n", "x.config.yml": "name: x\n"}
    for name, text in files.items():
        (out / name).write_text(text)
    return files


def _unchanged(out, files):
    assert {p.name: p.read_text() for p in out.iterdir()} == files


def test_topics_of_another_track_are_an_error_and_the_previous_set_stays(tmp_path):
    out = tmp_path / "out"
    files = _previous_set(out)
    r = cli_in_process("--rag-topics", RAG25, "--rag-responses", MINI / "runs", "--out-dir", out, "--name", "x")
    assert r.returncode == 2, r.stdout
    last = r.stderr.strip().splitlines()[-1]
    assert last.startswith(f"error: {RAG25}: --rag-topics: none of the 123 reports is of one of these topics")
    _unchanged(out, files)


@pytest.mark.parametrize(
    "judge",
    [
        ("--judge", "nugget", "--nuggets", NUGGETS / "nuggets.jsonl"),
        ("--judge", "argue", "--nuggets", NUGGETS / "nuggets.jsonl", "--corpus", NUGGETS / "segments.jsonl"),
        ("--shard", "1/2", "--corpus", MINI / "segments.jsonl"),
    ],
    ids=["nugget", "argue", "shard"],
)
def test_every_judge_and_the_shards_check_the_topics(tmp_path, judge):
    out = tmp_path / "out"
    r = cli_in_process(
        "--rag-topics", RAG25, "--rag-responses", NUGGETS / "runs", *judge, "--out-dir", out, "--name", "x"
    )  # fmt: skip
    assert r.returncode == 2, r.stdout
    assert f"error: {RAG25}: --rag-topics: none of the" in r.stderr
    assert not out.exists()


@pytest.mark.shared
def test_last_years_dragun_topics_on_real_dragun_runs(tmp_path):
    runs = shared("real-runs", "dragun25")
    topics = ROOT / "datasets" / "dragun" / "topics.jsonl"
    r = cli_in_process("--rag-topics", topics, "--rag-responses", runs, "--out-dir", tmp_path / "o", "--name", "x")
    assert r.returncode == 2
    assert f"error: {topics}: --rag-topics: none of the 90 reports is of one of these topics" in r.stderr
    assert not (tmp_path / "o").exists()


def test_a_run_file_given_as_topics_is_refused(tmp_path):
    run = next(iter(sorted((MINI / "runs").iterdir())))
    r = cli_in_process("--rag-topics", run, "--rag-responses", MINI / "runs", "--out-dir", tmp_path / "o")
    assert r.returncode == 2
    assert r.stderr.strip().splitlines()[-1] == (
        f"error: {run}: --rag-topics: its records are a run's reports, not topics "
        "(give run files as --rag-responses, topics as --rag-topics)"
    )
    assert not (tmp_path / "o").exists()


def test_a_run_record_among_topics_is_not_a_topic(tmp_path):
    topics = tmp_path / "topics.jsonl"
    first = (MINI / "topics.jsonl").read_text().splitlines()[0]
    report = '{"metadata": {"run_id": "r", "topic_id": "t"}, "answer": []}'
    topics.write_text(f"{first}\n{report}\n")
    r = cli_in_process("--rag-topics", topics, "--rag-responses", MINI / "runs", "--out-dir", tmp_path / "o")
    assert r.returncode == 2
    assert f"error: {topics}:2: a run's report, not a topic" in r.stderr


def test_few_topics_need_allow_few_topics_and_config_records_it(tmp_path):
    one = tmp_path / "one.jsonl"
    one.write_text((MINI / "topics.jsonl").read_text().splitlines()[0] + "\n")
    args = ("--rag-topics", one, "--rag-responses", MINI / "runs", "--corpus", MINI / "segments.jsonl")
    r = cli_in_process(*args, "--out-dir", tmp_path / "o", "--name", "x")
    assert r.returncode == 2
    assert (
        f"error: {one}: --rag-topics: only 42 of the 123 reports are of one of these topics (81 would not be "
        "judged): are they the runs' topics? Give --allow-few-topics to judge these topics only"
    ) in r.stderr
    assert not (tmp_path / "o").exists()
    r = cli_in_process(*args, "--out-dir", tmp_path / "o", "--name", "x", "--allow-few-topics")
    assert r.returncode == 0, r.stderr
    config = yaml.safe_load((tmp_path / "o" / "x.config.yml").read_text())
    assert config["allow_few_topics"] is True and config["topics"] == 1
    assert config["counts"]["reports_unknown_topic"] == 81


# -- --labels DIR: the label files of a directory, the rounds of an out-dir ------------------------


def _argue(out, *extra, run=run_cli):
    return run("--judge", "argue", *track(NUGGETS, nuggets="nuggets.jsonl"), "--out-dir", out, "--name", "N", *extra)


@pytest.fixture(scope="module")
def rounds(tmp_path_factory):
    """An argue set with a citation round not labelled yet and a nugget round labelled (4 pairs)."""
    out = tmp_path_factory.mktemp("rounds")
    assert _argue(out).returncode == 0
    for extra in ((), ("--nuggets",)):
        r = run_cli("plan-assessments", out, "--name", "N", "--budget", "5%", *extra)
        assert r.returncode == 0, r.stderr
    nugget_round = out / "N.assess-nuggets-1.jsonl"
    lines = [json.loads(line) for line in nugget_round.read_text().splitlines()]
    nugget_round.write_text("".join(json.dumps({**line, "label": "support"}) + "\n" for line in lines))
    return out, len(lines)


def test_labels_dir_of_an_out_dir_reads_its_rounds_only(tmp_path, rounds):
    out = tmp_path / "set"
    shutil.copytree(rounds[0], out)
    r = _argue(out, "--labels", out, "--no-debug-log")
    assert r.returncode == 0, r.stderr
    # not the set's own N.nuggets.jsonl (75 pairs) nor its debug log: the labelled round's 4 pairs
    assert f"nugget labels            {rounds[1]} nugget pairs: their assignment is final" in r.stdout
    # the citation round not labelled yet is skipped with a note, not refused
    assert f"  not labelled yet       {out / 'N.assess-1.jsonl'}: 2 lines, skipped (fill them in)" in r.stdout
    config = yaml.safe_load((out / "N.config.yml").read_text())
    assert [Path(f["path"]).name for f in config["inputs"]["labels"]] == [
        "N.assess-1.jsonl",
        "N.assess-nuggets-1.jsonl",
    ]
    assert config["labels"]["nugget_pairs"] == rounds[1]


def test_labels_dir_reads_label_files_only(tmp_path, rounds):
    labels = tmp_path / "labels"
    labels.mkdir()
    shutil.copy(rounds[0] / "N.jsonl", labels / "N.jsonl")  # a debug log: no label in it
    (labels / "notes.jsonl").write_text('{"note": "round two next week"}\n')
    shutil.copy(rounds[0] / "N.assess-nuggets-1.jsonl", labels / "mine.jsonl")  # labels by their records
    r = _argue(tmp_path / "o", "--labels", labels, run=cli_in_process)
    assert r.returncode == 0, r.stderr
    assert f"nugget labels            {rounds[1]} nugget pairs" in r.stdout
    r = _argue(tmp_path / "o2", "--labels", tmp_path / "o", run=cli_in_process)  # an out-dir without rounds
    assert r.returncode == 2
    assert f"error: {tmp_path / 'o'}: --labels: no label files" in r.stderr


# -- the headline follows the judge ------------------------------------------------------------------


@pytest.fixture(scope="module")
def argued(tmp_path_factory):
    out = tmp_path_factory.mktemp("argued")
    r = _argue(out)
    assert r.returncode == 0, r.stderr
    return out, r


def test_argue_ranks_by_nugget_f1_and_counts_its_nugget_pairs(argued):
    out, r = argued
    assert "top runs by NUGGET_F1 (mean over topics):" in r.stdout
    assert "adjacent runs by NUGGET_F1" in r.stdout and "adjacent runs by WEIGHTED_PRECISION" not in r.stdout
    config = yaml.safe_load((out / "N.config.yml").read_text())
    assert config["headline"] == "NUGGET_F1"
    counts = config["counts"]
    pairs = [json.loads(line) for line in (out / "N.nuggets.jsonl").read_text().splitlines()]
    assigned = Counter(n["assignment"] for record in pairs for n in record["nuggets"])
    assert counts["nugget_pairs"] == sum(assigned.values()) == 75
    assert {a: counts.get(f"nugget_{a}", 0) for a in assigned} == dict(assigned)
    n = counts["nugget_pairs"]
    assert f"nugget pairs judged      {n}\n" in r.stdout
    assert f"  support                {assigned['support']} ({100 * assigned['support'] / n:.1f}%)" in r.stdout
    assert "citations judged         33" in r.stdout  # argue judges both


def test_nugget_judge_summary_is_of_nugget_pairs_without_a_word_on_citations_text(tmp_path):
    r = cli_in_process(
        "--judge", "nugget", "--rag-topics", NUGGETS / "topics.jsonl", "--rag-responses", NUGGETS / "runs",
        "--nuggets", NUGGETS / "nuggets.jsonl", "--out-dir", tmp_path, "--name", "N",
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert "nugget pairs judged      75" in r.stdout
    assert "citations judged" not in r.stdout and "  supported " not in r.stdout
    assert "document text" not in r.stdout + r.stderr  # it needs no corpus: no warning that text lacks
    assert "top runs by NUGGET_ALL" in r.stdout


def test_headline_chosen_and_checked(tmp_path):
    base = (
        "--judge", "nugget", "--rag-topics", NUGGETS / "topics.jsonl", "--rag-responses", NUGGETS / "runs",
        "--nuggets", NUGGETS / "nuggets.jsonl", "--out-dir", tmp_path / "o", "--name", "N",
    )  # fmt: skip
    r = cli_in_process(*base, "--headline", "NUGGET_VITAL")
    assert r.returncode == 0, r.stderr
    assert "top runs by NUGGET_VITAL (mean over topics):" in r.stdout
    r = cli_in_process(*base, "--headline", "NUGGET_X")
    assert r.returncode == 2
    assert r.stderr.strip().splitlines()[-1].startswith("error: --headline: 'NUGGET_X' is not a measure; expected one")
    r = cli_in_process(*base, "--headline", "WEIGHTED_PRECISION")
    assert r.returncode == 2
    assert "error: --headline: WEIGHTED_PRECISION is not on --judge nugget's leaderboard" in r.stderr


def test_report_truth_pairs_human_x_with_x(tmp_path, argued):
    """A truth of HUMAN_NUGGET_ALL is set against the judge's NUGGET_ALL (not the headline): a truth
    equal to the judge's NUGGET_ALL gives tau 1 whatever the other measures' order."""
    out = tmp_path / "set"
    shutil.copytree(argued[0], out)
    board = [line.split() for line in (out / "N.leaderboard.txt").read_text().splitlines()]
    truth = tmp_path / "truth.txt"
    truth.write_text(
        "".join(f"{run} {topic} HUMAN_{m} {v}\n" for run, topic, m, v in board if m in ("NUGGET_ALL", "NUGGET_VITAL"))
    )
    r = run_cli("report", out, "--truth", truth, "--resamples", "20")
    assert r.returncode == 0, r.stderr
    index = (out / "N.report" / "index.html").read_text(encoding="utf-8")
    assert re.search(r"Judge against truth: Kendall's tau 1\.000 over 3 runs", index), index[:2000]
    assert "The judge's NUGGET_ALL against the truth's HUMAN_NUGGET_ALL." in index


# -- quiet or misleading inputs -------------------------------------------------------------------


def _nugget_judge(tmp_path, nuggets, run=cli_in_process):
    return run(
        "--judge", "nugget", "--rag-topics", NUGGETS / "topics.jsonl", "--rag-responses", NUGGETS / "runs",
        "--nuggets", nuggets, "--out-dir", tmp_path / "o", "--name", "N",
    )  # fmt: skip


def test_an_empty_nugget_bank_is_warned_as_a_missing_one(tmp_path):
    records = [json.loads(line) for line in (NUGGETS / "nuggets.jsonl").read_text().splitlines()]
    records[1]["nuggets"] = []
    bank = tmp_path / "bank.jsonl"
    bank.write_text("".join(json.dumps(r) + "\n" for r in records))
    r = _nugget_judge(tmp_path, bank)
    assert r.returncode == 0, r.stderr
    topic = records[1]["qid"]
    said = f"1 topic(s) have an empty nugget bank in {bank}, their nugget measures are 0: {topic}"
    assert f"warning                  {said}" in r.stdout  # as a topic without a bank is warned


@pytest.mark.parametrize(
    "bank, field",
    [
        ({"n1": {"question": "Who?"}, "n2": {"question": "When?"}}, "nugget_bank.n1"),
        (
            [{"question_id": "q", "question": "Who?"}, {"question_id": "q", "question": "When?"}],
            "nugget_bank[1].question_id",
        ),
    ],
    ids=["object", "list"],
)
def test_an_autojudge_nugget_id_given_twice_is_an_error_line(tmp_path, bank, field):
    path = tmp_path / "banks.jsonl"
    text = json.dumps({"query_id": "2024-153051", "title_query": "q", "nugget_bank": bank})
    path.write_text(text.replace('"n2"', '"n1"') + "\n")  # JSON keeps the last of a key given twice
    r = _nugget_judge(tmp_path, path, run=run_cli)
    assert r.returncode == 2
    assert r.stderr.strip().splitlines()[-1].startswith(f"error: {path}:1: {field}: nugget id ")
    assert not (tmp_path / "o").exists()


def _labels_with(tmp_path, probabilities):
    lines = [json.loads(line) for line in (MINI / "labels.jsonl").read_text().splitlines()[: len(probabilities)]]
    path = tmp_path / "labels.jsonl"
    path.write_text(
        "".join(json.dumps({**line, "inclusion_probability": p}) + "\n" for line, p in zip(lines, probabilities))
    )
    return path


def test_inclusion_probability_null_is_a_label_not_drawn_with_a_known_probability(tmp_path):
    args = track(MINI)
    bad = _labels_with(tmp_path, [0.5, 2])
    r = cli_in_process(*args, "--labels", bad, "--out-dir", tmp_path / "bad", "--name", "x")
    assert r.returncode == 2
    assert (
        r.stderr.strip().splitlines()[-1] == f"error: {bad}:2: inclusion_probability: must be a number in (0, 1], got 2"
    )
    assert not (tmp_path / "bad").exists()  # an error creates nothing
    labels = _labels_with(tmp_path, [0.5, None, 1.0, None])
    r = cli_in_process(*args, "--labels", labels, "--out-dir", tmp_path / "o", "--name", "x")
    assert r.returncode == 0, r.stderr
    config = yaml.safe_load((tmp_path / "o" / "x.config.yml").read_text())
    assert config["labels"]["files"][0]["labels"] == 4


def test_nuggets_given_a_directory_is_one_line(tmp_path):
    r = _nugget_judge(tmp_path, NUGGETS, run=run_cli)
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == [
        f"error: {NUGGETS}: --nuggets: is a directory: give the nugget bank file itself (e.g. nuggets.jsonl)"
    ]
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(
    "damage, problem",
    [
        (lambda p: p.write_bytes(p.read_bytes()[:300]), ":1: truncated record"),
        (lambda p: p.unlink(), ": no such file: judge with --nuggets again to write it"),
        (
            lambda p: p.write_bytes(b'{"qid": "2024-153051", "run_id": "r", "answer_text": "caf\xe9"}\n'),
            ":1: not UTF-8",
        ),
    ],
    ids=["cut", "missing", "latin-1"],
)
def test_plan_nuggets_names_a_damaged_nuggets_file(tmp_path, argued, damage, problem):
    out = tmp_path / "set"
    shutil.copytree(argued[0], out)
    (out / "N.sha256").unlink()  # the reader's own line (a set written before records; else the record's line)
    damage(out / "N.nuggets.jsonl")
    r = cli_in_process("plan-assessments", out, "--name", "N", "--nuggets", "--budget", "5%")
    assert r.returncode == 2, r.stdout
    assert r.stderr.strip().splitlines()[-1].startswith(f"error: {out / 'N.nuggets.jsonl'}{problem}"), r.stderr
    assert not list(out.glob("N.assess-nuggets-*"))


def test_plan_nuggets_over_a_set_damaged_after_judging_names_the_file_by_the_sets_record(tmp_path, argued):
    out = tmp_path / "set"
    shutil.copytree(argued[0], out)
    victim = out / "N.nuggets.parquet"
    victim.write_bytes(victim.read_bytes()[:-100] + b"\0" * 100)  # its footer broken, its size kept
    r = cli_in_process("plan-assessments", out, "--name", "N", "--nuggets", "--budget", "5%")
    assert r.returncode == 2, r.stdout
    assert r.stderr.strip().splitlines()[-1].startswith(f"error: {victim}: damaged: its sha256 differs"), r.stderr
    assert not list(out.glob("N.assess-nuggets-*"))
