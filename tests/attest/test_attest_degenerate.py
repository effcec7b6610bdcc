"""A degenerate LLM judge is flagged (judges.attest.degenerate): the rule on counts, then the CLI
as a subprocess against scripted loopback servers (an LLM that always says YES, one that answers
from the text, one that answers against it), with --strict-llm and with two worker processes."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import ROOT, needs_dspy, run_cli
from llm_servers import Reply, ScriptedServer

import judges
from judges.attest import degenerate
from judges.attest.cascade import summarize
from judges.attest.endpoint import Endpoint
from judges.core.config import AttestSettings
from judges.core.counts import answer_tally, attest_answer, declared

TOPICS = ROOT / "datasets" / "ragtime" / "topics.jsonl"
RUNS = ROOT / "runs" / "ragtime"
FULL, NOT, UNSURE = degenerate.FULL, degenerate.NOT_FULL, degenerate.UNSURE


# -- the rule ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "p_any, p_full, decision",
    [
        (0.95, 0.9, FULL),
        (0.99, 0.95, FULL),
        (0.95, 0.899, UNSURE),
        (0.5, 0.3, UNSURE),
        (0.5, 0.1, NOT),
        (0.1, 0.05, NOT),
        (0.1, 0.2, NOT),  # P(any) <= 0.1 says not supported at all
        (None, None, UNSURE),  # no probabilities (support.judge: alignment)
    ],
)
def test_the_models_confident_decision(p_any, p_full, decision):
    assert degenerate.model_decision(p_any, p_full) == decision


def test_the_answer_is_read_as_the_status_reads_it():
    assert degenerate.answer_of("YES", None, "yes_no") == "YES"
    assert degenerate.answer_of("NO", 0.7, "yes_no") == "YES"  # P(YES) from log-probabilities decides
    assert degenerate.answer_of("YES", 0.2, "yes_no") == "NO"
    assert degenerate.answer_of("PARTIAL", 0.9, "support_level") == "PARTIAL"


def test_all_the_same_answer_is_flagged_from_twenty_answers():
    assert degenerate.check({("YES", UNSURE): 19}) is None
    flagged = degenerate.check({("YES", UNSURE): 12, ("YES", FULL): 8})
    assert flagged == {
        "reason": "constant",
        "answer": "YES",
        "answers": 20,
        "message": "the LLM answered YES to all 20 questions: its answers look degenerate",
    }
    assert degenerate.check({("PARTIAL", FULL): 10, ("PARTIAL", NOT): 15})["answer"] == "PARTIAL"
    assert degenerate.check({("YES", UNSURE): 30, ("NO", UNSURE): 1}) is None


def _kappa(pairs: list[tuple[bool, bool]]) -> float:
    """Cohen's kappa of two binary raters, from its definition."""
    n = len(pairs)
    observed = sum(a == b for a, b in pairs) / n
    pa, pb = sum(a for a, _ in pairs) / n, sum(b for _, b in pairs) / n
    chance = pa * pb + (1 - pa) * (1 - pb)
    return (observed - chance) / (1 - chance)


def _pairs(tally: dict) -> list[tuple[bool, bool]]:
    return [
        (answer in ("YES", "FULL"), decision == FULL)
        for (answer, decision), n in tally.items()
        if decision != UNSURE
        for _ in range(n)
    ]


def test_answers_against_the_models_clear_cases_are_flagged_below_chance():
    # YES mostly where the model is sure of no support, NO where it is sure of full support
    tally = {("YES", NOT): 9, ("NO", NOT): 3, ("NO", FULL): 8, ("YES", FULL): 2, ("YES", UNSURE): 10}
    flagged = degenerate.check(tally)
    assert flagged["reason"] == "below_chance"
    assert flagged["kappa"] == pytest.approx(_kappa(_pairs(tally)), abs=1e-4) and flagged["kappa"] < 0
    figures = [flagged[k] for k in ("confident", "agreed", "model_full", "model_not_full")]
    assert figures == [22, 5, 10, 12]
    assert "agreed with the support model's confident decisions on 5 of 22 citations" in flagged["message"]
    # the same answers agreeing with the model are not flagged
    sensible = {("NO", NOT): 9, ("YES", NOT): 3, ("YES", FULL): 8, ("NO", FULL): 2, ("YES", UNSURE): 10}
    assert degenerate.check(sensible) is None
    assert degenerate.figures(sensible)["kappa"] == pytest.approx(_kappa(_pairs(sensible)), abs=1e-4)


