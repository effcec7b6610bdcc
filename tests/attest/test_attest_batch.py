"""Batch files for the LLM stage (issue 30 item 1): export -> answer -> import -> judge again.

The CLI runs as a subprocess throughout. The online path asks a loopback server
(tests/llm_servers.py's ScriptedServer) that answers as ``bench/standin_batch.py`` does; the
batch path answers the exported request files with the same stand-in's command line (in place of
``python -m vllm.entrypoints.openai.run_batch``, with the same ``-i`` / ``-o``). It is a
SIMULATED model: the tests check that the two paths give the same outputs, byte for byte.
"""

from __future__ import annotations

import errno
import json
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import ROOT, cli_in_process, needs_dspy, run_cli, shared
from llm_servers import Reply, ScriptedServer

from judges.attest.batch import split

sys.path.insert(0, str(ROOT / "bench"))
import standin_batch  # noqa: E402
from attest_batch import OUTPUTS, differing  # noqa: E402  (what must be byte-identical)

MINI = ROOT / "datasets" / "rag24-mini"
SECRET = "sk-batch-test-secret"
PRICES = {"price_per_1k_input": 0.01, "price_per_1k_output": 0.03}
# What differs, and must: who answered (the endpoint, or the cache) and what that cost.
CONFIG_DIFFERS = {"attest.calls", "attest.cache_hits", "attest.tokens_in", "attest.tokens_out", "attest.estimated_cost"}
LOG_DIFFERS = {"*.ts", "ATTEST_OUTPUT.source"} | {f"ATTEST_SUMMARY.{k.split('.')[1]}" for k in CONFIG_DIFFERS}


# -- the splitter ----------------------------------------------------------------------------
@settings(max_examples=300, deadline=None)
@given(
    sizes=st.lists(st.integers(1, 60), max_size=80),
    max_requests=st.integers(1, 12),
    extra=st.integers(0, 100),
)
def test_split_honours_the_limits_and_keeps_every_line_in_order(sizes, max_requests, extra):
    lines = [f"{i:03d}".encode().ljust(size, b"x")[:size] for i, size in enumerate(sizes)]
    max_bytes = max(sizes, default=1) + extra
    chunks = list(split(lines, max_requests, max_bytes))
    assert [line for chunk in chunks for line in chunk] == lines  # none lost, none twice, order kept
    for n, chunk in enumerate(chunks):
        assert chunk and len(chunk) <= max_requests and sum(map(len, chunk)) <= max_bytes
        if n + 1 < len(chunks):  # a file is as full as the limits allow: the next line did not fit
            nxt = chunks[n + 1][0]
            assert len(chunk) == max_requests or sum(map(len, chunk)) + len(nxt) > max_bytes


def test_a_request_longer_than_a_file_may_be_is_refused():
    with pytest.raises(ValueError, match="longer than a file may be"):
        list(split([b"ab", b"abcdef"], 10, 5))


# -- the round trip --------------------------------------------------------------------------
def standin(n: int, body: dict) -> Reply:
    return Reply(body=json.dumps(standin_batch.completion(body)).encode())


def judge(cwd: Path, data: tuple, server: ScriptedServer | None, *extra) -> subprocess.CompletedProcess:
    topics, runs, corpus, workflow = data
    args = ["--rag-topics", topics, "--rag-responses", runs, "--corpus", corpus, "--workflow", workflow]
    args += ["--out-dir", "out", "--name", "r", *extra]
    if server is not None:
        args += ["--attest", "uncertain", "--use-env-llm"]
    result = run_cli(*args, cwd=cwd, env=server.env(api_key=SECRET) if server else None)
    assert result.returncode == 0, result.stderr
    return result


def answer(batch_dir: Path) -> list[Path]:
    """The stand-in answers every request file, as `vllm run_batch -i ... -o ...` would."""
    out = []
    for requests in sorted(batch_dir.glob("requests-*.jsonl")):
        target = batch_dir.parent / requests.name.replace("requests", "answers")
        cmd = [sys.executable, str(ROOT / "bench" / "standin_batch.py"), "-i", str(requests), "-o", str(target)]
        subprocess.run(cmd, check=True, capture_output=True, timeout=300)
        out.append(target)
    return out


