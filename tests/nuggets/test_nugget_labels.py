"""Nugget assignments planned for assessors and read back as labels, as processes on the bundled
rag24-nuggets-mini: ``plan-assessments --nuggets`` writes the pairs to label with their inclusion
probabilities, the filled file (or NIST's assignment file) is ``--labels`` of the next run, whose
labelled pairs are final; two files that disagree are an error naming both. One shared set of
runs (module fixture) for many assertions."""

from __future__ import annotations

import json

import pytest
from helpers import ROOT, judge_cli, run_cli

import judges
from judges.nuggets.measures import from_levels

MINI = ROOT / "datasets" / "rag24-nuggets-mini"
NUGGET_MINI = ("--judge", "nugget", "--rag-topics", MINI / "topics.jsonl", "--rag-responses", MINI / "runs")
NUGGET_MINI += ("--nuggets", MINI / "nuggets.jsonl")
WORDS = ("not_support", "partial_support", "support")


def _nist_levels() -> dict:
    """(run, topic, nugget index) -> NIST's assignment, from the mini set's assignment file."""
    out = {}
    for line in (MINI / "nugget_assignment.jsonl").read_text().splitlines():
        r = json.loads(line)
        for i, n in enumerate(r["nuggets"]):
            out[(r["run_id"], r["qid"], i)] = n["assignment"]
    return out


@pytest.fixture(scope="module")
def rounds(tmp_path_factory):
    root = tmp_path_factory.mktemp("nugget-labels")
    first = root / "first"
    r = judge_cli(*NUGGET_MINI, out=first, name="N", ok=False)
    assert r.returncode == 0, r.stderr
    planned = run_cli("plan-assessments", first, "--name", "N", "--nuggets", "--count", "10")
    assert planned.returncode == 0, planned.stderr
    again = run_cli("plan-assessments", first, "--name", "N", "--nuggets", "--count", "10")
    assert again.returncode == 0, again.stderr
    lines = [json.loads(x) for x in (first / "N.assess-nuggets-1.jsonl").read_text().splitlines()]
    truth = _nist_levels()
    filled = root / "filled.jsonl"
    filled.write_text(
        "".join(
            json.dumps({**x, "label": truth[(x["run_id"], x["topic_id"], x["nugget_index"])]}) + "\n" for x in lines
        )
    )
    labelled = root / "labelled"
    r = judge_cli(*NUGGET_MINI, "--labels", filled, out=labelled, name="N", ok=False)
    assert r.returncode == 0, r.stderr
    return {"first": first, "lines": lines, "planned": planned, "again": again, "filled": filled, "labelled": labelled}


def test_a_plan_line_names_a_nugget_pair_with_its_inclusion_probability(rounds):
    lines = rounds["lines"]
    assert len(lines) == 10 and "round 1: chose 10 of 75 unlabelled nugget pairs" in rounds["planned"].stdout
    table = judges.read_nuggets(rounds["first"], "N").set_index(["run_id", "topic_id", "nugget_index"])
    for x in lines:
        assert x["label"] is None and 0 < x["inclusion_probability"] <= 1
        row = table.loc[(x["run_id"], x["topic_id"], x["nugget_index"])]
        assert x["nugget"] == row.nugget and x["judge_assignment"] == row.assignment
        assert [x["answer_text"][s["char_start"] : s["char_end"]] for s in x["spans"]] == list(row.span_text)
    assert sorted(x["rank"] for x in lines) == list(range(1, 11))
    assert {x["inclusion_probability"] for x in lines} - {1.0}  # a share drawn at random, as for citations


def test_a_second_round_leaves_out_the_first_rounds_pairs(rounds):
    second = [json.loads(x) for x in (rounds["first"] / "N.assess-nuggets-2.jsonl").read_text().splitlines()]
    key = lambda x: (x["run_id"], x["topic_id"], x["nugget_index"])  # noqa: E731
    assert len(second) == 10 and not {key(x) for x in second} & {key(x) for x in rounds["lines"]}
    assert "left out the 10 nugget pairs" in rounds["again"].stdout


