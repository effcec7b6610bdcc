"""Issue 14, "never crash, never lose, never mix": every reproduction of the issue as a real CLI
run. Bad input ends with exactly one line ``error: path:line: field: problem`` and exit code 2,
and leaves nothing behind (no out-dir, no output replaced).

Each case is one line of ``CASES``: which input file gets which bytes, extra arguments, and the
expected line (``{run}``, ``{topics}``, ``{corpus}``, ``{wf}``, ``{out}``, ``{tmp}`` are filled in).
"""

from __future__ import annotations

import gzip
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from helpers import ROOT, cli_in_process, default_sigint, run_cli

TOPICS = ROOT / "datasets" / "dragun" / "topics.jsonl"


def rec(run_id="x", topic_id="dg-1", text="A b c.", cites=("q",), docs=None, **extra) -> dict:
    docs = {"q": {"text": "A b c."}} if docs is None else docs
    return {
        "metadata": {"run_id": run_id, "topic_id": topic_id},
        "responses": [{"text": text, "citations": list(cites)}],
        "documents": docs,
        **extra,
    }


def line(obj) -> bytes:
    return json.dumps(obj).encode()


GOOD = line(rec())
DEEP = b'{"metadata": {"run_id": "x", "topic_id": "dg-1"}, "responses": ' + b"[" * 10_000 + b"]" * 10_000 + b"}"
BIG_INT = b'{"metadata": {"run_id": "x", "topic_id": "dg-1"}, "responses": [], "n": ' + b"7" * 5000 + b"}"
TOPIC = b'{"request_id": "dg-1", "title": "t"}'
GZ = gzip.compress(GOOD + b"\n" + GOOD.replace(b"dg-1", b"dg-2") + b"\n")


def corrupt_gzip() -> bytes:
    data = bytearray(gzip.compress((GOOD + b"\n") * 50, mtime=0))
    data[30:40] = b"\xff" * 10  # inside the deflate stream
    return bytes(data)


