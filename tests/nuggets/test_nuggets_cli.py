"""The nugget judge as a process: ``--judge argue`` / ``nugget`` with ``--nuggets`` on the bundled
rag24-nuggets-mini (golden files) and on ../shared/data/rag24-nuggets when present; bad input."""

from __future__ import annotations

import json

import pytest
from helpers import ROOT, cli_in_process, run_cli, shared, track

import judges
import judges.session.nuggets as nugget_session
from judges.formats.nuggets import read_nuggets

MINI = ROOT / "datasets" / "rag24-nuggets-mini"
GOLDEN = ROOT / "tests" / "golden" / "rag24-nuggets-mini"
NUGGET_MEASURES = ("NUGGET_ALL", "NUGGET_ALL_STRICT", "NUGGET_VITAL", "NUGGET_VITAL_STRICT")


def _argue(out, data=MINI, judge="argue", *extra):
    return run_cli("--judge", judge, *track(data, nuggets="nuggets.jsonl"), "--out-dir", out, "--name", "N", *extra)


def test_argue_matches_golden_files(argued_mini):
    for name in ("N.leaderboard.txt", "N.nuggets.jsonl"):
        assert (argued_mini / name).read_text() == (GOLDEN / name).read_text(), name


def test_argue_leaderboard_has_every_measure_and_f1(argued_mini):
    rows = [line.split("\t") for line in (argued_mini / "N.leaderboard.txt").read_text().splitlines()]
    measures = {m for _, _, m, _ in rows}
    assert set(NUGGET_MEASURES) | {"NUGGET_F1", "WEIGHTED_PRECISION"} <= measures
    values = {(r, t, m): float(v) for r, t, m, v in rows}
    for (run, topic, m), v in values.items():
        if m == "NUGGET_F1" and topic != "all":
            p, n = values[(run, topic, "WEIGHTED_PRECISION")], values[(run, topic, "NUGGET_ALL")]
            assert v == pytest.approx(2 * p * n / (p + n) if p + n else 0.0, abs=1e-4)


def test_nugget_file_is_nist_shaped_and_readable(argued_mini):
    """Our assignment file reads back with our own reader of NIST's files, one record per answer."""
    found = read_nuggets(argued_mini / "N.nuggets.jsonl")
    assert found.shape == "nist_assignment" and len(found.assignments) == 6
    assert found.banks == read_nuggets(MINI / "nuggets.jsonl").banks
    table = judges.read_nuggets(argued_mini, "N")
    assert table.equals(nugget_session.read_nuggets_table(argued_mini / "N.nuggets.parquet"))
    assert len(table) == sum(len(a.levels) for a in found.assignments.values())
    for row in table.itertuples():  # the spans are offsets into the answer text
        answer = found.assignments[(row.run_id, row.topic_id)].answer_text
        assert [answer[s["char_start"] : s["char_end"]] for s in row.spans] == list(row.span_text)
        assert row.p_support + row.p_partial + row.p_not == pytest.approx(1.0)
        assert row.explanation.startswith(row.assignment)
    events = [json.loads(line) for line in (argued_mini / "N.jsonl").read_text().splitlines()]
    assert sum(e.get("event") == "NUGGET_OUTPUT" for e in events) == len(table)


def test_intervals_and_pairs_of_the_nugget_measures(argued_mini):
    """Every run gets a model-based interval on each nugget measure and NUGGET_F1 (errors learned
    on rag24-nuggets: judges/scores/nugget_intervals.json), and every pair of runs a probability per measure."""
    intervals = judges.read_intervals(argued_mini, "N")
    pairs = judges.read_pairs(argued_mini, "N")
    runs = sorted(set(intervals.run_id))
    board = {
        (r, m): float(v)
        for r, t, m, v in (line.split("\t") for line in (argued_mini / "N.leaderboard.txt").read_text().splitlines())
        if t == "all"
    }
    for m in (*NUGGET_MEASURES, "NUGGET_F1"):
        rows = intervals[intervals.measure == m]
        assert sorted(rows.run_id) == runs
        assert (rows.low <= rows.value).all() and (rows.value <= rows.high).all() and (rows.high > rows.low).all()
        assert rows.made.str.contains("rag24-nuggets").all()
        for row in rows.itertuples():
            assert row.value == pytest.approx(board[(row.run_id, m)], abs=1e-4)
        on = pairs[pairs.measure == m]
        assert len(on) == len(runs) * (len(runs) - 1) // 2
        assert ((on.p_same_order >= 0.5) & (on.p_same_order <= 1) & (on.gap >= 0)).all()
    # the citation measures' rows and pairs are there as before
    assert len(pairs[pairs.measure == "WEIGHTED_PRECISION"]) == len(runs) * (len(runs) - 1) // 2


def test_nugget_only_needs_no_corpus(tmp_path):
    r = run_cli(
        "--judge", "nugget", "--rag-topics", MINI / "topics.jsonl", "--rag-responses", MINI / "runs",
        "--nuggets", MINI / "nuggets.jsonl", "--out-dir", tmp_path, "--name", "N",
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    measures = {line.split("\t")[2] for line in (tmp_path / "N.leaderboard.txt").read_text().splitlines()}
    assert measures == set(NUGGET_MEASURES)
    assert "top runs by NUGGET_ALL" in r.stdout
    # the nugget measures have their own run pairs: the lines about pairs are NUGGET_ALL's
    assert "adjacent runs by NUGGET_ALL" in r.stdout and "adjacent runs by WEIGHTED_PRECISION" not in r.stdout
    # the intervals and pairs are of the leaderboard's measures only (they were of every citation measure too)
    for kind, column in (("intervals", 1), ("pairs", 2)):
        rows = (tmp_path / f"N.{kind}.tsv").read_text().splitlines()[1:]
        assert {line.split("\t")[column] for line in rows} == set(NUGGET_MEASURES), kind


def test_bad_nugget_file_is_one_line_and_nothing_written(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"qid": "2024-153051", "nuggets": [{"text": 5}]}\n')
    out = tmp_path / "out"
    r = cli_in_process(
        "--judge", "argue", "--rag-responses", MINI / "runs", "--nuggets", bad,
        "--corpus", MINI / "segments.jsonl", "--out-dir", out, "--name", "N",
    )  # fmt: skip
    assert r.returncode == 2
    assert r.stderr.strip().splitlines()[-1] == f"error: {bad}:1: nuggets[0].text: must be a string, got a number"
    assert not out.exists() or not any(out.iterdir())


@pytest.mark.parametrize(
    "args,message,run",
    [
        (("--judge", "argue"), "argue needs --nuggets", run_cli),  # one real process, one in this one
        (("--nuggets", MINI / "nuggets.jsonl"), "only with --judge nugget, argue or battle", cli_in_process),
    ],
)
def test_options_checked(tmp_path, args, message, run):
    r = run("--rag-responses", MINI / "runs", "--out-dir", tmp_path, *args)
    assert r.returncode == 2 and message in r.stderr


def test_shared_rag24_nuggets_runs(tmp_path):
    d = shared("rag24-nuggets")
    r = _argue(tmp_path, d)
    assert r.returncode == 0, r.stderr
    rows = [line.split("\t") for line in (tmp_path / "N.leaderboard.txt").read_text().splitlines()]
    runs = {r for r, t, m, _ in rows if t == "all" and m == "NUGGET_F1"}
    assert len(runs) == 45