def test_labelled_pairs_take_the_label_and_the_rest_the_judges(rounds):
    before = judges.read_nuggets(rounds["first"], "N").set_index(["run_id", "topic_id", "nugget_index"])
    after = judges.read_nuggets(rounds["labelled"], "N").set_index(["run_id", "topic_id", "nugget_index"])
    truth = _nist_levels()
    labelled = after[after.labelled]
    assert len(labelled) == 10
    for key, row in labelled.iterrows():
        assert row.assignment == truth[key] == row.human_assignment
        assert row.explanation.startswith(f"{truth[key]}: labelled by an assessor")
    rest = after[~after.labelled]
    assert rest[["assignment", "p_support"]].equals(before.loc[rest.index, ["assignment", "p_support"]])
    # known pairs carry no judge error: the runs' NUGGET_ALL intervals are no wider than before
    width = lambda d: (lambda i: (i.high - i.low)[i.measure == "NUGGET_ALL"].sum())(judges.read_intervals(d, "N"))  # noqa: E731
    assert width(rounds["labelled"]) < width(rounds["first"])


def test_nists_assignment_file_as_labels_gives_the_assessors_measures(tmp_path):
    r = judge_cli(*NUGGET_MINI, "--labels", MINI / "nugget_assignment.jsonl", out=tmp_path, name="N", ok=False)
    assert r.returncode == 0, r.stderr
    table = judges.read_nuggets(tmp_path, "N")
    assert table.labelled.all()
    assert "75 nugget pairs: their assignment is final" in r.stdout
    rows = [line.split("\t") for line in (tmp_path / "N.leaderboard.txt").read_text().splitlines()]
    values = {(run, topic, m): float(v) for run, topic, m, v in rows}
    for (run, topic), g in table.groupby(["run_id", "topic_id"]):
        levels = [WORDS.index(a) for a in g.sort_values("nugget_index").human_assignment]
        expected = from_levels(levels, list(g.sort_values("nugget_index").importance == "vital"))
        for m, v in expected.items():
            assert values[(run, topic, m)] == pytest.approx(v, abs=1e-4)


def test_two_files_labelling_a_pair_two_ways_is_an_error_naming_both(rounds, tmp_path):
    lines = rounds["filled"].read_text().splitlines()
    first = json.loads(lines[3])
    flipped = {**first, "label": "not_support" if first["label"] != "not_support" else "support"}
    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps(flipped) + "\n")
    r = judge_cli(
        *NUGGET_MINI, "--labels", rounds["filled"], "--labels", other, out=tmp_path / "out", name="N", ok=False
    )
    assert r.returncode == 2
    assert f"{other}:1" in r.stderr and f"{rounds['filled']} line 4" in r.stderr
    assert not (tmp_path / "out").exists()


def test_planned_nugget_labels_make_the_nugget_measures_intervals_by_ppi(rounds):
    """The plan's labels come back with their inclusion probabilities: each nugget measure's estimate
    and interval combine the judge's value on every pair with the labelled ones (the citations'
    estimator), the leaderboard keeps the judge's values with the labels in effect."""
    from collections import Counter

    frame = judges.read_intervals(rounds["labelled"], "N")
    vital = judges.read_nuggets(rounds["first"], "N").set_index(["run_id", "topic_id", "nugget_index"]).importance
    lines = rounds["lines"]
    per_run = Counter(x["run_id"] for x in lines)
    per_run_vital = Counter(
        x["run_id"] for x in lines if vital[(x["run_id"], x["topic_id"], x["nugget_index"])] == "vital"
    )
    for m in ("NUGGET_ALL", "NUGGET_ALL_STRICT", "NUGGET_VITAL", "NUGGET_VITAL_STRICT"):
        rows = frame[frame.measure == m].set_index("run_id")
        for run, row in rows.iterrows():
            n = (per_run_vital if "VITAL" in m else per_run)[run]
            assert row.labels == n
            # the mini sample's two topics are among rag24-nuggets' eight, which the spreads were learned on
            learned = "model (errors learned on rag24-nuggets; 2 of these topics among them)"
            assert row.made == (
                f"{learned} and {n} labels, drawn as planned" if n else f"{learned}, with the session's labels"
            )
            assert row.low <= row.estimate <= row.high
    leaderboard = {
        (r, m): float(v)
        for r, t, m, v in (x.split("\t") for x in (rounds["labelled"] / "N.leaderboard.txt").read_text().splitlines())
        if t == "all"
    }
    nugget = frame[frame.measure.str.startswith("NUGGET")]
    assert all(
        leaderboard[(r, m)] == pytest.approx(v, abs=1e-4)
        for r, m, v in zip(nugget.run_id, nugget.measure, nugget.value)
    )
    assert (nugget.estimate != nugget.value).any()  # the PPI moved some estimate off the judge's value
