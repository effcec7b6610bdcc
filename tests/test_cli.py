"""The CLI: bad input gives one line and exit code 2 (in this process: ``cli_in_process``; the real
subprocess of each kind of error is in tests/cli/test_robustness.py); skip mode counts; outputs parse."""

import json

import ir_measures
import pandas as pd
import pytest
from helpers import ROOT, base_args, cli_in_process, run_cli

import judges

TOPICS = ROOT / "datasets" / "dragun" / "topics.jsonl"
RUNS = ROOT / "runs" / "dragun"


def bad_run(tmp_path, lines):
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


GOOD = json.dumps(
    {
        "metadata": {"run_id": "x", "topic_id": "dg-1"},
        "responses": [{"text": "A b c.", "citations": ["q"]}],
        "documents": {"q": {"text": "A b c."}},
    }
)


def test_malformed_record_fails_with_one_line_naming_file_line_and_field(tmp_path):
    path = bad_run(
        tmp_path, [GOOD, '{"metadata": {"run_id": "x", "topic_id": "dg-2"}, "responses": [{"citations": []}]}']
    )
    result = cli_in_process(*base_args(tmp_path, path))
    assert result.returncode == 2
    assert result.stderr.strip() == f"error: {path}:2: responses[0].text: missing"
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "out" / "t.qrels").exists()  # nothing half-written


def test_skip_mode_skips_counts_and_finishes(tmp_path):
    path = bad_run(tmp_path, [GOOD, "{broken", '{"metadata": {"run_id": "x"}, "responses": []}'])
    result = run_cli(*base_args(tmp_path, path), "--on-error", "skip")
    assert result.returncode == 0, result.stderr
    assert f"skipped report: {path}:2: invalid JSON" in result.stderr
    assert f"skipped report: {path}:3: metadata.topic_id: missing" in result.stderr
    assert "2 reports" in result.stdout
    config = (tmp_path / "out" / "t.config.yml").read_text()
    assert "skipped_reports: 2" in config
    events = [json.loads(line)["event"] for line in (tmp_path / "out" / "t.jsonl").read_text().splitlines()]
    assert events.count("INPUT_ERROR") == 2 and events[0] == "session_start" and events[-1] == "summary"


def test_duplicate_report_is_an_error(tmp_path):
    path = bad_run(tmp_path, [GOOD, GOOD])
    result = cli_in_process(*base_args(tmp_path, path))
    assert result.returncode == 2
    assert (
        result.stderr.strip()
        == f"error: {path}:2: topic_id: duplicate report for run 'x', topic 'dg-1' (first at {path}:1)"
    )


def test_unknown_workflow_key_is_named(tmp_path):
    wf = tmp_path / "wf.yml"
    wf.write_text("support:\n  suported: 0.5\n")
    result = cli_in_process(*base_args(tmp_path), "--workflow", wf)
    assert result.returncode == 2
    assert result.stderr.strip() == f"error: {wf}: support.suported: unknown key"


def test_missing_input_path_and_bad_name(tmp_path):
    result = cli_in_process(*base_args(tmp_path, tmp_path / "nope"))
    assert (
        result.returncode == 2
        and result.stderr.strip() == f"error: {tmp_path / 'nope'}: --rag-responses: no such file or directory"
    )
    result = cli_in_process(*base_args(tmp_path)[:-4], "--name", "a/b")
    assert result.returncode == 2 and "must be a plain file name" in result.stderr


def test_on_missing_error_policy_stops_before_judging(tmp_path):
    wf = tmp_path / "wf.yml"
    wf.write_text("leaderboard:\n  on_missing: error\n")
    result = cli_in_process(*base_args(tmp_path, bad_run(tmp_path, [GOOD])), "--workflow", wf)
    assert result.returncode == 2
    assert "leaderboard.on_missing: error: 1 (run, topic) pair(s) without a report: x/dg-2" in result.stderr


