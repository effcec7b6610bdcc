"""A SIMULATED LLM that answers the same question the same way online and in batch files.

Not a model: a stand-in for the batch round trip (``attest export`` -> answers -> ``attest
import`` -> judge again), which must give the outputs of the online path byte for byte.

* :func:`completion`: the chat completion for a request body. The answer is read off a hash of
  the messages (YES / NO, or FULL / PARTIAL / NONE for the ``support_level`` question), or with
  ``--oracle DATA`` taken from the NIST labels of rag24-support with an ``--error`` rate
  (:class:`Oracle` and :func:`reply`, which ``bench/attest_simulated.py`` serves too);
  log-probabilities (when the body asks for them) and token counts come from the same hash and
  the prompt's length, so P(YES) and the tokens are exercised too.
* :func:`serve`: a loopback OpenAI-compatible server answering with :func:`completion` (online).
* the command line answers a Batch API input file the way ``vllm run_batch`` does::

      python bench/standin_batch.py -i requests-0001.jsonl -o answers-0001.jsonl [--oracle ../shared/data --error 0.1]

  writing one output line per request: ``{"id", "custom_id", "response": {"status_code": 200,
  "request_id", "body"}, "error": null}``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Callable

LEVELS = ("FULL", "PARTIAL", "NONE")


def _uniform(text: str, salt: str = "") -> float:
    return int.from_bytes(hashlib.sha256((salt + text).encode()).digest()[:8], "big") / 2**64


def _messages_text(body: dict) -> str:
    return json.dumps(body.get("messages"), sort_keys=True, ensure_ascii=False)


def _answers(body: dict) -> tuple[str, ...]:
    messages = body.get("messages") or [{}]
    return LEVELS if "FULL, PARTIAL or NONE" in str(messages[0].get("content")) else ("YES", "NO")


def hashed(body: dict) -> str:
    """The stand-in's answer: one of the question's answers, chosen by a hash of the messages."""
    answers = _answers(body)
    return answers[int(_uniform(_messages_text(body)) * len(answers))]


def completion(body: dict, content_of: Callable[[dict], str] = hashed) -> dict:
    """The chat completion the stand-in gives for a request ``body``."""
    text = content_of(body)
    key = _messages_text(body)
    choice = {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
    if body.get("logprobs"):
        answers = _answers(body)
        p_top = 0.55 + 0.44 * _uniform(key, "p")  # the answer's probability; the rest shared by the others
        others = [a for a in answers if a != text]
        alternatives = [(text, p_top)] + [(a, (1 - p_top) / len(others)) for a in others]
        top = [{"token": t, "logprob": round(math.log(p), 6)} for t, p in alternatives]
        choice["logprobs"] = {"content": [{**top[0], "top_logprobs": top}]}
    prompt_tokens = len(key) // 4
    return {
        "id": "standin-" + hashlib.sha256(key.encode()).hexdigest()[:12],
        "object": "chat.completion",
        "model": body.get("model"),
        "choices": [choice],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": 1, "total_tokens": prompt_tokens + 1},
    }


def output_line(n: int, request: dict, content_of: Callable[[dict], str] = hashed) -> dict:
    """The ``vllm run_batch`` / Batch API output line for the ``n``-th request line."""
    return {
        "id": f"standin-batch-{n}",
        "custom_id": request["custom_id"],
        "response": {
            "status_code": 200,
            "request_id": f"standin-req-{n}",
            "body": completion(request["body"], content_of),
        },
        "error": None,
    }


def answer_file(source: Path, target: Path, content_of: Callable[[dict], str] = hashed) -> int:
    """Answer every request line of ``source`` into ``target``; returns the number of lines."""
    n = 0
    with open(source, encoding="utf-8") as fin, open(target, "w", encoding="utf-8") as fout:
        for n, raw in enumerate(fin, start=1):
            fout.write(json.dumps(output_line(n, json.loads(raw), content_of), ensure_ascii=False) + "\n")
    return n


def serve(content_of: Callable[[dict], str] = hashed) -> ThreadingHTTPServer:
    """The stand-in online: a loopback server (127.0.0.1, a free port) in a thread; ``.requests``
    counts the requests it answered; ``.shutdown()`` stops it."""
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *a):
            pass

        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            with lock:
                server.requests += 1
            out = json.dumps(completion(body, content_of)).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.requests = 0
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


# -- the simulated model: answers from the assessors' labels, wrong at a chosen rate -------------

SENTENCE = re.compile(r"\[\[ ## sentence ## \]\]\n(.*?)\n\n\[\[ ## document ## \]\]\n(.*?)(?:\n\n\[\[ ## |\Z)", re.S)


class Oracle:
    """Answers from the labels: per (sentence, document) the assessors' label."""

    def __init__(self, data: Path):
        d = data / "rag24-support"
        segments = {json.loads(line)["docid"]: json.loads(line)["segment"] for line in open(d / "segments.jsonl")}
        answers = {}
        for f in sorted((d / "runs").glob("*.jsonl")):
            for line in open(f):
                r = json.loads(line)
                answers[(r["run_id"], r["topic_id"])] = r["answer"]
        self.by_sentence: dict[str, list[tuple[str, str]]] = {}
        for line in open(d / "labels.jsonl"):
            lab = json.loads(line)
            text = answers[(lab["run_id"], lab["topic_id"])][lab["sentence_index"]]["text"]
            if isinstance(text, str):
                self.by_sentence.setdefault(text, []).append((segments[lab["doc_id"]], lab["label"]))

    def label(self, sentence: str, evidence: str) -> str:
        options = self.by_sentence.get(sentence, [])
        probe = evidence.strip()[:60]
        for doc, label in options:
            if probe and probe in doc:
                return label
        return options[0][1] if options else "not_supported"