# (case id, input files {kind: bytes}, extra args, expected error line)
# kinds: run (run.jsonl), rungz (run.jsonl.gz), topics, corpus (passed as --corpus), wf (--workflow)
CASES = [
    # tracebacks that became one line
    ("run nested 10,000 deep", {"run": DEEP}, [], "{run}:1: JSON nested too deeply; read as a run file"),
    (
        "topic nested 10,000 deep",
        {"topics": b'{"request_id": "dg-1", "x": ' + b"[" * 10_000 + b"]" * 10_000 + b"}"},
        [],
        "{topics}:1: JSON nested too deeply",
    ),
    (
        "corpus nested 10,000 deep",
        {"run": line(rec(docs={})), "corpus": b'{"id": "q", "text": ' + b"[" * 10_000 + b"]" * 10_000 + b"}"},
        [],
        "{corpus}:1: JSON nested too deeply",
    ),
    (
        "integer of 5,000 digits",
        {"run": BIG_INT},
        [],
        "{run}:1: invalid JSON number (Exceeds the limit (4300 digits) for integer string conversion); "
        "read as a run file",
    ),
    (
        "corrupt deflate stream",
        {"rungz": corrupt_gzip()},
        [],
        "{run}:1: corrupt gzip data: Error -3 while decompressing data: invalid bit length repeat; read as a run file",
    ),
    (
        "gzip cut short",
        {"rungz": GZ[: len(GZ) - 12]},
        [],
        "{run}:2: truncated gzip stream (the file was cut short); read as a run file",
    ),
    (
        "lone surrogate in a sentence",
        {"run": line(rec(text="A \ud800 c."))},
        [],
        "{run}:1: responses[0].text: lone surrogate (\\ud800): not valid Unicode",
    ),
    (
        "lone surrogate in a doc id",
        {"run": line(rec(cites=["q\udc00"]))},
        [],
        "{run}:1: responses[0].citations[0]: lone surrogate (\\udc00): not valid Unicode",
    ),
    (
        "lone surrogate in a run id",
        {"run": line(rec(run_id="r\ud800"))},
        [],
        "{run}:1: metadata.run_id: lone surrogate (\\ud800): not valid Unicode",
    ),
    (
        "lone surrogate in a topic id",
        {"topics": b'{"request_id": "dg-\\ud800", "title": "t"}'},
        [],
        "{topics}:1: request_id: lone surrogate (\\ud800): not valid Unicode",
    ),
    (
        "surrogate as raw bytes ED A0 80",
        {"run": GOOD.replace(b"A b c.", b"A \xed\xa0\x80 c.", 1)},
        [],
        "{run}:1: not UTF-8 (invalid continuation byte at byte 77); read as a run file",
    ),
    (
        "--corpus an empty directory",
        {"corpusdir": b""},
        [],
        "{corpus}: --corpus: no JSONL(.gz) corpus files in this directory",
    ),
    (
        "workflow not UTF-8",
        {"wf": b"windows:\n  sentences: \xff\n"},
        [],
        "{wf}: not UTF-8 (invalid start byte at byte 23)",
    ),
    ("workflow nested 10,000 deep", {"wf": b"[" * 10_000 + b"]" * 10_000}, [], "{wf}: invalid YAML: nested too deeply"),
    (
        "windows.candidates 10**12",
        {"wf": b"windows:\n  candidates: 1000000000000\n"},
        [],
        "{wf}: windows.candidates: Input should be less than or equal to 1000",
    ),
    (
        "windows.sentences 10**12",
        {"wf": b"windows:\n  sentences: 1000000000000\n"},
        [],
        "{wf}: windows.sentences: Input should be less than or equal to 1000",
    ),
    (
        "alignment.match 10**30",
        {"wf": b"alignment:\n  match: 1000000000000000000000000000000\n"},
        [],
        "{wf}: alignment.match: Input should be less than or equal to 1000",
    ),
    (
        "attest.concurrency 10**9",
        {"wf": b"attest:\n  concurrency: 1000000000\n"},
        [],
        "{wf}: attest.concurrency: Input should be less than or equal to 1024",
    ),
    (
        "--workers 1000",
        {},
        ["--workers", "1000"],
        "--workers: 1000 is not between 1 and 256 (and never more than the topics are used)",
    ),
    (
        "--workers 0",
        {},
        ["--workers", "0"],
        "--workers: 0 is not between 1 and 256 (and never more than the topics are used)",
    ),
    # misleading or silent
    (
        "duplicate id in a RAG25 topic file",
        {"topics": b'{"id": "dg-1", "narrative": "n"}\n{"id": "dg-1", "narrative": "m"}'},
        [],
        "{topics}:2: id: duplicate topic id 'dg-1'",
    ),
    (
        "NUL byte at the start of a line",
        {"run": GOOD + b"\n\x00" + GOOD},
        [],
        "{run}:2: NUL byte at column 1; read as a run file",
    ),
    (
        "record cut short",
        {"run": GOOD + b"\n" + GOOD[:60]},
        [],
        "{run}:2: truncated record (JSON ends at column 60 before the value is complete); read as a run file",
    ),
    (
        "record cut inside a UTF-8 character",
        {"run": GOOD + b"\n" + GOOD[:70] + "\u00e9".encode()[:1]},
        [],
        "{run}:2: truncated record (ends inside a UTF-8 character at byte 71); read as a run file",
    ),
    (
        "run id with a TAB",
        {"run": line(rec(run_id="a\tb"))},
        [],
        "{run}:1: metadata.run_id: 'a\\tb' contains whitespace (U+0009) at position 2: "
        "ids must fit in one field of a TREC file",
    ),
    (
        "run id with a newline",
        {"run": line(rec(run_id="a\nb"))},
        [],
        "{run}:1: metadata.run_id: 'a\\nb' contains whitespace (U+000A) at position 2: "
        "ids must fit in one field of a TREC file",
    ),
    (
        "topic id with a space",
        {"topics": b'{"request_id": "dg 1", "title": "t"}'},
        [],
        "{topics}:1: request_id: 'dg 1' contains whitespace (SPACE) at position 3: "
        "ids must fit in one field of a TREC file",
    ),
    (
        "topic id with a control character",
        {"topics": b'{"request_id": "dg\\u00071", "title": "t"}'},
        [],
        "{topics}:1: request_id: 'dg\\x071' contains a control character (U+0007) at position 3: "
        "ids must fit in one field of a TREC file",
    ),
    (
        "topic named all",
        {"topics": TOPIC + b'\n{"request_id": "all", "title": "t"}'},
        [],
        "{topics}:2: request_id: 'all' is reserved for the leaderboard's mean over topics",
    ),
    (
        "report for topic all",
        {"run": line(rec(topic_id="all"))},
        [],
        "{run}:1: metadata.topic_id: 'all' is reserved for the leaderboard's mean over topics",
    ),
    (
        "doc id with a space inside",
        {"run": line(rec(cites=["q 1"]))},
        [],
        "{run}:1: responses[0].citations[0]: 'q 1' contains whitespace (SPACE) at position 2: "
        "ids must fit in one field of a TREC file",
    ),
    (
        "--debug-log naming an input run",
        {"run": GOOD},
        ["--debug-log", "{run}"],
        "{run}: --debug-log: is an input file ({run}): it would be overwritten by the debug_log output",
    ),
    (
        "--out-dir the runs dir, --name a run's stem",
        {"run": GOOD},
        ["--out-dir", "{tmp}", "--name", "run"],
        "{run}: --out-dir: is an input file ({run}): it would be overwritten by the debug_log output",
    ),
    (
        "--debug-log naming the topics",
        {"run": GOOD},
        ["--debug-log", "{topics}"],
        "{topics}: --debug-log: is an input file ({topics}): it would be overwritten by the debug_log output",
    ),
    (
        "corpus id a list",
        {"run": line(rec(docs={})), "corpus": b'{"id": ["q"], "text": "A b c."}'},
        [],
        "{corpus}:1: id: must be a string or an integer, got a list",
    ),
    (
        "corpus id empty",
        {"run": line(rec(docs={})), "corpus": b'{"id": " ", "text": "A b c."}'},
        [],
        "{corpus}:1: id: is empty",
    ),
    (
        "duplicate corpus id",
        {"run": line(rec(docs={})), "corpus": b'{"id": "q", "text": "A b c."}\n{"id": "q", "text": "Other."}'},
        [],
        "{corpus}:2: doc_id: duplicate document id 'q' (first at line 1)",
    ),
    ("empty run set", {"run": b"\n\n"}, [], "{run}: --rag-responses: no report to judge in 1 run file(s)"),
    (
        "--debug-log an existing directory",
        {"run": GOOD, "logdir": b""},
        ["--debug-log", "{tmp}/logdir"],
        "{tmp}/logdir: --debug-log: is a directory",
    ),
    (
        "NAME.config.yml a directory",
        {"run": GOOD, "configdir": b""},
        [],
        "{out}/t.config.yml: --out-dir: is a directory",
    ),
    (
        "--debug-log /dev/null",
        {"run": GOOD},
        ["--debug-log", "/dev/null"],
        "/dev/null: --debug-log: is a character device, not a regular file (outputs replace their target by a rename)",
    ),
    (
        "--debug-log and --no-debug-log",
        {"run": GOOD},
        ["--debug-log", "{tmp}/l.jsonl", "--no-debug-log"],
        "--debug-log: give either --debug-log or --no-debug-log, not both",
    ),
    (
        "--out-dir a file",
        {"run": GOOD, "outfile": b""},
        [],
        "{out}/t.qrels: --out-dir: cannot be written: {out} is not a directory",
    ),
]


