"""Nugget pairs through the citation judge's attestation cascade, as processes against a real
loopback server (tests/llm_servers.ScriptedServer): every pair asked once, answers decide the
assignment, the cache never asks twice, the plan asks a budget, a degenerate LLM is not used
(an error with --strict-llm). One shared set of sessions (module fixture) for many assertions."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest
import yaml
from conftest import ROOT, needs_dspy, run_cli
from llm_servers import Reply, ScriptedServer

import judges

MINI = ROOT / "datasets" / "rag24-nuggets-mini"
LEVEL = {"FULL": "support", "PARTIAL": "partial_support", "NONE": "not_support"}


def by_hash(n: int, body: dict) -> Reply:
    """A deterministic model: a level from the question's hash."""
    digest = hashlib.sha256(json.dumps(body["messages"], sort_keys=True).encode()).digest()
    return Reply(content=("FULL", "PARTIAL", "NONE")[digest[0] % 3])


def judge(out: Path, server: ScriptedServer, cache: Path, *extra, workflow: dict | None = None, model="scripted"):
    args = ["--judge", "nugget", "--rag-topics", MINI / "topics.jsonl", "--rag-responses", MINI / "runs"]
    args += ["--nuggets", MINI / "nuggets.jsonl", "--out-dir", out, "--name", "N", "--use-env-llm"]
    args += ["--cache-dir", cache, *extra]
    if workflow is not None:
        path = out.parent / f"{out.name}.workflow.yml"
        path.write_text(yaml.safe_dump({"attest": workflow}))
        args += ["--workflow", path]
    return run_cli(*args, env=server.env(model=model))


@pytest.fixture(scope="module")
def sessions(tmp_path_factory):
    """``all`` twice (the second from the cache), then ``uncertain`` with the plan: one server."""
    needs_dspy()
    root = tmp_path_factory.mktemp("nugget-attest")
    cache = root / "cache"
    found = {}
    with ScriptedServer(by_hash) as server:
        for name, extra in (("first", ["--attest", "all"]), ("again", ["--attest", "all"])):
            r = judge(root / name, server, cache, *extra)
            assert r.returncode == 0, r.stderr
            found[name] = (root / name, r, len(server.seen))
        r = judge(
            root / "planned", server, cache, "--attest", "uncertain", workflow={"mode": "uncertain", "budget": 0.25}
        )
        assert r.returncode == 0, r.stderr
        found["planned"] = (root / "planned", r, len(server.seen))
        # the same plan under a cost cap of half what its questions are estimated to cost
        from judges.attest.kinds import NUGGET
        from judges.attest.plan import question_costs
        from judges.core.config import AttestSettings

        table = judges.read_nuggets(root / "planned", "N")
        prices = {"price_per_1k_input": 0.0025, "price_per_1k_output": 0.01}
        cost = question_costs(AttestSettings(**prices), NUGGET.question("yes_no"))
        cap = 0.5 * sum(cost(text) for text in table[table.llm_answer.notna()].nugget)
        workflow = {"mode": "uncertain", "budget": 0.25, "max_cost": cap, **prices}
        r = judge(root / "capped", server, cache, "--attest", "uncertain", workflow=workflow)
        assert r.returncode == 0, r.stderr
        found["capped"] = (root / "capped", r, cap)
        found["prompts"] = [s.body["messages"][-1]["content"] for s in server.seen]
    return found


def test_every_nugget_pair_is_asked_once_and_the_answer_decides_its_assignment(sessions):
    out, result, asked = sessions["first"]
    table = judges.read_nuggets(out, "N")
    assert asked == len(table) == 75  # 6 answers x their topics' nuggets, one question each
    assert table.llm_answer.notna().all()
    assert (table.assignment == table.llm_answer.map(LEVEL)).all()
    assert "LLM nugget questions     75 selected, 75 calls, 0 cache hits" in result.stdout
    assert all("[[ ## fact ## ]]" in p and "[[ ## response ## ]]" in p for p in sessions["prompts"])
    figures = yaml.safe_load((out / "N.config.yml").read_text())["attest"]["nuggets"]
    assert figures["selected"] == figures["calls"] == 75 and figures["degenerate"] is None
    events = [json.loads(line) for line in (out / "N.jsonl").read_text().splitlines()]
    inputs = [e for e in events if e["event"] == "ATTEST_INPUT"]
    assert len(inputs) == 75 and {e["kind"] for e in inputs} == {"nugget"}
    outputs = {(e["run_id"], e["topic_id"], e["nugget_index"]): e for e in events if e["event"] == "ATTEST_OUTPUT"}
    for row in table.itertuples():
        e = outputs[(row.run_id, row.topic_id, row.nugget_index)]
        assert e["status"] == row.assignment and e["answer"] == row.llm_answer and e["source"] == "llm"


