"""The report finds the inputs wherever it is run from (issue 32): NAME.config.yml records absolute
input paths, relative ones of older configs are resolved against the config's directory and then
the current directory, and documents that cannot be found are said on stderr and on the pages."""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from helpers import ROOT, judge_cli, run_cli

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
