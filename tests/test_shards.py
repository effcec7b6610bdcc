"""Topic shards and their merge (judges.session.shards): shards 1..N plus merge write the output set of one
process byte for byte (the debug log apart from timestamps); a missing, duplicated or foreign part
is one error line and nothing is written; with LLM attestation the merge asks as one process does."""

from __future__ import annotations

import gzip
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, cli_in_process, needs_dask, needs_dspy, run_cli, shared, this_python_first

from judges.session import pipeline
from judges.session import shards
from judges.session.options import RunOptions
from judges.core.config import AlignmentSettings, Workflow, load_workflow
from judges.core.errors import InputError
from judges.formats import part as partfile
from judges.session.spec import Inputs, Outputs

TS = re.compile(rb'^\{"ts":"[^"]*",', re.M)


def same_outputs(a: Path, b: Path) -> None:
    """Every file of two output sets byte for byte, the debug logs apart from their timestamps."""
    names = sorted(p.name for p in a.iterdir() if not p.name.startswith("."))
    assert names == sorted(p.name for p in b.iterdir() if not p.name.startswith("."))
    assert any(n.endswith(".jsonl") for n in names) and any(n.endswith(".parquet") for n in names)
    for name in names:
        x, y = (a / name).read_bytes(), (b / name).read_bytes()
        if name.endswith(".jsonl"):
            x, y = TS.sub(b"{", x), TS.sub(b"{", y)
        assert x == y, name


def one_and_merged(tmp_path: Path, inputs: Inputs, workflow: Workflow, n: int, **run) -> tuple[Path, Path]:
    """One process over all topics, then shards 1..n and their merge, written to the same out-dir
    (the debug log's summary names the files written): returns (one process's set, the merged set)."""
    out = tmp_path / "out"
    pipeline.run(inputs, Outputs(out, "x"), workflow, RunOptions(workers=1, **run))
    out.rename(tmp_path / "one")
    parts = tmp_path / "parts"
    for k in range(1, n + 1):
        shards.judge_shard(inputs, Outputs(parts, "x"), workflow, (k, n), RunOptions(workers=1))
    shards.merge(sorted(parts.glob("x.part-*.arrow")), out, "x")
    return tmp_path / "one", out


def python_backend(**kw) -> Workflow:
    return Workflow(alignment=AlignmentSettings(backend="python"), **kw)


def mixed_runs(tmp_path: Path) -> Path:
    """The RAGTIME sample's runs as a gzip file (streamed, read after the others), a JSON array
    file (read last) and a JSON Lines file with a bad line (skipped with --on-error skip)."""
    runs = tmp_path / "runs"
    runs.mkdir()
    one, two = (ROOT / "runs" / "ragtime" / f"teamT-run{i}.jsonl" for i in (1, 2))
    with gzip.open(runs / "run1.jsonl.gz", "wb") as f:
        f.write(one.read_bytes())
    records = [json.loads(line) for line in two.read_text().splitlines() if line.strip()]
    for r in records:
        r["metadata"]["run_id"] = "teamT-array"
    (runs / "array.json").write_text(json.dumps(records))
    (runs / "run2.jsonl").write_text("{not json\n" + two.read_text())
    return runs


BUNDLED = {
    "ragtime": dict(topics=[ROOT / "datasets/ragtime/topics.jsonl"], responses=[ROOT / "runs/ragtime"]),
    "rag25": dict(
        topics=[ROOT / "datasets/rag25/topics.jsonl"],
        responses=[ROOT / "runs/rag25"],
        corpus=ROOT / "datasets/rag25/corpus.jsonl",
    ),
    "dragun": dict(topics=[ROOT / "datasets/dragun/topics.jsonl"], responses=[ROOT / "runs/dragun"]),
}


@pytest.mark.parametrize("dataset", sorted(BUNDLED))
def test_shards_and_merge_write_one_processs_outputs(tmp_path, dataset):
    inputs = Inputs(**BUNDLED[dataset], workflow_path=ROOT / "workflows" / "citation.yml")
    one, merged = one_and_merged(tmp_path, inputs, load_workflow(inputs.workflow_path), 4)
    same_outputs(one, merged)


def test_gzip_and_array_run_files_and_skipped_lines_keep_one_processs_order(tmp_path):
    inputs = Inputs(topics=[ROOT / "datasets/ragtime/topics.jsonl"], responses=[mixed_runs(tmp_path)], on_error="skip")
    one, merged = one_and_merged(tmp_path, inputs, python_backend(), 3)
    log = (one / "x.jsonl").read_text()
    assert '"event":"INPUT_ERROR"' in log and '"run_id":"teamT-array"' in log
    same_outputs(one, merged)


