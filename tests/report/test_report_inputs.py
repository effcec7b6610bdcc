"""The report finds the inputs wherever it is run from (issue 32): NAME.config.yml records absolute
input paths, relative ones of older configs are resolved against the config's directory and then
the current directory, and documents that cannot be found are said on stderr and on the pages."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml
from helpers import ROOT, SAMPLE_NAME, cli_in_process, copy_judged, judge_cli, run_cli

EN = {
    "e1": "The Eiffel Tower is 330 metres tall and was finished in 1889. It stands in Paris on the Champ de Mars.",
    "e2": "The Great Wall of China stretches across the northern frontier. Most of it was built in the Ming dynasty.",
}


def _doc_texts(report: Path) -> str:
    return "".join(p.read_text(encoding="utf-8") for p in sorted((report / "docs").glob("*.js")))


def _small_track(root: Path) -> None:
    (root / "runs").mkdir(parents=True)
    (root / "corpus.jsonl").write_text("".join(json.dumps({"doc_id": k, "text": v}) + "\n" for k, v in EN.items()))
    (root / "topics.jsonl").write_text(json.dumps({"id": "x", "title": "Towers"}) + "\n")
    answer = [{"text": EN["e1"].split(". ")[0] + ".", "citations": [0]}, {"text": "The wall is old.", "citations": [1]}]
    (root / "runs" / "a.jsonl").write_text(
        json.dumps({"run_id": "a", "topic_id": "x", "references": ["e1", "e2"], "answer": answer}) + "\n"
    )


CITATION = ("--judge", "citation", "--backend", "python")
RELATIVE = ["--rag-topics", "topics.jsonl", "--rag-responses", "runs", "--corpus", "corpus.jsonl"]


def test_report_from_another_directory_finds_the_documents(tmp_path):
    _small_track(tmp_path / "track")
    judge_cli(*CITATION, *RELATIVE, cwd=tmp_path / "track", out="../out", name="t")
    config = yaml.safe_load((tmp_path / "out" / "t.config.yml").read_text())
    assert config["inputs"]["corpus"]["path"] == (tmp_path / "track" / "corpus.jsonl").as_posix()
    result = run_cli("report", tmp_path / "out", "--resamples", "0", cwd=ROOT)  # another working directory
    assert result.returncode == 0 and "warning" not in result.stderr, result.stderr
    docs = _doc_texts(tmp_path / "out" / "t.report")
    assert all(text in docs.replace("\\/", "/") for text in EN.values())


@pytest.mark.parametrize("given", ["directory", "store file"])
def test_report_over_an_indexed_corpus_shows_the_documents(tmp_path, given):
    """A set judged with ``--corpus`` naming an indexed directory (or its store file): the report
    reads the documents from the store (it read the path as one JSONL file for the sentence
    mappings: 'Is a directory', or a store's bytes as lines)."""
    _small_track(tmp_path / "track")
    (tmp_path / "track" / "docs").mkdir()
    (tmp_path / "track" / "corpus.jsonl").rename(tmp_path / "track" / "docs" / "corpus.jsonl")
    assert cli_in_process("corpus", "index", tmp_path / "track" / "docs").returncode == 0
    from judges.formats.docstore import STORE_NAME

    corpus = "docs" if given == "directory" else f"docs/{STORE_NAME}"
    args = ["--rag-topics", "topics.jsonl", "--rag-responses", "runs", "--corpus", corpus]
    judge_cli(*CITATION, *args, cwd=tmp_path / "track", out="../out", name="t")
    result = cli_in_process("report", tmp_path / "out", "--resamples", "0")
    assert result.returncode == 0 and "warning" not in result.stderr, result.stderr
    docs = _doc_texts(tmp_path / "out" / "t.report").replace("\\/", "/")
    assert all(text in docs for text in EN.values())


def test_relative_paths_of_older_configs_are_resolved(tmp_path):
    """Configs written before paths were absolute: against the config's directory, then the cwd."""
    _small_track(tmp_path / "track")
    for out_dir, cwd in ((".", ROOT), ("../out", tmp_path / "track")):  # config beside the inputs; the judge's cwd
        judge_cli(*CITATION, *RELATIVE, cwd=tmp_path / "track", out=out_dir, name="t")
        config_path = (tmp_path / "track" / out_dir / "t.config.yml").resolve()
        config = yaml.safe_load(config_path.read_text())
        inputs = config["inputs"]
        for entry in [inputs["corpus"], *inputs["responses"], *inputs["topics"]]:
            entry["path"] = Path(entry["path"]).relative_to(tmp_path / "track").as_posix()  # as written before
        config_path.write_text(yaml.safe_dump(config, sort_keys=False))
        (config_path.parent / "t.sha256").unlink()  # such a config is older than the set's record of its files
        result = run_cli("report", config_path.parent, "--resamples", "0", cwd=cwd)
        assert result.returncode == 0 and "warning" not in result.stderr, (out_dir, result.stderr)
        docs = _doc_texts(config_path.parent / "t.report").replace("\\/", "/")
        assert all(text in docs for text in EN.values()), out_dir
        assert "Towers" in (config_path.parent / "t.report" / "index.html").read_text(encoding="utf-8")


def test_documents_not_found_are_said_loudly(tmp_path):
    _small_track(tmp_path / "track")
    judge_cli(*CITATION, *RELATIVE, cwd=tmp_path / "track", out="../out", name="t")
    (tmp_path / "track" / "corpus.jsonl").rename(tmp_path / "elsewhere.jsonl")
    result = run_cli("report", tmp_path / "out", "--resamples", "0")
    assert result.returncode == 0, result.stderr
    lines = [x for x in result.stderr.splitlines() if x.startswith("warning:")]
    assert len(lines) == 1 and "the documents of 2 of 2 citations not found" in lines[0], result.stderr
    assert (tmp_path / "track" / "corpus.jsonl").as_posix() in lines[0] and "--corpus" in lines[0]
    index = (tmp_path / "out" / "t.report" / "index.html").read_text(encoding="utf-8")
    assert 'class="warning"' in index and "the documents of 2 of 2 citations not found" in index
    page = (tmp_path / "out" / "t.report" / "runs" / "r0" / "t0.html").read_text(encoding="utf-8")
    assert 'class="warning"' in page
    # given where it went, the documents are back
    result = run_cli("report", tmp_path / "out", "--resamples", "0", "--corpus", tmp_path / "elsewhere.jsonl")
    assert result.returncode == 0 and "warning" not in result.stderr, result.stderr


# -- a set damaged after judging: checked against its record (NAME.sha256), the old report kept --------
def _cut(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def _into_directory(path: Path) -> None:
    path.unlink()
    path.mkdir()


DAMAGES = {  # the harness's report cases (bench/adversarial.py), and a file turned into a directory
    "config.yml cut short": ("config.yml", _cut, "damaged: its sha256 differs from the one in the set's record"),
    "config.yml missing": ("config.yml", Path.unlink, "missing: listed in the set's record"),
    "assessments.parquet cut short": ("assessments.parquet", _cut, "damaged: its sha256 differs"),
    "leaderboard.txt garbage": ("leaderboard.txt", lambda p: p.write_text("garbage\n"), "damaged: its sha256 differs"),
    "intervals.tsv missing": ("intervals.tsv", Path.unlink, "missing: listed in the set's record"),
    "pairs.tsv cut short": ("pairs.tsv", _cut, "damaged: its sha256 differs"),
    "qrels a directory": ("qrels", _into_directory, "not a regular file: listed in the set's record"),
}


@pytest.fixture(scope="module")
def reported(judged_sample, tmp_path_factory) -> Path:
    """The judged sample with its report built."""
    out = copy_judged(judged_sample, tmp_path_factory.mktemp("reported") / "out")
    result = cli_in_process("report", out, "--resamples", "0")
    assert result.returncode == 0, result.stderr
    return out


def _report_files(out: Path) -> dict[str, bytes]:
    report = out / f"{SAMPLE_NAME}.report"
    return {str(p.relative_to(report)): p.read_bytes() for p in sorted(report.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("damage", list(DAMAGES))
def test_report_over_a_set_damaged_after_judging_is_one_line_naming_the_file_and_the_old_report_stays(
    reported, tmp_path, damage
):
    suffix, harm, problem = DAMAGES[damage]
    out = copy_judged(reported, tmp_path / "out")
    before = _report_files(out)
    victim = out / f"{SAMPLE_NAME}.{suffix}"
    harm(victim)
    result = cli_in_process(
        "report", out, "--resamples", "0"
    )  # the set's name found by its record when config.yml is gone
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stderr.startswith(f"error: {victim}: {problem}") and result.stderr.count("\n") == 1, result.stderr
    assert "judge again" in result.stderr
    assert _report_files(out) == before


def test_a_damaged_set_is_refused_by_a_real_report_run_and_by_every_reader_of_a_set(reported, tmp_path):
    import judges
    from judges import UnreadableFile

    out = copy_judged(reported, tmp_path / "out")
    board = out / f"{SAMPLE_NAME}.leaderboard.txt"
    board.write_text(board.read_text().replace("\t0.", "\t1.", 1))  # one value changed, still a valid leaderboard
    result = run_cli("report", out, "--resamples", "0")
    assert result.returncode == 2 and result.stderr.startswith(f"error: {board}: damaged: "), result.stderr
    with pytest.raises(UnreadableFile, match="damaged: its sha256 differs"):
        judges.read_leaderboard(out, SAMPLE_NAME)  # reads the Parquet table, which is whole: the set is not
    plan = cli_in_process("plan-assessments", out, "--name", SAMPLE_NAME, "--count", "2")
    assert plan.returncode == 2 and plan.stderr.startswith(f"error: {board}: damaged: "), plan.stderr
    assert not list(out.glob(f"{SAMPLE_NAME}.assess-*"))
    truth = reported / board.name  # a leaderboard file of a set, given by its path: its set is checked
    meta = cli_in_process("meta-evaluate", "--truth", truth, board)
    assert meta.returncode == 2 and meta.stderr.startswith(f"error: {board}: damaged: "), meta.stderr
    stray = out / f"{SAMPLE_NAME}.leaderboard.tot.txt"  # a file of the set's kinds that the record does not list
    board.write_bytes((reported / board.name).read_bytes())
    stray.write_text("tot WEIGHTED_PRECISION all 1.0\n")
    result = cli_in_process("report", out, "--resamples", "0")
    assert result.returncode == 2 and result.stderr.startswith(f"error: {stray}: not part of the set: "), result.stderr


def test_a_set_without_a_record_is_read_as_before(reported, tmp_path):
    """A set written before sets recorded their files: read unchecked, as it was, without a note."""
    out = copy_judged(reported, tmp_path / "out")
    (out / f"{SAMPLE_NAME}.sha256").unlink()
    (out / f"{SAMPLE_NAME}.leaderboard.txt").write_text("garbage\n")  # the report reads the Parquet table
    result = cli_in_process("report", out, "--resamples", "0")
    assert result.returncode == 0 and result.stderr == "", result.stderr


def test_the_record_lists_the_set_as_sha256sum_checks_it(judged_sample):
    import hashlib

    lines = (judged_sample / f"{SAMPLE_NAME}.sha256").read_text().splitlines()
    listed = {line[66:]: line[:64] for line in lines}
    assert all(line[64:66] == "  " for line in lines) and len(listed) == len(lines)
    on_disk = {p.name for p in judged_sample.iterdir() if p.is_file() and p.name.startswith(f"{SAMPLE_NAME}.")}
    assert set(listed) == on_disk - {f"{SAMPLE_NAME}.sha256", f"{SAMPLE_NAME}.jsonl"}  # not itself, not the debug log
    assert all(hashlib.sha256((judged_sample / f).read_bytes()).hexdigest() == h for f, h in listed.items())


def test_report_refuses_a_run_file_changed_since_judging_and_a_bad_corpus(tmp_path):
    _small_track(tmp_path / "track")
    judge_cli(*CITATION, *RELATIVE, cwd=tmp_path / "track", out="../out", name="t")
    out, run = tmp_path / "out", tmp_path / "track" / "runs" / "a.jsonl"
    corpus = tmp_path / "bad.jsonl"
    corpus.write_text("{\n")
    bad = cli_in_process("report", out, "--resamples", "0", "--corpus", corpus)
    assert bad.returncode == 2 and bad.stderr.startswith(f"error: {corpus}:1: "), bad.stderr
    assert bad.stderr.count("\n") == 1 and not (out / "t.report").exists()
    shutil.copyfile(run, tmp_path / "a.jsonl")
    run.write_text(run.read_text().replace("The wall is old.", "The wall is new."))
    changed = cli_in_process("report", out, "--resamples", "0")
    config = out / "t.config.yml"
    assert changed.stderr == f"error: {run}: changed since {config} was written (sha256 differs): judge again\n"
    assert changed.returncode == 2 and not (out / "t.report").exists()
    moved = cli_in_process("report", out, "--resamples", "0", "--rag-responses", tmp_path / "a.jsonl")
    assert moved.returncode == 0, moved.stderr  # given anew (moved): taken as given
