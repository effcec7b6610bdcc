"""A nugget bank made by an LLM the way nuggetizer makes one (``create-nuggets --from llm``), end to end
against a loopback stand-in (tests/llm_servers.ScriptedServer) that answers in nuggetizer's reply
format: the topic's NIST nuggets, reworded, as a Python list; then vital/okay labels. The bank is
the stand-in's, its source ``llm:MODEL``; a second run asks nothing (the answer cache); replay-only
with an empty cache stops in one line naming the question; the nugget judge judges with the bank."""

from __future__ import annotations

import json
import re

import yaml
from helpers import ROOT, cli_in_process, run_cli
from llm_servers import Reply, ScriptedServer

from judges.attest.nuggetize import CREATE_SYSTEM, SCORE_SYSTEM
from judges.formats.nuggets import read_nuggets, source_of

MINI = ROOT / "datasets" / "rag24-nuggets-mini"
TOPICS = {
    json.loads(line)["title"]: json.loads(line)["id"] for line in (MINI / "topics.jsonl").read_text().splitlines()
}
NIST = read_nuggets(MINI / "nuggets.jsonl").banks


def reworded(text: str) -> str:
    return f"It is said that {text[0].lower()}{text[1:]}"


def nuggetizer_standin(n: int, body: dict) -> Reply:
    """Creation: the topic's NIST nuggets reworded (all of them, whatever the window); scoring: vital
    for every other nugget, as a Python list."""
    system, user = body["messages"][0]["content"], body["messages"][-1]["content"]
    if system == CREATE_SYSTEM:
        query = re.search(r"^Query: (.*)$", user, re.MULTILINE).group(1)
        return Reply(content=repr([reworded(x.text) for x in NIST[TOPICS[query]].nuggets]))
    assert system == SCORE_SYSTEM
    count = int(re.search(r"each of these (\d+) nuggets", user).group(1))
    return Reply(content=repr(["vital" if i % 2 == 0 else "okay" for i in range(count)]))


def _create(out, cache, *extra, env=None):
    args = ["create-nuggets", "--from", "llm", "--rag-responses", MINI / "runs", "--rag-topics", MINI / "topics.jsonl"]
    args += ["--corpus", MINI / "segments.jsonl", "--cache-dir", cache, "--output", out, *extra]
    return run_cli(*args, env=env)


def test_an_llm_bank_end_to_end_through_the_cache(tmp_path):
    cache, bank = tmp_path / "cache", tmp_path / "bank.jsonl"
    with ScriptedServer(nuggetizer_standin) as server:
        done = _create(bank, cache, "--use-env-llm", env=server.env())
        assert done.returncode == 0, done.stderr
        asked = len(server.seen)
        made = read_nuggets(bank)
        assert source_of(made) == "llm:scripted" and sorted(made.banks) == sorted(NIST)
        for qid, b in made.banks.items():
            assert [n.text for n in b.nuggets] == [reworded(x.text) for x in NIST[qid].nuggets][:30]
            assert [n.importance for n in b.nuggets] == [
                "vital" if i % 2 == 0 else "okay" for i in range(len(b.nuggets))
            ]
        first = bank.read_bytes()
        again = _create(bank, cache, "--use-env-llm", env=server.env())
        assert again.returncode == 0 and len(server.seen) == asked  # every answer from the cache
        assert bank.read_bytes() == first
    assert asked >= 2 * len(NIST)  # at least one creation and one scoring question a topic
    replayed = _create(tmp_path / "replayed.jsonl", cache, "--use-env-llm", "--replay-only", env=server.env())
    assert replayed.returncode == 0 and (tmp_path / "replayed.jsonl").read_bytes() == first
    empty = cli_in_process(
        "create-nuggets",
        "--from",
        "llm",
        "--rag-responses",
        MINI / "runs",
        "--rag-topics",
        MINI / "topics.jsonl",
        "--corpus",
        MINI / "segments.jsonl",
        "--cache-dir",
        tmp_path / "empty",
        "--output",
        tmp_path / "x.jsonl",
        "--use-env-llm",
        "--replay-only",
        env=server.env(),
    )
    lines = empty.stderr.strip().splitlines()
    assert empty.returncode == 2 and len(lines) == 1, empty.stderr
    assert "replay_only: no cached answer to the question" in lines[0] and not (tmp_path / "x.jsonl").exists()
    out = tmp_path / "judged"
    judged = cli_in_process(
        "--judge",
        "nugget",
        "--rag-topics",
        MINI / "topics.jsonl",
        "--rag-responses",
        MINI / "runs",
        "--nuggets",
        bank,
        "--backend",
        "python",
        "--out-dir",
        out,
        "--name",
        "N",
    )
    assert judged.returncode == 0, judged.stderr
    assert yaml.safe_load((out / "N.config.yml").read_text())["nugget_bank"]["source"] == "llm:scripted"