def test_more_shards_than_topics_leave_empty_parts_that_merge(tmp_path):
    inputs = Inputs(**BUNDLED["ragtime"])
    one, merged = one_and_merged(tmp_path, inputs, python_backend(), 7)
    sizes = [partfile.read(p).manifest["rows"] for p in sorted((tmp_path / "parts").glob("*.arrow"))]
    assert 0 in sizes and sum(sizes) > 0
    same_outputs(one, merged)


def test_a_synthetic_workload(tmp_path):
    work = tmp_path / "work"
    generated = subprocess.run(
        [sys.executable, ROOT / "bench" / "workload.py", "--size", "tiny", "--topics", "12", "--out", work],
        capture_output=True,
        text=True,
    )
    assert generated.returncode == 0, generated.stderr
    inputs = Inputs(topics=[work / "topics.jsonl"], responses=[work / "runs"], corpus=work / "corpus.jsonl.gz")
    one, merged = one_and_merged(tmp_path, inputs, Workflow(), 4)
    same_outputs(one, merged)


def shared_inputs(dataset: str) -> Inputs:
    """rag24-support (with its segments and labels) or kiddie, from ../shared/data (else skipped)."""
    data = shared(dataset)
    if dataset == "kiddie":
        return Inputs(topics=[data / "topics" / "kiddie-topics.jsonl"], responses=[data / "runs"])
    return Inputs(
        topics=[data / "topics.jsonl"],
        responses=[data / "runs"],
        corpus=data / "segments.jsonl",
        labels=data / "labels.jsonl",
    )


@pytest.mark.shared
@pytest.mark.parametrize("dataset", ["rag24-support", "kiddie"])
def test_shared_datasets(tmp_path, dataset):
    one, merged = one_and_merged(tmp_path, shared_inputs(dataset), Workflow(), 4)
    same_outputs(one, merged)


# -- refused parts -----------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def parts(tmp_path_factory) -> Path:
    """Parts 1..3 of 3 of the RAGTIME sample, and part 1 of another workflow."""
    where = tmp_path_factory.mktemp("parts")
    inputs = Inputs(**BUNDLED["ragtime"])
    for k in (1, 2, 3):
        shards.judge_shard(inputs, Outputs(where, "x"), python_backend(), (k, 3))
    other = python_backend(support={"judge": "alignment"})
    shards.judge_shard(inputs, Outputs(where / "other", "x"), other, (1, 3))
    return where


def refused(parts: list, tmp_path: Path, name: str = "x", run=cli_in_process) -> str:
    """``merge``'s one error line for these parts (in this process; ``run=run_cli``: a real one)."""
    out = tmp_path / "merged"
    result = run("merge", out, "--name", name, *parts)
    assert result.returncode == 2 and not out.exists(), result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    return lines[0]


def test_a_missing_part_is_one_error_line_and_nothing_is_written(parts, tmp_path):
    line = refused(
        [parts / "x.part-1-of-3.arrow", parts / "x.part-3-of-3.arrow"], tmp_path, run=run_cli
    )  # the real one
    assert line == f"error: {parts / 'x.part-2-of-3.arrow'}: PART: part 2 of 3 missing: nothing written"


def test_a_part_given_twice_is_refused(parts, tmp_path):
    given = [parts / f"x.part-{k}-of-3.arrow" for k in (1, 2, 3, 2)]
    assert refused(given, tmp_path).endswith("shard: part 2 of 3 given twice (the same file given twice)")
    copy = tmp_path / "copy" / "x.part-2-of-3.arrow"
    copy.parent.mkdir()
    shutil.copy(parts / "x.part-2-of-3.arrow", copy)
    shutil.copy(parts / "x.part-2-of-3.jsonl", copy.with_suffix(".jsonl"))  # a part is both files
    line = refused(given[:3] + [copy], tmp_path)
    assert line == f"error: {copy}: shard: part 2 of 3 given twice (also {parts / 'x.part-2-of-3.arrow'})"


def test_a_part_of_another_workflow_names_the_field(parts, tmp_path):
    other = parts / "other" / "x.part-1-of-3.arrow"
    line = refused([other, parts / "x.part-2-of-3.arrow", parts / "x.part-3-of-3.arrow"], tmp_path)
    assert line.startswith(f"error: {parts / 'x.part-2-of-3.arrow'}: fingerprint.workflow.support.judge: ")
    assert "a part of another session" in line


