"""Asking many questions of an OpenAI-compatible chat endpoint: bounded, retried, never fatal.

:func:`ask_all` sends requests with at most ``concurrency`` in flight. A request that meets a
429, a 5xx, a timeout, a connection error or a reply that is not the expected JSON is retried
up to ``max_retries`` times after ``backoff_s * 2**attempt`` seconds (times a random factor in
[0.5, 1.5), so that clients do not retry in step; a ``Retry-After`` header is honoured up to 60 s).
Any other failure (400, 401, 404, ...) is final at once. A failed question becomes a
:class:`Failure` naming the reason; it never raises, so one bad response never stops a run.
Only timing is random: what is asked and what is kept do not depend on it.
"""

from __future__ import annotations

import asyncio
import json
import random
from functools import partial
from typing import Callable, NamedTuple, Optional, Union

import httpx

from judges.attest.answers import UnreadableLogprobs, p_yes
from judges.core.vocabulary import ANSWERS
from judges.attest.cache import Answer
from judges.attest.endpoint import Endpoint
from judges.formats.runs import json_type

MAX_RETRY_AFTER_S = 60.0
MALFORMED = "malformed response"  # a reply that is not a chat completion with text


class Failure(NamedTuple):
    reason: str  # e.g. "http 500", "timeout", "connection error", "malformed response"
    attempts: int
    detail: str = ""  # what could not be read, when known (a field and its problem)


class Request(NamedTuple):
    key: str
    body: dict  # the JSON body: model, messages and sampling parameters
    answers: tuple[str, ...] = ANSWERS["yes_no"]  # the question's answers (for P(YES) from log-probabilities)
    check: bool = False  # a question of the check sample (judges.attest.check)


#: Who answers questions: ``ask(requests, on_result=...)`` calls ``on_result(request, Answer |
#: Failure)`` once per request. :func:`ask_all` (bound to an endpoint) asks online;
#: :class:`judges.attest.batch.Recorder` records them for a batch file instead.
Asker = Callable[..., None]


class _Retryable(Exception):
    def __init__(self, reason: str, delay: Optional[float] = None, detail: str = ""):
        super().__init__(reason)
        self.reason, self.delay, self.detail = reason, delay, detail


async def _ask_once(
    client: httpx.AsyncClient, endpoint: Endpoint, body: dict, answers: tuple[str, ...]
) -> Union[Answer, Failure]:
    try:
        response = await client.post(endpoint.chat_url, json=body, headers=endpoint.headers())
    except httpx.TimeoutException:
        raise _Retryable("timeout") from None
    except httpx.TransportError:
        raise _Retryable("connection error") from None
    status = response.status_code
    if status == 429 or status >= 500:
        raise _Retryable(f"http {status}", _retry_after(response))
    if status != 200:
        return Failure(f"http {status}", 1)
    try:
        data = response.json()
    except ValueError:
        raise _Retryable(MALFORMED) from None
    result = read_completion(data, answers)
    if isinstance(result, Failure):
        raise _Retryable(result.reason, detail=result.detail)
    return result


def read_completion(data: object, answers: tuple[str, ...] = ANSWERS["yes_no"]) -> Union[Answer, Failure]:
    """The answer in a chat completion (the JSON body of a 200 response, as decoded), or a
    :data:`MALFORMED` failure: the reply text, P(YES) from the log-probabilities of the question's
    ``answers``, and the tokens. One reading for the online client and for Batch output
    (:mod:`judges.attest.batch`)."""
    if not isinstance(data, dict):  # a list, a string, null: no choices
        return Failure(MALFORMED, 1)
    try:
        choice = data["choices"][0]
        reply = choice["message"]["content"]
        given = data.get("usage")
        usage = given if isinstance(given, dict) else {}
        logprobs = choice.get("logprobs")
    except (KeyError, IndexError, TypeError, AttributeError):
        return Failure(MALFORMED, 1)
    if not isinstance(reply, str):  # null: no text answer (a refusal, a tool call)
        return Failure(MALFORMED, 1, f"choices[0].message.content: {json_type(reply)}, not text")
    try:
        p = p_yes(logprobs, answers)
    except UnreadableLogprobs as e:  # the reply is not read: not answered (the others are kept)
        return Failure(MALFORMED, 1, f"choices[0].{e.field}: {e.problem}")
    try:
        tokens = [_tokens(usage, k) for k in ("prompt_tokens", "completion_tokens")]
    except UnreadableLogprobs as e:
        return Failure(MALFORMED, 1, f"{e.field}: {e.problem}")
    return Answer(reply, p, *tokens)


def _tokens(usage: dict, key: str) -> int:
    """A token count of ``usage``: absent or null is 0; anything but an integer >= 0 is unreadable."""
    value = usage.get(key)
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise UnreadableLogprobs(f"usage.{key}", f"{json.dumps(value)} is not a token count (an integer >= 0)")
    return value


def _retry_after(response: httpx.Response) -> Optional[float]:
    try:
        return min(float(response.headers["retry-after"]), MAX_RETRY_AFTER_S)
    except (KeyError, ValueError):
        return None


async def _ask(client, endpoint: Endpoint, request: Request, max_retries: int, backoff_s: float, rng: random.Random):
    attempt = 0
    while True:
        try:
            result = await _ask_once(client, endpoint, request.body, request.answers)
            return result if isinstance(result, Answer) else result._replace(attempts=attempt + 1)
        except _Retryable as e:
            if attempt >= max_retries:
                return Failure(e.reason, attempt + 1, e.detail)
            delay = e.delay if e.delay is not None else backoff_s * (2**attempt) * (0.5 + rng.random())
            attempt += 1
            await asyncio.sleep(delay)


def ask_all(
    endpoint: Endpoint,
    requests: list[Request],
    *,
    concurrency: int,
    max_retries: int,
    timeout_s: float,
    backoff_s: float,
    on_result: Callable[[Request, Union[Answer, Failure]], None],
) -> None:
    """Ask every request; ``on_result(request, Answer | Failure)`` is called as each one ends."""
    if not requests:
        return

    async def ask_every() -> None:
        rng = random.Random()
        limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
        queue: asyncio.Queue[Request] = asyncio.Queue()
        for r in requests:
            queue.put_nowait(r)
        # Proxy settings from the environment apply, except to a server on this machine.
        trust_env = httpx.URL(endpoint.base_url).host not in ("127.0.0.1", "localhost", "::1")
        async with httpx.AsyncClient(timeout=httpx.Timeout(timeout_s), limits=limits, trust_env=trust_env) as client:

            async def worker() -> None:
                while not queue.empty():
                    request = queue.get_nowait()
                    on_result(request, await _ask(client, endpoint, request, max_retries, backoff_s, rng))

            await asyncio.gather(*(worker() for _ in range(min(concurrency, len(requests)))))

    asyncio.run(ask_every())


def online(endpoint: Endpoint, attest) -> Asker:
    """The asker of ``endpoint``, online (:func:`ask_all`), as ``attest`` (the workflow's
    :class:`judges.core.config.AttestSettings`) says: concurrency, retries, timeout and backoff."""
    return partial(
        ask_all,
        endpoint,
        concurrency=attest.concurrency,
        max_retries=attest.max_retries,
        timeout_s=attest.timeout_s,
        backoff_s=attest.backoff_s,
    )