def flipped(error: float, key: str) -> bool:
    return _uniform(key) < error


LABEL_LEVEL = {"supported": "FULL", "partially": "PARTIAL", "not_supported": "NONE"}


def reply(oracle: Oracle, messages: list[dict], error: float) -> str:
    """The simulated model's answer to the attestation question in ``messages``."""
    m = SENTENCE.search(messages[-1]["content"])
    sentence, evidence = (m.group(1), m.group(2)) if m else ("", "")
    label = oracle.label(sentence, evidence)
    key = sentence + "\x00" + evidence
    if "FULL, PARTIAL or NONE" in messages[0]["content"]:  # the support_level question (its instructions)
        answer = LABEL_LEVEL[label]
        if flipped(error, key):
            others = [v for v in LABEL_LEVEL.values() if v != answer]
            answer = others[int(_uniform("other\x00" + key) * 2)]
        return answer
    yes = label == "supported"
    return "YES" if yes != flipped(error, key) else "NO"


def oracle_content(data: Path, error: float) -> Callable[[dict], str]:
    """Answers from the NIST labels of rag24-support with an error rate (:class:`Oracle`)."""
    oracle = Oracle(data)
    return lambda body: reply(oracle, body["messages"], error)


def main() -> None:
    ap = argparse.ArgumentParser(description="Answer a Batch API input file as the SIMULATED stand-in LLM does.")
    ap.add_argument("-i", "--input-file", type=Path, required=True)
    ap.add_argument("-o", "--output-file", type=Path, required=True)
    ap.add_argument("--model", help="accepted as vllm run_batch accepts it (the requests name their model)")
    ap.add_argument("--oracle", type=Path, help="shared data directory: answer from rag24-support's labels")
    ap.add_argument("--error", type=float, default=0.0, help="with --oracle: share of wrong answers")
    args = ap.parse_args()
    content_of = oracle_content(args.oracle, args.error) if args.oracle else hashed
    n = answer_file(args.input_file, args.output_file, content_of)
    print(f"answered {n} requests into {args.output_file}")


if __name__ == "__main__":
    main()
