"""The report's judge-against-truth compares like with like: each run, on both sides, over the
topics the truth has for it, as ``meta-evaluate --truth-topics`` ranks them (the same code:
judges.meta.metaeval.paired_scores); and plain meta-evaluate, failing or warning on a truth
that judged runs on different topics, names --truth-topics."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from helpers import copy_judged, cli_in_process, run_cli, shared
from scipy.stats import kendalltau

import judges

FACTS = {
    "t1": [
        "The Amazon river carries more water than any other river on Earth.",
        "Its basin covers about seven million square kilometres of South America.",
        "The river was named by the Spanish explorer Francisco de Orellana.",
    ],
    "t2": [
        "Honey bees communicate the location of flowers through a waggle dance.",
        "A colony can hold up to sixty thousand workers in the summer months.",
        "The queen lays as many as two thousand eggs on a single day.",
    ],
    "t3": [
        "The Great Wall of China stretches across the northern frontier of the country.",
        "Most of the surviving wall was built during the Ming dynasty.",
        "Workers used rammed earth, bricks and stone to build its sections.",
    ],
}
UNRELATED = [
    "Bananas are a good source of potassium for long distance runners.",
    "The violin concerto premiered in a small hall in Leipzig that winter.",
    "Modern submarines can stay submerged for several months at a time.",
]
# per run: the topics it answered and how many of its three sentences restate the document
RUNS = {
    "r1": ({"t1", "t2", "t3"}, 3),
    "r2": ({"t1", "t2", "t3"}, 2),
    "r3": ({"t1", "t2", "t3"}, 1),
    "r4": ({"t1"}, 3),  # excellent, on one topic only: the zero rows of the others sink its `all` row
    "r5": ({"t2", "t3"}, 2),
}


def _track(root: Path) -> dict:
    (root / "runs").mkdir(parents=True)
    (root / "topics.jsonl").write_text("".join(json.dumps({"id": t, "title": f"About {t}"}) + "\n" for t in FACTS))
    corpus = [{"doc_id": f"d{t}", "text": " ".join(FACTS[t])} for t in FACTS]
    (root / "corpus.jsonl").write_text("".join(json.dumps(d) + "\n" for d in corpus))
    truth = []
    for run, (topics, good) in RUNS.items():
        with open(root / "runs" / f"{run}.jsonl", "w") as f:
            for t in sorted(topics):
                sentences = FACTS[t][:good] + UNRELATED[good:]
                answer = [{"text": s, "citations": [0]} for s in sentences]
                f.write(json.dumps({"run_id": run, "topic_id": t, "references": [f"d{t}"], "answer": answer}) + "\n")
                truth.append(f"{run} {t} HUMAN_WP {good / 3:.6f}")
        truth.append(f"{run} all HUMAN_WP {good / 3:.6f}")
    (root / "truth.txt").write_text("\n".join(truth) + "\n")
    files = {"topics": "topics.jsonl", "runs": "runs", "corpus": "corpus.jsonl", "truth": "truth.txt"}
    return {key: root / name for key, name in files.items()}


def _tau_in(index_html: str) -> float:
    return float(re.search(r"Judge against truth: Kendall's tau (-?[0-9.]+) over (\d+) runs", index_html).group(1))


def test_the_report_ranks_each_run_over_its_truth_topics(tmp_path):
    t = _track(tmp_path / "in")
    out = tmp_path / "out"
    judged = run_cli(
        "--rag-topics", t["topics"], "--rag-responses", t["runs"], "--corpus", t["corpus"], "--out-dir", out,
        "--name", "x",
    )  # fmt: skip
    assert judged.returncode == 0, judged.stderr
    report = run_cli("report", out, "--truth", t["truth"], "--resamples", "0")
    assert report.returncode == 0, report.stderr
    assert "warning" not in report.stderr
    index = (out / "x.report" / "index.html").read_text(encoding="utf-8")

    # expected, from the files: each run's WEIGHTED_PRECISION over the topics the truth has for it
    lb = judges.read_leaderboard(out, "x")
    wp = lb[lb.measure == "WEIGHTED_PRECISION"].set_index(["run_id", "topic_id"]).value
    runs = sorted(RUNS)
    truth = [RUNS[r][1] / 3 for r in runs]
    over_truth_topics = [sum(wp[(r, tp)] for tp in RUNS[r][0]) / len(RUNS[r][0]) for r in runs]
    with_zero_rows = [wp[(r, "all")] for r in runs]  # what the report showed before: r4's `all` has two zeros
    assert all(wp[(r, tp)] == 0 for r in ("r4", "r5") for tp in set(FACTS) - RUNS[r][0])
    expected = kendalltau(truth, over_truth_topics).statistic
    mixed = kendalltau(truth, with_zero_rows).statistic
    assert round(expected, 3) != round(mixed, 3)  # the sample tells the two apart
    assert _tau_in(index) == pytest.approx(expected, abs=5e-4)
    assert f"Kendall's tau {expected:.3f} over 5 runs, each run's mean over the topics the truth has for it" in index
    assert "each run over the topics the truth has for it" in index  # the plot's title

    # the truth rank column: r1 and r4 (1.0) first, then r2 and r5, r3 last
    ranks = dict(re.findall(r'<a href="runs/r\d+\.html">(r\d)</a></td><td data-v="[^"]*">[^<]*(?:<small>[^<]*</small>)?'
                            r'</td><td data-v="(\d+)">', index))  # fmt: skip
    assert {r: int(k) for r, k in ranks.items()} == {"r1": 1, "r4": 2, "r2": 3, "r5": 4, "r3": 5}


def _leaderboards(tmp_path: Path) -> tuple[Path, Path]:
    """A truth that judged runs on different topics, and a judge with rows (zeros) everywhere."""
    truth = tmp_path / "truth.txt"
    truth.write_text("a t1 H 0.9\na all H 0.9\nb t2 H 0.5\nb all H 0.5\nc t1 H 0.1\nc t2 H 0.3\nc all H 0.2\n")
    judged = tmp_path / "judge.txt"
    rows = ["a t1 J 0.8", "a t2 J 0.0", "a all J 0.4", "b t1 J 0.0", "b t2 J 0.6", "b all J 0.3"]
    judged.write_text("\n".join([*rows, "c t1 J 0.2", "c t2 J 0.2", "c all J 0.2"]) + "\n")
    return truth, judged


def test_plain_meta_evaluate_names_truth_topics_when_the_truth_judged_runs_on_different_topics(tmp_path):
    truth, judged = _leaderboards(tmp_path)
    fmt = ("--truth-format", "ir_measures", "--eval-format", "ir_measures")
    for extra in ((), ("--recompute",), ("--recompute", "--bootstrap", "0")):
        failed = cli_in_process("meta-evaluate", "--truth", truth, judged, *fmt, *extra)
        assert failed.returncode == 2 and failed.stderr.count("\n") == 1, (extra, failed.stderr)
        assert "without a row for some run" in failed.stderr and "--truth-topics" in failed.stderr, extra
    warned = run_cli("meta-evaluate", "--truth", truth, judged, *fmt, "--on-missing", "warn")
    assert warned.returncode == 0, warned.stderr
    assert all("--truth-topics" in line for line in warned.stderr.splitlines() if "without a row" in line)
    assert "without a row" in warned.stderr
    # recomputing, the warned topics leave none: the error says so, and names --truth-topics
    none_left = cli_in_process("meta-evaluate", "--truth", truth, judged, *fmt, "--recompute", "--on-missing", "skip")
    assert none_left.returncode == 2 and "no topic left" in none_left.stderr and "--truth-topics" in none_left.stderr
    # a judge lacking rows the truth has: --truth-topics would not help, and is not named
    judged.write_text("a t1 J 0.8\nb t1 J 0.0\nb t2 J 0.6\nc t1 J 0.2\nc t2 J 0.2\n")
    truth.write_text("a t1 H 0.9\na t2 H 0.1\nb t1 H 0.5\nb t2 H 0.5\nc t1 H 0.1\nc t2 H 0.3\n")
    lacking = cli_in_process("meta-evaluate", "--truth", truth, judged, *fmt, "--recompute")
    assert lacking.returncode == 2 and "--truth-topics" not in lacking.stderr
    # and with --truth-topics the first pair goes through
    truth, judged = _leaderboards(tmp_path)
    ok = run_cli("meta-evaluate", "--truth", truth, judged, *fmt, "--truth-topics")
    assert ok.returncode == 0 and ok.stderr == "", ok.stderr


@pytest.mark.shared
def test_rag24_support_report_tau_is_meta_evaluate_truth_topics_tau(tmp_path, judged_rag24_support):
    data = shared("rag24-support")
    out = copy_judged(judged_rag24_support, tmp_path / "out")  # the report is written beside
    meta = run_cli(
        "meta-evaluate", "--truth", data / "truth.eval.txt", out / "r24.leaderboard.txt", "--truth-topics",
        "--eval-measure", "WEIGHTED_PRECISION", "--correlation", "kendall", "--bootstrap", "0",
        "--output", tmp_path / "meta.jsonl",
    )  # fmt: skip
    assert meta.returncode == 0, meta.stderr
    (row,) = [json.loads(line) for line in (tmp_path / "meta.jsonl").read_text().splitlines()]
    assert row["runs"] == 45
    report = run_cli("report", out, "--truth", data / "truth.eval.txt", "--resamples", "0")
    assert report.returncode == 0, report.stderr
    index = (out / "r24.report" / "index.html").read_text(encoding="utf-8")
    assert f"Kendall's tau {row['value']:.3f} over 45 runs, each run's mean over the topics the truth has" in index

    # the same figure in full, from the report's own code path
    from judges.formats.leaderboards import read_any_leaderboard
    from judges.report.leaderboard import against_truth, board

    lb, truth = judges.read_leaderboard(out, "r24"), read_any_leaderboard(data / "truth.eval.txt")
    against = against_truth(board(lb, truth, resamples=0), lb, truth, (data / "truth.eval.txt", out), print)
    assert against.tau == pytest.approx(row["value"], abs=1e-12)
