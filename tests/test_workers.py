"""Worker processes' debug logs are appended to the session's log in worker order while they run."""

from __future__ import annotations

from concurrent.futures import Future

import pytest

from judges.formats.debuglog import DebugLog
from judges.session.options import RunOptions
from judges.session.workers import _FollowedLogs


def test_worker_logs_are_appended_in_worker_order_as_they_are_written(tmp_path):
    paths = [tmp_path / f"worker{w}.jsonl" for w in range(3)]
    futures = [Future() for _ in paths]
    target = tmp_path / "log.jsonl"
    log = DebugLog.deferred()  # as the pipeline does: the staged log is written directly
    log.event("before")
    log.start(target)
    logs = _FollowedLogs(log, [str(p) for p in paths], futures)
    logs.follow()  # no worker has written yet: nothing to copy
    paths[1].write_bytes(b"w1 a\n")  # worker 1 writes first, but its turn comes after worker 0's
    paths[0].write_bytes(b"w0 a\nw0 b")  # a line half written
    logs.follow()
    assert target.read_bytes().endswith(b"w0 a\nw0 b")  # copied while worker 0 still runs
    with open(paths[0], "ab") as f:
        f.write(b" end\n")
    futures[1].set_result(None)
    paths[2].write_bytes(b"w2 a\n")
    logs.follow()  # worker 0 still runs: worker 1's finished log waits its turn
    assert b"w1" not in target.read_bytes()
    futures[0].set_result(None)
    logs.follow()  # worker 0 done: the rest of its log, all of worker 1's, and worker 2's so far
    assert not paths[0].exists() and not paths[1].exists()  # copied whole: removed
    with open(paths[2], "ab") as f:
        f.write(b"w2 b\n")
    futures[2].set_result(None)
    logs.follow()
    log.close()
    body = target.read_bytes().split(b"\n", 1)[1]
    assert body == b"w0 a\nw0 b end\nw1 a\nw2 a\nw2 b\n"
    assert not paths[2].exists()


def _session(tmp_path, **kw):
    """The RAGTIME sample's inputs, outputs under ``tmp_path`` and the python backend's workflow."""
    from conftest import ROOT

    from judges.core.config import AlignmentSettings, Workflow
    from judges.session.spec import Inputs, Outputs

    inputs = Inputs(
        topics=[ROOT / "datasets" / "ragtime" / "topics.jsonl"], responses=[ROOT / "runs" / "ragtime"], **kw
    )
    return inputs, Outputs(out_dir=tmp_path / "out", name="t"), Workflow(alignment=AlignmentSettings(backend="python"))


@pytest.mark.parametrize("max_runs", [None, 1])
def test_the_first_pass_counts_citations_as_it_goes_never_beyond_its_total(tmp_path, max_runs):
    from collections import Counter

    from judges.session.scan import Problems, load_topics, scan_runs

    inputs, _, workflow = _session(tmp_path, max_runs=max_runs)
    log, counts = DebugLog(None), Counter()
    problems = Problems("fail", log, counts, print)
    topics = load_topics(inputs.topics, problems, None)
    told: list[int] = []
    limit = workflow.citations.max_per_sentence
    scan = scan_runs(inputs, limit, topics, problems, counts, print, told.append)
    assert len(told) > 1 and told == sorted(told) and len(set(told)) == len(told)
    assert told[-1] == scan.citations  # so a decision taken at any count holds for the whole scan
    if max_runs == 1:
        every_run = scan_runs(_session(tmp_path)[0], limit, topics, problems, counts, print)
        assert len(scan.runs) == 1 and scan.citations < every_run.citations


def test_automatic_workers_start_during_the_first_pass_once_enough_citations_are_counted(tmp_path, monkeypatch):
    """Their start-up overlaps the rest of the first pass and the corpus read, as with --workers N."""
    import os

    from judges.session import loading, pipeline

    events: list = []
    real_scan, real_workers = loading.scan_runs, loading.Workers

    def scan(*args, **kw):
        try:
            return real_scan(*args, **kw)
        finally:
            events.append("first pass done")

    class Workers(real_workers):
        def __init__(self, settings, n, progress):
            events.append(f"{n} workers started")
            super().__init__(settings, n, progress)

    monkeypatch.setattr(loading, "scan_runs", scan)
    monkeypatch.setattr(loading, "Workers", Workers)
    monkeypatch.setattr(loading, "AUTO_PARALLEL_CITATIONS", 10)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    auto = pipeline.run(*_session(tmp_path), RunOptions(workers=0))
    assert events == ["2 workers started", "first pass done"]
    n = auto.counts["citations"]
    assert n >= 10 and auto.processes == f"2 worker processes (automatic: {n:,} citations >= 10)"
    events.clear()
    monkeypatch.setattr(loading, "AUTO_PARALLEL_CITATIONS", n + 1)
    below = pipeline.run(*_session(tmp_path / "below"), RunOptions(workers=0))
    assert events == ["first pass done"] and below.processes.startswith("1 process (automatic")
    one = pipeline.run(*_session(tmp_path / "one"), RunOptions(workers=1))
    for kind in ("qrels", "doc.qrels", "leaderboard.txt"):
        assert (tmp_path / "out" / f"t.{kind}").read_bytes() == (tmp_path / "one" / "out" / f"t.{kind}").read_bytes()
    assert one.counts["citations"] == n
