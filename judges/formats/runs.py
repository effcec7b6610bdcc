"""Reading run files of every track into :class:`~judges.core.records.Report` records.

Shapes read (one JSON object per line, one report per topic):

* RAG 2024/2025/2026: ``answer: [{text, citations: [int | doc id]}]`` with ``references``. An int
  citation is an index into ``references`` when the report has a ``references`` list, otherwise
  the doc id written as a number; a string citation is always a doc id ("format 2").
* RAGTIME: ``responses: [{text, citations: {doc_id: confidence}}]``.
* DRAGUN, AutoJudge kiddie: ``responses: [{text, citations: [doc id]}]``.
* NeuCLIR 2024 reports as filed: ``{request_id, run_id, collection_ids, sentences: [{text,
  citations: [doc id]}]}``, without ``metadata`` (``request_id`` a string or an int).

Run and topic ids come from ``metadata`` (``run_id``; ``topic_id``, ``narrative_id`` or
``request_id``) or, for raw RAG24 and NeuCLIR files without ``metadata``, from the top level.
Embedded document texts come from ``documents`` (``{doc_id: {text, title}}``, ``{doc_id: text}``
or a list).

A run file is JSON Lines, or one JSON array of such records (``.json`` files as teams file them;
a file whose first character is ``[``). An array's records are named by the line they start on
and, in messages, by their index (``run.json:1: [3].responses: missing``); their ``offset`` is
``-(index + 1)``: they are re-read by index (:func:`read_reports` ``items``), not by byte offset.
"""

from __future__ import annotations

import math
import re
import unicodedata
from pathlib import Path
from typing import BinaryIO, Callable, Container, Iterator, Optional

from judges.core.errors import InputError
from judges.formats.jsondoc import first_char, first_record, iter_array, read_text
from judges.formats.jsonl import iter_lines, parse_line
from judges.core.records import Citation, Document, Report, Sentence

TOPIC_ID_KEYS = ("topic_id", "narrative_id", "request_id")
DOC_ID_KEYS = ("doc_id", "docid", "docno", "id", "_id")
DATASET_SHAPES = {"auto": None, "rag": "rag", "ragtime": "responses", "dragun": "responses", "neuclir": "sentences"}
DATASETS = tuple(DATASET_SHAPES)  # the --dataset names
SHAPE_FIELDS = {"rag": "answer", "responses": "responses", "sentences": "sentences"}  # shape -> its list of sentences


def read_reports(
    path: Path,
    dataset: str = "auto",
    max_citations: Optional[int] = None,
    lines: Optional[Container[int]] = None,
    items: Optional[Container[int]] = None,
    seen: Optional[Callable[[int, object], None]] = None,
) -> Iterator[tuple[int, Report | InputError]]:
    """Yield ``(line, Report)`` for each record of a run file, or ``(line, InputError)``.

    ``lines``: parse only these line numbers of a JSON Lines file, ``items`` only these indices of
    a JSON array file (a second pass that already knows what to judge). ``seen(line, value)`` is
    shown each JSON Lines record's JSON value as read, before it becomes a report (what a report
    does not keep: the RAG 2026 rules, :func:`judges.formats.rag26.check_record`).
    """
    try:
        for line, value in _read_records(path, dataset, max_citations, lines, items, seen):
            yield line, as_run_file(value) if isinstance(value, InputError) else value
    except InputError as e:  # the file cannot be read on (a gzip stream cut short or corrupt)
        raise as_run_file(e) from None


AS_RUN_FILE = "read as a run file"


def as_run_file(e: InputError) -> InputError:
    """A problem of a run file's bytes or JSON (no field named) says what the file was read as:
    a file that is no run (topics, a leaderboard) among the runs is then not a riddle."""
    if e.field is not None or e.problem.endswith(AS_RUN_FILE):
        return e
    return InputError(e.path, e.line, None, f"{e.problem}; {AS_RUN_FILE}")


