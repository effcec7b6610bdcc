"""``check_answer(attest=..., nuggets=...)``: the nugget pairs of one answer go through the
engine's one entry point (:func:`judges.engine.pairs.judge_pairs`, the nugget kind) and its
attestation cascade, as a batch session's do: the LLM is asked about the nuggets, and the same
answers get the same judgments both ways. A scripted loopback server (tests/llm_servers.py) is
the LLM; the API and the batch session share the cache file, so "the API asks nothing new"
proves it asked exactly the session's nugget questions."""

from __future__ import annotations

import hashlib
import json

import pytest
import yaml
from helpers import ROOT, needs_dspy, run_cli
from llm_servers import Reply, ScriptedServer

import judges
from judges.core.config import AttestSettings, Workflow
from judges.formats.nuggets import read_nuggets
from judges.formats.runs import read_reports

MINI = ROOT / "datasets" / "rag24-nuggets-mini"
LEVEL = {"FULL": "support", "PARTIAL": "partial_support", "NONE": "not_support"}
FACT = "[[ ## fact ## ]]"  # in a nugget question's prompt, never in a citation's
COMPARED = ("assignment", "p_support", "p_partial", "p_not", "score", "explanation", "llm_answer")

SOURCES = [
    {"id": "q3", "text": "Q3 report: revenue rose 12% to $1.5 million, a record. Costs fell."},
    {"id": "board", "text": "The board met in May. The CEO resigned, effective at once."},
]
ANSWER = "Revenue rose 12% to $1.5 million. The CEO resigned in May."
NUGGETS = ["Revenue rose 12%", "The CEO resigned", "The company opened a new factory"]


@pytest.fixture(autouse=True)
def _dspy():
    needs_dspy()


def levels(n: int, body: dict) -> Reply:
    """A deterministic model: a nugget question's level from its hash; a citation question's YES."""
    prompt = body["messages"][-1]["content"]
    if FACT not in prompt:
        return Reply(content="YES")
    digest = hashlib.sha256(json.dumps(body["messages"], sort_keys=True).encode()).digest()
    return Reply(content=("FULL", "PARTIAL", "NONE")[digest[0] % 3])


def test_attest_asks_the_llm_about_every_nugget_and_its_answer_decides(tmp_path):
    """mode all (the default workflow's none, with an endpoint given): one nugget question per
    nugget, the answer shown whole; the LLM's level is the assignment, also where the nugget model
    found the nugget; the figures beside the citations'; a second call asks nothing."""
    none = lambda n, body: Reply(content="NONE" if FACT in body["messages"][-1]["content"] else "YES")  # noqa: E731
    plain = judges.check_answer(ANSWER, SOURCES, nuggets=NUGGETS)
    assert [j.assignment for j in plain.nuggets][:2] == ["support", "support"]  # the model finds the first two
    with ScriptedServer(none) as server:
        checked = judges.check_answer(ANSWER, SOURCES, attest=server.env(), cache_dir=tmp_path, nuggets=NUGGETS)
        prompts = [s.body["messages"][-1]["content"] for s in server.seen]
        asked = [p for p in prompts if FACT in p]
        assert len(asked) == len(NUGGETS) and all(ANSWER in p for p in asked)
        assert sorted(n for n in NUGGETS if any(n in p for p in asked)) == sorted(NUGGETS)
        again = judges.check_answer(ANSWER, SOURCES, attest=server.env(), cache_dir=tmp_path, nuggets=NUGGETS)
        assert len(server.seen) == len(prompts)  # everything from the cache
    assert [j.llm_answer for j in checked.nuggets] == ["NONE"] * len(NUGGETS)
    assert [j.assignment for j in checked.nuggets] == ["not_support"] * len(NUGGETS)
    assert checked.measures["NUGGET_ALL"] < plain.measures["NUGGET_ALL"]
    figures = checked.attestation["nuggets"]
    assert figures["selected"] == figures["calls"] == len(NUGGETS) and figures["changed"] >= 2
    assert checked.attestation["calls"] == len(prompts) - len(NUGGETS)  # the citations' own figures
    assert again.nuggets == checked.nuggets and again.attestation["nuggets"]["cache_hits"] == len(NUGGETS)
    assert [j.spans for j in checked.nuggets] == [j.spans for j in plain.nuggets]  # offsets into ANSWER still


def test_without_attest_no_nugget_is_asked_and_the_judgments_are_the_models():
    checked = judges.check_answer("  " + ANSWER, SOURCES, nuggets=NUGGETS)
    assert checked.attestation is None and all(j.llm_answer is None for j in checked.nuggets)
    first = checked.nuggets[0]
    assert ("  " + ANSWER)[first.spans[0][0] : first.spans[0][1]] == "Revenue rose 12"  # leading blanks counted
    empty = judges.check_answer(ANSWER, SOURCES, nuggets=[])  # an empty bank: no judgment, measures 0
    assert empty.nuggets == () and empty.measures["NUGGET_ALL"] == empty.measures["NUGGET_VITAL"] == 0.0


def test_one_answer_and_a_batch_session_judge_the_same_answers_the_same(tmp_path):
    """Every answer of the bundled mini sample judged by a ``--judge nugget --attest all`` session
    and then by check_answer with the same bank, workflow and cache: the same questions (the call
    asks nothing new), the same LLM answers, assignments, probabilities and explanations."""
    workflow = {"check_use": "always"}  # the levels are random: the session would not use them otherwise
    (tmp_path / "wf.yml").write_text(yaml.safe_dump({"attest": workflow}))
    cache = tmp_path / "cache"
    banks = read_nuggets(MINI / "nuggets.jsonl").banks
    with ScriptedServer(levels) as server:
        r = run_cli(
            "--judge", "nugget", "--rag-topics", MINI / "topics.jsonl", "--rag-responses", MINI / "runs",
            "--nuggets", MINI / "nuggets.jsonl", "--out-dir", tmp_path / "out", "--name", "N", "--use-env-llm",
            "--cache-dir", cache, "--attest", "all", "--workflow", tmp_path / "wf.yml", env=server.env(),
        )  # fmt: skip
        assert r.returncode == 0, r.stderr
        asked_by_batch = len(server.keys())
        table = judges.read_nuggets(tmp_path / "out", "N")
        rows = {k: g.sort_values("nugget_index") for k, g in table.groupby(["run_id", "topic_id"])}
        compared = 0
        for path in sorted((MINI / "runs").glob("*.jsonl")):
            for _, rep in read_reports(path):
                if (rep.run_id, rep.topic_id) not in rows:
                    continue
                answer = [s.text for s in rep.sentences]
                checked = judges.check_answer(
                    answer, [], workflow=Workflow(attest=AttestSettings(**workflow)), attest=server.env(),
                    cache_dir=cache, nuggets=banks[rep.topic_id],
                )  # fmt: skip
                want = rows.pop((rep.run_id, rep.topic_id))
                figures = checked.attestation["nuggets"]
                assert figures["calls"] == 0 and figures["cache_hits"] == len(want) == len(checked.nuggets)
                for field in COMPARED:
                    assert [getattr(j, field) for j in checked.nuggets] == want[field].tolist(), field
                assert [[list(s) for s in j.spans] for j in checked.nuggets] == [
                    [[s["char_start"], s["char_end"]] for s in spans] for spans in want.spans
                ]
                compared += len(want)
        assert len(server.keys()) == asked_by_batch  # no nugget question the session did not ask
    assert rows == {} and compared == len(table) > 0 and table.llm_answer.notna().all()
    assert set(table.llm_answer) == set(LEVEL)  # the levels vary: equal judgments are no accident of one answer