def test_the_answers_move_the_measures_toward_the_answered_level(sessions):
    """The probabilities are the model's updated by the answer (Bayes' rule, attest.answer_error
    0.1): the answered level is more likely than the nugget model alone said (the planned
    session's pairs it did not send keep the model's), and the leaderboard is their measures."""
    out, _, _ = sessions["first"]
    table = judges.read_nuggets(out, "N")
    model = judges.read_nuggets(sessions["planned"][0], "N")
    keys = ["run_id", "topic_id", "nugget_index"]
    both = table.merge(model[model.llm_answer.isna()], on=keys, suffixes=("", "_model"))
    assert len(both) > 40
    column = {"FULL": "p_support", "PARTIAL": "p_partial", "NONE": "p_not"}
    for row in both.itertuples():
        level = column[row.llm_answer]
        assert getattr(row, level) >= getattr(row, level + "_model") - 1e-12
    assert (both.p_support != both.p_support_model).sum() > 40
    assert table.explanation.str.contains("the LLM answered").all()
    rows = [line.split("\t") for line in (out / "N.leaderboard.txt").read_text().splitlines()]
    values = {(r, t, m): float(v) for r, t, m, v in rows}
    for (run, topic), g in table.groupby(["run_id", "topic_id"]):
        expected = (g.p_support + 0.5 * g.p_partial).mean()
        assert values[(run, topic, "NUGGET_ALL")] == pytest.approx(expected, abs=1e-4)


def test_a_second_session_asks_nothing_it_asked_before(sessions):
    _, first, asked_first = sessions["first"]
    out, again, asked_again = sessions["again"]
    assert asked_again == asked_first  # the server saw no new question
    assert "LLM nugget questions     75 selected, 0 calls, 75 cache hits" in again.stdout
    a, b = judges.read_nuggets(sessions["first"][0], "N"), judges.read_nuggets(out, "N")
    assert a.equals(b)
    assert (sessions["first"][0] / "N.nuggets.jsonl").read_bytes() == (out / "N.nuggets.jsonl").read_bytes()


def test_uncertain_asks_the_plans_share_of_the_nugget_pairs(sessions):
    out, result, asked = sessions["planned"]
    table = judges.read_nuggets(out, "N")
    sent = table[table.llm_answer.notna()]
    assert len(sent) == round(0.25 * len(table))  # attest.budget of the judgeable pairs
    assert asked == sessions["again"][2]  # all of them answered before, from the cache
    events = [json.loads(line) for line in (out / "N.jsonl").read_text().splitlines()]
    (plan,) = [e for e in events if e["event"] == "PLAN" and e.get("kind") == "nugget"]
    assert plan["chosen"] == len(sent) and plan["candidates"] == len(table)
    assert "19 selected, 0 calls, 19 cache hits" in result.stdout


def test_the_nugget_plan_stops_at_max_cost(sessions):
    out, _, cap = sessions["capped"]
    planned = judges.read_nuggets(sessions["planned"][0], "N")
    table = judges.read_nuggets(out, "N")
    sent = table[table.llm_answer.notna()]
    assert 0 < len(sent) < planned.llm_answer.notna().sum()  # cut short, not the budget's 19
    events = [json.loads(line) for line in (out / "N.jsonl").read_text().splitlines()]
    (plan,) = [e for e in events if e["event"] == "PLAN" and e.get("kind") == "nugget"]
    assert plan["chosen"] == len(sent) and 0 < plan["estimated_cost"] <= cap
    key = ["run_id", "topic_id", "nugget_index"]
    first = set(map(tuple, planned[planned.llm_answer.notna()][key].values.tolist()))
    assert set(map(tuple, sent[key].values.tolist())) <= first  # the plan's first pairs, by expected gain


