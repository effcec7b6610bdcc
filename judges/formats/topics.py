"""Reading topics: AutoJudge Request files and the raw forms of each track.

* Request: ``{request_id, title, problem_statement?, background?, limit?}``;
* RAG 2025: ``{id, narrative}``; ir_datasets: ``{qid, query}``;
* RAGTIME exports: the same fields nested under ``original_topic`` (top-level keys win).
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

from judges.errors import InputError
from judges.formats.jsonl import iter_jsonl
from judges.formats.runs import _topic_id, json_type
from judges.records import Topic

ID_KEYS = ("request_id", "topic_id", "id", "qid", "query_id", "narrative_id")
TITLE_KEYS = ("title", "query", "narrative", "text", "topic")
TEXT_KEYS = ("title", "query", "narrative", "problem_statement", "background", "description", "body")


def parse_topic(obj: object, path: str, line: int) -> Topic:
    if not isinstance(obj, dict):
        raise InputError(path, line, None, f"a topic must be a JSON object, got {json_type(obj)}")
    nested = obj.get("original_topic")
    if isinstance(nested, dict):
        obj = {**nested, **{k: v for k, v in obj.items() if k != "original_topic"}}
    key = next((k for k in ID_KEYS if obj.get(k) is not None), None)
    if key is None:
        raise InputError(path, line, "request_id", f"missing (also looked for {', '.join(ID_KEYS[1:])})")
    topic_id = _topic_id(obj[key], path, line, key)
    title = next((obj[k] for k in TITLE_KEYS if isinstance(obj.get(k), str)), "")
    parts = []
    for k in TEXT_KEYS:
        v = obj.get(k)
        if isinstance(v, str) and v.strip() and v not in parts:
            parts.append(v.strip())
    return Topic(topic_id, title.strip(), "\n".join(parts), key)


def read_topics(path: Path) -> Iterator[tuple[int, Topic | InputError]]:
    for line, value in iter_jsonl(path):
        if isinstance(value, InputError):
            yield line, value
            continue
        try:
            yield line, parse_topic(value, str(path), line)
        except InputError as e:
            yield line, e