def test_max_topics_and_max_runs(tmp_path):
    result = run_cli(*base_args(tmp_path), "--max-topics", "1", "--max-runs", "1")
    assert result.returncode == 0, result.stderr
    lb = judges.read_leaderboard(tmp_path / "out", "t")
    assert sorted(lb.run_id.unique()) == ["teamD-base"]
    assert sorted(lb.topic_id.unique()) == ["all", "dg-1"]


def test_outputs_parse_with_ir_measures_and_pandas(tmp_path):
    result = run_cli(*base_args(tmp_path), "--leaderboard-format", "tot", "--leaderboard-format", "jsonl")
    assert result.returncode == 0, result.stderr
    out = tmp_path / "out"
    qrels = list(ir_measures.read_trec_qrels(str(out / "t.qrels")))
    assert qrels and all(q.relevance in (0, 1, 2) for q in qrels)
    doc_qrels = pd.DataFrame(ir_measures.read_trec_qrels(str(out / "t.doc.qrels")))
    assert set(doc_qrels.query_id) == {"dg-1", "dg-2"}
    lb = pd.read_csv(out / "t.leaderboard.txt", sep="\t", names=["run_id", "topic_id", "measure", "value"])
    assert set(lb.topic_id) == {"dg-1", "dg-2", "all"}
    assessments = judges.read_assessments(out, "t")
    assert len(assessments) == int(result.stdout.split("citations judged")[1].split()[0])
    assert pd.read_parquet(out / "t.leaderboard.parquet").value.round(4).tolist() == pytest.approx(lb.value.tolist())
    # the set is the one table's files (judges.formats.outputset), and nothing else
    from judges.formats import outputset

    kinds = ["qrels", "doc_qrels", "leaderboard_ir_measures", "leaderboard_tot", "leaderboard_jsonl"]
    kinds += ["leaderboard_parquet", "assessments_parquet", "coverage", "intervals", "intervals_parquet"]
    kinds += ["pairs", "pairs_parquet", "config", "checksums", "debug_log"]
    assert sorted(p.name for p in out.iterdir()) == sorted(outputset.file_name("t", k) for k in kinds)


def test_gzip_run_files_are_streamed_and_give_the_same_judgments(tmp_path):
    """Plain files are re-read by byte offset, topic by topic; gzip files cannot seek and are
    streamed instead. Both ways must judge identically."""
    import gzip
    import shutil

    gz_dir = tmp_path / "gz"
    gz_dir.mkdir()
    for run in sorted(RUNS.iterdir()):
        with open(run, "rb") as src, gzip.open(gz_dir / (run.name + ".gz"), "wb") as dst:
            shutil.copyfileobj(src, dst)
    plain = run_cli(*base_args(tmp_path / "plain"))
    packed = run_cli(*base_args(tmp_path / "packed", gz_dir))
    assert plain.returncode == 0 and packed.returncode == 0, packed.stderr
    for name in ("t.qrels", "t.doc.qrels", "t.leaderboard.txt", "t.assessments.parquet"):
        assert (tmp_path / "plain" / "out" / name).read_bytes() == (tmp_path / "packed" / "out" / name).read_bytes(), (
            name
        )


def test_debug_log_path_override(tmp_path):
    log = tmp_path / "logs" / "judge-events.jsonl"
    result = run_cli(*base_args(tmp_path), "--debug-log", log)
    assert result.returncode == 0, result.stderr
    events = [json.loads(line) for line in log.read_text().splitlines()]
    assert events[0]["event"] == "session_start" and events[-1]["event"] == "summary"
    assert sum(e["event"] == "CITATION_OUTPUT" for e in events) == events[-1]["counts"]["citations"]
    assert not (tmp_path / "out" / "t.jsonl").exists()


