"""The score stage (:mod:`judges.session.score`): a session reads its labels once and loads its
support model once, and parses each run file once (every stage takes the reports from the first
pass); the writer only writes what :func:`judges.session.score.score` scored."""

from __future__ import annotations

import inspect
import os
from collections import Counter
from pathlib import Path

import pytest

from conftest import BUNDLED, ROOT, cli_in_process, shared


def counting(monkeypatch, module, name: str, calls: Counter, key: str) -> None:
    """Replace ``module.name`` with a wrapper that counts its calls (and the calling modules)."""
    real = getattr(module, name)

    def wrapper(*args, **kwargs):
        calls[key] += 1
        caller = inspect.currentframe().f_back.f_globals.get("__name__", "")
        calls[f"{key} from {caller}"] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, wrapper)


@pytest.mark.shared
def test_labels_read_once_and_the_support_model_loaded_once(monkeypatch, tmp_path):
    import judges.formats.labels as labels
    import judges.support.judges as support_judges
    import judges.support.model as model

    data = shared("rag24-support")
    calls: Counter = Counter()
    monkeypatch.setattr(model, "_LOADED", {})  # this process's earlier sessions' model: loaded afresh
    counting(monkeypatch, labels, "read_label_files", calls, "labels")
    counting(monkeypatch, model, "load_model", calls, "load")
    counting(monkeypatch, support_judges, "load_model", calls, "load")
    counting(monkeypatch, model.SupportModel, "from_dict", calls, "parsed")
    done = cli_in_process(
        *("--judge", "citation", "--rag-topics", data / "topics.jsonl", "--rag-responses", data / "runs"),
        *("--corpus", data / "segments.jsonl", "--labels", data / "labels.jsonl"),
        *("--out-dir", tmp_path, "--name", "s"),
    )
    assert done.returncode == 0, done.stderr
    assert calls["labels"] == 1, calls  # by load(); the score stage takes them from there
    assert calls["parsed"] == 1, calls  # the model file read and parsed once in the session
    session = {k: v for k, v in calls.items() if k.startswith("load from judges.session")}
    assert session == {"load from judges.session.score": 1}, calls  # the writer loads nothing
    made = (tmp_path / "s.intervals.tsv").read_text().splitlines()
    assert sum("labels, taken as drawn at random" in line for line in made) == 45  # every run on its labels


def test_the_writer_takes_one_record_and_scores_are_frozen():
    from judges.session import writer
    from judges.session.score import Scores

    assert list(inspect.signature(writer.write_outputs).parameters) == ["given"]
    scores = Scores((), (), (), (), None)
    with pytest.raises(AttributeError):
        scores.intervals = ((1,),)  # type: ignore[misc]


RAG26 = ROOT / "datasets" / "rag26"
MINI = ROOT / "datasets" / "rag24-nuggets-mini"
NIST = (
    *("--rag-topics", MINI / "topics.jsonl", "--rag-responses", MINI / "runs", "--corpus", MINI / "segments.jsonl"),
    *("--nuggets", MINI / "nuggets.jsonl"),
)
BATTLE = (
    *("--judge", "battle", "--rag-topics", RAG26 / "topics.jsonl", "--rag-responses", ROOT / "runs" / "rag26"),
    *("--corpus", RAG26 / "corpus.jsonl", "--nuggets", RAG26 / "nuggets.jsonl"),
)
#: the sessions whose run files are counted: each kind of judge, the bank made from the answers,
#: the topics taken from the runs, and worker processes (counted in them by a sitecustomize hook)
SESSIONS = {
    "citation": ("--judge", "citation", *BUNDLED),
    "no-topics": ("--judge", "citation", *BUNDLED[2:]),
    "nugget": ("--judge", "nugget", *NIST),
    "argue": ("--judge", "argue", *NIST),
    "nuggets-auto": ("--judge", "nugget", *BUNDLED, "--nuggets", "auto"),
    "battle": BATTLE,
    "workers": ("--judge", "citation", *BUNDLED, "--workers", "2"),
    "battle-workers": (*BATTLE, "--workers", "2"),
}

#: imported by every Python process started with its folder on PYTHONPATH (the worker processes):
#: each record parsed as a report is written to the file COUNT_PARSES names, one line each
HOOK = """
import os
if os.environ.get("COUNT_PARSES"):
    import judges.formats.runs as runs

    real = runs.parse_report

    def parse_report(value, path, line, *args, **kwargs):
        with open(os.environ["COUNT_PARSES"], "a") as f:
            f.write(f"{path}\\t{line}\\n")
        return real(value, path, line, *args, **kwargs)

    runs.parse_report = parse_report
"""


