"""What a new organiser tripped on (issue 42, item 8): the judge command's summary and messages
say what happened, as processes on real files."""

from __future__ import annotations

import json

import yaml
from helpers import ROOT, cli_in_process, judge_cli

TOPICS = ROOT / "datasets/rag25/topics.jsonl"
RUNS = ROOT / "runs/rag25"
CORPUS = ROOT / "datasets/rag25/corpus.jsonl"
NO_LLM = {"OPENAI_BASE_URL": "", "OPENAI_MODEL": "", "OPENAI_API_KEY": ""}


def test_max_topics_counts_the_topics_it_leaves_out_apart_from_unknown_ones(tmp_path):
    other = tmp_path / "other.jsonl"  # a report of a topic that is in no topics file
    line = json.loads((RUNS / "teamR-run-a.jsonl").read_text().splitlines()[0])
    line["metadata"]["narrative_id"] = "rag25-99"
    other.write_text(json.dumps(line) + "\n")
    runs = ("--rag-responses", RUNS, "--rag-responses", other)
    result = judge_cli(
        "--rag-topics", TOPICS, *runs, "--corpus", CORPUS, "--max-topics", "1", out=tmp_path / "out", name="t", ok=False
    )
    assert result.returncode == 0, result.stderr
    out = " ".join(result.stdout.split())
    assert "not judged 5 reports of topics beyond --max-topics" in out
    assert "skipped 1 reports unknown topic" in out  # only rag25-99's
    assert "warning: 1 report(s) not judged: topic not in --rag-topics" in result.stderr
    counts = yaml.safe_load((tmp_path / "out" / "t.config.yml").read_text())["counts"]
    assert counts["reports_beyond_max_topics"] == 5 and counts["reports_unknown_topic"] == 1


def test_without_any_document_text_there_is_no_ranking(tmp_path):
    runs = tmp_path / "runs"
    runs.mkdir()
    text = (RUNS / "teamS-raw24.jsonl").read_text()  # cites MS MARCO ids and embeds no text
    (runs / "a.jsonl").write_text(text)
    (runs / "b.jsonl").write_text(text.replace('"run_id": "teamS-raw24"', '"run_id": "teamS-raw25"'))
    result = judge_cli(
        "--rag-topics",
        TOPICS,
        "--rag-responses",
        runs,
        "--allow-missing-text",
        out=tmp_path / "out",
        name="t",
        ok=False,
    )
    assert result.returncode == 0, result.stderr
    out = " ".join(result.stdout.split())
    assert "no ranking: no document text (all 26 citations are 'missing'" in out
    assert "top runs" not in out and "told apart" not in out


def test_a_topics_tsv_given_as_runs_is_named_as_topics(tmp_path):
    tsv = tmp_path / "topics.tsv"
    tsv.write_text("rag25-01\tHow do honeybees find their way?\nrag25-02\tWhat is tidal power?\n")
    result = cli_in_process("--rag-responses", tsv, "--out-dir", tmp_path / "out", "--name", "t")
    assert result.returncode == 2 and "invalid JSON" not in result.stderr
    assert f"warning: {tsv}: not read as a run file: its records are topics, not reports" in result.stderr
    assert "judging the 0 topic(s)" not in result.stderr
    beside = judge_cli(
        "--rag-topics",
        TOPICS,
        "--rag-responses",
        RUNS,
        "--rag-responses",
        tsv,
        "--corpus",
        CORPUS,
        out=tmp_path / "out",
        name="t",
        ok=False,
    )
    assert beside.returncode == 0, beside.stderr  # skipped with the warning, the runs judged
    assert "its records are topics" in beside.stderr


def test_use_env_llm_without_the_variables_is_no_error_when_nothing_is_asked(tmp_path):
    args = ("--rag-topics", TOPICS, "--rag-responses", RUNS, "--corpus", CORPUS, "--use-env-llm")
    result = judge_cli(
        *args, out=tmp_path / "out", name="t", ok=False, env=NO_LLM
    )  # the default workflow's attest.mode: none
    assert result.returncode == 0, result.stderr
    assert "warning: --use-env-llm: the workflow's attest.mode is none: no LLM is asked" in result.stderr
    asked = cli_in_process(*args, "--attest", "all", "--out-dir", tmp_path / "all" / "out", "--name", "t", env=NO_LLM)
    assert asked.returncode == 2 and asked.stderr.startswith("error: environment: OPENAI_BASE_URL: missing")


def test_the_summary_names_the_runs_it_can_tell_apart(tmp_path):
    facts = [
        "The river Thames flows through London and reaches the North Sea near Southend.",
        "Honeybees communicate the direction of food with a waggle dance on the comb.",
        "The Eiffel Tower was completed in 1889 for the World's Fair in Paris.",
        "Penguins are flightless birds that live mostly in the Southern Hemisphere.",
    ]
    runs = tmp_path / "runs"
    runs.mkdir()
    for run, good in (("good", True), ("bad", False)):
        lines = []
        for t in range(3):
            docs = {
                f"d{i}": {"text": facts[i] if good else "A lemon cake needs flour, sugar and eggs."} for i in range(4)
            }
            sentences = [{"text": facts[i], "citations": [f"d{i}"]} for i in range(4)]
            lines.append(
                json.dumps(
                    {"metadata": {"run_id": run, "topic_id": f"t{t}"}, "responses": sentences, "documents": docs}
                )
            )
        (runs / f"{run}.jsonl").write_text("\n".join(lines) + "\n")
    result = judge_cli("--rag-responses", runs, out=tmp_path / "out", name="t", ok=False)
    assert result.returncode == 0, result.stderr
    out = " ".join(result.stdout.split())
    assert (
        "told apart: 1 of 1 adjacent runs by WEIGHTED_PRECISION (P >= 0.95 that the assessors order them as the "
        f"judge does): good above bad (P 1.00); every pair in {tmp_path / 'out' / 't.pairs.tsv'}"
    ) in out
    assert "cannot be told apart" not in out
    close = judge_cli(
        "--rag-topics",
        TOPICS,
        "--rag-responses",
        RUNS,
        "--corpus",
        CORPUS,
        out=tmp_path / "close" / "out",
        name="t",
        ok=False,
    )
    assert "told apart: 0 of 2 adjacent runs by WEIGHTED_PRECISION" in " ".join(close.stdout.split())


def test_the_missing_extra_is_named_as_the_readme_installs_it():
    readme = (ROOT / "README.md").read_text()
    from judges.core.errors import install_extra

    for extra in ("attest", "dask", "autojudge"):
        assert install_extra(extra) in readme
