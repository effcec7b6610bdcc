"""Leaderboard formats: a round trip through every format, with and without a header line;
sniffing; trec_eval run names; one-line errors."""

import json

import pandas as pd
import pytest
from helpers import shared

from judges.core.errors import InputError
from judges.formats.leaderboards import (
    FORMATS,
    missing_all_rows,
    read_any_leaderboard,
    sniff_format,
    write_any_leaderboard,
)

HEADERS = {
    "ir_measures": "run_id\tquery_id\tmeasure\tvalue",
    "tot": "run_id\tmeasure\ttopic_id\tvalue",
    "trec_eval": "measure\ttopic\tvalue",
    "jsonl": "run_id\ttopic_id\tmeasure\tvalue",
}


def sample() -> pd.DataFrame:
    rows = []
    for run, base in (("r1", 0.5), ("r2", 0.25), ("r3.v2", 0.125)):
        for measure, scale in (("SENTENCE_SUPPORT", 1.0), ("AVG_CITATIONS", 4.0)):
            vals = [base * scale, base * scale / 2]
            rows += [(run, t, measure, v) for t, v in zip(("10", "t2"), vals)]
            rows.append((run, "all", measure, sum(vals) / 2))
    df = pd.DataFrame(rows, columns=["run_id", "topic_id", "measure", "value"])
    return df.sort_values(["run_id", "measure", "topic_id"]).reset_index(drop=True)


def add_header(path, fmt):
    files = sorted(path.iterdir()) if path.is_dir() else [path]
    for f in files:
        f.write_text(HEADERS[fmt] + "\n" + f.read_text())


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("header", [False, True])
@pytest.mark.parametrize("given", ["auto", "explicit"])
def test_round_trip(tmp_path, fmt, header, given):
    df = sample()
    path = tmp_path / ("lb" if fmt == "trec_eval" else f"lb.{fmt}")
    write_any_leaderboard(path, df, fmt)
    if header:
        add_header(path, fmt)
    read = read_any_leaderboard(path, fmt if given == "explicit" else "auto", header if given == "explicit" else None)
    pd.testing.assert_frame_equal(read, df, check_exact=False, atol=5e-5)  # text formats keep 4 decimals


def test_jsonl_keeps_full_precision_and_numeric_topic_ids(tmp_path):
    path = tmp_path / "lb.jsonl"
    path.write_text(json.dumps({"run_id": "r", "topic_id": 7, "measure": "M", "value": 1 / 3}) + "\n")
    df = read_any_leaderboard(path)
    assert df.topic_id.tolist() == ["7"] and df.value.tolist() == [1 / 3]


def test_trec_eval_run_names(tmp_path):
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "bm25.v2.txt").write_text("P_10\t1\t0.5\nP_10\tall\t0.5\n")
    (tmp_path / "d" / "other.txt").write_text("runid\tall\tnamed-in-file\nP_10\t1\t0.25\nP_10\tall\t0.25\n")
    df = read_any_leaderboard(tmp_path / "d")
    assert sorted(df.run_id.unique()) == ["bm25.v2", "named-in-file"]
    (tmp_path / "two.txt").write_text("runid\tall\ta\nrunid\tall\tb\nP_10\t1\t0.5\n")
    with pytest.raises(InputError) as e:
        read_any_leaderboard(tmp_path / "two.txt", "trec_eval")
    assert (
        e.value.render()
        == f"{tmp_path / 'two.txt'}:2: runid: second run name 'b' (first 'a'); trec_eval files hold one run"
    )