def _read_records(
    path: Path,
    dataset: str,
    max_citations: Optional[int],
    lines: Optional[Container[int]],
    items: Optional[Container[int]],
    seen: Optional[Callable[[int, object], None]] = None,
) -> Iterator[tuple[int, Report | InputError]]:
    if is_array_file(path):
        yield from _read_array(path, dataset, max_citations, items)
        return
    for line, offset, raw in iter_lines(path, lines):
        value = parse_line(path, line, raw)
        if isinstance(value, InputError):
            yield line, value
            continue
        if seen is not None:
            seen(line, value)
        try:
            yield line, parse_report(value, str(path), line, dataset, max_citations, offset)
        except InputError as e:
            yield line, e


def holds_reports(path: Path) -> bool:
    """Whether a file given as topics holds the reports of a run (the mirror of
    :func:`judges.formats.topics.holds_topics`): its first record is a JSON object with a report's
    list of sentences (``answer``, ``responses``, ``sentences``) or its ``metadata``/``run_id``."""
    obj = first_record(path)
    return isinstance(obj, dict) and is_report_record(obj)


def is_report_record(obj: dict) -> bool:
    """A JSON object that is a run's report: a list of sentences, or ``metadata`` naming a run."""
    if any(isinstance(obj.get(f), list) for f in SHAPE_FIELDS.values()):
        return True
    meta = obj.get("metadata")
    return isinstance(meta, dict) and "run_id" in meta


def is_array_file(path: Path | str) -> bool:
    """Whether a run file is one JSON array of records (rather than JSON Lines)."""
    return first_char(Path(path)) == "["


def _read_array(
    path: Path, dataset: str, max_citations: Optional[int], items: Optional[Container[int]]
) -> Iterator[tuple[int, Report | InputError]]:
    try:
        for line, index, value in iter_array(read_text(path), path):
            if items is not None and index not in items:
                continue
            try:
                yield line, parse_report(value, str(path), line, dataset, max_citations, -(index + 1))
            except InputError as e:
                yield (
                    line,
                    InputError(e.path, e.line, f"[{index}]" + ("" if e.field is None else f".{e.field}"), e.problem),
                )
    except InputError as e:  # the array is broken from here on
        yield e.line or 1, e


def read_report_at(
    f: BinaryIO, path: str, line: int, offset: int, dataset: str = "auto", max_citations: Optional[int] = None
) -> Report:
    """Re-read one report, already validated by a first pass, from its byte offset in ``f``."""
    f.seek(offset)
    value = parse_line(path, line, f.readline())
    if isinstance(value, InputError):
        raise as_run_file(value)
    return parse_report(value, path, line, dataset, max_citations, offset)


# Whitespace or a control character inside an id would split or break a line of a TREC file
# (qrels are space-separated, leaderboards tab-separated): such ids are refused when read.
_UNSAFE_ID = re.compile(r"[\s\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff]")
AGGREGATE_TOPIC = "all"  # the leaderboard's mean row; no topic may be called so


def checked_id(value: object, path: str | Path, line: Optional[int], field: str) -> str:
    """An id as written (surrounding whitespace removed): a non-empty string or integer that
    fits in a field of a TREC file."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise InputError(path, line, field, f"must be a string or an integer, got {json_type(value)}")
    text = str(value).strip()
    if not text:
        raise InputError(path, line, field, "is empty")
    bad = _UNSAFE_ID.search(text)
    if bad is not None:
        char = bad.group()
        what = "whitespace" if char.isspace() else "a control character"
        raise InputError(
            path,
            line,
            field,
            f"{text!r} contains {what} ({unicodedata.name(char, f'U+{ord(char):04X}')}) "
            "at position " + str(bad.start() + 1) + ": ids must fit in one field of a TREC file",
        )
    return text


def _clean_id(value: object) -> Optional[str]:
    """``value`` stripped when it is a string that :func:`_id` would accept as it is (the common
    case, checked without naming a field for an error); ``None`` otherwise."""
    if type(value) is str:
        text = value.strip()
        if text and _UNSAFE_ID.search(text) is None:
            return text
    return None


def _reference(value: object, index: int, path: str, line: int) -> str:
    """Entry ``index`` of a report's references: an id."""
    return _clean_id(value) or checked_id(value, path, line, f"references[{index}]")


