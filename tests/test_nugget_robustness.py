"""What could lose a user's data in the nugget judge's paths (``--judge nugget|argue``, nugget
``--labels``, shards), as processes on the bundled rag24-nuggets-mini: a failure while the nugget
files are written leaves the previous set as it was; a session that writes no nugget files takes
the previous set's with it (else they would sit beside a leaderboard they do not belong to); bad
nugget labels are one line naming file, line and field, exit 2, nothing written. One shared set of
runs (module fixture) for many assertions."""

from __future__ import annotations

import json
import resource
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

MINI = ROOT / "datasets" / "rag24-nuggets-mini"
NUGGET_FILES = ("N.nuggets.jsonl", "N.nuggets.parquet")


def _argv(judge: str, out: Path, *extra) -> list[str]:
    given = ["--judge", judge, "--rag-topics", MINI / "topics.jsonl", "--rag-responses", MINI / "runs"]
    given += ["--corpus", MINI / "segments.jsonl", "--backend", "python", "--out-dir", out, "--name", "N"]
    given += ["--nuggets", MINI / "nuggets.jsonl"] if judge != "citation" else []
    return [sys.executable, str(ROOT / "run_judge.py"), *map(str, [*given, *extra])]


def _files_under(limit: int):
    def apply() -> None:  # no file this process writes may grow beyond `limit` bytes (a full disk)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return apply


def _set(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in out.iterdir()}


@pytest.fixture(scope="module")
def sets(tmp_path_factory):
    """An argue set (two runs) in ``out``; the argue session over every run that fails while it
    writes the nugget files (they are written first: no file may exceed 4 kB); a citation session
    over the same out-dir and name."""
    out = tmp_path_factory.mktemp("nugget-robust") / "out"
    run = lambda *argv, **kw: subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, **kw)  # noqa: E731
    first = run(*_argv("argue", out, "--max-runs", "2"))
    assert first.returncode == 0, first.stderr
    before = _set(out)
    failed = run(*_argv("argue", out, "--no-debug-log"), preexec_fn=_files_under(4096))
    after_failure = _set(out)
    citation = run(*_argv("citation", out))
    assert citation.returncode == 0, citation.stderr
    return {"out": out, "before": before, "failed": failed, "after_failure": after_failure}


def test_a_failure_while_the_nugget_files_are_written_leaves_the_previous_set(sets):
    lines = sets["failed"].stderr.strip().splitlines()
    assert sets["failed"].returncode == 2 and len(lines) == 1, sets["failed"].stderr
    assert lines[0].startswith(f"error: {sets['out'] / 'N.nuggets.jsonl'}: ") and "File too large" in lines[0]
    assert sets["after_failure"] == sets["before"]  # byte for byte, no staged file left
    assert set(NUGGET_FILES) <= set(sets["before"])


def test_a_session_without_nuggets_takes_the_previous_sets_nugget_files_with_it(sets):
    """A citation session over an argue set replaced the citation files and left the old nugget
    files beside them: a set mixed from two sessions (their NUGGET_* no longer on the leaderboard)."""
    out = sets["out"]
    names = {p.name for p in out.iterdir()}
    assert not names & set(NUGGET_FILES), names
    assert "NUGGET_ALL" not in (out / "N.leaderboard.txt").read_text()
    events = [json.loads(line) for line in (out / "N.jsonl").read_text().splitlines()]
    assert not any(e.get("event") == "NUGGET_OUTPUT" for e in events)