def test_support_level_answers_count_full_against_the_rest():
    tally = {("FULL", NOT): 6, ("NONE", NOT): 2, ("PARTIAL", FULL): 10, ("FULL", FULL): 4}
    flagged = degenerate.check(tally)
    assert flagged["reason"] == "below_chance" and flagged["kappa"] == pytest.approx(_kappa(_pairs(tally)), abs=1e-4)
    assert degenerate.check({("NONE", NOT): 6, ("PARTIAL", NOT): 4, ("FULL", FULL): 10, ("PARTIAL", FULL): 2}) is None


@pytest.mark.parametrize(
    "tally",
    [
        {("YES", NOT): 10, ("NO", FULL): 9},  # 19 confident citations: too few
        {("YES", NOT): 16, ("NO", FULL): 4, ("NO", NOT): 10},  # 4 the model says are fully supported: too few
        {("YES", UNSURE): 40, ("NO", UNSURE): 40},  # the model is sure of none (e.g. attest.mode uncertain)
    ],
)
def test_the_agreement_test_needs_enough_confident_citations_on_both_sides(tally):
    assert degenerate.check(tally) is None and degenerate.figures(tally)["kappa"] is None


ANSWER = st.sampled_from(["YES", "NO"])
DECISION = st.sampled_from([FULL, NOT, UNSURE])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(ANSWER, DECISION), max_size=80), st.lists(st.integers(0, 80), max_size=4))
def test_the_verdict_is_the_same_however_the_citations_are_split_between_workers(answers, cuts):
    """Workers count their parts' answers; the session merges the counts (judges.session.pipeline)."""

    def session(parts: list[list]) -> dict:
        merged: Counter = Counter()
        for part in parts:
            counts: Counter = Counter()
            for answer, decision in part:
                counts[attest_answer(answer, decision)] += 1
            merged.update(counts)
        assert all(declared(k) for k in merged)
        return summarize(merged, AttestSettings(mode="all"), Endpoint("http://127.0.0.1:1/v1", "m"))

    bounds = [0, *sorted(min(c, len(answers)) for c in cuts), len(answers)]
    parts = [answers[a:b] for a, b in zip(bounds, bounds[1:])]
    assert session(parts) == session([answers])
    tally = answer_tally(Counter(attest_answer(a, d) for a, d in answers))
    assert session([answers])["degenerate"] == degenerate.check(tally)


# -- the CLI against loopback servers ------------------------------------------------------------

WORD = re.compile(r"\w+")


def _overlap(body: dict) -> float:
    """The share of the sentence's words that the evidence shown has."""
    text = body["messages"][-1]["content"]
    sentence, rest = text.split("[[ ## sentence ## ]]", 1)[1].split("[[ ## document ## ]]", 1)
    evidence = rest.split("Respond with", 1)[0]
    words = set(WORD.findall(sentence.lower()))
    return len(words & set(WORD.findall(evidence.lower()))) / max(len(words), 1)


def always_yes(n: int, body: dict) -> Reply:
    return Reply(content="YES")


def from_the_text(n: int, body: dict) -> Reply:
    """A sensible judge: YES when the evidence has most of the sentence's words."""
    return Reply(content="YES" if _overlap(body) >= 0.8 else "NO")


def against_the_text(n: int, body: dict) -> Reply:
    return Reply(content="NO" if _overlap(body) >= 0.8 else "YES")


