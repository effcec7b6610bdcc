"""What could lose a user's data in the nugget judge's paths (``--judge nugget|argue``, nugget
``--labels``, shards), as processes on the bundled rag24-nuggets-mini: a failure while the nugget
files are written leaves the previous set as it was; a session that writes no nugget files takes
the previous set's with it (else they would sit beside a leaderboard they do not belong to); bad
nugget labels are one line naming file, line and field, exit 2, nothing written. One shared set of
runs (module fixture) for many assertions."""

from __future__ import annotations

import gzip
import json
import os
import resource
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import ROOT, cli_in_process, needs_dspy, run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from llm_servers import ScriptedServer, level_by_hash


import judges
from judges.core.errors import InputError
from judges.formats.labels import read_label_files
from judges.formats.nuggets import read_nuggets

MINI = ROOT / "datasets" / "rag24-nuggets-mini"
NUGGET_FILES = ("N.nuggets.jsonl", "N.nuggets.parquet")
BOM = b"\xef\xbb\xbf"


def _nist_record(**change) -> dict:
    return {**json.loads((MINI / "nugget_assignment.jsonl").read_text().splitlines()[0]), **change}


FIRST = _nist_record()
BANK_SIZE = len(read_nuggets(MINI / "nuggets.jsonl").banks[FIRST["qid"]].nuggets)
PLAN_LINE = {"run_id": FIRST["run_id"], "topic_id": FIRST["qid"], "nugget_index": 0, "label": "support"}
OTHER_TEXT = [{**n, "text": "a nugget of another bank"} if i == 2 else n for i, n in enumerate(FIRST["nuggets"])]


def _argv(judge: str, out: Path, *extra, nuggets: Path = MINI / "nuggets.jsonl") -> list[str]:
    given = ["--judge", judge, "--rag-topics", MINI / "topics.jsonl", "--rag-responses", MINI / "runs"]
    given += ["--corpus", MINI / "segments.jsonl", "--backend", "python", "--out-dir", out, "--name", "N"]
    given += ["--nuggets", nuggets] if judge != "citation" else []
    return [sys.executable, str(ROOT / "run_judge.py"), *map(str, [*given, *extra])]


def _files_under(limit: int):
    def apply() -> None:  # no file this process writes may grow beyond `limit` bytes (a full disk)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return apply


def _set(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in out.iterdir()}


@pytest.fixture(scope="module")
def sets(tmp_path_factory):
    """An argue set in ``out`` (a label file, one of whose labels matches no pair); the argue
    session without it that fails while it writes the nugget files (they are written first: no
    file may exceed 4 kB); a citation session over the same out-dir and name."""
    root = tmp_path_factory.mktemp("nugget-robust")
    out = root / "out"
    labels = root / "labels.jsonl"  # one pair of the session, one of a run it does not judge
    labels.write_text(json.dumps(PLAN_LINE) + "\n" + json.dumps({**PLAN_LINE, "run_id": "not-a-run"}) + "\n")
    run = lambda *argv, **kw: subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, **kw)  # noqa: E731
    first = run(*_argv("argue", out, "--labels", labels))
    assert first.returncode == 0, first.stderr
    labelled = int(judges.read_nuggets(out, "N").labelled.sum())
    before = _set(out)
    failed = run(*_argv("argue", out, "--no-debug-log"), preexec_fn=_files_under(4096))
    after_failure = _set(out)
    citation = run(*_argv("citation", out))
    assert citation.returncode == 0, citation.stderr
    return {
        "out": out,
        "labels": labels,
        "first": first,
        "labelled": labelled,
        "before": before,
        "failed": failed,
        "after_failure": after_failure,
    }


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


# -- nugget labels and banks as files are sent: a byte order mark, CRLF, gzip --------------------------
ident = st.text(alphabet="abcdefghij0123456789-._", min_size=1, max_size=8).filter(lambda s: s != "all")
WORDS = ("support", "partial_support", "not_support", "supported", "partially", "not_supported", "PS", "FS")
LEVEL = {"supported": "support", "partially": "partial_support", "not_supported": "not_support"}
LEVEL.update({"PS": "partial_support", "FS": "support"})
labels_st = st.dictionaries(
    st.tuples(ident, ident, st.integers(0, 30)), st.sampled_from(WORDS), min_size=1, max_size=12
)