def test_sniffing(tmp_path):
    lines = lambda *ls: [(i + 1, line) for i, line in enumerate(ls)]
    p = tmp_path / "x"
    assert sniff_format(p, lines("r\tall\tM\t1")) == "ir_measures"
    assert sniff_format(p, lines("r\tM\tall\t1")) == "tot"
    assert sniff_format(p, lines("run measure topic value", "r M 1 0.5")) == "tot"
    assert sniff_format(p, lines("run_id query_id measure value", "r 1 M 0.5")) == "ir_measures"
    assert sniff_format(p, lines("M\t1\t0.5")) == "trec_eval"
    assert sniff_format(p, lines('{"run_id": "r"}')) == "jsonl"
    with pytest.raises(InputError, match="cannot tell ir_measures .* from tot"):
        sniff_format(p, lines("r\t1\tM\t0.5", "r\t2\tM\t0.5"))


@pytest.mark.parametrize(
    "text, fmt, expected",
    [
        (
            "r\t1\tM\t0.5\nr\t1\tM\t0.7\n",
            "ir_measures",
            "{p}:2: value: second value for run 'r', topic '1', measure 'M' (first at {p}:1)",
        ),
        ("r\t1\tM\t0.5\nr\t1\tM\n", "ir_measures", "{p}:2: 3 columns; ir_measures has 4 (run topic measure value)"),
        ("r\tM\t1\t0.5\nr\tM\t2\tabc\n", "tot", "{p}:2: value: 'abc' is not a number"),  # only line 1 can be a header
        ("r\tM\t1\t0.5\nr\tM\t2\tnan\n", "tot", "{p}:2: value: 'nan' is not a finite number"),
        ('{"run_id": "r", "topic_id": "1", "value": 1}\n', "jsonl", "{p}:1: measure: missing"),
        (
            '{"run_id": "r", "topic_id": "1", "measure": "M", "value": true}\n',
            "jsonl",
            "{p}:1: value: must be a number",
        ),
        (
            '{"run_id": "r", "topic_id": "1", "measure": "M", "value": 1}\n{oops\n',
            "jsonl",
            "{p}:2: invalid JSON (Expecting property name enclosed in double quotes at column 2)",
        ),
        ("\n\n", "auto", "{p}: empty leaderboard"),
        ("run_id topic measure value\n", "auto", "{p}: a header line and no rows"),
    ],
)
def test_errors_are_one_line(tmp_path, text, fmt, expected):
    p = tmp_path / "lb.txt"
    p.write_text(text)
    with pytest.raises(InputError) as e:
        read_any_leaderboard(p, fmt)
    assert e.value.render() == expected.format(p=p)


def test_missing_path(tmp_path):
    with pytest.raises(InputError, match="no such file or directory"):
        read_any_leaderboard(tmp_path / "nope")


def test_missing_all_rows():
    df = sample()
    assert missing_all_rows(df) == []
    cut = df[~((df.run_id == "r2") & (df.topic_id == "all") & (df.measure == "AVG_CITATIONS"))]
    assert missing_all_rows(cut) == [("r2", "AVG_CITATIONS")]


def test_spot_check_truth_is_space_aligned_tot():
    path = shared("spot-check", "spot-check-dataset", "trec-leaderboard.txt")
    df = read_any_leaderboard(path)
    assert len(df) == 12
    assert sorted(df.run_id.unique()) == ["my_best_run_01", "my_best_run_02", "my_best_run_02_citations"]
    assert set(df.topic_id) == {"28", "all"} and set(df.measure) == {"Measure-01", "Measure-02"}
    one = df[(df.measure == "Measure-01") & (df.topic_id == "all")].set_index("run_id").value
    assert one.to_dict() == {"my_best_run_01": 1.0, "my_best_run_02": 2.0, "my_best_run_02_citations": 3.0}


def test_kiddie_truth_has_a_header_line():
    df = read_any_leaderboard(shared("kiddie", "eval", "kiddie_fake.eval.ir_measures.txt"))
    assert len(df) == 24 and set(df.measure) == {"RELEVANCE"}
    assert df[df.topic_id == "all"].set_index("run_id").value.to_dict() == {
        "run1": 0.864,
        "run2": 0.692,
        "run3": 0.316,
        "run4": 0.088,
    }
