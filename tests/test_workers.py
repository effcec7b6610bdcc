"""Worker processes' debug logs are appended to the session's log in worker order while they run."""

from __future__ import annotations

from concurrent.futures import Future

from judges.formats.debuglog import DebugLog
from judges.workers import _FollowedLogs


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