def run_batch(directory, output):
    """A Batch API job done by the stand-in: every request file's lines answered, in Batch output format."""
    from llm_servers import completion

    lines = []
    for path in sorted(directory.glob("requests-*.jsonl")):
        for line in path.read_text().splitlines():
            request = json.loads(line)
            content = nuggetizer_standin(0, request["body"]).content
            body = json.loads(completion(content))
            response = {"status_code": 200, "request_id": "r", "body": body}
            lines.append({"id": "b", "custom_id": request["custom_id"], "response": response, "error": None})
    output.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return len(lines)


def test_an_llm_bank_through_batch_files_equals_the_online_one(tmp_path):
    """Export, run, import, again: each round goes one question further for every topic; the bank
    written at the end is byte for byte the online one, and no server is ever asked."""
    with ScriptedServer(nuggetizer_standin) as server:
        online = tmp_path / "online.jsonl"
        assert _create(online, tmp_path / "online-cache", "--use-env-llm", env=server.env()).returncode == 0
        env = server.env()
    bank, cache, batch = tmp_path / "bank.jsonl", tmp_path / "cache", tmp_path / "batch"
    outputs: list = []
    for round_ in range(1, 8):
        extra = [x for o in outputs for x in ("--batch-output", o)]
        done = _create(bank, cache, "--use-env-llm", "--batch-dir", batch, *extra, env=env)
        assert done.returncode == 0, done.stderr
        if bank.exists():
            break
        assert "no bank written yet" in done.stdout
        output = tmp_path / f"output-{round_}.jsonl"
        assert run_batch(batch, output) == len(NIST)  # one question a topic a round
        outputs = [output]
    assert bank.read_bytes() == online.read_bytes() and round_ >= 3  # at least create, score, write


def test_the_cost_cap_and_the_degenerate_guard_write_no_bank(tmp_path):
    """attest.max_cost stops the questions before their estimated cost passes it; an LLM that gives every
    topic no nugget is degenerate; each is one error line and no bank, unless told to use it."""
    workflow = tmp_path / "wf.yml"
    workflow.write_text(yaml.safe_dump({"attest": {"max_cost": 0.001, "price_per_1k_input": 1.0}}))
    with ScriptedServer(nuggetizer_standin) as server:
        capped = _create(
            tmp_path / "capped.jsonl", tmp_path / "c1", "--use-env-llm", "--workflow", workflow, env=server.env()
        )
        assert len(server.seen) == 0  # the first question alone would pass the cap
    lines = capped.stderr.strip().splitlines()
    assert capped.returncode == 2 and len(lines) == 1 and "attest.max_cost" in lines[0], capped.stderr
    assert not (tmp_path / "capped.jsonl").exists()
    with ScriptedServer(lambda n, body: Reply(content="[]")) as server:
        empty = _create(tmp_path / "empty.jsonl", tmp_path / "c2", "--use-env-llm", env=server.env())
        lines = empty.stderr.strip().splitlines()
        assert empty.returncode == 2 and len(lines) == 1 and "degenerate: no nugget for any of 2 topics" in lines[0]
        assert not (tmp_path / "empty.jsonl").exists()
        used = _create(
            tmp_path / "empty.jsonl", tmp_path / "c2", "--use-env-llm", "--use-degenerate-llm", env=server.env()
        )
        assert used.returncode == 0, used.stderr