def setup_case(tmp_path: Path, files: dict, args: list) -> tuple[list, dict]:
    names = {
        "run": tmp_path / "run.jsonl",
        "topics": TOPICS,
        "corpus": None,
        "wf": None,
        "out": tmp_path / "out",
        "tmp": tmp_path,
    }
    run = names["run"]
    if "rungz" in files:
        run = names["run"] = tmp_path / "run.jsonl.gz"
        run.write_bytes(files["rungz"])
    else:
        run.write_bytes(files.get("run", GOOD) + b"\n")
    if "topics" in files:
        names["topics"] = tmp_path / "topics.jsonl"
        names["topics"].write_bytes(files["topics"] + b"\n")
    if "corpus" in files:
        names["corpus"] = tmp_path / "corpus.jsonl"
        names["corpus"].write_bytes(files["corpus"] + b"\n")
    if "corpusdir" in files:
        names["corpus"] = tmp_path / "corpus"
        names["corpus"].mkdir()
    if "wf" in files:
        names["wf"] = tmp_path / "wf.yml"
        names["wf"].write_bytes(files["wf"])
    if "logdir" in files:
        (tmp_path / "logdir").mkdir()
    if "configdir" in files:
        (tmp_path / "out" / "t.config.yml").mkdir(parents=True)
    if "outfile" in files:
        names["out"].write_bytes(b"")
    fill = {k: str(v) for k, v in names.items()}
    cli = ["--judge", "citation", "--rag-topics", names["topics"], "--rag-responses", run, "--backend", "python"]
    cli += [] if "--out-dir" in args else ["--out-dir", names["out"], "--name", "t"]
    cli += ["--corpus", names["corpus"]] if names["corpus"] else []
    cli += ["--workflow", names["wf"]] if names["wf"] else []
    cli += [a.format(**fill) if isinstance(a, str) else a for a in args]
    return cli, fill


def cases(table: list, real: set[str]) -> list:
    """The cases as parameters, each with the way it is run: a real CLI subprocess for those in
    ``real`` (one per command and kind of error; marked slow), the rest in this process
    (helpers.cli_in_process: the same program and assertions, without a second of start-up each)."""
    assert real <= {c[0] for c in table}
    return [
        pytest.param(
            *c[1:], run_cli if c[0] in real else cli_in_process, id=c[0], marks=[pytest.mark.slow] * (c[0] in real)
        )
        for c in table
    ]


