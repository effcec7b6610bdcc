"""Issue 14, "never lose, never mix": the output set under real signals and concurrent sessions.

Sessions are real subprocesses; ``CITEJUDGE_TEST_PAUSE`` (judges.formats.outset._hook) holds one
at a point of its final step so that a signal lands exactly there. After every kill the out-dir,
once recovered (as the next session does on start), holds one complete set: the previous (A) or
the new (B), never a mix, and no temporary file.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import ROOT, default_sigint

from judges.formats.outset import OutputSet, journal_path

pytestmark = pytest.mark.slow  # real signals and kill -9 on subprocesses: about 100 s

TOPICS = ROOT / "datasets" / "dragun" / "topics.jsonl"
RUN_A = ROOT / "runs" / "dragun" / "teamD-base.jsonl"
RUN_B = ROOT / "runs" / "dragun" / "teamD-strong.jsonl"
FILES = (
    "t.qrels",
    "t.doc.qrels",
    "t.leaderboard.txt",
    "t.leaderboard.parquet",
    "t.assessments.parquet",
    "t.coverage.tsv",
    "t.intervals.tsv",
    "t.intervals.parquet",
    "t.pairs.tsv",
    "t.pairs.parquet",
    "t.config.yml",
)


def args(out: Path, run: Path, *extra) -> list[str]:
    return [
        sys.executable,
        str(ROOT / "run_judge.py"),
        "--judge",
        "citation",
        "--rag-topics",
        str(TOPICS),
        "--rag-responses",
        str(run),
        "--out-dir",
        str(out),
        "--name",
        "t",
        "--backend",
        "python",
        *map(str, extra),
    ]


def start(
    out: Path, run: Path, *extra, pause: str | None = None, pause_s: float | None = None, until: Path | None = None
) -> subprocess.Popen:
    """A session; with ``pause``, stopped at that point of its final step until the file ``until``
    exists (by default one never created: until a signal ends it), or ``pause_s`` seconds if given."""
    env = {**os.environ, "CITEJUDGE_TEST_PAUSE": pause or "", "CITEJUDGE_TEST_PAUSE_S": str(pause_s or 0)}
    if pause and pause_s is None:
        env["CITEJUDGE_TEST_PAUSE_UNTIL"] = str(until or out.parent / "never-created")
    return subprocess.Popen(
        args(out, run, *extra),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=ROOT,
        preexec_fn=default_sigint,
    )


def finish(proc: subprocess.Popen) -> tuple[int, str]:
    _, stderr = proc.communicate(timeout=1800)  # a bound, not the expected time: sessions take seconds
    return proc.returncode, stderr


@pytest.fixture(scope="module")
def refs(tmp_path_factory) -> dict[str, dict[str, bytes]]:
    """The complete output sets of sessions A and B, as bytes per file."""
    base = tmp_path_factory.mktemp("refs")
    sets = {}
    for key, run in (("A", RUN_A), ("B", RUN_B)):
        code, err = finish(start(base / key, run))
        assert code == 0, err
        sets[key] = {f: (base / key / f).read_bytes() for f in FILES}
        assert json.loads((base / key / "t.jsonl").read_bytes().splitlines()[-1])["event"] == "summary"
    assert sets["A"]["t.qrels"] != sets["B"]["t.qrels"]
    return sets


def which_set(out: Path, refs) -> str:
    """'A' or 'B' when the out-dir holds exactly that complete set (debug log included); fails on a mix."""
    found = {f: (out / f).read_bytes() for f in FILES}
    matches = [k for k, ref in refs.items() if ref == found]
    per_file = {f: [k for k, ref in refs.items() if ref[f] == found[f]] for f in FILES}
    assert len(matches) == 1, f"mixed output set: {per_file}"
    events = [json.loads(x) for x in (out / "t.jsonl").read_bytes().splitlines()]
    run = RUN_A if matches[0] == "A" else RUN_B
    assert events[0]["inputs"]["responses"] == [run.as_posix()] and events[-1]["event"] == "summary"
    return matches[0]


def leftovers(out: Path) -> list[str]:
    return sorted(p.name for p in out.iterdir() if p.name.startswith(".") and p.name != ".t.lock")


def recover(out: Path) -> None:
    """What the next session does first: take the lock, roll a half-done commit forward, clean up."""
    with OutputSet(out, "t"):
        pass


def wait_for(predicate, proc: subprocess.Popen, timeout: float = 900) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


@pytest.fixture
def out_a(tmp_path, refs) -> Path:
    out = tmp_path / "out"
    code, err = finish(start(out, RUN_A))
    assert code == 0, err
    assert which_set(out, refs) == "A"
    assert not (out / ".t.lock").exists()  # removed by the session as it ended
    return out


def _renamed(out: Path) -> int:
    """How many staged files the journal in ``out`` lists are renamed into place already."""
    try:
        renames = json.loads(journal_path(out, "t").read_text())["renames"]
    except (OSError, ValueError, KeyError):
        return 0
    return sum(1 for staged, _ in renames if staged is not None and not os.path.exists(staged))


def test_kill9_after_the_first_rename_is_rolled_forward(out_a, refs):
    proc = start(out_a, RUN_B, pause="rename")  # stopped after its first rename until killed
    wait_for(lambda: _renamed(out_a) == 1, proc)
    proc.kill()
    proc.wait()
    assert [f for f in FILES if (out_a / f).read_bytes() == refs["A"][f]]  # mixed until recovered
    import judges

    lb = judges.read_leaderboard(out_a, "t")  # a reader completes the killed session's commit
    assert sorted(lb.run_id.unique()) == ["teamD-strong"]
    assert which_set(out_a, refs) == "B"
    assert leftovers(out_a) == []


def test_kill9_at_random_moments_leaves_one_set(out_a, refs):
    """Kill -9 at random times over a whole session, and in each step of its commit."""
    rng = random.Random(14)
    t0 = time.monotonic()
    code, err = finish(start(out_a, RUN_A))  # how long one session takes here
    assert code == 0, err
    duration = time.monotonic() - t0
    seen = set()
    plans = [(None, rng.uniform(0.1, duration * 1.1)) for _ in range(4)] + [
        ("commit", 0.0),
        ("rename", 0.0),
        ("staging", 0.0),
    ]
    for pause, delay in plans:
        proc = start(out_a, RUN_B, pause=pause, pause_s=0.05 if pause == "rename" else None)
        if pause:
            marker = journal_path(out_a, "t") if pause in ("commit", "rename") else None
            wait_for(
                lambda marker=marker: marker.exists() if marker else any(".stage-" in p.name for p in out_a.iterdir()),
                proc,
            )
            time.sleep(rng.uniform(0, 0.2))
        else:
            time.sleep(delay)
        proc.kill()
        proc.wait()
        recover(out_a)
        seen.add(which_set(out_a, refs))
        assert leftovers(out_a) == []
        code, err = finish(start(out_a, RUN_A))  # back to A for the next round
        assert code == 0, err
    assert "A" in seen


def test_sigint_during_the_commit_finishes_it_and_says_so(out_a, refs, tmp_path):
    go = tmp_path / "go"
    proc = start(out_a, RUN_B, pause="rename", until=go)  # stopped at its first rename until go exists
    wait_for(lambda: journal_path(out_a, "t").exists(), proc)
    proc.send_signal(signal.SIGINT)
    go.touch()
    code, err = finish(proc)
    assert code == 130
    assert err == "interrupted: the outputs had just been replaced, all of them, by this run's\n"
    assert which_set(out_a, refs) == "B" and leftovers(out_a) == []


@pytest.mark.parametrize(
    "sig, code, workers", [(signal.SIGTERM, 143, 1), (signal.SIGINT, 130, 1), (signal.SIGTERM, 143, 2)]
)
def test_signal_before_the_commit_replaces_nothing(out_a, refs, sig, code, workers):
    proc = start(out_a, RUN_B, "--workers", workers, pause="staging")
    wait_for(lambda: any(".stage-" in p.name for p in out_a.iterdir()), proc)
    kids = _children(proc.pid) if Path("/proc").is_dir() else []
    assert len(kids) >= (3 if workers > 1 else 0)
    proc.send_signal(sig)
    got, err = finish(proc)
    assert got == code
    assert err == "interrupted: no output was replaced (outputs are replaced only when all are complete)\n"
    assert which_set(out_a, refs) == "A" and leftovers(out_a) == []
    assert not _survivors(kids)


def test_a_second_session_on_the_same_name_stops_with_one_line(out_a, refs, tmp_path):
    go = tmp_path / "go"
    first = start(out_a, RUN_B, pause="staging", until=go)  # holds the lock until the second has ended
    wait_for(lambda: any(".stage-" in p.name for p in out_a.iterdir()), first)
    code, err = finish(start(out_a, RUN_A))
    go.touch()
    assert code == 2
    assert (
        err == f"error: {out_a}: --out-dir: another citejudge session (pid {first.pid}) "
        "is writing the outputs named 't' here\n"
    )
    code, err = finish(first)
    assert code == 0, err
    assert which_set(out_a, refs) == "B" and leftovers(out_a) == []
    assert not (out_a / ".t.lock").exists()  # the session that held it removed it; the refused one left none


def test_a_restart_removes_what_killed_sessions_left(out_a, refs):
    dead = 2**22 + 12345  # above the default pid_max: no such process
    (out_a / f".t.stage-{dead}").mkdir()
    (out_a / f".t.stage-{dead}" / "t.qrels").write_text("stale")
    (out_a / ".t.jsonl.abcd1234.tmp").write_text("stale")  # a killed session of the former layout
    (out_a / ".t.k2j4_x9q").mkdir()  # its workers' temporary directory
    (out_a / ".other.stage-1.tmp").write_text("another name's: kept")
    code, err = finish(start(out_a, RUN_B))
    assert code == 0, err
    assert which_set(out_a, refs) == "B"
    assert leftovers(out_a) == [".other.stage-1.tmp"]


def test_a_debug_log_elsewhere_is_staged_beside_it_and_cleaned_after_a_kill(out_a, refs, tmp_path):
    logs = tmp_path / "logs"
    proc = start(out_a, RUN_B, "--debug-log", logs / "x.jsonl", pause="commit")  # its log staged, not yet renamed
    wait_for(lambda: journal_path(out_a, "t").exists() and any(logs.glob(".x.jsonl.stage-*.tmp")), proc)
    proc.kill()
    proc.wait()
    code, err = finish(start(out_a, RUN_B, "--debug-log", logs / "x.jsonl"))
    assert code == 0, err
    assert sorted(p.name for p in logs.iterdir()) == ["x.jsonl"] and leftovers(out_a) == []
    assert json.loads((logs / "x.jsonl").read_bytes().splitlines()[-1])["event"] == "summary"


def _children(pid: int) -> list[int]:
    kids = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                stat = (d / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                kids.append(int(d.name))
    return kids


def _alive(pid: int) -> bool:
    try:
        state = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _survivors(pids: list[int], timeout: float = 120) -> list[int]:
    """The processes of ``pids`` still alive after ``timeout`` seconds (the resource tracker
    exits once the last process holding its pipe is gone). Generous: a worker's watch on its
    parent needs its turn on a busy machine (10 s was too short at load 15-20)."""
    deadline = time.monotonic() + timeout
    while any(_alive(k) for k in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    return [k for k in pids if _alive(k)]


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc to find the worker processes")
def test_workers_die_with_their_parent(out_a, refs):
    proc = start(out_a, RUN_B, "--workers", "2", pause="staging")
    wait_for(lambda: any(".stage-" in p.name for p in out_a.iterdir()) and len(_children(proc.pid)) >= 3, proc)
    kids = _children(proc.pid)  # two workers and multiprocessing's resource tracker
    proc.kill()
    proc.wait()
    assert not _survivors(kids)
    recover(out_a)
    assert which_set(out_a, refs) == "A" and leftovers(out_a) == []


def test_a_lock_on_a_removed_lock_file_is_taken_again_on_the_file_there(tmp_path, monkeypatch):
    """The lock file goes with the session that held it. A session that opened it just before
    (and locks it just after) holds a lock on a removed file, which locks nothing: it must lock
    the file at the path instead, or two sessions could run at once."""
    import fcntl

    from judges.formats import outset

    out = tmp_path / "out"
    with OutputSet(out, "t"):
        assert (out / ".t.lock").exists()
        with pytest.raises(outset.InputError, match="another citejudge session"):
            OutputSet(out, "t").__enter__()
    assert not (out / ".t.lock").exists()
    real_flock, calls = fcntl.flock, []

    def flock(fd, op):  # the holder ends between this session's open and its flock
        calls.append(fd)
        if len(calls) == 1:
            os.unlink(out / ".t.lock")
        return real_flock(fd, op)

    monkeypatch.setattr(fcntl, "flock", flock)
    with OutputSet(out, "t") as session:
        assert len(calls) == 2  # locked the removed file, saw it, locked the one at the path
        assert os.path.samestat(os.fstat(session._lock_fd), os.stat(out / ".t.lock"))
        monkeypatch.setattr(fcntl, "flock", real_flock)
        with pytest.raises(outset.InputError, match="another citejudge session"):
            OutputSet(out, "t").__enter__()  # the lock held is the one others see
    assert sorted(p.name for p in out.iterdir()) == []


@pytest.mark.parametrize("durable", [True, False])
def test_only_a_durable_set_is_synced_to_disk(tmp_path, monkeypatch, durable):
    """A set is synced before its renames (the journal, every file, the directories); scratch that
    lives one session (``durable=False``: a Dask task's part) is renamed the same way, unsynced."""
    synced: list[int] = []
    real = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(fd), real(fd)))
    with OutputSet(tmp_path / "out", "x", durable=durable) as outset:
        for name in ("x.qrels", "x.jsonl"):
            outset.stage(tmp_path / "out" / name).write_text(name)
        outset.commit()
    assert sorted(p.name for p in (tmp_path / "out").iterdir() if not p.name.startswith(".")) == ["x.jsonl", "x.qrels"]
    assert (tmp_path / "out" / "x.qrels").read_text() == "x.qrels"
    assert (len(synced) >= 4) if durable else synced == []
