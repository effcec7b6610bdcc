"""Batch files for the LLM stage: the questions of a session as OpenAI Batch API request lines,
and Batch API or ``vllm run_batch`` output lines read back into the answer cache.

``run_judge.py attest export`` judges a recorded set again in memory (:func:`judges.session.pipeline.questions`)
with a :class:`Recorder` as the attester's asker: the cascade selects, guards, cuts the evidence
and builds the messages exactly as online, looks each question up in the answer cache, and hands
the rest to the recorder instead of the endpoint. Each recorded question is one request line::

    {"custom_id": KEY, "method": "POST", "url": "/v1/chat/completions", "body": BODY}

``KEY`` is the answer cache's key (:func:`judges.attest.cache.question_key`), ``BODY`` the JSON
body the online client posts (model, messages, temperature, max_tokens, seed, logprobs); no API
key is ever written. A question asked several times in the session (the same sentence and
evidence in several runs) is one request. The lines are split into files of at most
:data:`MAX_REQUESTS` requests and :data:`MAX_BYTES` bytes (the Batch API's limits; :func:`split`),
``requests-0001.jsonl`` ..., beside a ``manifest.json``: the model, each key's question and the
answers its log-probabilities are read for, which questions are the check sample's
(:mod:`judges.attest.check`: an import that lacks their answers says so, since the LLM is then
unchecked and its answers are not used), the prices and the Batch discount. An export again
into the same directory replaces the request files but keeps every earlier export's manifest, as
``manifest-1.json``, ``manifest-2.json``, ... (first export first): the answers a Batch job
returns for an earlier export stay known.

``run_judge.py attest import`` reads output lines (both runners write
``{"id", "custom_id", "response": {"status_code", "request_id", "body"}, "error"}``): a line
whose ``custom_id`` a manifest of the directory names (this export's or an earlier one's), with
status 200, no error and a chat completion as its body, is read by
:func:`judges.attest.client.read_completion` (the online client's reading: reply, P(YES),
tokens) and stored in the cache. Any other line (malformed JSON, an unknown or
repeated id, an error, another status, a body that is no completion) is reported with its file,
line and reason and never applied; an answer the cache holds already is counted, not stored
again. The next judge run then finds every answer in the cache.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator, NamedTuple, Optional, Union

from pydantic import ValidationError

from judges.attest.cache import Answer, AnswerCache
from judges.attest.client import Failure, Request, read_completion
from judges.core.config import AttestSettings
from judges.core.errors import InputError
from judges.formats.atomic import atomic_text
from judges.core.vocabulary import READINGS

MAX_REQUESTS = 50_000  # requests per Batch API input file
MAX_BYTES = 200_000_000  # bytes per Batch API input file (200 MB)
URL = "/v1/chat/completions"
MANIFEST = "manifest.json"
FORMAT = "citejudge attest batch 1"
NOT_ASKED = "not asked: exported to a batch file"


def request_file(n: int) -> str:
    return f"requests-{n:04d}.jsonl"


class Recorder:
    """An asker (:data:`judges.attest.client.Asker`) that records the questions instead of
    posting them; each gets the :class:`Failure` :data:`NOT_ASKED`, so the session goes on (its
    judgments are not written). ``requests``: each distinct question once, first asked first (the
    session counts every citation asked about, ``attest_failed``)."""

    def __init__(self) -> None:
        self.requests: dict[str, Request] = {}

    def __call__(self, requests: list[Request], on_result) -> None:
        for request in requests:
            known = self.requests.setdefault(request.key, request)
            if request.check and not known.check:  # asked to check the LLM too (judges.attest.check)
                self.requests[request.key] = known._replace(check=True)
            on_result(request, Failure(NOT_ASKED, 0))


def request_line(request: Request) -> bytes:
    """One Batch API request line (newline included)."""
    line = {"custom_id": request.key, "method": "POST", "url": URL, "body": request.body}
    return (json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")


def split(
    lines: Iterable[bytes], max_requests: int = MAX_REQUESTS, max_bytes: int = MAX_BYTES
) -> Iterator[list[bytes]]:
    """The lines in order, in files of at most ``max_requests`` lines and ``max_bytes`` bytes, each
    file as full as the limits allow. A single line longer than ``max_bytes`` is a ``ValueError``."""
    chunk: list[bytes] = []
    size = 0
    for line in lines:
        if len(line) > max_bytes:
            raise ValueError(f"a request of {len(line):,} bytes is longer than a file may be ({max_bytes:,} bytes)")
        if chunk and (len(chunk) >= max_requests or size + len(line) > max_bytes):
            yield chunk
            chunk, size = [], 0
        chunk.append(line)
        size += len(line)
    if chunk:
        yield chunk


def question_of(answers: tuple[str, ...]) -> str:
    """The question (``attest.question``) whose answers these are."""
    return next(q for q, words in READINGS.items() if tuple(words) == tuple(answers))


def write_batch(
    directory: Path,
    name: str,
    requests: list[Request],
    model: str,
    settings: AttestSettings,
    max_requests: int = MAX_REQUESTS,
    max_bytes: int = MAX_BYTES,
) -> list[dict]:
    """Write ``requests`` as request files and the manifest into ``directory``, replacing the
    request files an earlier export left there and keeping its manifests (``manifest.json`` as
    the next ``manifest-K.json``); the directory is staged beside it and swapped in. Returns the
    files written (``file``, ``requests``, ``bytes``)."""
    directory = Path(directory)
    check_replaceable(directory)
    stage = directory.with_name(f".{directory.name}.stage-{os.getpid()}")
    shutil.rmtree(stage, ignore_errors=True)
    stage.mkdir(parents=True)
    try:
        earlier = earlier_manifests(directory)
        for k, path in enumerate(earlier, start=1):  # every earlier export's manifest, kept
            shutil.copyfile(path, stage / earlier_manifest(k))
        if (directory / MANIFEST).is_file():
            shutil.copyfile(directory / MANIFEST, stage / earlier_manifest(len(earlier) + 1))
        files = []
        for n, chunk in enumerate(split(map(request_line, requests), max_requests, max_bytes), start=1):
            (stage / request_file(n)).write_bytes(b"".join(chunk))
            files.append({"file": request_file(n), "requests": len(chunk), "bytes": sum(map(len, chunk))})
        manifest = {
            "format": FORMAT,
            "name": name,
            "model": model,
            "url": URL,
            "answers": {q: list(words) for q, words in READINGS.items()},
            "prices": {
                "price_per_1k_input": settings.price_per_1k_input,
                "price_per_1k_output": settings.price_per_1k_output,
                "batch_discount": settings.batch_discount,
            },
            "files": files,
            "questions": {r.key: question_of(r.answers) for r in requests},
            "check": sorted(r.key for r in requests if r.check),
        }
        with atomic_text(stage / MANIFEST) as f:
            json.dump(manifest, f, ensure_ascii=False, indent=1)
            f.write("\n")
        old = directory.with_name(f".{directory.name}.old-{os.getpid()}")
        if directory.exists():
            directory.rename(old)
        stage.rename(directory)
        shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        raise
    return files


def check_replaceable(directory: Path) -> None:
    """Only a directory of request files and a manifest is replaced (never another directory):
    ``attest export`` checks its ``--batch-dir`` with this before judging, so a refusal leaves
    nothing behind (not even the answer cache the judging opens)."""
    if not directory.exists():
        return
    if not directory.is_dir():
        raise InputError(directory, None, "--batch-dir", "exists and is not a directory")
    foreign = [
        p.name
        for p in directory.iterdir()
        if not (p.name == MANIFEST or EARLIER.fullmatch(p.name) or _is_request_file(p.name))
    ]
    if foreign:
        raise InputError(
            directory, None, "--batch-dir", f"holds {foreign[0]!r}, not written by attest export: choose another"
        )


def _is_request_file(name: str) -> bool:
    return name.startswith("requests-") and name.endswith(".jsonl")


EARLIER = re.compile(r"manifest-([1-9][0-9]*)\.json")  # an earlier export's manifest, kept


def earlier_manifest(k: int) -> str:
    return f"manifest-{k}.json"


def earlier_manifests(directory: Path) -> list[Path]:
    """The manifests of the earlier exports into ``directory``, first export first."""
    if not Path(directory).is_dir():
        return []
    found = [(int(m.group(1)), p) for p in Path(directory).iterdir() if (m := EARLIER.fullmatch(p.name))]
    return [p for _, p in sorted(found)]


# -- import ---------------------------------------------------------------------------------------
@dataclass
class Manifest:
    path: Path
    model: str
    questions: dict[str, str]  # custom_id -> question (attest.question)
    answers: dict[str, tuple[str, ...]]  # question -> its answers (the first affirmative)
    prices: dict
    models: dict[str, str] = field(default_factory=dict)  # custom_id -> model, where an earlier export's differs
    earlier: int = 0  # earlier exports' manifests read with it (read_manifests)
    check: set[str] = field(default_factory=set)  # the check sample's questions (judges.attest.check)

    def model_of(self, key: str) -> str:
        return self.models.get(key, self.model)

    def where(self) -> str:
        """The manifests, for messages."""
        return str(self.path) + (f" or the {self.earlier} earlier export(s) beside it" if self.earlier else "")


def read_manifests(directory: Path) -> Manifest:
    """The manifest of the last export into ``directory``, knowing every question of the earlier
    exports too (their manifests ``manifest-K.json``): the answers of any export's Batch job are known."""
    last = read_manifest(Path(directory) / MANIFEST)
    questions, answers, models = {}, {}, {}
    earlier = earlier_manifests(directory)
    for path in earlier:
        m = read_manifest(path)
        questions.update(m.questions)
        answers.update(m.answers)
        models.update({k: m.model for k in m.questions})
    questions.update(last.questions)
    answers.update(last.answers)
    models = {k: v for k, v in models.items() if k not in last.questions and v != last.model}
    return Manifest(last.path, last.model, questions, answers, last.prices, models, len(earlier), last.check)