def test_a_degenerate_llm_is_not_used_and_is_an_error_with_strict_llm(tmp_path):
    needs_dspy()
    cache = tmp_path / "cache"
    with ScriptedServer(lambda n, body: Reply(content="FULL")) as server:
        r = judge(tmp_path / "kept", server, cache, "--attest", "all", model="always-full")
        assert r.returncode == 0, r.stderr
        table = judges.read_nuggets(tmp_path / "kept", "N")
        assert table.llm_answer.isna().all()  # the nugget model's judgments stand
        assert "answered FULL to all 75 questions" in r.stdout + r.stderr
        strict = judge(tmp_path / "strict", server, cache, "--attest", "all", "--strict-llm", model="always-full")
    assert strict.returncode == 2
    assert "nugget pairs" in strict.stderr and not (tmp_path / "strict" / "N.leaderboard.txt").exists()


def test_the_two_kinds_never_share_a_cached_answer():
    """The cache key is the exact question: a nugget pair's prompt is not a citation's, whatever the texts."""
    needs_dspy()
    from judges.attest.cache import question_key
    from judges.attest.prompt import messages

    params = {"temperature": 0}
    keys = {question_key("m", messages("The bridge opened in 1932.", "It opened in 1932.", q), params) for q in
            ("yes_no", "support_level", "nugget_level")}  # fmt: skip
    assert len(keys) == 3


def test_a_plan_names_nugget_pairs_by_the_kinds_key():
    import numpy as np

    from judges.attest.kinds import NUGGET
    from judges.attest.plan import Quota, make_plan

    columns = {
        "run_id": np.array(["a", "a", "b", "b"], dtype=object),
        "topic_id": np.array(["t", "t", "t", "t"], dtype=object),
        "nugget_index": np.array([0, 1, 0, 1]),
        "status": np.array(["supported", "partial", "unsupported", "partial"], dtype=object),
        "p_any": np.array([0.99, 0.6, 0.02, 0.5]),
        "p_full": np.array([0.98, 0.3, 0.01, 0.2]),
        "weight": np.array([0.985, 0.45, 0.015, 0.35]),
    }
    plan = make_plan(columns, {"a": 1, "b": 1}, np.zeros(4, bool), Quota(count=2), key=NUGGET.key)
    assert set(plan.chosen) == {("a", "t", 1), ("b", "t", 1)}  # the two uncertain pairs
    assert all(type(k[2]) is int for k in plan.chosen)


def _standin(n: int, body: dict) -> Reply:
    """bench/standin_batch.py's answers online: the same question, the same answer as in batch files."""
    import sys

    sys.path.insert(0, str(ROOT / "bench"))
    import standin_batch

    return Reply(body=json.dumps(standin_batch.completion(body)).encode())