def checked_topic_id(value: object, path: str | Path, line: Optional[int], field: str) -> str:
    text = checked_id(value, path, line, field)
    if text == AGGREGATE_TOPIC:
        raise InputError(path, line, field, f"{text!r} is reserved for the leaderboard's mean over topics")
    return text


def parse_report(
    obj: object, path: str, line: int, dataset: str = "auto", max_citations: Optional[int] = None, offset: int = 0
) -> Report:
    """Validate one parsed JSON record and turn it into a :class:`Report`."""
    if not isinstance(obj, dict):
        raise InputError(path, line, None, f"a report must be a JSON object, got {json_type(obj)}")
    meta = obj.get("metadata")
    prefix = "metadata."
    if meta is None:
        meta, prefix = obj, ""
    elif not isinstance(meta, dict):
        raise InputError(path, line, "metadata", "must be an object")

    if meta.get("run_id") is None:
        raise InputError(path, line, f"{prefix}run_id", "missing")
    run_id = checked_id(meta["run_id"], path, line, f"{prefix}run_id")
    key = next((k for k in TOPIC_ID_KEYS if meta.get(k) is not None), None)
    if key is None:
        raise InputError(path, line, f"{prefix}topic_id", "missing (also looked for narrative_id, request_id)")
    topic_id = checked_topic_id(meta[key], path, line, prefix + key)
    team = meta.get("team_id")
    team_id = "" if team is None else str(team)

    present = [shape for shape, f in SHAPE_FIELDS.items() if f in obj]
    if len(present) > 1:
        both = " and ".join(f"'{SHAPE_FIELDS[s]}'" for s in present)
        raise InputError(path, line, SHAPE_FIELDS[present[0]], f"a report has both {both}")
    if not present:
        raise InputError(path, line, "responses", "missing (a report needs 'answer', 'responses' or 'sentences')")
    shape = present[0]
    field = SHAPE_FIELDS[shape]
    wanted = DATASET_SHAPES[dataset]
    if wanted is not None and wanted != shape:
        raise InputError(path, line, field, f"--dataset {dataset} expects '{SHAPE_FIELDS[wanted]}'")

    references = obj.get("references")
    if references is not None:
        if not isinstance(references, list):
            raise InputError(path, line, "references", "must be a list of doc ids")
        references = [_reference(r, i, path, line) for i, r in enumerate(references)]

    items = obj[field]
    if items is None:
        items = []
    if not isinstance(items, list):
        raise InputError(path, line, field, "must be a list of sentences")
    sentences = tuple(_sentence(item, i, references, path, line, field, max_citations) for i, item in enumerate(items))
    documents = _documents(obj.get("documents"), path, line)
    return Report(run_id, topic_id, team_id, shape, sentences, documents, path, line, offset)