def read_manifest(path: Path) -> Manifest:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(path, None, None, "no such file: run `run_judge.py attest export` first") from None
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise InputError(path, None, None, f"not an export manifest ({e})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise InputError(path, None, "format", f"not an export manifest of this version ({FORMAT!r})")
    try:
        answers = {q: tuple(words) for q, words in data["answers"].items()}
        questions = dict(data["questions"])
        if not set(questions.values()) <= set(answers):
            raise ValueError("a question without its answers")
        AttestSettings(**data["prices"])  # valid prices
        check = {str(k) for k in data.get("check", [])} & set(questions)
        return Manifest(Path(path), str(data["model"]), questions, answers, dict(data["prices"]), check=check)
    except (KeyError, TypeError, ValueError, AttributeError, ValidationError) as e:
        raise InputError(path, None, None, f"damaged export manifest ({e})") from None


@dataclass
class Imported:
    """What :func:`read_outputs` found: the answers to apply and every line rejected."""

    answers: dict[str, Answer] = field(default_factory=dict)  # custom_id -> answer, in file order
    where: dict[str, str] = field(default_factory=dict)  # custom_id -> file:line of its answer
    ids: set[str] = field(default_factory=set)  # the export's custom_ids the lines name (distinct questions)
    rejected: list[tuple[str, str, str]] = field(default_factory=list)  # (file:line, reason, detail)

    @property
    def lines(self) -> int:
        """Output lines read (blank lines are not lines): each is an answer or rejected."""
        return len(self.answers) + len(self.rejected)

    @property
    def reasons(self) -> Counter:
        return Counter(reason for _, reason, _ in self.rejected)


def read_outputs(files: list[Path], manifest: Manifest) -> Imported:
    """Read Batch API / ``vllm run_batch`` output ``files`` against ``manifest``; nothing is applied."""
    found = Imported()
    for path in files:
        try:
            handle = open(path, "rb")
        except OSError as e:
            raise InputError(path, None, None, f"cannot read answers: {e.strerror or e}") from None
        with handle:
            lines = 0
            for n, raw in enumerate(handle, start=1):
                if not raw.strip():
                    continue
                lines += 1
                where = f"{path}:{n}"
                key, result = _read_line(raw, manifest, found)
                if isinstance(result, Answer):
                    assert key is not None, "an answer comes with its custom_id (_read_line)"
                    found.answers[key] = result
                    found.where[key] = where
                else:
                    found.rejected.append((where, *result))
        if not lines:
            raise InputError(path, None, None, "no answer lines (the file is empty or holds only blank lines)")
    return found


def _read_line(raw: bytes, manifest: Manifest, found: Imported) -> tuple[Optional[str], Union[Answer, tuple[str, str]]]:
    """``(custom_id, Answer)``, or ``(custom_id or None, (reason, detail))`` for a line not applied."""
    try:
        line = json.loads(raw)
    except ValueError as e:
        return None, ("malformed JSON", f"{getattr(e, 'msg', e)} (cut short?)")
    key = line.get("custom_id") if isinstance(line, dict) else None
    if not isinstance(key, str):
        return None, ("not an output line", "no custom_id")
    if key not in manifest.questions:
        return key, ("unknown custom_id", f"{key[:16]}... is not a question of {manifest.where()}")
    found.ids.add(key)
    if key in found.where:
        return key, ("duplicate custom_id", f"answered before at {found.where[key]}")
    error = line.get("error")
    if error:
        text = f"{error.get('code')}: {error.get('message')}" if isinstance(error, dict) else str(error)
        return key, ("error", text[:200])
    response = line.get("response") if isinstance(line.get("response"), dict) else {}
    status = response.get("status_code")
    if status != 200:
        return key, (f"http {status}", "the request failed")
    result = read_completion(response.get("body"), manifest.answers[manifest.questions[key]])
    if isinstance(result, Failure):
        return key, (
            result.reason,
            f"response.body.{result.detail}" if result.detail else "the body is not a chat completion with text",
        )
    return key, result


class Applied(NamedTuple):
    applied: int  # answers stored
    cached: int  # answers the cache already had (not stored again)
    missing: int  # questions of the manifest with no answer in the cache now
    tokens_in: int
    tokens_out: int
    cost: float  # estimated, with the Batch discount
    missing_check: int = 0  # of them, questions of the check sample (the last export's)


def apply(found: Imported, manifest: Manifest, cache_dir: Path) -> Applied:
    """Store the answers ``found`` in the answer cache of ``cache_dir``, all in one transaction:
    an import that fails or is interrupted stores none of them."""
    cache = AnswerCache(Path(cache_dir))
    try:
        keys = sorted(found.answers)
        had = set(cache.get_many(keys))
        cache.put_all([(k, manifest.model_of(k), a) for k, a in found.answers.items() if k not in had])  # all or none
        unanswered = set(manifest.questions) - set(cache.get_many(sorted(manifest.questions)))
        missing = len(unanswered)
    finally:
        cache.close()
    tokens_in = sum(a.tokens_in for a in found.answers.values())
    tokens_out = sum(a.tokens_out for a in found.answers.values())
    cost = AttestSettings(**manifest.prices).cost(tokens_in, tokens_out, batch=True)
    applied = Applied(len(keys) - len(had), len(had), missing, tokens_in, tokens_out, round(cost, 6))
    return applied._replace(missing_check=len(unanswered & manifest.check))
