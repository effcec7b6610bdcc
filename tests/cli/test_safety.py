"""What is safe to interrupt, and what is never replaced: plan-assessments' rounds (created
exclusively, one plan at a time), the HTML report (built beside, swapped in), SIGTERM handled as
Ctrl-C, a full disk one line, inclusion probabilities below the floor refused.

A real process is paused at a chosen point by a hook (``paused``): the test waits for the file the
hook creates there (the event itself, never a time window), then signals or runs a second process."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from helpers import EVENT_LIMIT_S, ROOT, cli_in_process, default_sigint, ended, paused, run_cli

SAMPLE = ("--rag-topics", ROOT / "datasets/rag25/topics.jsonl", "--rag-responses", ROOT / "runs/rag25")
CORPUS = ("--corpus", ROOT / "datasets/rag25/corpus.jsonl")
# plan-assessments stops after the second line of its round is made
PAUSE_IN_ROUND = """
import judges.meta.assessing as m
line, calls = m._line, []
def paused_line(*a, **k):
    calls.append(1)
    if len(calls) == 2:
        pause()
    return line(*a, **k)
m._line = paused_line
"""

# report stops after its fifth file
PAUSE_IN_REPORT = """
import judges.report.build as b
files = b.files
def paused_files(*args, **kwargs):
    for i, item in enumerate(files(*args, **kwargs)):
        if i == 5:
            pause()
        yield item