def log_events(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def round_trip(tmp_path: Path, topics: Path, runs: Path, corpus: Path, *export_options: str) -> dict:
    """Online against the stand-in server vs judge without LLM -> export -> stand-in batch
    answerer -> import -> judge again (the same server, which must see no request)."""
    needs_dspy()
    workflow = tmp_path / "workflow.yml"
    workflow.write_text(yaml.safe_dump({"attest": PRICES}))
    data = (topics, runs, corpus, workflow)
    online, batch = tmp_path / "online", tmp_path / "batch"
    online.mkdir()
    batch.mkdir()
    with ScriptedServer(standin) as server:
        judge(online, data, server)
        asked_online = len(server.seen)
        judge(batch, data, None)  # without the LLM (attest.mode none): seconds
        exported = run_cli("attest", "export", "out", "--name", "r", "--attest", "uncertain", "--use-env-llm",
                           *export_options, cwd=batch, env=server.env(api_key=SECRET))  # fmt: skip
        assert exported.returncode == 0, exported.stderr
        assert len(server.seen) == asked_online  # exporting asks nothing
        batch_dir = batch / "out" / "r.batch"
        files = answer(batch_dir)
        imported = run_cli("attest", "import", "out", "--name", "r", *files, cwd=batch)
        assert imported.returncode == 0, imported.stdout + imported.stderr
        judge(batch, data, server)
        assert len(server.seen) == asked_online  # every answer came from the cache: no call

    a, b = online / "out", batch / "out"
    for suffix in OUTPUTS:
        assert (a / f"r.{suffix}").read_bytes() == (b / f"r.{suffix}").read_bytes(), suffix
    config_a, config_b = (yaml.safe_load((d / "r.config.yml").read_text()) for d in (a, b))
    assert differing(config_a, config_b) == CONFIG_DIFFERS
    assert config_a["attest"]["calls"] == asked_online and config_b["attest"]["calls"] == 0
    assert config_b["attest"]["cache_hits"] == config_a["attest"]["selected"] > 0
    log_a, log_b = log_events(a / "r.jsonl"), log_events(b / "r.jsonl")
    assert [e["event"] for e in log_a] == [e["event"] for e in log_b]
    differs = set()
    for x, y in zip(log_a, log_b):
        differs |= {f"*.{k}" if k == "ts" else f"{x['event']}.{k}" for k in differing(x, y)}
    assert differs == LOG_DIFFERS
    assert {e["source"] for e in log_b if e["event"] == "ATTEST_OUTPUT"} == {"cache"}
    assert "llm" in {e["source"] for e in log_a if e["event"] == "ATTEST_OUTPUT"}

    # One request per distinct question; the online run asked each of them once too.
    lines = [json.loads(line) for f in sorted(batch_dir.glob("requests-*.jsonl")) for line in f.open()]
    ids = [line["custom_id"] for line in lines]
    asked = [e["prompt_key"] for e in log_a if e["event"] == "ATTEST_INPUT"]
    assert len(ids) == len(set(ids)) == len(set(asked)) == asked_online
    assert {(line["method"], line["url"]) for line in lines} == {("POST", "/v1/chat/completions")}
    assert sorted(json.dumps(s.body, sort_keys=True) for s in server.seen) == sorted(
        json.dumps(line["body"], sort_keys=True) for line in lines
    )  # exactly the bodies the online client posted
    manifest = json.loads((batch_dir / "manifest.json").read_text())
    assert set(manifest["questions"]) == set(ids) and manifest["model"] == "scripted"
    for path in batch_dir.iterdir():
        assert SECRET not in path.read_text()
    tokens_in, tokens_out = config_a["attest"]["tokens_in"], config_a["attest"]["tokens_out"]
    cost = (tokens_in / 1000 * PRICES["price_per_1k_input"] + tokens_out / 1000 * PRICES["price_per_1k_output"]) / 2
    assert f"requests (answer lines): {len(ids):,} in {len(files)} file(s); distinct questions: {len(ids):,}" in (
        imported.stdout
    )
    assert f"tokens: {tokens_in:,} in, {tokens_out:,} out; estimated cost {cost:.4f}" in imported.stdout
    return {"requests": len(ids), "asked": len(asked), "files": len(files), "export": exported.stdout}


def test_batch_round_trip_equals_the_online_run_on_the_bundled_sample(tmp_path):
    done = round_trip(tmp_path, MINI / "topics.jsonl", MINI / "runs", MINI / "segments.jsonl", "--max-requests", "7")
    assert done["files"] == -(-done["requests"] // 7) > 1  # split at --max-requests


@pytest.mark.shared
@pytest.mark.slow
def test_batch_round_trip_equals_the_online_run_on_rag24_support(tmp_path):
    d = shared("rag24-support")
    done = round_trip(tmp_path, d / "topics.jsonl", d / "runs", d / "segments.jsonl")
    assert done["asked"] > done["requests"]  # the same question in several runs: one request
    assert "587 to ask, 599 distinct: 599 requests" in done["export"]  # 561 planned + 38 check questions
    assert "check questions (pairs the judge is sure of, to measure the LLM): 38" in done["export"]


def test_the_guides_batch_recipe_runs_as_written_and_its_last_step_makes_no_call(tmp_path):
    """The LLM guide's "Batch files": steps 1 to 5 as written, on the bundled sample, with the stand-in in
    place of `python -m vllm.entrypoints.openai.run_batch` (same -i, -o, --model)."""
    needs_dspy()
    readme = (ROOT / "docs" / "guides" / "llm.md").read_text()
    block = readme.split("## Batch files")[1].split("```bash\n")[1].split("```")[0]
    steps = [line for line in block.splitlines() if line and not line.startswith("#")]
    assert len(steps) == 5 and "python -m vllm.entrypoints.openai.run_batch -i " in steps[2]
    with ScriptedServer(lambda n, body: Reply(status=500)) as server:
        for step in steps:
            step = re.sub(r"\bMODEL\b", "scripted", step)
            for word, value in (
                ("TOPICS", MINI / "topics.jsonl"),
                ("RUNS/", f"{MINI / 'runs'}/"),
                ("CORPUS", MINI / "segments.jsonl"),
                ("OPENAI_BASE_URL=...", f"OPENAI_BASE_URL={server.base_url}"),
                ("python run_judge.py", f"{sys.executable} {ROOT / 'run_judge.py'}"),
                (
                    "python -m vllm.entrypoints.openai.run_batch",
                    f"{sys.executable} {ROOT / 'bench' / 'standin_batch.py'}",
                ),
            ):
                step = step.replace(word, str(value))
            done = subprocess.run(["bash", "-c", step], cwd=tmp_path, capture_output=True, text=True, timeout=600)
            assert done.returncode == 0, step + "\n" + done.stderr
        assert server.seen == []  # exporting, importing and judging again asked nothing
    attest = yaml.safe_load((tmp_path / "out" / "track.config.yml").read_text())["attest"]
    assert attest["calls"] == 0 and attest["failed"] == 0 and attest["cache_hits"] == attest["selected"] > 0


# -- bad answer files ------------------------------------------------------------------------
@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> Path:
    """The bundled sample judged without the LLM and its questions exported (model m)."""
    needs_dspy()
    cwd = tmp_path_factory.mktemp("exported")
    args = ["--rag-topics", MINI / "topics.jsonl", "--rag-responses", MINI / "runs", "--corpus"]
    result = run_cli(*args, MINI / "segments.jsonl", "--out-dir", cwd / "out", "--name", "r")
    assert result.returncode == 0, result.stderr
    result = run_cli("attest", "export", cwd / "out", "--name", "r", "--attest", "uncertain", "--model", "m")
    assert result.returncode == 0, result.stderr
    return cwd / "out"


def cached_keys(out: Path) -> set[str]:
    path = out / "attest-cache.sqlite3"
    if not path.exists():
        return set()
    with sqlite3.connect(path) as db:
        return {k for (k,) in db.execute("SELECT key FROM answers")}


def test_a_truncated_or_foreign_answers_file_is_reported_line_by_line_and_nothing_wrong_is_applied(exported, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    for f in ("r.config.yml",):
        (out / f).write_bytes((exported / f).read_bytes())
    (out / "r.batch").mkdir()
    for f in (exported / "r.batch").iterdir():
        (out / "r.batch" / f.name).write_bytes(f.read_bytes())
    requests = [json.loads(line) for line in (out / "r.batch" / "requests-0001.jsonl").open()]
    good = [standin_batch.output_line(n, r) for n, r in enumerate(requests[:4], start=1)]
    cut = json.dumps(standin_batch.output_line(5, requests[4]))
    truncated = tmp_path / "truncated.jsonl"
    truncated.write_text("".join(json.dumps(g) + "\n" for g in good[:2]) + cut[: len(cut) // 2])
    foreign_line = dict(good[2], custom_id="f" * 64)
    failed = dict(good[3], response={"status_code": 500, "request_id": "x", "body": None})
    refused = dict(standin_batch.output_line(6, requests[5]), response=None, error={"code": "x", "message": "refused"})
    empty = dict(standin_batch.output_line(7, requests[6]))
    empty["response"] = dict(empty["response"], body={"choices": []})
    foreign = tmp_path / "foreign.jsonl"
    foreign.write_text("".join(json.dumps(x) + "\n" for x in (foreign_line, failed, refused, empty, good[0])))

    result = run_cli("attest", "import", out, "--name", "r", truncated, foreign)
    assert result.returncode == 1
    check = set(json.loads((out / "r.batch" / "manifest.json").read_text())["check"])  # the check sample's
    applied = {g["custom_id"] for g in good[:2]}
    assert check and check <= {r["custom_id"] for r in requests}
    assert result.stderr.splitlines() == [
        f"{truncated}:3: malformed JSON: Unterminated string starting at (cut short?)",
        f"{foreign}:1: unknown custom_id: ffffffffffffffff... is not a question of {out}/r.batch/manifest.json",
        f"{foreign}:2: http 500: the request failed",
        f"{foreign}:3: error: x: refused",
        f"{foreign}:4: malformed response: the body is not a chat completion with text",
        f"{foreign}:5: duplicate custom_id: answered before at {truncated}:1",
        f"warning: {len(requests) - 2} of the export's {len(requests)} questions have no answer in the cache: the next "
        "judge run asks them online (or export again)",
        f"warning: {len(check - applied)} of the {len(check)} check questions (pairs the judge is sure of, asked to "
        "measure the LLM) have no answer: until they do, the LLM is unchecked and the judge does not use its answers "
        "(attest.check_use: always uses them all the same)",
    ], result.stderr
    assert "applied: 2 new answers to the cache" in result.stdout
    assert "rejected: 6 (1 duplicate custom_id, 1 error, 1 http 500, 1 malformed JSON, 1 malformed response, " in (
        result.stdout
    )
    assert cached_keys(out) == {g["custom_id"] for g in good[:2]}  # nothing wrong applied

    # The same answers again are no news; a damaged manifest or a missing file is one error line.
    again = cli_in_process("attest", "import", out, "--name", "r", truncated)
    assert "applied: 0 new answers to the cache; 2 already in the cache (not stored again)" in again.stdout
    gone = cli_in_process("attest", "import", out, "--name", "r", tmp_path / "nope.jsonl")
    assert gone.returncode == 2 and gone.stderr.startswith(f"error: {tmp_path}/nope.jsonl: cannot read answers")
    (out / "r.batch" / "manifest.json").write_text("{}")
    damaged = cli_in_process("attest", "import", out, "--name", "r", truncated)
    assert damaged.returncode == 2 and "manifest.json: format: not an export manifest" in damaged.stderr


def _import_case(exported: Path, tmp_path: Path) -> tuple[Path, Path]:
    """A copy of the exported set, and an answers file of its first five questions."""
    out = tmp_path / "out"
    out.mkdir()
    (out / "r.config.yml").write_bytes((exported / "r.config.yml").read_bytes())
    shutil.copytree(exported / "r.batch", out / "r.batch")
    requests = [json.loads(line) for line in (out / "r.batch" / "requests-0001.jsonl").open()]
    answers = tmp_path / "answers.jsonl"
    answers.write_text("".join(json.dumps(standin_batch.output_line(n, r)) + "\n" for n, r in enumerate(requests[:5])))
    return out, answers


@pytest.mark.parametrize(
    "error",
    [OSError(errno.ENOSPC, "No space left on device"), sqlite3.OperationalError("database or disk is full")],
    ids=["ENOSPC", "sqlite-full"],
)
def test_a_full_disk_during_import_is_one_line_and_stores_nothing(exported, tmp_path, monkeypatch, error):
    from judges.attest.cache import AnswerCache

    out, answers = _import_case(exported, tmp_path)
    put, calls = AnswerCache.put, []

    def full(self, *args):
        calls.append(1)
        if len(calls) == 3:
            raise error
        return put(self, *args)

    monkeypatch.setattr(AnswerCache, "put", full)
    result = cli_in_process("attest", "import", out, "--name", "r", answers)
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 2 and len(lines) == 1, result.stderr
    assert lines[0].startswith("error: ") and lines[0].endswith("; no answer stored (the cache is as it was)"), lines
    assert str(error) in lines[0] or error.strerror in lines[0]
    assert cached_keys(out) == set()  # all or nothing: the two answers before the failure are not kept either


def test_sigterm_during_import_is_one_line_and_stores_nothing(exported, tmp_path):
    from helpers import ended, paused

    out, answers = _import_case(exported, tmp_path)
    patch = (
        "from judges.attest.cache import AnswerCache\n"
        "put, calls = AnswerCache.put, []\n"
        "def paused_put(self, *a):\n"
        "    calls.append(1)\n"
        "    if len(calls) == 3:\n"
        "        pause()\n"
        "    return put(self, *a)\n"
        "AnswerCache.put = paused_put\n"
    )
    proc, _ = paused(tmp_path, patch, "attest", "import", out, "--name", "r", answers)
    proc.send_signal(signal.SIGTERM)
    code, lines = ended(proc)
    assert code == 143 and lines == ["interrupted"], (code, lines)
    assert cached_keys(out) == set()


def test_export_refuses_a_set_without_a_mode_or_model_and_a_changed_input(exported, tmp_path):
    none = cli_in_process("attest", "export", exported, "--name", "r", "--model", "m")
    assert none.returncode == 2 and "--attest: 'none': give uncertain or all" in none.stderr
    no_model = cli_in_process("attest", "export", exported, "--name", "r", "--attest", "all")
    assert no_model.returncode == 2 and "the set records no model" in no_model.stderr
    missing = cli_in_process("attest", "export", tmp_path, "--name", "r", "--attest", "all", "--model", "m")
    assert missing.returncode == 2 and f"{tmp_path}/r.config.yml: no such file: judge first" in missing.stderr
    config = yaml.safe_load((exported / "r.config.yml").read_text())
    config["inputs"]["topics"][0]["sha256"] = "0" * 64
    (tmp_path / "r.config.yml").write_text(yaml.safe_dump(config))
    changed = cli_in_process("attest", "export", tmp_path, "--name", "r", "--attest", "all", "--model", "m")
    assert changed.returncode == 2 and "topics.jsonl: changed since" in changed.stderr
    assert not (tmp_path / "r.batch").exists()


def test_a_second_export_never_disowns_the_first_exports_answers(tmp_path):
    """Issue 42 item 3: export, import part of the answers, export again (for the rest), then
    import the first export's whole answer file (what its Batch job returns): every line was
    once rejected as an unknown custom_id, exit 1."""
    needs_dspy()
    out = tmp_path / "out"
    args = ["--rag-topics", MINI / "topics.jsonl", "--rag-responses", MINI / "runs", "--corpus"]
    result = run_cli(*args, MINI / "segments.jsonl", "--out-dir", out, "--name", "r")
    assert result.returncode == 0, result.stderr
    export = ("attest", "export", out, "--name", "r", "--attest", "uncertain", "--model", "m")
    result = run_cli(*export)
    assert result.returncode == 0, result.stderr
    batch_dir = out / "r.batch"
    first_manifest = (batch_dir / "manifest.json").read_bytes()
    (first,) = answer(batch_dir)  # the first export's Batch job: every question answered
    lines = first.read_text().splitlines()
    assert len(lines) > 4
    part = tmp_path / "part.jsonl"
    part.write_text("".join(line + "\n" for line in lines[:3]))
    result = run_cli("attest", "import", out, "--name", "r", part)
    assert result.returncode == 0, result.stdout + result.stderr

    result = run_cli(*export)  # the README's way to get the rest
    assert result.returncode == 0, result.stderr
    rest = [json.loads(line)["custom_id"] for line in (batch_dir / "requests-0001.jsonl").open()]
    assert len(rest) == len(lines) - 3
    result = run_cli("attest", "import", out, "--name", "r", first)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stderr == ""
    assert f"applied: {len(lines) - 3} new answers to the cache; 3 already in the cache (not stored again)" in (
        result.stdout
    )
    assert "rejected: 0 (none)" in result.stdout
    assert cached_keys(out) == {json.loads(line)["custom_id"] for line in lines}
    assert (batch_dir / "manifest-1.json").read_bytes() == first_manifest  # the first export's, kept

    foreign = tmp_path / "foreign.jsonl"
    foreign.write_text(json.dumps(dict(json.loads(lines[0]), custom_id="f" * 64)) + "\n")
    result = run_cli("attest", "import", out, "--name", "r", foreign)
    assert result.returncode == 1
    assert f"is not a question of {batch_dir}/manifest.json or the 1 earlier export(s) beside it" in result.stderr


def test_answers_of_unreadable_logprob_content_or_token_counts_are_each_reported_and_rejected(exported, tmp_path):
    out, answers = _import_case(exported, tmp_path)
    lines = [json.loads(raw) for raw in answers.read_text().splitlines()]

    def body(n):
        return lines[n]["response"]["body"]

    body(1)["choices"][0]["logprobs"]["content"][0]["logprob"] = "x"
    body(2)["choices"][0]["message"]["content"] = None
    body(3)["usage"]["prompt_tokens"] = -5
    body(4)["usage"]["completion_tokens"] = "1"
    answers.write_text("".join(json.dumps(line) + "\n" for line in lines))
    result = cli_in_process("attest", "import", out, "--name", "r", answers)
    assert result.returncode == 1, result.stderr
    field = "response.body.choices[0].logprobs.content[0].logprob"
    for expected in (
        f'{answers}:2: malformed response: {field}: "x" is not a log-probability (not a number)',
        f"{answers}:3: malformed response: response.body.choices[0].message.content: null, not text",
        f"{answers}:4: malformed response: response.body.usage.prompt_tokens: -5 is not a token count",
        f'{answers}:5: malformed response: response.body.usage.completion_tokens: "1" is not a token count',
    ):
        assert expected in result.stderr, result.stderr
    assert "rejected: 4 (4 malformed response)" in result.stdout
    assert "applied: 1 new answers" in result.stdout
    assert len(cached_keys(out)) == 1


def test_an_empty_answers_file_or_top_logprobs_of_no_objects_are_reported(exported, tmp_path):
    out, answers = _import_case(exported, tmp_path)
    lines = [json.loads(raw) for raw in answers.read_text().splitlines()]
    lines[1]["response"]["body"]["choices"][0]["logprobs"]["content"][0]["top_logprobs"] = [1, 2]
    answers.write_text("".join(json.dumps(line) + "\n" for line in lines))
    result = cli_in_process("attest", "import", out, "--name", "r", answers)
    assert result.returncode == 1, result.stderr
    field = "response.body.choices[0].logprobs.content[0].top_logprobs[0]"
    assert f"{answers}:2: malformed response: {field}: 1 is not an object {{token, logprob}}" in result.stderr
    assert "rejected: 1 (1 malformed response)" in result.stdout
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n \n")
    result = cli_in_process("attest", "import", out, "--name", "r", empty)
    assert result.returncode == 2
    assert result.stderr == f"error: {empty}: no answer lines (the file is empty or holds only blank lines)\n"