# one real subprocess per kind of error: an input file, the workflow, an option, an output path
REAL_CASES = {"run nested 10,000 deep", "workflow not UTF-8", "--workers 1000", "--out-dir a file"}


@pytest.mark.parametrize("files, args, expected, run", cases(CASES, REAL_CASES))
def test_bad_input_ends_in_one_line(tmp_path, files, args, expected, run):
    before = {p: p.stat().st_mtime_ns for p in tmp_path.rglob("*")}
    cli, fill = setup_case(tmp_path, files, args)
    result = run(*cli)
    assert result.returncode == 2, result.stderr
    assert result.stderr == f"error: {expected.format(**fill)}\n"
    assert result.stdout == ""
    out = tmp_path / "out"
    if "configdir" not in files and "outfile" not in files:
        assert not out.exists()  # nothing created before validation passed
    assert {p: p.stat().st_mtime_ns for p in tmp_path.rglob("*") if p in before} == before  # nothing replaced


# Records --on-error skip can skip: (case id, bad line, expected warning)
SKIPPABLE = [
    ("nested", DEEP, "{run}:2: JSON nested too deeply"),
    ("big integer", BIG_INT, "{run}:2: invalid JSON number"),
    ("lone surrogate", line(rec(topic_id="dg-2", text="\udfff")), "{run}:2: responses[0].text: lone surrogate"),
    ("raw surrogate bytes", b'{"x": "\xed\xa0\x80"}', "{run}:2: not UTF-8"),
    ("NUL", b"\x00{}", "{run}:2: NUL byte at column 1"),
    ("TAB in run id", line(rec(run_id="a\tb")), "{run}:2: metadata.run_id: 'a\\tb' contains whitespace"),
]


@pytest.mark.parametrize("bad, warning", [c[1:] for c in SKIPPABLE], ids=[c[0] for c in SKIPPABLE])
def test_skip_mode_skips_each_bad_record(tmp_path, bad, warning):
    cli, fill = setup_case(tmp_path, {"run": GOOD + b"\n" + bad}, ["--on-error", "skip"])
    result = run_cli(*cli)
    assert result.returncode == 0, result.stderr
    assert f"skipped report: {warning.format(**fill)}" in result.stderr
    assert "Traceback" not in result.stderr
    assert "skipped_reports: 1" in (tmp_path / "out" / "t.config.yml").read_text()


def test_doc_ids_with_surrounding_spaces_resolve_as_citations_do(tmp_path):
    cli, _ = setup_case(tmp_path, {"run": line(rec(cites=[" q "], docs={" q ": {"text": "A b c."}}))}, [])
    result = run_cli(*cli)
    assert result.returncode == 0, result.stderr
    import judges

    df = judges.read_assessments(tmp_path / "out", "t")
    assert df.doc_source.tolist() == ["embedded"] and "missing" not in df.status.tolist()


def test_no_debug_log_writes_none_and_removes_the_previous_sets(tmp_path):
    cli, _ = setup_case(tmp_path, {}, [])
    assert run_cli(*cli).returncode == 0
    assert (tmp_path / "out" / "t.jsonl").exists()
    result = run_cli(*cli, "--no-debug-log")
    assert result.returncode == 0, result.stderr
    assert not (tmp_path / "out" / "t.jsonl").exists()
    assert "\ndebug_log " not in result.stdout
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [  # no .t.lock: it goes with the session
        "t.assessments.parquet",
        "t.config.yml",
        "t.coverage.tsv",
        "t.doc.qrels",
        "t.intervals.parquet",
        "t.intervals.tsv",
        "t.leaderboard.parquet",
        "t.leaderboard.txt",
        "t.pairs.parquet",
        "t.pairs.tsv",
        "t.qrels",
        "t.sha256",
    ]


def test_workers_are_capped_at_the_topics(tmp_path):
    cli, _ = setup_case(tmp_path, {"run": GOOD + b"\n" + GOOD.replace(b"dg-1", b"dg-2")}, ["--workers", "200"])
    result = run_cli(*cli)
    assert result.returncode == 0, result.stderr
    assert "warning: --workers 200: 2 topic(s) to share, so 2 worker process(es)" in result.stderr


def test_no_leading_empty_line_on_stderr_or_stdout(tmp_path):
    cli, _ = setup_case(tmp_path, {}, [])
    ok = run_cli(*cli)
    assert ok.returncode == 0 and not ok.stdout.startswith("\n") and ok.stderr == ""
    bad = run_cli(*setup_case(tmp_path, {"run": b"{"}, [])[0])
    assert bad.stderr.startswith("error: ")


# -- damaged or foreign files met by the other commands (issue 32) -------------------------------------
# The judged rag25 sample, copied per case and damaged; each command ends with one line naming the
# file and the problem (exit code 2), never a traceback.

