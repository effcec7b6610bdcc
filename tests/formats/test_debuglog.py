"""The debug log's lines: ``{"ts", "event", **data}`` as orjson encodes that object, whatever the data."""

from __future__ import annotations

import numpy as np
import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from judges.formats import debuglog
from judges.formats.debuglog import DebugLog

_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=8,
)
_names = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_é", min_size=1, max_size=6).filter(
    lambda k: k not in ("ts", "event")
)


@settings(max_examples=300, deadline=None)
@given(
    events=st.lists(
        st.tuples(st.sampled_from(["CITATION_INPUT", "summary", "é"]), st.dictionaries(_names, _values, max_size=5)),
        max_size=6,
    )
)
def test_each_line_is_the_whole_event_encoded(events):
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(debuglog.time, "time", lambda: 1_790_000_000.123)
        log = DebugLog.deferred()
        for kind, data in events:
            log.event(kind, **data)
        expected = [
            orjson.dumps({"ts": "2026-09-21T14:13:20.123+00:00", "event": kind, **data}, option=debuglog._OPTIONS)
            for kind, data in events
        ]
        assert log._buffer == expected


def test_numpy_values_and_paths_are_encoded_as_lists_and_strings(tmp_path):
    log = DebugLog.deferred()
    log.event("x", a=np.arange(3), b=np.int64(4), p=tmp_path)
    assert orjson.loads(log._buffer[0]) | {"ts": None} == {
        "ts": None,
        "event": "x",
        "a": [0, 1, 2],
        "b": 4,
        "p": str(tmp_path),
    }


def test_appended_logs_land_between_the_events_around_them(tmp_path):
    parts = [tmp_path / f"worker{w}.jsonl" for w in range(2)]
    parts[0].write_bytes(b'{"event":"w0"}\n' * 50_000)  # large enough to take several copy calls' worth
    parts[1].write_bytes(b"")
    target = tmp_path / "log.jsonl"
    with DebugLog(target) as log:
        log.event("before")
        log.append_file(parts[0])
        log.event("between")
        log.append_file(parts[1])
        log.append_file(parts[0])
        log.event("after")
        log.close()
    lines = [orjson.loads(line)["event"] for line in target.read_bytes().splitlines()]
    assert lines == ["before"] + ["w0"] * 50_000 + ["between"] + ["w0"] * 50_000 + ["after"]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.binary(max_size=300), st.booleans()), max_size=12))
def test_a_growing_file_appended_from_where_the_last_call_stopped_is_copied_once_and_whole(tmp_path_factory, writes):
    """``append_file(path, offset)`` returns how far it copied; called again from there as the
    file grows (a worker still writing, a half-written line included), every byte lands once."""
    tmp = tmp_path_factory.mktemp("grow")
    part, target = tmp / "worker.jsonl", tmp / "log.jsonl"
    part.write_bytes(b"")
    offset = 0
    with DebugLog(target) as log, open(part, "ab", buffering=0) as worker:
        for data, append_now in writes:
            worker.write(data)
            if append_now:
                offset = log.append_file(part, offset)
        assert log.append_file(part, offset) == part.stat().st_size
        log.close()
    assert target.read_bytes() == b"".join(data for data, _ in writes)


def test_a_log_synced_early_keeps_what_is_logged_after(tmp_path):
    """``sync_soon`` writes the log so far to disk in a thread; events logged meanwhile follow,
    and closing waits for the thread (its file descriptor must not close under it)."""
    target = tmp_path / "log.jsonl"
    with DebugLog(target) as log:
        log.event("before")
        log.sync_soon()
        log.sync_soon()  # once is enough: a second call does nothing
        log.event("after")
        log.close()
        assert log._syncing is None
    assert [orjson.loads(line)["event"] for line in target.read_bytes().splitlines()] == ["before", "after"]


def test_a_ctrl_c_as_the_sync_thread_starts_leaves_a_log_that_closes(tmp_path, monkeypatch):
    """A Ctrl-C between making the sync thread and starting it (seen once in the Ctrl-C-at-any-moment
    test: 'cannot join thread before it is started', a traceback, exit code 1): closing the log
    then has no unstarted thread to wait for, and keeps what was logged."""
    import threading

    def interrupted(self):
        raise KeyboardInterrupt

    target = tmp_path / "log.jsonl"
    with DebugLog(target) as log:
        log.event("before")
        monkeypatch.setattr(threading.Thread, "start", interrupted)
        with pytest.raises(KeyboardInterrupt):
            log.sync_soon()
        monkeypatch.undo()
        log.close()
    assert [orjson.loads(line)["event"] for line in target.read_bytes().splitlines()] == ["before"]


@settings(max_examples=40, deadline=None)
@given(
    sizes=st.lists(st.integers(0, 4000), min_size=1, max_size=3),
    cuts=st.lists(st.tuples(st.integers(0, 2), st.integers(0, 4000), st.integers(0, 4000)), max_size=10),
    soon=st.booleans(),
)
def test_ranges_of_other_logs_are_appended_in_the_order_given(tmp_path_factory, sizes, cuts, soon):
    """``append_ranges`` copies byte ranges ``(path, start, end)`` of several files, in the order
    given (a merge of topic shards puts their reports' events back in one process's order);
    with ``soon`` in a thread, and the next event waits for the copy."""
    tmp = tmp_path_factory.mktemp("ranges")
    files = []
    for i, size in enumerate(sizes):
        path = tmp / f"part{i}.jsonl"
        path.write_bytes(bytes((i * 37 + b) % 256 for b in range(size)))
        files.append(path)
    ranges = [(files[i % len(files)], min(a, b), max(a, b)) for i, a, b in cuts]
    target = tmp / "log.jsonl"
    with DebugLog(target) as log:
        log.event("before")
        log.append_ranges(ranges, soon=soon)
        log.event("after")
        log.close()
    head, *rest = target.read_bytes().split(b"\n", 1)
    expected = b"".join(path.read_bytes()[start:end] for path, start, end in ranges)
    assert orjson.loads(head)["event"] == "before"
    assert rest[0][: len(expected)] == expected
    assert orjson.loads(rest[0][len(expected) :])["event"] == "after"


def test_a_copy_in_a_thread_that_fails_raises_where_the_log_is_next_written(tmp_path):
    target = tmp_path / "log.jsonl"
    log = DebugLog(target).__enter__()
    log.append_ranges([(tmp_path / "no-such-part.jsonl", 0, 10)], soon=True)
    with pytest.raises(FileNotFoundError):
        log.event("after")
    log.close()
    log.__exit__(None, None, None)