b.files = paused_files
"""


@pytest.fixture(scope="module")
def judged(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("judged") / "out"
    result = run_cli(*SAMPLE, *CORPUS, "--out-dir", out, "--name", "a")
    assert result.returncode == 0, result.stderr
    return out


def copy(judged: Path, tmp_path: Path) -> Path:
    out = tmp_path / "out"
    shutil.copytree(judged, out)
    return out


def files_of(out: Path) -> dict[str, bytes]:
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


# -- rounds ---------------------------------------------------------------------------------------
def test_a_second_plan_while_one_runs_stops_with_one_line_and_no_round_is_replaced(judged, tmp_path):
    out = copy(judged, tmp_path)
    first, _ = paused(tmp_path, PAUSE_IN_ROUND, "plan-assessments", out, "--name", "a", "--count", "3")
    try:
        second = run_cli("plan-assessments", out, "--name", "a", "--count", "3")
        lines = second.stderr.strip().splitlines()
        assert second.returncode == 2 and len(lines) == 1, second.stderr
        running = "another plan-assessments of 'a' is running here: wait for it to end, then plan the next round"
        assert lines[0] == f"error: {out}: --name: {running}"
        assert not list(out.glob("a.assess-*"))
    finally:
        first.send_signal(signal.SIGINT)
    code, lines = ended(first)
    assert code == 130 and lines == ["interrupted"], lines
    assert not list(out.glob("a.assess-*")) and not list(out.glob(".a.*")), list(out.iterdir())  # no round, no lock
    result = run_cli("plan-assessments", out, "--name", "a", "--count", "3")  # the lock was let go of
    assert result.returncode == 0 and (out / "a.assess-1.jsonl").is_file(), result.stderr


def test_a_round_put_in_place_meanwhile_is_never_replaced(judged, tmp_path, monkeypatch):
    """The round's name is taken only if free when the round is complete (link(2)): a filled
    round that appeared meanwhile stays as it is, and the plan says so in one line."""
    import judges.meta.assessing as assessing

    out = copy(judged, tmp_path)
    target = out / "a.assess-1.jsonl"
    line = assessing._line

    def meanwhile(*args, **kwargs):
        if not target.exists():
            target.write_text('{"label": "supported"}\n')  # another writer's round, labelled
        return line(*args, **kwargs)

    monkeypatch.setattr(assessing, "_line", meanwhile)
    result = cli_in_process("plan-assessments", out, "--name", "a", "--count", "3")
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 2 and len(lines) == 1 and lines[0].startswith(f"error: {target}: exists: "), lines
    assert target.read_text() == '{"label": "supported"}\n'
    assert not list(out.glob(".a.assess*")), list(out.iterdir())


def test_sigterm_during_plan_assessments_is_one_line_and_writes_nothing(judged, tmp_path):
    out = copy(judged, tmp_path)
    before = files_of(out)
    proc, _ = paused(tmp_path, PAUSE_IN_ROUND, "plan-assessments", out, "--name", "a", "--count", "3")
    proc.send_signal(signal.SIGTERM)
    code, lines = ended(proc)
    assert code == 143 and lines == ["interrupted"], (code, lines)
    assert files_of(out) == before and not [p for p in out.iterdir() if p.name.startswith(".")]


def _small_files(limit: int):
    def apply() -> None:
        import resource

        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write beyond the limit fails with EFBIG, as on a full disk
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return apply


def test_a_full_disk_in_plan_assessments_is_one_line_and_the_earlier_rounds_stay(judged, tmp_path):
    out = copy(judged, tmp_path)
    assert run_cli("plan-assessments", out, "--name", "a", "--count", "2").returncode == 0
    before = files_of(out)
    result = subprocess.run(
        [sys.executable, str(ROOT / "run_judge.py"), "plan-assessments", str(out), "--name", "a", "--count", "5"],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        preexec_fn=_small_files(4 << 10),
    )
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 2 and len(lines) == 1, result.stderr
    assert lines[0] == f"error: {out / 'a.assess-2.jsonl'}: File too large; no round written", lines
    assert files_of(out) == before and not [p for p in out.iterdir() if p.name.startswith(".")]


# -- the report -----------------------------------------------------------------------------------
def test_ctrl_c_during_report_leaves_the_previous_report_whole(judged, tmp_path):
    out = copy(judged, tmp_path)
    assert run_cli("report", out, "--name", "a", "--resamples", "0").returncode == 0
    report = out / "a.report"
    before = files_of(report)
    assert "index.html" in before and len(before) > 10
    proc, _ = paused(tmp_path, PAUSE_IN_REPORT, "report", out, "--name", "a", "--resamples", "0")
    proc.send_signal(signal.SIGINT)
    code, lines = ended(proc)
    assert code == 130 and lines == ["interrupted"], (code, lines)
    assert files_of(report) == before
    assert sorted(p.name for p in out.iterdir() if "report" in p.name) == ["a.report"]  # nothing beside it left
    again = run_cli("report", out, "--name", "a", "--resamples", "0")  # and the next report replaces it
    assert again.returncode == 0 and files_of(report).keys() == before.keys(), again.stderr


def test_a_report_a_killed_swap_set_aside_is_put_back(tmp_path):
    """kill -9 between the swap's two renames leaves the previous report as .NAME.old-PID: the next
    report puts it back first (and removes a dead process's unfinished one); an error then leaves it."""
    from judges.formats.swapdir import replacing

    dead = 2**22 + 12345  # above the default pid_max: no such process
    old = tmp_path / f".r.report.old-{dead}"
    old.mkdir()
    (old / "index.html").write_text("old")
    (tmp_path / f".r.report.new-{dead}").mkdir()
    with pytest.raises(OSError), replacing(tmp_path / "r.report") as new:
        (new / "index.html").write_text("new, cut short")
        raise OSError(28, "No space left on device")
    assert (tmp_path / "r.report" / "index.html").read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.report"]
    with replacing(tmp_path / "r.report") as new:
        (new / "index.html").write_text("new")
    assert (tmp_path / "r.report" / "index.html").read_text() == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.report"]


# -- labels ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("probability", [5e-324, 1e-300])
def test_an_inclusion_probability_below_the_floor_is_one_line(judged, tmp_path, probability):
    out = copy(judged, tmp_path)
    assert run_cli("plan-assessments", out, "--name", "a", "--count", "2").returncode == 0
    lines = [json.loads(x) for x in (out / "a.assess-1.jsonl").read_text().splitlines()]
    for line in lines:
        line["label"] = "supported"
    lines[1]["inclusion_probability"] = probability
    labels = tmp_path / "labels.jsonl"
    labels.write_text("".join(json.dumps(x) + "\n" for x in lines))
    result = cli_in_process(*SAMPLE, *CORPUS, "--out-dir", tmp_path / "again", "--name", "b", "--labels", labels)
    errors = result.stderr.strip().splitlines()
    assert result.returncode == 2 and len(errors) == 1, result.stderr
    assert errors[0] == (
        f"error: {labels}:2: inclusion_probability: {probability!r} is below 1e-09, the least a plan draws with "
        "(estimates weigh a label by 1/probability)"
    )
    assert not (tmp_path / "again").exists() or not list((tmp_path / "again").iterdir())


# -- Ctrl-C while worker processes start ----------------------------------------------------------
def _workers_of(pid: int) -> list[int]:
    """The pool's worker processes among ``pid``'s children (spawned: ``spawn_main`` in their command line)."""
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            children = (task / "children").read_text().split()
        except OSError:
            continue
        for child in children:
            try:
                cmdline = Path(f"/proc/{child}/cmdline").read_bytes()
            except OSError:
                continue
            if b"spawn_main" in cmdline:
                found.append(int(child))
    return found


def _sigint_mask(pid: int) -> dict[str, bool]:
    """Whether the process blocks (``SigBlk``), ignores (``SigIgn``) or catches (``SigCgt``: Python's
    own handler, which raises KeyboardInterrupt wherever the process is, e.g. importing) SIGINT."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return {}
    bit = 1 << (signal.SIGINT - 1)
    return {
        x.split(":")[0]: bool(int(x.split()[1], 16) & bit)
        for x in status.splitlines()
        if x.startswith(("SigBlk", "SigIgn", "SigCgt"))
    }


def test_ctrl_c_while_the_workers_start_is_one_line_without_a_traceback(tmp_path):
    """A Ctrl-C reaches the whole process group: a worker still importing once printed an importlib
    traceback (when its parent had not killed it first). From the moment a worker process exists
    until it is ready, SIGINT is held or ignored in it, never caught (watched in /proc); then a
    Ctrl-C to the group while they start is the parent's one line."""
    proc = subprocess.Popen(
        [sys.executable, str(ROOT / "run_judge.py"), *map(str, SAMPLE), *map(str, CORPUS)]
        + ["--out-dir", str(tmp_path / "out"), "--name", "w", "--workers", "2"],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # a group of its own, as a terminal's job: the signal goes to every process of it
        preexec_fn=default_sigint,  # Ctrl-C as a terminal delivers it, even when the suite runs in the background
    )
    deadline = time.monotonic() + EVENT_LIMIT_S
    seen: dict[int, list] = {}
    while len(seen) < 2 or not all(masks and masks[-1].get("SigIgn") for masks in seen.values()):
        assert proc.poll() is None, proc.stderr.read()
        assert time.monotonic() < deadline, f"the workers were never ready: {seen}"
        for worker in _workers_of(proc.pid):
            mask = _sigint_mask(worker)
            if mask:
                seen.setdefault(worker, []).append(mask)
                assert not (mask["SigCgt"] and not mask["SigBlk"]), f"worker {worker} would take a Ctrl-C: {mask}"
        time.sleep(0.001)
    os.killpg(proc.pid, signal.SIGINT)
    _, stderr = proc.communicate(timeout=EVENT_LIMIT_S)
    lines = stderr.strip().splitlines()
    assert "Traceback" not in stderr and len(lines) == 1 and lines[0].startswith("interrupted"), stderr
    assert proc.returncode == 130, stderr


# -- a refused command leaves nothing ----------------------------------------------------------------
def test_attest_export_to_a_batch_dir_that_is_a_file_is_refused_before_it_opens_the_answer_cache(judged, tmp_path):
    """``--batch-dir`` an existing file: refused before judging, so no ``attest-cache.sqlite3`` is
    left in the out-dir (the harness's damage case); the set is as it was."""
    out = copy(judged, tmp_path)
    before = files_of(out)
    target = out / "a.qrels"
    result = cli_in_process(
        "attest", "export", out, "--name", "a", "--attest", "all", "--model", "m", "--batch-dir", target
    )
    assert result.returncode == 2
    assert result.stderr == f"error: {target}: --batch-dir: exists and is not a directory\n"
    assert files_of(out) == before and sorted(p.name for p in out.iterdir()) == sorted(before)