def test_not_a_part_and_another_name_are_refused(parts, tmp_path):
    given = [parts / f"x.part-{k}-of-3.arrow" for k in (1, 2, 3)]
    assert refused(given, tmp_path, name="y") == "error: --name: 'y', but the parts were judged as 'x'"
    bogus = tmp_path / "bogus.arrow"
    bogus.write_text("no arrow")
    assert refused([bogus], tmp_path) == f"error: {bogus}: PART: not a partial set written by run_judge.py --shard"


def test_shard_options_are_checked():
    for bad in ("0/4", "5/4", "4", "a/b"):
        with pytest.raises(InputError, match="is not K/N"):
            shards.parse_shard(bad)
    assert shards.parse_shard("2/8") == (2, 8)


# -- the SLURM recipe of the scale-out guide, as subprocesses ---------------------------------------------
def readme_block(marker: str) -> str:
    text = (ROOT / "docs" / "guides" / "scale-out.md").read_text()
    found = re.search(r"```bash\n(# " + re.escape(marker) + r"\n.*?)```", text, re.S)
    assert found, marker
    return found.group(1)


def test_the_guides_slurm_array_recipe(tmp_path):
    """The array script once per task (SLURM_ARRAY_TASK_ID), then the merge job's script."""
    for name in ("datasets", "runs", "workflows", "run_judge.py"):
        (tmp_path / name).symlink_to(ROOT / name)
    shard_script, merge_script = readme_block("shards.sbatch"), readme_block("merge.sbatch")
    n = int(re.search(r"--array=1-(\d+)", shard_script).group(1))
    env = {"PYTHONPATH": str(ROOT), **this_python_first(tmp_path / "py")}  # the script runs `python`: this one
    for k in range(1, n + 1):
        done = subprocess.run(
            ["bash", "-c", shard_script],
            cwd=tmp_path,
            env={**os.environ, **env, "SLURM_ARRAY_TASK_ID": str(k)},
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0, done.stderr
    merged = subprocess.run(["bash", "-c", merge_script], cwd=tmp_path, env={**os.environ, **env}, capture_output=True)
    assert merged.returncode == 0, merged.stderr
    command = re.search(r"python run_judge.py (.*?) --out-dir", shard_script.replace("\\\n", " "), re.S).group(1)
    out = tmp_path / "output"
    out.rename(tmp_path / "merged")
    one = run_cli(*command.split(), "--out-dir", "output", "--name", "rag25", "--workers", "1", cwd=tmp_path, env=env)
    assert one.returncode == 0, one.stderr
    same_outputs(out, tmp_path / "merged")


# -- with LLM attestation: the merge plans and asks ----------------------------------------------------
@pytest.mark.parametrize("mode", ["uncertain", "all"])
def test_the_merge_asks_as_one_process_does(tmp_path, mode):
    needs_dspy()
    from llm_servers import Reply, ScriptedServer, messages_key

    def by_hash(n: int, body: dict) -> Reply:
        return Reply(content="YES" if int(messages_key(body), 16) % 2 else "NO")

    common = ["--rag-topics", ROOT / "datasets/ragtime/topics.jsonl", "--rag-responses", ROOT / "runs/ragtime"]
    common += ["--name", "x", "--workers", "1", "--attest", mode]
    out = tmp_path / "out"
    with ScriptedServer(by_hash) as server:
        one = run_cli(*common, "--out-dir", out, "--use-env-llm", "--cache-dir", tmp_path / "c1", env=server.env())
        assert one.returncode == 0, one.stderr
        asked = len(server.keys())
        out.rename(tmp_path / "one")
        for k in (1, 2, 3):
            part = run_cli(*common, "--out-dir", tmp_path / "parts", "--shard", f"{k}/3")
            assert part.returncode == 0, part.stderr
        assert len(server.keys()) == asked  # shards ask nothing
        given = sorted((tmp_path / "parts").glob("*.arrow"))
        merged = run_cli(
            "merge", out, "--name", "x", *given, "--use-env-llm", "--cache-dir", tmp_path / "c2", env=server.env()
        )
        assert merged.returncode == 0, merged.stderr
        assert len(server.keys()) == 2 * asked > 0  # the same questions, asked once more (a fresh cache)
    same_outputs(tmp_path / "one", out)
    if mode == "uncertain":
        assert (out / "x.plan.tsv").exists()


def test_shard_option_conflicts_are_one_error_line(tmp_path):
    given = ["--rag-topics", ROOT / "datasets/ragtime/topics.jsonl", "--rag-responses", ROOT / "runs/ragtime"]
    given += ["--out-dir", tmp_path / "out"]
    for extra, expected in (
        (["--shard", "1/2", "--workers", "2"], "error: --workers: 2: a shard is one process (use more shards)"),
        (["--shard", "3/2"], "error: --shard: '3/2' is not K/N with 1 <= K <= N (e.g. 2/8)"),
        (["--shard", "1/2", "--dask", "local:1"], "error: --dask: give either --dask or --shard, not both"),
        (["--dask-shards", "2"], "error: --dask-shards: only with --dask"),
    ):
        result = cli_in_process(*given, *extra)
        assert result.returncode == 2 and result.stderr.strip().splitlines()[-1].startswith(expected), result.stderr
    assert not (tmp_path / "out").exists()


NUGGETS_MINI = ROOT / "datasets" / "rag24-nuggets-mini"


def argue_cli(out: Path, *more: str) -> subprocess.CompletedProcess:
    d = NUGGETS_MINI
    given = ["--judge", "argue", "--rag-topics", d / "topics.jsonl", "--rag-responses", d / "runs"]
    given += ["--nuggets", d / "nuggets.jsonl", "--corpus", d / "segments.jsonl", "--backend", "python"]
    return run_cli(*given, "--out-dir", out, "--name", "n", *more)


@pytest.fixture(scope="module")
def argue_one_process(tmp_path_factory) -> Path:
    """One process's output set of citations and nuggets (--judge argue), as the CLI writes it;
    moved aside so the sharded runs write to the same out-dir (the debug log names its files)."""
    base = tmp_path_factory.mktemp("argue")
    done = argue_cli(base / "out")
    assert done.returncode == 0, done.stderr
    (base / "out").rename(base / "one")
    return base


def test_nugget_judgments_in_topic_shards_merge_into_one_process_set(argue_one_process):
    """--shard and merge with --nuggets (refused before): the shards judge their topics'
    citations, the merge judges the nugget stage over the runs read again, after the citations'
    events: the set (nugget files, NUGGET_F1 on the leaderboard, the debug log) is one process's."""
    base = argue_one_process
    out = base / "out"
    for k in (1, 2):
        done = argue_cli(out, "--shard", f"{k}/2")
        assert done.returncode == 0, done.stderr
    parts = sorted(out.glob("n.part-*-of-2.arrow"))
    done = run_cli("merge", out, "--name", "n", *parts)
    assert done.returncode == 0, done.stderr
    for p in list(out.glob("n.part-*")):
        p.unlink()
    same_outputs(base / "one", out)
    assert (out / "n.nuggets.parquet").exists() and b"NUGGET_OUTPUT" in (out / "n.jsonl").read_bytes()
    assert "NUGGET_F1" in (out / "n.leaderboard.txt").read_text()
    shutil.rmtree(out)


@pytest.mark.slow
@needs_dask
def test_nugget_judgments_on_dask_are_one_process_set(argue_one_process):
    base = argue_one_process
    out = base / "out"
    done = argue_cli(out, "--dask", "local:2")
    assert done.returncode == 0, done.stderr
    same_outputs(base / "one", out)
    shutil.rmtree(out)


def test_an_input_changed_since_the_shards_is_named_by_its_path(tmp_path):
    """A merge that reads the inputs again (the nugget stage, or LLM questions) refuses a file that
    changed after the shards read it, naming it by its path (it named a field and a cut hash)."""
    d = NUGGETS_MINI
    runs = tmp_path / "runs"
    shutil.copytree(d / "runs", runs)
    given = ["--judge", "nugget", "--rag-topics", d / "topics.jsonl", "--rag-responses", runs]
    given += ["--nuggets", d / "nuggets.jsonl", "--backend", "python", "--out-dir", tmp_path / "parts"]
    for k in (1, 2):
        done = run_cli(*given, "--name", "x", "--shard", f"{k}/2")
        assert done.returncode == 0, done.stderr
    changed = sorted(runs.glob("*.jsonl"))[-1]
    changed.write_text(changed.read_text() + "\n")
    line = refused(sorted((tmp_path / "parts").glob("x.part-*.arrow")), tmp_path)
    assert line == (
        f"error: inputs.responses: the input files changed since the shards read them: "
        f"{changed.resolve().as_posix()} (sha256 differs)"
    ), line