def _encoded(text: str, how: str) -> bytes:
    if how == "crlf":
        return text.replace("\n", "\r\n").encode()
    data = (BOM if how in ("bom", "bom-gzip") else b"") + text.encode()
    return gzip.compress(data, mtime=0) if how.endswith("gzip") else data


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(labels=labels_st, how=st.sampled_from(["plain", "bom", "crlf", "gzip", "bom-gzip"]), nist=st.booleans())
def test_nugget_labels_read_alike_with_a_byte_order_mark_crlf_or_gzip(tmp_path, labels, how, nist):
    """A filled plan file or NIST's assignment records, as Windows tools and gzip leave them: the
    same assignments (a BOM or gzip made the file look like a citation label file: it was refused
    with 'sentence_index: missing', or 'topic_id: missing' for NIST's records)."""
    if nist:  # one record per answer, its nuggets 0..max labelled (the rest as not_support)
        answers: dict = {}
        for (run, topic, i), word in labels.items():
            answers.setdefault((run, topic), {})[i] = word
        records = [
            {"qid": t, "run_id": r, "nuggets": [{"text": f"n{i}", "assignment": got.get(i, "not_support")}
                                                for i in range(max(got) + 1)]}
            for (r, t), got in answers.items()
        ]  # fmt: skip
        expected = {
            (r, t, i): LEVEL.get(w, w) for (r, t), got in answers.items() for i in range(max(got) + 1)
            for w in [got.get(i, "not_support")]
        }  # fmt: skip
    else:
        records = [{"run_id": r, "topic_id": t, "nugget_index": i, "label": w} for (r, t, i), w in labels.items()]
        expected = {k: LEVEL.get(w, w) for k, w in labels.items()}
    path = tmp_path / ("labels.jsonl.gz" if how.endswith("gzip") else "labels.jsonl")
    path.write_bytes(_encoded("".join(json.dumps(r) + "\n" for r in records), how))
    found = read_label_files([path])
    assert found.nuggets is not None and found.nuggets.levels == expected and not found.statuses


