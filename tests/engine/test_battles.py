"""Battles (``--judge battle``): the RAG 2026-shaped sample judged end to end by the real CLI, the
verdict model's symmetry, the Davidson fit, the budget design and the RAG 2026 rules."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
import yaml
from helpers import ROOT, cli_in_process, needs_dspy, run_cli

from judges.engine import battle_design
from judges.engine.battles import WITH_NUGGETS, WITHOUT_NUGGETS, Evidence, verdict
from judges.formats import rag26
from judges.scores import battles as bt

DATA, RUNS = ROOT / "datasets" / "rag26", ROOT / "runs" / "rag26"
RUN_IDS = ("teamA-grounded", "teamB-partial", "teamC-loose")
BATTLE_FILES = ("battles.jsonl", "battles.ranking.tsv", "battles.above.tsv", "leaderboard.txt")


def _battle(out, *extra):
    return run_cli(
        "--judge", "battle", "--rag-topics", DATA / "topics.jsonl", "--rag-responses", RUNS,
        "--corpus", DATA / "corpus.jsonl", "--out-dir", out, "--name", "B", "--no-debug-log", *extra,
    )  # fmt: skip


@pytest.fixture(scope="module")
def judged(tmp_path_factory):
    out = tmp_path_factory.mktemp("battle")
    r = _battle(out, "--nuggets", DATA / "nuggets.jsonl")
    assert r.returncode == 0, r.stderr
    return out, r


def test_every_pair_of_every_topic_is_a_battle_with_its_verdict(judged):
    out, _ = judged
    records = [json.loads(line) for line in (out / "B.battles.jsonl").read_text().splitlines()]
    keys = [(r["topic_id"], r["run_a"], r["run_b"]) for r in records]
    topics = ("rag26-01", "rag26-02", "rag26-03")
    assert keys == [(t, a, b) for t in topics for a, b in itertools.combinations(RUN_IDS, 2)]
    for r in records:
        assert sorted(r["shown"]) == [r["run_a"], r["run_b"]]
        assert r["source"] == "judge" and r["inclusion"] == 1.0
        assert abs(r["p_a"] + r["p_tie"] + r["p_b"] - 1) < 1e-3
        assert set(r["evidence"]) == {"a", "b"} and "recall" in r["evidence"]["a"]
        assert "favours" in r["explanation"]
    grounded_vs_loose = [r for r in records if (r["run_a"], r["run_b"]) == ("teamA-grounded", "teamC-loose")]
    assert [r["verdict"] for r in grounded_vs_loose] == ["A", "A", "A"]  # sentences of the documents win
    assert len({tuple(r["shown"]) == (r["run_a"], r["run_b"]) for r in records}) == 2  # both orders shown


def test_ranking_score_on_the_leaderboard_and_rules_warned(judged):
    out, r = judged
    rows = [line.split("\t") for line in (out / "B.battles.ranking.tsv").read_text().splitlines()]
    assert rows[0] == ["run_id", "battle_score", "low", "high", "rank", "ranks", "battles"]
    assert [row[0] for row in rows[1:]] == list(RUN_IDS)
    assert [row[6] for row in rows[1:]] == ["6", "6", "6"]  # two opponents on each of three topics
    for row in rows[1:]:
        assert float(row[2]) <= float(row[1]) <= float(row[3])
    board = {(run, topic, m): float(v) for run, topic, m, v in map(str.split, (out / "B.leaderboard.txt").open())}
    scores = [board[(run, "all", "BATTLE_SCORE")] for run in RUN_IDS]
    assert scores == sorted(scores, reverse=True) and all(0 < s < 1 for s in scores)
    assert (RUN_IDS[0], "all", "NUGGET_F1") in board  # the nuggets judged beside (argue's measures)
    config = yaml.safe_load((out / "B.config.yml").read_text())
    assert {k: v for k, v in config["counts"].items() if k.startswith(("rag26", "battles"))} == {
        "battles": 9,
        "rag26_answers_breaking": 3,
        "rag26_answers_over_words": 1,
        "rag26_references_uncited": 1,
        "rag26_sentences_over_citations": 1,
    }
    lines = (out / "B.battles.above.tsv").read_text().splitlines()
    assert lines[0] == "run_a\trun_b\tp_above" and len(lines) == 1 + 6
    above = {(a, b): float(p) for a, b, p in (line.split("\t") for line in lines[1:])}
    assert above[(RUN_IDS[0], RUN_IDS[2])] == 1.0 and above[(RUN_IDS[2], RUN_IDS[0])] == 0.0
    assert (
        "RAG 2026 rules broken by 3 answers: 1 sentence with more than 3 citations, 1 reference never cited, "
        "1 answer over 1,024 words" in " ".join(r.stdout.split())
    )


def test_battle_files_are_byte_identical_run_to_run(judged, tmp_path):
    out, _ = judged
    r = _battle(tmp_path, "--nuggets", DATA / "nuggets.jsonl")
    assert r.returncode == 0, r.stderr
    for name in BATTLE_FILES:
        assert (tmp_path / f"B.{name}").read_bytes() == (out / f"B.{name}").read_bytes(), name


def test_budget_draws_a_known_share_and_without_a_bank_reads_no_recall(tmp_path):
    r = _battle(tmp_path, "--battle-opponents", "1")
    assert r.returncode == 0, r.stderr
    records = [json.loads(line) for line in (tmp_path / "B.battles.jsonl").read_text().splitlines()]
    assert 0 < len(records) <= 9 and all(0 < x["inclusion"] <= 1 for x in records)
    assert all(x["evidence"]["a"]["recall"] == 0.0 for x in records)  # no --nuggets: no recall
    assert not (tmp_path / "B.nuggets.jsonl").exists()


def test_options_refused(tmp_path):
    r = cli_in_process("--rag-responses", RUNS, "--out-dir", tmp_path, "--battle-opponents", "3")
    assert r.returncode == 2 and "--battle-opponents: only with --judge battle" in r.stderr


def test_verdict_is_symmetric_and_explained():
    a, b = Evidence(0.9, 0.6, 0.1, 0.0, 200), Evidence(0.5, 0.3, 0.5, 0.2, 120)
    for model in (WITH_NUGGETS, WITHOUT_NUGGETS):
        ab, ba = verdict(a, b, model), verdict(b, a, model)
        assert ab.p_a == pytest.approx(ba.p_b) and ab.p_tie == pytest.approx(ba.p_tie)
        assert ab.verdict == "A" and ba.verdict == "B"
    same = verdict(a, a, WITH_NUGGETS)
    assert same.verdict == "tie" and same.explanation.startswith("no evidence tells them apart")


def test_davidson_fit_recovers_strengths_and_ties():
    rng = np.random.default_rng(0)
    n, nu = 6, 0.8
    true = np.linspace(-1.5, 1.5, n)
    rows = []
    for i, j in itertools.combinations(range(n), 2):
        d = np.exp(true[i]) + np.exp(true[j]) + nu * np.exp((true[i] + true[j]) / 2)
        p = np.array([np.exp(true[i]), nu * np.exp((true[i] + true[j]) / 2), np.exp(true[j])]) / d
        rows.append((i, j, *rng.multinomial(4000, p) / 4000, 4000.0))
    f = bt.fit(n, bt.outcomes(rows), ridge=0.0)
    assert np.allclose(f.strength, true - true.mean(), atol=0.08) and abs(f.nu - nu) < 0.05
    swapped = bt.fit(n, bt.outcomes([(j, i, pj, pt, pi, w) for i, j, pi, pt, pj, w in rows]), ridge=0.0)
    assert np.allclose(swapped.strength, f.strength) and swapped.nu == pytest.approx(f.nu)


def test_design_meets_the_budget_with_known_probabilities():
    rng = np.random.default_rng(1)
    m = 45 * 44 // 2
    p_a = rng.random(m)
    p_b = (1 - p_a) * rng.random(m)
    ranks = rng.integers(0, 45, (2, m))
    pi = battle_design.inclusion(battle_design.worth(p_a, p_b, ranks[0], ranks[1], 45), 45 * 9 / 2)
    assert pi.sum() == pytest.approx(45 * 9 / 2) and pi.min() > 0
    one = battle_design.design("t1", p_a, p_b, ranks[0], ranks[1], 45, 9)
    again = battle_design.design("t1", p_a, p_b, ranks[0], ranks[1], 45, 9)
    other = battle_design.design("t2", p_a, p_b, ranks[0], ranks[1], 45, 9)
    assert np.array_equal(one.chosen, again.chosen) and not np.array_equal(one.chosen, other.chosen)
    assert 0.5 * 45 * 9 / 2 < len(one.chosen) < 1.5 * 45 * 9 / 2


def test_rag26_rules_counted():
    record = {
        "references": ["d0", "d1", "d2"],
        "answer": [{"text": "x " * 1000, "citations": [0, 0, 0, 0]}, {"text": "y " * 30, "citations": [1]}],
    }
    assert rag26.check_record(record) == {
        "rag26_sentences_over_citations": 1,
        "rag26_references_uncited": 1,
        "rag26_answers_over_words": 1,
        "rag26_answers_breaking": 1,
    }
    assert rag26.check_record({"answer": [], "references": []}) == {}
    assert rag26.check_record({"responses": []}) == {}


def test_side_by_side_both_orders_cache_cost_cap_and_position_guard(tmp_path):
    from judges.attest import sidebyside as sbs
    from judges.attest.cache import Answer

    assert sbs.combine("FIRST", "SECOND") == "A" and sbs.combine("SECOND", "FIRST") == "B"
    assert sbs.combine("FIRST", "FIRST") == "tie"  # flips with the order
    assert sbs.combine("TIE", "SECOND") == "tie" and sbs.combine(None, "FIRST") is None
    assert sbs.parse("Answer: second.") == "SECOND" and sbs.parse("firstly, no idea") is None
    shown = [sbs.Shown(((f"Sentence {k}.", (("supported", f"evidence {k}"),)),)) for k in range(30)]
    battles = [sbs.Battle(k, "q", shown[k], shown[(k + 1) % 30]) for k in range(30)]
    asked_of: list[str] = []

    def first_always(requests, on_result):
        for r in requests:
            asked_of.append(r.body["messages"][-1]["content"])
            on_result(r, Answer("FIRST", None, 10, 1))

    judge = sbs.SideBySide("m", tmp_path, first_always)
    out = judge.decide(battles)
    assert [a.verdict for a in out] == ["tie"] * 30 and len(asked_of) == 60
    assert "evidence 0" in asked_of[0] and asked_of[0].index("Sentence 0.") < asked_of[0].index("Sentence 1.")
    assert asked_of[1].index("Sentence 1.") < asked_of[1].index("Sentence 0.")  # the other order
    assert sbs.position_bias(out) == {"answers": 60, "first": 1.0, "second": 0.0, "flagged": True}
    again = judge.decide(battles)
    assert len(asked_of) == 60 and sum(a.cached for a in again) == 60  # the cache answers
    judge.close()
    capped = sbs.SideBySide("m2", tmp_path / "c2", first_always, max_cost=0.01, price_per_1k_input=1.0)
    out = capped.decide(battles)
    assert capped.counts["over_cost"] > 0 and any(a.verdict is None for a in out)
    assert sbs.position_bias(out[:5])["flagged"] is False  # too few answers to tell
    capped.close()


def test_the_llm_decides_the_undecided_battles_in_both_orders_through_the_cache(tmp_path):
    from llm_servers import Reply, ScriptedServer

    from judges.attest.sidebyside import SYSTEM

    needs_dspy()  # the citations' questions (attest.mode: all) are formatted by dspy

    def script(n, body):  # FIRST whichever answer is first: a flip, so a tie
        return Reply(content="FIRST" if body["messages"][0]["content"] == SYSTEM else "YES")

    workflow = tmp_path / "w.yml"
    workflow.write_text("attest:\n  mode: all\n")
    cache = tmp_path / "cache"

    def judge(out, server):
        return run_cli(
            "--judge", "battle", "--rag-topics", ROOT / "datasets/rag25/topics.jsonl",
            "--rag-responses", ROOT / "runs/rag25", "--corpus", ROOT / "datasets/rag25/corpus.jsonl",
            "--workflow", workflow, "--use-env-llm", "--use-degenerate-llm", "--cache-dir", cache,
            "--out-dir", out, "--name", "B", "--no-debug-log", env=server.env(),
        )  # fmt: skip

    with ScriptedServer(script) as server:
        r = judge(tmp_path / "one", server)
        assert r.returncode == 0, r.stderr
        assert "LLM battle questions" in r.stdout and "asked in both orders" in " ".join(r.stdout.split())
        sides = [s for s in server.seen if s.body["messages"][0]["content"] == SYSTEM]
        records = [json.loads(line) for line in (tmp_path / "one" / "B.battles.jsonl").read_text().splitlines()]
        asked = [x for x in records if x["source"] == "llm"]
        assert asked and len(sides) == 2 * len(asked)  # both orders of each battle the evidence cannot decide
        assert all(x["verdict"] == "tie" and x["llm"] == {"a_first": "FIRST", "b_first": "FIRST"} for x in asked)
        assert all(max(x["p_a"], x["p_tie"], x["p_b"]) >= 0.6 for x in records if x["source"] == "judge")
        user = sides[0].body["messages"][1]["content"]
        assert "FIRST answer:" in user and "citation (" in user and "teamR" not in user  # no run shown
        figures = yaml.safe_load((tmp_path / "one" / "B.config.yml").read_text())["attest"]["battles"]
        assert figures["undecided"] == len(asked) and figures["calls"] == 2 * len(asked)
        assert figures["position"]["first"] == 1.0 and not figures["position"]["flagged"]  # too few to tell
        before = len(server.seen)
        r = judge(tmp_path / "two", server)
        assert r.returncode == 0, r.stderr
        assert len(server.seen) == before  # the cache answers every question
        assert (tmp_path / "two" / "B.battles.jsonl").read_bytes() == (
            tmp_path / "one" / "B.battles.jsonl"
        ).read_bytes()


def test_attest_export_writes_the_side_by_side_questions_into_the_batch_files(tmp_path):
    needs_dspy()
    data = ("--rag-topics", ROOT / "datasets/rag25/topics.jsonl", "--rag-responses", ROOT / "runs/rag25")
    r = run_cli("--judge", "battle", *data, "--corpus", ROOT / "datasets/rag25/corpus.jsonl", "--out-dir", tmp_path,
                "--name", "B", "--no-debug-log")  # fmt: skip
    assert r.returncode == 0, r.stderr
    r = run_cli("attest", "export", tmp_path, "--name", "B", "--attest", "all", "--model", "m")
    assert r.returncode == 0, r.stderr
    manifest = json.loads((tmp_path / "B.batch" / "manifest.json").read_text())
    assert manifest["answers"]["side_by_side"] == ["FIRST", "SECOND", "TIE"]
    sides = [k for k, q in manifest["questions"].items() if q == "side_by_side"]
    records = [json.loads(line) for line in (tmp_path / "B.battles.jsonl").read_text().splitlines()]
    undecided = [x for x in records if max(x["p_a"], x["p_tie"], x["p_b"]) < 0.6]
    assert undecided and len(sides) == 2 * len(undecided)


def test_assessors_battle_verdicts_are_final(tmp_path):
    labels = tmp_path / "battles.jsonl"
    lines = [
        {"topic_id": "rag26-01", "run_a": "teamC-loose", "run_b": "teamA-grounded", "verdict": "A"},  # C better
        {"topic_id": "rag26-02", "run_a": "teamA-grounded", "run_b": "teamB-partial", "verdict": None},
    ]
    labels.write_text("".join(json.dumps(x) + "\n" for x in lines))
    r = _battle(tmp_path / "out", "--nuggets", DATA / "nuggets.jsonl", "--labels", labels)
    assert r.returncode == 0, r.stderr
    records = [json.loads(line) for line in (tmp_path / "out" / "B.battles.jsonl").read_text().splitlines()]
    human = [x for x in records if x["source"] == "human"]
    assert [(x["topic_id"], x["run_a"], x["run_b"], x["verdict"], x["p_b"]) for x in human] == [
        ("rag26-01", "teamA-grounded", "teamC-loose", "B", 1.0)  # kept with run_a first: the verdict turned round
    ]
    assert human[0]["explanation"].startswith(f"assessor ({labels} line 1)")
    config = yaml.safe_load((tmp_path / "out" / "B.config.yml").read_text())
    assert config["counts"]["battles_labelled"] == 1 and config["counts"]["battles"] == 9
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"topic_id": "rag26-01", "run_a": "x", "run_b": "y", "verdict": "better"}) + "\n")
    r = cli_in_process("--judge", "battle", "--rag-responses", RUNS, "--corpus", DATA / "corpus.jsonl",
                       "--out-dir", tmp_path / "o2", "--labels", bad)  # fmt: skip
    assert r.returncode == 2 and f"{bad}:1: verdict: 'better': give A, B or tie" in r.stderr
    assert not (tmp_path / "o2").exists() or not any((tmp_path / "o2").iterdir())


def test_plan_assessments_draws_battles_for_assessors_round_by_round(judged, tmp_path):
    import shutil

    out, _ = judged
    work = tmp_path / "set"
    shutil.copytree(out, work)
    r = run_cli("plan-assessments", work, "--name", "B", "--battles", "1")
    assert r.returncode == 0, r.stderr
    first = [json.loads(line) for line in (work / "B.assess-battles-1.jsonl").read_text().splitlines()]
    assert first and all(x["verdict"] is None and 0 < x["inclusion_probability"] <= 1 for x in first)
    r = run_cli("plan-assessments", work, "--name", "B", "--battles", "1")
    assert r.returncode == 0 and f"left out the {len(first)} battles of earlier round" in r.stdout
    second = [json.loads(line) for line in (work / "B.assess-battles-2.jsonl").read_text().splitlines()]
    keys = lambda xs: {(x["topic_id"], x["run_a"], x["run_b"]) for x in xs}  # noqa: E731
    assert not keys(first) & keys(second)
    filled = work / "B.assess-battles-1.jsonl"
    filled.write_text("".join(json.dumps(x | {"verdict": "tie"}) + "\n" for x in first))
    r = _battle(tmp_path / "again", "--nuggets", DATA / "nuggets.jsonl", "--labels", filled)
    assert r.returncode == 0, r.stderr
    records = [json.loads(line) for line in (tmp_path / "again" / "B.battles.jsonl").read_text().splitlines()]
    assert keys(x for x in records if x["source"] == "human") == keys(first)


def test_topic_shards_merged_give_the_same_battles(judged, tmp_path):
    out, _ = judged
    common = ["--judge", "battle", "--rag-topics", DATA / "topics.jsonl", "--rag-responses", RUNS]
    common += ["--corpus", DATA / "corpus.jsonl", "--nuggets", DATA / "nuggets.jsonl", "--name", "B", "--no-debug-log"]
    for k in (1, 2, 3):
        part = run_cli(*common, "--out-dir", tmp_path / "parts", "--shard", f"{k}/3")
        assert part.returncode == 0, part.stderr
    merged = run_cli("merge", tmp_path / "merged", "--name", "B", *sorted((tmp_path / "parts").glob("*.arrow")))
    assert merged.returncode == 0, merged.stderr
    for name in BATTLE_FILES:
        assert (tmp_path / "merged" / f"B.{name}").read_bytes() == (out / f"B.{name}").read_bytes(), name


def test_report_shows_the_battles_side_by_side(judged, tmp_path):
    out, _ = judged
    r = run_cli("report", out, "--name", "B", "--report-dir", tmp_path / "site")
    assert r.returncode == 0, r.stderr
    site = tmp_path / "site"
    assert 'href="battles/index.html"' in (site / "index.html").read_text()
    ranking = (site / "battles" / "index.html").read_text()
    assert ranking.index("teamA-grounded") < ranking.index("teamB-partial") < ranking.index("teamC-loose")
    pages = sorted((site / "battles").glob("t*.html"))
    assert len(pages) == 3
    page = pages[0].read_text()
    assert page.count("<tr>") == 1 + 3 and "favours" in page and 'href="../runs/r' in page