SAMPLE = ROOT / "datasets" / "rag25"
CUT_PARQUET = (
    "not a readable Parquet table (cut short, damaged, or another format): Parquet magic bytes not found in "
    "footer. Either the file is corrupted or this is not a parquet file."
)
GOOD_LABEL = {"run_id": "teamR-run-a", "topic_id": "rag25-01", "sentence_index": 0, "doc_id": "d1", "label": "PS"}


@pytest.fixture(scope="module")
def judged(tmp_path_factory) -> Path:
    """The rag25 sample judged once, with its inputs in the directory beside the outputs."""
    root = tmp_path_factory.mktemp("judged")
    (root / "runs").mkdir()
    for run in (ROOT / "runs" / "rag25").iterdir():
        (root / "runs" / run.name).write_bytes(run.read_bytes())
    for name in ("topics.jsonl", "corpus.jsonl"):
        (root / name).write_bytes((SAMPLE / name).read_bytes())
    result = run_cli(
        *("--rag-topics", root / "topics.jsonl", "--rag-responses", root / "runs", "--corpus", root / "corpus.jsonl"),
        *("--out-dir", root / "out", "--name", "t", "--backend", "python"),
    )
    assert result.returncode == 0, result.stderr
    return root


def cut(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def _copy(judged: Path, tmp_path: Path) -> Path:
    import shutil

    root = tmp_path / "j"
    shutil.copytree(judged, root)
    config = root / "out" / "t.config.yml"  # naming the copy's inputs
    config.write_text(config.read_text().replace(str(judged), str(root)))
    (root / "out" / "t.sha256").unlink()  # the config edited: a set as written before records (the readers' own lines)
    return root


def _damage(root: Path, kind: str) -> None:
    out = root / "out"
    if kind.startswith("cut "):
        cut(out / kind[4:])
    elif kind == "garble config":  # cut inside a quoted value
        config = out / "t.config.yml"
        config.write_text(config.read_text()[:200] + "\nname: 't")
    elif kind == "labels":
        (root / "labels.jsonl").write_text(json.dumps(GOOD_LABEL) + '\n{"run_id": "teamR-run-a", "topic_id": \n')
    elif kind == "truth":
        (root / "truth.txt").write_text("teamR-run-a\tall\tM\t0.5\nteamR-run-b\tall\tM\n")
    elif kind == "moved":
        (root / "runs").rename(root / "runs2")


# (case id, damage, command (filled: {root}, {out}), expected error line)
COMMAND_CASES = [
    (
        "report, assessments cut short",
        "cut t.assessments.parquet",
        ["report", "{out}"],
        f"{{out}}/t.assessments.parquet: {CUT_PARQUET}",
    ),
    (
        "report, leaderboard cut short",
        "cut t.leaderboard.parquet",
        ["report", "{out}"],
        f"{{out}}/t.leaderboard.parquet: {CUT_PARQUET}",
    ),
    (
        "report, intervals cut short",
        "cut t.intervals.parquet",
        ["report", "{out}"],
        f"{{out}}/t.intervals.parquet: {CUT_PARQUET}",
    ),
    ("report, config cut short", "garble config", ["report", "{out}"], "{out}/t.config.yml: invalid YAML at line "),
    (
        "report, labels with a bad line",
        "labels",
        ["report", "{out}", "--labels", "{root}/labels.jsonl"],
        "{root}/labels.jsonl:2: truncated record (JSON ends at column 37 before the value is complete)",
    ),
    (
        "report, truth with a bad line",
        "truth",
        ["report", "{out}", "--truth", "{root}/truth.txt"],
        "{root}/truth.txt:2: 3 columns; ir_measures has 4 (run topic measure value)",
    ),
    (
        "report, moved runs given where they are not",
        "moved",
        ["report", "{out}", "--rag-responses", "{root}/runs3"],
        "{root}/runs3: --rag-responses: no such file or directory",
    ),
    (
        "agreement, assessments cut short",
        "cut t.assessments.parquet",
        ["agreement", "--assessments", "{out}", "--labels", "{root}/labels.jsonl"],
        f"{{out}}/t.assessments.parquet: {CUT_PARQUET}",
    ),
    (
        "agreement, a leaderboard as assessments",
        "",
        ["agreement", "--assessments", "{out}/t.leaderboard.parquet", "--labels", "{root}/labels.jsonl"],
        "{out}/t.leaderboard.parquet: not the table expected here: no column 'sentence_index', 'citation_rank', "
        "'doc_id', 'status'",
    ),
    (
        "agreement, labels with a bad line",
        "labels",
        ["agreement", "--assessments", "{out}", "--labels", "{root}/labels.jsonl"],
        "{root}/labels.jsonl:2: truncated record (JSON ends at column 37 before the value is complete)",
    ),
    (
        "calibrate, assessments cut short",
        "cut t.assessments.parquet",
        ["calibrate", "--assessments", "{out}", "--labels", "{root}/labels.jsonl", "--output", "{root}/m.json"],
        f"{{out}}/t.assessments.parquet: {CUT_PARQUET}",
    ),
    (
        "calibrate, labels with a bad line",
        "labels",
        ["calibrate", "--assessments", "{out}", "--labels", "{root}/labels.jsonl", "--output", "{root}/m.json"],
        "{root}/labels.jsonl:2: truncated record (JSON ends at column 37 before the value is complete)",
    ),
    (
        "meta-evaluate, truth with a bad line",
        "truth",
        ["meta-evaluate", "--truth", "{root}/truth.txt", "{out}/t.leaderboard.txt"],
        "{root}/truth.txt:2: 3 columns; ir_measures has 4 (run topic measure value)",
    ),
    (
        "meta-evaluate, a Parquet table as a leaderboard",
        "",
        ["meta-evaluate", "--truth", "{out}/t.leaderboard.txt", "{out}/t.leaderboard.parquet"],
        "{out}/t.leaderboard.parquet: not UTF-8 ",
    ),
    (
        "plan-assessments, assessments cut short",
        "cut t.assessments.parquet",
        ["plan-assessments", "{out}", "--name", "t", "--count", "2"],
        f"{{out}}/t.assessments.parquet: {CUT_PARQUET}",
    ),
    (
        "plan-assessments, config cut short",
        "garble config",
        ["plan-assessments", "{out}", "--name", "t", "--count", "2"],
        "{out}/t.config.yml: invalid YAML at line ",
    ),
    (
        "plan-assessments, config naming moved runs",
        "moved",
        ["plan-assessments", "{out}", "--name", "t", "--count", "2"],
        "{root}/runs/teamR-run-a.jsonl: no such file: {out}/t.config.yml names it (--rag-responses); moved since "
        "judging? give --rag-responses where it is now (each citation goes to the assessors with its document)",
    ),
]


# one real subprocess per command
REAL_COMMAND_CASES = {
    "report, assessments cut short",
    "agreement, assessments cut short",
    "calibrate, assessments cut short",
    "meta-evaluate, truth with a bad line",
    "plan-assessments, assessments cut short",
}


@pytest.mark.parametrize("damage, command, expected, run", cases(COMMAND_CASES, REAL_COMMAND_CASES))
def test_damaged_or_foreign_files_end_every_command_in_one_line(judged, tmp_path, damage, command, expected, run):
    root = _copy(judged, tmp_path)
    (root / "labels.jsonl").write_text(json.dumps(GOOD_LABEL) + "\n")
    _damage(root, damage)
    fill = {"root": root, "out": root / "out"}
    result = run(*(arg.format(**fill) for arg in command))
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stderr.startswith(f"error: {expected.format(**fill)}") and result.stderr.count("\n") == 1, (
        result.stderr
    )
    assert "Traceback" not in result.stderr


def test_a_damaged_docstore_is_one_line(tmp_path):
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_bytes((SAMPLE / "corpus.jsonl").read_bytes())
    assert run_cli("corpus", "index", corpus).returncode == 0
    cut(tmp_path / "corpus.jsonl.citejudge-docstore.sqlite")
    store = tmp_path / "corpus.jsonl.citejudge-docstore.sqlite"
    for command in (["info", store], ["lookup", store, "d1"]):
        result = run_cli("corpus", *command)
        assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
        assert result.stderr.startswith(f"error: {store}: not a citejudge docstore (database disk image is malformed)")


def test_the_report_names_each_input_that_moved_and_reads_it_where_it_is_now(judged, tmp_path):
    root = _copy(judged, tmp_path)
    _damage(root, "moved")
    out = root / "out"
    result = run_cli("report", out, "--resamples", "5")
    assert result.returncode == 0, result.stderr
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert "citations not found (not there: " in warnings[0], result.stderr
    for name in ("teamR-run-a.jsonl", "teamR-run-b.jsonl", "teamS-raw24.jsonl"):  # each input that moved, named
        assert f"--rag-responses {root}/runs/{name}" in warnings[0]
    again = run_cli("report", out, "--resamples", "5", "--rag-responses", root / "runs2")
    assert again.returncode == 0 and "not found" not in again.stderr, again.stderr
    plan = run_cli("plan-assessments", out, "--name", "t", "--count", "2", "--rag-responses", root / "runs2")
    assert plan.returncode == 0, plan.stderr
    lines = [json.loads(line) for line in (out / "t.assess-1.jsonl").read_text().splitlines()]
    assert all(line["document"]["text"] and line["window"]["text"] for line in lines)


@pytest.mark.parametrize("kind", ["assessments", "leaderboard", "intervals", "pairs"])
def test_the_table_readers_raise_one_clear_error(judged, tmp_path, kind):
    import judges
    from judges import InputError, UnreadableFile

    root = _copy(judged, tmp_path)
    cut(root / "out" / f"t.{kind}.parquet")
    reader = getattr(judges, f"read_{kind}")
    with pytest.raises(UnreadableFile) as e:
        reader(root / "out", "t")
    assert isinstance(e.value, InputError)
    assert str(e.value) == f"{root}/out/t.{kind}.parquet: {CUT_PARQUET}"
    other = "assessments" if kind != "assessments" else "leaderboard"
    (root / "out" / f"t.{kind}.parquet").write_bytes((judged / "out" / f"t.{other}.parquet").read_bytes())
    with pytest.raises(UnreadableFile, match=f"t.{kind}.parquet: not the table expected here: no column "):
        reader(root / "out", "t")


# -- a UTF-8 byte order mark (Windows tools write one) is read and skipped, in every input ------------------
BOM = b"\xef\xbb\xbf"


def test_a_byte_order_mark_is_skipped_in_every_input(tmp_path):
    """Runs (JSON Lines, gzip, a JSON array), corpus (plain, gzip, indexed) and topics with a BOM
    are judged as the same files without one (issue 43: runs and corpora were refused with
    'Unexpected UTF-8 BOM')."""
    runs = sorted((ROOT / "runs" / "rag25").glob("*.jsonl"))
    corpus = (ROOT / "datasets" / "rag25" / "corpus.jsonl").read_bytes()
    topics = (ROOT / "datasets" / "rag25" / "topics.jsonl").read_bytes()
    out = {}
    for kind, mark in (("plain", b""), ("bom", BOM)):
        where = tmp_path / kind
        (where / "runs").mkdir(parents=True)
        first, second, third = runs
        (where / "runs" / first.name).write_bytes(mark + first.read_bytes())
        (where / "runs" / (second.name + ".gz")).write_bytes(gzip.compress(mark + second.read_bytes(), mtime=0))
        records = [json.loads(line) for line in third.read_text().splitlines() if line.strip()]
        (where / "runs" / (third.stem + ".json")).write_bytes(mark + json.dumps(records).encode())
        (where / "topics.jsonl").write_bytes(mark + topics)
        (where / "corpus.jsonl").write_bytes(mark + corpus)
        (where / "corpus.jsonl.gz").write_bytes(gzip.compress(mark + corpus, mtime=0))
        for name, corpus_arg in (("plain", "corpus.jsonl"), ("gz", "corpus.jsonl.gz")):
            args = ["--rag-topics", where / "topics.jsonl", "--rag-responses", where / "runs", "--backend", "python"]
            args += ["--corpus", where / corpus_arg, "--out-dir", where / f"out-{name}", "--name", "x"]
            result = run_cli(*args)
            assert result.returncode == 0, result.stderr
            out[kind, name] = [(where / f"out-{name}" / f"x.{s}").read_bytes() for s in ("qrels", "leaderboard.txt")]
        store = tmp_path / f"store-{kind}"
        store.mkdir()
        (store / "corpus.jsonl").write_bytes(mark + corpus)
        assert run_cli("corpus", "index", store).returncode == 0
        first_id = json.loads(corpus.splitlines()[0])["doc_id"]
        looked = run_cli("corpus", "lookup", store, first_id)
        assert looked.returncode == 0 and first_id in looked.stdout, looked.stderr
    assert out["bom", "plain"] == out["plain", "plain"] == out["bom", "gz"] == out["plain", "gz"]
    assert b"WEIGHTED_PRECISION" in out["bom", "plain"][1]


def test_a_byte_order_mark_is_skipped_in_labels_and_leaderboards(tmp_path):
    from judges.formats.leaderboards import read_any_leaderboard
    from judges.formats.labels import read_labels

    label = {"run_id": "r", "topic_id": "t", "sentence_index": 0, "doc_id": "d", "label": "supported"}
    (tmp_path / "labels.jsonl").write_bytes(BOM + json.dumps(label).encode() + b"\n")
    assert read_labels(tmp_path / "labels.jsonl").table.label.tolist() == ["supported"]
    (tmp_path / "lb.txt").write_bytes(BOM + b"run_id\ttopic_id\tmeasure\tvalue\nr\tt\tWEIGHTED_PRECISION\t0.5\n")
    assert read_any_leaderboard(tmp_path / "lb.txt").run_id.tolist() == ["r"]


def test_a_directory_for_labels_is_read_as_a_folder_of_label_files(tmp_path):
    """``--labels DIR`` crashed with an IndexError (issue 43): a directory is a folder of label files
    (issue 42's rounds), and one without any is refused in one line."""
    cli, _ = setup_case(tmp_path, {}, [])
    (tmp_path / "labels").mkdir()
    (tmp_path / "labels" / "a.jsonl").write_text(json.dumps(GOOD_LABEL) + "\n")
    result = run_cli(*cli, "--labels", tmp_path / "labels")
    assert result.returncode == 0, result.stderr
    config = yaml.safe_load(next((tmp_path / "out").glob("*.config.yml")).read_text())
    assert [Path(f["path"]).name for f in config["labels"]["files"]] == ["a.jsonl"]
    (tmp_path / "empty").mkdir()  # this one crashed too
    result = cli_in_process(*cli, "--out-dir", tmp_path / "out2", "--labels", tmp_path / "empty")
    assert result.returncode == 2 and not (tmp_path / "out2").exists(), result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {tmp_path / 'empty'}") and "Traceback" not in result.stderr


# -- Ctrl-C at any moment: one line, exit 130 (issue 43: a traceback in the first 0.3 s) -----------------
def _holds_sigint(pid: int) -> bool:
    """Whether the process blocks SIGINT: run_judge.py does from its first line until its handler is in."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    blocked = next((int(x.split()[1], 16) for x in status.splitlines() if x.startswith("SigBlk:")), 0)
    return bool(blocked & (1 << (signal.SIGINT - 1)))


@pytest.mark.parametrize("entry", ["run_judge.py", "-m judges"])
@pytest.mark.parametrize("after", [0.0, 0.05, 0.15, 0.3, 0.6, 1.2])
def test_ctrl_c_at_any_moment_is_one_line_and_exit_130(tmp_path, entry, after):
    """From run_judge.py's first line on (seen in /proc: SIGINT held) or, for ``python -m judges``,
    after the interpreter's own start-up (0.4 s), ``after`` seconds later: imports, parsing,
    reading, judging."""
    if entry == "-m judges" and after < 0.3:
        pytest.skip("python -m judges: the interpreter's start-up (site, runpy) comes before any of its code")
    cli, _ = setup_case(tmp_path, {}, [])
    how = [str(ROOT / "run_judge.py")] if entry == "run_judge.py" else ["-m", "judges"]
    proc = subprocess.Popen(
        [sys.executable, *how, *map(str, cli)],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=default_sigint,
    )
    if entry == "run_judge.py":
        deadline = time.monotonic() + 30
        while not _holds_sigint(proc.pid) and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.0005)
    else:
        time.sleep(0.4)
    time.sleep(after)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=120)
    if "Exception ignored on calling ctypes callback" in stderr:  # known, not fixed: see the README's Bad input
        pytest.skip("Ctrl-C landed in a ctypes callback of llvmlite (loading the cached kernels): swallowed there")
    if proc.returncode == 0:
        pytest.skip(f"judged within {after} s: nothing to interrupt")
    lines = stderr.strip().splitlines()
    # -SIGINT: now and then the process ends by the signal after its line (a shell shows 130 as well)
    assert proc.returncode in (130, -signal.SIGINT) and len(lines) == 1 and lines[0].startswith("interrupted"), stderr
    out = tmp_path / "out"
    if out.exists():  # an empty out-dir (nothing written), or interrupted after the commit: the whole set
        names = [p.name for p in out.iterdir()]
        assert not names or ("t.config.yml" in names and "t.jsonl" in names), names
        assert not [n for n in names if n.startswith(".")], names


# -- a full disk: the line names the file being written (issue 43: 'error: : File too large') --------------
def _small_files(limit: int):
    def apply() -> None:
        import resource

        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write beyond the limit fails with EFBIG, as on a full disk
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return apply


def test_a_full_disk_names_the_file_being_written(tmp_path):
    cli, fill = setup_case(tmp_path, {}, [])
    out = Path(fill["out"])
    ok = run_cli(*cli)
    assert ok.returncode == 0, ok.stderr
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    for extra, limit in (([], 8 << 10), ([], 2 << 10), (["--no-debug-log"], 4 << 10)):
        result = subprocess.run(
            [sys.executable, str(ROOT / "run_judge.py"), *map(str, cli), *extra, "--max-runs", "9"],
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            capture_output=True,
            text=True,
            preexec_fn=_small_files(limit),
        )
        lines = result.stderr.strip().splitlines()
        assert result.returncode == 2 and len(lines) == 1, result.stderr
        named = re.fullmatch(rf"error: {re.escape(str(out))}/(t\.[a-z.]+): .*File too large", lines[0])
        assert named and named.group(1) in before, lines  # the output, not its staged copy
        assert {p.name: p.read_bytes() for p in out.iterdir()} == before  # the older set stays intact