def test_nugget_questions_go_through_batch_files_and_the_next_run_asks_nothing(tmp_path):
    """judge without LLM -> attest export (the nugget pairs' requests) -> answered by the stand-in as
    vllm run_batch would -> attest import -> judge again: no call, outputs equal to the online run's."""
    import subprocess
    import sys

    needs_dspy()
    with ScriptedServer(_standin) as server:
        online = judge(tmp_path / "online", server, tmp_path / "online.cache", "--attest", "all")
        assert online.returncode == 0, online.stderr
        asked_online = len(server.seen)
        batch = tmp_path / "batch"
        plain = run_cli(
            "--judge", "nugget", "--rag-topics", MINI / "topics.jsonl", "--rag-responses", MINI / "runs",
            "--nuggets", MINI / "nuggets.jsonl", "--out-dir", batch, "--name", "N",
        )  # fmt: skip
        assert plain.returncode == 0, plain.stderr
        exported = run_cli("attest", "export", batch, "--name", "N", "--attest", "all", "--use-env-llm",
                           env=server.env())  # fmt: skip
        assert exported.returncode == 0, exported.stderr
        assert "nugget pairs selected (all): 75" in exported.stdout and len(server.seen) == asked_online
        requests = batch / "N.batch" / "requests-0001.jsonl"
        answers = tmp_path / "answers-0001.jsonl"
        cmd = [sys.executable, str(ROOT / "bench" / "standin_batch.py"), "-i", str(requests), "-o", str(answers)]
        subprocess.run(cmd, check=True, capture_output=True, timeout=300)
        imported = run_cli("attest", "import", batch, "--name", "N", answers)
        assert imported.returncode == 0, imported.stdout + imported.stderr
        again = judge(batch, server, batch, "--attest", "all")
        assert again.returncode == 0, again.stderr
        assert len(server.seen) == asked_online == 75  # every answer came from the batch files
    assert "75 selected, 0 calls, 75 cache hits" in again.stdout
    a, b = tmp_path / "online" / "N.nuggets.jsonl", batch / "N.nuggets.jsonl"
    assert a.read_bytes() == b.read_bytes()
    assert (tmp_path / "online" / "N.leaderboard.txt").read_bytes() == (batch / "N.leaderboard.txt").read_bytes()


def test_answer_error_estimate_lands_near_the_stand_ins_error_rate(tmp_path):
    """attest.answer_error: estimate over the nugget pairs' answers: a stand-in answering from NIST's
    assignments and wrong for 30% of the questions (bench/nugget_simulated.py's, SIMULATED LLM)
    gets an estimate near the share it got wrong, with that share in its 90% interval, recorded in
    config.yml and the summary; the same from the cache; the outputs those of a session told the
    estimate."""
    needs_dspy()
    sys.path.insert(0, str(ROOT / "bench"))
    from nugget_simulated import NuggetOracle

    from judges.formats.nuggets import read_nuggets
    from judges.session.nuggets import read_answers

    bank = read_nuggets(MINI / "nuggets.jsonl")
    assigned = read_nuggets(MINI / "nugget_assignment.jsonl").assignments
    oracle = NuggetOracle(bank, assigned, read_answers([MINI / "runs"], set(bank.banks)))
    cache = tmp_path / "cache"
    with ScriptedServer(lambda n, body: Reply(content=oracle.reply(body, 0.3))) as server:
        runs = {}
        for name, error in (("fresh", "estimate"), ("cached", "estimate"), ("told", None)):
            if error is None:
                error = yaml.safe_load((tmp_path / "fresh" / "N.config.yml").read_text())["attest"]["nuggets"]
                error = error["answer_error"]["estimate"]
            runs[name] = judge(tmp_path / name, server, cache, "--attest", "all", workflow={"answer_error": error})
            assert runs[name].returncode == 0, runs[name].stderr
        assert len(server.seen) == 75 and oracle.unknown == 0
    table = judges.read_nuggets(tmp_path / "fresh", "N")
    level = {"FULL": 2, "PARTIAL": 1, "NONE": 0}
    truth = [int(assigned[(r.run_id, r.topic_id)].levels[r.nugget_index]) for r in table.itertuples()]
    wrong = sum(level[a] != t for a, t in zip(table.llm_answer, truth)) / len(table)
    assert 0.2 < wrong < 0.35  # the hash's share of wrong answers on these 75 questions
    figures = [yaml.safe_load((tmp_path / n / "N.config.yml").read_text())["attest"] for n in runs]
    found = figures[0]["nuggets"]["answer_error"]
    assert found["answers"] == 75 and found["low"] <= wrong <= found["high"] and abs(found["estimate"] - wrong) < 0.1
    assert figures[1]["nuggets"]["answer_error"] == found and figures[1]["nuggets"]["cache_hits"] == 75
    assert "answer_error" not in figures[2]["nuggets"]
    assert f"LLM nugget answer error  estimated {found['estimate']:.3f}" in runs["fresh"].stdout
    for name in ("N.nuggets.parquet", "N.leaderboard.txt", "N.intervals.tsv", "N.pairs.tsv"):
        same = [(tmp_path / n / name).read_bytes() for n in runs]
        assert same[0] == same[1] == same[2], name
