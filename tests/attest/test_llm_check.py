"""The LLM is checked before it is used (judges.attest.check): the figures on counts, the draw,
then the CLI as a subprocess against SIMULATED loopback LLMs (one answering at random, one right
80% of the time), online and through batch files (in a Python that cannot import dspy), and the
reply reader against log-probabilities it cannot read."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from helpers import ROOT, needs_dspy, run_cli
from llm_servers import Reply, ScriptedServer, by_hash

import judges
from judges.attest import check
from judges.attest.answers import p_yes
from judges.attest.cache import Answer
from judges.attest.client import MALFORMED, Failure, read_completion
from judges.attest.degenerate import FULL, NOT_FULL, answers_used, figures
from judges.core.config import AttestSettings

sys.path.insert(0, str(ROOT / "bench"))
import standin_batch  # noqa: E402

MINI = ROOT / "datasets" / "rag24-mini"
DATA = ("--rag-topics", MINI / "topics.jsonl", "--rag-responses", MINI / "runs", "--corpus", MINI / "segments.jsonl")
OUTPUTS = ("leaderboard.txt", "qrels", "assessments.parquet")


# -- the figures and the rule ---------------------------------------------------------------------
def test_an_llm_right_80_percent_of_the_time_on_40_check_pairs_passes_with_these_figures():
    tally = {("YES", FULL): 16, ("NO", FULL): 4, ("NO", NOT_FULL): 16, ("YES", NOT_FULL): 4}
    found = check.figures(tally, 20)
    # p_o 0.8, p_e 0.5: kappa 0.6, se sqrt(0.8 x 0.2 / 40) / 0.5 = 0.1265, +-1.96 se
    assert found == {
        "size": 20,
        "drawn": {"supported": 20, "not_supported": 20},
        "answered": {"supported": 20, "not_supported": 20},
        "sensitivity": 0.8,
        "specificity": 0.8,
        "agreement": 0.8,
        "kappa": 0.6,
        "kappa_low": 0.3521,
        "kappa_high": 0.8479,
        "verdict": "passed",
        "message": found["message"],
    }
    assert found["message"].endswith("(95% interval 0.352 to 0.848): better than chance")


def test_answers_at_chance_level_fail_and_are_not_used_unless_forced():
    tally = {("YES", FULL): 10, ("NO", FULL): 10, ("NO", NOT_FULL): 10, ("YES", NOT_FULL): 10}
    found = check.figures(tally, 20)
    assert found["verdict"] == "chance" and found["kappa"] == 0.0 and found["kappa_low"] < 0 < found["kappa_high"]
    assert "no better than chance" in found["message"]
    answers = {("YES", "unsure"): 30, ("NO", "unsure"): 30}
    policy = AttestSettings()
    session = figures(answers, found, policy) | {"changed": 12}
    assert session["degenerate"] == {"reason": "chance", "message": found["message"]}
    assert not answers_used(session, strict=False, used=False)
    assert session["changed"] == 0 and session["degenerate"]["changed_unused"] == 12  # only answers used change
    forced = figures(answers, found, policy.model_copy(update={"check_use": "always"}))
    assert answers_used(forced, strict=True, used=False) and forced["degenerate"]["used"] is True
    # an LLM the check passes is not flagged by it
    good = {("YES", FULL): 18, ("NO", FULL): 2, ("NO", NOT_FULL): 17, ("YES", NOT_FULL): 3}
    assert figures(answers, check.figures(good, 20), policy)["degenerate"] is None


def test_unanswered_check_questions_leave_the_llm_unchecked_and_a_small_session_too_few():
    drawn = {(check.UNANSWERED, FULL): 18, ("YES", FULL): 2, ("NO", NOT_FULL): 20}
    found = check.figures(drawn, 20)
    assert found["verdict"] == "unchecked" and check.failed(found) and "kappa" not in found
    small = check.figures({("YES", FULL): 4, ("NO", NOT_FULL): 9}, 20)
    assert small["verdict"] == "too_few" and not check.failed(small)
    assert check.figures({}, 0)["verdict"] == "off"


def test_the_draw_takes_size_pairs_of_each_sure_side_the_same_whatever_the_order():
    keys = [("r", "t", i, 0) for i in range(200)]
    p_full = [0.95 if i % 3 == 0 else 0.05 if i % 3 == 1 else 0.5 for i in range(200)]
    p_any = [min(1.0, p + 0.02) for p in p_full]
    excluded = [i % 10 == 0 for i in range(200)]
    drawn = check.draw(keys, p_any, p_full, excluded, 20, seed=0)
    assert sum(v == FULL for v in drawn.values()) == 20 and sum(v == NOT_FULL for v in drawn.values()) == 20
    assert all(not excluded[k[2]] and p_full[k[2]] != 0.5 for k in drawn)
    order = list(reversed(range(200)))
    again = check.draw([keys[i] for i in order], [p_any[i] for i in order], [p_full[i] for i in order],
                       [excluded[i] for i in order], 20, seed=0)  # fmt: skip
    assert again == drawn
    assert check.draw(keys, p_any, p_full, excluded, 20, seed=1) != drawn
    assert check.draw(keys[:12], p_any[:12], p_full[:12], [False] * 12, 20) == {}  # 4 of a side: too few


def test_the_stored_prompt_templates_are_what_dspy_renders():
    """Asking fills judges/attest/prompts.json (no dspy); dspy must still render exactly these messages."""
    needs_dspy()
    from judges.attest import prompt

    assert prompt.render_templates() == json.loads(prompt.TEMPLATES.read_text(encoding="utf-8"))
    said = prompt.messages("a \\1 {claim}", "the \x00EVIDENCE\x00 text")
    assert said[-1]["content"].count("a \\1 {claim}") == 1 and "the \x00EVIDENCE\x00 text" in said[-1]["content"]


# -- the reply reader --------------------------------------------------------------------------
def _completion(logprobs) -> dict:
    return {
        "choices": [{"message": {"content": "YES"}, "logprobs": logprobs}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 1},
    }


def test_a_log_probability_above_0_or_a_top_logprobs_that_is_no_list_is_one_unread_reply():
    high = {"content": [{"token": "YES", "logprob": 0.0, "top_logprobs": [{"token": "YES", "logprob": 800}]}]}
    assert read_completion(_completion(high)) == Failure(
        MALFORMED, 1, "choices[0].logprobs.content[0].top_logprobs[0].logprob: 800 is not a log-probability (above 0)"
    )
    number = {"content": [{"token": "YES", "logprob": -0.1, "top_logprobs": 5}]}
    failed = read_completion(_completion(number))
    assert isinstance(failed, Failure) and failed.detail.startswith("choices[0].logprobs.content[0].top_logprobs: int")
    nan = {"content": [{"token": "YES", "logprob": float("nan")}]}
    assert (
        read_completion(_completion(nan)).detail
        == "choices[0].logprobs.content[0].logprob: nan is not a log-probability"
    )
    text = {"content": [{"token": "YES", "logprob": "-0.1"}]}  # no number: unread, as a number out of range
    assert read_completion(_completion(text)) == Failure(
        MALFORMED, 1, 'choices[0].logprobs.content[0].logprob: "-0.1" is not a log-probability (not a number)'
    )
    absent = {"content": [{"token": "YES", "logprob": None}]}  # absent: passed over
    assert read_completion(_completion(absent)) == Answer("YES", None, 10, 1)
    top = [{"token": "YES", "logprob": 1e-6}, {"token": "NO", "logprob": -1e6}]
    fine = {"content": [{"token": "YES", "logprob": 1e-6, "top_logprobs": top}]}
    assert read_completion(_completion(fine)) == Answer("YES", 1.0, 10, 1)  # rounding above 0 is 0; exp underflows
    assert p_yes({"content": [{"token": "YES", "logprob": -0.5, "top_logprobs": None}]}) == 1.0


def test_the_online_client_reads_a_reply_with_a_log_probability_of_800_as_one_failed_answer(tmp_path):
    """The same reader online: the reply is retried, then one failed request; the others are answered."""
    from judges.core.config import Workflow

    bad = _completion(
        {"content": [{"token": "YES", "logprob": 0.0, "top_logprobs": [{"token": "NO", "logprob": 800}]}]}
    )

    def script(n: int, body: dict) -> Reply:
        first = "Revenue" in _sentence(body)  # the first sentence's question only
        return Reply(body=json.dumps(bad).encode()) if first else Reply(content="NO")

    workflow = Workflow.model_validate({"attest": {"mode": "all", "max_retries": 0}})
    sources = [{"id": "q3", "text": "Q3 report: revenue rose 12% to $1.5 million, a record. Costs fell."}]
    with ScriptedServer(script) as server:
        checked = judges.check_answer(
            "Revenue rose 12% to $1.5 million [q3]. Costs fell [q3].", sources, workflow=workflow,
            attest=server.env(), cache_dir=tmp_path,
        )  # fmt: skip
    figures = checked.attestation
    assert figures["failed_requests"] == {"malformed response": 1} and figures["failed"] == 1
    assert figures["answers"] == {"NO": 1}  # the other answer is kept


# -- the CLI against loopback stand-ins ------------------------------------------------------------
@pytest.fixture(scope="module")
def plain(tmp_path_factory) -> Path:
    """The bundled sample judged without the LLM."""
    out = tmp_path_factory.mktemp("plain")
    result = run_cli(*DATA, "--out-dir", out, "--name", "x")
    assert result.returncode == 0, result.stderr
    return out


def _sentence(body: dict) -> str:
    m = standin_batch.SENTENCE.search(body["messages"][-1]["content"])
    return m.group(1) if m else ""


def right_80_percent(plain: Path):
    """Answers as the judge's model decides each sentence (its largest P(full) >= 0.5: YES), the
    opposite for a fifth of the questions (by a hash of the question)."""
    a = judges.read_assessments(plain)
    decides = a.groupby("sentence").p_full.max().ge(0.5).to_dict()

    def script(n: int, body: dict) -> Reply:
        yes = bool(decides.get(_sentence(body), False))
        key = json.dumps(body["messages"], sort_keys=True).encode()
        flip = int(hashlib.sha256(key).hexdigest()[:8], 16) / 16**8 < 0.2
        return Reply(content="YES" if yes != flip else "NO")

    return script


def judge(out: Path, server: ScriptedServer, *extra) -> subprocess.CompletedProcess:
    args = [*DATA, "--out-dir", out, "--name", "x", "--use-env-llm", "--attest", "uncertain", *extra]
    return run_cli(*args, "--cache-dir", out / "cache", env=server.env())


def attest_figures(out: Path) -> dict:
    return yaml.safe_load((out / "x.config.yml").read_text())["attest"]


def test_an_llm_answering_at_random_is_flagged_and_not_used(tmp_path, plain):
    with ScriptedServer(by_hash) as server:
        result = judge(tmp_path / "r", server)
        planned = attest_figures(tmp_path / "r")["selected"]
        assert len(server.seen) > planned  # the check questions were asked beside the plan, once each
    assert result.returncode == 0, result.stderr
    a = attest_figures(tmp_path / "r")
    assert a["check"]["verdict"] == "chance" and a["check"]["kappa_low"] <= 0
    assert a["check"]["drawn"] == {"supported": 20, "not_supported": 20}
    assert a["degenerate"]["reason"] == "chance" and a["degenerate"]["used"] is False
    assert a["changed"] == 0 and a["degenerate"]["changed_unused"] > 0
    said = [line for line in result.stderr.splitlines() if "no better than chance" in line]
    assert len(said) == 1 and "not used: the citations keep the support model's judgment" in said[0]
    assert "LLM check" in result.stdout and "chance: 20 sure supported + 20 sure not asked" in result.stdout
    for f in OUTPUTS:  # the judge's own judgment, as without the LLM
        assert (tmp_path / "r" / f"x.{f}").read_bytes() == (plain / f"x.{f}").read_bytes(), f
    with ScriptedServer(by_hash) as server:  # the workflow key forces their use (all from the cache)
        wf = tmp_path / "always.yml"
        wf.write_text(yaml.safe_dump({"attest": {"check_use": "always"}}))
        forced = judge(tmp_path / "r", server, "--workflow", wf)
        assert server.seen == []
    assert forced.returncode == 0, forced.stderr
    assert "used all the same (attest.check_use: always)" in forced.stderr
    assert attest_figures(tmp_path / "r")["changed"] > 0


def test_an_llm_right_80_percent_of_the_time_passes_and_is_used(tmp_path, plain):
    with ScriptedServer(right_80_percent(plain)) as server:
        result = judge(tmp_path / "g", server)
    assert result.returncode == 0, result.stderr
    a = attest_figures(tmp_path / "g")
    assert a["check"]["verdict"] == "passed" and a["check"]["kappa_low"] > 0, a["check"]
    assert a["degenerate"] is None and a["changed"] > 0
    assert "no better than chance" not in result.stderr
    assert (tmp_path / "g" / "x.qrels").read_bytes() != (plain / "x.qrels").read_bytes()


# -- batch files, in a Python that cannot import dspy --------------------------------------------
NO_DSPY = (
    "import runpy, sys; sys.modules['dspy'] = None; sys.argv = sys.argv[1:]; "
    "runpy.run_path(sys.argv[0], run_name='__main__')"
)


def run_without_dspy(*args, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    """``run_judge.py ARGS`` in a Python where ``import dspy`` fails."""
    cmd = [sys.executable, "-c", NO_DSPY, str(ROOT / "run_judge.py"), *map(str, args)]
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=1800)


def test_the_batch_round_trip_runs_without_dspy_and_random_answers_are_not_used(tmp_path, plain):
    hidden = subprocess.run([sys.executable, "-c", NO_DSPY.split("; sys.argv")[0] + "; import dspy"])
    assert hidden.returncode != 0  # the wrapper hides dspy
    out, cache = tmp_path / "out", tmp_path / "cache"
    cfg = tmp_path / "llm.yml"  # a server nobody listens on: every answer must come from the cache
    cfg.write_text(yaml.safe_dump({"OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "OPENAI_MODEL": "m"}))
    steps = [
        [*DATA, "--out-dir", out, "--name", "x"],
        ["attest", "export", out, "--name", "x", "--attest", "uncertain", "--llm-config", cfg, "--cache-dir", cache],
    ]
    for step in steps:
        result = run_without_dspy(*step)
        assert result.returncode == 0, result.stderr
    exported = result.stdout
    manifest = json.loads((out / "x.batch" / "manifest.json").read_text())
    assert 35 <= len(manifest["check"]) <= 40  # 20 pairs each way; pairs asking the same question ask it once
    assert f"check questions (pairs the judge is sure of, to measure the LLM): {len(manifest['check'])}" in exported
    answers = tmp_path / "answers.jsonl"  # the stand-in answers YES or NO by a hash: at random
    standin_batch.answer_file(out / "x.batch" / "requests-0001.jsonl", answers)
    result = run_without_dspy("attest", "import", out, "--name", "x", "--cache-dir", cache, answers)
    assert result.returncode == 0, result.stderr
    args = [*DATA, "--out-dir", out, "--name", "x", "--attest", "uncertain", "--llm-config", cfg]
    result = run_without_dspy(*args, "--cache-dir", cache)
    assert result.returncode == 0, result.stderr
    a = attest_figures(out)
    assert a["calls"] == 0 and a["failed"] == 0  # every answer from the cache, none asked
    assert a["check"]["verdict"] == "chance" and a["degenerate"]["used"] is False and a["changed"] == 0
    assert "no better than chance" in result.stderr
    for f in OUTPUTS:
        assert (out / f"x.{f}").read_bytes() == (plain / f"x.{f}").read_bytes(), f


def test_an_import_without_the_check_answers_says_so_and_the_llm_is_then_unchecked(tmp_path):
    out, cache = tmp_path / "out", tmp_path / "cache"
    cfg = tmp_path / "llm.yml"
    cfg.write_text(yaml.safe_dump({"OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "OPENAI_MODEL": "m"}))
    assert run_cli(*DATA, "--out-dir", out, "--name", "x").returncode == 0
    exported = run_cli("attest", "export", out, "--name", "x", "--attest", "uncertain", "--llm-config", cfg,
                       "--cache-dir", cache)  # fmt: skip
    assert exported.returncode == 0, exported.stderr
    check_keys = set(json.loads((out / "x.batch" / "manifest.json").read_text())["check"])
    requests = [json.loads(line) for line in (out / "x.batch" / "requests-0001.jsonl").open()]
    answers = tmp_path / "answers.jsonl"
    answers.write_text("".join(json.dumps(standin_batch.output_line(n, r)) + "\n"
                               for n, r in enumerate(requests, 1) if r["custom_id"] not in check_keys))  # fmt: skip
    result = run_cli("attest", "import", out, "--name", "x", "--cache-dir", cache, answers)
    assert f"warning: {len(check_keys)} of the {len(check_keys)} check questions" in result.stderr
    assert "until they do, the LLM is unchecked and the judge does not use its answers" in result.stderr


def test_an_unreadable_reply_in_an_answers_file_is_one_line_naming_the_field_and_the_others_are_kept(tmp_path):
    out, cache = tmp_path / "out", tmp_path / "cache"
    assert run_cli(*DATA, "--out-dir", out, "--name", "x").returncode == 0
    exported = run_cli("attest", "export", out, "--name", "x", "--attest", "uncertain", "--model", "m",
                       "--cache-dir", cache)  # fmt: skip
    assert exported.returncode == 0, exported.stderr
    requests = [json.loads(line) for line in (out / "x.batch" / "requests-0001.jsonl").open()]
    lines = [standin_batch.output_line(n, r) for n, r in enumerate(requests, 1)]
    for line in lines:  # the stand-in gives log-probabilities: the bodies ask for them
        assert line["response"]["body"]["choices"][0]["logprobs"]
    lines[2]["response"]["body"]["choices"][0]["logprobs"]["content"][0]["top_logprobs"][0]["logprob"] = 800
    lines[5]["response"]["body"]["choices"][0]["logprobs"]["content"][0]["top_logprobs"] = 5
    answers = tmp_path / "answers.jsonl"
    answers.write_text("".join(json.dumps(line) + "\n" for line in lines))
    result = run_cli("attest", "import", out, "--name", "x", "--cache-dir", cache, answers)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    field = "malformed response: response.body.choices[0].logprobs.content[0].top_logprobs"
    assert f"{answers}:3: {field}[0].logprob: 800 is not a log-probability (above 0)" in result.stderr.splitlines()
    assert f"{answers}:6: {field}: int 5 is not a list" in result.stderr.splitlines()
    assert f"applied: {len(lines) - 2} new answers to the cache" in result.stdout  # the others are kept
    assert "rejected: 2 (2 malformed response)" in result.stdout


# -- nugget pairs: the same check --------------------------------------------------------------------
NUGGETS = ROOT / "datasets" / "rag24-nuggets-mini"


def three_levels_at_random(n: int, body: dict) -> Reply:
    """FULL, PARTIAL or NONE by a (salted) hash of the question: at random. Deterministic, so its
    check is too (this salt's draw agrees with the sure pairs no better than chance)."""
    digest = hashlib.sha256(("salt1" + json.dumps(body["messages"], sort_keys=True)).encode()).digest()
    return Reply(content=("FULL", "PARTIAL", "NONE")[digest[0] % 3])


def test_nugget_answers_at_random_are_checked_and_not_used(tmp_path):
    args = ["--judge", "nugget", "--rag-topics", NUGGETS / "topics.jsonl", "--rag-responses", NUGGETS / "runs"]
    args += ["--nuggets", NUGGETS / "nuggets.jsonl", "--out-dir", tmp_path / "o", "--name", "N", "--use-env-llm"]
    with ScriptedServer(three_levels_at_random) as server:
        result = run_cli(*args, "--cache-dir", tmp_path / "c", "--attest", "uncertain", env=server.env())
        calls = len(server.seen)
    assert result.returncode == 0, result.stderr
    nuggets = yaml.safe_load((tmp_path / "o" / "N.config.yml").read_text())["attest"]["nuggets"]
    assert calls == nuggets["calls"] > nuggets["selected"]  # the check questions beside the plan
    assert nuggets["check"]["verdict"] == "chance" and nuggets["check"]["kappa_low"] <= 0
    assert nuggets["degenerate"]["reason"] == "chance" and nuggets["degenerate"]["used"] is False
    assert nuggets["changed"] == 0
    assert "no better than chance (the interval reaches 0) (nugget pairs); not used" in result.stderr
    assert "LLM nugget check" in result.stdout
    assert judges.read_nuggets(tmp_path / "o", "N").llm_answer.isna().all()  # the nugget model's judgments stand