def count_parses(monkeypatch, parsed: Counter) -> None:
    """Count, by ``(path, line)``, each record parsed as a report in this process
    (``judges.formats.runs.parse_report``: every reader of a run file's reports calls it) and each
    line read as JSON by any other reader (``judges.formats.jsonl.iter_lines``: the RAG 2026 rules
    read the lines themselves on main)."""
    import judges.formats.jsonl as jsonl
    import judges.formats.runs as runs

    real_parse, real_lines = runs.parse_report, jsonl.iter_lines

    def parse_report(value, path, line, *args, **kwargs):
        parsed[(str(Path(path)), line)] += 1
        return real_parse(value, path, line, *args, **kwargs)

    def iter_lines(path, lines=None):
        for line, offset, raw in real_lines(path, lines):
            parsed[(str(Path(path)), line)] += 1
            yield line, offset, raw

    monkeypatch.setattr(runs, "parse_report", parse_report)
    monkeypatch.setattr(jsonl, "iter_lines", iter_lines)  # runs.py's own (before parse_report) is not this name


@pytest.mark.parametrize("session", sorted(SESSIONS))
def test_each_run_file_is_parsed_once_per_session(session, monkeypatch, tmp_path):
    """Every record of every run file is parsed once in a session, whatever it judges: the later
    stages (the second pass, the nugget and battle stages, the bank made from the answers, the
    RAG 2026 rules, the worker processes) take the reports the first pass parsed."""
    args = SESSIONS[session]
    parsed: Counter = Counter()
    count_parses(monkeypatch, parsed)
    (tmp_path / "hook").mkdir()
    (tmp_path / "hook" / "sitecustomize.py").write_text(HOOK)
    in_workers = tmp_path / "parsed-in-workers.tsv"
    env = {"PYTHONPATH": f"{tmp_path / 'hook'}{os.pathsep}{ROOT}", "COUNT_PARSES": in_workers}
    done = cli_in_process(*args, "--backend", "python", "--out-dir", tmp_path / "out", "--name", "p", env=env)
    assert done.returncode == 0, done.stderr
    if in_workers.exists():
        for row in in_workers.read_text().splitlines():
            path, line = row.split("\t")
            parsed[(str(Path(path)), int(line))] += 1
    runs = Path(args[args.index("--rag-responses") + 1])
    records = {
        (str(path), n): 1
        for path in sorted(runs.iterdir())
        for n, text in enumerate(path.read_text().splitlines(), start=1)
        if text.strip()
    }
    parsed = Counter({key: n for key, n in parsed.items() if Path(key[0]).parent == runs})  # not the corpus's lines
    per_file: dict[str, set] = {}
    for (path, _), times in parsed.items():
        per_file.setdefault(Path(path).name, set()).add(times)
    assert dict(parsed) == records, per_file  # every record once: each file parsed once
    assert all(times == {1} for times in per_file.values())


def test_create_nuggets_from_an_llm_parses_each_run_file_once(monkeypatch, tmp_path):
    """``create-nuggets --from llm`` reads the answers and the cited documents from one parse of
    the run files (its replay-only stop, before any question, is after both)."""
    from llm_servers import ScriptedServer

    parsed: Counter = Counter()
    count_parses(monkeypatch, parsed)
    with ScriptedServer() as server:
        done = cli_in_process(
            *(
                "create-nuggets",
                "--from",
                "llm",
                "--rag-responses",
                MINI / "runs",
                "--rag-topics",
                MINI / "topics.jsonl",
            ),
            *("--corpus", MINI / "segments.jsonl", "--cache-dir", tmp_path / "empty", "--output", tmp_path / "x.jsonl"),
            *("--use-env-llm", "--replay-only"),
            env=server.env(),
        )
    assert done.returncode == 2 and "replay_only: no cached answer" in done.stderr, done.stderr
    records = {
        (str(path), n): 1
        for path in sorted((MINI / "runs").iterdir())
        for n, text in enumerate(path.read_text().splitlines(), start=1)
        if text.strip()
    }
    assert {key: n for key, n in parsed.items() if Path(key[0]).parent == MINI / "runs"} == records