def judge(out: Path, server: ScriptedServer, *extra, workflow: dict | None = None, model: str = "scripted"):
    needs_dspy()  # every session here attests
    args = ["--rag-topics", TOPICS, "--rag-responses", RUNS, "--out-dir", out, "--name", "x", "--use-env-llm"]
    args += ["--attest", "all", "--cache-dir", out.parent / f"{out.name}.{model}.cache", *extra]
    if workflow is not None:
        path = out.parent / f"{out.name}.workflow.yml"
        path.write_text(yaml.safe_dump({"attest": workflow}))
        args += ["--workflow", path]
    return run_cli(*args, env=server.env(model=model))


def attest_figures(out: Path) -> dict:
    return yaml.safe_load((out / "x.config.yml").read_text())["attest"]


def summary_event(out: Path) -> dict:
    events = [json.loads(line) for line in (out / "x.jsonl").read_text().splitlines()]
    (event,) = [e for e in events if e["event"] == "ATTEST_SUMMARY"]
    return event


@pytest.fixture(scope="module")
def plain(tmp_path_factory) -> Path:
    """The sample judged without the LLM."""
    out = tmp_path_factory.mktemp("plain")
    result = run_cli("--rag-topics", TOPICS, "--rag-responses", RUNS, "--out-dir", out, "--name", "x")
    assert result.returncode == 0, result.stderr
    return out


@pytest.fixture(scope="module")
def resolvable(plain) -> int:
    a = judges.read_assessments(plain)
    n = int((a.status != "missing").sum())
    assert n >= degenerate.MIN_ANSWERS  # the sample is big enough for the first rule
    return n


def test_an_llm_that_always_says_yes_is_flagged_recorded_and_not_used(tmp_path, resolvable, plain):
    """Issue 42 item 4: its answers once replaced the leaderboard, the warning a line above the summary."""
    with ScriptedServer(always_yes) as server:
        result = judge(tmp_path / "y", server)
    assert result.returncode == 0, result.stderr
    message = f"the LLM answered YES to all {resolvable} questions: its answers look degenerate"
    not_used = "not used: the citations keep the support model's judgment (--use-degenerate-llm uses them)"
    figures = attest_figures(tmp_path / "y")
    would = figures["degenerate"]["changed_unused"]  # answers not used change nothing: changed counts 0
    assert would > 0 and figures["changed"] == 0
    not_used += f"; they would have changed {would} statuses"
    assert f"warning: {message}; {not_used}" in result.stderr.splitlines()
    assert f"warning {message}; {not_used}" in " ".join(result.stdout.split())  # a row of the summary
    assert "LLM attestation all: 35 selected (94.6%), 0 guarded, 0 changed" in " ".join(result.stdout.split())
    assert figures["answers"] == {"YES": resolvable} and figures["calls"] == resolvable  # asked, and paid for
    expected = {"reason": "constant", "answer": "YES", "answers": resolvable, "message": message, "used": False}
    assert figures["degenerate"] == expected | {"changed_unused": would}
    assert summary_event(tmp_path / "y")["degenerate"] == figures["degenerate"]
    for f in ("x.leaderboard.txt", "x.qrels"):  # the model's judgment, as judged without the LLM
        assert (tmp_path / "y" / f).read_bytes() == (plain / f).read_bytes(), f
    a, b = judges.read_assessments(tmp_path / "y"), judges.read_assessments(plain)
    assert a.status.tolist() == b.status.tolist() and a.weight.tolist() == b.weight.tolist()

    with ScriptedServer(always_yes) as server:  # the opt-in: used all the same (from the cache: no call)
        result = judge(tmp_path / "y", server, "--use-degenerate-llm")
        assert server.seen == []
    assert result.returncode == 0, result.stderr
    assert f"warning: {message}; used all the same (--use-degenerate-llm)" in result.stderr.splitlines()
    assert attest_figures(tmp_path / "y")["degenerate"]["used"] is True
    used = judges.read_assessments(tmp_path / "y")
    assert (used.status != b.status).any()
    assert (tmp_path / "y" / "x.leaderboard.txt").read_bytes() != (plain / "x.leaderboard.txt").read_bytes()
    both = judge(tmp_path / "z", server, "--strict-llm", "--use-degenerate-llm")
    assert both.returncode == 2 and "give either --strict-llm or --use-degenerate-llm" in both.stderr


