"""Where attestation questions go: an OpenAI-compatible chat endpoint.

Configured the AutoJudge way, from the environment (``--use-env-llm``: ``OPENAI_BASE_URL``,
``OPENAI_MODEL``, ``OPENAI_API_KEY``) or from a YAML file with the same keys
(``--llm-config``). The API key is a secret: it is never part of ``repr``, logs, the config
record, cache keys or error messages; only the request's ``Authorization`` header carries it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping
from urllib.parse import urlsplit, urlunsplit

import yaml

from judges.core.errors import InputError

KEYS = ("OPENAI_BASE_URL", "OPENAI_MODEL", "OPENAI_API_KEY")


@dataclass(frozen=True)
class Endpoint:
    base_url: str  # e.g. http://127.0.0.1:8000/v1
    model: str
    api_key: str = field(default="", repr=False)

    @property
    def chat_url(self) -> str:
        parts = urlsplit(self.base_url)
        return urlunsplit(parts._replace(path=parts.path.rstrip("/") + "/chat/completions"))

    def headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        return headers

    def describe(self) -> dict[str, str]:
        """What may be recorded: the model and the URL without credentials or query."""
        parts = urlsplit(self.base_url)
        host = parts.hostname or ""
        if parts.port:
            host += f":{parts.port}"
        return {"model": self.model, "base_url": urlunsplit((parts.scheme, host, parts.path, "", ""))}


def from_mapping(values: Mapping[str, object], source: str, line_of=lambda key: None) -> Endpoint:
    """An endpoint from ``OPENAI_*`` keys; ``source`` names the file or ``environment`` in errors."""
    base_url = str(values.get("OPENAI_BASE_URL") or "").strip()
    model = str(values.get("OPENAI_MODEL") or "").strip()
    if not base_url:
        raise InputError(
            source,
            line_of("OPENAI_BASE_URL"),
            "OPENAI_BASE_URL",
            "missing (the server's URL, e.g. http://127.0.0.1:8000/v1)",
        )
    if urlsplit(base_url).scheme not in ("http", "https"):
        raise InputError(source, line_of("OPENAI_BASE_URL"), "OPENAI_BASE_URL", "must start with http:// or https://")
    if not model:
        raise InputError(source, line_of("OPENAI_MODEL"), "OPENAI_MODEL", "missing (the model name the server expects)")
    return Endpoint(base_url, model, str(values.get("OPENAI_API_KEY") or ""))


def from_env(environ: Mapping[str, str] = os.environ) -> Endpoint:
    return from_mapping(environ, "environment")


def from_file(path: Path) -> Endpoint:
    """Read ``OPENAI_BASE_URL``, ``OPENAI_MODEL`` and (optionally) ``OPENAI_API_KEY`` from YAML."""
    try:
        text = Path(path).read_text(encoding="utf-8")
        data = yaml.safe_load(text)
    except OSError as e:
        raise InputError(path, None, None, f"cannot read LLM config: {e.strerror}") from None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        raise InputError(path, mark.line + 1 if mark else None, None, "invalid YAML") from None
    if not isinstance(data, dict):
        raise InputError(path, None, None, f"an LLM config must be a mapping of {', '.join(KEYS)}")
    lines = {line.split(":", 1)[0].strip(): i for i, line in enumerate(text.splitlines(), 1) if ":" in line}
    for key in data:
        if key not in KEYS:
            raise InputError(path, lines.get(str(key)), str(key), f"unknown key (expected {', '.join(KEYS)})")
    return from_mapping(data, str(path), lines.get)