def test_a_bank_with_a_byte_order_mark_or_crlf_reads_alike_and_a_cut_gzip_is_one_line(tmp_path):
    text = (MINI / "nuggets.jsonl").read_text()
    plain = read_nuggets(MINI / "nuggets.jsonl").banks
    for how in ("bom", "crlf", "bom-gzip"):
        path = tmp_path / f"{how}.jsonl{'.gz' if how.endswith('gzip') else ''}"
        path.write_bytes(_encoded(text, how))
        assert read_nuggets(path).banks == plain, how
    cut = tmp_path / "cut.jsonl.gz"
    whole = _encoded(text, "gzip")
    cut.write_bytes(whole[: len(whole) // 2])
    with pytest.raises(InputError) as e:
        read_nuggets(cut)
    assert e.value.path == str(cut) and "cut short" in e.value.problem and "\n" not in e.value.render()


# -- nugget labels that name no nugget of the session's bank --------------------------------------------
WRONG = [
    ({**PLAN_LINE, "nugget_index": BANK_SIZE}, "nugget_index", f"its bank in {MINI / 'nuggets.jsonl'} has {BANK_SIZE}"),
    ({**PLAN_LINE, "nugget": "a nugget of another bank"}, "nugget", "is not nugget 0 of topic"),
    (_nist_record(nuggets=OTHER_TEXT), "nuggets[2].text", "labels of another nugget bank?"),
    (_nist_record(nuggets=[*FIRST["nuggets"], {"text": "x", "assignment": "support"}]), f"nuggets[{BANK_SIZE}]", ""),
    (_nist_record(nuggets=[5]), "nuggets[0]", "must be an object, got a number"),  # was: 'None is not an assignment'
]


@pytest.mark.parametrize("record,field,problem", WRONG)
def test_a_nugget_label_of_no_nugget_of_the_bank_is_one_line_and_nothing_written(tmp_path, record, field, problem):
    """A label whose nugget index is beyond its topic's bank, or whose line quotes another nugget
    than the bank's at that index (labels of another bank), was applied to whatever nugget had
    the index, or ignored: now one line naming the label's file, line and field."""
    labels = tmp_path / "labels.jsonl"
    labels.write_text(json.dumps(PLAN_LINE) + "\n" + json.dumps(record) + "\n")
    out = tmp_path / "out"
    run = run_cli if field == "nugget_index" else cli_in_process  # one real process
    r = run(*_argv("nugget", out, "--labels", labels)[2:])
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 2 and len(lines) == 1, r.stderr
    assert lines[0].startswith(f"error: {labels}:2: {field}: ") and problem in lines[0], lines[0]
    assert not out.exists() or not any(out.iterdir())


def test_nugget_labels_that_match_no_judged_pair_are_a_warning_as_citation_labels_are(sets):
    """They were dropped without a word (a citation label that matches none is a warning)."""
    assert f"1 of the 2 nugget labels in {sets['labels']} match no judged nugget pair" in sets["first"].stdout
    assert sets["labelled"] == 1


# -- an argue + attest run killed while it asks the nugget questions; the API key ----------------------
SECRET = "sk-canary-nugget-5e1d"


def _cached_keys(cache: Path) -> set[str]:
    path = cache / "attest-cache.sqlite3"
    if not path.exists():
        return set()
    try:
        with sqlite3.connect(path, timeout=1) as db:
            return {k for (k,) in db.execute("SELECT key FROM answers")}
    except sqlite3.OperationalError:
        return set()


@pytest.mark.slow
def test_an_argue_run_killed_among_its_nugget_questions_resumes_without_asking_again(tmp_path):
    """``--judge argue --attest uncertain`` (citation questions, then the nugget pairs' plan) killed
    with SIGKILL once it has asked half its nugget questions: the next run asks only what the
    answer cache lacks and writes what an uninterrupted run writes, byte for byte. The API key,
    given by environment (and, to the resumed run, by --llm-config), is in no file of either run,
    of their caches or of an `attest export`."""
    needs_dspy()
    workflow = tmp_path / "workflow.yml"
    workflow.write_text("attest:\n  mode: uncertain\n  budget: 0.5\n  concurrency: 1\n")
    slow = lambda n, body: level_by_hash(n, body)._replace(delay=0.05)  # noqa: E731

    def argv(out: Path, *llm) -> list[str]:
        return _argv("argue", out, "--attest", "uncertain", "--workflow", workflow, "--cache-dir", out, *llm)

    with ScriptedServer(slow) as server:
        whole = run_cli(*argv(tmp_path / "whole", "--use-env-llm")[2:], env=server.env(api_key=SECRET))
        assert whole.returncode == 0, whole.stderr
        nugget_questions = [s.key for s in server.seen if "the FACT" in json.dumps(s.body["messages"])]
        citation_questions = len(server.seen) - len(nugget_questions)
        assert len(nugget_questions) >= 10 and citation_questions > 0
        whole_keys = {s.key for s in server.seen}
        server.seen.clear()
        out = tmp_path / "cut"
        env = {**os.environ, **server.env(api_key=SECRET), "PYTHONPATH": str(ROOT)}
        proc = subprocess.Popen(argv(out, "--use-env-llm"), cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)  # fmt: skip
        deadline = time.time() + 900  # a bound on the event, not its expected time
        while len(_cached_keys(out)) < citation_questions + len(nugget_questions) // 2 and time.time() < deadline:
            assert proc.poll() is None, "the run ended before it was killed"
            time.sleep(0.02)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        asked_before, answered = len(server.seen), _cached_keys(out)
        assert citation_questions < len(answered) < citation_questions + len(nugget_questions)
        assert not (out / "N.nuggets.jsonl").exists()
        config = tmp_path / "llm.yml"  # the key by --llm-config this time
        config.write_text(f"OPENAI_BASE_URL: {server.base_url}\nOPENAI_MODEL: scripted\nOPENAI_API_KEY: {SECRET}\n")
        resumed = run_cli(*argv(out, "--llm-config", config)[2:], env={"OPENAI_API_KEY": ""})
        assert resumed.returncode == 0, resumed.stderr
        first, asked = {s.key for s in server.seen[:asked_before]}, {s.key for s in server.seen[asked_before:]}
        assert len(asked) == len(_cached_keys(out) - answered)  # only what the cache lacked
        assert first | asked == whole_keys and len(first & asked) <= 1  # again: at most the one in flight
        assert {s.authorization for s in server.seen} == {f"Bearer {SECRET}"}
        exported = run_cli("attest", "export", out, "--name", "N", "--attest", "all", "--llm-config", config)
        assert exported.returncode == 0, exported.stderr
    for name in sorted(p.name for p in (tmp_path / "whole").iterdir()):
        # the log's times, the cache's hits, and the set's record of its files (the config's sha256 among them)
        if name.startswith("N.") and name not in ("N.jsonl", "N.config.yml", "N.sha256"):
            assert (out / name).read_bytes() == (tmp_path / "whole" / name).read_bytes(), name
    assert (out / "N.batch" / "manifest.json").exists()
    for result in (whole, resumed, exported):
        assert SECRET not in result.stdout + result.stderr
    for path in tmp_path.rglob("*"):
        if path.is_file() and path != config:
            assert SECRET.encode() not in path.read_bytes(), path


# -- shards of another nugget bank or nugget model --------------------------------------------------------
def test_shards_of_another_nugget_bank_or_model_do_not_merge(tmp_path):
    """Shards judged against different nugget banks (or nugget models) would merge into a set no
    process wrote: one line naming the part and the field, nothing written (the merge of shards of
    one session equalling one process: tests/session/test_shards.py)."""
    bank = tmp_path / "bank.jsonl"
    bank.write_bytes((MINI / "nuggets.jsonl").read_bytes())
    records = [json.loads(line) for line in bank.read_text().splitlines()]
    records[1]["nuggets"][0]["text"] += " (revised)"
    other_bank = tmp_path / "other-bank.jsonl"
    other_bank.write_text("".join(json.dumps(r) + "\n" for r in records))
    other_model = tmp_path / "other-model.json"
    other_model.write_bytes((ROOT / "judges" / "nuggets" / "models" / "rag24.json").read_bytes())
    parts = tmp_path / "parts"
    first = cli_in_process(*_argv("argue", parts, "--shard", "1/2", nuggets=bank)[2:])
    assert first.returncode == 0, first.stderr
    for what, extra, nuggets, field in (
        ("bank", [], other_bank, "fingerprint.inputs.nuggets.path"),
        ("model", ["--nugget-model", other_model], bank, "fingerprint.inputs.nugget_model"),
        ("rewritten", [], bank, "fingerprint.inputs.nuggets.sha256"),  # the same path, revised between shards
    ):
        if what == "rewritten":
            bank.write_bytes(other_bank.read_bytes())
        second = cli_in_process(*_argv("argue", tmp_path / what, "--shard", "2/2", *extra, nuggets=nuggets)[2:])
        assert second.returncode == 0, second.stderr
        part = tmp_path / what / "N.part-2-of-2.arrow"
        out = tmp_path / f"merged-{what}"
        merged = cli_in_process("merge", out, "--name", "N", parts / "N.part-1-of-2.arrow", part)
        lines = merged.stderr.strip().splitlines()
        assert merged.returncode == 2 and len(lines) == 1, merged.stderr
        assert lines[0].startswith(f"error: {part}: {field}: ") and "a part of another session" in lines[0], lines
        assert not out.exists() or not any(out.iterdir())


def test_a_bank_of_none_of_the_judged_topics_is_one_line_and_nothing_written(tmp_path):
    """Another track's bank (or topic ids written otherwise) judged every answer against no nugget:
    a leaderboard of zeros and a warning. A bank of more topics than the session's is fine."""
    records = [json.loads(line) for line in (MINI / "nuggets.jsonl").read_text().splitlines()]
    other = tmp_path / "other-track.jsonl"
    other.write_text("".join(json.dumps({**r, "qid": f"2025-{i}"}) + "\n" for i, r in enumerate(records)))
    out = tmp_path / "out"
    r = cli_in_process(*_argv("nugget", out, nuggets=other)[2:])
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 2 and len(lines) == 1, r.stderr
    assert lines[0].startswith(f"error: {other}: qid: no bank is of a topic the runs answer: its 2 topics (2025-0")
    assert "another track's nugget bank?" in lines[0] and (not out.exists() or not any(out.iterdir()))
    more = tmp_path / "more.jsonl"  # the session's topics and one more
    more.write_text((MINI / "nuggets.jsonl").read_text() + json.dumps({"qid": "2025-9", "nuggets": ["x"]}) + "\n")
    r = cli_in_process(*_argv("nugget", tmp_path / "more", nuggets=more)[2:])
    assert r.returncode == 0, r.stderr


def test_nugget_labels_given_to_a_session_without_nuggets_are_a_warning(tmp_path):
    """NIST's assignments given as --labels to a citation session were read and dropped without
    a word (config.yml: in_effect 0)."""
    labels = MINI / "nugget_assignment.jsonl"
    r = cli_in_process(*_argv("citation", tmp_path / "out", "--labels", labels)[2:])
    assert r.returncode == 0, r.stderr
    assert f"the 75 nugget labels in {labels} are not used: no nugget pair is judged" in r.stdout