def test_strict_llm_makes_it_an_error_and_leaves_the_previous_outputs(tmp_path, resolvable):
    out = tmp_path / "s"
    with ScriptedServer(from_the_text) as sensible:
        first = judge(out, sensible, "--strict-llm", model="sensible")  # a sensible LLM passes --strict-llm
    assert first.returncode == 0, first.stderr
    before = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    assert {"x.qrels", "x.leaderboard.txt", "x.assessments.parquet", "x.config.yml", "x.jsonl"} <= set(before)
    with ScriptedServer(always_yes) as server:
        result = judge(out, server, "--strict-llm", model="yes-man")
        assert len(server.seen) == resolvable  # it was asked, and then nothing was written
    assert result.returncode == 2
    assert result.stderr.strip() == (
        f"error: --strict-llm: the LLM answered YES to all {resolvable} questions: "
        "its answers look degenerate (no output replaced)"
    )
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()} == before
    assert not [p for p in out.iterdir() if ".stage-" in p.name]


def test_an_llm_answering_from_the_text_is_not_flagged(tmp_path):
    with ScriptedServer(from_the_text) as server:
        result = judge(tmp_path / "t", server)
    assert result.returncode == 0, result.stderr
    figures = attest_figures(tmp_path / "t")
    assert set(figures["answers"]) == {"YES", "NO"} and figures["degenerate"] is None
    assert figures["confident"] >= degenerate.MIN_CONFIDENT and figures["kappa"] > 0  # the agreement test was made
    assert "degenerate" not in result.stderr
    assert summary_event(tmp_path / "t")["degenerate"] is None


def test_the_support_level_question_is_checked_too(tmp_path):
    def levels(n: int, body: dict) -> Reply:
        share = _overlap(body)
        return Reply(content="FULL" if share >= 0.8 else "PARTIAL" if share >= 0.5 else "NONE")

    with ScriptedServer(levels) as server:
        result = judge(tmp_path / "l", server, workflow={"question": "support_level"})
    assert result.returncode == 0, result.stderr
    assert attest_figures(tmp_path / "l")["degenerate"] is None
    with ScriptedServer(lambda n, body: Reply(content="Partial support.")) as server:
        result = judge(tmp_path / "p", server, workflow={"question": "support_level"})
    assert result.returncode == 0, result.stderr
    assert attest_figures(tmp_path / "p")["degenerate"]["answer"] == "PARTIAL"
    assert "warning: the LLM answered PARTIAL to all" in result.stderr


def test_the_verdict_is_the_same_with_two_worker_processes(tmp_path):
    """An LLM answering against the text: flagged below chance, with the same figures in 1 or 2 processes."""
    figures = {}
    with ScriptedServer(against_the_text) as server:
        for workers in ("1", "2"):
            result = judge(tmp_path / workers, server, "--workers", workers)
            assert result.returncode == 0, result.stderr
            assert "no better than chance" in result.stderr
            figures[workers] = {k: v for k, v in attest_figures(tmp_path / workers).items() if k != "base_url"}
    flagged = figures["1"]["degenerate"]
    assert flagged["reason"] == "below_chance" and flagged["kappa"] <= 0
    assert figures["2"] == figures["1"]


def test_one_policy_decides_whether_degenerate_answers_are_used():
    """judges.attest.degenerate.answers_used: both kinds of pair apply it (the session's citations,
    the nugget cascade)."""
    from judges.attest.degenerate import answers_used
    from judges.core.errors import InputError

    assert answers_used({"degenerate": None}, strict=True, used=False)  # not degenerate: used, no error
    flagged = {"degenerate": {"message": "the LLM answered YES to all 20 questions"}}
    assert not answers_used(flagged, strict=False, used=False) and flagged["degenerate"]["used"] is False
    assert answers_used(flagged, strict=False, used=True) and flagged["degenerate"]["used"] is True
    with pytest.raises(InputError, match=r"YES to all 20 questions \(nugget pairs; no output replaced\)"):
        answers_used(flagged, strict=True, used=False, pairs="nugget pairs; ")