def _sentence(
    item: object,
    index: int,
    references: Optional[list[str]],
    path: str,
    line: int,
    items_field: str,
    max_citations: Optional[int],
) -> Sentence:
    """Sentence ``index`` of the report's list ``items_field`` (field names are made only for errors)."""
    if not isinstance(item, dict):
        raise InputError(path, line, f"{items_field}[{index}]", "must be an object with 'text' and 'citations'")
    text = item.get("text")
    if not isinstance(text, str):
        raise InputError(path, line, f"{items_field}[{index}].text", "missing" if text is None else "must be a string")
    raw = item.get("citations")
    cites: list[Citation] = []
    if raw is None:
        pass
    elif isinstance(raw, list):
        for rank, c in enumerate(raw):
            doc_id = _clean_id(c)  # the common cases first: a doc id, an index into the references
            if doc_id is not None:
                cites.append(Citation(rank, doc_id, doc_id))
                continue
            if type(c) is int and references is not None and 0 <= c < len(references):
                cites.append(Citation(rank, str(c), references[c]))
                continue
            cfield = f"{items_field}[{index}].citations[{rank}]"
            if isinstance(c, bool) or not isinstance(c, (int, str)):
                raise InputError(path, line, cfield, f"must be an index or a doc id, got {json_type(c)}")
            if isinstance(c, int) and references is not None:
                if 0 <= c < len(references):
                    cites.append(Citation(rank, str(c), references[c]))
                else:
                    problem = f"index {c} out of range ({len(references)} references)"
                    cites.append(Citation(rank, str(c), None, None, problem))
            else:
                cites.append(Citation(rank, checked_id(c, path, line, cfield), str(c).strip()))
    elif isinstance(raw, dict):
        if items_field != SHAPE_FIELDS["responses"]:  # only RAGTIME's responses map doc ids to confidences
            raise InputError(
                path,
                line,
                f"{items_field}[{index}].citations",
                "must be a list of references or doc ids, got an object",
            )
        for rank, (doc_id, conf) in enumerate(raw.items()):
            doc_id = checked_id(doc_id, path, line, f"{items_field}[{index}].citations")
            cites.append(
                Citation(
                    rank, doc_id, doc_id, _confidence(conf, path, line, f"{items_field}[{index}].citations.{doc_id}")
                )
            )
    else:
        raise InputError(
            path, line, f"{items_field}[{index}].citations", f"must be a list or an object, got {json_type(raw)}"
        )
    dropped = 0
    if max_citations is not None and len(cites) > max_citations:
        dropped = len(cites) - max_citations
        cites = cites[:max_citations]
    return Sentence(index, text, tuple(cites), dropped)


def _confidence(value: object, path: str, line: int, field: str) -> Optional[float]:
    """A RAGTIME citation's confidence: null (none given) or a finite number >= 0."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(path, line, field, f"a confidence must be a number, got {json_type(value)}")
    confidence = float(value)
    if not math.isfinite(confidence) or confidence < 0:
        raise InputError(path, line, field, f"a confidence must be a finite number >= 0, got {value!r}")
    return confidence


def _documents(raw: object, path: str, line: int) -> dict[str, Optional[Document]]:
    if raw is None:
        return {}
    docs: dict[str, Optional[Document]] = {}
    if isinstance(raw, dict):
        for key, value in raw.items():
            doc_id = checked_id(key, path, line, "documents")  # stripped, as citations are
            docs[doc_id] = _document(doc_id, value, path, line, f"documents.{doc_id}")
        return docs
    if isinstance(raw, list):
        for i, value in enumerate(raw):
            key = next((k for k in DOC_ID_KEYS if isinstance(value, dict) and value.get(k) is not None), None)
            if key is None:
                raise InputError(path, line, f"documents[{i}]", "a listed document needs an id (doc_id, docno or id)")
            doc_id = checked_id(value[key], path, line, f"documents[{i}].{key}")
            docs[doc_id] = _document(doc_id, value, path, line, f"documents[{i}]")
        return docs
    raise InputError(path, line, "documents", f"must be an object or a list, got {json_type(raw)}")


def _document(doc_id: str, value: object, path: str, line: int, field: str) -> Optional[Document]:
    if isinstance(value, str):
        return Document(doc_id, value)
    if value is None:
        return None
    if not isinstance(value, dict):
        raise InputError(path, line, field, f"must be an object or a string, got {json_type(value)}")
    key = next((k for k in ("text", "contents", "segment") if k in value), None)
    if key is None:
        return None  # present but without text: its citations are judged 'missing'
    text = value[key]
    if not isinstance(text, str):
        raise InputError(path, line, f"{field}.{key}", f"must be a string, got {json_type(text)}")
    title = value.get("title")
    return Document(doc_id, text, title if isinstance(title, str) else "")


def json_type(value: object) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean", type(None): "null"}.get(
        type(value), "a number"
    )