def test_the_summary_says_how_many_processes_judged_and_why(tmp_path):
    from judges.session.pipeline import AUTO_PARALLEL_CITATIONS

    auto = run_cli(*base_args(tmp_path))
    assert auto.returncode == 0, auto.stderr
    line = next(x for x in auto.stdout.splitlines() if x.startswith("processes"))
    assert "1 process (automatic: " in line and f"citations < {AUTO_PARALLEL_CITATIONS:,})" in line
    chosen = run_cli(*base_args(tmp_path), "--workers", "1")
    assert "1 process (--workers 1)" in chosen.stdout


@pytest.mark.parametrize("weights", ["expected", "status"])
def test_weighted_precision_is_the_mean_of_the_assessments_weights(tmp_path, weights):
    """The leaderboard's WEIGHTED_PRECISION per report is the mean of the ``weight`` column; with
    ``leaderboard.weights: status`` that is the statuses' weight, as the qrels' grades give it."""
    workflow = tmp_path / "w.yml"
    workflow.write_text(f"leaderboard:\n  weights: {weights}\n")
    result = run_cli(*base_args(tmp_path), "--workflow", workflow)
    assert result.returncode == 0, result.stderr
    a = judges.read_assessments(tmp_path / "out", "t")
    lb = judges.read_leaderboard(tmp_path / "out", "t")
    wp = lb[(lb.measure == "WEIGHTED_PRECISION") & (lb.topic_id != "all")].set_index(["run_id", "topic_id"]).value
    mean = a.groupby(["run_id", "topic_id"]).weight.mean()
    assert len(mean) > 3
    assert wp.reindex(mean.index).to_numpy() == pytest.approx(mean.to_numpy())
    status_weight = a.status.map({"supported": 1.0, "partial": 0.5}).fillna(0.0)
    model = a.p_any.notna()
    assert model.sum() > 3
    if weights == "status":
        assert (a.weight == status_weight).all()
    else:
        assert (a.weight[~model] == status_weight[~model]).all()
        assert (a.weight[model] != status_weight[model]).any()
        assert a.weight.between(0, 1).all()


LONG_RUN = "T1-e2e-agentic-rag-omt-nllb-english-passages-cited-report-v2"  # 60 characters, as TREC run ids go


def _whole(text: str, run_id: str) -> list[str]:
    """The lines showing (part of) ``run_id``, each checked to show all of it."""
    lines = [line for line in text.splitlines() if run_id[:12] in line or run_id[-12:] in line]
    assert lines and all(run_id in line for line in lines), "\n".join(lines)
    return lines


def test_long_run_ids_stay_on_one_line_through_a_pipe(tmp_path):
    """Not on a terminal (a log, CI) the console is not 80 columns wide: the summary, coverage, top
    runs and meta-evaluate's tables keep a 60-character run id whole."""
    assert len(LONG_RUN) == 60
    runs = [GOOD.replace('"run_id": "x"', f'"run_id": "{run}"') for run in (LONG_RUN, "b", "c")]
    path = bad_run(tmp_path, runs)
    result = run_cli(*base_args(tmp_path, path))
    assert result.returncode == 0, result.stderr
    lines = _whole(result.stdout, LONG_RUN)
    assert any(line.startswith(LONG_RUN + " ") and line.endswith(" 0") for line in lines)  # coverage per run
    assert any(line.startswith(f"  1  {LONG_RUN}  ") or line.startswith(f"  2  {LONG_RUN}  ") for line in lines)
    assert not any(line != line.rstrip() for line in result.stdout.splitlines())  # no padding to the widest cell
    board = tmp_path / "out" / "t.leaderboard.txt"
    meta = run_cli("meta-evaluate", "--truth", board, board, "--bootstrap", "10", "--show-values")
    assert meta.returncode == 0, meta.stderr
    assert len(_whole(meta.stdout, LONG_RUN)) >= 2  # the run scores table: the truth's row and the judge's
    assert _whole(meta.stdout, str(board))  # the tables' titles and the run scores name the file whole
