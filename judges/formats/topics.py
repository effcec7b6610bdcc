"""Reading topics: AutoJudge Request files and the raw forms of each track.

Records:

* Request: ``{request_id, title, problem_statement?, background?, limit?}``;
* NeuCLIR / RAGTIME requests: ``{request_id | topic_id, collection_ids, title?, problem_statement,
  background, limit}`` (no title: the problem statement stands in for it);
* RAG 2025: ``{id, narrative}``; ir_datasets: ``{qid, query}``;
* RAGTIME exports: the same fields nested under ``original_topic`` (top-level keys win).

Files: JSON Lines, a JSON array, JSON objects one after another (pretty-printed, or glued on one
line), or the TREC/NIST tab-separated form ``topic_id<TAB>query`` (one topic a line).
"""

from __future__ import annotations

import gzip
import zlib
from pathlib import Path
from typing import Iterator

from judges.core.errors import InputError
from judges.formats.jsondoc import first_char, first_record, iter_array, iter_values, read_text
from judges.formats.jsonl import JSONL_SUFFIXES, iter_jsonl
from judges.formats.runs import SHAPE_FIELDS, checked_topic_id, is_report_record, json_type
from judges.core.records import Topic

TOPIC_SUFFIXES = JSONL_SUFFIXES + (".txt", ".tsv")  # read from a topics directory (TREC TSV besides JSON)
ID_KEYS = ("request_id", "topic_id", "id", "qid", "query_id", "narrative_id")
TITLE_KEYS = ("title", "query", "narrative", "text", "topic", "problem_statement", "background")
TEXT_KEYS = ("title", "query", "narrative", "problem_statement", "background", "description", "body")


AS_TOPICS = "give run files as --rag-responses, topics as --rag-topics"


def parse_topic(obj: object, path: str, line: int) -> Topic:
    if not isinstance(obj, dict):
        raise InputError(path, line, None, f"a topic must be a JSON object, got {json_type(obj)}")
    nested = obj.get("original_topic")
    if isinstance(nested, dict):
        obj = {**nested, **{k: v for k, v in obj.items() if k != "original_topic"}}
    if is_report_record(obj):
        raise InputError(path, line, None, f"a run's report, not a topic: {AS_TOPICS}")
    key = next((k for k in ID_KEYS if obj.get(k) is not None), None)
    if key is None:
        raise InputError(path, line, "request_id", f"missing (also looked for {', '.join(ID_KEYS[1:])})")
    topic_id = checked_topic_id(obj[key], path, line, key)
    for k in TEXT_KEYS:
        v = obj.get(k)
        if v is not None and not isinstance(v, str):
            raise InputError(path, line, k, f"must be a string, got {json_type(v)}")
    title = next((obj[k] for k in TITLE_KEYS if isinstance(obj.get(k), str)), "")
    parts = []
    for k in TEXT_KEYS:
        v = obj.get(k)
        if isinstance(v, str) and v.strip() and v not in parts:
            parts.append(v.strip())
    return Topic(topic_id, title.strip(), "\n".join(parts), key)


def holds_topics(path: Path) -> bool:
    """Whether a file found among the run files holds topics, not reports (as RAGTIME 2026's team
    folders keep ``topics_small.jsonl`` beside the runs): its first record is a topic with a title
    or query, and has none of a report's fields; or, not JSON, its first line is a TREC topic
    (``topic_id<TAB>query``)."""
    if first_char(path) not in ("{", "[", ""):
        return _tsv_topic_first(path)
    obj = first_record(path)
    if not isinstance(obj, dict) or any(k in obj for k in ("metadata", "run_id", *SHAPE_FIELDS.values())):
        return False
    try:
        topic = parse_topic(obj, str(path), 1)
    except InputError:
        return False
    return bool(topic.title)


def _tsv_topic_first(path: Path, size: int = 4096) -> bool:
    """Whether the first non-blank line of a file is ``topic_id<TAB>query`` (a valid topic id)."""
    try:
        with gzip.open(path, "rb") if str(path).endswith(".gz") else open(path, "rb") as f:
            head = f.read(size)
    except (OSError, EOFError, zlib.error):
        return False
    line = next((raw for raw in head.decode("utf-8-sig", errors="replace").splitlines() if raw.strip()), "")
    topic_id, tab, query = line.partition("\t")
    if not tab or not query.strip() or "\t" in query:
        return False
    try:
        checked_topic_id(topic_id, str(path), 1, "topic_id")
    except InputError:
        return False
    return True


SHAPES = (
    "accepted topic files: JSON Lines (one {request_id|topic_id|id|qid: ..., "
    "title|query|narrative|problem_statement: ...} "
    "per line), a JSON array of such objects, or TREC TSV (topic_id<TAB>query per line)"
)


def read_topics(path: Path) -> Iterator[tuple[int, Topic | InputError]]:
    """Yield ``(line, Topic)`` for each topic of a file in any accepted shape, or ``(line, InputError)``
    for a bad record; a file of no accepted shape raises :class:`InputError` naming the shapes."""
    try:
        text = read_text(path)
    except InputError as e:
        raise InputError(e.path, e.line, None, f"{e.problem}: not a topics file; {SHAPES}") from None
    start = text.lstrip()[:1]
    if not start:
        return
    if start == "[":
        try:
            for line, index, value in iter_array(text, path):
                yield line, _topic(value, path, line, index)
        except InputError as e:
            yield e.line or 1, e
        return
    if start == "{":
        try:
            values = list(iter_values(text, path))
        except InputError:  # not one JSON stream: line by line, each bad line its own error
            values = None
        if values is not None:
            for line, value in values:
                yield line, _topic(value, path, line)
            return
        for line, value in iter_jsonl(path):
            yield line, value if isinstance(value, InputError) else _topic(value, path, line)
        return
    yield from _read_tsv(text, path)


def _topic(value: object, path: Path, line: int, index: int | None = None) -> Topic | InputError:
    try:
        return parse_topic(value, str(path), line)
    except InputError as e:
        if index is None:
            return e
        field = f"[{index}]" + ("" if e.field is None else f".{e.field}")
        return InputError(e.path, e.line, field, e.problem)


def _read_tsv(text: str, path: Path) -> Iterator[tuple[int, Topic | InputError]]:
    """TREC topics as NIST distributes them: ``topic_id<TAB>query``, one per line."""
    lines = text.splitlines()
    first = next(i for i, raw in enumerate(lines) if raw.strip())
    if "\t" not in lines[first]:
        raise InputError(path, first + 1, None, f"not a topics file (neither JSON nor tab-separated); {SHAPES}")
    for i, raw in enumerate(lines[first:], start=first + 1):
        if not raw.strip():
            continue
        topic_id, tab, query = raw.partition("\t")
        if not tab:
            yield i, InputError(path, i, None, "expected topic_id<TAB>query (no tab in this line)")
        elif "\t" in query.rstrip("\r\n"):
            columns = len(raw.split("\t"))
            yield i, InputError(path, i, None, f"expected topic_id<TAB>query (2 columns), got {columns} columns")
        else:
            try:
                topic_id = checked_topic_id(topic_id, path, i, "topic_id")
            except InputError as e:
                yield i, e
                continue
            query = query.strip()
            yield i, Topic(topic_id, query, query)
